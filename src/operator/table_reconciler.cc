#include "operator/table_reconciler.h"

#include <nlohmann/json.hpp>

#include "common/log.h"
#include "deploy/trigger_fires.h"
#include "operator/reconciler_util.h"
#include "operator/trigger_runs.h"
#include "operator/watermarks.h"
#include "resource/kinds.h"

namespace hop::op {

using resource::Resource;
using resource::TableKind;

hop::Result<ReconcileResult> TableReconciler::Reconcile(const Request& request,
                                                        const ReconcileContext& context) {
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> table, GetOrNotFound(store_, request));
  if (!table) return ReconcileResult::Done();
  if (table->annotations().count(std::string(resource::kFillAnnotation))) {
    std::optional<Resource> job;
    if (auto ref = RunningJob(*table, "fill")) {
      HOP_ASSIGN_OR_RETURN(job, store_.Find(*ref));
    }
    HOP_ASSIGN_OR_RETURN(RefreshPlan plan, PlanFill(*table, job, context.clock->Now(), fill_jobs_));
    HOP_RETURN_IF_ERROR(CommitRefreshPlan(store_, *table, std::move(plan), context, fill_jobs_));
    // What the fill wrote is the table's state now.
    HOP_ASSIGN_OR_RETURN(table, GetOrNotFound(store_, request));
    if (!table) return ReconcileResult::Done();
  }
  Json table_status = StatusOf(*table);
  deploy::ViewFires table_fires(table_status, "Table");
  const std::vector<SystemTime> fires = table_fires.Undelivered();
  if (fires.empty()) return ReconcileResult::Done();
  std::vector<std::string> path;
  if (auto catalog = TableKind::kCatalog.Get(*table); catalog && !catalog->empty()) {
    path.push_back(*catalog);
  }
  path.push_back(TableKind::kSchema.Get(*table).value_or(""));
  path.push_back(TableKind::kTable.Get(*table).value_or(""));
  HOP_ASSIGN_OR_RETURN(
      store::ListResult triggers,
      store_.List({resource::TableTriggerKind::Info().group_kind(), table->namespace_name(), {}}));
  // As the View reconciler: every trigger's fires and the runs they start, and the emptied queue,
  // in one batch that fails (and the reconcile runs again) if any of them changed since read.
  // The receivers first, the emptied queue last (view_reconciler.cc says why).
  Batch batch(store_);
  const SystemTime now = context.clock->Now();
  const std::string watermark = deploy::TriggerFires::Stamp(fires.back());
  for (Resource& trigger : triggers.items) {
    if (!deploy::TriggerOnTable(trigger, path)) continue;
    const std::string name = trigger.name();
    HOP_ASSIGN_OR_RETURN(bool fired, FireAndStart(batch, std::move(trigger), fires, now));
    if (fired) {
      log::Info("[{}] Table {}/{} advanced to {}: firing trigger {}", context.id,
                table->namespace_name(), table->name(), watermark, name);
    }
  }
  // The queued advances also go to the views derived from the table, in the same commit.
  HOP_RETURN_IF_ERROR(
      QueueOnDerivedViews(store_, batch, store::RefOf(*table), table_fires.Queued()));
  if (table_fires.HasPending()) {
    table_fires.Delivered();
    batch.UpdateStatusIfChanged(*table, std::move(table_status));
  }
  HOP_RETURN_IF_ERROR(batch.Commit());
  return ReconcileResult::Done();
}

EventMapper TableReconciler::TriggerEvent(store::Store& store) {
  return [&store](const store::Event& event) {
    std::vector<Request> out;
    if (event.type != store::EventType::kAdded) return out;
    // The tables with a status (kMayBeBusyKey): those with a watermark among them.
    auto tables = store.List({TableKind::Info().group_kind(),
                              event.object.namespace_name(),
                              {},
                              std::string(resource::kMayBeBusyKey)});
    if (!tables.ok()) {
      log::Warn("trigger {}: cannot list the tables of {}: {}", event.object.name(),
                event.object.namespace_name(), tables.status().ToString());
      return out;
    }
    for (const Resource& table : tables->items) {
      std::vector<std::string> path;
      if (auto catalog = TableKind::kCatalog.Get(table); catalog && !catalog->empty()) {
        path.push_back(*catalog);
      }
      path.push_back(TableKind::kSchema.Get(table).value_or(""));
      path.push_back(TableKind::kTable.Get(table).value_or(""));
      if (deploy::TriggerOnTable(event.object, path)) out.push_back(Request{store::RefOf(table)});
    }
    return out;
  };
}

std::vector<Request> TableReconciler::JobEvent(const store::Event& event) {
  const auto labels = event.object.labels();
  if (!labels.count(std::string(kRefreshLabel))) return {};
  for (const resource::OwnerReference& owner : event.object.owner_references()) {
    if (owner.kind == "Table") {
      return {Request{{TableKind::Info().group_kind(), event.object.namespace_name(), owner.name}}};
    }
  }
  return {};
}

}  // namespace hop::op
