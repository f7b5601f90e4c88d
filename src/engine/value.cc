// Encodings, text forms and display of values (value.h).
#include "engine/value.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/strings.h"

namespace hop::engine {

using sql::DataType;
using sql::TypeName;

namespace {

std::string_view Trim(std::string_view s) { return TrimWhitespace(s); }

int64_t IntegerMin(TypeName n) {
  switch (n) {
    case TypeName::kTinyInt: return -128;
    case TypeName::kSmallInt: return -32768;
    case TypeName::kInteger: return std::numeric_limits<int32_t>::min();
    default: return std::numeric_limits<int64_t>::min();
  }
}
int64_t IntegerMax(TypeName n) {
  switch (n) {
    case TypeName::kTinyInt: return 127;
    case TypeName::kSmallInt: return 32767;
    case TypeName::kInteger: return std::numeric_limits<int32_t>::max();
    default: return std::numeric_limits<int64_t>::max();
  }
}

bool ReadDigits(std::string_view s, size_t& pos, size_t min, size_t max, int64_t* out) {
  size_t begin = pos;
  int64_t v = 0;
  while (pos < s.size() && pos - begin < max && s[pos] >= '0' && s[pos] <= '9') {
    v = v * 10 + (s[pos] - '0');
    ++pos;
  }
  if (pos - begin < min) return false;
  *out = v;
  return true;
}

// `.ffffff` after a time: microseconds (digits past the sixth are dropped).
bool ReadFraction(std::string_view s, size_t& pos, int64_t* micros) {
  *micros = 0;
  if (pos >= s.size() || s[pos] != '.') return true;
  ++pos;
  size_t begin = pos;
  int digits = 0;
  int64_t v = 0;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
    if (digits < 6) {
      v = v * 10 + (s[pos] - '0');
      ++digits;
    }
    ++pos;
  }
  if (pos == begin) return false;
  while (digits < 6) {
    v *= 10;
    ++digits;
  }
  *micros = v;
  return true;
}

// `HH:MM[:SS[.f]]` at `pos`.
bool ReadClock(std::string_view s, size_t& pos, int64_t* micros) {
  int64_t h = 0, m = 0, sec = 0, frac = 0;
  if (!ReadDigits(s, pos, 1, 2, &h) || pos >= s.size() || s[pos] != ':') return false;
  ++pos;
  if (!ReadDigits(s, pos, 2, 2, &m)) return false;
  if (pos < s.size() && s[pos] == ':') {
    ++pos;
    if (!ReadDigits(s, pos, 2, 2, &sec)) return false;
    if (!ReadFraction(s, pos, &frac)) return false;
  }
  if (h > 23 || m > 59 || sec > 59) return false;
  *micros = ((h * 60 + m) * 60 + sec) * kMicrosPerSecond + frac;
  return true;
}

bool ReadCalendarDate(std::string_view s, size_t& pos, int64_t* days) {
  int64_t y = 0, m = 0, d = 0;
  bool negative = false;
  if (pos < s.size() && s[pos] == '-') {
    negative = true;
    ++pos;
  }
  if (!ReadDigits(s, pos, 1, 4, &y) || pos >= s.size() || s[pos] != '-') return false;
  ++pos;
  if (!ReadDigits(s, pos, 1, 2, &m) || pos >= s.size() || s[pos] != '-') return false;
  ++pos;
  if (!ReadDigits(s, pos, 1, 2, &d)) return false;
  if (negative) y = -y;
  if (m < 1 || m > 12 || d < 1) return false;
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  unsigned last = kDays[m - 1];
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (m == 2 && leap) last = 29;
  if (static_cast<unsigned>(d) > last) return false;
  *days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return true;
}

Status NotA(std::string_view text, const Rep& rep) {
  return Status::InvalidArgument(fmt::format("'{}' is not a valid {}", text, RepTypeName(rep)));
}

void AppendHex(std::string_view bytes, std::string& out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
}

// A JSON value of an encoded collection, shown as results show it.
void FormatJsonValue(const nlohmann::json& j, const Rep& rep, std::string& out);

Rep ElementRep(const Rep& rep, size_t i) {
  const DataType& t = rep.type;
  if (t.name == TypeName::kArray && !t.params.empty()) return RepOf(t.params[0]);
  if (t.name == TypeName::kMap && t.params.size() == 2) return RepOf(t.params[i == 0 ? 0 : 1]);
  if (t.name == TypeName::kRow && i < t.fields.size()) return RepOf(t.fields[i].type);
  return Rep{};
}

void FormatJsonScalar(const nlohmann::json& j, const Rep& rep, std::string& out) {
  if (j.is_null()) {
    out += "null";
    return;
  }
  if (rep.kind == RepKind::kJson) {
    FormatJsonValue(j, rep, out);
    return;
  }
  Value v;
  if (j.is_boolean()) {
    v = Value::Int(j.get<bool>() ? 1 : 0);
  } else if (j.is_number_integer()) {
    v = Value::Int(j.get<int64_t>());
  } else if (j.is_number()) {
    v = Value::Real(j.get<double>());
  } else if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (rep.kind == RepKind::kBinary) {
      out += s;  // already hex
      return;
    }
    v = Value::Text(s);
  } else {
    out += j.dump();
    return;
  }
  FormatValue(v, rep, out);
}

void FormatJsonValue(const nlohmann::json& j, const Rep& rep, std::string& out) {
  if (!j.is_array()) {
    FormatJsonScalar(j, rep, out);
    return;
  }
  const TypeName n = rep.type.name;
  if (n == TypeName::kMap) {
    out += '{';
    for (size_t i = 0; i < j.size(); ++i) {
      if (i > 0) out += ", ";
      const auto& pair = j[i];
      if (pair.is_array() && pair.size() == 2) {
        FormatJsonScalar(pair[0], ElementRep(rep, 0), out);
        out += '=';
        FormatJsonScalar(pair[1], ElementRep(rep, 1), out);
      } else {
        out += pair.dump();
      }
    }
    out += '}';
    return;
  }
  const bool row = n == TypeName::kRow;
  out += row ? '{' : '[';
  for (size_t i = 0; i < j.size(); ++i) {
    if (i > 0) out += ", ";
    FormatJsonScalar(j[i], ElementRep(rep, row ? i : 0), out);
  }
  out += row ? '}' : ']';
}

}  // namespace

Rep RepOf(const DataType& t) {
  Rep r;
  r.type = t;
  switch (t.name) {
    case TypeName::kBoolean: r.kind = RepKind::kBoolean; break;
    case TypeName::kTinyInt:
    case TypeName::kSmallInt:
    case TypeName::kInteger:
    case TypeName::kBigInt: r.kind = RepKind::kInteger; break;
    case TypeName::kDecimal:
      r.kind = RepKind::kDecimal;
      r.scale = std::clamp(t.scale.value_or(0), 0, 18);
      break;
    case TypeName::kFloat:
    case TypeName::kReal:
    case TypeName::kDouble: r.kind = RepKind::kDouble; break;
    case TypeName::kChar:
    case TypeName::kVarchar: r.kind = RepKind::kText; break;
    case TypeName::kBinary:
    case TypeName::kVarbinary:
    case TypeName::kBytes: r.kind = RepKind::kBinary; break;
    case TypeName::kDate: r.kind = RepKind::kDate; break;
    case TypeName::kTime: r.kind = RepKind::kTime; break;
    case TypeName::kTimestamp:
      r.kind = t.time_zone == sql::TimeZone::kNone ? RepKind::kTimestamp : RepKind::kTimestampLtz;
      break;
    case TypeName::kArray:
    case TypeName::kMultiset:  // its elements as an array, in no particular order
    case TypeName::kMap:
    case TypeName::kRow: r.kind = RepKind::kJson; break;
    case TypeName::kNull: r.kind = RepKind::kNull; break;
    case TypeName::kInterval: r.kind = RepKind::kMicros; break;
  }
  return r;
}

Rep IntervalRep(bool months) {
  Rep r;
  r.kind = months ? RepKind::kMonths : RepKind::kMicros;
  r.type = DataType(TypeName::kInterval);
  return r;
}

Rep DecimalRep(int precision, int scale) {
  DataType t(TypeName::kDecimal);
  t.precision = precision;
  t.scale = scale;
  return RepOf(t);
}

bool SameEncoding(const Rep& a, const Rep& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == RepKind::kDecimal) return a.scale == b.scale;
  return true;
}

// ---- numbers ----

int64_t Pow10(int n) {
  static constexpr int64_t kPowers[] = {1,
                                        10,
                                        100,
                                        1000,
                                        10000,
                                        100000,
                                        1000000,
                                        10000000,
                                        100000000,
                                        1000000000,
                                        10000000000,
                                        100000000000,
                                        1000000000000,
                                        10000000000000,
                                        100000000000000,
                                        1000000000000000,
                                        10000000000000000,
                                        100000000000000000,
                                        1000000000000000000};
  return kPowers[std::clamp(n, 0, 18)];
}

void AppendDecimal(int64_t unscaled, int scale, std::string& out) {
  if (scale <= 0) {
    out += std::to_string(unscaled);
    return;
  }
  const bool negative = unscaled < 0;
  // Magnitude as unsigned, so that INT64_MIN works.
  uint64_t mag =
      negative ? uint64_t(0) - static_cast<uint64_t>(unscaled) : static_cast<uint64_t>(unscaled);
  std::string digits = std::to_string(mag);
  if (digits.size() <= static_cast<size_t>(scale)) {
    digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
  }
  if (negative) out += '-';
  out.append(digits, 0, digits.size() - static_cast<size_t>(scale));
  out += '.';
  out.append(digits, digits.size() - static_cast<size_t>(scale), std::string::npos);
}

std::optional<int64_t> ParseDecimal(std::string_view text, int scale, bool truncate) {
  std::string_view s = Trim(text);
  size_t pos = 0;
  bool negative = false;
  if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) negative = s[pos++] == '-';
  // Digits with the point's position, then an exponent.
  std::string digits;
  int point = -1;
  size_t begin = pos;
  while (pos < s.size() && ((s[pos] >= '0' && s[pos] <= '9') || (s[pos] == '.' && point < 0))) {
    if (s[pos] == '.') {
      point = static_cast<int>(digits.size());
    } else {
      digits += s[pos];
    }
    ++pos;
  }
  if (digits.empty() || pos == begin) return std::nullopt;
  int exponent = 0;
  if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
    ++pos;
    bool eneg = false;
    if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) eneg = s[pos++] == '-';
    int64_t e = 0;
    if (!ReadDigits(s, pos, 1, 4, &e)) return std::nullopt;
    exponent = static_cast<int>(eneg ? -e : e);
  }
  if (pos != s.size()) return std::nullopt;
  if (point < 0) point = static_cast<int>(digits.size());
  // The value is digits * 10^(exponent - (digits.size() - point)); bring it to `scale`.
  int shift = exponent - (static_cast<int>(digits.size()) - point) + scale;
  while (digits.size() > 1 && digits[0] == '0') digits.erase(0, 1);
  bool round_up = false;
  if (shift < 0) {
    size_t drop = static_cast<size_t>(-shift);
    if (drop > digits.size()) {
      digits = "0";
    } else {
      round_up = !truncate && digits[digits.size() - drop] >= '5';
      digits.resize(digits.size() - drop);
      if (digits.empty()) digits = "0";
    }
  } else {
    if (digits != "0") digits.append(static_cast<size_t>(shift), '0');
  }
  if (digits.size() > 18) return std::nullopt;
  int64_t v = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (round_up) ++v;
  return negative ? -v : v;
}

std::optional<int64_t> Rescale(int64_t value, int from, int to) {
  if (to == from) return value;
  if (to > from) {
    const int64_t f = Pow10(to - from);
    if (to - from > 18 ||
        (value != 0 && std::abs(value) > std::numeric_limits<int64_t>::max() / f)) {
      return std::nullopt;
    }
    return value * f;
  }
  const int64_t f = Pow10(from - to);
  if (from - to > 18) return 0;
  int64_t q = value / f;
  int64_t r = value % f;
  if (std::abs(r) * 2 >= f) q += value < 0 ? -1 : 1;
  return q;
}

std::string FormatDouble(double d, bool single) {
  // A REAL is held as a double: shown as the float it is, so that one beyond the float's range
  // is Infinity (as Java casts it) and never reaches the digit layout below as "inf".
  if (single) d = static_cast<float>(d);
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  char buf[64];
  const double magnitude = std::fabs(d);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    // Plain notation: the shortest digits that read back as the same value, with at least one
    // digit after the point.
    auto res = single ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(d),
                                      std::chars_format::fixed)
                      : std::to_chars(buf, buf + sizeof buf, d, std::chars_format::fixed);
    std::string out(buf, res.ptr);
    if (out.find('.') == std::string::npos) out += ".0";
    return out;
  }
  // Computerized scientific notation: the shortest digits, then Java's layout.
  auto res = single ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(d),
                                    std::chars_format::scientific)
                    : std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));
  const bool negative = sci[0] == '-';
  if (negative) sci.remove_prefix(1);
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  int exponent = std::stoi(std::string(sci.substr(e + 1)));
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out = negative ? "-" : "";
  out += digits[0];
  out += '.';
  out += digits.size() > 1 ? digits.substr(1) : "0";
  out += 'E';
  out += std::to_string(exponent);
  return out;
}

// ---- dates and times ----

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t yy = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = yy + (*m <= 2);
}

std::optional<int64_t> ParseDate(std::string_view text) {
  std::string_view s = Trim(text);
  size_t pos = 0;
  int64_t days = 0;
  if (!ReadCalendarDate(s, pos, &days) || pos != s.size()) return std::nullopt;
  return days;
}

std::optional<int64_t> ParseTime(std::string_view text) {
  std::string_view s = Trim(text);
  size_t pos = 0;
  int64_t micros = 0;
  if (!ReadClock(s, pos, &micros) || pos != s.size()) return std::nullopt;
  return micros;
}

std::optional<int64_t> ParseTimestamp(std::string_view text) {
  std::string_view s = Trim(text);
  size_t pos = 0;
  int64_t days = 0, micros = 0;
  if (!ReadCalendarDate(s, pos, &days)) return std::nullopt;
  if (pos < s.size() && (s[pos] == ' ' || s[pos] == 'T' || s[pos] == 't')) {
    ++pos;
    if (!ReadClock(s, pos, &micros)) return std::nullopt;
  }
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) ++pos;
  if (pos != s.size()) return std::nullopt;
  return days * kMicrosPerDay + micros;
}

void AppendDate(int64_t days, std::string& out) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  if (y < 0) {
    out += fmt::format("-{:04}-{:02}-{:02}", -y, m, d);
  } else {
    out += fmt::format("{:04}-{:02}-{:02}", y, m, d);
  }
}

void AppendTime(int64_t micros, int precision, std::string& out) {
  micros = FloorMod(micros, kMicrosPerDay);
  const int64_t secs = micros / kMicrosPerSecond;
  out += fmt::format("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
  if (precision > 0) {
    std::string frac = fmt::format("{:06}", micros % kMicrosPerSecond);
    out += '.';
    out.append(frac, 0, static_cast<size_t>(std::min(precision, 6)));
  }
}

void AppendTimestamp(int64_t micros, int precision, std::string& out) {
  AppendDate(FloorDiv(micros, kMicrosPerDay), out);
  out += ' ';
  AppendTime(FloorMod(micros, kMicrosPerDay), precision, out);
}

int TimePrecision(const DataType& t) { return std::clamp(t.precision.value_or(0), 0, 6); }

int64_t TruncateMicros(int64_t micros, int precision) {
  const int64_t unit = Pow10(6 - std::clamp(precision, 0, 6));
  return FloorDiv(micros, unit) * unit;
}

int64_t AddMonthsToDate(int64_t days, int64_t months) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  int64_t total = y * 12 + (m - 1) + months;
  int64_t ny = FloorDiv(total, 12);
  unsigned nm = static_cast<unsigned>(FloorMod(total, 12)) + 1;
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  unsigned last = kDays[nm - 1];
  if (nm == 2 && ((ny % 4 == 0 && ny % 100 != 0) || ny % 400 == 0)) last = 29;
  return DaysFromCivil(ny, nm, std::min(d, last));
}

// ---- text forms ----

Result<Value> ParseValue(std::string_view text, const Rep& rep) {
  switch (rep.kind) {
    case RepKind::kNull: return Value::Null();
    case RepKind::kBoolean: {
      std::string_view s = Trim(text);
      if (EqualsIgnoreCase(s, "true")) return Value::Int(1);
      if (EqualsIgnoreCase(s, "false")) return Value::Int(0);
      return NotA(text, rep);
    }
    case RepKind::kInteger: {
      std::string_view s = Trim(text);
      if (!s.empty() && s[0] == '+') s.remove_prefix(1);
      int64_t v = 0;
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (s.empty() || p != s.data() + s.size() ||
          (ec != std::errc() && ec != std::errc::result_out_of_range)) {
        return NotA(text, rep);
      }
      // A whole number, but too large for the type: out of range, not "not a number" (PostgreSQL
      // tells the two apart, 22003 and 22P02).
      if (ec == std::errc::result_out_of_range || v < IntegerMin(rep.type.name) ||
          v > IntegerMax(rep.type.name)) {
        return Status::InvalidArgument(
            fmt::format("'{}' is out of range for {}", Trim(text), RepTypeName(rep)));
      }
      return Value::Int(v);
    }
    case RepKind::kDecimal: {
      auto v = ParseDecimal(text, rep.scale);
      if (!v) return NotA(text, rep);
      const int precision = rep.type.precision.value_or(19);
      if (precision < 19 && std::abs(*v) >= (precision > 18 ? INT64_MAX : Pow10(precision))) {
        return Status::InvalidArgument(
            fmt::format("'{}' is out of range for {}", Trim(text), RepTypeName(rep)));
      }
      return Value::Int(*v);
    }
    case RepKind::kDouble: {
      std::string s(Trim(text));
      if (s == "NaN") return Value::Real(std::numeric_limits<double>::quiet_NaN());
      if (s == "Infinity" || s == "+Infinity") {
        return Value::Real(std::numeric_limits<double>::infinity());
      }
      if (s == "-Infinity") return Value::Real(-std::numeric_limits<double>::infinity());
      double d = 0;
      auto [p, ec] =
          std::from_chars(s.data() + (!s.empty() && s[0] == '+'), s.data() + s.size(), d);
      if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return NotA(text, rep);
      return Value::Real(d);
    }
    case RepKind::kText: return Value::Text(std::string(text));
    case RepKind::kBinary: {
      std::string bytes;
      if (text.size() % 2 != 0) return NotA(text, rep);
      for (size_t i = 0; i < text.size(); i += 2) {
        int hi = HexDigitValue(text[i]), lo = HexDigitValue(text[i + 1]);
        if (hi < 0 || lo < 0) return NotA(text, rep);
        bytes += static_cast<char>(hi * 16 + lo);
      }
      return Value::Blob(std::move(bytes));
    }
    case RepKind::kDate: {
      auto d = ParseDate(text);
      if (!d) return NotA(text, rep);
      return Value::Int(*d);
    }
    case RepKind::kTime: {
      auto t = ParseTime(text);
      if (!t) return NotA(text, rep);
      return Value::Int(TruncateMicros(*t, TimePrecision(rep.type)));
    }
    case RepKind::kTimestamp:
    case RepKind::kTimestampLtz: {
      auto t = ParseTimestamp(text);
      if (!t) return NotA(text, rep);
      return Value::Int(TruncateMicros(*t, TimePrecision(rep.type)));
    }
    case RepKind::kMonths:
    case RepKind::kMicros: {
      std::string_view s = Trim(text);
      int64_t v = 0;
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || p != s.data() + s.size()) return NotA(text, rep);
      return Value::Int(v);
    }
    case RepKind::kJson: {
      if (!nlohmann::json::accept(text)) return NotA(text, rep);
      return Value::Text(std::string(text));
    }
  }
  return NotA(text, rep);
}

void PadChar(const Rep& rep, std::string& out, size_t from) {
  if (rep.kind != RepKind::kText || rep.type.name != TypeName::kChar || !rep.type.precision) return;
  int64_t have = 0;
  for (size_t i = from; i < out.size(); ++i) have += (static_cast<uint8_t>(out[i]) & 0xC0) != 0x80;
  if (have < *rep.type.precision) out.append(static_cast<size_t>(*rep.type.precision - have), ' ');
}

void FormatValue(const Value& v, const Rep& rep, std::string& out) {
  using K = Value::Kind;
  switch (v.kind) {
    case K::kNull: out += "null"; return;
    case K::kBlob: AppendHex(v.s, out); return;
    case K::kText:
      if (rep.kind == RepKind::kJson) {
        FormatJson(v.s, rep, out);
      } else {
        const size_t from = out.size();
        out += v.s;
        PadChar(rep, out, from);
      }
      return;
    case K::kReal:
      if (rep.kind == RepKind::kDecimal && !std::isnan(v.d) && !std::isinf(v.d)) {
        // A decimal that SQLite turned into a floating-point number (an aggregate over it).
        out += fmt::format("{:.{}f}", v.d / static_cast<double>(Pow10(rep.scale)), rep.scale);
        return;
      }
      out +=
          FormatDouble(v.d, rep.type.name == TypeName::kReal || rep.type.name == TypeName::kFloat);
      return;
    case K::kInteger: break;
  }
  const int64_t i = v.i;
  switch (rep.kind) {
    case RepKind::kBoolean: out += i != 0 ? "true" : "false"; return;
    case RepKind::kDecimal: AppendDecimal(i, rep.scale, out); return;
    case RepKind::kDouble:
      out += FormatDouble(static_cast<double>(i),
                          rep.type.name == TypeName::kReal || rep.type.name == TypeName::kFloat);
      return;
    case RepKind::kDate: AppendDate(i, out); return;
    case RepKind::kTime: AppendTime(i, TimePrecision(rep.type), out); return;
    case RepKind::kTimestamp:
    case RepKind::kTimestampLtz: AppendTimestamp(i, TimePrecision(rep.type), out); return;
    case RepKind::kMonths: {
      const int64_t mag = i < 0 ? -i : i;
      out += fmt::format("{}{}-{:02}", i < 0 ? '-' : '+', mag / 12, mag % 12);
      return;
    }
    case RepKind::kMicros: {
      const int64_t mag = i < 0 ? -i : i;
      const int64_t secs = mag / kMicrosPerSecond;
      out +=
          fmt::format("{}{} {:02}:{:02}:{:02}.{:03}", i < 0 ? '-' : '+', secs / 86400,
                      secs / 3600 % 24, secs / 60 % 60, secs % 60, mag % kMicrosPerSecond / 1000);
      return;
    }
    default: out += std::to_string(i); return;
  }
}

void FormatJson(std::string_view json, const Rep& rep, std::string& out) {
  auto parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    out += json;
    return;
  }
  FormatJsonValue(parsed, rep, out);
}

// ---- type codes ----

std::string TypeCode(const Rep& rep) {
  const DataType& t = rep.type;
  switch (rep.kind) {
    case RepKind::kNull: return "n";
    case RepKind::kBoolean: return "b";
    case RepKind::kInteger:
      switch (t.name) {
        case TypeName::kTinyInt: return "i1";
        case TypeName::kSmallInt: return "i2";
        case TypeName::kInteger: return "i4";
        default: return "i8";
      }
    case RepKind::kDecimal: return fmt::format("d{}.{}", t.precision.value_or(19), rep.scale);
    case RepKind::kDouble:
      return t.name == TypeName::kReal || t.name == TypeName::kFloat ? "r" : "f";
    case RepKind::kText:
      if (t.name == TypeName::kChar) return fmt::format("c{}", t.precision.value_or(1));
      return t.precision ? fmt::format("v{}", *t.precision) : "v";
    case RepKind::kBinary: return "x";
    case RepKind::kDate: return "D";
    case RepKind::kTime: return fmt::format("t{}", TimePrecision(t));
    case RepKind::kTimestamp: return fmt::format("T{}", TimePrecision(t));
    case RepKind::kTimestampLtz: return fmt::format("L{}", TimePrecision(t));
    case RepKind::kMonths: return "Y";
    case RepKind::kMicros: return "S";
    case RepKind::kJson: {
      std::string out;
      if (t.name == TypeName::kArray && !t.params.empty()) {
        out = "a(" + TypeCode(RepOf(t.params[0])) + ")";
      } else if (t.name == TypeName::kMap && t.params.size() == 2) {
        out = "m(" + TypeCode(RepOf(t.params[0])) + "," + TypeCode(RepOf(t.params[1])) + ")";
      } else {
        out = "w(";
        for (size_t i = 0; i < t.fields.size(); ++i) {
          if (i > 0) out += ',';
          out += TypeCode(RepOf(t.fields[i].type));
        }
        out += ")";
      }
      return out;
    }
  }
  return "n";
}

namespace {

Result<Rep> ParseCode(std::string_view code, size_t& pos) {
  auto bad = [&] { return Status::Internal(fmt::format("malformed type code '{}'", code)); };
  if (pos >= code.size()) return bad();
  const char c = code[pos++];
  auto number = [&](int fallback) {
    int64_t v = fallback;
    size_t before = pos;
    if (!ReadDigits(code, pos, 1, 4, &v)) pos = before;
    return static_cast<int>(v);
  };
  DataType t;
  switch (c) {
    case 'n': t = DataType(TypeName::kNull); break;
    case 'b': t = DataType(TypeName::kBoolean); break;
    case 'i': {
      int w = number(8);
      t = DataType(w == 1   ? TypeName::kTinyInt
                   : w == 2 ? TypeName::kSmallInt
                   : w == 4 ? TypeName::kInteger
                            : TypeName::kBigInt);
      break;
    }
    case 'd': {
      t = DataType(TypeName::kDecimal);
      t.precision = number(19);
      if (pos < code.size() && code[pos] == '.') {
        ++pos;
        t.scale = number(0);
      } else {
        t.scale = 0;
      }
      break;
    }
    case 'f': t = DataType(TypeName::kDouble); break;
    case 'r': t = DataType(TypeName::kReal); break;
    case 'c':
      t = DataType(TypeName::kChar);
      t.precision = number(1);
      break;
    case 'v': {
      t = DataType(TypeName::kVarchar);
      size_t before = pos;
      int64_t n = 0;
      if (ReadDigits(code, pos, 1, 9, &n)) {
        t.precision = static_cast<int>(n);
      } else {
        pos = before;
      }
      break;
    }
    case 'x': t = DataType(TypeName::kVarbinary); break;
    case 'D': t = DataType(TypeName::kDate); break;
    case 't':
      t = DataType(TypeName::kTime);
      t.precision = number(0);
      break;
    case 'T':
      t = DataType(TypeName::kTimestamp);
      t.precision = number(0);
      break;
    case 'L':
      t = DataType(TypeName::kTimestamp);
      t.precision = number(3);
      t.time_zone = sql::TimeZone::kWithLocalTimeZone;
      break;
    case 'Y': return IntervalRep(true);
    case 'S': return IntervalRep(false);
    case 'a':
    case 'm':
    case 'w': {
      if (pos >= code.size() || code[pos] != '(') return bad();
      ++pos;
      std::vector<DataType> parts;
      while (pos < code.size() && code[pos] != ')') {
        HOP_ASSIGN_OR_RETURN(Rep part, ParseCode(code, pos));
        parts.push_back(part.type);
        if (pos < code.size() && code[pos] == ',') ++pos;
      }
      if (pos >= code.size()) return bad();
      ++pos;
      if (c == 'a') {
        if (parts.size() != 1) return bad();
        t = DataType(TypeName::kArray);
        t.params = std::move(parts);
      } else if (c == 'm') {
        if (parts.size() != 2) return bad();
        t = DataType(TypeName::kMap);
        t.params = std::move(parts);
      } else {
        t = DataType(TypeName::kRow);
        for (size_t i = 0; i < parts.size(); ++i) {
          t.fields.push_back({sql::Identifier(fmt::format("F{}", i)), parts[i]});
        }
      }
      break;
    }
    default: return bad();
  }
  return RepOf(t);
}

}  // namespace

Result<Rep> ParseTypeCode(std::string_view code) {
  size_t pos = 0;
  HOP_ASSIGN_OR_RETURN(Rep rep, ParseCode(code, pos));
  if (pos != code.size()) return Status::Internal(fmt::format("malformed type code '{}'", code));
  return rep;
}

std::string RepTypeName(const Rep& rep) {
  if (rep.kind == RepKind::kMonths) return "INTERVAL YEAR TO MONTH";
  if (rep.kind == RepKind::kMicros) return "INTERVAL DAY TO SECOND";
  const DataType& t = rep.type;
  std::string out;
  switch (t.name) {
    case TypeName::kBoolean: return "BOOLEAN";
    case TypeName::kTinyInt: return "TINYINT";
    case TypeName::kSmallInt: return "SMALLINT";
    case TypeName::kInteger: return "INTEGER";
    case TypeName::kBigInt: return "BIGINT";
    case TypeName::kFloat: return "FLOAT";
    case TypeName::kReal: return "REAL";
    case TypeName::kDouble: return "DOUBLE";
    case TypeName::kDecimal:
      return fmt::format("DECIMAL({}, {})", t.precision.value_or(19), t.scale.value_or(0));
    case TypeName::kChar: return fmt::format("CHAR({})", t.precision.value_or(1));
    case TypeName::kVarchar:
      return t.precision ? fmt::format("VARCHAR({})", *t.precision) : "VARCHAR";
    case TypeName::kBinary: return "BINARY";
    case TypeName::kVarbinary: return "VARBINARY";
    case TypeName::kBytes: return "BYTES";
    case TypeName::kDate: return "DATE";
    case TypeName::kTime: return "TIME";
    case TypeName::kTimestamp:
      return t.time_zone == sql::TimeZone::kNone ? "TIMESTAMP" : "TIMESTAMP WITH LOCAL TIME ZONE";
    case TypeName::kArray:
      return (t.params.empty() ? std::string("?") : RepTypeName(RepOf(t.params[0]))) + " ARRAY";
    case TypeName::kMultiset:
      return (t.params.empty() ? std::string("?") : RepTypeName(RepOf(t.params[0]))) +
             " MULTISET";
    case TypeName::kMap:
      if (t.params.size() == 2) {
        return fmt::format("({}, {}) MAP", RepTypeName(RepOf(t.params[0])),
                           RepTypeName(RepOf(t.params[1])));
      }
      return "MAP";
    case TypeName::kRow: return "ROW";
    case TypeName::kNull: return "NULL";
    case TypeName::kInterval: return "INTERVAL";
  }
  return out;
}

Status CheckFits(const Value& v, const Rep& from, const Rep& to, std::string_view column) {
  auto out_of_range = [&](std::string_view why) {
    std::string shown;
    FormatValue(v,
                from.type.name == TypeName::kReal ? RepOf(sql::DataType(TypeName::kDouble)) : from,
                shown);
    return Status::InvalidArgument(fmt::format("{} is out of range for {} (column {}){}", shown,
                                               RepTypeName(to), column, why));
  };
  if (to.type.name == TypeName::kReal) {
    double d = 0;
    if (v.kind == Value::Kind::kReal) {
      d = v.d;
    } else if (v.kind == Value::Kind::kInteger && from.kind == RepKind::kInteger) {
      d = static_cast<double>(v.i);
    } else {
      return Status::OK();  // a decimal's 18 digits fit
    }
    const float f = static_cast<float>(d);
    if (std::isinf(f) && std::isfinite(d)) return out_of_range(": overflow");
    if (f == 0.0f && d != 0.0) return out_of_range(": underflow");
    return Status::OK();
  }
  if (to.kind != RepKind::kInteger || v.kind != Value::Kind::kInteger ||
      from.kind != RepKind::kInteger) {
    return Status::OK();
  }
  int64_t low = 0, high = 0;
  switch (to.type.name) {
    case TypeName::kTinyInt: low = -128, high = 127; break;
    case TypeName::kSmallInt: low = -32768, high = 32767; break;
    case TypeName::kInteger:
      low = std::numeric_limits<int32_t>::min(), high = std::numeric_limits<int32_t>::max();
      break;
    default: return Status::OK();
  }
  if (v.i < low || v.i > high) return out_of_range("");
  return Status::OK();
}

}  // namespace hop::engine
