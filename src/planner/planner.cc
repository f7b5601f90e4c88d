#include "planner/planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "binder/binder.h"
#include "binder/to_sql.h"
#include "binder/types.h"
#include "catalog/avro.h"
#include "common/log.h"
#include "common/properties.h"
#include "common/strings.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "resource/yaml.h"
#include "sql/ast/create_catalog_statement.h"
#include "sql/ast/create_database_statement.h"
#include "sql/ast/create_materialized_view_statement.h"
#include "sql/ast/create_table_statement.h"
#include "sql/ast/insert_statement.h"
#include "sql/ast/query_statement.h"
#include "sql/unparser.h"
#include "template/template.h"

namespace hop::planner {

using binder::RelPtr;
using catalog::RowType;
using resource::TableTemplateKind;

std::string_view MethodName(Method m) { return m == Method::kScan ? "Scan" : "Modify"; }

bool TemplateListMatches(const std::optional<resource::StringList>& list, std::string_view value) {
  // An absent or empty list matches everything (the documented behaviour; reference departure 4).
  if (!list || list->empty()) return true;
  return std::find(list->begin(), list->end(), value) != list->end();
}

std::string SkippedTemplate::ToString() const {
  std::string out = fmt::format("{} {} was skipped: {} of its {}", template_kind, template_name,
                                reason.ToString(), field);
  if (!explanation.empty()) out += " (" + explanation + ")";
  return out;
}

std::string PipelineTable::QualifiedName() const {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) out += (i ? "." : "") + path[i];
  return out;
}

namespace {

// A ROW column becomes one column per field, `<column>_<field>`, recursively; '$' becomes '_'.
void Flatten(const std::string& prefix, const sql::DataType& type, RowType& out) {
  if (type.name == sql::TypeName::kRow) {
    for (const auto& f : type.fields) Flatten(prefix + "_" + f.name.name, f.type, out);
    return;
  }
  std::string name = prefix;
  std::replace(name.begin(), name.end(), '$', '_');
  out.columns.push_back({name, type});
}

RowType Flattened(const RowType& row) {
  RowType out;
  for (const auto& c : row.columns) Flatten(c.name, c.type, out);
  return out;
}

// A column type as pipeline SQL declares it, with every parameter it was declared or derived
// with: lengths, precisions and scales, element and field types, NOT NULL (docs/pipelines.md:
// Hoptimator drops the parameters, and Flink reads a bare DECIMAL as DECIMAL(10, 0)). A type
// written without a parameter keeps none. A NULL type is declared BYTES, and nullability is
// written only as NOT NULL. Types Flink cannot declare are errors. Changes `t` in place; the
// writer spells the result.
Status Declare(sql::DataType& t) {
  using sql::TypeName;
  switch (t.name) {
    case TypeName::kNull: t = sql::DataType(TypeName::kBytes); return Status::OK();
    case TypeName::kTime:
      if (t.time_zone != sql::TimeZone::kNone) {
        return Status::InvalidArgument("Flink SQL has no TIME with a time zone");
      }
      break;
    case TypeName::kTimestamp:
      if (t.time_zone == sql::TimeZone::kWithTimeZone) {
        return Status::InvalidArgument(
            "Flink SQL has no TIMESTAMP WITH TIME ZONE (TIMESTAMP WITH LOCAL TIME ZONE is an "
            "instant, TIMESTAMP a local date and time)");
      }
      break;
    case TypeName::kInterval:
      // The binder keeps no unit for an interval, and Flink needs one (INTERVAL DAY TO SECOND).
      return Status::InvalidArgument("an INTERVAL cannot be declared in pipeline SQL yet");
    default: break;
  }
  for (auto& param : t.params) HOP_RETURN_IF_ERROR(Declare(param));
  for (auto& field : t.fields) HOP_RETURN_IF_ERROR(Declare(field.type));
  if (t.nullability == sql::Nullability::kNull) t.nullability = sql::Nullability::kUnspecified;
  return Status::OK();
}

sql::QualifiedName Name(std::vector<std::string> path) {
  sql::QualifiedName name;
  name.parts.reserve(path.size());
  for (auto& part : path) name.parts.emplace_back(std::move(part));
  return name;
}

sql::OptionList Options(const std::map<std::string, std::string>& options) {
  sql::OptionList list;
  list.present = true;
  for (const auto& [k, v] : options) {
    list.items.push_back({k, v, sql::OptionValueKind::kString, {}});
  }
  return list;
}

// A column's name as pipeline SQL declares and writes it: '$' as '_'.
sql::Identifier ColumnName(std::string name) {
  std::replace(name.begin(), name.end(), '$', '_');
  return sql::Identifier(std::move(name));
}

// The path a pipeline table is written with in its SQL: the leaf carries the suffix.
std::vector<std::string> WrittenPath(const PipelineTable& t) {
  std::vector<std::string> path = t.path;
  path.back() += t.suffix;
  return path;
}

// Drops NULL-typed columns from the top of a query (they are not written to the sink).
RelPtr DropNullColumns(const RelPtr& query, std::vector<std::string>* names) {
  const auto& cols = query->row_type.columns;
  bool any = std::any_of(cols.begin(), cols.end(),
                         [](const catalog::Column& c) { return binder::IsNull(c.type); });
  if (!any) return query;
  binder::Rel project;
  project.kind = binder::RelKind::kProject;
  names->clear();
  for (size_t i = 0; i < cols.size(); ++i) {
    if (binder::IsNull(cols[i].type)) continue;
    project.exprs.push_back(binder::InputRef(static_cast<int>(i), cols[i].type));
    project.row_type.columns.push_back(cols[i]);
    names->push_back(cols[i].name);
  }
  project.inputs = {query};
  return std::make_shared<binder::Rel>(std::move(project));
}

// The options templates see (compatibility.md §4.4): the table's own, the hints over them, and the
// `pipeline` hint.
void AddOptions(PipelineTable& t, const tmpl::Entries& hints, const std::string* pipeline) {
  for (const auto& [k, v] : hints) tmpl::SetEntry(t.options, k, v);
  if (pipeline) tmpl::SetEntry(t.options, "pipeline", *pipeline);
}

std::vector<std::string> ColumnNames(const RowType& row) {
  std::vector<std::string> out;
  for (const auto& c : row.columns) out.push_back(c.name);
  return out;
}

}  // namespace

namespace {

// `CREATE TABLE IF NOT EXISTS path (columns) WITH (connector)` for a table of the pipeline.
Result<sql::StatementPtr> CreateTable(const PipelineTable& t) {
  if (t.row_type.columns.empty()) {
    // `CREATE TABLE t ()` is no SQL Flink reads, and a table without columns holds nothing.
    return Status::InvalidArgument(
        fmt::format("Table {} has no columns: pipeline SQL cannot declare it", t.QualifiedName()));
  }
  auto create = std::make_unique<sql::CreateTableStatement>();
  create->if_not_exists = true;
  create->name = Name(WrittenPath(t));
  bool primary_key = false;
  for (const auto& c : t.row_type.columns) {
    sql::ColumnDef column;
    column.type = c.type;
    if (Status declared = Declare(*column.type); !declared.ok()) {
      return declared.WithContext("Table " + t.QualifiedName() + ", column " + c.name + ": ");
    }
    column.name = ColumnName(c.name);
    primary_key |= column.name.name == "PRIMARY_KEY";
    create->columns.push_back(std::move(column));
  }
  if (primary_key) {
    sql::TableConstraint key;
    key.columns.emplace_back("PRIMARY_KEY");
    key.not_enforced = true;
    create->constraints.push_back(std::move(key));
  }
  create->options = Options(t.connector);
  return sql::StatementPtr(std::move(create));
}

}  // namespace

Result<std::vector<sql::StatementPtr>> PipelineStatements(const Pipeline& pipeline) {
  std::vector<sql::StatementPtr> out;
  auto table = [&](const PipelineTable& t) -> Status {
    std::vector<std::string> path = WrittenPath(t);
    if (path.size() == 3) {
      auto catalog = std::make_unique<sql::CreateCatalogStatement>();
      catalog->if_not_exists = true;
      catalog->name = sql::Identifier(path[0]);
      catalog->options.present = true;
      out.push_back(std::move(catalog));
    }
    if (path.size() >= 2) {
      auto database = std::make_unique<sql::CreateDatabaseStatement>();
      database->if_not_exists = true;
      database->name = Name({path.begin(), path.end() - 1});
      database->options.present = true;
      out.push_back(std::move(database));
    }
    HOP_ASSIGN_OR_RETURN(sql::StatementPtr create, CreateTable(t));
    out.push_back(std::move(create));
    return Status::OK();
  };
  for (const auto& s : pipeline.sources) HOP_RETURN_IF_ERROR(table(s));
  HOP_RETURN_IF_ERROR(table(pipeline.sink));

  if (pipeline.target_columns.empty()) {
    return Status::InvalidArgument(
        fmt::format("The pipeline writes no column of {}: every column of its query is NULL",
                    pipeline.sink.QualifiedName()));
  }
  binder::ToSqlOptions options;
  const std::vector<std::string>& sink_path = pipeline.sink.path;
  const bool collides = !pipeline.sink.suffix.empty();
  options.table_path = [&](const binder::Rel& scan) {
    std::vector<std::string> path = scan.path;
    if (collides && path == sink_path) path.back() += "_source";
    return path;
  };
  auto insert = std::make_unique<sql::InsertStatement>();
  HOP_ASSIGN_OR_RETURN(insert->query, binder::ToSql(*pipeline.query, options));
  insert->target = Name(WrittenPath(pipeline.sink));
  // The sink's columns are declared with '$' as '_'; they are named the same here.
  for (const auto& c : pipeline.target_columns) insert->columns.push_back(ColumnName(c));
  out.push_back(std::move(insert));
  return out;
}

Result<std::string> PipelineSql(const Pipeline& pipeline) {
  HOP_ASSIGN_OR_RETURN(std::vector<sql::StatementPtr> statements, PipelineStatements(pipeline));
  sql::PrintOptions options{sql::Dialect::kFlink};
  options.pipeline_ddl = true;
  return sql::PrintScript(statements, options);
}

// ---------------------------------------------------------------------------------------------

Planner::Planner(PlanContext context) : context_(std::move(context)) {}

PipelineTable Planner::FromCatalog(const catalog::Table& table) const {
  PipelineTable t;
  t.database = table.database;
  t.path = table.path;
  t.row_type = table.row_type;
  for (const auto& [k, v] : table.options) t.options.emplace_back(k, v);
  t.declared_options = t.options;
  return t;
}

Result<std::map<std::string, std::string>> Planner::Connector(
    PipelineTable& table, Method method, std::vector<SkippedTemplate>* skipped) const {
  // Variables, lowest layer first: the ConfigMap, the table's names, then its options (which
  // already carry the hints).
  tmpl::Environment env;
  env.SetAll(context_.config);
  const auto& path = table.path;
  env.Set("name", table.database + "-" + AsciiToLower(path.back()));
  env.Set("database", table.database);
  if (path.size() >= 3) env.Set("catalog", path[path.size() - 3]);
  if (path.size() >= 2) env.Set("schema", path[path.size() - 2]);
  env.Set("table", path.back());
  // Key options (compatibility.md §4.3): from the KEY_ columns, unless the options say `keys`.
  if (!FindProperty(table.options, "keys")) {
    std::string keys;
    for (const auto& c : table.row_type.columns) {
      if (c.name.rfind("KEY_", 0) == 0) keys += (keys.empty() ? "" : ";") + c.name;
    }
    if (!keys.empty()) {
      env.Set("keys", keys);
      env.Set("keyPrefix", "KEY_");
      env.Set("keyType", "RECORD");
    }
  }
  const RowType row = table.row_type;
  std::vector<std::string> avro_path = table.path;
  env.SetLazy("avroValueSchema", [row, avro_path]() -> Result<std::optional<tmpl::Value>> {
    catalog::AvroName name = catalog::AvroNameOfTable(avro_path);
    HOP_ASSIGN_OR_RETURN(Json schema, catalog::AvroSchema(row, name.namespace_name, name.name));
    return std::optional<tmpl::Value>(tmpl::Value::String(EmitJson(schema, -1)));
  });
  env.SetAll(table.options);

  std::string rendered;
  for (const auto& tt : context_.table_templates) {
    if (!TemplateListMatches(TableTemplateKind::kDatabases.Get(tt), table.database) ||
        !TemplateListMatches(TableTemplateKind::kMethods.Get(tt), MethodName(method))) {
      continue;
    }
    auto connector = TableTemplateKind::kConnector.Get(tt);
    if (!connector) continue;
    tmpl::SkipReason why;
    auto text = tmpl::RenderProperties(*connector, env, &why);
    if (!text.ok()) {
      return text.status().WithContext(fmt::format("TableTemplate {}: ", tt.name()));
    }
    if (!*text) {
      log::Debug("TableTemplate {}: connector skipped for {}: {}", tt.name(), table.QualifiedName(),
                 why.ToString());
      if (skipped != nullptr && why.cause == tmpl::SkipReason::Cause::kMissing) {
        skipped->push_back(
            {"TableTemplate", tt.name(), "connector", "table " + table.QualifiedName(), why, ""});
      }
      continue;
    }
    if (!rendered.empty()) rendered += '\n';
    rendered += **text;
  }
  auto parsed = ParseProperties(rendered);
  if (!parsed.ok()) {
    return parsed.status().WithContext(fmt::format("connector of {}: ", table.QualifiedName()));
  }
  std::map<std::string, std::string> config(parsed->begin(), parsed->end());
  // Connector hints: `<connector>.source.k` / `<connector>.sink.k` add k, never replace.
  if (auto c = config.find("connector"); c != config.end()) {
    std::string prefix = c->second + (method == Method::kScan ? ".source." : ".sink.");
    for (const auto& [k, v] : table.options) {
      if (k.size() > prefix.size() && k.compare(0, prefix.size(), prefix) == 0) {
        config.emplace(k.substr(prefix.size()), v);
      }
    }
  }
  return config;
}

Result<PipelineTable> Planner::Table(const std::vector<std::string>& path) const {
  HOP_ASSIGN_OR_RETURN(const catalog::Table* table, context_.catalog->Resolve(path));
  PipelineTable t = FromCatalog(*table);
  AddOptions(t, context_.hints, nullptr);
  return t;
}

Status Planner::NotSystem(const std::vector<std::string>& path) const {
  auto schema = context_.catalog->SchemaFor(path);
  if (!schema.ok() || (*schema)->adapter != catalog::Adapter::kSystem) return Status::OK();
  std::string name;
  for (const auto& p : path) name += (name.empty() ? "" : ".") + p;
  return Status::InvalidArgument(fmt::format(
      "{} is a system table: queries read it here, and it is never a source or sink of a "
      "pipeline",
      name));
}

Result<Pipeline> Planner::Plan(const sql::Statement& statement) {
  switch (statement.kind) {
    case sql::StatementKind::kCreateMaterializedView: return PlanView(statement);
    case sql::StatementKind::kInsert: return PlanInsert(statement);
    case sql::StatementKind::kQuery: return PlanSelect(statement);
    default:
      return Status::InvalidArgument(
          fmt::format("Unsupported DDL statement: {}", statement.source));
  }
}

Result<Pipeline> Planner::PlanView(const sql::Statement& statement) {
  const auto& mv = statement.As<sql::CreateMaterializedViewStatement>();
  std::vector<std::string> path;
  for (const auto& p : mv.name.parts) path.push_back(p.name);
  const catalog::Catalog& cat = *context_.catalog;
  HOP_ASSIGN_OR_RETURN(const catalog::Schema* schema, cat.SchemaFor(path));
  HOP_RETURN_IF_ERROR(schema->status);
  if (schema->database.empty()) {
    return Status::InvalidArgument(fmt::format("{} is not a physical database.", schema->name));
  }
  const std::string& leaf = path.back();
  const size_t dollar = leaf.find('$');
  const std::string sink_name = leaf.substr(0, dollar);
  const std::string suffix = dollar == std::string::npos ? "" : leaf.substr(dollar + 1);


  binder::Binder binder(cat);
  binder.SetStatement(&statement);
  HOP_ASSIGN_OR_RETURN(RelPtr query, binder.BindQuery(*mv.query, mv.columns));

  Pipeline p;
  p.sink.database = schema->database;
  p.sink.path = schema->Path();
  p.sink.path.push_back(sink_name);
  p.target_columns = ColumnNames(query->row_type);
  const catalog::Table* existing = cat.Lookup(*schema, sink_name);
  if (existing != nullptr && existing->kind == catalog::ObjectKind::kTable) {
    // A partial view writes into an existing table: its columns must be the table's.
    const catalog::Table& sink = *existing;
    p.sink.row_type = sink.row_type;
    for (const auto& [k, v] : sink.options) p.sink.options.emplace_back(k, v);
    p.sink.declared_options = p.sink.options;
    binder::Rel cast;
    cast.kind = binder::RelKind::kProject;
    bool casts = false;
    for (size_t i = 0; i < query->row_type.columns.size(); ++i) {
      const catalog::Column& col = query->row_type.columns[i];
      int target = sink.row_type.Find(col.name);
      if (target < 0) {
        return Status::InvalidArgument(fmt::format("Field {} not found in sink schema", col.name));
      }
      const sql::DataType& want = sink.row_type.columns[target].type;
      if (!binder::Assignable(col.type, want)) {
        return Status::InvalidArgument(fmt::format(
            "Incompatible types for sink column '{}': query produces {} but sink expects {}",
            col.name, sql::TypeString(col.type, true), sql::TypeString(want, true)));
      }
      binder::ScalarPtr ref = binder::InputRef(static_cast<int>(i), col.type);
      bool same_family = col.type.name == want.name ||
                         (binder::IsCharacter(col.type) && binder::IsCharacter(want)) ||
                         binder::IsNull(col.type);
      if (!same_family) {
        auto c = std::make_shared<binder::Scalar>();
        c->kind = binder::ScalarKind::kCast;
        c->type = binder::WithNullable(want, binder::IsNullable(col.type));
        c->args = {ref};
        ref = c;
        casts = true;
      }
      cast.exprs.push_back(ref);
      cast.row_type.columns.push_back({col.name, ref->type});
    }
    if (casts) {
      cast.inputs = {query};
      query = std::make_shared<binder::Rel>(std::move(cast));
    }
  } else {
    p.sink.row_type = query->row_type;
  }
  p.query = DropNullColumns(query, &p.target_columns);
  p.job_name = leaf;
  p.pipeline_name = schema->database + "-" + sink_name + (suffix.empty() ? "" : "-" + suffix);
  p.view_path = schema->Path();
  p.view_path.push_back(leaf);
  p.view_resource = resource::Canonicalize(p.view_path);
  HOP_RETURN_IF_ERROR(Finish(p));
  return p;
}

Result<Pipeline> Planner::PlanInsert(const sql::Statement& statement) {
  const auto& insert = statement.As<sql::InsertStatement>();
  binder::Binder binder(*context_.catalog);
  binder.SetStatement(&statement);
  HOP_ASSIGN_OR_RETURN(binder::BoundInsert bound, binder.BindInsert(insert));
  HOP_RETURN_IF_ERROR(NotSystem(bound.target->path));
  Pipeline p;
  p.sink = FromCatalog(*bound.target);
  p.sink.row_type = Flattened(bound.target->row_type);
  p.target_columns = ColumnNames(bound.query->row_type);
  p.query = DropNullColumns(bound.query, &p.target_columns);
  p.job_name = bound.target->name;
  p.pipeline_name = bound.target->QualifiedName();
  if (context_.pipeline_name) p.job_name = p.pipeline_name = *context_.pipeline_name;
  HOP_RETURN_IF_ERROR(Finish(p));
  return p;
}

Result<Pipeline> Planner::PlanSelect(const sql::Statement& statement) {
  binder::Binder binder(*context_.catalog);
  binder.SetStatement(&statement);
  HOP_ASSIGN_OR_RETURN(RelPtr query, binder.BindQuery(*statement.As<sql::QueryStatement>().query));
  Pipeline p;
  p.sink.path = {"SINK"};
  p.sink.row_type = query->row_type;
  p.target_columns = ColumnNames(query->row_type);
  p.query = DropNullColumns(query, &p.target_columns);
  p.job_name = "SINK";
  p.pipeline_name = "SINK";
  HOP_RETURN_IF_ERROR(Finish(p));
  return p;
}

Status Planner::Finish(Pipeline& p) const {
  p.query = binder::Simplify(p.query);
  for (const binder::Rel* scan : binder::Scans(*p.query)) {
    HOP_RETURN_IF_ERROR(NotSystem(scan->table->path));
    // The scan's row type: a materialized view read from its table has its query's.
    p.sources.push_back(FromCatalog(*scan->table));
    p.sources.back().row_type = scan->row_type;
  }
  // A pipeline that reads the table it writes names the two sides apart.
  for (auto& s : p.sources) {
    if (s.path == p.sink.path) {
      s.suffix = "_source";
      p.sink.suffix = "_sink";
    }
  }
  for (auto& s : p.sources) {
    AddOptions(s, context_.hints, &p.pipeline_name);
    HOP_ASSIGN_OR_RETURN(s.connector, Connector(s, Method::kScan, &s.skipped_connectors));
    if (s.connector.empty()) p.complete = false;
  }
  AddOptions(p.sink, context_.hints, &p.pipeline_name);
  HOP_ASSIGN_OR_RETURN(p.sink.connector,
                       Connector(p.sink, Method::kModify, &p.sink.skipped_connectors));
  if (p.sink.connector.empty()) p.complete = false;
  HOP_ASSIGN_OR_RETURN(p.sql, PipelineSql(p));
  return Status::OK();
}

}  // namespace hop::planner
