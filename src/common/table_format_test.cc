#include "common/table_format.h"

#include <gtest/gtest.h>

namespace hop {
namespace {

TEST(TableFormatTest, PadsToTheWidestCellAndCountsRows) {
  EXPECT_EQ(FormatTable({"columnName", "columnSize"}, {{"KEY", std::nullopt}, {"VALUE", "1"}}),
            "+------------+------------+\n"
            "| columnName | columnSize |\n"
            "+------------+------------+\n"
            "| KEY        | null       |\n"
            "| VALUE      | 1          |\n"
            "+------------+------------+\n"
            "(2 rows)\n");
}

TEST(TableFormatTest, EmptyAndSingleRowAndWideCharacters) {
  EXPECT_EQ(FormatTable({"i", "s"}, {}), "+---+---+\n| i | s |\n+---+---+\n+---+---+\n(0 rows)\n");
  EXPECT_EQ(FormatTable({"n"}, {{"ü"}}), "+---+\n| n |\n+---+\n| ü |\n+---+\n(1 row)\n");
}

}  // namespace
}  // namespace hop
