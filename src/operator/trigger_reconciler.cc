#include "operator/trigger_reconciler.h"

#include "common/log.h"
#include "operator/reconciler_util.h"
#include "operator/trigger_runs.h"

namespace hop::op {

using resource::Resource;

hop::Result<ReconcileResult> TriggerReconciler::Reconcile(const Request& request,
                                                          const ReconcileContext& context) {
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> trigger, GetOrNotFound(store_, request));
  if (!trigger) return ReconcileResult::Done();
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> job, CurrentRunJobOf(store_, *trigger));
  auto plan = PlanTrigger(*trigger, job, context.clock->Now());
  if (!plan.ok()) return ReconcileResult::Terminal(plan.status());
  if (!plan->event.empty()) {
    log::Info("[{}] TableTrigger {}/{}: {}", context.id, trigger->namespace_name(), trigger->name(),
              plan->event);
  }
  // The batch fails if the trigger changed since it was read (a new fire), and the reconcile is
  // then retried on the new state.
  Batch batch(store_);
  HOP_RETURN_IF_ERROR(WriteRunPlan(batch, *plan, trigger->status(), &store_));
  HOP_RETURN_IF_ERROR(batch.Commit());
  return ReconcileResult{plan->requeue_after, std::nullopt};
}

std::vector<Request> TriggerReconciler::JobEvent(const store::Event& event) {
  if (auto trigger = TriggerOfJob(event.object)) return {Request{*trigger}};
  return {};
}

}  // namespace hop::op
