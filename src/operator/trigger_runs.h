// A TableTrigger's runs (compatibility.md §7, departure 6): how the fires a trigger records
// become Jobs, one run at a time, with what each run consumed kept in `status.jobs`. This is the
// one place that decides and starts runs: the decision is a pure function, PlanTrigger, tested on
// its own; WriteRunPlan turns its answer into writes, and FireAndStart records fires and starts
// the run they begin. The TableTrigger reconciler calls them for one trigger, the View
// reconciler for every trigger of a view in one commit. The fires themselves are recorded
// through deploy::TriggerFires, which the FIRE statements share.
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
#include <vector>

#include "common/time.h"
#include "operator/controller.h"
#include "operator/reconciler_util.h"
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
  std::optional<resource::Resource> create;  // a Job to create (it may exist already)
  std::optional<store::ObjectRef> remove;    // a finished Job to delete
  std::optional<Duration> requeue_after;     // when to look again
  std::string event;                         // what happened, for the log; empty: nothing
  // A run that succeeded: what its Job declared it materialises (hop.dev/outputs), whose
  // watermarks advance to the end of its window, `outputs_to`.
  std::vector<store::ObjectRef> outputs;
  SystemTime outputs_to{};
};

// Decides, from the trigger, the Job of its current run (nullopt when it has none or it is not
// found) and the time now. A run that cannot start (its YAML does not render, or renders no one
// object) is no error: the plan's status says why. Errors: the schedule is not a cron
// expression; like every error of this pure function, retrying cannot mend it (nothing changes
// until the trigger does). A plan that changes the status lists the newest kRunsKept runs,
// unless `keep_every_run` (FireAndStart's): only the trigger's reconciler drops runs, so that it
// can tell the local runtime which it dropped (TriggerReconciler::RunDropped), and never as a
// write of its own, so that the run FireAndStart added (kRunsKept + 1 listed) is dropped by the
// write that records its end, not by one more commit while its process starts.
hop::Result<TriggerPlan> PlanTrigger(const resource::Resource& trigger,
                                     const std::optional<resource::Resource>& current_job,
                                     SystemTime now, bool keep_every_run = false);

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

// The Job of the trigger's current run (CurrentRunJob), as stored: nullopt when the trigger has
// no run going or its Job is gone.
hop::Result<std::optional<resource::Resource>> CurrentRunJobOf(store::Store& store,
                                                               const resource::Resource& trigger);

// A Job of `trigger` that its status does not record, made for a window the trigger has not
// covered (its end after the watermark), the earliest if several: what a run started but not
// recorded leaves. On a store whose batches are not atomic (KubernetesStore) the Job of a run
// is written before the trigger's status that records it, and a writer can stop, or lose a race,
// between the two. nullopt when there is none, and at once on a store whose batches are atomic
// (nothing is read then). Errors: the store's.
hop::Result<std::optional<resource::Resource>> UnrecordedRunJob(store::Store& store,
                                                                const resource::Resource& trigger);

// `trigger` with `job` (an UnrecordedRunJob of it) recorded as its current run, over the window
// the Job's annotations give, started when the Job was created.
resource::Resource AdoptRun(resource::Resource trigger, const resource::Resource& job,
                            SystemTime now);

// Adds to `batch` what `plan` says, in this order: the Job of the run it starts (unless it
// exists: made by an earlier reconcile that could not record it), the advance of the watermarks
// of the outputs of a run that succeeded (each read from `store`; one that is gone, derives its
// watermark, or is already past the window's end is left alone and the log says so), the
// trigger's new status (if it changed from `before`, the status it was planned from), the delete
// of the finished Job (if it is still there). A run is recorded in the same batch as its Job is
// created, and the batch fails if the trigger or an output changed since it was read. The order
// is for stores whose batches are not atomic: a writer that stops part-way leaves nothing the
// next reconcile does not finish (a Job made but not recorded is adopted, UnrecordedRunJob; an
// output already advanced is not advanced twice; a finished Job still there is recorded again),
// and never a status that records a run whose Job was not made or whose outputs did not move.
Status WriteRunPlan(Batch& batch, const TriggerPlan& plan, const Json* before,
                    store::Store* store = nullptr);

// Records `fires` (oldest first) on `trigger` through deploy::TriggerFires and, when the trigger
// has no run going and the store's batches are atomic (elsewhere the trigger's reconciler
// starts it, having looked for a run left unrecorded), starts the run its first new fire
// begins, as PlanTrigger decides it, into `batch`: the trigger's status and the new Job
// together, or only the fires when no run starts (a run cannot start, its Job exists already).
// The status may then list one run more than kRunsKept, until the trigger's reconciler records
// the run's end and drops the oldest. False, and nothing added, when the trigger had every fire
// already.
hop::Result<bool> FireAndStart(Batch& batch, resource::Resource trigger,
                               const std::vector<SystemTime>& fires, SystemTime now);

// The trigger that started `job` (by the annotations RenderRun puts on it); nullopt for a Job
// no trigger started.
std::optional<store::ObjectRef> TriggerOfJob(const resource::Resource& job);

}  // namespace hop::op
