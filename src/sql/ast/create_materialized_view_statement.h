// `CREATE [OR REPLACE] MATERIALIZED VIEW [IF NOT EXISTS] name [(columns)] [REFRESHED 'cron']
//  [WITH (options)] AS query`.
#pragma once

#include <optional>

#include "sql/ast/options.h"
#include "sql/ast/query.h"
#include "sql/ast/statement.h"

namespace hop::sql {

struct CreateMaterializedViewStatement : Statement {
  CreateMaterializedViewStatement() : Statement(StatementKind::kCreateMaterializedView) {}
  bool or_replace = false;
  bool if_not_exists = false;
  QualifiedName name;
  std::vector<Identifier> columns;
  std::optional<std::string> refresh_schedule;  // REFRESHED 'cron'
  OptionList options;
  std::unique_ptr<Query> query;
};

}  // namespace hop::sql
