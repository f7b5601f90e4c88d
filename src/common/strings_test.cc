#include "common/strings.h"

#include <gtest/gtest.h>

namespace hop {
namespace {

TEST(StringsTest, CaseMappingIsAsciiOnly) {
  EXPECT_EQ(AsciiToUpper("page_views$x"), "PAGE_VIEWS$X");
  EXPECT_EQ(AsciiToLower("ADS-Database"), "ads-database");
  EXPECT_EQ(AsciiToUpper("caf\xc3\xa9"), "CAF\xc3\xa9");  // é keeps its bytes
  EXPECT_TRUE(EqualsIgnoreCase("Apply", "APPLY"));
  EXPECT_FALSE(EqualsIgnoreCase("apply", "applyx"));
  EXPECT_EQ(TrimWhitespace("  a b \n"), "a b");
  EXPECT_EQ(TrimWhitespace(" \t"), "");
}

TEST(StringsTest, Utf8UpperCasesEveryScript) {
  struct Case {
    const char* in;
    const char* out;
  };
  const Case kCases[] = {
      {"caf\xc3\xa9", "CAF\xc3\x89"},                            // é -> É
      {"\xce\xb1\xce\xb2", "\xce\x91\xce\x92"},                  // αβ -> ΑΒ
      {"\xd0\xbc\xd0\xb8\xd1\x80", "\xd0\x9c\xd0\x98\xd0\xa0"},  // мир -> МИР
      {"page_views$x", "PAGE_VIEWS$X"},
      {"a\xff" "b", "A\xff" "B"},              // invalid UTF-8 is kept
      {"\xc0\x80", "\xc0\x80"},          // overlong NUL is kept
      {"\xe6\x97\xa5", "\xe6\x97\xa5"},  // 日 has no case
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(Utf8ToUpper(c.in), c.out) << c.in;
  }
  EXPECT_EQ(Utf8ToLower("CAF\xc3\x89 \xce\x91\xce\x92"), "caf\xc3\xa9 \xce\xb1\xce\xb2");
}

TEST(StringsTest, FindInvalidUtf8) {
  struct Case {
    std::string in;
    size_t at;
  };
  const Case kCases[] = {
      {"plain", std::string_view::npos},
      {"caf\xc3\xa9", std::string_view::npos},
      {"a\xff" "b", 1},
      {"ab\xc3", 2},                // truncated sequence
      {"\xc0\x80", 0},             // overlong NUL
      {"x\xed\xa0\x80", 1},        // a surrogate
      {"\xf4\x90\x80\x80", 0},    // past U+10FFFF
      {std::string("a\0b", 3), std::string_view::npos},  // NUL is valid UTF-8
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(FindInvalidUtf8(c.in), c.at) << EscapeForTerminal(c.in);
  }
}

TEST(StringsTest, EscapeForTerminal) {
  struct Case {
    std::string in;
    const char* out;
  };
  const Case kCases[] = {
      {"plain text", "plain text"},
      {"tab\tand\nline", "tab\tand\nline"},  // kept
      {"\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"},
      {"bell\x07 del\x7f", "bell\\x07 del\\x7f"},
      {"cr\rover", "cr\\x0dover"},
      {std::string("nul\0", 4), "nul\\x00"},
      {"c1 \xc2\x9b" "2J", "c1 \\u009b2J"},                     // U+009B, a one-byte CSI
      {"bidi \xe2\x80\xae" "abc", "bidi \\u202eabc"},          // RIGHT-TO-LEFT OVERRIDE
      {"bad \xff byte", "bad \\xff byte"},
      {"caf\xc3\xa9 \xe6\x97\xa5", "caf\xc3\xa9 \xe6\x97\xa5"},  // letters are kept
      {"back\\slash", "back\\slash"},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(EscapeForTerminal(c.in), c.out) << c.out;
  }
}

TEST(StringsTest, Base64RoundTripsTheRfcVectors) {
  const std::pair<std::string_view, std::string_view> vectors[] = {
      {"", ""},         {"f", "Zg=="},        {"fo", "Zm8="},       {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [bytes, text] : vectors) {
    EXPECT_EQ(Base64Encode(bytes), text);
    EXPECT_EQ(Base64Decode(text), std::string(bytes)) << text;
  }
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (size_t n = 0; n <= all.size(); n += 7) {
    const std::string bytes = all.substr(all.size() - n);
    EXPECT_EQ(Base64Decode(Base64Encode(bytes)), bytes) << n;
  }
}

TEST(StringsTest, Base64DecodeRefusesWhatIsNotPaddedBase64) {
  for (std::string_view bad : {"Zg", "Zg=", "Z===", "Zg=a", "Zm9v=Zg=", "Zm9v\n", "Zm 9", "Zm9*",
                               "====", "Zg==Zg=="}) {
    EXPECT_EQ(Base64Decode(bad), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace hop
