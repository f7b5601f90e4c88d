// Triggers, and the statements that act on existing objects: FIRE, PAUSE, RESUME and REFRESH
// (compatibility.md §5.5, departures 6 and 9).
//
// A TableTrigger keeps its job's YAML with the fire-time placeholders ({{timestamp}},
// {{watermark}}, the job properties) still in it: the operator renders them when the trigger
// fires, so a window and the properties of `FIRE ... WITH` reach the job. Everything else is
// rendered here, and CREATE TRIGGER fails when the template cannot render.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "common/cron.h"
#include "common/strings.h"
#include "deploy/executor.h"
#include "deploy/objects.h"
#include "deploy/trigger_fires.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "resource/yaml.h"
#include "sql/ast/create_trigger_statement.h"
#include "sql/ast/drop_statement.h"
#include "sql/ast/fire_statement.h"
#include "sql/ast/pause_statement.h"
#include "sql/ast/refresh_statement.h"
#include "template/template.h"

namespace hop::deploy {

using resource::Resource;
using resource::TableTriggerKind;
using resource::ViewKind;
using store::ObjectRef;
using store::Write;

namespace {

Result<std::string> TriggerName(const sql::QualifiedName& name) {
  if (name.size() != 1) {
    return Status::InvalidArgument("Triggers cannot belong to a schema or database.");
  }
  return resource::Canonicalize(name.back().name);
}

ObjectRef TriggerRef(const std::string& ns, const std::string& name) {
  return {TableTriggerKind::Info().group_kind(), ns, name};
}

Status TriggerNotFound(const sql::QualifiedName& name) {
  return Status::NotFound(fmt::format("Trigger {} not found.", name.back().name));
}

// The stored object with its new state; it must not carry the version it was read at unless
// the write is to fail when someone else changed it meanwhile.
Resource Unversioned(Resource r) {
  r.mutable_json()["metadata"].erase("resourceVersion");
  return r;
}

}  // namespace

std::string Executor::StampAfter(std::initializer_list<std::string_view> after) const {
  using std::chrono::milliseconds;
  SystemTime now = std::chrono::time_point_cast<milliseconds>(options_.clock->Now());
  for (std::string_view text : after) {
    if (text.empty()) continue;
    if (auto t = ParseRfc3339(text); t && now <= *t) {
      now = std::chrono::time_point_cast<milliseconds>(*t) + milliseconds(1);
    }
  }
  return FormatRfc3339(now, 3);
}

void Executor::RecordFire(Resource& trigger, std::initializer_list<std::string_view> after) {
  Json& status = trigger.mutable_status();
  TriggerFires fires(status, TriggerFires::Each(trigger));
  fires.Record(*ParseRfc3339(StampAfter(after)));
}

Status Executor::CreateTrigger(const sql::Statement& statement, std::vector<Change>& changes) {
  const auto& ct = statement.As<sql::CreateTriggerStatement>();
  const std::string& ns = options_.namespace_name;
  HOP_ASSIGN_OR_RETURN(const std::string name, TriggerName(ct.name));

  // What it listens to: a table (whose database it then depends on) or a view.
  HOP_ASSIGN_OR_RETURN(const catalog::Catalog* catalog, NamespaceCatalog());
  const catalog::Catalog& cat = *catalog;
  std::vector<std::string> path = Path(ct.target);
  HOP_ASSIGN_OR_RETURN(const catalog::Schema* schema, cat.SchemaFor(path));
  HOP_RETURN_IF_ERROR(schema->status);
  auto target = schema->tables.find(path.back());
  if (target == schema->tables.end()) {
    return Status::CatalogNotFound(fmt::format("View/table {} not found.", Dotted(path)));
  }
  path = schema->Path();
  path.push_back(target->first);
  const std::string database =
      target->second.kind == catalog::ObjectKind::kTable ? target->second.database : "";

  if (ct.schedule) {
    auto cron = CronSchedule::Parse(*ct.schedule);
    if (!cron.ok()) {
      return Status::InvalidArgument(
          fmt::format("Trigger {}: SCHEDULED: {}", ct.name.back().name, cron.status().message()));
    }
  }

  std::optional<bool> paused;
  std::string fire_policy;
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
    if (auto key = JobProperty(o.key)) job_properties[*key] = o.value;
  }

  // The job: the template rendered with the trigger's variables, the fire-time ones left in.
  const std::string template_ns = ct.job_namespace.value_or(ns);
  const std::string template_name = resource::Canonicalize(ct.job_template);
  HOP_ASSIGN_OR_RETURN(
      std::optional<Resource> job_template,
      store_.Find({resource::JobTemplateKind::Info().group_kind(), template_ns, template_name}));
  if (!job_template) {
    return Status::NotFound(
        fmt::format("JobTemplate {} not found in namespace {}.", template_name, template_ns));
  }
  const std::string yaml = resource::JobTemplateKind::kYaml.Get(*job_template).value_or("");
  const std::string where = fmt::format("JobTemplate {} for trigger {}", template_name, name);
  if (yaml.empty()) return Status::InvalidArgument(where + ": the template has no yaml");
  tmpl::Environment env;
  for (const sql::Option& o : ct.options.items) env.Set(o.key, o.value);
  env.Set("name", name).Set("trigger", name).Set("job", template_name);
  if (ct.schedule) env.Set("schedule", *ct.schedule);
  env.Set("path", Dotted(path)).Set("table", path.back()).Set("schema", schema->name);
  if (!schema->catalog.empty()) env.Set("catalog", schema->catalog);
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
    return Status::InvalidArgument(fmt::format(
        "{}: variable '{}' is missing at line {}, column {} (when the trigger fires, its job "
        "also gets timestamp, watermark and the job.properties.* options)",
        where, d.key, d.line, d.column));
  }
  // What firing would create: the rest rendered with sample fire-time values must be objects.
  const std::string now = StampAfter({});
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

  HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing, store_.Find(TriggerRef(ns, name)));
  if (existing && !(ct.or_replace || options_.apply_mode)) {
    if (ct.if_not_exists) return Status::OK();
    return Status::AlreadyExists(fmt::format(
        "Trigger {} already exists. Use CREATE OR REPLACE to update.", ct.name.back().name));
  }
  // Replacing a trigger keeps its paused state unless the statement sets one.
  if (!paused && existing) paused = TableTriggerKind::kPaused.Get(*existing);
  if (paused) TableTriggerKind::kPaused.Set(trigger, *paused);
  HOP_RETURN_IF_ERROR(CheckObject(trigger));
  return Put(changes, trigger, true, /*must_create=*/!existing);
}

Status Executor::DropTrigger(const sql::Statement& statement, std::vector<Change>& changes) {
  const auto& drop = statement.As<sql::DropStatement>();
  HOP_ASSIGN_OR_RETURN(const std::string name, TriggerName(drop.name));
  const ObjectRef ref = TriggerRef(options_.namespace_name, name);
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing, store_.Find(ref));
  if (!existing) {
    if (drop.if_exists) return Status::OK();
    return TriggerNotFound(drop.name);
  }
  changes.push_back({Write::Delete(ref), ""});
  return Status::OK();
}

Result<const catalog::Table*> Executor::Element(const catalog::Catalog& cat,
                                                const sql::QualifiedName& name,
                                                sql::ObjectKind expected,
                                                std::string_view statement) {
  auto table = cat.Resolve(Path(name));
  if (!table.ok()) {
    if (table.status().code() != StatusCode::kCatalogNotFound) return table.status();
    return Status::NotFound(fmt::format("Element {} not found.", name.back().name));
  }
  HOP_RETURN_IF_ERROR(CheckKind(**table, expected, statement));
  return *table;
}

Status Executor::Pause(const sql::Statement& statement, std::vector<Change>& changes) {
  const auto& p = statement.As<sql::PauseStatement>();
  const bool pause = statement.kind == sql::StatementKind::kPause;
  const std::string& ns = options_.namespace_name;
  std::optional<Resource> existing;
  if (p.object == sql::ObjectKind::kTrigger) {
    HOP_ASSIGN_OR_RETURN(const std::string name, TriggerName(p.name));
    HOP_ASSIGN_OR_RETURN(existing, store_.Find(TriggerRef(ns, name)));
    if (!existing) return TriggerNotFound(p.name);
    TableTriggerKind::kPaused.Set(*existing, pause);
  } else {
    HOP_ASSIGN_OR_RETURN(const catalog::Catalog* catalog, NamespaceCatalog());
    const catalog::Catalog& cat = *catalog;
    HOP_ASSIGN_OR_RETURN(
        const catalog::Table* view,
        Element(cat, p.name, sql::ObjectKind::kMaterializedView, pause ? "PAUSE" : "RESUME"));
    HOP_ASSIGN_OR_RETURN(existing,
                         store_.Find({ViewKind::Info().group_kind(), ns, view->resource}));
    if (!existing)
      return Status::NotFound(fmt::format("Element {} not found.", p.name.back().name));
    ViewKind::kPaused.Set(*existing, pause);
  }
  const std::string version = existing->resource_version();
  changes.push_back({Write::Update(std::move(*existing)), version, pause ? "paused" : "resumed"});
  return Status::OK();
}

Status Executor::Fire(const sql::Statement& statement, std::vector<Change>& changes) {
  const auto& fire = statement.As<sql::FireStatement>();
  const std::string& ns = options_.namespace_name;

  if (fire.object == sql::ObjectKind::kTrigger) {
    HOP_ASSIGN_OR_RETURN(const std::string name, TriggerName(fire.name));
    HOP_ASSIGN_OR_RETURN(std::optional<Resource> trigger, store_.Find(TriggerRef(ns, name)));
    if (!trigger) return TriggerNotFound(fire.name);
    const std::string timestamp = TableTriggerKind::kTimestamp.Get(*trigger).value_or("");
    const std::string watermark = TableTriggerKind::kWatermark.Get(*trigger).value_or("");
    const bool each = TriggerFires::Each(*trigger);
    Json status = trigger->status() ? *trigger->status() : Json::object();
    TriggerFires fires(status, each);
    if (fire.retry) {
      // The failed window again, not a new fire: the status says so, the operator runs it.
      HOP_RETURN_IF_ERROR(fires.RequestRetry(fire.name.back().name));
    } else if (!each && (fires.Running() || fires.Waiting() || fires.Retry())) {
      // A trigger that runs every fire on its own queues this one; otherwise a fire while a
      // run goes, or while a fire waits for its run, is refused, as in Hoptimator (the View
      // reconciler and FIRE TABLE coalesce instead). A run that failed is over: a new fire
      // is taken, and its window, from the same watermark, covers the failed one.
      return Status::Conflict(fmt::format(
          "Trigger {} has an in-flight execution (timestamp={}, watermark={}). Wait for it "
          "to complete; PAUSE TRIGGER holds further fires.",
          fire.name.back().name, timestamp, watermark.empty() ? "null" : watermark));
    }
    for (const sql::Option& o : fire.options.items) HOP_RETURN_IF_ERROR(CheckTriggerOption(o.key));
    // The options are job properties from now on; the fire's window starts at the watermark.
    if (!fire.options.empty()) {
      resource::StringMap properties =
          TableTriggerKind::kJobProperties.Get(*trigger).value_or(resource::StringMap{});
      for (const sql::Option& o : fire.options.items) {
        properties[JobProperty(o.key).value_or(o.key)] = o.value;
      }
      TableTriggerKind::kJobProperties.Set(*trigger, properties);
      // Written only if nobody changed the trigger since it was read.
      changes.push_back({Write::Update(*trigger), trigger->resource_version(), "", true});
    }
    trigger->set_status(std::move(status));
    if (!fire.retry) RecordFire(*trigger, {timestamp, watermark});
    // With a spec update in the batch, that update's version check covers the status too.
    Resource stamped = fire.options.empty() ? std::move(*trigger) : Unversioned(*trigger);
    changes.push_back(
        {Write::UpdateStatus(std::move(stamped)), "", fire.retry ? "retry requested" : "fired"});
    return Status::OK();
  }

  if (!fire.options.empty() || fire.retry) {
    return Status::InvalidArgument(fmt::format("FIRE {} takes no {}",
                                               sql::ObjectKindText(fire.object),
                                               fire.retry ? "RETRY" : "WITH options"));
  }
  HOP_ASSIGN_OR_RETURN(const catalog::Catalog* catalog, NamespaceCatalog());
  const catalog::Catalog& cat = *catalog;
  HOP_ASSIGN_OR_RETURN(const catalog::Table* element, Element(cat, fire.name, fire.object, "FIRE"));
  if (fire.object == sql::ObjectKind::kTable) {
    // Every trigger on the table fires, paused ones included: they run when resumed.
    HOP_ASSIGN_OR_RETURN(store::ListResult triggers,
                         store_.List({TableTriggerKind::Info().group_kind(), ns, {}}));
    const std::vector<std::string>& path = element->path;
    for (Resource& trigger : triggers.items) {
      const bool on_table =
          TableTriggerKind::kTable.Get(trigger).value_or("") == path.back() &&
          TableTriggerKind::kSchema.Get(trigger).value_or("") == path[path.size() - 2] &&
          TableTriggerKind::kCatalog.Get(trigger).value_or("") == (path.size() == 3 ? path[0] : "");
      if (!on_table) continue;
      RecordFire(trigger, {TableTriggerKind::kTimestamp.Get(trigger).value_or(""),
                           TableTriggerKind::kWatermark.Get(trigger).value_or("")});
      changes.push_back({Write::UpdateStatus(std::move(trigger)), "", "fired"});
    }
    return Status::OK();
  }
  // A view is complete up to now: the triggers on it fire (the operator's View reconciler). The
  // new watermark is also queued in the view's status, so that a trigger that runs every fire
  // on its own gets this one even if the view advances again before the operator looks.
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> view,
                       store_.Find({ViewKind::Info().group_kind(), ns, element->resource}));
  if (!view) return Status::NotFound(fmt::format("Element {} not found.", fire.name.back().name));
  const std::string at = StampAfter({ViewKind::kWatermark.Get(*view).value_or("")});
  HOP_RETURN_IF_ERROR(
      ViewFires(view->mutable_status()).Advance(*ParseRfc3339(at), Dotted(element->path)));
  changes.push_back({Write::UpdateStatus(std::move(*view)), "", "fired"});
  return Status::OK();
}

Status Executor::Refresh(const sql::Statement& statement, std::vector<Change>& changes) {
  const auto& refresh = statement.As<sql::RefreshStatement>();
  const std::string& ns = options_.namespace_name;
  HOP_ASSIGN_OR_RETURN(const catalog::Catalog* catalog, NamespaceCatalog());
  const catalog::Catalog& cat = *catalog;
  HOP_ASSIGN_OR_RETURN(const catalog::Table* element,
                       Element(cat, refresh.name, sql::ObjectKind::kMaterializedView, "REFRESH"));
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> view,
                       store_.Find({ViewKind::Info().group_kind(), ns, element->resource}));
  if (!view) {
    return Status::NotFound(fmt::format("Element {} not found.", refresh.name.back().name));
  }
  // The request is kept for the refresh that comes with the local engine; nothing acts on it yet,
  // and the statement says so rather than let anyone believe the view was refreshed.
  ViewKind::kTimestamp.Set(*view, StampAfter({ViewKind::kTimestamp.Get(*view).value_or("")}));
  issues_.Child("view " + Dotted(element->path))
      .Warning(
          "Not refreshed: the request is recorded in status.timestamp, but nothing in this "
          "control plane refreshes materialized views yet");
  changes.push_back({Write::UpdateStatus(std::move(*view)), "", "refresh recorded"});
  return Status::OK();
}

}  // namespace hop::deploy
