// Implementation of the round-trip check.
#include "sql/round_trip.h"

#include <fmt/format.h>

#include "sql/parser.h"
#include "sql/script.h"
#include "sql/unparser.h"

namespace hop::sql {

Status VerifyRoundTrip(const Statement& stmt) {
  for (Dialect d : kAllDialects) {
    auto printed = PrintStatement(stmt, PrintOptions{d, false});
    if (!printed.ok()) continue;  // the dialect cannot express it, and says so
    auto reparsed = ParseStatement(*printed);
    if (!reparsed.ok()) {
      return Status::Internal(fmt::format("{} output does not parse:\n{}\n{}", DialectName(d),
                                          *printed, reparsed.status().ToString()));
    }
    if (!Equals(stmt, **reparsed)) {
      return Status::Internal(fmt::format("{} round trip changed the statement:\n{}\nprinted as\n{}",
                                          DialectName(d), stmt.source, *printed));
    }
    auto again = PrintStatement(**reparsed, PrintOptions{d, false});
    if (!again.ok() || *again != *printed) {
      return Status::Internal(fmt::format("{} printing is not stable:\n{}\nthen\n{}",
                                          DialectName(d), *printed,
                                          again.ok() ? *again : again.status().ToString()));
    }
  }
  return Status::OK();
}

Status VerifyScript(std::string_view script) {
  for (const ScriptItem& item : SplitScript(script)) {
    if (item.kind != ScriptItem::Kind::kStatement) continue;
    auto stmt = ParseStatement(item.text, ParseOptions{item.loc, item.line_prefix});
    if (!stmt.ok()) {
      if (stmt.status().code() != StatusCode::kParse ||
          stmt.status().message().find(" at line ") == std::string::npos) {
        return Status::Internal("parse error without a position: " + stmt.status().ToString());
      }
      continue;
    }
    HOP_RETURN_IF_ERROR(VerifyRoundTrip(**stmt));
  }
  return Status::OK();
}

}  // namespace hop::sql
