// The local Job runner: one process group per running Job attempt, its exit recorded in the Job's
// status, and enough bookkeeping in that status to adopt the attempt after a restart. One mutex
// serialises everything (Sync, the reaper, Start and Stop): the runner's work is a few system
// calls and a store write per event, and the lock is what makes "one process per attempt" hold.
// Processes are started by the runner's spawner (spawner.h), which reports their ends; the
// reaper thread sleeps in poll(2) on the spawner's connection, the pidfds of adopted attempts and
// an eventfd that Sync signals when there is something new to wait for; Jobs waiting for a free
// slot are queued and started by whoever frees one. Nothing is re-polled on a timer while pidfds
// work.
#include "runtime/job_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "common/files.h"
#include "common/log.h"
#include "common/metrics.h"
#include "common/redact.h"
#include "common/strings.h"
#include "resource/kinds.h"
#include "runtime/job_model.h"
#include "runtime/process.h"
#include "runtime/spawner.h"

namespace hop::runtime {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using SteadyTime = std::chrono::steady_clock::time_point;
using SyncResult = Result<std::optional<milliseconds>>;
using resource::Resource;

const resource::GroupKind kJobKind{"batch", "Job"};
// How long a Job waits for a free slot when max_running processes run and no reaper thread
// starts queued Jobs.
constexpr milliseconds kSlotWait{100};
// How soon the reaper looks again at an adopted process that has ended while its parent (the
// spawner that started it) has yet to write its exit file: a matter of microseconds.
constexpr milliseconds kReapWait{2};
// Read-modify-write rounds of a status update before giving up on a Job that keeps changing.
constexpr int kWriteRounds = 8;
// The file in a Job's work dir naming its running process, so that a process whose Job was
// deleted while no runner watched (and whose status went with it) can still be found and killed.
constexpr const char* kMarkerFile = ".hop-process";

// A name usable as one path component.
bool SafePathPart(std::string_view s) {
  return !s.empty() && s != "." && s != ".." && s.find('/') == std::string_view::npos &&
         s.find('\0') == std::string_view::npos;
}

store::ObjectRef Normalised(store::ObjectRef ref) {
  if (ref.namespace_name.empty()) ref.namespace_name = std::string(resource::kDefaultNamespace);
  return ref;
}

std::string KeyOf(const store::ObjectRef& ref) { return ref.namespace_name + "/" + ref.name; }

// The time from `now` to `then`, rounded up to whole milliseconds, at least 1 ms.
milliseconds Until(SystemTime then, SystemTime now) {
  auto d = std::chrono::ceil<milliseconds>(then - now);
  return std::max(d, milliseconds(1));
}

// Whether the exit file at `path` says the command never ran.
bool NeverRan(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  return in && (in >> word) && word == kNeverRan;
}

std::optional<int> ReadExitFile(const std::string& path) {
  if (path.empty()) return std::nullopt;
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  std::string_view digits = TrimWhitespace(s);
  int code = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), code);
  if (ec != std::errc() || p != digits.data() + digits.size() || digits.empty()) {
    return std::nullopt;
  }
  return code;
}

// Appends `text` to the file at `path`, creating it if needed.
void WriteToFile(const std::string& path, std::string_view text) {
  int fd = OpenPrivateFile(path, O_WRONLY | O_APPEND);
  if (fd < 0) return;
  // Best effort: a log line is not worth failing a status write for.
  [[maybe_unused]] ssize_t n = write(fd, text.data(), text.size());
  close(fd);
}

// Makes `text` the content of the file at `path`, creating it if needed. Written over the old
// content and cut to length rather than opened with O_TRUNC: on ext4 a file truncated to nothing
// has its data written back when it is closed, and a runner rewrites each Job's marker at every
// start (issue #18).
void ReplaceFileContent(const std::string& path, std::string_view text) {
  int fd = OpenPrivateFile(path, O_WRONLY);
  if (fd < 0) return;
  [[maybe_unused]] ssize_t n = pwrite(fd, text.data(), text.size(), 0);
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_size > static_cast<off_t>(text.size())) {
    [[maybe_unused]] int cut = ftruncate(fd, static_cast<off_t>(text.size()));
  }
  close(fd);
}

// The most of a command line that log lines show: a Job's header line is written for every
// attempt, and an argument of a few hundred kilobytes would otherwise fill the log with copies.
constexpr size_t kCommandTextMax = 2000;

// The command line as a shell would take it, for log lines; cut at kCommandTextMax bytes.
std::string CommandText(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& word : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !word.empty() && word.find_first_not_of(
                                      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "0123456789-_./=:,+@%") == std::string::npos;
    out += plain ? word : ShellQuote(word);
  }
  if (out.size() > kCommandTextMax) {
    size_t cut = kCommandTextMax;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
    const size_t more = out.size() - cut;
    out.resize(cut);
    out += fmt::format("... ({} bytes more)", more);
  }
  return out;
}

// A short, path-safe form of a uid, to tell a recreated Job's exit files from the old one's.
std::string UidTag(const std::string& uid) {
  std::string tag;
  for (char c : uid) {
    if (tag.size() == 8) break;
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) tag += c;
  }
  return tag.empty() ? "nouid" : tag;
}

// From a fire to its Job's process: milliseconds when the runner has a free slot, up to minutes
// when runs queue behind others or a cron catch-up fires late.
const std::vector<double> kFireToStartBuckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                                 2.5,   5,    10,    30,   60,  120,  300, 600};

// The reason of a Job's Failed condition; "" when it has none.
std::string FailedReason(const Resource& job) {
  const Json* status = job.status();
  if (!status || !status->contains("conditions") || !(*status)["conditions"].is_array()) return "";
  for (const Json& c : (*status)["conditions"]) {
    if (c.is_object() && c.value("type", "") == kFailed) return c.value("reason", "");
  }
  return "";
}

}  // namespace

struct JobRunner::Impl {
  // A running attempt this runner watches.
  struct Proc {
    store::ObjectRef ref;
    std::string uid;  // of the Job it belongs to
    AttemptRecord record;
    milliseconds grace{0};
    std::optional<SystemTime> deadline;  // spec.activeDeadlineSeconds after startTime
    bool exited = false;                 // it has ended (or its pid names it no more)
    bool vanished = false;               // its pid names it no more: its group is not ours
    std::optional<int> wait_status;      // as its spawner reported it
    // Started by `spawner`, which reports its end; null for an adopted process (a restart's, or
    // one whose spawner is gone), whose end is read from its pidfd and exit file.
    std::shared_ptr<Spawner> spawner;
    std::shared_ptr<PidFd> pidfd;  // readable once it has ended; null without pidfds
    bool awaiting_reap = false;    // it ended, and its parent has yet to write its exit file
  };
  // A process group sent SIGTERM, to be sent SIGKILL after its grace.
  struct Dying {
    pid_t pgid = 0;
    int64_t start_ticks = 0;
    bool leader_done = false;  // the group's leader has ended
    bool killed = false;       // SIGKILL sent
    SteadyTime kill_at;
    std::shared_ptr<PidFd> pidfd;  // the leader's, while it may be alive
  };

  // The runner's metrics, looked up once: recording one is an atomic add, no lock.
  struct Metrics {
    explicit Metrics(metrics::Registry& registry) {
      auto& runs = registry.Counter("hop_job_runs_total",
                                    "Jobs the local runner finished, by outcome (succeeded, "
                                    "failed, deadline_exceeded, invalid).",
                                    {"outcome"});
      succeeded = &runs.With({"succeeded"});
      failed = &runs.With({"failed"});
      deadline_exceeded = &runs.With({"deadline_exceeded"});
      invalid = &runs.With({"invalid"});
      fire_to_start = &registry
                           .Histogram("hop_fire_to_start_seconds",
                                      "From a trigger's fire (the Job's triggerTimestamp) to the "
                                      "local runner starting the Job's first attempt.",
                                      {}, kFireToStartBuckets)
                           .With();
      attempts = &registry
                      .Counter("hop_job_attempts_started_total",
                               "Processes the local runner started for Job attempts.")
                      .With();
    }
    // hop_job_runs_total's children, by outcome.
    metrics::Counter* succeeded;
    metrics::Counter* failed;
    metrics::Counter* deadline_exceeded;
    metrics::Counter* invalid;
    metrics::Histogram* fire_to_start;
    metrics::Counter* attempts;
  };

  Impl(store::Store& s, JobRunnerOptions o)
      : store(s),
        options(Absolute(std::move(o))),
        registry(options.registry ? *options.registry : metrics::Registry::Default()),
        metric(registry) {
    running_gauge = registry
                        .Gauge("hop_jobs_running",
                               "Processes the local runner runs now (attempts, and killed ones "
                               "not yet gone).")
                        .AddCallback({}, [this] {
                          std::lock_guard lock(mu);
                          return static_cast<double>(RunningLocked());
                        });
    wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  }

  ~Impl() {
    if (wake_fd >= 0) close(wake_fd);
  }

  // Makes the reaper thread look again at what it waits for (a new process, a new group to kill,
  // Stop).
  void WakeReaper() {
    if (wake_fd < 0) return;
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(wake_fd, &one, sizeof(one));
  }

  // Counts `written`, a Job's status this runner just wrote, in hop_job_runs_total when that
  // write finished the Job (the writes that do check first that it was not finished).
  void CountIfFinished(const Resource& written) {
    if (ConditionTrue(written, kComplete)) {
      metric.succeeded->Inc();
    } else if (ConditionTrue(written, kFailed)) {
      const std::string reason = FailedReason(written);
      (reason == kReasonDeadline  ? metric.deadline_exceeded
       : reason == kReasonInvalid ? metric.invalid
                                  : metric.failed)
          ->Inc();
    }
  }

  // Processes run in their Job's work directory, so every path handed to them (the exit file)
  // must not depend on the runner's own working directory.
  static JobRunnerOptions Absolute(JobRunnerOptions o) {
    if (o.max_running <= 0) o.max_running = DefaultMaxRunning();
    std::error_code ec;
    if (!o.state_dir.empty()) {
      fs::path absolute = fs::absolute(o.state_dir, ec);
      if (!ec) o.state_dir = absolute.lexically_normal().string();
    }
    return o;
  }

  std::string LogPath(const store::ObjectRef& ref) const {
    return JobRunner::LogPathIn(options.state_dir, ref);
  }

  // What hop tells every process it starts (docs/runtime.md, "The environment"): where its
  // state is and which hop binary runs it, so that `hop watermark set` works from inside the
  // Job; which Job it is; the window of the trigger's run; the objects it materialises. Set
  // before the Job's own env entries, which may replace them.
  std::vector<std::pair<std::string, std::string>> HopEnvironment(const store::ObjectRef& ref,
                                                                  const Resource& job) const {
    std::vector<std::pair<std::string, std::string>> env;
    if (!options.state_dir.empty()) env.emplace_back("HOP_STATE_DIR", options.state_dir);
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) env.emplace_back("HOP_BIN", self.string());
    const store::ObjectRef normal = Normalised(ref);
    env.emplace_back("HOP_NAMESPACE", normal.namespace_name);
    env.emplace_back("HOP_JOB", normal.name);
    const auto annotations = job.annotations();
    for (const auto& [annotation, name] :
         {std::pair<const char*, const char*>{"hop.dev/window-from", "HOP_WINDOW_FROM"},
          {"triggerTimestamp", "HOP_WINDOW_TO"},
          {"trigger", "HOP_TRIGGER"},
          {"hop.dev/outputs", "HOP_OUTPUTS"}}) {
      if (auto it = annotations.find(annotation); it != annotations.end()) {
        env.emplace_back(name, it->second);
      }
    }
    return env;
  }
  std::string WorkDir(const store::ObjectRef& in) const {
    store::ObjectRef ref = Normalised(in);
    return (fs::path(options.state_dir) / "jobs" / ref.namespace_name / ref.name).string();
  }
  SystemTime Now() const { return options.clock->Now(); }

  milliseconds GraceOf(const Resource& job) const {
    auto spec = ParseJobSpec(job);
    if (spec.ok() && spec->termination_grace_seconds) {
      return std::chrono::seconds(std::max<int64_t>(0, *spec->termination_grace_seconds));
    }
    return options.kill_grace;
  }

  // --- processes (all *Locked members require mu) ---

  // Updates p.exited (and how) without blocking.
  void PollLocked(Proc& p) {
    if (p.exited) return;
    if (p.spawner) {
      int ws = 0;
      if (p.spawner->TakeExit(p.record.pid, &ws)) {
        p.exited = true;
        p.wait_status = ws;
        return;
      }
      if (!p.spawner->gone()) return;  // it reports the end when it comes
      // The spawner is gone (killed): the process is now watched as an adopted one, and no one
      // writes its exit file.
      log::Warn("Job {}: the Job spawner is gone; attempt {} will end without an exit status",
                KeyOf(p.ref), p.record.attempt);
      p.spawner.reset();
    }
    p.awaiting_reap = false;
    if (p.pidfd && !p.pidfd->Ended()) return;  // the same process as when watched, running
    // The recorded process: same start time, same boot, and leading its own process group.
    auto stat = p.record.pid > 1 ? ReadProcStat(p.record.pid) : std::nullopt;
    bool same = stat && stat->start_ticks == p.record.start_ticks && stat->pgrp == p.record.pid &&
                (p.record.boot_id.empty() || BootId().empty() || p.record.boot_id == BootId());
    if (!same) {
      // Reaped, so its exit file is written if its parent writes one (a spawner writes it
      // before reaping); its pid names it no more.
      p.exited = true;
      p.vanished = true;
      return;
    }
    // Not our child: a zombie has ended, and once its exit file is there it is done. Until
    // then its parent (a spawner) has not written it: looked at again after kReapWait.
    if (stat->state == 'Z' || stat->state == 'X') {
      if (ReadExitFile(p.record.exit_file) || NeverRan(p.record.exit_file)) {
        p.exited = true;
      } else {
        p.awaiting_reap = true;
      }
    }
  }

  int RunningLocked() const {
    int n = 0;
    for (const auto& [key, p] : procs) n += p.exited ? 0 : 1;
    for (const Dying& d : dying) n += d.leader_done ? 0 : 1;
    return n;
  }

  // The pidfd of `pid`, a process that is not this process's child and was found to have started
  // at `start_ticks`. The pid is checked again after the open: had the process ended and its pid
  // been reused in between, the pidfd would name the other process (nullptr then).
  static std::shared_ptr<PidFd> OpenCheckedPidFd(pid_t pid, int64_t start_ticks) {
    auto pidfd = OpenPidFd(pid);
    if (!pidfd) return nullptr;
    auto stat = ReadProcStat(pid);
    if (!stat || stat->start_ticks != start_ticks) return nullptr;
    return pidfd;
  }

  // Opens the pidfd of an adopted attempt `p` that PollLocked found running, so that the reaper
  // learns of its end at once.
  void WatchAdoptedLocked(Proc& p) {
    if (p.exited || p.pidfd) return;
    p.pidfd = OpenCheckedPidFd(p.record.pid, p.record.start_ticks);
  }

  // Sends SIGTERM to the group led by `pgid` and schedules its SIGKILL.
  void TerminateGroupLocked(pid_t pgid, int64_t start_ticks, bool leader_done, milliseconds grace,
                            std::shared_ptr<PidFd> pidfd = nullptr) {
    // kill(-1) would signal every process this user may signal, and a living leader of another
    // group is not an attempt (every attempt leads its own): a recorded pid is never trusted so
    // far.
    if (pgid <= 1) return;
    if (!leader_done) {
      auto stat = ReadProcStat(pgid);
      if (stat && stat->pgrp != pgid) {
        log::Warn("process {} leads no process group: not killing it", pgid);
        return;
      }
    }
    if (kill(-pgid, SIGTERM) != 0 && errno == ESRCH) return;  // nobody left
    Dying d;
    d.pgid = pgid;
    d.start_ticks = start_ticks;
    d.leader_done = leader_done;
    d.kill_at = std::chrono::steady_clock::now() + grace;
    if (!leader_done) d.pidfd = std::move(pidfd);
    dying.push_back(d);
    WakeReaper();
  }

  // Kills the attempt tracked for `key`, if any, and forgets it.
  void KillTrackedLocked(const std::string& key, std::string_view why) {
    auto it = procs.find(key);
    if (it == procs.end()) return;
    Proc p = std::move(it->second);
    procs.erase(it);
    PollLocked(p);
    if (!p.vanished) {
      TerminateGroupLocked(p.record.pid, p.record.start_ticks, p.exited, p.grace, p.pidfd);
    }
    RemoveMarker(p.ref);
    std::error_code ec;
    fs::remove(p.record.exit_file, ec);
    WriteToFile(LogPath(p.ref),
                fmt::format("--- hop: attempt {} killed: {}\n", p.record.attempt, why));
    log::Info("Job {}: killed attempt {} (process group {}): {}", KeyOf(p.ref), p.record.attempt,
              p.record.pid, why);
  }

  // Kills the process named in the marker file of `ref`'s work dir, unless it is tracked or
  // `keep_pid` (the attempt the Job's status records); removes the marker.
  void KillMarkedLocked(const store::ObjectRef& ref, pid_t keep_pid) {
    if (!SafePathPart(ref.namespace_name) || !SafePathPart(ref.name)) return;
    std::string path = (fs::path(WorkDir(ref)) / kMarkerFile).string();
    std::ifstream in(path);
    if (!in) return;
    int64_t pid = 0;
    int64_t ticks = 0;
    std::string boot;
    in >> pid >> ticks >> boot;
    in.close();
    auto tracked = procs.find(KeyOf(ref));
    if (pid == keep_pid || (tracked != procs.end() && tracked->second.record.pid == pid)) return;
    std::error_code ec;
    fs::remove(path, ec);
    auto stat = ReadProcStat(static_cast<pid_t>(pid));
    if (!stat || stat->start_ticks != ticks || (boot != BootId() && !BootId().empty())) return;
    log::Info("Job {}: killing process group {}, left from an attempt no Job records", KeyOf(ref),
              pid);
    TerminateGroupLocked(static_cast<pid_t>(pid), ticks, stat->state == 'Z', options.kill_grace,
                         OpenCheckedPidFd(static_cast<pid_t>(pid), ticks));
  }

  // The marker file's line: "<pid> <start ticks> <boot id> <job uid> <attempt> <exit file>", pid 0
  // while the process is being started.
  static std::string MarkerLine(pid_t pid, int64_t ticks, const std::string& uid, int64_t attempt,
                                const std::string& exit_file) {
    return fmt::format("{} {} {} {} {} {}\n", pid, ticks, BootId().empty() ? "-" : BootId(), uid,
                       attempt, exit_file);
  }

  // The attempt a marker names for `job` that its status does not record yet: started by a
  // runner that stopped before recording it, adopted by pid. Nullopt when there is none, or when
  // the runner stopped before its spawner answered (pid 0, no exit code): then the process, if
  // there was one, waits at a gate that no one will open and leaves without running its command
  // (docs/runtime.md, "How a process starts"), so the attempt never started.
  std::optional<AttemptRecord> OrphanAttempt(const store::ObjectRef& ref, const Resource& job) {
    std::ifstream in((fs::path(WorkDir(ref)) / kMarkerFile).string());
    if (!in) return std::nullopt;
    int64_t pid = 0, ticks = 0, attempt = 0;
    std::string boot, uid, exit_file;
    in >> pid >> ticks >> boot >> uid >> attempt >> exit_file;
    if (!in || uid != job.uid() || attempt != AttemptsOf(job) + 1 || exit_file.empty()) {
      return std::nullopt;
    }
    if (pid == 0 && !ReadExitFile(exit_file)) {
      RemoveMarker(ref);
      return std::nullopt;
    }
    return AttemptRecord{attempt, static_cast<pid_t>(pid), ticks, boot == "-" ? "" : boot,
                         exit_file};
  }

  void RemoveMarker(const store::ObjectRef& ref) {
    std::error_code ec;
    fs::remove(fs::path(WorkDir(ref)) / kMarkerFile, ec);
  }

  // Removes the work directory of a Job that is gone, with what its processes left there, as a
  // pod's files go with the pod (docs/runtime.md, "Retries, deadlines, deletion"). A process
  // still in its grace keeps running in the directory it has open.
  void RemoveWorkDirLocked(const store::ObjectRef& ref) {
    if (options.state_dir.empty() || !SafePathPart(ref.namespace_name) || !SafePathPart(ref.name)) {
      return;
    }
    // A process of the Job, or the spawner writing the exit file of one that was just killed,
    // may make a file in the directory while it is being emptied: it is then not empty when it
    // is to be removed, and is emptied again. Once it is gone no file can be made in it.
    std::error_code ec;
    for (int round = 0; round < 3; ++round) {
      ec.clear();
      fs::remove_all(WorkDir(ref), ec);
      if (ec != std::errc::directory_not_empty) break;
    }
    if (ec) log::Warn("Job {}: cannot remove its work directory: {}", KeyOf(ref), ec.message());
  }

  // Removes the log of a Job that is gone and has no process here (JobRunner::RemoveLog).
  Status RemoveLogLocked(const store::ObjectRef& in) {
    const store::ObjectRef ref = Normalised(in);
    if (options.state_dir.empty() || !SafePathPart(ref.namespace_name) || !SafePathPart(ref.name) ||
        procs.count(KeyOf(ref)) > 0) {
      return Status::OK();
    }
    auto job = store.Get(ref);
    if (job.ok()) return Status::OK();
    if (job.status().code() != StatusCode::kNotFound) return job.status();
    std::error_code ec;
    fs::remove(LogPath(ref), ec);
    if (ec) return Status::Unavailable("cannot remove " + LogPath(ref) + ": " + ec.message());
    return Status::OK();
  }

  // Reaps killed groups' leaders and sends SIGKILL once their grace is over (`now_all`: at once).
  void ReapDyingLocked(bool now_all = false) {
    const SteadyTime now = std::chrono::steady_clock::now();
    for (Dying& d : dying) {
      if (!d.leader_done && !(d.pidfd && !d.pidfd->Ended())) {
        auto stat = ReadProcStat(d.pgid);
        if (!stat || stat->start_ticks != d.start_ticks) {
          d.leader_done = true;
        } else {
          int ws = 0;
          pid_t r = waitpid(d.pgid, &ws, WNOHANG);
          if (r == d.pgid || (r < 0 && (stat->state == 'Z' || stat->state == 'X'))) {
            d.leader_done = true;
          }
        }
        if (d.leader_done) d.pidfd.reset();
      }
      if (!d.killed && (now_all || now >= d.kill_at)) {
        // Once the leader is gone its pgid is held only by members that are left, if any.
        if (!d.leader_done || GroupHasLiveMembers(d.pgid)) kill(-d.pgid, SIGKILL);
        d.killed = true;
      }
    }
    std::erase_if(dying, [](const Dying& d) {
      return d.leader_done && (d.killed || !GroupHasLiveMembers(d.pgid));
    });
  }

  // --- status ---

  // Read-modify-write of a Job's status: applies `mutate` (false: nothing to write) and writes,
  // re-reading on Conflict. nullopt when nothing was written, or the Job is gone or replaced.
  Result<std::optional<Resource>> UpdateStatusLocked(Resource job,
                                                     const std::function<bool(Resource&)>& mutate) {
    const std::string uid = job.uid();
    const store::ObjectRef ref = store::RefOf(job);
    for (int round = 0; round < kWriteRounds; ++round) {
      if (!mutate(job)) return std::optional<Resource>();
      auto written = store.UpdateStatus(job);
      if (written.ok()) return std::optional<Resource>(std::move(*written));
      if (written.status().code() != StatusCode::kConflict) return written.status();
      auto again = store.Get(ref);
      if (!again.ok()) {
        if (again.status().code() == StatusCode::kNotFound) return std::optional<Resource>();
        return again.status();
      }
      if (again->uid() != uid) return std::optional<Resource>();
      job = std::move(*again);
    }
    return Status::Conflict("Job " + KeyOf(ref) + " kept changing while its status was written");
  }

  // How the attempt `p` ended, from its exit file or, failing that, its wait status.
  static AttemptEnd EndOf(const Proc& p) {
    AttemptEnd end;
    end.attempt = p.record.attempt;
    if (auto code = ReadExitFile(p.record.exit_file)) {
      end.exit_code = *code;
      end.description = fmt::format("exited with code {}", *code);
    } else if (p.wait_status && WIFSIGNALED(*p.wait_status)) {
      int sig = WTERMSIG(*p.wait_status);
      end.exit_code = 128 + sig;
      end.description = fmt::format("was killed by signal {} ({})", sig, strsignal(sig));
    } else if (p.wait_status) {
      // No exit file, though the spawner reported the end: it could not write the file (the work
      // directory removed meanwhile, say).
      end.exit_code = WEXITSTATUS(*p.wait_status);
      end.description = fmt::format("exited with code {}", *end.exit_code);
    } else {
      end.description = "vanished without an exit status";
    }
    return end;
  }

  // Records the end of attempt `p` in `job`'s status, then forgets the attempt.
  Status RecordEndLocked(const Resource& job, const Proc& p) {
    if (NeverRan(p.record.exit_file)) return TakeBackLocked(job, p);
    AttemptEnd end = EndOf(p);
    auto written = UpdateStatusLocked(job, [&](Resource& j) {
      auto record = RecordedAttempt(j);
      if (!record || record->pid != p.record.pid || record->attempt != p.record.attempt) {
        return false;  // already recorded
      }
      MarkEnded(j.mutable_status(), end, BackoffLimitOf(j), Now());
      return true;
    });
    HOP_RETURN_IF_ERROR(written);
    EndRecordedLocked(p, end, written->has_value() ? &**written : nullptr);
    return Status::OK();
  }

  // What follows the write of attempt `p`'s end (`written`: the Job as written, nullptr when the
  // end was recorded already): the count, the log line, and the attempt forgotten, with what it
  // left running in its group killed.
  void EndRecordedLocked(const Proc& p, const AttemptEnd& end, const Resource* written) {
    if (written != nullptr) {
      CountIfFinished(*written);
      WriteToFile(LogPath(p.ref),
                  fmt::format("--- hop: attempt {} {}\n", p.record.attempt, end.description));
      log::Info("Job {}: attempt {} {}", KeyOf(p.ref), p.record.attempt, end.description);
    }
    auto it = procs.find(KeyOf(p.ref));
    if (it != procs.end() && it->second.record.pid == p.record.pid) procs.erase(it);
    // As when a container's main process ends, what it left running in its group goes too. (A
    // vanished leader's group id may name someone else's group by now: left alone.)
    if (!p.vanished && GroupHasLiveMembers(p.record.pid)) {
      TerminateGroupLocked(p.record.pid, p.record.start_ticks, /*leader_done=*/true, p.grace);
    }
    RemoveMarker(p.ref);
    std::error_code ec;
    fs::remove(p.record.exit_file, ec);
  }

  // The attempt `p` never ran its command (the runner that started it stopped before letting
  // it): taken back, so that the next Sync starts it again, with the same number.
  Status TakeBackLocked(const Resource& job, const Proc& p) {
    auto written = UpdateStatusLocked(job, [&](Resource& j) {
      auto record = RecordedAttempt(j);
      if (!record || record->pid != p.record.pid || record->attempt != p.record.attempt) {
        return false;
      }
      MarkNeverRan(j.mutable_status(), p.record.attempt);
      return true;
    });
    HOP_RETURN_IF_ERROR(written);
    if (written->has_value()) {
      WriteToFile(LogPath(p.ref), fmt::format("--- hop: attempt {} never ran: its runner stopped "
                                              "before letting it start; it starts again\n",
                                              p.record.attempt));
      log::Info("Job {}: attempt {} never ran; it starts again", KeyOf(p.ref), p.record.attempt);
    }
    auto it = procs.find(KeyOf(p.ref));
    if (it != procs.end() && it->second.record.pid == p.record.pid) procs.erase(it);
    RemoveMarker(p.ref);
    std::error_code ec;
    fs::remove(p.record.exit_file, ec);
    return Status::OK();
  }

  // Marks `job` Failed (after its running attempt, if any, was killed).
  Status FailLocked(const Resource& job, std::string_view reason, const std::string& message) {
    auto written = UpdateStatusLocked(job, [&](Resource& j) {
      if (JobFinished(j)) return false;
      MarkFailed(j.mutable_status(), reason, message, Now());
      return true;
    });
    HOP_RETURN_IF_ERROR(written);
    if (written->has_value()) {
      CountIfFinished(**written);
      log::Info("Job {}/{}: failed: {}", job.namespace_name(), job.name(), message);
    }
    return Status::OK();
  }

  // --- attempts ---

  // An attempt's start gate: closed when it goes out of scope unopened, and the process then
  // leaves without running its command.
  class Gate {
   public:
    Gate(std::shared_ptr<Spawner> spawner, pid_t pid) : spawner_(std::move(spawner)), pid_(pid) {}
    ~Gate() {
      if (spawner_) spawner_->Close(pid_);
    }
    Gate(Gate&& other) noexcept = default;
    Gate& operator=(Gate&& other) = delete;
    void Open() {
      if (spawner_) spawner_->Open(pid_);
      spawner_.reset();
    }

   private:
    std::shared_ptr<Spawner> spawner_;
    pid_t pid_;
  };

  // An attempt whose process was started and waits at its gate for its record in the Job's
  // status.
  struct SpawnedAttempt {
    store::ObjectRef ref;
    Resource job;  // as read before the start
    std::vector<std::string> written_argv;
    AttemptRecord record;
    Gate gate;
  };

  // Starts the Job's next attempt. When the system refuses to start its process, the attempt is
  // recorded as failed, `*not_started` is set, and the caller looks at the Job again.
  SyncResult StartAttemptLocked(const store::ObjectRef& ref, const Resource& job,
                                const JobSpec& spec, bool* not_started) {
    HOP_ASSIGN_OR_RETURN(std::optional<SpawnedAttempt> spawned,
                         SpawnAttemptLocked(ref, job, spec, not_started));
    if (!spawned) return std::optional<milliseconds>();
    const AttemptRecord record = spawned->record;
    auto written = UpdateStatusLocked(job, [&](Resource& j) {
      if (JobFinished(j) || RecordedAttempt(j)) return false;
      MarkStarted(j.mutable_status(), record, Now());
      return true;
    });
    if (!written.ok() || !written->has_value()) {
      // A process no status records must not outlive this call: no later runner could find it.
      KillTrackedLocked(KeyOf(ref), "its start could not be recorded in the Job's status");
      if (!written.ok()) return written.status();
      return std::optional<milliseconds>(milliseconds(100));
    }
    return AttemptRecordedLocked(*spawned, **written);
  }

  // The first half of an attempt's start: its process started, waiting at its gate, and
  // tracked. nullopt, with `*not_started` set and the failed attempt recorded, when the system
  // refuses to start it.
  Result<std::optional<SpawnedAttempt>> SpawnAttemptLocked(const store::ObjectRef& ref,
                                                           const Resource& job, const JobSpec& spec,
                                                           bool* not_started) {
    const std::string key = KeyOf(ref);
    const std::string work = WorkDir(ref);
    const std::string log_path = LogPath(ref);
    std::error_code ec;
    HOP_RETURN_IF_ERROR(CreatePrivateDirectories(work));
    HOP_RETURN_IF_ERROR(CreatePrivateDirectories(fs::path(log_path).parent_path().string()));

    const int64_t attempt = AttemptsOf(job) + 1;
    const std::string exit_file =
        (fs::path(work) / fmt::format(".hop-exit-{}-{}", attempt, UidTag(job.uid()))).string();
    fs::remove(exit_file, ec);

    int log_fd = OpenPrivateFile(log_path, O_WRONLY | O_APPEND);
    if (log_fd < 0) {
      return Status::Unavailable("cannot open " + log_path + ": " + std::strerror(errno));
    }
    std::string header =
        fmt::format("--- hop: Job {} attempt {} at {}: {}\n", key, attempt, FormatRfc3339(Now()),
                    RedactSecrets(CommandText(RedactArguments(spec.written_argv))));
    if (!spec.unresolved_env.empty()) {
      std::string names;
      for (const auto& n : spec.unresolved_env) names += (names.empty() ? "" : ", ") + n;
      header += "--- hop: not set locally (valueFrom is not resolved): " + names + "\n";
      log::Warn("Job {}: env {} use valueFrom, which the local runner does not resolve", key,
                names);
    }
    [[maybe_unused]] ssize_t n = write(log_fd, header.data(), header.size());
    close(log_fd);  // the spawner opens the log for the process

    // The marker says, before the process exists, which attempt is being started and where its
    // exit code will be: a runner that stops before the attempt is in the Job's status finds the
    // attempt by it and adopts it rather than starting the command a second time.
    const std::string marker = (fs::path(work) / kMarkerFile).string();
    ReplaceFileContent(marker, MarkerLine(0, 0, job.uid(), attempt, exit_file));

    // The process waits at its gate until this runner opens it, which it does only once the
    // attempt is in the Job's status. A runner that stops (or fails to record the attempt)
    // before then closes the gate by dying, and the process leaves without running the command:
    // no command runs that no status records, so no later runner can run it twice.
    SpawnerStart start;
    start.argv = spec.argv;
    // hop's variables, unless the Job sets one of the same name itself, then the Job's own.
    std::vector<std::pair<std::string, std::string>> env;
    for (auto& [name, value] : HopEnvironment(ref, job)) {
      const bool own = std::any_of(spec.env.begin(), spec.env.end(),
                                   [&, &name = name](const auto& e) { return e.first == name; });
      if (!own) env.emplace_back(std::move(name), std::move(value));
    }
    env.insert(env.end(), spec.env.begin(), spec.env.end());
    start.env = EnvironmentWith(env);
    start.working_dir = work;
    start.log_path = log_path;
    start.exit_file = exit_file;
    Result<pid_t> pid = StartProcessLocked(start);
    if (!pid.ok() && pid.status().code() != StatusCode::kExecution) {
      RemoveMarker(ref);
      return pid.status();  // no spawner: the Sync fails, and is retried
    }
    if (!pid.ok()) {
      // The system refused to start the process (an argument list too long, no memory, ...): as
      // a container that cannot start, that is a failed attempt, counted against the backoff
      // limit and retried after the usual delay, never a reason to try again at once forever.
      RemoveMarker(ref);
      const AttemptEnd end{attempt, std::nullopt, "could not start: " + pid.status().message()};
      auto written = UpdateStatusLocked(job, [&](Resource& j) {
        if (JobFinished(j) || RecordedAttempt(j) || AttemptsOf(j) + 1 != attempt) return false;
        MarkNotStarted(j.mutable_status(), end, BackoffLimitOf(j), Now());
        return true;
      });
      HOP_RETURN_IF_ERROR(written);
      if (written->has_value()) {
        CountIfFinished(**written);
        WriteToFile(log_path, fmt::format("--- hop: attempt {} {}\n", attempt, end.description));
        log::Warn("Job {}: attempt {} {}", key, attempt, end.description);
      }
      *not_started = true;
      return std::optional<SpawnedAttempt>();
    }
    Gate gate(spawner, *pid);
    auto stat = ReadProcStat(*pid);
    if (!stat) {
      kill(-*pid, SIGKILL);
      return Status::Unavailable("cannot read /proc/" + std::to_string(*pid) +
                                 "/stat: the local Job runner needs /proc");
    }

    Proc p;
    p.ref = ref;
    p.uid = job.uid();
    p.record = {attempt, *pid, stat->start_ticks, BootId(), exit_file};
    p.grace = GraceOf(job);
    p.spawner = spawner;
    p.pidfd = OpenPidFd(*pid);
    ReplaceFileContent(marker, MarkerLine(*pid, stat->start_ticks, job.uid(), attempt, exit_file));
    procs.insert_or_assign(key, p);
    WakeReaper();
    return std::optional<SpawnedAttempt>(
        SpawnedAttempt{ref, job, spec.written_argv, p.record, std::move(gate)});
  }

  // Starts `start`'s process, waiting at its gate, through the spawner, which is started first
  // when there is none (or it is gone). ExecutionError when the process cannot start
  // (docs/runtime.md, "could not start"); Unavailable when no spawner can be had.
  Result<pid_t> StartProcessLocked(const SpawnerStart& start) {
    if (Status size = CheckExecSize(start.argv, start.env); !size.ok()) {
      return Status::ExecutionError("cannot start " + start.argv.front() + ": " +
                                        size.message());
    }
    for (int round = 0; round < 2; ++round) {
      if (!spawner || spawner->gone()) {
        HOP_ASSIGN_OR_RETURN(spawner, Spawner::Launch());
      }
      auto pid = spawner->Start(start);
      if (pid.ok() || !spawner->gone()) return pid;
    }
    return Status::Unavailable("the Job spawner is gone");
  }

  // Reads what the spawner has said, and wakes the reaper for the exits it reported (the reaper
  // records them).
  void DrainSpawnerLocked() {
    if (!spawner) return;
    spawner->Drain();
    if (spawner->HasExits() || spawner->gone()) WakeReaper();
  }

  // The second half of an attempt's start, once `written`, the Job as written, records it: the
  // gate opened, the counts, the deadline.
  SyncResult AttemptRecordedLocked(SpawnedAttempt& spawned, const Resource& written) {
    const std::string key = KeyOf(spawned.ref);
    const int64_t attempt = spawned.record.attempt;
    const Resource& job = spawned.job;
    spawned.gate.Open();
    metric.attempts->Inc();
    log::Info("Job {}: started attempt {} as process group {}: {}", key, attempt,
              spawned.record.pid, CommandText(spawned.written_argv));
    // How long the fire that made this Job waited for its process (first attempts only).
    if (attempt == 1) {
      const auto annotations = job.annotations();
      if (auto fired = annotations.find("triggerTimestamp"); fired != annotations.end()) {
        if (auto at = ParseRfc3339(fired->second)) {
          const double ms = std::chrono::duration<double, std::milli>(Now() - *at).count();
          // A fire stamped later than this runner's clock (another machine's) counts as 0.
          metric.fire_to_start->Observe(std::max(ms, 0.0) / 1000);
          if (fire_to_start.size() < kLatenciesKept) {
            fire_to_start.push_back(ms);
          } else {
            fire_to_start[started_runs % kLatenciesKept] = ms;
          }
          ++started_runs;
        }
      }
    }
    auto deadline = DeadlineOf(written);
    procs[key].deadline = deadline;
    if (deadline) return std::optional<milliseconds>(Until(*deadline, Now()));
    return std::optional<milliseconds>();
  }

  // One Sync. A Job that may start yet finds no free slot is queued (by a runner whose reaper
  // thread starts queued Jobs); one that may start and is not queued leaves the queue.
  SyncResult SyncLocked(const store::ObjectRef& in_ref, bool may_start) {
    bool queued = false;
    SyncResult result = SyncStepsLocked(in_ref, may_start, &queued);
    if (may_start && !queued) waiting_keys.erase(KeyOf(Normalised(in_ref)));
    return result;
  }

  // Queues `ref` to start when a slot frees, unless it is queued already (it keeps its place).
  void QueueLocked(const store::ObjectRef& ref) {
    if (waiting_keys.insert(KeyOf(ref)).second) waiting.push_back(ref);
  }

  // Starts queued Jobs, oldest first, while slots are free (SettleLocked).
  void PumpLocked() { SettleLocked({}); }

  // The spec of `job` when it is simply due to start now: nothing tracked, recorded or left over
  // for it, not finished or being deleted, no deadline passed, a spec it can run within its
  // backoff limit, not suspended, no retry delay left, and a free slot. nullopt for anything
  // else, which SyncLocked then takes step by step.
  std::optional<JobSpec> DueToStartLocked(const store::ObjectRef& ref, const Resource& job) {
    if (procs.count(KeyOf(ref)) != 0 || job.deletion_timestamp() || JobFinished(job) ||
        RecordedAttempt(job) || RunningLocked() >= options.max_running) {
      return std::nullopt;
    }
    if (!SafePathPart(ref.namespace_name) || !SafePathPart(ref.name)) return std::nullopt;
    if (OrphanAttempt(ref, job)) return std::nullopt;
    const SystemTime now = Now();
    if (auto deadline = DeadlineOf(job); deadline && now >= *deadline) return std::nullopt;
    auto spec = ParseJobSpec(job);
    if (!spec.ok() || spec->suspend) return std::nullopt;
    const int64_t failed = FailedOf(job);
    if (failed > spec->backoff_limit) return std::nullopt;
    if (auto last = LastExitTime(job);
        last && failed > 0 &&
        now < *last + RetryDelay(failed, options.retry_delay, options.max_retry_delay)) {
      return std::nullopt;
    }
    return std::move(*spec);
  }

  // Records the ends of the attempts of `exited` (Jobs whose tracked process has ended) and
  // starts queued Jobs, oldest first, while slots are free, with every status write in one
  // store commit: one durable commit for all the exits the reaper woke for and the starts they
  // make room for, rather than one each (and the store's group commit may share it with the
  // operator's). Whatever is not that simple (a Job changed, deleted or finished meanwhile, an
  // attempt that never ran, a Job that must wait or fail) is taken step by step by SyncLocked,
  // and so is everything when the one commit fails. A queued Job whose start fails with the
  // store's error goes back to the end of the queue, and the reaper tries again after
  // poll_interval.
  void SettleLocked(const std::vector<store::ObjectRef>& exited) {
    struct Ending {
      Proc p;
      AttemptEnd end;
    };
    std::vector<Ending> ends;
    std::vector<SpawnedAttempt> starts;
    std::vector<store::Write> writes;
    for (const store::ObjectRef& ref : exited) {
      auto it = procs.find(KeyOf(ref));
      if (it == procs.end()) continue;
      Proc& p = it->second;
      PollLocked(p);
      auto got = p.exited ? store.Get(ref) : Result<Resource>(Status::NotFound(""));
      std::optional<AttemptRecord> record;
      if (got.ok()) record = RecordedAttempt(*got);
      if (!got.ok() || got->uid() != p.uid || got->deletion_timestamp() || JobFinished(*got) ||
          !record || record->pid != p.record.pid || record->attempt != p.record.attempt ||
          NeverRan(p.record.exit_file)) {
        auto synced = SyncLocked(ref, /*may_start=*/false);
        if (!synced.ok()) {
          log::Warn("Job {}: cannot record its attempt's end: {}", KeyOf(ref),
                    synced.status().ToString());
        }
        continue;
      }
      Ending ending{p, EndOf(p)};
      Resource next = std::move(*got);
      MarkEnded(next.mutable_status(), ending.end, BackoffLimitOf(next), Now());
      writes.push_back(store::Write::UpdateStatus(std::move(next)));
      ends.push_back(std::move(ending));
    }

    bool start_failed = false;
    while (reaping && !waiting.empty() && RunningLocked() < options.max_running) {
      store::ObjectRef ref = std::move(waiting.front());
      waiting.pop_front();
      if (waiting_keys.erase(KeyOf(ref)) == 0) continue;  // started or gone meanwhile
      auto got = store.Get(ref);
      std::optional<JobSpec> spec;
      if (got.ok()) spec = DueToStartLocked(ref, *got);
      Status failed;
      if (!spec) {
        failed = SyncLocked(ref, /*may_start=*/true).status();
      } else {
        bool not_started = false;  // then recorded as a failed attempt, and Synced again
        auto spawned = SpawnAttemptLocked(ref, *got, *spec, &not_started);
        if (spawned.ok() && spawned->has_value()) {
          Resource next = std::move(*got);
          MarkStarted(next.mutable_status(), (*spawned)->record, Now());
          writes.push_back(store::Write::UpdateStatus(std::move(next)));
          starts.push_back(std::move(**spawned));
        }
        failed = spawned.status();
      }
      if (!failed.ok()) {
        log::Warn("Job {}: cannot start it: {}", KeyOf(ref), failed.ToString());
        QueueLocked(ref);
        start_failed = true;
        break;
      }
    }

    if (!writes.empty()) {
      auto committed = store.Commit(std::move(writes));
      if (committed.ok()) {
        for (size_t i = 0; i < ends.size(); ++i) {
          EndRecordedLocked(ends[i].p, ends[i].end, &(*committed)[i]);
        }
        for (size_t i = 0; i < starts.size(); ++i) {
          (void)AttemptRecordedLocked(starts[i], (*committed)[ends.size() + i]);
        }
      } else {
        log::Debug(
            "the Job runner's batch of {} status writes failed ({}); writing them one by one",
            ends.size() + starts.size(), committed.status().ToString());
        for (const Ending& ending : ends) {
          auto synced = SyncLocked(ending.p.ref, /*may_start=*/false);
          if (!synced.ok()) {
            log::Warn("Job {}: cannot record its attempt's end: {}", KeyOf(ending.p.ref),
                      synced.status().ToString());
          }
        }
        for (SpawnedAttempt& start : starts) {
          const AttemptRecord record = start.record;
          auto written = UpdateStatusLocked(start.job, [&](Resource& j) {
            if (JobFinished(j) || RecordedAttempt(j)) return false;
            MarkStarted(j.mutable_status(), record, Now());
            return true;
          });
          if (written.ok() && written->has_value()) {
            (void)AttemptRecordedLocked(start, **written);
            continue;
          }
          // A process no status records must not outlive this call: no later runner could find
          // it.
          KillTrackedLocked(KeyOf(start.ref),
                            "its start could not be recorded in the Job's status");
          if (!written.ok()) {
            log::Warn("Job {}: cannot start it: {}", KeyOf(start.ref), written.status().ToString());
            QueueLocked(start.ref);
            start_failed = true;
          }
        }
      }
    }
    pump_failed = start_failed;
  }

  SyncResult SyncStepsLocked(const store::ObjectRef& in_ref, bool may_start, bool* queued) {
    const store::ObjectRef ref = Normalised(in_ref);
    const std::string key = KeyOf(ref);
    DrainSpawnerLocked();
    ReapDyingLocked();
    // Each round reads the Job and takes one step; a step that changes the status (an exit
    // recorded) is followed by another round on the new status.
    for (int round = 0; round < 4; ++round) {
      auto got = store.Get(ref);
      if (!got.ok()) {
        if (got.status().code() != StatusCode::kNotFound) return got.status();
        KillTrackedLocked(key, "its Job was deleted");
        KillMarkedLocked(ref, 0);
        RemoveWorkDirLocked(ref);
        return std::optional<milliseconds>();
      }
      const Resource job = std::move(*got);
      auto it = procs.find(key);
      if (it != procs.end() && it->second.uid != job.uid()) {
        KillTrackedLocked(key, "its Job was deleted and created again");
        it = procs.end();
      }
      if (job.deletion_timestamp()) {
        KillTrackedLocked(key, "its Job is being deleted");
        return std::optional<milliseconds>();
      }
      if (JobFinished(job)) {
        KillTrackedLocked(key, "its Job has finished");
        return std::optional<milliseconds>();
      }

      std::optional<AttemptRecord> record = RecordedAttempt(job);
      if (it == procs.end() && record) {
        // An attempt recorded by an earlier runner: adopt it while it lives, else record its end.
        Proc p;
        p.ref = ref;
        p.uid = job.uid();
        p.record = *record;
        p.grace = GraceOf(job);
        PollLocked(p);
        if (p.exited) {
          HOP_RETURN_IF_ERROR(RecordEndLocked(job, p));
          continue;
        }
        log::Info("Job {}: adopted running attempt {} (process group {})", key, record->attempt,
                  record->pid);
        WatchAdoptedLocked(p);
        it = procs.insert_or_assign(key, std::move(p)).first;
        WakeReaper();
      }
      if (it != procs.end() && (!record || record->pid != it->second.record.pid)) {
        // The status lost the running attempt (someone overwrote it): record it again.
        const AttemptRecord& mine = it->second.record;
        auto written = UpdateStatusLocked(job, [&](Resource& j) {
          if (JobFinished(j)) return false;
          MarkStarted(j.mutable_status(), mine, Now());
          return true;
        });
        HOP_RETURN_IF_ERROR(written);
        continue;
      }
      if (it != procs.end()) {
        Proc& p = it->second;
        PollLocked(p);
        if (p.exited) {
          HOP_RETURN_IF_ERROR(RecordEndLocked(job, Proc(p)));
          continue;
        }
        p.deadline = DeadlineOf(job);
        const SystemTime now = Now();
        if (p.deadline && now >= *p.deadline) {
          KillTrackedLocked(key, "it exceeded the Job's activeDeadlineSeconds");
          HOP_RETURN_IF_ERROR(
              FailLocked(job, kReasonDeadline, "Job was active longer than specified deadline"));
          return std::optional<milliseconds>();
        }
        if (p.deadline) return std::optional<milliseconds>(Until(*p.deadline, now));
        return std::optional<milliseconds>();
      }

      // An attempt started but not recorded (the runner stopped in between) is adopted.
      if (auto orphan = OrphanAttempt(ref, job)) {
        log::Info("Job {}: adopting attempt {}, started but not recorded before a restart", key,
                  orphan->attempt);
        auto written = UpdateStatusLocked(job, [&](Resource& j) {
          if (JobFinished(j) || RecordedAttempt(j)) return false;
          MarkStarted(j.mutable_status(), *orphan, Now());
          return true;
        });
        HOP_RETURN_IF_ERROR(written);
        continue;
      }

      // Nothing runs for the Job.
      const SystemTime now = Now();
      if (auto deadline = DeadlineOf(job); deadline && now >= *deadline) {
        HOP_RETURN_IF_ERROR(
            FailLocked(job, kReasonDeadline, "Job was active longer than specified deadline"));
        return std::optional<milliseconds>();
      }
      if (!may_start) return std::optional<milliseconds>();
      auto spec = ParseJobSpec(job);
      if (!spec.ok()) {
        HOP_RETURN_IF_ERROR(FailLocked(job, kReasonInvalid, spec.status().message()));
        return std::optional<milliseconds>();
      }
      if (!SafePathPart(ref.namespace_name) || !SafePathPart(ref.name)) {
        HOP_RETURN_IF_ERROR(FailLocked(
            job, kReasonInvalid, "the Job's namespace and name cannot name a work directory"));
        return std::optional<milliseconds>();
      }
      const int64_t failed = FailedOf(job);
      if (failed > spec->backoff_limit) {
        HOP_RETURN_IF_ERROR(FailLocked(
            job, kReasonBackoffLimit,
            fmt::format("Job has reached the specified backoff limit ({})", spec->backoff_limit)));
        return std::optional<milliseconds>();
      }
      if (spec->suspend) return std::optional<milliseconds>();
      // Waiting (for a retry's delay or a free slot) ends no later than the Job's deadline.
      const auto deadline = DeadlineOf(job);
      auto wait = [&](milliseconds d) {
        return std::optional<milliseconds>(deadline ? std::min(d, Until(*deadline, now)) : d);
      };
      if (auto last = LastExitTime(job); last && failed > 0) {
        SystemTime ready = *last + RetryDelay(failed, options.retry_delay, options.max_retry_delay);
        if (now < ready) return wait(Until(ready, now));
      }
      if (RunningLocked() >= options.max_running) {
        if (!reaping) return wait(kSlotWait);  // no one starts queued Jobs: Sync is asked again
        QueueLocked(ref);
        *queued = true;
        if (deadline) return wait(Until(*deadline, now));
        return std::optional<milliseconds>();
      }
      bool not_started = false;
      SyncResult started = StartAttemptLocked(ref, job, *spec, &not_started);
      if (!not_started) return started;
    }
    // The Job changed on every round: look again soon.
    return std::optional<milliseconds>(milliseconds(100));
  }

  // Adopts or records the attempts the store says are running, and kills processes left by Jobs
  // that are gone. Called by Start().
  Status AdoptLocked() {
    // Finished Jobs have nothing to adopt or start: only the others are read.
    store::ListOptions list;
    list.kind = kJobKind;
    list.index_key = std::string(resource::kUnfinishedJobKey);
    HOP_ASSIGN_OR_RETURN(auto jobs, store.List(list));
    // The Jobs that have not started yet are queued, oldest first: they start as slots allow,
    // whether or not something Syncs them again (a Job that waited when the last runner stopped
    // has had no change to be told of).
    std::vector<const Resource*> unstarted;
    for (const Resource& job : jobs.items) {
      if (!RecordedAttempt(job) && !JobFinished(job) && !job.deletion_timestamp()) {
        unstarted.push_back(&job);
      }
    }
    std::stable_sort(unstarted.begin(), unstarted.end(), [](const Resource* a, const Resource* b) {
      return a->json()["metadata"].value("creationTimestamp", "") <
             b->json()["metadata"].value("creationTimestamp", "");
    });
    for (const Resource* job : unstarted) QueueLocked(Normalised(store::RefOf(*job)));
    for (const Resource& job : jobs.items) {
      if (!RecordedAttempt(job) || JobFinished(job)) continue;
      auto synced = SyncLocked(store::RefOf(job), /*may_start=*/false);
      if (!synced.ok()) {
        log::Warn("Job {}/{}: cannot adopt its attempt: {}", job.namespace_name(), job.name(),
                  synced.status().ToString());
      }
    }
    // Marker files of attempts no status records (their Job deleted, or hop stopped between
    // starting a process and recording it), and the work directories of Jobs deleted while no
    // runner ran.
    std::error_code ec;
    fs::path root = fs::path(options.state_dir) / "jobs";
    if (!fs::is_directory(root, ec)) return Status::OK();
    std::vector<store::ObjectRef> gone;
    for (const auto& ns_dir : fs::directory_iterator(root, ec)) {
      std::error_code ec2;
      if (!ns_dir.is_directory(ec2)) continue;
      for (const auto& job_dir : fs::directory_iterator(ns_dir.path(), ec2)) {
        std::error_code ec3;
        store::ObjectRef ref{kJobKind, ns_dir.path().filename().string(),
                             job_dir.path().filename().string()};
        if (!fs::exists(job_dir.path() / kMarkerFile, ec3)) {
          auto job = store.Get(ref);
          if (!job.ok() && job.status().code() == StatusCode::kNotFound) gone.push_back(ref);
          continue;
        }
        pid_t keep = 0;
        auto job = store.Get(ref);
        if (job.ok()) {
          if (auto record = RecordedAttempt(*job)) keep = record->pid;
          // Started but not recorded: adopted by the next Sync, not killed.
          if (!JobFinished(*job) && OrphanAttempt(ref, *job)) {
            auto synced = SyncLocked(ref, /*may_start=*/false);
            if (!synced.ok()) {
              log::Warn("Job {}: cannot adopt its attempt: {}", KeyOf(ref),
                        synced.status().ToString());
            }
            continue;
          }
        } else if (job.status().code() != StatusCode::kNotFound) {
          continue;  // cannot tell: leave it for the next start
        }
        KillMarkedLocked(ref, keep);
        if (!job.ok()) gone.push_back(ref);
      }
    }
    // Removed once the walk is over: a directory iterator's directory is not changed under it.
    for (const store::ObjectRef& ref : gone) RemoveWorkDirLocked(ref);
    return Status::OK();
  }

  // Waits in poll(2) for what can happen next: an attempt's process ending (its pidfd), a
  // killed group's leader ending, a deadline, a SIGKILL due after a grace, or a wake-up (a new
  // process to watch, Stop). It looks every poll_interval only when something cannot be waited
  // for (no pidfd, an exit not yet recorded, queued Jobs the store would not start, an injected
  // clock).
  void ReaperLoop() {
    std::unique_lock lock(mu);
    std::vector<pollfd> fds;
    while (!stopping) {
      fds.clear();
      fds.push_back({wake_fd, POLLIN, 0});
      if (spawner && !spawner->gone()) fds.push_back({spawner->fd(), POLLIN, 0});
      bool must_poll = pump_failed && RunningLocked() < options.max_running;
      std::optional<SteadyTime> until;
      auto no_later_than = [&](SteadyTime t) {
        if (!until || t < *until) until = t;
      };
      const SteadyTime steady_now = std::chrono::steady_clock::now();
      const SystemTime now = Now();
      // Exits the spawner reported while a start waited for its answer are read at once.
      if (spawner && spawner->HasExits()) no_later_than(steady_now);
      for (auto& [key, p] : procs) {
        // A live spawner's connection says when its process ends.
        const bool reported = p.spawner && !p.spawner->gone() && !p.exited;
        if (p.awaiting_reap) {
          no_later_than(steady_now + kReapWait);
        } else if (!reported && (p.exited || !p.pidfd || p.spawner)) {
          must_poll = true;
        } else if (!reported) {
          fds.push_back({p.pidfd->fd, POLLIN, 0});
        }
        if (p.deadline) {
          if (options.clock != &SystemClock()) must_poll = true;
          no_later_than(steady_now + Until(*p.deadline, now));
        }
      }
      for (const Dying& d : dying) {
        if (!d.killed) no_later_than(d.kill_at);
        if (d.leader_done) continue;
        if (d.pidfd) {
          fds.push_back({d.pidfd->fd, POLLIN, 0});
        } else {
          must_poll = true;
        }
      }
      if (must_poll) no_later_than(steady_now + options.poll_interval);
      int timeout = -1;
      if (until) {
        timeout = static_cast<int>(std::clamp<int64_t>(
            std::chrono::ceil<milliseconds>(*until - steady_now).count(), 0, 24 * 3600 * 1000));
      }
      lock.unlock();
      int ready = poll(fds.data(), fds.size(), timeout);
      lock.lock();
      if (stopping) break;
      if (ready < 0 && errno != EINTR) {
        log::Warn("the Job runner cannot wait for its processes: {}", std::strerror(errno));
        cv.wait_for(lock, options.poll_interval, [&] { return stopping; });
        continue;
      }
      uint64_t drained = 0;
      while (wake_fd >= 0 && read(wake_fd, &drained, sizeof(drained)) > 0) {
      }
      if (spawner) spawner->Drain();
      ReapDyingLocked();
      const SystemTime after = Now();
      std::vector<store::ObjectRef> exited, overdue;
      std::vector<pid_t> watched;
      for (auto& [key, p] : procs) {
        PollLocked(p);
        if (p.exited) {
          exited.push_back(p.ref);
        } else if (p.deadline && after >= *p.deadline) {
          overdue.push_back(p.ref);
        }
        if (p.spawner == spawner) watched.push_back(p.record.pid);
      }
      // The ends of processes no longer watched (killed, their Jobs gone) are not kept.
      if (spawner) spawner->ForgetExitsExcept(watched);
      for (const store::ObjectRef& ref : overdue) {
        auto synced = SyncLocked(ref, /*may_start=*/false);
        if (!synced.ok()) {
          log::Warn("Job {}: cannot stop it at its deadline: {}", KeyOf(ref),
                    synced.status().ToString());
        }
      }
      // The exits' ends, and the starts of queued Jobs they make room for, in one commit.
      SettleLocked(exited);
    }
  }

  store::Store& store;
  const JobRunnerOptions options;

  mutable std::mutex mu;
  std::map<std::string, Proc> procs;  // guarded by mu; by "namespace/name"
  std::vector<Dying> dying;           // guarded by mu
  // Fire-to-start latencies of the latest trigger runs, in ms, and how many were recorded.
  static constexpr size_t kLatenciesKept = 1000;
  std::vector<double> fire_to_start;  // guarded by mu
  int64_t started_runs = 0;           // guarded by mu
  bool stopping = false;              // guarded by mu
  bool reaping = false;               // guarded by mu; the reaper thread runs
  // Jobs waiting for a free slot, oldest first; a Job is queued while its key is in
  // waiting_keys (an entry whose key is not is left over, and skipped). Guarded by mu.
  std::deque<store::ObjectRef> waiting;
  std::set<std::string> waiting_keys;
  bool pump_failed = false;  // guarded by mu; the latest PumpLocked met a store error
  int wake_fd = -1;          // the reaper's eventfd
  // Starts this runner's processes; started with the first, and again should it be gone. Its
  // processes hold it too (Proc::spawner). Guarded by mu.
  std::shared_ptr<Spawner> spawner;
  std::condition_variable cv;
  std::thread reaper;  // started and joined only under start_mu
  std::mutex start_mu;

  metrics::Registry& registry;
  Metrics metric;
  // Reads the running processes under `mu` at each Render; declared last so it goes first.
  metrics::CallbackHandle running_gauge;
};

int DefaultMaxRunning() {
  int cpus = 0;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) cpus = CPU_COUNT(&set);
  if (cpus <= 0) cpus = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(4, 2 * cpus);
}

JobRunner::JobRunner(store::Store& store, JobRunnerOptions options)
    : impl_(std::make_unique<Impl>(store, std::move(options))) {}

JobRunner::~JobRunner() { Stop(); }

Result<std::optional<std::chrono::milliseconds>> JobRunner::Sync(const store::ObjectRef& ref) {
  if (!impl_->options.enabled) return std::optional<milliseconds>();
  if (ref.kind != kJobKind) {
    return Status::InvalidArgument("the local Job runner runs batch/v1 Jobs, not " +
                                   ref.kind.ToString());
  }
  if (impl_->options.state_dir.empty()) {
    return Status::InvalidArgument("the local Job runner needs a state directory");
  }
  std::lock_guard lock(impl_->mu);
  auto synced = impl_->SyncLocked(ref, /*may_start=*/true);
  impl_->PumpLocked();  // the Sync may have freed a slot (an exit recorded, a process killed)
  return synced;
}

Status JobRunner::Start() {
  if (!impl_->options.enabled) return Status::OK();
  if (impl_->options.state_dir.empty()) {
    return Status::InvalidArgument("the local Job runner needs a state directory");
  }
  std::lock_guard start_lock(impl_->start_mu);
  if (impl_->reaper.joinable()) return Status::OK();
  {
    std::lock_guard lock(impl_->mu);
    impl_->reaping = true;
    Status adopted = impl_->AdoptLocked();
    if (!adopted.ok()) {
      impl_->reaping = false;
      impl_->waiting.clear();
      impl_->waiting_keys.clear();
      return adopted;
    }
    impl_->stopping = false;
    impl_->PumpLocked();
  }
  impl_->reaper = std::thread([this] { impl_->ReaperLoop(); });
  return Status::OK();
}

void JobRunner::Stop() {
  std::lock_guard start_lock(impl_->start_mu);
  if (impl_->reaper.joinable()) {
    {
      std::lock_guard lock(impl_->mu);
      impl_->stopping = true;
      impl_->reaping = false;
      // The next Start queues again what has not started.
      impl_->waiting.clear();
      impl_->waiting_keys.clear();
      impl_->WakeReaper();
    }
    impl_->cv.notify_all();
    impl_->reaper.join();
  }
  // No reaper will send the SIGKILLs that are due later: send them now.
  std::lock_guard lock(impl_->mu);
  impl_->ReapDyingLocked(/*now_all=*/true);
}

int JobRunner::Running() const {
  std::lock_guard lock(impl_->mu);
  return impl_->RunningLocked();
}

JobRunner::Stats JobRunner::stats() const {
  std::lock_guard lock(impl_->mu);
  Stats out;
  out.running = impl_->RunningLocked();
  out.started_runs = impl_->started_runs;
  std::vector<double> v = impl_->fire_to_start;
  if (!v.empty()) {
    std::sort(v.begin(), v.end());
    auto at = [&](double p) {
      return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
    };
    out.fire_to_start_p50_ms = at(0.5);
    out.fire_to_start_p99_ms = at(0.99);
  }
  return out;
}

std::string JobRunner::LogPath(const store::ObjectRef& ref) const { return impl_->LogPath(ref); }

std::string JobRunner::LogPathIn(const std::string& state_dir, const store::ObjectRef& in) {
  store::ObjectRef ref = Normalised(in);
  return (fs::path(state_dir) / "logs" / ref.namespace_name / (ref.name + ".log")).string();
}

std::string JobRunner::WorkDir(const store::ObjectRef& ref) const { return impl_->WorkDir(ref); }

Status JobRunner::RemoveLog(const store::ObjectRef& ref) {
  std::lock_guard lock(impl_->mu);
  return impl_->RemoveLogLocked(ref);
}

bool JobRunner::AttemptMarkersIn(const std::string& state_dir) {
  std::error_code ec;
  for (const auto& ns_dir : fs::directory_iterator(fs::path(state_dir) / "jobs", ec)) {
    std::error_code ec2;
    for (const auto& job_dir : fs::directory_iterator(ns_dir.path(), ec2)) {
      std::error_code ec3;
      if (fs::exists(job_dir.path() / kMarkerFile, ec3)) return true;
    }
  }
  return false;
}

}  // namespace hop::runtime
