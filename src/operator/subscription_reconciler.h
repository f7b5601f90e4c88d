// The Subscription reconciler: a Subscription (`spec.sql`, `spec.database`, `spec.hints`) is
// hop's way of asking for a materialized view by resource rather than by DDL. It becomes the
// materialized view `<the database's schema>."<subscription name>" AS <sql>`, built as a
// statement AST around the query parsed from `spec.sql` and planned by the DDL executor as
// apply mode would (the hints as hints, Executor::Specify), and owned by the Subscription:
// deleting the Subscription deletes the view, its pipeline and their elements. The view, the
// pipeline, its elements and the Subscription's status are written in one batch. Its status
// follows the pipeline's: ready, failed, message, the pipeline SQL, the hints, and the resources
// it is made of (`resources`: every element; `jobResources`: the jobs among them). A
// Subscription that cannot become a view (no such database, a query that does not parse or
// bind) says so in its status, failed, until it changes.
#pragma once

#include "operator/controller.h"
#include "store/store.h"

namespace hop::op {

class SubscriptionReconciler : public Reconciler {
 public:
  explicit SubscriptionReconciler(store::Store& store) : store_(store) {}
  hop::Result<ReconcileResult> Reconcile(const Request& request,
                                         const ReconcileContext& context) override;

 private:
  store::Store& store_;
};

}  // namespace hop::op
