// The SQL parser's public entry points. Parsing never throws and never crashes: malformed input,
// however deep or long, yields a ParseError naming what was expected, what was found, and where.
#pragma once

#include <string_view>

#include "common/status.h"
#include "sql/ast/data_type.h"
#include "sql/ast/expression.h"
#include "sql/ast/statement.h"
#include "sql/location.h"

namespace hop::sql {

// Nesting deeper than this (parentheses, subqueries, operator chains, nested types) is a parse
// error rather than a risk to the stack.
inline constexpr int kMaxParseDepth = 1000;

struct ParseOptions {
  Location start;                // where the text starts in its file, for error positions
  std::string_view line_prefix;  // the file's text before `start` on its line, for messages
};

// Parses exactly one statement; trailing semicolons are allowed. Errors: ParseError whose message
// reads "<what> at line L, column C" followed by the source line and a caret.
Result<StatementPtr> ParseStatement(std::string_view text, const ParseOptions& options = {});

// Parses one scalar expression (used by tools and tests).
Result<ExprPtr> ParseExpression(std::string_view text, const ParseOptions& options = {});

// Parses one data type, e.g. `VARCHAR(10) ARRAY NOT NULL`.
Result<DataType> ParseDataType(std::string_view text, const ParseOptions& options = {});

}  // namespace hop::sql
