#include "operator/view_reconciler.h"

#include <nlohmann/json.hpp>

#include "common/log.h"
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
  // The watermarks to give the triggers: those queued by whoever advanced the view (one each,
  // however many came since the last reconcile), and the latest.
  const Json before = StatusOf(*view);
  Json view_status = before;
  deploy::ViewFires view_fires(view_status);
  // A view WITH ('watermark' ...) derives its watermark from its inputs' (watermarks.h): each
  // step of theirs that moves it past its own is an advance, queued as FIRE VIEW queues one.
  HOP_ASSIGN_OR_RETURN(std::vector<SystemTime> derived,
                       DeriveAdvances(store_, *view, view_status));
  for (SystemTime at : derived) {
    HOP_RETURN_IF_ERROR(view_fires.Advance(at, view->name()));
    log::Info("[{}] View {}/{} derives watermark {} from its inputs ({})", context.id,
              view->namespace_name(), view->name(), deploy::TriggerFires::Stamp(at),
              WatermarkPolicy(*view));
  }
  const std::vector<SystemTime> fires = view_fires.Undelivered();
  if (fires.empty() && view_status == before) return ReconcileResult::Done();
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
  Batch batch(store_);
  // The queued advances also go to the views derived from this one, in the same commit.
  HOP_RETURN_IF_ERROR(QueueOnDerivedViews(store_, batch, store::RefOf(*view), view_fires.Queued()));
  view_fires.Delivered();
  batch.UpdateStatusIfChanged(*view, std::move(view_status));
  const SystemTime now = context.clock->Now();
  for (Resource& trigger : triggers.items) {
    const std::string name = trigger.name();
    HOP_ASSIGN_OR_RETURN(bool fired, FireAndStart(batch, std::move(trigger), fires, now));
    if (fired) {
      log::Info("[{}] View {}/{} advanced to {}: firing trigger {}", context.id,
                view->namespace_name(), view->name(), watermark, name);
    }
  }
  HOP_RETURN_IF_ERROR(batch.Commit());
  return ReconcileResult::Done();
}

}  // namespace hop::op
