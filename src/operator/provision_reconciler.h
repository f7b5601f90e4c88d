// The TableProvisionJob reconciler: hands the table to the provisioner registered for its
// database's system and records the outcome; a database without a local provisioner is left for
// an external controller, and the status says so.
#pragma once

#include "catalog/provisioner.h"
#include "operator/controller.h"
#include "store/store.h"

namespace hop::op {

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
