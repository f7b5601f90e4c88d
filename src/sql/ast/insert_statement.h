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
  // PostgreSQL's upsert, never parsed (hop writes it for refreshes, runtime/refresh.h):
  // `ON CONFLICT (conflict_columns) DO UPDATE SET c = EXCLUDED.c` for each inserted column outside
  // them, or `DO NOTHING` when there is none.
  std::vector<Identifier> conflict_columns;
};

}  // namespace hop::sql
