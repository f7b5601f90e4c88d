#include "common/limits.h"

#include <gtest/gtest.h>
#include <stdlib.h>

namespace hop {
namespace {

TEST(LimitsTest, ParseByteSize) {
  struct Case {
    const char* text;
    bool ok;
    size_t bytes;
  };
  const Case kCases[] = {
      {"100", true, 100},        {"1536Ki", true, 1536 * 1024}, {"3Mi", true, 3 << 20},
      {"1Gi", true, 1 << 30},    {"0", false, 0},               {"", false, 0},
      {"Mi", false, 0},          {"-1", false, 0},              {"3MB", false, 0},
      {"3 Mi", false, 0},        {"99999999999999999999", false, 0},
      {"18446744073709551615Ki", false, 0},
  };
  for (const auto& c : kCases) {
    size_t bytes = 0;
    EXPECT_EQ(ParseByteSize(c.text, &bytes), c.ok) << c.text;
    if (c.ok) {
      EXPECT_EQ(bytes, c.bytes) << c.text;
    }
  }
}

TEST(LimitsTest, FormatByteSize) {
  EXPECT_EQ(FormatByteSize(3 << 20), "3 MiB");
  EXPECT_EQ(FormatByteSize(1536 * 1024), "1.5 MiB");
  EXPECT_EQ(FormatByteSize(512 * 1024), "512 KiB");
  EXPECT_EQ(FormatByteSize(1000), "1000 bytes");
}

TEST(LimitsTest, DefaultsAreKubernetesAndTheEnvironmentChangesThem) {
  const Limits defaults;
  EXPECT_EQ(defaults.max_request_bytes, size_t{3} << 20);
  EXPECT_EQ(defaults.max_object_bytes, size_t{1536} << 10);
  const Limits saved = CurrentLimits();
  setenv("HOP_MAX_RENDERED_BYTES", "64Ki", 1);
  ASSERT_TRUE(LoadLimitsFromEnvironment().ok());
  EXPECT_EQ(CurrentLimits().max_rendered_bytes, size_t{64} << 10);
  EXPECT_EQ(CurrentLimits().max_request_bytes, saved.max_request_bytes);
  setenv("HOP_MAX_OBJECT_BYTES", "lots", 1);
  const Status bad = LoadLimitsFromEnvironment();
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("HOP_MAX_OBJECT_BYTES=lots"), std::string::npos) << bad.message();
  unsetenv("HOP_MAX_RENDERED_BYTES");
  unsetenv("HOP_MAX_OBJECT_BYTES");
  SetLimits(saved);
}

}  // namespace
}  // namespace hop
