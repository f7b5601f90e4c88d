// How the local engine holds values of Calcite's types in SQLite, and the conversions between
// that encoding, the text form of values (literals, adapters' rows) and what results show. The
// encoding is also the storage format of local tables (docs/engine.md, "Values").
//
//   BOOLEAN                 INTEGER 0 or 1
//   TINYINT ... BIGINT      INTEGER
//   DECIMAL(p, s)           INTEGER: the value times 10^s (so 1.50 in DECIMAL(5, 2) is 150)
//   REAL, FLOAT, DOUBLE     REAL
//   CHAR, VARCHAR           TEXT (UTF-8)
//   BINARY ... BYTES        BLOB
//   DATE                    INTEGER: days since 1970-01-01
//   TIME(p)                 INTEGER: microseconds since midnight
//   TIMESTAMP(p)            INTEGER: microseconds since 1970-01-01 00:00:00 (a local date-time)
//   TIMESTAMP WITH LOCAL    INTEGER: microseconds since the epoch, UTC
//     TIME ZONE
//   INTERVAL YEAR/MONTH     INTEGER: months
//   INTERVAL DAY...SECOND   INTEGER: microseconds
//   ARRAY, MAP, ROW         TEXT: JSON. An ARRAY is a JSON array of its elements, a MAP a JSON
//                           array of [key, value] pairs, a ROW a JSON array of its fields; each
//                           element as a JSON number (integers, decimals, dates, times, doubles),
//                           true/false (0/1 accepted), a string (text; binary as hex), null, or
//                           a nested JSON array.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "sql/ast/data_type.h"

namespace hop::engine {

enum class RepKind : uint8_t {
  kNull,
  kBoolean,
  kInteger,
  kDecimal,
  kDouble,
  kText,
  kBinary,
  kDate,
  kTime,
  kTimestamp,
  kTimestampLtz,
  kMonths,  // INTERVAL YEAR TO MONTH
  kMicros,  // INTERVAL DAY TO SECOND
  kJson,    // ARRAY, MAP, ROW
};

// The encoding of a value: its kind, the scale of a decimal, and the Calcite type it stands for
// (precision of times, element types of collections, the width of an integer type).
struct Rep {
  RepKind kind = RepKind::kNull;
  int scale = 0;  // kDecimal
  sql::DataType type;

  bool numeric() const {
    return kind == RepKind::kInteger || kind == RepKind::kDecimal || kind == RepKind::kDouble;
  }
  bool temporal() const {
    return kind == RepKind::kDate || kind == RepKind::kTime || kind == RepKind::kTimestamp ||
           kind == RepKind::kTimestampLtz;
  }
  bool interval() const { return kind == RepKind::kMonths || kind == RepKind::kMicros; }
};

// The encoding of a column of type `t` (an INTERVAL type: microseconds; see IntervalRep).
Rep RepOf(const sql::DataType& t);
Rep IntervalRep(bool months);
Rep DecimalRep(int precision, int scale);
// Same encoding (kind and scale), whatever the types' lengths and nullability.
bool SameEncoding(const Rep& a, const Rep& b);

// A value as SQLite holds it.
struct Value {
  enum class Kind : uint8_t { kNull, kInteger, kReal, kText, kBlob };
  Kind kind = Kind::kNull;
  int64_t i = 0;
  double d = 0;
  std::string s;  // kText and kBlob

  static Value Null() { return {}; }
  static Value Int(int64_t v) {
    Value x;
    x.kind = Kind::kInteger;
    x.i = v;
    return x;
  }
  static Value Real(double v) {
    Value x;
    x.kind = Kind::kReal;
    x.d = v;
    return x;
  }
  static Value Text(std::string v) {
    Value x;
    x.kind = Kind::kText;
    x.s = std::move(v);
    return x;
  }
  static Value Blob(std::string v) {
    Value x;
    x.kind = Kind::kBlob;
    x.s = std::move(v);
    return x;
  }
};

// A value in its text form (a literal's text; what an adapter gives: `true`, `1.50`,
// `2026-01-01 12:00:00`, hex digits for binary, JSON for collections) in the encoding of `rep`.
// Surrounding spaces are ignored for numbers, booleans and date-times, as Calcite's casts do.
// Errors (InvalidArgument) say what the text is not: `'abc' is not a valid INTEGER`.
Result<Value> ParseValue(std::string_view text, const Rep& rep);

// Appends the value as results show it (Calcite's form): `true`, `1.50`, `1.0E10`,
// `2026-01-01 12:00:00.000`, `[a, b]`, `{a=1}`. `v` is not NULL; a value whose storage class does
// not fit `rep` is shown as SQLite holds it.
void FormatValue(const Value& v, const Rep& rep, std::string& out);
// A CHAR(n) value is held without the spaces that pad it, as PostgreSQL's bpchar compares and
// converts to text (docs/engine.md, "Strings and LIKE"), and shown padded to n characters:
// appends the spaces the text `out` holds from byte `from` on lacks. Other types: nothing.
void PadChar(const Rep& rep, std::string& out, size_t from);
// The same for an element of a collection as it appears in the JSON encoding (`json` is one JSON
// value's text).
void FormatJson(std::string_view json, const Rep& rep, std::string& out);

// ---- numbers ----

// 10^n for 0 <= n <= 18.
int64_t Pow10(int n);
// `unscaled` / 10^scale in decimal notation: 150, 2 -> "1.50".
void AppendDecimal(int64_t unscaled, int scale, std::string& out);
// A decimal number's text (digits, point, exponent) as an unscaled integer at `scale`, rounded
// half away from zero (or truncated toward zero). Nullopt when it is not a number or does not
// fit 18 digits.
std::optional<int64_t> ParseDecimal(std::string_view text, int scale, bool truncate = false);
// `value` scaled from `from` to `to` digits after the point, rounding half away from zero.
// Nullopt on overflow.
std::optional<int64_t> Rescale(int64_t value, int from, int to);
// A double as Java prints it (Double.toString): `1.0`, `0.001`, `1.0E7`, `1.5E-4`, `NaN`,
// `Infinity`. `single`: as a float (Float.toString).
std::string FormatDouble(double d, bool single = false);

// ---- dates and times ----

inline constexpr int64_t kMicrosPerSecond = 1000000;
inline constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);
void CivilFromDays(int64_t days, int64_t* y, unsigned* m, unsigned* d);
// `YYYY-MM-DD`.
std::optional<int64_t> ParseDate(std::string_view text);
// `HH:MM[:SS[.fraction]]`, as microseconds since midnight.
std::optional<int64_t> ParseTime(std::string_view text);
// `YYYY-MM-DD[( |T)HH:MM[:SS[.fraction]]][Z]`, as microseconds since the epoch.
std::optional<int64_t> ParseTimestamp(std::string_view text);
void AppendDate(int64_t days, std::string& out);
// `precision` digits of the fraction (0-6).
void AppendTime(int64_t micros, int precision, std::string& out);
void AppendTimestamp(int64_t micros, int precision, std::string& out);
// Floor division and modulo, for negative times.
inline int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}
inline int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }
// The fractional digits a TIME or TIMESTAMP of type `t` shows (0 when unset, at most 6).
int TimePrecision(const sql::DataType& t);
// Truncates microseconds to `precision` fractional digits.
int64_t TruncateMicros(int64_t micros, int precision);
// Adds months to a date (days), keeping the day of month or the month's last day.
int64_t AddMonthsToDate(int64_t days, int64_t months);

// ---- type codes ----

// A compact text naming a Rep, passed to the functions hop registers on the connection so they
// know their arguments' types: `i4`, `d10.2`, `v`, `c5`, `T3`, `a(v)`, `m(v,i4)`, `w(i4,v)`.
std::string TypeCode(const Rep& rep);
Result<Rep> ParseTypeCode(std::string_view code);

// The name of a Rep's type for messages: `INTEGER`, `DECIMAL(10, 2)`, `VARCHAR ARRAY`.
std::string RepTypeName(const Rep& rep);

// Whether `v` (encoded as `from`) fits a column of type `to` that hop writes (INSERT, a
// refresh's rows), as PostgreSQL's types hold them (docs/engine.md, "Casts"): a REAL holds a
// float's range, so a finite value beyond it overflows and a nonzero one that rounds to zero
// underflows (the engine holds REAL as a double, and would show such a value as Infinity or 0);
// TINYINT, SMALLINT and INTEGER their ranges. Other types: OK. The error (InvalidArgument) names
// the value, the type and `column`.
Status CheckFits(const Value& v, const Rep& from, const Rep& to, std::string_view column);

}  // namespace hop::engine
