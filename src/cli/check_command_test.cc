#include "cli/check_command.h"

#include <gtest/gtest.h>

#include <sstream>

namespace hop::cli {
namespace {

TEST(CheckCommandTest, ReportsEveryErrorAndCounts) {
  std::ostringstream out, err;
  auto s = CheckScript("f.sql", "SELECT 1;\nSELEC 2;\n!tables\nSELECT (;\nSELECT 3", {}, out, err);
  EXPECT_EQ(s.statements, 4);
  EXPECT_EQ(s.commands, 1);
  EXPECT_EQ(s.errors, 2);
  EXPECT_EQ(out.str(), "");
  const std::string e = err.str();
  EXPECT_NE(e.find("f.sql: Parse Error: expected one of:"), std::string::npos) << e;
  EXPECT_NE(e.find("found 'SELEC' at line 2, column 1"), std::string::npos) << e;
  EXPECT_NE(e.find("at line 4, column 9"), std::string::npos) << e;
}

TEST(CheckCommandTest, PrintsCanonicalFormAndKeepsCommands) {
  std::ostringstream out, err;
  CheckOptions opts;
  opts.print = true;
  opts.dialect = sql::Dialect::kFlink;
  auto s = CheckScript("f.sql", "select a from t;\n!pipeline select 1\n", opts, out, err);
  EXPECT_EQ(s.errors, 0);
  EXPECT_EQ(out.str(), "SELECT `A` FROM `T`;\n!pipeline select 1\n");
  EXPECT_EQ(err.str(), "");
}

TEST(CheckCommandTest, InexpressibleStatementIsAnError) {
  std::ostringstream out, err;
  CheckOptions opts;
  opts.print = true;
  opts.dialect = sql::Dialect::kSqlite;
  auto s = CheckScript("f.sql", "\n  PAUSE TRIGGER t;", opts, out, err);
  EXPECT_EQ(s.errors, 1);
  EXPECT_EQ(err.str(),
            "f.sql:2:3: Invalid Argument: PAUSE cannot be expressed in the sqlite dialect\n");
}

}  // namespace
}  // namespace hop::cli
