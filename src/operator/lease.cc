// The embedded lease: flock(2) on a file in the state directory. flock locks belong to the open
// file description, are released by the kernel when the last descriptor closes (also when the
// process dies), and conflict between two opens of the same file even within one process.
#include "operator/lease.h"

#include <errno.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "common/files.h"
#include "common/strings.h"
#include "common/time.h"

namespace hop::op {
namespace {

std::string LeasePath(const std::string& state_dir) {
  return (std::filesystem::path(state_dir) / Lease::kFileName).string();
}

// flock() without blocking, retried when a signal interrupts it. Returns 0 or an errno value.
int TryLock(int fd, int operation) {
  while (flock(fd, operation | LOCK_NB) != 0) {
    if (errno != EINTR) return errno;
  }
  return 0;
}

Status WriteAll(int fd, const std::string& text) {
  if (ftruncate(fd, 0) != 0) return Status::Unavailable(std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::Unavailable(std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return Status::OK();
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[512];
  off_t offset = 0;
  while (true) {
    ssize_t n = pread(fd, buf, sizeof buf, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
    offset += n;
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<Lease>> Lease::TryAcquire(const std::string& state_dir) {
  HOP_RETURN_IF_ERROR(CreatePrivateDirectories(state_dir));
  std::string path = LeasePath(state_dir);
  int fd = OpenPrivateFile(path, O_RDWR);
  if (fd < 0) {
    return Status::Unavailable(
        fmt::format("cannot open lease file {}: {}", path, std::strerror(errno)));
  }
  if (int err = TryLock(fd, LOCK_EX); err != 0) {
    close(fd);
    if (err == EWOULDBLOCK) return std::unique_ptr<Lease>();
    return Status::Unavailable(fmt::format("cannot lock {}: {}", path, std::strerror(err)));
  }
  std::string holder = fmt::format("pid {} since {}", static_cast<long>(getpid()),
                                   FormatRfc3339(SystemClock().Now()));
  if (Status s = WriteAll(fd, holder + "\n"); !s.ok()) {
    close(fd);  // releases the lock
    return s.WithContext(fmt::format("cannot write lease file {}: ", path));
  }
  return std::unique_ptr<Lease>(new Lease(fd, std::move(path), std::move(holder)));
}

std::optional<std::string> Lease::Holder(const std::string& state_dir) {
  const std::string path = LeasePath(state_dir);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;  // never leased
  std::optional<std::string> holder;
  if (int err = TryLock(fd, LOCK_SH); err == 0) {
    flock(fd, LOCK_UN);  // free: whatever the file says is stale
  } else if (err == EWOULDBLOCK) {
    std::string text(TrimWhitespace(ReadAll(fd)));
    holder = text.empty() ? "unknown" : text;
  }
  close(fd);
  return holder;
}

Lease::Lease(int fd, std::string path, std::string holder)
    : fd_(fd), path_(std::move(path)), holder_(std::move(holder)) {}

Lease::~Lease() {
  // Emptied while still locked, so that no new holder's line is lost. A failure does not matter:
  // the line is informational, and Holder() trusts only the lock.
  [[maybe_unused]] int ignored = ftruncate(fd_, 0);
  close(fd_);
}

}  // namespace hop::op
