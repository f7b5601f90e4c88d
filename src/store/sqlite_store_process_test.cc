// Tests with a second process on the same state directory: watches see its writes, and a process
// killed in the middle of a batch leaves all of the batch or none of it.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "store/sqlite_store.h"

extern char** environ;

namespace hop::store {
namespace {

const GroupKind kConfigMap{"", "ConfigMap"};

std::string MakeTempDir() {
  char tmpl[] = "/tmp/hop-store-proc-XXXXXX";
  return mkdtemp(tmpl);
}

// Starts the child with `args`; its stdout is readable from *out_fd.
pid_t Spawn(const std::vector<std::string>& args, int* out_fd) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  *out_fd = fds[0];
  return pid;
}

TEST(SqliteStoreProcessTest, WatchSeesAnotherProcessWrites) {
  const std::string dir = MakeTempDir();
  auto store = SqliteStore::Open(dir);
  ASSERT_TRUE(store.ok());
  auto watch = (*store)->StartWatch({kConfigMap, "", 0});
  int out = -1;
  pid_t pid = Spawn({HOP_STORE_TEST_CHILD, dir, "create", "other", "20"}, &out);
  ASSERT_GT(pid, 0);
  std::vector<std::string> seen;
  Event e;
  while (seen.size() < 20 && watch->Next(std::chrono::seconds(10), &e) == Watch::Outcome::kEvent) {
    seen.push_back(e.object.name());
    // In order, no gaps, after the revision a new store starts at (1).
    EXPECT_EQ(e.revision, static_cast<int64_t>(seen.size()) + 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  close(out);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  ASSERT_EQ(seen.size(), 20u);
  EXPECT_EQ(seen.front(), "other-0");
  EXPECT_EQ(seen.back(), "other-19");

  // Both processes write: revisions stay unique and every object is there.
  pid = Spawn({HOP_STORE_TEST_CHILD, dir, "create", "child", "50"}, &out);
  for (int i = 0; i < 50; ++i) {
    Resource r(Json::parse(R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}})"));
    r.set_name("parent-" + std::to_string(i));
    ASSERT_TRUE((*store)->Create(r).ok());
  }
  waitpid(pid, &status, 0);
  close(out);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  auto list = (*store)->List({kConfigMap, "", {}});
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->items.size(), 120u);
  EXPECT_EQ(list->revision, 121);  // 120 writes to a new store, at revision 1
  std::filesystem::remove_all(dir);
}

// Reads one line from `fd`; "" at the end.
std::string ReadLine(int fd) {
  std::string line;
  char c;
  while (read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

int64_t MonotonicNanos() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000LL + now.tv_nsec;
}

// A commit in another process wakes a watch at once: with both poll intervals at 10 s, each of
// the child's writes reaches the watch well within a second of its commit (docs/store.md,
// "Watches across processes").
TEST(SqliteStoreProcessTest, AnotherProcessCommitWakesAWatchAtOnce) {
  const std::string dir = MakeTempDir();
  SqliteStoreOptions options;
  options.poll_interval = std::chrono::seconds(10);
  options.safety_poll_interval = std::chrono::seconds(10);
  auto store = SqliteStore::Open(dir, options);
  ASSERT_TRUE(store.ok());
  auto watch = (*store)->StartWatch({kConfigMap, "", 0});
  constexpr int kWrites = 10;
  int out = -1;
  pid_t pid =
      Spawn({HOP_STORE_TEST_CHILD, dir, "timed", "woken", std::to_string(kWrites), "50"}, &out);
  ASSERT_GT(pid, 0);
  std::vector<double> latencies_ms;
  for (int i = 0; i < kWrites; ++i) {
    Event e;
    ASSERT_EQ(watch->Next(std::chrono::seconds(30), &e), Watch::Outcome::kEvent) << i;
    const int64_t seen_at = MonotonicNanos();
    EXPECT_EQ(e.object.name(), "woken-" + std::to_string(i));
    const std::string committed_at = ReadLine(out);
    ASSERT_FALSE(committed_at.empty()) << i;
    latencies_ms.push_back(static_cast<double>(seen_at - std::stoll(committed_at)) / 1e6);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  close(out);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::vector<double> sorted = latencies_ms;
  std::sort(sorted.begin(), sorted.end());
  std::printf("commit in another process -> watch: median %.2f ms, max %.2f ms\n",
              sorted[sorted.size() / 2], sorted.back());
  for (double ms : latencies_ms) EXPECT_LT(ms, 1000.0);
  std::filesystem::remove_all(dir);
}

// Descriptors of this process that are inotify instances.
int InotifyDescriptors() {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const auto target = std::filesystem::read_symlink(entry.path(), ec);
    if (!ec && target.string() == "anon_inode:inotify") ++n;
  }
  return n;
}

int Threads() {
  return static_cast<int>(std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                                        std::filesystem::directory_iterator()));
}

// A store that no one watches (a one-shot `hop -e`) has no listener: no inotify descriptor and
// no thread. Nor does one whose watches only read what is there (Next with no timeout, as a
// catalog catching up at each statement of a script): the first watch that waits starts it,
// and it goes with the last watch.
TEST(SqliteStoreProcessTest, OnlyAStoreWhoseWatchWaitsListens) {
  const std::string dir = MakeTempDir();
  const int descriptors = InotifyDescriptors();
  const int threads = Threads();
  auto store = SqliteStore::Open(dir);
  ASSERT_TRUE(store.ok());
  Resource r(Json::parse(R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}})"));
  r.set_name("unwatched");
  ASSERT_TRUE((*store)->Create(r).ok());
  EXPECT_EQ(InotifyDescriptors(), descriptors);
  EXPECT_EQ(Threads(), threads);
  for (int i = 0; i < 3; ++i) {
    auto read = (*store)->StartWatch({kConfigMap, "", 0});
    Event e;
    ASSERT_EQ(read->Next(std::chrono::milliseconds(0), &e), Watch::Outcome::kEvent);
    EXPECT_EQ(read->Next(std::chrono::milliseconds(0), &e), Watch::Outcome::kTimeout);
    EXPECT_EQ(InotifyDescriptors(), descriptors);
    EXPECT_EQ(Threads(), threads);
  }
  {
    auto first = (*store)->StartWatch({kConfigMap, "", 0});
    auto second = (*store)->StartWatch({});
    EXPECT_EQ(InotifyDescriptors(), descriptors);
    Event e;
    ASSERT_EQ(first->Next(std::chrono::milliseconds(0), &e), Watch::Outcome::kEvent);
    EXPECT_EQ(first->Next(std::chrono::milliseconds(10), &e), Watch::Outcome::kTimeout);
    EXPECT_EQ(InotifyDescriptors(), descriptors + 1);
    EXPECT_EQ(Threads(), threads + 1);
    // The one listener serves the second watch too.
    EXPECT_EQ(second->Next(std::chrono::milliseconds(0), &e), Watch::Outcome::kEvent);
    EXPECT_EQ(second->Next(std::chrono::milliseconds(10), &e), Watch::Outcome::kTimeout);
    EXPECT_EQ(InotifyDescriptors(), descriptors + 1);
  }
  EXPECT_EQ(InotifyDescriptors(), descriptors);
  EXPECT_EQ(Threads(), threads);
  std::filesystem::remove_all(dir);
}

// A store opened with listen_after (a one-shot command's) has no listener until that long after
// it opened: no inotify descriptor, no thread. A watch waiting then looks at the log when the
// time comes, so another process's earlier commit is seen then (not at the poll interval, 30 s
// here); from then on the listener wakes it at once.
TEST(SqliteStoreProcessTest, AStoreListensOnlyAfterListenAfter) {
  const std::string dir = MakeTempDir();
  const int descriptors = InotifyDescriptors();
  const int threads = Threads();
  SqliteStoreOptions options;
  options.poll_interval = std::chrono::seconds(30);
  options.safety_poll_interval = std::chrono::seconds(30);
  options.listen_after = std::chrono::milliseconds(400);
  const auto opened = std::chrono::steady_clock::now();
  auto store = SqliteStore::Open(dir, options);
  ASSERT_TRUE(store.ok());
  auto watch = (*store)->StartWatch({kConfigMap, "", 0});
  Event e;
  EXPECT_EQ(watch->Next(std::chrono::milliseconds(50), &e), Watch::Outcome::kTimeout);
  EXPECT_EQ(InotifyDescriptors(), descriptors);
  EXPECT_EQ(Threads(), threads);

  // Written by another process before the listener exists.
  int out = -1;
  pid_t pid = Spawn({HOP_STORE_TEST_CHILD, dir, "create", "early", "1"}, &out);
  ASSERT_GT(pid, 0);
  int status = 0;
  waitpid(pid, &status, 0);
  close(out);
  ASSERT_EQ(WEXITSTATUS(status), 0);
  if (std::chrono::steady_clock::now() - opened < std::chrono::milliseconds(350)) {
    EXPECT_EQ(InotifyDescriptors(), descriptors);
  }
  ASSERT_EQ(watch->Next(std::chrono::seconds(20), &e), Watch::Outcome::kEvent);
  EXPECT_EQ(e.object.name(), "early-0");
  const auto seen = std::chrono::steady_clock::now();
  EXPECT_GE(seen - opened, std::chrono::milliseconds(400));
  EXPECT_LT(seen - opened, std::chrono::seconds(10));  // the poll interval is 30 s

  // Now the listener, started as the watch waits again, wakes it.
  const int64_t started = MonotonicNanos();
  pid = Spawn({HOP_STORE_TEST_CHILD, dir, "create", "late", "1"}, &out);
  ASSERT_GT(pid, 0);
  ASSERT_EQ(watch->Next(std::chrono::seconds(20), &e), Watch::Outcome::kEvent);
  EXPECT_EQ(e.object.name(), "late-0");
  EXPECT_LT(MonotonicNanos() - started, 10'000'000'000LL);
  EXPECT_EQ(InotifyDescriptors(), descriptors + 1);
  EXPECT_EQ(Threads(), threads + 1);
  waitpid(pid, &status, 0);
  close(out);
  watch.reset();
  EXPECT_EQ(InotifyDescriptors(), descriptors);
  std::filesystem::remove_all(dir);
}

TEST(SqliteStoreProcessTest, KilledMidBatchLeavesAllOrNothing) {
  const std::string dir = MakeTempDir();
  std::mt19937 rng(42);
  for (int round = 0; round < 3; ++round) {
    int out = -1;
    const std::string prefix = "r" + std::to_string(round);
    pid_t pid = Spawn({HOP_STORE_TEST_CHILD, dir, "batches", prefix}, &out);
    ASSERT_GT(pid, 0);
    // Let it commit a few batches, then kill it at an arbitrary point of a later one.
    char buf[256];
    int lines = 0;
    while (lines < 3) {
      ssize_t n = read(out, buf, sizeof(buf));
      ASSERT_GT(n, 0);
      for (ssize_t i = 0; i < n; ++i) lines += buf[i] == '\n';
    }
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 20000));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    close(out);
    ASSERT_TRUE(WIFSIGNALED(status));

    auto store = SqliteStore::Open(dir);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto list = (*store)->List({kConfigMap, "", {}});
    ASSERT_TRUE(list.ok());
    std::map<std::string, int> per_batch;
    for (const auto& item : list->items) {
      const std::string& name = item.name();
      if (name.rfind(prefix + "-", 0) != 0) continue;
      per_batch[name.substr(0, name.rfind('-'))]++;
    }
    EXPECT_GE(per_batch.size(), 3u);
    for (const auto& [batch, count] : per_batch) EXPECT_EQ(count, 50) << batch;
  }
  std::filesystem::remove_all(dir);
}

TEST(SqliteStoreProcessTest, KilledMidGroupLosesNoBatchItReportedCommitted) {
  const std::string dir = MakeTempDir();
  std::mt19937 rng(7);
  for (int round = 0; round < 3; ++round) {
    int out = -1;
    const std::string prefix = "g" + std::to_string(round);
    // Eight threads committing durably at once: their batches share transactions.
    pid_t pid = Spawn({HOP_STORE_TEST_CHILD, dir, "threads", prefix, "8"}, &out);
    ASSERT_GT(pid, 0);
    std::string printed;
    char buf[4096];
    auto lines = [&] { return std::count(printed.begin(), printed.end(), '\n'); };
    while (lines() < 40) {
      ssize_t n = read(out, buf, sizeof(buf));
      ASSERT_GT(n, 0);
      printed.append(buf, static_cast<size_t>(n));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 20000));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    // What it printed before it died: every batch it was told was committed.
    for (ssize_t n; (n = read(out, buf, sizeof(buf))) > 0;)
      printed.append(buf, static_cast<size_t>(n));
    close(out);
    ASSERT_TRUE(WIFSIGNALED(status));

    auto store = SqliteStore::Open(dir);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto list = (*store)->List({kConfigMap, "", {}});
    ASSERT_TRUE(list.ok());
    std::map<std::string, int> per_batch;
    for (const auto& item : list->items) {
      const std::string& name = item.name();
      if (name.rfind(prefix + "-", 0) != 0) continue;
      per_batch[name.substr(prefix.size() + 1, name.rfind('-') - prefix.size() - 1)]++;
    }
    for (const auto& [batch, count] : per_batch) EXPECT_EQ(count, 5) << batch;  // all or none
    size_t reported = 0;
    for (size_t at = 0, end; (end = printed.find('\n', at)) != std::string::npos; at = end + 1) {
      const std::string batch = printed.substr(at, end - at);
      ++reported;
      EXPECT_EQ(per_batch.count(batch), 1u) << "batch " << batch << " was reported committed";
    }
    EXPECT_GE(reported, 40u);
    // Revisions have no gaps: the events run from 2 (a new store is at 1) to the store's
    // revision.
    auto revision = (*store)->Revision();
    ASSERT_TRUE(revision.ok());
    auto watch = (*store)->StartWatch({std::nullopt, "", 0});
    Event e;
    int64_t expect = 2;
    while (expect <= *revision &&
           watch->Next(std::chrono::seconds(5), &e) == Watch::Outcome::kEvent) {
      ASSERT_EQ(e.revision, expect);
      ++expect;
    }
    EXPECT_EQ(expect, *revision + 1);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hop::store
