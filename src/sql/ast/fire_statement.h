// `FIRE MATERIALIZED VIEW name | FIRE TABLE name | FIRE VIEW name | FIRE TRIGGER name [WITH
// (...)]`.
#pragma once

#include "sql/ast/identifier.h"
#include "sql/ast/options.h"
#include "sql/ast/statement.h"

namespace hop::sql {

struct FireStatement : Statement {
  FireStatement() : Statement(StatementKind::kFire) {}
  ObjectKind object = ObjectKind::kTrigger;
  QualifiedName name;
  OptionList options;  // TRIGGER only
};

}  // namespace hop::sql
