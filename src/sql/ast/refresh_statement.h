// `REFRESH MATERIALIZED VIEW name`.
#pragma once

#include "sql/ast/identifier.h"
#include "sql/ast/statement.h"

namespace hop::sql {

struct RefreshStatement : Statement {
  RefreshStatement() : Statement(StatementKind::kRefresh) {}
  QualifiedName name;
};

}  // namespace hop::sql
