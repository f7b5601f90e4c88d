// What the commands that follow the store (`hop get -w`, `hop logs -f`) share: how they are told
// to stop. They run until the user stops them, so the binary turns SIGINT and SIGTERM into a flag
// they poll, and tests hand them a function of their own instead.
#pragma once

#include <chrono>
#include <functional>

namespace hop::cli {

// Returns true once a following command should stop; polled at least every kFollowPoll. Empty:
// never (the command runs until its output is closed, or, for `hop logs -f job/...`, the Job ends).
using StopFunction = std::function<bool()>;

// How often a following command looks at its stop function and at files that grow (logs).
inline constexpr std::chrono::milliseconds kFollowPoll{100};

// Makes SIGINT and SIGTERM set the flag StopRequested() returns, and ignores SIGPIPE, so that a
// closed standard output (`hop get -w | head`) is a failed write the command notices and ends on
// quietly, instead of a signal that kills it. For the binary's main thread, before any other
// thread starts.
void StopOnSignals();

// Whether SIGINT or SIGTERM came since StopOnSignals().
bool StopRequested();

// Whether `stop` says stop (false for an empty one).
inline bool ShouldStop(const StopFunction& stop) { return stop && stop(); }

}  // namespace hop::cli
