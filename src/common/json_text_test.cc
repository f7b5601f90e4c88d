#include "common/json_text.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace hop {
namespace {

TEST(JsonTextTest, StringsAreQuotedAndReadBackAsThemselves) {
  struct Case {
    std::string text;
    std::string json;
  } const kCases[] = {
      {"", "\"\""},
      {"plain", "\"plain\""},
      {"say \"hi\"", "\"say \\\"hi\\\"\""},
      {"a\\b", "\"a\\\\b\""},
      {"line\nnext\ttab\rcr", "\"line\\nnext\\ttab\\rcr\""},
      {std::string("\b\f\x01\x1f", 4), "\"\\b\\f\\u0001\\u001f\""},
      {"caf\xc3\xa9", "\"caf\xc3\xa9\""},  // UTF-8 stays as it is
      {std::string("nul\0x", 5), "\"nul\\u0000x\""},
  };
  for (const Case& c : kCases) {
    std::string out = "prefix:";
    AppendJsonString(c.text, out);
    EXPECT_EQ(out, "prefix:" + c.json) << c.json;
    EXPECT_EQ(nlohmann::json::parse(c.json).get<std::string>(), c.text) << c.json;
  }
}

}  // namespace
}  // namespace hop
