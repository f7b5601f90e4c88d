// Tests of the local Job runner against a real SqliteStore and real processes: completion, env,
// retries, deadlines, deletion, max_running and the queue of Jobs waiting for a slot, adoption
// after a restart, vanished attempts, the disabled runner and concurrent Syncs; and table-driven
// tests of the pure parts (job_model.h, process.h). No operator exists here, so the tests call Sync
// in a loop until a condition holds, always with a timeout, and kill every process group they
// leave in teardown.
#include "runtime/job_runner.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "common/metrics.h"
#include "common/strings.h"
#include "runtime/job_model.h"
#include "runtime/job_reconciler.h"
#include "runtime/process.h"
#include "runtime/spawner.h"
#include "store/sqlite_store.h"
#include "test/lib/fixtures.h"

namespace hop::runtime {
namespace {

using hop::testing::FakeClock;
using hop::testing::TempDir;

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using resource::Resource;
using store::ObjectRef;

const resource::GroupKind kJob{"batch", "Job"};
// Generous: the tests run on a loaded two-core machine; a passing test never waits this long.
constexpr auto kTimeout = 30s;

// A command that runs until a file `release` appears in its working directory (at most ~30 s).
const std::vector<std::string> kUntilReleased = {
    "/bin/sh", "-c",
    "i=0; while [ ! -f release ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; "
    "echo released"};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A batch/v1 Job running `command` (the first container's), with `spec` merged into its spec
// and `container` into its container.
Resource JobResource(const std::string& name, const std::vector<std::string>& command,
                     const Json& spec = Json::object(), const Json& container = Json::object()) {
  Json doc = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec",
               {{"template",
                 {{"spec",
                   {{"restartPolicy", "Never"},
                    {"containers", Json::array({{{"name", "main"}, {"image", "busybox"}}})}}}}}}}};
  Json& c = doc["spec"]["template"]["spec"]["containers"][0];
  if (!command.empty()) c["command"] = command;
  for (auto it = container.begin(); it != container.end(); ++it) c[it.key()] = it.value();
  for (auto it = spec.begin(); it != spec.end(); ++it) doc["spec"][it.key()] = it.value();
  return Resource(std::move(doc));
}

bool IsComplete(const Resource& job) { return ConditionTrue(job, kComplete); }
bool IsFailed(const Resource& job) { return ConditionTrue(job, kFailed); }
bool IsActive(const Resource& job) {
  return job.status() != nullptr && job.status()->value("active", 0) == 1 &&
         RecordedAttempt(job).has_value();
}

std::string ConditionField(const Resource& job, const std::string& type, const std::string& key) {
  for (const Json& c : job.status()->at("conditions")) {
    if (c.value("type", "") == type) return c.value(key, "");
  }
  return "";
}

// Whether `pid` is a process that has not ended (a zombie has ended).
bool Alive(pid_t pid) {
  auto stat = ReadProcStat(pid);
  return stat && stat->state != 'Z' && stat->state != 'X';
}

// Polls `done` until it holds or the timeout passes.
bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout = kTimeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

class JobRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    store::SqliteStoreOptions opts;
    opts.durable = false;
    auto s = store::SqliteStore::Open(dir_.path(), opts);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
  }

  void TearDown() override {
    runners_.clear();  // stops them; their processes are left running
    // Kill every process group a Job records, or a test noted, and reap what is ours.
    store::ListOptions list;
    list.kind = kJob;
    if (auto jobs = store_->List(list); jobs.ok()) {
      for (const Resource& job : jobs->items) NoteProcess(job);
    }
    for (const auto& [pid, ticks] : noted_) {
      auto stat = ReadProcStat(pid);
      if (!stat || stat->start_ticks != ticks) continue;  // gone: the pid may name another now
      if (stat->pgrp == pid) kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
    }
    for (const auto& [pid, ticks] : noted_) {
      WaitFor([&, pid = pid] { return waitpid(pid, nullptr, WNOHANG) != 0 || !Alive(pid); }, 5s);
    }
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
  }

  // Notes a process to kill in teardown, by pid and start ticks.
  void Note(pid_t pid, int64_t start_ticks) { noted_.emplace_back(pid, start_ticks); }
  void NoteProcess(const Resource& job) {
    if (auto record = RecordedAttempt(job)) Note(record->pid, record->start_ticks);
  }

  JobRunnerOptions Options() {
    JobRunnerOptions options;
    options.state_dir = dir_.path();
    options.retry_delay = 0ms;
    options.kill_grace = 1s;
    options.poll_interval = 50ms;
    return options;
  }

  JobRunner& NewRunner(JobRunnerOptions options) {
    runners_.push_back(std::make_unique<JobRunner>(*store_, std::move(options)));
    return *runners_.back();
  }
  JobRunner& NewRunner() { return NewRunner(Options()); }

  ObjectRef Create(Resource job) {
    auto created = store_->Create(std::move(job));
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    return created.ok() ? store::RefOf(*created) : ObjectRef{};
  }

  Resource Get(const ObjectRef& ref) {
    auto got = store_->Get(ref);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? *got : Resource();
  }

  // Calls Sync until `done` holds for the Job; the Job then, or nullopt (a failure) on timeout.
  std::optional<Resource> SyncUntil(JobRunner& runner, const ObjectRef& ref,
                                    const std::function<bool(const Resource&)>& done) {
    std::optional<Resource> last;
    bool ok = WaitFor([&] {
      auto synced = runner.Sync(ref);
      EXPECT_TRUE(synced.ok()) << synced.status().ToString();
      if (!synced.ok()) return true;
      auto got = store_->Get(ref);
      if (!got.ok()) return false;
      last = *got;
      return done(*got);
    });
    if (!ok || !last || !done(*last)) {
      ADD_FAILURE() << "timed out; the Job is " << (last ? last->ToJsonText(2) : "missing");
      return std::nullopt;
    }
    NoteProcess(*last);
    return last;
  }

  void Release(JobRunner& runner, const ObjectRef& ref) {
    std::ofstream(fs::path(runner.WorkDir(ref)) / "release") << "go\n";
  }

  TempDir dir_;
  std::unique_ptr<store::SqliteStore> store_;
  std::vector<std::unique_ptr<JobRunner>> runners_;
  std::vector<std::pair<pid_t, int64_t>> noted_;
};

TEST_F(JobRunnerTest, RunsACommandToCompletion) {
  JobRunner& runner = NewRunner();
  ASSERT_TRUE(runner.Start().ok());
  ObjectRef ref = Create(JobResource("hello", {"sh", "-c", "echo hello; exit 0"}));
  auto job = SyncUntil(runner, ref, IsComplete);
  ASSERT_TRUE(job);
  const Json& status = *job->status();
  EXPECT_EQ(status.value("succeeded", 0), 1);
  EXPECT_FALSE(status.contains("active"));
  EXPECT_FALSE(status.value("startTime", "").empty());
  EXPECT_FALSE(status.value("completionTime", "").empty());
  EXPECT_EQ(ConditionField(*job, "Complete", "status"), "True");
  EXPECT_EQ(ConditionField(*job, "Complete", "reason"), "CompletionsReached");
  EXPECT_FALSE(ConditionField(*job, "Complete", "lastTransitionTime").empty());
  EXPECT_EQ(status["hop"].value("attempts", 0), 1);
  EXPECT_EQ(status["hop"].value("lastExitCode", -1), 0);
  EXPECT_FALSE(status["hop"].contains("pid"));

  std::string log = ReadFile(runner.LogPath(ref));
  EXPECT_NE(log.find("hello\n"), std::string::npos) << log;
  EXPECT_NE(log.find("--- hop: Job default/hello attempt 1"), std::string::npos) << log;
  EXPECT_NE(log.find("attempt 1 exited with code 0"), std::string::npos) << log;
  EXPECT_EQ(runner.LogPath(ref), dir_.path() + "/logs/default/hello.log");
  EXPECT_EQ(JobRunner::LogPathIn(dir_.path(), {kJob, "", "hello"}), runner.LogPath(ref));
  EXPECT_TRUE(WaitFor([&] { return runner.Running() == 0; }));

  // Finished: more Syncs change nothing.
  auto again = runner.Sync(ref);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->has_value());
  EXPECT_EQ(Get(ref).resource_version(), job->resource_version());
}

// A state directory given as a relative path (`hop --state build/demo-state`): the process runs
// in its work directory, yet its exit code still reaches the runner.
TEST_F(JobRunnerTest, ARelativeStateDirectoryWorks) {
  const fs::path cwd = fs::current_path();
  fs::current_path(fs::path(dir_.path()).parent_path());
  JobRunnerOptions options = Options();
  options.state_dir = fs::path(dir_.path()).filename().string();
  JobRunner& runner = NewRunner(options);
  fs::current_path(cwd);
  ObjectRef ref = Create(JobResource("relative", {"sh", "-c", "exit 3"}));
  auto job = SyncUntil(runner, ref, [](const Resource& j) {
    return j.status() && j.status()->contains("hop") &&
           (*j.status())["hop"].value("lastExitCode", -1) >= 0;
  });
  ASSERT_TRUE(job);
  EXPECT_EQ((*job->status())["hop"].value("lastExitCode", -1), 3);
  EXPECT_EQ(runner.LogPath(ref), dir_.path() + "/logs/default/relative.log");
}

TEST_F(JobRunnerTest, PassesEnvValues) {
  JobRunner& runner = NewRunner();
  Json env = Json::array(
      {{{"name", "GREETING"}, {"value", "hi there"}},
       {{"name", "SHOUTED"}, {"value", "$(GREETING)!"}},
       {{"name", "SECRET"}, {"valueFrom", {{"secretKeyRef", {{"name", "s"}, {"key", "k"}}}}}}});
  ObjectRef ref = Create(JobResource(
      "env",
      {"sh", "-c", "echo \"g=$GREETING s=$SHOUTED x=${SECRET-unset} a=$1\"", "sh", "$(GREETING)"},
      Json::object(), {{"env", env}}));
  ASSERT_TRUE(SyncUntil(runner, ref, IsComplete));
  std::string log = ReadFile(runner.LogPath(ref));
  EXPECT_NE(log.find("g=hi there s=hi there! x=unset a=hi there\n"), std::string::npos) << log;
  EXPECT_NE(log.find("not set locally (valueFrom is not resolved): SECRET"), std::string::npos)
      << log;
}

// What hop tells every process (docs/runtime.md, "The environment"): its state directory and
// binary, the Job, a trigger run's window and the outputs it declares; a Job's own env entry of
// the same name wins, and a variable whose annotation is missing is not set.
TEST_F(JobRunnerTest, GivesEveryProcessHopsVariables) {
  JobRunner& runner = NewRunner();
  Resource job = JobResource(
      "told",
      {"sh", "-c",
       "echo \"state=$HOP_STATE_DIR ns=$HOP_NAMESPACE job=$HOP_JOB trigger=$HOP_TRIGGER "
       "from=$HOP_WINDOW_FROM to=$HOP_WINDOW_TO outputs=$HOP_OUTPUTS bin=${HOP_BIN:+set}\""},
      Json::object(), {{"env", Json::array({{{"name", "HOP_JOB"}, {"value", "mine"}}})}});
  job.set_annotation("trigger", "nightly");
  job.set_annotation("hop.dev/window-from", "2026-03-01T01:00:00.000Z");
  job.set_annotation("triggerTimestamp", "2026-03-01T02:00:00.000Z");
  job.set_annotation("hop.dev/outputs", "table/filled,view/v");
  ObjectRef ref = Create(std::move(job));
  ASSERT_TRUE(SyncUntil(runner, ref, IsComplete));
  std::string log = ReadFile(runner.LogPath(ref));
  const std::string state = fs::absolute(dir_.path()).lexically_normal().string();
  EXPECT_NE(log.find("state=" + state +
                     " ns=default job=mine trigger=nightly from=2026-03-01T01:00:00.000Z "
                     "to=2026-03-01T02:00:00.000Z outputs=table/filled,view/v bin=set\n"),
            std::string::npos)
      << log;

  ObjectRef plain = Create(
      JobResource("plain", {"sh", "-c", "echo \"job=$HOP_JOB outputs=${HOP_OUTPUTS-unset}\""}));
  ASSERT_TRUE(SyncUntil(runner, plain, IsComplete));
  log = ReadFile(runner.LogPath(plain));
  EXPECT_NE(log.find("job=plain outputs=unset\n"), std::string::npos) << log;
}

TEST_F(JobRunnerTest, RunsInItsWorkDirWithArgsOnly) {
  JobRunner& runner = NewRunner();
  Resource job = JobResource("args-only", {}, Json::object(),
                             {{"args", {"/bin/sh", "-c", "pwd; echo out > made-here"}}});
  ObjectRef ref = Create(job);
  ASSERT_TRUE(SyncUntil(runner, ref, IsComplete));
  EXPECT_EQ(runner.WorkDir(ref), dir_.path() + "/jobs/default/args-only");
  EXPECT_TRUE(fs::exists(fs::path(runner.WorkDir(ref)) / "made-here"));
  EXPECT_NE(ReadFile(runner.LogPath(ref)).find(runner.WorkDir(ref) + "\n"), std::string::npos);
}

TEST_F(JobRunnerTest, RetriesUpToTheBackoffLimitThenFails) {
  JobRunner& runner = NewRunner();
  ObjectRef ref =
      Create(JobResource("flaky", {"sh", "-c", "echo try; exit 3"}, {{"backoffLimit", 2}}));
  auto job = SyncUntil(runner, ref, IsFailed);
  ASSERT_TRUE(job);
  EXPECT_EQ(job->status()->value("failed", 0), 3);
  EXPECT_EQ(AttemptsOf(*job), 3);
  EXPECT_EQ(ConditionField(*job, "Failed", "reason"), "BackoffLimitExceeded");
  EXPECT_NE(ConditionField(*job, "Failed", "message").find("exited with code 3"),
            std::string::npos);
  EXPECT_FALSE(job->status()->contains("active"));
  EXPECT_FALSE(job->status()->contains("succeeded"));
  std::string log = ReadFile(runner.LogPath(ref));
  EXPECT_EQ(Count(log, "try\n"), 3u) << log;
  EXPECT_EQ(Count(log, "exited with code 3"), 3u) << log;

  // Failed for good: no fourth attempt.
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(runner.Sync(ref).ok());
  EXPECT_EQ(AttemptsOf(Get(ref)), 3);
}

TEST_F(JobRunnerTest, WaitsBeforeARetry) {
  JobRunnerOptions options = Options();
  options.retry_delay = 60s;
  options.max_retry_delay = 120s;
  JobRunner& runner = NewRunner(options);
  ObjectRef ref = Create(JobResource("slow-retry", {"sh", "-c", "exit 1"}));
  auto job = SyncUntil(runner, ref, [](const Resource& j) { return FailedOf(j) == 1; });
  ASSERT_TRUE(job);
  auto synced = runner.Sync(ref);
  ASSERT_TRUE(synced.ok());
  ASSERT_TRUE(synced->has_value());
  EXPECT_GT(**synced, 30s);  // about a minute: only a few seconds can have passed
  EXPECT_EQ(AttemptsOf(Get(ref)), 1);
}

// The Job reconciler is one Sync: the operator looks at the Job again when Sync says (here, a
// retry's delay), and not at all once it has finished.
TEST_F(JobRunnerTest, TheJobReconcilerLooksAgainWhenSyncSays) {
  JobRunnerOptions options = Options();
  options.retry_delay = 60s;
  options.max_retry_delay = 120s;
  JobRunner& runner = NewRunner(options);
  JobReconciler reconciler(runner);
  const op::ReconcileContext context{"r-test", &SystemClock()};
  ObjectRef failing = Create(JobResource("reconciled-retry", {"sh", "-c", "exit 1"}));
  ASSERT_TRUE(SyncUntil(runner, failing, [](const Resource& j) { return FailedOf(j) == 1; }));
  auto result = reconciler.Reconcile({failing}, context);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_TRUE(result->requeue_after.has_value());
  EXPECT_GT(*result->requeue_after, 30s);
  EXPECT_FALSE(result->terminal.has_value());

  ObjectRef done = Create(JobResource("reconciled-done", {"sh", "-c", "exit 0"}));
  ASSERT_TRUE(SyncUntil(runner, done, IsComplete));
  result = reconciler.Reconcile({done}, context);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_FALSE(result->requeue_after.has_value());
}

TEST_F(JobRunnerTest, DeadlineKillsTheGroupAndFailsTheJob) {
  // The deadline is on the injected clock, so the check cannot be overtaken by a slow machine.
  FakeClock clock(*ParseRfc3339("2026-03-01T12:00:00Z"));
  JobRunnerOptions options = Options();
  options.clock = &clock;
  JobRunner& runner = NewRunner(options);
  ObjectRef ref = Create(JobResource("too-slow", {"sh", "-c", "sleep 30 & sleep 30; wait"},
                                     {{"activeDeadlineSeconds", 1}}));
  auto running = SyncUntil(runner, ref, IsActive);
  ASSERT_TRUE(running);
  pid_t pid = RecordedAttempt(*running)->pid;
  // Both sleeps and their shell are in the attempt's process group.
  EXPECT_TRUE(WaitFor([&] { return GroupHasLiveMembers(pid); }));
  auto synced = runner.Sync(ref);
  ASSERT_TRUE(synced.ok());
  ASSERT_TRUE(synced->has_value());
  EXPECT_EQ(**synced, 1s);

  clock.Advance(1s);
  synced = runner.Sync(ref);
  ASSERT_TRUE(synced.ok());
  const Resource job = Get(ref);
  EXPECT_EQ(ConditionField(job, "Failed", "reason"), "DeadlineExceeded");
  EXPECT_EQ(job.status()->value("failed", 0), 1);
  EXPECT_FALSE(job.status()->contains("active"));
  EXPECT_TRUE(WaitFor([&] { return !GroupHasLiveMembers(pid) && !Alive(pid); }));
  EXPECT_TRUE(WaitFor([&] { return runner.Sync(ref).ok() && runner.Running() == 0; }));
}

TEST_F(JobRunnerTest, DeadlineFollowsTheInjectedClock) {
  FakeClock clock(*ParseRfc3339("2026-03-01T12:00:00Z"));
  JobRunnerOptions options = Options();
  options.clock = &clock;
  JobRunner& runner = NewRunner(options);
  ObjectRef ref = Create(JobResource("deadline", kUntilReleased, {{"activeDeadlineSeconds", 60}}));
  auto job = SyncUntil(runner, ref, IsActive);
  ASSERT_TRUE(job);
  EXPECT_EQ(job->status()->value("startTime", ""), "2026-03-01T12:00:00Z");
  pid_t pid = RecordedAttempt(*job)->pid;

  auto synced = runner.Sync(ref);
  ASSERT_TRUE(synced.ok());
  ASSERT_TRUE(synced->has_value());
  EXPECT_EQ(**synced, 60s);  // the fake clock has not moved
  clock.Advance(59s);
  synced = runner.Sync(ref);
  ASSERT_TRUE(synced.ok());
  EXPECT_EQ(synced->value_or(0ms), 1s);
  EXPECT_TRUE(IsActive(Get(ref)));

  clock.Advance(1s);
  synced = runner.Sync(ref);
  ASSERT_TRUE(synced.ok());
  EXPECT_FALSE(synced->has_value());
  Resource failed = Get(ref);
  EXPECT_EQ(ConditionField(failed, "Failed", "reason"), "DeadlineExceeded");
  EXPECT_EQ(ConditionField(failed, "Failed", "lastTransitionTime"), "2026-03-01T12:01:00Z");
  EXPECT_TRUE(WaitFor([&] { return !GroupHasLiveMembers(pid); }));
}

TEST_F(JobRunnerTest, DeletingARunningJobKillsItsProcessGroup) {
  JobRunner& runner = NewRunner();
  ASSERT_TRUE(runner.Start().ok());
  ObjectRef ref = Create(JobResource("doomed", {"sh", "-c", "sleep 30 & sleep 30; wait"}));
  auto job = SyncUntil(runner, ref, IsActive);
  ASSERT_TRUE(job);
  pid_t pid = RecordedAttempt(*job)->pid;
  ASSERT_TRUE(WaitFor([&] { return GroupHasLiveMembers(pid); }));
  EXPECT_EQ(runner.Running(), 1);

  ASSERT_TRUE(store_->Delete(ref).ok());
  auto synced = runner.Sync(ref);
  ASSERT_TRUE(synced.ok()) << synced.status().ToString();
  EXPECT_FALSE(synced->has_value());
  EXPECT_TRUE(WaitFor([&] { return !GroupHasLiveMembers(pid); }));
  // The leader is reaped too: the pid is gone.
  EXPECT_TRUE(WaitFor([&] { return kill(pid, 0) != 0 && errno == ESRCH; }));
  EXPECT_TRUE(WaitFor([&] { return runner.Running() == 0; }));
  EXPECT_NE(ReadFile(runner.LogPath(ref)).find("killed: its Job was deleted"), std::string::npos);
  // Its work directory went with it, what the process made there too; its log stays.
  EXPECT_FALSE(fs::exists(runner.WorkDir(ref)));
  EXPECT_TRUE(fs::exists(runner.LogPath(ref)));
}

// A finished Job's work directory stays while the Job does, and goes when the runner finds the
// Job deleted: at its Sync, or at the Start of a runner after a deletion no runner saw. A
// directory whose Job exists is kept.
TEST_F(JobRunnerTest, AWorkDirectoryGoesWithItsJob) {
  ObjectRef done = Create(JobResource("done", {"sh", "-c", "echo kept > made-here"}));
  ObjectRef unseen = Create(JobResource("unseen", {"sh", "-c", "echo gone > made-here"}));
  ObjectRef kept = Create(JobResource("kept", {"sh", "-c", "echo kept > made-here"}));
  {
    JobRunner& runner = NewRunner();
    ASSERT_TRUE(runner.Start().ok());
    for (const ObjectRef& ref : {done, unseen, kept}) {
      ASSERT_TRUE(SyncUntil(runner, ref, IsComplete));
      EXPECT_TRUE(fs::exists(fs::path(runner.WorkDir(ref)) / "made-here"));
    }
    ASSERT_TRUE(store_->Delete(done).ok());
    ASSERT_TRUE(runner.Sync(done).ok());
    EXPECT_FALSE(fs::exists(runner.WorkDir(done)));
    EXPECT_TRUE(fs::exists(runner.LogPath(done)));
    runners_.clear();
  }
  ASSERT_TRUE(store_->Delete(unseen).ok());
  // A directory for a Job of a name no store object has, as an older hop left them.
  fs::create_directories(dir_.path() + "/jobs/other/left-behind/sub");
  JobRunner& second = NewRunner();
  ASSERT_TRUE(second.Start().ok());
  EXPECT_FALSE(fs::exists(second.WorkDir(unseen)));
  EXPECT_FALSE(fs::exists(dir_.path() + "/jobs/other/left-behind"));
  EXPECT_TRUE(fs::exists(fs::path(second.WorkDir(kept)) / "made-here"));
  EXPECT_TRUE(fs::exists(second.LogPath(unseen)));
}

// RemoveLog removes the log of a Job that is gone, and only then.
TEST_F(JobRunnerTest, RemoveLogKeepsTheLogOfAJobThatExists) {
  JobRunner& runner = NewRunner();
  ASSERT_TRUE(runner.Start().ok());
  ObjectRef ref = Create(JobResource("run", {"sh", "-c", "echo ran"}));
  ASSERT_TRUE(SyncUntil(runner, ref, IsComplete));
  ASSERT_TRUE(runner.RemoveLog(ref).ok());
  EXPECT_TRUE(fs::exists(runner.LogPath(ref)));
  ASSERT_TRUE(store_->Delete(ref).ok());
  ASSERT_TRUE(runner.RemoveLog(ref).ok());
  EXPECT_FALSE(fs::exists(runner.LogPath(ref)));
  // Nothing to remove, or a name that is no path part: nothing done.
  EXPECT_TRUE(runner.RemoveLog(ref).ok());
  EXPECT_TRUE(runner.RemoveLog({kJob, "default", ".."}).ok());
  EXPECT_TRUE(fs::exists(dir_.path() + "/logs"));
}

TEST_F(JobRunnerTest, KillingEscalatesToSigkillAfterTheGrace) {
  JobRunner& runner = NewRunner();  // kill_grace 1 s
  ASSERT_TRUE(runner.Start().ok());
  // The command and its children ignore SIGTERM; only the wrapper shell dies of it.
  ObjectRef ref =
      Create(JobResource("stubborn", {"sh", "-c", "trap '' TERM; sleep 30 & touch ready; wait"}));
  auto job = SyncUntil(runner, ref, IsActive);
  ASSERT_TRUE(job);
  pid_t pid = RecordedAttempt(*job)->pid;
  ASSERT_TRUE(WaitFor([&] { return fs::exists(fs::path(runner.WorkDir(ref)) / "ready"); }));
  ASSERT_TRUE(store_->Delete(ref).ok());
  ASSERT_TRUE(runner.Sync(ref).ok());
  EXPECT_TRUE(WaitFor([&] { return !GroupHasLiveMembers(pid); }));
  EXPECT_TRUE(WaitFor([&] { return runner.Running() == 0; }));
}

TEST_F(JobRunnerTest, WhatAnAttemptLeavesRunningIsKilledWhenItEnds) {
  JobRunner& runner = NewRunner();
  ASSERT_TRUE(runner.Start().ok());
  ObjectRef ref = Create(JobResource("leaves-a-child", {"sh", "-c", "sleep 60 & echo started"}));
  auto job = SyncUntil(runner, ref, IsActive);
  ASSERT_TRUE(job);
  pid_t pid = RecordedAttempt(*job)->pid;
  ASSERT_TRUE(SyncUntil(runner, ref, IsComplete));
  EXPECT_TRUE(WaitFor([&] { return !GroupHasLiveMembers(pid); }));
}

TEST_F(JobRunnerTest, RecordsExitCodes) {
  struct Case {
    const char* name;
    std::vector<std::string> command;
    bool want_complete;
    int want_code;
  } const kCases[] = {
      {"zero", {"sh", "-c", "exit 0"}, true, 0},
      {"nonzero", {"sh", "-c", "exit 7"}, false, 7},
      {"not-found", {"hop-no-such-command"}, false, 127},
      // `$$` is Kubernetes' escape for `$`: the shell sees `kill -9 $$`.
      {"killed", {"sh", "-c", "kill -9 $$$$"}, false, 137},
      // The command is exec'd as a container's is: a shell's builtin is no command.
      {"a-builtin-is-no-command", {"exec", "true"}, false, 127},
      {"not-executable", {"/dev/null"}, false, 126},
  };
  JobRunner& runner = NewRunner();
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    ObjectRef ref = Create(JobResource(c.name, c.command, {{"backoffLimit", 0}}));
    auto job = SyncUntil(runner, ref, [](const Resource& j) { return JobFinished(j); });
    ASSERT_TRUE(job);
    EXPECT_EQ(IsComplete(*job), c.want_complete);
    EXPECT_EQ(job->status()->at("hop").value("lastExitCode", -1), c.want_code);
  }
}

// The command is looked up on the PATH of the Job's own environment, as a shell started with that
// environment would; a script without a `#!` line runs under /bin/sh; the log says why a command
// could not run.
TEST_F(JobRunnerTest, CommandsAreFoundOnTheJobsPath) {
  JobRunner& runner = NewRunner();
  const fs::path bin = fs::path(dir_.path()) / "bin";
  fs::create_directories(bin);
  std::ofstream(bin / "hop-test-plain-script") << "echo plain script ran\n";
  fs::permissions(bin / "hop-test-plain-script", fs::perms::owner_all);
  const Json path_env = {{"env", Json::array({{{"name", "PATH"},
                                               {"value", bin.string() + ":/usr/bin:/bin"}}})}};
  ObjectRef found = Create(JobResource("found", {"hop-test-plain-script"}, {}, path_env));
  ASSERT_TRUE(SyncUntil(runner, found, IsComplete));
  EXPECT_NE(ReadFile(runner.LogPath(found)).find("plain script ran"), std::string::npos);

  ObjectRef missing =
      Create(JobResource("missing", {"hop-test-plain-script"}, {{"backoffLimit", 0}}));
  ASSERT_TRUE(SyncUntil(runner, missing, IsFailed));
  EXPECT_NE(ReadFile(runner.LogPath(missing))
                .find("hop: cannot run hop-test-plain-script: No such file or directory"),
            std::string::npos)
      << ReadFile(runner.LogPath(missing));
}

// Every process starts from the runner's spawner, not from the runner's own process, and with
// only descriptors 0, 1 and 2.
TEST_F(JobRunnerTest, ProcessesAreTheSpawnersChildrenWithOnlyTheirStandardDescriptors) {
  JobRunner& runner = NewRunner();
  ObjectRef ref = Create(JobResource(
      "lonely", {"sh", "-c", "ls /proc/self/fd > fds; echo $PPID > ppid; " + kUntilReleased[2]}));
  auto job = SyncUntil(runner, ref, IsActive);
  ASSERT_TRUE(job);
  const fs::path work = runner.WorkDir(ref);
  ASSERT_TRUE(WaitFor([&] { return !ReadFile((work / "ppid").string()).empty(); }));
  const pid_t parent = std::stoi(ReadFile((work / "ppid").string()));
  EXPECT_NE(parent, getpid());
  EXPECT_NE(ReadFile("/proc/" + std::to_string(parent) + "/cmdline").find("hop-job-spawner"),
            std::string::npos);
  // sh itself holds 0, 1, 2 and, for `ls`, the descriptor of /proc/self/fd (3).
  EXPECT_EQ(ReadFile((work / "fds").string()), "0\n1\n2\n3\n");
  Release(runner, ref);
  ASSERT_TRUE(SyncUntil(runner, ref, IsComplete));
}

// A spawner killed while its process runs: the attempt ends without an exit status (no one is
// left to learn it), counted as failed, and the next attempt starts from a new spawner.
TEST_F(JobRunnerTest, AKilledSpawnerLosesOnlyTheExitStatusesOfItsRunningProcesses) {
  JobRunner& runner = NewRunner();
  ASSERT_TRUE(runner.Start().ok());
  ObjectRef ref = Create(JobResource(
      "orphaned", {"sh", "-c", "echo $PPID > ppid; test -f second-time && exit 0; touch second-time; " +
                                   kUntilReleased[2]},
      {{"backoffLimit", 1}}));
  auto job = SyncUntil(runner, ref, IsActive);
  ASSERT_TRUE(job);
  const fs::path work = runner.WorkDir(ref);
  ASSERT_TRUE(WaitFor([&] { return !ReadFile((work / "ppid").string()).empty(); }));
  const pid_t spawner = std::stoi(ReadFile((work / "ppid").string()));
  ASSERT_EQ(kill(spawner, SIGKILL), 0);
  Release(runner, ref);
  auto done = SyncUntil(runner, ref, IsComplete);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->status()->value("failed", 0), 1);
  EXPECT_EQ(AttemptsOf(*done), 2);
  const std::string log = ReadFile(runner.LogPath(ref));
  EXPECT_NE(log.find("attempt 1 vanished without an exit status"), std::string::npos) << log;
  EXPECT_NE(ReadFile((work / "ppid").string()), std::to_string(spawner) + "\n");
}

TEST_F(JobRunnerTest, MaxRunningRunsJobsOneAfterAnother) {
  JobRunnerOptions options = Options();
  options.max_running = 1;
  JobRunner& runner = NewRunner(options);
  ObjectRef first = Create(JobResource("first", kUntilReleased));
  ObjectRef second = Create(JobResource("second", {"sh", "-c", "echo second"}));
  ASSERT_TRUE(SyncUntil(runner, first, IsActive));

  auto waiting = runner.Sync(second);
  ASSERT_TRUE(waiting.ok());
  ASSERT_TRUE(waiting->has_value());  // a short requeue
  EXPECT_LE(**waiting, 5s);
  EXPECT_EQ(Get(second).status(), nullptr);
  EXPECT_EQ(runner.Running(), 1);

  Release(runner, first);
  auto done = SyncUntil(runner, first, IsComplete);
  ASSERT_TRUE(done);
  auto later = SyncUntil(runner, second, IsComplete);
  ASSERT_TRUE(later);
  auto first_end = ParseRfc3339(done->status()->at("hop").value("lastExitTime", ""));
  auto second_start = ParseRfc3339(later->status()->at("hop").value("attemptStartTime", ""));
  ASSERT_TRUE(first_end && second_start);
  EXPECT_LE(*first_end, *second_start);
}

// With a reaper thread, a Job that finds every slot taken is queued, not re-polled: Sync asks for
// no second look, and the runner starts it when a process ends. The poll interval is an hour, so
// every exit here is learnt from the processes' pidfds and every start from the queue.
TEST_F(JobRunnerTest, QueuedJobsStartAsSlotsFreeWithoutAnotherSync) {
  JobRunnerOptions options = Options();
  options.max_running = 2;
  options.poll_interval = std::chrono::hours(1);
  JobRunner& runner = NewRunner(options);
  ASSERT_TRUE(runner.Start().ok());
  constexpr int kJobs = 24;
  std::vector<ObjectRef> refs;
  for (int i = 0; i < kJobs; ++i) {
    refs.push_back(Create(JobResource("short-" + std::to_string(i), {"sh", "-c", "exit 0"})));
  }
  for (const ObjectRef& ref : refs) {
    auto synced = runner.Sync(ref);
    ASSERT_TRUE(synced.ok()) << synced.status().ToString();
    EXPECT_FALSE(synced->has_value()) << ref.name;  // nothing to look at again
  }
  int most_running = 0;
  ASSERT_TRUE(WaitFor([&] {
    most_running = std::max(most_running, runner.Running());
    for (const ObjectRef& ref : refs) {
      if (!IsComplete(Get(ref))) return false;
    }
    return true;
  }));
  EXPECT_LE(most_running, 2);
  for (const ObjectRef& ref : refs) EXPECT_EQ(AttemptsOf(Get(ref)), 1) << ref.name;
  EXPECT_TRUE(WaitFor([&] { return runner.Running() == 0; }));
  // Queued in the order they were synced: the first Job started before the last.
  auto first = ParseRfc3339(Get(refs.front()).status()->at("hop").value("attemptStartTime", ""));
  auto last = ParseRfc3339(Get(refs.back()).status()->at("hop").value("attemptStartTime", ""));
  ASSERT_TRUE(first && last);
  EXPECT_LE(*first, *last);
}

// When a process ends, the end is recorded in the same store commit as the start of the queued
// Job its slot frees (docs/runtime.md, "One commit for what an exit settles").
TEST_F(JobRunnerTest, AnExitAndTheStartItMakesRoomForShareOneCommit) {
  JobRunnerOptions options = Options();
  options.max_running = 1;
  options.poll_interval = std::chrono::hours(1);
  JobRunner& runner = NewRunner(options);
  ASSERT_TRUE(runner.Start().ok());
  std::vector<ObjectRef> refs;
  refs.push_back(Create(JobResource("held", kUntilReleased)));
  for (int i = 0; i < 4; ++i) {
    refs.push_back(Create(JobResource("next-" + std::to_string(i), {"sh", "-c", "exit 0"})));
  }
  const int64_t before = store_->commit_stats().batches;
  for (const ObjectRef& ref : refs) ASSERT_TRUE(runner.Sync(ref).ok());  // one starts, 4 queue
  ASSERT_TRUE(WaitFor([&] { return IsActive(Get(refs[0])); }));
  Release(runner, refs[0]);
  ASSERT_TRUE(WaitFor([&] {
    for (const ObjectRef& ref : refs) {
      if (!IsComplete(Get(ref))) return false;
    }
    return true;
  }));
  for (const ObjectRef& ref : refs) EXPECT_EQ(AttemptsOf(Get(ref)), 1) << ref.name;
  // The first start alone; each of the four next starts with the end before it; the last end
  // alone: 6 commits for 10 status writes.
  EXPECT_EQ(store_->commit_stats().batches - before, 6);
}

// The queue is not state that a stopped runner loses: the next one queues, from the store, every
// Job that has not started, and runs them as slots free, with no Sync at all.
TEST_F(JobRunnerTest, JobsQueuedWhenTheRunnerStoppedRunAfterARestart) {
  JobRunnerOptions options = Options();
  options.max_running = 1;
  options.poll_interval = std::chrono::hours(1);
  ObjectRef running = Create(JobResource("running", kUntilReleased));
  std::vector<ObjectRef> queued;
  {
    JobRunner& first = NewRunner(options);
    ASSERT_TRUE(first.Start().ok());
    ASSERT_TRUE(SyncUntil(first, running, IsActive));
    for (int i = 0; i < 3; ++i) {
      queued.push_back(Create(JobResource("queued-" + std::to_string(i), {"sh", "-c", "exit 0"})));
      auto synced = first.Sync(queued.back());
      ASSERT_TRUE(synced.ok());
      EXPECT_FALSE(synced->has_value());
    }
    EXPECT_EQ(Get(queued.front()).status(), nullptr);
    runners_.clear();  // stopped with the first Job running and three queued
  }
  JobRunner& second = NewRunner(options);
  ASSERT_TRUE(second.Start().ok());
  EXPECT_EQ(second.Running(), 1);  // the adopted attempt; the queued Jobs wait for its slot
  for (const ObjectRef& ref : queued) EXPECT_EQ(Get(ref).status(), nullptr) << ref.name;
  Release(second, running);
  ASSERT_TRUE(WaitFor([&] {
    for (const ObjectRef& ref : queued) {
      if (!IsComplete(Get(ref))) return false;
    }
    return IsComplete(Get(running));
  }));
  for (const ObjectRef& ref : queued) EXPECT_EQ(AttemptsOf(Get(ref)), 1) << ref.name;
  EXPECT_EQ(AttemptsOf(Get(running)), 1);
}

TEST_F(JobRunnerTest, AdoptsARunningAttemptAfterARestart) {
  ObjectRef ref = Create(JobResource("survivor", kUntilReleased));
  pid_t pid = 0;
  {
    JobRunner& first = NewRunner();
    ASSERT_TRUE(first.Start().ok());
    auto job = SyncUntil(first, ref, IsActive);
    ASSERT_TRUE(job);
    pid = RecordedAttempt(*job)->pid;
    runners_.clear();  // destroyed while the Job runs
  }
  ASSERT_TRUE(Alive(pid));

  JobRunner& second = NewRunner();
  ASSERT_TRUE(second.Start().ok());
  EXPECT_EQ(second.Running(), 1);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(second.Sync(ref).ok());
  Resource still = Get(ref);
  EXPECT_EQ(AttemptsOf(still), 1);
  ASSERT_TRUE(RecordedAttempt(still));
  EXPECT_EQ(RecordedAttempt(still)->pid, pid);

  Release(second, ref);
  // The reaper alone records the end: no Sync needed.
  ASSERT_TRUE(WaitFor([&] { return IsComplete(Get(ref)); })) << Get(ref).ToJsonText(2);
  std::string log = ReadFile(second.LogPath(ref));
  EXPECT_EQ(Count(log, "--- hop: Job default/survivor attempt"), 1u) << log;
  EXPECT_NE(log.find("released\n"), std::string::npos) << log;
  EXPECT_FALSE(Alive(pid));
}

TEST_F(JobRunnerTest, AdoptsAProcessThatIsNotItsChild) {
  JobRunner& runner = NewRunner();
  ObjectRef ref = Create(JobResource("foreign", {"true"}));
  // Another hop process's attempt, as a grandchild of this one: its own session, its exit file
  // written as the runner's wrapper would.
  fs::path work = runner.WorkDir(ref);
  fs::create_directories(work);
  std::string exit_file = (work / ".hop-exit-1-test").string();
  // A simple background command, so that $! is setsid's pid, which becomes the new shell's.
  std::string script =
      "cd " + ShellQuote(work.string()) +
      " || exit 1; setsid /bin/sh -c 'i=0; while [ ! -f release ] && [ $i -lt 600 ]; do "
      "sleep 0.05; i=$((i+1)); done; echo 0 > " +
      exit_file + "' >/dev/null 2>&1 & echo $!";
  FILE* out = popen(script.c_str(), "r");
  ASSERT_NE(out, nullptr);
  int pid = 0;
  ASSERT_EQ(fscanf(out, "%d", &pid), 1);
  pclose(out);
  std::optional<ProcStat> stat;
  // Once setsid has run, it leads its own group, as the runner's attempts do.
  ASSERT_TRUE(WaitFor([&] {
    stat = ReadProcStat(pid);
    return stat && stat->pgrp == pid;
  }));
  Note(pid, stat->start_ticks);

  Resource job = Get(ref);
  MarkStarted(job.mutable_status(), {1, pid, stat->start_ticks, BootId(), exit_file},
              SystemClock().Now());
  ASSERT_TRUE(store_->UpdateStatus(job).ok());

  ASSERT_TRUE(runner.Start().ok());
  EXPECT_EQ(runner.Running(), 1);
  ASSERT_TRUE(runner.Sync(ref).ok());
  EXPECT_EQ(AttemptsOf(Get(ref)), 1);
  Release(runner, ref);
  auto done = SyncUntil(runner, ref, IsComplete);
  ASSERT_TRUE(done);
  EXPECT_EQ(AttemptsOf(*done), 1);
  EXPECT_EQ(done->status()->value("succeeded", 0), 1);
}

TEST_F(JobRunnerTest, AVanishedAttemptCountsAsFailed) {
  // A pid that named a process once: the shell that printed it has exited.
  FILE* out = popen("echo $$", "r");
  ASSERT_NE(out, nullptr);
  int gone = 0;
  ASSERT_EQ(fscanf(out, "%d", &gone), 1);
  pclose(out);

  struct Case {
    const char* name;
    int backoff_limit;
    bool want_complete;
  } const kCases[] = {{"vanished-retried", 1, true}, {"vanished-failed", 0, false}};
  JobRunner& runner = NewRunner();
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    ObjectRef ref =
        Create(JobResource(c.name, {"sh", "-c", "exit 0"}, {{"backoffLimit", c.backoff_limit}}));
    Resource job = Get(ref);
    // Start ticks 1: even if the pid was reused, it is not the recorded process.
    MarkStarted(job.mutable_status(), {1, gone, 1, BootId(), "/nonexistent/exit"},
                SystemClock().Now());
    ASSERT_TRUE(store_->UpdateStatus(job).ok());

    auto done = SyncUntil(runner, ref, [](const Resource& j) { return JobFinished(j); });
    ASSERT_TRUE(done);
    EXPECT_EQ(done->status()->value("failed", 0), 1);
    if (c.want_complete) {
      EXPECT_TRUE(IsComplete(*done));
      EXPECT_EQ(AttemptsOf(*done), 2);
    } else {
      EXPECT_EQ(ConditionField(*done, "Failed", "reason"), "BackoffLimitExceeded");
      EXPECT_NE(ConditionField(*done, "Failed", "message").find("vanished"), std::string::npos);
      EXPECT_EQ(AttemptsOf(*done), 1);
    }
  }
}

// A store that refuses, when armed, the write recording that an attempt started, after a pause
// long enough for an unguarded command to have run.
class RefusesStarts : public store::Store {
 public:
  explicit RefusesStarts(store::Store& inner) : inner_(inner) {}
  std::atomic<bool> armed{true};
  Result<Resource> Get(const ObjectRef& ref) override { return inner_.Get(ref); }
  Result<store::ListResult> List(const store::ListOptions& o) override { return inner_.List(o); }
  Result<std::vector<Resource>> Commit(std::vector<store::Write> writes) override {
    for (const store::Write& w : writes) {
      const Json* status = w.object.status();
      if (armed && w.op == store::Write::Op::kUpdateStatus && status != nullptr &&
          status->contains("hop") && (*status)["hop"].contains("pid")) {
        std::this_thread::sleep_for(300ms);
        return Status::Unavailable("the disk is full");
      }
    }
    return inner_.Commit(std::move(writes));
  }
  std::unique_ptr<store::Watch> StartWatch(const store::WatchOptions& o) override {
    return inner_.StartWatch(o);
  }
  Result<int64_t> Revision() override { return inner_.Revision(); }

 private:
  store::Store& inner_;
};

// An attempt's command runs only once the attempt is in the Job's status: when the runner cannot
// record it (or stops before it could), the command has not run, so the attempt that follows
// runs it once, not twice.
TEST_F(JobRunnerTest, ACommandRunsOnlyOnceItsAttemptIsRecorded) {
  RefusesStarts store(*store_);
  JobRunner runner(store, Options());
  ASSERT_TRUE(runner.Start().ok());
  ObjectRef ref = Create(JobResource("gated", {"sh", "-c", "echo ran >> runs"}));
  const fs::path runs = fs::path(runner.WorkDir(ref)) / "runs";
  auto refused = runner.Sync(ref);
  EXPECT_FALSE(refused.ok());
  EXPECT_TRUE(WaitFor([&] { return runner.Running() == 0; }));
  std::this_thread::sleep_for(200ms);
  EXPECT_FALSE(fs::exists(runs)) << "the command ran before its attempt was recorded";

  store.armed = false;
  bool complete = WaitFor([&] {
    auto synced = runner.Sync(ref);
    auto got = store_->Get(ref);
    return synced.ok() && got.ok() && IsComplete(*got);
  });
  ASSERT_TRUE(complete) << Get(ref).ToJsonText(2);
  EXPECT_EQ(ReadFile(runs.string()), "ran\n");
  runner.Stop();
}

// An attempt recorded as started whose command never ran (its runner was killed between
// recording it and letting it start: the wrapper wrote "never-ran") is taken back, not counted as
// failed, and the command then runs once.
TEST_F(JobRunnerTest, AnAttemptThatNeverRanIsTakenBackAndRunsAgain) {
  FILE* out = popen("echo $$", "r");
  ASSERT_NE(out, nullptr);
  int gone = 0;
  ASSERT_EQ(fscanf(out, "%d", &gone), 1);
  pclose(out);

  JobRunner& runner = NewRunner();
  ObjectRef ref =
      Create(JobResource("never-ran", {"sh", "-c", "echo ran >> runs"}, {{"backoffLimit", 0}}));
  const fs::path work = runner.WorkDir(ref);
  fs::create_directories(work);
  const std::string exit_file = (work / ".hop-exit-1-test").string();
  std::ofstream(exit_file) << "never-ran\n";
  // The log the first attempt began (its header), as its runner wrote it before it stopped.
  fs::create_directories(fs::path(runner.LogPath(ref)).parent_path());
  std::ofstream(runner.LogPath(ref)) << "--- hop: Job default/never-ran attempt 1\n";
  Resource job = Get(ref);
  MarkStarted(job.mutable_status(), {1, gone, 1, BootId(), exit_file}, SystemClock().Now());
  ASSERT_TRUE(store_->UpdateStatus(job).ok());

  auto done = SyncUntil(runner, ref, [](const Resource& j) { return JobFinished(j); });
  ASSERT_TRUE(done);
  EXPECT_TRUE(IsComplete(*done)) << done->ToJsonText(2);
  EXPECT_EQ(done->status()->value("failed", 0), 0);
  EXPECT_EQ(AttemptsOf(*done), 1);
  EXPECT_EQ(ReadFile((work / "runs").string()), "ran\n");
  EXPECT_NE(ReadFile(runner.LogPath(ref)).find("attempt 1 never ran"), std::string::npos);
}

TEST_F(JobRunnerTest, RecordsAnExitThatHappenedWhileNoRunnerWatched) {
  JobRunner& runner = NewRunner();
  ObjectRef ref = Create(JobResource("finished-meanwhile", {"sh", "-c", "exit 1"}));
  fs::path work = runner.WorkDir(ref);
  fs::create_directories(work);
  std::string exit_file = (work / ".hop-exit-1-test").string();
  std::ofstream(exit_file) << "0\n";
  Resource job = Get(ref);
  MarkStarted(job.mutable_status(), {1, 999999999, 1, BootId(), exit_file}, SystemClock().Now());
  ASSERT_TRUE(store_->UpdateStatus(job).ok());

  ASSERT_TRUE(runner.Start().ok());  // adoption records the end
  Resource done = Get(ref);
  EXPECT_TRUE(IsComplete(done)) << done.ToJsonText(2);
  EXPECT_EQ(AttemptsOf(done), 1);
  EXPECT_EQ(Count(ReadFile(runner.LogPath(ref)), "--- hop: Job"), 0u);  // nothing started
}

TEST_F(JobRunnerTest, KillsAtStartTheProcessOfAJobDeletedWhileStopped) {
  ObjectRef ref = Create(JobResource("orphan", kUntilReleased));
  pid_t pid = 0;
  {
    JobRunner& first = NewRunner();
    auto job = SyncUntil(first, ref, IsActive);
    ASSERT_TRUE(job);
    pid = RecordedAttempt(*job)->pid;
    runners_.clear();
  }
  ASSERT_TRUE(store_->Delete(ref).ok());
  ASSERT_TRUE(Alive(pid));

  JobRunner& second = NewRunner();
  ASSERT_TRUE(second.Start().ok());
  EXPECT_TRUE(WaitFor([&] { return !GroupHasLiveMembers(pid) && !Alive(pid); }));
}

TEST_F(JobRunnerTest, DisabledRunnerLeavesJobsAlone) {
  JobRunnerOptions options = Options();
  options.enabled = false;
  JobRunner& runner = NewRunner(options);
  ASSERT_TRUE(runner.Start().ok());
  ObjectRef ref = Create(JobResource("ignored", {"sh", "-c", "echo should-not-run"}));
  for (int i = 0; i < 3; ++i) {
    auto synced = runner.Sync(ref);
    ASSERT_TRUE(synced.ok());
    EXPECT_FALSE(synced->has_value());
  }
  EXPECT_EQ(Get(ref).status(), nullptr);
  EXPECT_EQ(runner.Running(), 0);
  EXPECT_FALSE(fs::exists(runner.LogPath(ref)));
  EXPECT_FALSE(fs::exists(runner.WorkDir(ref)));
}

TEST_F(JobRunnerTest, ConcurrentSyncsStartOneProcess) {
  JobRunner& runner = NewRunner();
  ASSERT_TRUE(runner.Start().ok());
  ObjectRef ref = Create(JobResource("contended", kUntilReleased));
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        if (!runner.Sync(ref).ok()) ++errors;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  Resource job = Get(ref);
  NoteProcess(job);
  EXPECT_TRUE(IsActive(job)) << job.ToJsonText(2);
  EXPECT_EQ(AttemptsOf(job), 1);
  EXPECT_EQ(runner.Running(), 1);
  Release(runner, ref);
  ASSERT_TRUE(SyncUntil(runner, ref, IsComplete));
  std::string log = ReadFile(runner.LogPath(ref));
  EXPECT_EQ(Count(log, "--- hop: Job default/contended attempt"), 1u) << log;
  EXPECT_EQ(Count(log, "released\n"), 1u) << log;
}

TEST_F(JobRunnerTest, AJobItCannotRunFails) {
  struct Case {
    const char* name;
    Json spec;
    Json container;
    const char* message;
  } const kCases[] = {
      {"no-command", Json::object(), Json::object(), "neither command nor args"},
      {"parallel", {{"parallelism", 2}}, {{"command", {"true"}}}, "spec.parallelism 2"},
      {"bad-env",
       Json::object(),
       {{"command", {"true"}}, {"env", {{{"value", "x"}}}}},
       "without a name"},
  };
  JobRunner& runner = NewRunner();
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    ObjectRef ref = Create(JobResource(c.name, {}, c.spec, c.container));
    auto synced = runner.Sync(ref);
    ASSERT_TRUE(synced.ok()) << synced.status().ToString();
    Resource job = Get(ref);
    ASSERT_TRUE(IsFailed(job)) << job.ToJsonText(2);
    EXPECT_EQ(ConditionField(job, "Failed", "reason"), "InvalidJobSpec");
    EXPECT_NE(ConditionField(job, "Failed", "message").find(c.message), std::string::npos)
        << ConditionField(job, "Failed", "message");
    EXPECT_EQ(AttemptsOf(job), 0);
  }
  EXPECT_EQ(runner.Running(), 0);
}

// A process the system refuses to start (an argument over the kernel's 128 KB limit) is a failed
// attempt: counted, recorded with the reason in the status and the log, retried as backoffLimit
// says and then failed, and never a Sync error (which the operator would retry forever).
TEST_F(JobRunnerTest, AnAttemptThatCannotStartIsAFailedAttempt) {
  for (int limit : {0, 2}) {
    SCOPED_TRACE(limit);
    JobRunner& runner = NewRunner();
    const std::string name = "too-long-" + std::to_string(limit);
    ObjectRef ref = Create(
        JobResource(name, {"echo", std::string(200 * 1024, 'x')}, {{"backoffLimit", limit}}));
    std::optional<Resource> job;
    for (int i = 0; i < 20 && !(job && IsFailed(*job)); ++i) {
      auto synced = runner.Sync(ref);
      ASSERT_TRUE(synced.ok()) << synced.status().ToString();
      job = Get(ref);
    }
    ASSERT_TRUE(job && IsFailed(*job)) << job->ToJsonText(2);
    EXPECT_EQ(job->status()->value("failed", 0), limit + 1);
    EXPECT_EQ(AttemptsOf(*job), limit + 1);
    EXPECT_FALSE(job->status()->contains("active"));
    EXPECT_FALSE(job->status()->value("startTime", "").empty());
    EXPECT_EQ(ConditionField(*job, "Failed", "reason"), "BackoffLimitExceeded");
    const std::string message = ConditionField(*job, "Failed", "message");
    EXPECT_NE(message.find("could not start: cannot start echo: Argument list too long"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("takes 204801 bytes, at most 131072 allowed"), std::string::npos)
        << message;
    const std::string log = ReadFile(runner.LogPath(ref));
    EXPECT_EQ(Count(log, "could not start: cannot start echo: Argument list too long"),
              static_cast<size_t>(limit + 1))
        << log;
    // The header shows the command cut short, not 200 KB per attempt.
    EXPECT_LT(log.size(), 10000u * static_cast<size_t>(limit + 1));
    EXPECT_NE(log.find(" bytes more)"), std::string::npos);
    EXPECT_FALSE(fs::exists(fs::path(runner.WorkDir(ref)) / ".hop-process"));
    EXPECT_EQ(runner.Running(), 0);
  }
}

TEST_F(JobRunnerTest, AMissingJobIsDoneAndOtherKindsAreRefused) {
  JobRunner& runner = NewRunner();
  auto missing = runner.Sync({kJob, "default", "nothing-here"});
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
  auto other = runner.Sync({{"", "ConfigMap"}, "default", "x"});
  EXPECT_EQ(other.status().code(), StatusCode::kInvalidArgument);
}

// --- the pure parts ---

// The value of the series `series` (name and labels as rendered) in `text`; "" when absent.
std::string Sample(const std::string& text, const std::string& series) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(series + " ", 0) == 0) return line.substr(series.size() + 1);
  }
  return "";
}

TEST_F(JobRunnerTest, ExportsRunsByOutcomeAndTheFireToStartLatency) {
  FakeClock clock(*ParseRfc3339("2026-03-01T12:00:00Z"));
  metrics::Registry registry;
  JobRunnerOptions options = Options();
  options.clock = &clock;
  options.registry = &registry;
  JobRunner runner(*store_, options);  // goes before the registry it registered in
  EXPECT_EQ(Sample(registry.Render(), R"(hop_job_runs_total{outcome="succeeded"})"), "0");

  // A trigger's run, fired 1.5 s before the runner starts it (by the fake clock).
  Resource fired = JobResource("fired", {"sh", "-c", "exit 0"});
  fired.set_annotation("triggerTimestamp", "2026-03-01T11:59:58.500Z");
  ObjectRef ok = Create(std::move(fired));
  ASSERT_TRUE(SyncUntil(runner, ok, IsComplete));
  ObjectRef bad = Create(JobResource("bad", {"sh", "-c", "exit 1"}, {{"backoffLimit", 0}}));
  ASSERT_TRUE(SyncUntil(runner, bad, IsFailed));
  ObjectRef invalid = Create(JobResource("invalid", {}));
  ASSERT_TRUE(SyncUntil(runner, invalid, IsFailed));
  ObjectRef slow = Create(JobResource("slow", kUntilReleased, {{"activeDeadlineSeconds", 60}}));
  ASSERT_TRUE(SyncUntil(runner, slow, IsActive));
  EXPECT_EQ(Sample(registry.Render(), "hop_jobs_running"), "1");
  clock.Advance(60s);
  ASSERT_TRUE(SyncUntil(runner, slow, IsFailed));

  const std::string text = registry.Render();
  struct Case {
    const char* series;
    const char* want;
  };
  const Case kCases[] = {
      {R"(hop_job_runs_total{outcome="succeeded"})", "1"},
      {R"(hop_job_runs_total{outcome="failed"})", "1"},
      {R"(hop_job_runs_total{outcome="invalid"})", "1"},
      {R"(hop_job_runs_total{outcome="deadline_exceeded"})", "1"},
      {"hop_job_attempts_started_total", "3"},  // the invalid Job started nothing
      // Only the Job with a triggerTimestamp is a trigger's run.
      {"hop_fire_to_start_seconds_count", "1"},
      {"hop_fire_to_start_seconds_sum", "1.5"},
      {R"(hop_fire_to_start_seconds_bucket{le="1"})", "0"},
      {R"(hop_fire_to_start_seconds_bucket{le="2.5"})", "1"},
      {R"(hop_fire_to_start_seconds_bucket{le="+Inf"})", "1"},
  };
  for (const Case& c : kCases)
    EXPECT_EQ(Sample(text, c.series), c.want) << c.series << "\n" << text;

  // More Syncs of finished Jobs count nothing again.
  for (const ObjectRef& ref : {ok, bad, invalid, slow}) ASSERT_TRUE(runner.Sync(ref).ok());
  const std::string after = registry.Render();
  for (const Case& c : kCases) EXPECT_EQ(Sample(after, c.series), c.want) << c.series;
  // The killed attempt is gone once reaped; with no reaper thread started, a Sync reaps it.
  EXPECT_TRUE(WaitFor([&] {
    EXPECT_TRUE(runner.Sync(slow).ok());
    return Sample(registry.Render(), "hop_jobs_running") == "0";
  }));
}

TEST(JobRunnerModelTest, ExpandVars) {
  const std::map<std::string, std::string> vars = {{"A", "a"}, {"EMPTY", ""}};
  struct Case {
    const char* in;
    const char* want;
  } const kCases[] = {
      {"$(A)", "a"},
      {"x$(A)y$(A)", "xaya"},
      {"$(B)", "$(B)"},
      {"$$(A)", "$(A)"},
      {"$$", "$"},
      {"$", "$"},
      {"a$b", "a$b"},
      {"$(A", "$(A"},
      {"$(EMPTY)!", "!"},
      {"$$$(A)", "$a"},
      {"", ""},
      {"no refs", "no refs"},
      // As the kubelet: an unclosed "$(" is kept, and what follows is still expanded.
      {"$(A $$ $(A", "$(A $ $(A"},
      {"$($(A)", "$($(A)"},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(ExpandVars(c.in, vars), c.want) << "case " << c.in;
  }
}

TEST(JobRunnerModelTest, ParseJobSpec) {
  struct Case {
    const char* name;
    const char* spec;  // the Job's spec, JSON
    const char* want;  // argv joined with '|', or "error: <part of the message>"
  } const kCases[] = {
      {"command and args",
       R"js({"template": {"spec": {"containers": [{"command": ["sh", "-c"], "args": ["echo"]}]}}})js",
       "sh|-c|echo"},
      {"args only", R"js({"template": {"spec": {"containers": [{"args": ["echo", "x"]}]}}})js",
       "echo|x"},
      {"first container only",
       R"js({"template": {"spec": {"containers": [{"command": ["a"]}, {"command": ["b"]}]}}})js",
       "a"},
      {"env in args",
       R"js({"template": {"spec": {"containers": [{"command": ["echo", "$(X)", "$(Y)"],
           "env": [{"name": "X", "value": "1"}]}]}}})js",
       "echo|1|$(Y)"},
      {"no containers", R"js({"template": {"spec": {"containers": []}}})js", "error: is empty"},
      {"no spec", R"js(null)js", "error: has no spec"},
      {"command not strings", R"js({"template": {"spec": {"containers": [{"command": [1]}]}}})js",
       "error: must hold strings"},
      {"completions",
       R"js({"completions": 3, "template": {"spec": {"containers": [{"args": ["a"]}]}}})js",
       "error: spec.completions 3"},
      {"negative backoff",
       R"js({"backoffLimit": -1, "template": {"spec": {"containers": [{"args": ["a"]}]}}})js",
       "error: must not be negative"},
      {"string deadline",
       R"js({"activeDeadlineSeconds": "10", "template": {"spec": {"containers": [{"args": ["a"]}]}}})js",
       "error: must be an integer"},
  };
  for (const Case& c : kCases) {
    Json doc = {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", {{"name", "j"}}}};
    Json spec = Json::parse(c.spec);
    if (!spec.is_null()) doc["spec"] = spec;
    auto parsed = ParseJobSpec(Resource(doc));
    std::string got;
    if (parsed.ok()) {
      for (const auto& w : parsed->argv) got += (got.empty() ? "" : "|") + w;
    } else {
      got = "error: " + parsed.status().message();
    }
    std::string want = c.want;
    if (want.rfind("error: ", 0) == 0) {
      EXPECT_EQ(got.rfind("error: ", 0), 0u) << c.name << ": " << got;
      EXPECT_NE(got.find(want.substr(7)), std::string::npos) << c.name << ": " << got;
    } else {
      EXPECT_EQ(got, want) << c.name;
    }
  }
}

TEST(JobRunnerModelTest, SpecDefaultsAndPolicy) {
  Resource job(Json::parse(R"({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
      "spec": {"suspend": true, "activeDeadlineSeconds": 60,
               "template": {"spec": {"terminationGracePeriodSeconds": 2,
                                     "containers": [{"args": ["a"]}]}}}})"));
  auto spec = ParseJobSpec(job);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->backoff_limit, 6);
  EXPECT_TRUE(spec->suspend);
  EXPECT_EQ(spec->active_deadline_seconds, 60);
  EXPECT_EQ(spec->termination_grace_seconds, 2);
  EXPECT_EQ(BackoffLimitOf(job), 6);
  EXPECT_FALSE(DeadlineOf(job));  // not started
  job.mutable_status()["startTime"] = "2026-01-02T03:04:05Z";
  EXPECT_EQ(DeadlineOf(job), ParseRfc3339("2026-01-02T03:05:05Z"));
}

TEST(JobRunnerModelTest, RetryDelay) {
  struct Case {
    int64_t failed;
    int64_t want_ms;
  } const kCases[] = {{0, 0}, {1, 1000}, {2, 2000}, {3, 4000}, {6, 10000}, {60, 10000}};
  for (const Case& c : kCases) {
    EXPECT_EQ(RetryDelay(c.failed, 1000ms, 10000ms).count(), c.want_ms) << "failed " << c.failed;
  }
  EXPECT_EQ(RetryDelay(3, 0ms, 10000ms).count(), 0);
}

TEST(JobRunnerModelTest, StatusTransitions) {
  const SystemTime t0 = *ParseRfc3339("2026-01-02T03:04:05Z");
  const SystemTime t1 = t0 + 10s;
  Json status = Json::object();
  MarkStarted(status, {1, 42, 7, "boot", "/x/exit"}, t0);
  EXPECT_EQ(status["active"], 1);
  EXPECT_EQ(status["startTime"], "2026-01-02T03:04:05Z");
  EXPECT_EQ(status["hop"]["pid"], 42);

  MarkEnded(status, {1, 2, "exited with code 2"}, /*backoff_limit=*/1, t1);
  EXPECT_FALSE(status.contains("active"));
  EXPECT_FALSE(status["hop"].contains("pid"));
  EXPECT_EQ(status["failed"], 1);
  EXPECT_FALSE(status.contains("conditions"));  // one retry left

  MarkStarted(status, {2, 43, 8, "boot", "/x/exit2"}, t1);
  EXPECT_EQ(status["startTime"], "2026-01-02T03:04:05Z");  // the first attempt's
  MarkEnded(status, {2, 2, "exited with code 2"}, 1, t1);
  EXPECT_EQ(status["failed"], 2);
  ASSERT_EQ(status["conditions"].size(), 1u);
  EXPECT_EQ(status["conditions"][0]["type"], "Failed");
  EXPECT_EQ(status["conditions"][0]["reason"], "BackoffLimitExceeded");
  EXPECT_EQ(status["conditions"][0]["lastTransitionTime"], "2026-01-02T03:04:15Z");

  // Setting a true condition again keeps its transition time.
  SetCondition(status, "Failed", "Other", "again", t1 + 60s);
  EXPECT_EQ(status["conditions"][0]["lastTransitionTime"], "2026-01-02T03:04:15Z");
  EXPECT_EQ(status["conditions"][0]["reason"], "Other");

  // An attempt that could not start counts as one that failed.
  Json refused = Json::object();
  MarkNotStarted(refused, {1, std::nullopt, "could not start: E2BIG"}, 0, t0);
  EXPECT_EQ(refused["failed"], 1);
  EXPECT_EQ(refused["hop"]["attempts"], 1);
  EXPECT_EQ(refused["hop"]["lastResult"], "attempt 1 could not start: E2BIG");
  EXPECT_EQ(refused["startTime"], "2026-01-02T03:04:05Z");
  EXPECT_FALSE(refused.contains("active"));
  EXPECT_EQ(refused["conditions"][0]["reason"], "BackoffLimitExceeded");

  Json running = Json::object();
  MarkStarted(running, {1, 42, 7, "boot", "/x/exit"}, t0);
  MarkFailed(running, kReasonDeadline, "too long", t1);
  EXPECT_EQ(running["failed"], 1);
  EXPECT_FALSE(running.contains("active"));
  EXPECT_EQ(running["conditions"][0]["reason"], "DeadlineExceeded");
}

TEST(JobRunnerModelTest, ParseProcStat) {
  auto stat = ParseProcStat(
      "1234 (odd) name (x)) S 1 1200 1200 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 98765 "
      "1000 200 18446744073709551615\n");
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->state, 'S');
  EXPECT_EQ(stat->pgrp, 1200);
  EXPECT_EQ(stat->start_ticks, 98765);
  EXPECT_FALSE(ParseProcStat("garbage"));
  EXPECT_FALSE(ParseProcStat("1 (x) S 1 2"));
  auto self = ReadProcStat(getpid());
  ASSERT_TRUE(self);
  EXPECT_NE(self->state, 'Z');
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
}

// What the exit file says of each way a spawner's child ends (spawner.h).
TEST(SpawnerExitFileTest, SaysNeverRanOnlyOfAChildWhoseCommandCouldNotHaveStarted) {
  EXPECT_EQ(ExitFileText(true, true, 0), "0");
  EXPECT_EQ(ExitFileText(true, true, 121), "121");
  EXPECT_EQ(ExitFileText(true, false, SIGKILL), "137");
  // Its gate closed, or it was killed at the gate: its command never ran.
  EXPECT_EQ(ExitFileText(false, true, 120), kNeverRan);
  EXPECT_EQ(ExitFileText(false, false, SIGKILL), kNeverRan);
  // It could not set up its descriptors or working directory before its gate opened: a failed
  // attempt, which the runner counts, not one it starts again at once and forever.
  EXPECT_EQ(ExitFileText(false, true, 121), "121");
}

// The spawner on its own (spawner.h): what it writes in an exit file, and what happens to the
// gates of a runner that goes away.
class SpawnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(log_) << "";
    auto launched = Spawner::Launch();
    ASSERT_TRUE(launched.ok()) << launched.status().ToString();
    spawner_ = *launched;
  }

  // Starts `script` under sh, held at its gate, with `name` naming its exit file.
  pid_t Start(const std::string& script, const std::string& name) {
    SpawnerStart start;
    start.argv = {"sh", "-c", script};
    start.env = EnvironmentWith({});
    start.working_dir = dir_.path();
    start.log_path = log_;
    start.exit_file = Path(name);
    auto pid = spawner_->Start(start);
    EXPECT_TRUE(pid.ok()) << pid.status().ToString();
    return pid.ok() ? *pid : 0;
  }
  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }
  // The exit file `name` once written.
  std::string ExitFile(const std::string& name) {
    std::string text;
    WaitFor([&] { return !(text = ReadFile(Path(name))).empty(); });
    return text;
  }

  TempDir dir_;
  std::string log_ = dir_.path() + "/log";
  std::shared_ptr<Spawner> spawner_;
};

TEST_F(SpawnerTest, WritesTheExitCodeThenReportsTheEnd) {
  const pid_t ok = Start("echo hello", "ok");
  const pid_t seven = Start("exit 7", "seven");
  const pid_t killed = Start("kill -9 $$", "killed");
  ASSERT_TRUE(ok > 0 && seven > 0 && killed > 0);
  // Each leads its own session and process group before Start returns.
  for (pid_t pid : {ok, seven, killed}) {
    auto stat = ReadProcStat(pid);
    ASSERT_TRUE(stat);
    EXPECT_EQ(stat->pgrp, pid);
  }
  for (pid_t pid : {ok, seven, killed}) spawner_->Open(pid);
  std::map<pid_t, int> ends;
  ASSERT_TRUE(WaitFor([&] {
    spawner_->Drain();
    for (pid_t pid : {ok, seven, killed}) {
      int status = 0;
      if (spawner_->TakeExit(pid, &status)) ends[pid] = status;
    }
    return ends.size() == 3;
  }));
  EXPECT_TRUE(WIFEXITED(ends[ok]) && WEXITSTATUS(ends[ok]) == 0);
  EXPECT_TRUE(WIFEXITED(ends[seven]) && WEXITSTATUS(ends[seven]) == 7);
  EXPECT_TRUE(WIFSIGNALED(ends[killed]) && WTERMSIG(ends[killed]) == SIGKILL);
  // The exit files were written before the ends were reported.
  EXPECT_EQ(ReadFile(Path("ok")), "0\n");
  EXPECT_EQ(ReadFile(Path("seven")), "7\n");
  EXPECT_EQ(ReadFile(Path("killed")), "137\n");
  EXPECT_EQ(ReadFile(log_), "hello\n");
  EXPECT_EQ(fs::status(Path("ok")).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

// A runner that opens a gate and goes at once: the gate still opens (the spawner acts on what
// came before the connection closed), and the gates it never opened close.
TEST_F(SpawnerTest, ARunnerThatGoesLeavesOpenedGatesOpenAndClosesTheRest) {
  const pid_t opened = Start("echo ran > opened-ran", "opened");
  const pid_t closed = Start("echo ran > closed-ran", "closed");
  const pid_t shut = Start("echo ran > shut-ran", "shut");
  ASSERT_TRUE(opened > 0 && closed > 0 && shut > 0);
  spawner_->Open(opened);
  spawner_->Close(shut);
  spawner_.reset();
  EXPECT_EQ(ExitFile("opened"), "0\n");
  EXPECT_EQ(ExitFile("closed"), std::string(kNeverRan) + "\n");
  EXPECT_EQ(ExitFile("shut"), std::string(kNeverRan) + "\n");
  EXPECT_TRUE(fs::exists(Path("opened-ran")));
  EXPECT_FALSE(fs::exists(Path("closed-ran")));
  EXPECT_FALSE(fs::exists(Path("shut-ran")));
}

// The spawner ends once its runner has gone and its last child has ended, and not before.
TEST_F(SpawnerTest, EndsAfterItsRunnerAndItsLastChild) {
  const pid_t child = Start("echo $PPID > ppid; while [ ! -f release ]; do sleep 0.02; done", "c");
  ASSERT_GT(child, 0);
  spawner_->Open(child);
  ASSERT_TRUE(WaitFor([&] { return !ReadFile(Path("ppid")).empty(); }));
  const pid_t spawner = std::stoi(ReadFile(Path("ppid")));
  auto stat = ReadProcStat(spawner);
  ASSERT_TRUE(stat);
  spawner_.reset();
  std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(Alive(spawner));  // a child still runs: its exit file is still to write
  std::ofstream(Path("release")) << "";
  EXPECT_EQ(ExitFile("c"), "0\n");
  EXPECT_TRUE(WaitFor([&] {
    auto now = ReadProcStat(spawner);
    return !now || now->start_ticks != stat->start_ticks || now->state == 'Z';
  })) << "the spawner " << spawner << " is still running";
}

// What cannot start is said in the answer, and the spawner goes on serving.
TEST_F(SpawnerTest, AStartItCannotMakeIsRefusedWithTheReason) {
  SpawnerStart start;
  start.argv = {"true"};
  start.env = EnvironmentWith({});
  start.working_dir = dir_.path() + "/no-such-dir";
  start.log_path = log_;
  start.exit_file = Path("never");
  auto refused = spawner_->Start(start);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kExecution);
  EXPECT_NE(refused.status().message().find("no-such-dir: No such file or directory"),
            std::string::npos)
      << refused.status().message();
  const pid_t next = Start("exit 3", "next");
  ASSERT_GT(next, 0);
  spawner_->Open(next);
  EXPECT_EQ(ExitFile("next"), "3\n");
}

}  // namespace
}  // namespace hop::runtime
