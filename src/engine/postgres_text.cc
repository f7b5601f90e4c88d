#include "engine/postgres_text.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "catalog/pg_types.h"

namespace hop::engine {

namespace {

void AppendHexBytes(std::string_view bytes, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
}

// HH:MM:SS with the fraction PostgreSQL shows: up to 6 digits, trailing zeros dropped.
void AppendPgTime(int64_t micros, std::string& out) {
  const size_t start = out.size();
  AppendTime(micros, 6, out);
  while (out.size() > start && out.back() == '0') out.pop_back();
  if (out.size() > start && out.back() == '.') out.pop_back();
}

void AppendTimestampText(int64_t micros, std::string& out) {
  const int64_t days = FloorDiv(micros, kMicrosPerDay);
  AppendDate(days, out);
  out += ' ';
  AppendPgTime(FloorMod(micros, kMicrosPerDay), out);
}

bool EqualsNullWord(std::string_view text) {
  return text.size() == 4 && (text[0] == 'N' || text[0] == 'n') &&
         (text[1] == 'U' || text[1] == 'u') && (text[2] == 'L' || text[2] == 'l') &&
         (text[3] == 'L' || text[3] == 'l');
}

// An array element in PostgreSQL's array text: quoted when it is empty, NULL, or holds a
// delimiter, brace, quote, backslash or space.
void AppendArrayElement(std::string_view text, std::string& out) {
  const bool quote = text.empty() || EqualsNullWord(text) ||
                     text.find_first_of("{},\"\\ \t\n\r") != std::string_view::npos;
  if (!quote) {
    out += text;
    return;
  }
  out += '"';
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
}

void AppendJsonElement(const nlohmann::json& j, const Rep& element, std::string& out);

void AppendPgArray(const nlohmann::json& j, const Rep& element, std::string& out) {
  out += '{';
  bool first = true;
  for (const auto& e : j) {
    if (!first) out += ',';
    first = false;
    AppendJsonElement(e, element, out);
  }
  out += '}';
}

void AppendJsonElement(const nlohmann::json& j, const Rep& element, std::string& out) {
  if (j.is_null()) {
    out += "NULL";
    return;
  }
  if (j.is_array() && element.kind == RepKind::kJson) {
    AppendPgArray(
        j, RepOf(element.type.params.empty() ? element.type : element.type.params.front()),
        out);
    return;
  }
  // The element's text as a scalar column of its type would show it.
  Value v;
  if (j.is_string()) {
    v = Value::Text(j.get<std::string>());
  } else if (j.is_boolean()) {
    v = Value::Int(j.get<bool>() ? 1 : 0);
  } else if (j.is_number_integer()) {
    v = Value::Int(j.get<int64_t>());
  } else if (j.is_number()) {
    v = Value::Real(j.get<double>());
  } else {
    AppendArrayElement(j.dump(), out);
    return;
  }
  std::string text;
  if (element.kind == RepKind::kBinary && v.kind == Value::Kind::kText) {
    text = "\\x" + v.s;  // binary elements are hex in the JSON encoding
  } else {
    AppendPostgresText(v, element, text);
  }
  AppendArrayElement(text, out);
}

}  // namespace

void AppendPostgresTimestamp(int64_t micros, std::string& out) {
  AppendTimestampText(micros, out);
}

std::string PostgresDouble(double d, bool single) {
  // A REAL is held as a double: written as the float it is (one beyond the float's range is
  // Infinity, as the binary float4 of the same value is).
  if (single) d = static_cast<float>(d);
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  char buf[64];
  // The shortest digits that read back as the same value, in scientific form: d.ddde[+-]x.
  auto r = single ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(d),
                                  std::chars_format::scientific)
                  : std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(r.ptr - buf));
  const size_t e = sci.find('e');
  std::string_view mantissa = sci.substr(0, e);
  const int exponent = std::atoi(std::string(sci.substr(e + 1)).c_str());
  const bool negative = mantissa[0] == '-';
  if (negative) mantissa.remove_prefix(1);
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  std::string out = negative ? "-" : "";
  if (exponent < -4 || exponent >= (single ? 6 : 15)) {
    out += digits[0];
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += fmt::format("e{}{:02}", exponent < 0 ? '-' : '+', std::abs(exponent));
    return out;
  }
  if (exponent < 0) {
    out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    return out;
  }
  const auto int_digits = static_cast<size_t>(exponent + 1);
  if (digits.size() <= int_digits) {
    out += digits + std::string(int_digits - digits.size(), '0');
  } else {
    out += digits.substr(0, int_digits) + "." + digits.substr(int_digits);
  }
  return out;
}

void AppendPostgresText(const Value& v, const Rep& rep, std::string& out) {
  switch (v.kind) {
    case Value::Kind::kNull: return;
    case Value::Kind::kBlob:
      out += "\\x";
      AppendHexBytes(v.s, out);
      return;
    case Value::Kind::kText:
      if (rep.kind == RepKind::kJson && !rep.type.params.empty() &&
          (rep.type.name == sql::TypeName::kArray || rep.type.name == sql::TypeName::kMultiset)) {
        const catalog::PgType t = catalog::PgTypeOf(rep.type);
        auto parsed = nlohmann::json::parse(v.s, nullptr, /*allow_exceptions=*/false);
        if (t.oid != 114 && parsed.is_array()) {
          AppendPgArray(parsed, RepOf(rep.type.params.front()), out);
          return;
        }
      }
      {
        const size_t from = out.size();
        out += v.s;
        PadChar(rep, out, from);  // PostgreSQL sends a bpchar padded
      }
      return;
    case Value::Kind::kReal:
      if (rep.kind == RepKind::kDecimal) break;
      out += PostgresDouble(
          v.d, rep.type.name == sql::TypeName::kReal || rep.type.name == sql::TypeName::kFloat);
      return;
    case Value::Kind::kInteger: break;
  }
  switch (rep.kind) {
    case RepKind::kBoolean: out += v.i != 0 ? 't' : 'f'; return;
    case RepKind::kDouble:
      out += PostgresDouble(static_cast<double>(v.i), rep.type.name == sql::TypeName::kReal ||
                                                    rep.type.name == sql::TypeName::kFloat);
      return;
    case RepKind::kDate: AppendDate(v.i, out); return;
    case RepKind::kTime: AppendPgTime(v.i, out); return;
    case RepKind::kTimestamp: AppendTimestampText(v.i, out); return;
    case RepKind::kTimestampLtz:
      AppendTimestampText(v.i, out);
      out += "+00";  // the session's TimeZone is UTC
      return;
    case RepKind::kMonths: {
      const int64_t mag = v.i < 0 ? -v.i : v.i;
      const char* sign = v.i < 0 ? "-" : "";
      out += fmt::format("{}{} years {}{} mons", sign, mag / 12, sign, mag % 12);
      return;
    }
    case RepKind::kMicros: {
      const int64_t mag = v.i < 0 ? -v.i : v.i;
      const int64_t secs = mag / kMicrosPerSecond;
      const char* sign = v.i < 0 ? "-" : "";
      out += fmt::format("{}{} days {}{:02}:{:02}:{:02}", sign, secs / 86400, sign,
                         secs / 3600 % 24, secs / 60 % 60, secs % 60);
      if (mag % kMicrosPerSecond != 0) {
        std::string frac = fmt::format(".{:06}", mag % kMicrosPerSecond);
        while (frac.back() == '0') frac.pop_back();
        out += frac;
      }
      return;
    }
    default: FormatValue(v, rep, out); return;
  }
}

void AppendCopyField(const Value& v, const Rep& rep, std::string& out) {
  if (v.kind == Value::Kind::kNull) {
    out += "\\N";
    return;
  }
  const size_t start = out.size();
  AppendPostgresText(v, rep, out);
  // Escape in place, only when something needs it (most values do not).
  size_t special = 0;
  for (size_t k = start; k < out.size(); ++k) {
    const char c = out[k];
    special += c == '\\' || c == '\t' || c == '\n' || c == '\r';
  }
  if (special == 0) return;
  std::string text = out.substr(start);
  out.resize(start);
  for (char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
}

}  // namespace hop::engine
