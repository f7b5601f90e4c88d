// Implementation of `hop check`.
#include "cli/check_command.h"

#include "common/redact.h"
#include "common/strings.h"
#include "sql/ast/statements.h"
#include "sql/parser.h"
#include "sql/script.h"
#include "sql/unparser.h"

namespace hop::cli {

CheckSummary CheckScript(std::string_view name, std::string_view script,
                         const CheckOptions& options, std::ostream& out, std::ostream& err) {
  CheckSummary summary;
  for (const sql::ScriptItem& item : sql::SplitScript(script)) {
    if (item.kind == sql::ScriptItem::Kind::kCommand) {
      ++summary.commands;
      if (options.print) out << '!' << RedactSecrets(item.text) << '\n';
      continue;
    }
    ++summary.statements;
    auto stmt = sql::ParseStatement(item.text, sql::ParseOptions{item.loc, item.line_prefix});
    if (!stmt.ok()) {
      ++summary.errors;
      err << name << ": " << EscapeForTerminal(RedactSecrets(stmt.status().ToString())) << '\n';
      continue;
    }
    if (options.bind != nullptr) {
      Status bound = options.bind->Check(**stmt);
      if (!bound.ok()) {
        ++summary.errors;
        err << name << ": " << EscapeForTerminal(RedactSecrets(bound.ToString())) << '\n';
        continue;
      }
    }
    if (!options.print) continue;
    auto text = sql::PrintStatement(**stmt, sql::PrintOptions{options.dialect, false});
    if (!text.ok()) {
      ++summary.errors;
      err << name << ":" << item.loc.line << ":" << item.loc.column << ": "
          << EscapeForTerminal(text.status().ToString()) << '\n';
      continue;
    }
    out << RedactSecrets(*text) << ";\n";
  }
  return summary;
}

}  // namespace hop::cli
