// Rendering of positioned SQL errors: "<what> at line L, column C", then the offending line and a
// caret under the column. Used by the lexer, the parser and, later, the binder.
#pragma once

#include <string>
#include <string_view>

#include "sql/location.h"

namespace hop::sql {

// `text` is the statement's source and `start` where its first byte sits in the file; `at` is a
// location inside `text` (columns in bytes). `line_prefix` is the text of the statement's first
// line before the statement (earlier statements on the same line), shown so that the line reads
// as in the file. The column in the message counts characters.
std::string FormatSourceError(std::string_view text, Location start, Location at,
                              std::string_view what, std::string_view line_prefix = {});

}  // namespace hop::sql
