#include "sql/lexer.h"

#include <gtest/gtest.h>

#include "common/strings.h"

#include <vector>

namespace hop::sql {
namespace {

std::vector<TokenType> Types(std::string_view text) {
  std::vector<Token> tokens;
  Status s = Tokenize(text, Location{}, &tokens);
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::vector<TokenType> out;
  for (const auto& t : tokens) out.push_back(t.type);
  return out;
}

TEST(LexerTest, TokenKinds) {
  using T = TokenType;
  struct Case {
    const char* text;
    std::vector<TokenType> types;
  };
  const Case kCases[] = {
      {"select", {T::kWord, T::kEnd}},
      {"\"a\"\"b\" `c``d`", {T::kQuotedIdentifier, T::kQuotedIdentifier, T::kEnd}},
      {"'it''s' $$x$$ $tag$ y $tag$ X'0aF1'",
       {T::kString, T::kDollarString, T::kDollarString, T::kBinaryString, T::kEnd}},
      {"1 1.5 .5 1. 1e10 1.5E-3",
       {T::kInteger, T::kDecimal, T::kDecimal, T::kDecimal, T::kFloat, T::kFloat, T::kEnd}},
      {"? ?2 $1", {T::kParameter, T::kParameter, T::kParameter, T::kEnd}},
      {"( ) [ ] , . ; : ::",
       {T::kLParen, T::kRParen, T::kLBracket, T::kRBracket, T::kComma, T::kDot, T::kSemicolon,
        T::kColon, T::kDoubleColon, T::kEnd}},
      {"+ - * / % || = <> != < <= > >=",
       {T::kPlus, T::kMinus, T::kStar, T::kSlash, T::kPercent, T::kConcat, T::kEq, T::kNe, T::kNe,
        T::kLt, T::kLe, T::kGt, T::kGe, T::kEnd}},
      {"a -- comment\n/* block\n comment */ b", {T::kWord, T::kWord, T::kEnd}},
      {"PAGE_VIEWS$filter caf\xc3\xa9", {T::kWord, T::kWord, T::kEnd}},
      {"1-1", {T::kInteger, T::kMinus, T::kInteger, T::kEnd}},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(Types(c.text), c.types) << c.text;
  }
}

TEST(LexerTest, KeywordsAreCaseInsensitive) {
  std::vector<Token> tokens;
  ASSERT_TRUE(Tokenize("Select FROM materialized notakeyword", Location{}, &tokens).ok());
  EXPECT_EQ(tokens[0].keyword, Keyword::kSELECT);
  EXPECT_EQ(tokens[1].keyword, Keyword::kFROM);
  EXPECT_EQ(tokens[2].keyword, Keyword::kMATERIALIZED);
  EXPECT_EQ(tokens[3].keyword, Keyword::kNone);
  EXPECT_TRUE(IsReserved(Keyword::kSELECT));
  EXPECT_FALSE(IsReserved(Keyword::kKEY));
}

TEST(LexerTest, PositionsCountLinesAndStartOffset) {
  std::vector<Token> tokens;
  ASSERT_TRUE(Tokenize("a\n  'x\ny' b", Location{10, 5}, &tokens).ok());
  EXPECT_EQ(tokens[0].loc.line, 10u);
  EXPECT_EQ(tokens[0].loc.column, 5u);  // first line starts at the given column
  EXPECT_EQ(tokens[1].loc.line, 11u);
  EXPECT_EQ(tokens[1].loc.column, 3u);
  EXPECT_EQ(tokens[2].loc.line, 12u);  // after the newline inside the string
  EXPECT_EQ(tokens[2].loc.column, 4u);
}

TEST(LexerTest, UnquoteCollapsesDoubledQuotes) {
  std::string text = "'it''s' \"a\"\"b\" `c``d` $t$x$y$t$ X'0F'";
  std::vector<Token> tokens;
  ASSERT_TRUE(Tokenize(text, Location{}, &tokens).ok());
  EXPECT_EQ(UnquoteToken(text, tokens[0]), "it's");
  EXPECT_EQ(UnquoteToken(text, tokens[1]), "a\"b");
  EXPECT_EQ(UnquoteToken(text, tokens[2]), "c`d");
  EXPECT_EQ(UnquoteToken(text, tokens[3]), "x$y");
  EXPECT_EQ(UnquoteToken(text, tokens[4]), "0F");
}

TEST(LexerTest, ErrorsNameTheProblemAndPosition) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case kCases[] = {
      {"select 'abc",
       "Parse Error: unterminated string literal at line 1, column 8\n"
       "select 'abc\n"
       "       ^"},
      {"a\n \"b",
       "Parse Error: unterminated quoted identifier at line 2, column 2\n"
       " \"b\n"
       " ^"},
      {"a /* b", "Parse Error: unterminated comment at line 1, column 3\na /* b\n  ^"},
      {"a # b", "Parse Error: unexpected character '#' at line 1, column 3\na # b\n  ^"},
      {"a | b",
       "Parse Error: unexpected character '|' (did you mean '||'?) at line 1, column 3\n"
       "a | b\n  ^"},
      {"$$ x", "Parse Error: unterminated dollar-quoted string at line 1, column 1\n$$ x\n^"},
      {"X'0G'",
       "Parse Error: binary string literal may only hold hexadecimal digits at line 1, "
       "column 4\nX'0G'\n   ^"},
      {"\x01", "Parse Error: unexpected character '\\x01' at line 1, column 1\n\x01\n^"},
      {"select 1e",
       "Parse Error: malformed number (a number cannot run into a name) at line 1, "
       "column 8\nselect 1e\n       ^"},
      {"x 0x1F",
       "Parse Error: malformed number (a number cannot run into a name) at line 1, "
       "column 3\nx 0x1F\n  ^"},
      {"X'12", "Parse Error: unterminated binary string literal at line 1, column 1\nX'12\n^"},
  };
  for (const auto& c : kCases) {
    std::vector<Token> tokens;
    Status s = Tokenize(c.text, Location{}, &tokens);
    EXPECT_EQ(s.ToString(), c.message) << c.text;
  }
}

// Text that is not UTF-8, or holds a NUL, is refused wherever it is (a string literal, a quoted
// name, a comment) instead of being stored with replacement characters.
TEST(LexerTest, RefusesInvalidUtf8AndNul) {
  struct Case {
    std::string text;
    const char* message;  // the first line of the error
  };
  const Case kCases[] = {
      {"select 'a\xff" "b'", "Parse Error: invalid UTF-8 byte 0xFF at line 1, column 10"},
      {"select \"caf\xc3\"", "Parse Error: invalid UTF-8 byte 0xC3 at line 1, column 12"},
      {"select 1 -- \xc0\xaf\n", "Parse Error: invalid UTF-8 byte 0xC0 at line 1, column 13"},
      {"select\n  x\xed\xa0\x80", "Parse Error: invalid UTF-8 byte 0xED at line 2, column 4"},
      {std::string("select 'a\0b'", 13),
       "Parse Error: a NUL character is not allowed in SQL text at line 1, column 10"},
      {std::string("/* \0 */ \xff", 10),
       "Parse Error: a NUL character is not allowed in SQL text at line 1, column 4"},
      {std::string("\xff /* \0 */", 10), "Parse Error: invalid UTF-8 byte 0xFF at line 1, column 1"},
  };
  for (const auto& c : kCases) {
    std::vector<Token> tokens;
    Status s = Tokenize(c.text, Location{}, &tokens);
    const std::string first_line = s.ToString().substr(0, s.ToString().find('\n'));
    EXPECT_EQ(first_line, c.message) << EscapeForTerminal(c.text);
  }
  std::vector<Token> tokens;
  EXPECT_TRUE(Tokenize("select 'caf\xc3\xa9', \"\xe6\x97\xa5\"", Location{}, &tokens).ok());
}

TEST(LexerTest, CaretColumnCountsCharacters) {
  std::vector<Token> tokens;
  Status s = Tokenize("'\xc3\xa9\xc3\xa9' #", Location{}, &tokens);
  EXPECT_EQ(s.ToString(),
            "Parse Error: unexpected character '#' at line 1, column 6\n'\xc3\xa9\xc3\xa9' #\n"
            "     ^");
}

}  // namespace
}  // namespace hop::sql
