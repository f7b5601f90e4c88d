// Positioned error messages with the source line and a caret.
#include "sql/error.h"

#include <fmt/format.h>

namespace hop::sql {
namespace {

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::string FormatSourceError(std::string_view text, Location start, Location at,
                              std::string_view what, std::string_view line_prefix) {
  // Find the line of `at` inside `text`.
  size_t line_begin = 0;
  for (uint32_t line = start.line; line < at.line && line_begin <= text.size(); ++line) {
    size_t nl = text.find('\n', line_begin);
    if (nl == std::string_view::npos) {
      line_begin = text.size();
      break;
    }
    line_begin = nl + 1;
  }
  size_t line_end = text.find('\n', line_begin);
  if (line_end == std::string_view::npos) line_end = text.size();
  std::string_view line = text.substr(line_begin, line_end - line_begin);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

  // On the statement's first line the text starts at start.column (in bytes): show what precedes
  // it on that line, or blanks when the caller does not know it.
  const bool first_line = at.line == start.line;
  const uint32_t first_col = first_line ? start.column : 1;
  std::string shown;
  if (first_line) {
    if (line_prefix.size() + 1 == first_col) {
      shown.assign(line_prefix);
    } else {
      shown.assign(first_col - 1, ' ');
    }
  }
  size_t byte_in_line = at.column >= first_col ? at.column - first_col : 0;
  if (byte_in_line > line.size()) byte_in_line = line.size();
  byte_in_line += shown.size();
  shown.append(line);

  std::string caret;
  uint32_t char_column = 1;
  for (size_t i = 0; i < byte_in_line && i < shown.size(); ++i) {
    const char c = shown[i];
    if (c == '\t') {
      caret.push_back('\t');
      ++char_column;
    } else if (!IsContinuationByte(c)) {
      caret.push_back(' ');
      ++char_column;
    }
  }
  caret.push_back('^');
  return fmt::format("{} at line {}, column {}\n{}\n{}", what, at.line, char_column, shown, caret);
}

}  // namespace hop::sql
