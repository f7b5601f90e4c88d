// The TableProvisionJob reconciler: hands the table to the provisioner registered for its
// database's system and records the outcome; a database without a local provisioner is left for
// an external controller, and the status says so (docs/operator.md, "TableProvisionJob").
#pragma once

#include <string>

#include "catalog/provisioner.h"
#include "operator/controller.h"
#include "store/store.h"

namespace hop::op {

// What one attempt at provisioning a table came to, as the job's status says it.
struct ProvisionOutcome {
  bool ready = false;     // the table is there: it existed, or was created now
  bool failed = false;    // the system refused it; asking again will not change that
  bool retrying = false;  // the system could not be reached; to be asked again
  std::string message;    // "Table exists.", "Table created.", or the error, secrets redacted
  Status error;           // OK unless failed or retrying
};

// Makes `table` exist through `provisioner`: a table there with the same columns is ready
// ("Table exists."), a missing one is created ("Table created."). A schema whose status is an
// error, or an error of the provisioner, is `retrying` when it is Unavailable (a server that
// does not answer, a password that cannot be read) and `failed` otherwise (the server's refusal,
// a table there with other columns).
ProvisionOutcome ProvisionTable(catalog::Provisioner& provisioner, const catalog::Schema& schema,
                                const catalog::TableDefinition& table);

// Reconciles TableProvisionJobs. The columns are the job's `spec.columns` (hop's own jobs carry
// them), else those of the Table resource of the table's name. The status gets `ready`, `failed`,
// `message`, `observedGeneration`, and `retrying` while the system cannot be reached: such a
// reconcile returns the error, so that the controller tries again with its backoff. A refusal is
// terminal until the job changes. A job that is ready at its generation is not looked at again.
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
