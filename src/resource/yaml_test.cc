// Tests for the YAML and JSON codecs: the parser's typing, document handling, errors and bounds;
// the emitter's layout and quoting; and the round trip ParseYamlDocuments(EmitYaml(x)) == x on
// hand-picked and on randomly generated documents.
#include "resource/yaml.h"

#include "common/limits.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hop {
namespace {

using namespace std::literals;

// The exact text of a value: unlike ==, it tells 1 from 1.0 and sees key order.
std::string Exact(const Json& value) { return value.dump(); }

// The documents of `text`, or a failure naming the case and the error.
std::vector<Json> ParseAll(std::string_view text, const std::string& name) {
  Result<std::vector<Json>> docs = ParseYamlDocuments(text, "test.yaml");
  EXPECT_TRUE(docs.ok()) << name << ": " << docs.status().ToString();
  return docs.ok() ? *docs : std::vector<Json>{};
}

// The value of `v` in the one-document stream "v: <scalar>".
Json ParseValue(std::string_view scalar, const std::string& name) {
  const std::vector<Json> docs = ParseAll("v: " + std::string(scalar) + "\n", name);
  if (docs.size() != 1 || !docs[0].is_object() || !docs[0].contains("v")) {
    ADD_FAILURE() << name << ": expected one mapping with key v";
    return Json();
  }
  return docs[0]["v"];
}

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr uint64_t kUint64Max = std::numeric_limits<uint64_t>::max();

TEST(YamlParseTest, ScalarsFollowTheCoreSchema) {
  struct Case {
    std::string_view scalar;
    Json expected;
  };
  const Case kCases[] = {
      // null and bool: only the core schema's spellings
      {"null", nullptr},
      {"Null", nullptr},
      {"NULL", nullptr},
      {"~", nullptr},
      {"", nullptr},
      {"nULL", "nULL"},
      {"true", true},
      {"True", true},
      {"TRUE", true},
      {"false", false},
      {"False", false},
      {"FALSE", false},
      {"tRue", "tRue"},
      {"yes", "yes"},
      {"No", "No"},
      {"on", "on"},
      {"OFF", "OFF"},
      {"y", "y"},
      {"n", "n"},
      // integers
      {"0", int64_t{0}},
      {"-0", int64_t{0}},
      {"12", int64_t{12}},
      {"+12", int64_t{12}},
      {"-12", int64_t{-12}},
      {"0012", int64_t{12}},
      {"0o17", int64_t{15}},
      {"0x1F", int64_t{31}},
      {"0xff", int64_t{255}},
      {"9223372036854775807", kInt64Max},
      {"-9223372036854775808", kInt64Min},
      {"9223372036854775808", uint64_t{9223372036854775808u}},
      {"18446744073709551615", kUint64Max},
      {"0xFFFFFFFFFFFFFFFF", kUint64Max},
      {"18446744073709551616", "18446744073709551616"},
      {"-9223372036854775809", "-9223372036854775809"},
      {"0X1F", "0X1F"},
      {"-0x1F", "-0x1F"},
      {"0o8", "0o8"},
      {"0x", "0x"},
      {"1_000", "1_000"},
      {"0b101", "0b101"},
      {"1:20", "1:20"},
      // floats
      {"1.5", 1.5},
      {"1.", 1.0},
      {".5", 0.5},
      {"-.5", -0.5},
      {"+1.5e3", 1500.0},
      {"1e3", 1000.0},
      {"1E-3", 0.001},
      {"-0.0", -0.0},
      {"1e-400", 0.0},
      {"-1e-400", -0.0},
      {"0.0001e-330", 0.0},
      {"1.2.3", "1.2.3"},
      {"1e", "1e"},
      {".", "."},
      {"e3", "e3"},
      {"-.nan", "-.nan"},
      {".Nan", ".Nan"},
      // other plain text stays text
      {"2024-01-01", "2024-01-01"},
      {"12:30:00", "12:30:00"},
      {"100Mi", "100Mi"},
      {"nginx:1.25", "nginx:1.25"},
      {"caf\xc3\xa9 \xe6\x97\xa5", "caf\xc3\xa9 \xe6\x97\xa5"},
      {"&a 12", int64_t{12}},
      // quoted and block scalars are strings
      {"'12'", "12"},
      {"\"true\"", "true"},
      {"'null'", "null"},
      {"'~'", "~"},
      {"\"\"", ""},
      {"\"a\\tb\\u00e9\\x41\\0\"",
       "a\tb\xc3\xa9"
       "A\0"s},
      {"'it''s'", "it's"},
      {"|\n  12\n", "12\n"},
      {">-\n  a\n  b\n", "a b"},
      // explicit tags
      {"!!str 12", "12"},
      {"!!str true", "true"},
      {"!!str", ""},
      {"! 12", "12"},
      {"!!int '12'", int64_t{12}},
      {"!!int 0x10", int64_t{16}},
      {"!!float 1", 1.0},
      {"!!float '2.5'", 2.5},
      {"!!bool 'true'", true},
      {"!!null ''", nullptr},
      {"!!null", nullptr},
      {"!!map {}", Json::object()},
      {"!!seq []", Json::array()},
      {"!<tag:yaml.org,2002:int> 7", int64_t{7}},
  };
  for (const Case& c : kCases) {
    const std::string name = "scalar `" + std::string(c.scalar) + "`";
    const Json got = ParseValue(c.scalar, name);
    EXPECT_EQ(got.type(), c.expected.type()) << name << " gave " << Exact(got);
    EXPECT_EQ(Exact(got), Exact(c.expected)) << name;
  }
}

// JSON, which holds every resource, has no infinity or NaN: a YAML value that spells one, or a
// number beyond double's range, is refused with the field it is in, never stored as null or
// kept as a string. Keys and quoted text stay text.
TEST(YamlParseTest, NumbersJsonCannotHoldAreRefused) {
  struct Case {
    const char* name;
    std::string text;
    const char* expected;  // the whole Status::ToString()
  };
  const auto error = [](const std::string& where, const std::string& what) {
    return "Parse Error: test.yaml: " + where + ": " + what + " (document 1)";
  };
  const std::string inf =
      "\".inf\" is infinity, which JSON cannot represent; quote it ('.inf') "
      "to keep it as text";
  const std::vector<std::pair<Case, std::string>> cases = {
      {{"infinity", "v: .inf\n", ""}, error("line 1, column 4", "v: " + inf)},
      {{"Inf", "v: .Inf\n", ""},
       error("line 1, column 4",
             "v: \".Inf\" is infinity, which JSON cannot represent; quote it "
             "('.Inf') to keep it as text")},
      {{"+.INF", "v: +.INF\n", ""},
       error("line 1, column 4",
             "v: \"+.INF\" is infinity, which JSON cannot represent; quote "
             "it ('+.INF') to keep it as text")},
      {{"negative infinity", "v: -.inf\n", ""},
       error("line 1, column 4",
             "v: \"-.inf\" is negative infinity, which JSON cannot "
             "represent; quote it ('-.inf') to keep it as text")},
      {{"NaN", "spec:\n  ratio: .nan\n", ""},
       error("line 2, column 10",
             "spec.ratio: \".nan\" is not a number (NaN), which JSON cannot "
             "represent; quote it ('.nan') to keep it as text")},
      {{".NaN in a sequence", "spec:\n  values:\n  - 1\n  - .NaN\n", ""},
       error("line 4, column 5",
             "spec.values[1]: \".NaN\" is not a number (NaN), which JSON "
             "cannot represent; quote it ('.NaN') to keep it as text")},
      {{"beyond double", "a:\n  b: [1, {c: 1e999}]\n", ""},
       error("line 2, column 14",
             "a.b[1].c: \"1e999\" is beyond the range of a double, which "
             "JSON cannot represent; quote it ('1e999') to keep it as text")},
      {{"negative beyond double", "v: -123456789.5e301\n", ""},
       error("line 1, column 4",
             "v: \"-123456789.5e301\" is beyond the range of a double, which "
             "JSON cannot represent; quote it ('-123456789.5e301') to keep it "
             "as text")},
      {{"tagged !!float", "v: !!float .inf\n", ""}, error("line 1, column 4", "v: " + inf)},
      {{"tagged !!float beyond double", "v: !!float '1e999'\n", ""},
       error("line 1, column 4",
             "v: \"1e999\" is beyond the range of a double, which JSON "
             "cannot represent; quote it ('1e999') to keep it as text")},
      {{"anchored", "a: &x .inf\nb: *x\n", ""}, error("line 1, column 4", "a: " + inf)},
      {{"a key's anchor used as a value", "&k .inf: 1\nb: *k\n", ""},
       error("line 2, column 4", "b: " + inf)},
      {{"root scalar", ".inf\n", ""}, error("line 1, column 1", "the document: " + inf)},
  };
  for (const auto& [c, expected] : cases) {
    const Result<std::vector<Json>> docs = ParseYamlDocuments(c.text, "test.yaml");
    ASSERT_FALSE(docs.ok()) << c.name << " gave " << Exact(Json(*docs));
    EXPECT_EQ(docs.status().ToString(), expected) << c.name;
    EXPECT_FALSE(ReadPlainYaml(c.text).has_value()) << c.name << ": libyaml's reader took it";
  }

  // Quoted, they are text; as keys, their text is the key; the largest double is a number.
  const std::vector<Json> docs = ParseAll(
      "a: '.inf'\nb: \".nan\"\nc: !!str 1e999\n.inf: -.inf key\nd: 1.7976931348623157e308\n",
      "text");
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(
      Exact(docs[0]),
      R"({"a":".inf","b":".nan","c":"1e999",".inf":"-.inf key","d":1.7976931348623157e+308})");
}

TEST(YamlParseTest, Documents) {
  struct Case {
    const char* name;
    std::string_view text;
    const char* expected;  // JSON array of the documents
  };
  const Case kCases[] = {
      {"one document", "a: 1\n", R"([{"a":1}])"},
      {"leading separator", "---\na: 1\n", R"([{"a":1}])"},
      {"empty and comment-only documents are skipped",
       "---\na: 1\n---\n---\n# only a comment\n---\n[1, 2]\n--- x\n...\n",
       R"([{"a":1},[1,2],"x"])"},
      {"empty stream", "", "[]"},
      {"comments only", "# c\n\n# d\n", "[]"},
      {"explicit null documents are kept", "null\n---\n~\n--- !!null\n---\nNULL # c\n",
       "[null,null,null,null]"},
      {"anchored empty document", "--- &a\n", "[]"},
      {"anchored null document", "--- &a null\n", "[null]"},
      {"key order is kept", "b: 1\na: 2\nc: 3\n", R"([{"b":1,"a":2,"c":3}])"},
      {"anchors and aliases", "base: &b {x: 1, y: [a, b]}\ncopy: *b\nlist: [*b, *b]\n",
       R"([{"base":{"x":1,"y":["a","b"]},"copy":{"x":1,"y":["a","b"]},)"
       R"("list":[{"x":1,"y":["a","b"]},{"x":1,"y":["a","b"]}]}])"},
      {"alias as a key", "k: &k name\n*k : v\n", R"([{"k":"name","name":"v"}])"},
      {"scalar keys keep their text", "1: a\ntrue: b\n~: c\n0x10: d\n'q': e\n: f\nnull: g\n",
       R"([{"1":"a","true":"b","~":"c","0x10":"d","q":"e","":"f","null":"g"}])"},
      {"null values", "a:\nnullable: ~\nb: null\n", R"([{"a":null,"nullable":null,"b":null}])"},
      {"block scalars",
       "lit: |\n  a\n   b\n\n"
       "fold: >\n  a\n  b\n\n  c\n"
       "keep: |+\n  x\n\n"
       "strip: |-\n  y\n"
       "ind: |2\n   z\n",
       R"([{"lit":"a\n b\n","fold":"a b\nc\n","keep":"x\n\n","strip":"y","ind":" z\n"}])"},
      {"CRLF line breaks", "a: 1\r\nb: [x, y]\r\n", R"([{"a":1,"b":["x","y"]}])"},
      {"byte order mark",
       "\xEF\xBB\xBF"
       "a: 1\n--- ~\n",
       R"([{"a":1},null])"},
      {"flow style", "{a: [1, {b: c}], d: \"e\"}", R"([{"a":[1,{"b":"c"}],"d":"e"}])"},
      {"root sequence and scalar", "- a\n- b\n---\nhello\n", R"([["a","b"],"hello"])"},
      {"multi-line plain scalar", "a: one\n  two\n", R"([{"a":"one two"}])"},
      {"merge keys are ordinary keys", "<<: {a: 1}\n", R"([{"<<":{"a":1}}])"},
  };
  for (const Case& c : kCases) {
    const std::vector<Json> docs = ParseAll(c.text, c.name);
    EXPECT_EQ(Exact(Json(docs)), Exact(Json::parse(c.expected))) << c.name;
  }
}

TEST(YamlParseTest, ErrorsNameWhatAndWhere) {
  struct Case {
    const char* name;
    std::string text;
    const char* expected;  // the whole Status::ToString()
  };
  const Case kCases[] = {
      {"unclosed flow sequence", "a: [1, 2\n",
       "Parse Error: test.yaml: line 2, column 1: end of sequence flow not found (document 1)"},
      {"bad indentation", "a:\n  b: 1\n c: 2\n",
       "Parse Error: test.yaml: line 3, column 2: end of map not found (document 1)"},
      {"syntax error in a later document", "a: 1\n---\nb: [\n",
       "Parse Error: test.yaml: line 4, column 1: end of sequence flow not found (document 2)"},
      {"unclosed nested brackets", "[[a",
       "Parse Error: test.yaml: line 1, column 1: end of sequence flow not found (document 1)"},
      {"a syntax error wins over an earlier duplicate key", "a: 1\na: 2\nb: [\n",
       "Parse Error: test.yaml: line 4, column 1: end of sequence flow not found (document 1)"},
      {"stray top-level comma (yaml-cpp would loop forever)", ",4  6  1\n",
       "Parse Error: test.yaml: line 1, column 1: unexpected ',' (document 1)"},
      {"duplicate key", "a: 1\nb: 2\na: 3\n",
       "Parse Error: test.yaml: line 3, column 1: duplicate mapping key \"a\"; first on line 1 "
       "(document 1)"},
      {"duplicate key in a nested mapping of the second document",
       "x: 1\n---\nm:\n  k: 1\n  k: 2\n",
       "Parse Error: test.yaml: line 5, column 3: duplicate mapping key \"k\"; first on line 4 "
       "(document 2)"},
      {"duplicate keys in different quoting", "'a': 1\na: 2\n",
       "Parse Error: test.yaml: line 2, column 1: duplicate mapping key \"a\"; first on line 1 "
       "(document 1)"},
      {"sequence as a key", "? [a, b]\n: 1\n",
       "Parse Error: test.yaml: line 1, column 3: a mapping key must be a scalar, not a sequence "
       "(document 1)"},
      {"mapping as a flow key", "{{a: 1}: 2}\n",
       "Parse Error: test.yaml: line 1, column 2: a mapping key must be a scalar, not a mapping "
       "(document 1)"},
      {"alias of a mapping as a key", "a: &m {x: 1}\n*m : 2\n",
       "Parse Error: test.yaml: line 2, column 1: a mapping key must be a scalar (document 1)"},
      {"unsupported local tag", "a: !foo x\n",
       "Parse Error: test.yaml: line 1, column 4: unsupported tag !foo (document 1)"},
      {"unsupported core tag", "a: !!binary aGk=\n",
       "Parse Error: test.yaml: line 1, column 4: unsupported tag !!binary (document 1)"},
      {"unsupported tag on a mapping", "!custom {a: 1}\n",
       "Parse Error: test.yaml: line 1, column 1: unsupported tag !custom (document 1)"},
      {"text tagged !!int", "a: !!int twelve\n",
       "Parse Error: test.yaml: line 1, column 4: \"twelve\" is not a valid !!int (document 1)"},
      {"!!int beyond uint64", "a: !!int 18446744073709551616\n",
       "Parse Error: test.yaml: line 1, column 4: \"18446744073709551616\" is not a valid !!int "
       "(document 1)"},
      {"YAML 1.1 bool tagged !!bool", "a: !!bool yes\n",
       "Parse Error: test.yaml: line 1, column 4: \"yes\" is not a valid !!bool (document 1)"},
      {"text tagged !!null", "a: !!null nothing\n",
       "Parse Error: test.yaml: line 1, column 4: \"nothing\" is not a valid !!null (document 1)"},
      {"!!map on a sequence", "a: !!map [1]\n",
       "Parse Error: test.yaml: line 1, column 4: tag !!map does not apply to a sequence "
       "(document 1)"},
      {"!!seq on a scalar", "a: !!seq x\n",
       "Parse Error: test.yaml: line 1, column 4: tag !!seq does not apply to a scalar "
       "(document 1)"},
      {"undefined alias", "a: *nope\n",
       "Parse Error: test.yaml: line 1, column 4: the referenced anchor is not defined "
       "(document 1)"},
      {"alias inside its own anchor", "a: &x [1, *x]\n",
       "Parse Error: test.yaml: line 1, column 11: alias *x refers to a node that contains it "
       "(document 1)"},
      {"invalid UTF-8", "a: b\nc: \xff\n",
       "Parse Error: test.yaml: line 2, column 4: invalid UTF-8 byte 0xFF"},
      {"overlong UTF-8", "a: \xc0\xaf\n",
       "Parse Error: test.yaml: line 1, column 4: invalid UTF-8 byte 0xC0"},
      {"unterminated double-quoted string at the end", "a: \"abc\n",
       "Parse Error: test.yaml: line 1, column 4: unterminated quoted string (document 1)"},
      {"unterminated single-quoted string at the end", "a: 'it''s\n",
       "Parse Error: test.yaml: line 1, column 4: unterminated quoted string (document 1)"},
      {"unterminated quoted string after an anchor", "a: &x \"abc\n",
       "Parse Error: test.yaml: line 1, column 4: unterminated quoted string (document 1)"},
      {"unterminated quoted string in a later document", "a: 1\n---\nb: \"x\\\"\n\n",
       "Parse Error: test.yaml: line 3, column 4: unterminated quoted string (document 2)"},
      {"NUL byte", std::string("a: b\0c\n", 7),
       "Parse Error: test.yaml: line 1, column 5: control character U+0000 is not allowed in "
       "YAML"},
  };
  for (const Case& c : kCases) {
    const Result<std::vector<Json>> docs = ParseYamlDocuments(c.text, "test.yaml");
    ASSERT_FALSE(docs.ok()) << c.name;
    EXPECT_EQ(docs.status().code(), StatusCode::kParse) << c.name;
    EXPECT_EQ(docs.status().ToString(), c.expected) << c.name;
  }
}

// Hostile input must fail cleanly, fast and without exhausting the stack or memory.
TEST(YamlParseTest, BoundsResourceUse) {
  // "- - - ... x": deeper than kMaxNestingDepth, shallower than yaml-cpp's own guard.
  std::string block_nest;
  for (int i = 0; i < kMaxNestingDepth + 10; ++i) block_nest += "- ";
  block_nest += "x\n";

  std::string alias_nest = "a: &a ";  // each part within bounds, the alias beyond them
  const int half = kMaxNestingDepth / 2 + 10;
  alias_nest += std::string(half, '[') + std::string(half, ']') + "\nb: " + std::string(half, '[') +
                "*a" + std::string(half, ']') + "\n";

  std::string laughs = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i <= 9; ++i) {
    laughs += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) laughs += (k ? ", *a" : "*a") + std::to_string(i - 1);
    laughs += "]\n";
  }

  struct Case {
    const char* name;
    std::string text;
    const char* expected_part;
  };
  const Case kCases[] = {
      {"100k open brackets (yaml-cpp's depth guard)", std::string(100000, '['), "nesting too deep"},
      {"100k open braces", std::string(100000, '{'), "nesting too deep"},
      {"block sequences nested past kMaxNestingDepth", block_nest,
       "nesting deeper than 256 levels"},
      {"alias copied past kMaxNestingDepth", alias_nest, "alias *a nests deeper than 256 levels"},
      {"billion laughs", laughs, "aliases expand to more than "},
      {"a 1 MiB scalar copied by aliases",
       "a: &a " + std::string(1 << 20, 'x') + "\nb: [*a, *a, *a, *a]\n",
       "line 2, column 13: aliases expand to more than 3 MiB (HOP_MAX_EXPANDED_BYTES)"},
  };
  for (const Case& c : kCases) {
    const Result<std::vector<Json>> docs = ParseYamlDocuments(c.text, "test.yaml");
    ASSERT_FALSE(docs.ok()) << c.name;
    EXPECT_EQ(docs.status().code(), StatusCode::kParse) << c.name;
    EXPECT_NE(docs.status().message().find(c.expected_part), std::string::npos)
        << c.name << ": " << docs.status().ToString();
    EXPECT_TRUE(docs.status().message().starts_with("test.yaml: line "))
        << c.name << ": " << docs.status().ToString();
  }
}

// The two alias budgets: bytes (HOP_MAX_EXPANDED_BYTES) and values (kMaxAliasValues); quoted
// strings that are closed are read as written.
TEST(YamlParseTest, AliasBudgetsAndQuotes) {
  const Limits saved = CurrentLimits();
  Limits limits = saved;
  limits.max_expanded_bytes = 64;
  SetLimits(limits);
  // Each copy of "0123456789" counts 13 bytes: 4 copies fit, 5 do not.
  EXPECT_TRUE(ParseYamlDocuments("a: &a '0123456789'\nb: [*a, *a, *a, *a]\n", "t").ok());
  const auto over = ParseYamlDocuments("a: &a '0123456789'\nb: [*a, *a, *a, *a, *a]\n", "t");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().message(),
            "t: line 2, column 21: aliases expand to more than 64 bytes (HOP_MAX_EXPANDED_BYTES) "
            "(document 1)");
  // With bytes to spare, the value budget still holds.
  limits.max_expanded_bytes = size_t{1} << 40;
  SetLimits(limits);
  std::string laughs = "a0: &a0 [~, ~, ~, ~, ~, ~, ~, ~, ~, ~]\n";
  for (int i = 1; i <= 6; ++i) {
    laughs += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) laughs += (k ? ", *a" : "*a") + std::to_string(i - 1);
    laughs += "]\n";
  }
  const auto values = ParseYamlDocuments(laughs, "t");
  ASSERT_FALSE(values.ok());
  EXPECT_NE(values.status().message().find("aliases expand to more than 1000000 values"),
            std::string::npos)
      << values.status().message();
  SetLimits(saved);

  const auto quoted = ParseYamlDocuments("a: \"x\\\"y\"\nb: 'it''s'\nc: \"two\n  lines\"\n", "t");
  ASSERT_TRUE(quoted.ok()) << quoted.status().ToString();
  EXPECT_EQ(Json(*quoted).dump(), R"([{"a":"x\"y","b":"it's","c":"two lines"}])");
}

TEST(YamlEmitTest, StringsAreQuotedOnlyWhenNeeded) {
  struct Case {
    std::string_view value;
    const char* expected;  // EmitYaml of {"k": value}
  };
  const Case kCases[] = {
      // plain
      {"hello world", "k: hello world\n"},
      {"100Mi", "k: 100Mi\n"},
      {"500m", "k: 500m\n"},
      {"nginx:1.25", "k: nginx:1.25\n"},
      {"hoptimator.linkedin.com/v1alpha1", "k: hoptimator.linkedin.com/v1alpha1\n"},
      {"a#b", "k: a#b\n"},
      {"it's", "k: it's\n"},
      {"a,b[c]{d}", "k: a,b[c]{d}\n"},
      {"v1.2", "k: v1.2\n"},
      {"0x", "k: 0x\n"},
      {"yes please", "k: yes please\n"},
      {"caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80", "k: caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80\n"},
      {"2024-01-01x", "k: 2024-01-01x\n"},
      // would read back as another type under YAML 1.2 or 1.1
      {"", "k: ''\n"},
      {"~", "k: '~'\n"},
      {"null", "k: 'null'\n"},
      {"true", "k: 'true'\n"},
      {"False", "k: 'False'\n"},
      {"yes", "k: 'yes'\n"},
      {"No", "k: 'No'\n"},
      {"on", "k: 'on'\n"},
      {"OFF", "k: 'OFF'\n"},
      {"y", "k: 'y'\n"},
      {"N", "k: 'N'\n"},
      {"12", "k: '12'\n"},
      {"0012", "k: '0012'\n"},
      {"+1", "k: '+1'\n"},
      {"1_000", "k: '1_000'\n"},
      {"0b101", "k: '0b101'\n"},
      {"0o17", "k: '0o17'\n"},
      {"0x1F", "k: '0x1F'\n"},
      {"1:20", "k: '1:20'\n"},
      {"1.5", "k: '1.5'\n"},
      {".5", "k: '.5'\n"},
      {"1e3", "k: '1e3'\n"},
      {"1.2.3", "k: '1.2.3'\n"},
      {".inf", "k: '.inf'\n"},
      {".NaN", "k: '.NaN'\n"},
      {"2024-01-01", "k: '2024-01-01'\n"},
      {"2024-01-01T10:00:00Z", "k: '2024-01-01T10:00:00Z'\n"},
      {"<<", "k: '<<'\n"},
      // not valid plain scalars
      {" lead", "k: ' lead'\n"},
      {"trail ", "k: 'trail '\n"},
      {"-c", "k: '-c'\n"},
      {"- a", "k: '- a'\n"},
      {"?x", "k: '?x'\n"},
      {":x", "k: ':x'\n"},
      {"a: b", "k: 'a: b'\n"},
      {"a #b", "k: 'a #b'\n"},
      {"a:", "k: 'a:'\n"},
      {"#c", "k: '#c'\n"},
      {"&a", "k: '&a'\n"},
      {"*a", "k: '*a'\n"},
      {"!t", "k: '!t'\n"},
      {"|", "k: '|'\n"},
      {">", "k: '>'\n"},
      {"'q'", "k: '''q'''\n"},
      {"\"q\"", "k: '\"q\"'\n"},
      {"%x", "k: '%x'\n"},
      {"@x", "k: '@x'\n"},
      {"`x", "k: '`x'\n"},
      {"[a]", "k: '[a]'\n"},
      {"{a}", "k: '{a}'\n"},
      {",a", "k: ',a'\n"},
      {"---", "k: '---'\n"},
      {"...", "k: '...'\n"},
      {"... x", "k: '... x'\n"},
      // escapes
      {"a\tb", "k: \"a\\tb\"\n"},
      {"\x01", "k: \"\\x01\"\n"},
      {"\0"sv, "k: \"\\x00\"\n"},
      {"\x7f", "k: \"\\x7F\"\n"},
      {"\xc2\x85", "k: \"\\x85\"\n"},
      {"\xe2\x80\xa8", "k: \"\\u2028\"\n"},
      {"\xef\xbb\xbfx", "k: \"\\uFEFFx\"\n"},
      {"a\rb", "k: \"a\\rb\"\n"},
      {"q\"\\", "k: q\"\\\n"},
      {"q\"\\\t", "k: \"q\\\"\\\\\\t\"\n"},
      {"bad \xff", "k: \"bad \xef\xbf\xbd\"\n"},
      // several lines
      {"a\nb", "k: |-\n  a\n  b\n"},
      {"a\nb\n", "k: |\n  a\n  b\n"},
      {"a\n\n", "k: |+\n  a\n\n"},
      {"a\n\nb\n", "k: |\n  a\n\n  b\n"},
      {" a\nb\n", "k: |2\n   a\n  b\n"},
      {"\n  a", "k: |2-\n\n    a\n"},
      {"\ta\n#b\n", "k: |\n  \ta\n  #b\n"},
      {"a \nb", "k: \"a \\nb\"\n"},
      {"a\r\nb", "k: \"a\\r\\nb\"\n"},
      {"\n", "k: \"\\n\"\n"},
      {"a\n\x01", "k: \"a\\n\\x01\"\n"},
  };
  for (const Case& c : kCases) {
    const Json doc = {{"k", std::string(c.value)}};
    EXPECT_EQ(EmitYaml(doc), c.expected)
        << "value "
        << Json(std::string(c.value)).dump(-1, ' ', false, Json::error_handler_t::replace);
  }
}

TEST(YamlEmitTest, KeysFollowTheSameRules) {
  struct Case {
    std::string_view key;
    const char* expected;  // EmitYaml of {key: 1}
  };
  const Case kCases[] = {
      {"name", "name: 1\n"},
      {"yes", "'yes': 1\n"},
      {"1", "'1': 1\n"},
      {"", "'': 1\n"},
      {"a: b", "'a: b': 1\n"},
      {"-x", "'-x': 1\n"},
      {"a\nb", "\"a\\nb\": 1\n"},
      {"a\tb", "\"a\\tb\": 1\n"},
      {"null", "'null': 1\n"},
      {"~", "'~': 1\n"},
      {"\xc3\xa9", "\xc3\xa9: 1\n"},
      {"a b", "a b: 1\n"},
  };
  for (const Case& c : kCases) {
    Json doc = Json::object();
    doc[std::string(c.key)] = 1;
    EXPECT_EQ(EmitYaml(doc), c.expected) << "key " << Json(std::string(c.key)).dump();
  }
}

TEST(YamlEmitTest, NumbersAndLiterals) {
  struct Case {
    const char* name;
    Json value;
    const char* expected;  // EmitYaml of the value as a document
  };
  const Case kCases[] = {
      {"null", nullptr, "null\n"},
      {"true", true, "true\n"},
      {"false", false, "false\n"},
      {"int", int64_t{-12}, "-12\n"},
      {"int64 min", kInt64Min, "-9223372036854775808\n"},
      {"uint64 max", kUint64Max, "18446744073709551615\n"},
      {"integral double", 1.0, "1.0\n"},
      {"double", 0.1, "0.1\n"},
      {"negative zero", -0.0, "-0.0\n"},
      {"large double", 1e300, "1.0e+300\n"},
      {"small double", 1e-5, "1.0e-05\n"},
      {"largest double", std::numeric_limits<double>::max(), "1.7976931348623157e+308\n"},
      {"infinity", std::numeric_limits<double>::infinity(), ".inf\n"},
      {"negative infinity", -std::numeric_limits<double>::infinity(), "-.inf\n"},
      {"NaN", std::numeric_limits<double>::quiet_NaN(), ".nan\n"},
      {"empty object", Json::object(), "{}\n"},
      {"empty array", Json::array(), "[]\n"},
      {"string", "x", "x\n"},
      {"root literal", "a\n b\n", "|\n  a\n   b\n"},
      {"root literal with leading space", " a\n", "|2\n   a\n"},
      {"binary", Json::binary({1, 2}), "null\n"},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(EmitYaml(c.value), c.expected) << c.name;
  }
}

TEST(YamlEmitTest, KubectlLayout) {
  struct Case {
    const char* name;
    std::string json;
    std::string expected;
  };
  const Case kCases[] = {
      {"nested collections",
       R"({"a": [1, {"b": [], "c": {}}, [2, [3]], {"d": {"e": "f"}, "g": ["h"]}], "i": null})",
       "a:\n"
       "- 1\n"
       "- b: []\n"
       "  c: {}\n"
       "- - 2\n"
       "  - - 3\n"
       "- d:\n"
       "    e: f\n"
       "  g:\n"
       "  - h\n"
       "i: null\n"},
      {"root sequence of mappings", R"([{"name": "x", "image": "nginx"}, {"name": "z"}])",
       "- name: x\n  image: nginx\n- name: z\n"},
      {"literals inside sequences", R"({"a": ["x\ny\n", {"k": "p\nq"}], "b": [["r\n s"]]})",
       "a:\n- |\n  x\n  y\n- k: |-\n    p\n    q\nb:\n- - |-\n    r\n     s\n"},
      {"long keys are explicit",
       ("{\"" + std::string(1001, 'k') + "\": [1], \"s\": [{\"" + std::string(1001, 'q') +
        "\": 2}]}"),
       ("? " + std::string(1001, 'k') + "\n:\n- 1\ns:\n- ? " + std::string(1001, 'q') +
        "\n  : 2\n")},
      {"key order is the Json's", R"({"z": 1, "a": 2, "m": 3})", "z: 1\na: 2\nm: 3\n"},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(EmitYaml(Json::parse(c.json)), c.expected) << c.name;
  }
}

TEST(YamlEmitTest, DocumentsAreSeparated) {
  EXPECT_EQ(EmitYamlDocuments({}), "") << "no documents";
  EXPECT_EQ(EmitYamlDocuments({Json::parse(R"({"a": 1})")}), "a: 1\n") << "one document";
  EXPECT_EQ(EmitYamlDocuments({Json::parse(R"({"a": 1})"), Json::parse(R"(["x"])"), nullptr}),
            "a: 1\n---\n- x\n---\nnull\n")
      << "three documents";
}

// Checks ParseYamlDocuments(EmitYaml(value)) == value, naming `name`.
void ExpectRoundTrip(const Json& value, const std::string& name) {
  const std::string yaml = EmitYaml(value);
  const Result<std::vector<Json>> docs = ParseYamlDocuments(yaml, "emitted");
  ASSERT_TRUE(docs.ok()) << name << ": " << docs.status().ToString() << "\n" << yaml;
  ASSERT_EQ(docs->size(), 1u) << name << "\n" << yaml;
  EXPECT_EQ(Exact((*docs)[0]), Exact(value)) << name << "\n" << yaml;
}

TEST(YamlRoundTripTest, Table) {
  const Json kCases[] = {
      nullptr,
      true,
      int64_t{0},
      kInt64Min,
      kInt64Max,
      kUint64Max,
      0.1,
      -0.0,
      5e-324,
      1e-310,
      std::numeric_limits<double>::max(),
      std::numeric_limits<double>::min(),
      1e16,
      123456789.125,
      "",
      "~",
      "yes",
      "0012",
      "\n",
      "\n\n",
      "a\n",
      "\na\n",
      " \n",
      "\n a",
      "a\n\n\n",
      "\ta\n b\n",
      "#x\n---\n...\n",
      "... x",
      "--- x",
      "x: y\n- z\n",
      "line one\nline two with 'quotes' and \"doubles\"\n",
      "tab\tinside\nblock\n",
      std::string("nul\0byte", 8),
      "\xc2\x85\xe2\x80\xa8\xe2\x80\xa9\xef\xbb\xbf\xef\xbf\xbe\xef\xbf\xbf\xc2\xa0",
      "\xf4\x8f\xbf\xbf \xf0\x9f\x98\x80",
      Json{{std::string(2000, 'k'), std::string(5000, 'v')}},
      Json::object(),
      Json::array(),
      Json::parse(R"({"": {"": [[], {}, [[]], [{}]]}})"),
      Json::parse(R"([[[["deep"]]], [{"a": [{"b": {"c": ["d\ne"]}}]}]])"),
      Json::parse(R"({"yes": "no", "on": "off", "1": 1, "1.0": 1.0, "null": null, "~": "~"})"),
  };
  for (size_t i = 0; i < std::size(kCases); ++i) {
    ExpectRoundTrip(kCases[i], "case " + std::to_string(i) + " " +
                                   kCases[i].dump(-1, ' ', false, Json::error_handler_t::replace));
  }
  // A NaN built in code is written as YAML spells it, and reading it back is refused (JSON, and
  // so no resource, can hold it).
  const std::string nan = EmitYaml(Json{{"x", std::numeric_limits<double>::quiet_NaN()}});
  EXPECT_EQ(nan, "x: .nan\n");
  EXPECT_FALSE(ParseYamlDocuments(nan, "emitted").ok()) << "NaN";
}

// A deepest document from either parser must round-trip (yaml-cpp's own guard is deeper).
TEST(YamlRoundTripTest, MaximumNesting) {
  Json seqs = "x";
  Json mixed = "x";
  for (int i = 0; i < kMaxNestingDepth; ++i) {
    seqs = Json::array({seqs});
    mixed = i % 2 ? Json::array({mixed}) : Json{{"k", mixed}};
  }
  ExpectRoundTrip(seqs, "nested sequences");
  ExpectRoundTrip(mixed, "nested mappings and sequences");
}

// Random documents of every value kind, with strings built from the fragments most likely to be
// misread: YAML 1.1 and 1.2 keywords and numbers, indicators, line breaks, controls, Unicode.
class RandomDocuments {
 public:
  explicit RandomDocuments(uint64_t seed) : rng_(seed) {}

  Json Value(int depth) {
    switch (Below(depth < 4 ? 10 : 7)) {
      case 0: return nullptr;
      case 1: return Below(2) == 1;
      case 2: return Integer();
      case 3: return Double();
      case 4:
      case 5:
      case 6: return String();
      case 7: {
        Json array = Json::array();
        for (size_t n = Below(5); n > 0; --n) array.push_back(Value(depth + 1));
        return array;
      }
      default: {
        Json object = Json::object();
        for (size_t n = Below(5); n > 0; --n) {
          std::string key = String();
          if (!object.contains(key)) object[key] = Value(depth + 1);
        }
        return object;
      }
    }
  }

 private:
  size_t Below(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  Json Integer() {
    switch (Below(4)) {
      case 0: return static_cast<int64_t>(Below(2000)) - 1000;
      case 1: return static_cast<int64_t>(rng_());
      case 2: return static_cast<uint64_t>(rng_() | (uint64_t{1} << 63));
      default: return Below(2) ? kInt64Min : kInt64Max;
    }
  }

  double Double() {
    switch (Below(4)) {
      case 0: return static_cast<double>(Below(20000)) / 8 - 1000;
      case 1: return Below(2) ? 0.0 : -0.0;
      default: {
        const double value = std::bit_cast<double>(static_cast<uint64_t>(rng_()));
        return std::isfinite(value) ? value : 1.5;
      }
    }
  }

  std::string String() {
    static constexpr std::string_view kFragments[] = {
        "",
        " ",
        "  ",
        "a",
        "name",
        "x y",
        "yes",
        "No",
        "ON",
        "off",
        "y",
        "N",
        "~",
        "null",
        "True",
        "false",
        "0",
        "12",
        "0012",
        "-5",
        "+5",
        "1_000",
        "0b101",
        "0o17",
        "0x1F",
        "1:20",
        "1.5",
        ".5",
        "1.",
        "1e3",
        "-1E-3",
        ".inf",
        "-.Inf",
        ".nan",
        "2024-01-01",
        "T10:00:00Z",
        "-",
        "- ",
        "?",
        "? ",
        ":",
        ": ",
        ",",
        "[",
        "]",
        "{",
        "}",
        "#",
        " #",
        "&",
        "*",
        "!",
        "!!",
        "|",
        ">",
        "'",
        "''",
        "\"",
        "%",
        "@",
        "`",
        "\\",
        "---",
        "...",
        "<<",
        "=",
        "\n",
        "\n\n",
        "\r",
        "\r\n",
        "\t",
        "\x01",
        "\x1b",
        "\x7f",
        "\0"sv,
        "\xc2\x85",
        "\xc2\xa0",
        "\xe2\x80\xa8",
        "\xef\xbb\xbf",
        "\xef\xbf\xbe",
        "caf\xc3\xa9",
        "\xe6\x97\xa5\xe6\x9c\xac",
        "\xf0\x9f\x98\x80",
        "\xf4\x8f\xbf\xbf",
    };
    std::string s;
    if (Below(100) == 0) s.assign(1000 + Below(50), 'x');  // around YAML's implicit key limit
    for (size_t n = Below(5); n > 0; --n) {
      if (Below(4) == 0) {
        AppendUtf8(RandomCodePoint(), &s);
      } else {
        s += kFragments[Below(std::size(kFragments))];
      }
    }
    return s;
  }

  uint32_t RandomCodePoint() {
    static constexpr uint32_t kRanges[][2] = {
        {0x00, 0x7F}, {0x80, 0xFF}, {0x100, 0xD7FF}, {0xE000, 0xFFFF}, {0x10000, 0x10FFFF}};
    const auto& range = kRanges[Below(std::size(kRanges))];
    return range[0] + static_cast<uint32_t>(Below(range[1] - range[0] + 1));
  }

  static void AppendUtf8(uint32_t code, std::string* out) {
    if (code < 0x80) {
      *out += static_cast<char>(code);
    } else if (code < 0x800) {
      *out += static_cast<char>(0xC0 | (code >> 6));
      *out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      *out += static_cast<char>(0xE0 | (code >> 12));
      *out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      *out += static_cast<char>(0xF0 | (code >> 18));
      *out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      *out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  std::mt19937_64 rng_;
};

TEST(YamlRoundTripTest, RandomDocuments) {
  constexpr uint64_t kSeed = 20240601;
  RandomDocuments random(kSeed);
  for (int i = 0; i < 3000; ++i) {
    const Json doc = random.Value(0);
    ExpectRoundTrip(
        doc, "random document " + std::to_string(i) + " (seed " + std::to_string(kSeed) + ")");
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(YamlRoundTripTest, RandomStreams) {
  constexpr uint64_t kSeed = 7;
  RandomDocuments random(kSeed);
  for (int i = 0; i < 300; ++i) {
    std::vector<Json> docs;
    for (int k = 0; k < 4; ++k) docs.push_back(random.Value(0));
    const std::string yaml = EmitYamlDocuments(docs);
    const std::string name =
        "random stream " + std::to_string(i) + " (seed " + std::to_string(kSeed) + ")";
    const Result<std::vector<Json>> back = ParseYamlDocuments(yaml, "emitted");
    ASSERT_TRUE(back.ok()) << name << ": " << back.status().ToString() << "\n" << yaml;
    EXPECT_EQ(Exact(Json(*back)), Exact(Json(docs))) << name << "\n" << yaml;
  }
}

// Damaged YAML must give a document or a Parse Error: never a crash, an exception or an Internal
// Error.
TEST(YamlParseTest, DamagedInputFailsCleanly) {
  constexpr uint64_t kSeed = 31337;
  RandomDocuments random(kSeed);
  std::mt19937_64 rng(kSeed);
  static constexpr std::string_view kDamage[] = {
      "-", "- ",  ":",    ": ",     "?",     "[",     "]",           "{",  "}",
      ",", "&a ", "*a",   "!!str ", "!x ",   "|",     ">",           "'",  "\"",
      "#", "\n",  "\n  ", "  ",     "---\n", "...\n", "%YAML 1.2\n", "\t", "@",
  };
  for (int i = 0; i < 2000; ++i) {
    // Odd cases damage an emitted document a little, even ones build text from the damage.
    std::string text = i % 2 ? EmitYaml(random.Value(0)) : std::string("x");
    for (int n = 1 + static_cast<int>(rng() % (i % 2 ? 3 : 12)); n > 0; --n) {
      const size_t at = text.empty() ? 0 : rng() % text.size();
      if (rng() % 2 == 0 && !text.empty()) text.erase(at, 1 + rng() % 3);
      text.insert(std::min(at, text.size()), kDamage[rng() % std::size(kDamage)]);
    }
    const Result<std::vector<Json>> docs = ParseYamlDocuments(text, "damaged");
    EXPECT_TRUE(docs.ok() || docs.status().code() == StatusCode::kParse)
        << "damaged document " << i << " (seed " << kSeed << "): " << docs.status().ToString()
        << "\n"
        << text;
  }
}

// kubectl-style files that hop writes must come back byte for byte.
TEST(YamlRoundTripTest, KubernetesTextIsStable) {
  struct Case {
    const char* name;
    const char* text;
  };
  const Case kCases[] = {
      {"TableTemplate", R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: TableTemplate
metadata:
  name: demodb-read-template
spec:
  databases:
  - profile-database
  - ads-database
  methods:
  - Scan
  connector: |
    connector = datagen
    number-of-rows = 10
)"},
      {"Job", R"(apiVersion: batch/v1
kind: Job
metadata:
  name: demo-job
  namespace: default
  labels:
    app.kubernetes.io/managed-by: hop
  annotations:
    hop/trigger: '2024-01-01T00:00:00Z'
spec:
  backoffLimit: 3
  ttlSecondsAfterFinished: 600
  template:
    spec:
      containers:
      - name: main
        image: alpine:3.19
        command:
        - sh
        - '-c'
        - echo "{{table}}" && sleep 1
        args: []
        env:
        - name: PIPELINE
          value: demo
        - name: RETRIES
          value: '3'
        - name: VERBOSE
          value: 'true'
        resources:
          limits:
            cpu: 500m
            memory: 128Mi
      - name: sidecar
        image: busybox
        command:
        - cat
      restartPolicy: Never
)"},
      {"Database and Pipeline in one stream", R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata:
  name: ads-database
spec:
  schema: ADS
  url: jdbc:demodb://names=ads
  dialect: Calcite
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Pipeline
metadata:
  name: ads-pipeline
spec:
  sql: |-
    INSERT INTO "ADS"."AD_CLICKS" SELECT *
    FROM "ADS"."PAGE_VIEWS"
  yaml: ''
status:
  ready: false
  failed: null
  replicas: 0
  ratio: 0.5
)"},
  };
  for (const Case& c : kCases) {
    const std::vector<Json> docs = ParseAll(c.text, c.name);
    EXPECT_EQ(EmitYamlDocuments(docs), c.text) << c.name;
  }
}

TEST(YamlJsonTest, ParsesAndReportsPositions) {
  struct Case {
    const char* name;
    std::string text;
    std::string expected;  // the parsed value's dump, or the error's ToString()
  };
  const Case kCases[] = {
      {"object keeps key order", R"({"b": 1, "a": [true, null, 1.5, "x"]})",
       R"({"b":1,"a":[true,null,1.5,"x"]})"},
      {"scalar", " 12 ", "12"},
      {"duplicate key keeps its place and last value", R"({"a": 1, "b": 2, "a": 3})",
       R"({"a":3,"b":2})"},
      {"syntax error on line 2", "{\"a\": 1,\n \"b\": }",
       "Parse Error: in.json: line 2, column 7: syntax error while parsing value - unexpected "
       "'}'; expected '[', '{', or a literal"},
      {"empty input", "",
       "Parse Error: in.json: line 1, column 1: syntax error while parsing value - unexpected end "
       "of input; expected '[', '{', or a literal"},
      {"invalid UTF-8 in a string", "[\"a\xff\"]",
       "Parse Error: in.json: line 1, column 4: syntax error while parsing value - invalid "
       "string: ill-formed UTF-8 byte; last read: '\"a\xff'"},
      {"too deep", std::string(kMaxNestingDepth + 1, '['),
       "Parse Error: in.json: line 1, column 257: nesting deeper than 256 levels"},
      {"brackets in strings do not count", "[\"" + std::string(1000, '[') + "\\\"\"]",
       Json::array({std::string(1000, '[') + "\""}).dump()},
  };
  for (const Case& c : kCases) {
    const Result<Json> parsed = ParseJson(c.text, "in.json");
    EXPECT_EQ(parsed.ok() ? Exact(*parsed) : parsed.status().ToString(), c.expected) << c.name;
  }
}

TEST(YamlJsonTest, Emits) {
  const Json doc = Json::parse(R"({"b": [1, 2.5], "a": "caf\u00e9"})");
  struct Case {
    const char* name;
    Json value;
    int indent;
    const char* expected;
  };
  const Case kCases[] = {
      {"compact", doc, -1, "{\"b\":[1,2.5],\"a\":\"caf\xc3\xa9\"}"},
      {"indented", doc, 2, "{\n  \"b\": [\n    1,\n    2.5\n  ],\n  \"a\": \"caf\xc3\xa9\"\n}"},
      {"invalid UTF-8 is replaced",
       Json("a\xff"
            "b"),
       -1,
       "\"a\xef\xbf\xbd"
       "b\""},
      {"NaN is null", Json(std::numeric_limits<double>::quiet_NaN()), -1, "null"},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(EmitJson(c.value, c.indent), c.expected) << c.name;
  }
}

TEST(YamlJsonTest, RandomDocumentsRoundTrip) {
  RandomDocuments random(99);
  for (int i = 0; i < 500; ++i) {
    const Json doc = random.Value(0);
    const Result<Json> back = ParseJson(EmitJson(doc, i % 2 ? 2 : -1), "emitted");
    ASSERT_TRUE(back.ok()) << "random document " << i << ": " << back.status().ToString();
    EXPECT_EQ(Exact(*back), Exact(doc)) << "random document " << i;
  }
}

// ---- the two readers ------------------------------------------------------------------------

// `text` read by libyaml's reader gives what yaml-cpp's gives.
void ExpectReadersAgree(std::string_view text, const std::string& name) {
  const std::optional<std::vector<Json>> plain = ReadPlainYaml(text);
  ASSERT_TRUE(plain.has_value()) << name << ": libyaml's reader left it to yaml-cpp\n" << text;
  const Result<std::vector<Json>> theirs = ParseYamlDocumentsWithYamlCpp(text, "test.yaml");
  ASSERT_TRUE(theirs.ok()) << name << ": " << theirs.status().ToString();
  EXPECT_EQ(Exact(Json(*plain)), Exact(Json(*theirs))) << name << "\n" << text;
}

TEST(YamlReadersTest, CommonYamlIsReadByLibyamlAsYamlCppReadsIt) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"empty stream", ""},
      {"comments only", "# one\n  # two\n"},
      {"empty documents", "---\n---\n# c\n---\n"},
      {"explicit null document", "--- null\n--- ~\n---\na: 1\n"},
      {"document end markers", "a: 1\n...\n---\nb: 2\n...\n"},
      {"root scalars and sequences", "--- 12\n--- 'x'\n---\n- 1\n- [2, 3]\n"},
      {"quoted empty root", "''\n"},
      {"core schema",
       "a: [null, Null, NULL, ~, true, False, TRUE, 0, -12, 0o17, 0x1F, 1.5, "
       "-.5, 1e3, '.inf', \"-.Inf\", yes, no, on, off, 2024-01-01, 0b101, 1_000, "
       "99999999999999999999, 18446744073709551615, 1e-999, +12, '12', \"true\"]\n"
       ".inf: .nan key\n"},
      {"empty values", "a:\nb: \nc: ''\nd:\n  - \n  -\ne: {}\nf: []\n"},
      {"keys", "1: a\ntrue: b\nnull: c\n~: d\n\"q k\": e\n'1.5': f\n? plain\n: g\n"},
      {"flow", "a: {b: 1, c: [x, 'y', \"z\"], d: {}, e: {f, g}}\nh: [ {i: j}, [] ]\n"},
      {"block scalars",
       "a: |\n  one\n   two\n\n  three\nb: |-\n  x\n\nc: |+\n  y\n\n"
       "d: >\n  folded\n  text\n\n  para\ne: >-\n  z\nf: |2\n    indented\n"},
      {"multi-line plain", "a: one\n  two\n\n  three\n"},
      {"escapes",
       "a: \"\\t\\n\\\\\\\"\\x41\\xe9\\u00e9\\U0001F600\\N\\_\\L\\P\\0\\a\\e\\/ \"\n"
       "b: 'it''s'\n"},
      {"unicode", "名前: \"値\"\nemoji: 😀\n"},
      {"byte order mark",
       "\xEF\xBB\xBF"
       "a: 1\n"},
      {"CRLF line ends", "a: 1\r\nb:\r\n  - x\r\n  - |\r\n    y\r\n"},
      {"indentation", "a:\n    b:\n        - c: 1\n          d: 2\n    e: 3\n"},
      {"sequence under a key, not indented", "a:\n- 1\n- 2\nb: 3\n"},
      {"comments everywhere", "# head\na: 1 # tail\n# mid\nb: [1, 2] # after flow\n"},
      {"colons and hashes in plain scalars", "url: http://x.y/z#frag\nt: a:b\nu: a #c\n"},
      {"a mapping of many keys",
       [] {
         std::string s;
         for (int i = 0; i < 200; ++i) {
           s += "key" + std::to_string(i) + ": " + std::to_string(i) + "\n";
         }
         return s;
       }()},
  };
  for (const auto& [name, text] : cases) ExpectReadersAgree(text, name);
  // What hop writes, and what its templates render, is what libyaml's reader is for.
  constexpr uint64_t kSeed = 11;
  RandomDocuments random(kSeed);
  for (int i = 0; i < 300; ++i) {
    std::vector<Json> docs;
    for (int k = 0; k < 3; ++k) docs.push_back(random.Value(0));
    ExpectReadersAgree(EmitYamlDocuments(docs), "random stream " + std::to_string(i));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The repository's YAML (the demo environment with its templates, the CRDs, the test
// environments) is what users write: libyaml's reader takes all of it.
TEST(YamlReadersTest, TheRepositorysYamlIsCommonYaml) {
  const char* root = std::getenv("HOP_SOURCE_DIR");
  ASSERT_NE(root, nullptr) << "HOP_SOURCE_DIR is not set (ctest sets it)";
  for (const char* file :
       {"examples/demo-environment.yaml", "test/crds/flinkdeployment.yaml",
        "test/crds/flinksessionjob.yaml", "test/crds/kafkatopic.yaml", "test/sql/env/jobs.yaml",
        "test/sql/env/provisioning.yaml", "test/sql/env/samples.yaml",
        "src/resource/testdata/crds.yaml"}) {
    std::ifstream in(std::string(root) + "/" + file);
    ASSERT_TRUE(in) << file;
    std::stringstream text;
    text << in.rdbuf();
    ASSERT_FALSE(text.str().empty()) << file;
    ExpectReadersAgree(text.str(), file);
  }
}

// Valid YAML that yaml-cpp refuses and libyaml reads is read.
TEST(YamlReadersTest, WhatOnlyLibyamlReadsIsRead) {
  const std::string text = "metadata: {name: a?b}\n";
  EXPECT_FALSE(ParseYamlDocumentsWithYamlCpp(text, "test.yaml").ok());
  const std::vector<Json> docs = ParseAll(text, "question mark in a flow plain scalar");
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(Exact(docs[0]), R"({"metadata":{"name":"a?b"}})");
}

TEST(YamlReadersTest, WhatLibyamlsReaderDoesNotTakeIsLeftToYamlCpp) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"anchor and alias", "a: &x 1\nb: *x\n"},
      {"anchored mapping", "a: &m {b: 1}\n"},
      {"tag", "a: !!str 12\n"},
      {"non-specific tag", "a: ! 12\n"},
      {"tagged sequence", "a: !!seq [1]\n"},
      {"directive", "%YAML 1.2\n---\na: 1\n"},
      {"duplicate key", "a: 1\nb: 2\na: 3\n"},
      {"duplicate key in a large mapping", [] {
         std::string s;
         for (int i = 0; i < 40; ++i) s += "k" + std::to_string(i) + ": 1\n";
         return s + "k7: 2\n";
       }()},
      {"collection key", "? [a]\n: b\n"},
      {"next line", "a: x\xC2\x85y\n"},
      {"line separator", "a: x\xE2\x80\xA8y\n"},
      {"CR alone", "a: \"x\ry\"\n"},
      {"CR alone at the end", "a: b\r"},
      {"byte order mark after the start", "\n\n\xEF\xBB\xBF"},
      {"quoted over lines", "a: 'single\n  quoted'\n"},
      {"quoted over empty lines", "\" 0\n\n\n\""},
      {"flow over lines", "a: [1, # in flow\n  2]\n"},
      {"flow over lines, outdented", "metadata: {a\nb}\n"},
      {"syntax error", "a: [1, 2\n"},
      {"unterminated quote", "a: \"abc\n"},
      {"bad indentation", "a:\n  b: 1\n c: 2\n"},
      {"too deep", std::string(300, '[') + std::string(300, ']') + "\n"},
  };
  for (const auto& [name, text] : cases) {
    EXPECT_FALSE(ReadPlainYaml(text).has_value()) << name;
    // ParseYamlDocuments then gives yaml-cpp's documents or error, message and all.
    const Result<std::vector<Json>> ours = ParseYamlDocuments(text, "test.yaml");
    const Result<std::vector<Json>> theirs = ParseYamlDocumentsWithYamlCpp(text, "test.yaml");
    ASSERT_EQ(ours.ok(), theirs.ok()) << name;
    if (ours.ok()) {
      EXPECT_EQ(Exact(Json(*ours)), Exact(Json(*theirs))) << name;
    } else {
      EXPECT_EQ(ours.status().ToString(), theirs.status().ToString()) << name;
    }
  }
}

}  // namespace
}  // namespace hop
