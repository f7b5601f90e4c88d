// Operator benchmarks (issue 6), a bench command rather than a Google Benchmark: each scenario
// runs the real control plane (reconcilers, work queue, Job runner) in this process over a
// durable store, and prints its numbers.
//
//   baseline      one store commit plus one process spawn and exit, the floor of any fire
//   fire/1        a view's watermark moves; its one trigger's Job process starts (30 fires)
//   fire/100      one move, 100 triggers: when each Job process starts
//   fire/10000    one move, 10,000 triggers: when each Job is created (local Jobs off: the
//                 operator alone; 10,000 processes would measure the machine)
//   idle          CPU of the control plane holding 10,000 cron triggers with nothing to do
//
// Targets: fire/1 p99 <= 50 ms; fire/10000 all started within 2 s; idle < 2% of a core.
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "resource/kinds.h"
#include "resource/yaml.h"
#include "session/control_plane.h"
#include "store/sqlite_store.h"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;
using hop::resource::Resource;
namespace fs = std::filesystem;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Resource Parse(const std::string& yaml) {
  auto docs = hop::ParseYamlDocuments(yaml, "bench");
  if (!docs.ok()) {
    fprintf(stderr, "%s\n", docs.status().ToString().c_str());
    std::abort();
  }
  return *Resource::FromJson((*docs)[0], "bench");
}

struct Fixture {
  std::string dir;
  std::unique_ptr<hop::store::SqliteStore> store;

  Fixture() {
    char tmpl[] = "/tmp/hop-operator-bench-XXXXXX";
    dir = mkdtemp(tmpl);
    store =
        std::move(hop::store::SqliteStore::Open(dir, hop::session::ControlPlane::StoreOptions()))
            .value();
    Must(store->Create(
        Parse("apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: View\nmetadata: {name: v}\n"
              "spec: {view: V, schema: S, sql: SELECT 1}\n")));
  }
  ~Fixture() {
    store.reset();
    fs::remove_all(dir);
  }
  template <typename T>
  static T Must(hop::Result<T> r) {
    if (!r.ok()) {
      fprintf(stderr, "%s\n", r.status().ToString().c_str());
      std::abort();
    }
    return std::move(r).value();
  }

  // `n` triggers on view v; each Job writes the time its process started into marks/<name>.
  void AddTriggers(int n, const std::string& schedule = "") {
    fs::create_directories(dir + "/marks");
    std::vector<hop::store::Write> batch;
    for (int i = 0; i < n; ++i) {
      const std::string name = "t" + std::to_string(i);
      Resource t = Parse(
          "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: TableTrigger\nmetadata: {name: " +
          name + ", labels: {view: v}}\nspec: {schema: S, table: V}\n");
      t.mutable_json()["spec"]["yaml"] =
          "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{trigger}}\nspec:\n  template:\n"
          "    spec:\n      containers:\n      - name: mark\n        image: none\n"
          "        command: [\"sh\", \"-c\", \"date +%s%N > " +
          dir + "/marks/{{trigger}}-{{timestamp}}\"]\n      restartPolicy: Never\n";
      if (!schedule.empty()) t.mutable_json()["spec"]["schedule"] = schedule;
      batch.push_back(hop::store::Write::Create(std::move(t)));
      if (batch.size() == 1000 || i + 1 == n) {
        Must(store->Commit(std::move(batch)));
        batch.clear();
      }
    }
  }

  // Moves the view's watermark to now; returns the time it did.
  int64_t Fire() {
    Resource v = Must(store->Get({hop::resource::ViewKind::Info().group_kind(), "default", "v"}));
    const int64_t at = NowNanos();
    v.mutable_status()["watermark"] = hop::FormatRfc3339(std::chrono::system_clock::now(), 3);
    Must(store->UpdateStatus(v));
    return at;
  }

  // The start times the Jobs wrote, in nanoseconds, for marks whose name contains `stamp`.
  std::vector<int64_t> Marks() {
    std::vector<int64_t> out;
    for (const auto& e : fs::directory_iterator(dir + "/marks")) {
      std::ifstream in(e.path());
      int64_t t = 0;
      if (in >> t) out.push_back(t);
    }
    return out;
  }
  size_t Jobs() {
    return Must(store->List({hop::store::GroupKind{"batch", "Job"}, "default", {}})).items.size();
  }
};

std::unique_ptr<hop::session::ControlPlane> Start(Fixture& f, bool local_jobs) {
  hop::session::ControlPlaneOptions o;
  o.state_dir = f.dir;
  o.local_jobs = local_jobs;
  o.max_running_jobs = 16;
  auto cp = Fixture::Must(hop::session::ControlPlane::Start(*f.store, o));
  cp->WaitIdle(std::chrono::minutes(5));
  return cp;
}

template <typename Done>
bool WaitFor(Done done, std::chrono::seconds limit) {
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return done();
}

void Baseline() {
  Fixture f;
  std::vector<double> ms;
  for (int i = 0; i < 30; ++i) {
    const auto t0 = Clock::now();
    Fixture::Must(f.store->Create(
        Parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c" + std::to_string(i) + "}\n")));
    pid_t pid;
    const char* argv[] = {"/bin/sh", "-c", ":", nullptr};
    posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ);
    waitpid(pid, nullptr, 0);
    ms.push_back(Ms(Clock::now() - t0));
  }
  printf("baseline      commit + spawn: p50 %.2f ms, p99 %.2f ms\n", Percentile(ms, 0.5),
         Percentile(ms, 0.99));
}

void FireOne() {
  Fixture f;
  f.AddTriggers(1);
  auto cp = Start(f, true);
  std::vector<double> ms;
  for (int i = 0; i < 30; ++i) {
    const size_t before = f.Marks().size();
    const int64_t at = f.Fire();
    if (!WaitFor([&] { return f.Marks().size() > before; }, std::chrono::seconds(30))) {
      printf("fire/1        timed out\n");
      return;
    }
    auto marks = f.Marks();
    ms.push_back(static_cast<double>(*std::max_element(marks.begin(), marks.end()) - at) / 1e6);
    cp->WaitIdle(std::chrono::seconds(30));
  }
  printf("fire/1        fire to process start: p50 %.2f ms, p99 %.2f ms (%zu fires)\n",
         Percentile(ms, 0.5), Percentile(ms, 0.99), ms.size());
}

void FireMany(int n, bool local_jobs) {
  Fixture f;
  f.AddTriggers(n);
  auto cp = Start(f, local_jobs);
  const int64_t at = f.Fire();
  const auto t0 = Clock::now();
  bool ok = false;
  if (local_jobs) {
    ok = WaitFor([&] { return f.Marks().size() >= static_cast<size_t>(n); },
                 std::chrono::seconds(300));
    std::vector<double> ms;
    for (int64_t t : f.Marks()) ms.push_back(static_cast<double>(t - at) / 1e6);
    printf("fire/%-8d fire to process start: p50 %.1f ms, p99 %.1f ms, all %d in %.0f ms%s\n", n,
           Percentile(ms, 0.5), Percentile(ms, 0.99), n, ms.empty() ? 0 : Percentile(ms, 1.0),
           ok ? "" : " (timed out)");
  } else {
    // Counted from the store's events, so that counting costs no more than the events.
    auto watch = f.store->StartWatch({hop::store::GroupKind{"batch", "Job"}, "default", 0});
    size_t created = 0;
    hop::store::Event event;
    const auto deadline = Clock::now() + std::chrono::seconds(600);
    while (created < static_cast<size_t>(n) && Clock::now() < deadline) {
      if (watch->Next(std::chrono::milliseconds(100), &event) ==
              hop::store::Watch::Outcome::kEvent &&
          event.type == hop::store::EventType::kAdded) {
        ++created;
      }
    }
    ok = created >= static_cast<size_t>(n);
    printf("fire/%-8d fire to every Job created (local Jobs off): %.0f ms%s\n", n,
           Ms(Clock::now() - t0), ok ? "" : " (timed out)");
  }
}

void Idle() {
  Fixture f;
  f.AddTriggers(10000, "0 0 1 1 *");
  const auto t0 = Clock::now();
  auto cp = Start(f, true);
  printf("idle          10000 cron triggers reconciled once in %.0f ms\n", Ms(Clock::now() - t0));
  rusage before, after;
  getrusage(RUSAGE_SELF, &before);
  const auto w0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(10));
  getrusage(RUSAGE_SELF, &after);
  auto cpu = [](const rusage& r) {
    return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
           static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
  };
  const double wall = std::chrono::duration<double>(Clock::now() - w0).count();
  printf("idle          CPU while idle: %.2f%% of a core\n",
         100.0 * (cpu(after) - cpu(before)) / wall);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  auto want = [&](const char* name) { return only.empty() || only == name; };
  if (want("baseline")) Baseline();
  if (want("fire1")) FireOne();
  if (want("fire100")) FireMany(100, true);
  if (want("fire10000")) FireMany(10000, false);
  if (want("idle")) Idle();
  return 0;
}
