// CREATE [OR REPLACE] TABLE (compatibility.md §5.2): a Table, the resources its TableTemplates
// render for it, and its provisioning: in its system, inside the statement, when the system has
// a provisioner; by a TableProvisionJob of hop's own when the Database asks for asynchronous
// provisioning; else by the TableProvisionJobs of the JobTemplates that opt in (§12).
#include <nlohmann/json.hpp>

#include "deploy/deployers.h"
#include "deploy/objects.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "sql/unparser.h"

namespace hop::deploy {

using resource::Resource;

Status TableDeployer::Specify(const binder::BoundStatement& statement, Batch& batch) const {
  const auto& t = statement.As<binder::BoundCreateTable>();
  if (t.nothing_to_do) return Status::OK();
  const catalog::Schema& schema = *t.schema;
  const std::string& leaf = t.path.back();
  const std::string name =
      t.existing != nullptr
          ? t.existing->resource
          : resource::Canonicalize(std::vector<std::string>{schema.database, leaf});

  const catalog::TableDefinition definition{schema.database, t.path, t.row, t.options};
  Subject subject(ValidationPoint::kTable);
  subject.schema = &schema;
  subject.table = &definition;
  subject.created = true;
  subject.existing = t.existing;
  HOP_RETURN_IF_ERROR(batch.Check(std::move(subject)));

  Resource table = NewObject("Table", name, batch.namespace_name());
  resource::TableKind::kDatabase.Set(table, schema.database);
  if (!schema.catalog.empty()) resource::TableKind::kCatalog.Set(table, schema.catalog);
  resource::TableKind::kSchema.Set(table, schema.name);
  resource::TableKind::kTable.Set(table, leaf);
  HOP_ASSIGN_OR_RETURN(Json columns, catalog::ColumnsJson(t.row));
  resource::TableKind::kColumns.Set(table, columns);
  if (!t.options.empty()) resource::TableKind::kOptions.Set(table, t.options);
  // CREATE TABLE ... AS: the query that fills it, once, in a refresh Job the Table reconciler
  // starts (operator/view_refresh.h, PlanFill).
  if (!t.fill_sql.empty()) table.set_annotation(resource::kFillAnnotation, t.fill_sql);
  // A CREATE that found no table creates one: if another writer made it meanwhile, the batch
  // fails and the statement is planned again (the executor), instead of overwriting it.
  HOP_RETURN_IF_ERROR(batch.Put(table, true, /*must_create=*/!t.replace));

  // The resources its TableTemplates render for it (a Kafka topic, ...), and what provisions it.
  // All owned by the Table.
  HOP_ASSIGN_OR_RETURN(RenderContext render, batch.Render());
  planner::PipelineTable source;
  source.database = schema.database;
  source.path = t.path;
  source.row_type = t.row;
  for (const auto& [k, v] : t.options) source.options.emplace_back(k, v);
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
  return batch.PutElements(specs, table);
}

}  // namespace hop::deploy
