// Leader election over a store, for operators that share one cluster (ARCHITECTURE.md §4.5):
// candidates compete for a `coordination.k8s.io/v1` Lease object, as Kubernetes' own controllers
// do. The holder renews it; a candidate takes it over when the holder released it or has not
// renewed it for the lease's duration, as measured by the candidate's own monotonic clock from
// the moment it last saw the Lease change (so clocks that disagree between machines do not
// matter). Optimistic concurrency on the Lease makes every take-over one writer's.
// docs/kubernetes.md, "Leader election".
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "common/status.h"
#include "common/time.h"
#include "store/store.h"

namespace hop::op {

struct LeaderElectionOptions {
  std::string namespace_name = "default";
  std::string name = "hop-operator";
  // This candidate, unique among them: the pod's name, or host and process id.
  std::string identity;
  // How long a holder that stopped renewing keeps the lease (leaseDurationSeconds).
  std::chrono::milliseconds lease_duration{15000};
  // A holder that could not renew for this long stops leading (it must be shorter than the
  // duration, so that it has stopped before anyone may take over).
  std::chrono::milliseconds renew_deadline{10000};
  // How often the holder renews and a stand-by tries.
  std::chrono::milliseconds retry_period{2000};
  const Clock* clock = &SystemClock();  // the times written into the Lease
};

// The identity of this process: "<host>-<pid>", or $POD_NAME-<pid> in a pod.
std::string DefaultIdentity();

// One candidate. Thread-compatible: one thread drives it (the operator's elector loop).
class LeaderElector {
 public:
  LeaderElector(store::Store& store, LeaderElectionOptions options);

  // One round of the election: creates the Lease when there is none, renews it when this
  // candidate holds it, takes it over when nobody does or its holder let it lapse; true when
  // this candidate holds it afterwards. A lost race with another candidate is false, not an
  // error. Errors: the store's (unreachable, forbidden).
  Result<bool> TryAcquireOrRenew();

  // Gives the lease up when this candidate holds it, so that a stand-by takes over at once
  // rather than after the lease's duration.
  Status Release();

  // Who held the lease when this candidate last looked: its identity, or "nobody".
  std::string Holder() const;

  const LeaderElectionOptions& options() const { return options_; }

 private:
  store::Store& store_;
  LeaderElectionOptions options_;
  mutable std::mutex mu_;
  std::string observed_version_;  // the Lease's resourceVersion when last seen
  std::chrono::steady_clock::time_point observed_at_;
  std::string observed_holder_;
  std::string observed_renew_;
  bool holding_ = false;
};

}  // namespace hop::op
