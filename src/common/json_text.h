// JSON text written by hand where building a document first would cost a copy per value (the
// engine's JSON functions and its `--format json` rows).
#pragma once

#include <string>
#include <string_view>

namespace hop {

// `text` as a JSON string literal, appended to `out`: quoted, with `"` and `\` escaped, the
// control characters written `\n`, `\t`, `\r`, `\b`, `\f` or `\u00XX`, and every other byte as it
// is (UTF-8 stays UTF-8).
void AppendJsonString(std::string_view text, std::string& out);

// The same for text of unknown origin that must come out as valid JSON and safe on a terminal
// (log lines): a byte that does not start a valid UTF-8 sequence becomes U+FFFD, and DEL is
// escaped too.
void AppendJsonStringOfAnyBytes(std::string_view text, std::string& out);

}  // namespace hop
