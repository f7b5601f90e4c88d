#include "template/value.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

namespace hop::tmpl {
namespace {

TEST(ValueTest, QuotesScalarsOnlyWhenYamlWouldMisreadThem) {
  struct Case {
    const char* in;
    const char* out;
  };
  const Case kCases[] = {
      {"hello", "hello"},
      {"hello world", "hello world"},
      {"ads-database.page_views", "ads-database.page_views"},
      {"/opt/x.jar", "/opt/x.jar"},
      {"KEY_", "KEY_"},
      {"caf\xc3\xa9", "caf\xc3\xa9"},
      {"", "''"},
      {"a:b", "'a:b'"},
      {"a: b", "'a: b'"},
      {"a,b", "'a,b'"},
      {"{x}", "'{x}'"},
      {"[1]", "'[1]'"},
      {"a #b", "'a #b'"},
      {"it's", "'it''s'"},
      {"say \"hi\"", "'say \"hi\"'"},
      {" x", "' x'"},
      {"x ", "'x '"},
      {"-x", "'-x'"},
      {"?x", "'?x'"},
      {"&anchor", "'&anchor'"},
      {"*alias", "'*alias'"},
      {"!tag", "'!tag'"},
      {"|", "'|'"},
      {">", "'>'"},
      {"%x", "'%x'"},
      {"@x", "'@x'"},
      {"`x", "'`x'"},
      {"42", "'42'"},
      {"1.5", "'1.5'"},
      {"0x1F", "'0x1F'"},
      {"1e3", "'1e3'"},
      {"+1", "'+1'"},
      {".5", "'.5'"},
      {".inf", "'.inf'"},
      {".NaN", "'.NaN'"},
      {"2024-01-31", "'2024-01-31'"},
      {"true", "'true'"},
      {"False", "'False'"},
      {"yes", "'yes'"},
      {"OFF", "'OFF'"},
      {"y", "'y'"},
      {"null", "'null'"},
      {"~", "'~'"},
      {"<<", "'<<'"},
      {"a\nb", "\"a\\nb\""},
      {"a\tb", "\"a\\tb\""},
      {"back\\slash\n", "\"back\\\\slash\\n\""},
      {"bell\x07", "\"bell\\u0007\""},
      {"nully", "nully"},
      {"truer", "truer"},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(QuoteYamlScalar(c.in), c.out) << "input: " << c.in;
  }
}

// Whatever the quoting, a YAML parser reads the map back with the same strings.
TEST(ValueTest, MapsReadBackAsTheSameStrings) {
  const char* kStrings[] = {
      "plain", "",     "a:b",         "it's", "say \"hi\"", " lead",     "trail ",      "42",
      "true",  "null", "~",           "-x",   "a\nb",       "tab\there", "back\\slash", "{x}",
      "[y]",   "a #b", "caf\xc3\xa9", "&a",   "*b",         "!c",        "%d",          "@e"};
  for (const char* s : kStrings) {
    const std::string text = Value::Map({{s, s}, {"k", s}}).Format();
    YAML::Node node = YAML::Load(text);
    ASSERT_TRUE(node.IsMap()) << text;
    EXPECT_EQ(node["k"].as<std::string>(), s) << text;
    EXPECT_EQ(node.begin()->first.as<std::string>(), s) << text;
    EXPECT_EQ(node.begin()->second.as<std::string>(), s) << text;
  }
}

TEST(ValueTest, PropertiesReadBackAsTheSameStrings) {
  const Value v = Value::Properties(
      {{"pipeline.name", "it's mine"}, {"a:b", "x\ny"}, {"n", "4"}, {"empty", ""}});
  EXPECT_EQ(v.Format(), "pipeline.name: 'it''s mine'\n'a:b': \"x\\ny\"\n'n': '4'\nempty: ''");
  YAML::Node node = YAML::Load(v.Format());
  ASSERT_TRUE(node.IsMap());
  EXPECT_EQ(node["pipeline.name"].as<std::string>(), "it's mine");
  EXPECT_EQ(node["a:b"].as<std::string>(), "x\ny");
  EXPECT_EQ(node["n"].as<std::string>(), "4");
  EXPECT_EQ(node["empty"].as<std::string>(), "");
}

TEST(ValueTest, FormatsEachKind) {
  struct Case {
    const char* name;
    Value value;
    const char* want;
  };
  const Case kCases[] = {
      {"string", Value::String("a\nb"), "a\nb"},
      {"empty string", Value::String(""), ""},
      {"map", Value::Map({{"KEY", "KEY"}, {"VALUE", "VAL"}}), "{KEY: KEY, VALUE: VAL}"},
      {"map keeps order", Value::Map({{"b", "1x"}, {"a", "2"}}), "{b: '1x', a: '2'}"},
      {"empty map", Value::Map({}), "{}"},
      {"properties", Value::Properties({{"a", "1"}, {"b", "x"}}), "a: '1'\nb: 'x'"},
      {"empty properties", Value::Properties({}), ""},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(c.value.Format(), c.want) << c.name;
  }
}

TEST(ValueTest, KindsAndAccessors) {
  EXPECT_EQ(Value::String("x").kind(), Value::Kind::kString);
  EXPECT_EQ(Value::String("x").text(), "x");
  EXPECT_EQ(Value::Map({{"k", "v"}}).kind(), Value::Kind::kMap);
  EXPECT_EQ(Value::Properties({{"k", "v"}}).entries().size(), 1u);
  EXPECT_EQ(Value::Map({{"k", "v"}}), Value::Map({{"k", "v"}}));
  EXPECT_FALSE(Value::Map({{"k", "v"}}) == Value::Properties({{"k", "v"}}));
}

}  // namespace
}  // namespace hop::tmpl
