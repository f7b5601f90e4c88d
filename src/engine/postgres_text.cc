#include "engine/postgres_text.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace hop::engine {

namespace {

using sql::TypeName;

void AppendDouble(double d, bool single, std::string& out) {
  if (std::isnan(d)) {
    out += "NaN";
  } else if (std::isinf(d)) {
    out += d < 0 ? "-Infinity" : "Infinity";
  } else if (single) {
    fmt::format_to(std::back_inserter(out), "{}", static_cast<float>(d));
  } else {
    fmt::format_to(std::back_inserter(out), "{}", d);
  }
}

bool NeedsArrayQuotes(std::string_view s) {
  if (s.empty()) return true;
  if (s.size() == 4 && (s[0] == 'N' || s[0] == 'n') && (s[1] == 'U' || s[1] == 'u') &&
      (s[2] == 'L' || s[2] == 'l') && (s[3] == 'L' || s[3] == 'l')) {
    return true;
  }
  for (char c : s) {
    if (c == '"' || c == '\\' || c == '{' || c == '}' || c == ',' || c == ' ' || c == '\t' ||
        c == '\n' || c == '\r' || c == '\v' || c == '\f') {
      return true;
    }
  }
  return false;
}

void AppendArrayElement(const nlohmann::json& j, const Rep& rep, std::string& out);

// A JSON-encoded element (engine/value.h) as the Value its rep holds.
Value ElementValue(const nlohmann::json& j, const Rep& rep) {
  if (j.is_boolean()) return Value::Int(j.get<bool>() ? 1 : 0);
  if (j.is_number_integer()) return Value::Int(j.get<int64_t>());
  if (j.is_number()) return Value::Real(j.get<double>());
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (rep.kind != RepKind::kBinary) return Value::Text(s);
    // Binary elements are hex in the encoding; the Value holds the bytes.
    auto nibble = [](char c) {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return 0;
    };
    std::string bytes;
    for (size_t i = 0; i + 1 < s.size(); i += 2) {
      bytes += static_cast<char>(nibble(s[i]) << 4 | nibble(s[i + 1]));
    }
    return Value::Blob(std::move(bytes));
  }
  return Value::Text(j.dump());
}

void AppendArray(const nlohmann::json& j, const Rep& element, std::string& out) {
  out += '{';
  for (size_t i = 0; i < j.size(); ++i) {
    if (i > 0) out += ',';
    AppendArrayElement(j[i], element, out);
  }
  out += '}';
}

void AppendArrayElement(const nlohmann::json& j, const Rep& rep, std::string& out) {
  if (j.is_null()) {
    out += "NULL";
    return;
  }
  if (j.is_array() && rep.type.name == TypeName::kArray && !rep.type.params.empty()) {
    AppendArray(j, RepOf(rep.type.params[0]), out);
    return;
  }
  std::string text;
  AppendPostgresText(ElementValue(j, rep), rep, text);
  if (!NeedsArrayQuotes(text)) {
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

}  // namespace

void AppendPostgresText(const Value& v, const Rep& rep, std::string& out) {
  using K = Value::Kind;
  const bool single = rep.type.name == TypeName::kReal || rep.type.name == TypeName::kFloat;
  switch (v.kind) {
    case K::kNull: return;
    case K::kBlob: {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      for (unsigned char c : v.s) {
        out += kHex[c >> 4];
        out += kHex[c & 15];
      }
      return;
    }
    case K::kText:
      if (rep.kind == RepKind::kJson && rep.type.name == TypeName::kArray &&
          !rep.type.params.empty()) {
        auto parsed = nlohmann::json::parse(v.s, nullptr, /*allow_exceptions=*/false);
        if (parsed.is_array()) {
          AppendArray(parsed, RepOf(rep.type.params[0]), out);
          return;
        }
      }
      out += v.s;
      return;
    case K::kReal:
      if (rep.kind == RepKind::kDecimal && std::isfinite(v.d)) {
        fmt::format_to(std::back_inserter(out), "{:.{}f}",
                       v.d / static_cast<double>(Pow10(rep.scale)), rep.scale);
        return;
      }
      AppendDouble(v.d, single, out);
      return;
    case K::kInteger: break;
  }
  const int64_t i = v.i;
  switch (rep.kind) {
    case RepKind::kBoolean: out += i != 0 ? 't' : 'f'; return;
    case RepKind::kDecimal: AppendDecimal(i, rep.scale, out); return;
    case RepKind::kDouble: AppendDouble(static_cast<double>(i), single, out); return;
    case RepKind::kDate: AppendDate(i, out); return;
    case RepKind::kTime: AppendTime(i, TimePrecision(rep.type), out); return;
    case RepKind::kTimestamp: AppendTimestamp(i, TimePrecision(rep.type), out); return;
    case RepKind::kTimestampLtz:
      AppendTimestamp(i, TimePrecision(rep.type), out);
      out += "+00";
      return;
    case RepKind::kMonths: fmt::format_to(std::back_inserter(out), "{} months", i); return;
    case RepKind::kMicros:
      fmt::format_to(std::back_inserter(out), "{} microseconds", i);
      return;
    default: fmt::format_to(std::back_inserter(out), "{}", i); return;
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
