// Value construction and formatting, including the YAML scalar quoting rules for map and
// properties values.
#include "template/value.h"

#include <cassert>
#include <cstdio>

#include "common/strings.h"

namespace hop::tmpl {

void SetEntry(Entries& entries, const std::string& key, std::string value) {
  for (auto& [k, v] : entries) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  entries.emplace_back(key, std::move(value));
}

namespace {

bool IsControl(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

// Words that YAML 1.1 or 1.2 resolves to null or a boolean in some spelling.
bool IsReservedWord(std::string_view s) {
  static constexpr std::string_view kWords[] = {"null", "~",  "true", "false", "yes",
                                                "no",   "on", "off",  "y",     "n"};
  for (std::string_view w : kWords) {
    if (EqualsIgnoreCase(s, w)) return true;
  }
  return false;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Conservative: anything starting like a number (ints, floats, hex, octal, dates, times,
// `.5`, `+1`) or spelled like infinity / not-a-number is treated as one.
bool LooksNumeric(std::string_view s) {
  if (IsDigit(s[0])) return true;
  if ((s[0] == '+' || s[0] == '.') && s.size() > 1 && IsDigit(s[1])) return true;
  static constexpr std::string_view kSpecial[] = {".inf", "+.inf", "-.inf", ".nan"};
  for (std::string_view w : kSpecial) {
    if (EqualsIgnoreCase(s, w)) return true;
  }
  return false;
}

enum class Style { kPlain, kSingle, kDouble };

Style StyleFor(std::string_view s) {
  if (s.empty()) return Style::kSingle;
  // Flow indicators, comment and mapping markers, and quotes anywhere in the scalar.
  static constexpr std::string_view kQuoteAnywhere = ":,[]{}#'\"";
  bool needs_quotes = false;
  for (char c : s) {
    if (IsControl(c)) return Style::kDouble;
    if (kQuoteAnywhere.find(c) != std::string_view::npos) needs_quotes = true;
  }
  if (needs_quotes) return Style::kSingle;
  // Indicators that cannot start a plain scalar.
  static constexpr std::string_view kBadFirst = "-?:,[]{}#&*!|>'\"%@`";
  if (kBadFirst.find(s.front()) != std::string_view::npos) return Style::kSingle;
  if (s.front() == ' ' || s.back() == ' ') return Style::kSingle;
  // `<<` is YAML 1.1's merge key.
  if (IsReservedWord(s) || LooksNumeric(s) || s == "<<") return Style::kSingle;
  return Style::kPlain;
}

void AppendSingleQuoted(std::string_view s, std::string* out) {
  out->push_back('\'');
  for (char c : s) {
    if (c == '\'') out->push_back('\'');
    out->push_back(c);
  }
  out->push_back('\'');
}

void AppendDoubleQuoted(std::string_view s, std::string* out) {
  out->push_back('"');
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    switch (c) {
      case '\n': *out += "\\n"; break;
      case '\t': *out += "\\t"; break;
      case '\r': *out += "\\r"; break;
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      default:
        if (IsControl(c)) {
          char buf[7];
          std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned char>(c));
          *out += buf;
        } else if (s.substr(i, 2) == "\xC2\x85") {  // U+0085, a YAML line break
          *out += "\\u0085";
          ++i;
        } else if (s.substr(i, 3) == "\xE2\x80\xA8" || s.substr(i, 3) == "\xE2\x80\xA9") {
          *out += s[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";  // YAML line breaks too
          i += 2;
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

void AppendScalar(std::string_view s, std::string* out) {
  switch (StyleFor(s)) {
    case Style::kPlain: out->append(s); break;
    case Style::kSingle: AppendSingleQuoted(s, out); break;
    case Style::kDouble: AppendDoubleQuoted(s, out); break;
  }
}

// Property values are always quoted, as Hoptimator writes them; line breaks force double quotes
// so that every entry stays on its own line.
void AppendPropertyValue(std::string_view s, std::string* out) {
  if (StyleFor(s) == Style::kDouble) {
    AppendDoubleQuoted(s, out);
  } else {
    AppendSingleQuoted(s, out);
  }
}

}  // namespace

Value Value::String(std::string text) { return Value(Kind::kString, std::move(text), {}); }
Value Value::Map(Entries entries) { return Value(Kind::kMap, {}, std::move(entries)); }
Value Value::Properties(Entries entries) {
  return Value(Kind::kProperties, {}, std::move(entries));
}

const std::string& Value::text() const {
  assert(kind_ == Kind::kString && "Value::text() called on a map or properties value");
  return text_;
}

const Entries& Value::entries() const {
  assert(kind_ != Kind::kString && "Value::entries() called on a string value");
  return entries_;
}

std::string Value::Format() const {
  std::string out;
  switch (kind_) {
    case Kind::kString: return text_;
    case Kind::kMap:
      out.push_back('{');
      for (size_t i = 0; i < entries_.size(); ++i) {
        if (i > 0) out += ", ";
        AppendScalar(entries_[i].first, &out);
        out += ": ";
        AppendScalar(entries_[i].second, &out);
      }
      out.push_back('}');
      return out;
    case Kind::kProperties:
      for (size_t i = 0; i < entries_.size(); ++i) {
        if (i > 0) out.push_back('\n');
        AppendScalar(entries_[i].first, &out);
        out += ": ";
        AppendPropertyValue(entries_[i].second, &out);
      }
      return out;
  }
  return out;
}

std::string QuoteYamlScalar(std::string_view s) {
  std::string out;
  AppendScalar(s, &out);
  return out;
}

std::string DoubleQuoteYaml(std::string_view s) {
  std::string out;
  AppendDoubleQuoted(s, &out);
  return out;
}

}  // namespace hop::tmpl
