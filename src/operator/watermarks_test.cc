// Derived watermarks: the rule (table-driven), and views WITH ('watermark' 'all' | 'any')
// reconciled against a real store, step by step, on a fake clock: their triggers fire exactly
// when the derived watermark advances.
#include "operator/watermarks.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "deploy/trigger_fires.h"
#include "operator/reconciler_test_fixture.h"
#include "operator/table_reconciler.h"
#include "operator/view_reconciler.h"
#include "resource/kinds.h"
#include "test/lib/fixtures.h"

namespace hop::op {
namespace {

SystemTime At(const char* text) { return *ParseRfc3339(text); }

TEST(DeriveWatermark, AllIsTheOldestOnceEveryInputHasOneAnyIsTheNewest) {
  const std::optional<SystemTime> none;
  const SystemTime t1 = At("2026-03-01T01:00:00Z"), t2 = At("2026-03-01T02:00:00Z");
  struct Case {
    const char* name;
    const char* policy;
    std::vector<std::optional<SystemTime>> inputs;
    std::optional<SystemTime> want;
  };
  const Case kCases[] = {
      {"all, no input advanced", "all", {none, none}, none},
      {"all, one input never advanced", "all", {t1, none}, none},
      {"all, both advanced", "all", {t2, t1}, t1},
      {"any, none advanced", "any", {none, none}, none},
      {"any, one advanced", "any", {none, t1}, t1},
      {"any, both advanced", "any", {t1, t2}, t2},
      {"an unknown policy derives none", "some", {t1, t2}, none},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(DeriveWatermark(c.policy, c.inputs), c.want) << c.name;
  }
}

// Tables a, b, c; view v over a and b; view w (any) over v and c. Each step advances, drops or
// re-creates an input, or reconciles a view; the Each trigger on the view under test records one
// fire per advance of its derived watermark.
class DerivedViewTest : public ReconcilerStoreTest {
 protected:
  void MakeTable(const std::string& name) {
    Create("apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Table\nmetadata: {name: " + name +
           "}\nspec: {database: d, schema: S, table: " + name + "}\n");
  }
  void MakeView(const std::string& name, const std::string& policy, const std::string& inputs) {
    Create("apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: View\nmetadata: {name: " + name +
           ", labels: {hop.dev/watermark: " + policy +
           "}, annotations: {hop.dev/watermark-inputs: '" + inputs +
           "'}}\nspec: {view: V, schema: S, sql: SELECT 1}\n");
    Create(
        "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: TableTrigger\nmetadata: {name: "
        "on-" +
        name + ", labels: {view: " + name +
        "}}\nspec: {schema: S, table: V, yaml: 'x', firePolicy: Each}\n");
  }
  store::ObjectRef Ref(const std::string& what) {
    const bool table = what.rfind("table/", 0) == 0;
    return {
        table ? resource::TableKind::Info().group_kind() : resource::ViewKind::Info().group_kind(),
        "default", what.substr(what.find('/') + 1)};
  }
  // A producer's advance, queued on the input (FIRE, hop watermark set).
  void Set(const std::string& what, const char* at) {
    Resource r = *store_->Get(Ref(what));
    auto moved = deploy::ViewFires(r.mutable_status()).Set(At(at), false, what);
    ASSERT_TRUE(moved.ok()) << moved.status().ToString();
    ASSERT_TRUE(store_->UpdateStatus(r).ok());
  }
  // The input's reconciler delivers what it has queued (to its triggers and derived views).
  void Deliver(const std::string& what) {
    ReconcileContext context{"r-test", &clock_};
    Result<ReconcileResult> result = ReconcileResult::Done();
    if (what.rfind("table/", 0) == 0) {
      result = TableReconciler(*store_).Reconcile({Ref(what)}, context);
    } else {
      result = ViewReconciler(*store_).Reconcile({Ref(what)}, context);
    }
    ASSERT_TRUE(result.ok()) << result.status().ToString();
  }
  void Advance(const std::string& what, const char* at) {
    Set(what, at);
    Deliver(what);
  }
  std::vector<std::string> Fires(const std::string& view) {
    auto trigger =
        store_->Get({resource::TableTriggerKind::Info().group_kind(), "default", "on-" + view});
    std::vector<std::string> out;
    if (trigger->status() && trigger->status()->contains("pending")) {
      for (const Json& p : trigger->status()->at("pending")) out.push_back(p.get<std::string>());
    }
    return out;
  }
  void Drop(const std::string& what) { ASSERT_TRUE(store_->Delete(Ref(what)).ok()); }
  void Reconcile(const std::string& view) {
    ViewReconciler reconciler(*store_);
    ReconcileContext context{"r-test", &clock_};
    auto result = reconciler.Reconcile({Ref("view/" + view)}, context);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
  }

  hop::testing::FakeClock clock_;
};

struct Step {
  // advance (set, then the input's reconciler delivers it), set (queued only), deliver, drop,
  // table (create), reconcile (the view)
  const char* op;
  const char* what;  // table/a, view/v, or the view to reconcile
  const char* at = "";
};

TEST_F(DerivedViewTest, ADerivedViewsTriggersFireOncePerAdvanceOfItsWatermark) {
  const char* T1 = "2026-03-01T01:00:00.000Z";
  const char* T2 = "2026-03-01T02:00:00.000Z";
  const char* T3 = "2026-03-01T03:00:00.000Z";
  const char* T0 = "2026-03-01T00:00:00.000Z";
  struct Case {
    const char* name;
    const char* policy;  // of v, over table/a and table/b
    std::vector<Step> steps;
    std::vector<std::string> want_v;  // the fires of v's trigger
    std::vector<std::string> want_w;  // of w's (any over view/v and table/c)
  };
  const Case kCases[] = {
      {"all: nothing until every input advanced, then the oldest",
       "all",
       {{"reconcile", "v"},
        {"advance", "table/a", T1},
        {"reconcile", "v"},
        {"advance", "table/b", T2},
        {"reconcile", "v"},
        {"reconcile", "v"},
        {"advance", "table/a", T3},
        {"reconcile", "v"}},
       {T1, T2},
       {}},
      {"all: one input advancing twice fires nothing while the other has not",
       "all",
       {{"advance", "table/a", T1},
        {"reconcile", "v"},
        {"advance", "table/a", T2},
        {"reconcile", "v"},
        {"advance", "table/b", T3},
        {"reconcile", "v"}},
       {T2},
       {}},
      {"any: the newest; an input behind it fires nothing",
       "any",
       {{"advance", "table/a", T1},
        {"reconcile", "v"},
        {"advance", "table/b", T0},
        {"reconcile", "v"},
        {"advance", "table/a", T2},
        {"reconcile", "v"}},
       {T1, T2},
       {}},
      {"any: both advancing before the view looks is two advances, in delivery order",
       "any",
       {{"advance", "table/a", T1}, {"advance", "table/b", T2}, {"reconcile", "v"}},
       {T1, T2},
       {}},
      {"all: advances faster than every reconcile lose nothing",
       "all",
       {{"set", "table/a", T1},
        {"set", "table/a", T2},
        {"set", "table/b", T3},
        {"reconcile", "v"},
        {"deliver", "table/a"},
        {"deliver", "table/b"},
        {"reconcile", "v"},
        {"reconcile", "v"}},
       {T2},
       {}},
      {"any: advances faster than every reconcile are one fire each",
       "any",
       {{"set", "table/a", T1},
        {"set", "table/a", T2},
        {"set", "table/b", T3},
        {"reconcile", "v"},
        {"deliver", "table/a"},
        {"deliver", "table/b"},
        {"reconcile", "v"}},
       {T1, T2, T3},
       {}},
      {"an input written without a queue (hop apply of a status) counts as stored",
       "any",
       {{"raw", "table/a", T2}, {"reconcile", "v"}},
       {T2},
       {}},
      {"all: a dropped input holds the view until it is back and advanced",
       "all",
       {{"advance", "table/a", T1},
        {"advance", "table/b", T1},
        {"reconcile", "v"},
        {"drop", "table/b"},
        {"advance", "table/a", T2},
        {"reconcile", "v"},
        {"table", "b"},
        {"reconcile", "v"},
        {"advance", "table/b", T3},
        {"reconcile", "v"}},
       {T1, T2},
       {}},
      {"any: a dropped input no longer counts; the watermark never moves back",
       "any",
       {{"advance", "table/b", T2},
        {"reconcile", "v"},
        {"drop", "table/b"},
        {"advance", "table/a", T1},
        {"reconcile", "v"},
        {"advance", "table/a", T3},
        {"reconcile", "v"}},
       {T2, T3},
       {}},
      {"views of views: w (any) over v (all) and c",
       "all",
       {{"advance", "table/a", T1},
        {"advance", "table/b", T2},
        {"reconcile", "w"},
        {"reconcile", "v"},
        {"reconcile", "w"},
        {"reconcile", "v"},
        {"advance", "table/c", T3},
        {"reconcile", "w"},
        {"reconcile", "w"}},
       {T1},
       {T1, T3}},
  };
  for (const Case& c : kCases) {
    TearDown();
    SetUp();
    for (const char* t : {"a", "b", "c"}) MakeTable(t);
    MakeView("v", c.policy, "table/a, table/b");
    MakeView("w", "any", "view/v,table/c");
    for (const Step& step : c.steps) {
      const std::string op = step.op;
      if (op == "advance") Advance(step.what, step.at);
      if (op == "set") Set(step.what, step.at);
      if (op == "deliver") Deliver(step.what);
      if (op == "raw") {
        Resource r = *store_->Get(Ref(step.what));
        r.mutable_status()["watermark"] = step.at;
        ASSERT_TRUE(store_->UpdateStatus(r).ok());
      }
      if (op == "drop") Drop(step.what);
      if (op == "table") MakeTable(step.what);
      if (op == "reconcile") Reconcile(step.what);
      if (::testing::Test::HasFatalFailure()) FAIL() << c.name << ": " << op << " " << step.what;
    }
    EXPECT_EQ(Fires("v"), c.want_v) << c.name;
    EXPECT_EQ(Fires("w"), c.want_w) << c.name;
  }
}

// A view without the option is not derived: its inputs advancing leave it alone.
TEST_F(DerivedViewTest, APlainViewWithoutThePolicyKeepsItsOwnWatermark) {
  MakeTable("a");
  Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: View\nmetadata: {name: p}\n"
      "spec: {view: P, schema: S, sql: SELECT 1}\n");
  Advance("table/a", "2026-03-01T01:00:00Z");
  Reconcile("p");
  EXPECT_EQ(store_->Get(Ref("view/p"))->status(), nullptr);
  // And the mapper sends an input's event only to the derived views that read it.
  MakeView("v", "all", "table/a");
  MakeView("u", "all", "table/b");
  store::Event event;
  event.object = *store_->Get(Ref("table/a"));
  std::vector<Request> requests = DerivedViewsOf(*store_)(event);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].ref.name, "v");
}

}  // namespace
}  // namespace hop::op
