// Binding DROP: the object it names, of the kind it says (compatibility.md §5.7).
#include "binder/bind_internal.h"
#include "resource/names.h"
#include "sql/ast/drop_statement.h"

namespace hop::binder {

Result<BoundStatementPtr> BindDrop(const catalog::Catalog& cat, const sql::Statement& statement) {
  const auto& drop = statement.As<sql::DropStatement>();
  auto bound = std::make_unique<BoundDrop>(statement);
  bound->object = drop.object;
  bound->if_exists = drop.if_exists;
  bound->sql_name = drop.name.back().name;
  switch (drop.object) {
    case sql::ObjectKind::kTrigger: {
      // Triggers are not in the catalog: whether it exists is the deployer's to find out.
      HOP_ASSIGN_OR_RETURN(bound->name, TriggerName(drop.name));
      break;
    }
    case sql::ObjectKind::kDatabase:
      if (drop.name.size() != 1) {
        return Status::InvalidArgument("Database names cannot be compound identifiers.");
      }
      bound->name = resource::Canonicalize(bound->sql_name);
      break;
    default: {
      auto table = Element(cat, drop.name, drop.object, "DROP");
      if (!table.ok()) {
        if (table.status().code() != StatusCode::kNotFound || !drop.if_exists) {
          return table.status();
        }
        bound->nothing_to_do = true;
        break;
      }
      bound->target = *table;
      break;
    }
  }
  return BoundStatementPtr(std::move(bound));
}

}  // namespace hop::binder
