// The Job runner's spawner (docs/runtime.md, "How a process starts"): one small process per
// runner, this same binary started again, that is the parent of every Job process the runner
// starts. For each start it makes a child, as posix_spawn does (sharing the spawner's memory
// until it execs, so nothing is copied), that makes itself the leader of a new process group,
// waits at its gate until the runner has recorded the attempt in the Job's status, and only then
// execs the command itself. When a child ends, the spawner writes its exit code into the attempt's
// exit file, then reaps it, then tells the runner. It outlives the runner: a runner that stops
// (or is killed) leaves the spawner to write the exit codes of the processes still running, which
// the next runner reads; the gates the runner never opened close with its connection, and those
// children leave without running their commands ("never-ran" in the exit file).
//
// Forking `hop serve` (tens of MB) for each Job, or starting a shell per Job to wait at the gate
// as the runner once did, costs several times what posix_spawn does (issue #18); so does a fork
// of even a small process on a virtual machine, where every copied page is a fault.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace hop::runtime {

// What the spawner writes in an exit file, instead of a code, for a child whose gate closed
// without opening: its command never ran.
inline constexpr std::string_view kNeverRan = "never-ran";

// What the spawner writes in the exit file of a child that ended: `status` is its exit code when
// it `exited`, else the signal that killed it. A child whose gate never opened never ran its
// command; but one that exited 121 (the code a child uses when it cannot set up its descriptors or
// working directory, after saying why in the log) failed, and the runner counts the attempt as
// failed rather than starting it again at once.
std::string ExitFileText(bool gate_opened, bool exited, int status);

// One process to start, waiting at its gate.
struct SpawnerStart {
  std::vector<std::string> argv;  // argv[0] is looked up on the PATH of `env` when it has no '/'
  std::vector<std::string> env;   // the whole environment, NAME=value
  std::string working_dir;        // must exist
  std::string log_path;           // must exist; stdout and stderr append to it
  std::string exit_file;          // written with the exit code when the process ends
};

// The runner's connection to its spawner. Not thread-safe: the runner calls it under its mutex.
class Spawner {
 public:
  // Starts a spawner process (this binary, /proc/self/exe) in its own session. Unavailable when
  // the system refuses.
  static Result<std::shared_ptr<Spawner>> Launch();
  // Closes the connection: gates not yet opened close, and the spawner exits once its last child
  // has ended.
  ~Spawner();
  Spawner(const Spawner&) = delete;
  Spawner& operator=(const Spawner&) = delete;

  // Starts `start`'s process, which waits at its gate; its pid (the leader of its own session and
  // process group by the time this returns). FailedPrecondition, with the reason, when this
  // process cannot be started (the system refuses a fork, the log or working directory cannot be
  // opened) is an ExecutionError; Unavailable when the spawner is gone.
  Result<pid_t> Start(const SpawnerStart& start);
  // Opens the gate of `pid`, which then runs its command; Close shuts it, and the process leaves
  // without running it. Either only once, and only for a process Start returned.
  void Open(pid_t pid);
  void Close(pid_t pid);

  // Readable when the spawner has something to say (an exit), or has gone.
  int fd() const { return fd_; }
  // Reads what the spawner said without waiting: the exits are kept until taken.
  void Drain();
  // The wait status of `pid` once the spawner has said that it ended (its exit file is written
  // by then); false while it runs.
  bool TakeExit(pid_t pid, int* wait_status);
  bool HasExits() const { return !exits_.empty(); }
  // Forgets exits of processes that are not in `kept` (the runner no longer watches them).
  void ForgetExitsExcept(const std::vector<pid_t>& kept);
  // The connection is closed: the spawner exited or was killed. Its children are no longer
  // anyone's to report on; their exit files say how they ended, if anyone wrote them.
  bool gone() const { return fd_ < 0; }

 private:
  explicit Spawner(int fd) : fd_(fd) {}
  Status Send(const std::string& frame);
  // Reads one frame, waiting up to `wait_ms` (0: not at all); false when none came.
  bool ReadFrame(int wait_ms, std::string* frame);
  void Handle(const std::string& frame);
  void Lost();

  int fd_;
  std::string in_;                // bytes read and not yet taken as frames
  std::map<pid_t, int> exits_;    // pid -> wait status
  std::vector<std::string> replies_;  // answers to Start, in order
};

// The spawner's main: serves the runner on descriptor `fd` until it closes, and then until its
// last child has ended, then ends the process. (The spawner process enters it before main:
// spawner.cc.)
[[noreturn]] void RunSpawner(int fd);

}  // namespace hop::runtime
