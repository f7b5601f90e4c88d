// `COPY name (columns) FROM STDIN`: rows streamed into a PostgreSQL table in COPY's text format.
// Not in hop's language (the parser never makes one) and printed in the PostgreSQL dialect only;
// hop writes it to load a PostgreSQL table with rows it computed.
#pragma once

#include <vector>

#include "sql/ast/identifier.h"
#include "sql/ast/statement.h"

namespace hop::sql {

struct CopyFromStdinStatement : Statement {
  CopyFromStdinStatement() : Statement(StatementKind::kCopyFromStdin) {}
  QualifiedName target;
  std::vector<Identifier> columns;  // every column of the table, in its order, when empty
};

}  // namespace hop::sql
