#include "sql/round_trip.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "test/lib/datadriven.h"

namespace hop::sql {
namespace {

// Every input the fuzzer ever failed on is kept in fuzz/regressions and must keep passing.
TEST(RoundTripTest, FuzzRegressionsPass) {
  const std::string dir = hop::testing::SourcePath("fuzz/regressions/sql");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    Status s = VerifyScript(buf.str());
    EXPECT_TRUE(s.ok()) << entry.path() << ": " << s.ToString();
    ++files;
  }
  EXPECT_GT(files, 0);
}

TEST(RoundTripTest, ReportsParseErrorsWithoutPositionsAsViolations) {
  EXPECT_TRUE(VerifyScript("SELECT 1; SELEC 2; CREATE TABLE t (a INT) WITH (k 'v')").ok());
}

}  // namespace
}  // namespace hop::sql
