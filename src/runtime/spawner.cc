// The Job runner's spawner: the runner's side (class Spawner) and the spawner process's
// (RunSpawner). They speak over a stream socket in frames: a 4-byte length, then a type byte and
// the fields, each a 4-byte number or a string (4-byte length, bytes); both ends are this binary
// on this machine, so numbers are in its own byte order.
//
//   runner -> spawner   'S' argv env working_dir log_path exit_file   start, held at the gate
//                       'G' pid                                       open the gate
//                       'C' pid                                       close it: never run
//   spawner -> runner   'P' pid                                       started (answers 'S')
//                       'E' message                                   not started (answers 'S')
//                       'X' pid wait_status                           ended; exit file written
#include "runtime/spawner.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <system_error>

#include "runtime/process.h"

namespace hop::runtime {
namespace {

// How the runner starts the spawner: argv[0] and argv[1] of this binary run again, which the
// constructor below recognises before main.
constexpr const char* kSpawnerName = "hop-job-spawner";
constexpr const char* kSpawnerFlag = "--serve-job-runner";
// How long the runner waits for the spawner to answer a start before taking it for gone.
constexpr int kAnswerWaitMs = 30000;
// A frame longer than this is not the runner's (ARG_MAX is 2 MB by default).
constexpr uint32_t kFrameMax = 64u << 20;

// The spawner process enters here, before main and anything main would set up: the process was
// started as `hop-job-spawner --serve-job-runner` with the runner's end of the connection on
// descriptor 3 (Spawner::Launch). glibc passes the arguments to the constructors it runs.
[[gnu::constructor]] void EnterSpawnerIfAsked(int argc, char** argv, char** /*envp*/) {
  if (argc == 2 && argv[0] != nullptr && std::strcmp(argv[0], kSpawnerName) == 0 &&
      std::strcmp(argv[1], kSpawnerFlag) == 0) {
    RunSpawner(3);
  }
}

// --- frames ---

void PutU32(std::string& out, uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }
void PutStr(std::string& out, std::string_view s) {
  PutU32(out, static_cast<uint32_t>(s.size()));
  out.append(s);
}
// A frame of `type` and `body`, with its length in front.
std::string Frame(char type, const std::string& body) {
  std::string out;
  PutU32(out, static_cast<uint32_t>(body.size() + 1));
  out += type;
  out += body;
  return out;
}

// Reads the fields of a frame's body; `ok` turns false at the first field that is not there.
struct FieldReader {
  std::string_view in;
  bool ok = true;
  uint32_t U32() {
    uint32_t v = 0;
    if (in.size() < 4) {
      ok = false;
      return 0;
    }
    std::memcpy(&v, in.data(), 4);
    in.remove_prefix(4);
    return v;
  }
  std::string Str() {
    const uint32_t n = U32();
    if (!ok || in.size() < n) {
      ok = false;
      return {};
    }
    std::string s(in.substr(0, n));
    in.remove_prefix(n);
    return s;
  }
  std::vector<std::string> Strings() {
    const uint32_t n = U32();
    std::vector<std::string> v;
    for (uint32_t i = 0; ok && i < n; ++i) v.push_back(Str());
    return v;
  }
};

// Whether `buffer` begins a frame longer than either end would send: the connection is broken.
bool FrameTooLong(const std::string& buffer) {
  uint32_t n = 0;
  if (buffer.size() >= 4) std::memcpy(&n, buffer.data(), 4);
  return n > kFrameMax;
}

// Takes one whole frame off the front of `buffer` into `frame` (type byte and body).
bool TakeFrame(std::string& buffer, std::string* frame) {
  if (buffer.size() < 4) return false;
  uint32_t n = 0;
  std::memcpy(&n, buffer.data(), 4);
  if (buffer.size() < 4 + static_cast<size_t>(n)) return false;
  frame->assign(buffer, 4, n);
  buffer.erase(0, 4 + static_cast<size_t>(n));
  return true;
}

// --- the spawner process ---

// Exit codes of a child that did not get to run its command.
constexpr int kChildNeverRan = 120;
constexpr int kChildSetupFailed = 121;
// The stack a child runs on until it execs: it calls a few system calls and nothing else.
constexpr size_t kChildStack = 64 * 1024;

// One start in flight: what its child needs, prepared by the spawner's main thread, and the
// stack the child runs on. Kept until the child has exec'd or exited (its starter thread says
// so), since until then the child reads it.
struct Launch {
  uint64_t id = 0;
  std::vector<std::string> argv, env;
  std::vector<std::string> candidates;  // the paths to try, in order, as execvp would
  std::vector<char*> argv_p, env_p;
  std::vector<char*> sh_argv_p;  // /bin/sh <candidate> <args>...: a file with no #! line
  std::string error_prefix;      // "hop: cannot run NAME: "
  int ready = -1;                // where the child says it is ready
  int gate = -1, log_fd = -1, dir_fd = -1, null_fd = -1;
  std::unique_ptr<char[]> stack;
};

// What a child (kReady, once it leads its group) and a starter thread (kReturned, once its child
// has exec'd or exited, or could not be made) write on the spawner's ready pipe.
struct Note {
  uint64_t id;
  int32_t pid;
  int32_t what;
  int32_t error;
  int32_t unused;
};
constexpr int32_t kReady = 1;
constexpr int32_t kReturned = 2;

// Writes "<prefix><the error's description>\n" on `fd`: the child's last words in the Job's log.
// System calls only, as the child may make (ChildMain).
[[gnu::no_sanitize_address]] void SayWhy(int fd, std::string_view prefix, int error) {
  const char* what = strerrordesc_np(error);
  [[maybe_unused]] ssize_t w = write(fd, prefix.data(), prefix.size());
  w = write(fd, what, std::strlen(what));
  w = write(fd, "\n", 1);
}

// The child, from clone to exec. It shares the spawner's memory (CLONE_VM | CLONE_VFORK, as
// posix_spawn makes its children) while its starter thread waits, so it only makes system calls
// on what its Launch holds: it leads a new process group (in the spawner's session, which has no
// controlling terminal), says so, sets descriptors 0-2 and the gate on 3 and closes the rest,
// waits for "g" on the gate, then execs the command, trying the paths of the PATH of its
// environment as a shell would.
[[gnu::no_sanitize_address]] int ChildMain(void* arg) {
  Launch& l = *static_cast<Launch*>(arg);
  if (setpgid(0, 0) != 0) _exit(kChildSetupFailed);
  const Note ready{l.id, static_cast<int32_t>(getpid()), kReady, 0, 0};
  if (write(l.ready, &ready, sizeof(ready)) != sizeof(ready)) _exit(kChildSetupFailed);
  // The spawner handles no signal and ignores only SIGPIPE (Run); exec resets the rest.
  signal(SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  if (sigprocmask(SIG_SETMASK, &none, nullptr) != 0 || dup2(l.null_fd, 0) < 0 ||
      dup2(l.log_fd, 1) < 0 || dup2(l.log_fd, 2) < 0 || (l.gate != 3 && dup2(l.gate, 3) < 0) ||
      fchdir(l.dir_fd) != 0) {
    // The log says why; the exit code, not "never-ran", goes in the exit file (ExitFileText),
    // so the runner counts a failed attempt instead of starting it again at once.
    SayWhy(l.log_fd, "hop: cannot set up the process: ", errno);
    _exit(kChildSetupFailed);
  }
  // Every other descriptor goes: no other child's gate stays open here.
  if (close_range(4, ~0U, 0) != 0) {
    for (int fd = 4; fd < 1024; ++fd) close(fd);
  }
  char go = 0;
  ssize_t n = 0;
  do {
    n = read(3, &go, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1 || go != 'g') _exit(kChildNeverRan);
  close(3);
  int error = ENOENT;
  bool denied = false;
  for (std::string& path : l.candidates) {
    execve(path.c_str(), l.argv_p.data(), l.env_p.data());
    error = errno;
    if (error == ENOEXEC) {
      l.sh_argv_p[1] = path.data();
      execve("/bin/sh", l.sh_argv_p.data(), l.env_p.data());
      error = errno;
      break;
    }
    if (error == EACCES) denied = true;
    if (error != ENOENT && error != ENOTDIR && error != EACCES && error != ESTALE &&
        error != ENODEV && error != ETIMEDOUT) {
      break;
    }
  }
  if (denied && (error == ENOENT || error == ENOTDIR)) error = EACCES;
  SayWhy(2, l.error_prefix, error);
  _exit(error == ENOENT ? 127 : 126);
}

}  // namespace

std::string ExitFileText(bool gate_opened, bool exited, int status) {
  if (exited && (gate_opened || status == kChildSetupFailed)) return std::to_string(status);
  if (!gate_opened) return std::string(kNeverRan);
  return std::to_string(128 + status);  // killed by a signal, as a shell says
}

namespace {

// The paths execvp would try for `name` with the PATH of `env`: `name` itself when it holds a
// '/'; else each directory of PATH (an empty one is the working directory; no PATH is
// /bin:/usr/bin) joined with it.
std::vector<std::string> Candidates(const std::string& name, const std::vector<std::string>& env) {
  if (name.find('/') != std::string::npos) return {name};
  std::string_view path = "/bin:/usr/bin";
  for (const std::string& entry : env) {
    if (entry.rfind("PATH=", 0) == 0) path = std::string_view(entry).substr(5);
  }
  std::vector<std::string> out;
  for (;;) {
    const size_t colon = path.find(':');
    const std::string_view dir = path.substr(0, colon);
    out.push_back(dir.empty() ? name : std::string(dir) + "/" + name);
    if (colon == std::string_view::npos) break;
    path.remove_prefix(colon + 1);
  }
  return out;
}

class SpawnerProcess {
 public:
  explicit SpawnerProcess(int conn) : conn_(conn) {}

  int Run() {
    // Every signal at its default (the runner started this process so), but SIGPIPE: a runner
    // gone while its answer is written is no reason to die. Children put it back (ChildMain).
    signal(SIGPIPE, SIG_IGN);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, nullptr);
    signal_fd_ = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
    null_fd_ = open("/dev/null", O_RDWR | O_CLOEXEC);
    int ready[2];
    if (signal_fd_ < 0 || null_fd_ < 0 || pipe2(ready, O_CLOEXEC) != 0) return 1;
    ready_read_ = ready[0];
    ready_write_ = ready[1];
    fcntl(conn_, F_SETFL, fcntl(conn_, F_GETFL) | O_NONBLOCK);
    while (conn_ >= 0 || !children_.empty()) {
      pollfd fds[3] = {{signal_fd_, POLLIN, 0}, {ready_read_, POLLIN, 0}, {conn_, POLLIN, 0}};
      if (!out_.empty()) fds[2].events |= POLLOUT;
      if (poll(fds, conn_ >= 0 ? 3 : 2, -1) < 0 && errno != EINTR) return 1;
      signalfd_siginfo info[8];
      while (read(signal_fd_, info, sizeof(info)) > 0) {
      }
      if (fds[1].revents & POLLIN) ReadNote();
      Reap();
      if (conn_ >= 0 && (fds[2].revents & (POLLIN | POLLHUP | POLLERR))) Receive();
      Flush();
    }
    return 0;
  }

 private:
  struct Child {
    std::string exit_file;
    int gate = -1;  // the gate's writing end, while neither opened nor closed
    bool opened = false;
  };

  // Reads what the runner sent and acts on every whole frame, the ones that came just before it
  // closed the connection included (an opened gate, then the runner gone).
  void Receive() {
    char buffer[65536];
    bool closed = false;
    for (;;) {
      const ssize_t n = read(conn_, buffer, sizeof(buffer));
      if (n > 0) {
        in_.append(buffer, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      closed = !(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
      break;
    }
    std::string frame;
    while (conn_ >= 0 && TakeFrame(in_, &frame)) Handle(frame);
    if (FrameTooLong(in_)) closed = true;
    if (closed && conn_ >= 0) Disconnect();  // the runner closed its end, or the connection broke
  }

  void Handle(const std::string& frame) {
    if (frame.empty()) return;
    FieldReader r{std::string_view(frame).substr(1)};
    switch (frame[0]) {
      case 'S': {
        std::vector<std::string> argv = r.Strings();
        std::vector<std::string> env = r.Strings();
        const std::string dir = r.Str();
        const std::string log = r.Str();
        const std::string exit_file = r.Str();
        if (!r.ok || argv.empty()) {
          SayError("the spawner got a malformed start");
          return;
        }
        Start(argv, env, dir, log, exit_file);
        return;
      }
      case 'G':
      case 'C': {
        const pid_t pid = static_cast<pid_t>(r.U32());
        auto it = children_.find(pid);
        if (!r.ok || it == children_.end() || it->second.gate < 0) return;
        if (frame[0] == 'G') {
          [[maybe_unused]] ssize_t n = write(it->second.gate, "g", 1);
          it->second.opened = true;
        }
        close(it->second.gate);
        it->second.gate = -1;
        return;
      }
      default:
        return;
    }
  }

  void Start(std::vector<std::string>& argv, std::vector<std::string>& env, const std::string& dir,
             const std::string& log, const std::string& exit_file) {
    const std::string what = argv.front();
    const int log_fd = open(log.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
    if (log_fd < 0) {
      SayError(fmt::format("cannot open {}: {}", log, std::strerror(errno)));
      return;
    }
    const int dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0) {
      SayError(fmt::format("cannot enter {}: {}", dir, std::strerror(errno)));
      close(log_fd);
      return;
    }
    int gate[2] = {-1, -1};
    if (pipe2(gate, O_CLOEXEC) != 0) {
      SayError(fmt::format("cannot start {}: {}", what, std::strerror(errno)));
      close(log_fd);
      close(dir_fd);
      return;
    }
    auto owned = std::make_unique<Launch>();
    Launch& l = *owned;
    l.id = ++launched_;
    l.candidates = Candidates(what, env);
    l.argv = std::move(argv);
    l.env = std::move(env);
    for (std::string& a : l.argv) l.argv_p.push_back(a.data());
    l.argv_p.push_back(nullptr);
    for (std::string& e : l.env) l.env_p.push_back(e.data());
    l.env_p.push_back(nullptr);
    l.sh_argv_p = {const_cast<char*>("/bin/sh"), nullptr};
    l.sh_argv_p.insert(l.sh_argv_p.end(), l.argv_p.begin() + 1, l.argv_p.end());
    l.error_prefix = "hop: cannot run " + what + ": ";
    l.ready = ready_write_;
    l.gate = gate[0];
    l.log_fd = log_fd;
    l.dir_fd = dir_fd;
    l.null_fd = null_fd_;
    l.stack.reset(new char[kChildStack]);
    launches_[l.id] = std::move(owned);
    if (!Submit(&l)) {
      launches_.erase(l.id);
      for (int fd : {gate[0], gate[1], log_fd, dir_fd}) close(fd);
      SayError(fmt::format("cannot start {}: no thread to start it", what));
      return;
    }
    // The child says it leads its group (and has its own copy of the descriptors), or its starter
    // says it could not be made.
    Note note{};
    do {
      note = WaitNote();  // id 0: the ready pipe failed, and no answer will come
    } while (note.id != l.id && note.id != 0);
    for (int fd : {gate[0], log_fd, dir_fd}) close(fd);
    if (note.what != kReady) {
      close(gate[1]);
      SayError(fmt::format("cannot start {}: {}", what,
                           note.pid < 0 ? std::strerror(note.error) : "it exited at once"));
      return;
    }
    children_[note.pid] = Child{exit_file, gate[1], false};
    std::string body;
    PutU32(body, static_cast<uint32_t>(note.pid));
    Say('P', body);
  }

  // Hands `launch` to an idle starter thread, or a new one; false when no thread can be had.
  bool Submit(Launch* launch) {
    std::lock_guard lock(starters_mu_);
    queue_.push_back(launch);
    if (idle_starters_ > 0) {
      starters_cv_.notify_one();
      return true;
    }
    try {
      std::thread([this] { StarterLoop(); }).detach();
    } catch (const std::system_error&) {
      queue_.pop_back();
      return false;
    }
    return true;
  }

  // A starter thread: makes one child at a time, and waits while it does, for the child shares
  // this thread's state (its errno, its thread-local storage) until it execs. The
  // spawner's main thread goes on meanwhile. Threads stay for the next starts; the process ends
  // with _exit.
  void StarterLoop() {
    for (;;) {
      Launch* l = nullptr;
      {
        std::unique_lock lock(starters_mu_);
        ++idle_starters_;
        starters_cv_.wait(lock, [&] { return !queue_.empty(); });
        --idle_starters_;
        l = queue_.front();
        queue_.pop_front();
      }
      const int pid =
          clone(ChildMain, l->stack.get() + kChildStack, CLONE_VM | CLONE_VFORK | SIGCHLD, l);
      const Note done{l->id, pid, kReturned, pid < 0 ? errno : 0, 0};
      [[maybe_unused]] ssize_t n = write(ready_write_, &done, sizeof(done));
    }
  }

  // The next note on the ready pipe, waiting for it; a starter's kReturned frees its Launch.
  Note WaitNote() {
    Note note{};
    for (;;) {
      const ssize_t n = read(ready_read_, &note, sizeof(note));
      if (n == sizeof(note)) break;
      if (n < 0 && errno == EINTR) continue;
      note = Note{0, -1, kReturned, EIO, 0};
      break;
    }
    if (note.what == kReturned) launches_.erase(note.id);
    return note;
  }

  // Reads the notes that came while no start waited for them (children that exec'd or exited).
  void ReadNote() {
    pollfd p = {ready_read_, POLLIN, 0};
    while (poll(&p, 1, 0) > 0 && (p.revents & POLLIN)) WaitNote();
  }

  // Writes the exit file of every child that has ended, then reaps it and tells the runner:
  // a process that is gone has its exit file written (docs/runtime.md, "Restarts and adoption").
  void Reap() {
    for (;;) {
      siginfo_t info{};
      if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) return;
      const pid_t pid = info.si_pid;
      auto it = children_.find(pid);
      if (it != children_.end()) {
        const std::string text =
            ExitFileText(it->second.opened, info.si_code == CLD_EXITED, info.si_status) + "\n";
        const int fd = open(it->second.exit_file.c_str(),
                            O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd >= 0) {
          [[maybe_unused]] ssize_t n = write(fd, text.data(), text.size());
          close(fd);
        }
        if (it->second.gate >= 0) close(it->second.gate);
      }
      int status = 0;
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      if (it == children_.end()) continue;
      children_.erase(it);
      std::string body;
      PutU32(body, static_cast<uint32_t>(pid));
      PutU32(body, static_cast<uint32_t>(status));
      Say('X', body);
    }
  }

  void Say(char type, const std::string& body) {
    if (conn_ >= 0) out_ += Frame(type, body);
  }
  void SayError(std::string_view message) {
    std::string body;
    PutStr(body, message);
    Say('E', body);
  }

  void Flush() {
    while (conn_ >= 0 && !out_.empty()) {
      const ssize_t n = send(conn_, out_.data(), out_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        out_.erase(0, static_cast<size_t>(n));
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return;
      } else {
        Disconnect();
      }
    }
  }

  // The runner is gone: the gates it never opened close, and those children leave without
  // running their commands.
  void Disconnect() {
    close(conn_);
    conn_ = -1;
    in_.clear();
    out_.clear();
    for (auto& [pid, child] : children_) {
      if (child.gate >= 0) {
        close(child.gate);
        child.gate = -1;
      }
    }
  }

  int conn_;
  int signal_fd_ = -1;
  int null_fd_ = -1;
  int ready_read_ = -1, ready_write_ = -1;  // the ready pipe (Note)
  uint64_t launched_ = 0;
  std::map<uint64_t, std::unique_ptr<Launch>> launches_;  // starts whose child has not exec'd
  std::mutex starters_mu_;
  std::condition_variable starters_cv_;
  std::deque<Launch*> queue_;  // guarded by starters_mu_
  int idle_starters_ = 0;      // guarded by starters_mu_
  std::string in_, out_;
  std::map<pid_t, Child> children_;
};

}  // namespace

void RunSpawner(int fd) {
  // The connection moves off descriptor 3, which each child's gate takes.
  const int conn = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  if (conn < 0) _exit(1);
  close(fd);
  // A second fork, so that the spawner is no runner's child: no runner has to reap it, and it
  // is not left a zombie of a runner that lives on after closing the connection.
  const pid_t pid = fork();
  if (pid < 0) _exit(1);
  if (pid > 0) _exit(0);
  // Never destroyed: its idle starter threads wait on its members until the process ends.
  auto* spawner = new SpawnerProcess(conn);
  _exit(spawner->Run());
}

// --- the runner's side ---

Result<std::shared_ptr<Spawner>> Spawner::Launch() {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    return Status::Unavailable(std::string("cannot start the Job spawner: ") +
                               std::strerror(errno));
  }
  const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  SpawnRequest request;
  request.program = "/proc/self/exe";
  request.argv = {kSpawnerName, kSpawnerFlag};
  request.output_fd = null_fd;  // not the runner's stdout or stderr, which it would hold open
  request.gate_fd = pair[1];
  auto pid = SpawnSession(request);
  close(pair[1]);
  if (null_fd >= 0) close(null_fd);
  if (!pid.ok()) {
    close(pair[0]);
    return Status::Unavailable("cannot start the Job spawner: " + pid.status().message());
  }
  int status = 0;
  while (waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    close(pair[0]);
    return Status::Unavailable("the Job spawner did not start");
  }
  return std::shared_ptr<Spawner>(new Spawner(pair[0]));
}

Spawner::~Spawner() {
  if (fd_ >= 0) close(fd_);
}

void Spawner::Lost() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  in_.clear();
}

Status Spawner::Send(const std::string& frame) {
  size_t sent = 0;
  while (fd_ >= 0 && sent < frame.size()) {
    const ssize_t n = send(fd_, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      Lost();
    }
  }
  if (fd_ < 0) return Status::Unavailable("the Job spawner is gone");
  return Status::OK();
}

bool Spawner::ReadFrame(int wait_ms, std::string* frame) {
  for (;;) {
    if (TakeFrame(in_, frame)) return true;
    if (fd_ < 0) return false;
    if (FrameTooLong(in_)) {
      Lost();
      return false;
    }
    pollfd p = {fd_, POLLIN, 0};
    const int ready = poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    char buffer[65536];
    const ssize_t n = recv(fd_, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (n > 0) {
      in_.append(buffer, static_cast<size_t>(n));
    } else if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) {
      continue;
    } else {
      Lost();
    }
  }
}

void Spawner::Handle(const std::string& frame) {
  if (frame.empty()) return;
  FieldReader r{std::string_view(frame).substr(1)};
  if (frame[0] == 'X') {
    const pid_t pid = static_cast<pid_t>(r.U32());
    const int status = static_cast<int>(r.U32());
    if (r.ok) exits_[pid] = status;
  } else if (frame[0] == 'P' || frame[0] == 'E') {
    replies_.push_back(frame);
  }
}

Result<pid_t> Spawner::Start(const SpawnerStart& start) {
  std::string body;
  for (const auto* strings : {&start.argv, &start.env}) {
    PutU32(body, static_cast<uint32_t>(strings->size()));
    for (const std::string& s : *strings) PutStr(body, s);
  }
  PutStr(body, start.working_dir);
  PutStr(body, start.log_path);
  PutStr(body, start.exit_file);
  HOP_RETURN_IF_ERROR(Send(Frame('S', body)));
  std::string frame;
  while (replies_.empty()) {
    if (!ReadFrame(kAnswerWaitMs, &frame)) {
      if (fd_ >= 0) Lost();  // no answer: a spawner that does not answer is no use
      return Status::Unavailable("the Job spawner is gone");
    }
    Handle(frame);
  }
  const std::string reply = std::move(replies_.front());
  replies_.erase(replies_.begin());
  FieldReader r{std::string_view(reply).substr(1)};
  if (reply[0] == 'P') {
    const pid_t pid = static_cast<pid_t>(r.U32());
    if (r.ok && pid > 0) return pid;
    return Status::Unavailable("the Job spawner answered a start with no pid");
  }
  const std::string message = r.Str();
  return Status::ExecutionError(r.ok ? message : "the Job spawner could not start it");
}

void Spawner::Open(pid_t pid) {
  std::string body;
  PutU32(body, static_cast<uint32_t>(pid));
  (void)Send(Frame('G', body));
}

void Spawner::Close(pid_t pid) {
  std::string body;
  PutU32(body, static_cast<uint32_t>(pid));
  (void)Send(Frame('C', body));
}

void Spawner::Drain() {
  std::string frame;
  while (ReadFrame(0, &frame)) Handle(frame);
}

bool Spawner::TakeExit(pid_t pid, int* wait_status) {
  auto it = exits_.find(pid);
  if (it == exits_.end()) return false;
  *wait_status = it->second;
  exits_.erase(it);
  return true;
}

void Spawner::ForgetExitsExcept(const std::vector<pid_t>& kept) {
  std::erase_if(exits_, [&](const auto& entry) {
    return std::find(kept.begin(), kept.end(), entry.first) == kept.end();
  });
}

}  // namespace hop::runtime
