// How an element of a pipeline (a FlinkSessionJob, a KafkaTopic, a Job, ...) is, from its live
// object's status, by the estimate of reference §7: the Pipeline reconciler sums its elements up
// with it, and the "k8s".PIPELINE_ELEMENTS system table shows it.
#pragma once

#include <optional>
#include <string>

#include "resource/resource.h"

namespace hop::resource {

struct ElementState {
  bool ready = false;
  bool failed = false;
  std::string message;
};

// The element's state from its live object (nullopt: it does not exist). Ready when it reports
// `status.ready`, a `state` (or `jobStatus.state`) of READY, RUNNING or FINISHED, a `Complete`
// condition, or no status at all; failed with `status.failed`, CRASHLOOPBACKOFF or FAILED, or a
// `Failed` condition.
ElementState EstimateElement(const std::optional<Resource>& element);

}  // namespace hop::resource
