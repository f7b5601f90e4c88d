// The Pipeline reconciler (compatibility.md §7, departures 7 and 8): a pipeline's status says
// how its elements are: ready when something confirmed every one, failed when any has failed (the
// message names it), pending when an element is of a kind no controller of this control plane
// acts on (the message names the kind), else deployed and looked at again in a minute
// (docs/operator.md, "Pipeline"). The decisions are the pure EstimateElement and
// SummarizePipeline.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "operator/controller.h"
#include "resource/resource.h"
#include "store/store.h"

namespace hop::op {

// A kind a controller of this control plane acts on, and how that controller reports on an
// object of it.
struct ControlledKind {
  enum class Reports {
    // It writes the object's status (`ready` and `failed`, conditions, or a state): an object
    // without one has not been reconciled yet.
    kStatus,
    // The object is a standing rule the controller applies whenever its occasion comes (a
    // TableTrigger runs a Job for each fire, a View fires its triggers): it is in force once it
    // exists, and a `status.message` is a problem the controller reports.
    kStanding,
  };
  store::GroupKind kind;
  Reports reports = Reports::kStatus;
};

// What the Pipeline reconciler knows of the control plane it runs in.
struct PipelineRules {
  // The kinds the controllers of this control plane act on (session/control_plane.cc assembles
  // the list). An element of another kind is pending until something reports on it.
  // On a cluster (docs/kubernetes.md, "Readiness") the list also holds the kinds whose own
  // controllers report there: Job, FlinkDeployment, FlinkSessionJob, KafkaTopic. An element none
  // of them has reported on is pending, where Hoptimator counts it ready (compatibility.md §7).
  std::vector<ControlledKind> controlled;
};

// How one element of a pipeline is (compatibility.md §7).
struct ElementState {
  bool ready = false;
  bool failed = false;
  std::string message;
  // The element's kind when it is pending because nothing in this control plane acts on it and
  // nothing reported on it ("FlinkSessionJob"); empty otherwise.
  std::string uncontrolled_kind;
};
// The element's state from its live object (nullopt: it does not exist): its status as reference
// §7 reads it (`ready`/`failed`, a `Complete` or `Failed` condition, a state of READY, RUNNING or
// FINISHED, or CRASHLOOPBACKOFF or FAILED). Without a status, and with a status that says none of
// these, `rules` decide: ready only for a standing kind of this control plane, pending
// otherwise.
ElementState EstimateElement(const std::optional<resource::Resource>& element,
                             const PipelineRules& rules);

// The pipeline's status from its elements, named `kind/name`, in order.
struct PipelineState {
  bool ready = false;
  bool failed = false;
  // "Ready.", "Failed: flinksessionjob/x: ...",
  // "Pending: no controller for FlinkSessionJob in this control plane",
  // "Deployed: waiting for tableprovisionjob/x: ...".
  std::string message;
  // Whether an element not ready yet is one this control plane acts on: the pipeline is looked
  // at again in a while. Otherwise only an element's change (an event) can move it.
  bool recheck = false;
};
PipelineState SummarizePipeline(const std::vector<std::pair<std::string, ElementState>>& elements);

class PipelineReconciler : public Reconciler {
 public:
  // `rules` is not owned and must outlive the reconciler; it must not change while the
  // reconciler runs.
  PipelineReconciler(store::Store& store, const PipelineRules& rules)
      : store_(store), rules_(rules) {}
  hop::Result<ReconcileResult> Reconcile(const Request& request,
                                         const ReconcileContext& context) override;

  // The event of its latest status write to a pipeline, which it derived from what it had read:
  // an element's change since has an event of its own.
  bool OwnWrite(const store::Event& event) override;

  // Maps an element's event to the pipelines that own it.
  static std::vector<Request> ElementEvent(const store::Event& event);
  // Maps a materialized view's event to its pipeline (of the same name), whose status shows its
  // refreshes when hop refreshes it.
  static std::vector<Request> ViewEvent(const store::Event& event);

 private:
  // An element of a pipeline's spec.yaml, as the reconciler looks it up.
  struct ElementRef {
    store::ObjectRef ref;
    std::string kind;  // as written, e.g. FlinkSessionJob
  };
  // The elements `yaml` (the pipeline's spec.yaml) lists, parsed once per generation of the
  // pipeline: the spec changes only with its statement, and each reconcile would parse it
  // again. Errors: the YAML's, or an element that is not an object (terminal).
  hop::Result<std::vector<ElementRef>> Elements(const resource::Resource& pipeline,
                                                const std::string& yaml);

  store::Store& store_;
  const PipelineRules& rules_;
  std::mutex mu_;  // guards parsed_ and written_
  // By namespace/name: the uid and generation last parsed, and the elements.
  struct Parsed {
    std::string uid;
    int64_t generation = 0;
    std::vector<ElementRef> elements;
  };
  std::map<std::string, Parsed> parsed_;
  // By namespace/name: the resourceVersion of its latest status write whose event has not come.
  std::map<std::string, std::string> written_;
};

}  // namespace hop::op
