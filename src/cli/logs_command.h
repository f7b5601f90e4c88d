// `hop logs job/NAME` prints what a Job the local runtime ran wrote; `hop logs
// tabletrigger/NAME` prints the logs of a trigger's recent runs, oldest first, each under a line
// naming the run and the window it covered. With -f both follow: the Job's log until the Job
// ends, the trigger's runs until stopped.
#pragma once

#include <ostream>
#include <string>

#include "cli/follow.h"
#include "store/store.h"

namespace hop::cli {

struct LogsOptions {
  std::string target;  // job/NAME (or NAME), tabletrigger/NAME
  std::string namespace_name = "default";
  bool follow = false;  // -f
};

// 0, or 1 when there is no such log or trigger.
//
// With `follow`, job/NAME prints what the log holds, then what the Job appends to it (the log may
// not exist yet), until the Job has finished (Complete or Failed, or is deleted) and its log is
// printed to the end; tabletrigger/NAME prints the runs as without it, then the growing log of the
// run going and each new run's header and log, until stopped. Both end, with 0, when `stop` says
// stop or the output fails (a closed pipe). They watch the store for changes of the Job or the
// trigger and look at the log files every kFollowPoll.
int RunLogs(const LogsOptions& options, const std::string& state_dir, store::Store& store,
            std::ostream& out, std::ostream& err, const StopFunction& stop = {});

}  // namespace hop::cli
