// SQL data types as written in DDL and CAST: scalar types with their length, precision and time
// zone, and the nested ARRAY, MAP and ROW types. Aliases (INT, STRING, BYTEA, ...) are resolved
// by the parser to one canonical name each. Collections are written `T ARRAY` / `ARRAY<T>`,
// `T MULTISET` / `MULTISET<T>`, `MAP<K, V>`.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sql/ast/identifier.h"

namespace hop::sql {

enum class TypeName : uint8_t {
  kBoolean,
  kTinyInt,
  kSmallInt,
  kInteger,
  kBigInt,
  kFloat,
  kReal,
  kDouble,
  kDecimal,
  kChar,
  kVarchar,
  kBinary,
  kVarbinary,
  kBytes,
  kDate,
  kTime,
  kTimestamp,
  kArray,
  kMap,
  kRow,
  kMultiset,  // an unordered collection with repeats (COLLECT's), one element type like ARRAY
  // Types the binder derives but SQL never spells: a bare NULL, and an INTERVAL value.
  kNull,
  kInterval,
};

enum class Nullability : uint8_t { kUnspecified, kNotNull, kNull };
enum class TimeZone : uint8_t { kNone, kWithTimeZone, kWithLocalTimeZone };

struct RowField;

struct DataType {
  TypeName name = TypeName::kVarchar;
  std::optional<int> precision;  // length of CHAR/VARCHAR/BINARY/VARBINARY, precision otherwise
  std::optional<int> scale;      // DECIMAL only
  TimeZone time_zone = TimeZone::kNone;  // TIME and TIMESTAMP
  Nullability nullability = Nullability::kUnspecified;
  std::vector<DataType> params;  // ARRAY, MULTISET: element; MAP: key, value
  std::vector<RowField> fields;  // ROW

  // Special members are defined in ast.cc, where RowField is complete.
  DataType();
  explicit DataType(TypeName n);
  ~DataType();
  DataType(const DataType&);
  DataType(DataType&&) noexcept;
  DataType& operator=(const DataType&);
  DataType& operator=(DataType&&) noexcept;

  friend bool operator==(const DataType& a, const DataType& b);
};

struct RowField {
  Identifier name;
  DataType type;
  friend bool operator==(const RowField& a, const RowField& b) {
    return a.name == b.name && a.type == b.type;
  }
};

inline bool operator==(const DataType& a, const DataType& b) {
  return a.name == b.name && a.precision == b.precision && a.scale == b.scale &&
         a.time_zone == b.time_zone && a.nullability == b.nullability && a.params == b.params &&
         a.fields == b.fields;
}

}  // namespace hop::sql
