// The Table reconciler against a real store: every advance of a table's watermark is one fire of
// each trigger on the table, however many come before it looks.
#include "operator/table_reconciler.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "deploy/trigger_fires.h"
#include "operator/reconciler_test_fixture.h"
#include "operator/trigger_runs.h"
#include "resource/kinds.h"

namespace hop::op {
namespace {

std::string Trigger(const std::string& name, const std::string& table, const std::string& policy) {
  return "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: TableTrigger\nmetadata: {name: " +
         name + "}\nspec: {schema: S, table: " + table + ", yaml: 'x'" +
         (policy.empty() ? "" : ", firePolicy: " + policy) + "}\n";
}

TEST_F(ReconcilerStoreTest, EveryAdvanceOfATablesWatermarkIsAFireOfItsTriggers) {
  Create(Trigger("each", "CLICKS", "Each"));
  Create(Trigger("coalesced", "CLICKS", ""));
  Create(Trigger("elsewhere", "OTHER", "Each"));
  Resource table = Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Table\nmetadata: {name: d-clicks}\n"
      "spec: {database: d, schema: S, table: CLICKS}\n");
  TableReconciler reconciler(*store_);
  const Request request{store::RefOf(table)};
  // Nothing advanced yet: nothing fires.
  ASSERT_TRUE(reconciler.Reconcile(request, Context()).ok());
  auto get = [&](const char* name) {
    return *store_->Get({resource::TableTriggerKind::Info().group_kind(), "default", name});
  };
  EXPECT_EQ(get("each").status(), nullptr);
  // Three advances before the reconciler looks.
  for (const char* at :
       {"2026-03-01T02:00:00.000Z", "2026-03-01T02:00:00.001Z", "2026-03-01T02:00:00.002Z"}) {
    auto moved =
        deploy::ViewFires(table.mutable_status(), "Table").Set(*ParseRfc3339(at), false, "t");
    ASSERT_TRUE(moved.ok() && *moved);
    table = *store_->UpdateStatus(table);
  }
  ASSERT_TRUE(reconciler.Reconcile(request, Context()).ok());
  Resource each = get("each");
  EXPECT_EQ(
      each.status()->at("pending"),
      Json({"2026-03-01T02:00:00.000Z", "2026-03-01T02:00:00.001Z", "2026-03-01T02:00:00.002Z"}));
  EXPECT_EQ(get("coalesced").status()->at("timestamp"), "2026-03-01T02:00:00.002Z");
  EXPECT_EQ(get("elsewhere").status(), nullptr);
  Resource stored = *store_->Get(request.ref);
  EXPECT_FALSE(stored.status()->contains("pendingFires"));
  EXPECT_EQ(stored.status()->at("watermark"), "2026-03-01T02:00:00.002Z");
  // Again: nothing is recorded twice.
  ASSERT_TRUE(reconciler.Reconcile(request, Context()).ok());
  EXPECT_EQ(get("each").resource_version(), each.resource_version());
}

// A producer's watermark moves forward only, unless forced; the same time is no advance.
TEST(ViewFiresSet, AWatermarkMovesForwardUnlessForced) {
  Json status = Json::object();
  deploy::ViewFires fires(status, "Table");
  const SystemTime t = *ParseRfc3339("2026-03-01T02:00:00Z");
  EXPECT_TRUE(*fires.Set(t, false, "S.T"));
  EXPECT_FALSE(*fires.Set(t, false, "S.T"));
  auto back = fires.Set(t - std::chrono::hours(1), false, "S.T");
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().message(),
            "Table S.T has watermark 2026-03-01T02:00:00.000Z: 2026-03-01T01:00:00.000Z is "
            "earlier, and a watermark only moves forward (hop watermark set --force moves it "
            "back)");
  EXPECT_TRUE(*fires.Set(t - std::chrono::hours(1), true, "S.T"));
  EXPECT_EQ(status["watermark"], "2026-03-01T01:00:00.000Z");
  EXPECT_EQ(status["pendingFires"].size(), 2u);
}

// A run that succeeded advances its outputs in the same batch as its end, queued for their own
// triggers; an output gone, derived, or already past the window is left alone.
TEST_F(ReconcilerStoreTest, ARunThatSucceededAdvancesTheWatermarksOfItsOutputs) {
  Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Table\nmetadata: {name: filled}\n"
      "spec: {database: d, schema: S, table: FILLED}\n");
  Resource ahead = Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Table\nmetadata: {name: ahead}\n"
      "spec: {database: d, schema: S, table: AHEAD}\n");
  ahead.mutable_status()["watermark"] = "2026-03-01T05:00:00.000Z";
  ASSERT_TRUE(store_->UpdateStatus(ahead).ok());
  Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: View\nmetadata: {name: derived, "
      "labels: {hop.dev/watermark: all}}\nspec: {view: D, schema: S, sql: SELECT 1}\n");
  TriggerPlan plan;
  plan.trigger = Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: TableTrigger\nmetadata: {name: t}\n"
      "spec: {schema: S, table: X, yaml: 'x'}\n");
  auto table = [](const char* name) {
    return store::ObjectRef{resource::TableKind::Info().group_kind(), "default", name};
  };
  plan.outputs = {table("filled"), table("ahead"), table("gone"),
                  {resource::ViewKind::Info().group_kind(), "default", "derived"}};
  plan.outputs_to = *ParseRfc3339("2026-03-01T02:00:00Z");
  CountingStore counting(*store_);
  Batch batch(counting);
  ASSERT_TRUE(WriteRunPlan(batch, plan, nullptr, store_.get()).ok());
  ASSERT_TRUE(batch.Commit().ok());
  EXPECT_EQ(counting.commits, std::vector<size_t>({1}));
  Resource filled = *store_->Get(table("filled"));
  EXPECT_EQ(filled.status()->at("watermark"), "2026-03-01T02:00:00.000Z");
  EXPECT_EQ(filled.status()->at("pendingFires"), Json({"2026-03-01T02:00:00.000Z"}));
  EXPECT_EQ(store_->Get(table("ahead"))->status()->at("watermark"), "2026-03-01T05:00:00.000Z");
  EXPECT_EQ(store_->Get({resource::ViewKind::Info().group_kind(), "default", "derived"})->status(),
            nullptr);
}

// A table made by CREATE TABLE ... AS takes a producer's watermark only once its fill of its
// current query has succeeded (docs/ddl.md, FIRE): before, it says why not.
TEST(UnfilledTable, SaysWhyATableItsFillHasNotFilledTakesNoProducersWatermark) {
  auto table = [](const std::string& status) {
    Resource t = Parse(
        "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Table\nmetadata: {name: t, "
        "annotations: {hop.dev/fill: SELECT 1}}\nspec: {database: d, schema: S, table: T}\n");
    if (!status.empty()) t.set_status(Json::parse(status));
    return t;
  };
  Resource plain = Parse(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Table\nmetadata: {name: p}\n"
      "spec: {database: d, schema: S, table: P}\n");
  EXPECT_EQ(deploy::UnfilledTable(plain, std::nullopt), std::nullopt);
  EXPECT_EQ(deploy::UnfilledTable(table(""), std::nullopt), "its fill waits to start");
  // Its Job made: said as the Job stands, never "going" before it started.
  const Resource waiting = table(R"({"fill": {"job": "t-refresh-1", "query": "SELECT 1"}})");
  struct JobCase {
    const char* job_status;  // "": the Job is gone
    const char* says;
  };
  const JobCase kJobCases[] = {
      {"", "its fill t-refresh-1 was deleted before it finished"},
      {"{}", "its fill t-refresh-1 waits to start"},
      {R"({"active": 1, "startTime": "2026-03-01T00:00:00Z"})", "its fill t-refresh-1 runs"},
      {R"({"failed": 2, "startTime": "2026-03-01T00:00:00Z"})",
       "its fill t-refresh-1 waits to retry after 2 failed attempts"},
      {R"({"failed": 3, "conditions": [{"type": "Failed", "status": "True", "reason": )"
       R"("BackoffLimitExceeded", "message": "too many"}]})",
       "its fill t-refresh-1 failed (BackoffLimitExceeded: too many)"},
  };
  for (const JobCase& c : kJobCases) {
    std::optional<Resource> job;
    if (*c.job_status != '\0') {
      job = Parse("apiVersion: batch/v1\nkind: Job\nmetadata: {name: t-refresh-1}\nspec: {}\n");
      job->set_status(Json::parse(c.job_status));
    }
    EXPECT_EQ(deploy::UnfilledTable(waiting, job), c.says) << c.job_status;
  }
  EXPECT_EQ(
      deploy::UnfilledTable(
          table(R"({"fill": {"query": "SELECT 1", "lastOutcome": "Failed", "message": "boom"}})"),
          std::nullopt),
      "its fill failed (boom)");
  // Filled: by its Job (recorded by the reconciler), or by hand (the fill's query digest).
  EXPECT_EQ(
      deploy::UnfilledTable(table(R"({"fill": {"query": "SELECT 1", "lastOutcome": "Succeeded"}})"),
                            std::nullopt),
      std::nullopt);
  EXPECT_EQ(
      deploy::UnfilledTable(table(R"({"fill": {"query": "SELECT 1", "lastOutcome": "Failed"}, )"
                                  R"("refreshedQuery": ")" +
                                  resource::QueryDigest("SELECT 1") + "\"}"),
                            std::nullopt),
      std::nullopt);
  // Filled by hand while a fill Job of the same query waits: it holds that query's rows.
  EXPECT_EQ(
      deploy::UnfilledTable(
          table(R"({"fill": {"job": "t-refresh-2", "query": "SELECT 1"}, "refreshedQuery": ")" +
                resource::QueryDigest("SELECT 1") + "\"}"),
          std::nullopt),
      std::nullopt);
  // Filled with another query than the one it has now (CREATE OR REPLACE TABLE ... AS).
  EXPECT_EQ(
      deploy::UnfilledTable(
          table(
              R"({"fill": {"query": "SELECT 2", "lastOutcome": "Succeeded"}, "refreshedQuery": ")" +
              resource::QueryDigest("SELECT 2") + "\"}"),
          std::nullopt),
      "its fill waits to start");
}

// A run's declared outputs whose watermark only hop sets are left alone: a materialized view
// hop refreshes (its refreshes earn it) and a table CREATE TABLE ... AS has not filled yet; a
// filled one advances, as any table.
TEST_F(ReconcilerStoreTest, ARunThatSucceededLeavesWatermarksOnlyHopSets) {
  Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Database\nmetadata: {name: local}\n"
      "spec: {schema: LOCAL, url: 'jdbc:local:', dialect: Calcite}\n");
  Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: View\nmetadata: {name: local-mv}\n"
      "spec: {view: MV, schema: LOCAL, sql: SELECT 1 AS X, materialized: true}\n");
  Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Table\nmetadata: {name: unfilled, "
      "annotations: {hop.dev/fill: SELECT 1}}\nspec: {database: local, schema: LOCAL, table: "
      "UNFILLED}\n");
  Resource filled = Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Table\nmetadata: {name: filled, "
      "annotations: {hop.dev/fill: SELECT 1}}\nspec: {database: local, schema: LOCAL, table: "
      "FILLED}\n");
  filled.mutable_status()["refreshedQuery"] = resource::QueryDigest("SELECT 1");
  filled.mutable_status()["watermark"] = "2026-03-01T01:00:00.000Z";
  ASSERT_TRUE(store_->UpdateStatus(filled).ok());
  TriggerPlan plan;
  plan.trigger = Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: TableTrigger\nmetadata: {name: t}\n"
      "spec: {schema: S, table: X, yaml: 'x'}\n");
  auto table = [](const char* name) {
    return store::ObjectRef{resource::TableKind::Info().group_kind(), "default", name};
  };
  const store::ObjectRef mv{resource::ViewKind::Info().group_kind(), "default", "local-mv"};
  plan.outputs = {mv, table("unfilled"), table("filled")};
  plan.outputs_to = *ParseRfc3339("2026-03-01T02:00:00Z");
  Batch batch(*store_);
  ASSERT_TRUE(WriteRunPlan(batch, plan, nullptr, store_.get()).ok());
  ASSERT_TRUE(batch.Commit().ok());
  EXPECT_EQ(store_->Get(mv)->status(), nullptr);
  EXPECT_EQ(store_->Get(table("unfilled"))->status(), nullptr);
  EXPECT_EQ(store_->Get(table("filled"))->status()->at("watermark"), "2026-03-01T02:00:00.000Z");
}

}  // namespace
}  // namespace hop::op
