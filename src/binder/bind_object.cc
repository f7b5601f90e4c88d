// Binding FIRE, PAUSE, RESUME and REFRESH: the trigger, table or view they act on, of the kind
// they say (compatibility.md §5.5, departure 9).
#include <fmt/format.h>

#include "binder/bind_internal.h"
#include "sql/ast/fire_statement.h"
#include "sql/ast/pause_statement.h"
#include "sql/ast/refresh_statement.h"

namespace hop::binder {

Result<BoundStatementPtr> BindObjectStatement(const catalog::Catalog& cat,
                                              const sql::Statement& statement) {
  auto bound = std::make_unique<BoundObjectStatement>(statement);
  const sql::QualifiedName* name = nullptr;
  std::string_view verb;
  switch (statement.kind) {
    case sql::StatementKind::kFire: {
      const auto& fire = statement.As<sql::FireStatement>();
      bound->object = fire.object;
      name = &fire.name;
      verb = "FIRE";
      if (fire.object != sql::ObjectKind::kTrigger && (!fire.options.empty() || fire.retry)) {
        return Status::InvalidArgument(fmt::format("FIRE {} takes no {}",
                                                   sql::ObjectKindText(fire.object),
                                                   fire.retry ? "RETRY" : "WITH options"));
      }
      break;
    }
    case sql::StatementKind::kPause:
    case sql::StatementKind::kResume: {
      const auto& pause = statement.As<sql::PauseStatement>();
      bound->object = pause.object;
      name = &pause.name;
      verb = statement.kind == sql::StatementKind::kPause ? "PAUSE" : "RESUME";
      break;
    }
    case sql::StatementKind::kRefresh:
      bound->object = sql::ObjectKind::kMaterializedView;
      name = &statement.As<sql::RefreshStatement>().name;
      verb = "REFRESH";
      break;
    default: return Status::Internal("not a statement on an existing object");
  }
  bound->sql_name = name->back().name;
  if (bound->object == sql::ObjectKind::kTrigger) {
    // Triggers are not in the catalog: whether it exists is the deployer's to find out.
    HOP_ASSIGN_OR_RETURN(bound->name, TriggerName(*name));
  } else {
    HOP_ASSIGN_OR_RETURN(bound->target, Element(cat, *name, bound->object, verb));
  }
  return BoundStatementPtr(std::move(bound));
}

}  // namespace hop::binder
