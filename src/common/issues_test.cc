#include "common/issues.h"

#include <gtest/gtest.h>

namespace hop {
namespace {

TEST(IssuesTest, RendersNestedFindingsAndSkipsEmptyContexts) {
  Issues issues;
  Issues& doc = issues.Child("document 1 (Database/x)");
  doc.Error("spec.url: required field is missing");
  doc.Warning("spec.driver: not used");
  issues.Child("document 2 (View/y)");  // nothing found there
  Issues& deep = issues.Child("document 3").Child("metadata");
  deep.Error("name: too long");
  EXPECT_TRUE(issues.HasErrors());
  EXPECT_EQ(issues.Render(),
            "document 1 (Database/x):\n"
            "  - ERROR: spec.url: required field is missing\n"
            "  - WARNING: spec.driver: not used\n"
            "document 3:\n"
            "  metadata:\n"
            "    - ERROR: name: too long");
  Status s = issues.ToStatus(StatusCode::kValidation, "Failed validation:");
  EXPECT_EQ(s.code(), StatusCode::kValidation);
  EXPECT_EQ(s.message().substr(0, 19), "Failed validation:\n");
}

TEST(IssuesTest, WarningsAloneAreNotAFailure) {
  Issues issues;
  issues.Warning("deprecated");
  EXPECT_FALSE(issues.HasErrors());
  EXPECT_TRUE(issues.HasWarnings());
  EXPECT_TRUE(issues.ToStatus(StatusCode::kValidation, "x").ok());
}

}  // namespace
}  // namespace hop
