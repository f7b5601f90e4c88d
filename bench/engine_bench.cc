// Local engine benchmarks (issue 13), a bench command rather than a Google Benchmark: each
// scenario times whole processes, the path a user takes (a `hop -e` process running a query),
// paired in the same run with its raw baseline on the same data, the two run in turn:
//
//   scan       a filtered scan of a 1M-row local table   vs  the sqlite3 shell on the same file
//   aggregate  GROUP BY over the same table              vs  the sqlite3 shell on the same file
//   join       a join of two 1M-row local tables         vs  psql running it on a PostgreSQL
//                                                            server this command starts
//   stream     SELECT * of a 10M-row local table, its    vs  the sqlite3 shell, the same rows
//              rows written to /dev/null
//   pgjoin     a join of a 1M-row local table with a     vs  psql running it on the same server,
//              100k-row PostgreSQL table (read through       the 1M rows there too
//              the PostgreSQL adapter)
//   refresh    `hop refresh` of a materialized view of   vs  the sqlite3 shell running the same
//              half the 1M rows into a local table           DELETE and INSERT ... SELECT in one
//              (replacing its rows, then its watermark)       transaction on the same file
//   pgcopy     `hop refresh` of a materialized view of   vs  psql running DELETE and \copy of the
//              the 1M local rows into a PostgreSQL           same rows from a file, in one
//              table (by COPY from the local engine)          transaction, on the same server
//   pginside   `hop refresh` of a materialized view of   vs  psql running the same DELETE and
//              1M rows of a PostgreSQL table into            INSERT ... SELECT in one transaction
//              another (INSERT ... SELECT inside it)
//
// Targets: scan and aggregate within 1.2x of sqlite3, join within 2x of PostgreSQL, refresh
// within 1.3x of sqlite3, pgcopy and pginside within 1.3x of psql, and the stream's peak memory (max RSS) bounded, not growing with the
// rows.
//
//   engine_bench [--rows N] [--big-rows N] [--runs N] [--only NAME]
//
// The data is made through hop (CREATE TABLE and INSERT ... SELECT, as a user would) in a
// temporary state directory, and the same data in PostgreSQL by generate_series; each pair's
// answers are checked to agree before it is timed.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test/lib/postgres_server.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A failure: thrown, so that the PostgreSQL server and the data are cleaned up on the way out.
struct Failure {
  std::string message;
};

[[noreturn]] void Die(const std::string& message) { throw Failure{message}; }

// Removes the benchmark's directory (its state directory and data) however it ends.
struct RemoveOnExit {
  std::string dir;
  ~RemoveOnExit() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

struct Run {
  double wall_ms = 0;
  long max_rss_kb = 0;
  std::string out;  // standard output, when captured
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `argv` (found on PATH), its standard input empty; its standard output kept when
// `capture`, else thrown away. A failure to start or a non-zero exit stops the benchmark.
Run Spawn(const std::vector<std::string>& argv, bool capture, const std::string& scratch) {
  const std::string out_path = scratch + "/stdout";
  const std::string err_path = scratch + "/stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, capture ? out_path.c_str() : "/dev/null",
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  Run run;
  const auto start = Clock::now();
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) Die(argv[0] + ": cannot start: " + std::strerror(rc));
  int status = 0;
  struct rusage usage;
  if (wait4(pid, &status, 0, &usage) != pid) Die(argv[0] + ": lost");
  run.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  run.max_rss_kb = usage.ru_maxrss;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    Die(argv[0] + " failed (status " + std::to_string(status) + "): " + ReadFile(err_path));
  }
  if (capture) run.out = ReadFile(out_path);
  return run;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The data lines of a result: hop's aligned table without its header, rule and row count;
// sqlite3's and psql's unaligned output as it is. Cells are trimmed and joined with '|'.
std::vector<std::string> DataLines(const std::string& out, bool hop_table) {
  std::vector<std::string> lines;
  std::stringstream in(out);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (hop_table && (n <= 2 || (!line.empty() && line.front() == '('))) continue;
    std::string cells, cell;
    std::stringstream parts(line);
    bool first = true;
    while (std::getline(parts, cell, '|')) {
      const size_t b = cell.find_first_not_of(' ');
      const size_t e = cell.find_last_not_of(' ');
      cells += (first ? "" : "|") + (b == std::string::npos ? "" : cell.substr(b, e - b + 1));
      first = false;
    }
    lines.push_back(cells);
  }
  return lines;
}

// Whether two results agree: the same rows, numbers compared to 12 significant digits (hop
// prints doubles as Calcite does, sqlite3 with 15 digits).
bool SameResult(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    std::stringstream x(a[i]), y(b[i]);
    std::string p, q;
    while (true) {
      const bool more_x = static_cast<bool>(std::getline(x, p, '|'));
      const bool more_y = static_cast<bool>(std::getline(y, q, '|'));
      if (more_x != more_y) return false;
      if (!more_x) break;
      if (p == q) continue;
      char* end_p = nullptr;
      char* end_q = nullptr;
      const double dp = std::strtod(p.c_str(), &end_p);
      const double dq = std::strtod(q.c_str(), &end_q);
      if (*end_p != '\0' || *end_q != '\0') return false;
      if (std::fabs(dp - dq) > 1e-12 * std::max(1.0, std::fabs(dq))) return false;
    }
  }
  return true;
}

struct Scenario {
  std::string name;
  std::string what;
  std::vector<std::string> a;  // hop
  std::vector<std::string> b;  // the baseline
  std::string b_name;
  double goal = 0;    // A/B wall-clock goal; 0: none (memory is the point)
  bool check = true;  // compare the answers first
};

// `n` rows numbered 0..n-1 as a derived table `n (id)`: a cross join of digit tables, as a user
// without a generator would write it.
std::string Numbers(long n) {
  const std::string digits = "(VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9))";
  int places = 1;
  for (long p = 10; p < n; p *= 10) ++places;
  std::string id, from;
  long scale = 1;
  for (int i = 0; i < places; ++i, scale *= 10) {
    const std::string alias = "d" + std::to_string(i);
    id += (i ? " + " : "") + (scale == 1 ? "" : std::to_string(scale) + " * ") + alias + ".x";
    from += (i ? ", " : "") + digits + " AS " + alias + " (x)";
  }
  return "(SELECT id FROM (SELECT " + id + " AS id FROM " + from + ") AS g WHERE id < " +
         std::to_string(n) + ") AS n";
}

int Bench(int argc, char** argv) {
  long rows = 1000000, big_rows = 10000000;
  int runs = 10;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--rows") {
      rows = std::stol(value());
    } else if (arg == "--big-rows") {
      big_rows = std::stol(value());
    } else if (arg == "--runs") {
      runs = std::stoi(value());
    } else if (arg == "--only") {
      only = value();
    } else {
      Die("usage: engine_bench [--rows N] [--big-rows N] [--runs N] [--only NAME]");
    }
  }
  if (rows < 10 || big_rows < 10 || runs < 1) Die("--rows, --big-rows >= 10 and --runs >= 1");
  const bool want_join = only.empty() || only == "join" || only == "pgjoin";
  const bool want_pg_refresh = only.empty() || only == "pgcopy" || only == "pginside";
  const bool want_pg = want_join || want_pg_refresh;
  const bool want_stream = only.empty() || only == "stream";
  const bool want_refresh = only.empty() || only == "refresh";

  char tmpl[] = "/tmp/hop-engine-bench-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) Die("cannot make a temporary directory");
  const std::string dir = tmpl;
  RemoveOnExit remove{dir};
  const std::string state = dir + "/state";
  const std::string hop = HOP_BINARY;
  {
    std::ofstream yaml(dir + "/bench.yaml");
    yaml << "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Database\n"
            "metadata:\n  name: bench-database\nspec:\n  schema: BENCH\n"
            "  url: \"jdbc:local:bench\"\n  dialect: Calcite\n";
  }
  const std::string file = state + "/local/bench.db";
  std::printf("engine_bench: %ld rows, %ld for the stream, %d runs each; data in %s\n", rows,
              big_rows, runs, dir.c_str());
  std::fflush(stdout);

  // The data, through hop.
  auto timed = [&](const std::string& what, const std::vector<std::string>& argv) {
    const Run r = Spawn(argv, false, dir);
    std::printf("  setup: %s in %.1f s\n", what.c_str(), r.wall_ms / 1000);
    std::fflush(stdout);
  };
  timed("apply the Database", {hop, "--state", state, "apply", "-f", dir + "/bench.yaml"});
  timed("fill BENCH.T",
        {hop, "--state", state, "-e",
         "CREATE TABLE bench.t (id BIGINT, k INTEGER, category VARCHAR, amount DOUBLE)", "-e",
         "INSERT INTO bench.t SELECT id, MOD(id, 1000), 'c' || CAST(MOD(id, 10) AS VARCHAR), "
         "CAST(MOD(id * 7919, 100000) AS DOUBLE) / 100 FROM " +
             Numbers(rows)});
  if (want_join) {
    timed("fill BENCH.A and BENCH.B",
          {hop, "--state", state, "-e", "CREATE TABLE bench.a (id BIGINT, v INTEGER)", "-e",
           "CREATE TABLE bench.b (id BIGINT, w INTEGER)", "-e",
           "INSERT INTO bench.a SELECT id, MOD(id, 97) FROM " + Numbers(rows), "-e",
           "INSERT INTO bench.b SELECT MOD(id * 7919, " + std::to_string(rows) +
               "), MOD(id, 89) FROM " + Numbers(rows)});
  }
  if (want_stream) {
    timed("fill BENCH.BIG",
          {hop, "--state", state, "-e",
           "CREATE TABLE bench.big (id BIGINT, k INTEGER, category VARCHAR, amount DOUBLE)", "-e",
           "INSERT INTO bench.big SELECT id, MOD(id, 1000), 'c' || CAST(MOD(id, 10) AS VARCHAR), "
           "CAST(MOD(id * 7919, 100000) AS DOUBLE) / 100 FROM " +
               Numbers(big_rows)});
  }

  if (want_refresh) {
    timed("create BENCH.HALF and refresh it once",
          {hop, "--state", state, "-e",
           "CREATE MATERIALIZED VIEW bench.half AS SELECT id, k, category, amount * 2 AS amount "
           "FROM bench.t WHERE k < 500",
           "-e", "REFRESH MATERIALIZED VIEW bench.half", "-e", "!wait 600"});
  }

  hop::testing::PostgresServer pg;
  std::vector<std::string> psql;
  if (want_pg) {
    hop::Status started = pg.Start();
    if (!started.ok()) Die(started.ToString());
    const std::string n = std::to_string(rows);
    for (const std::string& sql :
         {std::string("CREATE TABLE a (id BIGINT, v INTEGER)"),
          std::string("CREATE TABLE b (id BIGINT, w INTEGER)"),
          "INSERT INTO a SELECT g, g % 97 FROM generate_series(0, " + n + " - 1) g",
          "INSERT INTO b SELECT (g::bigint * 7919) % " + n + ", g % 89 FROM generate_series(0, " +
              n + " - 1) g",
          std::string("VACUUM ANALYZE a"), std::string("VACUUM ANALYZE b"),
          std::string("CREATE TABLE small (id BIGINT, w INTEGER)"),
          std::string("INSERT INTO small SELECT g, g % 89 FROM generate_series(0, 99999) g"),
          std::string("VACUUM ANALYZE small"),
          // pgcopy's and pginside's baselines write tables of their own.
          std::string("CREATE TABLE copy_base (id BIGINT, k INTEGER, category TEXT, amount "
                      "DOUBLE PRECISION)"),
          std::string("CREATE TABLE inside_base (id BIGINT, v INTEGER)")}) {
      auto r = pg.Exec(sql);
      if (!r.ok()) Die("PostgreSQL: " + r.status().ToString());
    }
    psql = {"psql", "-X", "-q", "-A", "-t", "-h", pg.socket_dir(), "-U", "postgres", "-c"};
    // The same server as a Database of hop's, for the pgjoin scenario.
    {
      std::ofstream yaml(dir + "/pg.yaml");
      yaml << "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Database\n"
              "metadata:\n  name: pg-database\nspec:\n  schema: PG\n"
              "  url: \"postgresql:///postgres?host="
           << pg.socket_dir()
           << (pg.port() > 0 ? "&port=" + std::to_string(pg.port()) : std::string())
           << "&user=postgres\"\n";
    }
    timed("apply the PostgreSQL Database", {hop, "--state", state, "apply", "-f", dir + "/pg.yaml"});
  }
  if (want_pg_refresh) {
    timed("create PG.COPY and PG.INSIDE and refresh them once",
          {hop, "--state", state, "-e",
           "CREATE MATERIALIZED VIEW pg.copy AS SELECT id, k, category, amount * 2 AS amount "
           "FROM bench.t",
           "-e", "CREATE MATERIALIZED VIEW pg.inside AS SELECT id, v FROM pg.a", "-e",
           "REFRESH MATERIALIZED VIEW pg.copy", "-e", "REFRESH MATERIALIZED VIEW pg.inside", "-e",
           "!wait 600"});
    // pgcopy's baseline: the same rows in a file, as psql's \copy reads them.
    const Run exported =
        Spawn({"sqlite3", "-separator", "\t", file,
               ".once " + dir + "/copy.tsv",
               "SELECT id, k, category, amount * 2 FROM t"},
              false, dir);
    (void)exported;
    std::ofstream(dir + "/copy.sql") << "BEGIN;\nDELETE FROM copy_base;\n\\copy copy_base FROM '"
                                     << dir << "/copy.tsv'\nCOMMIT;\n";
  }

  std::vector<Scenario> scenarios;
  auto sqlite = [&](const std::string& sql) {
    return std::vector<std::string>{"sqlite3", file, sql};
  };
  auto hop_query = [&](const std::string& sql) {
    return std::vector<std::string>{hop, "--state", state, "-e", sql};
  };
  scenarios.push_back(
      {"scan", "filtered scan, " + std::to_string(rows) + " rows",
       hop_query("SELECT id, category, amount FROM bench.t WHERE k = 7 AND amount > 500"),
       sqlite("SELECT id, category, amount FROM t WHERE k = 7 AND amount > 500"), "sqlite3", 1.2});
  scenarios.push_back(
      {"aggregate", "GROUP BY, " + std::to_string(rows) + " rows",
       hop_query("SELECT category, COUNT(*) AS n, SUM(k) AS s, AVG(amount) AS a FROM bench.t "
                 "GROUP BY category ORDER BY category"),
       sqlite("SELECT category, COUNT(*) AS n, SUM(k) AS s, AVG(amount) AS a FROM t GROUP BY "
              "category ORDER BY category"),
       "sqlite3", 1.2});
  if (want_join) {
    std::vector<std::string> b = psql;
    b.push_back("SELECT COUNT(*), SUM(a.v + b.w) FROM a JOIN b ON a.id = b.id");
    scenarios.push_back(
        {"join", "join of two " + std::to_string(rows) + "-row tables",
         hop_query("SELECT COUNT(*) AS n, SUM(a.v + b.w) AS s FROM bench.a JOIN bench.b ON "
                   "a.id = b.id"),
         b, "PostgreSQL", 2.0});
    std::vector<std::string> pb = psql;
    pb.push_back("SELECT COUNT(*), SUM(a.v + small.w) FROM a JOIN small ON a.id = small.id");
    scenarios.push_back(
        {"pgjoin", "1M local rows join 100k in PostgreSQL",
         hop_query("SELECT COUNT(*) AS n, SUM(a.v + s.w) AS s FROM bench.a JOIN pg.small s ON "
                   "a.id = s.id"),
         pb, "PostgreSQL", 0});
  }
  if (want_pg_refresh) {
    std::vector<std::string> copy = psql;
    copy.pop_back();  // -c
    copy.insert(copy.end(), {"-v", "ON_ERROR_STOP=1", "-f", dir + "/copy.sql"});
    scenarios.push_back({"pgcopy", "refresh into PostgreSQL, " + std::to_string(rows) + " rows",
                         {hop, "--state", state, "refresh", "PG.COPY"}, copy, "psql \\copy", 1.3,
                         /*check=*/false});
    std::vector<std::string> inside = psql;
    inside.push_back(
        "BEGIN; DELETE FROM inside_base; INSERT INTO inside_base SELECT id, v FROM a; COMMIT;");
    scenarios.push_back({"pginside", "refresh inside PostgreSQL, " + std::to_string(rows) + " rows",
                         {hop, "--state", state, "refresh", "PG.INSIDE"}, inside, "psql", 1.3,
                         /*check=*/false});
  }
  if (want_stream) {
    scenarios.push_back({"stream", "SELECT * of " + std::to_string(big_rows) + " rows",
                         hop_query("SELECT * FROM bench.big"), sqlite("SELECT * FROM big"),
                         "sqlite3", 0, /*check=*/false});
  }

  if (want_refresh) {
    scenarios.push_back(
        {"refresh", "refresh of a view, " + std::to_string(rows / 2) + " rows",
         {hop, "--state", state, "refresh", "BENCH.HALF"},
         sqlite("BEGIN; DELETE FROM HALF; INSERT INTO HALF SELECT ID, K, CATEGORY, AMOUNT * 2 "
                "FROM T WHERE K < 500; COMMIT;"),
         "sqlite3", 1.3, /*check=*/false});
  }

  std::printf("\n%-10s %-32s %10s %10s %8s %6s %10s %10s\n", "scenario", "what", "hop ms",
              "base ms", "ratio", "goal", "hop RSS", "base RSS");
  bool met = true;
  for (const Scenario& s : scenarios) {
    if (!only.empty() && s.name != only) continue;
    if (s.check) {
      const Run a = Spawn(s.a, true, dir);
      const Run b = Spawn(s.b, true, dir);
      const auto la = DataLines(a.out, true);
      const auto lb = DataLines(b.out, false);
      if (!SameResult(la, lb)) {
        Die(s.name + ": hop and " + s.b_name + " disagree:\n" + a.out + "\n---\n" + b.out);
      }
    } else {
      (void)Spawn(s.a, false, dir);  // warm-up
      (void)Spawn(s.b, false, dir);
    }
    std::vector<double> wall_a, wall_b, ratios;
    long rss_a = 0, rss_b = 0;
    for (int i = 0; i < runs; ++i) {
      const Run a = Spawn(s.a, false, dir);
      const Run b = Spawn(s.b, false, dir);
      wall_a.push_back(a.wall_ms);
      wall_b.push_back(b.wall_ms);
      ratios.push_back(a.wall_ms / b.wall_ms);
      rss_a = std::max(rss_a, a.max_rss_kb);
      rss_b = std::max(rss_b, b.max_rss_kb);
    }
    const double ratio = Median(ratios);
    std::string goal = s.goal > 0 ? "<=" + std::to_string(s.goal).substr(0, 3) : "-";
    if (s.goal > 0 && ratio > s.goal) met = false;
    std::printf("%-10s %-32s %10.1f %10.1f %7.2fx %6s %7.1f MB %7.1f MB  vs %s\n", s.name.c_str(),
                s.what.c_str(), Median(wall_a), Median(wall_b), ratio, goal.c_str(), rss_a / 1024.0,
                rss_b / 1024.0, s.b_name.c_str());
    std::fflush(stdout);
  }
  std::printf(
      "\nmedians of %d runs each; ratio: the median of hop/baseline, pair by pair; RSS: "
      "the largest of the runs. %s\n",
      runs, met ? "Every time goal met." : "A time goal was NOT met.");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Bench(argc, argv);
  } catch (const Failure& f) {
    std::fprintf(stderr, "engine_bench: %s\n", f.message.c_str());
    return 1;
  }
}
