// The operating-system side of the local Job runner: starting a command as the leader of a new
// session (so its whole process group can be signalled), and reading /proc to tell whether a
// recorded pid is still the process that was started, even when it is not this process's child.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace hop::runtime {

// What /proc/<pid>/stat says about a process.
struct ProcStat {
  char state = '?';         // R, S, D, Z (exited, not yet reaped), X, ...
  pid_t pgrp = 0;           // its process group
  int64_t start_ticks = 0;  // clock ticks after boot at which it started (field 22)
};

// The stat line of `pid`, or nullopt when there is no such process (or /proc is unreadable).
std::optional<ProcStat> ReadProcStat(pid_t pid);
// Parses the text of a /proc/<pid>/stat file (the command name may hold spaces and parentheses).
std::optional<ProcStat> ParseProcStat(std::string_view text);

// This boot's id (/proc/sys/kernel/random/boot_id), "" when unknown. With the start ticks it
// tells a recorded process from a later one that reuses its pid, also across reboots.
const std::string& BootId();

// Whether any process of group `pgrp` is alive (not a zombie). A group with no process at all
// costs one kill(2); one with members is told from one of zombies by scanning /proc.
bool GroupHasLiveMembers(pid_t pgrp);

// A process's pidfd (pidfd_open(2), Linux 5.3 and later): readable once the process has ended,
// whether or not it is this process's child. Closed with the last copy of the pointer; nullptr
// when the kernel has no pidfds (or no descriptor is left).
struct PidFd {
  explicit PidFd(int fd) : fd(fd) {}
  ~PidFd();
  PidFd(const PidFd&) = delete;
  PidFd& operator=(const PidFd&) = delete;
  // Whether the process has ended, without waiting.
  bool Ended() const;
  const int fd;
};
std::shared_ptr<PidFd> OpenPidFd(pid_t pid);

struct SpawnRequest {
  std::string program;            // the file to run; argv[0] when empty
  std::vector<std::string> argv;  // argv[0] is run as given (an absolute path, or found on PATH)
  // Added to, or replacing in, this process's environment.
  std::vector<std::pair<std::string, std::string>> env;
  std::string working_dir;
  int output_fd = -1;  // becomes the child's stdout and stderr; stdin is /dev/null
  // Becomes the child's descriptor 3 when set (the Job runner's start gate, job_runner.cc).
  int gate_fd = -1;
};

// Starts `request` as the leader of a new session and process group (setsid), with every signal
// at its default disposition, an empty signal mask and no descriptors besides 0, 1 and 2 (and 3,
// the gate, when the request has one).
// Returns its pid (this process's child: reap it with waitpid). Unavailable when the system
// refuses (the message names the command and the error).
Result<pid_t> SpawnSession(const SpawnRequest& request);

// This process's environment, NAME=value, with `overrides` added or replacing entries of the same
// name (the last of a repeated name wins).
std::vector<std::string> EnvironmentWith(
    const std::vector<std::pair<std::string, std::string>>& overrides);

// Whether the kernel would take `argv` and `env` (execve(2): one string at most 32 pages, all of
// them with their pointers at most ARG_MAX). Unavailable, saying which limit and by how much,
// when it would refuse them with E2BIG.
Status CheckExecSize(const std::vector<std::string>& argv, const std::vector<std::string>& env);


}  // namespace hop::runtime
