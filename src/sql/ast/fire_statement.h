// `FIRE MATERIALIZED VIEW name | FIRE TABLE name | FIRE VIEW name [WATERMARK 'time'] | FIRE
// TRIGGER name [RETRY] [WITH (...)]`.
#pragma once

#include <optional>
#include <string>

#include "sql/ast/identifier.h"
#include "sql/ast/options.h"
#include "sql/ast/statement.h"

namespace hop::sql {

struct FireStatement : Statement {
  FireStatement() : Statement(StatementKind::kFire) {}
  ObjectKind object = ObjectKind::kTrigger;
  QualifiedName name;
  bool retry = false;  // TRIGGER only: run the window of its failed run again
  OptionList options;  // TRIGGER only
  // TABLE, VIEW and MATERIALIZED VIEW: the watermark to set, as written (RFC 3339); none: now.
  std::optional<std::string> watermark;
};

}  // namespace hop::sql
