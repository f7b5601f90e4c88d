// Planner benchmarks: the path from SQL text to pipeline SQL, in process and as a cold `hop`
// process. Targets (issue 4): parse + bind + plan + render of a three-way-join materialized view
// in at most 200 µs; a cold `hop -e '!pipeline ...'` in at most 30 ms.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "catalog/catalog.h"
#include "planner/planner.h"
#include "resource/kinds.h"
#include "resource/resource.h"
#include "resource/yaml.h"
#include "sql/parser.h"
#include "store/sqlite_store.h"

extern char** environ;

namespace {

constexpr const char* kThreeWayJoin =
    "CREATE MATERIALIZED VIEW ads.audience_companies AS "
    "SELECT m.first_name, m.last_name, c.company_name, p.page_urn "
    "FROM ads.page_views p "
    "JOIN profile.members m ON p.member_urn = m.member_urn "
    "JOIN profile.companies c ON m.company_urn = c.company_urn "
    "WHERE p.page_urn LIKE 'urn:li:page:%'";

std::string Environment() {
  return std::string(HOP_SOURCE_DIR) + "/examples/demo-environment.yaml";
}

// A state directory with the demo environment, made once.
const std::string& StateDir() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/hop-planner-bench-XXXXXX";
    std::string d = mkdtemp(tmpl);
    auto store = std::move(hop::store::SqliteStore::Open(d)).value();
    std::string text;
    {
      FILE* f = fopen(Environment().c_str(), "r");
      char buf[4096];
      size_t n;
      while ((n = fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
      fclose(f);
    }
    auto docs = hop::ParseYamlDocuments(text, "demo");
    if (!docs.ok()) {
      fprintf(stderr, "%s\n", docs.status().ToString().c_str());
      std::abort();
    }
    for (auto& doc : *docs) {
      if (doc.is_null()) continue;
      auto r = hop::resource::Resource::FromJson(doc, "demo");
      if (!r.ok()) {
        fprintf(stderr, "%s\n", r.status().ToString().c_str());
        std::abort();
      }
      if (r->namespace_name().empty()) r->set_namespace("default");
      (void)store->Create(*r);
    }
    std::atexit([] { std::filesystem::remove_all(StateDir()); });
    return d;
  }();
  return dir;
}

void BM_PlanThreeWayJoin(benchmark::State& state) {
  auto store = std::move(hop::store::SqliteStore::Open(StateDir())).value();
  auto catalog = std::move(hop::catalog::Catalog::Load(*store, "default")).value();
  hop::planner::PlanContext ctx;
  ctx.catalog = &catalog;
  ctx.table_templates =
      store->List({hop::resource::TableTemplateKind::Info().group_kind(), "default", {}})
          .value()
          .items;
  hop::planner::Planner planner(ctx);
  size_t bytes = 0;
  for (auto _ : state) {
    auto stmt = hop::sql::ParseStatement(kThreeWayJoin);
    auto pipeline = planner.Plan(**stmt);
    if (!pipeline.ok()) {
      state.SkipWithError(pipeline.status().ToString().c_str());
      break;
    }
    bytes = pipeline->sql.size();
    benchmark::DoNotOptimize(pipeline->sql.data());
  }
  state.counters["sql_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_PlanThreeWayJoin)->Unit(benchmark::kMicrosecond);

// The whole `hop` process: start, open the state directory, load the catalog and templates,
// plan, print.
void BM_ColdHopPipeline(benchmark::State& state) {
  const std::string hop = HOP_BINARY;
  const std::string state_flag = StateDir();
  const std::string command = std::string("!pipeline ") + kThreeWayJoin;
  for (auto _ : state) {
    pid_t pid;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    const char* argv[] = {hop.c_str(), "--state",       state_flag.c_str(),
                          "-e",        command.c_str(), nullptr};
    if (posix_spawn(&pid, hop.c_str(), &actions, nullptr, const_cast<char**>(argv), environ) != 0) {
      state.SkipWithError("cannot start hop");
      break;
    }
    posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      state.SkipWithError("hop failed");
      break;
    }
  }
}
BENCHMARK(BM_ColdHopPipeline)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
