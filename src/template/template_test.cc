#include "template/template.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/limits.h"
#include "common/properties.h"
#include "common/source_error.h"
#include "template/placeholder.h"
#include "test/lib/datadriven.h"

namespace hop::tmpl {
namespace {

// The rendered text, "<skipped: reason>" or "<error: status>".
std::string Show(std::string_view text, const Environment& env) {
  SkipReason why;
  auto r = Render(text, env, &why);
  if (!r.ok()) return "<error: " + r.status().ToString() + ">";
  if (!r->has_value()) return "<skipped: " + why.ToString() + ">";
  return **r;
}

// The output is bounded (HOP_MAX_RENDERED_BYTES) before it is built: a value's line breaks under
// a long prefix, repeated placeholders and long literal text all count.
TEST(TemplateTest, OutputIsBounded) {
  const Limits saved = CurrentLimits();
  Limits limits = saved;
  limits.max_rendered_bytes = 1000;
  SetLimits(limits);
  Environment env;
  env.Set("lines", std::string(100, '\n')).Set("word", std::string(100, 'w'));
  struct Case {
    const char* name;
    std::string text;
    const char* want;  // the output's size, or the error
  };
  const std::string prefix = "\n" + std::string(20, ' ');
  std::string ten_words;
  for (int i = 0; i < 10; ++i) ten_words += "{{word}}";
  const Case kCases[] = {
      {"exactly the limit", std::string(900, '.') + "{{word}}", "1000"},
      {"one byte past it in literal text", std::string(901, '.') + "{{word}}",
       "Invalid Argument: the template's output would be larger than 1000 bytes "
       "(HOP_MAX_RENDERED_BYTES) at line 1, column 902"},
      {"line breaks times a prefix", "a:" + prefix + "{{lines}}",
       "Invalid Argument: the template's output would be larger than 1000 bytes "
       "(HOP_MAX_RENDERED_BYTES) at line 2, column 21"},
      {"repeated placeholders", ten_words + "{{word}}",
       "Invalid Argument: the template's output would be larger than 1000 bytes "
       "(HOP_MAX_RENDERED_BYTES) at line 1, column 81"},
      {"ten fit", ten_words, "1000"},
  };
  for (const Case& c : kCases) {
    auto r = Render(c.text, env);
    const std::string got =
        !r.ok() ? r.status().ToString() : r->has_value() ? std::to_string((*r)->size()) : "skip";
    EXPECT_EQ(got, c.want) << c.name;
    std::vector<Deferred> deferred;
    auto partial = RenderPartial(c.text, env, &deferred);
    const std::string got_partial = !partial.ok()        ? partial.status().ToString()
                                    : partial->has_value() ? std::to_string((*partial)->size())
                                                           : "skip";
    EXPECT_EQ(got_partial, c.want) << c.name << " (partial)";
  }
  SetLimits(saved);
}

TEST(TemplateTest, Renders) {
  Environment env;
  env.Set("name", "page-views")
      .Set("type", "SQL")
      .Set("lines", "a\nb")
      .SetNull("nothing")
      .SetMap("map", {{"k", "v"}})
      .SetProperties("props", {{"k", "v"}, {"k2", "v2"}});
  struct Case {
    const char* text;
    const char* want;
  };
  const Case kCases[] = {
      {"", ""},
      {"plain", "plain"},
      {"{{name}}", "page-views"},
      {"x{{name}}y", "xpage-viewsy"},
      {"{{ name }}", "page-views"},
      {"{{name:dflt}}", "page-views"},
      {"{{absent:dflt}}", "dflt"},
      {"[{{absent:}}]", "[]"},
      {"{{nothing:d}}", "d"},
      {"{{name toUpperCase}}", "PAGE-VIEWS"},
      {"{{absent:a.b-c toUpperCase}}", "A.B-C"},
      {"{{lines concat toUpperCase}}", "AB"},
      {"{{type==SQL}}done", "done"},
      {"a\n  - {{type==SQL}}\nb", "a\nb"},
      {"{{type!=BEAM}}done", "done"},
      {"k:\n- {{lines}}", "k:\n- a\n- b"},
      {"k: {{lines}}", "k: a b"},
      {"k: |\n  {{lines}}", "k: |\n  a\n  b"},
      {"#{{lines}}", "#a#b"},
      {"x:\n  # {{lines}}", "x:\n  # a\n  # b"},
      {"m: {{map}}", "m: {k: v}"},
      {"p:\n  {{props}}", "p:\n  k: 'v'\n  k2: 'v2'"},
      {"{{absent}}", "<skipped: variable 'absent' is missing at line 1, column 1>"},
      {"{{nothing}}", "<skipped: variable 'nothing' is missing at line 1, column 1>"},
      {"a\n  b {{type==BEAM}}",
       "<skipped: guard {{type==BEAM}} does not hold at line 2, column 5>"},
      {"{{type!=SQL}}", "<skipped: guard {{type!=SQL}} does not hold at line 1, column 1>"},
      {"{{absent==x}}", "<skipped: variable 'absent' is missing at line 1, column 1>"},
      {"{{name", "{{name"},
      {"{{name}", "{{name}"},
      {"}}{{", "}}{{"},
      {"{{ name! }}", "{{ name! }}"},
      {"{{{name}}}", "{page-views}"},
      {"{{name bad}}",
       "<error: Parse Error: unknown template transform 'bad' (expected one of: toUpperCase, "
       "toLowerCase, concat, shellQuote, yamlQuote) at line 1, column 8\n{{name bad}}\n       ^>"},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(Show(c.text, env), c.want) << "template: " << c.text;
  }
}

// Every line break a reader of the output may end a line at is replaced by the prefix: "\n",
// "\r\n" (once), a lone "\r" (the connector properties reader splits there), and YAML 1.1's
// U+0085, U+2028 and U+2029; concat deletes them all. A value cannot start a new line, and so no
// new connector option or YAML key, behind a placeholder.
TEST(TemplateTest, EveryLineBreakTakesThePrefix) {
  struct Case {
    const char* name;
    const char* value;
    const char* want_key;     // rendered by "topic = {{v}}"
    const char* want_list;    // rendered by "k:\n- {{v}}"
    const char* want_concat;  // rendered by "{{v concat}}"
  };
  const Case kCases[] = {
      {"LF", "a\nb", "topic = a b", "k:\n- a\n- b", "ab"},
      {"CR", "a\rconnector = filesystem", "topic = a connector = filesystem",
       "k:\n- a\n- connector = filesystem", "aconnector = filesystem"},
      {"CRLF is one break", "a\r\nb", "topic = a b", "k:\n- a\n- b", "ab"},
      {"LF CR is two", "a\n\rb", "topic = a  b", "k:\n- a\n- \n- b", "ab"},
      {"NEL", "a\u0085b", "topic = a b", "k:\n- a\n- b", "ab"},
      {"LS", "a\u2028b", "topic = a b", "k:\n- a\n- b", "ab"},
      {"PS", "a\u2029b", "topic = a b", "k:\n- a\n- b", "ab"},
      {"other characters of those scripts stay", "\xC2\xA0\xE2\x80\xA7\xE2\x82\xAC\xC2",
       "topic = \xC2\xA0\xE2\x80\xA7\xE2\x82\xAC\xC2", "k:\n- \xC2\xA0\xE2\x80\xA7\xE2\x82\xAC\xC2",
       "\xC2\xA0\xE2\x80\xA7\xE2\x82\xAC\xC2"},
      {"a trailing CR", "a\r", "topic = a ", "k:\n- a\n- ", "a"},
  };
  for (const Case& c : kCases) {
    Environment env;
    env.Set("v", c.value);
    EXPECT_EQ(Show("topic = {{v}}", env), c.want_key) << c.name;
    EXPECT_EQ(Show("k:\n- {{v}}", env), c.want_list) << c.name;
    EXPECT_EQ(Show("{{v concat}}", env), c.want_concat) << c.name;
    std::vector<Deferred> deferred;
    auto partial = RenderPartial("k:\n- {{v}}", env, &deferred);
    ASSERT_TRUE(partial.ok() && partial->has_value()) << c.name;
    EXPECT_EQ(**partial, c.want_list) << c.name << " (partial)";
  }
}

TEST(TemplateTest, SkipReasonDescribesTheFirstFailure) {
  Environment env;
  env.Set("t", "BEAM");
  SkipReason why;
  auto r = Render("ok\n  {{t==SQL}} {{missing}}", env, &why);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
  EXPECT_EQ(why.cause, SkipReason::Cause::kGuardFailed);
  EXPECT_EQ(why.key, "t");
  EXPECT_EQ(why.placeholder, "{{t==SQL}}");
  EXPECT_EQ(why.line, 2u);
  EXPECT_EQ(why.column, 3u);
  // Without an out-parameter the result is the same.
  auto again = Render("ok\n  {{t==SQL}} {{missing}}", env);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->has_value());
}

TEST(TemplateTest, PlaceholdersListsDistinctKeysInOrder) {
  struct Case {
    const char* text;
    std::vector<std::string> want;
  };
  const Case kCases[] = {
      {"", {}},
      {"no placeholders {{ or {{ bad! }}", {}},
      {"{{b}} {{a:1}} {{b toUpperCase}} {{c==x}} {{d!=y}}", {"b", "a", "c", "d"}},
      {"{{{x}}} {{y}", {"x"}},
  };
  for (const Case& c : kCases) {
    auto keys = Placeholders(c.text);
    ASSERT_TRUE(keys.ok()) << c.text << ": " << keys.status().ToString();
    EXPECT_EQ(*keys, c.want) << c.text;
  }
  auto bad = Placeholders("{{a}} {{b trim}}");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kParse);
}

TEST(TemplateTest, CheckSyntax) {
  struct Case {
    const char* text;
    const char* want;  // "ok", or the first line of the error
  };
  const Case kCases[] = {
      {"", "ok"},
      {"{{a}} {{b:}} {{c==d}} {{e!=}} {{f toUpperCase toLowerCase concat}}", "ok"},
      {"unterminated {{ here", "ok"},
      {"{{ first {{second}}", "ok"},
      {"{{{x}}}", "ok"},
      {"a }} b", "ok"},
      {"{{a b}}",
       "Parse Error: unknown template transform 'b' (expected one of: toUpperCase, toLowerCase, "
       "concat, shellQuote, yamlQuote) at line 1, column 5"},
      {"{{ bad! }}",
       "Parse Error: malformed template placeholder: expected one of: ':', '==', '!=', a "
       "transform word, '}}'; found '!' at line 1, column 7"},
      {"{{}}",
       "Parse Error: malformed template placeholder: expected a variable name, found '}}' at "
       "line 1, column 3"},
      {"{{ \x01 }}",
       "Parse Error: malformed template placeholder: expected a variable name, found U+0001 at "
       "line 1, column 4"},
      {"ok {{x}}\n{{y:a b}}",
       "Parse Error: unknown template transform 'b' (expected one of: toUpperCase, toLowerCase, "
       "concat, shellQuote, yamlQuote) at line 2, column 7"},
  };
  for (const Case& c : kCases) {
    const Status s = CheckSyntax(c.text);
    std::string got = s.ok() ? "ok" : s.ToString();
    got = got.substr(0, got.find('\n'));
    EXPECT_EQ(got, c.want) << "template: " << c.text;
  }
}

TEST(TemplateTest, RenderPartialLeavesUnboundKeysForLater) {
  Environment now;
  now.Set("trigger", "nightly").Set("lines", "a\nb").SetNull("gone");
  const std::string text =
      "name: {{trigger}}-job\nargs:\n  - {{lines}}\n  - {{timestamp}}\n  - {{watermark:0}}\n";
  std::vector<Deferred> deferred;
  auto partial = RenderPartial(text, now, &deferred);
  ASSERT_TRUE(partial.ok()) << partial.status().ToString();
  ASSERT_TRUE(partial->has_value());
  EXPECT_EQ(**partial,
            "name: nightly-job\nargs:\n  - a\n  - b\n  - {{timestamp}}\n  - {{watermark:0}}\n");
  ASSERT_EQ(deferred.size(), 2u);
  EXPECT_EQ(deferred[0].key, "timestamp");
  EXPECT_FALSE(deferred[0].has_default);
  EXPECT_EQ(deferred[0].line, 4u);
  EXPECT_EQ(deferred[0].column, 5u);
  EXPECT_EQ(deferred[1].key, "watermark");
  EXPECT_TRUE(deferred[1].has_default);

  // Rendering the rest later gives what one render with every key gives.
  Environment later;
  later.Set("timestamp", "2026-11-30T00:00:00Z");
  Environment all = now;
  all.Merge(later);
  EXPECT_EQ(Show(**partial, later), Show(text, all));

  // A key bound to null still skips: it is known, and missing.
  EXPECT_FALSE(RenderPartial("{{gone}} {{later}}", now, &deferred).value().has_value());
}

// A value RenderPartial inserts comes out of the later render as it is: a `{{` in it is not a
// placeholder there (docs/templates.md, "A value is inserted as it is").
TEST(TemplateTest, RenderPartialKeepsInsertedValuesInert) {
  Environment now;
  now.Set("note", "{{timestamp}}:{{trigger}} {{{x}}}").Set("lines", "a {{b}}\nc");
  const std::string text =
      "note: {{note}}\nargs:\n  - {{lines}}\nat: {{timestamp}}\n{{hop.open}}\n";
  std::vector<Deferred> deferred;
  auto partial = RenderPartial(text, now, &deferred);
  ASSERT_TRUE(partial.ok() && partial->has_value()) << partial.status().ToString();
  ASSERT_EQ(deferred.size(), 1u);
  EXPECT_EQ(deferred[0].key, "timestamp");

  Environment later;
  later.Set("timestamp", "T").Set("trigger", "TRIGGER").Set("x", "X");
  EXPECT_EQ(Show(**partial, later),
            "note: {{timestamp}}:{{trigger}} {{{x}}}\nargs:\n  - a {{b}}\n  - c\nat: T\n{{\n");
  Environment all = now;
  all.Merge(later);
  EXPECT_EQ(Show(**partial, later), Show(text, all));
  // hop.open is not a variable.
  EXPECT_EQ(Placeholders(text).value(), (std::vector<std::string>{"note", "lines", "timestamp"}));
}

// Nor can a value form a placeholder with the text around it: a `{{` of the template's literal
// text, or one a value's `{` makes with the text's, stays literal after the later render (found
// by the template fuzzer: fuzz/regressions/template/).
TEST(TemplateTest, RenderPartialKeepsTextAroundValuesInert) {
  Environment now;
  now.Set("name", "page-views").Set("closing", "timestamp}}").Set("brace", "a{");
  const char* kCases[] = {
      "{{na{{name}}\n}}",           // text `{{na` + a value + `}}` later in the text
      "args: [{{ {{closing}}]",      // a value that closes the text's `{{`
      "x: {{brace}}{timestamp}}",    // a value's `{` and the text's `{`
      "x: {{brace}}{{timestamp}}",   // three braces: the last two open the placeholder
      "x: {{brace}}{{hop.open}}",
  };
  Environment later;
  later.Set("timestamp", "T");
  Environment all = now;
  all.Merge(later);
  for (const char* text : kCases) {
    std::vector<Deferred> deferred;
    auto partial = RenderPartial(text, now, &deferred);
    ASSERT_TRUE(partial.ok() && partial->has_value()) << text;
    EXPECT_EQ(Show(**partial, later), Show(text, all)) << text << " -> " << **partial;
  }
}

// Every input the template fuzzer failed on (fuzz/regressions/template) keeps the fuzzer's
// properties against the fuzzer's environment (fuzz/template_fuzz.cc): a partial render
// followed by a full one gives the full render, and nothing renders past the size bound.
TEST(TemplateTest, FuzzRegressionsPass) {
  Environment partial_env;
  partial_env.Set("name", "page-views")
      .Set("lines", std::string(64, '\n') + "x")
      .Set("braces", "{{name}} {{hop.open}} }}{{")
      .Set("quotes", "it's \"q\" \\ $x `y`")
      .Set("empty", "")
      .SetNull("nothing");
  Environment full_env = partial_env;
  full_env.Set("late", "L\nL").Set("later", "{{name}}");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(
           hop::testing::SourcePath("fuzz/regressions/template"))) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string text = buf.str();
    ++files;
    std::vector<Deferred> deferred;
    auto partial = RenderPartial(text, partial_env, &deferred);
    auto full = Render(text, full_env);
    if (!partial.ok() || !full.ok() || !partial->has_value()) continue;
    EXPECT_LE((*partial)->size(), CurrentLimits().max_rendered_bytes) << entry.path();
    auto second = Render(**partial, full_env);
    ASSERT_TRUE(second.ok()) << entry.path() << ": " << second.status().ToString();
    EXPECT_EQ(second->value_or("<skipped>"), full->value_or("<skipped>")) << entry.path();
  }
  EXPECT_GT(files, 0);
}

TEST(TemplateTest, PositionsCountCharacters) {
  struct Case {
    const char* text;
    size_t offset;
    uint32_t line;
    uint32_t column;
  };
  const Case kCases[] = {
      {"", 0, 1, 1},      {"abc", 2, 1, 3},       {"a\nbc", 2, 2, 1},
      {"a\nbc", 3, 2, 2}, {"\xc3\xa9x", 2, 1, 2}, {"a\n\n\nx", 4, 4, 1},
  };
  for (const Case& c : kCases) {
    const TextPosition pos = PositionOf(c.text, c.offset);
    EXPECT_EQ(pos.line, c.line) << c.text << " @" << c.offset;
    EXPECT_EQ(pos.column, c.column) << c.text << " @" << c.offset;
  }
  EXPECT_EQ(FormatSourceError("ab\n\tcd\r\nef", 5, "oops"), "oops at line 2, column 3\n\tcd\n\t ^");
  EXPECT_EQ(FormatSourceError("x\n", 2, "end"), "end at line 2, column 1\n\n^");
}

// Large inputs go through in one pass; these would time out if the scanner were quadratic.
TEST(TemplateTest, LargeInputs) {
  Environment env;
  env.Set("v", "x");
  std::string text;
  std::string want;
  for (int i = 0; i < 20000; ++i) {
    text += "- {{v}}\n";
    want += "- x\n";
  }
  auto r = Render(text, env);
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ(**r, want);

  const std::string opens(200000, '{');  // one long run of braces, never closed
  EXPECT_TRUE(CheckSyntax(opens).ok());
  std::string unclosed;
  for (int i = 0; i < 50000; ++i) unclosed += "{{ a b ";
  EXPECT_TRUE(CheckSyntax(unclosed).ok());
  auto same = Render(unclosed, env);
  ASSERT_TRUE(same.ok() && same->has_value());
  EXPECT_EQ(**same, unclosed);
}

// Whatever a value holds and wherever it stands on a line of properties text, the properties
// reader reads it back as it is (its line breaks replaced by the placeholder's prefix), as one
// key or one value, and the options around it are kept.
TEST(TemplateTest, RenderPropertiesKeepsEveryValueOneToken) {
  const char* const kValues[] = {
      "ads\\",  "a\\\\",  "\\\\\\",  "x\\ny", "\\u00",    "\\uZZZZ", "a\nb = c",
      "a\r\nb", "  lead", "trail  ", "=x",    ":x",       "# c",     "! c",
      "k=v:w",  "\tt\f",  "",        "ok",    "a\u2028b", "{{x}}",   "\\\nk2 = 3",
  };
  struct Place {
    const char* text;
    const char* prefix;  // what the value's line breaks become
    const char* key;     // the entry's key, with `V` for the value; null: the value is the key
    const char* value;   // the entry's value, likewise
  };
  const Place kPlaces[] = {
      {"k1 = {{v}}\nk2 = 2\n", " ", "k1", "V"},  {"k1={{v}}\nk2 = 2\n", "", "k1", "V"},
      {"k1 {{v}}\nk2 = 2\n", " ", "k1", "V"},    {"k1 = a{{v}}b\nk2 = 2\n", "", "k1", "aVb"},
      {"{{v}} = 1\nk2 = 2\n", "", "V", "1"},     {"k0 = 0\n  {{v}}\nk2 = 2\n", "\n  ", "V", ""},
      {"x{{v}}y = 1\nk2 = 2\n", "", "xVy", "1"},
  };
  for (const char* value : kValues) {
    Environment env;
    env.Set("v", value);
    for (const Place& place : kPlaces) {
      const std::string name = std::string(place.text) + " with " + value;
      auto rendered = RenderProperties(place.text, env);
      ASSERT_TRUE(rendered.ok() && rendered->has_value()) << name;
      auto read = ParseProperties(**rendered);
      ASSERT_TRUE(read.ok()) << name << ": " << read.status().ToString();
      // The value as the text holds it: each line break (\r\n is one) is the prefix.
      std::string v;
      const std::string_view in = value;
      for (size_t i = 0; i < in.size(); ++i) {
        if (in[i] == '\r' || in[i] == '\n') {
          v += place.prefix;
          if (in[i] == '\r' && i + 1 < in.size() && in[i + 1] == '\n') ++i;
        } else if (in.substr(i, 3) == "\u2028") {
          v += place.prefix;
          i += 2;
        } else {
          v += in[i];
        }
      }
      const auto with_value = [&](std::string_view pattern) {
        std::string out(pattern);
        const size_t at = out.find('V');
        if (at != std::string::npos) out.replace(at, 1, v);
        return out;
      };
      std::vector<std::pair<std::string, std::string>> want;
      if (std::string_view(place.text).starts_with("k0")) want.emplace_back("k0", "0");
      // Lines of a value at the start of a line are keys of their own.
      if (std::string_view(place.prefix).starts_with("\n")) {
        size_t from = 0;
        for (size_t at = v.find(place.prefix);; at = v.find(place.prefix, from)) {
          const std::string line =
              v.substr(from, at == std::string::npos ? std::string::npos : at - from);
          if (!line.empty()) want.emplace_back(line, "");
          if (at == std::string::npos) break;
          from = at + std::string_view(place.prefix).size();
        }
      } else {
        want.emplace_back(with_value(place.key), with_value(place.value));
      }
      want.emplace_back("k2", "2");
      EXPECT_EQ(*read, want) << name << ": " << **rendered;
    }
  }
}

}  // namespace
}  // namespace hop::tmpl
