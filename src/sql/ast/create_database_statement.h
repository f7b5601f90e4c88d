// `CREATE [OR REPLACE] DATABASE [IF NOT EXISTS] name [WITH (options)]`.
#pragma once

#include "sql/ast/options.h"
#include "sql/ast/query.h"
#include "sql/ast/statement.h"

namespace hop::sql {

struct CreateDatabaseStatement : Statement {
  CreateDatabaseStatement() : Statement(StatementKind::kCreateDatabase) {}
  bool or_replace = false;
  bool if_not_exists = false;
  QualifiedName name;
  OptionList options;
};

}  // namespace hop::sql
