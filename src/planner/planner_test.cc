// Tests of the pipeline SQL as statement ASTs: for every case the planner's statements, printed
// by the SQL writer, are the pipeline SQL, and that text parses back to the same statements (so
// the writer loses nothing a Flink job would read); the text itself is pinned where a case says
// what it must be. The pipelines of the scenarios are golden-tested in test/sql/*.test.
#include "planner/planner.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "catalog/demodb.h"
#include "resource/yaml.h"
#include "sql/parser.h"
#include "sql/round_trip.h"
#include "sql/script.h"
#include "sql/unparser.h"

namespace hop::planner {
namespace {

sql::DataType Type(std::string_view text) {
  auto type = sql::ParseDataType(text);
  EXPECT_TRUE(type.ok()) << text << ": " << type.status().ToString();
  return type.ok() ? *type : sql::DataType();
}

// ADS and PROFILE (demo databases), and MYSQL.testdb (a catalog) with tables of every kind of
// column pipeline SQL declares.
catalog::Catalog TestCatalog() {
  catalog::Catalog cat;
  for (const char* name : {"ADS", "PROFILE"}) {
    catalog::Schema s;
    s.name = name;
    s.database = std::string(name == std::string("ADS") ? "ads" : "profile") + "-database";
    s.adapter = catalog::Adapter::kDemo;
    s.system = "demodb";
    for (auto& t : catalog::DemoTables(name, s.Path(), s.database)) s.tables[t.name] = t;
    cat.AddSchema(std::move(s));
  }
  catalog::Schema mysql;
  mysql.name = "testdb";
  mysql.catalog = "MYSQL";
  mysql.database = "mysql";
  mysql.adapter = catalog::Adapter::kDeclared;
  mysql.system = "mysql";
  auto add = [&](const std::string& name,
                 const std::vector<std::pair<std::string, std::string>>& columns) {
    catalog::Table t;
    t.name = name;
    t.path = {"MYSQL", "testdb", name};
    t.database = "mysql";
    for (const auto& [column, type] : columns) t.row_type.columns.push_back({column, Type(type)});
    mysql.tables[name] = std::move(t);
  };
  add("typed", {{"KEY_id", "INT NOT NULL"},
                {"C", "CHAR(3)"},
                {"D", "DECIMAL(10, 2)"},
                {"F", "FLOAT(7)"},
                {"T", "TIME(3)"},
                {"TL", "TIMESTAMP(6) WITH LOCAL TIME ZONE"},
                {"TB", "TIMESTAMP WITH LOCAL TIME ZONE"},
                {"AN", "ARRAY<INT NOT NULL> NOT NULL"},
                {"MS", "MULTISET<VARCHAR(3) NOT NULL>"},
                {"M", "MAP<VARCHAR, BIGINT NOT NULL ARRAY>"},
                {"R", "ROW(x INT NOT NULL, \"we`ird\" ROW(z BINARY(4)))"},
                {"N", "INT NULL"},
                {"PRIMARY_KEY", "VARCHAR NOT NULL"},
                {"a$b", "INT"},
                {"it's", "VARCHAR"}});
  add("zoned", {{"TZ", "TIMESTAMP(3) WITH TIME ZONE"}});
  add("timed", {{"T", "TIME WITH TIME ZONE"}});
  add("empty", {});
  add("tail\\", {{"X", "INT"}});  // a name ending in a backslash
  cat.AddSchema(std::move(mysql));
  return cat;
}

// A connector for every table, with a value that needs quoting.
std::vector<resource::Resource> Templates() {
  auto docs = ParseYamlDocuments(R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: TableTemplate
metadata:
  name: all
spec:
  connector: |
    connector = test
    table = {{table}}
    note = it's
)",
                                 "templates");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  std::vector<resource::Resource> out;
  if (docs.ok()) {
    for (auto& doc : *docs) out.emplace_back(std::move(doc));
  }
  return out;
}

struct Case {
  std::string statement;
  std::string sql;  // the expected pipeline SQL; empty: only the round trip is checked
};

class PipelineSqlTest : public ::testing::Test {
 protected:
  Result<Pipeline> Plan(const std::string& text) {
    auto stmt = sql::ParseStatement(text);
    if (!stmt.ok()) return stmt.status();
    statement_ = std::move(*stmt);
    PlanContext context;
    context.catalog = &catalog_;
    context.table_templates = Templates();
    Planner planner(std::move(context));
    return planner.Plan(*statement_);
  }

  catalog::Catalog catalog_ = TestCatalog();
  sql::StatementPtr statement_;
};

TEST_F(PipelineSqlTest, PrintedStatementsAreThePipelineSqlAndReadBackTheSame) {
  const std::vector<Case> cases = {
      {"SELECT * FROM mysql.\"testdb\".\"typed\"", ""},
      // Every spelling of a declared column: TIMESTAMP_LTZ, nullability before ARRAY and
      // MULTISET, ROW fields quoted, '$' as '_', a PRIMARY_KEY column's constraint, options
      // sorted and quoted, a catalog for a three-part name.
      {"SELECT \"KEY_id\", c, d, f, t, tl, tb, an, ms, m, r, n, \"PRIMARY_KEY\", \"a$b\", "
       "\"it's\" FROM mysql.\"testdb\".\"typed\"",
       "CREATE CATALOG IF NOT EXISTS `MYSQL` WITH ();\n"
       "CREATE DATABASE IF NOT EXISTS `MYSQL`.`testdb` WITH ();\n"
       "CREATE TABLE IF NOT EXISTS `MYSQL`.`testdb`.`typed` (`KEY_id` INTEGER NOT NULL, "
       "`C` CHAR(3), `D` DECIMAL(10, 2), `F` FLOAT(7), `T` TIME(3), `TL` TIMESTAMP_LTZ(6), "
       "`TB` TIMESTAMP_LTZ, `AN` INTEGER NOT NULL ARRAY NOT NULL, `MS` VARCHAR(3) NOT NULL "
       "MULTISET, `M` MAP<VARCHAR, BIGINT NOT NULL ARRAY>, `R` ROW(`X` INTEGER NOT NULL, "
       "`we``ird` ROW(`Z` BINARY(4))), `N` INTEGER, `PRIMARY_KEY` VARCHAR NOT NULL, `a_b` "
       "INTEGER, `it's` VARCHAR, PRIMARY KEY (`PRIMARY_KEY`) NOT ENFORCED) WITH "
       "('connector'='test', 'note'='it''s', 'table'='typed');\n"
       "CREATE TABLE IF NOT EXISTS `SINK` (`KEY_id` INTEGER NOT NULL, `C` CHAR(3), `D` "
       "DECIMAL(10, 2), `F` FLOAT(7), `T` TIME(3), `TL` TIMESTAMP_LTZ(6), `TB` TIMESTAMP_LTZ, "
       "`AN` INTEGER NOT NULL ARRAY NOT NULL, `MS` VARCHAR(3) NOT NULL MULTISET, `M` "
       "MAP<VARCHAR, BIGINT NOT NULL ARRAY>, `R` ROW(`X` INTEGER NOT NULL, `we``ird` ROW(`Z` "
       "BINARY(4))), `N` INTEGER, `PRIMARY_KEY` VARCHAR NOT NULL, `a_b` INTEGER, `it's` "
       "VARCHAR, PRIMARY KEY (`PRIMARY_KEY`) NOT ENFORCED) WITH ('connector'='test', "
       "'note'='it''s', 'table'='SINK');\n"
       "INSERT INTO `SINK` (`KEY_id`, `C`, `D`, `F`, `T`, `TL`, `TB`, `AN`, `MS`, `M`, `R`, `N`, "
       "`PRIMARY_KEY`, `a_b`, `it's`) SELECT `KEY_id`, `C`, `D`, `F`, `T`, `TL`, `TB`, `AN`, "
       "`MS`, `M`, `R`, `N`, `PRIMARY_KEY`, `a$b`, `it's` FROM `MYSQL`.`testdb`.`typed`;"},
      // A NULL column is declared BYTES in the view's table and not written; NULL elements too.
      {"CREATE MATERIALIZED VIEW ads.v AS SELECT page_urn, NULL AS nothing, ARRAY[NULL] AS nulls "
       "FROM ads.page_views",
       "CREATE DATABASE IF NOT EXISTS `ADS` WITH ();\n"
       "CREATE TABLE IF NOT EXISTS `ADS`.`PAGE_VIEWS` (`PAGE_URN` VARCHAR, `MEMBER_URN` VARCHAR) "
       "WITH ('connector'='test', 'note'='it''s', 'table'='PAGE_VIEWS');\n"
       "CREATE DATABASE IF NOT EXISTS `ADS` WITH ();\n"
       "CREATE TABLE IF NOT EXISTS `ADS`.`V` (`PAGE_URN` VARCHAR, `NOTHING` BYTES, `NULLS` BYTES "
       "ARRAY NOT NULL) WITH ('connector'='test', 'note'='it''s', 'table'='V');\n"
       "INSERT INTO `ADS`.`V` (`PAGE_URN`, `NULLS`) SELECT `PAGE_URN`, ARRAY[NULL] AS `NULLS` "
       "FROM `ADS`.`PAGE_VIEWS`;"},
      // Reading the table it writes: the two sides are named apart.
      {"INSERT INTO ads.ad_clicks SELECT * FROM ads.ad_clicks",
       "CREATE DATABASE IF NOT EXISTS `ADS` WITH ();\n"
       "CREATE TABLE IF NOT EXISTS `ADS`.`AD_CLICKS_source` (`CAMPAIGN_URN` VARCHAR, "
       "`MEMBER_URN` VARCHAR) WITH ('connector'='test', 'note'='it''s', 'table'='AD_CLICKS');\n"
       "CREATE DATABASE IF NOT EXISTS `ADS` WITH ();\n"
       "CREATE TABLE IF NOT EXISTS `ADS`.`AD_CLICKS_sink` (`CAMPAIGN_URN` VARCHAR, `MEMBER_URN` "
       "VARCHAR) WITH ('connector'='test', 'note'='it''s', 'table'='AD_CLICKS');\n"
       "INSERT INTO `ADS`.`AD_CLICKS_sink` (`CAMPAIGN_URN`, `MEMBER_URN`) SELECT `CAMPAIGN_URN`, "
       "`MEMBER_URN` FROM `ADS`.`AD_CLICKS_source`;"},
      {"SELECT m.first_name, COUNT(*) AS n, CAST(p.page_urn AS TIMESTAMP(3) WITH LOCAL TIME ZONE) "
       "AS ts FROM ads.page_views p JOIN profile.members m ON p.member_urn = m.member_urn GROUP "
       "BY m.first_name, p.page_urn",
       ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.statement);
    auto pipeline = Plan(c.statement);
    ASSERT_TRUE(pipeline.ok()) << pipeline.status().ToString();
    if (!c.sql.empty()) {
      EXPECT_EQ(pipeline->sql, c.sql);
    }
    auto statements = PipelineStatements(*pipeline);
    ASSERT_TRUE(statements.ok()) << statements.status().ToString();
    std::vector<sql::ScriptItem> items = sql::SplitScript(pipeline->sql);
    ASSERT_EQ(items.size(), statements->size()) << pipeline->sql;
    for (size_t i = 0; i < items.size(); ++i) {
      auto parsed = sql::ParseStatement(items[i].text);
      ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
      EXPECT_TRUE(sql::Equals(**parsed, *(*statements)[i])) << items[i].text;
      EXPECT_TRUE(sql::VerifyRoundTrip(**parsed).ok()) << items[i].text;
    }
  }
}

// A table's name is a value of the connector's properties text: one that ends in a backslash
// stays its own value, and does not join the next option's line to it (docs/templates.md).
TEST_F(PipelineSqlTest, AValueEndingInABackslashStaysOneConnectorOption) {
  auto p = Plan("SELECT * FROM mysql.\"testdb\".\"tail\\\"");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->sources.size(), 1u);
  const std::map<std::string, std::string> want = {
      {"connector", "test"}, {"table", "tail\\"}, {"note", "it's"}};
  EXPECT_EQ(p->sources[0].connector, want);
}

TEST_F(PipelineSqlTest, WhatFlinkCannotDeclareIsAnErrorNamingTheTableAndColumn) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"SELECT * FROM mysql.\"testdb\".\"zoned\"",
       "Invalid Argument: Table MYSQL.testdb.zoned, column TZ: Flink SQL has no TIMESTAMP WITH "
       "TIME ZONE (TIMESTAMP WITH LOCAL TIME ZONE is an instant, TIMESTAMP a local date and "
       "time)"},
      {"SELECT * FROM mysql.\"testdb\".\"timed\"",
       "Invalid Argument: Table MYSQL.testdb.timed, column T: Flink SQL has no TIME with a time "
       "zone"},
      {"SELECT INTERVAL '1' DAY AS span FROM ads.page_views",
       "Invalid Argument: Table SINK, column SPAN: an INTERVAL cannot be declared in pipeline SQL "
       "yet"},
      {"SELECT * FROM mysql.\"testdb\".\"empty\"",
       "Invalid Argument: Table MYSQL.testdb.empty has no columns: pipeline SQL cannot declare it"},
      {"SELECT NULL AS x FROM ads.page_views",
       "Invalid Argument: The pipeline writes no column of SINK: every column of its query is "
       "NULL"},
  };
  for (const auto& [statement, error] : cases) {
    SCOPED_TRACE(statement);
    auto pipeline = Plan(statement);
    ASSERT_FALSE(pipeline.ok()) << pipeline->sql;
    EXPECT_EQ(pipeline.status().ToString(), error);
  }
}

}  // namespace
}  // namespace hop::planner
