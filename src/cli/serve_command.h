// `hop serve`: the long-running control plane of a state directory (the operator's reconcilers
// and the local Job runner) until SIGTERM or SIGINT.
#pragma once

#include <string>

#include "store/store.h"

namespace hop::cli {

struct ServeOptions {
  std::string state_dir;
  bool local_jobs = true;
  int workers = 2;
  int max_running_jobs = 4;
};

// Blocks SIGTERM and SIGINT (call before any thread starts), runs the control plane, and
// returns when one arrives: 0 after a clean stop, 1 when another process holds the state
// directory's lease or the control plane cannot start.
int RunServe(const ServeOptions& options, store::Store& store, std::ostream& out,
             std::ostream& err);

// Blocks SIGTERM and SIGINT in the calling thread and in the threads it starts later.
void BlockStopSignals();

}  // namespace hop::cli
