// Golden tests for the SQL front end over src/sql/testdata/*.test, plus the round-trip property:
// every statement that parses is printed in every dialect, and whatever prints must parse back
// to an equal AST and print identically again.
//
// Directives:
//   parse [dialects=ansi,flink,...]  input is a script; each statement printed per dialect, or its
//         [pipeline-ddl]             parse error (default dialect: ansi); with pipeline-ddl, Flink
//                                    DDL as pipeline scripts write it (PrintOptions::pipeline_ddl)
//   explain                          each statement printed fully parenthesised (ANSI)
//   expr                             input is one expression, printed fully parenthesised
//   type [dialects=...]              input is one data type
//   split                            the items the script splitter finds
#include <gtest/gtest.h>

#include <sstream>

#include "sql/ast/statement.h"
#include "sql/parser.h"
#include "sql/round_trip.h"
#include "sql/script.h"
#include "sql/unparser.h"
#include "test/lib/datadriven.h"

namespace hop::sql {
namespace {

using hop::testing::DataDrivenCase;

std::vector<Dialect> DialectsOf(const DataDrivenCase& c) {
  std::vector<Dialect> out;
  std::string list = c.Arg("dialects", "ansi");
  if (list == "all") return {std::begin(kAllDialects), std::end(kAllDialects)};
  std::stringstream in(list);
  std::string name;
  while (std::getline(in, name, ',')) {
    Dialect d;
    if (ParseDialect(name, &d)) {
      out.push_back(d);
    } else {
      ADD_FAILURE() << c.file << ":" << c.line << ": unknown dialect " << name;
    }
  }
  return out;
}

std::string RunParse(const DataDrivenCase& c, bool explain) {
  std::vector<Dialect> dialects = DialectsOf(c);
  std::string out;
  for (const ScriptItem& item : SplitScript(c.input)) {
    if (item.kind == ScriptItem::Kind::kCommand) {
      out += "!" + std::string(item.text) + "\n";
      continue;
    }
    auto stmt = ParseStatement(item.text, ParseOptions{item.loc, item.line_prefix});
    if (!stmt.ok()) {
      out += stmt.status().ToString() + "\n";
      continue;
    }
    Status round_trip = VerifyRoundTrip(**stmt);
    EXPECT_TRUE(round_trip.ok()) << c.file << ":" << c.line << ": " << round_trip.message();
    for (Dialect d : dialects) {
      PrintOptions options{d, explain};
      options.pipeline_ddl = c.HasArg("pipeline-ddl");
      auto printed = PrintStatement(**stmt, options);
      if (dialects.size() > 1) out += std::string(DialectName(d)) + ": ";
      out += printed.ok() ? *printed : printed.status().ToString();
      out += "\n";
    }
  }
  return out;
}

std::string RunExpr(const DataDrivenCase& c) {
  auto e = ParseExpression(c.input);
  if (!e.ok()) return e.status().ToString();
  auto printed = PrintExpr(**e, PrintOptions{Dialect::kAnsi, true});
  auto plain = PrintExpr(**e, PrintOptions{Dialect::kAnsi, false});
  if (!printed.ok() || !plain.ok()) return "print failed";
  auto reparsed = ParseExpression(*plain);
  EXPECT_TRUE(reparsed.ok() && Equals(**e, **reparsed))
      << c.file << ":" << c.line << ": expression round trip failed for " << *plain;
  return *printed;
}

std::string RunType(const DataDrivenCase& c) {
  auto t = ParseDataType(c.input);
  if (!t.ok()) return t.status().ToString();
  std::vector<Dialect> dialects = DialectsOf(c);
  std::string out;
  for (Dialect d : dialects) {
    auto printed = PrintType(*t, PrintOptions{d, false});
    if (dialects.size() > 1) out += std::string(DialectName(d)) + ": ";
    out += printed.ok() ? *printed : printed.status().ToString();
    out += "\n";
    if (printed.ok()) {
      auto back = ParseDataType(*printed);
      EXPECT_TRUE(back.ok() && *back == *t)
          << c.file << ":" << c.line << ": type round trip failed for " << *printed;
    }
  }
  return out;
}

std::string RunSplit(const DataDrivenCase& c) {
  std::string out;
  for (const ScriptItem& item : SplitScript(c.input)) {
    out += item.kind == ScriptItem::Kind::kCommand ? "command " : "statement ";
    out += std::to_string(item.loc.line) + ":" + std::to_string(item.loc.column) + " ";
    std::string text(item.text);
    for (char& ch : text) {
      if (ch == '\n') ch = '|';
    }
    out += "[" + text + "]\n";
  }
  return out;
}

class SqlGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SqlGoldenTest, Matches) {
  hop::testing::RunDataDrivenFile(GetParam(), [](const DataDrivenCase& c) -> std::string {
    if (c.directive == "parse") return RunParse(c, false);
    if (c.directive == "explain") return RunParse(c, true);
    if (c.directive == "expr") return RunExpr(c);
    if (c.directive == "type") return RunType(c);
    if (c.directive == "split") return RunSplit(c);
    ADD_FAILURE() << c.file << ":" << c.line << ": unknown directive " << c.directive;
    return "";
  });
}

INSTANTIATE_TEST_SUITE_P(Testdata, SqlGoldenTest,
                         ::testing::ValuesIn(hop::testing::ListTestFiles("src/sql/testdata")),
                         hop::testing::TestFileName);

}  // namespace
}  // namespace hop::sql
