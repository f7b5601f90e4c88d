// The functions hop registers on the engine's SQLite connection, for what SQLite's own operators
// and functions compute differently from Calcite (docs/engine.md): integer division that fails on
// zero, case-sensitive LIKE, casts with Calcite's rules, decimal arithmetic, regular expressions
// (RE2), date and time arithmetic, JSON, collections, and a few aggregates. The lowering
// (lower.h) writes calls to them by these names; arguments that say which type a value has are
// type codes (value.h, TypeCode), constant in a query.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include "common/status.h"

struct sqlite3;

namespace hop::engine {

namespace fn {
// Arithmetic.
inline constexpr std::string_view kIntAdd = "HOP_IADD";               // (a, b) 64-bit, checked
inline constexpr std::string_view kIntSubtract = "HOP_ISUB";          // (a, b) 64-bit, checked
inline constexpr std::string_view kIntMultiply = "HOP_IMUL";          // (a, b) 64-bit, checked
inline constexpr std::string_view kIntDivide = "HOP_IDIV";            // (a, b) integers
inline constexpr std::string_view kIntModulo = "HOP_IMOD";            // (a, b) integers
inline constexpr std::string_view kRealDivide = "HOP_FDIV";           // (a, b) doubles
inline constexpr std::string_view kRealModulo = "HOP_FMOD";           // (a, b) doubles
inline constexpr std::string_view kDecimalDivide = "HOP_DDIV";        // (a, sa, b, sb, s)
inline constexpr std::string_view kDecimalMultiply = "HOP_DMUL";      // (a, b, drop): a*b/10^drop
inline constexpr std::string_view kRescale = "HOP_RESCALE";           // (x, from, to)
inline constexpr std::string_view kRound = "HOP_ROUND";               // (x, digits, code, to_scale)
inline constexpr std::string_view kTruncate = "HOP_TRUNCATE";         // (x, digits, code, to_scale)
inline constexpr std::string_view kCeil = "HOP_CEIL";                 // (x, scale) decimals
inline constexpr std::string_view kFloor = "HOP_FLOOR";               // (x, scale) decimals
inline constexpr std::string_view kMath = "HOP_MATH";                 // (name, x[, y]) doubles
inline constexpr std::string_view kRand = "HOP_RAND";                 // ([seed])
inline constexpr std::string_view kRandInteger = "HOP_RAND_INTEGER";  // ([seed,] n)
// Casts and comparison.
inline constexpr std::string_view kCast = "HOP_CAST";         // (x, from, to, label)
inline constexpr std::string_view kFits = "HOP_FITS";  // (x, from, to, column): x, or an error
inline constexpr std::string_view kTryCast = "HOP_TRY_CAST";  // (x, from, to)
inline constexpr std::string_view kLike = "HOP_LIKE";         // (s, pattern[, escape])
// Strings.
inline constexpr std::string_view kUpper = "HOP_UPPER";
inline constexpr std::string_view kLower = "HOP_LOWER";
inline constexpr std::string_view kInitcap = "HOP_INITCAP";
inline constexpr std::string_view kReverse = "HOP_REVERSE";
inline constexpr std::string_view kAscii = "HOP_ASCII";
inline constexpr std::string_view kSubstring = "HOP_SUBSTRING";  // (s, start[, length])
inline constexpr std::string_view kSubstr = "HOP_SUBSTR";        // MySQL's: negative counts back
inline constexpr std::string_view kOverlay = "HOP_OVERLAY";  // (s, replacement, start[, length])
inline constexpr std::string_view kLeft = "HOP_LEFT";
inline constexpr std::string_view kRight = "HOP_RIGHT";
inline constexpr std::string_view kLpad = "HOP_LPAD";
inline constexpr std::string_view kRpad = "HOP_RPAD";
inline constexpr std::string_view kRepeat = "HOP_REPEAT";
inline constexpr std::string_view kSpace = "HOP_SPACE";
inline constexpr std::string_view kTranslate = "HOP_TRANSLATE";
inline constexpr std::string_view kConcatWs = "HOP_CONCAT_WS";
inline constexpr std::string_view kLocate = "HOP_LOCATE";  // (sub, s[, from])
inline constexpr std::string_view kSplitIndex = "HOP_SPLIT_INDEX";
inline constexpr std::string_view kSplit = "HOP_SPLIT";
inline constexpr std::string_view kPgRegex = "HOP_PG_REGEX";  // (s, pattern, ignore_case)
inline constexpr std::string_view kPgFormatType = "HOP_PG_FORMAT_TYPE";  // (oid, typmod)
inline constexpr std::string_view kPgToRegtype = "HOP_PG_TO_REGTYPE";    // (name)
// generate_series(start, stop, step) in FROM: the integers as a JSON array, to unnest.
inline constexpr std::string_view kPgSeries = "HOP_PG_SERIES";
inline constexpr std::string_view kRegexpReplace = "HOP_REGEXP_REPLACE";
inline constexpr std::string_view kRegexpExtract = "HOP_REGEXP_EXTRACT";
inline constexpr std::string_view kRegexpSubstr = "HOP_REGEXP_SUBSTR";
inline constexpr std::string_view kRegexpContains = "HOP_REGEXP_CONTAINS";
inline constexpr std::string_view kRegexpLike = "HOP_REGEXP_LIKE";
inline constexpr std::string_view kDigest = "HOP_DIGEST";  // (name, x)
inline constexpr std::string_view kToBase64 = "HOP_TO_BASE64";
inline constexpr std::string_view kFromBase64 = "HOP_FROM_BASE64";
inline constexpr std::string_view kHex = "HOP_HEX";
inline constexpr std::string_view kBlobConcat = "HOP_BCONCAT";
// Dates and times.
inline constexpr std::string_view kExtract = "HOP_EXTRACT";               // (unit, x, code)
inline constexpr std::string_view kAddMonths = "HOP_ADD_MONTHS";          // (x, months, code)
inline constexpr std::string_view kAddTime = "HOP_ADD_TIME";              // (time, micros)
inline constexpr std::string_view kDateFormat = "HOP_DATE_FORMAT";        // (x, format, code)
inline constexpr std::string_view kParseDateTime = "HOP_PARSE_DATETIME";  // (s, format, code)
inline constexpr std::string_view kFromUnixtime = "HOP_FROM_UNIXTIME";    // (seconds[, format])
inline constexpr std::string_view kUnixTimestamp = "HOP_UNIX_TIMESTAMP";  // (s[, format])
// JSON and collections.
inline constexpr std::string_view kJsonValue = "HOP_JSON_VALUE";
inline constexpr std::string_view kJsonQuery = "HOP_JSON_QUERY";
inline constexpr std::string_view kJsonExists = "HOP_JSON_EXISTS";
inline constexpr std::string_view kJsonObject = "HOP_JSON_OBJECT";  // (codes, absent, k, v, ...)
inline constexpr std::string_view kJsonArray = "HOP_JSON_ARRAY";    // (codes, v, ...)
inline constexpr std::string_view kJsonString = "HOP_JSON_STRING";  // (x, code)
inline constexpr std::string_view kArray = "HOP_ARRAY";             // (element code, e, ...)
inline constexpr std::string_view kMap = "HOP_MAP";                 // (codes, k, v, ...)
inline constexpr std::string_view kRow = "HOP_ROW";                 // (codes, f, ...)
inline constexpr std::string_view kItem = "HOP_ITEM";               // (array, index, element code)
inline constexpr std::string_view kMapGet = "HOP_MAP_GET";  // (map, key, key code, value code)
inline constexpr std::string_view kField = "HOP_FIELD";     // (row, index, field code)
inline constexpr std::string_view kArrayConcat = "HOP_ARRAY_CONCAT";
inline constexpr std::string_view kArrayContains = "HOP_ARRAY_CONTAINS";  // (a, x, code)
inline constexpr std::string_view kArrayDistinct = "HOP_ARRAY_DISTINCT";
inline constexpr std::string_view kArrayJoin = "HOP_ARRAY_JOIN";  // (a, sep, null, code)
inline constexpr std::string_view kElement = "HOP_ELEMENT";       // (a, code)
inline constexpr std::string_view kMapKeys = "HOP_MAP_KEYS";
inline constexpr std::string_view kMapValues = "HOP_MAP_VALUES";
inline constexpr std::string_view kCardinality = "HOP_CARDINALITY";
inline constexpr std::string_view kUnhex = "HOP_UNHEX";
// Aggregates.
inline constexpr std::string_view kSingle = "HOP_SINGLE";  // a scalar subquery's one value
inline constexpr std::string_view kListaggDistinct = "HOP_LISTAGG_DISTINCT";  // (x, sep)
inline constexpr std::string_view kListaggOrdered = "HOP_LISTAGG_ORDERED";    // (x, sep, k, desc..)
inline constexpr std::string_view kArrayAgg = "HOP_ARRAY_AGG";  // (x, code, k, desc, ...)
inline constexpr std::string_view kVariance = "HOP_VARIANCE";   // (x, kind)
inline constexpr std::string_view kPercentileCont = "HOP_PERCENTILE_CONT";  // (f, x, desc)
inline constexpr std::string_view kPercentileDisc = "HOP_PERCENTILE_DISC";  // (f, x, desc)
inline constexpr std::string_view kFirst = "HOP_FIRST";
inline constexpr std::string_view kLast = "HOP_LAST";
}  // namespace fn

// What the functions of one connection share: the memory hop's own operators hold (aggregate
// states, the hash tables of hashed scans), counted so that a query over its budget stops.
struct FunctionState {
  std::atomic<int64_t> held_bytes{0};
};

// Registers every function above on `db`; `state` outlives the connection.
Status RegisterFunctions(sqlite3* db, FunctionState* state);

}  // namespace hop::engine
