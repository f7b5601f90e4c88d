// `FIRE MATERIALIZED VIEW name | FIRE TABLE name | FIRE VIEW name | FIRE TRIGGER name [RETRY]
// [WITH (...)]`.
#pragma once

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
};

}  // namespace hop::sql
