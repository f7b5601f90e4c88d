// The View reconciler (compatibility.md §13): whoever materializes a view moves its
// `status.watermark`; every TableTrigger labelled `view=<view>` in the view's namespace then
// records a fire at that watermark, and at every watermark queued in `status.pendingFires` since
// the last reconcile (deploy::ViewFires), emptying the queue in the same commit, so that a
// firePolicy Each trigger runs once per advance. A trigger with no run going also starts the run
// its first new fire begins, decided by the trigger module (trigger_runs.h, FireAndStart): a
// view's fires and the runs they start go to the store in one commit. Idempotent: a trigger that
// has the fire already is left alone. A view WITH ('watermark' 'all' | 'any') first replays its
// inputs' advances (watermarks.h, DeriveAdvances): each step that moves the derived watermark
// past its own is an advance. The view's queued advances also go, in the same commit, to the
// views derived from it. It is registered with watches on Tables and Views (DerivedViewsOf) so
// that an input's change reaches it.
#pragma once

#include "operator/controller.h"
#include "store/store.h"

namespace hop::op {

class ViewReconciler : public Reconciler {
 public:
  explicit ViewReconciler(store::Store& store) : store_(store) {}
  hop::Result<ReconcileResult> Reconcile(const Request& request,
                                         const ReconcileContext& context) override;

 private:
  store::Store& store_;
};

}  // namespace hop::op
