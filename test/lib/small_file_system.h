// A small tmpfs for tests of a disk that fills up (a store, a local table's file, a refresh's
// temporary directory).
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>

namespace hop::testing {

// A tmpfs of `size` ("4m") mounted on `dir` (made if missing), unmounted lazily when it goes, so
// that files still open do not keep it. Mounting needs root (CAP_SYS_ADMIN), which the test
// suite has: mounted() says whether it worked and why() why not, and a test that needs it fails
// without it rather than skipping.
class SmallFileSystem {
 public:
  SmallFileSystem(const std::string& dir, const std::string& size) : dir_(dir) {
    std::filesystem::create_directories(dir_);
    const std::string options = "size=" + size + ",mode=0700";
    mounted_ = ::mount("tmpfs", dir_.c_str(), "tmpfs", 0, options.c_str()) == 0;
    if (!mounted_) why_ = "cannot mount a tmpfs on " + dir_ + ": " + std::strerror(errno);
  }
  ~SmallFileSystem() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  SmallFileSystem(const SmallFileSystem&) = delete;
  SmallFileSystem& operator=(const SmallFileSystem&) = delete;
  bool mounted() const { return mounted_; }
  const std::string& why() const { return why_; }

  // Fills it with one file until no byte more fits; Empty removes that file.
  void Fill() {
    const int fd = ::open((dir_ + "/filler").c_str(), O_CREAT | O_WRONLY | O_APPEND, 0600);
    ASSERT_GE(fd, 0);
    const std::string block(64 * 1024, 'x');
    for (size_t size = block.size(); size > 0;) {
      if (::write(fd, block.data(), size) < 0) {
        ASSERT_EQ(errno, ENOSPC) << std::strerror(errno);
        size /= 2;  // what is left over is smaller than that
      }
    }
    ::close(fd);
  }
  void Empty() { std::filesystem::remove(dir_ + "/filler"); }

 private:
  std::string dir_;
  bool mounted_ = false;
  std::string why_;
};

}  // namespace hop::testing
