// Tests of the engine through its API, over tables served by fake sources: rows stream from the
// cursor, constraints reach the source, bad values name their column and row, and budgets and
// cancellation stop a query with an error while the engine stays usable. Query semantics are
// tested end to end in test/sql/*.test and by the differential test against PostgreSQL.
#include "engine/engine.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <thread>

#include "binder/functions.h"
#include "catalog/source.h"
#include "engine/output.h"
#include "sql/ast/query_statement.h"
#include "sql/parser.h"

namespace hop::engine {
namespace {

// A source of `limit` rows (id, text, flag), or endless rows when limit < 0. It counts the scans
// and keeps the last request; it narrows by equality on TEXT only.
class FakeSource : public catalog::TableSource {
 public:
  explicit FakeSource(int64_t limit) : limit_(limit) {}
  std::string Describe() const override { return "fake rows"; }
  bool Narrows(int column) const override { return column == 1; }
  double EstimatedRows() const override { return limit_ < 0 ? 1e9 : static_cast<double>(limit_); }
  Result<std::unique_ptr<catalog::RowCursor>> Open(const catalog::ScanRequest& r) const override {
    last_request = r;
    ++scans;
    return std::unique_ptr<catalog::RowCursor>(std::make_unique<Rows>(limit_, bad_row));
  }
  mutable catalog::ScanRequest last_request;
  mutable int scans = 0;
  int64_t bad_row = -1;  // this row's flag is not a boolean

 private:
  class Rows : public catalog::RowCursor {
   public:
    Rows(int64_t limit, int64_t bad) : limit_(limit), bad_(bad) {}
    Result<bool> Next(catalog::Row& row) override {
      if (limit_ >= 0 && n_ >= limit_) return false;
      ++n_;
      row = {std::to_string(n_), "row " + std::to_string(n_),
             n_ == bad_ ? std::string("maybe") : std::string(n_ % 2 ? "true" : "false")};
      return true;
    }

   private:
    int64_t limit_, bad_, n_ = 0;
  };
  int64_t limit_;
};

class EngineTest : public ::testing::Test {
 protected:
  void AddTable(const std::string& name, std::shared_ptr<FakeSource> source) {
    catalog::Table t;
    t.name = name;
    t.path = {"FAKE", name};
    t.row_type.columns = {{"ID", sql::DataType(sql::TypeName::kBigInt)},
                          {"TEXT", sql::DataType(sql::TypeName::kVarchar)},
                          {"FLAG", sql::DataType(sql::TypeName::kBoolean)}};
    t.source = source;
    schema_.name = "FAKE";
    schema_.database = "fake";
    schema_.tables[name] = std::move(t);
    catalog_.AddSchema(schema_);
  }

  void SetUp() override {
    AddTable("SMALL", small_);
    AddTable("ENDLESS", endless_);
    engine_ = std::move(Engine::Open({"/nonexistent"})).value();
  }

  Result<binder::RelPtr> Bind(std::string_view sql) {
    HOP_ASSIGN_OR_RETURN(sql::StatementPtr stmt, sql::ParseStatement(sql));
    statements_.push_back(std::move(stmt));
    binder::Binder binder(catalog_);
    return binder.BindQuery(*statements_.back()->As<sql::QueryStatement>().query);
  }

  // The result as csv, or the error.
  std::string Run(std::string_view sql, Budget budget = {}) {
    auto plan = Bind(sql);
    if (!plan.ok()) return plan.status().ToString();
    auto cursor = engine_->Query(catalog_, **plan, budget);
    if (!cursor.ok()) return cursor.status().ToString();
    std::string out;
    auto rows = WriteResult(**cursor, OutputFormat::kCsv, out, nullptr);
    if (!rows.ok()) return rows.status().ToString();
    return out;
  }

  std::shared_ptr<FakeSource> small_ = std::make_shared<FakeSource>(3);
  std::shared_ptr<FakeSource> endless_ = std::make_shared<FakeSource>(-1);
  catalog::Schema schema_;
  catalog::Catalog catalog_;
  std::vector<sql::StatementPtr> statements_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(EngineTest, ReadsRowsOfASource) {
  EXPECT_EQ(Run("SELECT * FROM fake.small"),
            "ID,TEXT,FLAG\n1,row 1,true\n2,row 2,false\n3,row 3,true\n");
  EXPECT_EQ(Run("SELECT COUNT(*) AS n FROM fake.small WHERE flag"), "N\n2\n");
}

TEST_F(EngineTest, PushesEqualityAndColumnsDownToTheSource) {
  EXPECT_EQ(Run("SELECT id FROM fake.small WHERE text = 'row 2'"), "ID\n2\n");
  ASSERT_EQ(small_->last_request.constraints.size(), 1u);
  EXPECT_EQ(small_->last_request.constraints[0].column, 1);
  EXPECT_EQ(small_->last_request.constraints[0].value, "row 2");
  EXPECT_EQ(small_->last_request.columns, (std::vector<bool>{true, true, false}));
  // Not on a column the source does not narrow by; SQLite filters those rows itself.
  EXPECT_EQ(Run("SELECT text FROM fake.small WHERE id = 3"), "TEXT\nrow 3\n");
  EXPECT_TRUE(small_->last_request.constraints.empty());

  auto plan = Bind("SELECT id FROM fake.small WHERE text = 'row 2'");
  ASSERT_TRUE(plan.ok());
  auto explained = engine_->Explain(catalog_, **plan);
  ASSERT_TRUE(explained.ok()) << explained.status().ToString();
  EXPECT_NE(explained->find("VIRTUAL TABLE FAKE.SMALL (fake rows): reads ID, TEXT; pushed down: "
                            "TEXT = ?"),
            std::string::npos)
      << *explained;
}

TEST_F(EngineTest, ABadValueNamesItsTableColumnAndRow) {
  small_->bad_row = 2;
  EXPECT_EQ(Run("SELECT flag FROM fake.small"),
            "Execution Error: FAKE.SMALL, column FLAG, row 2: 'maybe' is not a valid BOOLEAN (at "
            "row 2)");
  small_->bad_row = -1;
  EXPECT_EQ(Run("SELECT COUNT(*) AS n FROM fake.small"), "N\n3\n");
}

TEST_F(EngineTest, StreamsRowsWithoutHoldingThem) {
  auto plan = Bind("SELECT id FROM fake.endless");
  ASSERT_TRUE(plan.ok());
  auto cursor = engine_->Query(catalog_, **plan, {});
  ASSERT_TRUE(cursor.ok());
  for (int i = 0; i < 100000; ++i) ASSERT_TRUE(*(*cursor)->Next());
  std::string text;
  (*cursor)->AppendText(0, text);
  EXPECT_EQ(text, "100000");
}

TEST_F(EngineTest, ATimeBudgetStopsAQueryAndTheEngineGoesOn) {
  EXPECT_EQ(Run("SELECT COUNT(*) FROM fake.endless", {std::chrono::milliseconds(50), 0}),
            "Execution Error: the query ran longer than its time budget of 50 ms (SET "
            "query_timeout)");
  EXPECT_EQ(Run("SELECT COUNT(*) AS n FROM fake.small"), "N\n3\n");
}

TEST_F(EngineTest, AMemoryBudgetStopsAQuery) {
  EXPECT_EQ(Run("SELECT LISTAGG(text, ',') FROM fake.endless",
                {std::chrono::milliseconds(0), 8 * 1024 * 1024}),
            "Execution Error: the query used more than its memory budget of 8 MB (SET "
            "query_memory)");
  EXPECT_EQ(Run("SELECT COUNT(DISTINCT text) AS n FROM fake.small"), "N\n3\n");
}

TEST_F(EngineTest, AnInterruptCancelsTheRunningQuery) {
  std::thread canceller([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    Engine::RequestInterrupt();
  });
  EXPECT_EQ(Run("SELECT COUNT(*) FROM fake.endless"), "Execution Error: the query was cancelled");
  canceller.join();
  // An interrupt before a query started does not cancel it.
  Engine::RequestInterrupt();
  EXPECT_EQ(Run("SELECT COUNT(*) AS n FROM fake.small"), "N\n3\n");
}

TEST_F(EngineTest, RefusesWhatItCannotRunBeforeRunningIt) {
  const int before = small_->scans;
  EXPECT_EQ(Run("SELECT STDDEV(id) OVER (ORDER BY id) FROM fake.small"),
            "Invalid Argument: STDDEV as a window function does not run on the local engine");
  EXPECT_EQ(small_->scans, before);
}

}  // namespace
}  // namespace hop::engine

namespace hop::engine {
namespace {

// An argument of each family, as SQL.
std::string ArgumentOf(binder::Family f, int i) {
  using F = binder::Family;
  switch (f) {
    case F::kString:
    case F::kStringOrBinary: return i == 1 ? "'b'" : "'abc'";
    case F::kNumeric: return "2.5";
    case F::kInteger: return "2";
    case F::kDatetime: return "TIMESTAMP '2026-01-31 10:00:00'";
    case F::kBoolean: return "TRUE";
    case F::kArray:
    case F::kCollection: return "ARRAY[1, 2, 2]";
    case F::kMap: return "MAP['a', 1]";
    case F::kAny:
    case F::kComparable: return "x";
  }
  return "1";
}

// Every function the binder accepts either runs, or is refused before it runs with a message
// naming it.
TEST_F(EngineTest, EveryFunctionRunsOrIsRefusedByName) {
  int ran = 0, refused = 0;
  for (const binder::Function* f : binder::AllFunctions()) {
    const int n = f->min_args;
    std::string args;
    for (int i = 0; i < n; ++i) {
      const binder::Family family = f->families.empty()
                                        ? binder::Family::kAny
                                        : f->families[std::min<size_t>(i, f->families.size() - 1)];
      if (i > 0) args += ", ";
      args += ArgumentOf(family, i);
    }
    std::string call = f->niladic ? std::string(f->name) : fmt::format("{}({})", f->name, args);
    if (f->name == "COUNT" && n == 0) call = "COUNT(*)";
    if (f->kind == binder::FunctionKind::kWindow) call += " OVER (ORDER BY x)";
    if (f->name.rfind("PERCENTILE_", 0) == 0) call += " WITHIN GROUP (ORDER BY x)";
    const std::string sql = fmt::format("SELECT {} FROM (VALUES (1), (2)) AS t (x)", call);
    auto plan = Bind(sql);
    if (!plan.ok()) {
      // LEFT and RIGHT are reserved words, which the parser reads as a join here.
      EXPECT_TRUE(f->name == "LEFT" || f->name == "RIGHT")
          << sql << ": " << plan.status().ToString();
      continue;
    }
    auto cursor = engine_->Query(catalog_, **plan, {});
    if (!cursor.ok()) {
      EXPECT_EQ(cursor.status().code(), StatusCode::kInvalidArgument) << sql;
      EXPECT_NE(cursor.status().message().find(std::string(f->name)), std::string::npos)
          << sql << ": " << cursor.status().ToString();
      ++refused;
      continue;
    }
    for (;;) {
      auto more = (*cursor)->Next();
      if (!more.ok()) {
        // A value error of this call's arguments is the function running, not refusing.
        EXPECT_EQ(more.status().code(), StatusCode::kExecution) << sql;
        break;
      }
      if (!*more) break;
    }
    ++ran;
  }
  EXPECT_GT(ran, 150);
  std::printf("functions: %d ran, %d refused by name\n", ran, refused);
}

}  // namespace
}  // namespace hop::engine
