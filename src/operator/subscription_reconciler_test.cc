// The Subscription reconciler against a real store: a Subscription becomes a materialized view
// it owns.
#include "operator/subscription_reconciler.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "operator/reconciler_test_fixture.h"
#include "resource/kinds.h"

namespace hop::op {
namespace {

using resource::Resource;

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
