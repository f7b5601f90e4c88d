// `CREATE [OR REPLACE] TRIGGER [IF NOT EXISTS] name ON target AS 'jobTemplate'
//  [IN 'namespace'] [SCHEDULED 'cron'] [WITH (options)]`.
#pragma once

#include <optional>

#include "sql/ast/options.h"
#include "sql/ast/query.h"
#include "sql/ast/statement.h"

namespace hop::sql {

struct CreateTriggerStatement : Statement {
  CreateTriggerStatement() : Statement(StatementKind::kCreateTrigger) {}
  bool or_replace = false;
  bool if_not_exists = false;
  QualifiedName name;
  QualifiedName target;  // a table or view, 2 or 3 parts
  std::string job_template;
  std::optional<std::string> job_namespace;  // IN 'namespace'
  std::optional<std::string> schedule;       // SCHEDULED 'cron'
  OptionList options;
};

}  // namespace hop::sql
