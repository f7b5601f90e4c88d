// Tests of the state-directory Lease: one holder at a time, within a process and across
// processes (fork), the holder's line, and release on destruction and on the holder's death.
#include "operator/lease.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "test/lib/fixtures.h"

namespace hop::op {
namespace {

using hop::testing::TempDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string PidText(pid_t pid) { return "pid " + std::to_string(pid) + " since "; }

// Waits for a child and returns its exit code (-1 if it did not exit normally).
int ExitCode(pid_t child) {
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

TEST(LeaseTest, OneHolderAtATimeWithinAProcess) {
  TempDir dir;
  EXPECT_EQ(Lease::Holder(dir.path()), std::nullopt);  // never leased

  auto first = Lease::TryAcquire(dir.path());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_NE(*first, nullptr);
  EXPECT_EQ((*first)->path(), dir.path() + "/operator.lease");
  EXPECT_TRUE((*first)->holder().starts_with(PidText(getpid()))) << (*first)->holder();
  EXPECT_EQ(ReadFile((*first)->path()), (*first)->holder() + "\n");
  EXPECT_EQ(Lease::Holder(dir.path()), (*first)->holder());

  // The lock belongs to the open file, so even this process cannot take it twice.
  auto second = Lease::TryAcquire(dir.path());
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(*second, nullptr);

  first->reset();  // releases
  EXPECT_EQ(Lease::Holder(dir.path()), std::nullopt);
  EXPECT_EQ(ReadFile(dir.path() + "/operator.lease"), "");
  auto third = Lease::TryAcquire(dir.path());
  ASSERT_TRUE(third.ok());
  EXPECT_NE(*third, nullptr);
}

TEST(LeaseTest, CreatesTheStateDirectory) {
  TempDir dir;
  const std::string nested = dir.path() + "/a/b";
  auto lease = Lease::TryAcquire(nested);
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  EXPECT_NE(*lease, nullptr);
  EXPECT_TRUE(std::filesystem::exists(nested + "/operator.lease"));
}

TEST(LeaseTest, UnusableStateDirectoryIsAnError) {
  TempDir dir;
  const std::string file = dir.path() + "/not-a-directory";
  std::ofstream(file) << "x";
  auto lease = Lease::TryAcquire(file + "/state");
  EXPECT_EQ(lease.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(Lease::Holder(file + "/state"), std::nullopt);
}

TEST(LeaseTest, AnotherProcessCannotAcquireAHeldLease) {
  TempDir dir;
  auto lease = Lease::TryAcquire(dir.path());
  ASSERT_TRUE(lease.ok());
  ASSERT_NE(*lease, nullptr);
  const pid_t parent = getpid();

  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Exit codes: 0 refused as expected; 1 error; 2 acquired; 3 wrong holder.
    auto mine = Lease::TryAcquire(dir.path());
    if (!mine.ok()) _exit(1);
    if (*mine != nullptr) _exit(2);
    auto holder = Lease::Holder(dir.path());
    if (!holder || !holder->starts_with(PidText(parent))) _exit(3);
    _exit(0);
  }
  EXPECT_EQ(ExitCode(child), 0);
  // The child's attempt did not disturb the lease.
  EXPECT_EQ(Lease::Holder(dir.path()), (*lease)->holder());
}

TEST(LeaseTest, LeaseIsReleasedWhenItsHolderDies) {
  TempDir dir;
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(ready[0]);
    auto mine = Lease::TryAcquire(dir.path());
    const char answer = mine.ok() && *mine != nullptr ? 'y' : 'n';
    if (write(ready[1], &answer, 1) != 1) _exit(1);
    while (true) pause();  // holds the lease until killed
  }
  close(ready[1]);
  char answer = 0;
  ASSERT_EQ(read(ready[0], &answer, 1), 1);
  close(ready[0]);
  ASSERT_EQ(answer, 'y');

  auto refused = Lease::TryAcquire(dir.path());
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(*refused, nullptr);
  auto holder = Lease::Holder(dir.path());
  ASSERT_TRUE(holder.has_value());
  EXPECT_TRUE(holder->starts_with(PidText(child))) << *holder;

  // Killed, it cannot clean up; the kernel releases the lock all the same.
  kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_EQ(Lease::Holder(dir.path()), std::nullopt);
  auto taken = Lease::TryAcquire(dir.path());
  ASSERT_TRUE(taken.ok());
  EXPECT_NE(*taken, nullptr);
}

}  // namespace
}  // namespace hop::op
