// `PAUSE | RESUME  MATERIALIZED VIEW name | TRIGGER name`. One struct serves both statement kinds
// (kPause, kResume): they differ only in the state they set.
#pragma once

#include "sql/ast/identifier.h"
#include "sql/ast/statement.h"

namespace hop::sql {

struct PauseStatement : Statement {
  explicit PauseStatement(bool resume)
      : Statement(resume ? StatementKind::kResume : StatementKind::kPause) {}
  ObjectKind object = ObjectKind::kTrigger;
  QualifiedName name;
};

}  // namespace hop::sql
