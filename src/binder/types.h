// Type rules of the binder, on sql::DataType: families, nullability, the least restrictive type of
// several (CASE branches, UNION columns, VALUES rows), numeric promotion, assignability, and the
// text of a type in messages. They follow Calcite's rules where hop must agree with Hoptimator.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "sql/ast/data_type.h"

namespace hop::binder {

using sql::DataType;
using sql::TypeName;

inline bool IsNullable(const DataType& t) { return t.nullability != sql::Nullability::kNotNull; }
// `t` with its nullability set; nested types are untouched.
DataType WithNullable(DataType t, bool nullable);
DataType NotNull(TypeName name);
DataType Nullable(TypeName name);

bool IsCharacter(const DataType& t);  // CHAR, VARCHAR
bool IsBinary(const DataType& t);     // BINARY, VARBINARY, BYTES
bool IsExactNumeric(const DataType& t);
bool IsApproxNumeric(const DataType& t);
inline bool IsNumeric(const DataType& t) { return IsExactNumeric(t) || IsApproxNumeric(t); }
bool IsDatetime(const DataType& t);  // DATE, TIME, TIMESTAMP
inline bool IsBoolean(const DataType& t) { return t.name == TypeName::kBoolean; }
inline bool IsNull(const DataType& t) { return t.name == TypeName::kNull; }

// Whether `a` and `b` can be compared: the same family, numbers with numbers, or a string with a
// number, date or time (Calcite coerces the string).
bool Comparable(const DataType& a, const DataType& b);

// The type of `a + b`, `a * b`, ... for numeric operands (nullable if either is).
DataType NumericResult(const DataType& a, const DataType& b);
// The type of `a * b` (`divide` false) or `a / b`: NumericResult, except that when a DECIMAL
// meets an exact number the result's scale follows Calcite's rules (the scales' sum for a
// product; at least 6 digits for a quotient) within 19 digits.
DataType ProductResult(const DataType& a, const DataType& b, bool divide);

// The least restrictive type of `types` (all must be present): the widest number, VARCHAR for
// strings of different lengths, element-wise for ARRAY/MAP/ROW; nullable if any is. NULL types
// give way to the others. Nullopt when the families cannot meet.
std::optional<DataType> LeastRestrictive(std::span<const DataType> types);

// Whether a value of type `from` may be stored in a column of type `to` without an explicit CAST
// (Calcite's assignment rules: same family, or any number into any number, or NULL).
bool Assignable(const DataType& from, const DataType& to);

// Type text for messages, as Calcite prints it: `VARCHAR`, `CHAR(3)`, `DECIMAL(10, 2)`,
// `INTEGER NOT NULL`, `VARCHAR ARRAY`, `RecordType(VARCHAR A)`.
std::string TypeText(const DataType& t, bool with_nullability = false);

// The type of an integer literal: INTEGER, BIGINT, or DECIMAL(19+) for larger values.
DataType IntegerLiteralType(std::string_view digits);

}  // namespace hop::binder
