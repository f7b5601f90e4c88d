// JSON string literals (json_text.h).
#include "common/json_text.h"

#include "common/strings.h"

namespace hop {

namespace {

// The escaped characters of `text`, without quotes.
void AppendEscaped(std::string_view text, bool escape_del, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20 || (escape_del && c == 0x7F)) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xf];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
}

}  // namespace

void AppendJsonString(std::string_view text, std::string& out) {
  out += '"';
  AppendEscaped(text, /*escape_del=*/false, out);
  out += '"';
}

void AppendJsonStringOfAnyBytes(std::string_view text, std::string& out) {
  out += '"';
  while (!text.empty()) {
    const size_t bad = FindInvalidUtf8(text);
    AppendEscaped(text.substr(0, bad), /*escape_del=*/true, out);
    if (bad == std::string_view::npos) break;
    out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER, for the one byte at `bad`
    text.remove_prefix(bad + 1);
  }
  out += '"';
}

}  // namespace hop
