// `hop logs`: the log files of the local runtime, found by the Job's namespace and name. Both
// become a path under the state directory, so both are checked against Kubernetes' name rules
// before any path is built: `job/../../x` or a trigger whose status names such a Job is refused,
// never read.
//
// -f follows: the store is watched for the changes that tell when there is more (a Job's end, a
// trigger's new run), and the log files, which the runner appends to, are looked at every
// kFollowPoll.
#include "cli/logs_command.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "cli/resource_commands.h"
#include "common/strings.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "runtime/job_model.h"
#include "session/control_plane.h"

namespace hop::cli {

namespace {

using Clock = std::chrono::steady_clock;

const resource::GroupKind kJobKind{"batch", "Job"};

// Polls without growth, after the Job or run ended, before its log is taken as complete: the
// runner appends its `--- hop: attempt N exited ...` line just after it records the end.
constexpr int kSettlePolls = 3;

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

// A log file read as the runner appends to it: each Print copies what came since the last. The
// job's own bytes, as it wrote them: `hop logs` is `cat` of the log (docs/runtime.md).
class LogTail {
 public:
  explicit LogTail(std::string path) : path_(std::move(path)) {}
  ~LogTail() {
    if (fd_ >= 0) ::close(fd_);
  }
  LogTail(const LogTail&) = delete;
  LogTail& operator=(const LogTail&) = delete;

  // The bytes printed, or -1 while the file does not exist. (The runner only appends to it, so
  // once open it stays the file.)
  int64_t Print(std::ostream& out) {
    if (fd_ < 0) fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return -1;
    int64_t printed = 0;
    char buffer[64 * 1024];
    for (;;) {
      const ssize_t n = ::pread(fd_, buffer, sizeof buffer, static_cast<off_t>(offset_));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      out.write(buffer, n);
      offset_ += static_cast<uint64_t>(n);
      printed += n;
    }
    return printed;
  }

 private:
  const std::string path_;
  int fd_ = -1;
  uint64_t offset_ = 0;
};

// How long until the next look at the log files, given the last.
std::chrono::milliseconds UntilPoll(Clock::time_point last_poll) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(last_poll + kFollowPoll - Clock::now());
  return std::max(left, std::chrono::milliseconds(0));
}

// `hop logs -f job/NAME`, after the checks: the log as it grows, until the Job is over.
int FollowJob(const std::string& ns, const std::string& name, const std::string& path,
              store::Store& store, std::ostream& out, std::ostream& err, const StopFunction& stop) {
  const store::ObjectRef ref{kJobKind, ns, name};
  // The Job as of a revision, and a watch from it: no end of the Job goes unseen.
  const auto look = [&](int64_t* revision, bool* over) -> Status {
    auto now = store.Revision();
    if (!now.ok()) return now.status();
    auto job = store.Find(ref);
    if (!job.ok()) return job.status();
    *revision = *now;
    // A Job that is gone (or was never in this store) writes no more.
    *over = !job->has_value() || runtime::JobFinished(**job);
    return Status::OK();
  };
  int64_t revision = 0;
  bool over = false;
  if (Status s = look(&revision, &over); !s.ok()) {
    err << "hop logs: " << EscapeForTerminal(s.ToString()) << "\n";
    return 1;
  }
  LogTail log(path);
  if (log.Print(out) < 0 && over) {
    err << "hop logs: no log for job " << ns << "/" << name << " (" << EscapeForTerminal(path)
        << ")\n";
    return 1;
  }
  auto watch = store.StartWatch({kJobKind, ns, revision});
  Clock::time_point last_poll = Clock::now();
  int quiet = 0;  // polls without growth since the Job ended
  for (;;) {
    out.flush();
    if (!out || ShouldStop(stop)) return 0;
    if (over && quiet >= kSettlePolls) return 0;
    store::Event event;
    bool ours = false;
    switch (watch->Next(UntilPoll(last_poll), &event)) {
      case store::Watch::Outcome::kEvent:
        if (event.object.name() != name) break;
        ours = true;
        over = event.type == store::EventType::kDeleted || runtime::JobFinished(event.object);
        break;
      case store::Watch::Outcome::kTooOld:
        if (Status s = look(&revision, &over); !s.ok()) {
          err << "hop logs: " << EscapeForTerminal(s.ToString()) << "\n";
          return 1;
        }
        watch = store.StartWatch({kJobKind, ns, revision});
        break;
      case store::Watch::Outcome::kClosed:
        over = true;  // nothing more can be learnt: print what is there
        break;
      case store::Watch::Outcome::kTimeout: break;
    }
    if (ours || UntilPoll(last_poll).count() == 0) {
      last_poll = Clock::now();
      const int64_t printed = log.Print(out);
      if (over) quiet = printed > 0 ? 0 : quiet + 1;
    }
  }
}

// A trigger's runs as `hop logs` prints them: each under a header line, its log after it.
class TriggerRuns {
 public:
  TriggerRuns(std::string state_dir, std::string namespace_name, bool follow)
      : state_dir_(std::move(state_dir)),
        namespace_name_(std::move(namespace_name)),
        follow_(follow) {}

  bool empty() const { return runs_.empty(); }

  // Prints the header of each run of the trigger's `status` not printed yet, and its log: all
  // of it for a run that ended (or when not following), what there is so far for one going.
  void Update(const Json* status, std::ostream& out) {
    if (status == nullptr || !status->contains("jobs") || !(*status)["jobs"].is_array()) return;
    for (const Json& run : (*status)["jobs"]) {
      if (!run.is_object()) continue;
      const auto text = [&](const char* key, const std::string& otherwise) {
        const auto it = run.find(key);
        return it != run.end() && it->is_string() ? it->get<std::string>() : otherwise;
      };
      const std::string job = text("name", "");
      const std::string ns = text("namespace", namespace_name_);
      const bool ended = run.contains("outcome");
      Run* known = Find(ns, job);
      if (known != nullptr) {
        if (ended && !known->ended) known->ended = true;
        continue;
      }
      // What the runs printed so far wrote comes before the next header.
      Poll(out);
      out << EscapeForTerminal(fmt::format("=== {}: ({}, {}] {}", job, text("from", ""),
                                           text("to", ""), text("outcome", "Running")))
          << "\n";
      runs_.push_back(std::make_unique<Run>(ns, job));
      Run& r = *runs_.back();
      r.ended = ended;
      // The status can be written by anyone who can apply the trigger: its names are checked
      // like the command line's.
      if (Status s = CheckJobName(ns, job); !s.ok()) {
        out << "(no log: " << EscapeForTerminal(s.message()) << ")\n";
        r.closed = true;
        continue;
      }
      r.log = std::make_unique<LogTail>(session::ControlPlane::JobLogPath(state_dir_, ns, job));
      r.found = r.log->Print(out) >= 0;
      if (ended || !follow_) Close(r, out);
    }
  }

  // Prints what the logs of the runs going appended; a run that ended is closed once its log
  // stopped growing.
  void Poll(std::ostream& out) {
    for (auto& r : runs_) {
      if (r->closed) continue;
      const int64_t printed = r->log->Print(out);
      if (printed >= 0) r->found = true;
      if (!r->ended) continue;
      r->quiet = printed > 0 ? 0 : r->quiet + 1;
      if (r->quiet >= kSettlePolls) Close(*r, out);
    }
  }

  // Prints the rest of every run's log: nothing more is followed.
  void Finish(std::ostream& out) {
    for (auto& r : runs_) {
      if (!r->closed) {
        if (r->log->Print(out) >= 0) r->found = true;
        Close(*r, out);
      }
    }
  }

 private:
  struct Run {
    Run(std::string ns, std::string job) : ns(std::move(ns)), job(std::move(job)) {}
    std::string ns;
    std::string job;
    std::unique_ptr<LogTail> log;
    bool ended = false;   // the run has an outcome
    bool found = false;   // its log file exists
    bool closed = false;  // printed to the end
    int quiet = 0;        // polls without growth since it ended
  };

  Run* Find(const std::string& ns, const std::string& job) {
    for (auto& r : runs_) {
      if (r->ns == ns && r->job == job) return r.get();
    }
    return nullptr;
  }

  void Close(Run& r, std::ostream& out) {
    if (!r.found) out << "(no local log: the job did not run on this machine)\n";
    r.closed = true;
  }

  const std::string state_dir_;
  const std::string namespace_name_;
  const bool follow_;
  std::vector<std::unique_ptr<Run>> runs_;  // in the order first printed
};

int TriggerLogs(const LogsOptions& options, const std::string& name, const std::string& state_dir,
                store::Store& store, std::ostream& out, std::ostream& err,
                const StopFunction& stop) {
  const resource::GroupKind kind = resource::TableTriggerKind::Info().group_kind();
  const store::ObjectRef ref{kind, options.namespace_name,
                             StoredName(store, kind, options.namespace_name, name)};
  TriggerRuns runs(state_dir, options.namespace_name, options.follow);
  // The trigger as of a revision, its new runs printed; a watch from that revision sees every
  // later run.
  const auto look = [&](int64_t* revision) -> Status {
    auto now = store.Revision();
    if (!now.ok()) return now.status();
    auto trigger = store.Get(ref);
    if (!trigger.ok()) return trigger.status();
    *revision = *now;
    runs.Update(trigger->status(), out);
    return Status::OK();
  };
  int64_t revision = 0;
  if (Status s = look(&revision); !s.ok()) {
    err << "hop logs: " << EscapeForTerminal(s.ToString()) << "\n";
    return 1;
  }
  if (!options.follow) {
    if (runs.empty()) {
      err << "hop logs: trigger " << EscapeForTerminal(name) << " has not run yet\n";
      return 1;
    }
    runs.Finish(out);
    return 0;
  }
  // The runs are in the trigger's status: only its changes say there is a new run or an end.
  auto watch = store.StartWatch({kind, ref.namespace_name, revision});
  Clock::time_point last_poll = Clock::now();
  for (;;) {
    out.flush();
    if (!out || ShouldStop(stop)) return 0;
    store::Event event;
    switch (watch->Next(UntilPoll(last_poll), &event)) {
      case store::Watch::Outcome::kEvent:
        if (event.object.name() != ref.name) break;
        if (event.type == store::EventType::kDeleted) {
          runs.Finish(out);
          out.flush();
          return 0;
        }
        runs.Update(event.object.status(), out);
        break;
      case store::Watch::Outcome::kTooOld:
        if (Status s = look(&revision); !s.ok()) {
          runs.Finish(out);
          out.flush();
          if (s.code() == StatusCode::kNotFound) return 0;  // deleted meanwhile
          err << "hop logs: " << EscapeForTerminal(s.ToString()) << "\n";
          return 1;
        }
        watch = store.StartWatch({kind, ref.namespace_name, revision});
        break;
      case store::Watch::Outcome::kClosed:
        runs.Finish(out);
        out.flush();
        return 0;
      case store::Watch::Outcome::kTimeout: break;
    }
    if (UntilPoll(last_poll).count() == 0) {
      last_poll = Clock::now();
      runs.Poll(out);
    }
  }
}

}  // namespace

int RunLogs(const LogsOptions& options, const std::string& state_dir, store::Store& store,
            std::ostream& out, std::ostream& err, const StopFunction& stop) {
  std::string name = options.target;
  if (Strip(name, {"tabletrigger/", "tabletriggers/", "trigger/"})) {
    return TriggerLogs(options, name, state_dir, store, out, err, stop);
  }
  Strip(name, {"job/", "jobs/", "job.batch/", "jobs.batch/"});
  if (const size_t slash = name.find('/');
      slash != std::string::npos && resource::LookupKind(name.substr(0, slash)) != nullptr) {
    // KIND/NAME of another kind (`view/x`): say what logs takes, not that "view/x" is a bad name.
    err << "hop logs: " << EscapeForTerminal(options.target)
        << " is not job/NAME or tabletrigger/NAME: only Jobs and triggers have logs\n";
    return 1;
  }
  if (Status s = CheckJobName(options.namespace_name, name); !s.ok()) {
    err << "hop logs: " << EscapeForTerminal(s.ToString()) << "\n";
    return 1;
  }
  const std::string path =
      session::ControlPlane::JobLogPath(state_dir, options.namespace_name, name);
  if (options.follow) {
    return FollowJob(options.namespace_name, name, path, store, out, err, stop);
  }
  LogTail log(path);
  if (log.Print(out) < 0) {
    err << "hop logs: no log for job " << options.namespace_name << "/" << name << " ("
        << EscapeForTerminal(path) << ")\n";
    return 1;
  }
  return 0;
}

}  // namespace hop::cli
