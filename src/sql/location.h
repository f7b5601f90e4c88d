// A position in SQL source text, 1-based. Columns count bytes inside the lexer and parser;
// error rendering converts them to characters using the line's text.
#pragma once

#include <cstdint>

namespace hop::sql {

struct Location {
  uint32_t line = 1;
  uint32_t column = 1;
};

}  // namespace hop::sql
