// `hop wait [--timeout S]`: returns once the state directory has nothing left to do (no fire
// waiting for its run, no run or Job going, no retry pending), whichever process reconciles it,
// so that a script can fire triggers and then wait for their runs. The store says what is left
// (session::BusyWork); when no other process holds the lease, this one reconciles meanwhile.
#pragma once

#include <functional>
#include <ostream>

#include "session/control_plane.h"
#include "store/store.h"

namespace hop::cli {

struct WaitCommandOptions {
  double timeout_seconds = 60;  // 0 looks once; at most 86400
};

// 0 when the state directory became idle within the timeout; 1 when it did not (the message on
// `err` says what is still busy and who reconciles) or the store failed; 2 for a bad timeout.
// `start_control_plane` makes this process's control plane (it may return null, or one that
// does not lead); it runs only if the state directory has work for it (WaitUntilIdle).
int RunWait(const WaitCommandOptions& options, store::Store& store,
            const session::ControlPlaneStarter& start_control_plane, std::ostream& out,
            std::ostream& err);

}  // namespace hop::cli
