// A query run on its own: SELECT, VALUES, WITH ... or a set operation.
#pragma once

#include "sql/ast/query.h"
#include "sql/ast/statement.h"

namespace hop::sql {

struct QueryStatement : Statement {
  QueryStatement() : Statement(StatementKind::kQuery) {}
  std::unique_ptr<Query> query;
};

}  // namespace hop::sql
