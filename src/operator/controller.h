// The controller machinery (ARCHITECTURE.md §4.3, STYLE.md "Reconcilers"): level-based
// reconcilers in the shape of controller-runtime. A Manager watches the store, turns events into
// requests `{kind, namespace, name}` on one de-duplicating work queue, and runs reconcilers on a
// few worker threads with capped exponential backoff, requeue-after, periodic resync, a
// per-reconcile id in every log line, and metrics. Reconcilers hold no plumbing: they re-read
// the store, decide, write, and say when to look again.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "common/time.h"
#include "store/store.h"

namespace hop::metrics {
class Registry;
}

namespace hop::op {

using Duration = std::chrono::milliseconds;

// What to reconcile: one object, by kind, namespace and name.
struct Request {
  store::ObjectRef ref;
  friend bool operator==(const Request& a, const Request& b) {
    return a.ref.kind == b.ref.kind && a.ref.namespace_name == b.ref.namespace_name &&
           a.ref.name == b.ref.name;
  }
  // An arbitrary total order (group, kind, namespace, name), for ordered containers.
  friend bool operator<(const Request& a, const Request& b);
};
std::string RequestText(const Request& r);  // "TableTrigger default/nightly"

// A failure that retrying cannot mend (an invalid spec): the manager logs it and forgets the
// request until the object changes. It is its own type, not a mark in a message: a reconciler
// returns it as its outcome (ReconcileResult::Terminal), and the manager tells it from an error
// Status, which is retried with backoff, by which of the two it got.
struct TerminalError {
  Status status;  // why; never OK
};

// The outcome of one reconcile that did not fail with an error Status.
struct ReconcileResult {
  // Look at the object again after this long (nullopt: only when it changes, or at resync).
  std::optional<Duration> requeue_after;
  // Set: the reconcile failed for good (requeue_after is then ignored).
  std::optional<TerminalError> terminal;

  static ReconcileResult Done() { return {}; }
  static ReconcileResult RequeueAfter(Duration d) { return {d, std::nullopt}; }
  // A terminal failure because of `why`; an OK `why` is a reconciler's bug, reported as Internal.
  static ReconcileResult Terminal(Status why);
};

// What a reconcile gets besides its request.
struct ReconcileContext {
  std::string id;  // unique per reconcile, e.g. "r-000123"; put it in every log line
  const Clock* clock = nullptr;
};

class Reconciler {
 public:
  virtual ~Reconciler() = default;
  // Brings the object of `request` towards its desired state. Must be idempotent: it may run any
  // number of times for one state of the store. Not found → Done. An error Status is retried
  // with backoff; a failure retrying cannot mend is ReconcileResult::Terminal.
  virtual hop::Result<ReconcileResult> Reconcile(const Request& request,
                                                 const ReconcileContext& context) = 0;
  // Whether `event`, on the reconciler's own kind, is of a write it made itself that leaves it
  // nothing to do (a status it derived from what it had read): the manager then queues no
  // request for the event. The default: none is.
  virtual bool OwnWrite(const store::Event& /*event*/) { return false; }
};

// Maps an event on a watched kind to the requests it should cause (e.g. a Job's event to the
// TableTrigger that owns it).
using EventMapper = std::function<std::vector<Request>(const store::Event& event)>;

struct ManagerOptions {
  std::string namespace_name;  // "" watches every namespace
  int workers = 2;             // at least one is started
  // Every `resync`, every watched object is handed to its handlers again; 0 turns it off.
  Duration resync = std::chrono::minutes(5);
  // A failing request waits backoff_base * 2^(failures before), at most backoff_cap.
  Duration backoff_base = std::chrono::milliseconds(100);
  Duration backoff_cap = std::chrono::minutes(5);
  // Delays, backoffs and resyncs are measured on it. Not owned; must outlive the manager.
  const Clock* clock = &SystemClock();
  // A file where Stop leaves what it saw and what was left to do (the store revision its watches
  // had delivered, and every request still queued or waiting, with when it is due), and from
  // which the next Start resumes instead of listing and reconciling every watched object
  // (docs/operator.md, "Resuming"). Empty: none; every Start lists.
  std::string checkpoint_path;
  // Where the manager registers its metrics (docs/metrics.md); nullptr: Registry::Default().
  // Not owned; must outlive the manager. Managers sharing a registry add up their counts.
  metrics::Registry* registry = nullptr;
};

struct Metrics {
  int64_t reconciles = 0;   // reconciles finished, whatever their outcome
  int64_t errors = 0;       // of which failed (terminal ones included)
  int64_t queue_depth = 0;  // now: requests ready to be reconciled
  int64_t in_flight = 0;    // now: requests being reconciled
  int64_t delayed = 0;      // now: requests waiting for a requeue-after or a backoff to pass
};

class Manager {
 public:
  // `store` is not owned and must outlive the manager.
  Manager(store::Store& store, ManagerOptions options);
  ~Manager();  // stops

  // Reconciles objects of `kind` with `reconciler` (not owned; must outlive the manager). Events on
  // `kind` enqueue the object itself; `extra` adds watches on other kinds whose events map to
  // requests for `kind`. Call before Start; registering a kind again replaces its reconciler and
  // adds the new extra watches.
  void Register(store::GroupKind kind, Reconciler* reconciler,
                std::vector<std::pair<store::GroupKind, EventMapper>> extra = {});

  // Starts the watches and the workers. With a usable checkpoint (same namespace and watched
  // kinds, a revision the store has reached), the watches start from its revision and its
  // requests are queued at their times: every change since is replayed by the watches, so
  // nothing is missed and a converged store costs nothing. Otherwise every watched object is
  // listed once into the queue and the watches start from the store's current revision. A
  // watch whose history is gone lists again (as after any gap). A failed list is returned
  // (nothing is started); a second Start, or a Start after Stop, is InvalidArgument.
  Status Start();
  // Whether Start would find nothing to do now: it would resume from a usable checkpoint taken
  // at the store's current revision, with no request due yet. Call after Register and before
  // Start. Errors: the store's.
  Result<bool> Converged() const;
  // Stops taking new work, lets reconciles in flight finish, and joins every thread. Requests
  // still queued are written to the checkpoint, if there is one, and dropped. Idempotent; safe
  // before Start. Must not be called from a reconciler or an EventMapper (it would wait for
  // itself).
  void Stop();

  // Adds a request, now or after `delay`. Thread-safe; ignored after Stop.
  void Enqueue(const Request& request, Duration delay = Duration(0));

  // Re-reads the clock now: requests whose requeue-after or backoff has passed become ready and
  // a resync that is due runs. The manager does this by itself when that time comes on the real
  // clock; tests with a fake clock call it after advancing the clock. Thread-safe.
  void WakeUp();

  // Whether nothing is queued for now and nothing is being reconciled (requeues due later do
  // not count, nor do store events the watches have not delivered yet). Thread-safe.
  bool Idle() const;
  // Waits until Idle() or `timeout`; true when idle.
  bool WaitIdle(Duration timeout) const;

  // A snapshot. Thread-safe.
  Metrics metrics() const;
  // Whether the last Start resumed from the checkpoint (false: it listed).
  bool resumed() const;
  // Whether a Stop has begun: no request is handed to a worker any more. Thread-safe.
  bool Stopping() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hop::op
