// Printing statements: CREATE TABLE (columns, constraints, LIKE, AS), VIEW, MATERIALIZED VIEW,
// TRIGGER, DATABASE, CATALOG and FUNCTION with their option lists, INSERT, DROP, REFRESH, FIRE,
// PAUSE / RESUME, SET, RESET and SHOW; hop's own statements print only in the ANSI dialect. DELETE
// FROM and COPY ... FROM STDIN (PostgreSQL only) are written by hop and never parsed.
#include <algorithm>

#include "common/strings.h"
#include "sql/keywords.h"
#include "sql/unparser_impl.h"

namespace hop::sql::internal {

void Writer::Options(const OptionList& options) {
  if (!options.present) return;
  if (sqlite() || postgres()) Unsupported("a WITH (...) option list");
  Raw(" WITH (");
  for (size_t i = 0; i < options.items.size(); ++i) {
    const Option& o = options.items[i];
    if (i > 0) Raw(", ");
    String(o.key);
    Raw(pipeline_ddl() ? "=" : flink() ? " = " : " ");
    if (o.kind == OptionValueKind::kNull) {
      if (flink()) Unsupported("a NULL option value");
      Raw("NULL");
    } else if (flink() || o.kind == OptionValueKind::kString) {
      String(o.value);
    } else {
      Raw(o.value);
    }
  }
  Raw(")");
}

void Writer::SettingName(const std::string& name) {
  bool words = !name.empty() && !flink();
  size_t begin = 0;
  while (words) {
    size_t dot = name.find('.', begin);
    std::string_view part = std::string_view(name).substr(begin, dot - begin);
    if (!IsSimpleWord(part)) words = false;
    if (dot == std::string::npos) break;
    begin = dot + 1;
  }
  if (words && !EqualsIgnoreCase(name, "ALL")) {
    Raw(name);
  } else {
    String(name);
  }
}

void Writer::CreateTable(const CreateTableStatement& s) {
  if (s.or_replace && (sqlite() || postgres())) Unsupported("CREATE OR REPLACE TABLE");
  if (s.or_replace && flink() && !s.as_query) Unsupported("CREATE OR REPLACE TABLE without AS");
  if (s.temporary && !sqlite() && !postgres()) Unsupported("CREATE TEMPORARY TABLE");
  Raw(s.or_replace ? "CREATE OR REPLACE TABLE " : s.temporary ? "CREATE TEMPORARY TABLE " : "CREATE TABLE ");
  if (s.if_not_exists) Raw("IF NOT EXISTS ");
  Name(s.name);
  if (s.like) {
    if (sqlite() || postgres()) Unsupported("CREATE TABLE ... LIKE");
    Raw(" LIKE ");
    Name(s.like->source);
    // Flink writes the options in parentheses and knows no DEFAULTS option.
    if (flink() && !s.like->options.empty()) Raw(" (");
    for (size_t i = 0; i < s.like->options.size(); ++i) {
      const LikeOption& o = s.like->options[i];
      if (flink() && o.kind == LikeOptionKind::kDefaults) Unsupported("LIKE ... DEFAULTS");
      if (i > 0 || !flink()) Raw(" ");
      Raw(o.including ? "INCLUDING " : "EXCLUDING ");
      Raw(o.kind == LikeOptionKind::kAll        ? "ALL"
          : o.kind == LikeOptionKind::kDefaults ? "DEFAULTS"
                                                : "GENERATED");
    }
    if (flink() && !s.like->options.empty()) Raw(")");
    return;
  }
  if (!s.columns.empty() || !s.constraints.empty()) {
    Raw(" (");
    bool first = true;
    for (const auto& c : s.columns) {
      if (!first) Raw(", ");
      first = false;
      Ident(c.name);
      if (!c.type) continue;
      Raw(" ");
      const TypeSpelling spelling = type_spelling_;
      if (pipeline_ddl()) type_spelling_ = TypeSpelling::kPipelineDdl;
      Type(*c.type);
      type_spelling_ = spelling;
      if (c.value_kind == ColumnValueKind::kDefault) {
        if (flink()) Unsupported("a column DEFAULT");
        Raw(" DEFAULT ");
        Expr(*c.value, kPrecAtom);
      } else if (c.value_kind == ColumnValueKind::kGenerated) {
        if (flink()) Unsupported("a typed generated column");
        if (postgres() && (!c.generated_always || c.storage != GeneratedStorage::kStored)) {
          Unsupported("a generated column other than GENERATED ALWAYS AS (...) STORED");
        }
        Raw(c.generated_always ? " GENERATED ALWAYS AS (" : " AS (");
        Expr(*c.value);
        Raw(")");
        if (c.storage == GeneratedStorage::kVirtual) Raw(" VIRTUAL");
        if (c.storage == GeneratedStorage::kStored) Raw(" STORED");
      }
      if (c.primary_key) {
        Raw(" PRIMARY KEY");
        if (c.not_enforced) {
          if (!flink() && !ansi()) Unsupported("NOT ENFORCED");
          Raw(" NOT ENFORCED");
        }
      }
    }
    for (const auto& c : s.constraints) {
      if (!first) Raw(", ");
      first = false;
      if (c.name) {
        Raw("CONSTRAINT ");
        Ident(*c.name);
        Raw(" ");
      }
      if (flink() && c.kind != ConstraintKind::kPrimaryKey) {
        Unsupported("a CHECK or UNIQUE constraint");
      }
      switch (c.kind) {
        case ConstraintKind::kPrimaryKey:
          Raw("PRIMARY KEY ");
          IdentList(c.columns);
          break;
        case ConstraintKind::kUnique:
          Raw("UNIQUE ");
          IdentList(c.columns);
          break;
        case ConstraintKind::kCheck:
          Raw("CHECK (");
          Expr(*c.check);
          Raw(")");
          break;
      }
      if (c.not_enforced) {
        if (!flink() && !ansi()) Unsupported("NOT ENFORCED");
        Raw(" NOT ENFORCED");
      }
    }
    Raw(")");
  }
  Options(s.options);
  if (s.as_query) {
    Raw(" AS ");
    Query(*s.as_query);
  }
}

void Writer::CreateCatalog(const CreateCatalogStatement& s) {
  if (!ansi() && !flink()) Unsupported("CREATE CATALOG");
  if (s.or_replace && flink()) Unsupported("CREATE OR REPLACE CATALOG");
  Raw(s.or_replace ? "CREATE OR REPLACE CATALOG " : "CREATE CATALOG ");
  if (s.if_not_exists) Raw("IF NOT EXISTS ");
  Ident(s.name);
  Options(s.options);
}

void Writer::Statement(const sql::Statement& stmt) {
  auto hop_only = [&](std::string_view what) {
    if (!ansi()) Unsupported(what);
  };
  switch (stmt.kind) {
    case StatementKind::kQuery: Query(*stmt.As<QueryStatement>().query); break;
    case StatementKind::kInsert: {
      const auto& s = stmt.As<InsertStatement>();
      Raw("INSERT INTO ");
      Name(s.target);
      if (!s.columns.empty()) {
        Raw(" ");
        IdentList(s.columns);
      }
      Raw(" ");
      Query(*s.query);
      if (!s.conflict_columns.empty()) {
        if (!postgres()) Unsupported("INSERT ... ON CONFLICT");
        Raw(" ON CONFLICT ");
        IdentList(s.conflict_columns);
        bool first = true;
        for (const Identifier& c : s.columns) {
          if (std::find(s.conflict_columns.begin(), s.conflict_columns.end(), c) !=
              s.conflict_columns.end()) {
            continue;
          }
          Raw(first ? " DO UPDATE SET " : ", ");
          first = false;
          Ident(c);
          Raw(" = EXCLUDED.");
          Ident(c);
        }
        if (first) Raw(" DO NOTHING");
      }
      break;
    }
    case StatementKind::kCreateTable: CreateTable(stmt.As<CreateTableStatement>()); break;
    case StatementKind::kCreateView: {
      const auto& s = stmt.As<CreateViewStatement>();
      if (s.or_replace && (sqlite() || flink())) Unsupported("CREATE OR REPLACE VIEW");
      if (s.if_not_exists && postgres()) Unsupported("CREATE VIEW IF NOT EXISTS");
      Raw(s.or_replace ? "CREATE OR REPLACE VIEW " : "CREATE VIEW ");
      if (s.if_not_exists) Raw("IF NOT EXISTS ");
      Name(s.name);
      if (!s.columns.empty()) {
        Raw(" ");
        IdentList(s.columns);
      }
      if (s.options.present && !ansi()) Unsupported("WITH on a view");
      Options(s.options);
      Raw(" AS ");
      Query(*s.query);
      break;
    }
    case StatementKind::kCreateMaterializedView: {
      const auto& s = stmt.As<CreateMaterializedViewStatement>();
      if (!ansi() && !postgres()) Unsupported("CREATE MATERIALIZED VIEW");
      if (postgres() && (s.or_replace || s.refresh_schedule || s.options.present)) {
        Unsupported("CREATE OR REPLACE, REFRESHED or WITH on a materialized view");
      }
      Raw(s.or_replace ? "CREATE OR REPLACE MATERIALIZED VIEW " : "CREATE MATERIALIZED VIEW ");
      if (s.if_not_exists) Raw("IF NOT EXISTS ");
      Name(s.name);
      if (!s.columns.empty()) {
        Raw(" ");
        IdentList(s.columns);
      }
      if (s.refresh_schedule) {
        Raw(" REFRESHED ");
        String(*s.refresh_schedule);
      }
      Options(s.options);
      Raw(" AS ");
      Query(*s.query);
      break;
    }
    case StatementKind::kCreateTrigger: {
      const auto& s = stmt.As<CreateTriggerStatement>();
      hop_only("CREATE TRIGGER");
      Raw(s.or_replace ? "CREATE OR REPLACE TRIGGER " : "CREATE TRIGGER ");
      if (s.if_not_exists) Raw("IF NOT EXISTS ");
      Name(s.name);
      Raw(" ON ");
      Name(s.target);
      Raw(" AS ");
      String(s.job_template);
      if (s.job_namespace) {
        Raw(" IN ");
        String(*s.job_namespace);
      }
      if (s.schedule) {
        Raw(" SCHEDULED ");
        String(*s.schedule);
      }
      Options(s.options);
      break;
    }
    case StatementKind::kCreateDatabase: {
      const auto& s = stmt.As<CreateDatabaseStatement>();
      if (!ansi() && !flink()) Unsupported("CREATE DATABASE");
      if (s.or_replace && flink()) Unsupported("CREATE OR REPLACE DATABASE");
      Raw(s.or_replace ? "CREATE OR REPLACE DATABASE " : "CREATE DATABASE ");
      if (s.if_not_exists) Raw("IF NOT EXISTS ");
      Name(s.name);
      Options(s.options);
      break;
    }
    case StatementKind::kCreateCatalog: CreateCatalog(stmt.As<CreateCatalogStatement>()); break;
    case StatementKind::kCreateFunction: {
      const auto& s = stmt.As<CreateFunctionStatement>();
      if (!ansi() && !flink()) Unsupported("CREATE FUNCTION");
      if (flink() && (s.returns || s.in || s.options.present)) {
        Unsupported("CREATE FUNCTION with RETURNS, IN or WITH");
      }
      Raw(s.or_replace ? "CREATE OR REPLACE FUNCTION " : "CREATE FUNCTION ");
      if (s.if_not_exists) Raw("IF NOT EXISTS ");
      Name(s.name);
      if (s.returns) {
        Raw(" RETURNS ");
        Type(*s.returns);
      }
      Raw(" AS ");
      String(s.definition);
      if (s.language) {
        // Languages are bare words (JAVA, PYTHON); Flink accepts nothing else.
        Raw(" LANGUAGE ");
        const std::string& lang = s.language->name;
        if (IsSimpleWord(lang) && LookupKeyword(lang) == Keyword::kNone &&
            lang == AsciiToUpper(lang)) {
          Raw(lang);
        } else {
          if (flink()) Unsupported("a quoted function language");
          Ident(*s.language);
        }
      }
      if (s.in) {
        Raw(" IN ");
        String(*s.in);
      }
      for (size_t i = 0; i < s.resources.size(); ++i) {
        Raw(i == 0 ? " USING " : ", ");
        switch (s.resources[i].kind) {
          case FunctionResourceKind::kJar: Raw("JAR "); break;
          case FunctionResourceKind::kFile: Raw("FILE "); break;
          case FunctionResourceKind::kArchive: Raw("ARCHIVE "); break;
        }
        String(s.resources[i].uri);
      }
      Options(s.options);
      break;
    }
    case StatementKind::kDrop: {
      const auto& s = stmt.As<DropStatement>();
      switch (s.object) {
        case ObjectKind::kTable:
        case ObjectKind::kView: break;
        case ObjectKind::kMaterializedView:
          if (!ansi() && !postgres()) Unsupported("DROP MATERIALIZED VIEW");
          break;
        case ObjectKind::kTrigger: hop_only("DROP TRIGGER"); break;
        case ObjectKind::kFunction:
        case ObjectKind::kDatabase:
          if (sqlite()) Unsupported(fmt::format("DROP {}", ObjectKindText(s.object)));
          break;
      }
      Raw("DROP ");
      Raw(ObjectKindText(s.object));
      Raw(s.if_exists ? " IF EXISTS " : " ");
      Name(s.name);
      break;
    }
    case StatementKind::kDelete:
      Raw("DELETE FROM ");
      Name(stmt.As<DeleteStatement>().target);
      break;
    case StatementKind::kCopyFromStdin: {
      const auto& s = stmt.As<CopyFromStdinStatement>();
      if (!postgres()) Unsupported("COPY ... FROM STDIN");
      Raw("COPY ");
      Name(s.target);
      if (!s.columns.empty()) {
        Raw(" ");
        IdentList(s.columns);
      }
      Raw(" FROM STDIN");
      break;
    }
    case StatementKind::kRefresh:
      if (!ansi() && !postgres()) Unsupported("REFRESH MATERIALIZED VIEW");
      Raw("REFRESH MATERIALIZED VIEW ");
      Name(stmt.As<RefreshStatement>().name);
      break;
    case StatementKind::kFire: {
      const auto& s = stmt.As<FireStatement>();
      hop_only("FIRE");
      Raw("FIRE ");
      Raw(ObjectKindText(s.object));
      Raw(" ");
      Name(s.name);
      if (s.retry) Raw(" RETRY");
      Options(s.options);
      if (s.watermark) {
        Raw(" WATERMARK ");
        String(*s.watermark);
      }
      break;
    }
    case StatementKind::kPause:
    case StatementKind::kResume: {
      const auto& s = stmt.As<PauseStatement>();
      hop_only(stmt.kind == StatementKind::kPause ? "PAUSE" : "RESUME");
      Raw(stmt.kind == StatementKind::kPause ? "PAUSE " : "RESUME ");
      Raw(ObjectKindText(s.object));
      Raw(" ");
      Name(s.name);
      break;
    }
    case StatementKind::kSet: {
      const auto& s = stmt.As<SetStatement>();
      if (sqlite()) Unsupported("SET");
      Raw("SET ");
      SettingName(s.name);
      Raw(" = ");
      if (s.value_kind == SettingValueKind::kDefault) {
        if (flink()) Unsupported("SET ... = DEFAULT");
        Raw("DEFAULT");
      } else if (flink() || s.value_kind == SettingValueKind::kString) {
        String(s.value);
      } else {
        Raw(s.value);
      }
      break;
    }
    case StatementKind::kReset: {
      const auto& s = stmt.As<ResetStatement>();
      if (sqlite()) Unsupported("RESET");
      if (s.name.empty()) {
        Raw(flink() ? "RESET" : "RESET ALL");
      } else {
        Raw("RESET ");
        SettingName(s.name);
      }
      break;
    }
    case StatementKind::kExplain:
    case StatementKind::kSpecify:
    case StatementKind::kPipeline:
    case StatementKind::kDescribe:
    case StatementKind::kResolve:
    case StatementKind::kGraph: {
      const auto& s = stmt.As<InspectStatement>();
      static constexpr std::string_view kWords[] = {"EXPLAIN ",  "SPECIFY ", "PIPELINE ",
                                                    "DESCRIBE ", "RESOLVE ", "GRAPH "};
      const std::string_view word =
          kWords[static_cast<size_t>(stmt.kind) - static_cast<size_t>(StatementKind::kExplain)];
      if (!ansi()) Unsupported(word.substr(0, word.size() - 1));
      Raw(word);
      if (s.statement) {
        Statement(*s.statement);
      } else {
        Name(s.name);
      }
      if (s.depth) Raw(" DEPTH " + std::to_string(*s.depth));
      if (!s.format.empty()) {
        Raw(" FORMAT ");
        Raw(AsciiToUpper(s.format));
      }
      break;
    }
    case StatementKind::kShow: {
      const auto& s = stmt.As<ShowStatement>();
      if (sqlite() || flink()) Unsupported("SHOW");
      if (s.name.empty()) {
        Raw("SHOW ALL");
      } else {
        Raw("SHOW ");
        SettingName(s.name);
      }
      break;
    }
  }
}

}  // namespace hop::sql::internal
