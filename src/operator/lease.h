// Lease: makes sure one process at a time reconciles a state directory (ARCHITECTURE.md §4.5).
// In embedded mode the lease is an exclusive flock(2) on `<state_dir>/operator.lease`, so it is
// released when its holder ends it or dies, however it dies.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/status.h"

namespace hop::op {

class Lease {
 public:
  // The lease file inside a state directory.
  static constexpr const char* kFileName = "operator.lease";

  // Tries, without blocking, to become the one process that reconciles `state_dir` (created if
  // missing). On success the lease file holds "pid <pid> since <RFC 3339 time>" and the lease
  // lasts until the returned object is destroyed or the process exits.
  //
  // When another holder has the lease the result is OK with a null pointer (not an error: being
  // second is expected, e.g. an interactive `hop` beside `hop serve`); Holder() says who it is.
  // Errors (Unavailable) only when the lease file cannot be created, locked or written.
  //
  // The lock belongs to the open file, not to the process: a second TryAcquire in the same
  // process gets null too. The descriptor is close-on-exec, so processes the holder runs do not
  // keep the lease alive; a child made by fork() without exec does share it until it exits.
  static Result<std::unique_ptr<Lease>> TryAcquire(const std::string& state_dir);

  // Who holds the lease of `state_dir` ("pid 4242 since 2026-05-01T10:00:00Z"), or nullopt when
  // nobody does. The holder may have just taken the lease and not written its line yet; then
  // the text is "unknown". To tell whether the lease is held, Holder() takes a shared lock for
  // an instant; a TryAcquire at that very instant fails as if the lease were held, so a caller
  // that must become the holder tries again.
  static std::optional<std::string> Holder(const std::string& state_dir);

  ~Lease();  // releases the lease (and empties the file)
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;

  const std::string& path() const { return path_; }
  // What this holder wrote into the lease file.
  const std::string& holder() const { return holder_; }

 private:
  Lease(int fd, std::string path, std::string holder);

  int fd_;
  std::string path_;
  std::string holder_;
};

}  // namespace hop::op
