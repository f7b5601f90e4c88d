// FIRE, PAUSE, RESUME and REFRESH (compatibility.md §5.5, departure 9): statements that change
// the state of an object that exists. FIRE records a fire where the operator takes it from (a
// trigger's status, every trigger of a table, a view's watermark); PAUSE and RESUME set
// spec.paused; REFRESH records the request.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "deploy/deployers.h"
#include "deploy/objects.h"
#include "deploy/trigger_fires.h"
#include "resource/kinds.h"
#include "sql/ast/fire_statement.h"

namespace hop::deploy {

using resource::Resource;
using resource::TableTriggerKind;
using resource::ViewKind;
using store::ObjectRef;
using store::Write;

namespace {

ObjectRef TriggerRef(const std::string& ns, const std::string& name) {
  return {TableTriggerKind::Info().group_kind(), ns, name};
}

Status TriggerNotFound(const binder::BoundObjectStatement& s) {
  return Status::NotFound(fmt::format("Trigger {} not found.", s.sql_name));
}

// The stored object with its new state; it must not carry the version it was read at unless
// the write is to fail when someone else changed it meanwhile.
Resource Unversioned(Resource r) {
  r.mutable_json()["metadata"].erase("resourceVersion");
  return r;
}

// Records a fire now (later than each of `after`) in a trigger's status.
void RecordFire(Resource& trigger, std::initializer_list<std::string_view> after,
                const Batch& batch) {
  Json& status = trigger.mutable_status();
  TriggerFires fires(status, TriggerFires::Each(trigger));
  fires.Record(*ParseRfc3339(batch.StampAfter(after)));
}

// Whether hop refreshes the materialized view (its table is in a local database).
bool HopRefreshes(const catalog::Table& view, const Batch& batch) {
  auto schema = batch.catalog().SchemaFor(view.path);
  return schema.ok() && catalog::HopWritesTables(**schema);
}

// PAUSE / RESUME TRIGGER and MATERIALIZED VIEW: spec.paused.
Status Pause(const binder::BoundObjectStatement& p, Batch& batch) {
  const bool pause = p.kind() == sql::StatementKind::kPause;
  const std::string& ns = batch.namespace_name();
  std::optional<Resource> existing;
  if (p.object == sql::ObjectKind::kTrigger) {
    HOP_ASSIGN_OR_RETURN(existing, batch.store().Find(TriggerRef(ns, p.name)));
    if (!existing) return TriggerNotFound(p);
    TableTriggerKind::kPaused.Set(*existing, pause);
  } else {
    HOP_ASSIGN_OR_RETURN(
        existing, batch.store().Find({ViewKind::Info().group_kind(), ns, p.target->resource}));
    if (!existing) return Status::NotFound(fmt::format("Element {} not found.", p.sql_name));
    ViewKind::kPaused.Set(*existing, pause);
    if (!HopRefreshes(*p.target, batch)) {
      batch.issues()
          .Child("view " + Join(p.target->path, "."))
          .Warning(
              "Recorded in spec.paused, but hop refreshes only views whose table is in a local "
              "database: this one's pipeline runs as its job says");
    }
  }
  const std::string version = existing->resource_version();
  batch.Add({Write::Update(std::move(*existing)), version, pause ? "paused" : "resumed"});
  return Status::OK();
}

// FIRE TRIGGER, TABLE, VIEW and MATERIALIZED VIEW: a fire recorded where the operator finds it.
Status Fire(const binder::BoundObjectStatement& bound, Batch& batch) {
  const auto& fire = bound.statement.As<sql::FireStatement>();
  const std::string& ns = batch.namespace_name();

  if (fire.object == sql::ObjectKind::kTrigger) {
    HOP_ASSIGN_OR_RETURN(std::optional<Resource> trigger,
                         batch.store().Find(TriggerRef(ns, bound.name)));
    if (!trigger) return TriggerNotFound(bound);
    const std::string timestamp = TableTriggerKind::kTimestamp.Get(*trigger).value_or("");
    const std::string watermark = TableTriggerKind::kWatermark.Get(*trigger).value_or("");
    const bool each = TriggerFires::Each(*trigger);
    Json status = trigger->status() ? *trigger->status() : Json::object();
    TriggerFires fires(status, each);
    if (fire.retry) {
      // The failed window again, not a new fire: the status says so, the operator runs it.
      HOP_RETURN_IF_ERROR(fires.RequestRetry(bound.sql_name));
    } else if (!each && (fires.Running() || fires.Waiting() || fires.Retry())) {
      // A trigger that runs every fire on its own queues this one; otherwise a fire while a
      // run goes, or while a fire waits for its run, is refused, as in Hoptimator (the View
      // reconciler and FIRE TABLE coalesce instead). A run that failed is over: a new fire
      // is taken, and its window, from the same watermark, covers the failed one.
      return Status::Conflict(fmt::format(
          "Trigger {} has an in-flight execution (timestamp={}, watermark={}). Wait for it "
          "to complete; PAUSE TRIGGER holds further fires.",
          bound.sql_name, timestamp, watermark.empty() ? "null" : watermark));
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
      batch.Add({Write::Update(*trigger), trigger->resource_version(), "", true});
    }
    trigger->set_status(std::move(status));
    if (!fire.retry) RecordFire(*trigger, {timestamp, watermark}, batch);
    // With a spec update in the batch, that update's version check covers the status too.
    Resource stamped = fire.options.empty() ? std::move(*trigger) : Unversioned(*trigger);
    batch.Add(
        {Write::UpdateStatus(std::move(stamped)), "", fire.retry ? "retry requested" : "fired"});
    return Status::OK();
  }

  const catalog::Table* element = bound.target;
  if (fire.object == sql::ObjectKind::kTable) {
    // Every trigger on the table fires, paused ones included: they run when resumed.
    HOP_ASSIGN_OR_RETURN(store::ListResult triggers,
                         batch.store().List({TableTriggerKind::Info().group_kind(), ns, {}}));
    const std::vector<std::string>& path = element->path;
    for (Resource& trigger : triggers.items) {
      const bool on_table =
          TableTriggerKind::kTable.Get(trigger).value_or("") == path.back() &&
          TableTriggerKind::kSchema.Get(trigger).value_or("") == path[path.size() - 2] &&
          TableTriggerKind::kCatalog.Get(trigger).value_or("") == (path.size() == 3 ? path[0] : "");
      if (!on_table) continue;
      RecordFire(trigger,
                 {TableTriggerKind::kTimestamp.Get(trigger).value_or(""),
                  TableTriggerKind::kWatermark.Get(trigger).value_or("")},
                 batch);
      batch.Add({Write::UpdateStatus(std::move(trigger)), "", "fired"});
    }
    return Status::OK();
  }
  // A view is complete up to now: the triggers on it fire (the operator's View reconciler). The
  // new watermark is also queued in the view's status, so that a trigger that runs every fire
  // on its own gets this one even if the view advances again before the operator looks.
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> view,
                       batch.store().Find({ViewKind::Info().group_kind(), ns, element->resource}));
  if (!view) return Status::NotFound(fmt::format("Element {} not found.", bound.sql_name));
  const std::string at = batch.StampAfter({ViewKind::kWatermark.Get(*view).value_or("")});
  HOP_RETURN_IF_ERROR(
      ViewFires(view->mutable_status()).Advance(*ParseRfc3339(at), Join(element->path, ".")));
  batch.Add({Write::UpdateStatus(std::move(*view)), "", "fired"});
  return Status::OK();
}

// REFRESH MATERIALIZED VIEW: the request, recorded in status.timestamp, where the View
// reconciler takes it and starts the refresh's Job (operator/view_refresh.h). A view hop does not
// refresh is refused: its pipeline's job keeps it, and nothing here could act on the request.
Status Refresh(const binder::BoundObjectStatement& bound, Batch& batch) {
  const std::string& ns = batch.namespace_name();
  const catalog::Table* element = bound.target;
  if (!HopRefreshes(*element, batch)) {
    auto schema = batch.catalog().SchemaFor(element->path);
    return Status::InvalidArgument(fmt::format(
        "{} is not refreshed by hop: hop refreshes materialized views whose table is in a local "
        "database, and this one's is in {}; its pipeline's job keeps it",
        Join(element->path, "."),
        schema.ok() ? fmt::format("database {} ({})", (*schema)->database, (*schema)->url)
                    : std::string("no database")));
  }
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> view,
                       batch.store().Find({ViewKind::Info().group_kind(), ns, element->resource}));
  if (!view) return Status::NotFound(fmt::format("Element {} not found.", bound.sql_name));
  ViewKind::kTimestamp.Set(*view, batch.StampAfter({ViewKind::kTimestamp.Get(*view).value_or("")}));
  batch.Add({Write::UpdateStatus(std::move(*view)), "", "refresh requested"});
  return Status::OK();
}

}  // namespace

Status FireDeployer::Specify(const binder::BoundStatement& statement, Batch& batch) const {
  const auto& bound = statement.As<binder::BoundObjectStatement>();
  switch (statement.kind()) {
    case sql::StatementKind::kFire: return Fire(bound, batch);
    case sql::StatementKind::kPause:
    case sql::StatementKind::kResume: return Pause(bound, batch);
    default: return Refresh(bound, batch);
  }
}

}  // namespace hop::deploy
