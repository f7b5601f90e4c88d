// The TableTrigger reconciler: it keeps one trigger's runs going (trigger_runs.h): it reads the
// trigger and the Job of its current run, asks PlanTrigger what to do, and writes what the plan
// says in one batch (the run recorded with its Job, a finished Job deleted), then looks again
// when the plan says (the next cron tick, a running Job). A trigger whose schedule is not a cron
// expression fails terminally: nothing changes until the trigger does.
//
// Where batches are not atomic (store::Store::AtomicBatches), a trigger may have a run whose Job
// was made but not recorded (trigger_runs.h, UnrecordedRunJob): the reconciler looks for one the
// first time it sees a trigger (after another leader, which may have stopped between the two
// writes) and after a reconcile of it failed (its own batch may have stopped there), not at every
// reconcile: that look is a list of the trigger's Jobs.
#pragma once

#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "operator/controller.h"
#include "store/store.h"

namespace hop::op {

class TriggerReconciler : public Reconciler {
 public:
  explicit TriggerReconciler(store::Store& store) : store_(store) {}
  hop::Result<ReconcileResult> Reconcile(const Request& request,
                                         const ReconcileContext& context) override;

  // Maps a Job's event to the trigger that started it (by its annotations).
  static std::vector<Request> JobEvent(const store::Event& event);

 private:
  // The reconcile itself; Reconcile keeps `looked_` around it.
  hop::Result<ReconcileResult> Run(const Request& request, const ReconcileContext& context,
                                   bool look_for_unrecorded);

  store::Store& store_;
  std::mutex mu_;
  // Triggers (namespace/name) whose unrecorded runs were looked for since this process started,
  // and whose reconciles have not failed since.
  std::set<std::string> looked_;  // guarded by mu_
};

}  // namespace hop::op
