// How messages and summaries name a statement: its leading words and, when it names an object,
// that object. One switch, so the executor's summary and the session's refusal agree.
#include <fmt/format.h>

#include "sql/ast/statements.h"

namespace hop::sql {

namespace {

std::string Named(std::string_view words, const QualifiedName& name) {
  return fmt::format("{} {}", words, name.ToString());
}

}  // namespace

std::string StatementTitle(const Statement& s) {
  switch (s.kind) {
    case StatementKind::kQuery: return "SELECT";
    case StatementKind::kInsert: return "INSERT";
    case StatementKind::kCreateTable:
      return Named("CREATE TABLE", s.As<CreateTableStatement>().name);
    case StatementKind::kCreateView: return Named("CREATE VIEW", s.As<CreateViewStatement>().name);
    case StatementKind::kCreateMaterializedView:
      return Named("CREATE MATERIALIZED VIEW", s.As<CreateMaterializedViewStatement>().name);
    case StatementKind::kCreateTrigger:
      return Named("CREATE TRIGGER", s.As<CreateTriggerStatement>().name);
    case StatementKind::kCreateDatabase:
      return Named("CREATE DATABASE", s.As<CreateDatabaseStatement>().name);
    case StatementKind::kCreateCatalog:
      return "CREATE CATALOG " + s.As<CreateCatalogStatement>().name.name;
    case StatementKind::kCreateFunction:
      return Named("CREATE FUNCTION", s.As<CreateFunctionStatement>().name);
    case StatementKind::kDrop: {
      const auto& d = s.As<DropStatement>();
      return Named(fmt::format("DROP {}", ObjectKindText(d.object)), d.name);
    }
    case StatementKind::kRefresh:
      return Named("REFRESH MATERIALIZED VIEW", s.As<RefreshStatement>().name);
    case StatementKind::kFire: {
      const auto& f = s.As<FireStatement>();
      return Named(fmt::format("FIRE {}", ObjectKindText(f.object)), f.name);
    }
    case StatementKind::kPause:
    case StatementKind::kResume: {
      const auto& p = s.As<PauseStatement>();
      return Named(fmt::format("{} {}", s.kind == StatementKind::kPause ? "PAUSE" : "RESUME",
                               ObjectKindText(p.object)),
                   p.name);
    }
    case StatementKind::kSet: return "SET";
    case StatementKind::kReset: return "RESET";
    case StatementKind::kShow: return "SHOW";
    case StatementKind::kExplain: return "EXPLAIN";
    case StatementKind::kSpecify: return "SPECIFY";
    case StatementKind::kPipeline: return "PIPELINE";
    case StatementKind::kDescribe: return Named("DESCRIBE", s.As<InspectStatement>().name);
    case StatementKind::kResolve: return Named("RESOLVE", s.As<InspectStatement>().name);
    case StatementKind::kGraph: return Named("GRAPH", s.As<InspectStatement>().name);
    case StatementKind::kDelete:
      return Named("DELETE FROM", s.As<DeleteStatement>().target);
    case StatementKind::kCopyFromStdin:
      return Named("COPY", s.As<CopyFromStdinStatement>().target);
  }
  return "STATEMENT";
}

}  // namespace hop::sql
