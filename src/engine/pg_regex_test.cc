#include "engine/pg_regex.h"

#include <gtest/gtest.h>
#include <re2/re2.h>

namespace hop::engine {
namespace {

struct Case {
  const char* pattern;
  const char* text;
  bool matches;
};

// What PostgreSQL 15 answers for `text ~ pattern`.
constexpr Case kCases[] = {
    {"^pg_", "pg_catalog", true},
    {"^pg_", "public", false},
    {"^(orders)$", "orders", true},
    {"^(orders)$", "orders2", false},
    {"^pg_toast", "pg_toast_temp_1", true},
    {"a.c", "a\nc", true},  // `.` matches a newline
    {"^b", "a\nb", false},  // `^` is the start of the text only
    {"\\yfoo\\y", "a foo b", true},
    {"\\yfoo\\y", "afoob", false},
    {"x\\Z", "abx", true},
    {"(?i)ABC", "xabcx", true},
    {"***=a.c", "abc", false},
    {"***=a.c", "xa.cx", true},
    {"***:a.c", "abc", true},
    {"[]a]", "]", true},
    {"[^]a]", "b", true},
    {"[[:digit:]]+", "ab12", true},
    {"\\d{2}", "a1", false},
    {"\\x41", "A", true},
    {"\\u00e9", "caf\xc3\xa9", true},
    {"a\\Bb", "a\\b", true},
};

TEST(PgRegexTest, MatchesAsPostgres) {
  for (const Case& c : kCases) {
    auto re = PostgresRegexToRe2(c.pattern);
    ASSERT_TRUE(re.ok()) << c.pattern << ": " << re.status().message();
    RE2 compiled(*re);
    ASSERT_TRUE(compiled.ok()) << c.pattern << " -> " << *re << ": " << compiled.error();
    EXPECT_EQ(RE2::PartialMatch(c.text, compiled), c.matches) << c.pattern << " -> " << *re;
  }
}

TEST(PgRegexTest, RefusesWhatRe2CannotRun) {
  constexpr const char* kRefused[] = {"(a)\\1", "a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b",
                                      "\\mfoo", "foo\\M", "(?x)a b", "[[.hyphen.]]", "a\\"};
  for (const char* p : kRefused) {
    auto re = PostgresRegexToRe2(p);
    EXPECT_FALSE(re.ok()) << p << " -> " << (re.ok() ? *re : "");
    if (!re.ok()) {
      EXPECT_NE(re.status().message().find("regular expression"), std::string::npos) << p;
    }
  }
}

}  // namespace
}  // namespace hop::engine
