// The function library's scalar functions: arithmetic, casts, LIKE, strings and regular
// expressions (RE2), with Calcite's semantics (docs/engine.md, "Functions").
#include "engine/functions.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <random>

#include "catalog/pg_types.h"
#include "common/json_text.h"
#include "common/digest.h"
#include "common/strings.h"
#include "engine/functions_impl.h"
#include "engine/pg_regex.h"

namespace hop::engine {
namespace internal {

using sql::TypeName;
// 128-bit integers for decimal products and quotients (a GCC and Clang extension).
__extension__ typedef __int128 Wide;

// ---- plumbing --------------------------------------------------------------------------------

Value ArgValue(sqlite3_value* v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: return Value::Int(sqlite3_value_int64(v));
    case SQLITE_FLOAT: return Value::Real(sqlite3_value_double(v));
    case SQLITE_TEXT:
      return Value::Text(std::string(reinterpret_cast<const char*>(sqlite3_value_text(v)),
                                     static_cast<size_t>(sqlite3_value_bytes(v))));
    case SQLITE_BLOB: {
      const void* p = sqlite3_value_blob(v);
      return Value::Blob(
          std::string(static_cast<const char*>(p), static_cast<size_t>(sqlite3_value_bytes(v))));
    }
    default: return Value::Null();
  }
}

std::string_view ArgText(sqlite3_value* v) {
  const unsigned char* p = sqlite3_value_text(v);
  if (p == nullptr) return {};
  return {reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_value_bytes(v))};
}

void SetText(sqlite3_context* ctx, std::string_view text) {
  sqlite3_result_text64(ctx, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}

void SetResult(sqlite3_context* ctx, const Value& v) {
  switch (v.kind) {
    case Value::Kind::kNull: sqlite3_result_null(ctx); return;
    case Value::Kind::kInteger: sqlite3_result_int64(ctx, v.i); return;
    case Value::Kind::kReal: sqlite3_result_double(ctx, v.d); return;
    case Value::Kind::kText: SetText(ctx, v.s); return;
    case Value::Kind::kBlob:
      sqlite3_result_blob64(ctx, v.s.data(), v.s.size(), SQLITE_TRANSIENT);
      return;
  }
}

void SetError(sqlite3_context* ctx, std::string_view message) {
  sqlite3_result_error(ctx, message.data(), static_cast<int>(message.size()));
}

const Rep* ArgRep(sqlite3_context* ctx, sqlite3_value** argv, int i) {
  if (auto* cached = static_cast<const Rep*>(sqlite3_get_auxdata(ctx, i))) return cached;
  auto parsed = ParseTypeCode(ArgText(argv[i]));
  if (!parsed.ok()) {
    SetError(ctx, parsed.status().message());
    return nullptr;
  }
  auto* rep = new Rep(std::move(parsed).value());
  sqlite3_set_auxdata(ctx, i, rep, [](void* p) { delete static_cast<Rep*>(p); });
  // SQLite may drop the auxdata at once (a non-constant argument): read it back.
  if (auto* kept = static_cast<const Rep*>(sqlite3_get_auxdata(ctx, i))) return kept;
  thread_local Rep last;
  last = *ParseTypeCode(ArgText(argv[i]));
  return &last;
}

Status AddScalar(sqlite3* db, std::string_view name, int nargs, ScalarFn f, void* data,
                 bool deterministic) {
  const std::string n(name);
  int flags = SQLITE_UTF8 | SQLITE_INNOCUOUS | (deterministic ? SQLITE_DETERMINISTIC : 0);
  if (sqlite3_create_function_v2(db, n.c_str(), nargs, flags, data, f, nullptr, nullptr, nullptr) !=
      SQLITE_OK) {
    return Status::Internal(fmt::format("cannot register {}: {}", n, sqlite3_errmsg(db)));
  }
  return Status::OK();
}

bool AnyNull(int argc, sqlite3_value** argv) {
  for (int i = 0; i < argc; ++i) {
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return true;
  }
  return false;
}

// ---- UTF-8 -----------------------------------------------------------------------------------

size_t Utf8Offset(std::string_view s, int64_t n) {
  size_t i = 0;
  while (i < s.size() && n > 0) {
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
    --n;
  }
  return i;
}

int64_t Utf8Count(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

namespace {

std::vector<std::string_view> CodePoints(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i + 1;
    while (j < s.size() && (static_cast<unsigned char>(s[j]) & 0xC0) == 0x80) ++j;
    out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

char32_t DecodeFirst(std::string_view s) {
  if (s.empty()) return 0;
  auto c = static_cast<unsigned char>(s[0]);
  int n = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
  char32_t cp = n == 0 ? c : n == 1 ? (c & 0x1F) : n == 2 ? (c & 0x0F) : (c & 0x07);
  for (int i = 1; i <= n && i < static_cast<int>(s.size()); ++i) {
    cp = (cp << 6) | (static_cast<unsigned char>(s[i]) & 0x3F);
  }
  return cp;
}

// ---- arithmetic ------------------------------------------------------------------------------

// + - * of 64-bit integers (INTEGER, BIGINT, and DECIMALs as their scaled integers) that fail on
// overflow: SQLite's own operators turn the result into a REAL, which a comparison or a sort
// would then use as if it were right (docs/engine.md).
template <bool (*Op)(int64_t, int64_t, int64_t*)>
void CheckedInt(sqlite3_context* ctx, int argc, sqlite3_value** argv, std::string_view what) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  int64_t out = 0;
  if (Op(sqlite3_value_int64(argv[0]), sqlite3_value_int64(argv[1]), &out)) {
    return SetError(ctx, what);
  }
  sqlite3_result_int64(ctx, out);
}
bool AddOverflows(int64_t a, int64_t b, int64_t* out) { return __builtin_add_overflow(a, b, out); }
bool SubtractOverflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_sub_overflow(a, b, out);
}
bool MultiplyOverflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}
void IntAdd(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  CheckedInt<AddOverflows>(ctx, argc, argv, "Numeric overflow in addition");
}
void IntSubtract(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  CheckedInt<SubtractOverflows>(ctx, argc, argv, "Numeric overflow in subtraction");
}
void IntMultiply(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  CheckedInt<MultiplyOverflows>(ctx, argc, argv, "Numeric overflow in multiplication");
}

void IntDivide(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const int64_t a = sqlite3_value_int64(argv[0]), b = sqlite3_value_int64(argv[1]);
  if (b == 0) return SetError(ctx, "Division by zero");
  if (a == INT64_MIN && b == -1) return SetError(ctx, "Numeric overflow in division");
  sqlite3_result_int64(ctx, a / b);
}

void IntModulo(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const int64_t a = sqlite3_value_int64(argv[0]), b = sqlite3_value_int64(argv[1]);
  if (b == 0) return SetError(ctx, "Division by zero");
  sqlite3_result_int64(ctx, b == -1 ? 0 : a % b);
}

void RealDivide(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  sqlite3_result_double(ctx, sqlite3_value_double(argv[0]) / sqlite3_value_double(argv[1]));
}

void RealModulo(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  sqlite3_result_double(ctx,
                        std::fmod(sqlite3_value_double(argv[0]), sqlite3_value_double(argv[1])));
}

bool FitsInt64(Wide v) {
  return v >= std::numeric_limits<int64_t>::min() && v <= std::numeric_limits<int64_t>::max();
}

Wide Pow10Wide(int n) {
  Wide p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

// num / den rounded half away from zero.
Wide DivideRounded(Wide num, Wide den) {
  Wide q = num / den, r = num % den;
  if (r < 0) r = -r;
  Wide d = den < 0 ? -den : den;
  if (r * 2 >= d) q += ((num < 0) != (den < 0)) ? -1 : 1;
  return q;
}

void DecimalDivide(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const int64_t a = sqlite3_value_int64(argv[0]), b = sqlite3_value_int64(argv[2]);
  const int sa = sqlite3_value_int(argv[1]), sb = sqlite3_value_int(argv[3]);
  const int s = sqlite3_value_int(argv[4]);
  if (b == 0) return SetError(ctx, "Division by zero");
  // a/10^sa / (b/10^sb) at scale s = a * 10^(s + sb - sa) / b.
  const int e = s + sb - sa;
  Wide num = a, den = b;
  if (e >= 0) {
    if (e > 36) return SetError(ctx, "Numeric overflow in decimal division");
    num *= Pow10Wide(e);
  } else {
    if (-e > 36) return sqlite3_result_int64(ctx, 0);
    den *= Pow10Wide(-e);
  }
  const Wide q = DivideRounded(num, den);
  if (!FitsInt64(q)) return SetError(ctx, "Numeric overflow in decimal division");
  sqlite3_result_int64(ctx, static_cast<int64_t>(q));
}

void DecimalMultiply(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const Wide p = static_cast<Wide>(sqlite3_value_int64(argv[0])) * sqlite3_value_int64(argv[1]);
  const int drop = sqlite3_value_int(argv[2]);
  const Wide q = DivideRounded(p, Pow10Wide(std::clamp(drop, 0, 36)));
  if (!FitsInt64(q)) return SetError(ctx, "Numeric overflow in decimal multiplication");
  sqlite3_result_int64(ctx, static_cast<int64_t>(q));
}

void RescaleFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  auto v =
      Rescale(sqlite3_value_int64(argv[0]), sqlite3_value_int(argv[1]), sqlite3_value_int(argv[2]));
  if (!v) return SetError(ctx, "Numeric overflow");
  sqlite3_result_int64(ctx, *v);
}

template <bool kTruncate>
void RoundFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
    return sqlite3_result_null(ctx);
  }
  const Rep* rep = ArgRep(ctx, argv, 2);
  if (!rep) return;
  const int digits = static_cast<int>(std::clamp<int64_t>(sqlite3_value_int64(argv[1]), -18, 18));
  const int to_scale = sqlite3_value_int(argv[3]);
  (void)argc;
  if (rep->kind == RepKind::kDouble) {
    // Calcite rounds the double's shortest decimal form, half away from zero.
    const double d = sqlite3_value_double(argv[0]);
    if (!std::isfinite(d)) return sqlite3_result_double(ctx, d);
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, d);
    const int scale = std::max(digits, 0);
    auto unscaled =
        ParseDecimal(std::string_view(buf, static_cast<size_t>(r.ptr - buf)), scale, kTruncate);
    if (!unscaled) return sqlite3_result_double(ctx, d);  // too large to have such digits
    Wide u = *unscaled;
    if (digits < 0) {
      const Wide f = Pow10Wide(-digits);
      u = (kTruncate ? u / f : DivideRounded(u, f)) * f;
    }
    return sqlite3_result_double(
        ctx, static_cast<double>(static_cast<int64_t>(u)) / static_cast<double>(Pow10(scale)));
  }
  const int scale = rep->kind == RepKind::kDecimal ? rep->scale : 0;
  const int64_t x = sqlite3_value_int64(argv[0]);
  Wide units;  // the value in units of 10^-digits
  if (digits >= scale) {
    auto v = Rescale(x, scale, to_scale);
    if (!v) return SetError(ctx, "Numeric overflow");
    return sqlite3_result_int64(ctx, *v);
  }
  const Wide f = Pow10Wide(scale - digits);
  if (kTruncate) {
    units = static_cast<Wide>(x) / f;
  } else {
    units = DivideRounded(x, f);
  }
  // Back at `to_scale` (which is at least `digits`).
  Wide out = to_scale >= digits ? units * Pow10Wide(to_scale - digits) : units;
  if (!FitsInt64(out)) return SetError(ctx, "Numeric overflow");
  sqlite3_result_int64(ctx, static_cast<int64_t>(out));
}

template <bool kCeil>
void CeilFloorDecimal(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const int64_t x = sqlite3_value_int64(argv[0]);
  const int64_t f = Pow10(sqlite3_value_int(argv[1]));
  int64_t q = x / f;
  if (x % f != 0) {
    if (kCeil && x > 0) ++q;
    if (!kCeil && x < 0) --q;
  }
  sqlite3_result_int64(ctx, q);
}

void MathFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const std::string_view name = ArgText(argv[0]);
  const double x = sqlite3_value_double(argv[1]);
  const double y = argc > 2 ? sqlite3_value_double(argv[2]) : 0;
  double r = 0;
  if (name == "sqrt")
    r = std::sqrt(x);
  else if (name == "exp")
    r = std::exp(x);
  else if (name == "ln")
    r = std::log(x);
  else if (name == "log10")
    r = std::log10(x);
  else if (name == "log2")
    r = std::log2(x);
  else if (name == "log")
    r = argc > 2 ? std::log(x) / std::log(y) : std::log(x);
  else if (name == "sin")
    r = std::sin(x);
  else if (name == "cos")
    r = std::cos(x);
  else if (name == "tan")
    r = std::tan(x);
  else if (name == "asin")
    r = std::asin(x);
  else if (name == "acos")
    r = std::acos(x);
  else if (name == "atan")
    r = std::atan(x);
  else if (name == "cot")
    r = 1.0 / std::tan(x);
  else if (name == "degrees")
    r = x * 180.0 / M_PI;
  else if (name == "radians")
    r = x * M_PI / 180.0;
  else if (name == "cbrt")
    r = std::cbrt(x);
  else if (name == "power")
    r = std::pow(x, y);
  else if (name == "atan2")
    r = std::atan2(x, y);
  else
    return SetError(ctx, fmt::format("unknown math function {}", name));
  sqlite3_result_double(ctx, r);
}

std::mt19937_64& Random(sqlite3_context* ctx, sqlite3_value** argv, bool seeded) {
  if (seeded) {
    if (auto* g = static_cast<std::mt19937_64*>(sqlite3_get_auxdata(ctx, 0))) return *g;
    auto* g = new std::mt19937_64(static_cast<uint64_t>(sqlite3_value_int64(argv[0])));
    sqlite3_set_auxdata(ctx, 0, g, [](void* p) { delete static_cast<std::mt19937_64*>(p); });
    if (auto* kept = static_cast<std::mt19937_64*>(sqlite3_get_auxdata(ctx, 0))) return *kept;
  }
  thread_local std::mt19937_64 unseeded{std::random_device{}()};
  return unseeded;
}

void RandFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  std::uniform_real_distribution<double> d(0.0, 1.0);
  sqlite3_result_double(ctx, d(Random(ctx, argv, argc > 0)));
}

void RandIntegerFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  const int64_t bound = sqlite3_value_int64(argv[argc - 1]);
  if (bound <= 0) return SetError(ctx, "RAND_INTEGER needs a positive bound");
  std::uniform_int_distribution<int64_t> d(0, bound - 1);
  sqlite3_result_int64(ctx, d(Random(ctx, argv, argc > 1)));
}

// ---- casts -----------------------------------------------------------------------------------

std::string Quoted(const Value& v, const Rep& from) {
  if (v.kind == Value::Kind::kText) return "'" + v.s + "'";
  std::string out;
  FormatValue(v, from, out);
  return out;
}

int64_t IntegerLimit(TypeName n, bool max) {
  switch (n) {
    case TypeName::kTinyInt: return max ? 127 : -128;
    case TypeName::kSmallInt: return max ? 32767 : -32768;
    case TypeName::kInteger:
      return max ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int32_t>::min();
    default: return max ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
}

Status OutOfRange(const Value& v, const Rep& from, const Rep& to) {
  return Status::InvalidArgument(
      fmt::format("{} is out of range for {}", Quoted(v, from), RepTypeName(to)));
}

}  // namespace

std::string CastText(const Value& v, const Rep& from) {
  std::string out;
  if (v.kind == Value::Kind::kNull) return out;
  switch (from.kind) {
    case RepKind::kBoolean: return v.i != 0 ? "TRUE" : "FALSE";
    case RepKind::kText: return v.s;
    default: FormatValue(v, from, out); return out;
  }
}

Result<Value> CastValue(const Value& v, const Rep& from, const Rep& to) {
  if (v.kind == Value::Kind::kNull) return v;
  // To strings: the text, padded (CHAR) or cut to the length.
  if (to.kind == RepKind::kText) {
    std::string text = CastText(v, from);
    if (to.type.precision) {
      const int64_t n = *to.type.precision;
      const int64_t have = Utf8Count(text);
      if (have > n) text.resize(Utf8Offset(text, n));
      if (to.type.name == TypeName::kChar && have < n)
        text.append(static_cast<size_t>(n - have), ' ');
    }
    return Value::Text(std::move(text));
  }
  if (from.kind == RepKind::kText) {
    if (to.kind == RepKind::kBinary) return Value::Blob(v.s);
    auto parsed = ParseValue(v.s, to);
    if (!parsed.ok()) {
      // A number too large for its type keeps its own words, the rest are text of no value.
      if (parsed.status().message().find(" is out of range for ") != std::string::npos) {
        return parsed.status();
      }
      return Status::InvalidArgument(fmt::format("Cannot cast '{}' to {}", v.s, RepTypeName(to)));
    }
    return parsed;
  }
  if (from.kind == RepKind::kBinary && to.kind == RepKind::kBinary) return v;
  auto as_int = [&]() -> std::optional<int64_t> {
    if (v.kind == Value::Kind::kInteger) return v.i;
    return std::nullopt;
  };
  switch (to.kind) {
    case RepKind::kInteger: {
      int64_t x = 0;
      if (from.kind == RepKind::kInteger) {
        x = v.i;
      } else if (from.kind == RepKind::kDecimal && as_int()) {
        x = v.i / Pow10(from.scale);  // toward zero, as Calcite
      } else if (from.kind == RepKind::kDouble || v.kind == Value::Kind::kReal) {
        const double d = v.kind == Value::Kind::kReal ? v.d : static_cast<double>(v.i);
        if (std::isnan(d) || d >= 9.2233720368547758e18 || d < -9.2233720368547758e18) {
          return OutOfRange(v, from, to);
        }
        x = static_cast<int64_t>(d);  // toward zero
      } else {
        break;
      }
      if (x < IntegerLimit(to.type.name, false) || x > IntegerLimit(to.type.name, true)) {
        return OutOfRange(v, from, to);
      }
      return Value::Int(x);
    }
    case RepKind::kDecimal: {
      std::optional<int64_t> x;
      if (from.kind == RepKind::kInteger) {
        x = Rescale(v.i, 0, to.scale);
      } else if (from.kind == RepKind::kDecimal && as_int()) {
        x = Rescale(v.i, from.scale, to.scale);
      } else if (from.kind == RepKind::kDouble || v.kind == Value::Kind::kReal) {
        const double d = v.kind == Value::Kind::kReal ? v.d : static_cast<double>(v.i);
        if (!std::isfinite(d)) return OutOfRange(v, from, to);
        char buf[64];
        auto r = std::to_chars(buf, buf + sizeof buf, d);
        x = ParseDecimal(std::string_view(buf, static_cast<size_t>(r.ptr - buf)), to.scale);
      } else {
        break;
      }
      const int precision = to.type.precision.value_or(19);
      if (!x || (precision <= 18 && (*x >= Pow10(precision) || *x <= -Pow10(precision)))) {
        return OutOfRange(v, from, to);
      }
      return Value::Int(*x);
    }
    case RepKind::kDouble:
      if (from.kind == RepKind::kInteger) return Value::Real(static_cast<double>(v.i));
      if (from.kind == RepKind::kDecimal && as_int()) {
        return Value::Real(static_cast<double>(v.i) / static_cast<double>(Pow10(from.scale)));
      }
      if (from.kind == RepKind::kDouble) {
        return Value::Real(v.kind == Value::Kind::kReal ? v.d : static_cast<double>(v.i));
      }
      break;
    case RepKind::kBoolean:
      if (from.kind == RepKind::kBoolean) return v;
      break;
    case RepKind::kDate:
      if (from.kind == RepKind::kDate) return v;
      if (from.kind == RepKind::kTimestamp || from.kind == RepKind::kTimestampLtz) {
        return Value::Int(FloorDiv(v.i, kMicrosPerDay));
      }
      break;
    case RepKind::kTime:
      if (from.kind == RepKind::kTime)
        return Value::Int(TruncateMicros(v.i, TimePrecision(to.type)));
      if (from.kind == RepKind::kTimestamp || from.kind == RepKind::kTimestampLtz) {
        return Value::Int(TruncateMicros(FloorMod(v.i, kMicrosPerDay), TimePrecision(to.type)));
      }
      break;
    case RepKind::kTimestamp:
    case RepKind::kTimestampLtz:
      if (from.kind == RepKind::kDate) return Value::Int(v.i * kMicrosPerDay);
      if (from.kind == RepKind::kTimestamp || from.kind == RepKind::kTimestampLtz) {
        return Value::Int(TruncateMicros(v.i, TimePrecision(to.type)));
      }
      break;
    case RepKind::kMonths:
    case RepKind::kMicros:
      if (from.kind == to.kind) return v;
      break;
    case RepKind::kJson:
      if (from.kind == RepKind::kJson) return v;
      break;
    default: break;
  }
  return Status::InvalidArgument(
      fmt::format("Cannot cast {} to {}", RepTypeName(from), RepTypeName(to)));
}

namespace {

template <bool kTry>
void CastFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  const Rep* from = ArgRep(ctx, argv, 1);
  if (!from) return;
  const Rep* to = ArgRep(ctx, argv, 2);
  if (!to) return;
  auto r = CastValue(ArgValue(argv[0]), *from, *to);
  if (!r.ok()) {
    if (kTry) return sqlite3_result_null(ctx);
    std::string message = r.status().message();
    const std::string_view label = argc > 3 ? ArgText(argv[3]) : std::string_view();
    if (!label.empty() && label != "WHERE") message += fmt::format(" (column {})", label);
    return SetError(ctx, message);
  }
  SetResult(ctx, *r);
}

// A value written into a column, checked against the column's type (value.h, CheckFits).
void FitsFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  const Rep* from = ArgRep(ctx, argv, 1);
  if (!from) return;
  const Rep* to = ArgRep(ctx, argv, 2);
  if (!to) return;
  const Value v = ArgValue(argv[0]);
  if (Status fits = CheckFits(v, *from, *to, ArgText(argv[3])); !fits.ok()) {
    return SetError(ctx, fits.message());
  }
  SetResult(ctx, v);
}

// ---- LIKE ------------------------------------------------------------------------------------

// A LIKE pattern as an RE2 expression: `%` any run, `_` one character, the escape character
// making the next one literal.
Result<std::string> LikeToRegex(std::string_view pattern, std::string_view escape) {
  if (escape.size() > 1 && Utf8Count(escape) != 1) {
    return Status::InvalidArgument(fmt::format("Invalid escape character '{}'", escape));
  }
  std::string re = "(?s)";
  const auto points = CodePoints(pattern);
  for (size_t i = 0; i < points.size(); ++i) {
    std::string_view c = points[i];
    if (!escape.empty() && c == escape) {
      if (i + 1 >= points.size() ||
          (points[i + 1] != "%" && points[i + 1] != "_" && points[i + 1] != escape)) {
        return Status::InvalidArgument(fmt::format("Invalid escape sequence '{}'", pattern));
      }
      re += RE2::QuoteMeta(std::string(points[++i]));
    } else if (c == "%") {
      re += ".*";
    } else if (c == "_") {
      re += ".";
    } else {
      re += RE2::QuoteMeta(std::string(c));
    }
  }
  return re;
}

// A compiled expression kept for the statement when its pattern is a constant.
const RE2* Compiled(sqlite3_context* ctx, int arg, const std::string& re, bool case_insensitive,
                    std::string_view pattern) {
  if (auto* cached = static_cast<const RE2*>(sqlite3_get_auxdata(ctx, arg))) return cached;
  RE2::Options options;
  options.set_log_errors(false);
  options.set_case_sensitive(!case_insensitive);
  auto compiled = std::make_unique<RE2>(re, options);
  if (!compiled->ok()) {
    SetError(ctx, fmt::format("Invalid regular expression '{}': {}", pattern, compiled->error()));
    return nullptr;
  }
  RE2* raw = compiled.release();
  sqlite3_set_auxdata(ctx, arg, raw, [](void* p) { delete static_cast<RE2*>(p); });
  if (auto* kept = static_cast<const RE2*>(sqlite3_get_auxdata(ctx, arg))) return kept;
  // Not kept (the pattern varies by row): the caller owns a copy for this row.
  thread_local std::unique_ptr<RE2> row;
  row = std::make_unique<RE2>(re, options);
  return row.get();
}

void LikeFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const std::string_view pattern = ArgText(argv[1]);
  const std::string_view escape = argc > 2 ? ArgText(argv[2]) : std::string_view();
  const RE2* re = static_cast<const RE2*>(sqlite3_get_auxdata(ctx, 1));
  if (!re) {
    auto text = LikeToRegex(pattern, escape);
    if (!text.ok()) return SetError(ctx, text.status().message());
    re = Compiled(ctx, 1, *text, false, pattern);
    if (!re) return;
  }
  const std::string_view s = ArgText(argv[0]);
  sqlite3_result_int(ctx, RE2::FullMatch(re2::StringPiece(s.data(), s.size()), *re) ? 1 : 0);
}

// ---- strings ---------------------------------------------------------------------------------

void UpperFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  std::string upper = Utf8ToUpper(ArgText(argv[0]));
  // The letters whose capital is two letters, as Java's toUpperCase writes them.
  static const std::pair<std::string_view, std::string_view> kSpecial[] = {
      {"\u00df", "SS"},  {"\ufb00", "FF"},  {"\ufb01", "FI"}, {"\ufb02", "FL"},
      {"\ufb03", "FFI"}, {"\ufb04", "FFL"}, {"\ufb05", "ST"}, {"\ufb06", "ST"}};
  if (upper.find_first_of("\xc3\xef") != std::string::npos) {
    for (const auto& [from, to] : kSpecial) {
      for (size_t at = upper.find(from); at != std::string::npos; at = upper.find(from, at)) {
        upper.replace(at, from.size(), to);
        at += to.size();
      }
    }
  }
  SetText(ctx, upper);
}

void LowerFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  SetText(ctx, Utf8ToLower(ArgText(argv[0])));
}

bool WordChar(std::string_view c) {
  if (c.size() > 1) return true;  // letters of other scripts
  const unsigned char b = static_cast<unsigned char>(c[0]);
  return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9');
}

void InitcapFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  std::string out;
  bool start = true;
  for (std::string_view c : CodePoints(ArgText(argv[0]))) {
    const bool word = WordChar(c);
    out += word && start ? Utf8ToUpper(c) : Utf8ToLower(c);
    start = !word;
  }
  SetText(ctx, out);
}

void ReverseFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  auto points = CodePoints(ArgText(argv[0]));
  std::string out;
  for (auto it = points.rbegin(); it != points.rend(); ++it) out += *it;
  SetText(ctx, out);
}

void AsciiFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  sqlite3_result_int64(ctx, static_cast<int64_t>(DecodeFirst(ArgText(argv[0]))));
}

// The characters [begin, end) of `s` (1-based, clipped).
std::string Characters(std::string_view s, int64_t begin, int64_t end) {
  const int64_t n = Utf8Count(s);
  begin = std::max<int64_t>(begin, 1);
  end = std::min<int64_t>(end, n + 1);
  if (end <= begin) return "";
  const size_t b = Utf8Offset(s, begin - 1), e = Utf8Offset(s, end - 1);
  return std::string(s.substr(b, e - b));
}

void SubstringFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const std::string_view s = ArgText(argv[0]);
  const int64_t start = sqlite3_value_int64(argv[1]);
  int64_t end = std::numeric_limits<int64_t>::max();
  if (argc > 2) {
    const int64_t length = sqlite3_value_int64(argv[2]);
    if (length < 0) return SetError(ctx, "Substring error: negative substring length not allowed");
    end = start > std::numeric_limits<int64_t>::max() - length ? end : start + length;
  }
  SetText(ctx, Characters(s, start, end));
}

// OVERLAY(s PLACING r FROM start [FOR length]): the characters of s before `start`, then r, then
// those from `start + length` on (length defaults to r's), as PostgreSQL computes it: a start
// before 1 is an error, a negative length repeats characters.
void OverlayFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const std::string_view s = ArgText(argv[0]);
  const std::string_view r = ArgText(argv[1]);
  const int64_t start = sqlite3_value_int64(argv[2]);
  const int64_t length = argc > 3 ? sqlite3_value_int64(argv[3]) : Utf8Count(r);
  if (start < 1) return SetError(ctx, "Substring error: negative substring length not allowed");
  int64_t rest = 0;
  if (__builtin_add_overflow(start, length, &rest)) {
    return SetError(ctx, "Numeric overflow in OVERLAY's FROM + FOR");
  }
  std::string out = Characters(s, 1, start);
  out += r;
  out += Characters(s, rest, std::numeric_limits<int64_t>::max());
  SetText(ctx, out);
}

void SubstrFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const std::string_view s = ArgText(argv[0]);
  const int64_t n = Utf8Count(s);
  int64_t start = sqlite3_value_int64(argv[1]);
  if (start == 0) return SetText(ctx, "");
  if (start < 0) start = n + start + 1;
  if (start < 1) return SetText(ctx, "");
  int64_t end = n + 1;
  if (argc > 2) {
    const int64_t length = sqlite3_value_int64(argv[2]);
    if (length < 1) return SetText(ctx, "");
    end = std::min(end, start + length);
  }
  SetText(ctx, Characters(s, start, end));
}

void LeftFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const std::string_view s = ArgText(argv[0]);
  const int64_t k = sqlite3_value_int64(argv[1]);
  if (k <= 0) return SetText(ctx, "");
  SetText(ctx, s.substr(0, Utf8Offset(s, k)));
}

void RightFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const std::string_view s = ArgText(argv[0]);
  const int64_t k = sqlite3_value_int64(argv[1]);
  if (k <= 0) return SetText(ctx, "");
  const int64_t n = Utf8Count(s);
  SetText(ctx, s.substr(Utf8Offset(s, std::max<int64_t>(0, n - k))));
}

constexpr int64_t kMaxResultBytes = 100 * 1000 * 1000;

template <bool kLeft>
void PadFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const std::string_view s = ArgText(argv[0]);
  const int64_t n = sqlite3_value_int64(argv[1]);
  const std::string_view pad = argc > 2 ? ArgText(argv[2]) : std::string_view(" ");
  if (n < 0)
    return SetError(ctx, fmt::format("{}PAD needs a length of at least 0", kLeft ? "L" : "R"));
  if (n > kMaxResultBytes) return SetError(ctx, "the padded string is too long");
  const int64_t have = Utf8Count(s);
  if (have >= n || pad.empty()) return SetText(ctx, s.substr(0, Utf8Offset(s, n)));
  std::string fill;
  const auto points = CodePoints(pad);
  for (int64_t i = 0; i < n - have; ++i) fill += points[static_cast<size_t>(i) % points.size()];
  SetText(ctx, kLeft ? fill + std::string(s) : std::string(s) + fill);
}

void RepeatFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const std::string_view s = ArgText(argv[0]);
  const int64_t n = sqlite3_value_int64(argv[1]);
  if (n <= 0 || s.empty()) return SetText(ctx, "");
  if (static_cast<double>(n) * static_cast<double>(s.size()) > kMaxResultBytes) {
    return SetError(ctx, "REPEAT would make a string longer than 100 MB");
  }
  std::string out;
  out.reserve(s.size() * static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out += s;
  SetText(ctx, out);
}

void SpaceFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const int64_t n = sqlite3_value_int64(argv[0]);
  if (n > kMaxResultBytes) return SetError(ctx, "SPACE would make a string longer than 100 MB");
  SetText(ctx, std::string(static_cast<size_t>(std::max<int64_t>(0, n)), ' '));
}

void TranslateFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const auto from = CodePoints(ArgText(argv[1]));
  const auto to = CodePoints(ArgText(argv[2]));
  std::string out;
  for (std::string_view c : CodePoints(ArgText(argv[0]))) {
    auto it = std::find(from.begin(), from.end(), c);
    if (it == from.end()) {
      out += c;
    } else if (static_cast<size_t>(it - from.begin()) < to.size()) {
      out += to[static_cast<size_t>(it - from.begin())];
    }
  }
  SetText(ctx, out);
}

void ConcatWsFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  const std::string_view sep = ArgText(argv[0]);
  std::string out;
  bool first = true;
  for (int i = 1; i < argc; ++i) {
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) continue;
    if (!first) out += sep;
    first = false;
    out += ArgText(argv[i]);
  }
  SetText(ctx, out);
}

void LocateFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const std::string_view sub = ArgText(argv[0]), s = ArgText(argv[1]);
  const int64_t from = argc > 2 ? sqlite3_value_int64(argv[2]) : 1;
  if (from < 1) return sqlite3_result_int64(ctx, 0);
  const size_t start = Utf8Offset(s, from - 1);
  if (from - 1 > Utf8Count(s)) return sqlite3_result_int64(ctx, 0);
  const size_t at = s.find(sub, start);
  if (at == std::string_view::npos) return sqlite3_result_int64(ctx, 0);
  sqlite3_result_int64(ctx, Utf8Count(s.substr(0, at)) + 1);
}

void SplitIndexFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const std::string_view s = ArgText(argv[0]), d = ArgText(argv[1]);
  int64_t index = sqlite3_value_int64(argv[2]);
  if (index < 0 || d.empty()) return sqlite3_result_null(ctx);
  size_t begin = 0;
  for (;;) {
    size_t at = s.find(d, begin);
    if (index == 0)
      return SetText(ctx, s.substr(begin, at == std::string_view::npos ? at : at - begin));
    if (at == std::string_view::npos) return sqlite3_result_null(ctx);
    begin = at + d.size();
    --index;
  }
}

std::string JsonString(std::string_view s) {
  std::string out;
  AppendJsonString(s, out);
  return out;
}

void SplitFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const std::string_view s = ArgText(argv[0]), d = ArgText(argv[1]);
  std::string out = "[";
  auto add = [&](std::string_view part) {
    if (out.size() > 1) out += ',';
    out += JsonString(part);
  };
  if (d.empty()) {
    for (auto c : CodePoints(s)) add(c);
  } else if (!s.empty()) {
    size_t begin = 0;
    for (;;) {
      size_t at = s.find(d, begin);
      add(s.substr(begin, at == std::string_view::npos ? at : at - begin));
      if (at == std::string_view::npos) break;
      begin = at + d.size();
    }
  }
  SetText(ctx, out + "]");
}

// ---- regular expressions ---------------------------------------------------------------------

// MySQL-style match flags: c (case-sensitive, the default), i (insensitive), m (multi-line),
// n (`.` matches line ends).
Result<std::string> WithFlags(std::string_view pattern, std::string_view flags, bool* insensitive) {
  std::string prefix;
  bool dot_all = false, multi = false;
  *insensitive = false;
  for (char f : flags) {
    switch (f) {
      case 'c': *insensitive = false; break;
      case 'i': *insensitive = true; break;
      case 'm': multi = true; break;
      case 'n': dot_all = true; break;
      case 'u': break;
      default: return Status::InvalidArgument(fmt::format("Invalid match flag '{}'", f));
    }
  }
  if (dot_all || multi)
    prefix = std::string("(?") + (dot_all ? "s" : "") + (multi ? "m" : "") + ")";
  return prefix + std::string(pattern);
}

const RE2* Regex(sqlite3_context* ctx, sqlite3_value** argv, int pattern_arg,
                 std::string_view flags = {}) {
  if (auto* cached = static_cast<const RE2*>(sqlite3_get_auxdata(ctx, pattern_arg))) return cached;
  bool insensitive = false;
  const std::string_view pattern = ArgText(argv[pattern_arg]);
  auto re = WithFlags(pattern, flags, &insensitive);
  if (!re.ok()) {
    SetError(ctx, re.status().message());
    return nullptr;
  }
  return Compiled(ctx, pattern_arg, *re, insensitive, pattern);
}

// Java's Matcher.replaceAll replacement: `$n` a group, `\x` the character x.
Result<std::string> Replacement(std::string_view r, const std::vector<re2::StringPiece>& groups) {
  std::string out;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] == '\\' && i + 1 < r.size()) {
      out += r[++i];
    } else if (r[i] == '$') {
      size_t j = i + 1;
      int g = 0;
      bool any = false;
      while (j < r.size() && r[j] >= '0' && r[j] <= '9' &&
             g * 10 + (r[j] - '0') < static_cast<int>(groups.size())) {
        g = g * 10 + (r[j] - '0');
        ++j;
        any = true;
      }
      if (!any) return Status::InvalidArgument(fmt::format("Illegal group reference in '{}'", r));
      out.append(groups[static_cast<size_t>(g)].data(), groups[static_cast<size_t>(g)].size());
      i = j - 1;
    } else {
      out += r[i];
    }
  }
  return out;
}

void RegexpReplaceFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const RE2* re = Regex(ctx, argv, 1, argc > 5 ? ArgText(argv[5]) : std::string_view());
  if (!re) return;
  const std::string_view s = ArgText(argv[0]), r = ArgText(argv[2]);
  const int64_t position = argc > 3 ? sqlite3_value_int64(argv[3]) : 1;
  const int64_t occurrence = argc > 4 ? sqlite3_value_int64(argv[4]) : 0;
  if (position < 1) return SetError(ctx, "REGEXP_REPLACE position must be at least 1");
  if (occurrence < 0) return SetError(ctx, "REGEXP_REPLACE occurrence must be at least 0");
  const int groups = re->NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> match(static_cast<size_t>(groups));
  size_t at = Utf8Offset(s, position - 1);
  std::string out(s.substr(0, at));
  int64_t seen = 0;
  const re2::StringPiece text(s.data(), s.size());
  while (at <= s.size()) {
    if (!re->Match(text, at, s.size(), RE2::UNANCHORED, match.data(), groups)) break;
    const size_t begin = static_cast<size_t>(match[0].data() - s.data());
    const size_t end = begin + match[0].size();
    ++seen;
    out.append(s.substr(at, begin - at));
    if (occurrence == 0 || seen == occurrence) {
      auto rep = Replacement(r, match);
      if (!rep.ok()) return SetError(ctx, rep.status().message());
      out += *rep;
    } else {
      out.append(s.substr(begin, end - begin));
    }
    if (end == begin) {
      // An empty match: keep the next character and move past it.
      if (end >= s.size()) {
        at = s.size() + 1;
        break;
      }
      const size_t next = end + Utf8Offset(s.substr(end), 1);
      out.append(s.substr(end, next - end));
      at = next;
    } else {
      at = end;
    }
    if (occurrence != 0 && seen >= occurrence) break;
  }
  if (at <= s.size()) out.append(s.substr(at));
  SetText(ctx, out);
}

void RegexpExtractFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const RE2* re = Regex(ctx, argv, 1);
  if (!re) return;
  const std::string_view s = ArgText(argv[0]);
  const int groups = re->NumberOfCapturingGroups();
  const int64_t group = argc > 2 ? sqlite3_value_int64(argv[2]) : (groups > 0 ? 1 : 0);
  if (group < 0 || group > groups) {
    return SetError(ctx, fmt::format("REGEXP_EXTRACT: the pattern has no group {}", group));
  }
  std::vector<re2::StringPiece> match(static_cast<size_t>(groups + 1));
  if (!re->Match(re2::StringPiece(s.data(), s.size()), 0, s.size(), RE2::UNANCHORED, match.data(),
                 groups + 1)) {
    return sqlite3_result_null(ctx);
  }
  const auto& m = match[static_cast<size_t>(group)];
  if (m.data() == nullptr) return sqlite3_result_null(ctx);
  SetText(ctx, std::string_view(m.data(), m.size()));
}

void RegexpSubstrFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const RE2* re = Regex(ctx, argv, 1);
  if (!re) return;
  const std::string_view s = ArgText(argv[0]);
  const int64_t position = argc > 2 ? sqlite3_value_int64(argv[2]) : 1;
  const int64_t occurrence = argc > 3 ? sqlite3_value_int64(argv[3]) : 1;
  if (position < 1 || occurrence < 1) {
    return SetError(ctx, "REGEXP_SUBSTR position and occurrence must be at least 1");
  }
  size_t at = Utf8Offset(s, position - 1);
  re2::StringPiece m;
  for (int64_t k = 0; k < occurrence; ++k) {
    if (at > s.size() ||
        !re->Match(re2::StringPiece(s.data(), s.size()), at, s.size(), RE2::UNANCHORED, &m, 1)) {
      return sqlite3_result_null(ctx);
    }
    const size_t begin = static_cast<size_t>(m.data() - s.data());
    at = begin + std::max<size_t>(m.size(), 1);
  }
  SetText(ctx, std::string_view(m.data(), m.size()));
}

void RegexpContainsFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const RE2* re = Regex(ctx, argv, 1, argc > 2 ? ArgText(argv[2]) : std::string_view());
  if (!re) return;
  const std::string_view s = ArgText(argv[0]);
  sqlite3_result_int(ctx, RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *re) ? 1 : 0);
}

// `s ~ pattern` with PostgreSQL's regular expressions (pg_regex.h); argument 2 is 1 to ignore
// case (~*).
void PgRegexFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const RE2* re = static_cast<const RE2*>(sqlite3_get_auxdata(ctx, 1));
  if (!re) {
    const std::string_view pattern = ArgText(argv[1]);
    auto translated = PostgresRegexToRe2(pattern);
    if (!translated.ok()) return SetError(ctx, translated.status().message());
    re = Compiled(ctx, 1, *translated, sqlite3_value_int64(argv[2]) != 0, pattern);
    if (!re) return;
  }
  const std::string_view s = ArgText(argv[0]);
  sqlite3_result_int(ctx, RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *re) ? 1 : 0);
}

// ---- PostgreSQL's catalog ----------------------------------------------------------------------

// format_type(oid, typmod); NULL for a NULL OID, as PostgreSQL's.
void PgFormatTypeFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  const int64_t oid = sqlite3_value_int64(argv[0]);
  const int64_t mod = sqlite3_value_type(argv[1]) == SQLITE_NULL ? -1 : sqlite3_value_int64(argv[1]);
  if (oid < 0 || oid > UINT32_MAX) return SetText(ctx, "???");
  SetText(ctx, catalog::FormatPgType(static_cast<uint32_t>(oid),
                                     static_cast<int32_t>(std::clamp<int64_t>(mod, -1, INT32_MAX))));
}

// to_regtype(name): the OID of the type named, NULL when there is none.
void PgToRegtypeFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  auto oid = catalog::PgTypeOidByName(ArgText(argv[0]));
  if (!oid) return sqlite3_result_null(ctx);
  sqlite3_result_int64(ctx, *oid);
}

// The integers generate_series(start, stop, step) gives, as a JSON array; none when the step
// points away from stop, as in PostgreSQL. A series is bounded so that a query cannot ask for
// more memory than a catalog query needs.
constexpr int64_t kMaxSeriesLength = 1000 * 1000;

void PgSeriesFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const int64_t start = sqlite3_value_int64(argv[0]);
  const int64_t stop = sqlite3_value_int64(argv[1]);
  const int64_t step = sqlite3_value_int64(argv[2]);
  if (step == 0) return SetError(ctx, "generate_series: step size cannot equal zero");
  const __int128 span = static_cast<__int128>(stop) - start;
  const __int128 count = (span < 0) == (step < 0) || span == 0 ? span / step + 1 : 0;
  if (count > kMaxSeriesLength) {
    return SetError(ctx, fmt::format("generate_series: more than {} values", kMaxSeriesLength));
  }
  std::string out = "[";
  for (__int128 i = 0; i < count; ++i) {
    if (i > 0) out += ',';
    out += std::to_string(static_cast<int64_t>(start + i * step));
  }
  SetText(ctx, out + "]");
}

// ---- digests, base64, hex --------------------------------------------------------------------

void DigestFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const std::string_view name = ArgText(argv[0]);
  const char* data = static_cast<const char*>(sqlite3_value_type(argv[1]) == SQLITE_BLOB
                                                  ? sqlite3_value_blob(argv[1])
                                                  : static_cast<const void*>(
                                                        sqlite3_value_text(argv[1])));
  const std::string_view bytes(data, static_cast<size_t>(sqlite3_value_bytes(argv[1])));
  const std::string raw = name == "md5"    ? digest::Of<digest::Md5>(bytes)
                          : name == "sha1" ? digest::Of<digest::Sha1>(bytes)
                                           : digest::Of<digest::Sha256>(bytes);
  SetText(ctx, digest::Hex(raw));
}

void ToBase64Fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const char* data = static_cast<const char*>(sqlite3_value_type(argv[0]) == SQLITE_BLOB
                                                  ? sqlite3_value_blob(argv[0])
                                                  : static_cast<const void*>(
                                                        sqlite3_value_text(argv[0])));
  SetText(ctx, Base64Encode(std::string_view(
                   data, static_cast<size_t>(sqlite3_value_bytes(argv[0])))));
}

void FromBase64Fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  std::string in(ArgText(argv[0]));
  in.erase(std::remove_if(in.begin(), in.end(), [](char c) { return c == '\n' || c == '\r'; }),
           in.end());
  std::optional<std::string> out = Base64Decode(in);
  if (!out) return sqlite3_result_null(ctx);
  SetText(ctx, *out);
}

void HexFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  static constexpr char kDigits[] = "0123456789ABCDEF";
  if (sqlite3_value_type(argv[0]) == SQLITE_INTEGER) {
    return SetText(ctx, fmt::format("{:X}", static_cast<uint64_t>(sqlite3_value_int64(argv[0]))));
  }
  const auto* data = static_cast<const unsigned char*>(
      sqlite3_value_type(argv[0]) == SQLITE_BLOB
          ? sqlite3_value_blob(argv[0])
          : static_cast<const void*>(sqlite3_value_text(argv[0])));
  const int size = sqlite3_value_bytes(argv[0]);
  std::string out;
  for (int i = 0; i < size; ++i) {
    out += kDigits[data[i] >> 4];
    out += kDigits[data[i] & 15];
  }
  SetText(ctx, out);
}

void UnhexFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  Rep binary = RepOf(sql::DataType(TypeName::kVarbinary));
  auto v = ParseValue(ArgText(argv[0]), binary);
  if (!v.ok()) return SetError(ctx, v.status().message());
  SetResult(ctx, *v);
}

void BlobConcatFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  std::string out;
  for (int i = 0; i < argc; ++i) {
    const void* p = sqlite3_value_blob(argv[i]);
    out.append(static_cast<const char*>(p), static_cast<size_t>(sqlite3_value_bytes(argv[i])));
  }
  sqlite3_result_blob64(ctx, out.data(), out.size(), SQLITE_TRANSIENT);
}

}  // namespace
}  // namespace internal

Status RegisterFunctions(sqlite3* db, FunctionState* state) {
  using namespace internal;
  struct Entry {
    std::string_view name;
    int nargs;
    ScalarFn f;
    bool deterministic = true;
  };
  const Entry kEntries[] = {
      {fn::kIntAdd, 2, IntAdd},
      {fn::kIntSubtract, 2, IntSubtract},
      {fn::kIntMultiply, 2, IntMultiply},
      {fn::kIntDivide, 2, IntDivide},
      {fn::kIntModulo, 2, IntModulo},
      {fn::kRealDivide, 2, RealDivide},
      {fn::kRealModulo, 2, RealModulo},
      {fn::kDecimalDivide, 5, DecimalDivide},
      {fn::kDecimalMultiply, 3, DecimalMultiply},
      {fn::kRescale, 3, RescaleFn},
      {fn::kRound, 4, RoundFn<false>},
      {fn::kTruncate, 4, RoundFn<true>},
      {fn::kCeil, 2, CeilFloorDecimal<true>},
      {fn::kFloor, 2, CeilFloorDecimal<false>},
      {fn::kMath, 2, MathFn},
      {fn::kMath, 3, MathFn},
      {fn::kRand, 0, RandFn, false},
      {fn::kRand, 1, RandFn, false},
      {fn::kRandInteger, 1, RandIntegerFn, false},
      {fn::kRandInteger, 2, RandIntegerFn, false},
      {fn::kCast, 4, CastFn<false>},
      {fn::kTryCast, 3, CastFn<true>},
      {fn::kFits, 4, FitsFn},
      {fn::kLike, 2, LikeFn},
      {fn::kLike, 3, LikeFn},
      {fn::kUpper, 1, UpperFn},
      {fn::kLower, 1, LowerFn},
      {fn::kInitcap, 1, InitcapFn},
      {fn::kReverse, 1, ReverseFn},
      {fn::kAscii, 1, AsciiFn},
      {fn::kSubstring, 2, SubstringFn},
      {fn::kSubstring, 3, SubstringFn},
      {fn::kSubstr, 2, SubstrFn},
      {fn::kOverlay, 3, OverlayFn},
      {fn::kOverlay, 4, OverlayFn},
      {fn::kSubstr, 3, SubstrFn},
      {fn::kLeft, 2, LeftFn},
      {fn::kRight, 2, RightFn},
      {fn::kLpad, 2, PadFn<true>},
      {fn::kLpad, 3, PadFn<true>},
      {fn::kRpad, 2, PadFn<false>},
      {fn::kRpad, 3, PadFn<false>},
      {fn::kRepeat, 2, RepeatFn},
      {fn::kSpace, 1, SpaceFn},
      {fn::kTranslate, 3, TranslateFn},
      {fn::kConcatWs, -1, ConcatWsFn},
      {fn::kLocate, 2, LocateFn},
      {fn::kLocate, 3, LocateFn},
      {fn::kSplitIndex, 3, SplitIndexFn},
      {fn::kSplit, 2, SplitFn},
      {fn::kRegexpReplace, -1, RegexpReplaceFn},
      {fn::kRegexpExtract, 2, RegexpExtractFn},
      {fn::kRegexpExtract, 3, RegexpExtractFn},
      {fn::kRegexpSubstr, -1, RegexpSubstrFn},
      {fn::kRegexpContains, 2, RegexpContainsFn},
      {fn::kRegexpLike, 2, RegexpContainsFn},
      {fn::kRegexpLike, 3, RegexpContainsFn},
      {fn::kPgRegex, 3, PgRegexFn},
      {fn::kPgFormatType, 2, PgFormatTypeFn},
      {fn::kPgToRegtype, 1, PgToRegtypeFn},
      {fn::kPgSeries, 3, PgSeriesFn},
      {fn::kDigest, 2, DigestFn},
      {fn::kToBase64, 1, ToBase64Fn},
      {fn::kFromBase64, 1, FromBase64Fn},
      {fn::kHex, 2, HexFn},
      {fn::kUnhex, 1, UnhexFn},
      {fn::kBlobConcat, 2, BlobConcatFn},
  };
  for (const Entry& e : kEntries) {
    HOP_RETURN_IF_ERROR(AddScalar(db, e.name, e.nargs, e.f, nullptr, e.deterministic));
  }
  HOP_RETURN_IF_ERROR(RegisterTimeFunctions(db));
  HOP_RETURN_IF_ERROR(RegisterJsonFunctions(db));
  HOP_RETURN_IF_ERROR(RegisterAggregateFunctions(db, state));
  return Status::OK();
}

}  // namespace hop::engine
