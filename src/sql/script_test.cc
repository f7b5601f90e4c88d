#include "sql/script.h"

#include <gtest/gtest.h>

namespace hop::sql {
namespace {

TEST(ScriptTest, UnterminatedQuoteTakesTheRest) {
  auto items = SplitScript("SELECT 1; SELECT 'abc; SELECT 2;");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[1].text, "SELECT 'abc; SELECT 2;");
  EXPECT_EQ(items[1].loc.column, 11u);
}

TEST(ScriptTest, EmptyAndCommentOnlyStatementsAreDropped) {
  auto items = SplitScript(" ; ;; -- only a comment\n /* and another */ ;");
  EXPECT_TRUE(items.empty());
  EXPECT_TRUE(SplitScript("").empty());
}

TEST(ScriptTest, CommandsOnlyWhereAStatementWouldStart) {
  auto items = SplitScript("SELECT a\n!= b;\n  !tables\n");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].kind, ScriptItem::Kind::kStatement);
  EXPECT_EQ(items[0].text, "SELECT a\n!= b");
  EXPECT_EQ(items[1].kind, ScriptItem::Kind::kCommand);
  EXPECT_EQ(items[1].text, "tables");
  EXPECT_EQ(items[1].loc.line, 3u);
  EXPECT_EQ(items[1].loc.column, 4u);
}

TEST(ScriptTest, DollarQuotesAndParameters) {
  auto items = SplitScript("SELECT $$a;b$$, $1; SELECT $x$;$x$");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].text, "SELECT $$a;b$$, $1");
  EXPECT_EQ(items[1].text, "SELECT $x$;$x$");
}

}  // namespace
}  // namespace hop::sql
