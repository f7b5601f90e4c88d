// Small fixtures that tests across folders share: a clock a test moves by hand, so that code that
// waits on time is tested without sleeping, and a temporary directory removed with its contents.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <mutex>
#include <string>

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

}  // namespace hop::testing
