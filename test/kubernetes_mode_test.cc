// hop's Kubernetes mode end to end, with real processes: a `hop serve --no-operator` stands in for
// the cluster (its Kubernetes API, garbage collection, and the Job controller and kubelet that run
// Jobs), `hop operator` processes reconcile it through the API with leader election, and `hop
// --kubeconfig` runs the statements a user runs embedded (docs/kubernetes.md). The failover test
// kills the leading operator during a burst of fires and checks that the stand-by takes over within
// the lease's duration and that every fire ran exactly once.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/manifests_command.h"
#include "test/lib/fixtures.h"
#include "test/lib/hop_serve.h"
#include "test/lib/postgres_server.h"

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
  // Starts `hop operator` as replica `name`, with a short lease so that the tests do not wait;
  // `extra` goes after `operator`, `global` before it.
  void StartOperator(const std::string& name, std::vector<std::string> extra = {},
                     std::vector<std::string> global = {}) {
    std::vector<std::string> argv = {HOP_BINARY, "--kubeconfig", kubeconfig_};
    argv.insert(argv.end(), global.begin(), global.end());
    for (const char* a : {"operator", "--identity"}) argv.push_back(a);
    argv.push_back(name);
    for (const char* a :
         {"--lease-duration", "3", "--renew-deadline", "2", "--retry-period", "0.5"}) {
      argv.push_back(a);
    }
    argv.insert(argv.end(), extra.begin(), extra.end());
    const pid_t pid = SpawnLogged(argv, dir_->path() + "/" + name + ".log");
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
  // The Flink operator's and Strimzi's CRDs, so that the elements hop renders are validated as a
  // cluster validates them.
  for (const char* crd : {"flinkdeployment", "flinksessionjob", "kafkatopic"}) {
    Ok(std::string("apply -f ") + Source("test/crds/") + crd + ".yaml");
  }
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
  // The FlinkSessionJob passed its CRD's schema; one that does not is refused as a cluster
  // refuses it.
  EXPECT_TRUE(Contains(Ok("get flinksessionjobs"), "ads-database-audience"));
  std::ofstream(dir_->path() + "/bad.yaml") << R"(apiVersion: flink.apache.org/v1beta1
kind: FlinkSessionJob
metadata: {name: bad}
spec: {deploymentName: 42, job: {parallelism: many}}
)";
  auto [bad, bad_rc] = Hop("apply -f " + dir_->path() + "/bad.yaml");
  EXPECT_NE(bad_rc, 0);
  EXPECT_TRUE(Contains(bad, "spec.job.parallelism")) << bad;

  // The PostgreSQL protocol over the cluster's resources: hop serve reconciles nothing there.
  const std::string pg_log = dir_->path() + "/pg.log";
  const pid_t front = SpawnLogged(
      {HOP_BINARY, "--kubeconfig", kubeconfig_, "serve", "--pg-port", "0", "--http-port", "0"},
      pg_log);
  ASSERT_GT(front, 0);
  int pg_port = 0;
  ASSERT_TRUE(Eventually([&] {
    const std::string text = ReadFileText(pg_log);
    const size_t at = text.find("PostgreSQL protocol on 127.0.0.1:");
    if (at != std::string::npos) pg_port = std::atoi(text.c_str() + at + 33);
    return pg_port > 0;
  })) << ReadFileText(pg_log);
  auto [psql, psql_rc] = Shell("psql -X -A -t -h 127.0.0.1 -p " + std::to_string(pg_port) +
                               " -U hop -d hop -c 'SELECT name FROM \"k8s\".pipelines'");
  EXPECT_EQ(psql_rc, 0) << psql;
  EXPECT_TRUE(Contains(psql, "ads-audience")) << psql;
  EXPECT_TRUE(StopProcess(front, SIGTERM)) << ReadFileText(pg_log);
  EXPECT_TRUE(Contains(ReadFileText(pg_log), "hop operator reconciles them"));
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
  // From the kill on, a thread watches b's log, so that the time it took to lead does not count
  // the fires still being made meanwhile.
  std::atomic<bool> b_leads = false;
  std::chrono::steady_clock::duration took{};
  std::thread watcher;
  for (int i = 0; i < kFires; ++i) {
    Ok("-e 'FIRE MATERIALIZED VIEW ads.clicks'");
    if (i == kFires / 2) {
      ASSERT_TRUE(Leads("a"));
      StopProcess(operators_["a"], SIGKILL);
      operators_.erase("a");
      watcher = std::thread([&, killed = std::chrono::steady_clock::now()] {
        b_leads = Eventually([&] { return Leads("b"); }, 10s);
        took = std::chrono::steady_clock::now() - killed;
      });
    }
  }
  watcher.join();
  // The stand-by leads within the lease's duration (3 s) and a retry period or two.
  ASSERT_TRUE(b_leads) << OperatorLog("b");
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

// apply, get and delete act in -n's namespace, else the session's --namespace, else the
// kubeconfig context's, as kubectl does; a namespace or name that is not one is refused before
// any request.
TEST_F(KubernetesModeTest, NamespacesComeFromTheFlagsOrTheContextAndAreCheckedFirst) {
  std::string config = ReadFileText(kubeconfig_);
  const size_t at = config.find("namespace: default");
  ASSERT_NE(at, std::string::npos) << config;
  config.replace(at, std::string("namespace: default").size(), "namespace: team");
  const std::string team = dir_->path() + "/team-kubeconfig";
  std::ofstream(team) << config;
  std::ofstream(dir_->path() + "/maps.yaml") << R"(apiVersion: v1
kind: ConfigMap
metadata: {name: mine}
data: {a: b}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: theirs, namespace: other}
data: {a: b}
)";
  auto in_team = [&](const std::string& args) {
    return Shell(std::string(HOP_BINARY) + " --kubeconfig " + team + " " + args);
  };
  // The context's namespace takes the document that names none; the other keeps its own.
  auto [applied, applied_rc] = in_team("apply -f " + dir_->path() + "/maps.yaml");
  EXPECT_EQ(applied_rc, 0) << applied;
  const std::string all = Ok("get configmaps -A");
  EXPECT_TRUE(Contains(all, "team        mine")) << all;
  EXPECT_TRUE(Contains(all, "other       theirs")) << all;
  auto [listed, listed_rc] = in_team("get configmaps");
  EXPECT_EQ(listed_rc, 0);
  EXPECT_TRUE(Contains(listed, "mine") && !Contains(listed, "theirs")) << listed;
  // --namespace before the command is -n, and enforced as -n is.
  const std::string other = Ok("--namespace other get configmaps");
  EXPECT_TRUE(Contains(other, "theirs") && !Contains(other, "mine")) << other;
  auto [mismatch, mismatch_rc] = Hop("--namespace team apply -f " + dir_->path() + "/maps.yaml");
  EXPECT_EQ(mismatch_rc, 1);
  EXPECT_TRUE(Contains(mismatch, "other does not match the namespace given")) << mismatch;
  auto [deleted, deleted_rc] = in_team("delete configmap mine");
  EXPECT_EQ(deleted_rc, 0) << deleted;
  EXPECT_FALSE(Contains(Ok("get configmaps -A"), "mine"));

  for (const std::string ns : {"'../../api'", "a/b", "UPPER"}) {
    auto [out, rc] = Hop("get views -n " + ns);
    EXPECT_EQ(rc, 2) << ns;
    EXPECT_TRUE(Contains(out, "namespace: invalid DNS-1123 label")) << out;
  }
  // The commands with their own -n take --namespace and check it the same way.
  for (const std::string command :
       {"graph ADS.PAGE_VIEWS", "watermark set table/x", "refresh view/x"}) {
    auto [out, rc] = Hop("--namespace a/b " + command);
    EXPECT_EQ(rc, 2) << command;
    EXPECT_TRUE(Contains(out, "namespace: invalid DNS-1123 label \"a/b\"")) << out;
  }
  auto [named, named_rc] = Hop("get views 'a/../b'");
  EXPECT_EQ(named_rc, 1);
  EXPECT_TRUE(Contains(named, "invalid name \"a/../b\"")) << named;
}

// A materialized view in PostgreSQL is refreshed by a Job that runs `hop refresh` against the
// cluster, a table of a Database provisioned asynchronously is made by the operator's
// TableProvisionJob reconciler, and the RBAC of `hop manifests` allows exactly the requests the
// operator and a refresh make (their --request-report).
TEST_F(KubernetesModeTest, RefreshesAndProvisioningRunThroughTheClusterWithTheRbacTheyNeed) {
  hop::testing::PostgresServer pg;
  ASSERT_TRUE(pg.Start(/*tcp=*/true).ok());  // never a skip: ./scripts/setup installs it
  ASSERT_TRUE(pg.Exec("CREATE TABLE widgets (id integer PRIMARY KEY, name text NOT NULL);"
                      "INSERT INTO widgets VALUES (1, 'bolt'), (2, 'nut')")
                  .ok());
  const std::string url =
      "jdbc:postgresql://127.0.0.1:" + std::to_string(pg.port()) + "/postgres?user=postgres";
  std::ofstream(dir_->path() + "/pg.yaml") << R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: pg}
spec: {schema: PG, url: ')" + url + R"('}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: pgasync}
spec: {schema: PGASYNC, url: ')" + url + R"(', provisioning: async}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: logical}
spec: {schema: LOGICAL, url: 'jdbc:logical://nearline=kafka-database;offline=profile-database'}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: JobTemplate
metadata: {name: beam-template}
spec:
  yaml: |
    apiVersion: hoptimator.linkedin.com/v1alpha1
    kind: SqlJob
    metadata:
      name: {{name}}
    spec:
      dialect: FlinkBeam
      sql:
        - PLACEHOLDER
      configs:
        {{flink.app.type==BEAM}}
        fields: {{fieldMap}}
)";
  // Subscriptions whose pipelines render each kind of element the samples know: a
  // FlinkSessionJob, a SqlJob (Beam) and a KafkaTopic.
  // (The topic's partitions follow the column's name, so that a change of it changes the
  // KafkaTopic too.)
  auto subscriptions = [&](const std::string& column) {
    std::ofstream(dir_->path() + "/subs.yaml") << R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Subscription
metadata: {name: names}
spec: {database: ads-database, sql: 'SELECT )" + column +
                                                      R"( FROM profile.members'}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Subscription
metadata: {name: beam}
spec:
  database: ads-database
  sql: 'SELECT )" + column + R"( FROM profile.members'
  hints: {flink.app.type: BEAM}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Subscription
metadata: {name: topic}
spec:
  database: kafka-database
  sql: 'SELECT * FROM ads.page_views'
  hints: {kafka.partitions: ')" + std::to_string(column.size()) +
                                                      R"('}
)";
    return Ok("apply -f " + dir_->path() + "/subs.yaml");
  };
  Ok("apply -f " + dir_->path() + "/pg.yaml");
  subscriptions("first_name");
  const std::string report = dir_->path() + "/operator-requests.txt";
  StartOperator("a", {"--job-kubeconfig", kubeconfig_}, {"--request-report", report});
  ASSERT_TRUE(Eventually([&] { return Leads("a"); })) << OperatorLog("a");

  // The refresh: the operator starts its Job, the cluster runs it, the rows land in PostgreSQL
  // and the view's watermark moves.
  Ok("-e 'CREATE MATERIALIZED VIEW pg.names AS SELECT id * 10 AS id, name FROM pg.widgets' "
     "-e 'REFRESH MATERIALIZED VIEW pg.names' -e '!wait 60'");
  auto rows = pg.Exec("SELECT id, name FROM names ORDER BY id");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->rows.size(), 2u);
  EXPECT_EQ(rows->rows[1][0].value_or(""), "20");
  EXPECT_TRUE(Contains(Ok("get view pg-names -o yaml"), "watermark:"))
      << Ok("get view pg-names -o yaml") << OperatorLog("a");

  // Asynchronous provisioning: the operator makes the table.
  Ok("-e 'CREATE TABLE pgasync.later (id INT, note VARCHAR)' -e '!wait 60'");
  auto made = pg.Exec("SELECT count(*) FROM information_schema.tables WHERE table_name = 'later'");
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(made->rows.at(0).at(0).value_or(""), "1") << Ok("get tableprovisionjobs -o yaml");

  // Each Subscription became a materialized view, with its elements; a changed one changes them.
  EXPECT_TRUE(Eventually([&] {
    const std::string views = Ok("get views");
    return Contains(views, "ads-names") && Contains(views, "ads-beam") &&
           Contains(views, "kafka-topic");
  })) << Ok("get views")
      << Ok("get subscriptions -o yaml") << OperatorLog("a");
  EXPECT_TRUE(Contains(Ok("get sqljobs"), "beam"));
  subscriptions("last_name");
  EXPECT_TRUE(Eventually([&] {
    return Contains(Ok("get pipelines ads-names -o yaml"), "LAST_NAME");
  })) << Ok("get pipelines ads-names -o yaml");

  // A producer advances a table's watermark: the operator fires the table's trigger.
  Ok("-e 'CREATE TABLE pg.events (id INT)' "
     "-e \"CREATE TRIGGER on_events ON pg.events AS 'audience-report'\"");
  Ok("watermark set table/pg-events");
  Ok("-e '!wait 60'");
  EXPECT_TRUE(Contains(Ok("-e 'SELECT \"TRIGGER\", outcome FROM \"k8s\".trigger_runs'"),
                       "onevents | Succeeded"));

  // A table made by CREATE TABLE ... AS is filled by a Job of the same kind.
  Ok("-e 'CREATE TABLE pg.copied AS SELECT id FROM pg.widgets' -e '!wait 60'");
  auto copied = pg.Exec("SELECT count(*) FROM copied");
  ASSERT_TRUE(copied.ok()) << copied.status().ToString();
  EXPECT_EQ(copied->rows.at(0).at(0).value_or(""), "2");

  // What a refresh Job's `hop refresh` asks of the API, run here the same way, for a view and
  // for a table.
  const std::string refresh_report = dir_->path() + "/refresh-requests.txt";
  const std::string fill_report = dir_->path() + "/fill-requests.txt";
  Ok("--request-report " + refresh_report + " refresh view/pg-names");
  Ok("--request-report " + fill_report + " refresh table/pg-copied");

  // A trigger's run, then everything dropped: the operator deletes finished Jobs.
  Ok("-e \"CREATE TRIGGER names_report ON pg.names AS 'audience-report'\" "
     "-e 'REFRESH MATERIALIZED VIEW pg.names' -e '!wait 60'");
  Ok("-e 'DROP TRIGGER names_report' -e 'DROP MATERIALIZED VIEW pg.names' "
     "-e 'DROP TABLE pgasync.later' -e 'DROP TRIGGER on_events' -e 'DROP TABLE pg.events' "
     "-e 'DROP TABLE pg.copied'");
  ASSERT_TRUE(StopProcess(operators_["a"], SIGTERM)) << OperatorLog("a");
  operators_.erase("a");

  // What the operator asked of the API is what its RBAC grants, no more and no less.
  auto granted = [](const std::vector<hop::cli::RbacRule>& rules) {
    std::set<std::string> out;
    for (const hop::cli::RbacRule& rule : rules) {
      for (const std::string& verb : rule.verbs) {
        out.insert(verb + "\t" + rule.api_group + "\t" + rule.resource);
      }
    }
    return out;
  };
  auto used = [&](const std::vector<std::string>& files) {
    std::set<std::string> out;
    for (const std::string& file : files) {
      std::istringstream lines(ReadFileText(file));
      for (std::string line; std::getline(lines, line);) out.insert(line);
      EXPECT_FALSE(lines.str().empty()) << "no " << file;
    }
    return out;
  };
  auto expect_same = [](const std::set<std::string>& used, const std::set<std::string>& granted,
                        const char* who) {
    for (const std::string& u : used)
      EXPECT_TRUE(granted.count(u)) << who << " used, not granted: " << u;
    for (const std::string& g : granted)
      EXPECT_TRUE(used.count(g)) << who << " granted, not used: " << g;
  };
  expect_same(used({report}), granted(hop::cli::OperatorRbacRules()), "the operator");
  expect_same(used({refresh_report, fill_report}), granted(hop::cli::RefreshRbacRules()),
              "a refresh");
}

// A state directory's resources move to the cluster and back with hop export and hop import, and
// the operator takes them up there.
TEST_F(KubernetesModeTest, ResourcesMoveBetweenAStateDirectoryAndTheCluster) {
  const std::string embedded = dir_->path() + "/embedded";
  const std::string hop = std::string(HOP_BINARY);
  auto [made, made_rc] =
      Shell(hop + " --state " + embedded + " apply -f " + Source("examples/demo-environment.yaml") +
            " && " + hop + " --state " + embedded +
            " -e 'CREATE MATERIALIZED VIEW ads.visitors AS SELECT * FROM ads.page_views'"
            " -e \"CREATE TRIGGER visitors_report ON ads.visitors AS 'audience-report'\"");
  ASSERT_EQ(made_rc, 0) << made;
  auto [moved, moved_rc] = Shell(hop + " --state " + embedded + " export | " + hop +
                                 " --kubeconfig " + kubeconfig_ + " import -f -");
  ASSERT_EQ(moved_rc, 0) << moved;
  EXPECT_TRUE(Contains(moved, "View.hoptimator.linkedin.com/default/ads-visitors created"))
      << moved;
  // Owners found by name: the cluster's Pipeline is owned by the cluster's View.
  const std::string pipeline = Ok("get pipeline ads-visitors -o yaml");
  const std::string view = Ok("get view ads-visitors -o yaml");
  const size_t uid_at = view.find("uid: ");
  ASSERT_NE(uid_at, std::string::npos);
  EXPECT_TRUE(Contains(pipeline, view.substr(uid_at, 41))) << pipeline << view;

  // The operator takes it up: a fire runs the trigger's Job on the cluster.
  StartOperator("a");
  ASSERT_TRUE(Eventually([&] { return Leads("a"); })) << OperatorLog("a");
  Ok("-e 'FIRE MATERIALIZED VIEW ads.visitors' -e '!wait 60'");
  EXPECT_TRUE(Contains(Ok("-e 'SELECT outcome FROM \"k8s\".trigger_runs'"), "Succeeded"));

  // And back into a fresh state directory, the run recorded in the trigger's status with it.
  const std::string back = dir_->path() + "/back";
  auto [returned, returned_rc] = Shell(hop + " --kubeconfig " + kubeconfig_ + " export | " + hop +
                                       " --state " + back + " import -f -");
  ASSERT_EQ(returned_rc, 0) << returned;
  auto [runs, runs_rc] =
      Shell(hop + " --state " + back + " -e 'SELECT outcome FROM \"k8s\".trigger_runs'");
  EXPECT_EQ(runs_rc, 0) << runs;
  EXPECT_TRUE(Contains(runs, "Succeeded")) << runs;
}

}  // namespace
