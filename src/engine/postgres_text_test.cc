#include "engine/postgres_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace hop::engine {
namespace {

sql::DataType T(sql::TypeName name, std::optional<int> precision = std::nullopt) {
  sql::DataType t(name);
  t.precision = precision;
  return t;
}

sql::DataType ArrayOf(sql::DataType element) {
  sql::DataType t(sql::TypeName::kArray);
  t.params.push_back(std::move(element));
  return t;
}

std::string Text(const Value& v, const sql::DataType& type) {
  std::string out;
  AppendPostgresText(v, RepOf(type), out);
  return out;
}

std::string Copy(const Value& v, const sql::DataType& type) {
  std::string out;
  AppendCopyField(v, RepOf(type), out);
  return out;
}

TEST(PostgresTextTest, ScalarsInPostgresForms) {
  sql::DataType dec = T(sql::TypeName::kDecimal, 5);
  dec.scale = 2;
  sql::DataType ltz = T(sql::TypeName::kTimestamp, 3);
  ltz.time_zone = sql::TimeZone::kWithLocalTimeZone;
  EXPECT_EQ(Text(Value::Int(1), T(sql::TypeName::kBoolean)), "t");
  EXPECT_EQ(Text(Value::Int(0), T(sql::TypeName::kBoolean)), "f");
  EXPECT_EQ(Text(Value::Int(-42), T(sql::TypeName::kBigInt)), "-42");
  EXPECT_EQ(Text(Value::Int(150), dec), "1.50");
  EXPECT_EQ(Text(Value::Int(-5), dec), "-0.05");
  EXPECT_EQ(Text(Value::Real(0.1), T(sql::TypeName::kDouble)), "0.1");
  EXPECT_EQ(Text(Value::Real(std::numeric_limits<double>::infinity()), T(sql::TypeName::kDouble)),
            "Infinity");
  EXPECT_EQ(Text(Value::Real(-std::numeric_limits<double>::infinity()), T(sql::TypeName::kReal)),
            "-Infinity");
  EXPECT_EQ(Text(Value::Real(std::nan("")), T(sql::TypeName::kDouble)), "NaN");
  // A REAL is written as the float it is: past the float's range it is infinite, not "i.nf".
  EXPECT_EQ(Text(Value::Real(1e39), T(sql::TypeName::kReal)), "Infinity");
  EXPECT_EQ(Text(Value::Real(-1e39), T(sql::TypeName::kReal)), "-Infinity");
  EXPECT_EQ(Text(Value::Real(1e-50), T(sql::TypeName::kReal)), "0");
  EXPECT_EQ(Text(Value::Real(1e39), T(sql::TypeName::kDouble)), "1e+39");
  EXPECT_EQ(Text(Value::Blob(std::string("\x00\xff", 2)), T(sql::TypeName::kBytes)), "\\x00ff");
  EXPECT_EQ(Text(Value::Int(20454), T(sql::TypeName::kDate)), "2026-01-01");
  EXPECT_EQ(Text(Value::Int(int64_t{20454} * kMicrosPerDay + 1500000), T(sql::TypeName::kTimestamp, 3)),
            "2026-01-01 00:00:01.5");
  EXPECT_EQ(Text(Value::Int(int64_t{20454} * kMicrosPerDay), ltz), "2026-01-01 00:00:00+00");
  EXPECT_EQ(Text(Value::Text("plain"), T(sql::TypeName::kVarchar)), "plain");
}

TEST(PostgresTextTest, ArraysQuoteWhatTheyMust) {
  EXPECT_EQ(Text(Value::Text("[1,2,null]"), ArrayOf(T(sql::TypeName::kInteger))), "{1,2,NULL}");
  EXPECT_EQ(Text(Value::Text(R"(["a","b c","x\"y","","null","{}"])"),
                 ArrayOf(T(sql::TypeName::kVarchar))),
            R"({a,"b c","x\"y","","null","{}"})");
  EXPECT_EQ(Text(Value::Text("[true,false]"), ArrayOf(T(sql::TypeName::kBoolean))), "{t,f}");
  EXPECT_EQ(Text(Value::Text("[20454]"), ArrayOf(T(sql::TypeName::kDate))), "{2026-01-01}");
  EXPECT_EQ(Text(Value::Text("[\"00ff\"]"), ArrayOf(T(sql::TypeName::kBytes))), R"({"\\x00ff"})");
  EXPECT_EQ(Text(Value::Text("[]"), ArrayOf(T(sql::TypeName::kInteger))), "{}");
}

TEST(PostgresTextTest, CopyFieldsEscapeTheirSeparators) {
  EXPECT_EQ(Copy(Value::Null(), T(sql::TypeName::kVarchar)), "\\N");
  EXPECT_EQ(Copy(Value::Text("a\tb\nc\rd\\e"), T(sql::TypeName::kVarchar)),
            "a\\tb\\nc\\rd\\\\e");
  EXPECT_EQ(Copy(Value::Text("\\N"), T(sql::TypeName::kVarchar)), "\\\\N");
  EXPECT_EQ(Copy(Value::Blob("\x01"), T(sql::TypeName::kBytes)), "\\\\x01");
}

}  // namespace
}  // namespace hop::engine
