// SqliteStore benchmarks: write throughput with durable commits, read latency with 100k objects,
// and watch delivery latency within one process and across two.
//
//   BM_CreateSingle        one create per transaction (fsync per commit)
//   BM_CreateBatched       100 creates per transaction
//   BM_Get                 get by name, 100k objects stored
//   BM_ListNamespace       list one namespace of 1k objects, 100k stored
//   BM_ListSelected        list 1k of 100k by an equality label selector
//   BM_WatchInProcess      write -> event latency, same process (p50/p99 counters, microseconds)
//   BM_WatchCrossProcess   write -> event latency, writer in another process
//
// The bench binary also serves as the writer process: `store_bench --writer DIR N`.
#include <benchmark/benchmark.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "store/sqlite_store.h"

extern char** environ;

namespace {

using hop::Json;
using hop::resource::Resource;
using hop::store::SqliteStore;
using hop::store::SqliteStoreOptions;
using hop::store::Write;

const hop::resource::GroupKind kConfigMap{"", "ConfigMap"};

std::string TempDir() {
  char tmpl[] = "/tmp/hop-store-bench-XXXXXX";
  return mkdtemp(tmpl);
}

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Resource ConfigMap(const std::string& name, const std::string& ns, int group) {
  Resource r(Json::parse(R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {},
      "data": {"connector": "kafka", "topic": "page-views", "bootstrap": "kafka:9092",
               "format": "json", "partitions": "10", "retention": "604800000"}})"));
  r.set_name(name);
  r.set_namespace(ns);
  r.set_label("app", "bench");
  r.set_label("group", "g" + std::to_string(group));
  r.mutable_json()["data"]["sentAt"] = std::to_string(NowMicros());
  return r;
}

std::unique_ptr<SqliteStore> Open(const std::string& dir, bool durable) {
  SqliteStoreOptions opts;
  opts.durable = durable;
  auto s = SqliteStore::Open(dir, opts);
  if (!s.ok()) std::abort();
  return std::move(s).value();
}

void BM_CreateSingle(benchmark::State& state) {
  const std::string dir = TempDir();
  auto store = Open(dir, /*durable=*/true);
  int64_t i = 0;
  for (auto _ : state) {
    auto r = store->Create(ConfigMap("cm-" + std::to_string(i++), "default", 0));
    if (!r.ok()) state.SkipWithError(r.status().ToString().c_str());
  }
  state.SetItemsProcessed(state.iterations());
  store.reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_CreateSingle)->UseRealTime()->MinTime(2.0);

void BM_CreateBatched(benchmark::State& state) {
  const std::string dir = TempDir();
  auto store = Open(dir, /*durable=*/true);
  int64_t i = 0;
  for (auto _ : state) {
    std::vector<Write> batch;
    for (int k = 0; k < 100; ++k) {
      batch.push_back(Write::Create(ConfigMap("cm-" + std::to_string(i++), "default", 0)));
    }
    auto r = store->Commit(std::move(batch));
    if (!r.ok()) state.SkipWithError(r.status().ToString().c_str());
  }
  state.SetItemsProcessed(state.iterations() * 100);
  store.reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_CreateBatched)->UseRealTime()->MinTime(2.0);

// 100k ConfigMaps in 100 namespaces of 1k, each namespace in 100 label groups of 10; group g7
// appears in every namespace, so `group=g7` selects 100 x 10 = 1k objects.
struct Populated {
  std::string dir;
  std::unique_ptr<SqliteStore> store;
};

bool g_populated = false;

Populated& Store100k() {
  static Populated p = [] {
    g_populated = true;
    Populated out;
    out.dir = TempDir();
    out.store = Open(out.dir, /*durable=*/false);
    for (int ns = 0; ns < 100; ++ns) {
      std::vector<Write> batch;
      for (int k = 0; k < 1000; ++k) {
        batch.push_back(Write::Create(
            ConfigMap("cm-" + std::to_string(k), "ns-" + std::to_string(ns), k % 100)));
      }
      if (!out.store->Commit(std::move(batch)).ok()) std::abort();
    }
    return out;
  }();
  return p;
}

void BM_Get(benchmark::State& state) {
  auto& p = Store100k();
  int64_t i = 0;
  for (auto _ : state) {
    ++i;
    auto r = p.store->Get({kConfigMap, "ns-" + std::to_string(i % 100),
                           "cm-" + std::to_string((i * 7) % 1000)});
    if (!r.ok()) state.SkipWithError(r.status().ToString().c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_Get);

void BM_ListNamespace(benchmark::State& state) {
  auto& p = Store100k();
  int64_t i = 0;
  for (auto _ : state) {
    auto r = p.store->List({kConfigMap, "ns-" + std::to_string(i++ % 100), {}});
    if (!r.ok() || r->items.size() != 1000) state.SkipWithError("bad list");
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}
BENCHMARK(BM_ListNamespace)->Unit(benchmark::kMillisecond);

void BM_ListSelected(benchmark::State& state) {
  auto& p = Store100k();
  auto sel = hop::resource::LabelSelector::Parse("group=g7");
  for (auto _ : state) {
    auto r = p.store->List({kConfigMap, "", *sel});
    if (!r.ok() || r->items.size() != 1000) state.SkipWithError("bad list");
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}
BENCHMARK(BM_ListSelected)->Unit(benchmark::kMillisecond);

void ReportLatencies(benchmark::State& state, std::vector<int64_t> micros) {
  if (micros.empty()) return;
  std::sort(micros.begin(), micros.end());
  state.counters["p50_us"] = static_cast<double>(micros[micros.size() / 2]);
  state.counters["p99_us"] = static_cast<double>(micros[micros.size() * 99 / 100]);
  state.counters["max_us"] = static_cast<double>(micros.back());
}

// Latency of each event: its receipt time minus the sentAt stamped in the object at write time.
std::vector<int64_t> Receive(hop::store::Watch* watch, int n) {
  std::vector<int64_t> out;
  hop::store::Event e;
  while (static_cast<int>(out.size()) < n &&
         watch->Next(std::chrono::seconds(10), &e) == hop::store::Watch::Outcome::kEvent) {
    const int64_t sent = std::stoll(e.object.json()["data"]["sentAt"].get<std::string>());
    out.push_back(NowMicros() - sent);
  }
  return out;
}

void BM_WatchInProcess(benchmark::State& state) {
  const std::string dir = TempDir();
  auto store = Open(dir, /*durable=*/true);
  std::vector<int64_t> latencies;
  int64_t i = 0;
  for (auto _ : state) {
    auto watch = store->StartWatch({kConfigMap, "", *store->Revision()});
    std::thread writer([&] {
      for (int k = 0; k < 200; ++k) {
        (void)store->Create(ConfigMap("cm-" + std::to_string(i++), "default", 0));
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
    auto got = Receive(watch.get(), 200);
    writer.join();
    latencies.insert(latencies.end(), got.begin(), got.end());
  }
  ReportLatencies(state, latencies);
  store.reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_WatchInProcess)->Iterations(3)->Unit(benchmark::kMillisecond);

std::string g_self;

void BM_WatchCrossProcess(benchmark::State& state) {
  const std::string dir = TempDir();
  auto store = Open(dir, /*durable=*/true);
  std::vector<int64_t> latencies;
  for (auto _ : state) {
    auto watch = store->StartWatch({kConfigMap, "", *store->Revision()});
    std::vector<std::string> args = {g_self, "--writer", dir, "200"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
    auto got = Receive(watch.get(), 200);
    int status = 0;
    waitpid(pid, &status, 0);
    latencies.insert(latencies.end(), got.begin(), got.end());
  }
  ReportLatencies(state, latencies);
  store.reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_WatchCrossProcess)->Iterations(3)->Unit(benchmark::kMillisecond);

int RunWriter(const std::string& dir, int n) {
  auto store = Open(dir, /*durable=*/true);
  static int64_t seq = 0;
  const std::string prefix = "w" + std::to_string(getpid()) + "-";
  for (int k = 0; k < n; ++k) {
    (void)store->Create(ConfigMap(prefix + std::to_string(seq++), "default", 0));
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--writer") == 0) return RunWriter(argv[2], std::atoi(argv[3]));
  g_self = argv[0];
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (g_populated) {
    auto& p = Store100k();
    p.store.reset();
    std::filesystem::remove_all(p.dir);
  }
  return 0;
}
