#include "cli/logs_command.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/resource_commands.h"
#include "resource/kinds.h"
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

bool PrintFile(const std::string& path, std::ostream& out) {
  std::ifstream in(path);
  if (!in) return false;
  out << in.rdbuf();
  return true;
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
      err << "hop logs: " << trigger.status().ToString() << "\n";
      return 1;
    }
    const Json* status = trigger->status();
    if (status == nullptr || !status->contains("jobs") || (*status)["jobs"].empty()) {
      err << "hop logs: trigger " << name << " has not run yet\n";
      return 1;
    }
    for (const Json& run : (*status)["jobs"]) {
      const std::string job = run.value("name", "");
      const std::string ns = run.value("namespace", options.namespace_name);
      out << "=== " << job << ": (" << run.value("from", "") << ", " << run.value("to", "") << "] "
          << run.value("outcome", "Running") << "\n";
      if (!PrintFile(session::ControlPlane::JobLogPath(state_dir, ns, job), out)) {
        out << "(no local log: the job did not run on this machine)\n";
      }
    }
    return 0;
  }
  Strip(name, {"job/", "jobs/", "job.batch/", "jobs.batch/"});
  const std::string path =
      session::ControlPlane::JobLogPath(state_dir, options.namespace_name, name);
  if (!PrintFile(path, out)) {
    err << "hop logs: no log for job " << options.namespace_name << "/" << name << " (" << path
        << ")\n";
    return 1;
  }
  return 0;
}

}  // namespace hop::cli
