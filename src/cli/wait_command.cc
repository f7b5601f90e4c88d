#include "cli/wait_command.h"

#include <fmt/format.h>

#include <chrono>

namespace hop::cli {

int RunWait(const WaitCommandOptions& options, store::Store& store,
            const session::ControlPlaneStarter& start_control_plane, std::ostream& out,
            std::ostream& err) {
  (void)out;
  if (!(options.timeout_seconds >= 0) || options.timeout_seconds > 86400) {
    err << fmt::format("hop wait: --timeout takes a number of seconds from 0 to 86400, not {}\n",
                       options.timeout_seconds);
    return 2;
  }
  session::WaitOptions wait;
  wait.timeout =
      std::chrono::milliseconds(static_cast<int64_t>(options.timeout_seconds * 1000 + 0.5));
  wait.control_plane =
      start_control_plane ? start_control_plane(session::ControlPlaneNeed::kWhenBusy) : nullptr;
  Status st = session::WaitUntilIdle(store, wait);
  if (!st.ok()) {
    err << "hop wait: " << st.ToString() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace hop::cli
