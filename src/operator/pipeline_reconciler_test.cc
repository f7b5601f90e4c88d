// The Pipeline reconciler: how elements and pipelines are estimated, table-driven, and the
// reconciler against a real store.
#include "operator/pipeline_reconciler.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "operator/reconciler_test_fixture.h"
#include "resource/kinds.h"
#include "store/sqlite_store.h"
#include "test/lib/fixtures.h"

namespace hop::op {
namespace {

using hop::testing::TempDir;
using resource::Resource;

// An element of `kind` ("apiVersion/Kind") with the status of the YAML `status` ("" for none), or
// none at all for "-".
std::optional<Resource> Element(const std::string& kind, const std::string& status) {
  if (status == "-") return std::nullopt;
  const size_t slash = kind.rfind('/');
  std::string yaml = "apiVersion: " + kind.substr(0, slash) + "\nkind: " + kind.substr(slash + 1) +
                     "\nmetadata: {name: e}\n";
  if (!status.empty()) yaml += "status: " + status + "\n";
  return Parse(yaml);
}

// The embedded control plane's rules with local Jobs on (session/control_plane.cc).
PipelineRules EmbeddedRules() {
  using Reports = ControlledKind::Reports;
  PipelineRules rules;
  rules.controlled = {
      {{"hoptimator.linkedin.com", "TableTrigger"}, Reports::kStanding},
      {{"hoptimator.linkedin.com", "View"}, Reports::kStanding},
      {{"hoptimator.linkedin.com", "Pipeline"}, Reports::kStatus},
      {{"hoptimator.linkedin.com", "TableProvisionJob"}, Reports::kStatus},
      {{"batch", "Job"}, Reports::kStatus},
  };
  return rules;
}

// On a cluster (hop operator) the elements' own controllers report (docs/kubernetes.md,
// "Readiness"): Kubernetes' Job controller, the Flink operator, Strimzi. An element none of them
// has reported on yet is pending, not ready.
TEST(PipelineStateTest, OnAClusterEachKindIsReadAsItsControllerReports) {
  struct Case {
    const char* kind;
    const char* status;
    bool ready, failed;
    const char* message;
  };
  const Case kCases[] = {
      {"kafka.strimzi.io/v1beta2/KafkaTopic", "", false, false, "not reconciled yet"},
      {"kafka.strimzi.io/v1beta2/KafkaTopic",
       "{conditions: [{type: Ready, status: 'True'}], observedGeneration: 1}", true, false, ""},
      {"kafka.strimzi.io/v1beta2/KafkaTopic",
       "{conditions: [{type: Ready, status: 'False', reason: KafkaError, message: 'no brokers'}]}",
       false, false, "no brokers"},
      {"kafka.strimzi.io/v1beta2/KafkaTopic",
       "{conditions: [{type: NotReady, status: 'True', reason: InvalidConfig}]}", false, false,
       "InvalidConfig"},
      {"flink.apache.org/v1beta1/FlinkSessionJob", "", false, false, "not reconciled yet"},
      {"flink.apache.org/v1beta1/FlinkSessionJob", "{jobStatus: {state: RUNNING}}", true, false,
       "state RUNNING"},
      {"flink.apache.org/v1beta1/FlinkDeployment", "{jobManagerDeploymentStatus: READY}", true,
       false, "state READY"},
      {"flink.apache.org/v1beta1/FlinkDeployment", "{jobManagerDeploymentStatus: ERROR}", false,
       true, "state ERROR"},
      {"batch/v1/Job", "{conditions: [{type: Complete, status: 'True'}]}", true, false, ""},
      {"batch/v1/Job", "{active: 1}", false, false, "in progress"},
      {"batch/v1/Job", "{conditions: [{type: Failed, status: 'True', reason: DeadlineExceeded}]}",
       false, true, "DeadlineExceeded"},
      // The reference's readings of a status, whatever the kind.
      {"flink.apache.org/v1beta1/FlinkSessionJob", "{ready: false, failed: true, message: broken}",
       false, true, "broken"},
      {"flink.apache.org/v1beta1/FlinkSessionJob", "{state: Finished}", true, false,
       "state Finished"},
      {"flink.apache.org/v1beta1/FlinkSessionJob", "{jobStatus: {state: CRASHLOOPBACKOFF}}", false,
       true, "state CRASHLOOPBACKOFF"},
      {"flink.apache.org/v1beta1/FlinkSessionJob", "{state: DEPLOYING}", false, false,
       "state DEPLOYING"},
  };
  PipelineRules rules = EmbeddedRules();
  using Reports = ControlledKind::Reports;
  for (const char* k : {"FlinkSessionJob", "FlinkDeployment"}) {
    rules.controlled.push_back({{"flink.apache.org", k}, Reports::kStatus});
  }
  rules.controlled.push_back({{"kafka.strimzi.io", "KafkaTopic"}, Reports::kStatus});
  for (const Case& c : kCases) {
    const std::string what = std::string(c.kind) + " " + c.status;
    ElementState s = EstimateElement(Element(c.kind, c.status), rules);
    EXPECT_EQ(s.ready, c.ready) << what;
    EXPECT_EQ(s.failed, c.failed) << what;
    EXPECT_EQ(s.message, c.message) << what;
    EXPECT_EQ(s.uncontrolled_kind, "") << what;
  }
}

// In the embedded mode only something that reports makes an element ready: its status, or, for a
// standing kind of this control plane (a TableTrigger), its controller being here.
TEST(PipelineStateTest, AnElementNothingHereActsOnIsPending) {
  struct Case {
    const char* kind;
    const char* status;  // as above
    bool ready, failed;
    const char* message;
    const char* uncontrolled;
  };
  const Case kCases[] = {
      {"flink.apache.org/v1beta1/FlinkSessionJob", "", false, false,
       "no controller for FlinkSessionJob in this control plane", "FlinkSessionJob"},
      {"kafka.strimzi.io/v1beta2/KafkaTopic", "{}", false, false,
       "no controller for KafkaTopic in this control plane", "KafkaTopic"},
      {"kafka.strimzi.io/v1beta2/KafkaTopic", "{observedGeneration: 1}", false, false,
       "no controller for KafkaTopic in this control plane", "KafkaTopic"},
      // Something outside this process reported on it.
      {"flink.apache.org/v1beta1/FlinkSessionJob", "{jobStatus: {state: RUNNING}}", true, false,
       "state RUNNING", ""},
      {"flink.apache.org/v1beta1/FlinkSessionJob", "{jobStatus: {state: FAILED}}", false, true,
       "state FAILED", ""},
      {"flink.apache.org/v1beta1/FlinkSessionJob", "-", false, false, "not found", ""},
      // Ours, reporting through their status.
      {"batch/v1/Job", "", false, false, "not reconciled yet", ""},
      {"batch/v1/Job", "{startTime: '2026-01-01T00:00:00Z', active: 1}", false, false,
       "in progress", ""},
      {"batch/v1/Job", "{conditions: [{type: Complete, status: 'True'}]}", true, false, "", ""},
      {"hoptimator.linkedin.com/v1alpha1/TableProvisionJob", "", false, false, "not reconciled yet",
       ""},
      {"hoptimator.linkedin.com/v1alpha1/TableProvisionJob",
       "{ready: false, failed: false, message: 'No local provisioner'}", false, false,
       "No local provisioner", ""},
      // Ours, standing: in force while its controller reports no problem.
      {"hoptimator.linkedin.com/v1alpha1/TableTrigger", "", true, false, "", ""},
      {"hoptimator.linkedin.com/v1alpha1/TableTrigger",
       "{timestamp: '2026-01-01T00:00:00.000Z', watermark: '2026-01-01T00:00:00.000Z'}", true,
       false, "", ""},
      {"hoptimator.linkedin.com/v1alpha1/TableTrigger", "{message: 'Run x failed: exit 1'}", false,
       false, "Run x failed: exit 1", ""},
  };
  const PipelineRules rules = EmbeddedRules();
  for (const Case& c : kCases) {
    const std::string what = std::string(c.kind) + " " + c.status;
    ElementState s = EstimateElement(Element(c.kind, c.status), rules);
    EXPECT_EQ(s.ready, c.ready) << what;
    EXPECT_EQ(s.failed, c.failed) << what;
    EXPECT_EQ(s.message, c.message) << what;
    EXPECT_EQ(s.uncontrolled_kind, c.uncontrolled) << what;
  }
  // A Job is ours only when the control plane runs Jobs.
  PipelineRules no_local_jobs = rules;
  no_local_jobs.controlled.pop_back();
  EXPECT_EQ(EstimateElement(Element("batch/v1/Job", ""), no_local_jobs).message,
            "no controller for Job in this control plane");
}

TEST(PipelineStateTest, AnyFailedElementFailsThePipelineAndIsNamed) {
  ElementState ready{true, false, "", ""};
  ElementState deploying{false, false, "", ""};
  ElementState failed{false, true, "state FAILED", ""};
  ElementState pending{false, false, "not reconciled yet", ""};
  ElementState flink{false, false, "no controller for FlinkSessionJob in this control plane",
                     "FlinkSessionJob"};
  ElementState kafka{false, false, "no controller for KafkaTopic in this control plane",
                     "KafkaTopic"};
  EXPECT_EQ(SummarizePipeline({{"kafkatopic/a", ready}, {"flinksessionjob/b", ready}}).message,
            "Ready.");
  EXPECT_TRUE(SummarizePipeline({{"kafkatopic/a", ready}}).ready);
  EXPECT_EQ(SummarizePipeline({{"kafkatopic/a", ready}, {"flinksessionjob/b", deploying}}).message,
            "Deployed: waiting for flinksessionjob/b");
  EXPECT_EQ(SummarizePipeline({{"job/a", pending}, {"job/b", deploying}}).message,
            "Deployed: waiting for job/a: not reconciled yet (and 1 more)");
  PipelineState p = SummarizePipeline(
      {{"kafkatopic/a", ready}, {"flinksessionjob/b", failed}, {"sqljob/c", deploying}});
  EXPECT_TRUE(p.failed);
  EXPECT_FALSE(p.ready);
  EXPECT_EQ(p.message, "Failed: flinksessionjob/b: state FAILED");
  // Elements nothing here acts on are named by kind, before those on their way.
  p = SummarizePipeline({{"job/a", pending},
                         {"kafkatopic/t", kafka},
                         {"flinksessionjob/b", flink},
                         {"kafkatopic/u", kafka}});
  EXPECT_FALSE(p.ready);
  EXPECT_FALSE(p.failed);
  EXPECT_EQ(p.message,
            "Pending: no controller for KafkaTopic, FlinkSessionJob in this control plane");
  EXPECT_TRUE(SummarizePipeline({{"flinksessionjob/b", flink}, {"job/x", failed}}).failed);
}

// A pipeline of a Flink job and a trigger, as the demo's templates render them: in the embedded
// mode nothing runs the Flink job, and the Pipeline says so rather than that it is ready.
TEST_F(ReconcilerStoreTest, APipelineIsReadyOnlyWhenSomethingConfirmedEveryElement) {
  const std::string flink =
      "apiVersion: flink.apache.org/v1beta1\nkind: FlinkSessionJob\nmetadata: {name: job}\n"
      "spec: {deploymentName: basic-session-deployment}";
  const std::string trigger =
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: TableTrigger\nmetadata: {name: t}\n"
      "spec: {schema: ADS, table: T, yaml: 'x'}";
  Create(flink + "\n");
  Create(trigger + "\n");
  Json pipeline_doc = {{"apiVersion", "hoptimator.linkedin.com/v1alpha1"},
                       {"kind", "Pipeline"},
                       {"metadata", {{"name", "p"}, {"namespace", "default"}}},
                       {"spec", {{"sql", "x"}, {"yaml", flink + "\n---\n" + trigger}}}};
  Resource pipeline = *store_->Create(*Resource::FromJson(pipeline_doc, "test"));
  const PipelineRules embedded = EmbeddedRules();
  PipelineReconciler reconciler(*store_, embedded);
  auto result = reconciler.Reconcile({store::RefOf(pipeline)}, Context());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  // Nothing here acts on the Flink job: only its change (an event) can move the pipeline, so it
  // is not polled.
  EXPECT_FALSE(result->requeue_after.has_value());
  auto got = store_->Get(store::RefOf(pipeline));
  EXPECT_EQ(got->status()->at("ready"), false);
  EXPECT_EQ(got->status()->at("failed"), false);
  EXPECT_EQ(got->status()->at("message"),
            "Pending: no controller for FlinkSessionJob in this control plane");
  // What was found of each element, in order ("k8s".PIPELINE_ELEMENTS shows it).
  EXPECT_EQ(got->status()->at("elements"),
            Json::parse(R"([{"name": "FlinkSessionJob/job", "ready": false, "failed": false,
                             "message": "no controller for FlinkSessionJob in this control plane"},
                            {"name": "TableTrigger/t", "ready": true, "failed": false,
                             "message": ""}])"));

  // Once something reports on the Flink job (a Flink operator, on a cluster), the pipeline is
  // ready.
  Resource job = *store_->Get({{"flink.apache.org", "FlinkSessionJob"}, "default", "job"});
  job.set_status(Json{{"jobStatus", {{"state", "RUNNING"}}}});
  ASSERT_TRUE(store_->UpdateStatus(job).ok());
  result = reconciler.Reconcile({store::RefOf(pipeline)}, Context());
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->requeue_after.has_value());
  got = store_->Get(store::RefOf(pipeline));
  EXPECT_EQ(got->status()->at("ready"), true);
  EXPECT_EQ(got->status()->at("message"), "Ready.");

  // An element this control plane works on (a Job not run yet): looked at again in a while.
  Create("apiVersion: batch/v1\nkind: Job\nmetadata: {name: run}\nspec: {}\n");
  Json waiting_doc = pipeline_doc;
  waiting_doc["metadata"]["name"] = "waiting";
  waiting_doc["spec"]["yaml"] = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: run}\n";
  Resource waiting = *store_->Create(*Resource::FromJson(waiting_doc, "test"));
  result = reconciler.Reconcile({store::RefOf(waiting)}, Context());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE(result->requeue_after.has_value());
  EXPECT_EQ(store_->Get(store::RefOf(waiting))->status()->at("message"),
            "Deployed: waiting for job/run: not reconciled yet");
  // Its elements are read from the spec as it is now (a replaced statement's new ones).
  Resource changed = *store_->Get(store::RefOf(waiting));
  changed.mutable_json()["spec"]["yaml"] = flink;
  ASSERT_TRUE(store_->Update(changed).ok());
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(waiting)}, Context()).ok());
  EXPECT_EQ(store_->Get(store::RefOf(waiting))->status()->at("elements")[0].at("name"),
            "FlinkSessionJob/job");
}

// A Pipeline's status is derived from its elements', which are stored: its write is reported
// once written (Store::CommitLazily), and the reconcile does not wait for an fsync of its own,
// which would be one more a statement (docs/store.md, "Writing and syncing").
TEST(PipelineReconcilerDurabilityTest, ItsStatusWriteWaitsForNoFsync) {
  TempDir dir;
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  int syncs = 0;
  store::SqliteStoreOptions opts;
  opts.sync_wal = [&](int fd) {
    std::unique_lock<std::mutex> lock(mu);
    ++syncs;
    cv.wait(lock, [&] { return release; });  // every fsync waits for the test's word
    return ::fdatasync(fd);
  };
  auto opened = store::SqliteStore::Open(dir.path(), opts);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  store::SqliteStore& store = **opened;
  Json pipeline_doc = {{"apiVersion", "hoptimator.linkedin.com/v1alpha1"},
                       {"kind", "Pipeline"},
                       {"metadata", {{"name", "p"}, {"namespace", "default"}}},
                       {"spec",
                        {{"sql", "x"},
                         {"yaml",
                          "apiVersion: flink.apache.org/v1beta1\nkind: FlinkSessionJob\n"
                          "metadata: {name: job}\n"}}}};
  int64_t mark = 0;
  auto created =
      store.CommitWritten({store::Write::Create(*Resource::FromJson(pipeline_doc, "test"))}, &mark);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const PipelineRules embedded = EmbeddedRules();
  PipelineReconciler reconciler(store, embedded);
  std::promise<hop::Result<ReconcileResult>> done;
  std::thread reconcile([&] {
    done.set_value(
        reconciler.Reconcile({store::RefOf(created->front())}, {"r-test", &SystemClock()}));
  });
  auto result = done.get_future();
  // It returns with every fsync held.
  const bool returned = result.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_all();
  reconcile.join();
  ASSERT_TRUE(returned) << "the reconcile waited for an fsync";
  ASSERT_TRUE(result.get().ok());
  auto got = store.Get(store::RefOf(created->front()));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->status()->at("message"), "Deployed: waiting for flinksessionjob/job: not found");
  // Sync makes it durable.
  EXPECT_TRUE(store.Sync().ok());
  // The event of that write is its own, once (Reconciler::OwnWrite); another is not.
  store::Event event{store::EventType::kModified, 0, *got};
  EXPECT_FALSE(reconciler.OwnWrite({store::EventType::kAdded, 0, *got}));
  EXPECT_TRUE(reconciler.OwnWrite(event));
  EXPECT_FALSE(reconciler.OwnWrite(event));
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(*got)}, {"r-test", &SystemClock()}).ok());
  EXPECT_FALSE(reconciler.OwnWrite(event));  // nothing changed: nothing written
}

}  // namespace
}  // namespace hop::op
