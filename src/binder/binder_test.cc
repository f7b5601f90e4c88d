// Golden tests of the binder and the SQL writer: each case binds a statement against a catalog of
// the demo databases (plus declared tables and views the cases add) and prints the plan, the
// SQL written back in a dialect, or the error.
#include "binder/binder.h"

#include <gtest/gtest.h>

#include "binder/to_sql.h"
#include "binder/types.h"
#include "catalog/demodb.h"
#include "sql/ast/insert_statement.h"
#include "sql/ast/query_statement.h"
#include "sql/parser.h"
#include "sql/unparser.h"
#include "test/lib/datadriven.h"

namespace hop::binder {
namespace {

using catalog::Schema;

// The test catalog: ADS and PROFILE (demodb), ADS_CATALOG.ADS (demodb in a catalog), and KAFKA
// (declared tables).
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
    out += c.name + " " + TypeText(c.type, true) + "\n";
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

TEST(TypesTest, LeastRestrictive) {
  DataType a = NotNull(TypeName::kInteger);
  DataType b(TypeName::kBigInt);
  DataType pair[] = {a, b};
  auto t = LeastRestrictive(pair);
  ASSERT_TRUE(t);
  EXPECT_EQ(TypeText(*t, true), "BIGINT");
  DataType c1 = NotNull(TypeName::kChar), c2 = NotNull(TypeName::kChar);
  c1.precision = 3;
  c2.precision = 5;
  DataType chars[] = {c1, c2};
  EXPECT_EQ(TypeText(*LeastRestrictive(chars), true), "VARCHAR(5) NOT NULL");
  DataType mixed[] = {NotNull(TypeName::kBoolean), NotNull(TypeName::kDate)};
  EXPECT_FALSE(LeastRestrictive(mixed));
  EXPECT_EQ(TypeText(IntegerLiteralType("2147483648")), "BIGINT");
  EXPECT_EQ(TypeText(IntegerLiteralType("99999999999999999999")), "DECIMAL(20, 0)");
}

}  // namespace
}  // namespace hop::binder
