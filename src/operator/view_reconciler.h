// The View and Pipeline reconcilers (compatibility.md §7, departures 7
// and 8), and the TableProvisionJob reconciler.
//
// View: whoever materializes a view moves its `status.watermark`; every TableTrigger labelled
// `view=<view>` in the view's namespace then records a fire at that watermark (compatibility.md
// §13), and at every watermark queued in `status.pendingFires` since the last reconcile
// (deploy::ViewFires), emptying the queue in the same commit, so that a firePolicy Each trigger
// runs once per advance. Idempotent: a trigger that has the fire already is left alone.
//
// Pipeline: its status says how its elements are: ready when all are, failed when any has
// failed (the message names it), else deployed and looked at again in a minute.
//
// TableProvisionJob: hands the table to the provisioner registered for its database's system
// and records the outcome; a database without a local provisioner is left for an external
// controller, and the status says so.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/provisioner.h"
#include "operator/controller.h"
#include "resource/resource.h"
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

// How one element of a pipeline is (compatibility.md §7).
struct ElementState {
  bool ready = false;
  bool failed = false;
  std::string message;
};
// The element's state from its live object (nullopt: it does not exist).
ElementState EstimateElement(const std::optional<resource::Resource>& element);

// The pipeline's status from its elements, named `kind/name`, in order.
struct PipelineState {
  bool ready = false;
  bool failed = false;
  std::string message;  // "Ready.", "Deployed.", "Failed: flinksessionjob/x: ..."
};
PipelineState SummarizePipeline(const std::vector<std::pair<std::string, ElementState>>& elements);

class PipelineReconciler : public Reconciler {
 public:
  explicit PipelineReconciler(store::Store& store) : store_(store) {}
  hop::Result<ReconcileResult> Reconcile(const Request& request,
                                         const ReconcileContext& context) override;

  // Maps an element's event to the pipelines that own it.
  static std::vector<Request> ElementEvent(const store::Event& event);

 private:
  store::Store& store_;
};

class ProvisionReconciler : public Reconciler {
 public:
  // `provisioners` may be null (none registered); not owned.
  ProvisionReconciler(store::Store& store, const catalog::Provisioners* provisioners)
      : store_(store), provisioners_(provisioners) {}
  hop::Result<ReconcileResult> Reconcile(const Request& request,
                                         const ReconcileContext& context) override;

 private:
  store::Store& store_;
  const catalog::Provisioners* provisioners_;
};

}  // namespace hop::op
