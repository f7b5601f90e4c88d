// Reader, runner and rewriter for datadriven golden files.
#include "test/lib/datadriven.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace hop::testing {
namespace {

bool g_rewrite = false;

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::string Join(const std::vector<std::string>& lines, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    if (i > begin) out.push_back('\n');
    out += lines[i];
  }
  return out;
}

bool IsBlank(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t'; });
}

struct ParsedCase {
  DataDrivenCase c;
  size_t first_line;   // index of the directive line
  size_t output_line;  // index of the first output line (after the separator or fence)
  size_t end_line;     // one past the case's last line
};

std::vector<ParsedCase> ParseFile(const std::string& path, const std::vector<std::string>& lines) {
  std::vector<ParsedCase> cases;
  size_t i = 0;
  while (i < lines.size()) {
    if (IsBlank(lines[i]) || lines[i][0] == '#') {
      ++i;
      continue;
    }
    ParsedCase pc;
    pc.first_line = i;
    pc.c.file = path;
    pc.c.line = static_cast<int>(i + 1);
    std::istringstream words(lines[i]);
    words >> pc.c.directive;
    std::string w;
    while (words >> w) {
      size_t eq = w.find('=');
      if (eq == std::string::npos) {
        pc.c.args.emplace_back(w, "");
      } else {
        pc.c.args.emplace_back(w.substr(0, eq), w.substr(eq + 1));
      }
    }
    ++i;
    size_t input_begin = i;
    while (i < lines.size() && lines[i] != "----") ++i;
    pc.c.input = Join(lines, input_begin, i);
    if (i >= lines.size()) {
      ADD_FAILURE() << path << ":" << pc.c.line << ": case has no ---- separator";
      pc.output_line = pc.end_line = i;
      cases.push_back(std::move(pc));
      break;
    }
    ++i;  // ----
    if (i < lines.size() && lines[i] == "----") {
      ++i;
      pc.output_line = i;
      size_t begin = i;
      while (i + 1 < lines.size() && !(lines[i] == "----" && lines[i + 1] == "----")) ++i;
      pc.c.expected = Join(lines, begin, i);
      i = std::min(i + 2, lines.size());
    } else {
      pc.output_line = i;
      size_t begin = i;
      while (i < lines.size() && !IsBlank(lines[i])) ++i;
      pc.c.expected = Join(lines, begin, i);
    }
    pc.end_line = i;
    cases.push_back(std::move(pc));
  }
  return cases;
}

std::string FormatOutput(const std::string& out) {
  std::string trimmed = out;
  while (!trimmed.empty() && trimmed.back() == '\n') trimmed.pop_back();
  bool needs_fence = false;
  for (const auto& l : SplitLines(trimmed)) {
    if (IsBlank(l)) needs_fence = true;
  }
  if (needs_fence) return "----\n----\n" + trimmed + "\n----\n----\n";
  return "----\n" + trimmed + (trimmed.empty() ? "" : "\n");
}

}  // namespace

bool DataDrivenCase::HasArg(const std::string& key) const {
  return std::any_of(args.begin(), args.end(), [&](const auto& a) { return a.first == key; });
}

std::string DataDrivenCase::Arg(const std::string& key, const std::string& fallback) const {
  for (const auto& a : args) {
    if (a.first == key) return a.second;
  }
  return fallback;
}

std::string TestFileName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(info.param.find_last_of('/') + 1);
  name = name.substr(0, name.find('.'));
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

bool RewriteMode() {
  const char* env = std::getenv("HOP_REWRITE");
  return g_rewrite || (env != nullptr && std::string(env) == "1");
}

void SetRewriteMode(bool on) { g_rewrite = on; }

std::string SourcePath(const std::string& relative) {
  return std::string(HOP_SOURCE_DIR) + "/" + relative;
}

std::vector<std::string> ListTestFiles(const std::string& folder) {
  std::vector<std::string> files;
  std::error_code ec;
  const std::string path = SourcePath(folder);
  for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
    if (entry.path().extension() == ".test") files.push_back(entry.path().string());
  }
  // A golden suite without files would pass having tested nothing. This runs while tests are
  // registered, before any can fail, so it stops the binary instead.
  if (ec || files.empty()) {
    std::fprintf(stderr, "ListTestFiles: no .test files in %s%s%s\n", path.c_str(), ec ? ": " : "",
                 ec ? ec.message().c_str() : "");
    std::abort();
  }
  std::sort(files.begin(), files.end());
  return files;
}

void RunDataDrivenFile(const std::string& path,
                       const std::function<std::string(const DataDrivenCase&)>& run) {
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream buf;
  buf << in.rdbuf();
  const std::vector<std::string> lines = SplitLines(buf.str());
  std::vector<ParsedCase> cases = ParseFile(path, lines);

  const bool rewrite = RewriteMode();
  std::string rewritten;
  size_t copied = 0;  // lines of the original already carried into `rewritten`
  for (const ParsedCase& pc : cases) {
    std::string actual = run(pc.c);
    while (!actual.empty() && actual.back() == '\n') actual.pop_back();
    if (rewrite) {
      for (size_t i = copied; i < pc.first_line; ++i) rewritten += lines[i] + "\n";
      size_t sep = pc.first_line + 1;
      while (sep < lines.size() && lines[sep] != "----") ++sep;
      for (size_t i = pc.first_line; i < sep && i < lines.size(); ++i) {
        rewritten += lines[i] + "\n";
      }
      rewritten += FormatOutput(actual);
      copied = pc.end_line;
    } else {
      EXPECT_EQ(pc.c.expected, actual)
          << pc.c.file << ":" << pc.c.line << ": " << pc.c.directive << "\n"
          << pc.c.input << "\n(run with --rewrite to accept the new output)";
    }
  }
  if (rewrite) {
    for (size_t i = copied; i < lines.size(); ++i) rewritten += lines[i] + "\n";
    std::ofstream out(path, std::ios::trunc);
    out << rewritten;
  }
}

}  // namespace hop::testing
