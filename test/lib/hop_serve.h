// A `hop serve` process of a test's own, standing in for a Kubernetes API server (and, with
// --no-operator, for its Job controller): started with the arguments a test gives, on a state
// directory the test owns, and stopped by its pid. Kill and Restart let a test take the server
// away under its clients and bring it back on the same port and state.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace hop::testing {

class HopServe {
 public:
  // `binary` is the hop to run; `state_dir` its --state; `args` come after `serve` (the port is
  // added: --http-port 0 at first, the same port on a restart), `global_args` before it.
  HopServe(std::string binary, std::string state_dir, std::vector<std::string> args,
           std::vector<std::string> global_args = {});
  ~HopServe();  // Stop()
  HopServe(const HopServe&) = delete;
  HopServe& operator=(const HopServe&) = delete;

  // Starts the process and waits until it serves the Kubernetes API (up to 20 s). False, with
  // log() telling why, when it does not.
  bool Start();
  // SIGTERM and wait: true when it exited with 0.
  bool Stop();
  // SIGKILL and wait.
  void Kill();
  // Starts it again on the port it had.
  bool Restart() { return Start(); }

  const std::string& url() const { return url_; }  // http(s)://127.0.0.1:PORT
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  // What the process printed (both streams), across its starts.
  std::string log() const;

 private:
  std::string binary_;
  std::string state_dir_;
  std::vector<std::string> args_;
  std::vector<std::string> global_args_;
  std::string log_path_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string url_;
};

// Starts `argv` (argv[0] a path) with standard output and error appended to `log`; the pid, or
// -1 when it cannot be started.
pid_t SpawnLogged(const std::vector<std::string>& argv, const std::string& log);
// SIGKILL or SIGTERM `pid` and wait for it; true when it exited with 0.
bool StopProcess(pid_t pid, int signal);
// The content of `path` ("" when it cannot be read).
std::string ReadFileText(const std::string& path);

// Applies the environment most end-to-end tests of `hop` start from to the state directory
// `state_dir`, with the binary `hop`: test/sql/env/jobs.yaml (JobTemplates whose Jobs run on
// this machine) then examples/demo-environment.yaml (the demo's Databases and the local one).
// What the applies printed, and the exit status of the first that failed (0 when none did).
std::pair<std::string, int> ApplyTestEnvironment(const std::string& hop,
                                                 const std::string& state_dir);

// Waits until `condition` holds, checking every 20 ms, for up to `timeout`; whether it held.
template <typename Condition>
bool Eventually(Condition condition, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= end) return false;
    struct timespec ts {
      0, 20 * 1000 * 1000
    };
    nanosleep(&ts, nullptr);
  }
}

}  // namespace hop::testing
