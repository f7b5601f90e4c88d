// `DROP TABLE | VIEW | MATERIALIZED VIEW | TRIGGER | FUNCTION | DATABASE [IF EXISTS] name`.
#pragma once

#include "sql/ast/identifier.h"
#include "sql/ast/statement.h"

namespace hop::sql {

struct DropStatement : Statement {
  DropStatement() : Statement(StatementKind::kDrop) {}
  ObjectKind object = ObjectKind::kTable;
  bool if_exists = false;
  QualifiedName name;
};

}  // namespace hop::sql
