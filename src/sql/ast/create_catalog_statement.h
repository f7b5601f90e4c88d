// `CREATE [OR REPLACE] CATALOG [IF NOT EXISTS] name [WITH (options)]`: Flink's statement, which
// pipeline scripts start with for a table of a three-part name (docs/pipelines.md). hop parses
// and prints it; it executes none.
#pragma once

#include "sql/ast/identifier.h"
#include "sql/ast/options.h"
#include "sql/ast/statement.h"

namespace hop::sql {

struct CreateCatalogStatement : Statement {
  CreateCatalogStatement() : Statement(StatementKind::kCreateCatalog) {}
  bool or_replace = false;
  bool if_not_exists = false;
  Identifier name;  // a catalog name has one part
  OptionList options;
};

}  // namespace hop::sql
