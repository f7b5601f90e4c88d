// `INSERT INTO target [(columns)] query`.
#pragma once

#include "sql/ast/query.h"
#include "sql/ast/statement.h"

namespace hop::sql {

struct InsertStatement : Statement {
  InsertStatement() : Statement(StatementKind::kInsert) {}
  QualifiedName target;
  std::vector<Identifier> columns;  // empty: all columns in table order
  std::unique_ptr<Query> query;
};

}  // namespace hop::sql
