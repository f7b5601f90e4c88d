// The Java properties reader: natural lines are joined into logical lines, each logical line is
// split into a key and a value, and both are unescaped, in the steps java.util.Properties.load
// takes, so that odd inputs (escaped separators, trailing backslashes) read the same as in Java.
#include "common/properties.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "common/strings.h"

namespace hop {
namespace {

bool IsPropertiesSpace(char c) { return c == ' ' || c == '\t' || c == '\f'; }

std::string_view SkipLeadingSpace(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsPropertiesSpace(s[i])) ++i;
  return s.substr(i);
}

// Whether `s` ends in an odd number of backslashes, i.e. its last backslash escapes the line end.
bool EndsInEscape(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && s[s.size() - 1 - n] == '\\') ++n;
  return n % 2 == 1;
}

// A logical line and, for each natural line it was joined from, where that part starts in it,
// so that an error can name the natural line.
struct LogicalLine {
  std::string text;
  std::vector<std::pair<size_t, int>> starts;  // (offset in text, 1-based line number)

  int LineAt(size_t offset) const {
    int line = starts.front().second;
    for (const auto& [start, number] : starts) {
      if (start <= offset) line = number;
    }
    return line;
  }
};

// Splits `text` into natural lines ending at "\n", "\r" or "\r\n".
std::vector<std::string_view> NaturalLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t begin = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n' && text[i] != '\r') continue;
    lines.push_back(text.substr(begin, i - begin));
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    begin = i + 1;
  }
  if (begin < text.size()) lines.push_back(text.substr(begin));
  return lines;
}

constexpr char32_t kReplacement = 0xFFFD;

// Resolves the escapes of line.text[begin, end). \u escapes are UTF-16 code units: a high
// surrogate waits for the low one that should follow it.
Result<std::string> Unescape(const LogicalLine& line, size_t begin, size_t end) {
  std::string out;
  char32_t high = 0;  // a high surrogate waiting for its low half, or 0
  auto flush_high = [&] {
    if (high != 0) AppendUtf8(kReplacement, &out);
    high = 0;
  };
  const std::string& s = line.text;
  size_t i = begin;
  while (i < end) {
    if (s[i] != '\\') {
      flush_high();
      out.push_back(s[i++]);
      continue;
    }
    const size_t escape = i++;
    // A backslash at the very end only happens when the text ends in a continuation, which Java
    // drops.
    if (i == end) break;
    const char c = s[i++];
    if (c != 'u') {
      flush_high();
      switch (c) {
        case 't': out.push_back('\t'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 'f': out.push_back('\f'); break;
        default: out.push_back(c); break;
      }
      continue;
    }
    char32_t unit = 0;
    for (int k = 0; k < 4; ++k) {
      const int digit = i < end ? HexDigitValue(s[i]) : -1;
      if (digit < 0) {
        const size_t shown = std::min(end, escape + 6);
        return Status::InvalidArgument(
            fmt::format("properties line {}: malformed \\uxxxx escape '{}'", line.LineAt(escape),
                        s.substr(escape, shown - escape)));
      }
      unit = unit * 16 + static_cast<char32_t>(digit);
      ++i;
    }
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      flush_high();
      high = unit;
    } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
      if (high != 0) {
        AppendUtf8(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00), &out);
        high = 0;
      } else {
        AppendUtf8(kReplacement, &out);
      }
    } else {
      flush_high();
      AppendUtf8(unit, &out);
    }
  }
  flush_high();
  return out;
}

}  // namespace

Result<std::vector<std::pair<std::string, std::string>>> ParseProperties(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> properties;
  std::unordered_map<std::string, size_t> index;  // key -> position in `properties`
  const std::vector<std::string_view> lines = NaturalLines(text);
  for (size_t n = 0; n < lines.size(); ++n) {
    std::string_view first = SkipLeadingSpace(lines[n]);
    if (first.empty() || first.front() == '#' || first.front() == '!') continue;

    LogicalLine line;
    line.text = first;
    line.starts.emplace_back(0, static_cast<int>(n) + 1);
    while (EndsInEscape(line.text)) {
      line.text.pop_back();
      if (n + 1 == lines.size()) break;  // at the end of the text the backslash is dropped
      ++n;
      line.starts.emplace_back(line.text.size(), static_cast<int>(n) + 1);
      line.text += SkipLeadingSpace(lines[n]);
    }

    // The key runs to the first unescaped separator or whitespace.
    const std::string& s = line.text;
    size_t key_end = 0;
    size_t value_begin = s.size();
    bool has_separator = false;
    bool escaped = false;
    for (; key_end < s.size(); ++key_end) {
      const char c = s[key_end];
      if (!escaped && (c == '=' || c == ':')) {
        value_begin = key_end + 1;
        has_separator = true;
        break;
      }
      if (!escaped && IsPropertiesSpace(c)) {
        value_begin = key_end + 1;
        break;
      }
      escaped = c == '\\' && !escaped;
    }
    // Whitespace, then at most one '=' or ':' if none was seen yet, then whitespace again.
    while (value_begin < s.size()) {
      const char c = s[value_begin];
      if (!IsPropertiesSpace(c)) {
        if (has_separator || (c != '=' && c != ':')) break;
        has_separator = true;
      }
      ++value_begin;
    }

    HOP_ASSIGN_OR_RETURN(std::string key, Unescape(line, 0, key_end));
    HOP_ASSIGN_OR_RETURN(std::string value, Unescape(line, value_begin, s.size()));
    auto [it, inserted] = index.try_emplace(key, properties.size());
    if (inserted) {
      properties.emplace_back(std::move(key), std::move(value));
    } else {
      properties[it->second].second = std::move(value);
    }
  }
  return properties;
}

const std::string* FindProperty(const std::vector<std::pair<std::string, std::string>>& properties,
                                std::string_view key) {
  for (const auto& [k, v] : properties) {
    if (k == key) return &v;
  }
  return nullptr;
}

}  // namespace hop
