// The TableTrigger reconciler (compatibility.md §7, departure 6): it turns
// the fires a trigger records into Jobs, one run at a time, and keeps in `status.jobs` what each
// run consumed. The decision is a pure function, PlanTrigger, tested on its own; the reconciler
// only reads the store, asks it, and writes what it says.
//
// A trigger's state, in its status:
//   timestamp     the latest fire (FIRE TRIGGER, FIRE TABLE, a view's watermark, a cron tick)
//   watermark     the latest fire a successful run covered
//   pending       firePolicy Each: the fires not run yet, oldest first
//   retry         the end of a failed window asked to run again (FIRE TRIGGER ... RETRY)
//   lastSchedule  the latest cron tick accounted for
//   jobs          recent runs: name, namespace, from, to, started, finished, outcome, message,
//                 retry (how many runs of the same window came before)
//   lastRun       how the newest run is: Running, Succeeded or Failed
//   message       why the newest run failed, or why no run can start
// A run covers the window (watermark, fire]: the Job gets them as {{watermark}} and
// {{timestamp}}. With firePolicy Coalesce (the default) one run covers every fire recorded
// since the last, however many arrived while the previous ran; with Each, every fire gets its
// own run, in order. A failed run leaves the watermark where it was and takes no fire with it:
// the next fire's run covers the failed window too, and a retry runs exactly that window again.
// A paused trigger records fires and runs them after RESUME; a run already going when it is
// paused finishes. Cron ticks missed while hop was down are fires too:
// coalesced into one run, or (Each) one run per tick, at most kMaxCatchUp of them.
#pragma once

#include <optional>
#include <string>

#include "common/time.h"
#include "operator/controller.h"
#include "resource/resource.h"
#include "store/store.h"

namespace hop::op {

// The most missed cron ticks a trigger with firePolicy Each catches up on, newest kept.
inline constexpr int kMaxCatchUp = 1000;
// How many runs `status.jobs` keeps.
inline constexpr size_t kRunsKept = 20;

// What to do for a trigger now.
struct TriggerPlan {
  resource::Resource trigger;                // the trigger with the status it should have
  bool status_changed = false;               // whether that status differs from the stored one
  std::optional<resource::Resource> create;  // a Job to create (it may exist already)
  std::optional<store::ObjectRef> remove;    // a finished Job to delete
  std::optional<Duration> requeue_after;     // when to look again
  std::string event;                         // what happened, for the log; empty: nothing
};

// Decides, from the trigger, the Job of its current run (nullopt when it has none or it is not
// found) and the time now. A run that cannot start (its YAML does not render, or renders no one
// object) is no error: the plan's status says why. Errors: the schedule is not a cron
// expression; like every error of this pure function, retrying cannot mend it (nothing changes
// until the trigger does).
hop::Result<TriggerPlan> PlanTrigger(const resource::Resource& trigger,
                                     const std::optional<resource::Resource>& current_job,
                                     SystemTime now);

// The name of the Job of the run that ends at `fire`: `<base>-<yyyymmddthhmmssmmm>`, and
// `-r<retry>` for the retries of that window, cut to 63 characters, so that one run can never
// have two Jobs.
std::string RunJobName(std::string_view base, SystemTime fire, int64_t retry = 0);

// What the operator has still to do for `trigger` at `now`, in words ("run x is going", "the
// fire at ... waits for its run", "the retry of ... waits to start", "the cron tick at ... is
// due"); nullopt when nothing. A paused trigger's held fires are not work (they wait for RESUME),
// and neither is a fire no run can start for (the status's message says why).
std::optional<std::string> PendingWork(const resource::Resource& trigger, SystemTime now);

// The current run of a trigger (the newest entry of status.jobs without `finished`), as the
// reference of its Job; nullopt when there is none.
std::optional<store::ObjectRef> CurrentRunJob(const resource::Resource& trigger);

class TriggerReconciler : public Reconciler {
 public:
  explicit TriggerReconciler(store::Store& store) : store_(store) {}
  hop::Result<ReconcileResult> Reconcile(const Request& request,
                                         const ReconcileContext& context) override;

  // Maps a Job's event to the trigger that started it (by its annotations).
  static std::vector<Request> JobEvent(const store::Event& event);

 private:
  store::Store& store_;
};

}  // namespace hop::op
