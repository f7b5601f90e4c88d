// The Table reconciler (docs/operator.md, "Table"): a Table's `status.watermark` is advanced by
// FIRE TABLE, by producers (`hop watermark set`, FIRE TABLE ... WATERMARK) and by the Jobs that
// declare the table as an output, each of which also queues the new watermark in
// `status.pendingFires` (deploy::ViewFires). Every TableTrigger on the table (its spec names the
// table) in the table's namespace then records a fire at each queued watermark and at the latest,
// the queue emptying in the same commit, so that a firePolicy Each trigger runs once per advance;
// a trigger with no run going also starts the run its first new fire begins (trigger_runs.h,
// FireAndStart), and the same advances are queued on the views derived from the table
// (watermarks.h, QueueOnDerivedViews), all in one commit. Idempotent: a trigger that has the fire
// already is left alone.
//
// A table made by CREATE TABLE ... AS query is also filled from here, once, by a refresh Job
// (view_refresh.h, PlanFill), whose success advances the table's watermark.
#pragma once

#include <vector>

#include "operator/controller.h"
#include "operator/view_refresh.h"
#include "store/store.h"

namespace hop::op {

class TableReconciler : public Reconciler {
 public:
  explicit TableReconciler(store::Store& store, RefreshJobs fill_jobs = {})
      : store_(store), fill_jobs_(std::move(fill_jobs)) {}
  hop::Result<ReconcileResult> Reconcile(const Request& request,
                                         const ReconcileContext& context) override;

  // A fill Job's event, as a request for its table.
  static std::vector<Request> JobEvent(const store::Event& event);
  // A new TableTrigger, as a request for the table it is on when that table has a watermark:
  // the trigger fires at it when the table is reconciled (docs/operator.md, "Watermarks").
  static EventMapper TriggerEvent(store::Store& store);

 private:
  store::Store& store_;
  RefreshJobs fill_jobs_;
};

}  // namespace hop::op
