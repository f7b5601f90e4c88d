// WorkQueue: the controller's de-duplicating, rate-limited queue of Requests, in the manner of
// client-go's workqueue. A request is queued at most once, is never handed to two workers at a
// time, can wait for a delay, and backs off exponentially per request while it keeps failing.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "common/time.h"
#include "operator/controller.h"

namespace hop::op {

struct WorkQueueOptions {
  // AddRateLimited waits backoff_base * 2^failures, at most backoff_cap.
  Duration backoff_base = std::chrono::milliseconds(100);
  Duration backoff_cap = std::chrono::minutes(5);
  // The time delays are measured on. Not owned; must outlive the queue.
  const Clock* clock = &SystemClock();
};

// The life of a request: Add puts it in the ready queue (unless it is already there); Get hands it
// to one worker and marks it processing; Done ends the processing. A request added again while
// it is processing waits until Done and is then queued once more, so one request is never
// reconciled by two workers at once and no change is lost.
//
// Delays (AddAfter, AddRateLimited) are measured on the injected clock. Get() notices on its own
// when a delay has passed on the real clock; with a fake clock, tests call TryGet() (which reads
// the clock each time) or WakeUp() after advancing it, and never sleep.
//
// Every method is thread-safe.
class WorkQueue {
 public:
  explicit WorkQueue(WorkQueueOptions options = {});
  ~WorkQueue();  // wakes every waiter, as ShutDown
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Queues `request` for now: no-op if it is already queued; if it is processing, it is queued
  // again at Done. Ignored after ShutDown.
  void Add(const Request& request);
  // Queues `request` once `delay` has passed (at once when delay <= 0). A request waits at most
  // once: when it is already waiting, the earlier of the two times wins.
  void AddAfter(const Request& request, Duration delay);
  // Counts one more failure of `request` and queues it after its backoff:
  // backoff_base * 2^(failures before this one), capped at backoff_cap. Returns that delay.
  Duration AddRateLimited(const Request& request);
  // Counts one more failure of `request` and queues it for now, as Add does: for a failure that
  // trying again cures at once (a write that lost a race). Returns the failures counted.
  int AddAgainNow(const Request& request);
  // Clears the failure count of `request` (its next backoff starts at backoff_base again). Does
  // not remove it from the queue or from the waiting set.
  void Forget(const Request& request);
  // The failures counted for `request` since its last Forget.
  int NumRequeues(const Request& request) const;

  // Blocks until a request is ready and returns it, marked processing; the caller must call
  // Done(request) when finished with it. nullopt once ShutDown has been called.
  std::optional<Request> Get();
  // As Get, without blocking: nullopt when nothing is ready by the clock's Now() (or after
  // ShutDown).
  std::optional<Request> TryGet();
  // Ends the processing of `request`; if it was added meanwhile, queues it again.
  void Done(const Request& request);

  // Makes waiting requests whose time has come (by the clock) ready, and wakes Get() to look.
  void WakeUp();

  // Stops the queue: Get() returns nullopt in every waiter, now and later; queued and waiting
  // requests are dropped; later Adds are ignored. Requests being processed still end with Done.
  // Idempotent.
  void ShutDown();
  bool ShuttingDown() const;

  // Stops handing out requests: Get() returns nullopt, now and later, in every waiter; adds
  // are still taken, so that reconciles in flight can requeue. For a manager that stops and
  // keeps what was left to do (Pending) before it ShutDowns.
  void StopHandingOut();
  // Whether StopHandingOut was called.
  bool HandingOutStopped() const;
  // Every request still to be processed and when it is due: ready ones and ones re-added while
  // processing at the clock's Now(), waiting ones at their time. Ordered by request.
  std::vector<std::pair<Request, SystemTime>> Pending() const;

  // Requests ready now (not counting those whose delay has passed but that no Get, TryGet or
  // WakeUp has looked at yet).
  size_t Len() const;
  // Requests being processed (handed out by Get and not yet Done).
  size_t Processing() const;
  // Requests waiting for a delay.
  size_t Waiting() const;
  // When the earliest waiting request becomes ready; nullopt when none waits.
  std::optional<SystemTime> NextWaitingTime() const;

  // Whether nothing is ready and nothing is processing. Waiting requests do not count until
  // their time has come by the clock.
  bool Idle() const;
  // Waits, on the real clock, until Idle() or `timeout`; true when idle.
  bool WaitIdle(Duration timeout) const;

 private:
  void AddLocked(const Request& request);  // requires mu_
  void PromoteDueLocked(SystemTime now);   // requires mu_
  std::optional<Request> PopLocked();      // requires mu_
  bool IdleLocked() const;                 // requires mu_
  void NotifyIfIdleLocked();               // requires mu_

  const WorkQueueOptions options_;

  mutable std::mutex mu_;
  // Signalled when a request becomes ready, on WakeUp and on ShutDown.
  std::condition_variable ready_cv_;
  // Signalled when the queue becomes idle and on ShutDown.
  mutable std::condition_variable idle_cv_;

  // Every member below is guarded by mu_.
  std::deque<Request> queue_;                   // ready, in order of arrival
  std::set<Request> dirty_;                     // need processing: queued, or re-added while
                                                // processing
  std::set<Request> processing_;                // handed out by Get, not yet Done
  std::map<Request, SystemTime> waiting_;       // request → when it becomes ready
  std::multimap<SystemTime, Request> by_time_;  // the same, ordered by time
  std::map<Request, int> failures_;             // since the last Forget
  bool shutting_down_ = false;
  bool handing_out_ = true;  // false after StopHandingOut
};

}  // namespace hop::op
