// CREATE [OR REPLACE] TRIGGER (compatibility.md §5.5, departure 6): a TableTrigger that keeps
// its job's YAML with the fire-time placeholders ({{timestamp}}, {{watermark}}, the job
// properties) still in it, for the operator to render when the trigger fires; everything else is
// rendered here, and the statement fails when the template cannot render.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "common/strings.h"
#include "deploy/deployers.h"
#include "deploy/objects.h"
#include "deploy/trigger_fires.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "resource/yaml.h"
#include "sql/ast/create_trigger_statement.h"
#include "template/template.h"

namespace hop::deploy {

using resource::Resource;
using resource::TableTriggerKind;

Status TriggerDeployer::Specify(const binder::BoundStatement& statement, Batch& batch) const {
  const auto& t = statement.As<binder::BoundCreateTrigger>();
  const auto& ct = t.statement.As<sql::CreateTriggerStatement>();
  const std::string& ns = batch.namespace_name();
  const std::string& name = t.name;
  const catalog::Schema* schema = t.schema;
  const std::vector<std::string>& path = t.path;
  const std::string& database = t.database;

  std::optional<bool> paused;
  std::string fire_policy;
  resource::StringList outputs;
  resource::StringMap job_properties;
  for (const sql::Option& o : ct.options.items) {
    HOP_RETURN_IF_ERROR(CheckTriggerOption(o.key));
    if (EqualsIgnoreCase(o.key, "paused")) {
      if (!EqualsIgnoreCase(o.value, "true") && !EqualsIgnoreCase(o.value, "false")) {
        return Status::InvalidArgument(
            fmt::format("Option paused must be true or false, not '{}'", o.value));
      }
      paused = EqualsIgnoreCase(o.value, "true");
    }
    if (EqualsIgnoreCase(o.key, "firePolicy")) {
      if (!EqualsIgnoreCase(o.value, "Coalesce") && !EqualsIgnoreCase(o.value, "Each")) {
        return Status::InvalidArgument(
            fmt::format("Option firePolicy must be Coalesce or Each, not '{}'", o.value));
      }
      fire_policy = EqualsIgnoreCase(o.value, "Each") ? "Each" : "Coalesce";
    }
    if (EqualsIgnoreCase(o.key, "outputs")) {
      // What the trigger's Job materialises: each must exist now (docs/ddl.md).
      HOP_ASSIGN_OR_RETURN(std::vector<store::ObjectRef> refs,
                           ParseWatermarkTargets(o.value, ns, "Option outputs"));
      outputs.clear();
      for (const store::ObjectRef& ref : refs) {
        HOP_ASSIGN_OR_RETURN(std::optional<Resource> target, batch.store().Find(ref));
        if (!target) {
          return Status::NotFound(fmt::format("Option outputs: {} not found in namespace {}.",
                                              WatermarkTargetText(ref), ns));
        }
        if (target->labels().count(std::string(kWatermarkPolicyLabel))) {
          return Status::InvalidArgument(fmt::format(
              "Option outputs: {} derives its watermark from its inputs', so no Job advances it",
              WatermarkTargetText(ref)));
        }
        // A materialized view hop refreshes: its watermark is what its refreshes earn from what
        // they read, and only they write its rows (docs/operator.md, "Jobs that declare their
        // outputs").
        if (ref.kind == resource::ViewKind::Info().group_kind() &&
            resource::ViewKind::kMaterialized.Get(*target).value_or(false)) {
          auto schema = batch.catalog().SchemaFor(resource::ViewKind::Path(*target));
          if (schema.ok() && catalog::HopWritesTables(**schema)) {
            return Status::InvalidArgument(fmt::format(
                "Option outputs: {} is a materialized view hop refreshes: only its refreshes "
                "write its rows, and its watermark is the one they earn from what they read, so "
                "no Job advances it; name what the Job writes (its inputs' tables), and the view "
                "follows when refreshed (REFRESH MATERIALIZED VIEW, or WITH ('refresh' "
                "'on-source-change'))",
                WatermarkTargetText(ref)));
          }
        }
        outputs.push_back(WatermarkTargetText(ref));
      }
    }
    if (auto key = JobProperty(o.key)) job_properties[*key] = o.value;
  }

  // The job: the template rendered with the trigger's variables, the fire-time ones left in.
  const std::string template_ns = t.template_namespace.value_or(ns);
  const std::string& template_name = t.template_name;
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> job_template,
                       batch.store().Find({resource::JobTemplateKind::Info().group_kind(),
                                           template_ns, template_name}));
  if (!job_template) {
    return Status::NotFound(
        fmt::format("JobTemplate {} not found in namespace {}.", template_name, template_ns));
  }
  const std::string yaml = resource::JobTemplateKind::kYaml.Get(*job_template).value_or("");
  const std::string where = fmt::format("JobTemplate {} for trigger {}", template_name, name);
  if (yaml.empty()) return Status::InvalidArgument(where + ": the template has no yaml");
  tmpl::Environment env;
  for (const sql::Option& o : ct.options.items) env.Set(o.key, o.value);
  SetTriggerCreationVariables(env, name, template_name, *schema, path);
  if (ct.schedule) env.Set("schedule", *ct.schedule);
  std::vector<tmpl::Deferred> deferred;
  tmpl::SkipReason why;
  auto rendered = tmpl::RenderPartial(yaml, env, &deferred, &why);
  if (!rendered.ok()) return Status::InvalidArgument(where + ": " + rendered.status().message());
  if (!rendered->has_value()) return Status::InvalidArgument(where + ": " + why.ToString());
  for (const tmpl::Deferred& d : deferred) {
    if (d.has_default || d.key == "timestamp" || d.key == "watermark" ||
        job_properties.count(d.key)) {
      continue;
    }
    // An unquoted `job.properties.x` folds to upper case and is then no job property
    // (compatibility.md §1.1, §5.5): say so when that is why the variable is missing.
    std::string hint;
    for (const sql::Option& o : ct.options.items) {
      if (!JobProperty(o.key) && EqualsIgnoreCase(o.key, "job.properties." + d.key)) {
        hint = fmt::format(
            "; the option {} is not one: an unquoted key is upper-cased, so write it quoted, "
            "'job.properties.{}'",
            o.key, d.key);
      }
    }
    return Status::InvalidArgument(fmt::format(
        "{}: variable '{}' is missing at line {}, column {} (when the trigger fires, its job "
        "also gets timestamp, watermark and the job.properties.* options{})",
        where, d.key, d.line, d.column, hint));
  }
  // What firing would create: the rest rendered with sample fire-time values must be objects.
  const std::string now = batch.StampAfter({});
  tmpl::Environment fire;
  for (const auto& [k, v] : job_properties) fire.Set(k, v);
  fire.Set("trigger", name).Set("schema", schema->name).Set("table", path.back());
  if (!schema->catalog.empty()) fire.Set("catalog", schema->catalog);
  fire.Set("timestamp", now).Set("watermark", now);
  auto job = tmpl::Render(**rendered, fire, &why);
  if (!job.ok()) return Status::InvalidArgument(where + ": " + job.status().message());
  if (!job->has_value()) return Status::InvalidArgument(where + ": " + why.ToString());
  HOP_ASSIGN_OR_RETURN(std::vector<Json> docs, ParseYamlDocuments(**job, where));
  size_t objects = 0;
  for (Json& doc : docs) {
    if (doc.is_null()) continue;
    HOP_RETURN_IF_ERROR(Resource::FromJson(std::move(doc), where).status());
    ++objects;
  }
  if (objects == 0) return Status::InvalidArgument(where + ": the template renders no object");

  Resource trigger = NewObject("TableTrigger", name, ns);
  trigger.set_label(kViewLabel, ViewLabelValue(resource::Canonicalize(path)));
  if (!database.empty()) {
    SetDependencies(trigger, {resource::DependencyIdentifier(database, path)}, nullptr);
  }
  if (!schema->catalog.empty()) TableTriggerKind::kCatalog.Set(trigger, schema->catalog);
  TableTriggerKind::kSchema.Set(trigger, schema->name);
  TableTriggerKind::kTable.Set(trigger, path.back());
  TableTriggerKind::kYaml.Set(trigger, **rendered);
  if (!job_properties.empty()) TableTriggerKind::kJobProperties.Set(trigger, job_properties);
  if (ct.schedule) TableTriggerKind::kSchedule.Set(trigger, *ct.schedule);
  if (!fire_policy.empty()) TableTriggerKind::kFirePolicy.Set(trigger, fire_policy);
  if (!outputs.empty()) TableTriggerKind::kOutputs.Set(trigger, outputs);

  // Triggers are resources, not catalog objects: whether one exists is read here.
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing,
                       batch.store().Find({TableTriggerKind::Info().group_kind(), ns, name}));
  if (existing && !t.replace) {
    if (ct.if_not_exists) return Status::OK();
    return Status::AlreadyExists(
        fmt::format("Trigger {} already exists. Use CREATE OR REPLACE to update.", t.sql_name));
  }
  // Replacing a trigger keeps its paused state unless the statement sets one.
  if (!paused && existing) paused = TableTriggerKind::kPaused.Get(*existing);
  if (paused) TableTriggerKind::kPaused.Set(trigger, *paused);
  HOP_RETURN_IF_ERROR(batch.CheckObject(trigger));
  return batch.Put(trigger, true, /*must_create=*/!existing);
}

}  // namespace hop::deploy
