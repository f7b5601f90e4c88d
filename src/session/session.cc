#include "session/session.h"

#include <fmt/format.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "binder/binder.h"
#include "binder/bound_statement.h"
#include "binder/types.h"
#include "catalog/avro.h"
#include "catalog/catalog.h"
#include "common/redact.h"
#include "common/strings.h"
#include "common/table_format.h"
#include "deploy/executor.h"
#include "deploy/render.h"
#include "engine/output.h"
#include "planner/planner.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "session/control_plane.h"
#include "session/result_sink.h"
#include "sql/ast/create_materialized_view_statement.h"
#include "sql/ast/create_table_statement.h"
#include "sql/ast/drop_statement.h"
#include "sql/ast/insert_statement.h"
#include "sql/ast/inspect_statement.h"
#include "sql/ast/query_statement.h"
#include "sql/ast/refresh_statement.h"
#include "sql/ast/set_statement.h"
#include "sql/ast/show_statement.h"
#include "sql/parser.h"
#include "sql/script.h"
#include "sql/unparser.h"

namespace hop::session {

namespace {

// The user a session's CURRENT_USER names: its own (a PostgreSQL connection's), else the
// operating system's user the process runs as, by name when it has one (docs/sql.md).
std::string SessionUser(const Properties& properties) {
  if (!properties.user.empty()) return properties.user;
  const uid_t uid = geteuid();
  long size = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(static_cast<size_t>(size > 0 ? size : 16384));
  passwd entry{};
  passwd* found = nullptr;
  if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr &&
      found->pw_name != nullptr && found->pw_name[0] != '\0') {
    return found->pw_name;
  }
  return std::to_string(uid);
}

}  // namespace

namespace {

Result<std::string> UrlDecode(std::string_view s, std::string_view entry) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%') {
      int hi = i + 2 < s.size() ? HexDigitValue(s[i + 1]) : -1;
      int lo = i + 2 < s.size() ? HexDigitValue(s[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        return Status::InvalidArgument(
            fmt::format("malformed hint '{}': '%' must start a two-digit hex escape", entry));
      }
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string ModeName(Mode m) { return m == Mode::kApply ? "apply" : "create"; }

std::string HintsText(const tmpl::Entries& hints) {
  std::string out;
  for (const auto& [k, v] : hints) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

std::string JoinComma(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

// `{k=v, k2=v2}`, as Java prints a map.
std::string MapText(const std::map<std::string, std::string>& m) {
  std::string out = "{";
  for (const auto& [k, v] : m) {
    if (out.size() > 1) out += ", ";
    out += k + "=" + v;
  }
  return out + "}";
}

std::string_view ObjectKindName(catalog::ObjectKind k) {
  switch (k) {
    case catalog::ObjectKind::kTable: return "TABLE";
    case catalog::ObjectKind::kView: return "VIEW";
    case catalog::ObjectKind::kMaterializedView: return "MATERIALIZED VIEW";
  }
  return "TABLE";
}

// The session's catalog: the namespace's, narrowed to the `catalogs` property.
Result<catalog::Catalog> LoadCatalog(store::Store& store, const Properties& p) {
  HOP_ASSIGN_OR_RETURN(catalog::Catalog all, catalog::Catalog::Load(store, p.namespace_name));
  if (p.catalogs.empty()) return all;
  all.Retain([&](const catalog::Schema& s) {
    return s.database.empty() || s.name == catalog::kDefaultSchema ||
           std::find(p.catalogs.begin(), p.catalogs.end(), s.name) != p.catalogs.end() ||
           (!s.catalog.empty() &&
            std::find(p.catalogs.begin(), p.catalogs.end(), s.catalog) != p.catalogs.end());
  });
  return all;
}

// The column size JDBC metadata gives a type declared without one: Calcite's default precision
// of the type (INTEGER 10, BIGINT 19, DOUBLE 15, ...; 0 for a ROW), none for strings and
// collections of any length (compatibility.md §8).
std::optional<int> DefaultColumnSize(sql::TypeName name) {
  switch (name) {
    case sql::TypeName::kBoolean: return 1;
    case sql::TypeName::kTinyInt: return 3;
    case sql::TypeName::kSmallInt: return 5;
    case sql::TypeName::kInteger: return 10;
    case sql::TypeName::kBigInt: return 19;
    case sql::TypeName::kReal: return 7;
    case sql::TypeName::kFloat:
    case sql::TypeName::kDouble: return 15;
    case sql::TypeName::kDecimal: return 19;
    case sql::TypeName::kDate:
    case sql::TypeName::kRow: return 0;
    default: return std::nullopt;
  }
}

// An object as Hoptimator's `!specify` prints it: no owner references, the namespace only when
// the template named another one; a Database with its spec's keys in order and its dialect as
// Hoptimator's enum constant (`MYSQL`, compatibility.md §5.6).
void HoptimatorSpecified(resource::Resource& r, const std::string& namespace_name) {
  Json& json = r.mutable_json();
  Json& metadata = json["metadata"];
  metadata.erase("ownerReferences");
  if (metadata.value("namespace", "") == namespace_name) metadata.erase("namespace");
  if (r.kind() == "Database" && json.contains("spec") && json["spec"].is_object()) {
    Json sorted = Json::object();
    std::vector<std::string> keys;
    for (auto it = json["spec"].begin(); it != json["spec"].end(); ++it) keys.push_back(it.key());
    std::sort(keys.begin(), keys.end());
    for (const std::string& k : keys) sorted[k] = json["spec"][k];
    if (sorted.contains("dialect") && sorted["dialect"].is_string()) {
      sorted["dialect"] = AsciiToUpper(sorted["dialect"].get<std::string>());
    }
    json["spec"] = std::move(sorted);
  }
}

// The command word and the rest of the line.
std::pair<std::string, std::string_view> SplitCommand(std::string_view text) {
  text = TrimWhitespace(text);
  size_t end = 0;
  while (end < text.size() && text[end] != ' ' && text[end] != '\t') ++end;
  return {AsciiToLower(text.substr(0, end)), TrimWhitespace(text.substr(end))};
}

// Names typed to commands are taken as written (compatibility.md §1.1); an unquoted name that does
// not resolve is taken in upper case, as SQL would fold it, and its errors are those of that form.
void UnquotedFallback(const catalog::Catalog& cat, std::string_view arg,
                      std::vector<std::string>& path) {
  if (arg.find('"') != std::string_view::npos || cat.Resolve(path).ok()) return;
  for (auto& p : path) p = Utf8ToUpper(p);
}

constexpr std::string_view kSettings =
    "settings: namespace, hints, mode, catalogs, outputformat, specify, query_timeout, "
    "query_memory";

constexpr std::string_view kHelp =
    "Commands:\n"
    "  !pipeline <statement>  the pipeline SQL of a CREATE MATERIALIZED VIEW, INSERT or SELECT\n"
    "  !specify <statement>   the resources executing it would write (YAML), writing nothing\n"
    "  !resolve <table>       a table's row type (as Avro) and its source and sink configs\n"
    "  !tables [schema]       the tables and views of the catalog\n"
    "  !schemas               the schemas of the catalog and their databases\n"
    "  !describe <table>      the columns of a table or view\n"
    "  !graph <table> [--depth N] [--format mermaid|json]\n"
    "                         the pipelines and triggers around a table or view (default depth 2)\n"
    "  !plan <query>          how a query runs (as EXPLAIN <query>)\n"
    "  !wait [seconds]        until no fire, run or Job is left to do (default 60 s)\n"
    "  !metrics               the operator's counters and trigger fire-to-start latency\n"
    "  !help                  this list\n"
    "Statements:\n"
    "  CREATE [OR REPLACE] VIEW | MATERIALIZED VIEW | TABLE | TRIGGER | DATABASE ...\n"
    "  DROP VIEW | MATERIALIZED VIEW | TABLE | TRIGGER | DATABASE [IF EXISTS] name\n"
    "  FIRE TRIGGER name [RETRY] [WITH (...)] | FIRE TABLE | VIEW | MATERIALIZED VIEW name\n"
    "  PAUSE | RESUME TRIGGER | MATERIALIZED VIEW name;  REFRESH MATERIALIZED VIEW name\n"
    "  each prints what it changed\n"
    "  SELECT ... | VALUES ... | WITH ...  runs on the local engine and prints its rows\n"
    "  EXPLAIN <query>        how it runs: the tables read, what is pushed down to them\n"
    "  SPECIFY <statement> | PIPELINE <statement> | DESCRIBE [TABLE] <table> | RESOLVE <table>\n"
    "  GRAPH <table> [DEPTH n] [FORMAT MERMAID | JSON]\n"
    "                         the commands above as SQL, returning rows (clients of hop serve)\n"
    "  INSERT INTO <local table> ...  inserts rows; other INSERTs are planned (!pipeline)\n"
    "Settings (SET name = value, RESET name, SHOW name | ALL):\n"
    "  namespace  the namespace resources are read from (default: default)\n"
    "  hints      k=v,k2=v2: options merged over every table of a pipeline\n"
    "  mode       create or apply: how CREATE treats objects that exist\n"
    "  catalogs   comma list of the catalogs and schemas to see (default: all)\n"
    "  outputformat   table, mysql, csv, tsv or json: how query results print\n"
    "  specify    hoptimator or all: Hoptimator's documents, or every object hop writes\n"
    "  query_timeout  seconds a query may run (0: no limit, the default)\n"
    "  query_memory   megabytes a query may hold (default 1024; 0: no limit)\n";

}  // namespace

ControlPlane* Session::StartedControlPlane(ControlPlaneNeed need) {
  if (start_control_plane_) {
    control_plane_ = start_control_plane_(need);
    // Made and run: there is nothing more to ask of the starter.
    if (need == ControlPlaneNeed::kRun) start_control_plane_ = nullptr;
  }
  return control_plane_;
}

Status Session::Wait(std::string_view arg, std::string& out) {
  double seconds = 60;
  if (!arg.empty()) {
    char* end = nullptr;
    const std::string text(arg);
    seconds = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !(seconds >= 0) || seconds > 86400) {
      return Status::InvalidArgument(
          fmt::format("!wait takes a number of seconds (0 to 86400), not '{}'", arg));
    }
  }
  // Started here if it can be (this process then reconciles), else another process does, or
  // nobody: the store says what is left to do either way.
  WaitOptions options;
  options.control_plane = StartedControlPlane(ControlPlaneNeed::kWhenBusy);
  options.timeout = std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  options.cancel = properties_.budget.cancel;
  (void)out;
  return WaitUntilIdle(store_, options).WithContext("!wait: ");
}

Result<tmpl::Entries> ParseHints(std::string_view text) {
  tmpl::Entries out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view entry = TrimWhitespace(text.substr(start, end - start));
    start = end + 1;
    if (entry.empty()) {
      if (end == text.size()) break;
      continue;
    }
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return Status::InvalidArgument(fmt::format("malformed hint '{}': expected key=value", entry));
    }
    HOP_ASSIGN_OR_RETURN(std::string key, UrlDecode(entry.substr(0, eq), entry));
    HOP_ASSIGN_OR_RETURN(std::string value, UrlDecode(entry.substr(eq + 1), entry));
    tmpl::SetEntry(out, key, std::move(value));
    if (end == text.size()) break;
  }
  return out;
}

Result<std::vector<std::string>> SplitTableName(std::string_view text) {
  text = TrimWhitespace(text);
  std::vector<std::string> parts;
  if (text.find('"') == std::string_view::npos) {
    size_t start = 0;
    for (;;) {
      size_t dot = text.find('.', start);
      parts.emplace_back(text.substr(start, dot == std::string_view::npos ? dot : dot - start));
      if (dot == std::string_view::npos) break;
      start = dot + 1;
    }
  } else {
    // Quoted identifiers, '.'-separated; "" inside quotes is a quote.
    size_t i = 0;
    auto bad = [&] {
      return Status::InvalidArgument(
          fmt::format("Not a well-formed quoted table identifier: {}", text));
    };
    for (;;) {
      std::string part;
      if (i < text.size() && text[i] == '"') {
        ++i;
        bool closed = false;
        while (i < text.size()) {
          if (text[i] == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              part += '"';
              i += 2;
              continue;
            }
            ++i;
            closed = true;
            break;
          }
          part += text[i++];
        }
        if (!closed) return bad();
      } else {
        while (i < text.size() && text[i] != '.') {
          if (text[i] == '"') return bad();
          part += text[i++];
        }
      }
      if (part.empty()) return bad();
      parts.push_back(std::move(part));
      if (i == text.size()) break;
      if (text[i] != '.') return bad();
      ++i;
    }
  }
  for (const auto& p : parts) {
    if (p.empty()) {
      return Status::InvalidArgument(fmt::format("'{}' is not a table name", text));
    }
  }
  return parts;
}

namespace {

// `!specify` prints what the statement would warn about after the documents, as YAML comments, so
// that its output still applies as it is. Every line break a YAML reader may see (CR, NEL, LS and
// PS too, which a quoted name can hold) starts a new comment line: no text of a warning can
// become YAML.
void AppendWarningComments(const std::string& warnings, std::string& out) {
  if (warnings.empty()) return;
  out += "# Warnings:\n# ";
  for (size_t i = 0; i < warnings.size(); ++i) {
    const std::string_view rest = std::string_view(warnings).substr(i);
    size_t skip = 0;
    if (rest[0] == '\n' || rest[0] == '\r') {
      skip = 1;
    } else if (rest.rfind("\xC2\x85", 0) == 0) {
      skip = 2;
    } else if (rest.rfind("\xE2\x80\xA8", 0) == 0 || rest.rfind("\xE2\x80\xA9", 0) == 0) {
      skip = 3;
    }
    if (skip == 0) {
      out += warnings[i];
      continue;
    }
    out += "\n# ";
    i += skip - 1;
  }
  out += "\n";
}

}  // namespace

Session::Session(store::Store& store, Properties properties)
    : store_(store), properties_(std::move(properties)) {}

int Session::RunScript(std::string_view script, std::string_view name, std::string& out,
                       std::string& err) {
  int failed = 0;
  for (const sql::ScriptItem& item : sql::SplitScript(script)) {
    SourceOrigin origin{item.loc.line, item.loc.column, item.line_prefix};
    Status st = Execute(item.text, item.kind == sql::ScriptItem::Kind::kCommand, out, origin);
    if (!st.ok()) {
      ++failed;
      err += fmt::format("{}: {}\n", name, st.ToString());
    }
  }
  return failed;
}

Status Session::Execute(std::string_view text, bool is_command, std::string& out,
                        const SourceOrigin& origin) {
  // What a session prints never shows a secret: database URLs and rendered connector
  // configurations carry passwords (ARCHITECTURE.md §4.16, docs/resources.md "Secrets").
  const size_t printed = out.size();
  TextSink sink(out, properties_.output_format, flush_ ? &flush_ : nullptr);
  Status st = is_command ? Command(text, sink, origin) : Statement(text, sink, origin);
  if (out.size() > printed) {
    std::string shown = RedactSecrets(std::string_view(out).substr(printed));
    out.resize(printed);
    out += shown;
  }
  if (!st.ok()) return Status(st.code(), RedactSecrets(st.message()));
  return st;
}

namespace {

// Passes a statement's results on with secrets redacted from what it prints.
class RedactingSink : public ResultSink {
 public:
  explicit RedactingSink(ResultSink& to) : to_(to) {}
  Status Rows(std::unique_ptr<engine::Cursor> cursor) override {
    return to_.Rows(std::move(cursor));
  }
  Status Table(const std::vector<ResultColumn>& columns,
               const std::vector<std::vector<TableCell>>& rows) override {
    std::vector<std::vector<TableCell>> shown = rows;
    for (auto& row : shown) {
      for (TableCell& cell : row) {
        if (cell) cell = RedactSecrets(*cell);
      }
    }
    return to_.Table(columns, shown);
  }
  void Text(std::string_view text) override { to_.Text(RedactSecrets(text)); }
  void Warnings(std::string_view warnings) override { to_.Warnings(RedactSecrets(warnings)); }
  void Complete(std::string_view tag) override { to_.Complete(tag); }

 private:
  ResultSink& to_;
};

}  // namespace

Status Session::Execute(std::string_view text, bool is_command, ResultSink& sink,
                        const SourceOrigin& origin) {
  RedactingSink redacting(sink);
  Status st = is_command ? Command(text, redacting, origin) : Statement(text, redacting, origin);
  if (!st.ok()) return Status(st.code(), RedactSecrets(st.message()));
  return st;
}

namespace {

// The tag PostgreSQL clients expect of a DDL statement: its title without the object's name.
std::string CommandTag(const sql::Statement& stmt) {
  std::string title = sql::StatementTitle(stmt);
  static constexpr std::string_view kObjects[] = {
      "MATERIALIZED VIEW", "TABLE", "VIEW", "TRIGGER", "DATABASE", "FUNCTION", "CATALOG"};
  for (std::string_view object : kObjects) {
    const size_t at = title.find(object);
    if (at != std::string::npos) return title.substr(0, at + object.size());
  }
  return title;
}

}  // namespace

Result<std::optional<std::vector<ResultColumn>>> Session::ResultColumns(std::string_view text) {
  using Columns = std::optional<std::vector<ResultColumn>>;
  HOP_ASSIGN_OR_RETURN(sql::StatementPtr stmt, sql::ParseStatement(text));
  if (stmt->kind == sql::StatementKind::kShow) {
    return Columns(
        std::vector<ResultColumn>{{"name", TextColumnType()}, {"value", TextColumnType()}});
  }
  if (auto columns = InspectColumns(stmt->kind)) return Columns(std::move(*columns));
  if (stmt->kind != sql::StatementKind::kQuery) return Columns();
  HOP_ASSIGN_OR_RETURN(BoundQuery bound, BindQuery(*stmt));
  std::vector<ResultColumn> columns;
  for (const catalog::Column& c : bound.plan->row_type.columns) {
    columns.push_back({c.name, c.type});
  }
  return Columns(std::move(columns));
}

Status Session::Statement(std::string_view text, ResultSink& sink, const SourceOrigin& origin) {
  // Only a statement parsed where its text starts is kept: its positions are the text's own.
  const bool keepable = origin.line <= 1 && origin.column <= 1 && origin.prefix.empty() &&
                        properties_.catalogs.empty() && text.size() <= kKeptQueryBytes;
  if (keepable) {
    HOP_ASSIGN_OR_RETURN(const BoundQuery* kept, KeptBinding(text));
    if (kept != nullptr) return RunQuery(*kept, sink);
  }
  HOP_ASSIGN_OR_RETURN(
      sql::StatementPtr stmt,
      sql::ParseStatement(text, sql::ParseOptions{{origin.line, origin.column}, origin.prefix}));
  if (keepable && stmt->kind == sql::StatementKind::kQuery) {
    HOP_ASSIGN_OR_RETURN(BoundQuery bound, BindQuery(*stmt));
    if (kept_queries_.size() >= kKeptQueries) kept_queries_.clear();
    const int64_t revision = bound.catalog->revision();
    auto [it, added] = kept_queries_.insert_or_assign(
        std::string(text), KeptQuery{std::move(stmt), std::move(bound), revision});
    return RunQuery(it->second.bound, sink);
  }
  if (deploy::Executor::Executes(*stmt)) {
    StartedControlPlane(
        ControlPlaneNeed::kRun);  // what the statement writes is reconciled here, if anywhere
    HOP_ASSIGN_OR_RETURN(deploy::ExecuteOptions options, ExecuteOptions());
    options.report_when_written = report_when_written_;
    deploy::Executor executor(store_, std::move(options));
    HOP_ASSIGN_OR_RETURN(deploy::Outcome outcome, executor.Execute(*stmt));
    durable_mark_ = std::max(durable_mark_, outcome.durable_mark);
    sink.Text(outcome.Summary() + "\n");
    if (!outcome.warnings.empty()) sink.Warnings(outcome.warnings);
    if (std::string note = LocalViewNote(*stmt); !note.empty()) sink.Text(note);
    sink.Complete(CommandTag(*stmt));
    return Status::OK();
  }
  switch (stmt->kind) {
    case sql::StatementKind::kSet: {
      const auto& set = stmt->As<sql::SetStatement>();
      HOP_RETURN_IF_ERROR(set.value_kind == sql::SettingValueKind::kDefault
                              ? Reset(set.name)
                              : Set(set.name, set.value));
      sink.Complete("SET");
      return Status::OK();
    }
    case sql::StatementKind::kReset:
      HOP_RETURN_IF_ERROR(Reset(stmt->As<sql::ResetStatement>().name));
      sink.Complete("RESET");
      return Status::OK();
    case sql::StatementKind::kShow:
      HOP_RETURN_IF_ERROR(Show(stmt->As<sql::ShowStatement>().name, sink));
      sink.Complete("SHOW");
      return Status::OK();
    case sql::StatementKind::kQuery: return Query(*stmt, sink);
    case sql::StatementKind::kInsert: return Insert(*stmt, sink);
    case sql::StatementKind::kExplain:
    case sql::StatementKind::kSpecify:
    case sql::StatementKind::kPipeline:
    case sql::StatementKind::kDescribe:
    case sql::StatementKind::kResolve:
    case sql::StatementKind::kGraph: return Inspect(stmt->As<sql::InspectStatement>(), sink);
    case sql::StatementKind::kCreateFunction:
      // Hoptimator parses CREATE FUNCTION and refuses to execute it (compatibility.md §1.3), so
      // no function can exist: DROP FUNCTION finds none.
      return Status::InvalidArgument(fmt::format(
          "DDL not supported: {}. Hoptimator parses CREATE FUNCTION but does not execute it, and "
          "neither does hop",
          sql::StatementTitle(*stmt)));
    case sql::StatementKind::kDrop: {  // the executor takes every DROP but DROP FUNCTION
      const auto& drop = stmt->As<sql::DropStatement>();
      if (drop.if_exists) {
        sink.Text(fmt::format("{}: nothing to do\n", sql::StatementTitle(*stmt)));
        sink.Complete("DROP FUNCTION");
        return Status::OK();
      }
      return Status::NotFound(fmt::format("Function '{}' not found", Join(drop.name.Names(), ".")));
    }
    default:
      return Status::InvalidArgument(
          fmt::format("{} is not executed by this version of hop yet", sql::StatementTitle(*stmt)));
  }
}

Status Session::Command(std::string_view text, ResultSink& sink, const SourceOrigin& origin) {
  auto [word, rest] = SplitCommand(text);
  // Commands that print text; the others give their results in structure.
  std::string out;
  HOP_ASSIGN_OR_RETURN(bool printed, TextCommand(word, text, rest, out, origin));
  if (printed) {
    sink.Text(out);
    sink.Complete(AsciiToUpper(word));
    return Status::OK();
  }
  if (word == "tables") return Tables(rest, sink);
  if (word == "schemas") return Schemas(sink);
  if (word == "describe") return Describe(rest, sink);
  if (word == "metrics") {
    if (StartedControlPlane(ControlPlaneNeed::kRun) == nullptr || !control_plane_->leading()) {
      return Status::InvalidArgument("!metrics: this session does not run the operator");
    }
    std::vector<std::vector<TableCell>> rows;
    for (auto& [name, value] : control_plane_->Metrics()) rows.push_back({name, value});
    HOP_RETURN_IF_ERROR(
        sink.Table({{"METRIC", TextColumnType()}, {"VALUE", TextColumnType()}}, rows));
    sink.Complete("SELECT");
    return Status::OK();
  }
  return Status::InvalidArgument(
      fmt::format("unknown command '!{}'; !help lists the commands", word));
}

Result<bool> Session::TextCommand(std::string_view word, std::string_view text,
                                  std::string_view rest, std::string& out,
                                  const SourceOrigin& origin) {
  if (word == "pipeline") {
    // The statement starts after the command word: keep positions true to the file.
    size_t offset = static_cast<size_t>(rest.data() - text.data());
    SourceOrigin at = origin;
    at.column += static_cast<uint32_t>(offset);
    std::string prefix = std::string(origin.prefix) + std::string(text.substr(0, offset));
    at.prefix = prefix;
    HOP_RETURN_IF_ERROR(Pipeline(rest, out, at));
    return true;
  }
  if (word == "specify" || word == "spec") {
    size_t offset = static_cast<size_t>(rest.data() - text.data());
    SourceOrigin at = origin;
    at.column += static_cast<uint32_t>(offset);
    std::string prefix = std::string(origin.prefix) + std::string(text.substr(0, offset));
    at.prefix = prefix;
    HOP_RETURN_IF_ERROR(Specify(rest, out, at));
    return true;
  }
  if (word == "plan") {
    size_t offset = static_cast<size_t>(rest.data() - text.data());
    SourceOrigin at = origin;
    at.column += static_cast<uint32_t>(offset);
    std::string prefix = std::string(origin.prefix) + std::string(text.substr(0, offset));
    at.prefix = prefix;
    if (rest.empty()) return Status::InvalidArgument("!plan needs a query, e.g. !plan SELECT ...");
    HOP_RETURN_IF_ERROR(Explain(rest, out, at));
    return true;
  }
  if (word == "resolve") {
    HOP_RETURN_IF_ERROR(Resolve(rest, out));
    return true;
  }
  if (word == "graph") {
    HOP_ASSIGN_OR_RETURN(std::vector<std::string> args, SplitGraphArguments(rest));
    HOP_ASSIGN_OR_RETURN(GraphRequest request, ParseGraphArguments(args));
    HOP_ASSIGN_OR_RETURN(std::string text, GraphText(request));
    out += text;
    return true;
  }
  if (word == "help") {
    out += kHelp;
    return true;
  }
  if (word == "wait") {
    HOP_RETURN_IF_ERROR(Wait(rest, out));
    return true;
  }
  return false;
}

namespace {

// What a checked statement makes of the catalog, for the statements after it: the view or table
// a CREATE makes, and the removal of what a DROP deletes.
void Remember(const binder::BoundStatement& bound, catalog::Catalog& cat) {
  if (bound.nothing_to_do) return;
  const catalog::Schema* schema = nullptr;
  catalog::Table table;
  if (bound.kind() == sql::StatementKind::kCreateView ||
      bound.kind() == sql::StatementKind::kCreateMaterializedView) {
    const auto& v = bound.As<binder::BoundCreateView>();
    schema = v.schema;
    table.kind =
        v.materialized ? catalog::ObjectKind::kMaterializedView : catalog::ObjectKind::kView;
    table.path = v.path;
    table.resource = v.resource;
    table.row_type = v.query->row_type;
    if (auto text = sql::PrintQuery(*v.query_ast); text.ok()) table.sql = *text;
  } else if (bound.kind() == sql::StatementKind::kCreateTable) {
    const auto& t = bound.As<binder::BoundCreateTable>();
    schema = t.schema;
    table.kind = catalog::ObjectKind::kTable;
    table.path = t.path;
    table.resource =
        t.existing != nullptr
            ? t.existing->resource
            : resource::Canonicalize(std::vector<std::string>{t.schema->database, t.path.back()});
    table.row_type = t.row;
  } else if (bound.kind() == sql::StatementKind::kDrop) {
    const auto& d = bound.As<binder::BoundDrop>();
    // Only what hop made can be dropped (a demo database's table stays).
    if (d.target == nullptr || d.target->resource.empty()) return;
    auto found = cat.SchemaFor(d.target->path);
    if (!found.ok()) return;
    catalog::Schema changed = **found;
    changed.tables.erase(d.target->name);
    cat.AddSchema(std::move(changed));
    return;
  } else {
    return;
  }
  table.name = table.path.back();
  table.database = schema->database;
  catalog::Schema changed = *schema;
  changed.tables[table.name] = std::move(table);
  cat.AddSchema(std::move(changed));
}

}  // namespace

Status Session::Check(const sql::Statement& statement) {
  if (!checked_catalog_) {
    HOP_ASSIGN_OR_RETURN(deploy::ExecuteOptions options, ExecuteOptions());
    checked_catalog_.emplace(options.catalog->Clone());
  }
  HOP_ASSIGN_OR_RETURN(
      binder::BoundStatementPtr bound,
      binder::BindStatement(*checked_catalog_, statement, {properties_.mode == Mode::kApply}));
  Remember(*bound, *checked_catalog_);
  return Status::OK();
}

void Session::MakeCaches() {
  if (!catalog_cache_ || catalog_cache_->namespace_name() != properties_.namespace_name) {
    kept_queries_.clear();  // they point into the catalog of the cache
    catalog_cache_ = std::make_unique<catalog::CatalogCache>(store_, properties_.namespace_name);
    render_cache_ =
        std::make_unique<deploy::RenderContextCache>(store_, properties_.namespace_name);
  }
}

Result<deploy::ExecuteOptions> Session::ExecuteOptions() {
  MakeCaches();
  deploy::ExecuteOptions o;
  HOP_ASSIGN_OR_RETURN(o.catalog, catalog_cache_->Get());
  HOP_ASSIGN_OR_RETURN(o.render, render_cache_->Get());
  o.namespace_name = properties_.namespace_name;
  o.hints = properties_.hints;
  o.apply_mode = properties_.mode == Mode::kApply;
  o.clock = properties_.clock;
  o.provisioners = properties_.provisioners;
  return o;
}

Result<planner::PlanContext> Session::PlanContext(const catalog::Catalog& cat) {
  HOP_ASSIGN_OR_RETURN(deploy::RenderContext render,
                       deploy::LoadRenderContext(store_, properties_.namespace_name));
  planner::PlanContext ctx;
  ctx.catalog = &cat;
  ctx.hints = properties_.hints;
  ctx.table_templates = std::move(render.table_templates);
  ctx.config = std::move(render.config);
  return ctx;
}

Status Session::Pipeline(std::string_view text, std::string& out, const SourceOrigin& origin) {
  if (text.empty()) {
    return Status::InvalidArgument("!pipeline needs a statement, e.g. !pipeline INSERT INTO ...");
  }
  while (!text.empty() && (text.back() == ';' || text.back() == ' ')) text.remove_suffix(1);
  HOP_ASSIGN_OR_RETURN(
      sql::StatementPtr stmt,
      sql::ParseStatement(text, sql::ParseOptions{{origin.line, origin.column}, origin.prefix}));
  HOP_ASSIGN_OR_RETURN(planner::Pipeline p, PlanPipeline(*stmt));
  out += p.sql;
  out += '\n';
  return Status::OK();
}

Result<planner::Pipeline> Session::PlanPipeline(const sql::Statement& stmt) {
  HOP_ASSIGN_OR_RETURN(catalog::Catalog cat, LoadCatalog(store_, properties_));
  if (stmt.kind == sql::StatementKind::kCreateMaterializedView) {
    // As executing it would: the binder says whether the view may be made (a dry run).
    HOP_RETURN_IF_ERROR(
        binder::BindStatement(cat, stmt, {properties_.mode == Mode::kApply}).status());
  }
  HOP_ASSIGN_OR_RETURN(planner::PlanContext ctx, PlanContext(cat));
  planner::Planner planner(std::move(ctx));
  return planner.Plan(stmt);
}

Status Session::Specify(std::string_view text, std::string& out, const SourceOrigin& origin) {
  if (text.empty()) {
    return Status::InvalidArgument("!specify needs a statement, e.g. !specify INSERT INTO ...");
  }
  while (!text.empty() && (text.back() == ';' || text.back() == ' ')) text.remove_suffix(1);
  HOP_ASSIGN_OR_RETURN(
      sql::StatementPtr stmt,
      sql::ParseStatement(text, sql::ParseOptions{{origin.line, origin.column}, origin.prefix}));
  std::string warnings;
  HOP_ASSIGN_OR_RETURN(std::vector<SpecifiedDocument> docs, SpecifyDocuments(*stmt, &warnings));
  for (size_t i = 0; i < docs.size(); ++i) {
    if (i > 0) out += "---\n";
    out += docs[i].yaml;
  }
  AppendWarningComments(warnings, out);
  return Status::OK();
}

Result<std::vector<Session::SpecifiedDocument>> Session::SpecifyDocuments(
    const sql::Statement& stmt, std::string* warnings) {
  std::vector<SpecifiedDocument> docs;
  if (deploy::Executor::Executes(stmt)) {
    const bool hoptimator_specifies = stmt.kind == sql::StatementKind::kCreateMaterializedView ||
                                      stmt.kind == sql::StatementKind::kCreateTable ||
                                      stmt.kind == sql::StatementKind::kCreateDatabase;
    if (!properties_.specify_all && !hoptimator_specifies) {
      // Hoptimator specifies only these (compatibility.md §8); hop can show the rest.
      return Status::InvalidArgument(fmt::format(
          "Unsupported DDL statement: {} (SET specify = all shows what hop writes)", stmt.source));
    }
    HOP_ASSIGN_OR_RETURN(deploy::ExecuteOptions options, ExecuteOptions());
    deploy::Executor executor(store_, std::move(options));
    std::vector<bool> elements;
    HOP_ASSIGN_OR_RETURN(std::vector<resource::Resource> objects,
                         executor.Specify(stmt, warnings, &elements));
    const bool hoptimator = !properties_.specify_all;
    std::vector<std::string> hidden;
    for (size_t i = 0; i < objects.size(); ++i) {
      resource::Resource& r = objects[i];
      if (hoptimator) {
        // Hoptimator prints what its templates render, as rendered (compatibility.md §8).
        if (stmt.kind != sql::StatementKind::kCreateDatabase && !elements[i]) {
          hidden.push_back(AsciiToLower(r.kind()) + "/" + r.name());
          continue;
        }
        HoptimatorSpecified(r, properties_.namespace_name);
      }
      docs.push_back({r.kind(), r.name(), r.ToYaml()});
    }
    if (docs.empty() && !hidden.empty()) {
      // Nothing Hoptimator would print: say what hop writes, lest it look like nothing.
      Issues issues;
      issues.Child("statement")
          .Warning(fmt::format(
              "no template renders a document for it; hop writes {} (SET specify = all shows them)",
              Join(hidden, ", ")));
      *warnings += issues.Render();
    }
    return docs;
  }
  HOP_ASSIGN_OR_RETURN(catalog::Catalog cat, LoadCatalog(store_, properties_));
  HOP_ASSIGN_OR_RETURN(deploy::RenderContext render,
                       deploy::LoadRenderContext(store_, properties_.namespace_name));
  planner::PlanContext ctx;
  ctx.catalog = &cat;
  ctx.hints = properties_.hints;
  ctx.table_templates = render.table_templates;
  ctx.config = render.config;
  planner::Planner planner(std::move(ctx));
  HOP_ASSIGN_OR_RETURN(planner::Pipeline p, planner.Plan(stmt));
  deploy::Renderer renderer(std::move(render));
  std::vector<deploy::SkippedTemplate> skipped;
  HOP_ASSIGN_OR_RETURN(std::vector<deploy::Spec> specs, renderer.PipelineSpecs(p, &skipped));
  for (const deploy::Spec& spec : specs) {
    // A template may render several documents: their kinds and names, joined.
    SpecifiedDocument doc;
    for (const Json& d : spec.docs) {
      if (!d.is_object()) continue;
      const std::string sep = doc.kind.empty() ? "" : ", ";
      doc.kind += sep + d.value("kind", "");
      const auto meta = d.find("metadata");
      doc.name += sep + (meta != d.end() && meta->is_object() ? meta->value("name", "") : "");
    }
    doc.yaml = spec.yaml + "\n";
    docs.push_back(std::move(doc));
  }
  Issues issues;
  deploy::AddSkipWarnings(skipped, issues);
  *warnings += issues.Render();
  return docs;
}

Status Session::Resolve(std::string_view arg, std::string& out) {
  HOP_ASSIGN_OR_RETURN(std::vector<std::string> path, SplitTableName(arg));
  HOP_ASSIGN_OR_RETURN(ResolvedTable r, ResolveTable(path, arg));
  out += "Avro schema:\n" + r.avro + "\n";
  out += "Source configs:\n" + MapText(r.source) + "\n";
  out += "Sink configs:\n" + MapText(r.sink) + "\n";
  return Status::OK();
}

Result<Session::ResolvedTable> Session::ResolveTable(std::vector<std::string> path,
                                                     std::string_view typed) {
  HOP_ASSIGN_OR_RETURN(catalog::Catalog cat, LoadCatalog(store_, properties_));
  // Names typed to a command are taken as typed; an unquoted one that does not resolve is tried
  // in upper case.
  if (!typed.empty()) UnquotedFallback(cat, typed, path);
  HOP_ASSIGN_OR_RETURN(const catalog::Table* table, cat.Resolve(path));
  HOP_ASSIGN_OR_RETURN(planner::PlanContext ctx, PlanContext(cat));
  planner::Planner planner(std::move(ctx));
  HOP_ASSIGN_OR_RETURN(planner::PipelineTable t, planner.Table(table->path));
  HOP_ASSIGN_OR_RETURN(const catalog::Schema* schema, cat.SchemaFor(table->path));
  catalog::AvroName name = catalog::AvroNameOfTable(table->path);
  HOP_ASSIGN_OR_RETURN(Json avro,
                       catalog::AvroSchema(table->row_type, name.namespace_name, name.name,
                                           schema->adapter == catalog::Adapter::kDemo
                                               ? catalog::AvroTypeSpelling::kJava
                                               : catalog::AvroTypeSpelling::kSql));
  planner::PipelineTable as_sink = t;
  ResolvedTable r;
  HOP_ASSIGN_OR_RETURN(r.source, planner.Connector(t, planner::Method::kScan));
  HOP_ASSIGN_OR_RETURN(r.sink, planner.Connector(as_sink, planner::Method::kModify));
  r.avro = catalog::PrettyAvro(avro);
  return r;
}

Result<std::string> Session::GraphText(const GraphRequest& request) {
  HOP_ASSIGN_OR_RETURN(std::vector<std::string> path, SplitTableName(request.identifier));
  HOP_ASSIGN_OR_RETURN(catalog::Catalog cat, LoadCatalog(store_, properties_));
  const bool unquoted = request.identifier.find('"') == std::string::npos;
  HOP_ASSIGN_OR_RETURN(session::Graph graph,
                       BuildGraph(store_, cat, TrimWhitespace(request.identifier), std::move(path),
                                  unquoted, request.depth));
  return RenderGraph(graph, request.format);
}

Status Session::Tables(std::string_view arg, ResultSink& sink) {
  HOP_ASSIGN_OR_RETURN(catalog::Catalog cat, LoadCatalog(store_, properties_));
  std::string filter = Utf8ToUpper(arg);
  std::vector<std::vector<TableCell>> rows;
  // Schemas and tables found in their systems (PostgreSQL) are listed too: that connects to
  // them, as only this listing and statements that reach them do.
  std::vector<std::string> unlisted;
  std::vector<const catalog::Schema*> schemas = cat.Schemas();
  if (auto found = cat.DiscoverSchemas(); found.ok()) {
    for (const catalog::Schema* s : *found) {
      if (std::find(schemas.begin(), schemas.end(), s) == schemas.end()) schemas.push_back(s);
    }
  } else {
    unlisted.push_back(found.status().ToString());
  }
  for (const catalog::Schema* s : schemas) {
    std::string schema_name = s->catalog.empty() ? s->name : s->catalog + "." + s->name;
    if (!filter.empty() && filter != Utf8ToUpper(schema_name)) continue;
    auto tables = cat.TablesOf(*s);
    if (!tables.ok()) {
      // A server that cannot be reached hides its tables, not the others'.
      unlisted.push_back(tables.status().ToString());
      continue;
    }
    for (const catalog::Table* t : *tables) {
      rows.push_back({schema_name, t->name, std::string(ObjectKindName(t->kind)),
                      s->database.empty() ? TableCell() : TableCell(s->database)});
    }
  }
  const sql::DataType text = TextColumnType();
  HOP_RETURN_IF_ERROR(
      sink.Table({{"SCHEMA", text}, {"TABLE", text}, {"TYPE", text}, {"DATABASE", text}}, rows));
  for (const std::string& why : unlisted) sink.Text("not listed: " + why + "\n");
  sink.Complete("SELECT");
  return Status::OK();
}

Status Session::Schemas(ResultSink& sink) {
  HOP_ASSIGN_OR_RETURN(catalog::Catalog cat, LoadCatalog(store_, properties_));
  std::vector<std::vector<TableCell>> rows;
  for (const catalog::Schema* s : cat.Schemas()) {
    rows.push_back({s->catalog.empty() ? TableCell() : TableCell(s->catalog), s->name,
                    s->database.empty() ? TableCell() : TableCell(s->database),
                    s->url.empty() ? TableCell() : TableCell(RedactSecrets(s->url)),
                    s->status.ok() ? TableCell("OK") : TableCell(s->status.ToString())});
  }
  const sql::DataType text = TextColumnType();
  HOP_RETURN_IF_ERROR(sink.Table(
      {{"CATALOG", text}, {"SCHEMA", text}, {"DATABASE", text}, {"URL", text}, {"STATUS", text}},
      rows));
  sink.Complete("SELECT");
  return Status::OK();
}

Status Session::Describe(std::string_view arg, ResultSink& sink) {
  HOP_ASSIGN_OR_RETURN(std::vector<std::string> path, SplitTableName(arg));
  return Describe(std::move(path), arg, sink);
}

Status Session::Describe(std::vector<std::string> path, std::string_view typed, ResultSink& sink) {
  HOP_ASSIGN_OR_RETURN(catalog::Catalog cat, LoadCatalog(store_, properties_));
  if (!typed.empty()) UnquotedFallback(cat, typed, path);
  HOP_ASSIGN_OR_RETURN(const catalog::Table* table, cat.Resolve(path));
  catalog::RowType row = table->row_type;
  if (table->kind != catalog::ObjectKind::kTable && !table->sql.empty()) {
    // A view's columns are its query's.
    binder::Binder binder(cat);
    binder.SetUser([this] { return SessionUser(properties_); });
    HOP_ASSIGN_OR_RETURN(binder::RelPtr view, binder.BindView(*table));
    row = view->row_type;
  }
  std::vector<std::vector<TableCell>> rows;
  for (const auto& c : row.columns) {
    sql::DataType t = c.type;
    // Calcite's default lengths and precisions, which it shows.
    if (!t.precision && (t.name == sql::TypeName::kChar || t.name == sql::TypeName::kBinary)) {
      t.precision = 1;
    }
    if (!t.precision && (t.name == sql::TypeName::kTime || t.name == sql::TypeName::kTimestamp)) {
      t.precision = 0;
    }
    if (t.precision && !t.scale && t.name == sql::TypeName::kDecimal) t.scale = 0;
    // isNullable says it of the column; the type says it of its elements and fields.
    sql::DataType shown = t;
    shown.nullability = sql::Nullability::kUnspecified;
    const std::optional<int> size = t.precision ? t.precision : DefaultColumnSize(t.name);
    rows.push_back(
        {c.name, t.name == sql::TypeName::kRow ? std::string("ROW") : sql::TypeString(shown, true),
         size ? TableCell(std::to_string(*size)) : TableCell(),
         t.scale ? TableCell(std::to_string(*t.scale)) : TableCell(),
         binder::IsNullable(t) ? "YES" : "NO"});
  }
  HOP_RETURN_IF_ERROR(sink.Table(*InspectColumns(sql::StatementKind::kDescribe), rows));
  sink.Complete("SELECT");
  return Status::OK();
}

std::optional<std::vector<ResultColumn>> Session::InspectColumns(sql::StatementKind kind) {
  const sql::DataType text = TextColumnType();
  switch (kind) {
    case sql::StatementKind::kSpecify:
      return std::vector<ResultColumn>{{"KIND", text}, {"NAME", text}, {"YAML", text}};
    case sql::StatementKind::kPipeline: return std::vector<ResultColumn>{{"SQL", text}};
    case sql::StatementKind::kGraph: return std::vector<ResultColumn>{{"GRAPH", text}};
    case sql::StatementKind::kResolve:
      return std::vector<ResultColumn>{{"PART", text}, {"KEY", text}, {"VALUE", text}};
    case sql::StatementKind::kDescribe:
      return std::vector<ResultColumn>{{"columnName", text},
                                       {"typeName", text},
                                       {"columnSize", sql::DataType(sql::TypeName::kInteger)},
                                       {"columnScale", sql::DataType(sql::TypeName::kInteger)},
                                       {"isNullable", text}};
    default: return std::nullopt;  // EXPLAIN's plan is text
  }
}

Status Session::Inspect(const sql::InspectStatement& stmt, ResultSink& sink) {
  std::vector<std::vector<TableCell>> rows;
  switch (stmt.kind) {
    case sql::StatementKind::kExplain: {
      std::string out;
      HOP_RETURN_IF_ERROR(Explain(*stmt.statement, out));
      sink.Text(out);
      sink.Complete("EXPLAIN");
      return Status::OK();
    }
    case sql::StatementKind::kDescribe: return Describe(stmt.name.Names(), {}, sink);
    case sql::StatementKind::kSpecify: {
      std::string warnings;
      HOP_ASSIGN_OR_RETURN(std::vector<SpecifiedDocument> docs,
                           SpecifyDocuments(*stmt.statement, &warnings));
      for (SpecifiedDocument& d : docs) {
        rows.push_back({std::move(d.kind), std::move(d.name), std::move(d.yaml)});
      }
      if (!warnings.empty()) sink.Warnings(warnings);
      break;
    }
    case sql::StatementKind::kPipeline: {
      HOP_ASSIGN_OR_RETURN(planner::Pipeline p, PlanPipeline(*stmt.statement));
      for (const sql::ScriptItem& item : sql::SplitScript(p.sql)) {
        rows.push_back({std::string(item.text)});
      }
      break;
    }
    case sql::StatementKind::kGraph: {
      // SQL names, folded as the statement wrote them: no fallback.
      const std::vector<std::string> path = stmt.name.Names();
      GraphFormat format = GraphFormat::kMermaid;
      if (!stmt.format.empty()) {
        HOP_ASSIGN_OR_RETURN(format, ParseGraphFormat(stmt.format));
      }
      HOP_ASSIGN_OR_RETURN(catalog::Catalog cat, LoadCatalog(store_, properties_));
      HOP_ASSIGN_OR_RETURN(session::Graph graph,
                           BuildGraph(store_, cat, Join(path, "."), path, /*fold_fallback=*/false,
                                      static_cast<int>(stmt.depth.value_or(2))));
      // Mermaid a row per line; JSON one row.
      const std::string text = RenderGraph(graph, format);
      size_t start = 0;
      while (start < text.size()) {
        size_t eol = text.find('\n', start);
        if (eol == std::string::npos) eol = text.size();
        rows.push_back({text.substr(start, eol - start)});
        start = eol + 1;
      }
      break;
    }
    case sql::StatementKind::kResolve: {
      HOP_ASSIGN_OR_RETURN(ResolvedTable r, ResolveTable(stmt.name.Names(), {}));
      rows.push_back({"avro schema", TableCell(), r.avro});
      for (const auto& [k, v] : r.source) rows.push_back({"source", k, v});
      for (const auto& [k, v] : r.sink) rows.push_back({"sink", k, v});
      break;
    }
    default: return Status::Internal("not an inspecting statement");
  }
  HOP_RETURN_IF_ERROR(sink.Table(*InspectColumns(stmt.kind), rows));
  sink.Complete("SELECT");
  return Status::OK();
}

Status Session::Set(std::string_view name, std::string_view value) {
  std::string key = AsciiToLower(name);
  if (key == "namespace" || key == "k8s.namespace") {
    if (value.empty()) return Status::InvalidArgument("namespace cannot be empty");
    // Refused here, not at the first statement that writes an object in it.
    HOP_RETURN_IF_ERROR(resource::ValidateDnsLabel(value).WithContext("namespace: "));
    properties_.namespace_name = std::string(value);
  } else if (key == "hints") {
    HOP_ASSIGN_OR_RETURN(properties_.hints, ParseHints(value));
  } else if (key == "mode") {
    if (EqualsIgnoreCase(value, "apply")) {
      properties_.mode = Mode::kApply;
    } else if (EqualsIgnoreCase(value, "create")) {
      properties_.mode = Mode::kCreate;
    } else {
      return Status::InvalidArgument(fmt::format("mode must be create or apply, not '{}'", value));
    }
  } else if (key == "catalogs") {
    properties_.catalogs.clear();
    size_t start = 0;
    while (start <= value.size()) {
      size_t end = value.find(',', start);
      if (end == std::string_view::npos) end = value.size();
      std::string_view part = TrimWhitespace(value.substr(start, end - start));
      if (!part.empty()) properties_.catalogs.emplace_back(Utf8ToUpper(part));
      start = end + 1;
    }
  } else if (key == "outputformat") {
    if (!engine::ParseOutputFormat(value, &properties_.output_format)) {
      return Status::InvalidArgument(
          fmt::format("outputformat must be table, mysql, csv, tsv or json, not '{}'", value));
    }
  } else if (key == "specify") {
    if (EqualsIgnoreCase(value, "all")) {
      properties_.specify_all = true;
    } else if (EqualsIgnoreCase(value, "hoptimator")) {
      properties_.specify_all = false;
    } else {
      return Status::InvalidArgument(
          fmt::format("specify must be hoptimator or all, not '{}'", value));
    }
  } else if (key == "query_timeout" || key == "query_memory") {
    char* end = nullptr;
    const std::string v(value);
    const double x = std::strtod(v.c_str(), &end);
    const bool timeout = key == "query_timeout";
    if (v.empty() || *end != '\0' || !(x >= 0) || x > (timeout ? 86400.0 * 365 : 1024.0 * 1024)) {
      return Status::InvalidArgument(fmt::format("{} takes a number of {} (0: no limit), not '{}'",
                                                 key, timeout ? "seconds" : "megabytes", value));
    }
    if (timeout) {
      properties_.budget.timeout = std::chrono::milliseconds(static_cast<int64_t>(x * 1000));
    } else {
      properties_.budget.memory_bytes = static_cast<int64_t>(x * 1024 * 1024);
    }
  } else {
    return Status::InvalidArgument(fmt::format("unknown setting '{}' ({})", name, kSettings));
  }
  return Status::OK();
}

bool CopySetting(std::string_view name, const Properties& from, Properties& to) {
  const std::string key = AsciiToLower(name);
  const bool all = key.empty() || key == "all";
  bool known = all;
  auto copy = [&](std::initializer_list<std::string_view> names, auto&& assign) {
    for (std::string_view n : names) {
      if (all || key == n) {
        assign();
        known = true;
        return;
      }
    }
  };
  copy({"namespace", "k8s.namespace"}, [&] { to.namespace_name = from.namespace_name; });
  copy({"hints"}, [&] { to.hints = from.hints; });
  copy({"mode"}, [&] { to.mode = from.mode; });
  copy({"catalogs"}, [&] { to.catalogs = from.catalogs; });
  copy({"outputformat"}, [&] { to.output_format = from.output_format; });
  copy({"specify"}, [&] { to.specify_all = from.specify_all; });
  copy({"query_timeout"}, [&] { to.budget.timeout = from.budget.timeout; });
  copy({"query_memory"}, [&] { to.budget.memory_bytes = from.budget.memory_bytes; });
  return known;
}

Status Session::Reset(std::string_view name) {
  if (!CopySetting(name, Properties{}, properties_)) {
    return Status::InvalidArgument(fmt::format("unknown setting '{}' ({})", name, kSettings));
  }
  return Status::OK();
}

Status Session::Show(std::string_view name, ResultSink& sink) {
  std::vector<std::vector<TableCell>> rows;
  std::string key = AsciiToLower(name);
  auto row = [&](std::string n, std::string v) {
    if (key.empty() || key == "all" || key == n || (n == "namespace" && key == "k8s.namespace")) {
      rows.push_back({n, v});
    }
  };
  row("namespace", properties_.namespace_name);
  row("hints", HintsText(properties_.hints));
  row("mode", ModeName(properties_.mode));
  row("catalogs", JoinComma(properties_.catalogs));
  row("outputformat", std::string(engine::OutputFormatName(properties_.output_format)));
  row("specify", properties_.specify_all ? "all" : "hoptimator");
  const auto timeout = properties_.budget.timeout.count();
  row("query_timeout", timeout % 1000 == 0 ? std::to_string(timeout / 1000)
                                           : fmt::format("{:.3f}", timeout / 1000.0));
  row("query_memory", std::to_string(properties_.budget.memory_bytes / (1024 * 1024)));
  if (rows.empty()) {
    return Status::InvalidArgument(fmt::format("unknown setting '{}' ({})", name, kSettings));
  }
  return sink.Table({{"name", TextColumnType()}, {"value", TextColumnType()}}, rows);
}

// ---- queries --------------------------------------------------------------------------------

std::string Session::LocalViewNote(const sql::Statement& stmt) {
  if (stmt.kind == sql::StatementKind::kCreateTable &&
      stmt.As<sql::CreateTableStatement>().as_query) {
    return fmt::format(
        "Note: {} is filled by a refresh Job (its status.fill); its rows come when "
        "the Job succeeds (!wait waits for it).\n",
        stmt.As<sql::CreateTableStatement>().name.ToString());
  }
  if (stmt.kind != sql::StatementKind::kCreateMaterializedView || !catalog_cache_) return "";
  const sql::QualifiedName& name = stmt.As<sql::CreateMaterializedViewStatement>().name;
  // The statement bound against the catalog a moment ago, and a view changes no schema: that
  // catalog answers, without reading what the statement itself wrote.
  const catalog::Catalog* cat = catalog_cache_->Peek();
  if (cat == nullptr) return "";
  std::vector<std::string> path;
  for (const auto& p : name.parts) path.push_back(p.name);
  auto schema = cat->SchemaFor(path);
  if (!schema.ok() || !catalog::HopWritesTables(**schema)) return "";
  return fmt::format(
      "Note: hop refreshes {0}: its table holds the rows of its latest refresh (REFRESH "
      "MATERIALIZED VIEW {0}, its REFRESHED schedule, or WITH ('refresh' 'on-source-change')), "
      "and until the first whatever its table held already (nothing in a table hop has just "
      "made).\n",
      name.ToString());
}

Result<const catalog::Catalog*> Session::QueryCatalog() {
  if (!properties_.catalogs.empty()) {
    HOP_ASSIGN_OR_RETURN(catalog::Catalog cat, LoadCatalog(store_, properties_));
    narrowed_ = std::move(cat);
    return &*narrowed_;
  }
  MakeCaches();
  return catalog_cache_->Get();
}

Result<engine::Engine*> Session::Engine() {
  if (!engine_) {
    HOP_ASSIGN_OR_RETURN(engine_, engine::Engine::Open({properties_.state_dir}));
  }
  return engine_.get();
}

Result<Session::BoundQuery> Session::BindQuery(const sql::Statement& stmt) {
  // Binds against `cat`, noting whether binding looked anything up in it.
  auto bind = [&](const catalog::Catalog& cat) -> Result<BoundQuery> {
    cat.ForgetConsulted();
    binder::Binder binder(cat);
    binder.SetUser([this] { return SessionUser(properties_); });
    binder.SetStatement(&stmt);
    HOP_ASSIGN_OR_RETURN(binder::RelPtr plan,
                         binder.BindQuery(*stmt.As<sql::QueryStatement>().query));
    return BoundQuery{&cat, std::move(plan), cat.consulted()};
  };
  MakeCaches();  // a namespace changed since starts from no catalog
  const catalog::Catalog* last = properties_.catalogs.empty() ? catalog_cache_->Peek() : nullptr;
  if (last != nullptr) {
    auto bound = bind(*last);
    // What binds without looking anything up binds the same on any revision, errors included.
    if (!last->consulted()) return bound;
  }
  HOP_ASSIGN_OR_RETURN(const catalog::Catalog* cat, QueryCatalog());
  return bind(*cat);
}

Result<const Session::BoundQuery*> Session::KeptBinding(std::string_view text) {
  MakeCaches();  // drops the kept queries of another namespace
  auto it = kept_queries_.find(text);
  if (it == kept_queries_.end()) return nullptr;
  const KeptQuery& kept = it->second;
  if (!kept.bound.consulted) return &kept.bound;
  HOP_ASSIGN_OR_RETURN(const catalog::Catalog* now, QueryCatalog());
  if (now == kept.bound.catalog && now->revision() == kept.revision) return &kept.bound;
  kept_queries_.erase(it);
  return nullptr;
}

Status Session::Query(const sql::Statement& stmt, ResultSink& sink) {
  HOP_ASSIGN_OR_RETURN(BoundQuery bound, BindQuery(stmt));
  return RunQuery(bound, sink);
}

Status Session::RunQuery(const BoundQuery& bound, ResultSink& sink) {
  HOP_ASSIGN_OR_RETURN(engine::Engine * e, Engine());
  HOP_ASSIGN_OR_RETURN(auto cursor, e->Query(*bound.catalog, *bound.plan, properties_.budget));
  HOP_RETURN_IF_ERROR(sink.Rows(std::move(cursor)));
  sink.Complete("SELECT");
  return Status::OK();
}

Status Session::Insert(const sql::Statement& stmt, ResultSink& sink) {
  HOP_ASSIGN_OR_RETURN(const catalog::Catalog* cat, QueryCatalog());
  binder::Binder binder(*cat);
  binder.SetUser([this] { return SessionUser(properties_); });
  binder.SetStatement(&stmt);
  HOP_ASSIGN_OR_RETURN(binder::BoundInsert insert,
                       binder.BindInsert(stmt.As<sql::InsertStatement>()));
  const catalog::Table& target = *insert.target;
  HOP_ASSIGN_OR_RETURN(const catalog::Schema* schema, cat->SchemaFor(target.path));
  if (schema->adapter == catalog::Adapter::kNone && target.QualifiedName() == "UTIL.PRINT") {
    // UTIL.PRINT prints what is inserted into it.
    HOP_ASSIGN_OR_RETURN(engine::Engine * e, Engine());
    HOP_ASSIGN_OR_RETURN(auto cursor, e->Query(*cat, *insert.query, properties_.budget));
    HOP_RETURN_IF_ERROR(sink.Rows(std::move(cursor)));
    sink.Complete("SELECT");
    return Status::OK();
  }
  if (schema->adapter == catalog::Adapter::kSystem) {
    return Status::InvalidArgument(fmt::format(
        "{} is a system table, read only here: its rows are hop's resources (CREATE DATABASE, "
        "CREATE VIEW, CREATE TRIGGER ... make them)",
        target.QualifiedName()));
  }
  if (schema->adapter != catalog::Adapter::kLocal) {
    return Status::InvalidArgument(fmt::format(
        "INSERT INTO {} is not executed here: rows are inserted into local tables "
        "(jdbc:local:) only; into {} a pipeline writes them (`!pipeline INSERT ...` shows it, "
        "`!specify INSERT ...` its resources)",
        target.QualifiedName(),
        schema->database.empty() ? std::string("this table")
                                 : fmt::format("database {} ({})", schema->database, schema->url)));
  }
  HOP_ASSIGN_OR_RETURN(engine::Engine * e, Engine());
  HOP_ASSIGN_OR_RETURN(int64_t rows, e->Insert(*cat, insert, properties_.budget));
  sink.Text(fmt::format("INSERT INTO {}: {} {} inserted\n", target.QualifiedName(), rows,
                        rows == 1 ? "row" : "rows"));
  sink.Complete(fmt::format("INSERT 0 {}", rows));
  return Status::OK();
}

Status Session::Explain(std::string_view text, std::string& out, const SourceOrigin& origin) {
  while (!text.empty() && (text.back() == ';' || text.back() == ' ')) text.remove_suffix(1);
  HOP_ASSIGN_OR_RETURN(
      sql::StatementPtr stmt,
      sql::ParseStatement(text, sql::ParseOptions{{origin.line, origin.column}, origin.prefix}));
  return Explain(*stmt, out);
}

Status Session::Explain(const sql::Statement& stmt, std::string& out) {
  if (stmt.kind != sql::StatementKind::kQuery) {
    return Status::InvalidArgument(
        "EXPLAIN shows how a query runs: EXPLAIN SELECT ... (`!pipeline` shows the pipeline of "
        "an INSERT or a materialized view)");
  }
  HOP_ASSIGN_OR_RETURN(const catalog::Catalog* cat, QueryCatalog());
  binder::Binder binder(*cat);
  binder.SetUser([this] { return SessionUser(properties_); });
  binder.SetStatement(&stmt);
  HOP_ASSIGN_OR_RETURN(binder::RelPtr plan,
                       binder.BindQuery(*stmt.As<sql::QueryStatement>().query));
  HOP_ASSIGN_OR_RETURN(engine::Engine * e, Engine());
  HOP_ASSIGN_OR_RETURN(std::string explained, e->Explain(*cat, *plan));
  out += explained;
  return Status::OK();
}

}  // namespace hop::session
