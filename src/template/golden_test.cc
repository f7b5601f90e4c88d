// Golden tests for the template language over src/template/testdata/*.test (datadriven files,
// docs/testing.md; the directives below are also described in docs/templates.md). Every render
// case also checks that Render, Placeholders and CheckSyntax agree on syntax errors.
//
// Directives:
//   render [eol] [calls] [properties]
//                          input: environment lines, a line `====`, then the template (without
//                          `====` the whole input is the template and the environment is empty).
//                          Output: the rendered text; `(skipped: <reason>)`; or the error.
//                          `eol` ends every output line with `$` and adds a final `$`, so that
//                          trailing blanks and line breaks show; `calls` adds a line saying how
//                          often each lazy variable's supplier ran; `properties` renders with
//                          RenderProperties and adds what the properties reader reads from the
//                          text (`read:`, then `[key] [value]` lines).
//   placeholders           input: a template. Output: the variables it uses, one a line, or
//                          `(none)`, or the error.
//   check                  input: a template. Output: `ok` or CheckSyntax's error.
//
// Environment lines, applied in order (a later binding of a key replaces an earlier one):
//   key=value              a string (everything after the first `=`, possibly empty)
//   key<<END               a multi-line string: the following lines up to a line `END`, joined
//                          with line breaks (a blank line before `END` gives a final line break)
//   map key<<END           a map, one `k=v` entry a line up to `END`; `map key=` is an empty map
//   properties key<<END    properties, likewise
//   null key               an explicit null
//   lazy key=value         a supplier returning the string (also `lazy key<<END`)
//   unavailable key        a supplier reporting "not available"
//   error key=message      a supplier failing with InvalidArgument(message)
#include <gtest/gtest.h>

#include <memory>
#include <sstream>

#include "common/properties.h"
#include "template/template.h"
#include "test/lib/datadriven.h"

namespace hop::tmpl {
namespace {

using hop::testing::DataDrivenCase;

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  if (!text.empty() && text.back() == '\n') lines.emplace_back();
  return lines;
}

std::string JoinLines(const std::vector<std::string>& lines, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    if (i > begin) out.push_back('\n');
    out += lines[i];
  }
  return out;
}

// A parsed `render` input.
struct RenderInput {
  Environment env;
  std::string text;
  // Calls per lazy variable, in the order the variables were declared.
  std::vector<std::pair<std::string, std::shared_ptr<int>>> calls;
};

Entries ParseEntries(const DataDrivenCase& c, const std::string& body) {
  Entries entries;
  if (body.empty()) return entries;
  for (const std::string& line : SplitLines(body)) {
    const size_t eq = line.find('=');
    if (eq == std::string::npos) {
      ADD_FAILURE() << c.file << ":" << c.line << ": entry without '=': " << line;
      continue;
    }
    entries.emplace_back(line.substr(0, eq), line.substr(eq + 1));
  }
  return entries;
}

Supplier Counted(std::shared_ptr<int> counter, Result<std::optional<Value>> result) {
  return [counter, result]() -> Result<std::optional<Value>> {
    ++*counter;
    return result;
  };
}

RenderInput ParseRenderInput(const DataDrivenCase& c) {
  RenderInput in;
  const std::vector<std::string> lines = SplitLines(c.input);
  size_t sep = 0;
  while (sep < lines.size() && lines[sep] != "====") ++sep;
  if (sep == lines.size()) {
    in.text = c.input;
    return in;
  }
  in.text = JoinLines(lines, sep + 1, lines.size());
  for (size_t i = 0; i < sep; ++i) {
    std::string line = lines[i];
    if (line.empty()) continue;
    auto fail = [&](const std::string& why) {
      ADD_FAILURE() << c.file << ":" << c.line << ": " << why << ": " << line;
    };
    // An optional kind word, then the key, then `=value`, `<<END` or nothing.
    std::string kind = "string";
    const size_t space = line.find(' ');
    if (space != std::string::npos && space < line.find('=') && space < line.find("<<")) {
      kind = line.substr(0, space);
      line = line.substr(space + 1);
    }
    const size_t eq = line.find('=');
    const size_t heredoc = line.find("<<");
    std::string key;
    std::optional<std::string> body;
    if (heredoc != std::string::npos && heredoc < eq) {
      key = line.substr(0, heredoc);
      const std::string end = line.substr(heredoc + 2);
      size_t j = i + 1;
      while (j < sep && lines[j] != end) ++j;
      if (j == sep) fail("heredoc without its end line " + end);
      body = JoinLines(lines, i + 1, j);
      i = j;
    } else if (eq != std::string::npos) {
      key = line.substr(0, eq);
      body = line.substr(eq + 1);
    } else {
      key = line;
    }
    const bool needs_body = kind != "null" && kind != "unavailable";
    if (needs_body != body.has_value()) {
      fail(needs_body ? "missing value" : "unexpected value");
      continue;
    }
    if (kind == "string") {
      in.env.Set(key, *body);
    } else if (kind == "map") {
      in.env.SetMap(key, ParseEntries(c, *body));
    } else if (kind == "properties") {
      in.env.SetProperties(key, ParseEntries(c, *body));
    } else if (kind == "null") {
      in.env.SetNull(key);
    } else if (kind == "lazy" || kind == "unavailable" || kind == "error") {
      auto counter = std::make_shared<int>(0);
      in.calls.emplace_back(key, counter);
      Result<std::optional<Value>> result = std::optional<Value>();
      if (kind == "lazy") result = std::optional<Value>(Value::String(*body));
      if (kind == "error") result = Status::InvalidArgument(*body);
      in.env.SetLazy(key, Counted(counter, std::move(result)));
    } else {
      fail("unknown kind " + kind);
    }
  }
  return in;
}

std::string ShowLineEnds(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '\n') out.push_back('$');
    out.push_back(ch);
  }
  return out + "$";
}

// What the properties reader (common/properties.h) reads from `text`: a line `read:`, then one
// line per entry, `[key] [value]`, with line feeds, carriage returns and tabs shown as \n \r \t.
std::string ReadAsProperties(const std::string& text) {
  const auto shown = [](const std::string& s) {
    std::string out;
    for (char ch : s) {
      if (ch == '\n') {
        out += "\\n";
      } else if (ch == '\r') {
        out += "\\r";
      } else if (ch == '\t') {
        out += "\\t";
      } else {
        out += ch;
      }
    }
    return out;
  };
  auto entries = ParseProperties(text);
  if (!entries.ok()) return "\nread: " + entries.status().ToString();
  std::string out = "\nread:";
  for (const auto& [k, v] : *entries) out += "\n[" + shown(k) + "] [" + shown(v) + "]";
  return out;
}

std::string RunRender(const DataDrivenCase& c) {
  RenderInput in = ParseRenderInput(c);
  SkipReason why;
  const bool properties = c.HasArg("properties");
  const auto rendered =
      properties ? RenderProperties(in.text, in.env, &why) : Render(in.text, in.env, &why);
  std::string out;
  if (!rendered.ok()) {
    out = rendered.status().ToString();
  } else if (!rendered->has_value()) {
    out = "(skipped: " + why.ToString() + ")";
  } else {
    out = c.HasArg("eol") ? ShowLineEnds(**rendered) : **rendered;
    if (properties) out += ReadAsProperties(**rendered);
  }
  if (c.HasArg("calls")) {
    out += "\ncalls:";
    for (const auto& [key, n] : in.calls) out += " " + key + "=" + std::to_string(*n);
  }

  // Render fails with a ParseError exactly when Placeholders does, with the same error; and
  // whatever CheckSyntax accepts, Placeholders accepts.
  const auto keys = Placeholders(in.text);
  const bool render_parse_error = !rendered.ok() && rendered.status().code() == StatusCode::kParse;
  EXPECT_EQ(!keys.ok(), render_parse_error) << c.file << ":" << c.line;
  if (!keys.ok() && render_parse_error) {
    EXPECT_EQ(keys.status(), rendered.status()) << c.file << ":" << c.line;
  }
  if (CheckSyntax(in.text).ok()) {
    EXPECT_TRUE(keys.ok()) << c.file << ":" << c.line;
  }
  return out;
}

std::string RunPlaceholders(const DataDrivenCase& c) {
  const auto keys = Placeholders(c.input);
  if (!keys.ok()) return keys.status().ToString();
  if (keys->empty()) return "(none)";
  std::string out;
  for (const std::string& k : *keys) out += k + "\n";
  return out;
}

std::string RunCheck(const DataDrivenCase& c) {
  const Status s = CheckSyntax(c.input);
  return s.ok() ? "ok" : s.ToString();
}

class TemplateGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TemplateGoldenTest, Matches) {
  hop::testing::RunDataDrivenFile(GetParam(), [](const DataDrivenCase& c) -> std::string {
    if (c.directive == "render") return RunRender(c);
    if (c.directive == "placeholders") return RunPlaceholders(c);
    if (c.directive == "check") return RunCheck(c);
    ADD_FAILURE() << c.file << ":" << c.line << ": unknown directive " << c.directive;
    return "";
  });
}

INSTANTIATE_TEST_SUITE_P(Testdata, TemplateGoldenTest,
                         ::testing::ValuesIn(hop::testing::ListTestFiles("src/template/testdata")),
                         hop::testing::TestFileName);

}  // namespace
}  // namespace hop::tmpl
