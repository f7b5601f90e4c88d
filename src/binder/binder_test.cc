// Golden tests of the binder and the SQL writer: each case binds a statement against a catalog of
// the demo databases (plus declared tables and views the cases add) and prints the plan, the
// SQL written back in a dialect, or the error.
#include "binder/binder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "binder/prune_empty.h"
#include "binder/to_sql.h"
#include "binder/types.h"
#include "catalog/demodb.h"
#include "sql/ast/create_materialized_view_statement.h"
#include "sql/ast/insert_statement.h"
#include "sql/ast/query_statement.h"
#include "sql/parser.h"
#include "sql/script.h"
#include "sql/unparser.h"
#include "test/lib/datadriven.h"

namespace hop::binder {
namespace {

using catalog::Schema;

// The test catalog: ADS and PROFILE (demodb), ADS_CATALOG.ADS (demodb in a catalog), KAFKA
// (declared tables), and generic tables T, U, V, T1, T2 (A, B, C, X, Y, ID) in DEFAULT.
class TestCatalog {
 public:
  TestCatalog() {
    Add("ADS", "", "ads-database");
    Add("PROFILE", "", "profile-database");
    Add("ADS", "ADS_CATALOG", "ads-catalog-database");
    Schema kafka;
    kafka.name = "KAFKA";
    kafka.database = "kafka-database";
    kafka.adapter = catalog::Adapter::kDeclared;
    schemas_.push_back(kafka);
    // Generic tables in DEFAULT, so that the SQL corpus's `t`, `u`, `v` bind.
    Schema def;
    def.name = "DEFAULT";
    for (const char* name : {"T", "U", "V", "T1", "T2"}) {
      catalog::Table t;
      t.name = name;
      t.path = {"DEFAULT", name};
      for (const auto& [col, type] :
           std::vector<std::pair<std::string, sql::TypeName>>{{"A", sql::TypeName::kInteger},
                                                              {"B", sql::TypeName::kVarchar},
                                                              {"C", sql::TypeName::kDouble},
                                                              {"X", sql::TypeName::kInteger},
                                                              {"Y", sql::TypeName::kVarchar},
                                                              {"ID", sql::TypeName::kBigInt}}) {
        t.row_type.columns.push_back({col, sql::DataType(type)});
      }
      def.tables[name] = std::move(t);
    }
    schemas_.push_back(std::move(def));
    Rebuild();
  }

  // Adds a declared table or a view: `table KAFKA.T (cols...)` or `view ADS.V` with SQL.
  Status Define(const std::string& schema, catalog::Table table) {
    for (auto& s : schemas_) {
      std::string key = s.catalog.empty() ? s.name : s.catalog + "." + s.name;
      if (key == schema) {
        table.path = s.Path();
        table.path.push_back(table.name);
        table.database = s.database;
        s.tables[table.name] = std::move(table);
        Rebuild();
        return Status::OK();
      }
    }
    return Status::NotFound("no schema " + schema);
  }

  const catalog::Catalog& get() const { return catalog_; }

 private:
  void Add(const std::string& name, const std::string& cat, const std::string& db) {
    Schema s;
    s.name = name;
    s.catalog = cat;
    s.database = db;
    s.adapter = catalog::Adapter::kDemo;
    s.system = "demodb";
    for (auto& t : catalog::DemoTables(name, s.Path(), db)) s.tables[t.name] = t;
    schemas_.push_back(std::move(s));
  }
  void Rebuild() {
    catalog_ = catalog::Catalog();
    for (const auto& s : schemas_) catalog_.AddSchema(s);
  }
  std::vector<Schema> schemas_;
  catalog::Catalog catalog_;
};

std::string RowTypeText(const catalog::RowType& row) {
  std::string out;
  for (const auto& c : row.columns) {
    out += c.name + " " + sql::TypeString(c.type, true) + "\n";
  }
  return out;
}

std::string RunCase(TestCatalog& cat, const hop::testing::DataDrivenCase& c) {
  if (c.directive == "table" || c.directive == "view") {
    std::string name = c.Arg("name");
    size_t dot = name.rfind('.');
    catalog::Table t;
    t.name = name.substr(dot + 1);
    if (c.directive == "view") {
      t.kind = catalog::ObjectKind::kView;
      t.sql = c.input;
    } else {
      // One column per line: NAME TYPE.
      size_t start = 0;
      while (start < c.input.size()) {
        size_t end = c.input.find('\n', start);
        if (end == std::string::npos) end = c.input.size();
        std::string line = c.input.substr(start, end - start);
        start = end + 1;
        size_t sp = line.find(' ');
        auto type = sql::ParseDataType(line.substr(sp + 1));
        if (!type.ok()) return type.status().ToString();
        t.row_type.columns.push_back({line.substr(0, sp), *type});
      }
    }
    Status st = cat.Define(name.substr(0, dot), std::move(t));
    return st.ok() ? "ok" : st.ToString();
  }
  auto stmt = sql::ParseStatement(c.input);
  if (!stmt.ok()) return stmt.status().ToString();
  Binder binder(cat.get());
  binder.SetStatement(stmt->get());
  RelPtr rel;
  if ((*stmt)->kind == sql::StatementKind::kInsert) {
    auto bound = binder.BindInsert((*stmt)->As<sql::InsertStatement>());
    if (!bound.ok()) return bound.status().ToString();
    rel = bound->query;
  } else if ((*stmt)->kind == sql::StatementKind::kQuery) {
    auto bound = binder.BindQuery(*(*stmt)->As<sql::QueryStatement>().query);
    if (!bound.ok()) return bound.status().ToString();
    rel = *bound;
  } else {
    return "unsupported statement";
  }
  if (c.directive == "bind") {
    return Explain(*rel) + "--\n" + RowTypeText(rel->row_type);
  }
  if (c.directive == "prune") {
    // The plan with what provably yields no rows reduced (prune_empty.h); its row type must
    // not change.
    RelPtr pruned = PruneEmpty(*rel);
    if (!pruned) return "unchanged\n";
    if (!(pruned->row_type == rel->row_type)) return "the row type changed\n";
    return Explain(*pruned);
  }
  if (c.directive == "sql") {
    sql::Dialect dialect = sql::Dialect::kFlink;
    sql::ParseDialect(c.Arg("dialect", "flink"), &dialect);
    auto q = ToSql(*Simplify(rel));
    if (!q.ok()) return q.status().ToString();
    auto text = sql::PrintQuery(**q, {dialect});
    if (!text.ok()) return text.status().ToString();
    // What the writer prints must parse and bind again, to the same row type.
    auto reparsed = sql::ParseStatement(*text);
    if (!reparsed.ok()) return *text + "\nreparse: " + reparsed.status().ToString();
    if (dialect == sql::Dialect::kAnsi) {
      Binder again(cat.get());
      auto rebound = again.BindQuery(*(*reparsed)->As<sql::QueryStatement>().query);
      if (!rebound.ok()) return *text + "\nrebind: " + rebound.status().ToString();
      if (!((*rebound)->row_type == rel->row_type)) {
        return *text + "\nrebind changed the row type:\n" + RowTypeText((*rebound)->row_type);
      }
    }
    return *text;
  }
  return "unknown directive " + c.directive;
}

TEST(BinderGoldenTest, Files) {
  for (const auto& file : hop::testing::ListTestFiles("src/binder/testdata")) {
    TestCatalog cat;
    hop::testing::RunDataDrivenFile(file, [&](const auto& c) { return RunCase(cat, c); });
  }
}

// Every statement of the SQL golden corpus either fails to bind with an error, or binds to a
// plan whose SQL, printed in ANSI, parses and binds again to the same row type (and prints in
// Flink's dialect or fails cleanly). The corpus exercises most of the language, so this is a
// broad check that the binder and the SQL writer never crash and agree with each other.
TEST(BinderCorpusTest, BindsOrFailsCleanlyAndRoundTrips) {
  TestCatalog cat;
  int bound = 0, statements = 0;
  auto check = [&](const std::string& text) {
    auto stmt = sql::ParseStatement(text);
    if (!stmt.ok()) return;
    Binder binder(cat.get());
    binder.SetStatement(stmt->get());
    Result<RelPtr> rel = Status::Internal("not a query");
    switch ((*stmt)->kind) {
      case sql::StatementKind::kQuery:
        rel = binder.BindQuery(*(*stmt)->As<sql::QueryStatement>().query);
        break;
      case sql::StatementKind::kInsert: {
        auto ins = binder.BindInsert((*stmt)->As<sql::InsertStatement>());
        rel = ins.ok() ? Result<RelPtr>(ins->query) : Result<RelPtr>(ins.status());
        break;
      }
      case sql::StatementKind::kCreateMaterializedView: {
        const auto& mv = (*stmt)->As<sql::CreateMaterializedViewStatement>();
        rel = binder.BindQuery(*mv.query, mv.columns);
        break;
      }
      default: return;
    }
    ++statements;
    if (!rel.ok()) {
      if (getenv("HOP_SHOW_BIND_ERRORS")) {
        std::printf("%s\n  -> %s\n", text.c_str(), rel.status().message().c_str());
      }
      EXPECT_NE(rel.status().code(), StatusCode::kInternal) << text << "\n"
                                                            << rel.status().ToString();
      return;
    }
    ++bound;
    auto q = ToSql(*Simplify(*rel));
    ASSERT_TRUE(q.ok()) << text << "\n" << q.status().ToString();
    auto flink = sql::PrintQuery(**q, {sql::Dialect::kFlink});
    if (!flink.ok()) {
      EXPECT_EQ(flink.status().code(), StatusCode::kInvalidArgument) << text;
    }
    auto ansi = sql::PrintQuery(**q, {sql::Dialect::kAnsi});
    ASSERT_TRUE(ansi.ok()) << text << "\n" << ansi.status().ToString();
    auto again = sql::ParseStatement(*ansi);
    if (!again.ok() && again.status().message().find("nesting is too deep") != std::string::npos) {
      return;  // written deeper than read (`- - 1` is `-(-(1))`), past the parser's limit
    }
    ASSERT_TRUE(again.ok()) << text << "\n" << *ansi << "\n" << again.status().ToString();
    Binder rebinder(cat.get());
    auto rebound = rebinder.BindQuery(*(*again)->As<sql::QueryStatement>().query);
    ASSERT_TRUE(rebound.ok()) << text << "\n" << *ansi << "\n" << rebound.status().ToString();
    EXPECT_EQ(RowTypeText((*rebound)->row_type), RowTypeText((*rel)->row_type)) << text << "\n"
                                                                                << *ansi;
  };
  for (const auto& file : hop::testing::ListTestFiles("src/sql/testdata")) {
    hop::testing::RunDataDrivenFile(file, [&](const hop::testing::DataDrivenCase& c) {
      if (c.directive == "parse" || c.directive == "explain") {
        for (const auto& item : sql::SplitScript(c.input)) {
          if (item.kind == sql::ScriptItem::Kind::kStatement) check(std::string(item.text));
        }
      }
      return c.expected;
    });
  }
  for (const auto& file : hop::testing::ListTestFiles("src/binder/testdata")) {
    hop::testing::RunDataDrivenFile(file, [&](const hop::testing::DataDrivenCase& c) {
      if (c.directive == "bind" || c.directive == "sql") check(c.input);
      return c.expected;
    });
  }
  // Inputs the binder fuzzer found, and the SQL fuzzer's.
  for (const char* dir : {"fuzz/regressions/bind", "fuzz/regressions/sql"}) {
    for (const auto& entry : std::filesystem::directory_iterator(hop::testing::SourcePath(dir))) {
      std::ifstream in(entry.path(), std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      check(text);
    }
  }
  // The corpus must keep exercising the binder, not only its errors.
  EXPECT_GT(statements, 300);
  EXPECT_GT(bound, 60);
  std::printf("corpus: %d of %d statements bound\n", bound, statements);
}

TEST(TypesTest, LeastRestrictive) {
  DataType a = NotNull(TypeName::kInteger);
  DataType b(TypeName::kBigInt);
  DataType pair[] = {a, b};
  auto t = LeastRestrictive(pair);
  ASSERT_TRUE(t);
  EXPECT_EQ(sql::TypeString(*t, true), "BIGINT");
  DataType c1 = NotNull(TypeName::kChar), c2 = NotNull(TypeName::kChar);
  c1.precision = 3;
  c2.precision = 5;
  DataType chars[] = {c1, c2};
  EXPECT_EQ(sql::TypeString(*LeastRestrictive(chars), true), "VARCHAR(5) NOT NULL");
  DataType mixed[] = {NotNull(TypeName::kBoolean), NotNull(TypeName::kDate)};
  EXPECT_FALSE(LeastRestrictive(mixed));
  EXPECT_EQ(sql::TypeString(IntegerLiteralType("2147483648")), "BIGINT");
  EXPECT_EQ(sql::TypeString(IntegerLiteralType("99999999999999999999")), "DECIMAL(20, 0)");
  // A negative literal's magnitude reaches one further.
  EXPECT_EQ(sql::TypeString(IntegerLiteralType("-2147483648")), "INTEGER");
  EXPECT_EQ(sql::TypeString(IntegerLiteralType("-2147483649")), "BIGINT");
  EXPECT_EQ(sql::TypeString(IntegerLiteralType("-9223372036854775808")), "BIGINT");
  EXPECT_EQ(sql::TypeString(IntegerLiteralType("-9223372036854775809")), "DECIMAL(19, 0)");
}

// Calcite's rules for arithmetic, `||` and SUM, parameters included (types.h).
TEST(TypesTest, DerivedTypesKeepTheirParameters) {
  auto type = [](const char* text) { return *sql::ParseDataType(text); };
  struct Case {
    const char* a;
    const char* op;  // + - * / % || SUM
    const char* b;
    const char* want;
  };
  const Case kCases[] = {
      {"DECIMAL(10, 2)", "+", "DECIMAL(5, 1)", "DECIMAL(11, 2)"},
      {"DECIMAL(10, 2) NOT NULL", "-", "INTEGER NOT NULL", "DECIMAL(13, 2) NOT NULL"},
      {"DECIMAL(10, 2)", "*", "DECIMAL(5, 1)", "DECIMAL(15, 3)"},
      {"DECIMAL(10, 2)", "/", "DECIMAL(5, 1)", "DECIMAL(17, 8)"},
      {"DECIMAL(10, 2)", "%", "DECIMAL(5, 1)", "DECIMAL(6, 2)"},
      {"DECIMAL(19, 10)", "*", "DECIMAL(19, 10)", "DECIMAL(19, 19)"},  // at most 19 digits
      {"DECIMAL(19, 0)", "/", "DECIMAL(19, 0)", "DECIMAL(19, 0)"},     // the scale gives way
      {"DECIMAL", "+", "TINYINT", "DECIMAL(19, 0)"},
      {"INTEGER", "+", "BIGINT", "BIGINT"},
      {"INTEGER", "/", "INTEGER", "INTEGER"},
      {"BIGINT", "%", "SMALLINT", "SMALLINT"},
      {"DOUBLE", "*", "DECIMAL(10, 2)", "DOUBLE"},
      {"CHAR(3)", "||", "CHAR(2)", "CHAR(5)"},
      {"CHAR", "||", "CHAR", "CHAR(2)"},
      {"CHAR(3)", "||", "VARCHAR(5) NOT NULL", "VARCHAR(8)"},
      {"VARCHAR(3) NOT NULL", "||", "VARCHAR NOT NULL", "VARCHAR NOT NULL"},
      {"BINARY(4)", "||", "VARBINARY(8)", "VARBINARY(12)"},
      {"BYTES", "||", "BINARY(2)", "VARBINARY"},
      {"DECIMAL(10, 2) NOT NULL", "SUM", "", "DECIMAL(19, 2)"},
      {"INTEGER NOT NULL", "SUM", "", "INTEGER"},
  };
  for (const Case& c : kCases) {
    const std::string op = c.op;
    const std::string what = std::string(c.a) + " " + op + " " + c.b;
    DataType got;
    if (op == "SUM") {
      got = SumResult(type(c.a));
    } else if (op == "||") {
      got = ConcatResult(type(c.a), type(c.b));
    } else {
      const Arithmetic a = op == "+"   ? Arithmetic::kAdd
                           : op == "-" ? Arithmetic::kSubtract
                           : op == "*" ? Arithmetic::kMultiply
                           : op == "/" ? Arithmetic::kDivide
                                       : Arithmetic::kModulo;
      got = NumericResult(a, type(c.a), type(c.b));
    }
    EXPECT_EQ(sql::TypeString(got, true), c.want) << what;
  }
}

}  // namespace
}  // namespace hop::binder
