#include "operator/trigger_reconciler.h"

#include <nlohmann/json.hpp>

#include "common/log.h"
#include "operator/reconciler_util.h"
#include "operator/trigger_runs.h"

namespace hop::op {

using resource::Resource;

hop::Result<ReconcileResult> TriggerReconciler::Reconcile(const Request& request,
                                                          const ReconcileContext& context) {
  const std::string key = request.ref.namespace_name + "/" + request.ref.name;
  bool look = false;
  if (!store_.AtomicBatches()) {
    std::lock_guard<std::mutex> lock(mu_);
    look = looked_.insert(key).second;
  }
  auto result = Run(request, context, look);
  if (!result.ok() || result->terminal) {
    std::lock_guard<std::mutex> lock(mu_);
    looked_.erase(key);
  }
  return result;
}

hop::Result<ReconcileResult> TriggerReconciler::Run(const Request& request,
                                                    const ReconcileContext& context,
                                                    bool look_for_unrecorded) {
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> trigger, GetOrNotFound(store_, request));
  if (!trigger) {
    std::lock_guard<std::mutex> lock(mu_);
    looked_.erase(request.ref.namespace_name + "/" + request.ref.name);
    return ReconcileResult::Done();
  }
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> job, CurrentRunJobOf(store_, *trigger));
  const Json before = trigger->status() ? *trigger->status() : Json();
  const Json* read_status = trigger->status() ? &before : nullptr;
  if (look_for_unrecorded && !CurrentRunJob(*trigger)) {
    // A run whose Job was made but not recorded (trigger_runs.h) is this trigger's current run.
    HOP_ASSIGN_OR_RETURN(std::optional<Resource> unrecorded, UnrecordedRunJob(store_, *trigger));
    if (unrecorded) {
      log::Info("[{}] TableTrigger {}/{}: adopting run {}, whose Job was made but not recorded",
                context.id, trigger->namespace_name(), trigger->name(), unrecorded->name());
      trigger = AdoptRun(std::move(*trigger), *unrecorded, context.clock->Now());
      job = std::move(unrecorded);
    }
  }
  auto plan = PlanTrigger(*trigger, job, context.clock->Now());
  if (!plan.ok()) return ReconcileResult::Terminal(plan.status());
  if (!plan->event.empty()) {
    log::Info("[{}] TableTrigger {}/{}: {}", context.id, trigger->namespace_name(), trigger->name(),
              plan->event);
  }
  // The batch fails if the trigger changed since it was read (a new fire), and the reconcile is
  // then retried on the new state.
  Batch batch(store_);
  HOP_RETURN_IF_ERROR(WriteRunPlan(batch, *plan, read_status, &store_));
  HOP_RETURN_IF_ERROR(batch.Commit());
  return ReconcileResult{plan->requeue_after, std::nullopt};
}

std::vector<Request> TriggerReconciler::JobEvent(const store::Event& event) {
  if (auto trigger = TriggerOfJob(event.object)) return {Request{*trigger}};
  return {};
}

}  // namespace hop::op
