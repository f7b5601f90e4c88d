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
#pragma once

#include "operator/controller.h"
#include "store/store.h"

namespace hop::op {

class TableReconciler : public Reconciler {
 public:
  explicit TableReconciler(store::Store& store) : store_(store) {}
  hop::Result<ReconcileResult> Reconcile(const Request& request,
                                         const ReconcileContext& context) override;

 private:
  store::Store& store_;
};

}  // namespace hop::op
