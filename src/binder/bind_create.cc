// Binding CREATE VIEW, MATERIALIZED VIEW, TABLE, TRIGGER and DATABASE: where the object goes,
// what it is made of, and whether one of its name exists (compatibility.md §1.4, §5.2-§5.6).
#include <fmt/format.h>

#include <algorithm>

#include "binder/bind_internal.h"
#include "common/cron.h"
#include "common/redact.h"
#include "common/strings.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "sql/ast/create_database_statement.h"
#include "sql/ast/create_materialized_view_statement.h"
#include "sql/ast/create_table_statement.h"
#include "sql/ast/create_trigger_statement.h"
#include "sql/ast/create_view_statement.h"
#include "sql/unparser.h"

namespace hop::binder {

namespace {

// The path of an object created in `schema` under the last part of `name`.
std::vector<std::string> PathIn(const catalog::Schema& schema, const sql::QualifiedName& name) {
  std::vector<std::string> path = schema.Path();
  path.push_back(name.back().name);
  return path;
}

}  // namespace

Result<BoundStatementPtr> BindCreateView(const catalog::Catalog& cat,
                                         const sql::Statement& statement,
                                         const BindOptions& options) {
  auto bound = std::make_unique<BoundCreateView>(statement);
  bound->materialized = statement.kind == sql::StatementKind::kCreateMaterializedView;
  const sql::QualifiedName* name;
  bool or_replace, if_not_exists;
  if (bound->materialized) {
    const auto& mv = statement.As<sql::CreateMaterializedViewStatement>();
    name = &mv.name;
    or_replace = mv.or_replace;
    if_not_exists = mv.if_not_exists;
    bound->query_ast = mv.query.get();
    bound->columns = &mv.columns;
  } else {
    const auto& v = statement.As<sql::CreateViewStatement>();
    name = &v.name;
    or_replace = v.or_replace;
    if_not_exists = v.if_not_exists;
    bound->query_ast = v.query.get();
    bound->columns = &v.columns;
  }
  HOP_ASSIGN_OR_RETURN(bound->schema, cat.SchemaFor(name->Names()));
  HOP_RETURN_IF_ERROR(bound->schema->status);
  // One-part names go to the default schema; the View says which.
  bound->path = PathIn(*bound->schema, *name);
  const std::string& leaf = bound->path.back();
  if (const catalog::Table* t = cat.Lookup(*bound->schema, leaf)) {
    HOP_RETURN_IF_ERROR(cat.CheckViewName(*bound->schema, leaf));
    bound->existing = t;
  }
  bound->resource = resource::Canonicalize(bound->path);
  bound->replace = or_replace || options.apply_mode;
  if (bound->existing != nullptr && !bound->replace) {
    if (if_not_exists) {
      bound->nothing_to_do = true;
      return BoundStatementPtr(std::move(bound));
    }
    return Status::AlreadyExists(
        fmt::format("View {} already exists. Use CREATE OR REPLACE to update.", leaf));
  }
  // The query must bind, and must not reach the view it defines (a cycle through OR REPLACE):
  // the binder is told which view that is.
  Binder binder(cat);
  binder.SetStatement(&statement);
  binder.SetDefinedView(bound->path);
  HOP_ASSIGN_OR_RETURN(bound->query, binder.BindQuery(*bound->query_ast, *bound->columns));
  if (!bound->materialized) {
    // The one option of a plain view: how its watermark derives from its inputs' (docs/ddl.md).
    for (const sql::Option& o : statement.As<sql::CreateViewStatement>().options.items) {
      if (!EqualsIgnoreCase(o.key, "watermark")) {
        return Status::InvalidArgument(fmt::format(
            "View {}: option '{}' is not one a view takes; a view takes only 'watermark' ('all' "
            "or 'any')",
            leaf, o.key));
      }
      if (!EqualsIgnoreCase(o.value, "all") && !EqualsIgnoreCase(o.value, "any")) {
        return Status::InvalidArgument(
            fmt::format("View {}: option 'watermark' must be 'all' or 'any', not '{}'", leaf,
                        o.kind == sql::OptionValueKind::kNull ? "NULL" : o.value));
      }
      bound->watermark_policy = AsciiToLower(o.value);
    }
    if (!bound->watermark_policy.empty()) {
      // Only objects hop keeps a watermark for can be inputs: Table and View resources.
      for (const catalog::Table* input : binder.DirectInputs()) {
        if (input->resource.empty()) {
          return Status::InvalidArgument(fmt::format(
              "View {}: 'watermark' '{}' derives its watermark from its inputs', but {} has no "
              "watermark: only tables made with CREATE TABLE and views have one",
              leaf, bound->watermark_policy, input->QualifiedName()));
        }
        bound->inputs.push_back(input);
      }
      if (bound->inputs.empty()) {
        return Status::InvalidArgument(fmt::format(
            "View {}: 'watermark' '{}' derives its watermark from its inputs', and its query "
            "reads no table or view",
            leaf, bound->watermark_policy));
      }
    }
  }
  if (bound->materialized) {
    const auto& mv = statement.As<sql::CreateMaterializedViewStatement>();
    if (mv.refresh_schedule) {
      auto cron = CronSchedule::Parse(*mv.refresh_schedule);
      if (!cron.ok()) {
        return Status::InvalidArgument(
            fmt::format("View {}: REFRESHED: {}", leaf, cron.status().message()));
      }
      bound->schedule = *mv.refresh_schedule;
    }
  }
  return BoundStatementPtr(std::move(bound));
}

Result<BoundStatementPtr> BindCreateTable(const catalog::Catalog& cat,
                                          const sql::Statement& statement,
                                          const BindOptions& options) {
  const auto& ct = statement.As<sql::CreateTableStatement>();
  auto bound = std::make_unique<BoundCreateTable>(statement);
  HOP_ASSIGN_OR_RETURN(bound->schema, cat.SchemaForCreate(ct.name.Names()));
  const catalog::Schema& schema = *bound->schema;
  HOP_RETURN_IF_ERROR(schema.status);
  bound->path = PathIn(schema, ct.name);
  const std::string& leaf = bound->path.back();
  if (schema.database.empty()) {
    return Status::InvalidArgument(fmt::format(
        "{} is not a physical database: tables are created in a Database's schema", schema.name));
  }
  // The columns: declared, those of the LIKE table, or those of the AS query, which then fills
  // the table once (a refresh Job, docs/ddl.md).
  catalog::RowType& row = bound->row;
  if (ct.as_query) {
    if (!ct.columns.empty() || ct.like) {
      return Status::InvalidArgument(
          "CREATE TABLE ... AS takes its columns from its query: declare none");
    }
    if (!catalog::HopWritesTables(schema)) {
      return Status::InvalidArgument(fmt::format(
          "CREATE TABLE ... AS fills tables hop writes (local and PostgreSQL databases); {} is in "
          "database {}, "
          "a {} system",
          leaf, schema.database, schema.system.empty() ? std::string("remote") : schema.system));
    }
    Binder binder(cat);
    binder.SetStatement(&statement);
    HOP_ASSIGN_OR_RETURN(RelPtr rel, binder.BindQuery(*ct.as_query));
    row = rel->row_type;
    HOP_ASSIGN_OR_RETURN(bound->fill_sql, sql::PrintQuery(*ct.as_query, {sql::Dialect::kAnsi}));
  } else if (ct.like) {
    HOP_ASSIGN_OR_RETURN(const catalog::Table* source, cat.Resolve(ct.like->source.Names()));
    row = source->row_type;
    if (source->kind != catalog::ObjectKind::kTable) {
      Binder binder(cat);
      HOP_ASSIGN_OR_RETURN(RelPtr rel, binder.BindView(*source));
      row = rel->row_type;
    }
  } else {
    for (const auto& c : ct.columns) {
      if (!c.type) {
        return Status::InvalidArgument(
            fmt::format("Column {} of table {} has no type", c.name.name, leaf));
      }
      if (c.value_kind != sql::ColumnValueKind::kNone) {
        return Status::InvalidArgument(fmt::format(
            "Unsupported column declaration: {} (defaults and generated columns)", c.name.name));
      }
      row.columns.push_back({c.name.name, *c.type});
    }
    for (const auto& k : ct.constraints) {
      if (k.kind == sql::ConstraintKind::kCheck) {
        return Status::InvalidArgument("Unsupported column declaration: CHECK constraints");
      }
    }
  }
  if (row.columns.empty()) return Status::InvalidArgument("No columns provided.");

  bound->replace = ct.or_replace || options.apply_mode;
  if (const catalog::Table* t = cat.Lookup(schema, leaf)) {
    if (t->kind != catalog::ObjectKind::kTable) {
      return Status::InvalidArgument(
          fmt::format("{} is a view; drop it before creating a table of that name", leaf));
    }
    if (!bound->replace) {
      if (ct.if_not_exists) {
        bound->nothing_to_do = true;
        return BoundStatementPtr(std::move(bound));
      }
      return Status::AlreadyExists(
          fmt::format("Table {} already exists. Use CREATE OR REPLACE to update.", leaf));
    }
    if (t->resource.empty()) {
      return Status::InvalidArgument(
          fmt::format("Table {} comes from database {} ({}); hop cannot change it",
                      t->QualifiedName(), schema.database, RedactSecrets(schema.url)));
    }
    bound->existing = t;
  }
  for (const auto& o : ct.options.items) bound->options[o.key] = o.value;
  return BoundStatementPtr(std::move(bound));
}

Result<BoundStatementPtr> BindCreateTrigger(const catalog::Catalog& cat,
                                            const sql::Statement& statement,
                                            const BindOptions& options) {
  const auto& ct = statement.As<sql::CreateTriggerStatement>();
  auto bound = std::make_unique<BoundCreateTrigger>(statement);
  HOP_ASSIGN_OR_RETURN(bound->name, TriggerName(ct.name));
  bound->sql_name = ct.name.back().name;
  // What it listens to: a table (whose database it then depends on) or a view.
  std::vector<std::string> path = ct.target.Names();
  HOP_ASSIGN_OR_RETURN(bound->schema, cat.SchemaFor(path));
  HOP_RETURN_IF_ERROR(bound->schema->status);
  const catalog::Table* target = cat.Lookup(*bound->schema, path.back());
  if (target == nullptr) {
    return Status::CatalogNotFound(fmt::format("View/table {} not found.", Join(path, ".")));
  }
  bound->target = target;
  bound->path = bound->schema->Path();
  bound->path.push_back(target->name);
  bound->database = target->kind == catalog::ObjectKind::kTable ? target->database : "";
  if (ct.schedule) {
    auto cron = CronSchedule::Parse(*ct.schedule);
    if (!cron.ok()) {
      return Status::InvalidArgument(
          fmt::format("Trigger {}: SCHEDULED: {}", bound->sql_name, cron.status().message()));
    }
    bound->schedule = *ct.schedule;
  }
  bound->template_name = resource::Canonicalize(ct.job_template);
  bound->template_namespace = ct.job_namespace;
  bound->replace = ct.or_replace || options.apply_mode;
  return BoundStatementPtr(std::move(bound));
}

Result<BoundStatementPtr> BindCreateDatabase(const sql::Statement& statement,
                                             const BindOptions& options) {
  const auto& db = statement.As<sql::CreateDatabaseStatement>();
  auto bound = std::make_unique<BoundCreateDatabase>(statement);
  if (db.name.size() != 1) {
    return Status::InvalidArgument("Database names cannot be compound identifiers.");
  }
  bound->sql_name = db.name.back().name;
  bound->name = resource::Canonicalize(bound->sql_name);
  // Options are looked up without regard to case. Each is a field of the Database's spec, and
  // is held to that field's schema, as `hop apply` holds a Database document: a misspelt key or
  // a value outside a field's list is refused rather than dropped.
  const resource::Schema& spec = resource::DatabaseKind::Info().spec;
  for (const auto& o : db.options.items) {
    const std::string key = AsciiToLower(o.key);
    const resource::Schema* field = spec.FindProperty(key);
    if (field == nullptr || field->type != resource::Schema::Type::kString) {
      std::vector<std::string> known;
      for (const auto& p : spec.properties) {
        if (p.schema.type == resource::Schema::Type::kString) known.push_back(p.name);
      }
      return Status::InvalidArgument(
          fmt::format("Database {}: unknown option '{}' (known options: {})", bound->sql_name, key,
                      Join(known, ", ")));
    }
    const auto& allowed = field->enum_values;
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), o.value) == allowed.end()) {
      std::string list = allowed.front();
      for (size_t i = 1; i < allowed.size(); ++i) {
        list += (i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
      }
      return Status::InvalidArgument(
          fmt::format("Database {}: {} must be {}, not '{}'", bound->sql_name, key, list, o.value));
    }
    bound->options[key] = o.value;
  }
  if (!bound->options.count("url")) {
    return Status::InvalidArgument(
        fmt::format("Database {} requires a 'url' option.", bound->sql_name));
  }
  bound->replace = db.or_replace || options.apply_mode;
  return BoundStatementPtr(std::move(bound));
}

}  // namespace hop::binder
