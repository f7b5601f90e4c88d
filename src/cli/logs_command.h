// `hop logs job/NAME` prints what a Job the local runtime ran wrote; `hop logs
// tabletrigger/NAME` prints the logs of a trigger's recent runs, oldest first, each under a line
// naming the run and the window it covered.
#pragma once

#include <ostream>
#include <string>

#include "store/store.h"

namespace hop::cli {

struct LogsOptions {
  std::string target;  // job/NAME (or NAME), tabletrigger/NAME
  std::string namespace_name = "default";
};

// 0, or 1 when there is no such log or trigger.
int RunLogs(const LogsOptions& options, const std::string& state_dir, store::Store& store,
            std::ostream& out, std::ostream& err);

}  // namespace hop::cli
