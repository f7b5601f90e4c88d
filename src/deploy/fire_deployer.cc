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

// FIRE MATERIALIZED VIEW of a view hop refreshes (docs/ddl.md): refused, as its watermark is what
// its refreshes earn (docs/runtime.md, "Refreshes"), which a FIRE would overstate; one never
// refreshed holds none of its query's rows at all. The message says which, and what to do.
Status RefreshedByHop(const std::string& name, const Resource& view) {
  const Json* status = view.status();
  const Json none = Json::object();
  const Json& s = status != nullptr && status->is_object() ? *status : none;
  const Json refresh = s.contains("refresh") && s["refresh"].is_object() ? s["refresh"] : none;
  const bool refreshed = !s.value(resource::kRefreshedQueryStatus, std::string()).empty() ||
                         refresh.value("lastOutcome", std::string()) == "Succeeded";
  const std::string running = refresh.value("job", std::string());
  if (!refreshed) {
    return Status::InvalidArgument(fmt::format(
        "Cannot FIRE MATERIALIZED VIEW {0}: hop refreshes it, and it has never been refreshed{1}, "
        "so its table holds none of its query's rows and no watermark can be claimed for them; "
        "REFRESH MATERIALIZED VIEW {0} (or hop refresh view/{2}) refreshes it, and its watermark "
        "moves when the refresh succeeds",
        name, running.empty() ? "" : fmt::format(" (its refresh {} is running)", running),
        view.name()));
  }
  const std::string watermark = s.value("watermark", std::string());
  return Status::InvalidArgument(fmt::format(
      "Cannot FIRE MATERIALIZED VIEW {0}: hop refreshes it, and its watermark{1} is the one its "
      "refreshes earn from what they read, which a FIRE would overstate; REFRESH "
      "MATERIALIZED VIEW {0} refreshes it again (after its inputs advance: FIRE TABLE, hop "
      "watermark set), and FIRE TRIGGER fires a trigger on it",
      name, watermark.empty() ? "" : " (" + watermark + ")"));
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
              "Recorded in spec.paused, but hop refreshes only views whose table is in a local or "
              "PostgreSQL database: this one's pipeline runs as its job says");
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
  // FIRE ... WATERMARK 'time': a producer says up to when the object is complete.
  std::optional<SystemTime> given;
  if (fire.watermark) {
    given = ParseRfc3339(*fire.watermark);
    if (!given) {
      return Status::InvalidArgument(fmt::format(
          "FIRE {}: WATERMARK '{}' is not an RFC 3339 time (2026-03-01T02:00:00Z)",
          Join(element->path, "."), *fire.watermark));
    }
  }
  if (fire.object == sql::ObjectKind::kTable) {
    // A table declared with CREATE TABLE keeps its watermark in its Table resource: it moves to
    // the fire's time, so that the views derived from it see it, and the Table reconciler gives
    // it to the table's triggers.
    std::optional<Resource> table;
    if (!element->resource.empty()) {
      HOP_ASSIGN_OR_RETURN(table, batch.store().Find({resource::TableKind::Info().group_kind(),
                                                      ns, element->resource}));
    }
    // A table CREATE TABLE ... AS has not filled yet holds none of its query's rows, and a
    // watermark set now would stay when its fill succeeds: refused, WATERMARK or not (docs/ddl.md).
    std::optional<std::string> unfilled;
    if (table) {
      HOP_ASSIGN_OR_RETURN(unfilled, UnfilledTable(batch.store(), *table));
    }
    if (unfilled) {
      return Status::InvalidArgument(fmt::format(
          "Cannot FIRE TABLE {0}: CREATE TABLE ... AS fills it, and {1}, so it holds none of its "
          "query's rows yet and no watermark can be claimed for them; its watermark becomes the "
          "one its fill earns when the fill succeeds (hop refresh table/{2} runs it), and FIRE "
          "TRIGGER fires a trigger on it",
          Join(element->path, "."), *unfilled, table->name()));
    }
    if (given && !table) {
      return Status::InvalidArgument(fmt::format(
          "Table {} has no watermark: only tables made with CREATE TABLE keep one (FIRE TABLE {} "
          "without WATERMARK fires its triggers)",
          Join(element->path, "."), Join(element->path, ".")));
    }
    // Every trigger on the table fires, paused ones included: they run when resumed. All at one
    // time, later than each one's latest fire and than the table's watermark, unless given.
    HOP_ASSIGN_OR_RETURN(store::ListResult listed,
                         batch.store().List({TableTriggerKind::Info().group_kind(), ns, {}}));
    std::vector<Resource> triggers;
    SystemTime at = given.value_or(SystemTime{});
    if (!given && table) {
      const std::string watermark = resource::TableKind::kWatermark.Get(*table).value_or("");
      at = *ParseRfc3339(batch.StampAfter({watermark}));
    }
    for (Resource& trigger : listed.items) {
      if (!TriggerOnTable(trigger, element->path)) continue;
      if (!given) {
        at = std::max(at, *ParseRfc3339(batch.StampAfter(
                              {TableTriggerKind::kTimestamp.Get(trigger).value_or(""),
                               TableTriggerKind::kWatermark.Get(trigger).value_or("")})));
      }
      triggers.push_back(std::move(trigger));
    }
    if (table) {
      const std::string name = Join(element->path, ".");
      HOP_ASSIGN_OR_RETURN(bool moved,
                           ViewFires(table->mutable_status(), "Table").Set(at, false, name));
      if (!moved) return Status::OK();  // at that watermark already: its triggers have it
      batch.Add({Write::UpdateStatus(std::move(*table)), "", "watermark advanced"});
    }
    for (Resource& trigger : triggers) {
      TriggerFires(trigger.mutable_status(), TriggerFires::Each(trigger)).Record(at);
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
  const std::map<std::string, std::string> labels = view->labels();
  if (auto policy = labels.find(std::string(kWatermarkPolicyLabel)); policy != labels.end()) {
    return Status::InvalidArgument(fmt::format(
        "View {} derives its watermark from its inputs' ('watermark' '{}'): advance theirs "
        "(FIRE TABLE, hop watermark set) instead",
        bound.sql_name, policy->second));
  }
  if (fire.object == sql::ObjectKind::kMaterializedView && HopRefreshes(*element, batch)) {
    return RefreshedByHop(Join(element->path, "."), *view);
  }
  const SystemTime at =
      given ? *given
            : *ParseRfc3339(batch.StampAfter({ViewKind::kWatermark.Get(*view).value_or("")}));
  HOP_ASSIGN_OR_RETURN(bool moved,
                       ViewFires(view->mutable_status()).Set(at, false, Join(element->path, ".")));
  if (!moved) return Status::OK();
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
        "{} is not refreshed by hop: hop refreshes materialized views whose table is in a local or "
        "PostgreSQL database, and this one's is in {}; its pipeline's job keeps it",
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
