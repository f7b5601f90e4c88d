#include "catalog/pg_types.h"

#include <gtest/gtest.h>


namespace hop::catalog {
namespace {

sql::DataType Type(sql::TypeName name, std::optional<int> precision = std::nullopt) {
  sql::DataType t(name);
  t.precision = precision;
  return t;
}

TEST(PgTypesTest, ScalarsMapToTheirPostgresNamesakes) {
  struct Case {
    sql::DataType type;
    uint32_t oid;
    std::string_view name;
    int16_t length;
    int32_t modifier;
  };
  sql::DataType tz = Type(sql::TypeName::kTimestamp);
  tz.time_zone = sql::TimeZone::kWithLocalTimeZone;
  sql::DataType dec = Type(sql::TypeName::kDecimal, 10);
  dec.scale = 2;
  const Case cases[] = {
      {Type(sql::TypeName::kBoolean), 16, "bool", 1, -1},
      {Type(sql::TypeName::kTinyInt), 21, "int2", 2, -1},
      {Type(sql::TypeName::kInteger), 23, "int4", 4, -1},
      {Type(sql::TypeName::kBigInt), 20, "int8", 8, -1},
      {Type(sql::TypeName::kDouble), 701, "float8", 8, -1},
      {dec, 1700, "numeric", -1, (10 << 16 | 2) + 4},
      {Type(sql::TypeName::kVarchar, 20), 1043, "varchar", -1, 24},
      {Type(sql::TypeName::kVarchar), 25, "text", -1, -1},
      {Type(sql::TypeName::kVarbinary), 17, "bytea", -1, -1},
      {Type(sql::TypeName::kTimestamp), 1114, "timestamp", 8, -1},
      {tz, 1184, "timestamptz", 8, -1},
      {Type(sql::TypeName::kMap), 114, "json", -1, -1},
      {Type(sql::TypeName::kNull), 705, "unknown", -2, -1},
  };
  for (const Case& c : cases) {
    const PgType t = PgTypeOf(c.type);
    EXPECT_EQ(t.oid, c.oid) << c.name;
    EXPECT_EQ(t.name, c.name);
    EXPECT_EQ(t.length, c.length) << c.name;
    EXPECT_EQ(t.modifier, c.modifier) << c.name;
    ASSERT_NE(PgTypeByOid(t.oid), nullptr) << c.name;
    EXPECT_EQ(PgTypeByOid(t.oid)->name, c.name);
  }
}

TEST(PgTypesTest, CollectionsOfScalarsAreArraysAndOthersJson) {
  sql::DataType ints(sql::TypeName::kArray);
  ints.params.push_back(Type(sql::TypeName::kBigInt));
  EXPECT_EQ(PgTypeOf(ints).oid, 1016u);
  EXPECT_EQ(PgTypeOf(ints).name, "_int8");
  sql::DataType names(sql::TypeName::kMultiset);
  names.params.push_back(Type(sql::TypeName::kVarchar, 5));
  EXPECT_EQ(PgTypeOf(names).oid, 1015u);
  EXPECT_EQ(PgTypeOf(names).modifier, 9);
  sql::DataType nested(sql::TypeName::kArray);
  nested.params.push_back(ints);
  EXPECT_EQ(PgTypeOf(nested).oid, 114u);
  EXPECT_EQ(PgTypeByOid(1016), nullptr);  // array OIDs are not scalars
  EXPECT_EQ(PgTypeByOid(12345), nullptr);
}

// What PostgreSQL 15's format_type(oid, typmod) answers.
TEST(PgTypesTest, FormatTypeAsPostgres) {
  struct Case {
    uint32_t oid;
    int32_t modifier;
    std::string_view text;
  };
  constexpr Case kCases[] = {
      {23, -1, "integer"},
      {1043, 24, "character varying(20)"},
      {1043, -1, "character varying"},
      {1042, 5, "character(1)"},
      {1042, -1, "bpchar"},
      {1700, (10 << 16 | 2) + 4, "numeric(10,2)"},
      {1700, -1, "numeric"},
      {1114, -1, "timestamp without time zone"},
      {1184, -1, "timestamp with time zone"},
      {701, -1, "double precision"},
      {1007, -1, "integer[]"},
      {1015, 24, "character varying(20)[]"},
      {3904, -1, "???"},
  };
  for (const Case& c : kCases) EXPECT_EQ(FormatPgType(c.oid, c.modifier), c.text) << c.oid;
}

// What PostgreSQL 15's 'name'::regtype answers (for the types here).
TEST(PgTypesTest, TypeOidByName) {
  struct Case {
    std::string_view name;
    std::optional<uint32_t> oid;
  };
  const Case cases[] = {
      {"int4", 23},          {"integer", 23},        {"INT", 23},
      {"pg_catalog.int4", 23}, {"character varying", 1043}, {"varchar", 1043},
      {"text[]", 1009},      {"_text", 1009},        {"timestamptz", 1184},
      {" bool ", 16},        {"int4range", std::nullopt}, {"unknown[]", std::nullopt},
      {"", std::nullopt},
  };
  for (const Case& c : cases) EXPECT_EQ(PgTypeOidByName(c.name), c.oid) << c.name;
}

}  // namespace
}  // namespace hop::catalog
