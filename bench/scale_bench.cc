// What users see of hop at scale (issue 18): whole `hop` processes on real state directories,
// timed by the wall clock with durable commits, each measure paired in the same run with a raw
// baseline on the same machine and disk, taken in turn (hop, baseline, hop, ...), with one
// warm-up run of each first. Prints a Markdown table: measure | hop | baseline | ratio.
//
//   start    cold `hop --version` against /bin/true and `sqlite3 :memory: 'select 1'`
//   ddl      STATEMENTS CREATE MATERIALIZED VIEW in one `hop -f` (the in-process operator on, as
//            by default), statements/s; baseline: the same rows (every object the statements
//            wrote, with its labels, owners, index keys and event) written into a copy of the
//            same store with the sqlite3 C API, one BEGIN IMMEDIATE ... COMMIT per statement,
//            WAL and synchronous=FULL (each commit durable when it returns, as the store's are);
//            and the same `hop -f` while a `hop serve` runs the operator, timed until every
//            Pipeline has the status `hop serve` gives it
//   cold     for each store size (materialized views present), one process each of
//            `hop -e '!pipeline ...'`, `hop get views -l ...` returning 1,000 of them,
//            `hop -e '!wait'` (wall and CPU) and `hop -e 'CREATE MATERIALIZED VIEW ...'`; the
//            baselines are the `sqlite3` CLI reading the rows the command needs from the same
//            file, or writing one durable commit of one view's rows into a copy of it
//   fire     FIRE VIEW -> Job process started, one trigger, under a `hop serve` process with
//            local Jobs on, the FIRE issued in turn by a `hop -e` process and by a client that
//            holds a connection to `hop serve --pg-port` (libpq, as an application connects);
//            the Job writes `date +%s%N`; baseline: one durable SQLite commit then posix_spawn
//            of the same command, and for the `hop -e` FIRE also the same commit made by a
//            `sqlite3` process (the process start a `hop -e` FIRE pays too)
//   fanout   one FIRE VIEW of a view with TRIGGERS triggers under `hop serve --max-jobs M`, until
//            every Job process has started; baseline: TRIGGERS posix_spawns of the same command,
//            M at a time; FANOUT_RUNS rounds of each, alternating
//   cluster  the Kubernetes mode (issue 19) against the embedded one, in turn on copies of the
//            same state: one FIRE VIEW of a view with CLUSTER_TRIGGERS triggers until every Job
//            process has started, and FIRE VIEW -> Job process started for one trigger, FIRES
//            times; on the cluster the FIRE is a `hop --kubeconfig` process, a `hop operator`
//            reconciles through the Kubernetes API of a `hop serve --no-operator` (which runs
//            the Jobs, as the embedded `hop serve` does), and the API requests it served in the
//            fan-out are counted from its /metrics
//
// Stores of many views are made from one view hop wrote (a template store), its objects copied
// under new names and uids into the store's own tables; `hop get` and `hop wait` are run on the
// result before anything is timed, so hop reads them as its objects.
//
//   scale_bench [--only start,ddl,cold,fire,fanout] [--sizes 0,1000,10000] [--runs 5]
//               [--ddl-runs 3] [--statements 1000] [--fires 200] [--triggers 2000]
//               [--fanout-runs 3] [--max-jobs 4] [--cluster-triggers 10000] [--cluster-qps Q]
//               [--hop PATH] [--dir DIR] [--keep]
#include <arpa/inet.h>
#include <fcntl.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "resource/names.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "scale_bench: %s\n", what.c_str());
  std::exit(1);
}

void Progress(const std::string& what) {
  std::fprintf(stderr, "scale_bench: %s\n", what.c_str());
  std::fflush(stderr);
}

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Tail(const std::string& path) {
  const std::string s = ReadText(path);
  return s.size() > 2000 ? s.substr(s.size() - 2000) : s;
}

// ---- processes ----

struct Outcome {
  int status = 0;   // exit status; 128 + signal when killed
  double wall = 0;  // seconds, spawn to reaped
  double cpu = 0;   // user + system seconds of the process and the children it waited for
};

double CpuSeconds(const rusage& r) {
  return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

// Starts `argv` with stdin from /dev/null, stdout and stderr appended to `log`.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) Fail("cannot start " + argv[0] + ": " + std::strerror(rc));
  return pid;
}

// Runs `argv` to its end, output appended to `log`.
Outcome Run(const std::vector<std::string>& argv, const std::string& log = "/dev/null") {
  const auto start = Clock::now();
  const pid_t pid = Spawn(argv, log);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  Outcome o;
  o.wall = Seconds(Clock::now() - start);
  o.cpu = CpuSeconds(usage);
  o.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return o;
}

// As Run, but a failure ends the benchmark with what the command printed.
Outcome MustRun(const std::vector<std::string>& argv, const std::string& log) {
  Outcome o = Run(argv, log);
  if (o.status != 0) {
    std::string line;
    for (const auto& a : argv) line += a + " ";
    Fail("failed (exit " + std::to_string(o.status) + "): " + line + "\n" + Tail(log));
  }
  return o;
}

// ---- SQLite ----

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) {
      Fail("sqlite: " + std::string(sqlite3_errmsg(db)) + " in " + sql);
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& Bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& Bind(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  // The next row: true, or false at the end.
  bool Step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    Fail("sqlite: " + std::string(sqlite3_errmsg(db_)));
  }
  void Run() {
    Step();
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::string Text(int col) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p == nullptr ? ""
                        : std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
  }
  int64_t Int(int col) { return sqlite3_column_int64(stmt_, col); }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// A connection whose commits are durable when they return, as the store's are (store/
// sqlite_store.cc: WAL, kept by the file; synchronous=FULL, where the store writes with NORMAL
// and syncs the WAL itself; foreign keys on).
class Database {
 public:
  explicit Database(const std::string& path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) Fail("cannot open " + path);
    sqlite3_busy_timeout(db_, 10000);
    Exec("PRAGMA journal_mode=WAL");
    Exec("PRAGMA synchronous=FULL");
    Exec("PRAGMA foreign_keys=ON");
  }
  ~Database() { sqlite3_close(db_); }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void Exec(const std::string& sql) {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      const std::string message = error == nullptr ? "?" : error;
      sqlite3_free(error);
      Fail("sqlite: " + message + " in " + sql.substr(0, 200));
    }
  }
  int64_t Count(const std::string& sql) {
    Statement st(db_, sql);
    return st.Step() ? st.Int(0) : 0;
  }
  sqlite3* handle() { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

// One object row of the store, with its index rows.
struct StoredObject {
  std::string grp, kind, ns, name, uid, body;
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<std::string> owners;
  std::vector<std::string> keys;  // its index keys (object_keys)
};

// The objects of `db` whose id is above `after`, in the order they were made.
std::vector<StoredObject> ObjectsAfter(Database& db, int64_t after) {
  std::vector<StoredObject> out;
  Statement st(db.handle(),
               "SELECT id, grp, kind, namespace, name, uid, body FROM objects WHERE id > ? "
               "ORDER BY id");
  Statement labels(db.handle(), "SELECT key, value FROM labels WHERE object_id = ?");
  Statement owners(db.handle(), "SELECT owner_uid FROM owners WHERE object_id = ?");
  Statement keys(db.handle(), "SELECT key FROM object_keys WHERE object_id = ?");
  st.Bind(1, after);
  while (st.Step()) {
    StoredObject o{st.Text(1), st.Text(2), st.Text(3), st.Text(4), st.Text(5),
                   st.Text(6), {},         {},         {}};
    labels.Bind(1, st.Int(0));
    while (labels.Step()) o.labels.emplace_back(labels.Text(0), labels.Text(1));
    labels.Reset();
    owners.Bind(1, st.Int(0));
    while (owners.Step()) o.owners.push_back(owners.Text(0));
    owners.Reset();
    keys.Bind(1, st.Int(0));
    while (keys.Step()) o.keys.push_back(keys.Text(0));
    keys.Reset();
    out.push_back(std::move(o));
  }
  return out;
}

// Writes `objects` as the store writes a batch of creates (SqliteStore::Commit): in one
// BEGIN IMMEDIATE transaction, the revision read, each object looked up by name, inserted with
// its labels, owners and event, the revision written back.
class RawWriter {
 public:
  explicit RawWriter(Database& db)
      : db_(db),
        revision_(db.handle(), "SELECT value FROM meta WHERE key = 'revision'"),
        lookup_(db.handle(),
                "SELECT id FROM objects WHERE grp = ? AND kind = ? AND namespace = ? AND name = ?"),
        object_(db.handle(),
                "INSERT INTO objects (grp, kind, namespace, name, uid, revision, body) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)"),
        label_(db.handle(), "INSERT INTO labels (object_id, key, value) VALUES (?, ?, ?)"),
        owner_(db.handle(), "INSERT OR IGNORE INTO owners (owner_uid, object_id) VALUES (?, ?)"),
        key_(db.handle(), "INSERT OR IGNORE INTO object_keys (key, object_id) VALUES (?, ?)"),
        event_(db.handle(),
               "INSERT INTO events (revision, type, grp, kind, namespace, name, body) "
               "VALUES (?, 0, ?, ?, ?, ?, ?)"),
        write_revision_(db.handle(), "UPDATE meta SET value = ? WHERE key = 'revision'") {}

  void Commit(const std::vector<const StoredObject*>& objects) {
    db_.Exec("BEGIN IMMEDIATE");
    revision_.Step();
    int64_t revision = revision_.Int(0);
    revision_.Reset();
    for (const StoredObject* o : objects) {
      lookup_.Bind(1, o->grp).Bind(2, o->kind).Bind(3, o->ns).Bind(4, o->name);
      if (lookup_.Step()) Fail("raw baseline: " + o->name + " exists");
      lookup_.Reset();
      ++revision;
      object_.Bind(1, o->grp).Bind(2, o->kind).Bind(3, o->ns).Bind(4, o->name).Bind(5, o->uid);
      object_.Bind(6, revision).Bind(7, o->body);
      object_.Run();
      const int64_t id = sqlite3_last_insert_rowid(db_.handle());
      for (const auto& [k, v] : o->labels) label_.Bind(1, id).Bind(2, k).Bind(3, v).Run();
      for (const auto& uid : o->owners) owner_.Bind(1, uid).Bind(2, id).Run();
      for (const auto& key : o->keys) key_.Bind(1, key).Bind(2, id).Run();
      event_.Bind(1, revision).Bind(2, o->grp).Bind(3, o->kind).Bind(4, o->ns).Bind(5, o->name);
      event_.Bind(6, o->body).Run();
    }
    write_revision_.Bind(1, revision).Run();
    db_.Exec("COMMIT");
  }

 private:
  Database& db_;
  Statement revision_, lookup_, object_, label_, owner_, key_, event_, write_revision_;
};

// `text` with every `from` replaced by `to`.
std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

std::string SqlQuote(const std::string& s) { return "'" + ReplaceAll(s, "'", "''") + "'"; }

// ---- statistics ----

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(q * static_cast<double>(v.size()));
  if (i > 0 && static_cast<double>(i) == q * static_cast<double>(v.size())) --i;
  return v[std::min(i, v.size() - 1)];
}
double Median(const std::vector<double>& v) { return Percentile(v, 0.5); }

// ---- the table ----

std::string Format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string Time(double seconds) {
  if (seconds >= 1) return Format("%.2f s", seconds);
  return Format("%.1f ms", seconds * 1000);
}

// The rows printed at the end, each also reported on standard error as it is measured.
class Table {
 public:
  void Add(const std::string& measure, const std::string& hop, const std::string& baseline,
           const std::string& ratio) {
    rows_.push_back({measure, hop, baseline, ratio});
    Progress(measure + ": " + hop + " | " + baseline + " | " + ratio);
  }

  // A time measured in turn with its baseline: the medians, and the median of the pairwise
  // ratios.
  void AddTimes(const std::string& measure, const std::string& baseline,
                const std::vector<double>& hop, const std::vector<double>& base) {
    std::vector<double> ratios;
    for (size_t i = 0; i < std::min(hop.size(), base.size()); ++i) {
      if (base[i] > 0) ratios.push_back(hop[i] / base[i]);
    }
    Add(measure, Time(Median(hop)), Time(Median(base)) + " " + baseline,
        Format("%.1fx", Median(ratios)));
  }

  void Print() const {
    std::printf("| measure | hop | baseline | ratio |\n|---|---|---|---|\n");
    for (const auto& r : rows_) {
      std::printf("| %s | %s | %s | %s |\n", r.measure.c_str(), r.hop.c_str(), r.baseline.c_str(),
                  r.ratio.c_str());
    }
  }

 private:
  struct Row {
    std::string measure, hop, baseline, ratio;
  };
  std::vector<Row> rows_;
};

// GET `path` of an HTTP server on 127.0.0.1:`port`; the body ("" when it cannot be read).
std::string HttpGet(int port, const std::string& path) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string request =
        "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buf[65536];
      for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  const size_t body = out.find("\r\n\r\n");
  return body == std::string::npos ? "" : out.substr(body + 4);
}

// The sum of a Prometheus counter family's samples in `text`.
double CounterSum(const std::string& text, const std::string& family) {
  double sum = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(family, 0) != 0 ||
        (line.size() > family.size() && line[family.size()] != '{' && line[family.size()] != ' ')) {
      continue;
    }
    sum += std::strtod(line.c_str() + line.rfind(' ') + 1, nullptr);
  }
  return sum;
}

// ---- options and shared state ----

struct Options {
  std::set<std::string> only;
  std::vector<long> sizes = {0, 1000, 10000};
  int runs = 5;
  int ddl_runs = 3;
  int statements = 1000;
  int fires = 200;
  int triggers = 2000;
  int fanout_runs = 3;
  int cluster_triggers = 10000;
  std::string cluster_qps;  // the operator's --kube-qps; empty: hop's default
  int max_jobs = 4;
  std::string hop = HOP_BINARY;
  std::string dir;
  bool keep = false;
};

struct Context {
  Options options;
  std::string dir;   // everything this run writes
  std::string log;   // what the untimed commands print
  std::string base;  // a state directory holding the demo environment
  Table table;

  std::vector<std::string> Hop(const std::string& state, std::vector<std::string> args) const {
    args.insert(args.begin(), {options.hop, "--state", state});
    return args;
  }
  std::string Store(const std::string& state) const { return state + "/hop.db"; }

  // A new state directory, a copy of `from` (whose processes have all exited).
  std::string CopyState(const std::string& from, const std::string& name) const {
    const std::string to = dir + "/" + name;
    fs::remove_all(to);
    fs::copy(from, to, fs::copy_options::recursive);
    return to;
  }
};

const char* kDemoView =
    " AS SELECT first_name, last_name FROM ads.page_views NATURAL JOIN profile.members";

// ---- start ----

void Start(Context& c) {
  Progress("start: hop --version");
  std::vector<double> hop, truth, sqlite;
  bool counting = false;
  auto h = [&] {
    Outcome o = MustRun({c.options.hop, "--version"}, "/dev/null");
    if (counting) hop.push_back(o.wall);
  };
  auto t = [&] {
    Outcome o = Run({"/bin/true"});
    if (counting) truth.push_back(o.wall);
  };
  auto s = [&] {
    Outcome o = MustRun({"sqlite3", ":memory:", "select 1"}, "/dev/null");
    if (counting) sqlite.push_back(o.wall);
  };
  h(), t(), s();
  counting = true;
  for (int i = 0; i < c.options.runs * 4; ++i) h(), t(), s();
  c.table.AddTimes("cold `hop --version`", "`/bin/true`", hop, truth);
  c.table.AddTimes("cold `hop --version`", "`sqlite3 :memory: 'select 1'`", hop, sqlite);
}

// A `hop serve` process, stopped with SIGTERM as a user stops it.
class Serve {
 public:
  // `extra`: more options of `hop serve`, such as {"--pg-port", "0"}.
  Serve(Context& c, const std::string& state, std::vector<std::string> extra = {})
      : log_(state + "/serve.log") {
    std::vector<std::string> args = {"serve", "--max-jobs", std::to_string(c.options.max_jobs)};
    args.insert(args.end(), extra.begin(), extra.end());
    pid_ = Spawn(c.Hop(state, args), log_);
    const auto deadline = Clock::now() + std::chrono::seconds(120);
    while (ReadText(log_).find("hop serve: reconciling") == std::string::npos) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = 0;
        Fail("hop serve exited:\n" + Tail(log_));
      }
      if (Clock::now() > deadline) Fail("hop serve did not lead within 120 s");
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~Serve() {
    kill(pid_, SIGCONT);
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
  }

  // Stops the process (SIGSTOP) and lets it go on (SIGCONT): a stopped `hop serve` still holds
  // the operator's lease, so other processes start no operator, and reconciles nothing.
  void Pause() const { kill(pid_, SIGSTOP); }
  void Resume() const { kill(pid_, SIGCONT); }

  // The port of the PostgreSQL protocol (`--pg-port 0`), as `hop serve` printed it.
  int PgPort() const {
    const std::string text = ReadText(log_);
    const std::string said = "PostgreSQL protocol on 127.0.0.1:";
    const size_t at = text.find(said);
    if (at == std::string::npos) Fail("hop serve printed no PostgreSQL port:\n" + Tail(log_));
    return std::atoi(text.c_str() + at + said.size());
  }

  // The CPU the `hop serve` process has used so far (user + system, its threads, not the
  // processes it started), in seconds, from /proc.
  double Cpu() const {
    std::string stat = ReadText("/proc/" + std::to_string(pid_) + "/stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream fields(stat.substr(close + 2));
    std::string field;
    double ticks = 0;
    // Fields 3.. follow the command's name; utime and stime are fields 14 and 15.
    for (int i = 3; i <= 15 && fields >> field; ++i) {
      if (i >= 14) ticks += std::strtod(field.c_str(), nullptr);
    }
    return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
  }

 private:
  std::string log_;
  pid_t pid_ = 0;
};

// ---- ddl ----

// The view number in a name such as ads-audience17, of ADS.AUDIENCE_17 (-1 when there is none).
long ViewNumber(const std::string& name) {
  const size_t at = name.find("audience");
  if (at == std::string::npos || !std::isdigit(static_cast<unsigned char>(name[at + 8]))) return -1;
  return std::strtol(name.c_str() + at + 8, nullptr, 10);
}

void Ddl(Context& c) {
  const int n = c.options.statements;
  const std::string script = c.dir + "/ddl.sql";
  {
    std::ofstream out(script);
    for (int i = 0; i < n; ++i) {
      out << "CREATE MATERIALIZED VIEW ads.audience_" << i << kDemoView
          << " WHERE page_urn LIKE 'urn:li:page:" << i << "%';\n";
    }
  }
  int64_t base_max_id = 0;
  {
    Database db(c.Store(c.base));
    base_max_id = db.Count("SELECT max(id) FROM objects");
  }
  // The Pipelines of the script's views that have a status: the operator has reconciled them.
  const std::string reconciled =
      "SELECT count(*) FROM objects WHERE kind = 'Pipeline' AND name LIKE 'ads-audience%' AND "
      "json_extract(body, '$.status') IS NOT NULL";
  std::vector<double> hop_rate, raw_rate, ratios, cpu_per_statement;
  std::vector<double> served_rate, served_ratios, alone_rate, alone_ratios;
  int64_t fewest_reconciled = n;
  std::vector<StoredObject> written;
  std::map<long, std::vector<const StoredObject*>> statements;
  for (int r = 0; r < c.options.ddl_runs + 1; ++r) {
    Progress("ddl: run " + std::to_string(r) + " of " + std::to_string(c.options.ddl_runs) +
             " (run 0 is the warm-up)");
    const std::string state = c.CopyState(c.base, "ddl-hop");
    const Outcome o = MustRun(c.Hop(state, {"-f", script}), c.log);
    if (written.empty()) {
      Database db(c.Store(state));
      const int64_t views = db.Count(
          "SELECT count(*) FROM objects WHERE kind = 'View' AND name LIKE 'ads-audience%'");
      if (views != n) Fail("ddl: hop -f made " + std::to_string(views) + " views");
      written = ObjectsAfter(db, base_max_id);
      for (const auto& obj : written) {
        const long i = ViewNumber(obj.name);
        if (i >= 0) statements[i].push_back(&obj);
      }
      if (statements.size() != static_cast<size_t>(n)) Fail("ddl: objects not told apart");
    }
    {
      // The in-process operator stops with its process: what it has not reconciled by then
      // waits for the next process that leads (docs/operator.md). The served measure below
      // waits for every Pipeline, so the table says how many this one had left.
      Database db(c.Store(state));
      if (r > 0) fewest_reconciled = std::min(fewest_reconciled, db.Count(reconciled));
    }
    // The same script while a `hop serve` runs the operator (as a user who keeps one running),
    // timed from `hop -f`'s start until every Pipeline has its status from `hop serve`.
    double served_wall = 0;
    {
      const std::string served = c.CopyState(c.base, "ddl-serve");
      Serve serve(c, served);
      const auto start = Clock::now();
      MustRun(c.Hop(served, {"-f", script}), c.log);
      Database db(c.Store(served));
      const auto deadline = Clock::now() + std::chrono::seconds(120);
      while (db.Count(reconciled) != n) {
        if (Clock::now() > deadline) Fail("ddl: hop serve did not reconcile within 120 s");
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      served_wall = Seconds(Clock::now() - start);
    }
    // The statements with no operator anywhere: what the session's own planning and commits
    // cost, the part of the script no operator work can take away.
    double alone_wall = 0;
    {
      const std::string alone = c.CopyState(c.base, "ddl-alone");
      Serve serve(c, alone);
      serve.Pause();
      alone_wall = MustRun(c.Hop(alone, {"-f", script}), c.log).wall;
      serve.Resume();
    }
    const std::string raw = c.CopyState(c.base, "ddl-raw");
    double raw_wall = 0;
    {
      Database db(c.Store(raw));
      RawWriter writer(db);
      const auto start = Clock::now();
      for (const auto& [i, objects] : statements) writer.Commit(objects);
      raw_wall = Seconds(Clock::now() - start);
    }
    if (r == 0) continue;
    hop_rate.push_back(n / o.wall);
    cpu_per_statement.push_back(o.cpu / n);
    raw_rate.push_back(n / raw_wall);
    ratios.push_back(raw_wall / o.wall);
    served_rate.push_back(n / served_wall);
    served_ratios.push_back(raw_wall / served_wall);
    alone_rate.push_back(n / alone_wall);
    alone_ratios.push_back(raw_wall / alone_wall);
  }
  size_t objects = 0;
  for (const auto& [i, list] : statements) objects += list.size();
  c.table.Add(std::to_string(n) +
                  " CREATE MATERIALIZED VIEW in one `hop -f`, operator on, durable, "
                  "statements/s",
              Format("%.0f/s", Median(hop_rate)),
              Format("%.0f/s", Median(raw_rate)) + " raw SQLite, the same " +
                  std::to_string(objects) + " objects, a commit per statement",
              Format("%.2fx (rate)", Median(ratios)));
  c.table.Add("of which the CPU of the `hop -f` process (every thread), per statement",
              Format("%.2f ms", Median(cpu_per_statement) * 1000), "-", "-");
  c.table.Add(
      "of which the Pipelines its operator had reconciled when `hop -f` exited, fewest "
      "in a run",
      std::to_string(fewest_reconciled) + " of " + std::to_string(n), "-", "-");
  c.table.Add(
      "the same `hop -f` while `hop serve` runs the operator, until every Pipeline has "
      "its status, statements/s",
      Format("%.0f/s", Median(served_rate)), "the same raw SQLite",
      Format("%.2fx (rate)", Median(served_ratios)));
  c.table.Add(
      "the same `hop -f` with no operator anywhere (a stopped `hop serve` holds its lease), "
      "statements/s",
      Format("%.0f/s", Median(alone_rate)), "the same raw SQLite",
      Format("%.2fx (rate)", Median(alone_ratios)));
}

// ---- cold commands against stores of many views ----

// The template: the demo environment and one materialized view, converged.
struct Template {
  std::string state;
  int64_t base_max_id = 0;
  std::vector<StoredObject> objects;  // the view's, in the order hop made them
};

const char* kTemplateName = "benchtmpl";
const char* kGroupLabel = "bench.hop.dev/group";

Template MakeTemplate(Context& c) {
  Template t;
  {
    Database db(c.Store(c.base));
    t.base_max_id = db.Count("SELECT max(id) FROM objects");
  }
  t.state = c.CopyState(c.base, "template");
  MustRun(c.Hop(t.state,
                {"-e", std::string("CREATE MATERIALIZED VIEW ads.") + kTemplateName + kDemoView}),
          c.log);
  MustRun(c.Hop(t.state, {"wait", "--timeout", "120"}), c.log);
  Database db(c.Store(t.state));
  for (auto& o : ObjectsAfter(db, t.base_max_id)) {
    if (o.name.find(kTemplateName) == std::string::npos) {
      Fail("template: " + o.kind + "/" + o.name + " is not the view's own; cannot copy it");
    }
    t.objects.push_back(std::move(o));
  }
  if (t.objects.empty()) Fail("template: the view wrote nothing");
  return t;
}

// Copy `i` of a template object: its names renamed, its uid and owners' uids renumbered, a
// group label added to the View.
StoredObject CopyOf(const StoredObject& o, long i, long groups, int64_t revision,
                    const std::map<std::string, std::string>& uids) {
  const std::string to = "bench" + std::to_string(i);
  std::string upper = to;
  std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
  auto rename = [&](std::string s) {
    s = ReplaceAll(std::move(s), kTemplateName, to);
    s = ReplaceAll(std::move(s), "BENCHTMPL", upper);
    for (const auto& [from, uid] : uids) s = ReplaceAll(std::move(s), from, uid);
    return s;
  };
  StoredObject copy{o.grp, o.kind, o.ns, rename(o.name), rename(o.uid), "", {}, {}, {}};
  for (const auto& key : o.keys) copy.keys.push_back(rename(key));
  std::string text = rename(o.body);
  // A dependency label's key is a hash of the identifier it holds (resource/names.h).
  for (const auto& [key, value] : o.labels) {
    if (value == rename(value)) {
      copy.labels.emplace_back(key, value);
      continue;
    }
    if (hop::resource::DependencyLabelKey(value) != key) {
      Fail("template: label " + key + " is not the dependency key of " + value);
    }
    const std::string renamed = rename(value);
    const std::string renamed_key = hop::resource::DependencyLabelKey(renamed);
    text = ReplaceAll(std::move(text), "\"" + key + "\"", "\"" + renamed_key + "\"");
    copy.labels.emplace_back(renamed_key, renamed);
  }
  Json body = Json::parse(text);
  body["metadata"]["resourceVersion"] = std::to_string(revision);
  if (o.kind == "View") {
    const std::string group = "g" + std::to_string(i % groups);
    body["metadata"]["labels"][kGroupLabel] = group;
    copy.labels.emplace_back(kGroupLabel, group);
  }
  copy.body = body.dump();
  for (const auto& uid : o.owners) copy.owners.push_back(rename(uid));
  return copy;
}

// A state directory holding `n` materialized views, copies of the template's.
std::string MakeStore(Context& c, const Template& t, long n) {
  if (n == 0) return c.CopyState(c.base, "store-0");
  const std::string state = c.CopyState(t.state, "store-" + std::to_string(n));
  Database db(c.Store(state));
  db.Exec("BEGIN IMMEDIATE");
  db.Exec("DELETE FROM objects WHERE id > " + std::to_string(t.base_max_id));
  int64_t revision = db.Count("SELECT value FROM meta WHERE key = 'revision'");
  const long groups = std::max<long>(1, n / 1000);
  Statement object(db.handle(),
                   "INSERT INTO objects (grp, kind, namespace, name, uid, revision, body) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?)");
  Statement label(db.handle(), "INSERT INTO labels (object_id, key, value) VALUES (?, ?, ?)");
  Statement owner(db.handle(), "INSERT OR IGNORE INTO owners (owner_uid, object_id) VALUES (?, ?)");
  for (long i = 0; i < n; ++i) {
    std::map<std::string, std::string> uids;
    for (const auto& o : t.objects) {
      char tail[32];
      std::snprintf(tail, sizeof tail, "%012lx", i);
      uids[o.uid] = o.uid.substr(0, o.uid.size() - 12) + tail;
    }
    for (const auto& o : t.objects) {
      const StoredObject copy = CopyOf(o, i, groups, ++revision, uids);
      object.Bind(1, copy.grp).Bind(2, copy.kind).Bind(3, copy.ns).Bind(4, copy.name);
      object.Bind(5, copy.uid).Bind(6, revision).Bind(7, copy.body).Run();
      const int64_t id = sqlite3_last_insert_rowid(db.handle());
      for (const auto& [k, v] : copy.labels) label.Bind(1, id).Bind(2, k).Bind(3, v).Run();
      for (const auto& uid : copy.owners) owner.Bind(1, uid).Bind(2, id).Run();
    }
  }
  // Their index keys are computed by the next hop that opens the store, as after a migration.
  db.Exec("UPDATE meta SET value = 0 WHERE key = 'keys'");
  // The copies have no events: the log starts after them, as after a compaction.
  db.Exec("UPDATE meta SET value = " + std::to_string(revision) +
          " WHERE key IN ('revision', 'compacted')");
  db.Exec("COMMIT");
  return state;
}

// The SQL of one durable commit of a view's rows, as the sqlite3 CLI runs it.
std::string CommitScript(const Template& t, long i) {
  std::map<std::string, std::string> uids;
  for (const auto& o : t.objects) {
    char tail[32];
    std::snprintf(tail, sizeof tail, "%012lx", 0xf00000000L + i);
    uids[o.uid] = o.uid.substr(0, o.uid.size() - 12) + tail;
  }
  std::string sql =
      "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; BEGIN IMMEDIATE; "
      "SELECT value FROM meta WHERE key = 'revision';\n";
  for (const auto& o : t.objects) {
    const StoredObject copy = CopyOf(o, 1000000 + i, 1, 0, uids);
    const std::string name = SqlQuote(copy.name);
    sql += "SELECT id FROM objects WHERE grp = " + SqlQuote(copy.grp) +
           " AND kind = " + SqlQuote(copy.kind) + " AND namespace = " + SqlQuote(copy.ns) +
           " AND name = " + name + ";\n";
    sql += "INSERT INTO objects (grp, kind, namespace, name, uid, revision, body) VALUES (" +
           SqlQuote(copy.grp) + ", " + SqlQuote(copy.kind) + ", " + SqlQuote(copy.ns) + ", " +
           name + ", " + SqlQuote(copy.uid) +
           ", (SELECT value + 1 FROM meta WHERE key = 'revision'), " + SqlQuote(copy.body) + ");\n";
    for (const auto& [k, v] : copy.labels) {
      sql += "INSERT INTO labels VALUES (last_insert_rowid(), " + SqlQuote(k) + ", " + SqlQuote(v) +
             ");\n";
    }
    for (const auto& key : copy.keys) {
      sql += "INSERT INTO object_keys (key, object_id) SELECT " + SqlQuote(key) +
             ", id FROM objects WHERE grp = " + SqlQuote(copy.grp) +
             " AND kind = " + SqlQuote(copy.kind) + " AND namespace = " + SqlQuote(copy.ns) +
             " AND name = " + name + ";\n";
    }
    sql +=
        "INSERT INTO events (revision, type, grp, kind, namespace, name, body) VALUES ("
        "(SELECT value + 1 FROM meta WHERE key = 'revision'), 0, " +
        SqlQuote(copy.grp) + ", " + SqlQuote(copy.kind) + ", " + SqlQuote(copy.ns) + ", " + name +
        ", " + SqlQuote(copy.body) + ");\n";
    sql += "UPDATE meta SET value = value + 1 WHERE key = 'revision';\n";
  }
  return sql + "COMMIT;\n";
}

size_t CountLines(const std::string& path) {
  const std::string s = ReadText(path);
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

void Cold(Context& c) {
  Progress("cold: the template store");
  const Template t = MakeTemplate(c);
  for (const long n : c.options.sizes) {
    const std::string views = Format("%.0f", static_cast<double>(n)) + " views";
    Progress("cold: a store of " + views);
    const std::string state = MakeStore(c, t, n);
    const std::string db = c.Store(state);
    const std::string selector = std::string(kGroupLabel) + "=g0";
    {
      const std::string listed = c.dir + "/listed.txt";
      fs::remove(listed);
      MustRun(c.Hop(state, {"get", "views"}), listed);
      const size_t lines = CountLines(listed);
      if (lines < static_cast<size_t>(n)) {
        Fail("cold: hop get views lists " + std::to_string(lines) + " lines for " + views);
      }
      MustRun(c.Hop(state, {"wait", "--timeout", "1800"}), c.log);
    }
    std::string objects;
    {
      Database d(db);
      objects = std::to_string(d.Count("SELECT count(*) FROM objects"));
    }
    const std::string at = ", " + views + " (" + objects + " objects in the store)";
    const int runs = c.options.runs;
    bool counting = false;
    std::vector<double> hop, base, hop_cpu, base_cpu;
    auto reset = [&] {
      counting = false;
      hop.clear(), base.clear(), hop_cpu.clear(), base_cpu.clear();
    };
    auto timed = [&](std::vector<std::string> argv, std::vector<double>& wall,
                     std::vector<double>* cpu, const std::string& log) {
      const Outcome o = MustRun(argv, log);
      if (!counting) return;
      wall.push_back(o.wall);
      if (cpu != nullptr) cpu->push_back(o.cpu);
    };
    auto pair = [&](auto a, auto b) {
      a(), b();
      counting = true;
      for (int i = 0; i < runs; ++i) a(), b();
    };

    // !pipeline reads the databases and templates of the tables it names.
    reset();
    pair(
        [&] {
          timed(c.Hop(state,
                      {"-e", std::string("!pipeline CREATE MATERIALIZED VIEW ads.p") + kDemoView}),
                hop, nullptr, "/dev/null");
        },
        [&] {
          timed({"sqlite3", "-readonly", db,
                 "SELECT body FROM objects WHERE grp = 'hoptimator.linkedin.com' AND kind IN "
                 "('Database', 'TableTemplate', 'JobTemplate')"},
                base, nullptr, "/dev/null");
        });
    c.table.AddTimes("cold `hop -e '!pipeline CREATE MATERIALIZED VIEW ...'`" + at,
                     "`sqlite3` reading the Database and template rows", hop, base);

    // get -l: the 1,000 views of one group.
    if (n >= 1000) {
      reset();
      pair(
          [&] {
            timed(c.Hop(state, {"get", "views", "-l", selector}), hop, nullptr, "/dev/null");
          },
          [&] {
            timed({"sqlite3", "-readonly", db,
                   // SqliteStore::List's query for one equality requirement.
                   "SELECT o.body FROM labels l CROSS JOIN objects o ON o.id = l.object_id "
                   "WHERE l.key = '" +
                       std::string(kGroupLabel) +
                       "' AND l.value IN ('g0') AND "
                       "o.grp = 'hoptimator.linkedin.com' AND o.kind = 'View' AND "
                       "o.namespace = 'default' ORDER BY o.grp, o.kind, o.namespace, o.name"},
                  base, nullptr, "/dev/null");
          });
      c.table.AddTimes("cold `hop get views -l` returning 1,000" + at,
                       "`sqlite3` running the store's label query", hop, base);
    }

    // !wait on the converged store: the rows it reads.
    reset();
    pair(
        [&] {
          timed(c.Hop(state, {"-e", "!wait 1800"}), hop, &hop_cpu, c.log);
        },
        [&] {
          // What BusyWork reads: every trigger, provisioning job and Job, and the Views and
          // Tables that may have work pending (their index key).
          timed({"sqlite3", "-readonly", db,
                 "SELECT body FROM objects WHERE (grp = 'hoptimator.linkedin.com' AND kind IN "
                 "('TableTrigger', 'TableProvisionJob')) OR (grp = 'batch' AND kind = 'Job') "
                 "UNION ALL SELECT o.body FROM object_keys k CROSS JOIN objects o ON o.id = "
                 "k.object_id WHERE k.key = '[\"may-be-busy\"]' AND o.grp = "
                 "'hoptimator.linkedin.com' AND o.kind IN ('View', 'Table')"},
                base, &base_cpu, "/dev/null");
        });
    const std::string kinds = "`sqlite3` reading the rows it looks at";
    c.table.AddTimes("cold `hop -e '!wait'`, converged, wall" + at, kinds, hop, base);
    c.table.AddTimes("cold `hop -e '!wait'`, converged, CPU" + at, kinds, hop_cpu, base_cpu);

    // CREATE: one new view; baseline: one process committing one view's rows, durably.
    reset();
    const std::string raw = c.CopyState(state, "store-raw");
    int k = 0, j = 0;
    pair(
        [&] {
          timed(c.Hop(state, {"-e", "CREATE MATERIALIZED VIEW ads.cold" + std::to_string(k++) +
                                        kDemoView}),
                hop, nullptr, c.log);
        },
        [&] {
          timed({"sqlite3", c.Store(raw), CommitScript(t, j++)}, base, nullptr, "/dev/null");
        });
    c.table.AddTimes("cold `hop -e 'CREATE MATERIALIZED VIEW ...'`" + at,
                     "`sqlite3` committing one view's rows durably", hop, base);
    {
      // Every baseline commit wrote its rows, as every hop -e wrote its view.
      Database d(c.Store(raw));
      const int64_t made = d.Count(
          "SELECT count(*) FROM objects WHERE kind = 'View' AND "
          "name GLOB 'ads-bench1[0-9][0-9][0-9][0-9][0-9][0-9]'");
      if (made < j)
        Fail("cold: the baseline committed " + std::to_string(made) + " of " + std::to_string(j) +
             " views");
    }
    fs::remove_all(raw);
    if (!c.options.keep) fs::remove_all(state);
  }
}

// ---- fires under hop serve ----

// The JobTemplate of the triggers: its Job writes the time its process started into `marks`.
std::string MarkTemplate(const std::string& marks) {
  return "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: JobTemplate\n"
         "metadata:\n  name: bench-mark\nspec:\n  yaml: |\n"
         "    apiVersion: batch/v1\n    kind: Job\n    metadata:\n      name: {{trigger}}-mark\n"
         "    spec:\n      template:\n        spec:\n          containers:\n"
         "          - name: mark\n            image: none\n"
         "            command: [\"sh\", \"-c\", \"date +%s%N > " +
         marks + "/{{trigger}}-{{timestamp}}\"]\n          restartPolicy: Never\n";
}

// Files closed after writing in a directory, as inotify reports them.
class Marks {
 public:
  explicit Marks(const std::string& dir) : dir_(dir) {
    fs::create_directories(dir);
    fd_ = inotify_init1(IN_CLOEXEC);
    if (fd_ < 0 || inotify_add_watch(fd_, dir.c_str(), IN_CLOSE_WRITE) < 0) {
      Fail("inotify on " + dir + ": " + std::strerror(errno));
    }
  }
  ~Marks() { close(fd_); }
  Marks(const Marks&) = delete;
  Marks& operator=(const Marks&) = delete;

  const std::string& dir() const { return dir_; }

  // Waits until `n` more files were written (or `limit` passed); their names.
  std::vector<std::string> Wait(size_t n, std::chrono::seconds limit) {
    std::vector<std::string> names;
    const auto deadline = Clock::now() + limit;
    alignas(inotify_event) char buf[64 * 1024];
    while (names.size() < n) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) break;
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      const ssize_t len = read(fd_, buf, sizeof buf);
      for (ssize_t at = 0; at < len;) {
        const auto* e = reinterpret_cast<const inotify_event*>(buf + at);
        if (e->len > 0) names.emplace_back(e->name);
        at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      }
    }
    return names;
  }

  // The start time a mark holds, in nanoseconds since the epoch.
  int64_t Time(const std::string& name) const {
    std::ifstream in(dir_ + "/" + name);
    int64_t t = 0;
    if (!(in >> t)) Fail("mark " + name + " holds no time");
    return t;
  }

 private:
  std::string dir_;
  int fd_ = -1;
};

// A state directory with the mark template, view `view` and `triggers` triggers on it.
std::string MakeFireState(Context& c, const std::string& name, const std::string& view,
                          int triggers) {
  const std::string state = c.CopyState(c.base, name);
  fs::create_directories(state + "/marks");
  const std::string yaml = state + "/../" + name + "-template.yaml";
  std::ofstream(yaml) << MarkTemplate(state + "/marks");
  MustRun(c.Hop(state, {"apply", "-f", yaml}), c.log);
  const std::string script = c.dir + "/" + name + ".sql";
  {
    std::ofstream out(script);
    out << "CREATE VIEW ads." << view << " AS SELECT first_name FROM profile.members;\n";
    for (int i = 0; i < triggers; ++i) {
      out << "CREATE TRIGGER " << view << "_t" << i << " ON ads." << view << " AS 'bench-mark';\n";
    }
  }
  MustRun(c.Hop(state, {"-f", script}), c.log);
  MustRun(c.Hop(state, {"wait", "--timeout", "600"}), c.log);
  return state;
}

// One connection to `hop serve`'s PostgreSQL protocol, as an application holds one.
class PgClient {
 public:
  explicit PgClient(int port) {
    const std::string info =
        "host=127.0.0.1 port=" + std::to_string(port) + " user=bench dbname=hop";
    conn_ = PQconnectdb(info.c_str());
    if (PQstatus(conn_) != CONNECTION_OK) {
      Fail("cannot connect to hop serve: " + std::string(PQerrorMessage(conn_)));
    }
    PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
  }
  ~PgClient() { PQfinish(conn_); }
  PgClient(const PgClient&) = delete;
  PgClient& operator=(const PgClient&) = delete;

  // Runs one statement; a failure ends the bench.
  void Run(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    const ExecStatusType status = PQresultStatus(r);
    std::string error = PQresultErrorMessage(r);
    PQclear(r);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) Fail(sql + ": " + error);
  }

 private:
  PGconn* conn_ = nullptr;
};

// One durable commit (an object's body rewritten with its event, as a status update is), then
// the mark command spawned; the time from before the commit to the command's start.
class CommitSpawn {
 public:
  CommitSpawn(const std::string& db, const std::string& marks)
      : path_(db),
        db_(db),
        marks_(marks),
        read_(db_.handle(),
              "SELECT id, grp, kind, namespace, name, body FROM objects "
              "WHERE kind = 'View' LIMIT 1"),
        update_(db_.handle(), "UPDATE objects SET revision = ?, body = ? WHERE id = ?"),
        event_(db_.handle(),
               "INSERT INTO events (revision, type, grp, kind, namespace, name, body) "
               "VALUES (?, 1, ?, ?, ?, ?, ?)"),
        revision_(db_.handle(), "SELECT value FROM meta WHERE key = 'revision'"),
        write_revision_(db_.handle(), "UPDATE meta SET value = ? WHERE key = 'revision'") {}

  double Once(int i) {
    const std::string mark = marks_.dir() + "/base-" + std::to_string(i);
    const int64_t t0 = NowNanos();
    Commit();
    const pid_t pid = Spawn({"sh", "-c", "date +%s%N > " + mark}, "/dev/null");
    int status = 0;
    waitpid(pid, &status, 0);
    marks_.Wait(1, std::chrono::seconds(10));
    return static_cast<double>(marks_.Time("base-" + std::to_string(i)) - t0) / 1e9;
  }

  // The same commit made by a `sqlite3` process, as a `hop -e` process makes its FIRE: the time
  // from before that process starts to the command's start.
  double OnceByProcess(int i, const std::string& log) {
    const std::string mark = marks_.dir() + "/process-" + std::to_string(i);
    read_.Step();
    const std::string id = std::to_string(read_.Int(0));
    read_.Reset();
    const std::string sql =
        "PRAGMA synchronous=FULL; BEGIN IMMEDIATE; "
        "UPDATE meta SET value = value + 1 WHERE key = 'revision'; "
        "UPDATE objects SET revision = (SELECT value FROM meta WHERE key = 'revision') "
        "WHERE id = " + id + "; "
        "INSERT INTO events (revision, type, grp, kind, namespace, name, body) "
        "SELECT revision, 1, grp, kind, namespace, name, body FROM objects WHERE id = " + id + "; "
        "COMMIT;";
    const int64_t t0 = NowNanos();
    MustRun({"sqlite3", path_, sql}, log);
    const pid_t pid = Spawn({"sh", "-c", "date +%s%N > " + mark}, "/dev/null");
    int status = 0;
    waitpid(pid, &status, 0);
    marks_.Wait(1, std::chrono::seconds(10));
    return static_cast<double>(marks_.Time("process-" + std::to_string(i)) - t0) / 1e9;
  }

  // The least hop's design can do for a fire (docs/testing.md, "fire"): three durable commits
  // one after the other (the FIRE; the run with its Job; the attempt, before the start gate
  // opens), then the command started. No process start for the FIRE, no reading, no
  // reconciling, no waking.
  double Floor(int i) {
    const std::string mark = marks_.dir() + "/floor-" + std::to_string(i);
    const int64_t t0 = NowNanos();
    for (int commits = 0; commits < 3; ++commits) Commit();
    const pid_t pid = Spawn({"sh", "-c", "date +%s%N > " + mark}, "/dev/null");
    int status = 0;
    waitpid(pid, &status, 0);
    marks_.Wait(1, std::chrono::seconds(10));
    return static_cast<double>(marks_.Time("floor-" + std::to_string(i)) - t0) / 1e9;
  }

 private:
  // One durable commit: an object's body rewritten with its event, as a status update is.
  void Commit() {
    db_.Exec("BEGIN IMMEDIATE");
    revision_.Step();
    const int64_t revision = revision_.Int(0) + 1;
    revision_.Reset();
    read_.Step();
    const int64_t id = read_.Int(0);
    const std::string grp = read_.Text(1), kind = read_.Text(2), ns = read_.Text(3),
                      name = read_.Text(4), body = read_.Text(5);
    read_.Reset();
    update_.Bind(1, revision).Bind(2, body).Bind(3, id).Run();
    event_.Bind(1, revision).Bind(2, grp).Bind(3, kind).Bind(4, ns).Bind(5, name).Bind(6, body);
    event_.Run();
    write_revision_.Bind(1, revision).Run();
    db_.Exec("COMMIT");
  }

  std::string path_;
  Database db_;
  Marks marks_;
  Statement read_, update_, event_, revision_, write_revision_;
};

void Fire(Context& c) {
  Progress("fire: one trigger under hop serve");
  const std::string state = MakeFireState(c, "fire", "firev", 1);
  const std::string raw = c.CopyState(state, "fire-raw");
  Marks marks(state + "/marks");
  CommitSpawn baseline(c.Store(raw), c.dir + "/fire-raw-marks");
  std::vector<double> hop, fire_process, client, base, floor, by_sqlite3;
  {
    Serve serve(c, state, {"--pg-port", "0"});
    PgClient pg(serve.PgPort());
    MustRun(c.Hop(state, {"wait", "--timeout", "120"}), c.log);
    // Seconds from `t0` to the start of the Job process of the fire that `fire` issues.
    auto started = [&](const std::function<void()>& fire) {
      const int64_t t0 = NowNanos();
      fire();
      const auto names = marks.Wait(1, std::chrono::seconds(60));
      if (names.empty()) Fail("fire: no Job process started within 60 s of FIRE VIEW");
      const double latency = static_cast<double>(marks.Time(names[0]) - t0) / 1e9;
      MustRun(c.Hop(state, {"wait", "--timeout", "120"}), c.log);
      return latency;
    };
    for (int i = 0; i <= c.options.fires; ++i) {
      double process = 0;
      const double by_process = started([&] {
        process = MustRun(c.Hop(state, {"-e", "FIRE VIEW ads.firev"}), c.log).wall;
      });
      const double by_client = started([&] { pg.Run("FIRE VIEW ads.firev"); });
      const double b = baseline.Once(i);
      const double f = baseline.Floor(i);
      const double p = baseline.OnceByProcess(i, c.log);
      if (i == 0) continue;  // the warm-up
      by_sqlite3.push_back(p);
      hop.push_back(by_process);
      fire_process.push_back(process);
      client.push_back(by_client);
      base.push_back(b);
      floor.push_back(f);
    }
  }
  const std::string what =
      "FIRE VIEW (a `hop -e` process) -> Job process started, 1 trigger, "
      "`hop serve`, " +
      std::to_string(c.options.fires) + " fires";
  auto ratio = [](double a, double b) { return b > 0 ? Format("%.1fx", a / b) : "-"; };
  // Two rows, the median and the p99 of `times` against those of `base_times`.
  auto add = [&](const std::string& measure, const std::string& against,
                 const std::vector<double>& times, const std::vector<double>& base_times,
                 const std::string& base_name) {
    for (const auto& [name, at] : {std::pair<std::string, double>{"median", 0.5}, {"p99", 0.99}}) {
      const double t = Percentile(times, at), b = Percentile(base_times, at);
      c.table.Add(measure + ", " + name + against, Time(t), Time(b) + base_name, ratio(t, b));
    }
  };
  add(what, "", hop, base, " durable SQLite commit + posix_spawn");
  c.table.Add("of which the `hop -e 'FIRE VIEW'` process itself, median",
              Time(Median(fire_process)), "-", "-");
  // A `hop -e` FIRE starts a process before it commits; so does this baseline.
  add(what, ", against a process's commit", hop, by_sqlite3,
      " a `sqlite3` process's durable commit + posix_spawn");
  add(what, ", against hop's floor", hop, floor, " 3 durable SQLite commits + posix_spawn");
  const std::string by_client =
      "FIRE VIEW (a client connected to `hop serve --pg-port`, libpq) -> Job process started, "
      "1 trigger, " +
      std::to_string(c.options.fires) + " fires";
  add(by_client, "", client, base, " durable SQLite commit + posix_spawn");
  if (!c.options.keep) fs::remove_all(raw);
}

// Every Job process of one FIRE VIEW (the `fire` process) started, within `limit`: seconds from
// before the FIRE process. `what` names the measure when they do not all start.
double FanoutOnce(Marks& marks, int n, const std::vector<std::string>& fire, Context& c,
                  const std::string& what = "cluster",
                  std::chrono::seconds limit = std::chrono::seconds(3600)) {
  const int64_t t0 = NowNanos();
  MustRun(fire, c.log);
  const auto names = marks.Wait(static_cast<size_t>(n), limit);
  if (names.size() < static_cast<size_t>(n)) {
    Fail(what + ": " + std::to_string(names.size()) + " of " + std::to_string(n) +
         " Job processes started within " + std::to_string(limit.count()) + " s");
  }
  int64_t last = 0;
  for (const auto& name : names) last = std::max(last, marks.Time(name));
  return static_cast<double>(last - t0) / 1e9;
}

// Starts `n` processes, `max_jobs` at a time, the i-th from `argv(i)`; seconds from the first
// start to the latest time the processes wrote into `marks`.
double SpawnEach(Context& c, int n, Marks& marks,
                 const std::function<std::vector<std::string>(int)>& argv) {
  const int64_t t0 = NowNanos();
  int running = 0;
  for (int i = 0; i < n; ++i) {
    if (running == c.options.max_jobs) {
      int status = 0;
      wait(&status);
      --running;
    }
    Spawn(argv(i), "/dev/null");
    ++running;
  }
  while (running > 0) {
    int status = 0;
    wait(&status);
    --running;
  }
  const auto names = marks.Wait(static_cast<size_t>(n), std::chrono::seconds(60));
  if (names.size() < static_cast<size_t>(n)) Fail("fanout: a baseline process wrote no mark");
  int64_t last = 0;
  for (const auto& name : names) last = std::max(last, marks.Time(name));
  return static_cast<double>(last - t0) / 1e9;
}

// FANOUT_RUNS rounds of: hop's fan-out, then the raw baseline, so that a machine whose speed
// drifts from one minute to the next (this one does, by a quarter) slows each side alike; the
// table gives medians and the rounds' ratios.
void Fanout(Context& c) {
  const int n = c.options.triggers;
  const int runs = c.options.fanout_runs;
  Progress("fanout: " + std::to_string(n) + " triggers on one view, " + std::to_string(runs) +
           " rounds");
  const std::string state = MakeFireState(c, "fanout", "fanv", n);
  Marks marks(state + "/marks");
  std::vector<double> hop, base, serve_cpu, ratios;
  {
    Serve serve(c, state);
    MustRun(c.Hop(state, {"wait", "--timeout", "600"}), c.log);
    for (int r = 0; r < runs; ++r) {
      Progress("fanout: round " + std::to_string(r + 1) + " of " + std::to_string(runs));
      const double cpu0 = serve.Cpu();
      hop.push_back(FanoutOnce(marks, n, c.Hop(state, {"-e", "FIRE VIEW ads.fanv"}), c,
                               "fanout", std::chrono::seconds(1800)));
      serve_cpu.push_back((serve.Cpu() - cpu0) / n);
      MustRun(c.Hop(state, {"wait", "--timeout", "600"}), c.log);
      // The raw baseline: the same command, n processes, max_jobs at a time.
      const std::string raw_dir = c.dir + "/fanout-raw-marks-" + std::to_string(r);
      Marks raw(raw_dir);
      base.push_back(SpawnEach(c, n, raw, [&](int i) {
        return std::vector<std::string>{"sh", "-c",
                                        "date +%s%N > " + raw_dir + "/" + std::to_string(i)};
      }));
      ratios.push_back(hop.back() / base.back());
    }
  }
  auto range = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return Format("%.2f", v.front()) + "-" + Format("%.2f", v.back());
  };
  const std::string m = std::to_string(c.options.max_jobs);
  const std::string what = std::to_string(n) +
                           " triggers on one view, FIRE VIEW -> every Job process started, "
                           "`hop serve --max-jobs " +
                           m + "`, median of " + std::to_string(runs) + " rounds";
  c.table.Add(what, Time(Median(hop)),
              Time(Median(base)) + " posix_spawn of the same command, " + m + " at a time",
              Format("%.2fx", Median(ratios)) + " (rounds: " + range(ratios) + ")");
  c.table.Add("of which the CPU of the `hop serve` process (its threads, not its Jobs), per Job",
              Format("%.2f ms", Median(serve_cpu) * 1000), "-", "-");
}

// ---- cluster ----

// A `hop serve --no-operator` standing in for a cluster, and a `hop operator` reconciling it
// through its Kubernetes API; both stopped with SIGTERM.
class Cluster {
 public:
  Cluster(Context& c, const std::string& state) : c_(c), state_(state) {
    const std::string log = state + "/cluster.log";
    kubeconfig_ = state + "/../" + fs::path(state).filename().string() + ".kubeconfig";
    serve_ =
        Spawn({c.options.hop, "--state", state, "serve", "--no-operator", "--http-port", "0",
               "--kubeconfig-out", kubeconfig_, "--max-jobs", std::to_string(c.options.max_jobs)},
              log);
    const std::string mark = "Kubernetes API on http://127.0.0.1:";
    WaitFor(log, "kubeconfig written", serve_);
    const std::string text = ReadText(log);
    port_ = std::atoi(text.c_str() + text.find(mark) + mark.size());
    const std::string op_log = state + "/operator.log";
    std::vector<std::string> op = {c.options.hop, "--kubeconfig", kubeconfig_};
    if (!c.options.cluster_qps.empty()) {
      op.insert(op.end(), {"--kube-qps", c.options.cluster_qps});
    }
    op.push_back("operator");
    operator_ = Spawn(op, op_log);
    WaitFor(op_log, "leading as", operator_);
  }
  ~Cluster() {
    for (pid_t pid : {operator_, serve_}) {
      kill(pid, SIGTERM);
      int status = 0;
      waitpid(pid, &status, 0);
    }
  }
  // `hop --kubeconfig KC ARGS`
  std::vector<std::string> Hop(std::vector<std::string> args) const {
    args.insert(args.begin(), {c_.options.hop, "--kubeconfig", kubeconfig_});
    return args;
  }
  // The requests its API has served.
  double Requests() const {
    return CounterSum(HttpGet(port_, "/metrics"), "hop_http_requests_total");
  }

 private:
  static void WaitFor(const std::string& log, const std::string& text, pid_t pid) {
    const auto deadline = Clock::now() + std::chrono::seconds(120);
    while (ReadText(log).find(text) == std::string::npos) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) Fail("exited:\n" + Tail(log));
      if (Clock::now() > deadline) Fail("not ready within 120 s:\n" + Tail(log));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  Context& c_;
  std::string state_;
  std::string kubeconfig_;
  pid_t serve_ = 0, operator_ = 0;
  int port_ = 0;
};

void ClusterMode(Context& c) {
  const int n = c.options.cluster_triggers;
  Progress("cluster: " + std::to_string(n) + " triggers on one view, embedded and on a cluster");
  const std::string made = MakeFireState(c, "cluster", "clusterv", n);
  const std::string embedded = c.CopyState(made, "cluster-embedded");
  const std::string cluster = c.CopyState(made, "cluster-k8s");
  // The marks directory each copy's Jobs write to is the one the template names: the original's.
  double hop_e = 0, hop_k = 0, requests = 0;
  {
    Marks marks(made + "/marks");
    Serve serve(c, embedded);
    MustRun(c.Hop(embedded, {"wait", "--timeout", "600"}), c.log);
    hop_e = FanoutOnce(marks, n, c.Hop(embedded, {"-e", "FIRE VIEW ads.clusterv"}), c);
    MustRun(c.Hop(embedded, {"wait", "--timeout", "3600"}), c.log);
  }
  {
    Marks marks(made + "/marks");
    Cluster k8s(c, cluster);
    MustRun(k8s.Hop({"wait", "--timeout", "600"}), c.log);
    const double r0 = k8s.Requests();
    hop_k = FanoutOnce(marks, n, k8s.Hop({"-e", "FIRE VIEW ads.clusterv"}), c);
    requests = k8s.Requests() - r0;
    MustRun(k8s.Hop({"wait", "--timeout", "3600"}), c.log);
  }
  const std::string what = std::to_string(n) +
                           " triggers on one view, FIRE VIEW -> every Job "
                           "process started, Jobs run " +
                           std::to_string(c.options.max_jobs) + " at a time";
  const std::string qps = c.options.cluster_qps.empty()
                              ? std::string("its default client rate limit")
                              : "`--kube-qps " + c.options.cluster_qps + "`";
  c.table.Add(what + ", on a cluster (`hop operator` through the Kubernetes API, " + qps + ")",
              Time(hop_k), Time(hop_e) + " embedded (`hop serve`)",
              Format("%.1fx", hop_e > 0 ? hop_k / hop_e : 0));
  c.table.Add("of which the API requests served, per second (and per trigger)",
              Format("%.0f/s", hop_k > 0 ? requests / hop_k : 0),
              Format("%.1f per trigger", requests / n), "-");

  Progress("cluster: FIRE VIEW -> Job process started, one trigger, embedded and on a cluster");
  const std::string one = MakeFireState(c, "cluster1", "clusterone", 1);
  const std::string one_k = c.CopyState(one, "cluster1-k8s");
  std::vector<double> emb, k8s_times;
  {
    Marks marks(one + "/marks");
    Serve serve(c, one);
    MustRun(c.Hop(one, {"wait", "--timeout", "120"}), c.log);
    for (int i = 0; i <= c.options.fires; ++i) {
      const double t = FanoutOnce(marks, 1, c.Hop(one, {"-e", "FIRE VIEW ads.clusterone"}), c);
      MustRun(c.Hop(one, {"wait", "--timeout", "120"}), c.log);
      if (i > 0) emb.push_back(t);
    }
  }
  {
    Marks marks(one + "/marks");
    Cluster k8s(c, one_k);
    MustRun(k8s.Hop({"wait", "--timeout", "120"}), c.log);
    for (int i = 0; i <= c.options.fires; ++i) {
      const double t = FanoutOnce(marks, 1, k8s.Hop({"-e", "FIRE VIEW ads.clusterone"}), c);
      MustRun(k8s.Hop({"wait", "--timeout", "120"}), c.log);
      if (i > 0) k8s_times.push_back(t);
    }
  }
  const std::string fire = "FIRE VIEW -> Job process started, 1 trigger, " +
                           std::to_string(c.options.fires) + " fires, on a cluster";
  c.table.Add(fire + ", median", Time(Median(k8s_times)), Time(Median(emb)) + " embedded",
              Format("%.1fx", Median(k8s_times) / Median(emb)));
  c.table.Add(fire + ", p99", Time(Percentile(k8s_times, 0.99)),
              Time(Percentile(emb, 0.99)) + " embedded",
              Format("%.1fx", Percentile(k8s_times, 0.99) / Percentile(emb, 0.99)));
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Fail(a + " needs a value");
      return argv[++i];
    };
    auto number = [&]() {
      const long v = std::strtol(value().c_str(), nullptr, 10);
      if (v < 0) Fail(a + " takes a number");
      return static_cast<int>(v);
    };
    if (a == "--only") {
      for (const auto& s : Split(value())) o.only.insert(s);
    } else if (a == "--sizes") {
      o.sizes.clear();
      for (const auto& s : Split(value())) o.sizes.push_back(std::strtol(s.c_str(), nullptr, 10));
    } else if (a == "--runs") {
      o.runs = std::max(1, number());
    } else if (a == "--ddl-runs") {
      o.ddl_runs = std::max(1, number());
    } else if (a == "--statements") {
      o.statements = std::max(1, number());
    } else if (a == "--fires") {
      o.fires = std::max(1, number());
    } else if (a == "--triggers") {
      o.triggers = std::max(1, number());
    } else if (a == "--fanout-runs") {
      o.fanout_runs = std::max(1, number());
    } else if (a == "--cluster-qps") {
      o.cluster_qps = value();
    } else if (a == "--cluster-triggers") {
      o.cluster_triggers = std::max(1, number());
    } else if (a == "--max-jobs") {
      o.max_jobs = std::max(1, number());
    } else if (a == "--hop") {
      o.hop = fs::absolute(value()).string();
    } else if (a == "--dir") {
      o.dir = value();
    } else if (a == "--keep") {
      o.keep = true;
    } else {
      Fail("unknown argument " + a + " (see the head of bench/scale_bench.cc)");
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Context c;
  c.options = Parse(argc, argv);
  auto want = [&](const char* name) {
    return c.options.only.empty() || c.options.only.count(name);
  };
  if (c.options.dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/hop-scale-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) Fail("cannot make a temporary directory");
    c.dir = tmpl;
  } else {
    c.dir = fs::absolute(c.options.dir).string();
    fs::create_directories(c.dir);
  }
  c.log = c.dir + "/commands.log";
  Progress("working in " + c.dir + " (commands print into " + c.log + ")");
  c.base = c.dir + "/base";
  fs::remove_all(c.base);
  MustRun(c.Hop(c.base,
                {"apply", "-f", std::string(HOP_SOURCE_DIR) + "/examples/demo-environment.yaml"}),
          c.log);

  const auto start = Clock::now();
  if (want("start")) Start(c);
  if (want("ddl")) Ddl(c);
  if (want("cold")) Cold(c);
  if (want("fire")) Fire(c);
  if (want("fanout")) Fanout(c);
  // Long (it makes CLUSTER_TRIGGERS triggers): only when asked for.
  if (c.options.only.count("cluster")) ClusterMode(c);

  std::printf(
      "\nhop %s, %u cores, wall-clock medians of %d runs each way (ddl: %d; fire: %d), "
      "in %.0f s\n\n",
      c.options.hop.c_str(), std::thread::hardware_concurrency(), c.options.runs,
      c.options.ddl_runs, c.options.fires, Seconds(Clock::now() - start));
  c.table.Print();
  if (!c.options.keep) fs::remove_all(c.dir);
  return 0;
}
