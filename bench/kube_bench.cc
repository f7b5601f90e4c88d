// Benchmark of hop's Kubernetes API as a client meets it: a real `hop serve --http-port 0`
// process on a fresh state directory, reached over HTTP on loopback, timed by the wall clock,
// each measurement paired in the same run with a raw baseline on the same machine and disk:
//   1. list by label: OBJECTS ConfigMaps (loaded with `hop apply -f`, BATCH documents per
//      apply), HITS of them labelled bench=hit, listed LISTS times by labelSelector; baseline:
//      the same rows read straight from the state directory's SQLite file, by the store's query;
//   2. create: CREATES sequential POSTs on one keep-alive connection; baseline: one-row durable
//      commits (WAL, synchronous=FULL, as the store sets them) on a SQLite file beside it;
//   3. watch fan-out: WATCHERS watches of the ConfigMaps while WRITERS connections merge-patch
//      existing ones at RATE a second for SECONDS; the latency of every delivery, and whether
//      every watcher got every event exactly once.
// Prints a Markdown table with the Kubernetes scalability SLOs and hop's goal (a hundred times
// under them) beside the numbers. Usage: kube_bench (make bench-kube); knobs by environment.
#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

long Knob(const char* name, long fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  const long n = std::strtol(v, nullptr, 10);
  return n > 0 ? n : fallback;
}

std::string KnobText(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v == nullptr ? fallback : v;
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }
double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "kube_bench: %s\n", what.c_str());
  std::exit(1);
}

// Percentiles by rank on a sorted copy (nearest rank, as the p99 of pgwire_bench.sh).
struct Summary {
  size_t n = 0;
  double p50 = 0, p99 = 0, max = 0, mean = 0;
};

Summary Summarize(std::vector<double> v) {
  Summary s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto rank = [&](double q) {
    size_t i = static_cast<size_t>(q * static_cast<double>(v.size()));
    if (i > 0) --i;
    return v[std::min(i, v.size() - 1)];
  };
  s.p50 = rank(0.50);
  s.p99 = rank(0.99);
  s.max = v.back();
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  return s;
}

// Runs `argv` to completion, output to `log`; its exit status.
int Run(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return 127;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// The `hop serve` under test: started on a state directory, its port read from the line it
// prints, stopped with SIGTERM as a user stops it.
class Serve {
 public:
  Serve(const std::string& hop, const std::string& state, const std::string& log) : log_(log) {
    std::vector<std::string> argv = {hop, "--state", state, "serve", "--http-port", "0"};
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    const int rc = posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) Fail("cannot start " + hop);
  }
  ~Serve() { Stop(); }

  // Waits for "Kubernetes API on http://127.0.0.1:PORT" and for the control plane to lead.
  int WaitForPort() {
    const std::string marker = "Kubernetes API on http://127.0.0.1:";
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    while (Clock::now() < deadline) {
      std::ifstream in(log_);
      std::stringstream text;
      text << in.rdbuf();
      const std::string s = text.str();
      const size_t at = s.find(marker);
      if (at != std::string::npos && s.find("reconciling") != std::string::npos) {
        return std::atoi(s.c_str() + at + marker.size());
      }
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = 0;
        Fail("hop serve exited:\n" + s);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    Fail("hop serve printed no port within 30 s (see " + log_ + ")");
  }

  pid_t pid() const { return pid_; }

  void Stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = 0;
  }

 private:
  std::string log_;
  pid_t pid_ = 0;
};

std::unique_ptr<httplib::Client> Connect(int port) {
  auto c = std::make_unique<httplib::Client>("127.0.0.1", port);
  c->set_keep_alive(true);
  // As Go's net/http (kubectl, client-go) does on every connection: no Nagle delay on the
  // client's side, so what is left is the server's.
  c->set_tcp_nodelay(true);
  c->set_read_timeout(120, 0);
  c->set_write_timeout(30, 0);
  c->set_connection_timeout(5, 0);
  return c;
}

// What every request says about compression: none. hop compresses no response whatever a client
// accepts; the list phase also asks for gzip, as kubectl's client does, and gets the same.
httplib::Headers Plain() { return {{"Accept-Encoding", "identity"}}; }

std::string Name(long i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "cm-%06ld", i);
  return buf;
}

// --- loading ---

struct Load {
  double seconds = 0;   // all the applies
  double catch_up = 0;  // then until the server's watch cache had every event
  int applies = 0;
};

Load LoadObjects(const std::string& hop, const std::string& dir, const std::string& state,
                 long objects, long hits, long batch) {
  Load load;
  const long stride = std::max<long>(1, objects / std::max<long>(1, hits));
  const std::string file = dir + "/batch.yaml";
  for (long first = 0; first < objects; first += batch) {
    std::string yaml;
    for (long i = first; i < std::min(objects, first + batch); ++i) {
      const bool hit = i % stride == 0 && i / stride < hits;
      yaml += "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + Name(i) +
              "\n  namespace: default\n  labels:\n    bench: " + (hit ? "hit" : "miss") +
              "\ndata:\n  key: value-" + std::to_string(i) + "\n";
    }
    std::ofstream(file, std::ios::trunc) << yaml;
    // The document generation is not the server's time: only the apply is counted.
    const auto t = Clock::now();
    if (Run({hop, "--state", state, "apply", "-f", file}, dir + "/apply.log") != 0) {
      Fail("hop apply failed (see " + dir + "/apply.log)");
    }
    load.seconds += Seconds(Clock::now() - t);
    ++load.applies;
  }
  return load;
}

// The store's revision, from a list's metadata.
long long Revision(httplib::Client& c) {
  auto res = c.Get("/api/v1/namespaces/default/configmaps?limit=1", Plain());
  if (!res || res->status != 200) Fail("cannot list configmaps");
  return std::stoll(Json::parse(res->body)["metadata"]["resourceVersion"].get<std::string>());
}

// Waits until the server's watch cache has reached `revision`: a watch from just before it
// gets its first event only then. The load is written by other processes, which the server
// reads from the store's event log.
double WaitForCache(int port, long long revision) {
  const auto start = Clock::now();
  auto c = Connect(port);
  bool got = false;
  const std::string path = "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=" +
                           std::to_string(revision - 1) + "&timeoutSeconds=120";
  c->Get(path, Plain(), [&](const char*, size_t) {
    got = true;
    return false;
  });
  if (!got) Fail("the watch cache never reached the loaded revision");
  return Seconds(Clock::now() - start);
}

// --- 1. list by label ---

struct ListResult {
  Summary ms;
  size_t bytes = 0;
  std::string encoding;
};

ListResult ListByLabel(int port, long runs, long hits, const std::string& accept_encoding) {
  auto c = Connect(port);
  c->set_decompress(true);
  const httplib::Headers headers = {{"Accept-Encoding", accept_encoding}};
  const std::string path = "/api/v1/namespaces/default/configmaps?labelSelector=bench%3Dhit";
  std::vector<double> ms;
  ListResult out;
  for (long i = -3; i < runs; ++i) {  // three to warm up
    const auto t = Clock::now();
    auto res = c->Get(path, headers);
    const double took = Ms(Clock::now() - t);
    if (!res || res->status != 200) Fail("the label-selected list failed");
    // Checked outside the timing: the list holds exactly the labelled objects.
    const Json doc = Json::parse(res->body);
    if (static_cast<long>(doc["items"].size()) != hits) {
      Fail("the list returned " + std::to_string(doc["items"].size()) + " objects, not " +
           std::to_string(hits));
    }
    if (i >= 0) ms.push_back(took);
    out.bytes = res->body.size();
    out.encoding = res->get_header_value("Content-Encoding");
  }
  out.ms = Summarize(ms);
  return out;
}

sqlite3* OpenDb(const std::string& path, int flags) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    Fail("cannot open " + path + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
  }
  sqlite3_busy_timeout(db, 10000);
  return db;
}

void Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string m = err ? err : "?";
    sqlite3_free(err);
    Fail(std::string(sql) + ": " + m);
  }
}

// The rows the store reads for that list (src/store/sqlite_store.cc, List: the labels index
// drives, objects by id), each body copied out as the store copies it before decoding.
Summary RawList(const std::string& db_path, long runs, long hits) {
  sqlite3* db = OpenDb(db_path, SQLITE_OPEN_READONLY);
  const char* sql =
      "SELECT o.body FROM labels l CROSS JOIN objects o ON o.id = l.object_id "
      "WHERE 1 AND l.key = ? AND l.value IN (?) AND o.grp = ? AND o.kind = ? AND o.namespace = ? "
      "ORDER BY o.grp, o.kind, o.namespace, o.name";
  std::vector<double> ms;
  for (long i = -3; i < runs; ++i) {
    const auto t = Clock::now();
    Exec(db, "BEGIN");
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) Fail(sqlite3_errmsg(db));
    const char* binds[] = {"bench", "hit", "", "ConfigMap", "default"};
    for (int b = 0; b < 5; ++b) sqlite3_bind_text(st, b + 1, binds[b], -1, SQLITE_STATIC);
    std::vector<std::string> bodies;
    while (sqlite3_step(st) == SQLITE_ROW) {
      bodies.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)),
                          static_cast<size_t>(sqlite3_column_bytes(st, 0)));
    }
    sqlite3_finalize(st);
    Exec(db, "COMMIT");
    const double took = Ms(Clock::now() - t);
    if (static_cast<long>(bodies.size()) != hits) Fail("the raw read found other rows");
    if (i >= 0) ms.push_back(took);
  }
  sqlite3_close(db);
  return Summarize(ms);
}

// --- 2. create ---

struct CreateResult {
  Summary ms;
  double seconds = 0;
};

CreateResult Creates(int port, long n) {
  auto c = Connect(port);
  std::vector<double> ms;
  const auto start = Clock::now();
  for (long i = 0; i < n; ++i) {
    const std::string body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"new-)" +
                             std::to_string(i) + R"("},"data":{"key":"value"}})";
    const auto t = Clock::now();
    auto res = c->Post("/api/v1/namespaces/default/configmaps", Plain(), body, "application/json");
    const double took = Ms(Clock::now() - t);
    if (!res || res->status != 201) {
      Fail("POST " + std::to_string(i) + " failed: " + (res ? res->body : "no response"));
    }
    ms.push_back(took);
  }
  return {Summarize(ms), Seconds(Clock::now() - start)};
}

// One-row durable commits on a new SQLite file in `dir` (the state directory's disk), with the
// store's settings: WAL, synchronous=FULL.
Summary RawCommits(const std::string& dir, long n) {
  const std::string path = dir + "/baseline.db";
  sqlite3* db = OpenDb(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  Exec(db, "PRAGMA journal_mode=WAL");
  Exec(db, "PRAGMA synchronous=FULL");
  Exec(db,
       "CREATE TABLE objects (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, "
       "body TEXT NOT NULL) STRICT");
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, "INSERT INTO objects (name, body) VALUES (?, ?)", -1, &st, nullptr) !=
      SQLITE_OK) {
    Fail(sqlite3_errmsg(db));
  }
  const std::string body =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"default"},"data":{"key":"value"}})";
  std::vector<double> ms;
  for (long i = 0; i < n; ++i) {
    const std::string name = "new-" + std::to_string(i);
    const auto t = Clock::now();
    Exec(db, "BEGIN IMMEDIATE");
    sqlite3_bind_text(st, 1, name.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, body.c_str(), -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) Fail(sqlite3_errmsg(db));
    sqlite3_reset(st);
    Exec(db, "COMMIT");
    ms.push_back(Ms(Clock::now() - t));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return Summarize(ms);
}

// --- 3. watch fan-out ---

// The kernel's count of connections dropped because a listen queue was full
// (/proc/net/netstat, TcpExt ListenOverflows): the whole machine's, so read around one phase.
long ListenOverflows() {
  std::ifstream in("/proc/net/netstat");
  std::string names, values;
  while (std::getline(in, names) && std::getline(in, values)) {
    if (!names.starts_with("TcpExt:")) continue;
    std::istringstream n(names), v(values);
    std::string name, value;
    while (n >> name && v >> value) {
      if (name == "ListenOverflows") return std::atol(value.c_str());
    }
  }
  return -1;
}

struct WatchResult {
  long sent = 0;
  double write_seconds = 0;
  Summary write_ms;      // the PATCHes' own latency
  Summary since_sent;    // receive - the moment the writer sent the PATCH
  Summary since_answer;  // receive - the moment the writer had its response (may be < 0)
  long watchers = 0;
  long complete = 0;  // watchers that got every event exactly once
  long missing = 0, duplicates = 0, foreign = 0;
  double open_seconds = 0;
  long listen_overflows = 0;  // connection attempts the server's listen queue dropped meanwhile
};

// One watcher: its connection, and the moment each event arrived (by sequence number).
struct Watcher {
  std::unique_ptr<httplib::Client> client;
  std::thread thread;
  std::atomic<bool> open{false};
  std::vector<Clock::time_point> at;  // per sequence number
  std::vector<uint16_t> count;        // deliveries per sequence number
  std::atomic<long> received{0};      // events with a sequence number
  long foreign = 0;                   // other lines
  std::string partial;
};

WatchResult WatchFanOut(int port, long long from, long objects, long watchers, long rate,
                        long seconds, long writers) {
  WatchResult out;
  out.watchers = watchers;
  const long planned = rate * seconds;
  std::atomic<long> done_watchers{0};
  std::vector<std::unique_ptr<Watcher>> ws;
  const std::string path =
      "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=" + std::to_string(from) +
      "&timeoutSeconds=" + std::to_string(seconds + 60);
  std::atomic<long> expected{planned};  // lowered to what was sent once the writers end
  std::atomic<bool> writing{true};
  const auto open_start = Clock::now();
  const long overflows_before = ListenOverflows();
  for (long w = 0; w < watchers; ++w) {
    auto x = std::make_unique<Watcher>();
    x->client = Connect(port);
    x->at.resize(planned);
    x->count.assign(planned, 0);
    Watcher* me = x.get();
    x->thread = std::thread([me, path, &expected, &writing, &done_watchers] {
      me->client->Get(
          path, Plain(),
          [me](const httplib::Response& r) {
            me->open = r.status == 200;
            return r.status == 200;
          },
          [me, &expected, &writing](const char* data, size_t n) {
            const auto now = Clock::now();
            me->partial.append(data, n);
            size_t start = 0;
            for (;;) {
              const size_t nl = me->partial.find('\n', start);
              if (nl == std::string::npos) break;
              std::string_view line(me->partial.data() + start, nl - start);
              start = nl + 1;
              const size_t at = line.find(R"("seq":")");
              if (at == std::string_view::npos) {
                ++me->foreign;
                continue;
              }
              const long seq = std::strtol(line.data() + at + 7, nullptr, 10);
              if (seq < 0 || seq >= static_cast<long>(me->count.size())) {
                ++me->foreign;
                continue;
              }
              if (me->count[seq]++ == 0) me->at[seq] = now;
              ++me->received;
            }
            me->partial.erase(0, start);
            // Done once every event sent has come (and the writers have finished sending).
            return writing.load() || me->received < expected.load();
          });
      ++done_watchers;
    });
    ws.push_back(std::move(x));
  }
  // Every watch must be open before the first write, or its first latencies include the
  // connection's set-up.
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  for (auto& x : ws) {
    while (!x->open && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!x->open) Fail("a watch did not open within 30 s");
  }
  out.open_seconds = Seconds(Clock::now() - open_start);
  out.listen_overflows = ListenOverflows() - overflows_before;

  // The writers take the next slot of the schedule (one every 1/RATE s), wait for it and
  // send; behind schedule they send at once.
  std::vector<Clock::time_point> sent_at(planned), answered_at(planned);
  std::atomic<long> next{0};
  std::atomic<long> sent{0};
  const auto t0 = Clock::now() + std::chrono::milliseconds(20);
  const auto period = std::chrono::nanoseconds(1000000000L / rate);
  const auto t_end = t0 + std::chrono::seconds(seconds);
  std::vector<uint8_t> was_sent(planned, 0);
  std::vector<std::thread> pool;
  for (long w = 0; w < writers; ++w) {
    pool.emplace_back([&] {
      auto c = Connect(port);
      for (;;) {
        const long seq = next++;
        if (seq >= planned) return;
        std::this_thread::sleep_until(t0 + seq * period);
        const auto t = Clock::now();
        // The phase lasts SECONDS: slots a slow server leaves unused by then are not sent.
        if (t >= t_end) return;
        const std::string body = R"({"data":{"seq":")" + std::to_string(seq) + R"(","sent":")" +
                                 std::to_string(t.time_since_epoch().count()) + R"("}})";
        auto res = c->Patch("/api/v1/namespaces/default/configmaps/" + Name(seq % objects), Plain(),
                            body, "application/merge-patch+json");
        const auto answered = Clock::now();
        if (!res || res->status != 200) {
          Fail("PATCH " + std::to_string(seq) + " failed: " + (res ? res->body : "no response"));
        }
        sent_at[seq] = t;
        answered_at[seq] = answered;
        was_sent[seq] = 1;
        ++sent;
      }
    });
  }
  for (auto& t : pool) t.join();
  const auto write_end = Clock::now();
  out.sent = sent.load();
  out.write_seconds = Seconds(write_end - t0);
  expected = out.sent;
  writing = false;
  // The last events are on their way: wait for them, then end the watches still open.
  const auto grace = Clock::now() + std::chrono::seconds(10);
  while (done_watchers.load() < watchers && Clock::now() < grace) {
    bool all = true;
    for (auto& x : ws) all = all && x->received >= out.sent;
    if (all) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (auto& x : ws) x->client->stop();
  for (auto& x : ws) x->thread.join();

  std::vector<double> write_ms, since_sent, since_answer;
  for (long s = 0; s < planned; ++s) {
    if (was_sent[s]) write_ms.push_back(Ms(answered_at[s] - sent_at[s]));
  }
  since_sent.reserve(static_cast<size_t>(out.sent * watchers));
  since_answer.reserve(static_cast<size_t>(out.sent * watchers));
  for (auto& x : ws) {
    bool exact = true;
    for (long s = 0; s < planned; ++s) {
      if (!was_sent[s]) {
        if (x->count[s] > 0) exact = false;  // an event of a write never made
        continue;
      }
      if (x->count[s] == 0) {
        ++out.missing;
        exact = false;
        continue;
      }
      if (x->count[s] > 1) {
        out.duplicates += x->count[s] - 1;
        exact = false;
      }
      since_sent.push_back(Ms(x->at[s] - sent_at[s]));
      since_answer.push_back(Ms(x->at[s] - answered_at[s]));
    }
    out.foreign += x->foreign;
    if (exact) ++out.complete;
  }
  out.write_ms = Summarize(std::move(write_ms));
  out.since_sent = Summarize(std::move(since_sent));
  out.since_answer = Summarize(std::move(since_answer));
  return out;
}

std::string F(double v, int digits = 2) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string Verdict(double value, double goal) { return value <= goal ? "yes" : "**no**"; }

}  // namespace

int main() {
  const long objects = Knob("OBJECTS", 100000);
  const long hits = std::min(Knob("HITS", 1000), objects);
  const long lists = Knob("LISTS", 200);
  const long batch = Knob("BATCH", 5000);
  const long creates = Knob("CREATES", 2000);
  const long watchers = Knob("WATCHERS", 100);
  const long rate = Knob("RATE", 1000);
  const long seconds = Knob("SECONDS", 10);
  const long writers = Knob("WRITERS", 8);
  const std::string hop = KnobText("HOP", HOP_BINARY);
  const bool keep = std::getenv("KEEP") != nullptr;

  char tmpl[] = "/tmp/hop-kube-bench-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) Fail("cannot make a temporary directory");
  const std::string dir = tmpl;
  const std::string state = dir + "/state";
  const auto run_start = Clock::now();

  Serve serve(hop, state, dir + "/serve.log");
  const int port = serve.WaitForPort();
  std::fprintf(stderr, "kube_bench: hop serve (pid %d) on port %d, state %s\n", serve.pid(), port,
               state.c_str());

  std::fprintf(stderr,
               "kube_bench: loading %ld ConfigMaps (%ld labelled bench=hit), %ld per apply\n",
               objects, hits, batch);
  Load load = LoadObjects(hop, dir, state, objects, hits, batch);
  auto probe = Connect(port);
  const long long loaded = Revision(*probe);
  load.catch_up = WaitForCache(port, loaded);

  std::fprintf(stderr, "kube_bench: list by label, %ld times\n", lists);
  const ListResult list = ListByLabel(port, lists, hits, "identity");
  const ListResult list_gzip = ListByLabel(port, std::max<long>(1, lists / 4), hits, "gzip");
  const Summary raw_list = RawList(state + "/hop.db", lists, hits);

  std::fprintf(stderr, "kube_bench: %ld creates\n", creates);
  const CreateResult create = Creates(port, creates);
  const Summary raw_commit = RawCommits(dir, creates);

  std::fprintf(stderr, "kube_bench: %ld watchers, %ld updates/s for %ld s by %ld writers\n",
               watchers, rate, seconds, writers);
  const long long before_watch = Revision(*probe);
  const WatchResult watch =
      WatchFanOut(port, before_watch, objects, watchers, rate, seconds, writers);
  probe.reset();
  serve.Stop();
  const double total = Seconds(Clock::now() - run_start);

  const double objects_per_s = list.ms.mean > 0 ? hits / (list.ms.mean / 1000) : 0;
  const double raw_per_s = raw_list.mean > 0 ? hits / (raw_list.mean / 1000) : 0;
  const double achieved = watch.write_seconds > 0 ? watch.sent / watch.write_seconds : 0;

  std::printf("\n## hop Kubernetes API benchmark\n\n");
  std::printf(
      "One `hop serve --http-port 0` on a fresh state directory (%s), loopback HTTP/1.1, "
      "keep-alive, no compression unless said. Client and server share this machine's %u "
      "cores. Whole run: %.1f s.\n\n",
      state.c_str(), std::thread::hardware_concurrency(), total);
  std::printf(
      "Load: %ld ConfigMaps by `hop apply -f` in %d applies of %ld documents: %.1f s "
      "(%.0f objects/s); the server's watch cache then had them all after %.2f s more.\n\n",
      objects, load.applies, batch, load.seconds, objects / std::max(load.seconds, 1e-9),
      load.catch_up);
  std::printf(
      "| measurement | hop over HTTP | raw baseline | hop / raw | SLO (Kubernetes) | goal | within "
      "goal |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  std::printf("| list %ld of %ld by label, p50 (ms) | %s | %s | %.1fx | | | |\n", hits, objects,
              F(list.ms.p50).c_str(), F(raw_list.p50, 3).c_str(), list.ms.p50 / raw_list.p50);
  std::printf("| list by label, p99 (ms) | %s | %s | %.1fx | ≤ 30000 | ≤ 300 | %s |\n",
              F(list.ms.p99).c_str(), F(raw_list.p99, 3).c_str(), list.ms.p99 / raw_list.p99,
              Verdict(list.ms.p99, 300).c_str());
  std::printf("| list by label, objects/s (mean of %ld lists) | %.0f | %.0f | %.2fx | | | |\n",
              lists, objects_per_s, raw_per_s, objects_per_s / raw_per_s);
  std::printf(
      "| list by label, asking for gzip (as client-go does), p50 / p99 (ms) | %s / %s | | "
      "| ≤ 30000 | ≤ 300 | %s |\n",
      F(list_gzip.ms.p50).c_str(), F(list_gzip.ms.p99).c_str(),
      Verdict(list_gzip.ms.p99, 300).c_str());
  std::printf("| create (POST, one connection), p50 (ms) | %s | %s | %.1fx | | | |\n",
              F(create.ms.p50).c_str(), F(raw_commit.p50, 3).c_str(),
              create.ms.p50 / raw_commit.p50);
  std::printf("| create, p99 (ms) | %s | %s | %.1fx | ≤ 1000 | ≤ 10 | %s |\n",
              F(create.ms.p99).c_str(), F(raw_commit.p99, 3).c_str(),
              create.ms.p99 / raw_commit.p99, Verdict(create.ms.p99, 10).c_str());
  std::printf("| create, max (ms) | %s | %s | | | | |\n", F(create.ms.max).c_str(),
              F(raw_commit.max, 3).c_str());
  std::printf("| create, throughput (objects/s, sequential) | %.0f | %.0f | | | | |\n",
              creates / create.seconds, 1000 / raw_commit.mean);
  std::printf(
      "| watch: updates (PATCH by %ld connections), achieved rate (/s) | %.0f of %ld | | | | | |\n",
      writers, achieved, rate);
  std::printf(
      "| watch: PATCH p50 / p99 / max (ms) | %s / %s / %s | | | ≤ 1000 (p99) | ≤ 10 (p99) | %s |\n",
      F(watch.write_ms.p50).c_str(), F(watch.write_ms.p99).c_str(), F(watch.write_ms.max).c_str(),
      Verdict(watch.write_ms.p99, 10).c_str());
  std::printf(
      "| watch: delivery, receive − PATCH sent, p50 / p99 / max (ms) | %s / %s / %s | | | | | |\n",
      F(watch.since_sent.p50).c_str(), F(watch.since_sent.p99).c_str(),
      F(watch.since_sent.max).c_str());
  std::printf(
      "| watch: delivery, receive − PATCH answered, p50 / p99 / max (ms) | %s / %s / %s | | | | | "
      "|\n",
      F(watch.since_answer.p50).c_str(), F(watch.since_answer.p99).c_str(),
      F(watch.since_answer.max).c_str());
  std::printf("| watch: %ld watchers got all %ld events exactly once | %ld of %ld | | | | | %s |\n",
              watchers, watch.sent, watch.complete, watch.watchers,
              watch.complete == watch.watchers ? "yes" : "**no**");
  std::printf("\n");
  std::printf(
      "List: %zu bytes of JSON per response (the gzip run's Content-Encoding: %s); the raw "
      "baseline "
      "is the store's own query on hop.db (labels index, then objects by id), bodies copied, "
      "not decoded. Create: the baseline is a one-row INSERT committed alone on a SQLite file "
      "beside the state (WAL, synchronous=FULL). Watch: %ld watches opened at once in %.2f s (%ld "
      "connection attempts dropped by a full listen queue meanwhile); %ld "
      "deliveries missing, %ld duplicated, %ld other lines; delivery latency over %zu "
      "deliveries (\"answered\" can be negative: an event may reach a watcher before the "
      "writer reads its response). SLO rows: mutating API calls p99 ≤ 1 s, list p99 ≤ 30 s; "
      "the goal is a hundredth of them.\n",
      list.bytes, list_gzip.encoding.empty() ? "none" : list_gzip.encoding.c_str(), watch.watchers,
      watch.open_seconds, watch.listen_overflows, watch.missing, watch.duplicates, watch.foreign,
      watch.since_sent.n);
  if (keep) {
    std::fprintf(stderr, "kube_bench: kept %s\n", dir.c_str());
  } else {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  return watch.complete == watch.watchers ? 0 : 1;
}
