// The View, Pipeline and TableProvisionJob reconcilers: the pure parts table-driven, the rest
// against a real store.
#include "operator/view_reconciler.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "deploy/trigger_fires.h"
#include "operator/subscription_reconciler.h"
#include "resource/kinds.h"
#include "resource/yaml.h"
#include "store/sqlite_store.h"

namespace hop::op {
namespace {

using resource::Resource;

Resource Parse(const std::string& yaml) {
  auto docs = ParseYamlDocuments(yaml, "test");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  return *Resource::FromJson((*docs)[0], "test");
}

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

TEST(PipelineStateTest, ElementsAreEstimatedAsTheReferenceSaysInTheKubernetesMode) {
  struct Case {
    const char* status;  // YAML of the element's status; "" for none; "-" for no element
    bool ready, failed;
  };
  const Case kCases[] = {
      {"-", false, false},
      {"", true, false},
      {"{ready: true}", true, false},
      {"{ready: false, failed: true, message: broken}", false, true},
      {"{state: RUNNING}", true, false},
      {"{state: Finished}", true, false},
      {"{jobStatus: {state: CRASHLOOPBACKOFF}}", false, true},
      {"{state: DEPLOYING}", false, false},
      {"{conditions: [{type: Complete, status: 'True'}]}", true, false},
      {"{conditions: [{type: Failed, status: 'True', reason: DeadlineExceeded}]}", false, true},
  };
  PipelineRules kubernetes;
  kubernetes.unreported_is_ready = true;
  for (const Case& c : kCases) {
    ElementState s = EstimateElement(Element("v1/ConfigMap", c.status), kubernetes);
    EXPECT_EQ(s.ready, c.ready) << c.status;
    EXPECT_EQ(s.failed, c.failed) << c.status;
    EXPECT_EQ(s.uncontrolled_kind, "") << c.status;
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

class ReconcilerStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hop-reconciler-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    store::SqliteStoreOptions opts;
    opts.durable = false;
    store_ = std::move(store::SqliteStore::Open(dir_, opts)).value();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  Resource Create(const std::string& yaml) {
    auto r = store_->Create(Parse(yaml));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return *r;
  }
  ReconcileContext Context() { return {"r-test", &SystemClock()}; }

  std::string dir_;
  std::unique_ptr<store::SqliteStore> store_;
};

std::string Trigger(const std::string& name, const std::string& view,
                    const std::string& policy = "") {
  return "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: TableTrigger\nmetadata: {name: " +
         name + ", labels: {view: " + view + "}}\nspec: {schema: ADS, table: V, yaml: 'x'" +
         (policy.empty() ? "" : ", firePolicy: " + policy) + "}\n";
}

TEST_F(ReconcilerStoreTest, AViewsWatermarkFiresTheTriggersLabelledWithIt) {
  Create(Trigger("t1", "ads-v"));
  Create(Trigger("t2", "ads-v", "Each"));
  Create(Trigger("other", "ads-w"));
  Resource view = Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: View\nmetadata: {name: ads-v}\n"
      "spec: {view: V, schema: ADS, sql: SELECT 1}\n");
  view.mutable_status()["watermark"] = "2026-03-01T02:00:00.000Z";
  ASSERT_TRUE(store_->UpdateStatus(view).ok());
  ViewReconciler reconciler(*store_);
  const Request request{store::RefOf(view)};
  ASSERT_TRUE(reconciler.Reconcile(request, Context()).ok());
  auto t1 = store_->Get({resource::TableTriggerKind::Info().group_kind(), "default", "t1"});
  auto t2 = store_->Get({resource::TableTriggerKind::Info().group_kind(), "default", "t2"});
  auto other = store_->Get({resource::TableTriggerKind::Info().group_kind(), "default", "other"});
  EXPECT_EQ(t1->status()->at("timestamp"), "2026-03-01T02:00:00.000Z");
  EXPECT_EQ(t2->status()->at("pending").size(), 1u);
  EXPECT_EQ(other->status(), nullptr);
  // Again: nothing changes (idempotent).
  const std::string version = t2->resource_version();
  ASSERT_TRUE(reconciler.Reconcile(request, Context()).ok());
  auto again = store_->Get({resource::TableTriggerKind::Info().group_kind(), "default", "t2"});
  EXPECT_EQ(again->resource_version(), version);
}

// A view advanced several times before its reconciler looks (FIRE VIEW in a burst) gives a
// firePolicy Each trigger one run per advance, a Coalesce trigger the latest; the view's queue
// empties in the same commit, and looking again records nothing twice.
TEST_F(ReconcilerStoreTest, EveryAdvanceOfAViewIsAFireOfItsEachTriggers) {
  Create(Trigger("coalesced", "ads-v"));
  Create(Trigger("each", "ads-v", "Each"));
  Resource view = Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: View\nmetadata: {name: ads-v}\n"
      "spec: {view: V, schema: ADS, sql: SELECT 1}\n");
  for (const char* at :
       {"2026-03-01T02:00:00.000Z", "2026-03-01T02:00:00.001Z", "2026-03-01T02:00:00.002Z"}) {
    ASSERT_TRUE(deploy::ViewFires(view.mutable_status()).Advance(*ParseRfc3339(at), "V").ok());
    auto written = store_->UpdateStatus(view);
    ASSERT_TRUE(written.ok()) << written.status().ToString();
    view = *written;
  }
  ViewReconciler reconciler(*store_);
  const Request request{store::RefOf(view)};
  ASSERT_TRUE(reconciler.Reconcile(request, Context()).ok());
  auto get = [&](const char* name) {
    return *store_->Get({resource::TableTriggerKind::Info().group_kind(), "default", name});
  };
  Resource each = get("each");
  EXPECT_EQ(
      each.status()->at("pending"),
      Json({"2026-03-01T02:00:00.000Z", "2026-03-01T02:00:00.001Z", "2026-03-01T02:00:00.002Z"}));
  EXPECT_EQ(get("coalesced").status()->at("timestamp"), "2026-03-01T02:00:00.002Z");
  EXPECT_FALSE(store_->Get(request.ref)->status()->contains("pendingFires"));
  ASSERT_TRUE(reconciler.Reconcile(request, Context()).ok());
  EXPECT_EQ(get("each").resource_version(), each.resource_version());

  // A view that cannot take more says so.
  Json full = Json::object();
  deploy::ViewFires queue(full);
  for (size_t i = 0; i < deploy::ViewFires::kMaxPending; ++i) {
    ASSERT_TRUE(
        queue.Advance(*ParseRfc3339("2026-03-01T02:00:00Z") + std::chrono::milliseconds(i), "ADS.V")
            .ok());
  }
  Status refused = queue.Advance(*ParseRfc3339("2026-03-01T03:00:00Z"), "ADS.V");
  EXPECT_EQ(refused.code(), StatusCode::kUnavailable);
  EXPECT_NE(refused.message().find("View ADS.V has 1000 fires"), std::string::npos)
      << refused.message();
}

// A provisioner that says whether it was asked to create.
class OneTable : public catalog::Provisioner {
 public:
  Result<bool> Exists(const catalog::Schema&, const catalog::TableDefinition&) override {
    return exists;
  }
  Status Create(const catalog::Schema&, const catalog::TableDefinition& t) override {
    created = t.path.back();
    exists = true;
    return Status::OK();
  }
  Status Drop(const catalog::Schema&, const catalog::TableDefinition&) override {
    return Status::OK();
  }
  bool exists = false;
  std::string created;
};

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
  EXPECT_TRUE(result->requeue_after.has_value());
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

  // Hoptimator's rule, for the Kubernetes mode: an element without status is ready.
  job = *store_->Get(store::RefOf(job));
  job.set_status(Json::object());
  ASSERT_TRUE(store_->UpdateStatus(job).ok());
  PipelineRules kubernetes;
  kubernetes.unreported_is_ready = true;
  PipelineReconciler trusting(*store_, kubernetes);
  ASSERT_TRUE(trusting.Reconcile({store::RefOf(pipeline)}, Context()).ok());
  EXPECT_EQ(store_->Get(store::RefOf(pipeline))->status()->at("message"), "Ready.");
}

TEST_F(ReconcilerStoreTest, TableProvisionJobsUseTheirDatabasesProvisioner) {
  Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Database\nmetadata: {name: iceberg}\n"
      "spec: {catalog: ICEBERG, schema: WAREHOUSE, url: 'jdbc:iceberg://x'}\n");
  Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Database\nmetadata: {name: kafka}\n"
      "spec: {schema: KAFKA, url: 'jdbc:kafka://x'}\n");
  Resource job = Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: TableProvisionJob\n"
      "metadata: {name: iceberg-clicks}\nspec: {database: iceberg, catalog: ICEBERG, "
      "schema: WAREHOUSE, table: CLICKS}\n");
  Resource other = Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: TableProvisionJob\n"
      "metadata: {name: kafka-events}\nspec: {database: kafka, schema: KAFKA, table: events}\n");
  OneTable iceberg;
  catalog::Provisioners provisioners;
  provisioners.Register("iceberg", &iceberg);
  ProvisionReconciler reconciler(*store_, &provisioners);

  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(job)}, Context()).ok());
  EXPECT_EQ(iceberg.created, "CLICKS");
  auto done = store_->Get(store::RefOf(job));
  EXPECT_EQ(done->status()->at("ready"), true);
  EXPECT_EQ(done->status()->at("message"), "Table created.");

  // Provisioned: nothing to do again; an existing table is not created.
  iceberg.created.clear();
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(job)}, Context()).ok());
  EXPECT_EQ(iceberg.created, "");

  // No local provisioner for Kafka: left to an external controller, and said so.
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(other)}, Context()).ok());
  auto waiting = store_->Get(store::RefOf(other));
  EXPECT_EQ(waiting->status()->at("ready"), false);
  EXPECT_EQ(waiting->status()->at("message"),
            "No local provisioner for database kafka (kafka): left for an external controller");
}

TEST_F(ReconcilerStoreTest, ASubscriptionBecomesAMaterializedViewItOwns) {
  Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Database\nmetadata: {name: ads}\n"
      "spec: {schema: ADS, url: 'jdbc:demodb://names=ads'}\n");
  Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Database\nmetadata: {name: profile}\n"
      "spec: {schema: PROFILE, url: 'jdbc:demodb://profile'}\n");
  Resource sub = Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Subscription\nmetadata: {name: names}\n"
      "spec: {database: ads, sql: 'SELECT first_name FROM profile.members', "
      "hints: {flink.parallelism: '2'}}\n");
  SubscriptionReconciler reconciler(*store_);
  auto result = reconciler.Reconcile({store::RefOf(sub)}, Context());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  auto view = store_->Get({resource::ViewKind::Info().group_kind(), "default", "ads-names"});
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  EXPECT_EQ(view->owner_references().at(0).name, "names");
  const Resource stored = *store_->Get(store::RefOf(sub));
  const Json* status = stored.status();
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(status->at("hints").at("flink.parallelism"), "2");
  EXPECT_EQ(status->at("message"), "Deployed.");
  // Again: nothing changes.
  const std::string version = store_->Get(store::RefOf(*view))->resource_version();
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(sub)}, Context()).ok());
  EXPECT_EQ(store_->Get(store::RefOf(*view))->resource_version(), version);
  // A bad query is reported in status.
  Resource bad = Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Subscription\nmetadata: {name: bad}\n"
      "spec: {database: ads, sql: 'SELECT nope FROM profile.members'}\n");
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(bad)}, Context()).ok());
  auto failed = store_->Get(store::RefOf(bad));
  EXPECT_EQ(failed->status()->at("failed"), true);
  // The error points into spec.sql; spec.sql must be one query.
  EXPECT_EQ(failed->status()->at("message"),
            "Binder Error: Column 'NOPE' not found in any table at line 1, column 8\n"
            "SELECT nope FROM profile.members\n"
            "       ^");
  Resource drop = Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Subscription\nmetadata: {name: drop}\n"
      "spec: {database: ads, sql: 'DROP TABLE ads.page_views'}\n");
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(drop)}, Context()).ok());
  EXPECT_EQ(store_->Get(store::RefOf(drop))->status()->at("message"),
            "spec.sql must be a query (SELECT ...)");
  Resource two = Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Subscription\nmetadata: {name: two}\n"
      "spec: {database: ads, sql: 'SELECT 1) AS x, (SELECT 2'}\n");
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(two)}, Context()).ok());
  EXPECT_EQ(store_->Get(store::RefOf(two))->status()->at("message"),
            "Parse Error: expected one of: ',', end of statement, identifier, AS, EXCEPT, FETCH, "
            "FROM, GROUP, HAVING, INTERSECT, LIMIT, OFFSET, ORDER, UNION, WHERE; found ')' at "
            "line 1, column 9\nSELECT 1) AS x, (SELECT 2\n        ^");
  // Deleting the Subscription deletes its view.
  ASSERT_TRUE(store_->Delete(store::RefOf(sub)).ok());
  EXPECT_EQ(store_->Get(store::RefOf(*view)).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace hop::op
