#include "common/files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace hop {

Status CreatePrivateDirectories(const std::string& dir) {
  namespace fs = std::filesystem;
  // The missing directories, outermost first.
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = fs::path(dir).lexically_normal(); !p.empty(); p = p.parent_path()) {
    if (fs::exists(p, ec)) break;
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST) {
      return Status::Unavailable(
          fmt::format("cannot create directory {}: {}", it->string(), std::strerror(errno)));
    }
    // mkdir's mode is masked by the umask; the directory is ours either way.
    ::chmod(it->c_str(), 0700);
  }
  if (!fs::is_directory(dir, ec)) {
    return Status::Unavailable(fmt::format("cannot create directory {}: {}", dir,
                                           ec ? ec.message() : "it is not a directory"));
  }
  return Status::OK();
}

// A file's mode is changed only when it is not 0600 already: a change of mode is an inode
// write, which the file system journals, and these files are opened at every commit and Job.
int OpenPrivateFile(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CREAT | O_CLOEXEC, 0600);
  struct stat st;
  // The umask may have taken bits away (it never adds any), or the file was made otherwise.
  if (fd >= 0 && (::fstat(fd, &st) != 0 || (st.st_mode & 07777) != 0600)) ::fchmod(fd, 0600);
  return fd;
}

void MakePrivate(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && (st.st_mode & 07777) == 0600) return;
  ::chmod(path.c_str(), 0600);
}

}  // namespace hop
