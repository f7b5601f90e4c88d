#include "resource/json_parse.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

namespace hop::resource {
namespace {

// The document with every value's type spelled out: 1 unsigned, 1 signed and 1.0 differ.
std::string Typed(const Json& j) {
  switch (j.type()) {
    case Json::value_t::object: {
      std::string out = "{";
      for (const auto& [k, v] : j.items()) out += Json(k).dump() + ":" + Typed(v) + ",";
      return out + "}";
    }
    case Json::value_t::array: {
      std::string out = "[";
      for (const Json& v : j) out += Typed(v) + ",";
      return out + "]";
    }
    case Json::value_t::number_unsigned: return "u" + j.dump();
    case Json::value_t::number_integer: return "i" + j.dump();
    case Json::value_t::number_float: return "f" + j.dump();
    case Json::value_t::discarded: return "discarded";
    default: return j.dump();
  }
}

// Whatever the fast parser gives is what Json::parse gives; the combined entry point agrees
// with Json::parse on everything, failures included.
void ExpectSameAsNlohmann(std::string_view text) {
  const Json theirs = Json::parse(text, nullptr, false);
  if (std::optional<Json> ours = FastParseJson(text)) {
    ASSERT_FALSE(theirs.is_discarded()) << "accepted what Json::parse refuses: " << text;
    EXPECT_EQ(Typed(*ours), Typed(theirs)) << text;
  }
  EXPECT_EQ(Typed(ParseJsonOrDiscarded(text)), Typed(theirs)) << text;
}

constexpr std::string_view kObject = R"({"apiVersion":"hoptimator.linkedin.com/v1alpha1",
  "kind":"View","metadata":{"name":"ads-audience","namespace":"default","uid":"9f1c",
  "resourceVersion":"42","generation":3,"labels":{"a.b/c":"d"},"annotations":{}},
  "spec":{"sql":"SELECT \"X\" FROM t WHERE s = 'caf\u00e9 \ud83d\ude00' \\ \/","materialized":true,
  "columns":[{"name":"ID","type":"INTEGER","nullable":false},{"name":"V","size":-7}],
  "ratio":0.25,"big":1.5e300,"tiny":-2E-5,"zero":-0,"none":null},"status":{"ready":false}})";

TEST(JsonParseTest, TakesOnWhatHopStoresAndMatchesNlohmann) {
  ASSERT_TRUE(FastParseJson(kObject).has_value());
  ExpectSameAsNlohmann(kObject);
}

TEST(JsonParseTest, EdgeCasesMatchNlohmann) {
  for (std::string_view text : {
           "", " ", "{}", "[]", "[ ]", "{ }", "0", "-0", "01", "-", "1.", ".5", "1e", "1e+",
           "1E-2", "18446744073709551615", "18446744073709551616", "-9223372036854775808",
           "-9223372036854775809", "1e400", "1e-400", "4.9e-324", "\"\"", "\"a", "\"\\x\"",
           "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\u0000\"",
           "\"\xc3\xa9\"", "\"\xc3\"", "\"\xed\xa0\x80\"", "\"\xc0\xaf\"", "\"\xf4\x90\x80\x80\"",
           "\"tab\there\"", "\"\x7f\"", "true", "tru", "truex", "nul", "null ", " null",
           "[1,]", "[,1]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{\"a\":1,\"a\":2}",
           "{\"a\":1,\"b\":2,\"a\":{\"c\":3}}", "[1 2]", "{}{}", "\xef\xbb\xbf{}", "[[[]]]",
           "{\"k\":[true,false,null,-1,2,3.5]}", "\"\\/\\b\\f\\n\\r\\t\\\"\\\\\""}) {
    ExpectSameAsNlohmann(text);
  }
}

TEST(JsonParseTest, DeepNestingGoesToNlohmann) {
  const std::string deep = std::string(kFastDepth + 1, '[') + std::string(kFastDepth + 1, ']');
  EXPECT_FALSE(FastParseJson(deep).has_value());
  ExpectSameAsNlohmann(deep);
  const std::string ok = std::string(kFastDepth, '[') + std::string(kFastDepth, ']');
  EXPECT_TRUE(FastParseJson(ok).has_value());
}

TEST(JsonParseTest, MutationsOfAStoredObjectMatchNlohmann) {
  std::mt19937 random(3);
  const std::string alphabet = "{}[]\":,\\u0123456789abcdefABCDEF.eE+- \t\n\x80\xc3\xff";
  for (int i = 0; i < 20000; ++i) {
    std::string text(kObject);
    const int edits = 1 + static_cast<int>(random() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = random() % text.size();
      switch (random() % 3) {
        case 0: text[at] = alphabet[random() % alphabet.size()]; break;
        case 1: text.erase(at, 1 + random() % 4); break;
        default: text.insert(at, 1, alphabet[random() % alphabet.size()]); break;
      }
    }
    ExpectSameAsNlohmann(text);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace hop::resource
