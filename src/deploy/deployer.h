// Deployers: one per kind of statement that writes resources (ARCHITECTURE.md §4.10, STYLE.md
// "Reconcilers and deployers"). A deployer turns a bound statement (src/binder/bound_statement.h)
// into one Batch: the objects that make the statement true, the objects it deletes, and the
// tables a provisioner must create or drop. Specify only reads; the executor commits the batch
// and runs its effects, and `!specify` prints it. There is nothing to restore in the store (the
// batch commits whole or not at all); only effects outside it are undone.
#pragma once

#include "binder/bound_statement.h"
#include "common/status.h"
#include "deploy/batch.h"
#include "store/store.h"

namespace hop::deploy {

class Deployer {
 public:
  virtual ~Deployer() = default;
  // Adds to `batch` what makes `statement` true. Errors: the statement's (a trigger that does
  // not exist, a template that does not render) and the validators' tree; nothing is written.
  virtual Status Specify(const binder::BoundStatement& statement, Batch& batch) const = 0;
};

// The deployer of statements of `kind`; null for statements that write no resources (queries,
// INSERT, SET, RESET, SHOW, CREATE FUNCTION).
const Deployer* DeployerFor(sql::StatementKind kind);

// Deletes the object `deletion.ref` names as the DROP of its kind does (a Database, a Table or a
// View: after the same dependency guard unless `force`, with the same effects outside the store);
// any other object is deleted as it is. Not Found when there is no such object. The preconditions
// of `deletion` (Write::uid, Write::resource_version) are checked on the object found (Conflict)
// and go with the batch's delete of it, for the store to check again as it deletes. `hop delete`.
Status SpecifyDeletion(const store::Write& deletion, bool force, Batch& batch);

}  // namespace hop::deploy
