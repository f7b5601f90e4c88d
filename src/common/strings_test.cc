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

}  // namespace
}  // namespace hop
