// The local runtime's Job runner (ARCHITECTURE.md §4.6, "a small kubelet"): it runs `batch/v1`
// Jobs stored in the state directory as local process groups, and keeps each Job's status the
// way Kubernetes' Job controller would, so that the operator's reconcilers cannot tell the
// difference. One Job is one process at a time (`parallelism` and `completions` other than 1 are
// refused in status); `backoffLimit` retries and `activeDeadlineSeconds` are honoured.
//
// What it writes in a Job's status (docs/runtime.md has the whole story):
//   active: 1 while an attempt runs; startTime (first attempt), completionTime, succeeded: 1,
//   failed: <failed attempts>; conditions Complete (reason CompletionsReached) or Failed (reasons
//   BackoffLimitExceeded, DeadlineExceeded, InvalidJobSpec), each with lastTransitionTime;
//   hop: {attempts, pid, pidStartTicks, bootId, exitFile, attemptStartTime, lastExitTime,
//         lastExitCode, lastResult} -- hop's bookkeeping, which lets a restarted runner adopt
//   a running attempt instead of starting another.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "common/status.h"
#include "common/time.h"
#include "store/store.h"

namespace hop::metrics {
class Registry;
}

namespace hop::runtime {

struct JobRunnerOptions {
  // Logs go to <state_dir>/logs/<namespace>/<job>.log; a Job runs in <state_dir>/jobs/<ns>/<job>.
  std::string state_dir;
  // Processes at once; more Jobs wait their turn. 0: DefaultMaxRunning().
  int max_running = 0;
  bool enabled = true;                  // false: Jobs are left alone (--no-local-jobs)
  const Clock* clock = &SystemClock();  // timestamps in status and activeDeadlineSeconds
  // From SIGTERM to SIGKILL when a Job's process group is killed, unless the pod template sets
  // terminationGracePeriodSeconds.
  std::chrono::milliseconds kill_grace{5000};
  // The wait before the second attempt after a failure; doubled for each further failure, at
  // most max_retry_delay (Kubernetes waits 10 s, doubling, at most 6 min; a laptop wants less).
  std::chrono::milliseconds retry_delay{1000};
  std::chrono::milliseconds max_retry_delay{10000};
  // The reaper thread waits on the pidfds of the processes it watches and so learns of an exit
  // at once. It looks every poll_interval only while something has no pidfd (a kernel before
  // 5.3), while an exit could not be recorded (the store failed), or for the deadlines of a
  // runner on an injected clock (which can jump).
  std::chrono::milliseconds poll_interval{25};
  // Where the runner registers its metrics (docs/metrics.md): Jobs finished by outcome, the
  // fire-to-start latency, processes running. nullptr: Registry::Default(). Not owned; must
  // outlive the runner.
  metrics::Registry* registry = nullptr;
};

// The default of JobRunnerOptions::max_running: twice the CPUs this process may run on
// (sched_getaffinity), at least 4.
int DefaultMaxRunning();

class JobRunner {
 public:
  JobRunner(store::Store& store, JobRunnerOptions options);
  ~JobRunner();  // Stop()
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  // Brings the Job `ref` towards its state: starts its process when it has none and should run,
  // records exits, retries, deadlines and deletion (a deleted Job's process group is killed).
  // Returns when to look again: a running Job's deadline, the wait before a retry; nullopt when
  // only a change of the Job (or an exit, which the reaper records in the Job's status) needs
  // another look. A Job that waits because max_running processes already run is queued, and the
  // reaper thread starts it when a process ends (nullopt, or its deadline); without a reaper
  // thread (no Start()) Sync returns a short wait instead. Does nothing when the
  // runner is disabled. Errors: the store's (retry), Unavailable when the work directory, the
  // log or /proc cannot be used, InvalidArgument for a ref that is not a batch/v1 Job. A Job that
  // cannot run (no command, ...) is not an error: it is marked Failed; nor is a process the
  // system refuses to start (an argument list too long): that attempt counts as failed, with
  // the reason in status.hop.lastResult and the log, and is retried as the backoff limit says.
  // Idempotent; thread-safe; never starts a second process for a Job while a recorded one may be
  // alive.
  Result<std::optional<std::chrono::milliseconds>> Sync(const store::ObjectRef& ref);

  // Starts the thread that notices processes exiting and records them in their Jobs' status
  // (which the operator then sees as Job events), and starts queued Jobs as processes end.
  // Adopts, after a restart, the processes of Jobs that were running: one that vanished counts
  // as a failed attempt; a process whose Job was deleted meanwhile is killed. Queues the Jobs that
  // have not started yet, oldest first, and starts as many as max_running allows, so that none
  // depends on another Sync to run. OK and nothing done when disabled or already started.
  Status Start();
  // Stops noticing exits; running processes are left running, to be adopted on the next start.
  // Process groups already being killed get SIGKILL now rather than after their grace.
  void Stop();

  // Processes running now (attempts, and killed ones not yet gone). Thread-safe.
  int Running() const;

  // What the runner has done: processes running now, and how long trigger runs waited from
  // their fire (the Job's `triggerTimestamp`) to their process starting, over the latest 1,000.
  struct Stats {
    int running = 0;
    int64_t started_runs = 0;
    double fire_to_start_p50_ms = 0;
    double fire_to_start_p99_ms = 0;
  };
  Stats stats() const;

  // The log file of a Job: every attempt's stdout and stderr, after a header line.
  std::string LogPath(const store::ObjectRef& ref) const;
  // The same for a runner on `state_dir`, for readers of logs that run no runner (`hop logs`):
  // <state_dir>/logs/<namespace, "default" when empty>/<name>.log.
  static std::string LogPathIn(const std::string& state_dir, const store::ObjectRef& ref);
  // The working directory of a Job's process. It goes when the runner finds the Job gone (a Sync
  // of a deleted Job, or a Start after the Job was deleted while no runner ran).
  std::string WorkDir(const store::ObjectRef& ref) const;
  // Removes the log of the Job `ref` when the Job is gone and no process of it runs here: a
  // trigger's run that its status no longer lists (the reconciler keeps a deleted run's log
  // while it does, for `hop logs tabletrigger/...`). OK when there is nothing to remove; the
  // store's error when it cannot tell whether the Job exists. Thread-safe.
  Status RemoveLog(const store::ObjectRef& ref);
  // Whether a work directory under `state_dir` holds the marker of an attempt: a process some
  // runner started and has not yet seen end, which a Start adopts, or kills when no Job records
  // it. False when there is none (a Start would find nothing to adopt on this machine).
  static bool AttemptMarkersIn(const std::string& state_dir);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hop::runtime
