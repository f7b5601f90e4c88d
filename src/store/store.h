// The Store: where hop's resources live. One interface, with the semantics Kubernetes promises
// (optimistic concurrency, status as a subresource, generations, finalizers, owner-reference
// garbage collection, watches from a revision), so that reconcilers and deployers behave the
// same on the embedded SqliteStore and on a Kubernetes API server (KubernetesStore).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "resource/resource.h"
#include "resource/selector.h"

namespace hop::store {

using resource::GroupKind;
using resource::Resource;

// Names one object.
struct ObjectRef {
  GroupKind kind;
  std::string namespace_name;  // "" for cluster-scoped kinds
  std::string name;
  std::string ToString() const;  // "Kind.group/namespace/name"
};

ObjectRef RefOf(const Resource& r);

struct ListOptions {
  ListOptions() = default;
  ListOptions(std::optional<GroupKind> kind, std::string namespace_name = "",
              resource::LabelSelector selector = {}, std::string index_key = "")
      : kind(std::move(kind)),
        namespace_name(std::move(namespace_name)),
        selector(std::move(selector)),
        index_key(std::move(index_key)) {}

  std::optional<GroupKind> kind;  // every kind when absent
  std::string namespace_name;     // every namespace when empty
  resource::LabelSelector selector;
  // Only objects that have this index key (resource::KindInfo::index_keys; "" for any): the
  // store finds them without reading the others.
  std::string index_key;
};

// Whether `r` has index key `key` by its kind (true for an empty key): for stores that check an
// index key by reading the objects.
bool HasIndexKey(const Resource& r, const std::string& key);

struct ListResult {
  std::vector<Resource> items;  // ordered by kind, namespace, name
  int64_t revision = 0;         // the store's revision at the time of the list
};

enum class EventType { kAdded, kModified, kDeleted };
std::string_view EventTypeName(EventType t);  // "ADDED", "MODIFIED", "DELETED"

struct Event {
  EventType type = EventType::kAdded;
  int64_t revision = 0;
  Resource object;  // for kDeleted, the object as it was last stored
};

struct WatchOptions {
  std::optional<GroupKind> kind;  // every kind when absent
  std::string namespace_name;     // every namespace when empty
  int64_t from_revision = 0;      // deliver events with a revision greater than this
};

// A stream of events in revision order, without gaps. Not thread-safe, except Close().
class Watch {
 public:
  enum class Outcome {
    kEvent,    // *event holds the next event
    kTimeout,  // nothing happened within the timeout
    kTooOld,   // from_revision is older than the retained history: list again, then watch from
               // the list's revision
    kClosed,   // Close() was called, or the store is gone
  };
  virtual ~Watch() = default;
  virtual Outcome Next(std::chrono::milliseconds timeout, Event* event) = 0;
  // The revision up to which this watch has returned every event it will ever return: after
  // Next gave kTimeout, the store's revision when it last looked. A watcher that resumes from it
  // misses nothing and sees nothing twice (a bookmark). Called from the thread that calls Next.
  virtual int64_t Progress() const = 0;
  // Makes a blocked or later Next() return kClosed. Thread-safe.
  virtual void Close() = 0;
};

// One write of an atomic batch.
struct Write {
  enum class Op {
    kCreate,        // `object` must not exist
    kUpdate,        // spec, metadata (and status for kinds without a status subresource)
    kUpdateStatus,  // status only
    kDelete,        // `ref`; with finalizers the object is only marked for deletion
  };
  Op op = Op::kCreate;
  Resource object;  // kCreate, kUpdate, kUpdateStatus
  ObjectRef ref;    // kDelete
  // kDelete: when set, the object's resourceVersion must equal it. (For updates the object's own
  // metadata.resourceVersion is the precondition.)
  std::string resource_version;
  // kUpdate, kUpdateStatus, kDelete: when set, the stored object's uid must equal it, so that a
  // write meant for an object that was deleted and made again under its name meanwhile writes
  // nothing. (An update's own metadata.uid is one only where a Kubernetes API server checks it,
  // through KubernetesStore; SqliteStore keeps the stored uid whatever it says.)
  std::string uid;

  static Write Create(Resource r);
  static Write Update(Resource r, std::string uid = {});
  static Write UpdateStatus(Resource r, std::string uid = {});
  static Write Delete(ObjectRef ref, std::string resource_version = {}, std::string uid = {});
};

// Whether the object stored under `ref`, whose uid is `uid`, meets a write's uid precondition
// `wanted` (Write::uid; none when empty): OK, or a Conflict `Precondition failed: UID in
// precondition: X, UID in object meta: Y`, as Kubernetes words it.
Status CheckUidPrecondition(const ObjectRef& ref, std::string_view wanted, std::string_view uid);
// Whether the object stored under a delete's ref, whose uid and resourceVersion are given, meets
// the delete's preconditions (Write::uid, Write::resource_version): OK, or a Conflict naming the
// first it fails, the uid first (CheckUidPrecondition's).
Status CheckDeletePreconditions(const Write& deletion, std::string_view uid,
                                std::string_view resource_version);

// The Store contract, for every implementation:
//  - Every write bumps one global revision; the new revision is the written object's
//    resourceVersion (a decimal string). Each write of a batch gets its own revision.
//  - Create sets uid, creationTimestamp, generation 1 and a namespace ("default" when unset, for
//    namespaced kinds); an existing object is AlreadyExists.
//  - Update of a missing object is NotFound. When metadata.resourceVersion is set and is not the
//    stored one, the update is a Conflict, and so is one whose uid precondition (Write::uid) is
//    not the stored object's uid, checked in the transaction that writes (UpdateStatus alike).
//    uid, creationTimestamp and deletionTimestamp cannot be changed. Generation increases when
//    anything besides metadata and status changes. For kinds with a status subresource, Update
//    keeps the stored status. An update that changes nothing writes nothing and keeps the
//    resourceVersion. An update the kind's API server refuses (ValidateUpdate: a finalizer added to
//    an object being deleted, the data of an immutable ConfigMap or Secret, a Secret's type) is a
//    Validation error.
//  - UpdateStatus replaces only the status; generation is unchanged.
//  - Delete of a missing object is NotFound; one of an object whose uid or resourceVersion is not
//    the delete's precondition (Write::uid, Write::resource_version) is a Conflict, checked in the
//    transaction that deletes. An object with finalizers gets a deletionTimestamp
//    and stays until an update removes its last finalizer. Deleting an object deletes, in the
//    same transaction, every object that names it in ownerReferences, transitively.
//  - Objects of hop's kinds are validated against their schema, and objects of any kind against
//    what its API server refuses of one (ValidateObject: a ConfigMap's keys) (Validation error).
//  - An ownerReference without a uid names its owner by apiVersion, kind and name in the
//    object's namespace; Create and Update fill in the owner's uid (the owner may be written
//    earlier in the same batch), or fail with InvalidArgument when there is no such owner.
//  - Commit applies a batch atomically: all writes or none.
// Errors: NotFound, AlreadyExists, Conflict, Validation, InvalidArgument, Unavailable (storage).
// Implementations are thread-safe.
class Store {
 public:
  virtual ~Store() = default;

  virtual Result<Resource> Get(const ObjectRef& ref) = 0;
  virtual Result<ListResult> List(const ListOptions& options) = 0;
  // The objects List would return, in its order, handed to `visit` one at a time, so that a
  // caller that keeps only what it needs of each never holds them all; returns the list's
  // revision. `visit` must not call the store. The default calls List.
  virtual Result<int64_t> ListEach(const ListOptions& options,
                                   const std::function<void(Resource)>& visit);

  // Returns the stored objects in the order of `writes` (for kDelete: the object as deleted or
  // as marked for deletion).
  virtual Result<std::vector<Resource>> Commit(std::vector<Write> writes) = 0;

  // Commit, returning once the batch is written (visible to readers) rather than durable:
  // `*durable_mark` is then the mark WaitDurable takes. A caller that reports the batch waits
  // for it first, and may meanwhile go on (a script goes on to its next statement; docs/
  // store.md, "Writing and syncing"). The default commits durably and sets 0.
  virtual Result<std::vector<Resource>> CommitWritten(std::vector<Write> writes,
                                                      int64_t* durable_mark);
  // Commit, returning once the batch is written, for a batch whose loss in a crash its writer
  // repairs by itself (a status derived wholly from other stored objects, which the reconcile
  // after a restart writes again): no fsync starts for it alone. It is made durable by the next
  // fsync another commit starts, by Sync, or by the store within a tenth of a second (docs/
  // store.md, "Writing and syncing"). The default commits durably.
  virtual Result<std::vector<Resource>> CommitLazily(std::vector<Write> writes);
  // Returns once the batch CommitWritten gave `durable_mark` for is durable (at once for 0).
  // Errors: the store could not make it durable (Unavailable).
  virtual Status WaitDurable(int64_t durable_mark);
  // Returns once every batch written so far, by this process, is durable: what a caller that
  // recorded progress past batches reported once written (CommitWritten) waits for first. The
  // default has nothing to wait for. Errors: as WaitDurable's.
  virtual Status Sync();

  // The object `ref` names, or nullopt when there is none; other errors as Get's.
  Result<std::optional<Resource>> Find(const ObjectRef& ref);

  Result<Resource> Create(Resource r);
  // With `uid`, the update's uid precondition (Write::uid).
  Result<Resource> Update(Resource r, std::string uid = {});
  Result<Resource> UpdateStatus(Resource r, std::string uid = {});
  Result<Resource> Delete(const ObjectRef& ref, std::string resource_version = {});

  virtual std::unique_ptr<Watch> StartWatch(const WatchOptions& options) = 0;
  // The latest revision.
  virtual Result<int64_t> Revision() = 0;
  // Whether a watch started from a revision the store still holds has every event up to the
  // store's revision at that moment ready at once, so that Next with a zero timeout drains them
  // (SqliteStore: they are in its file). False for a store whose events arrive over a network
  // (KubernetesStore): a caller that needs "every change up to now" without waiting reads the
  // objects again instead.
  virtual bool ReplaysHistoryAtOnce() const { return true; }
  // Whether Commit applies a batch atomically, as the contract above says (SqliteStore). False
  // for a store that applies it write by write (KubernetesStore, docs/store.md): a writer that
  // stops part-way there can leave some of a batch's writes, which writers that care look for.
  virtual bool AtomicBatches() const { return true; }

  // Whether the store can still keep what is written to it: OK, or Unavailable saying why not
  // and where. SqliteStore: not after an fsync of its log failed (nothing written since can be
  // counted durable, and it commits nothing more), nor once its file is gone or another file
  // has taken its name (what it writes would be lost); both last until the store is opened
  // again (docs/store.md, "Health"). Cheap enough for every readiness probe: no query, no
  // scan. A store that cannot tell says OK (the default). Thread-safe.
  virtual Status Health() { return Status::OK(); }
  // Whether writes can succeed now, as far as the store can tell: OK, or Unavailable saying why
  // not while they fail for a reason that mends by itself once someone sees to it, unlike
  // Health's. SqliteStore: not from a commit that failed because the state directory's file
  // system had no space left (a full disk, a quota used up) until a commit succeeds or, looked
  // at no more than once a second, 1 MiB fits in the state directory again (docs/store.md,
  // "Health"). A readiness probe asks it; nothing stops for it. The default is OK. Thread-safe.
  virtual Status Writable() { return Status::OK(); }

  struct Stats {
    int64_t revision = 0;
    int64_t objects = 0;  // objects stored, -1 when the store cannot tell cheaply
    int64_t bytes = -1;   // storage used, -1 when the store cannot tell
  };
  // For metrics. The default counts a full List.
  virtual Result<Stats> ReadStats();
};

// The check every store makes of an object before it writes it: hop's kinds against their
// schema, and what the API server of any kind refuses of an object (resource/validation.h: a
// ConfigMap's keys). OK, or a Validation error naming the object and each problem.
Status ValidateObject(const Resource& r);
// The check every store that stands for the kinds' API server makes of an update of `stored`
// to `next`: ValidateObject's of `next`, and what that server refuses of the change
// (resource::UpdateErrors: a finalizer added to an object being deleted, an immutable
// ConfigMap's or Secret's data, a Secret's type), every problem named together. OK, or a Validation
// error naming the object and each problem.
Status ValidateUpdate(const Resource& stored, const Resource& next);

// Whether an object of one of `kinds` in `namespace_name` changed after `revision` (true also
// when the store no longer has the history to tell, or cannot tell at once: see
// Store::ReplaysHistoryAtOnce).
Result<bool> ChangedSince(Store& store, const std::vector<GroupKind>& kinds,
                          const std::string& namespace_name, int64_t revision);

}  // namespace hop::store
