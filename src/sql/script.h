// Splitting a script into statements and `!` commands. Statements end at `;` outside quotes and
// comments (or at the end of the text); a line whose first non-blank character is `!`, at a
// point where a statement could start, is a command that runs to the end of its line.
#pragma once

#include <string_view>
#include <vector>

#include "sql/location.h"

namespace hop::sql {

struct ScriptItem {
  enum class Kind { kStatement, kCommand };
  Kind kind = Kind::kStatement;
  std::string_view text;  // statement without its ';' (comments kept); command without its '!'
  Location loc;           // where `text` starts
  std::string_view line_prefix;  // the script's text before `text` on its first line
};

// Never fails: an unterminated quote or comment makes the rest of the script one statement, whose
// parse then reports the problem. Statements holding only whitespace and comments are dropped.
std::vector<ScriptItem> SplitScript(std::string_view script);

}  // namespace hop::sql
