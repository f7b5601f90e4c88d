#include "common/time.h"

#include <gtest/gtest.h>

namespace hop {
namespace {

TEST(TimeTest, FormatsUtc) {
  using namespace std::chrono;
  SystemTime t = sys_days{year{2026} / 11 / 30} + hours{4} + minutes{11} + seconds{12} +
                 milliseconds{345};
  EXPECT_EQ(FormatRfc3339(t), "2026-11-30T04:11:12Z");
  EXPECT_EQ(FormatRfc3339(t, 3), "2026-11-30T04:11:12.345Z");
}

TEST(TimeTest, ParsesAndRejects) {
  using namespace std::chrono;
  const SystemTime base = sys_days{year{2026} / 11 / 30} + hours{4} + minutes{11} + seconds{12};
  struct Case {
    const char* text;
    std::optional<SystemTime> want;
  };
  const Case kCases[] = {
      {"2026-11-30T04:11:12Z", base},
      {"2026-11-30t04:11:12z", base},
      {"2026-11-30 04:11:12Z", base},
      {"2026-11-30T05:11:12+01:00", base},
      {"2026-11-30T03:41:12-00:30", base},
      {"2026-11-30T04:11:12.5Z", base + milliseconds{500}},
      {"2026-11-30T04:11:12", std::nullopt},
      {"2026-13-30T04:11:12Z", std::nullopt},
      {"2026-02-30T04:11:12Z", std::nullopt},
      {"2026-11-30T24:11:12Z", std::nullopt},
      {"2026-11-30T04:11:12.Z", std::nullopt},
      {"2026-11-30T04:11:12Zjunk", std::nullopt},
      {"yesterday", std::nullopt},
      {"", std::nullopt},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(ParseRfc3339(c.text), c.want) << c.text;
  }
  EXPECT_EQ(ParseRfc3339(FormatRfc3339(base, 9)), base);
}

TEST(TimeTest, HumanDurationsAsKubectlPrintsThem) {
  using std::chrono::seconds;
  EXPECT_EQ(HumanDuration(seconds(-5)), "0s");
  EXPECT_EQ(HumanDuration(seconds(42)), "42s");
  EXPECT_EQ(HumanDuration(seconds(119)), "119s");
  EXPECT_EQ(HumanDuration(seconds(303)), "5m3s");
  EXPECT_EQ(HumanDuration(seconds(300)), "5m");
  EXPECT_EQ(HumanDuration(seconds(47 * 60)), "47m");
  EXPECT_EQ(HumanDuration(seconds(5 * 3600 + 180)), "5h3m");
  EXPECT_EQ(HumanDuration(seconds(20 * 3600)), "20h");
  EXPECT_EQ(HumanDuration(seconds(3 * 86400 + 4 * 3600)), "3d4h");
  EXPECT_EQ(HumanDuration(seconds(45 * 86400)), "45d");
  EXPECT_EQ(HumanDuration(seconds(800 * 86400)), "2y");
}

}  // namespace
}  // namespace hop
