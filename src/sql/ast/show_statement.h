// `SHOW name` and `SHOW ALL`: read session settings.
#pragma once

#include <string>

#include "sql/ast/statement.h"

namespace hop::sql {

struct ShowStatement : Statement {
  ShowStatement() : Statement(StatementKind::kShow) {}
  std::string name;  // empty for SHOW ALL
};

}  // namespace hop::sql
