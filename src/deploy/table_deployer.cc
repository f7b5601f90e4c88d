// CREATE [OR REPLACE] TABLE (compatibility.md §5.2): a Table, the resources its TableTemplates
// render for it, and its provisioning: in its system, inside the statement, when the system has
// a provisioner; by a TableProvisionJob of hop's own when the Database asks for asynchronous
// provisioning; else by the TableProvisionJobs of the JobTemplates that opt in (§12).
//
// A table of a logical database (§5.9) is a table in each of its tiers: the statement writes
// hop's Table of the logical table, the LogicalTable it owns, and, owned by the LogicalTable, a
// table in each tier, the pipelines from the nearline tier to the others, and the trigger that
// backfills the online tier from the offline one.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "deploy/deployers.h"
#include "deploy/objects.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "sql/parser.h"
#include "sql/unparser.h"
#include "template/template.h"

namespace hop::deploy {

using resource::LogicalTableKind;
using resource::Resource;
using resource::TableTriggerKind;

namespace {

// One table to declare: where it goes, its columns and options, and the table of its name now.
struct Declaration {
  const catalog::Schema* schema = nullptr;
  std::vector<std::string> path;
  const catalog::RowType* row = nullptr;
  const std::map<std::string, std::string>* options = nullptr;
  const catalog::Table* existing = nullptr;
  bool replace = false;
  std::string fill_sql;
  const Resource* owner = nullptr;  // owns the Table, if not null
};

// The Table resource of `d`, the resources its TableTemplates render for it and what provisions
// it. Returns the Table.
Result<Resource> DeclareTable(const Declaration& d, Batch& batch) {
  const catalog::Schema& schema = *d.schema;
  const std::string& leaf = d.path.back();
  // Named by its database and name; in a catalog of schemas, by its schema too.
  std::vector<std::string> parts = {schema.database, leaf};
  if (schema.catalog_of_schemas) parts.insert(parts.begin() + 1, schema.name);
  const std::string name = d.existing != nullptr && !d.existing->resource.empty()
                               ? d.existing->resource
                               : resource::Canonicalize(parts);

  if (d.existing == nullptr) {
    // The resource name may be another table's: one whose name differs in case only (a table of
    // this name made meanwhile fails the batch, which is planned again).
    HOP_ASSIGN_OR_RETURN(std::optional<Resource> taken,
                         batch.store().Find({resource::TableKind::Info().group_kind(),
                                             batch.namespace_name(), name}));
    const std::string taken_schema =
        taken ? resource::TableKind::kSchema.Get(*taken).value_or("") : "";
    const std::string taken_table =
        taken ? resource::TableKind::kTable.Get(*taken).value_or("") : "";
    if (taken && (taken_schema != schema.name || taken_table != leaf)) {
      const std::string other = taken_schema + "." + taken_table;
      return Status::AlreadyExists(fmt::format(
          "Cannot create table {}: its resource, table/{}, is {}'s, and hop names a table's "
          "resource after its database and name in canonical form (in lower case, without `_`, "
          "`$` made `-`), which the two names share, so they cannot both be tables; drop {} or "
          "choose another name",
          Join(d.path, "."), name, other, other));
    }
  }
  const catalog::TableDefinition definition{schema.database, d.path, *d.row, *d.options};
  Subject subject(ValidationPoint::kTable);
  subject.schema = &schema;
  subject.table = &definition;
  subject.created = true;
  subject.existing = d.existing;
  HOP_RETURN_IF_ERROR(batch.Check(std::move(subject)));

  Resource table = NewObject("Table", name, batch.namespace_name());
  if (d.owner != nullptr) table.set_owner_references({OwnerByName(*d.owner)});
  resource::TableKind::kDatabase.Set(table, schema.database);
  if (!schema.catalog.empty()) resource::TableKind::kCatalog.Set(table, schema.catalog);
  resource::TableKind::kSchema.Set(table, schema.name);
  resource::TableKind::kTable.Set(table, leaf);
  HOP_ASSIGN_OR_RETURN(Json columns, catalog::ColumnsJson(*d.row));
  resource::TableKind::kColumns.Set(table, columns);
  if (!d.options->empty()) resource::TableKind::kOptions.Set(table, *d.options);
  // CREATE TABLE ... AS: the query that fills it, once, in a refresh Job the Table reconciler
  // starts (operator/view_refresh.h, PlanFill).
  if (!d.fill_sql.empty()) table.set_annotation(resource::kFillAnnotation, d.fill_sql);
  // A CREATE that found no table creates one: if another writer made it meanwhile, the batch
  // fails and the statement is planned again (the executor), instead of overwriting it.
  HOP_RETURN_IF_ERROR(batch.Put(table, true, /*must_create=*/!d.replace));

  // The resources its TableTemplates render for it (a Kafka topic, ...), and what provisions it.
  // All owned by the Table.
  HOP_ASSIGN_OR_RETURN(RenderContext render, batch.Render());
  planner::PipelineTable source;
  source.database = schema.database;
  source.path = d.path;
  source.row_type = *d.row;
  for (const auto& [k, v] : *d.options) source.options.emplace_back(k, v);
  source.declared_options = source.options;
  for (const auto& [k, v] : batch.options().hints) tmpl::SetEntry(source.options, k, v);
  Renderer renderer(std::move(render));
  std::vector<SkippedTemplate> skipped;
  HOP_ASSIGN_OR_RETURN(std::vector<Spec> specs,
                       renderer.TableSpecs(source, planner::Method::kScan, &skipped));
  HOP_ASSIGN_OR_RETURN(std::vector<Spec> provision, renderer.ProvisionSpecs(source, &skipped));
  AddSkipWarnings(skipped, batch.issues());
  for (auto& spec : provision) specs.push_back(std::move(spec));
  HOP_RETURN_IF_ERROR(batch.AddEffect(true, schema, definition));
  HOP_RETURN_IF_ERROR(batch.PutElements(specs, table));
  return table;
}

// A tier of a logical table: its name, its Database's schema and the table's path there.
struct Tier {
  std::string name;  // nearline, online, offline
  const catalog::Schema* schema = nullptr;
  std::vector<std::string> path;
};

const Tier* FindTier(const std::vector<Tier>& tiers, std::string_view name) {
  for (const Tier& t : tiers) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

// The tiers of the logical table `leaf` of `logical`: each tier's Database must be in the
// namespace and usable.
Result<std::vector<Tier>> TiersOf(const catalog::Schema& logical, const std::string& leaf,
                                  const catalog::Catalog& cat, const std::string& ns) {
  HOP_RETURN_IF_ERROR(logical.status);
  std::vector<Tier> tiers;
  for (const auto& [tier, database] : logical.tiers) {
    const catalog::Schema* schema = cat.SchemaOfDatabase(database);
    if (schema == nullptr) {
      return Status::NotFound(
          fmt::format("Database {} of the {} tier of logical database {} is not in namespace {}",
                      database, tier, logical.database, ns));
    }
    HOP_RETURN_IF_ERROR(schema->status);
    if (schema->system == "logical") {
      return Status::InvalidArgument(fmt::format(
          "the {} tier of logical database {} is logical database {}: tiers hold tables", tier,
          logical.database, database));
    }
    std::vector<std::string> path = schema->Path();
    path.push_back(leaf);
    tiers.push_back({tier, schema, std::move(path)});
  }
  return tiers;
}

// The table a tier holds as the pipelines between tiers see it: the logical table's columns
// and options, wherever the tier's own table differs.
catalog::Table TierTable(const Tier& tier, const catalog::RowType& row,
                         const std::map<std::string, std::string>& options) {
  catalog::Table t;
  t.name = tier.path.back();
  t.path = tier.path;
  t.database = tier.schema->database;
  t.row_type = row;
  t.options = options;
  return t;
}

// The pipeline that copies the `from` tier into the `to` tier, owned by the LogicalTable.
Status DeclarePipeline(const std::string& leaf, const Tier& from, const Tier& to,
                       const catalog::RowType& row,
                       const std::map<std::string, std::string>& options,
                       const Resource& logical_table, Batch& batch) {
  const std::string name =
      fmt::format("logical-{}-{}-to-{}", resource::Canonicalize(leaf), from.name, to.name);
  // Planned against the two tiers as this statement leaves them.
  catalog::Catalog tiers;
  for (const Tier* tier : {&from, &to}) {
    catalog::Schema schema = *tier->schema;
    schema.discovery = nullptr;
    schema.tables[leaf] = TierTable(*tier, row, options);
    tiers.AddSchema(std::move(schema));
  }
  auto quoted = [](const std::vector<std::string>& path) {
    std::string out;
    for (const std::string& part : path) {
      out += (out.empty() ? "" : ".") + sql::QuoteIdentifier(part, sql::Dialect::kAnsi);
    }
    return out;
  };
  const std::string text =
      fmt::format("INSERT INTO {} SELECT * FROM {}", quoted(to.path), quoted(from.path));
  HOP_ASSIGN_OR_RETURN(sql::StatementPtr insert, sql::ParseStatement(text));
  HOP_ASSIGN_OR_RETURN(RenderContext render, batch.Render());
  planner::PlanContext ctx;
  ctx.catalog = &tiers;
  ctx.hints = batch.options().hints;
  ctx.table_templates = render.table_templates;
  ctx.config = render.config;
  ctx.pipeline_name = name;
  planner::Planner planner(std::move(ctx));
  auto planned = planner.Plan(*insert);
  if (!planned.ok()) {
    return planned.status().WithContext(fmt::format("pipeline {}: ", name));
  }
  Renderer renderer(std::move(render));
  std::vector<SkippedTemplate> skipped;
  HOP_ASSIGN_OR_RETURN(std::vector<Spec> specs, renderer.PipelineSpecs(*planned, &skipped));
  AddSkipWarnings(skipped, batch.issues());

  Resource pipeline = NewObject("Pipeline", name, batch.namespace_name());
  pipeline.set_owner_references({OwnerByName(logical_table)});
  resource::PipelineKind::kSql.Set(pipeline, planned->complete ? planned->sql : "");
  std::string yaml;
  for (size_t i = 0; i < specs.size(); ++i) yaml += (i ? "\n---\n" : "") + specs[i].yaml;
  resource::PipelineKind::kYaml.Set(pipeline, yaml);
  const std::vector<std::string> sinks = {
      resource::DependencyIdentifier(to.schema->database, to.path)};
  SetDependencies(pipeline, {resource::DependencyIdentifier(from.schema->database, from.path)},
                  &sinks);
  HOP_RETURN_IF_ERROR(batch.Put(pipeline, true));
  return batch.PutElements(specs, pipeline);
}

// The trigger that backfills the online tier from the offline one, when a JobTemplate names the
// offline tier's Database: created paused, and kept as the user left it after.
Status DeclareOfflineTrigger(const std::string& leaf, const Tier& offline, const Tier* online,
                             const Resource& logical_table, Batch& batch) {
  HOP_ASSIGN_OR_RETURN(RenderContext render, batch.Render());
  const Resource* job_template = nullptr;
  for (const Resource& t : render.job_templates) {
    const auto databases = resource::JobTemplateKind::kDatabases.Get(t);
    if (databases && std::find(databases->begin(), databases->end(), offline.schema->database) !=
                         databases->end()) {
      job_template = &t;
      break;
    }
  }
  if (job_template == nullptr) return Status::OK();
  const std::string& ns = batch.namespace_name();
  const std::string name = fmt::format("logical-{}-offline-trigger", resource::Canonicalize(leaf));
  Resource trigger = NewObject("TableTrigger", name, ns);
  trigger.set_owner_references({OwnerByName(logical_table)});
  trigger.set_label(kViewLabel, ViewLabelValue(resource::Canonicalize(offline.path)));
  std::vector<std::string> sinks;
  if (online != nullptr) {
    sinks.push_back(resource::DependencyIdentifier(online->schema->database, online->path));
  }
  // Without an online tier the trigger has no sink, and no sinks annotation (compatibility.md
  // §5.8: only what a trigger reads or writes is listed).
  SetDependencies(trigger, {resource::DependencyIdentifier(offline.schema->database, offline.path)},
                  online != nullptr ? &sinks : nullptr);
  if (!offline.schema->catalog.empty()) {
    TableTriggerKind::kCatalog.Set(trigger, offline.schema->catalog);
  }
  TableTriggerKind::kSchema.Set(trigger, offline.schema->name);
  TableTriggerKind::kTable.Set(trigger, leaf);
  // The job, rendered as CREATE TRIGGER renders it: what fires fill in is left for then.
  const std::string yaml = resource::JobTemplateKind::kYaml.Get(*job_template).value_or("");
  tmpl::Environment env;
  SetTriggerCreationVariables(env, name, job_template->name(), *offline.schema, offline.path);
  std::vector<tmpl::Deferred> deferred;
  tmpl::SkipReason why;
  auto rendered = tmpl::RenderPartial(yaml, env, &deferred, &why);
  const std::string where =
      fmt::format("JobTemplate {} for trigger {}", job_template->name(), name);
  if (!rendered.ok()) return Status::InvalidArgument(where + ": " + rendered.status().message());
  if (rendered->has_value()) {
    TableTriggerKind::kYaml.Set(trigger, **rendered);
  } else {
    batch.issues().Child("trigger " + name).Warning(where + " renders no job: " + why.ToString());
  }
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing,
                       batch.store().Find({TableTriggerKind::Info().group_kind(), ns, name}));
  TableTriggerKind::kPaused.Set(
      trigger, existing ? TableTriggerKind::kPaused.Get(*existing).value_or(false) : true);
  HOP_RETURN_IF_ERROR(batch.CheckObject(trigger));
  return batch.Put(trigger, true);
}

Status DeclareLogicalTable(const binder::BoundCreateTable& t, Batch& batch) {
  const catalog::Schema& logical = *t.schema;
  const std::string& leaf = t.path.back();
  const std::string& ns = batch.namespace_name();
  HOP_ASSIGN_OR_RETURN(std::vector<Tier> tiers, TiersOf(logical, leaf, batch.catalog(), ns));

  // hop's Table of the logical table, which the catalog shows; it owns the LogicalTable.
  Declaration d;
  d.schema = &logical;
  d.path = t.path;
  d.row = &t.row;
  d.options = &t.options;
  d.existing = t.existing;
  d.replace = t.replace;
  HOP_ASSIGN_OR_RETURN(Resource table, DeclareTable(d, batch));

  Resource logical_table = NewObject("LogicalTable", resource::Canonicalize(t.path), ns);
  logical_table.set_owner_references({OwnerByName(table)});
  logical_table.set_label("logical-database", logical.database);
  LogicalTableKind::kTableName.Set(logical_table, leaf);
  Json spec_tiers = Json::object();
  for (const Tier& tier : tiers) spec_tiers[tier.name] = {{"database", tier.schema->database}};
  LogicalTableKind::kTiers.Set(logical_table, spec_tiers);
  HOP_RETURN_IF_ERROR(batch.CheckObject(logical_table));
  HOP_RETURN_IF_ERROR(batch.Put(logical_table, true));

  // Each tier's table, updated when it is there; one its system keeps (a demo table) is used
  // as it is.
  for (const Tier& tier : tiers) {
    const catalog::Table* existing = batch.catalog().Lookup(*tier.schema, leaf);
    if (existing != nullptr && existing->resource.empty()) continue;
    if (existing != nullptr && existing->kind != catalog::ObjectKind::kTable) {
      return Status::InvalidArgument(
          fmt::format("the {} tier of {} is {}, a view: drop it before creating the logical table",
                      tier.name, Join(t.path, "."), existing->QualifiedName()));
    }
    Declaration td;
    td.schema = tier.schema;
    td.path = tier.path;
    td.row = &t.row;
    td.options = &t.options;
    td.existing = existing;
    td.replace = true;
    td.owner = &logical_table;
    HOP_RETURN_IF_ERROR(DeclareTable(td, batch).status());
  }

  // The pipelines from the nearline tier, and the offline backfill.
  if (const Tier* nearline = FindTier(tiers, "nearline")) {
    for (const char* to : {"online", "offline"}) {
      if (const Tier* tier = FindTier(tiers, to)) {
        HOP_RETURN_IF_ERROR(
            DeclarePipeline(leaf, *nearline, *tier, t.row, t.options, logical_table, batch));
      }
    }
  }
  if (const Tier* offline = FindTier(tiers, "offline")) {
    HOP_RETURN_IF_ERROR(
        DeclareOfflineTrigger(leaf, *offline, FindTier(tiers, "online"), logical_table, batch));
  }
  return Status::OK();
}

}  // namespace

Status TableDeployer::Specify(const binder::BoundStatement& statement, Batch& batch) const {
  const auto& t = statement.As<binder::BoundCreateTable>();
  if (t.nothing_to_do) return Status::OK();
  if (t.schema->system == "logical") return DeclareLogicalTable(t, batch);
  Declaration d;
  d.schema = t.schema;
  d.path = t.path;
  d.row = &t.row;
  d.options = &t.options;
  d.existing = t.existing;
  d.replace = t.replace;
  d.fill_sql = t.fill_sql;
  return DeclareTable(d, batch).status();
}

}  // namespace hop::deploy
