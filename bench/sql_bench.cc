// Parse and print throughput of the SQL front end.
//
//   BM_ParseCorpus      every statement of the golden corpus (src/sql/testdata) that parses,
//                       split and parsed as one script; reports bytes/s
//   BM_ParseMaterializedView  one ~1 KB CREATE MATERIALIZED VIEW; reports time per parse
//   BM_Tokenize         the corpus through the lexer only
//   BM_PrintCorpus      every parsed statement printed in the ANSI and Flink dialects
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sql/ast/statement.h"
#include "sql/lexer.h"
#include "sql/parser.h"
#include "sql/script.h"
#include "sql/unparser.h"

namespace {

using namespace hop::sql;

// The inputs of every `parse` case in the golden files, keeping only statements that parse.
const std::string& Corpus() {
  static const std::string corpus = [] {
    std::string all;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(HOP_SOURCE_DIR "/src/sql/testdata")) {
      if (e.path().extension() == ".test") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f);
      std::string line;
      bool in_input = false;
      std::string input;
      while (std::getline(in, line)) {
        if (!in_input && (line.rfind("parse", 0) == 0 || line.rfind("explain", 0) == 0)) {
          in_input = true;
          input.clear();
        } else if (in_input && line == "----") {
          in_input = false;
          for (const auto& item : SplitScript(input)) {
            if (item.kind != ScriptItem::Kind::kStatement) continue;
            if (ParseStatement(item.text).ok()) {
              all.append(item.text);
              all.append(";\n");
            }
          }
        } else if (in_input) {
          input += line + "\n";
        }
      }
    }
    return all;
  }();
  return corpus;
}

std::string MaterializedView1KB() {
  return "CREATE OR REPLACE MATERIALIZED VIEW ads.audience_engagement_daily "
         "(member_urn, company_name, first_name, last_name, page_views, ad_clicks, campaigns, "
         "engagement_score, last_seen) REFRESHED '0 * * * *' WITH (retention.days '30') AS "
         "SELECT m.member_urn, c.company_name, m.first_name, m.last_name, "
         "COUNT(DISTINCT pv.page_urn) AS page_views, COUNT(ac.campaign_urn) AS ad_clicks, "
         "LISTAGG(DISTINCT cp.campaign_urn) AS campaigns, "
         "CASE WHEN COUNT(ac.campaign_urn) > 10 THEN 'high' WHEN COUNT(ac.campaign_urn) > 2 "
         "THEN 'medium' ELSE 'low' END AS engagement_score, MAX(pv.ts) AS last_seen "
         "FROM profile.members AS m "
         "INNER JOIN profile.companies AS c ON m.company_urn = c.company_urn "
         "LEFT JOIN ads.page_views AS pv ON pv.member_urn = m.member_urn "
         "AND pv.ts >= CURRENT_TIMESTAMP - INTERVAL '1' DAY "
         "LEFT JOIN ads.ad_clicks AS ac ON ac.member_urn = m.member_urn "
         "LEFT JOIN ads.campaigns AS cp ON cp.campaign_urn = ac.campaign_urn "
         "WHERE m.member_urn IS NOT NULL AND c.company_name NOT LIKE 'test%' "
         "AND m.last_name IN ('Addison', 'Baker', 'Chapman') "
         "GROUP BY m.member_urn, c.company_name, m.first_name, m.last_name "
         "HAVING COUNT(pv.page_urn) > 0 "
         "ORDER BY page_views DESC NULLS LAST";
}

void BM_ParseCorpus(benchmark::State& state) {
  const std::string& corpus = Corpus();
  size_t statements = 0;
  for (auto _ : state) {
    for (const auto& item : SplitScript(corpus)) {
      auto stmt = ParseStatement(item.text, ParseOptions{item.loc, item.line_prefix});
      benchmark::DoNotOptimize(stmt);
      ++statements;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * corpus.size()));
  state.counters["statements"] = static_cast<double>(statements / state.iterations());
}
BENCHMARK(BM_ParseCorpus);

void BM_ParseMaterializedView(benchmark::State& state) {
  const std::string sql = MaterializedView1KB();
  for (auto _ : state) {
    auto stmt = ParseStatement(sql);
    if (!stmt.ok()) state.SkipWithError(stmt.status().ToString().c_str());
    benchmark::DoNotOptimize(stmt);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * sql.size()));
  state.counters["bytes"] = static_cast<double>(sql.size());
}
BENCHMARK(BM_ParseMaterializedView);

void BM_Tokenize(benchmark::State& state) {
  const std::string& corpus = Corpus();
  std::vector<Token> tokens;
  for (auto _ : state) {
    tokens.clear();
    auto s = Tokenize(corpus, Location{}, &tokens);
    benchmark::DoNotOptimize(s);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * corpus.size()));
}
BENCHMARK(BM_Tokenize);

void BM_PrintCorpus(benchmark::State& state) {
  std::vector<StatementPtr> statements;
  for (const auto& item : SplitScript(Corpus())) {
    auto stmt = ParseStatement(item.text);
    if (stmt.ok()) statements.push_back(std::move(stmt).value());
  }
  size_t bytes = 0;
  for (auto _ : state) {
    for (const auto& s : statements) {
      for (Dialect d : {Dialect::kAnsi, Dialect::kFlink}) {
        auto out = PrintStatement(*s, PrintOptions{d, false});
        if (out.ok()) bytes += out->size();
        benchmark::DoNotOptimize(out);
      }
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_PrintCorpus);

}  // namespace

BENCHMARK_MAIN();
