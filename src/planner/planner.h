// The planner: a CREATE MATERIALIZED VIEW, an INSERT or a bare SELECT becomes a Pipeline — the
// tables it reads (sources), the table it writes (the sink), and the job that moves the data —
// with each table's connector configuration rendered from the TableTemplates that match it, and
// the pipeline SQL a Flink job runs (compatibility.md §4), built as statement ASTs that the SQL
// writer prints in the Flink dialect:
//
//   CREATE CATALOG IF NOT EXISTS `C` WITH ();        -- three-part names only
//   CREATE DATABASE IF NOT EXISTS `ADS` WITH ();
//   CREATE TABLE IF NOT EXISTS `ADS`.`PAGE_VIEWS` (`PAGE_URN` VARCHAR, ...) WITH ('connector'=...);
//   ... one block per source, then the sink ...
//   INSERT INTO `ADS`.`AUDIENCE` (`FIRST_NAME`, `LAST_NAME`) SELECT ...;
//
// The planner reads only what it is given (catalog, templates, hints, configuration); the session
// loads those from the store.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "binder/bound.h"
#include "catalog/catalog.h"
#include "common/status.h"
#include "resource/kinds.h"
#include "resource/resource.h"
#include "sql/ast/statement.h"
#include "template/template.h"
#include "template/value.h"

namespace hop::planner {

// How a pipeline uses a table: reading (Scan) or writing (Modify). TableTemplates name these
// methods in their `methods` list.
enum class Method { kScan, kModify };
std::string_view MethodName(Method m);  // "Scan", "Modify"

// Whether a template's `databases` or `methods` list admits `value`: absent and empty lists
// admit everything (the documented behaviour; Hoptimator's code matched nothing for an empty
// list, compatibility.md departure 4).
bool TemplateListMatches(const std::optional<resource::StringList>& list, std::string_view value);

// A template that rendered nothing because a variable it needs has no value here (a `{{catalog}}`
// for a two-part table, `{{flinksql}}` for a pipeline without SQL, an option nobody set). What
// the planner and the renderer report to the user: a skip that was not meant is otherwise
// invisible. Templates whose guard does not hold are not listed: that is how templates are
// chosen.
struct SkippedTemplate {
  std::string template_kind;  // "TableTemplate", "JobTemplate"
  std::string template_name;
  std::string field;    // the template's field that was rendered: "connector", "yaml"
  std::string subject;  // what it was rendered for: "table ADS.PAGE_VIEWS", "job ads-database-x"
  tmpl::SkipReason reason;
  std::string explanation;  // why the variable has no value, when hop knows; may be empty

  // "JobTemplate flink-template was skipped: variable 'flinksql' is missing at line 9, column 7
  // of its yaml (<explanation>)".
  std::string ToString() const;
};

// A table as a pipeline uses it.
struct PipelineTable {
  std::string database;           // the owning Database resource, "" when none
  std::vector<std::string> path;  // [catalog,] schema, table
  catalog::RowType row_type;      // all its columns (sources) or the columns written (sink)
  std::string suffix;             // "_source" / "_sink" when the pipeline reads what it writes
  // What templates see: the table's own options, then the hints and the pipeline name. (The key
  // options of §4.3 are added for connector templates only.)
  tmpl::Entries options;
  // The table's own options alone, as declared (CREATE TABLE ... WITH).
  tmpl::Entries declared_options;
  // The connector configuration rendered from the matching TableTemplates, with connector hints;
  // empty when no template gave one.
  std::map<std::string, std::string> connector;
  // The connector templates that matched the table but were skipped for a missing variable.
  std::vector<SkippedTemplate> skipped_connectors;

  const std::string& name() const { return path.back(); }
  // "ADS.PAGE_VIEWS".
  std::string QualifiedName() const;
};

struct Pipeline {
  std::vector<PipelineTable> sources;  // in the order the query reads them; repeats kept
  PipelineTable sink;
  binder::RelPtr query;                     // reads the sources, yields the sink's columns
  std::vector<std::string> target_columns;  // the INSERT column list: the query's columns
  // The job's name before canonicalization: the view's leaf name (with any `$suffix`), the
  // INSERT target's name, or SINK. The Job resource is canonicalize(sink.database, job_name).
  std::string job_name;
  // The `pipeline` hint: "<database>-<SINK>[-<suffix>]" for views, the dotted target for INSERT,
  // SINK for SELECT.
  std::string pipeline_name;
  // For a materialized view: its path and the name of its View and Pipeline resources.
  std::vector<std::string> view_path;
  std::string view_resource;
  // The pipeline SQL (Flink), each statement ending in ';' on its own line.
  std::string sql;
  // False when a source or the sink has no connector: the SQL cannot run as it is, and SQL job
  // templates are skipped (compatibility.md §4.2).
  bool complete = true;
};

// Everything the planner reads.
struct PlanContext {
  const catalog::Catalog* catalog = nullptr;
  // TableTemplates of the namespace, in list order.
  std::vector<resource::Resource> table_templates;
  // Connection hints (`--hint k=v`, SET), in order; later keys win.
  tmpl::Entries hints;
  // Top-level keys of the `hoptimator-configmap` ConfigMap, the lowest layer of variables.
  tmpl::Entries config;
  // The name an INSERT's pipeline and job take instead of the target's: the pipelines between
  // a logical table's tiers, `logical-<table>-<from>-to-<to>` (compatibility.md §5.9).
  std::optional<std::string> pipeline_name;
};

class Planner {
 public:
  explicit Planner(PlanContext context);

  // Plans a CREATE MATERIALIZED VIEW, INSERT or SELECT. Other statements:
  // InvalidArgument `Unsupported DDL statement: <text>`. Whether a CREATE may be made (its name
  // is no table, and a view of that name may be replaced) is the binder's to say
  // (binder::BindStatement), before planning: the planner plans the statement as if it may.
  Result<Pipeline> Plan(const sql::Statement& statement);

  // The connector configuration of one table read (Scan) or written (Modify) by a pipeline. The
  // matching templates skipped for a missing variable are added to `skipped` if it is not null.
  Result<std::map<std::string, std::string>> Connector(
      PipelineTable& table, Method method, std::vector<SkippedTemplate>* skipped = nullptr) const;

  // A table of the catalog as a pipeline would use it (for `!resolve`).
  Result<PipelineTable> Table(const std::vector<std::string>& path) const;

 private:
  Result<Pipeline> PlanView(const sql::Statement& statement);
  Result<Pipeline> PlanInsert(const sql::Statement& statement);
  Result<Pipeline> PlanSelect(const sql::Statement& statement);
  // Sources from the plan's scans, connectors, collisions, and the SQL.
  Status Finish(Pipeline& pipeline) const;
  // An error when `path` is a "k8s" system table, which no pipeline reads or writes.
  Status NotSystem(const std::vector<std::string>& path) const;
  PipelineTable FromCatalog(const catalog::Table& table) const;

  PlanContext context_;
};

// The statements of a planned pipeline's SQL (compatibility.md §4.1), as ASTs: for each source
// and then the sink, `CREATE CATALOG IF NOT EXISTS` (three-part names), `CREATE DATABASE IF NOT
// EXISTS` and `CREATE TABLE IF NOT EXISTS ... WITH (connector)`, then the `INSERT INTO` the sink.
// Column types keep every parameter (a departure: Hoptimator drops them, docs/pipelines.md),
// NULL types are BYTES, '$' in column names is '_', and a column named PRIMARY_KEY adds
// `PRIMARY KEY (PRIMARY_KEY) NOT ENFORCED`. Errors (InvalidArgument): a type Flink SQL cannot
// declare (TIME or TIMESTAMP WITH TIME ZONE, INTERVAL), naming the table and column; a table
// without columns; a pipeline that writes no column.
Result<std::vector<sql::StatementPtr>> PipelineStatements(const Pipeline& pipeline);

// The pipeline SQL: PipelineStatements printed by the SQL writer in the Flink dialect, DDL as
// pipeline scripts write it (sql::PrintOptions::pipeline_ddl), one statement per line.
Result<std::string> PipelineSql(const Pipeline& pipeline);

}  // namespace hop::planner
