#include "operator/view_reconciler.h"

#include <nlohmann/json.hpp>

#include "binder/binder.h"
#include "common/log.h"
#include "deploy/objects.h"
#include "deploy/trigger_fires.h"
#include "operator/reconciler_util.h"
#include "operator/trigger_runs.h"
#include "operator/watermarks.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "resource/selector.h"

namespace hop::op {

using resource::Resource;

hop::Result<ReconcileResult> ViewReconciler::Reconcile(const Request& request,
                                                       const ReconcileContext& context) {
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> view, GetOrNotFound(store_, request));
  if (!view) return ReconcileResult::Done();
  ReconcileResult result = ReconcileResult::Done();
  if (resource::ViewKind::kMaterialized.Get(*view).value_or(false)) {
    HOP_RETURN_IF_ERROR(LabelRefreshMode(*view));
    HOP_ASSIGN_OR_RETURN(result, Refresh(*view, context));
    // What the refresh wrote is the view's state now.
    HOP_ASSIGN_OR_RETURN(view, GetOrNotFound(store_, request));
    if (!view) return ReconcileResult::Done();
  }
  // The watermarks to give the triggers: those queued by whoever advanced the view (one each,
  // however many came since the last reconcile), and the latest.
  const Json before = StatusOf(*view);
  Json view_status = before;
  deploy::ViewFires view_fires(view_status);
  // A view WITH ('watermark' ...) derives its watermark from its inputs' (watermarks.h): each
  // step of theirs that moves it past its own is an advance, queued as FIRE VIEW queues one.
  HOP_ASSIGN_OR_RETURN(std::vector<SystemTime> derived, DeriveAdvances(store_, *view, view_status));
  for (SystemTime at : derived) {
    HOP_RETURN_IF_ERROR(view_fires.Advance(at, view->name()));
    log::Info("[{}] View {}/{} derives watermark {} from its inputs ({})", context.id,
              view->namespace_name(), view->name(), deploy::TriggerFires::Stamp(at),
              WatermarkPolicy(*view));
  }
  const std::vector<SystemTime> fires = view_fires.Undelivered();
  if (fires.empty() && view_status == before) return result;
  store::ListResult triggers;
  if (!fires.empty()) {
    HOP_ASSIGN_OR_RETURN(
        resource::LabelSelector selector,
        resource::LabelSelector::Parse("view=" + resource::DependencyLabelValue(view->name())));
    HOP_ASSIGN_OR_RETURN(triggers, store_.List({resource::TableTriggerKind::Info().group_kind(),
                                                view->namespace_name(), selector}));
  }
  const std::string watermark = fires.empty() ? "" : deploy::TriggerFires::Stamp(fires.back());
  // Every trigger's fires in one batch, and, for a trigger with no run going, the run its first
  // fire starts (FireAndStart decides it as the TableTrigger reconciler would), so that a view
  // with many triggers starts them all in one commit. The view's queue empties in the same
  // batch, which fails if the view or one of the triggers changed since they were read (the
  // reconcile then runs again): every queued watermark is recorded on every trigger exactly
  // once, or stays queued.
  // The receivers come first and the emptied queue last: where a batch is not atomic
  // (KubernetesStore), a writer that stops part-way can only leave the queue to be delivered
  // again, which a trigger records once (a fire is taken by its time), never an emptied queue
  // whose watermarks no trigger got.
  Batch batch(store_);
  const SystemTime now = context.clock->Now();
  for (Resource& trigger : triggers.items) {
    const std::string name = trigger.name();
    HOP_ASSIGN_OR_RETURN(bool fired, FireAndStart(batch, std::move(trigger), fires, now));
    if (fired) {
      log::Info("[{}] View {}/{} advanced to {}: firing trigger {}", context.id,
                view->namespace_name(), view->name(), watermark, name);
    }
  }
  // The queued advances also go to the views derived from this one, in the same commit.
  HOP_RETURN_IF_ERROR(QueueOnDerivedViews(store_, batch, store::RefOf(*view), view_fires.Queued()));
  view_fires.Delivered();
  batch.UpdateStatusIfChanged(*view, std::move(view_status));
  HOP_RETURN_IF_ERROR(batch.Commit());
  return result;
}

hop::Result<ReconcileResult> ViewReconciler::Refresh(const Resource& view,
                                                     const ReconcileContext& context) {
  InputWatermarks inputs;
  HOP_ASSIGN_OR_RETURN(bool refreshed_here, Inputs(view, inputs));
  if (!refreshed_here) return ReconcileResult::Done();
  std::optional<Resource> job;
  if (auto ref = RunningRefreshJob(view)) {
    HOP_ASSIGN_OR_RETURN(job, store_.Find(*ref));
  }
  HOP_ASSIGN_OR_RETURN(RefreshPlan plan,
                       PlanRefresh(view, job, inputs, context.clock->Now(), refresh_jobs_));
  const std::optional<Duration> requeue_after = plan.requeue_after;
  HOP_RETURN_IF_ERROR(CommitRefreshPlan(store_, view, std::move(plan), context, refresh_jobs_));
  return requeue_after ? ReconcileResult::RequeueAfter(*requeue_after) : ReconcileResult::Done();
}

Status ViewReconciler::LabelRefreshMode(Resource& view) {
  const bool wanted = resource::RefreshesOnSourceChange(view);
  const auto labels = view.labels();
  auto label = labels.find(std::string(resource::kRefreshOnChangeLabel));
  if (wanted == (label != labels.end() && label->second == resource::kRefreshOnChange)) {
    return Status::OK();
  }
  // A view made by `hop apply`, or by a hop that did not label it: labelled here, so that its
  // inputs' changes find it (InputEvent). The update carries the resourceVersion it was read at.
  Resource labelled = view;
  if (wanted) {
    labelled.set_label(resource::kRefreshOnChangeLabel, resource::kRefreshOnChange);
  } else {
    labelled.remove_label(resource::kRefreshOnChangeLabel);
  }
  Batch batch(store_);
  batch.Add(store::Write::Update(std::move(labelled)));
  HOP_RETURN_IF_ERROR(batch.Commit());
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> now, store_.Find(store::RefOf(view)));
  if (!now) return Status::NotFound(fmt::format("view {} was deleted", view.name()));
  view = std::move(*now);
  return Status::OK();
}

hop::Result<bool> ViewReconciler::Inputs(const Resource& view, InputWatermarks& out) {
  std::lock_guard<std::mutex> lock(mu_);
  auto cache = catalogs_.find(view.namespace_name());
  if (cache == catalogs_.end()) {
    cache =
        catalogs_
            .emplace(view.namespace_name(), catalog::CatalogCache(store_, view.namespace_name()))
            .first;
  }
  HOP_ASSIGN_OR_RETURN(const catalog::Catalog* cat, cache->second.Get());
  const std::vector<std::string> path = resource::ViewKind::Path(view);
  // The schema first: a view of a schema hop does not write (a pipeline's) needs no lookup of
  // its own name, which would read the store.
  auto schema = cat->SchemaFor(path);
  if (!schema.ok() || !catalog::HopWritesTables(**schema)) return false;
  auto table = cat->Resolve(path);
  if (!table.ok()) return false;
  if (!resource::RefreshesOnSourceChange(view)) return true;
  // The tables and materialized views the query reads (views are inlined by the binder).
  binder::Binder binder(*cat);
  auto query = binder.BindView(**table);
  if (!query.ok()) return true;  // the refresh fails with the reason, where it is seen
  HOP_ASSIGN_OR_RETURN(std::vector<RefreshInput> inputs,
                       RefreshInputs(store_, *cat, **query, view.namespace_name()));
  for (RefreshInput& input : inputs) {
    if (!input.watermark.empty()) out[input.name] = std::move(input.watermark);
  }
  return true;
}

std::vector<Request> ViewReconciler::JobEvent(const store::Event& event) {
  const auto labels = event.object.labels();
  auto it = labels.find(std::string(kRefreshLabel));
  if (it == labels.end()) return {};
  for (const resource::OwnerReference& owner : event.object.owner_references()) {
    if (owner.kind == "View") {
      return {Request{
          {resource::ViewKind::Info().group_kind(), event.object.namespace_name(), owner.name}}};
    }
  }
  return {};
}

std::vector<Request> ViewReconciler::TriggerEvent(const store::Event& event) {
  if (event.type != store::EventType::kAdded) return {};
  const auto labels = event.object.labels();
  auto view = labels.find(std::string(deploy::kViewLabel));
  if (view == labels.end() || view->second.empty()) return {};
  // A trigger on a table names no View: its request finds none, and is done.
  return {Request{
      {resource::ViewKind::Info().group_kind(), event.object.namespace_name(), view->second}}};
}

EventMapper ViewReconciler::InputEvent(store::Store& store) {
  return [&store](const store::Event& event) {
    std::vector<Request> out;
    const std::string& ns = event.object.namespace_name();
    auto selector = resource::LabelSelector::Parse(
        fmt::format("{}={}", resource::kRefreshOnChangeLabel, resource::kRefreshOnChange));
    if (!selector.ok()) return out;
    auto views = store.List({resource::ViewKind::Info().group_kind(), ns, *selector});
    if (!views.ok()) {
      log::Warn("refresh on source change: cannot list the views of {}: {}", ns,
                views.status().ToString());
      return out;
    }
    const bool view = event.object.kind() == "View";
    for (const Resource& v : views->items) {
      if (view && v.name() == event.object.name()) continue;
      out.push_back(Request{store::RefOf(v)});
    }
    return out;
  };
}

}  // namespace hop::op
