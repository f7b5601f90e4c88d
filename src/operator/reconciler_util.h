// The plumbing every reconciler shares (STYLE.md "Reconcilers and deployers"), so that a
// reconciler's body reads as its one shape: get the object (gone: done), decide with a pure
// function, and write what changed, in one batch, only when something did.
//
//   HOP_ASSIGN_OR_RETURN(std::optional<Resource> object, GetOrNotFound(store_, request));
//   if (!object) return ReconcileResult::Done();
//   ... decide ...
//   Batch batch(store_);
//   batch.UpdateStatusIfChanged(*object, std::move(status));
//   HOP_RETURN_IF_ERROR(batch.CreateIfAbsent(std::move(job)).status());
//   HOP_RETURN_IF_ERROR(batch.Commit());
//
// The writes of a Batch go to the store in one atomic commit: all of them or none. An update
// carries the resourceVersion its object was read at, so the commit fails with Conflict when
// another writer got there first, and the reconcile runs again on what the store then holds.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "operator/controller.h"
#include "resource/json.h"
#include "resource/resource.h"
#include "store/store.h"

namespace hop::op {

// Get-or-not-found: the object `request` names, or nullopt when there is none (it was deleted;
// owner references and finalizers take care of what it leaves, and the reconcile is Done).
// Other errors are the store's, retried with backoff.
Result<std::optional<resource::Resource>> GetOrNotFound(store::Store& store,
                                                        const Request& request);

// The status of `object` as read; an object without one has an empty one.
Json StatusOf(const resource::Resource& object);

// Set-owner: makes `owner` one of `object`'s owners (resource::OwnerReferenceTo) unless an owner
// of its kind and name is one already, so that deleting `owner` deletes `object`. True when the
// reference was added. Owner references never cross namespaces: the caller checks that both
// live in one.
bool AddOwner(resource::Resource& object, const resource::Resource& owner);

// Whether a batch/v1 Job has finished (its Complete or Failed condition is True): whether it
// succeeded, and, when it failed, why (the condition's reason and message); nullopt while it
// has not.
std::optional<std::pair<bool, std::string>> JobFinished(const resource::Resource& job);

// One reconcile's writes, committed together.
class Batch {
 public:
  // `store` is not owned and must outlive the batch.
  explicit Batch(store::Store& store) : store_(store) {}

  // Create-if-absent: a create of `object` unless an object of its name exists already (made by
  // an earlier reconcile, or by whoever else). True when the create was added. A second create
  // of one name in the same batch is AlreadyExists at once: that batch could never commit.
  Result<bool> CreateIfAbsent(resource::Resource object);

  // Create-or-update: a create of `desired` when no object of its name exists; otherwise an
  // update to `desired` as it stands, with the stored object's resourceVersion as the update's
  // precondition, unless the stored object is `desired` already. `desired` must have been made
  // from what the store held at revision `read_at` or later: a stored object written after
  // `read_at` may have been changed after `desired` was made from it, and is Conflict (the
  // reconcile is retried on the new state). True when a write was added.
  Result<bool> CreateOrUpdate(resource::Resource desired, int64_t read_at);

  // Update-status-if-changed: an update of `object`'s status to `status` when that is not the
  // status it has (an object without a status has an empty one). True when the write was added.
  bool UpdateStatusIfChanged(const resource::Resource& object, Json status);
  // The same, for an object whose status has been changed already: `before` is its status as
  // read (nullptr: none).
  bool UpdateStatusIfChanged(resource::Resource object, const Json* before);

  // Delete-if-present: a delete of the object `ref` names unless there is none. True when the
  // delete was added.
  Result<bool> DeleteIfPresent(const store::ObjectRef& ref);

  // Adds a write whose checks the caller made.
  void Add(store::Write write) { writes_.push_back(std::move(write)); }

  bool empty() const { return writes_.empty(); }
  store::Store& store() const { return store_; }
  size_t size() const { return writes_.size(); }

  // Commits every write in one atomic batch, and empties the batch; nothing when it is empty.
  // Errors: the store's (Conflict when an object changed since it was read, AlreadyExists when
  // an object to create appeared meanwhile); nothing is written then.
  Status Commit();

 private:
  store::Store& store_;
  std::vector<store::Write> writes_;
  std::set<std::string> creates_;  // the objects the batch creates, by ObjectRef::ToString
};

// Update-status-if-changed for a reconcile whose one write is a status: `object`'s status
// becomes `status`, committed at once, unless it is that already. True when it was written.
// Errors: the store's (Conflict when the object changed since it was read).
Result<bool> UpdateStatusIfChanged(store::Store& store, const resource::Resource& object,
                                   Json status);

// UpdateStatusIfChanged for a status derived wholly from other stored objects (a Pipeline's, from
// its elements'), reported once written rather than durable (Store::CommitLazily): the next
// fsync another commit needs covers it, and a crash that takes it back takes back no event it
// was derived from, so the reconcile that follows the restart writes it again. The manager syncs
// the store before it records its progress (Manager::Stop). No other write may go this way: one
// whose loss a later reconcile would not redo, or that something outside the store acts on.
// `*resource_version`, if given, becomes the written object's. An object deleted since it was
// read is written nothing (false): it has no status left to derive.
Result<bool> UpdateDerivedStatusIfChanged(store::Store& store, const resource::Resource& object,
                                          Json status, std::string* resource_version = nullptr);

}  // namespace hop::op
