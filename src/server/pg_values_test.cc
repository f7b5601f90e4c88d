#include "server/pg_values.h"

#include "engine/postgres_text.h"

#include <gtest/gtest.h>

namespace hop::server {
namespace {

using engine::Rep;
using engine::RepOf;
using engine::Value;
using sql::DataType;
using sql::TypeName;

TEST(PgValuesTest, TextFormsArePostgresqls) {
  DataType ts(TypeName::kTimestamp);
  ts.precision = 6;
  DataType arr(TypeName::kArray);
  arr.params.push_back(DataType(TypeName::kVarchar));
  struct Case {
    Value v;
    DataType type;
    std::string want;
  } kCases[] = {
      {Value::Int(1), DataType(TypeName::kBoolean), "t"},
      {Value::Int(0), DataType(TypeName::kBoolean), "f"},
      {Value::Int(-5), DataType(TypeName::kInteger), "-5"},
      {Value::Real(1.5), DataType(TypeName::kDouble), "1.5"},
      {Value::Real(1e20), DataType(TypeName::kDouble), "1e+20"},
      {Value::Real(100), DataType(TypeName::kDouble), "100"},
      {Value::Real(0.0001), DataType(TypeName::kDouble), "0.0001"},
      {Value::Real(0.00001), DataType(TypeName::kDouble), "1e-05"},
      {Value::Blob(std::string("\x01\xff", 2)), DataType(TypeName::kVarbinary), "\\x01ff"},
      {Value::Int(0), DataType(TypeName::kDate), "1970-01-01"},
      {Value::Int(1500000), ts, "1970-01-01 00:00:01.5"},
      {Value::Int(86400000000), ts, "1970-01-02 00:00:00"},
      {Value::Text("[\"a\",\"b c\",null]"), arr, "{a,\"b c\",NULL}"},
  };
  for (const Case& c : kCases) {
    std::string out;
    engine::AppendPostgresText(c.v, RepOf(c.type), out);
    EXPECT_EQ(out, c.want) << c.want;
  }
}

TEST(PgValuesTest, BinaryFormsOfTheCommonTypes) {
  std::string out;
  ASSERT_TRUE(AppendPgBinary(Value::Int(258), RepOf(DataType(TypeName::kInteger)), 23, out).ok());
  EXPECT_EQ(out, std::string("\0\0\x01\x02", 4));
  out.clear();
  ASSERT_TRUE(AppendPgBinary(Value::Int(10957), RepOf(DataType(TypeName::kDate)), 1082, out).ok());
  EXPECT_EQ(out, std::string("\0\0\0\0", 4));  // 2000-01-01 is day 0
  out.clear();
  auto st = AppendPgBinary(Value::Int(1), RepOf(DataType(TypeName::kDecimal)), 1700, out);
  EXPECT_EQ(st.message(), "hop does not send numeric values in binary format; ask for text format");
}

TEST(PgValuesTest, ParametersBecomeQuotedOrValidatedLiterals) {
  auto sub = [](std::string_view q, std::vector<BoundParameter> p) {
    auto r = SubstituteParameters(q, p);
    return r.ok() ? *r : r.status().ToString();
  };
  EXPECT_EQ(sub("SELECT $1, $2", {{23, 0, "42"}, {0, 0, "it's"}}), "SELECT  42 ,  'it''s' ");
  EXPECT_EQ(sub("SELECT $1", {{23, 1, std::string("\0\0\0\x07", 4)}}), "SELECT  7 ");
  EXPECT_EQ(sub("SELECT $1", {{16, 0, "t"}}), "SELECT  TRUE ");
  EXPECT_EQ(sub("SELECT $1", {{23, 0, std::nullopt}}), "SELECT  CAST(NULL AS INTEGER) ");
  EXPECT_EQ(sub("SELECT $1", {{17, 1, "ab"}}), "SELECT  X'6162' ");
  EXPECT_EQ(sub("SELECT $1", {{1082, 0, "2026-01-02"}}), "SELECT  DATE '2026-01-02' ");
  // A $1 inside a string or a comment is not a parameter.
  EXPECT_EQ(sub("SELECT '$1' -- $1\n, $1", {{25, 0, "x"}}), "SELECT '$1' -- $1\n,  'x' ");
  // Nothing a client sends is pasted as SQL.
  EXPECT_EQ(sub("SELECT $1", {{23, 0, "1; DROP VIEW v"}}),
            "Invalid Argument: parameter $1 is not a valid int4: '1; DROP VIEW v'");
  EXPECT_EQ(sub("SELECT $1 - $1", {{20, 0, "-1"}}), "SELECT  -1  -  -1 ");
  EXPECT_EQ(sub("SELECT $2", {{23, 0, "1"}}),
            "Invalid Argument: there is no parameter $2: the statement was bound with 1");
  EXPECT_EQ(*CountParameters("SELECT $1, $3, '$4'"), 3);
}

// A parameter computes as its declared type, whatever its spelling or format.
TEST(PgValuesTest, ParametersKeepTheirDeclaredTypes) {
  auto sub = [](std::vector<BoundParameter> p) {
    auto r = SubstituteParameters("SELECT $1", p);
    return r.ok() ? *r : r.status().ToString();
  };
  EXPECT_EQ(sub({{701, 0, "2"}}), "SELECT  CAST('2' AS DOUBLE) ");
  EXPECT_EQ(sub({{701, 0, " -inf "}}), "SELECT  CAST('-Infinity' AS DOUBLE) ");
  EXPECT_EQ(sub({{701, 0, "nan"}}), "SELECT  CAST('NaN' AS DOUBLE) ");
  EXPECT_EQ(sub({{700, 1, std::string("\x40\xe0\0\0", 4)}}), "SELECT  CAST('7' AS REAL) ");
  EXPECT_EQ(sub({{701, 1, std::string("\x40\0\0\0\0\0\0\0", 8)}}), "SELECT  CAST('2' AS DOUBLE) ");
  // A numeric is exact: a whole number a DECIMAL, an exponent applied.
  EXPECT_EQ(sub({{1700, 0, "7"}}), "SELECT  CAST(7 AS DECIMAL(1, 0)) ");
  EXPECT_EQ(sub({{1700, 0, "1.5e2"}}), "SELECT  CAST(150 AS DECIMAL(3, 0)) ");
  EXPECT_EQ(sub({{1700, 0, "-12.50"}}), "SELECT  -12.50 ");
  EXPECT_EQ(sub({{1700, 0, "1e-3"}}), "SELECT  0.001 ");
  EXPECT_EQ(sub({{1700, 0, "007.5"}}), "SELECT  7.5 ");
  EXPECT_EQ(sub({{1700, 0, "1e999"}}),
            "Invalid Argument: parameter $1 is not a valid numeric: '1e999'");
  EXPECT_EQ(sub({{1700, 0, "Infinity"}}),
            "Invalid Argument: parameter $1 is not a valid numeric: 'Infinity'");
  // Integers in their type's range.
  EXPECT_EQ(sub({{23, 0, "99999999999"}}),
            "Invalid Argument: parameter $1 is not a valid int4: '99999999999'");
  EXPECT_EQ(sub({{21, 0, "70000"}}), "Invalid Argument: parameter $1 is not a valid int2: '70000'");
  EXPECT_EQ(sub({{21, 0, "-32768"}}), "SELECT  -32768 ");
  // A timestamptz's UTC offset gives the instant, in UTC; a timestamp's is ignored, as
  // PostgreSQL ignores it.
  EXPECT_EQ(sub({{1184, 0, "2026-01-02 10:00:00+02"}}), "SELECT  TIMESTAMP '2026-01-02 08:00:00' ");
  EXPECT_EQ(sub({{1184, 0, "2026-01-02 01:00:00.5-05:30"}}),
            "SELECT  TIMESTAMP '2026-01-02 06:30:00.5' ");
  EXPECT_EQ(sub({{1184, 0, "2026-01-02T10:00:00Z"}}), "SELECT  TIMESTAMP '2026-01-02T10:00:00' ");
  EXPECT_EQ(sub({{1184, 0, "2026-01-02 10:00:00"}}), "SELECT  TIMESTAMP '2026-01-02 10:00:00' ");
  EXPECT_EQ(sub({{1114, 0, "2026-01-02 10:00:00+02"}}), "SELECT  TIMESTAMP '2026-01-02 10:00:00' ");
  EXPECT_EQ(sub({{1184, 0, "2026-01-02 10:00:00+2x"}}),
            "Invalid Argument: parameter $1 is not a valid timestamptz: '2026-01-02 10:00:00+2x'");
  EXPECT_EQ(sub({{20, 0, "99999999999999999999"}}),
            "Invalid Argument: parameter $1 is not a valid int8: '99999999999999999999'");
  // Binary forms hop reads; others are refused, never pasted as bytes.
  EXPECT_EQ(
      sub({{2950, 1,
            std::string("\x12\x34\x56\x78\x12\x34\x56\x78\x12\x34\x56\x78\x12\x34\x56\x78", 16)}}),
      "SELECT  '12345678-1234-5678-1234-567812345678' ");
  EXPECT_EQ(sub({{1083, 1, std::string(8, '\0')}}),
            "Invalid Argument: parameter $1: hop does not read time parameters in binary format; "
            "send it as text");
  EXPECT_EQ(sub({{25, 1, "plain"}}), "SELECT  'plain' ");
}

}  // namespace
}  // namespace hop::server
