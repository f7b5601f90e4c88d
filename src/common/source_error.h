// Positioned error messages for any source text (SQL statements, templates, files): "<what> at
// line L, column C", then the offending line and a caret under the column. Columns count
// characters; the caret line copies tabs so it lines up in a terminal. The line is shown with its
// secrets redacted (common/redact.h), the caret under the same character of the redacted line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hop {

// Where `text` begins in its file, so that positions are reported as the user's file numbers
// them. `prefix` is the file's text before `text` on its first line (earlier statements), shown
// so that the line reads as in the file.
struct SourceOrigin {
  uint32_t line = 1;
  uint32_t column = 1;  // in bytes
  std::string_view prefix;
};

// The message for a problem at byte `offset` of `text` (clamped to its size).
std::string FormatSourceError(std::string_view text, size_t offset, std::string_view what,
                              const SourceOrigin& origin = {});

}  // namespace hop
