#include "catalog/avro.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace hop::catalog {
namespace {

// A row type from (name, column type as written in a Table resource) pairs.
RowType Row(const std::vector<std::pair<std::string, std::string>>& columns) {
  RowType row;
  for (const auto& [name, text] : columns) {
    auto type = ParseColumnType(text);
    EXPECT_TRUE(type.ok()) << text << ": " << type.status().ToString();
    if (type.ok()) row.columns.push_back({name, std::move(*type)});
  }
  return row;
}

std::string Pretty(const RowType& row, const AvroName& name,
                   AvroTypeSpelling spelling = AvroTypeSpelling::kSql) {
  auto schema = AvroSchema(row, name.namespace_name, name.name, spelling);
  EXPECT_TRUE(schema.ok()) << schema.status().ToString();
  return schema.ok() ? PrettyAvro(*schema) : "";
}

TEST(AvroTest, NamesFollowTheTablePath) {
  struct Case {
    std::vector<std::string> path;
    const char* namespace_name;
    const char* name;
  };
  const Case kCases[] = {
      {{"ADS", "PAGE_VIEWS"}, "com.linkedin.ads", "page_views"},
      {{"ADS_CATALOG", "ADS", "PAGE_VIEWS"}, "com.linkedin.ads_catalog.ads", "page_views"},
      {{"PAGE_VIEWS"}, "com.linkedin.", "page_views"},
      {{"KAFKA", "Existing-Topic"}, "com.linkedin.kafka", "existing-topic"},
  };
  for (const auto& c : kCases) {
    AvroName got = AvroNameOfTable(c.path);
    EXPECT_EQ(got.namespace_name, c.namespace_name) << c.path.back();
    EXPECT_EQ(got.name, c.name) << c.path.back();
  }
}

TEST(AvroTest, PageViews) {
  const RowType row = Row({{"PAGE_URN", "VARCHAR"}, {"MEMBER_URN", "VARCHAR"}});
  const AvroName name = AvroNameOfTable({"ADS", "PAGE_VIEWS"});
  EXPECT_EQ(Pretty(row, name), R"js({
  "type" : "record",
  "name" : "page_views",
  "namespace" : "com.linkedin.ads.page_views",
  "doc" : "RecordType(VARCHAR PAGE_URN, VARCHAR MEMBER_URN)",
  "fields" : [ {
    "name" : "PAGE_URN",
    "type" : [ "null", "string" ],
    "doc" : "PAGE_URN VARCHAR",
    "default" : null
  }, {
    "name" : "MEMBER_URN",
    "type" : [ "null", "string" ],
    "doc" : "MEMBER_URN VARCHAR",
    "default" : null
  } ]
})js");
}

TEST(AvroTest, PageViewsAsAJavaObjectTable) {
  const RowType row = Row({{"PAGE_URN", "VARCHAR"}, {"MEMBER_URN", "VARCHAR"}});
  const AvroName name = AvroNameOfTable({"ADS", "PAGE_VIEWS"});
  EXPECT_EQ(Pretty(row, name, AvroTypeSpelling::kJava), R"js({
  "type" : "record",
  "name" : "page_views",
  "namespace" : "com.linkedin.ads.page_views",
  "doc" : "RecordType(JavaType(class java.lang.String) PAGE_URN, JavaType(class java.lang.String) MEMBER_URN)",
  "fields" : [ {
    "name" : "PAGE_URN",
    "type" : [ "null", "string" ],
    "doc" : "PAGE_URN JavaType(class java.lang.String)",
    "default" : null
  }, {
    "name" : "MEMBER_URN",
    "type" : [ "null", "string" ],
    "doc" : "MEMBER_URN JavaType(class java.lang.String)",
    "default" : null
  } ]
})js");
}

TEST(AvroTest, MixedTypes) {
  const RowType row = Row({
      {"ID", "BIGINT NOT NULL"},
      {"NAME", "VARCHAR(20)"},
      {"TAGS", "VARCHAR ARRAY"},
      {"SCORES", "MAP<VARCHAR, DOUBLE NOT NULL> NOT NULL"},
      {"ADDR", "ROW(CITY VARCHAR, ZIP INTEGER NOT NULL)"},
      {"POINTS", "ROW(X DOUBLE NOT NULL) ARRAY NOT NULL"},
      {"HASH", "BINARY(16) NOT NULL"},
      {"TS", "TIMESTAMP(6)"},
      {"1st-col", "BOOLEAN NOT NULL"},
  });
  const AvroName name = AvroNameOfTable({"ADS", "MIX"});
  EXPECT_EQ(Pretty(row, name), R"js({
  "type" : "record",
  "name" : "mix",
  "namespace" : "com.linkedin.ads.mix",
  "doc" : "RecordType(BIGINT ID, VARCHAR(20) NAME, VARCHAR ARRAY TAGS, (VARCHAR, DOUBLE) MAP SCORES, RecordType(VARCHAR CITY, INTEGER ZIP) ADDR, RecordType(DOUBLE X) ARRAY POINTS, BINARY(16) HASH, TIMESTAMP(6) TS, BOOLEAN 1st-col)",
  "fields" : [ {
    "name" : "ID",
    "type" : "long",
    "doc" : "ID BIGINT NOT NULL"
  }, {
    "name" : "NAME",
    "type" : [ "null", "string" ],
    "doc" : "NAME VARCHAR(20)",
    "default" : null
  }, {
    "name" : "TAGS",
    "type" : [ "null", {
      "type" : "array",
      "items" : [ "null", "string" ]
    } ],
    "doc" : "TAGS VARCHAR ARRAY",
    "default" : null
  }, {
    "name" : "SCORES",
    "type" : {
      "type" : "map",
      "values" : "double"
    },
    "doc" : "SCORES (VARCHAR, DOUBLE NOT NULL) MAP NOT NULL"
  }, {
    "name" : "ADDR",
    "type" : [ "null", {
      "type" : "record",
      "name" : "ADDR",
      "namespace" : "com.linkedin.ads.mix.ADDR",
      "doc" : "RecordType(VARCHAR CITY, INTEGER ZIP)",
      "fields" : [ {
        "name" : "CITY",
        "type" : [ "null", "string" ],
        "doc" : "CITY VARCHAR",
        "default" : null
      }, {
        "name" : "ZIP",
        "type" : "int",
        "doc" : "ZIP INTEGER NOT NULL"
      } ]
    } ],
    "doc" : "ADDR RecordType(VARCHAR CITY, INTEGER NOT NULL ZIP)",
    "default" : null
  }, {
    "name" : "POINTS",
    "type" : {
      "type" : "array",
      "items" : [ "null", {
        "type" : "record",
        "name" : "POINTSArrayElement",
        "namespace" : "com.linkedin.ads.mix.POINTS.POINTSArrayElement",
        "doc" : "RecordType(DOUBLE X)",
        "fields" : [ {
          "name" : "X",
          "type" : "double",
          "doc" : "X DOUBLE NOT NULL"
        } ]
      } ]
    },
    "doc" : "POINTS RecordType(DOUBLE NOT NULL X) ARRAY NOT NULL"
  }, {
    "name" : "HASH",
    "type" : {
      "type" : "fixed",
      "name" : "HASH",
      "namespace" : "com.linkedin.ads.mix.HASH",
      "doc" : "BINARY(16)",
      "size" : 16
    },
    "doc" : "HASH BINARY(16) NOT NULL"
  }, {
    "name" : "TS",
    "type" : [ "null", {
      "type" : "long",
      "logicalType" : "timestamp-micros"
    } ],
    "doc" : "TS TIMESTAMP(6)",
    "default" : null
  }, {
    "name" : "_1stcol",
    "type" : "boolean",
    "doc" : "1st-col BOOLEAN NOT NULL"
  } ]
})js");
}

// The Avro type of a single column `C` of each SQL type.
TEST(AvroTest, ScalarTypes) {
  struct Case {
    const char* sql;
    const char* avro;  // compact JSON of the field's "type"
    const char* doc;
  };
  const Case kCases[] = {
      {"BOOLEAN NOT NULL", R"("boolean")", "C BOOLEAN NOT NULL"},
      {"TINYINT NOT NULL", R"("int")", "C TINYINT NOT NULL"},
      {"SMALLINT NOT NULL", R"("int")", "C SMALLINT NOT NULL"},
      {"INTEGER", R"(["null","int"])", "C INTEGER"},
      {"BIGINT", R"(["null","long"])", "C BIGINT"},
      {"FLOAT NOT NULL", R"("float")", "C FLOAT NOT NULL"},
      {"DOUBLE NOT NULL", R"("double")", "C DOUBLE NOT NULL"},
      {"CHAR NOT NULL", R"("string")", "C CHAR(1) NOT NULL"},
      {"CHAR(3) NOT NULL", R"("string")", "C CHAR(3) NOT NULL"},
      {"VARCHAR NOT NULL", R"("string")", "C VARCHAR NOT NULL"},
      {"VARBINARY NOT NULL", R"("bytes")", "C VARBINARY NOT NULL"},
      {"BYTES", R"(["null","bytes"])", "C VARBINARY"},
      {"BINARY NOT NULL",
       R"js({"type":"fixed","name":"C","namespace":"ns.t.C","doc":"BINARY(1)","size":1})js",
       "C BINARY(1) NOT NULL"},
      {"VARBINARY(8)",
       R"js(["null",{"type":"fixed","name":"C","namespace":"ns.t.C","doc":"VARBINARY(8)","size":8}])js",
       "C VARBINARY(8)"},
      {"DATE NOT NULL", R"({"type":"int","logicalType":"date"})", "C DATE NOT NULL"},
      {"TIMESTAMP NOT NULL", R"({"type":"long","logicalType":"timestamp-millis"})",
       "C TIMESTAMP(0) NOT NULL"},
      {"TIMESTAMP(3) NOT NULL", R"({"type":"long","logicalType":"timestamp-millis"})",
       "C TIMESTAMP(3) NOT NULL"},
      {"TIMESTAMP(9) NOT NULL", R"({"type":"long","logicalType":"timestamp-micros"})",
       "C TIMESTAMP(9) NOT NULL"},
      {"MAP<INTEGER, VARCHAR> NOT NULL", R"({"type":"map","values":["null","string"]})",
       "C (INTEGER, VARCHAR) MAP NOT NULL"},
      {"ARRAY<INTEGER NOT NULL> NOT NULL", R"({"type":"array","items":"int"})",
       "C INTEGER NOT NULL ARRAY NOT NULL"},
      // hop's departures: types Hoptimator cannot convert, with their parameters.
      {"DECIMAL(10, 2)",
       R"(["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}])",
       "C DECIMAL(10, 2)"},
      {"DECIMAL(5) NOT NULL", R"({"type":"bytes","logicalType":"decimal","precision":5,"scale":0})",
       "C DECIMAL(5, 0) NOT NULL"},
      {"DECIMAL NOT NULL", R"({"type":"bytes","logicalType":"decimal","precision":19,"scale":0})",
       "C DECIMAL(19, 0) NOT NULL"},
      {"REAL NOT NULL", R"("float")", "C REAL NOT NULL"},
      {"TIME NOT NULL", R"({"type":"int","logicalType":"time-millis"})", "C TIME(0) NOT NULL"},
      {"TIME(6) NOT NULL", R"({"type":"long","logicalType":"time-micros"})", "C TIME(6) NOT NULL"},
      {"TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL",
       R"({"type":"long","logicalType":"timestamp-millis"})",
       "C TIMESTAMP_WITH_LOCAL_TIME_ZONE(3) NOT NULL"},
      {"ROW(A DECIMAL(4, 1) NOT NULL) NOT NULL",
       R"js({"type":"record","name":"C","namespace":"ns.t.C","doc":"RecordType(DECIMAL(4, 1) A)","fields":[{"name":"A","type":{"type":"bytes","logicalType":"decimal","precision":4,"scale":1},"doc":"A DECIMAL(4, 1) NOT NULL"}]})js",
       "C RecordType(DECIMAL(4, 1) NOT NULL A) NOT NULL"},
  };
  for (const auto& c : kCases) {
    const RowType row = Row({{"C", c.sql}});
    auto schema = AvroSchema(row, "ns", "t");
    ASSERT_TRUE(schema.ok()) << c.sql << ": " << schema.status().ToString();
    const Json& field = (*schema)["fields"][0];
    EXPECT_EQ(field["type"].dump(), c.avro) << c.sql;
    EXPECT_EQ(field["doc"], c.doc) << c.sql;
    EXPECT_EQ(field.contains("default"), c.avro[0] == '[') << c.sql;
  }
}

TEST(AvroTest, NullTypeIsANullUnion) {
  RowType row;
  row.columns.push_back({"N", sql::DataType(sql::TypeName::kNull)});
  auto schema = AvroSchema(row, "ns", "t");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  EXPECT_EQ((*schema)["fields"].dump(),
            R"([{"name":"N","type":["null"],"doc":"N NULL","default":null}])");
}

TEST(AvroTest, TypesAvroCannotHoldAreErrors) {
  struct Case {
    const char* sql;
    const char* want;
  };
  const Case kCases[] = {
      {"TIMESTAMP WITH TIME ZONE", "Invalid Argument: No support yet for TIMESTAMP_TZ"},
      {"TIME WITH TIME ZONE", "Invalid Argument: No support yet for TIME_TZ"},
      {"ROW(A TIMESTAMP WITH TIME ZONE) ARRAY",
       "Invalid Argument: No support yet for TIMESTAMP_TZ"},
  };
  for (const auto& c : kCases) {
    const RowType row = Row({{"OK", "VARCHAR"}, {"C", c.sql}});
    auto schema = AvroSchema(row, "ns", "t");
    ASSERT_FALSE(schema.ok()) << c.sql;
    EXPECT_EQ(schema.status().ToString(), c.want) << c.sql;
  }
}

TEST(AvroTest, PrettyPrintsAsJackson) {
  struct Case {
    const char* json;
    const char* want;
  };
  const Case kCases[] = {
      {R"("string")", R"("string")"},
      {R"({})", "{ }"},
      {R"([])", "[ ]"},
      {R"([[1, 2], [], {"a": true}])", "[ [ 1, 2 ], [ ], {\n  \"a\" : true\n} ]"},
      {R"({"a": {"b": null}, "c": [{"d": 1}, {"e": 2}]})",
       "{\n  \"a\" : {\n    \"b\" : null\n  },\n  \"c\" : [ {\n    \"d\" : 1\n  }, {\n"
       "    \"e\" : 2\n  } ]\n}"},
      {R"("q\"\\ \n\t\r\b\f\u0001\u001f/\u00e9")",
       "\"q\\\"\\\\ \\n\\t\\r\\b\\f\\u0001\\u001F/\xc3\xa9\""},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(PrettyAvro(Json::parse(c.json)), c.want) << c.json;
  }
}

}  // namespace
}  // namespace hop::catalog
