#include "common/shared_library.h"

#include <gtest/gtest.h>

namespace hop {
namespace {

TEST(SharedLibraryTest, AMissingLibraryIsNamedInTheError) {
  auto lib = SharedLibrary::Open("libhop-no-such-library.so.0", "Something");
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(lib.status().message().find(
                "Something needs libhop-no-such-library.so.0, which cannot be loaded"),
            std::string::npos)
      << lib.status().ToString();
}

TEST(SharedLibraryTest, BindsFunctionsAndNamesTheFirstMissingOne) {
  auto lib = SharedLibrary::Open("libc.so.6", "A test");
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  size_t (*strlen_fn)(const char*) = nullptr;
  lib->Bind(strlen_fn, "strlen");
  ASSERT_NE(strlen_fn, nullptr);
  EXPECT_EQ(strlen_fn("four"), 4u);
  EXPECT_TRUE(lib->status().ok());
  void (*missing)() = nullptr;
  lib->Bind(missing, "hop_no_such_function");
  EXPECT_EQ(missing, nullptr);
  EXPECT_EQ(lib->status().code(), StatusCode::kUnavailable);
  EXPECT_NE(lib->status().message().find("libc.so.6 has no function hop_no_such_function"),
            std::string::npos);
}

}  // namespace
}  // namespace hop
