// The control plane of one process: the operator's reconcilers on a Manager, and the local
// runtime's Job runner, over a state directory. Only the process holding the directory's lease
// runs them (ARCHITECTURE.md §4.5): `hop serve` and an interactive `hop` can share a directory,
// and whichever came first reconciles.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "catalog/provisioner.h"
#include "common/status.h"
#include "common/time.h"
#include "store/sqlite_store.h"
#include "store/store.h"

namespace hop::op {
class LeaderElector;
}  // namespace hop::op

namespace hop::session {

struct ControlPlaneOptions {
  std::string state_dir;
  bool local_jobs = true;  // run batch/v1 Jobs on this machine (--no-local-jobs: false)
  // Run the operator's reconcilers. False (`hop serve --no-operator`): only the local runtime
  // runs, so the process stands in for a Kubernetes cluster's Job controller and kubelet while
  // `hop operator` reconciles through the Kubernetes API (docs/kubernetes.md).
  bool reconcile = true;
  int workers = 2;
  int max_running_jobs = 0;  // 0: runtime::DefaultMaxRunning()
  const Clock* clock = &SystemClock();
  const catalog::Provisioners* provisioners = nullptr;  // not owned
  // `hop` with its state directory, as a refresh's Job runs it (op::RefreshJobs::command):
  // {"/usr/bin/hop", "--state", "/abs/dir"}. Empty: no materialized view is refreshed here.
  std::vector<std::string> refresh_command;
  // On a cluster: the refresh Jobs' container image and service account (op::RefreshJobs).
  std::string job_image;
  std::string job_service_account;
  // The namespace the reconcilers watch; "" for every namespace.
  std::string namespace_name;
  // The Kubernetes mode (`hop operator`, docs/kubernetes.md): the process leads when this elector
  // holds its coordination.k8s.io Lease in the store, instead of by the state directory's lock
  // file; the state directory may be empty (nothing is kept on this machine: no checkpoint), no
  // Job runs here (the cluster runs them), and the elements of pipelines are reported on by the
  // cluster's controllers (Job, FlinkDeployment, FlinkSessionJob, KafkaTopic). Not owned.
  op::LeaderElector* elector = nullptr;
  // With an elector: called once, from the thread that renews the lease, when this process stops
  // leading because the lease could not be renewed within its deadline (it has stopped
  // reconciling already: the caller goes back to standing by).
  std::function<void()> on_lost;
};

class ControlPlane {
 public:
  // Takes the lease of the state directory and starts the reconcilers and the Job runner. When
  // another process holds the lease, returns a control plane that runs nothing (leading() is
  // false). Errors: the store or the lease file cannot be used.
  static Result<std::unique_ptr<ControlPlane>> Start(store::Store& store,
                                                     ControlPlaneOptions options);
  // The same in two steps: Create starts nothing (no lease is taken, no thread runs, no
  // reconciler is made); Run then does what Start does. Run is done once: a second call does
  // nothing. Errors of Run: Start's.
  static std::unique_ptr<ControlPlane> Create(store::Store& store, ControlPlaneOptions options);
  Status Run();
  bool ran() const;  // Run was called (whether or not it leads)
  // After a Run that found another process leading the state directory: takes its lease if it
  // is free now (that process stopped or died) and starts as Run does. Nothing before Run, while
  // leading, or in the Kubernetes mode (its elector's stand-by takes over there). Errors: Run's.
  Status TryToLead();
  // Before Run: whether Run would start a control plane with nothing to do at the store's
  // current revision: the operator would resume from a checkpoint taken at that revision with
  // no request due yet (op::Manager::Converged), and no Job process is left from an attempt on
  // this machine for the runner to adopt. With BusyWork empty too, `!wait` and `hop wait` need
  // no control plane (docs/operator.md, "Resuming"). InvalidArgument after Run; else the
  // store's errors.
  Result<bool> Converged();
  ~ControlPlane();  // Stop()

  // Whether this process reconciles the state directory (with an elector: holds the Lease and
  // has not lost it since).
  bool leading() const;
  // The state directory it was started on.
  const std::string& state_dir() const;
  // Who does, when this process does not ("pid 1234, since ...").
  std::string leader() const;

  // Waits until no reconcile is queued or running and no Job process runs in this process
  // (changes due later, such as cron ticks, do not count). True when that happened within
  // `timeout`. A control plane that does not lead returns false at once. What a state directory
  // still has to do, whoever reconciles it, is WaitUntilIdle's business.
  bool WaitIdle(std::chrono::milliseconds timeout);
  // Whether this process's reconciles and Job processes are idle now (true when not leading).
  bool LocalIdle() const;

  // The operator's and the runtime's counters, as `name value` rows (empty when not leading).
  std::vector<std::pair<std::string, std::string>> Metrics() const;

  // Stops reconciling; Job processes keep running, to be adopted by the next leader.
  void Stop();

  // How a long-running control plane (`hop serve`) opens its store: its watches look for writes
  // of other processes every 100 ms rather than 25, which keeps an idle operator's CPU low at the
  // price of that much latency for fires written by another process.
  static store::SqliteStoreOptions StoreOptions();

  // The log file of a Job the local runtime ran.
  static std::string JobLogPath(const std::string& state_dir, const std::string& namespace_name,
                                const std::string& name);

 private:
  ControlPlane();
  // Run's and TryToLead's, once the lease is held: builds and starts the reconcilers and runner.
  Status StartLeading();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// What keeps the state directory of `store` from being idle, read from the store alone, so that
// any process can tell, whichever holds the lease. One line per item, naming the object and why:
//   - a TableTrigger whose newest run has not finished, or, unless it is paused (a paused
//     trigger holds its fires until RESUME), with a fire no run has taken yet, a retry asked for
//     or a cron tick due (op::PendingWork);
//   - a View with watermarks its triggers have not been given yet (queued in its status, or
//     later than the latest fire of a trigger labelled with it);
//   - a TableProvisionJob no reconcile has looked at since it changed, or one being retried
//     because its system could not be reached;
//   - a batch/v1 Job that has not finished (an attempt running, or a retry waiting), unless it
//     is suspended.
// Empty: idle. Errors: the store's.
Result<std::vector<std::string>> BusyWork(store::Store& store, SystemTime now);

// How a command gets this process's control plane when it first needs one; made at most once,
// null when this process runs none (on a cluster, `hop operator` reconciles). kRun: run it now
// (the writes of a DDL statement are reconciled here, and the shell's triggers fire while the
// user works). kWhenBusy: make it, for WaitUntilIdle to run once it finds work.
enum class ControlPlaneNeed { kRun, kWhenBusy };
using ControlPlaneStarter = std::function<ControlPlane*(ControlPlaneNeed)>;

struct WaitOptions {
  std::chrono::milliseconds timeout{60000};
  std::string state_dir;  // to name who reconciles it on a timeout; empty: control_plane's
  // This process's, if any: its own work counts too. One that has not run yet (Create) is run
  // at the first look that finds work for it: BusyWork not empty, or not Converged.
  ControlPlane* control_plane = nullptr;
  const Clock* clock = &SystemClock();  // for cron ticks
  // Set when the wait should end at once (a script's Ctrl-C): it then fails, saying so.
  const std::atomic<bool>* cancel = nullptr;
};

// Waits until the state directory is idle: BusyWork is empty in one consistent look at the
// store (no write between its first and last read) and, when `control_plane` leads, its
// reconciles and processes are idle too. A `control_plane` not run yet is run when a look finds
// work it would do; on a converged state directory it never is (a `!wait` then starts no
// thread), nor by a wait of 0. The store is read again only when its revision moves.
// OK when that happened within the timeout (a timeout of 0 looks once); an ExecutionError when
// `cancel` was set first; Unavailable otherwise,
// with a message that says how long it waited, what is still busy (the first few items) and who
// reconciles the directory, or that nobody does. Errors: the store's.
Status WaitUntilIdle(store::Store& store, const WaitOptions& options);

}  // namespace hop::session
