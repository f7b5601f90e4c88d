// `DELETE FROM name`: every row of a table. Not in hop's language (the parser never makes one);
// the local engine writes it to clear a materialized view's table for its refreshed rows.
#pragma once

#include "sql/ast/identifier.h"
#include "sql/ast/statement.h"

namespace hop::sql {

struct DeleteStatement : Statement {
  DeleteStatement() : Statement(StatementKind::kDelete) {}
  QualifiedName target;
};

}  // namespace hop::sql
