// The View reconciler against a real store: a view's watermarks fire its triggers, once each,
// and the runs they start are written with them.
#include "operator/view_reconciler.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "deploy/trigger_fires.h"
#include "operator/reconciler_test_fixture.h"
#include "resource/kinds.h"

namespace hop::op {
namespace {

using resource::Resource;

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

// A trigger with no run going starts the run its fire begins in the view's own commit: 100
// triggers, one commit with every fire and every Job. A Job that exists already (made by a
// reconcile that could not record it) is not made again; its trigger gets only the fire, and its
// own reconciler records the run.
TEST_F(ReconcilerStoreTest, AViewsFiresAndTheRunsTheyStartAreOneCommit) {
  const std::string job_yaml =
      "'{apiVersion: batch/v1, kind: Job, metadata: {name: \"{{trigger}}-run\"}, spec: {template: {spec: "
      "{containers: [{name: c, image: x, command: [echo, \"{{timestamp}}\"]}], restartPolicy: "
      "Never}}}}'";
  for (int i = 0; i < 100; ++i) {
    Create("apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: TableTrigger\nmetadata: {name: t" +
           std::to_string(i) + ", labels: {view: ads-v}}\nspec: {schema: ADS, table: V, yaml: " +
           job_yaml + "}\n");
  }
  // t0's Job for this fire exists already.
  ASSERT_TRUE(store_
                  ->Create(Parse("apiVersion: batch/v1\nkind: Job\nmetadata: {name: "
                                 "t0-run-20260301t020000000}\nspec: {template: {spec: {containers: "
                                 "[{name: c, image: x}]}}}\n"))
                  .ok());
  Resource view = Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: View\nmetadata: {name: ads-v}\n"
      "spec: {view: V, schema: ADS, sql: SELECT 1}\n");
  ASSERT_TRUE(
      deploy::ViewFires(view.mutable_status()).Advance(*ParseRfc3339("2026-03-01T02:00:00Z"), "V").ok());
  view = *store_->UpdateStatus(view);
  CountingStore counting(*store_);
  ViewReconciler reconciler(counting);
  auto result = reconciler.Reconcile({store::RefOf(view)}, Context());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  // The view's queue, 100 fires, and 99 Jobs: all but t0's.
  ASSERT_EQ(counting.commits, std::vector<size_t>({1 + 100 + 99}));
  auto trigger = [&](int i) {
    return *store_->Get(
        {resource::TableTriggerKind::Info().group_kind(), "default", "t" + std::to_string(i)});
  };
  EXPECT_FALSE(trigger(0).status()->contains("jobs"));
  EXPECT_EQ(trigger(0).status()->at("timestamp"), "2026-03-01T02:00:00.000Z");
  EXPECT_EQ(trigger(1).status()->at("jobs").at(0).at("name"), "t1-run-20260301t020000000");
  EXPECT_EQ(trigger(99).status()->at("lastRun"), "Running");
  store::ListOptions jobs;
  jobs.kind = store::GroupKind{"batch", "Job"};
  EXPECT_EQ(store_->List(jobs)->items.size(), 1u + 99u);
}

}  // namespace
}  // namespace hop::op
