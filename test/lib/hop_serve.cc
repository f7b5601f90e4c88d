#include "test/lib/hop_serve.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "test/lib/datadriven.h"
#include "test/lib/fixtures.h"

extern char** environ;

namespace hop::testing {

namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string ReadFileText(const std::string& path) { return ReadAll(path); }

pid_t SpawnLogged(const std::vector<std::string>& argv, const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

bool StopProcess(pid_t pid, int signal) {
  if (pid <= 0) return false;
  kill(pid, signal);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

HopServe::HopServe(std::string binary, std::string state_dir, std::vector<std::string> args,
                   std::vector<std::string> global_args)
    : binary_(std::move(binary)),
      state_dir_(std::move(state_dir)),
      args_(std::move(args)),
      global_args_(std::move(global_args)) {
  log_path_ = state_dir_ + ".serve.log";
}

HopServe::~HopServe() { Stop(); }

std::string HopServe::log() const { return ReadAll(log_path_); }

bool HopServe::Start() {
  if (pid_ > 0) return true;
  // Each start appends to the log; the URL is looked for after what is there already.
  const size_t from = ReadAll(log_path_).size();
  std::vector<std::string> argv = {binary_, "--state", state_dir_};
  argv.insert(argv.end(), global_args_.begin(), global_args_.end());
  for (std::string a : {std::string("serve"), std::string("--http-port"), std::to_string(port_)}) {
    argv.push_back(std::move(a));
  }
  argv.insert(argv.end(), args_.begin(), args_.end());
  const pid_t pid = SpawnLogged(argv, log_path_);
  if (pid < 0) return false;
  pid_ = pid;
  const bool up = Eventually(
      [&] {
        const std::string text = ReadAll(log_path_);
        for (std::string scheme : {"http", "https"}) {
          const std::string mark = "Kubernetes API on " + scheme + "://127.0.0.1:";
          const size_t at = text.find(mark, from);
          if (at == std::string::npos) continue;
          port_ = std::atoi(text.c_str() + at + mark.size());
          url_ = scheme + "://127.0.0.1:" + std::to_string(port_);
          return port_ > 0;
        }
        return false;
      },
      std::chrono::seconds(20));
  if (!up) Kill();
  return up;
}

bool HopServe::Stop() {
  if (pid_ <= 0) return true;
  const bool clean = StopProcess(pid_, SIGTERM);
  pid_ = -1;
  return clean;
}

void HopServe::Kill() {
  if (pid_ <= 0) return;
  StopProcess(pid_, SIGKILL);
  pid_ = -1;
}

std::pair<std::string, int> ApplyTestEnvironment(const std::string& hop,
                                                 const std::string& state_dir) {
  std::string printed;
  for (const char* file : {"test/sql/env/jobs.yaml", "examples/demo-environment.yaml"}) {
    auto [out, status] = Shell(hop + " --state " + state_dir + " apply -f " + SourcePath(file));
    printed += out;
    if (status != 0) return {printed, status};
  }
  return {printed, 0};
}

}  // namespace hop::testing
