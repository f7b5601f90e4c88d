#include "cli/logs_command.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli/follow_testing.h"
#include "resource/resource.h"
#include "session/control_plane.h"
#include "store/sqlite_store.h"
#include "test/lib/fixtures.h"

namespace hop::cli {
namespace {

const store::GroupKind kJob{"batch", "Job"};

class LogsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::SqliteStoreOptions opts;
    opts.durable = false;
    auto s = store::SqliteStore::Open(dir_, opts);
    ASSERT_TRUE(s.ok());
    store_ = std::move(s).value();
  }
  void TearDown() override {
    if (thread_.joinable()) Stop();
    store_.reset();
  }

  void CreateJob(const std::string& name) {
    auto r =
        resource::Resource::FromJson(Json{{"apiVersion", "batch/v1"},
                                          {"kind", "Job"},
                                          {"metadata", {{"name", name}, {"namespace", "default"}}},
                                          {"spec", Json::object()}},
                                     "test");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(store_->Create(std::move(r).value()).ok());
  }
  void Finish(const std::string& name, const char* condition) {
    auto job = store_->Get({kJob, "default", name});
    ASSERT_TRUE(job.ok());
    job->set_status(Json{{"conditions", Json::array({{{"type", condition}, {"status", "True"}}})}});
    ASSERT_TRUE(store_->UpdateStatus(std::move(job).value()).ok());
  }
  // Appends to the Job's log, as the runner does.
  void Append(const std::string& name, const std::string& text) {
    const std::filesystem::path path = session::ControlPlane::JobLogPath(dir_, "default", name);
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::app) << text;
  }

  void Start(const std::string& target) {
    thread_ = std::thread([this, target] {
      LogsOptions options;
      options.target = target;
      options.follow = true;
      rc_ = RunLogs(options, dir_, *store_, out_, err_, [this] { return stop_.load(); });
      done_ = true;
    });
  }
  int Stop() {
    stop_ = true;
    thread_.join();
    return rc_;
  }
  bool Shows(const std::string& what) {
    return testing::Eventually([&] { return shared_.Text().find(what) != std::string::npos; });
  }

  hop::testing::TempDir temp_{"hop-logs-test"};
  const std::string& dir_ = temp_.path();
  std::unique_ptr<store::SqliteStore> store_;
  testing::SharedOutput shared_;
  std::ostream out_{&shared_};
  std::ostringstream err_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> done_{false};
  std::thread thread_;
  int rc_ = -1;
};

// The log as the Job writes it, from before the log exists to the Job's end, when -f returns
// by itself.
TEST_F(LogsTest, FollowsAJobUntilItEnds) {
  CreateJob("work");
  Start("job/work");
  Append("work", "first\n");
  ASSERT_TRUE(Shows("first\n"));
  Append("work", "second\n");
  ASSERT_TRUE(Shows("first\nsecond\n"));
  EXPECT_FALSE(done_);
  Finish("work", "Complete");
  // What the runner appends just after recording the end is printed too.
  Append("work", "--- hop: attempt 1 exited with code 0\n");
  ASSERT_TRUE(testing::Eventually([&] { return done_.load(); }));
  EXPECT_FALSE(stop_);
  thread_.join();
  EXPECT_EQ(rc_, 0);
  EXPECT_EQ(shared_.Text(), "first\nsecond\n--- hop: attempt 1 exited with code 0\n");
  EXPECT_EQ(err_.str(), "");
}

TEST_F(LogsTest, FollowingStopsWhenAsked) {
  CreateJob("long");
  Append("long", "going\n");
  Start("long");
  ASSERT_TRUE(Shows("going\n"));
  EXPECT_EQ(Stop(), 0);
}

// A Job that ended, or is not in the store, has nothing more to print.
TEST_F(LogsTest, AnEndedJobPrintsItsLogAndReturns) {
  CreateJob("done");
  Append("done", "all\n");
  Finish("done", "Failed");
  std::ostringstream out, err;
  LogsOptions options{"job/done", "default", true};
  EXPECT_EQ(RunLogs(options, dir_, *store_, out, err), 0);
  EXPECT_EQ(out.str(), "all\n");
  options.target = "job/missing";
  EXPECT_EQ(RunLogs(options, dir_, *store_, out, err), 1);
  EXPECT_NE(err.str().find("no log for job default/missing"), std::string::npos) << err.str();
  // Another kind's objects have no logs, which is what the message says.
  std::ostringstream other;
  options.target = "view/done";
  EXPECT_EQ(RunLogs(options, dir_, *store_, out, other), 1);
  EXPECT_EQ(other.str(),
            "hop logs: view/done is not job/NAME or tabletrigger/NAME: only Jobs and triggers "
            "have logs\n");
}

// A trigger's runs: the one going as its log grows, then each new run's header and log.
TEST_F(LogsTest, FollowsATriggersRuns) {
  auto trigger = resource::Resource::FromJson(
      Json{{"apiVersion", "hoptimator.linkedin.com/v1alpha1"},
           {"kind", "TableTrigger"},
           {"metadata", {{"name", "report"}, {"namespace", "default"}}},
           {"spec", {{"schema", "ADS"}, {"table", "AD_CLICKS"}, {"yaml", "kind: Job"}}}},
      "test");
  ASSERT_TRUE(trigger.ok()) << trigger.status().ToString();
  auto stored = store_->Create(std::move(trigger).value());
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  const auto set_runs = [&](Json runs) {
    auto t = store_->Get(store::RefOf(*stored));
    ASSERT_TRUE(t.ok());
    t->set_status(Json{{"jobs", std::move(runs)}});
    ASSERT_TRUE(store_->UpdateStatus(std::move(t).value()).ok());
  };
  const Json first = {{"name", "report-1"}, {"namespace", "default"}, {"from", "a"}, {"to", "b"}};
  set_runs(Json::array({first}));
  Append("report-1", "one\n");
  Start("tabletrigger/report");
  ASSERT_TRUE(Shows("=== report-1: (a, b] Running\none\n"));
  Append("report-1", "two\n");
  ASSERT_TRUE(Shows("one\ntwo\n"));
  Json ended = first;
  ended["outcome"] = "Succeeded";
  const Json second = {{"name", "report-2"}, {"namespace", "default"}, {"from", "b"}, {"to", "c"}};
  set_runs(Json::array({ended, second}));
  Append("report-2", "three\n");
  ASSERT_TRUE(Shows("=== report-2: (b, c] Running\nthree\n"));
  EXPECT_EQ(Stop(), 0);
  EXPECT_EQ(shared_.Text(),
            "=== report-1: (a, b] Running\none\ntwo\n=== report-2: (b, c] Running\nthree\n");
}

}  // namespace
}  // namespace hop::cli
