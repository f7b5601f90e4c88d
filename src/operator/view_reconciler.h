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
//
// A materialized view whose table hop writes is also refreshed from here: the refresh module
// (view_refresh.h) decides when, and the reconciler starts the refresh's Job and records it.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "operator/controller.h"
#include "operator/view_refresh.h"
#include "store/store.h"

namespace hop::op {

class ViewReconciler : public Reconciler {
 public:
  explicit ViewReconciler(store::Store& store, RefreshJobs refresh_jobs = {})
      : store_(store), refresh_jobs_(std::move(refresh_jobs)) {}
  hop::Result<ReconcileResult> Reconcile(const Request& request,
                                         const ReconcileContext& context) override;

  // A refresh Job's event, as a request for its view.
  static std::vector<Request> JobEvent(const store::Event& event);
  // A Table's or View's event, as requests for the views refreshed when their inputs advance
  // (WITH ('refresh' 'on-source-change')) in its namespace: those labelled
  // kRefreshOnChangeLabel, found in the store, so that a process that resumed from a checkpoint
  // and reconciled none of them finds them as well as one that listed them all.
  static EventMapper InputEvent(store::Store& store);
  // A new TableTrigger, as a request for the view it is on (its `view` label names it): the
  // trigger fires at the view's watermark when the view is reconciled (docs/operator.md,
  // "Watermarks"), at once rather than at the next resync.
  static std::vector<Request> TriggerEvent(const store::Event& event);

 private:
  // The refresh part of a materialized view's reconcile.
  hop::Result<ReconcileResult> Refresh(const resource::Resource& view,
                                       const ReconcileContext& context);
  // Labels `view` kRefreshOnChangeLabel when its options ask for that refresh, or takes the
  // label off when they do not; `view` becomes what the store then holds.
  Status LabelRefreshMode(resource::Resource& view);
  // The inputs of the view (the tables and materialized views its query reads) with their
  // watermarks; false when hop does not refresh it.
  hop::Result<bool> Inputs(const resource::Resource& view, InputWatermarks& out);

  store::Store& store_;
  RefreshJobs refresh_jobs_;
  std::mutex mu_;  // guards what follows
  std::map<std::string, catalog::CatalogCache> catalogs_;  // by namespace
};

}  // namespace hop::op
