// Small fixtures that tests across folders share: a clock a test moves by hand, so that code that
// waits on time is tested without sleeping, a temporary directory removed with its contents, and
// a shell command's output.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <utility>

#include "common/time.h"

namespace hop::testing {

// A Clock that stands still until Advance or Set. Thread-safe.
class FakeClock : public Clock {
 public:
  explicit FakeClock(SystemTime start = SystemTime() + std::chrono::hours(24 * 365 * 50))
      : now_(start) {}
  SystemTime Now() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return now_;
  }
  void Advance(SystemTime::duration d) {
    std::lock_guard<std::mutex> lock(mu_);
    now_ += d;
  }
  void Set(SystemTime t) {
    std::lock_guard<std::mutex> lock(mu_);
    now_ = t;
  }

 private:
  mutable std::mutex mu_;
  SystemTime now_;  // guarded by mu_
};

// A fresh directory under /tmp, named `/tmp/<prefix>-XXXXXX`, removed with everything in it.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "hop-test") {
    std::string pattern = "/tmp/" + prefix + "-XXXXXX";
    char* made = mkdtemp(pattern.data());
    path_ = made != nullptr ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// What a shell command line prints (standard output and error), with its standard input empty,
// and its exit status (-1 when it did not exit normally).
inline std::pair<std::string, int> Shell(const std::string& command) {
  std::string out;
  FILE* p = popen(("(" + command + ") 2>&1 < /dev/null").c_str(), "r");
  if (p == nullptr) return {"popen failed", -1};
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

// A TCP port on 127.0.0.1 that was free a moment ago (the kernel's choice for port 0).
inline int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
  socklen_t len = sizeof sa;
  getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  close(fd);
  return ntohs(sa.sin_port);
}

}  // namespace hop::testing
