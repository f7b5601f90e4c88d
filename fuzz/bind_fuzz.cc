// Fuzzes the binder and the SQL writer: any text that parses as a query, INSERT or materialized
// view either fails to bind with an error, or binds to a plan that writes back as SQL which
// parses and binds again to the same row type. Never a crash, a hang or an internal error.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "binder/binder.h"
#include "binder/to_sql.h"
#include "catalog/catalog.h"
#include "catalog/demodb.h"
#include "sql/ast/create_materialized_view_statement.h"
#include "sql/ast/insert_statement.h"
#include "sql/ast/query_statement.h"
#include "sql/parser.h"
#include "sql/unparser.h"

namespace {

// The demo databases, plus generic tables T and U (A INTEGER, B VARCHAR, C DOUBLE) in DEFAULT.
const hop::catalog::Catalog& TheCatalog() {
  static const hop::catalog::Catalog catalog = [] {
    hop::catalog::Catalog c;
    for (const char* name : {"ADS", "PROFILE"}) {
      hop::catalog::Schema s;
      s.name = name;
      s.database = std::string(name) + "-database";
      s.adapter = hop::catalog::Adapter::kDemo;
      for (auto& t : hop::catalog::DemoTables(name, s.Path(), s.database)) s.tables[t.name] = t;
      c.AddSchema(std::move(s));
    }
    hop::catalog::Schema def;
    def.name = "DEFAULT";
    for (const char* name : {"T", "U"}) {
      hop::catalog::Table t;
      t.name = name;
      t.path = {"DEFAULT", name};
      t.row_type.columns = {{"A", hop::sql::DataType(hop::sql::TypeName::kInteger)},
                            {"B", hop::sql::DataType(hop::sql::TypeName::kVarchar)},
                            {"C", hop::sql::DataType(hop::sql::TypeName::kDouble)}};
      def.tables[name] = std::move(t);
    }
    c.AddSchema(std::move(def));
    return c;
  }();
  return catalog;
}

[[noreturn]] void Fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "%.*s\n%.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto stmt = hop::sql::ParseStatement(text);
  if (!stmt.ok()) return 0;
  hop::binder::Binder binder(TheCatalog());
  binder.SetStatement(stmt->get());
  hop::Result<hop::binder::RelPtr> rel = hop::Status::Internal("unset");
  switch ((*stmt)->kind) {
    case hop::sql::StatementKind::kQuery:
      rel = binder.BindQuery(*(*stmt)->As<hop::sql::QueryStatement>().query);
      break;
    case hop::sql::StatementKind::kInsert: {
      auto bound = binder.BindInsert((*stmt)->As<hop::sql::InsertStatement>());
      rel = bound.ok() ? hop::Result<hop::binder::RelPtr>(bound->query)
                       : hop::Result<hop::binder::RelPtr>(bound.status());
      break;
    }
    case hop::sql::StatementKind::kCreateMaterializedView: {
      const auto& mv = (*stmt)->As<hop::sql::CreateMaterializedViewStatement>();
      rel = binder.BindQuery(*mv.query, mv.columns);
      break;
    }
    default: return 0;
  }
  if (!rel.ok()) {
    if (rel.status().code() == hop::StatusCode::kInternal) {
      Fail("internal error binding", text + "\n" + rel.status().ToString());
    }
    return 0;
  }
  auto query = hop::binder::ToSql(*hop::binder::Simplify(*rel));
  if (!query.ok()) Fail("cannot write the plan", text + "\n" + query.status().ToString());
  (void)hop::sql::PrintQuery(**query, {hop::sql::Dialect::kFlink});
  auto ansi = hop::sql::PrintQuery(**query, {hop::sql::Dialect::kAnsi});
  if (!ansi.ok()) Fail("cannot print the plan in ANSI", text + "\n" + ansi.status().ToString());
  auto again = hop::sql::ParseStatement(*ansi);
  if (!again.ok()) {
    // Written SQL may nest deeper than what was read (`- - 1` is written `-(-(1))`); beyond the
    // parser's depth limit that is the parser's clear error, not a bug.
    if (again.status().message().find("nesting is too deep") != std::string::npos) return 0;
    Fail("written SQL does not parse", text + "\n" + *ansi + "\n" + again.status().ToString());
  }
  hop::binder::Binder rebinder(TheCatalog());
  auto rebound = rebinder.BindQuery(*(*again)->As<hop::sql::QueryStatement>().query);
  if (!rebound.ok()) {
    Fail("written SQL does not bind", text + "\n" + *ansi + "\n" + rebound.status().ToString());
  }
  if (!((*rebound)->row_type == (*rel)->row_type)) Fail("row type changed", text + "\n" + *ansi);
  return 0;
}
