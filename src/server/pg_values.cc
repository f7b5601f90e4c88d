// Values between the engine and PostgreSQL clients (pg_values.h).
#include "server/pg_values.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>

#include "catalog/pg_types.h"
#include "common/strings.h"
#include "engine/postgres_text.h"
#include "sql/lexer.h"

namespace hop::server {

namespace {

using engine::RepKind;
using engine::Value;

// Days and microseconds from 1970-01-01 to PostgreSQL's epoch, 2000-01-01.
constexpr int64_t kPgEpochDays = 10957;
constexpr int64_t kPgEpochMicros = kPgEpochDays * engine::kMicrosPerDay;

void AppendHexBytes(std::string_view bytes, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
}

void Int16Be(int64_t v, std::string& out) {
  const auto u = static_cast<uint16_t>(v);
  out += static_cast<char>(u >> 8);
  out += static_cast<char>(u & 0xff);
}
void Int32Be(int64_t v, std::string& out) {
  const auto u = static_cast<uint32_t>(v);
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((u >> shift) & 0xff);
}
void Int64Be(int64_t v, std::string& out) {
  const auto u = static_cast<uint64_t>(v);
  for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>((u >> shift) & 0xff);
}

double AsDouble(const Value& v) {
  return v.kind == Value::Kind::kReal ? v.d : static_cast<double>(v.i);
}

Status NoBinary(uint32_t oid) {
  const catalog::PgType* t = catalog::PgTypeByOid(oid);
  return Status::InvalidArgument(
      fmt::format("hop does not send {} values in binary format; ask for text format",
                  t != nullptr ? std::string(t->name) : fmt::format("type {}", oid)));
}

}  // namespace

Status AppendPgBinary(const Value& v, const engine::Rep& rep, uint32_t oid, std::string& out) {
  const bool integer = v.kind == Value::Kind::kInteger;
  switch (oid) {
    case 16: out += static_cast<char>(integer && v.i != 0 ? 1 : 0); return Status::OK();
    case 21:
      if (!integer) break;
      Int16Be(v.i, out);
      return Status::OK();
    case 23:
      if (!integer) break;
      Int32Be(v.i, out);
      return Status::OK();
    case 20:
      if (!integer) break;
      Int64Be(v.i, out);
      return Status::OK();
    case 700: {
      const auto f = static_cast<float>(AsDouble(v));
      uint32_t bits = 0;
      std::memcpy(&bits, &f, 4);
      Int32Be(static_cast<int32_t>(bits), out);
      return Status::OK();
    }
    case 701: {
      const double d = AsDouble(v);
      uint64_t bits = 0;
      std::memcpy(&bits, &d, 8);
      Int64Be(static_cast<int64_t>(bits), out);
      return Status::OK();
    }
    case 17:
    case 25:
    case 1042:
    case 1043:
      if (v.kind == Value::Kind::kText || v.kind == Value::Kind::kBlob) {
        const size_t from = out.size();
        out += v.s;
        if (v.kind == Value::Kind::kText) engine::PadChar(rep, out, from);
      } else {
        engine::AppendPostgresText(v, rep, out);
      }
      return Status::OK();
    case 1082:
      if (!integer) break;
      Int32Be(v.i - kPgEpochDays, out);
      return Status::OK();
    case 1083:
      if (!integer) break;
      Int64Be(v.i, out);
      return Status::OK();
    case 1114:
    case 1184:
      if (!integer) break;
      Int64Be(v.i - kPgEpochMicros, out);
      return Status::OK();
    default: break;
  }
  return NoBinary(oid);
}

Status CheckPgBinary(uint32_t oid) {
  switch (oid) {
    case 16:
    case 21:
    case 23:
    case 20:
    case 700:
    case 701:
    case 17:
    case 25:
    case 1042:
    case 1043:
    case 1082:
    case 1083:
    case 1114:
    case 1184: return Status::OK();
    default: return NoBinary(oid);
  }
}

Status AppendPgBinaryText(std::string_view text, uint32_t oid, std::string& out) {
  if (oid == 21 || oid == 23 || oid == 20) {
    int64_t n = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || p != text.data() + text.size()) {
      return Status::Internal(fmt::format("'{}' is not an integer", text));
    }
    oid == 21 ? Int16Be(n, out) : oid == 23 ? Int32Be(n, out) : Int64Be(n, out);
    return Status::OK();
  }
  if (oid == 25 || oid == 1043 || oid == 1042) {
    out += text;
    return Status::OK();
  }
  return NoBinary(oid);
}

Result<int> CountParameters(std::string_view query) {
  std::vector<sql::Token> tokens;
  HOP_RETURN_IF_ERROR(sql::Tokenize(query, {}, &tokens));
  int n = 0;
  for (const sql::Token& t : tokens) {
    if (t.type != sql::TokenType::kParameter || t.length < 2 || query[t.offset] != '$') continue;
    const int i = std::atoi(std::string(query.substr(t.offset + 1, t.length - 1)).c_str());
    n = std::max(n, i);
  }
  return n;
}

namespace {

// A timestamp's text split at the UTC offset that may end it (`+02`, `-0530`, `+05:30`,
// `+05:30:15`, `Z`): the text before it, and the offset in seconds east of UTC; nullopt for an
// offset that is not one of those forms. Without an offset: the text and 0.
std::optional<std::pair<std::string_view, int>> SplitUtcOffset(std::string_view text) {
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (!text.empty() && (text.back() == 'Z' || text.back() == 'z')) {
    return std::make_pair(text.substr(0, text.size() - 1), 0);
  }
  // The offset's sign comes after the time of day (the date's '-' come before it).
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::make_pair(text, 0);
  const size_t sign = text.find_first_of("+-", colon);
  if (sign == std::string_view::npos) return std::make_pair(text, 0);
  std::string digits;
  for (char c : text.substr(sign + 1)) {
    if (c == ':') continue;
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    digits += c;
  }
  if (digits.size() != 2 && digits.size() != 4 && digits.size() != 6) return std::nullopt;
  const int hours = std::stoi(digits.substr(0, 2));
  const int minutes = digits.size() >= 4 ? std::stoi(digits.substr(2, 2)) : 0;
  const int seconds = digits.size() == 6 ? std::stoi(digits.substr(4, 2)) : 0;
  if (hours > 15 || minutes > 59 || seconds > 59) return std::nullopt;
  const int offset = hours * 3600 + minutes * 60 + seconds;
  std::string_view base = text.substr(0, sign);
  while (!base.empty() && base.back() == ' ') base.remove_suffix(1);
  return std::make_pair(base, text[sign] == '-' ? -offset : offset);
}

void AppendQuoted(std::string_view text, std::string& out) {
  out += '\'';
  for (char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  out += '\'';
}

uint64_t BigEndian(std::string_view b) {
  uint64_t v = 0;
  for (unsigned char c : b) v = (v << 8) | c;
  return v;
}

// The SQL type a NULL of `oid` is cast to, or "" when the type is not known.
std::string_view SqlTypeOf(uint32_t oid) {
  switch (oid) {
    case 16: return "BOOLEAN";
    case 21: return "SMALLINT";
    case 23: return "INTEGER";
    case 20: return "BIGINT";
    case 700: return "REAL";
    case 701: return "DOUBLE";
    case 1700: return "DECIMAL";
    case 25:
    case 1043: return "VARCHAR";
    case 17: return "VARBINARY";
    case 1082: return "DATE";
    case 1114: return "TIMESTAMP";
    default: return "";
  }
}

bool IsNumberText(std::string_view s, bool integer) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t digits = 0;
  bool point = false;
  bool exponent = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (c == '.' && !integer && !point && !exponent) {
      point = true;
    } else if ((c == 'e' || c == 'E') && !integer && !exponent && digits > 0) {
      exponent = true;
      if (i + 1 < s.size() && (s[i + 1] == '-' || s[i + 1] == '+')) ++i;
      if (i + 1 >= s.size()) return false;
    } else {
      return false;
    }
  }
  return digits > 0;
}

// Whether the integer text `t` (IsNumberText's, integer) fits a value of `bytes` bytes.
bool FitsInteger(std::string_view t, size_t bytes) {
  int64_t v = 0;
  const char* begin = t.data() + (!t.empty() && t.front() == '+' ? 1 : 0);
  const auto [end, ec] = std::from_chars(begin, t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size()) return false;
  if (bytes == 2) return v >= INT16_MIN && v <= INT16_MAX;
  if (bytes == 4) return v >= INT32_MIN && v <= INT32_MAX;
  return true;
}

// PostgreSQL's spellings of a float's special values, any case: the name hop's cast reads.
std::optional<std::string_view> SpecialFloat(std::string_view v) {
  const std::string lower = AsciiToLower(v);
  if (lower == "nan") return "NaN";
  if (lower == "infinity" || lower == "+infinity" || lower == "inf" || lower == "+inf") {
    return "Infinity";
  }
  if (lower == "-infinity" || lower == "-inf") return "-Infinity";
  return std::nullopt;
}

// A numeric's text (IsNumberText's) as an exact SQL number: digits with at most one point, the
// exponent applied (`1.5e2` is `150`, where `1.5e2` in SQL would be a DOUBLE), and a whole number
// cast to DECIMAL so that it divides as a numeric does (`7 / 2` of integers is 3). Nullopt when
// it would need more digits than a DECIMAL holds.
std::optional<std::string> ExactNumber(std::string_view t) {
  bool negative = false;
  if (!t.empty() && (t.front() == '-' || t.front() == '+')) {
    negative = t.front() == '-';
    t.remove_prefix(1);
  }
  int exponent = 0;
  if (size_t e = t.find_first_of("eE"); e != std::string_view::npos) {
    std::string_view x = t.substr(e + 1);
    if (!x.empty() && x.front() == '+') x.remove_prefix(1);
    const auto [end, ec] = std::from_chars(x.data(), x.data() + x.size(), exponent);
    if (ec != std::errc() || end != x.data() + x.size() || std::abs(exponent) > 40) {
      return std::nullopt;
    }
    t = t.substr(0, e);
  }
  const size_t point = t.find('.');
  std::string digits(t.substr(0, point));
  int scale = 0;
  if (point != std::string_view::npos) {
    digits += t.substr(point + 1);
    scale = static_cast<int>(t.size() - point - 1);
  }
  scale -= exponent;
  if (scale < 0) {
    digits.append(static_cast<size_t>(-scale), '0');
    scale = 0;
  }
  while (digits.size() > 1 && digits.front() == '0' &&
         digits.size() > static_cast<size_t>(scale) + 1) {
    digits.erase(0, 1);
  }
  if (digits.size() < static_cast<size_t>(scale) + 1) {
    digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
  }
  if (digits.size() > 18) return std::nullopt;
  const std::string sign = negative ? "-" : "";
  if (scale == 0) return fmt::format("CAST({}{} AS DECIMAL({}, 0))", sign, digits, digits.size());
  const size_t whole = digits.size() - static_cast<size_t>(scale);
  return sign + digits.substr(0, whole) + "." + digits.substr(whole);
}

// A binary parameter of a type whose binary form is its text's bytes.
bool TextInBinary(uint32_t oid) {
  return oid == 0 || oid == 25 || oid == 1043 || oid == 1042 || oid == 19 || oid == 114;
}

Result<std::string> Literal(const BoundParameter& p, int index) {
  const std::string_view type = SqlTypeOf(p.oid);
  if (!p.value) {
    return type.empty() ? std::string("NULL") : fmt::format("CAST(NULL AS {})", type);
  }
  const std::string& v = *p.value;
  auto bad = [&](std::string_view what) {
    return Status::InvalidArgument(fmt::format("parameter ${} is not a valid {}: '{}'", index, what,
                                               p.format == 1 ? "(binary)" : v));
  };
  const bool binary = p.format == 1;
  switch (p.oid) {
    case 21:
    case 23:
    case 20: {
      if (binary) {
        const size_t n = p.oid == 21 ? 2 : p.oid == 23 ? 4 : 8;
        if (v.size() != n) return bad(p.oid == 21 ? "int2" : p.oid == 23 ? "int4" : "int8");
        const uint64_t u = BigEndian(v);
        const int64_t i = n == 2   ? static_cast<int16_t>(u)
                          : n == 4 ? static_cast<int32_t>(u)
                                   : static_cast<int64_t>(u);
        return std::to_string(i);
      }
      std::string_view t = v;
      while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
      while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
      const size_t bytes = p.oid == 21 ? 2 : p.oid == 23 ? 4 : 8;
      if (!IsNumberText(t, true) || !FitsInteger(t, bytes)) {
        return bad(p.oid == 21 ? "int2" : p.oid == 23 ? "int4" : "int8");
      }
      return std::string(t);
    }
    case 700:
    case 701:
    case 1700: {
      double d = 0;
      if (binary) {
        if (p.oid == 1700) return bad("numeric (binary numeric is not read; send text)");
        if (v.size() != (p.oid == 700 ? 4u : 8u)) return bad(p.oid == 700 ? "float4" : "float8");
        if (p.oid == 700) {
          const auto bits = static_cast<uint32_t>(BigEndian(v));
          float f = 0;
          std::memcpy(&f, &bits, 4);
          d = f;
        } else {
          const uint64_t bits = BigEndian(v);
          std::memcpy(&d, &bits, 8);
        }
        return fmt::format("CAST('{}' AS {})", engine::PostgresDouble(d, p.oid == 700), type);
      }
      // A float is cast to its type, so that it computes as one whatever its spelling: `2` of a
      // float8 divides as 2.0, where the bare literal would be an INTEGER.
      std::string_view t = v;
      while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
      while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
      if (p.oid == 1700) {
        std::optional<std::string> exact;
        if (IsNumberText(t, false)) exact = ExactNumber(t);
        if (!exact) return bad("numeric");
        return *exact;
      }
      if (IsNumberText(t, false)) return fmt::format("CAST('{}' AS {})", t, type);
      if (auto special = SpecialFloat(t)) return fmt::format("CAST('{}' AS {})", *special, type);
      return bad(p.oid == 700 ? "float4" : "float8");
    }
    case 16: {
      if (binary) {
        if (v.size() != 1) return bad("bool");
        return std::string(v[0] != 0 ? "TRUE" : "FALSE");
      }
      static constexpr std::string_view kTrue[] = {"t", "true", "1", "y", "yes", "on"};
      static constexpr std::string_view kFalse[] = {"f", "false", "0", "n", "no", "off"};
      const std::string lower = AsciiToLower(v);
      for (auto t : kTrue) {
        if (lower == t) return std::string("TRUE");
      }
      for (auto f : kFalse) {
        if (lower == f) return std::string("FALSE");
      }
      return bad("bool");
    }
    case 17: {
      std::string bytes;
      if (binary) {
        bytes = v;
      } else if (v.rfind("\\x", 0) == 0) {
        for (size_t i = 2; i < v.size(); ++i) {
          if (!std::isxdigit(static_cast<unsigned char>(v[i]))) return bad("bytea");
        }
        if (v.size() % 2 != 0) return bad("bytea");
        return fmt::format("X'{}'", v.substr(2));
      } else {
        bytes = v;  // the escape format's plain bytes
      }
      std::string hex;
      AppendHexBytes(bytes, hex);
      return fmt::format("X'{}'", hex);
    }
    case 1082:
    case 1114:
    case 1184: {
      std::string text;
      if (binary) {
        if (p.oid == 1082) {
          if (v.size() != 4) return bad("date");
          engine::AppendDate(static_cast<int32_t>(BigEndian(v)) + kPgEpochDays, text);
        } else {
          if (v.size() != 8) return bad("timestamp");
          engine::AppendPostgresTimestamp(static_cast<int64_t>(BigEndian(v)) + kPgEpochMicros, text);
        }
      } else if (p.oid == 1082) {
        text = v;
      } else {
        // A timestamptz with a UTC offset is the instant it names, in UTC; a timestamp's offset
        // is ignored, as PostgreSQL ignores it.
        auto split = SplitUtcOffset(v);
        if (!split) return bad(p.oid == 1184 ? "timestamptz" : "timestamp");
        if (p.oid == 1114 || split->second == 0) {
          text = split->first;
        } else {
          std::optional<int64_t> micros = engine::ParseTimestamp(split->first);
          if (!micros) return bad("timestamptz");
          engine::AppendPostgresTimestamp(
              *micros - static_cast<int64_t>(split->second) * engine::kMicrosPerSecond, text);
        }
      }
      std::string out = p.oid == 1082 ? "DATE " : "TIMESTAMP ";
      AppendQuoted(text, out);
      return out;
    }
    case 2950:
      if (binary) {
        // A uuid's 16 bytes in its text form.
        if (v.size() != 16) return bad("uuid");
        std::string hex;
        AppendHexBytes(v, hex);
        std::string out = "'";
        for (size_t i = 0; i < hex.size(); ++i) {
          if (i == 8 || i == 12 || i == 16 || i == 20) out += '-';
          out += static_cast<char>(std::tolower(static_cast<unsigned char>(hex[i])));
        }
        return out + "'";
      }
      [[fallthrough]];
    default: {
      if (binary && !TextInBinary(p.oid)) {
        const catalog::PgType* t = catalog::PgTypeByOid(p.oid);
        return Status::InvalidArgument(fmt::format(
            "parameter ${}: hop does not read {} parameters in binary format; send it as text",
            index, t != nullptr ? std::string(t->name) : fmt::format("type {}", p.oid)));
      }
      std::string out;
      AppendQuoted(v, out);
      return out;
    }
  }
}

}  // namespace

Result<std::string> SubstituteParameters(std::string_view query,
                                         const std::vector<BoundParameter>& params) {
  std::vector<sql::Token> tokens;
  HOP_RETURN_IF_ERROR(sql::Tokenize(query, {}, &tokens));
  std::string out;
  size_t copied = 0;
  for (const sql::Token& t : tokens) {
    if (t.type != sql::TokenType::kParameter || t.length < 2 || query[t.offset] != '$') continue;
    const std::string digits(query.substr(t.offset + 1, t.length - 1));
    const long index = digits.size() > 5 ? 0 : std::atol(digits.c_str());
    if (index < 1 || static_cast<size_t>(index) > params.size()) {
      return Status::InvalidArgument(fmt::format(
          "there is no parameter ${}: the statement was bound with {}", digits, params.size()));
    }
    HOP_ASSIGN_OR_RETURN(std::string literal,
                         Literal(params[static_cast<size_t>(index - 1)], static_cast<int>(index)));
    out.append(query.substr(copied, t.offset - copied));
    // Spaces keep a literal from joining the tokens around it ("-" "-1" is not a comment).
    out += ' ';
    out += literal;
    out += ' ';
    copied = t.offset + t.length;
  }
  out.append(query.substr(copied));
  return out;
}

}  // namespace hop::server
