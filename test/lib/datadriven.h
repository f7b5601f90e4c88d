// Golden-file tests in the datadriven style: a file is a list of cases, each a directive line,
// input lines, a `----` separator and the expected output. Running with `--rewrite` (or
// HOP_REWRITE=1) writes the actual outputs back into the file, to be reviewed as a diff.
//
//   # a comment
//   parse dialect=flink
//   SELECT 1
//   ----
//   SELECT 1
//
// Output that contains blank lines is fenced with a second `----` line before and after it.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace hop::testing {

struct DataDrivenCase {
  std::string file;
  int line = 0;                                           // of the directive
  std::string directive;                                  // first word of the directive line
  std::vector<std::pair<std::string, std::string>> args;  // `key=value` or `key` words after it
  std::string input;     // lines between the directive and `----`, joined with '\n'
  std::string expected;  // without its final newline

  bool HasArg(const std::string& key) const;
  // The value of `key=value`, or `fallback`.
  std::string Arg(const std::string& key, const std::string& fallback = "") const;
};

// Runs every case of `path` through `run` and reports each mismatch as a gtest failure naming
// the file and line. In rewrite mode, writes the outputs back instead.
void RunDataDrivenFile(const std::string& path,
                       const std::function<std::string(const DataDrivenCase&)>& run);

// The `.test` files of a folder under the source tree, e.g. "src/sql/testdata", sorted. A
// folder that is missing or holds none stops the process with a message: a suite of golden
// files must test something.
std::vector<std::string> ListTestFiles(const std::string& folder);

// An absolute path under the source tree.
std::string SourcePath(const std::string& relative);

// The name of a parameterized test over golden files: the file's base name, alphanumerics only.
std::string TestFileName(const ::testing::TestParamInfo<std::string>& info);

bool RewriteMode();
void SetRewriteMode(bool on);

}  // namespace hop::testing
