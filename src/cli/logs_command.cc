// `hop logs`: the log files of the local runtime, found by the Job's namespace and name. Both
// become a path under the state directory, so both are checked against Kubernetes' name rules
// before any path is built: `job/../../x` or a trigger whose status names such a Job is refused,
// never read.
#include "cli/logs_command.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/resource_commands.h"
#include "common/strings.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "session/control_plane.h"

namespace hop::cli {

namespace {

bool Strip(std::string& text, std::initializer_list<const char*> prefixes) {
  for (const char* prefix : prefixes) {
    const std::string p(prefix);
    if (text.rfind(p, 0) == 0) {
      text = text.substr(p.size());
      return true;
    }
  }
  return false;
}

// The job's own bytes, as it wrote them: `hop logs` is `cat` of the log (docs/runtime.md).
bool PrintFile(const std::string& path, std::ostream& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out << in.rdbuf();
  return true;
}

// OK when `ns`/`name` can name a Job, and so a file under the state directory.
Status CheckJobName(const std::string& ns, const std::string& name) {
  if (Status s = resource::ValidateDnsLabel(ns); !s.ok()) {
    return Status::InvalidArgument("namespace: " + s.message());
  }
  if (Status s = resource::ValidateObjectName(name); !s.ok()) {
    return Status::InvalidArgument("job name: " + s.message());
  }
  return Status::OK();
}

}  // namespace

int RunLogs(const LogsOptions& options, const std::string& state_dir, store::Store& store,
            std::ostream& out, std::ostream& err) {
  std::string name = options.target;
  if (Strip(name, {"tabletrigger/", "tabletriggers/", "trigger/"})) {
    const resource::GroupKind kind = resource::TableTriggerKind::Info().group_kind();
    auto trigger = store.Get(
        {kind, options.namespace_name, StoredName(store, kind, options.namespace_name, name)});
    if (!trigger.ok()) {
      err << "hop logs: " << EscapeForTerminal(trigger.status().ToString()) << "\n";
      return 1;
    }
    const Json* status = trigger->status();
    if (status == nullptr || !status->contains("jobs") || !(*status)["jobs"].is_array() ||
        (*status)["jobs"].empty()) {
      err << "hop logs: trigger " << EscapeForTerminal(name) << " has not run yet\n";
      return 1;
    }
    for (const Json& run : (*status)["jobs"]) {
      if (!run.is_object()) continue;
      const auto text = [&](const char* key, const char* otherwise) {
        const auto it = run.find(key);
        return it != run.end() && it->is_string() ? it->get<std::string>() : otherwise;
      };
      const std::string job = text("name", "");
      const std::string ns = text("namespace", options.namespace_name.c_str());
      out << EscapeForTerminal(fmt::format("=== {}: ({}, {}] {}", job, text("from", ""),
                                           text("to", ""), text("outcome", "Running")))
          << "\n";
      // The status can be written by anyone who can apply the trigger: its names are checked
      // like the command line's.
      if (Status s = CheckJobName(ns, job); !s.ok()) {
        out << "(no log: " << EscapeForTerminal(s.message()) << ")\n";
      } else if (!PrintFile(session::ControlPlane::JobLogPath(state_dir, ns, job), out)) {
        out << "(no local log: the job did not run on this machine)\n";
      }
    }
    return 0;
  }
  Strip(name, {"job/", "jobs/", "job.batch/", "jobs.batch/"});
  if (Status s = CheckJobName(options.namespace_name, name); !s.ok()) {
    err << "hop logs: " << EscapeForTerminal(s.ToString()) << "\n";
    return 1;
  }
  const std::string path =
      session::ControlPlane::JobLogPath(state_dir, options.namespace_name, name);
  if (!PrintFile(path, out)) {
    err << "hop logs: no log for job " << options.namespace_name << "/" << name << " ("
        << EscapeForTerminal(path) << ")\n";
    return 1;
  }
  return 0;
}

}  // namespace hop::cli
