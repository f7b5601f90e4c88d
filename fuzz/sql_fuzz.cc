// libFuzzer target over the SQL front end: splitter, lexer, parser and printer. Besides "no crash,
// no hang, no sanitizer report" it checks the round-trip property on every statement that parses:
// whatever a dialect prints must parse back to an equal AST and print identically again.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "sql/ast/statement.h"
#include "sql/parser.h"
#include "sql/script.h"
#include "sql/unparser.h"

namespace {

[[noreturn]] void Die(const char* what, std::string_view detail) {
  std::fprintf(stderr, "%s\n%.*s\n", what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hop::sql;
  std::string_view text(reinterpret_cast<const char*>(data), size);

  (void)ParseExpression(text);
  (void)ParseDataType(text);

  for (const ScriptItem& item : SplitScript(text)) {
    if (item.kind != ScriptItem::Kind::kStatement) continue;
    auto stmt = ParseStatement(item.text, ParseOptions{item.loc, item.line_prefix});
    if (!stmt.ok()) {
      if (stmt.status().message().find(" at line ") == std::string::npos) {
        Die("parse error without a position", stmt.status().message());
      }
      continue;
    }
    for (Dialect d : kAllDialects) {
      auto printed = PrintStatement(**stmt, PrintOptions{d, false});
      if (!printed.ok()) continue;
      auto reparsed = ParseStatement(*printed);
      if (!reparsed.ok()) Die("printed statement does not parse", *printed);
      if (!Equals(**stmt, **reparsed)) Die("round trip changed the statement", *printed);
      auto again = PrintStatement(**reparsed, PrintOptions{d, false});
      if (!again.ok() || *again != *printed) Die("printing is not stable", *printed);
    }
  }
  return 0;
}
