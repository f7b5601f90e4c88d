#include "cli/follow.h"

#include <csignal>

namespace hop::cli {

namespace {

// Set by the signal handler, read by the command's loop: what a handler may write.
volatile std::sig_atomic_t stop_requested = 0;

void OnStopSignal(int) { stop_requested = 1; }

}  // namespace

void StopOnSignals() {
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

bool StopRequested() { return stop_requested != 0; }

}  // namespace hop::cli
