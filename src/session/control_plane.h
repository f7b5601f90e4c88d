// The control plane of one process: the operator's reconcilers on a Manager, and the local
// runtime's Job runner, over a state directory. Only the process holding the directory's lease
// runs them (ARCHITECTURE.md §4.5): `hop serve` and an interactive `hop` can share a directory,
// and whichever came first reconciles.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "catalog/provisioner.h"
#include "common/status.h"
#include "common/time.h"
#include "store/sqlite_store.h"
#include "store/store.h"

namespace hop::session {

struct ControlPlaneOptions {
  std::string state_dir;
  bool local_jobs = true;  // run batch/v1 Jobs on this machine (--no-local-jobs: false)
  int workers = 2;
  int max_running_jobs = 4;
  const Clock* clock = &SystemClock();
  const catalog::Provisioners* provisioners = nullptr;  // not owned
};

class ControlPlane {
 public:
  // Takes the lease of the state directory and starts the reconcilers and the Job runner. When
  // another process holds the lease, returns a control plane that runs nothing (leading() is
  // false). Errors: the store or the lease file cannot be used.
  static Result<std::unique_ptr<ControlPlane>> Start(store::Store& store,
                                                     ControlPlaneOptions options);
  ~ControlPlane();  // Stop()

  // Whether this process reconciles the state directory.
  bool leading() const;
  // Who does, when this process does not ("pid 1234, since ...").
  std::string leader() const;

  // Waits until no reconcile is queued or running and no Job process runs (changes due later,
  // such as cron ticks, do not count). True when that happened within `timeout`. A control
  // plane that does not lead returns false at once.
  bool WaitIdle(std::chrono::milliseconds timeout);

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
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hop::session
