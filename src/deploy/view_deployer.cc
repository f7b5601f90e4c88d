// CREATE [OR REPLACE] VIEW and MATERIALIZED VIEW (compatibility.md §5.3, §5.4): a View, and for
// a materialized view the Pipeline it owns and the elements the Pipeline owns, rendered from the
// templates, with every source and the sink provisioned.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "deploy/deployers.h"
#include "deploy/objects.h"
#include "deploy/trigger_fires.h"
#include "planner/planner.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "sql/ast/create_materialized_view_statement.h"
#include "sql/unparser.h"

namespace hop::deploy {

using resource::PipelineKind;
using resource::Resource;
using resource::ViewKind;
using store::ObjectRef;
using store::Write;

namespace {

Resource ViewResource(const binder::BoundCreateView& v, const std::string& ns, std::string sql) {
  Resource view = NewObject("View", v.resource, ns);
  ViewKind::kView.Set(view, v.path.back());
  ViewKind::kSchema.Set(view, v.path[v.path.size() - 2]);
  if (v.path.size() == 3) ViewKind::kCatalog.Set(view, v.path[0]);
  ViewKind::kSql.Set(view, sql);
  ViewKind::kMaterialized.Set(view, v.materialized);
  return view;
}

// The materialized view's pipeline and its elements, and the provisioning of its tables.
Status SpecifyPipeline(const binder::BoundCreateView& v, Resource& view,
                       const std::optional<Resource>& existing, Batch& batch) {
  const std::string& ns = batch.namespace_name();
  const catalog::Catalog& cat = batch.catalog();
  const auto& mv = v.statement.As<sql::CreateMaterializedViewStatement>();
  // A view whose table hop writes is refreshed by hop (operator/view_refresh.h): its refresh
  // Jobs are its pipeline's job, and no JobTemplate need render one.
  auto sink_schema = cat.SchemaFor(v.path);
  const bool hop_refreshes = sink_schema.ok() && catalog::HopWritesTables(**sink_schema);
  // Its refresh schedule and options are kept on the View; the options are hints of its
  // pipeline, over the session's.
  if (v.schedule) {
    ViewKind::kSchedule.Set(view, *v.schedule);
    if (!hop_refreshes) {
      batch.issues()
          .Child("view " + Join(v.path, "."))
          .Warning(fmt::format("REFRESHED '{}' is recorded in spec.schedule, but hop refreshes "
                               "only views whose table is in a local or PostgreSQL database: this one's job "
                               "is its pipeline's",
                               *v.schedule));
    }
  }
  tmpl::Entries hints = batch.options().hints;
  if (!mv.options.empty()) {
    resource::StringMap options;
    for (const auto& o : mv.options.items) {
      options[o.key] = o.value;
      tmpl::SetEntry(hints, o.key, o.value);
    }
    ViewKind::kOptions.Set(view, options);
    if (resource::RefreshesOnSourceChange(view)) {
      view.set_label(resource::kRefreshOnChangeLabel, resource::kRefreshOnChange);
    }
  }
  if (existing) {
    if (auto paused = ViewKind::kPaused.Get(*existing)) ViewKind::kPaused.Set(view, *paused);
  }

  // Plan it and render its elements.
  HOP_ASSIGN_OR_RETURN(RenderContext render, batch.Render());
  planner::PlanContext plan_ctx;
  plan_ctx.catalog = &cat;
  plan_ctx.hints = hints;
  plan_ctx.table_templates = render.table_templates;
  plan_ctx.config = render.config;
  planner::Planner planner(std::move(plan_ctx));
  HOP_ASSIGN_OR_RETURN(planner::Pipeline p, planner.Plan(v.statement));
  Renderer renderer(std::move(render));
  std::vector<SkippedTemplate> skipped;
  HOP_ASSIGN_OR_RETURN(std::vector<Spec> specs, renderer.PipelineSpecs(p, &skipped));
  if (!hop_refreshes) {
    AddSkipWarnings(skipped, batch.issues());
    WarnWithoutJob(p, specs, skipped, batch.issues());
  }
  // Every source and the sink must exist in their systems (compatibility.md §12).
  std::vector<const planner::PipelineTable*> tables;
  for (const auto& source : p.sources) tables.push_back(&source);
  tables.push_back(&p.sink);
  for (const planner::PipelineTable* t : tables) {
    if (t->database.empty()) continue;
    auto table_schema = cat.SchemaFor(t->path);
    if (!table_schema.ok()) continue;
    catalog::TableDefinition def{t->database, t->path, t->row_type, {}};
    for (const auto& [k, val] : t->declared_options) def.options[k] = val;
    Subject subject(ValidationPoint::kTable);
    subject.schema = *table_schema;
    subject.table = &def;
    HOP_RETURN_IF_ERROR(batch.Check(std::move(subject)));
    // A new view's table holds nothing but what its refreshes write.
    const bool fresh = hop_refreshes && t == &p.sink && !existing;
    HOP_RETURN_IF_ERROR(batch.AddEffect(true, **table_schema, def, fresh));
  }

  Resource pipeline = NewObject("Pipeline", v.resource, ns);
  pipeline.set_owner_references({OwnerByName(view)});
  PipelineKind::kSql.Set(pipeline, p.complete ? p.sql : "");
  std::string yaml;
  for (size_t i = 0; i < specs.size(); ++i) yaml += (i ? "\n---\n" : "") + specs[i].yaml;
  PipelineKind::kYaml.Set(pipeline, yaml);
  // Dependency labels and annotations (compatibility.md §5.8).
  std::vector<std::string> sources, sinks;
  auto depend = [&](const planner::PipelineTable& t, std::vector<std::string>& into) {
    if (t.database.empty()) return;
    std::string id = resource::DependencyIdentifier(t.database, t.path);
    if (std::find(into.begin(), into.end(), id) == into.end()) into.push_back(id);
  };
  for (const auto& s : p.sources) depend(s, sources);
  depend(p.sink, sinks);
  SetDependencies(pipeline, sources, &sinks);

  HOP_RETURN_IF_ERROR(batch.CheckObject(view));
  HOP_RETURN_IF_ERROR(batch.Put(view, true, /*must_create=*/v.existing == nullptr));
  HOP_RETURN_IF_ERROR(batch.Put(pipeline, true));
  return batch.PutElements(specs, pipeline);
}

}  // namespace

void WarnWithoutJob(const planner::Pipeline& pipeline, const std::vector<Spec>& specs,
                    const std::vector<SkippedTemplate>& skipped, Issues& issues) {
  if (std::any_of(specs.begin(), specs.end(), [](const Spec& s) { return s.job; })) return;
  // Nothing of hop's moves rows into the view: say so, and where the reasons are.
  const bool explained = std::any_of(skipped.begin(), skipped.end(), [](const SkippedTemplate& s) {
    return s.template_kind == "JobTemplate" && s.subject.rfind("job ", 0) == 0;
  });
  issues.Child("view " + Join(pipeline.view_path, "."))
      .Warning(
          fmt::format("The pipeline has no job: no JobTemplate renders one for database {}{}",
                      pipeline.sink.database,
                      explained ? " (the templates skipped for its job are listed above)" : ""));
}

Status ViewDeployer::Specify(const binder::BoundStatement& statement, Batch& batch) const {
  const auto& v = statement.As<binder::BoundCreateView>();
  if (v.nothing_to_do) return Status::OK();
  const std::string& ns = batch.namespace_name();
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing,
                       batch.store().Find({ViewKind::Info().group_kind(), ns, v.resource}));
  if (existing && v.existing == nullptr) {
    // The resource name is another view's: one whose path has the same canonical form, differing
    // in case, `_` or `$` (a view of this path made meanwhile fails the batch, which is planned
    // again).
    std::vector<std::string> path;
    if (auto c = ViewKind::kCatalog.Get(*existing); c && !c->empty()) path.push_back(*c);
    path.push_back(ViewKind::kSchema.Get(*existing).value_or(""));
    path.push_back(ViewKind::kView.Get(*existing).value_or(""));
    if (path != v.path) {
      return Status::AlreadyExists(fmt::format(
          "Cannot create view {}: its resource, view/{}, is {}'s, and hop names a view's resource "
          "after its canonical path (in lower case, without `_`, `$` made `-`), which the two "
          "names share, so they cannot both be views; drop {} or choose another name",
          Join(v.path, "."), v.resource, Join(path, "."), Join(path, ".")));
    }
  }
  // The SQL a View resource keeps: the query in the ANSI dialect, wrapped to apply a column list.
  HOP_ASSIGN_OR_RETURN(std::string sql,
                       sql::PrintRenamedQuery(*v.query_ast, *v.columns, {sql::Dialect::kAnsi}));
  Resource view = ViewResource(v, ns, sql);
  if (v.materialized) return SpecifyPipeline(v, view, existing, batch);

  // A plain view keeps no pipeline. One that derives its watermark from its inputs' says so, and
  // which they are (docs/operator.md).
  if (!v.watermark_policy.empty()) {
    ViewKind::kOptions.Set(view, resource::StringMap{{"watermark", v.watermark_policy}});
    view.set_label(kWatermarkPolicyLabel, v.watermark_policy);
    std::string inputs;
    for (const catalog::Table* input : v.inputs) {
      inputs += inputs.empty() ? "" : ",";
      inputs += (input->kind == catalog::ObjectKind::kTable ? "table/" : "view/") + input->resource;
    }
    view.set_annotation(kWatermarkInputsAnnotation, inputs);
  }
  HOP_RETURN_IF_ERROR(batch.CheckObject(view));
  HOP_RETURN_IF_ERROR(batch.Put(view, true, /*must_create=*/v.existing == nullptr));
  // A materialized view replaced by a plain one loses its pipeline (and, through ownership, the
  // pipeline's elements).
  if (existing && ViewKind::kMaterialized.Get(*existing).value_or(false)) {
    ObjectRef pipeline{PipelineKind::Info().group_kind(), ns, v.resource};
    HOP_ASSIGN_OR_RETURN(std::optional<Resource> old, batch.store().Find(pipeline));
    if (old) batch.Add({Write::Delete(pipeline), ""});
  }
  return Status::OK();
}

}  // namespace hop::deploy
