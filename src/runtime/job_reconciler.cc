#include "runtime/job_reconciler.h"

namespace hop::runtime {

hop::Result<op::ReconcileResult> JobReconciler::Reconcile(const op::Request& request,
                                                          const op::ReconcileContext&) {
  HOP_ASSIGN_OR_RETURN(std::optional<std::chrono::milliseconds> after, runner_.Sync(request.ref));
  return op::ReconcileResult{after, std::nullopt};
}

}  // namespace hop::runtime
