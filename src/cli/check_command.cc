// Implementation of `hop check`.
#include "cli/check_command.h"

#include "binder/binder.h"
#include "common/redact.h"
#include "common/strings.h"
#include "sql/ast/statements.h"
#include "sql/parser.h"
#include "sql/script.h"
#include "sql/unparser.h"

namespace hop::cli {

namespace {

// Binds the queries of one statement; CREATE VIEW and CREATE TABLE add what they create to
// `cat` so that the rest of the script can refer to it.
Status Bind(const sql::Statement& stmt, catalog::Catalog& cat) {
  binder::Binder binder(cat);
  binder.SetStatement(&stmt);
  std::vector<std::string> path;
  switch (stmt.kind) {
    case sql::StatementKind::kQuery:
      return binder.BindQuery(*stmt.As<sql::QueryStatement>().query).status();
    case sql::StatementKind::kInsert:
      return binder.BindInsert(stmt.As<sql::InsertStatement>()).status();
    case sql::StatementKind::kCreateMaterializedView: {
      const auto& mv = stmt.As<sql::CreateMaterializedViewStatement>();
      return binder.BindQuery(*mv.query, mv.columns).status();
    }
    case sql::StatementKind::kCreateView: {
      const auto& v = stmt.As<sql::CreateViewStatement>();
      for (const auto& p : v.name.parts) path.push_back(p.name);
      HOP_ASSIGN_OR_RETURN(const catalog::Schema* schema, cat.SchemaFor(path));
      std::vector<std::string> defined = schema->Path();
      defined.push_back(path.back());
      binder.SetDefinedView(defined);
      HOP_ASSIGN_OR_RETURN(binder::RelPtr rel, binder.BindQuery(*v.query, v.columns));
      catalog::Schema changed = *schema;
      catalog::Table t;
      t.name = path.back();
      t.path = schema->Path();
      t.path.push_back(t.name);
      t.database = schema->database;
      t.kind = catalog::ObjectKind::kView;
      t.row_type = rel->row_type;
      auto text = sql::PrintQuery(*v.query);
      if (text.ok()) t.sql = *text;
      changed.tables[t.name] = std::move(t);
      cat.AddSchema(std::move(changed));
      return Status::OK();
    }
    case sql::StatementKind::kCreateTable: {
      const auto& ct = stmt.As<sql::CreateTableStatement>();
      for (const auto& p : ct.name.parts) path.push_back(p.name);
      HOP_ASSIGN_OR_RETURN(const catalog::Schema* schema, cat.SchemaFor(path));
      catalog::Schema changed = *schema;
      catalog::Table t;
      t.name = path.back();
      t.path = schema->Path();
      t.path.push_back(t.name);
      t.database = schema->database;
      for (const auto& c : ct.columns) {
        if (c.type) t.row_type.columns.push_back({c.name.name, *c.type});
      }
      changed.tables[t.name] = std::move(t);
      cat.AddSchema(std::move(changed));
      return Status::OK();
    }
    default: return Status::OK();
  }
}

}  // namespace

CheckSummary CheckScript(std::string_view name, std::string_view script,
                         const CheckOptions& options, std::ostream& out, std::ostream& err) {
  CheckSummary summary;
  std::optional<catalog::Catalog> cat;
  if (options.bind) {
    cat.emplace();
    for (const catalog::Schema* s : options.bind->Schemas()) cat->AddSchema(*s);
  }
  for (const sql::ScriptItem& item : sql::SplitScript(script)) {
    if (item.kind == sql::ScriptItem::Kind::kCommand) {
      ++summary.commands;
      if (options.print) out << '!' << item.text << '\n';
      continue;
    }
    ++summary.statements;
    auto stmt = sql::ParseStatement(item.text, sql::ParseOptions{item.loc, item.line_prefix});
    if (!stmt.ok()) {
      ++summary.errors;
      err << name << ": " << EscapeForTerminal(RedactSecrets(stmt.status().ToString())) << '\n';
      continue;
    }
    if (cat) {
      Status bound = Bind(**stmt, *cat);
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
    out << *text << ";\n";
  }
  return summary;
}

}  // namespace hop::cli
