// `hop check`: parse every statement of a script, report errors with their positions, and
// optionally print each statement in canonical form in one dialect.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "session/session.h"
#include "sql/dialect.h"

namespace hop::cli {

struct CheckOptions {
  bool print = false;                          // --print
  sql::Dialect dialect = sql::Dialect::kAnsi;  // --dialect
  // --bind: bind each statement in this session too (names, kinds, types, functions), as
  // executing it would; views and tables the script creates are added as it goes, so later
  // statements can use them (session::Session::Check).
  session::Session* bind = nullptr;
};

struct CheckSummary {
  int statements = 0;
  int commands = 0;
  int errors = 0;
};

// Checks `script` (read from `name`, used in messages). Canonical statements go to `out`, one per
// statement followed by `;`, and `!` commands are copied through; errors go to `err` as
// "<name>: <error>". Never throws.
CheckSummary CheckScript(std::string_view name, std::string_view script,
                         const CheckOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hop::cli
