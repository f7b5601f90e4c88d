#include "common/status.h"

#include <gtest/gtest.h>

#include <memory>

namespace hop {
namespace {

TEST(StatusTest, OkHasNoCategory) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, EveryCodeRendersItsCategory) {
  struct Case {
    Status status;
    const char* rendered;
  };
  const Case kCases[] = {
      {Status::ParseError("x"), "Parse Error: x"},
      {Status::BindError("x"), "Binder Error: x"},
      {Status::CatalogNotFound("x"), "Catalog Error: x"},
      {Status::AlreadyExists("x"), "Already Exists: x"},
      {Status::InvalidArgument("x"), "Invalid Argument: x"},
      {Status::ValidationError("x"), "Validation Error: x"},
      {Status::Conflict("x"), "Conflict: x"},
      {Status::NotFound("x"), "Not Found: x"},
      {Status::Unavailable("x"), "Unavailable: x"},
      {Status::Internal("x"), "Internal Error: x"},
  };
  for (const auto& c : kCases) {
    EXPECT_FALSE(c.status.ok()) << c.rendered;
    EXPECT_EQ(c.status.ToString(), c.rendered);
  }
}

TEST(StatusTest, WithContextKeepsCode) {
  Status s = Status::NotFound("table T").WithContext("while dropping: ");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.ToString(), "Not Found: while dropping: table T");
}

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  HOP_ASSIGN_OR_RETURN(int h, Half(x));
  HOP_ASSIGN_OR_RETURN(h, Half(h));
  return h;
}

Status CheckEven(int x) {
  HOP_RETURN_IF_ERROR(Half(x));
  return Status::OK();
}

TEST(ResultTest, MacrosPropagate) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_EQ(Quarter(6).status().ToString(), "Invalid Argument: odd");
  EXPECT_TRUE(CheckEven(4).ok());
  EXPECT_FALSE(CheckEven(3).ok());
}

TEST(ResultTest, HoldsMoveOnlyValues) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(7);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 7);
}

}  // namespace
}  // namespace hop
