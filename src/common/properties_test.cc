#include "common/properties.h"

#include <gtest/gtest.h>

namespace hop {
namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

TEST(PropertiesTest, ParsesAsJavaPropertiesLoadDoes) {
  struct Case {
    const char* name;
    std::string text;
    Entries want;
  };
  const Case kCases[] = {
      {"empty", "", {}},
      {"template output",
       "connector = datagen\nnumber-of-rows = 10\n",
       {{"connector", "datagen"}, {"number-of-rows", "10"}}},
      {"comments and blank lines", "# a comment\n  ! another\n\n   \nk=v\n#k=w\n", {{"k", "v"}}},
      {"a comment does not continue", "# note \\\nk=v", {{"k", "v"}}},
      {"'#' after the start is data", "k=#v\nx#y=z", {{"k", "#v"}, {"x#y", "z"}}},
      {"equals", "a=1", {{"a", "1"}}},
      {"colon", "a:1", {{"a", "1"}}},
      {"whitespace", "a 1", {{"a", "1"}}},
      {"tab and form feed", "a\t\f1", {{"a", "1"}}},
      {"whitespace around separator", "  a \t= \t1", {{"a", "1"}}},
      {"whitespace then colon", "a   :  1", {{"a", "1"}}},
      {"only the first separator", "a==1", {{"a", "=1"}}},
      {"whitespace ends the key", "a b=c", {{"a", "b=c"}}},
      {"first of = and :", "a:b=c", {{"a", "b=c"}}},
      {"value keeps trailing whitespace", "a = 1  ", {{"a", "1  "}}},
      {"empty value with separator", "key=\nk2 =", {{"key", ""}, {"k2", ""}}},
      {"key alone", "key\n  k2  ", {{"key", ""}, {"k2", ""}}},
      {"continuation",
       "list = a,\\\n       b,\\\n\tc\nnext = 1",
       {{"list", "a,b,c"}, {"next", "1"}}},
      {"continued key", "ke\\\n  y=v", {{"key", "v"}}},
      {"continued comment-looking line is data", "a=\\\n  #b", {{"a", "#b"}}},
      {"empty continuation ends the line", "a=b\\\n\n  c", {{"a", "b"}, {"c", ""}}},
      {"even backslashes do not continue", "a=b\\\\\nc=d", {{"a", "b\\"}, {"c", "d"}}},
      {"trailing backslash at end of text", "a=b\\", {{"a", "b"}}},
      {"escapes", "a=\\t\\n\\r\\f\\\\\\x\\b", {{"a", "\t\n\r\f\\xb"}}},
      {"escaped separators in key", "a\\=b\\:c\\ d=e", {{"a=b:c d", "e"}}},
      {"escaped leading space in value", "a=\\  b", {{"a", "  b"}}},
      {"unicode escapes", "a=\\u0041\\u00e9\\u65E5", {{"a", "A\xc3\xa9\xe6\x97\xa5"}}},
      {"surrogate pair", "a=\\uD83D\\uDE00", {{"a", "\xf0\x9f\x98\x80"}}},
      {"lone surrogate", "a=\\uD83Dx", {{"a", "\xef\xbf\xbdx"}}},
      {"unicode in key", "\\u0041=1", {{"A", "1"}}},
      {"utf-8 passes through", "caf\xc3\xa9=cr\xc3\xa8me", {{"caf\xc3\xa9", "cr\xc3\xa8me"}}},
      {"duplicates: later wins, first position kept", "a=1\nb=2\na=3", {{"a", "3"}, {"b", "2"}}},
      {"CRLF", "a=1\r\nb=2\r\n\r\nc=3", {{"a", "1"}, {"b", "2"}, {"c", "3"}}},
      {"CR alone", "a=1\rb=2", {{"a", "1"}, {"b", "2"}}},
      {"CRLF continuation", "a=1,\\\r\n   2\r\n", {{"a", "1,2"}}},
  };
  for (const auto& c : kCases) {
    auto got = ParseProperties(c.text);
    ASSERT_TRUE(got.ok()) << c.name << ": " << got.status().ToString();
    EXPECT_EQ(*got, c.want) << c.name;
  }
}

TEST(PropertiesTest, MalformedUnicodeEscapeNamesTheLine) {
  struct Case {
    const char* name;
    const char* text;
    const char* want;
  };
  const Case kCases[] = {
      {"bad digit", "a=1\nb=\\u12G4",
       "Invalid Argument: properties line 2: malformed \\uxxxx escape '\\u12G4'"},
      {"too short at end", "# c\n\nk=\\u12",
       "Invalid Argument: properties line 3: malformed \\uxxxx escape '\\u12'"},
      {"in a key", "\\uZZZZ=1",
       "Invalid Argument: properties line 1: malformed \\uxxxx escape '\\uZZZZ'"},
      {"on a continuation line", "a=x\\\n  y\\\n  \\u00",
       "Invalid Argument: properties line 3: malformed \\uxxxx escape '\\u00'"},
      {"CRLF lines", "a=1\r\nb=2\r\nc=\\u0g00\r\n",
       "Invalid Argument: properties line 3: malformed \\uxxxx escape '\\u0g00'"},
  };
  for (const auto& c : kCases) {
    auto got = ParseProperties(c.text);
    ASSERT_FALSE(got.ok()) << c.name;
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument) << c.name;
    EXPECT_EQ(got.status().ToString(), c.want) << c.name;
  }
}

TEST(PropertiesTest, FindPropertyLooksUpByKey) {
  auto got = ParseProperties("connector=datagen\nnumber-of-rows=10\nconnector=blackhole");
  ASSERT_TRUE(got.ok());
  const std::string* connector = FindProperty(*got, "connector");
  ASSERT_NE(connector, nullptr);
  EXPECT_EQ(*connector, "blackhole");
  EXPECT_EQ(FindProperty(*got, "missing"), nullptr);
}

}  // namespace
}  // namespace hop
