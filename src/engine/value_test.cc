// Table-driven tests of the value encoding: text forms in, results' forms out, and type codes.
#include "engine/value.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sql/parser.h"

namespace hop::engine {
namespace {

Rep RepOfText(std::string_view type) { return RepOf(*sql::ParseDataType(type)); }

TEST(ValueTest, FormatsDoublesAsJava) {
  struct Case {
    double value;
    const char* text;
  };
  const Case kCases[] = {
      {1.0, "1.0"},
      {0.5, "0.5"},
      {100.25, "100.25"},
      {1e7, "1.0E7"},
      {9999999.0, "9999999.0"},
      {0.001, "0.001"},
      {0.0001, "1.0E-4"},
      {-2.5, "-2.5"},
      {1.2345e-10, "1.2345E-10"},
      {0.1 + 0.2, "0.30000000000000004"},
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {INFINITY, "Infinity"},
      {-INFINITY, "-Infinity"},
      {NAN, "NaN"},
      {123456789012.0, "1.23456789012E11"},
  };
  for (const Case& c : kCases) EXPECT_EQ(FormatDouble(c.value), c.text) << c.value;
  // A REAL is shown as the float it is, as Java casts a double beyond the float's range.
  EXPECT_EQ(FormatDouble(1e39, /*single=*/true), "Infinity");
  EXPECT_EQ(FormatDouble(-1e39, /*single=*/true), "-Infinity");
  EXPECT_EQ(FormatDouble(1e-50, /*single=*/true), "0.0");
  EXPECT_EQ(FormatDouble(1e38, /*single=*/true), "1.0E38");
  EXPECT_EQ(FormatDouble(0.1, /*single=*/true), "0.1");
}

TEST(ValueTest, ParsesDecimalsAtAScale) {
  struct Case {
    const char* text;
    int scale;
    std::optional<int64_t> unscaled;
  };
  const Case kCases[] = {
      {"1.5", 2, 150},
      {"1.555", 2, 156},
      {"-1.555", 2, -156},
      {"1.554", 2, 155},
      {" 12 ", 0, 12},
      {"1e2", 1, 1000},
      {"1.5E-1", 3, 150},
      {"0.004", 2, 0},
      {"0.005", 2, 1},
      {"abc", 2, std::nullopt},
      {"1.2.3", 0, std::nullopt},
      {"", 0, std::nullopt},
      {"1234567890123456789", 0, std::nullopt},
      {"-0", 0, 0},
  };
  for (const Case& c : kCases) EXPECT_EQ(ParseDecimal(c.text, c.scale), c.unscaled) << c.text;
  EXPECT_EQ(ParseDecimal("1.559", 2, /*truncate=*/true), 155);
}

TEST(ValueTest, RoundTripsTextForms) {
  struct Case {
    const char* type;
    const char* text;
    const char* shown;  // null: an error
  };
  const Case kCases[] = {
      {"BOOLEAN", "TRUE", "true"},
      {"BOOLEAN", " false ", "false"},
      {"BOOLEAN", "yes", nullptr},
      {"INTEGER", "42", "42"},
      {"INTEGER", "2147483648", nullptr},
      {"TINYINT", "-128", "-128"},
      {"TINYINT", "128", nullptr},
      {"BIGINT", "+7", "7"},
      {"DECIMAL(5, 2)", "1.5", "1.50"},
      {"DECIMAL(5, 2)", "-0.05", "-0.05"},
      {"DECIMAL(5, 2)", "1234.5", nullptr},
      {"DOUBLE", "1e3", "1000.0"},
      {"DOUBLE", "NaN", "NaN"},
      {"VARCHAR", "it's", "it's"},
      {"DATE", "2026-02-28", "2026-02-28"},
      {"DATE", "2026-02-29", nullptr},
      {"DATE", "2024-02-29", "2024-02-29"},
      {"DATE", "1969-12-31", "1969-12-31"},
      {"TIME", "12:34:56", "12:34:56"},
      {"TIME(3)", "12:34:56.789", "12:34:56.789"},
      {"TIMESTAMP", "2026-01-01 12:00:00", "2026-01-01 12:00:00"},
      {"TIMESTAMP(3)", "2026-01-01T12:00:00.5Z", "2026-01-01 12:00:00.500"},
      {"TIMESTAMP(6)", "1969-12-31 23:59:59.999999", "1969-12-31 23:59:59.999999"},
      {"TIMESTAMP", "2026-13-01 00:00:00", nullptr},
      {"VARBINARY", "0aff", "0aff"},
      {"VARBINARY", "0g", nullptr},
      {"VARCHAR ARRAY", "[\"a\",null]", "[a, null]"},
      {"INTEGER ARRAY", "[1,2", nullptr},
      {"MAP<VARCHAR, INTEGER>", "[[\"a\",1]]", "{a=1}"},
  };
  for (const Case& c : kCases) {
    const Rep rep = RepOfText(c.type);
    auto v = ParseValue(c.text, rep);
    if (c.shown == nullptr) {
      EXPECT_FALSE(v.ok()) << c.type << " " << c.text;
      continue;
    }
    ASSERT_TRUE(v.ok()) << c.type << " " << c.text << ": " << v.status().ToString();
    std::string out;
    FormatValue(*v, rep, out);
    EXPECT_EQ(out, c.shown) << c.type << " " << c.text;
  }
}

TEST(ValueTest, TypeCodesRoundTrip) {
  const char* kTypes[] = {"BOOLEAN",
                          "TINYINT",
                          "INTEGER",
                          "BIGINT",
                          "DECIMAL(10, 2)",
                          "DOUBLE",
                          "REAL",
                          "CHAR(3)",
                          "VARCHAR",
                          "VARCHAR(20)",
                          "VARBINARY",
                          "DATE",
                          "TIME(3)",
                          "TIMESTAMP(6)",
                          "VARCHAR ARRAY",
                          "MAP<VARCHAR, DECIMAL(5, 1)>",
                          "ROW(a INTEGER, b VARCHAR ARRAY)"};
  for (const char* type : kTypes) {
    const Rep rep = RepOfText(type);
    auto parsed = ParseTypeCode(TypeCode(rep));
    ASSERT_TRUE(parsed.ok()) << type << ": " << TypeCode(rep);
    EXPECT_EQ(TypeCode(*parsed), TypeCode(rep)) << type;
    EXPECT_TRUE(SameEncoding(*parsed, rep)) << type;
  }
  EXPECT_FALSE(ParseTypeCode("q").ok());
  EXPECT_FALSE(ParseTypeCode("a(v").ok());
}

TEST(ValueTest, CalendarArithmetic) {
  struct Case {
    const char* date;
    int64_t months;
    const char* result;
  };
  const Case kCases[] = {
      {"2026-01-31", 1, "2026-02-28"},   {"2024-01-31", 1, "2024-02-29"},
      {"2026-03-31", -1, "2026-02-28"},  {"2026-12-15", 1, "2027-01-15"},
      {"2026-01-15", -13, "2024-12-15"}, {"0001-01-01", 0, "0001-01-01"},
  };
  for (const Case& c : kCases) {
    std::string out;
    AppendDate(AddMonthsToDate(*ParseDate(c.date), c.months), out);
    EXPECT_EQ(out, c.result) << c.date << " + " << c.months;
  }
  EXPECT_EQ(FloorDiv(-1, kMicrosPerDay), -1);
  EXPECT_EQ(FloorMod(-1, kMicrosPerDay), kMicrosPerDay - 1);
  EXPECT_EQ(TruncateMicros(1234567, 3), 1234000);
}

}  // namespace
}  // namespace hop::engine
