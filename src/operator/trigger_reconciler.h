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

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "operator/controller.h"
#include "store/store.h"

namespace hop::op {

class TriggerReconciler : public Reconciler {
 public:
  // Told of each run a reconcile drops from the trigger's `status.jobs` (the newest kRunsKept
  // runs; only this reconciler drops runs), and of the runs a deleted trigger listed when this
  // process last reconciled it: the local runtime removes their logs (docs/runtime.md, "Logs").
  // Called after the reconcile, outside the reconciler's lock. A trigger deleted before this
  // process reconciled it tells of nothing.
  using RunDropped = std::function<void(const store::ObjectRef& job)>;

  explicit TriggerReconciler(store::Store& store, RunDropped run_dropped = nullptr)
      : store_(store), run_dropped_(std::move(run_dropped)) {}
  hop::Result<ReconcileResult> Reconcile(const Request& request,
                                         const ReconcileContext& context) override;

  // Maps a Job's event to the trigger that started it (by its annotations).
  static std::vector<Request> JobEvent(const store::Event& event);

 private:
  // Namespaces and names of runs, as `status.jobs` lists them.
  using Runs = std::vector<std::pair<std::string, std::string>>;
  // The runs a trigger's status listed when a reconcile read it, and once it was done (none
  // when the trigger is gone).
  struct RunLists {
    Runs read;
    Runs now;
  };

  // The reconcile itself; Reconcile keeps `looked_` and `runs_seen_` around it. Sets `*listed`
  // unless the reconcile failed.
  hop::Result<ReconcileResult> Run(const Request& request, const ReconcileContext& context,
                                   bool look_for_unrecorded, std::optional<RunLists>* listed);

  store::Store& store_;
  RunDropped run_dropped_;
  std::mutex mu_;
  // Triggers (namespace/name) whose unrecorded runs were looked for since this process started,
  // and whose reconciles have not failed since.
  std::set<std::string> looked_;  // guarded by mu_
  // With run_dropped_: the runs each trigger (namespace/name) listed when this process last
  // reconciled it, told of when the trigger is deleted.
  std::map<std::string, Runs> runs_seen_;  // guarded by mu_
};

}  // namespace hop::op
