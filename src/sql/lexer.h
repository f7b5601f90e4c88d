// The SQL lexer: turns source text into tokens in one pass. It accepts the lexical forms of every
// dialect hop reads (double-quoted and back-quoted identifiers, dollar-quoted strings, `?` and
// `$n` parameters) and skips `--` and `/* */` comments.
#pragma once

#include <string_view>
#include <vector>

#include "common/status.h"
#include "sql/token.h"

namespace hop::sql {

// Tokenizes `text`, whose first byte sits at `start` in the enclosing file. On success `tokens`
// holds every token followed by one kEnd token. On failure (text that is not UTF-8 or holds a
// NUL byte, anywhere, comments and quoted text included; an unterminated quote or comment; a
// character that starts no token) returns a ParseError whose message carries the position; the
// tokens read so far are left in `tokens`.
// `line_prefix` is what precedes the text on its first line, for error messages.
Status Tokenize(std::string_view text, Location start, std::vector<Token>* tokens,
                std::string_view line_prefix = {});

// The value of a quoted token: quotes removed and doubled quotes collapsed. For kString,
// kQuotedIdentifier, kDollarString and kBinaryString tokens (hex digits for the last).
std::string UnquoteToken(std::string_view text, const Token& token);

}  // namespace hop::sql
