// Process helpers of the local Job runner: posix_spawn into a new session, pidfds, and /proc
// readers.
#include "runtime/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "common/strings.h"

extern char** environ;

namespace hop::runtime {
namespace {

bool ParseInt64(std::string_view text, int64_t* out) {
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && p == text.data() + text.size();
}

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// posix_spawn's attribute and file-action objects, destroyed on every path out.
class SpawnObjects {
 public:
  SpawnObjects() {
    attr_ok_ = posix_spawnattr_init(&attr) == 0;
    actions_ok_ = posix_spawn_file_actions_init(&actions) == 0;
  }
  ~SpawnObjects() {
    if (attr_ok_) posix_spawnattr_destroy(&attr);
    if (actions_ok_) posix_spawn_file_actions_destroy(&actions);
  }
  SpawnObjects(const SpawnObjects&) = delete;
  SpawnObjects& operator=(const SpawnObjects&) = delete;
  bool ok() const { return attr_ok_ && actions_ok_; }

  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;

 private:
  bool attr_ok_ = false;
  bool actions_ok_ = false;
};

}  // namespace

std::optional<ProcStat> ParseProcStat(std::string_view text) {
  // "pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime
  //  stime cutime cstime priority nice num_threads itrealvalue starttime ..."; comm may hold
  // anything, so fields are counted after its last ')'.
  size_t close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::vector<std::string_view> fields;  // fields[0] is field 3 (state)
  size_t i = close + 1;
  while (i < text.size() && fields.size() < 20) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n')) ++i;
    size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\n') ++i;
    if (i > start) fields.push_back(text.substr(start, i - start));
  }
  if (fields.size() < 20 || fields[0].size() != 1) return std::nullopt;
  ProcStat stat;
  stat.state = fields[0][0];
  int64_t pgrp = 0;
  if (!ParseInt64(fields[2], &pgrp) || !ParseInt64(fields[19], &stat.start_ticks)) {
    return std::nullopt;
  }
  stat.pgrp = static_cast<pid_t>(pgrp);
  return stat;
}

std::optional<ProcStat> ReadProcStat(pid_t pid) {
  if (pid <= 0) return std::nullopt;
  std::string text = ReadSmallFile("/proc/" + std::to_string(pid) + "/stat");
  if (text.empty()) return std::nullopt;
  return ParseProcStat(text);
}

const std::string& BootId() {
  static const std::string id =
      std::string(TrimWhitespace(ReadSmallFile("/proc/sys/kernel/random/boot_id")));
  return id;
}

bool GroupHasLiveMembers(pid_t pgrp) {
  if (pgrp <= 0) return false;
  // Zombies count for kill(2); no process at all is the usual answer, and it needs no scan.
  if (kill(-pgrp, 0) != 0 && errno == ESRCH) return false;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return false;
  bool alive = false;
  while (dirent* entry = readdir(dir)) {
    int64_t pid = 0;
    if (!ParseInt64(entry->d_name, &pid)) continue;
    auto stat = ReadProcStat(static_cast<pid_t>(pid));
    if (stat && stat->pgrp == pgrp && stat->state != 'Z' && stat->state != 'X') {
      alive = true;
      break;
    }
  }
  closedir(dir);
  return alive;
}

PidFd::~PidFd() { close(fd); }

bool PidFd::Ended() const {
  pollfd p = {fd, POLLIN, 0};
  return poll(&p, 1, 0) > 0;
}

std::shared_ptr<PidFd> OpenPidFd(pid_t pid) {
#ifdef SYS_pidfd_open
  if (pid <= 0) return nullptr;
  const long fd = syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) return nullptr;
  // (close-on-exec, as pidfd_open makes every pidfd)
  return std::make_shared<PidFd>(static_cast<int>(fd));
#else
  (void)pid;
  return nullptr;
#endif
}

std::vector<std::string> EnvironmentWith(
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::map<std::string, std::string> last(overrides.begin(), overrides.end());
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    const std::string name(entry.substr(0, entry.find('=')));
    if (last.count(name) == 0) env.emplace_back(entry);
  }
  for (const auto& [name, value] : overrides) {
    auto it = last.find(name);
    if (it == last.end()) continue;  // a repeated name, written once with its last value
    env.push_back(name + "=" + it->second);
    last.erase(it);
  }
  return env;
}

Status CheckExecSize(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  // The kernel's limits (execve(2)): one argument or environment entry at most 32 pages, all of
  // them together at most ARG_MAX. Saying which was passed spares the reader the arithmetic.
  const long page = sysconf(_SC_PAGESIZE);
  const size_t one_max = 32 * static_cast<size_t>(page > 0 ? page : 4096);
  const long arg_max = sysconf(_SC_ARG_MAX);
  size_t longest = 0;
  size_t total = 0;
  for (const std::vector<std::string>* strings : {&argv, &env}) {
    for (const std::string& s : *strings) {
      longest = std::max(longest, s.size() + 1);
      total += s.size() + 1 + sizeof(char*);
    }
  }
  if (longest <= one_max && (arg_max <= 0 || total <= static_cast<size_t>(arg_max))) {
    return Status::OK();
  }
  return Status::Unavailable(fmt::format(
      "{} (its longest argument or environment entry takes {} bytes, at most {} allowed; all of "
      "them {} bytes, at most {})",
      std::strerror(E2BIG), longest, one_max, total, arg_max));
}

Result<pid_t> SpawnSession(const SpawnRequest& request) {
  if (request.argv.empty()) return Status::InvalidArgument("nothing to run: empty argv");
  const std::string& what = request.argv.front();

  std::vector<std::string> env_strings = EnvironmentWith(request.env);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  std::vector<std::string> argv_strings = request.argv;
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  // The output descriptor must not be one the child's own 0, 1 or 2 replace first (it can be,
  // in a process started with its standard descriptors closed).
  int output_fd = request.output_fd;
  int owned_fd = -1;
  if (output_fd >= 0 && output_fd <= 2) {
    owned_fd = fcntl(output_fd, F_DUPFD_CLOEXEC, 3);
    if (owned_fd < 0) {
      return Status::Unavailable("cannot start " + what + ": " + std::strerror(errno));
    }
    output_fd = owned_fd;
  }
  struct CloseOnExit {
    int fd;
    ~CloseOnExit() {
      if (fd >= 0) close(fd);
    }
  } close_owned{owned_fd};
  // Likewise the gate, which must not be a descriptor the child's 0 to 3 replace before it.
  int gate_fd = request.gate_fd;
  int owned_gate = -1;
  if (gate_fd >= 0 && gate_fd <= 3) {
    owned_gate = fcntl(gate_fd, F_DUPFD_CLOEXEC, 4);
    if (owned_gate < 0) {
      return Status::Unavailable("cannot start " + what + ": " + std::strerror(errno));
    }
    gate_fd = owned_gate;
  }
  CloseOnExit close_gate{owned_gate};

  SpawnObjects spawn;
  if (!spawn.ok()) return Status::Unavailable("cannot prepare to start " + what);
  sigset_t none;
  sigemptyset(&none);
  sigset_t all;
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  int rc = posix_spawnattr_setflags(
      &spawn.attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  if (rc == 0) rc = posix_spawnattr_setsigmask(&spawn.attr, &none);
  if (rc == 0) rc = posix_spawnattr_setsigdefault(&spawn.attr, &all);
  if (rc == 0) {
    rc = posix_spawn_file_actions_addopen(&spawn.actions, 0, "/dev/null", O_RDONLY, 0);
  }
  if (rc == 0 && output_fd >= 0) {
    rc = posix_spawn_file_actions_adddup2(&spawn.actions, output_fd, 1);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&spawn.actions, output_fd, 2);
  }
  if (rc == 0 && gate_fd >= 0) rc = posix_spawn_file_actions_adddup2(&spawn.actions, gate_fd, 3);
  if (rc == 0) {
    rc = posix_spawn_file_actions_addclosefrom_np(&spawn.actions, gate_fd >= 0 ? 4 : 3);
  }
  if (rc == 0 && !request.working_dir.empty()) {
    rc = posix_spawn_file_actions_addchdir_np(&spawn.actions, request.working_dir.c_str());
  }
  if (rc != 0) {
    return Status::Unavailable("cannot prepare to start " + what + ": " + std::strerror(rc));
  }
  pid_t pid = 0;
  const std::string& program = request.program.empty() ? what : request.program;
  rc = posix_spawnp(&pid, program.c_str(), &spawn.actions, &spawn.attr, argv.data(), envp.data());
  if (rc == E2BIG) {
    Status size = CheckExecSize(argv_strings, env_strings);
    if (!size.ok()) return Status::Unavailable("cannot start " + what + ": " + size.message());
  }
  if (rc != 0) return Status::Unavailable("cannot start " + what + ": " + std::strerror(rc));
  return pid;
}

}  // namespace hop::runtime
