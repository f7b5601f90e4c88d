// The Subscription reconciler against a real store: a Subscription becomes a materialized view
// it owns, written in one batch with its status.
#include "operator/subscription_reconciler.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "operator/reconciler_test_fixture.h"
#include "resource/kinds.h"

namespace hop::op {
namespace {

using resource::Resource;

class SubscriptionReconcilerTest : public ReconcilerStoreTest {
 protected:
  void SetUp() override {
    ReconcilerStoreTest::SetUp();
    Create(
        "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Database\nmetadata: {name: ads}\n"
        "spec: {schema: ADS, url: 'jdbc:demodb://names=ads'}\n");
    Create(
        "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Database\nmetadata: {name: profile}\n"
        "spec: {schema: PROFILE, url: 'jdbc:demodb://profile'}\n");
  }
  Resource Subscription(const std::string& name, const std::string& sql) {
    return Create(
        "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Subscription\nmetadata: {name: " +
        name + "}\nspec: {database: ads, sql: '" + sql + "'}\n");
  }
};

// The view, its pipeline, their elements and the Subscription's status go to the store in one
// commit, and a reconcile with nothing to change writes nothing.
TEST_F(SubscriptionReconcilerTest, ItsWritesAreOneBatch) {
  Resource sub = Subscription("names", "SELECT first_name FROM profile.members");
  CountingStore counting(*store_);
  SubscriptionReconciler reconciler(counting);
  auto result = reconciler.Reconcile({store::RefOf(sub)}, Context());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(counting.commits.size(), 1u);
  EXPECT_GE(counting.commits[0], 3u);  // View, Pipeline, ..., the Subscription's status
  auto view = store_->Get({resource::ViewKind::Info().group_kind(), "default", "ads-names"});
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  EXPECT_EQ(view->owner_references().at(0).uid, sub.uid());
  EXPECT_TRUE(
      store_->Get({resource::PipelineKind::Info().group_kind(), "default", "ads-names"}).ok());
  EXPECT_EQ(store_->Get(store::RefOf(sub))->status()->at("message"), "Deployed.");

  counting.commits.clear();
  const int64_t revision = *store_->Revision();
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(sub)}, Context()).ok());
  EXPECT_EQ(*store_->Revision(), revision);
}

// The statement is built around the query alone: what is not a query is refused as such, and a
// query that does not bind is shown as the Subscription wrote it.
TEST_F(SubscriptionReconcilerTest, ItsSqlIsAQuery) {
  SubscriptionReconciler reconciler(*store_);
  struct Case {
    const char* name;
    const char* sql;
    const char* message;  // found in status.message
  };
  const Case kCases[] = {
      {"drop", "DROP TABLE profile.members", "Invalid Argument: spec.sql is not a query"},
      {"two", "SELECT 1; DROP TABLE profile.members", "Parse Error"},
      {"empty", "", "Parse Error"},
      {"nope", "SELECT nope FROM profile.members", "SELECT nope FROM profile.members\n"},
  };
  for (const Case& c : kCases) {
    Resource sub = Subscription(c.name, c.sql);
    auto result = reconciler.Reconcile({store::RefOf(sub)}, Context());
    ASSERT_TRUE(result.ok()) << c.name << ": " << result.status().ToString();
    const Resource stored = *store_->Get(store::RefOf(sub));
    EXPECT_EQ(stored.status()->at("failed"), true) << c.name;
    const std::string message = stored.status()->at("message");
    EXPECT_NE(message.find(c.message), std::string::npos) << c.name << ": " << message;
    EXPECT_EQ(message.find("MATERIALIZED VIEW"), std::string::npos) << c.name << ": " << message;
  }
  EXPECT_EQ(
      store_->Get({resource::ViewKind::Info().group_kind(), "default", "ads-drop"}).status().code(),
      StatusCode::kNotFound);
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
