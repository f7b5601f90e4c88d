// Tokens produced by the lexer. A token points into the source text by offset; the parser reads
// names and literal values from the text only when it needs them.
#pragma once

#include <cstdint>
#include <string_view>

#include "sql/keywords.h"
#include "sql/location.h"

namespace hop::sql {

enum class TokenType : uint8_t {
  kEnd,               // end of input
  kWord,              // unquoted identifier or keyword
  kQuotedIdentifier,  // "name" or `name`
  kString,            // 'text'
  kDollarString,      // $$text$$ or $tag$text$tag$
  kBinaryString,      // X'0F'
  kEscapeString,      // E'text' with backslash escapes (PostgreSQL's)
  kInteger,           // 42
  kDecimal,           // 4.2, .5, 4.
  kFloat,             // 4.2e10
  kParameter,         // ?, ?1 or $1
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kComma,
  kDot,
  kSemicolon,
  kColon,
  kDoubleColon,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kConcat,  // ||
  kEq,
  kNe,  // <> or !=
  kLt,
  kLe,
  kGt,
  kGe,
  kTilde,           // ~      PostgreSQL's regular-expression match
  kTildeStar,       // ~*     ... ignoring case
  kNotTilde,        // !~     no match
  kNotTildeStar,    // !~*    no match, ignoring case
  kCount
};

// How a token type is named in error messages, e.g. "identifier" or "')'".
std::string_view TokenTypeName(TokenType type);

struct Token {
  TokenType type = TokenType::kEnd;
  Keyword keyword = Keyword::kNone;  // for kWord tokens that spell a keyword
  uint32_t offset = 0;               // byte offset in the source text
  uint32_t length = 0;               // bytes
  Location loc;
};

}  // namespace hop::sql
