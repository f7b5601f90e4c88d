// A session: one user's connection to a state directory. It carries the connection properties
// (namespace, hints, mode, catalogs), settable by flags and by SET, and executes statements and
// `!` commands against the store, writing what they print.
//
// Commands: `!pipeline <statement>` (the pipeline SQL), `!specify <statement>` (the resources of
// its pipeline, rendered from the templates), `!resolve <table>` (row type as Avro and
// the source and sink connector configs), `!tables [schema]`, `!schemas`, `!describe <table>`,
// `!help`, `!plan <query>`, `!graph <table> [--depth N] [--format mermaid|json]` (session/graph.h).
// Statements: SET / RESET / SHOW of the settings; DDL (CREATE, DROP, FIRE, PAUSE, RESUME, REFRESH)
// through the deploy layer's Executor; queries, `EXPLAIN <query>` and INSERT into local tables on
// the local engine (engine/engine.h), whose rows stream out.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/provisioner.h"
#include "common/source_error.h"
#include "common/status.h"
#include "common/time.h"
#include "deploy/executor.h"
#include "engine/engine.h"
#include "engine/output.h"
#include "planner/planner.h"
#include "session/graph.h"
#include "session/result_sink.h"
#include "sql/ast/inspect_statement.h"
#include "sql/ast/statement.h"
#include "store/store.h"
#include "template/value.h"

namespace hop::session {

class ControlPlane;
enum class ControlPlaneNeed;  // session/control_plane.h
using ControlPlaneStarter = std::function<ControlPlane*(ControlPlaneNeed)>;

// How CREATE treats objects that exist (compatibility.md §1.4).
enum class Mode { kCreate, kApply };

struct Properties {
  std::string namespace_name = "default";
  tmpl::Entries hints;  // in order; a later hint of the same key replaces the earlier
  Mode mode = Mode::kCreate;
  // The catalogs and schemas the session sees (upper case, as written in the catalog); empty
  // means all.
  std::vector<std::string> catalogs;
  // The time FIRE and REFRESH stamp; tests set a fixed one.
  const Clock* clock = &SystemClock();
  // Systems whose tables DDL creates synchronously (deploy::ExecuteOptions); null: none.
  const catalog::Provisioners* provisioners = nullptr;
  // The state directory: where local tables keep their files (catalog/local.h).
  std::string state_dir;
  // How query results are written (SET outputformat, --format).
  engine::OutputFormat output_format = engine::OutputFormat::kTable;
  // What `!specify` of a CREATE MATERIALIZED VIEW or CREATE TABLE prints (SET specify):
  // Hoptimator's documents, the objects templates render (`hoptimator`, the default), or every
  // object the statement writes, hop's own and their owner references too (`all`).
  bool specify_all = false;
  // What one query may use (SET query_timeout, query_memory).
  engine::Budget budget = {std::chrono::milliseconds(0), int64_t{1024} * 1024 * 1024};
  // The user CURRENT_USER (SESSION_USER, USER) names: a PostgreSQL connection's (hop serve gives
  // the startup packet's); empty: the user of the operating system the process runs as (the
  // shell, `hop -e`).
  std::string user;
};

// Parses a hints list `k1=v1,k2=v2`: entries split on ',' then at the first '=', keys and values
// URL-decoded (%2C for a comma). Errors name the malformed entry.
Result<tmpl::Entries> ParseHints(std::string_view text);

// Copies the setting `name` (as SET and RESET name it, case-insensitively; "" or "all": every
// setting) from `from` into `to`, leaving the rest of `to` (its clock, provisioners, state
// directory, cancel flag) as it is. False when `name` is no setting. What RESET does (from the
// defaults), and what undoes a SET at the end of a transaction over the PostgreSQL protocol
// (docs/pgwire.md, "Settings").
bool CopySetting(std::string_view name, const Properties& from, Properties& to);

class Session {
 public:
  Session(store::Store& store, Properties properties);

  // Runs one statement (its text without the closing ';') or one command (the text after '!'),
  // appending what it prints to `out`. `origin` places the text in its file for error messages.
  Status Execute(std::string_view text, bool is_command, std::string& out,
                 const SourceOrigin& origin = {});
  // The same, giving the results in structure to `sink` (result_sink.h): what a wire protocol
  // sends. Printed text, tables and errors are redacted; query rows are the sink's to redact.
  // One statement at a time per session: not thread-safe.
  Status Execute(std::string_view text, bool is_command, ResultSink& sink,
                 const SourceOrigin& origin = {});
  // The columns statement `text` gives rows of, found by binding it without running it: a
  // query's, SHOW's; nullopt for a statement that gives no rows. Errors: the statement's
  // parse or bind error.
  Result<std::optional<std::vector<ResultColumn>>> ResultColumns(std::string_view text);

  // Runs a script of statements and commands, writing output and errors to the callbacks; stops
  // at nothing (every item runs). Returns the number of items that failed.
  int RunScript(std::string_view script, std::string_view name, std::string& out, std::string& err);

  // Binds `statement` as executing it would, without executing anything: against the
  // namespace's catalog and what the statements checked before it in this session made of it
  // (a CREATE VIEW or TABLE adds its object, a DROP removes it, so a script is checked as it
  // would run). OK, or the statement's binding error. `hop check --bind`.
  Status Check(const sql::Statement& statement);

  // The graph `request` asks for, rendered (session/graph.h): what `!graph` and `hop graph`
  // print. Reads the store only. Errors: BuildGraph's.
  Result<std::string> GraphText(const GraphRequest& request);

  const Properties& properties() const { return properties_; }
  // Gives the setting `name` (as SET names it) the value `value`, as `SET name = 'value'` does.
  // Errors (InvalidArgument): an unknown setting, or a value it does not take.
  Status Set(std::string_view name, std::string_view value);
  // Gives every setting the value it has in `settings` (CopySetting "all"), as SET would.
  void RestoreSettings(const Properties& settings) { CopySetting("all", settings, properties_); }

  // The control plane `!wait` waits for (not owned; null: none).
  void set_control_plane(ControlPlane* control_plane) { control_plane_ = control_plane; }
  // Or how to make it, when the session first needs it: its first DDL statement or `!metrics`
  // run it, `!wait` runs it only if there is work for it (WaitUntilIdle).
  void set_control_plane_starter(ControlPlaneStarter start) {
    start_control_plane_ = std::move(start);
  }
  // Where a long result goes while it is written: called with the output so far, which it
  // empties, whenever that grows past a chunk. Without it everything is appended to `out`.
  void set_output_flush(std::function<void(std::string&)> flush) { flush_ = std::move(flush); }
  // DDL statements return once their batch is written, before it is durable (deploy::
  // ExecuteOptions::report_when_written), and TakeDurableMark gives what to wait for
  // (store::Store::WaitDurable) before their output is shown: a script runs its next statement
  // meanwhile (`hop -f`; docs/store.md, "Writing and syncing").
  void set_report_when_written(bool on) { report_when_written_ = on; }
  // The mark of the last batch written since the last call (0: none), which it resets.
  int64_t TakeDurableMark() { return std::exchange(durable_mark_, 0); }

 private:
  Status Statement(std::string_view text, ResultSink& sink, const SourceOrigin& origin);
  Status Command(std::string_view text, ResultSink& sink, const SourceOrigin& origin);
  // The commands whose result is text: runs `word` if it is one of them (true), else false.
  Result<bool> TextCommand(std::string_view word, std::string_view text, std::string_view rest,
                           std::string& out, const SourceOrigin& origin);
  // The options DDL runs with, including the namespace's catalog, kept current across
  // statements.
  Result<deploy::ExecuteOptions> ExecuteOptions();
  // What the planner reads from the store: templates and the ConfigMap of the namespace.
  Result<planner::PlanContext> PlanContext(const catalog::Catalog& cat);
  Status Pipeline(std::string_view text, std::string& out, const SourceOrigin& origin);
  Status Specify(std::string_view text, std::string& out, const SourceOrigin& origin);
  Status Resolve(std::string_view arg, std::string& out);
  Status Tables(std::string_view arg, ResultSink& sink);
  Status Schemas(ResultSink& sink);
  Status Describe(std::string_view arg, ResultSink& sink);
  // `typed`: the name as typed to !describe (names typed to commands fall back to upper case);
  // empty for DESCRIBE's SQL name.
  Status Describe(std::vector<std::string> path, std::string_view typed, ResultSink& sink);
  // The SQL forms of the inspecting commands (sql/ast/inspect_statement.h), as rows.
  Status Inspect(const sql::InspectStatement& stmt, ResultSink& sink);
  // The columns of an inspecting statement's rows; nullopt for EXPLAIN (text) and other kinds.
  static std::optional<std::vector<ResultColumn>> InspectColumns(sql::StatementKind kind);
  // What `stmt` would write or deploy: each document's kind, name and YAML; warnings appended.
  struct SpecifiedDocument {
    std::string kind, name, yaml;
  };
  Result<std::vector<SpecifiedDocument>> SpecifyDocuments(const sql::Statement& stmt,
                                                          std::string* warnings);
  Result<planner::Pipeline> PlanPipeline(const sql::Statement& stmt);
  // What !resolve tells of a table: its Avro schema, source and sink connector configs.
  struct ResolvedTable {
    std::string avro;
    std::map<std::string, std::string> source, sink;
  };
  Result<ResolvedTable> ResolveTable(std::vector<std::string> path, std::string_view typed);
  Status Reset(std::string_view name);
  Status Show(std::string_view name, ResultSink& sink);
  Status Wait(std::string_view arg, std::string& out);
  // Queries, EXPLAIN and INSERT on the local engine.
  Status Query(const sql::Statement& stmt, ResultSink& sink);
  Status Insert(const sql::Statement& stmt, ResultSink& sink);
  Status Explain(std::string_view text, std::string& out, const SourceOrigin& origin);
  Status Explain(const sql::Statement& stmt, std::string& out);
  // What a user is told after creating a materialized view hop refreshes (its table is in a
  // local database): when its rows come; "" for other statements.
  std::string LocalViewNote(const sql::Statement& stmt);
  // The catalog queries bind against: the namespace's, narrowed to the `catalogs` setting.
  Result<const catalog::Catalog*> QueryCatalog();
  // A query bound against the catalog it needs. A query that looks nothing up (SELECT 1,
  // version()) binds against the catalog last loaded without asking the store whether it is
  // current; one that looks anything up binds against the current catalog.
  struct BoundQuery {
    const catalog::Catalog* catalog;
    binder::RelPtr plan;
    bool consulted;  // whether binding looked anything up in `catalog`
  };
  Result<BoundQuery> BindQuery(const sql::Statement& stmt);
  Status RunQuery(const BoundQuery& bound, ResultSink& sink);
  // Queries bound before, by their text (parsed at the start of a line, as the wire and -e send
  // them): a text that comes again (a loop, a client's prepared statement) is neither parsed nor
  // bound again while its binding holds: always for a query that looked nothing up, else while
  // the catalog is at the revision it was bound against. Cleared with the catalog cache.
  struct KeptQuery {
    sql::StatementPtr stmt;  // what `bound` points into
    BoundQuery bound;
    int64_t revision;  // of bound.catalog when bound
  };
  // At most this many, of texts of at most kKeptQueryBytes: what a session keeps stays small
  // however many or large the queries a client sends.
  static constexpr size_t kKeptQueries = 32;
  static constexpr size_t kKeptQueryBytes = 8 * 1024;
  std::map<std::string, KeptQuery, std::less<>> kept_queries_;
  // The kept binding of `text`, if it still holds; null otherwise.
  Result<const BoundQuery*> KeptBinding(std::string_view text);
  Result<engine::Engine*> Engine();

  store::Store& store_;
  Properties properties_;
  // Of properties_.namespace_name.
  std::unique_ptr<catalog::CatalogCache> catalog_cache_;
  // Makes catalog_cache_ and render_cache_ for properties_.namespace_name, unless they are.
  void MakeCaches();
  // The catalog as the statements Check has seen would leave it; made at the first Check.
  std::optional<catalog::Catalog> checked_catalog_;
  std::unique_ptr<deploy::RenderContextCache> render_cache_;
  ControlPlane* control_plane_ = nullptr;
  ControlPlaneStarter start_control_plane_;
  std::function<void(std::string&)> flush_;
  bool report_when_written_ = false;
  int64_t durable_mark_ = 0;
  std::unique_ptr<engine::Engine> engine_;
  std::optional<catalog::Catalog> narrowed_;  // QueryCatalog's, when `catalogs` is set
  // The control plane, made now if it has a starter, and run when `need` says so.
  ControlPlane* StartedControlPlane(ControlPlaneNeed need);
};

// Splits a table name typed to a command (compatibility.md §1.1): without '"' on '.' verbatim;
// otherwise as quoted SQL identifiers (`"KAFKA"."my.event"`). Errors:
// `Not a well-formed quoted table identifier: <input>`.
Result<std::vector<std::string>> SplitTableName(std::string_view text);

}  // namespace hop::session
