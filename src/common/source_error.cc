// Positioned error messages.
#include "common/source_error.h"

#include <fmt/format.h>

#include "common/redact.h"

namespace hop {
namespace {

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::string FormatSourceError(std::string_view text, size_t offset, std::string_view what,
                              const SourceOrigin& origin) {
  if (offset > text.size()) offset = text.size();
  uint32_t line = origin.line;
  size_t line_begin = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_begin = i + 1;
    }
  }
  size_t line_end = text.find('\n', offset);
  if (line_end == std::string_view::npos) line_end = text.size();
  std::string_view line_text = text.substr(line_begin, line_end - line_begin);
  if (!line_text.empty() && line_text.back() == '\r') line_text.remove_suffix(1);

  // On the text's first line, show what precedes it in the file (or blanks when unknown).
  std::string shown;
  if (line_begin == 0 && origin.column > 1) {
    if (origin.prefix.size() + 1 == origin.column) {
      shown.assign(origin.prefix);
    } else {
      shown.assign(origin.column - 1, ' ');
    }
  }
  size_t caret_bytes = shown.size() + (offset - line_begin);
  shown.append(line_text);
  // The column counts the characters of the text as written.
  uint32_t column = 1;
  for (size_t i = 0; i < caret_bytes && i < shown.size(); ++i) {
    if (!IsContinuationByte(shown[i])) ++column;
  }
  // The line is shown with its secrets redacted, and the caret stays under the character it
  // points at, which redaction may have moved.
  shown = RedactSecrets(shown, &caret_bytes);

  std::string caret;
  for (size_t i = 0; i < caret_bytes && i < shown.size(); ++i) {
    const char c = shown[i];
    if (c == '\t') {
      caret.push_back('\t');
    } else if (!IsContinuationByte(c)) {
      caret.push_back(' ');
    }
  }
  caret.push_back('^');
  return fmt::format("{} at line {}, column {}\n{}\n{}", what, line, column, shown, caret);
}

}  // namespace hop
