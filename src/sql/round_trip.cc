// Implementation of the round-trip check.
#include "sql/round_trip.h"

#include <fmt/format.h>

#include "sql/parser.h"
#include "sql/script.h"
#include "sql/unparser.h"

namespace hop::sql {

namespace {

Status VerifyPrinting(const Statement& stmt, const PrintOptions& options) {
  auto printed = PrintStatement(stmt, options);
  if (!printed.ok()) return Status::OK();  // the dialect cannot express it, and says so
  const std::string name =
      std::string(DialectName(options.dialect)) + (options.pipeline_ddl ? " (pipeline DDL)" : "");
  auto reparsed = ParseStatement(*printed);
  if (!reparsed.ok()) {
    return Status::Internal(fmt::format("{} output does not parse:\n{}\n{}", name, *printed,
                                        reparsed.status().ToString()));
  }
  if (!Equals(stmt, **reparsed)) {
    return Status::Internal(fmt::format("{} round trip changed the statement:\n{}\nprinted as\n{}",
                                        name, stmt.source, *printed));
  }
  auto again = PrintStatement(**reparsed, options);
  if (!again.ok() || *again != *printed) {
    return Status::Internal(fmt::format("{} printing is not stable:\n{}\nthen\n{}", name, *printed,
                                        again.ok() ? *again : again.status().ToString()));
  }
  return Status::OK();
}

}  // namespace

Status VerifyRoundTrip(const Statement& stmt) {
  for (Dialect d : kAllDialects) HOP_RETURN_IF_ERROR(VerifyPrinting(stmt, PrintOptions{d, false}));
  // Flink DDL as pipeline scripts write it reads back the same too.
  PrintOptions pipeline{Dialect::kFlink, false};
  pipeline.pipeline_ddl = true;
  return VerifyPrinting(stmt, pipeline);
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
