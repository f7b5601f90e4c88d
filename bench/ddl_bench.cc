// The session's share of a DDL statement: from its text to committed resources in the embedded
// store, with durable commits, timed by the wall clock (fsync waits included), in this process:
// no process start, no operator, and the catalog already loaded by the statements before. What
// a user sees of the same statements (`hop -f`, the operator on) is scale_bench's ddl row
// (make bench-scale). Counters: the store's size and this process's memory after the run.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "resource/resource.h"
#include "resource/yaml.h"
#include "session/session.h"
#include "sql/parser.h"
#include "store/sqlite_store.h"

namespace {

// A fresh state directory with the demo environment.
std::string NewStateDir() {
  char tmpl[] = "/tmp/hop-ddl-bench-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  auto store = std::move(hop::store::SqliteStore::Open(dir)).value();
  std::ifstream in(std::string(HOP_SOURCE_DIR) + "/examples/demo-environment.yaml");
  std::stringstream text;
  text << in.rdbuf();
  auto docs = hop::ParseYamlDocuments(text.str(), "demo");
  if (!docs.ok()) std::abort();
  for (auto& doc : *docs) {
    if (doc.is_null()) continue;
    auto r = hop::resource::Resource::FromJson(doc, "demo");
    if (!r.ok()) std::abort();
    if (r->namespace_name().empty()) r->set_namespace("default");
    (void)store->Create(*r);
  }
  return dir;
}

std::string CreateView(int i) {
  return "CREATE MATERIALIZED VIEW ads.audience_" + std::to_string(i) +
         " AS SELECT first_name, last_name FROM ads.page_views NATURAL JOIN profile.members "
         "WHERE page_urn LIKE 'urn:li:page:" +
         std::to_string(i) + "%'";
}

// One statement through a session, as `hop -f` runs it: parse, plan, render, validate, commit.
bool Execute(hop::session::Session& session, const std::string& sql, benchmark::State& state) {
  std::string out;
  hop::Status st = session.Execute(sql, /*is_command=*/false, out);
  if (!st.ok()) {
    state.SkipWithError(st.ToString().c_str());
    return false;
  }
  return true;
}

double ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

double StoreBytes(const std::string& dir) {
  double total = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file()) total += static_cast<double>(e.file_size());
  }
  return total;
}

// CREATE MATERIALIZED VIEW, each a new view (View, Pipeline and Flink job in one commit), into a
// store already holding `range(0)` such views, through one Session.
void BM_SessionCreateMaterializedView(benchmark::State& state) {
  const std::string dir = NewStateDir();
  auto store = std::move(hop::store::SqliteStore::Open(dir)).value();
  hop::session::Session session(*store, {});
  const int existing = static_cast<int>(state.range(0));
  for (int i = 0; i < existing; ++i) {
    if (!Execute(session, CreateView(i), state)) return;
  }
  int i = existing;
  for (auto _ : state) {
    if (!Execute(session, CreateView(i++), state)) break;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["views"] = i;
  state.counters["store_bytes"] = StoreBytes(dir);
  state.counters["rss_bytes"] = ResidentBytes();
  store.reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_SessionCreateMaterializedView)
    ->ArgName("views")
    ->Arg(0)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime()
    ->Iterations(1000);

// DROP MATERIALIZED VIEW of views made beforehand (not timed) through one Session: the View and,
// by ownership, its Pipeline and job.
void BM_SessionDropMaterializedView(benchmark::State& state) {
  const std::string dir = NewStateDir();
  auto store = std::move(hop::store::SqliteStore::Open(dir)).value();
  hop::session::Session session(*store, {});
  const int views = 1000;
  for (int i = 0; i < views; ++i) {
    if (!Execute(session, CreateView(i), state)) return;
  }
  int i = 0;
  for (auto _ : state) {
    if (!Execute(session, "DROP MATERIALIZED VIEW ads.audience_" + std::to_string(i++), state)) {
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
  store.reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_SessionDropMaterializedView)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime()
    ->Iterations(1000);

}  // namespace

BENCHMARK_MAIN();
