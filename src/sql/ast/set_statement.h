// Session settings: `SET name = value` (or `SET name TO value`) and `RESET name | ALL`. Names are
// kept as written (sessions compare them case-insensitively); values are literals or bare words.
#pragma once

#include <string>

#include "sql/ast/statement.h"

namespace hop::sql {

enum class SettingValueKind : uint8_t { kString, kNumber, kBoolean, kWord, kDefault };

struct SetStatement : Statement {
  SetStatement() : Statement(StatementKind::kSet) {}
  std::string name;   // e.g. `mode`, `k8s.namespace`
  std::string value;  // the value as a string; empty for DEFAULT
  SettingValueKind value_kind = SettingValueKind::kString;
};

struct ResetStatement : Statement {
  ResetStatement() : Statement(StatementKind::kReset) {}
  std::string name;  // empty for RESET ALL
};

}  // namespace hop::sql
