// The one switch over statement kinds: every statement is bound by the function of its kind.
#include <fmt/format.h>

#include "binder/bind_internal.h"
#include "resource/names.h"
#include "sql/ast/insert_statement.h"
#include "sql/ast/query_statement.h"

namespace hop::binder {

Result<BoundStatementPtr> BindStatement(const catalog::Catalog& catalog,
                                        const sql::Statement& statement,
                                        const BindOptions& options) {
  switch (statement.kind) {
    case sql::StatementKind::kCreateView:
    case sql::StatementKind::kCreateMaterializedView:
      return BindCreateView(catalog, statement, options);
    case sql::StatementKind::kCreateTable: return BindCreateTable(catalog, statement, options);
    case sql::StatementKind::kCreateTrigger: return BindCreateTrigger(catalog, statement, options);
    case sql::StatementKind::kCreateDatabase: return BindCreateDatabase(statement, options);
    case sql::StatementKind::kDrop: return BindDrop(catalog, statement);
    case sql::StatementKind::kFire:
    case sql::StatementKind::kPause:
    case sql::StatementKind::kResume:
    case sql::StatementKind::kRefresh: return BindObjectStatement(catalog, statement);
    case sql::StatementKind::kQuery: {
      Binder binder(catalog);
      binder.SetStatement(&statement);
      auto bound = std::make_unique<BoundQueryStatement>(statement);
      HOP_ASSIGN_OR_RETURN(bound->query,
                           binder.BindQuery(*statement.As<sql::QueryStatement>().query));
      return BoundStatementPtr(std::move(bound));
    }
    case sql::StatementKind::kInsert: {
      Binder binder(catalog);
      binder.SetStatement(&statement);
      auto bound = std::make_unique<BoundInsertStatement>(statement);
      HOP_ASSIGN_OR_RETURN(bound->insert, binder.BindInsert(statement.As<sql::InsertStatement>()));
      return BoundStatementPtr(std::move(bound));
    }
    case sql::StatementKind::kCreateCatalog:
    case sql::StatementKind::kCreateFunction:
    case sql::StatementKind::kSet:
    case sql::StatementKind::kReset:
    case sql::StatementKind::kShow:
    case sql::StatementKind::kExplain:
    case sql::StatementKind::kSpecify:
    case sql::StatementKind::kPipeline:
    case sql::StatementKind::kDescribe:
    case sql::StatementKind::kResolve:
    case sql::StatementKind::kGraph:
      return BoundStatementPtr(std::make_unique<BoundOtherStatement>(statement));
    case sql::StatementKind::kDelete:
      return Status::InvalidArgument("DELETE is not a statement of hop's language");
    case sql::StatementKind::kCopyFromStdin:
      return Status::InvalidArgument("COPY is not a statement of hop's language");
  }
  return Status::Internal("a statement kind the binder does not know");
}

Result<std::string> TriggerName(const sql::QualifiedName& name) {
  if (name.size() != 1) {
    return Status::InvalidArgument("Triggers cannot belong to a schema or database.");
  }
  return resource::Canonicalize(name.back().name);
}

Status CheckKind(const catalog::Table& table, sql::ObjectKind expected,
                 std::string_view statement) {
  const catalog::ObjectKind kind = table.kind;
  const bool matches = expected == sql::ObjectKind::kView ? kind == catalog::ObjectKind::kView
                       : expected == sql::ObjectKind::kMaterializedView
                           ? kind == catalog::ObjectKind::kMaterializedView
                           : kind == catalog::ObjectKind::kTable;
  if (matches) return Status::OK();
  std::string_view what = kind == catalog::ObjectKind::kTable              ? "a table"
                          : kind == catalog::ObjectKind::kMaterializedView ? "a materialized view"
                                                                           : "a view";
  return Status::InvalidArgument(fmt::format("Element {} is {} and does not correspond to {} {}",
                                             table.name, what, statement,
                                             sql::ObjectKindText(expected)));
}

Result<const catalog::Table*> Element(const catalog::Catalog& cat, const sql::QualifiedName& name,
                                      sql::ObjectKind expected, std::string_view statement) {
  auto table = cat.Resolve(name.Names());
  if (!table.ok()) {
    if (table.status().code() != StatusCode::kCatalogNotFound) return table.status();
    return Status::NotFound(fmt::format("Element {} not found.", name.back().name));
  }
  HOP_RETURN_IF_ERROR(CheckKind(**table, expected, statement));
  return *table;
}

}  // namespace hop::binder
