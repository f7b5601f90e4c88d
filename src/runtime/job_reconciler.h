// The local runtime's Job reconciler: the operator's reconciler of `batch/v1` Jobs when this
// machine runs them. Each reconcile is one JobRunner::Sync, which re-reads the Job and takes its
// next step (docs/runtime.md); the wait Sync returns (a retry's delay, a deadline, a free slot)
// is when the Job is looked at again.
#pragma once

#include "operator/controller.h"
#include "runtime/job_runner.h"

namespace hop::runtime {

class JobReconciler : public op::Reconciler {
 public:
  // `runner` is not owned and must outlive the reconciler.
  explicit JobReconciler(JobRunner& runner) : runner_(runner) {}
  hop::Result<op::ReconcileResult> Reconcile(const op::Request& request,
                                             const op::ReconcileContext& context) override;

 private:
  JobRunner& runner_;
};

}  // namespace hop::runtime
