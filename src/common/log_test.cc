// Tests of the JSON log format: every line parses as JSON with ts, level and msg whatever the
// message's bytes, and carries the reconcile's id inside a ReconcileScope only.
#include "common/log.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

namespace hop::log {
namespace {

using nlohmann::json;

SystemTime At() {
  using namespace std::chrono;
  return sys_days{year{2026} / 12 / 2} + hours{4} + minutes{23} + seconds{49} + milliseconds{7};
}

TEST(LogTest, JsonLineHasTimestampLevelAndMessage) {
  EXPECT_EQ(JsonLine(Level::kWarn, "queue is full", At()),
            R"({"ts":"2026-12-02T04:23:49.007Z","level":"warn","msg":"queue is full"})");
}

TEST(LogTest, JsonLineIsValidForAnyMessage) {
  struct Case {
    const char* name;
    std::string message;
    std::string want;  // msg once parsed
  };
  const Case kCases[] = {
      {"quotes and backslashes", R"(say "hi" \ bye)", R"(say "hi" \ bye)"},
      {"newline and tab", "two\nlines\tand tab", "two\nlines\tand tab"},
      {"control characters", std::string("nul\0bell\7esc\33del\177", 17),
       std::string("nul\0bell\7esc\33del\177", 17)},
      {"utf-8 kept", "café ☕", "café ☕"},
      {"stray continuation byte", "a\x80z", "a\xEF\xBF\xBDz"},
      {"truncated sequence", "caf\xC3", "caf\xEF\xBF\xBD"},
      {"overlong slash", "\xC0\xAF", "\xEF\xBF\xBD\xEF\xBF\xBD"},
      {"surrogate", "\xED\xA0\x80!", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD!"},
      {"empty", "", ""},
  };
  for (const Case& c : kCases) {
    const std::string line = JsonLine(Level::kError, c.message, At());
    EXPECT_EQ(line.find('\n'), std::string::npos) << c.name;
    json parsed = json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(parsed.is_discarded()) << c.name << ": " << line;
    EXPECT_EQ(parsed["msg"], c.want) << c.name;
    EXPECT_EQ(parsed["level"], "error") << c.name;
    EXPECT_FALSE(parsed.contains("reconcile_id")) << c.name;
  }
}

TEST(LogTest, ReconcileScopeAddsItsIdOnItsThreadOnly) {
  EXPECT_EQ(CurrentReconcileId(), "");
  {
    ReconcileScope outer("r-000001", "View default/v");
    json line = json::parse(JsonLine(Level::kInfo, "m", At()));
    EXPECT_EQ(line["reconcile_id"], "r-000001");
    EXPECT_EQ(line["object"], "View default/v");
    {
      ReconcileScope inner("r-000002", "Job default/j");
      EXPECT_EQ(CurrentReconcileId(), "r-000002");
    }
    EXPECT_EQ(CurrentReconcileId(), "r-000001");
    std::string other_thread;
    std::thread([&] { other_thread = JsonLine(Level::kInfo, "m", At()); }).join();
    EXPECT_FALSE(json::parse(other_thread).contains("reconcile_id"));
  }
  EXPECT_EQ(CurrentReconcileId(), "");
}

TEST(LogTest, WriteInJsonFormatPrintsOneParsableLineToStderr) {
  const Level level_before = GetLevel();
  SetLevel(Level::kInfo);
  SetFormat(Format::kJson);
  ::testing::internal::CaptureStderr();
  {
    ReconcileScope scope("r-000042", "TableTrigger default/nightly");
    Info("started {} with password=hunter2", "job");
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  SetFormat(Format::kText);
  SetLevel(level_before);

  ASSERT_FALSE(err.empty());
  EXPECT_EQ(err.back(), '\n');
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
  json line = json::parse(err);
  EXPECT_EQ(line["level"], "info");
  EXPECT_EQ(line["reconcile_id"], "r-000042");
  EXPECT_EQ(line["object"], "TableTrigger default/nightly");
  EXPECT_EQ(line["msg"].get<std::string>().find("hunter2"), std::string::npos) << line["msg"];
  EXPECT_TRUE(std::regex_match(line["ts"].get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")))
      << line["ts"];
}

TEST(LogTest, ParsesFormats) {
  Format f = Format::kText;
  EXPECT_TRUE(ParseFormat("json", &f));
  EXPECT_EQ(f, Format::kJson);
  EXPECT_TRUE(ParseFormat("text", &f));
  EXPECT_EQ(f, Format::kText);
  EXPECT_FALSE(ParseFormat("JSON", &f));
  EXPECT_FALSE(ParseFormat("", &f));
}

}  // namespace
}  // namespace hop::log
