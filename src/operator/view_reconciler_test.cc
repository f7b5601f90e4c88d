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

TEST(PipelineStateTest, ElementsAreEstimatedAsTheReferenceSays) {
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
  for (const Case& c : kCases) {
    std::optional<Resource> element;
    if (std::string(c.status) != "-") {
      std::string yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: e}\n";
      if (*c.status) yaml += std::string("status: ") + c.status + "\n";
      element = Parse(yaml);
    }
    ElementState s = EstimateElement(element);
    EXPECT_EQ(s.ready, c.ready) << c.status;
    EXPECT_EQ(s.failed, c.failed) << c.status;
  }
}

TEST(PipelineStateTest, AnyFailedElementFailsThePipelineAndIsNamed) {
  ElementState ready{true, false, ""};
  ElementState deploying{false, false, ""};
  ElementState failed{false, true, "state FAILED"};
  EXPECT_EQ(SummarizePipeline({{"kafkatopic/a", ready}, {"flinksessionjob/b", ready}}).message,
            "Ready.");
  EXPECT_EQ(SummarizePipeline({{"kafkatopic/a", ready}, {"flinksessionjob/b", deploying}}).message,
            "Deployed.");
  PipelineState p = SummarizePipeline(
      {{"kafkatopic/a", ready}, {"flinksessionjob/b", failed}, {"sqljob/c", deploying}});
  EXPECT_TRUE(p.failed);
  EXPECT_FALSE(p.ready);
  EXPECT_EQ(p.message, "Failed: flinksessionjob/b: state FAILED");
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
  // Deleting the Subscription deletes its view.
  ASSERT_TRUE(store_->Delete(store::RefOf(sub)).ok());
  EXPECT_EQ(store_->Get(store::RefOf(*view)).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace hop::op
