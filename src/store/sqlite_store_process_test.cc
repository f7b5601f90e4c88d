// Tests with a second process on the same state directory: watches see its writes, and a process
// killed in the middle of a batch leaves all of the batch or none of it.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

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
    EXPECT_EQ(e.revision, static_cast<int64_t>(seen.size()));  // in order, no gaps
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
  EXPECT_EQ(list->revision, 120);
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

}  // namespace
}  // namespace hop::store
