// The SQL forms of the shell's inspecting commands, which return rows (docs/sql.md, "Inspecting
// statements"): `EXPLAIN query`, `SPECIFY statement`, `PIPELINE statement` say what hop would do
// with a statement without doing it; `DESCRIBE [TABLE] name` and `RESOLVE name` say what hop
// knows of a table or view; `GRAPH name [DEPTH n] [FORMAT f]` what moves its data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sql/ast/identifier.h"
#include "sql/ast/statement.h"

namespace hop::sql {

struct InspectStatement : Statement {
  // kExplain, kSpecify, kPipeline (with `statement`); kDescribe, kResolve, kGraph (with `name`).
  explicit InspectStatement(StatementKind k) : Statement(k) {}
  StatementPtr statement;
  QualifiedName name;
  // kGraph: DEPTH, and FORMAT's word in lower case ("" when not given).
  std::optional<int64_t> depth;
  std::string format;
};

}  // namespace hop::sql
