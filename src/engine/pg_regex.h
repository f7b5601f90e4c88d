// PostgreSQL's regular expressions (advanced regular expressions, AREs) as RE2 patterns, for the
// `~` operators (docs/sql.md). Most of an ARE is RE2's syntax already; the escapes whose meaning
// differs are translated, and what RE2 cannot run (back-references, look-around, \m and \M) is
// refused with a message naming it, never run with another meaning.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace hop::engine {

// The RE2 pattern that matches what the ARE `pattern` matches, with PostgreSQL's defaults
// (`.` matches a newline; `^` and `$` anchor the whole text). Errors: InvalidArgument naming the
// construct that has no RE2 equivalent.
Result<std::string> PostgresRegexToRe2(std::string_view pattern);

}  // namespace hop::engine
