// Translating PostgreSQL's AREs to RE2 (pg_regex.h): one pass over the pattern that copies what
// means the same in both and rewrites or refuses the rest.
#include "engine/pg_regex.h"

#include <fmt/format.h>

namespace hop::engine {
namespace {

Status Refuse(std::string_view what) {
  return Status::InvalidArgument(fmt::format(
      "Invalid regular expression: {} is not supported (hop runs PostgreSQL's regular expressions "
      "with RE2)",
      what));
}

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The escape at pattern[i] (a backslash) outside a bracket expression, appended to `out`;
// returns the index of its last character.
Result<size_t> Escape(std::string_view p, size_t i, std::string& out) {
  if (i + 1 >= p.size()) return Status::InvalidArgument("Invalid regular expression: trailing \\");
  const char e = p[i + 1];
  switch (e) {
    case 'y': out += "\\b"; return i + 1;   // word boundary
    case 'Y': out += "\\B"; return i + 1;   // not a word boundary
    case 'Z': out += "\\z"; return i + 1;   // end of text
    case 'b': out += "\\x08"; return i + 1;  // backspace, in an ARE
    case 'B': out += "\\\\"; return i + 1;   // a backslash, in an ARE
    case 'e': out += "\\x1B"; return i + 1;
    case 'a': out += "\\x07"; return i + 1;
    case 'm': return Refuse("\\m (start of a word)");
    case 'M': return Refuse("\\M (end of a word)");
    case 'c': return Refuse("\\c (a control character escape)");
    case 'u':
    case 'U':
    case 'x': {
      const size_t max = e == 'u' ? 4 : e == 'U' ? 8 : 8;
      size_t j = i + 2;
      while (j < p.size() && j - (i + 2) < max && IsHex(p[j])) ++j;
      if (j == i + 2) return Refuse(fmt::format("\\{} without hexadecimal digits", e));
      out += "\\x{";
      out.append(p.substr(i + 2, j - (i + 2)));
      out += '}';
      return j - 1;
    }
    default:
      if (e >= '1' && e <= '9') return Refuse(fmt::format("the back-reference \\{}", e));
      if (e == '0') {
        out += "\\x00";
        return i + 1;
      }
      out += '\\';
      out += e;
      return i + 1;
  }
}

}  // namespace

Result<std::string> PostgresRegexToRe2(std::string_view p) {
  std::string out = "(?s)";
  // `***=`: the rest is a literal string; `***:`: the rest is an ARE.
  if (p.substr(0, 4) == "***=") {
    for (char c : p.substr(4)) {
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            static_cast<unsigned char>(c) >= 0x80)) {
        out += '\\';
      }
      out += c;
    }
    return out;
  }
  if (p.substr(0, 4) == "***:") p.remove_prefix(4);
  // Embedded options at the start, `(?i)`: only i (ignore case) and c (respect case).
  if (p.size() >= 3 && p[0] == '(' && p[1] == '?' && p[2] != ':' && p[2] != '=' && p[2] != '!' &&
      p[2] != '<') {
    const size_t close = p.find(')');
    if (close == std::string_view::npos) return Refuse("an unterminated (? option group");
    bool insensitive = false;
    for (char f : p.substr(2, close - 2)) {
      if (f == 'i') {
        insensitive = true;
      } else if (f == 'c') {
        insensitive = false;
      } else {
        return Refuse(fmt::format("the embedded option {}", f));
      }
    }
    if (insensitive) out += "(?i)";
    p.remove_prefix(close + 1);
  }
  bool bracket = false;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (bracket) {
      out += c;
      if (c == '[' && i + 1 < p.size() && (p[i + 1] == ':' || p[i + 1] == '.' || p[i + 1] == '=')) {
        // [:alpha:] and the like run to their own closing `:]`.
        const char kind = p[i + 1];
        const size_t end = p.find(std::string{kind, ']'}, i + 2);
        if (end == std::string_view::npos) return Refuse("an unterminated [: :] class");
        if (kind != ':') return Refuse("collating elements and equivalence classes ([. .], [= =])");
        out.append(p.substr(i + 1, end + 2 - (i + 1)));
        i = end + 1;
      } else if (c == '\\' && i + 1 < p.size()) {
        out += p[++i];
      } else if (c == ']') {
        bracket = false;
      }
      continue;
    }
    switch (c) {
      case '\\': {
        HOP_ASSIGN_OR_RETURN(i, Escape(p, i, out));
        break;
      }
      case '[':
        out += c;
        bracket = true;
        // A `]` first (after an optional ^) is a member, not the end.
        if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
        if (i + 1 < p.size() && p[i + 1] == ']') {
          out += "\\]";
          ++i;
        }
        break;
      case '(':
        if (i + 2 < p.size() && p[i + 1] == '?') {
          const char k = p[i + 2];
          if (k == '=' || k == '!') return Refuse("a look-ahead constraint (?= or (?!");
          if (k == '<') return Refuse("a look-behind constraint (?<= or (?<!");
          if (k != ':') return Refuse("embedded options after the start of the pattern");
        }
        out += c;
        break;
      default: out += c;
    }
  }
  if (bracket) return Status::InvalidArgument("Invalid regular expression: brackets [] not balanced");
  return out;
}

}  // namespace hop::engine
