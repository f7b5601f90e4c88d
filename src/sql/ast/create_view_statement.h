// `CREATE [OR REPLACE] VIEW [IF NOT EXISTS] name [(columns)] [WITH (options)] AS query`.
#pragma once

#include "sql/ast/options.h"
#include "sql/ast/query.h"
#include "sql/ast/statement.h"

namespace hop::sql {

struct CreateViewStatement : Statement {
  CreateViewStatement() : Statement(StatementKind::kCreateView) {}
  bool or_replace = false;
  bool if_not_exists = false;
  QualifiedName name;
  std::vector<Identifier> columns;
  OptionList options;  // hop: `watermark` (docs/ddl.md)
  std::unique_ptr<Query> query;
};

}  // namespace hop::sql
