// The TableTrigger reconciler: it keeps one trigger's runs going (trigger_runs.h): it reads the
// trigger and the Job of its current run, asks PlanTrigger what to do, and writes what the plan
// says in one batch (the run recorded with its Job, a finished Job deleted), then looks again
// when the plan says (the next cron tick, a running Job). A trigger whose schedule is not a cron
// expression fails terminally: nothing changes until the trigger does.
#pragma once

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
  store::Store& store_;
};

}  // namespace hop::op
