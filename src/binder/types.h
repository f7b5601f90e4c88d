// Type rules of the binder, on sql::DataType: families, nullability, the least restrictive type of
// several (CASE branches, UNION columns, VALUES rows), numeric promotion and assignability (a
// type's text in messages is sql::TypeString). They follow Calcite's rules where hop must agree
// with Hoptimator.
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

// The arithmetic operators, for NumericResult.
enum class Arithmetic { kAdd, kSubtract, kMultiply, kDivide, kModulo };

// The type of `a <op> b` for numeric operands (nullable if either is), by Calcite's rules: the
// wider number for integers and approximate numbers (`%` takes the type of `b`), and, when a
// DECIMAL is involved (an integer counting as DECIMAL(3|5|10|19, 0)), a precision and scale that
// hold the result: `+` and `-` DECIMAL(max(p1 - s1, p2 - s2) + max(s1, s2) + 1, max(s1, s2)),
// `*` DECIMAL(p1 + p2, s1 + s2), `/` DECIMAL(d + s, s) with d = p1 - s1 + s2 and
// s = max(6, s1 + p2 + 1), `%` DECIMAL(min(p1 - s1, p2 - s2) + max(s1, s2), max(s1, s2)); each
// at most 19 digits, the scale giving way to the integer digits.
DataType NumericResult(Arithmetic op, const DataType& a, const DataType& b);

// The type of `a || b` for two strings (or two binary strings): CHAR (BINARY) when both are,
// else VARCHAR (VARBINARY), whose length is the sum of the two when both have one (Calcite), and
// no length otherwise. Nullable if either is.
DataType ConcatResult(const DataType& a, const DataType& b);

// The type of SUM over `t`: `t` itself for integers and approximate numbers, DECIMAL(19, s) for
// DECIMAL(p, s) (Calcite gives a sum the most digits it has); always nullable (an empty group).
DataType SumResult(const DataType& t);

// The least restrictive type of `types` (all must be present): the widest number, VARCHAR for
// strings of different lengths, element-wise for ARRAY/MAP/ROW; nullable if any is. NULL types
// give way to the others. Nullopt when the families cannot meet.
std::optional<DataType> LeastRestrictive(std::span<const DataType> types);

// Whether a value of type `from` may be stored in a column of type `to` without an explicit CAST
// (Calcite's assignment rules: same family, or any number into any number, or NULL).
bool Assignable(const DataType& from, const DataType& to);

// The type of an integer literal (its digits, after a '-' when it is negative): INTEGER, BIGINT,
// or DECIMAL(19+) for larger values.
DataType IntegerLiteralType(std::string_view digits);

}  // namespace hop::binder
