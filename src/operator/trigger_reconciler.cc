#include "operator/trigger_reconciler.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "common/log.h"
#include "operator/reconciler_util.h"
#include "operator/trigger_runs.h"

namespace hop::op {

using resource::Resource;

namespace {

// The runs a trigger's `status.jobs` lists: namespace and name.
std::vector<std::pair<std::string, std::string>> ListedRuns(const Resource& trigger) {
  std::vector<std::pair<std::string, std::string>> listed;
  const Json* status = trigger.status();
  if (status == nullptr) return listed;
  auto runs = status->find("jobs");
  if (runs == status->end() || !runs->is_array()) return listed;
  for (const Json& run : *runs) {
    if (!run.is_object()) continue;
    auto text = [&](const char* key) {
      auto it = run.find(key);
      return it != run.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    if (std::string name = text("name"); !name.empty()) {
      listed.emplace_back(text("namespace"), std::move(name));
    }
  }
  return listed;
}

}  // namespace

hop::Result<ReconcileResult> TriggerReconciler::Reconcile(const Request& request,
                                                          const ReconcileContext& context) {
  const std::string key = request.ref.namespace_name + "/" + request.ref.name;
  bool look = false;
  if (!store_.AtomicBatches()) {
    std::lock_guard<std::mutex> lock(mu_);
    look = looked_.insert(key).second;
  }
  std::optional<RunLists> listed;
  auto result = Run(request, context, look, &listed);
  if (!result.ok() || result->terminal) {
    std::lock_guard<std::mutex> lock(mu_);
    looked_.erase(key);
  }
  if (run_dropped_ && listed) {
    // The runs listed when this reconcile read the trigger, or when this process last
    // reconciled it, that are listed no more: dropped by this reconcile's commit (only the
    // trigger's reconciler drops runs: PlanTrigger), or gone with the trigger.
    Runs dropped;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto seen = runs_seen_.try_emplace(key).first;
      for (auto& run : listed->read) {
        if (std::find(seen->second.begin(), seen->second.end(), run) == seen->second.end()) {
          seen->second.push_back(std::move(run));
        }
      }
      for (auto& run : seen->second) {
        if (std::find(listed->now.begin(), listed->now.end(), run) == listed->now.end()) {
          dropped.push_back(std::move(run));
        }
      }
      if (listed->now.empty()) {
        runs_seen_.erase(seen);
      } else {
        seen->second = std::move(listed->now);
      }
    }
    for (const auto& [ns, name] : dropped) {
      run_dropped_(store::ObjectRef{store::GroupKind{"batch", "Job"}, ns, name});
    }
  }
  return result;
}

hop::Result<ReconcileResult> TriggerReconciler::Run(const Request& request,
                                                    const ReconcileContext& context,
                                                    bool look_for_unrecorded,
                                                    std::optional<RunLists>* listed) {
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> trigger, GetOrNotFound(store_, request));
  if (!trigger) {
    std::lock_guard<std::mutex> lock(mu_);
    looked_.erase(request.ref.namespace_name + "/" + request.ref.name);
    *listed = RunLists();
    return ReconcileResult::Done();
  }
  // Only a reconciler that tells of dropped runs needs them.
  const Runs read = run_dropped_ ? ListedRuns(*trigger) : Runs();
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
  if (!plan.ok()) {
    *listed = RunLists{read, read};
    return ReconcileResult::Terminal(plan.status());
  }
  if (!plan->event.empty()) {
    log::Info("[{}] TableTrigger {}/{}: {}", context.id, trigger->namespace_name(), trigger->name(),
              plan->event);
  }
  // The batch fails if the trigger changed since it was read (a new fire), and the reconcile is
  // then retried on the new state.
  Batch batch(store_);
  HOP_RETURN_IF_ERROR(WriteRunPlan(batch, *plan, read_status, &store_));
  HOP_RETURN_IF_ERROR(batch.Commit());
  *listed = RunLists{read, run_dropped_ ? ListedRuns(plan->trigger) : Runs()};
  return ReconcileResult{plan->requeue_after, std::nullopt};
}

std::vector<Request> TriggerReconciler::JobEvent(const store::Event& event) {
  if (auto trigger = TriggerOfJob(event.object)) return {Request{*trigger}};
  return {};
}

}  // namespace hop::op
