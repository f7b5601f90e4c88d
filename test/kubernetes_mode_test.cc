// hop's Kubernetes mode end to end, with real processes: a `hop serve --no-operator` stands in for
// the cluster (its Kubernetes API, garbage collection, and the Job controller and kubelet that run
// Jobs), `hop operator` processes reconcile it through the API with leader election, and `hop
// --kubeconfig` runs the statements a user runs embedded (docs/kubernetes.md). The failover test
// kills the leading operator during a burst of fires and checks that the stand-by takes over within
// the lease's duration and that every fire ran exactly once.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test/lib/fixtures.h"
#include "test/lib/hop_serve.h"

namespace {

using namespace std::chrono_literals;
using hop::testing::Eventually;
using hop::testing::HopServe;
using hop::testing::ReadFileText;
using hop::testing::Shell;
using hop::testing::SpawnLogged;
using hop::testing::StopProcess;
using hop::testing::TempDir;

std::string Source(const std::string& rel) { return std::string(HOP_SOURCE_DIR) + "/" + rel; }

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class KubernetesModeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::make_unique<TempDir>("hop-k8s-mode");
    kubeconfig_ = dir_->path() + "/kubeconfig";
    cluster_ = std::make_unique<HopServe>(
        HOP_BINARY, dir_->path() + "/cluster",
        std::vector<std::string>{"--no-operator", "--kubeconfig-out", kubeconfig_});
    ASSERT_TRUE(cluster_->Start()) << cluster_->log();
    ASSERT_TRUE(Eventually([&] { return !ReadFileText(kubeconfig_).empty(); })) << cluster_->log();
    auto [out, rc] = Hop("apply -f " + Source("examples/demo-environment.yaml"));
    ASSERT_EQ(rc, 0) << out;
  }
  void TearDown() override {
    for (auto& [name, pid] : operators_) StopProcess(pid, SIGTERM);
    if (cluster_) cluster_->Stop();
  }

  // `hop --kubeconfig KC ARGS`, through a shell (ARGS are the test's own, quoted by it).
  std::pair<std::string, int> Hop(const std::string& args) {
    return Shell(std::string(HOP_BINARY) + " --kubeconfig " + kubeconfig_ + " " + args);
  }
  std::string Ok(const std::string& args) {
    auto [out, rc] = Hop(args);
    EXPECT_EQ(rc, 0) << "hop " << args << "\n" << out;
    return out;
  }

  std::string OperatorLog(const std::string& name) {
    return ReadFileText(dir_->path() + "/" + name + ".log");
  }
  // Starts `hop operator` as replica `name`, with a short lease so that the tests do not wait.
  void StartOperator(const std::string& name) {
    const pid_t pid =
        SpawnLogged({HOP_BINARY, "--kubeconfig", kubeconfig_, "operator", "--identity", name,
                     "--lease-duration", "3", "--renew-deadline", "2", "--retry-period", "0.5"},
                    dir_->path() + "/" + name + ".log");
    ASSERT_GT(pid, 0);
    operators_[name] = pid;
  }
  bool Leads(const std::string& name) { return Contains(OperatorLog(name), "leading as " + name); }

  std::unique_ptr<TempDir> dir_;
  std::string kubeconfig_;
  std::unique_ptr<HopServe> cluster_;
  std::map<std::string, pid_t> operators_;
};

TEST_F(KubernetesModeTest, TheStatementsOfTheEmbeddedModeWorkAgainstTheCluster) {
  StartOperator("a");
  ASSERT_TRUE(Eventually([&] { return Leads("a"); })) << OperatorLog("a");

  // Queries over the demo databases read what the cluster's Databases say.
  EXPECT_TRUE(Contains(Ok("-e 'SELECT first_name FROM profile.members ORDER BY 1'"), "Charlie"));
  // A materialized view: the View, Pipeline and element go to the cluster as custom resources.
  std::string out =
      Ok("-e 'CREATE MATERIALIZED VIEW ads.audience AS SELECT first_name, last_name "
         "FROM ads.page_views NATURAL JOIN profile.members'");
  EXPECT_TRUE(Contains(out,
                       "view/ads-audience, pipeline/ads-audience, "
                       "flinksessionjob/ads-database-audience created"))
      << out;
  EXPECT_TRUE(Contains(Ok("get views"), "ads-audience"));
  // Nothing runs Flink here: the operator says the pipeline waits for its element, not that it is
  // ready.
  EXPECT_TRUE(Eventually([&] {
    return Contains(Ok("get pipelines"), "Deployed: waiting for flinksessionjob");
  })) << Ok("get pipelines -o yaml");

  // A trigger on the view: FIRE advances the view's watermark, the operator starts the trigger's
  // Job through the API, the cluster runs it, and the run is recorded.
  Ok("-e \"CREATE TRIGGER audience_report ON ads.audience AS 'audience-report'\"");
  Ok("-e 'FIRE MATERIALIZED VIEW ads.audience' -e '!wait 60'");
  out = Ok("-e 'SELECT \"TRIGGER\", outcome FROM \"k8s\".trigger_runs'");
  EXPECT_TRUE(Contains(out, "audiencereport | Succeeded")) << out;

  // What only one machine can hold is refused, saying why.
  auto [local, local_rc] = Hop("-e 'CREATE TABLE local.notes (id INT)'");
  EXPECT_NE(local_rc, 0);
  EXPECT_TRUE(Contains(local, "a session on a Kubernetes cluster has none")) << local;
  auto [logs, logs_rc] = Hop("logs tabletrigger/audiencereport");
  EXPECT_EQ(logs_rc, 2);
  EXPECT_TRUE(Contains(logs, "kubectl logs")) << logs;

  // Dropping goes through the cluster, whose garbage collector takes what the view owned.
  Ok("-e 'DROP TRIGGER audience_report' -e 'DROP MATERIALIZED VIEW ads.audience'");
  EXPECT_TRUE(Eventually([&] {
    auto [pipelines, rc] = Hop("get pipelines");
    return rc == 0 && !Contains(pipelines, "ads-audience");
  })) << Ok("get pipelines");
}

TEST_F(KubernetesModeTest, AStandByTakesOverFromAKilledLeaderAndEveryFireRunsOnce) {
  // Each fire gets its own run, whose Job appends the fire's time to a file after a moment, so
  // that runs are going when the leader dies.
  const std::string runs = dir_->path() + "/runs.txt";
  std::ofstream(dir_->path() + "/append.yaml") << R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: JobTemplate
metadata: {name: append-fire}
spec:
  yaml: |
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: {{trigger}}-append
    spec:
      template:
        spec:
          containers:
          - name: append
            image: busybox
            command:
            - sh
            - -c
            - sleep 0.1; echo {{timestamp shellQuote}} >> )" +
                                                      runs + R"(
          restartPolicy: Never
)";
  Ok("apply -f " + dir_->path() + "/append.yaml");
  StartOperator("a");
  ASSERT_TRUE(Eventually([&] { return Leads("a"); })) << OperatorLog("a");
  StartOperator("b");
  ASSERT_TRUE(Eventually([&] { return Contains(OperatorLog("b"), "a leads"); }))
      << OperatorLog("b");
  Ok("-e 'CREATE MATERIALIZED VIEW ads.clicks AS SELECT * FROM ads.ad_clicks' "
     "-e \"CREATE TRIGGER appender ON ads.clicks AS 'append-fire' WITH (firePolicy 'Each')\"");

  constexpr int kFires = 12;
  std::chrono::steady_clock::time_point killed;
  for (int i = 0; i < kFires; ++i) {
    Ok("-e 'FIRE MATERIALIZED VIEW ads.clicks'");
    if (i == kFires / 2) {
      ASSERT_TRUE(Leads("a"));
      StopProcess(operators_["a"], SIGKILL);
      operators_.erase("a");
      killed = std::chrono::steady_clock::now();
    }
  }
  // The stand-by leads within the lease's duration (3 s) and a retry period or two.
  ASSERT_TRUE(Eventually([&] { return Leads("b"); }, 10s)) << OperatorLog("b");
  const auto took = std::chrono::steady_clock::now() - killed;
  EXPECT_LT(took, 6s);

  ASSERT_TRUE(Eventually(
      [&] {
        const std::string text = ReadFileText(runs);
        return std::count(text.begin(), text.end(), '\n') >= kFires;
      },
      90s))
      << ReadFileText(runs) << OperatorLog("b") << Ok("get tabletriggers appender -o yaml");
  Ok("-e '!wait 60'");
  // Every fire once: as many distinct times as fires, none twice, and every run recorded as
  // succeeded.
  std::istringstream lines(ReadFileText(runs));
  std::vector<std::string> times;
  for (std::string line; std::getline(lines, line);) times.push_back(line);
  std::set<std::string> distinct(times.begin(), times.end());
  EXPECT_EQ(times.size(), static_cast<size_t>(kFires)) << ReadFileText(runs);
  EXPECT_EQ(distinct.size(), times.size()) << ReadFileText(runs);
  const std::string recorded =
      Ok("-e 'SELECT outcome, COUNT(*) AS n FROM \"k8s\".trigger_runs "
         "GROUP BY outcome'");
  EXPECT_TRUE(Contains(recorded, "Succeeded | " + std::to_string(kFires))) << recorded;
  EXPECT_FALSE(Contains(recorded, "Failed")) << recorded;
}

}  // namespace
