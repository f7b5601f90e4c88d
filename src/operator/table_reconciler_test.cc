// The Table reconciler against a real store: every advance of a table's watermark is one fire of
// each trigger on the table, however many come before it looks.
#include "operator/table_reconciler.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "deploy/trigger_fires.h"
#include "operator/reconciler_test_fixture.h"
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

}  // namespace
}  // namespace hop::op
