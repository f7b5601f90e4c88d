// The main of every hop test binary: gtest plus the `--rewrite` flag of golden-file tests.
#include <gtest/gtest.h>

#include <cstring>

#include "test/lib/datadriven.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--rewrite") == 0) hop::testing::SetRewriteMode(true);
  }
  return RUN_ALL_TESTS();
}
