// The TableTrigger reconciler against a real store: a fire becomes a run recorded with its Job,
// a Job made by a reconcile that could not record it is not made twice, a schedule that is not
// cron fails for good, and a Job's events reach the trigger that started it.
#include "operator/trigger_reconciler.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/time.h"
#include "operator/reconciler_test_fixture.h"
#include "operator/reconciler_util.h"
#include "operator/trigger_runs.h"
#include "resource/kinds.h"

namespace hop::op {
namespace {

using resource::Resource;

constexpr const char* kTrigger = R"(
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: TableTrigger
metadata: {name: nightly}
spec:
  schema: ADS
  table: AUDIENCE
  yaml: |
    apiVersion: batch/v1
    kind: Job
    metadata: {name: report}
    spec:
      template:
        spec:
          containers: [{name: report, image: busybox, command: [echo, '{{timestamp}}']}]
          restartPolicy: Never
)";

const store::ObjectRef kJob{{"batch", "Job"}, "default", "report-20260301t020000000"};

class TriggerReconcilerTest : public ReconcilerStoreTest {
 protected:
  // The trigger, fired at 02:00.
  Resource Fired(const std::string& extra_spec = "") {
    std::string yaml = kTrigger;
    yaml.insert(yaml.find("spec:\n") + 6, extra_spec);
    Resource trigger = Create(yaml);
    trigger.mutable_status()["timestamp"] = "2026-03-01T02:00:00.000Z";
    return *store_->UpdateStatus(trigger);
  }
};

TEST_F(TriggerReconcilerTest, AFireStartsARunRecordedWithItsJob) {
  Resource trigger = Fired();
  TriggerReconciler reconciler(*store_);
  auto result = reconciler.Reconcile({store::RefOf(trigger)}, Context());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_FALSE(result->terminal);
  EXPECT_TRUE(result->requeue_after);  // the run is looked at again
  auto job = store_->Get(kJob);
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  trigger = *store_->Get(store::RefOf(trigger));
  EXPECT_EQ(trigger.status()->at("jobs").at(0).at("name"), kJob.name);
  EXPECT_EQ(trigger.status()->at("lastRun"), "Running");
  // Both in one commit, the Job first (so that no status records a run whose Job a store
  // without atomic batches did not write), the status right after, nothing between.
  EXPECT_EQ(std::stoll(trigger.resource_version()), std::stoll(job->resource_version()) + 1);
  // Again: nothing changes.
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(trigger)}, Context()).ok());
  EXPECT_EQ(store_->Get(store::RefOf(trigger))->resource_version(), trigger.resource_version());
  // The Job's events reach the trigger.
  store::Event event;
  event.object = *job;
  const std::vector<Request> mapped = TriggerReconciler::JobEvent(event);
  ASSERT_EQ(mapped.size(), 1u);
  EXPECT_EQ(RequestText(mapped[0]), "TableTrigger default/nightly");
  event.object = Parse("apiVersion: batch/v1\nkind: Job\nmetadata: {name: alone}\n");
  EXPECT_TRUE(TriggerReconciler::JobEvent(event).empty());
}

// A reconcile that created the run's Job but could not record the run (it was killed, or lost a
// race) leaves the Job: the next one records the run and does not create it again.
TEST_F(TriggerReconcilerTest, ARunsJobIsNeverCreatedTwice) {
  Resource trigger = Fired();
  auto plan = PlanTrigger(trigger, std::nullopt, SystemClock().Now());
  ASSERT_TRUE(plan.ok() && plan->create);
  Resource made = *store_->Create(*plan->create);
  TriggerReconciler reconciler(*store_);
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(trigger)}, Context()).ok());
  EXPECT_EQ(store_->Get(kJob)->uid(), made.uid());
  EXPECT_EQ(store_->Get(store::RefOf(trigger))->status()->at("jobs").at(0).at("name"), kJob.name);
}

// The same when another fire came in between (a coalescing trigger would plan a wider window,
// and a second Job): the Job made is adopted as the current run, over its own window, and the
// later fire gets the next run, from where that one ends.
TEST_F(TriggerReconcilerTest, AJobMadeButNotRecordedIsAdoptedBeforeAnyOtherRunStarts) {
  Resource trigger = Fired();
  auto plan = PlanTrigger(trigger, std::nullopt, SystemClock().Now());
  ASSERT_TRUE(plan.ok() && plan->create);
  Resource made = *store_->Create(*plan->create);
  trigger.mutable_status()["timestamp"] = "2026-03-01T03:00:00.000Z";
  trigger = *store_->UpdateStatus(trigger);
  NonAtomicStore cluster(*store_);  // only where batches are not atomic can this happen
  TriggerReconciler reconciler(cluster);
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(trigger)}, Context()).ok());
  auto jobs = store_->List({kJob.kind, "default", {}});
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->items.size(), 1u) << "a second run started beside the one not recorded";
  trigger = *store_->Get(store::RefOf(trigger));
  const Json& run = trigger.status()->at("jobs").at(0);
  EXPECT_EQ(run.at("name"), kJob.name);
  EXPECT_EQ(run.at("to"), "2026-03-01T02:00:00.000Z");
  EXPECT_FALSE(run.contains("finished"));
  // It succeeds: the next run covers (02:00, 03:00].
  made = *store_->Get(kJob);
  made.mutable_status()["conditions"] = Json::array({{{"type", "Complete"}, {"status", "True"}}});
  ASSERT_TRUE(store_->UpdateStatus(made).ok());
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(trigger)}, Context()).ok());
  trigger = *store_->Get(store::RefOf(trigger));
  const Json& runs = trigger.status()->at("jobs");
  ASSERT_EQ(runs.size(), 2u) << trigger.ToYaml();
  EXPECT_EQ(runs.at(0).at("outcome"), "Succeeded");
  EXPECT_EQ(runs.at(1).at("from"), "2026-03-01T02:00:00.000Z");
  EXPECT_EQ(runs.at(1).at("to"), "2026-03-01T03:00:00.000Z");
}

// A leftover Job of a window the trigger has covered already is no run to adopt.
TEST_F(TriggerReconcilerTest, ALeftoverJobOfACoveredWindowIsNotAdopted) {
  Resource trigger = Fired();
  auto plan = PlanTrigger(trigger, std::nullopt, SystemClock().Now());
  ASSERT_TRUE(plan.ok() && plan->create);
  ASSERT_TRUE(store_->Create(*plan->create).ok());
  trigger.mutable_status()["watermark"] = "2026-03-01T02:00:00.000Z";
  trigger = *store_->UpdateStatus(trigger);
  NonAtomicStore cluster(*store_);
  auto unrecorded = UnrecordedRunJob(cluster, trigger);
  ASSERT_TRUE(unrecorded.ok());
  EXPECT_FALSE(unrecorded->has_value());
  // Before the window was covered it is one; on an atomic store there is never one to look for.
  trigger.mutable_status()["watermark"] = "2026-03-01T01:00:00.000Z";
  trigger = *store_->UpdateStatus(trigger);
  unrecorded = UnrecordedRunJob(cluster, trigger);
  ASSERT_TRUE(unrecorded.ok());
  EXPECT_TRUE(unrecorded->has_value());
  unrecorded = UnrecordedRunJob(*store_, trigger);
  ASSERT_TRUE(unrecorded.ok());
  EXPECT_FALSE(unrecorded->has_value());
}

// Each run that the trigger's status.jobs (the newest kRunsKept) drops is told of once, as are
// the runs a deleted trigger listed: the local runtime removes their logs.
TEST_F(TriggerReconcilerTest, RunsTheStatusDropsAreToldOfOnce) {
  Resource trigger = Fired();
  std::vector<std::string> told;
  TriggerReconciler reconciler(*store_, [&](const store::ObjectRef& job) {
    EXPECT_EQ(job.kind.group, "batch");
    EXPECT_EQ(job.kind.kind, "Job");
    EXPECT_EQ(job.namespace_name, "default");
    told.push_back(job.name);
  });
  std::vector<std::string> started;
  for (size_t i = 0; i <= kRunsKept + 1; ++i) {
    // A fire at 02:00 + i minutes starts a run; its Job succeeds; the next reconcile records
    // that and deletes the Job.
    trigger = *store_->Get(store::RefOf(trigger));
    trigger.mutable_status()["timestamp"] = fmt::format("2026-03-01T02:{:02}:00.000Z", i);
    trigger = *store_->UpdateStatus(trigger);
    ASSERT_TRUE(reconciler.Reconcile({store::RefOf(trigger)}, Context()).ok());
    trigger = *store_->Get(store::RefOf(trigger));
    const std::string name = trigger.status()->at("jobs").back().at("name");
    started.push_back(name);
    Resource job = *store_->Get({kJob.kind, "default", name});
    job.mutable_status()["conditions"] = Json::array({{{"type", "Complete"}, {"status", "True"}}});
    ASSERT_TRUE(store_->UpdateStatus(job).ok());
    ASSERT_TRUE(reconciler.Reconcile({store::RefOf(trigger)}, Context()).ok());
    ASSERT_EQ(store_->Get({kJob.kind, "default", name}).status().code(), StatusCode::kNotFound);
  }
  // 22 runs: the status lists the newest 20, and the two oldest were told of, in order.
  trigger = *store_->Get(store::RefOf(trigger));
  ASSERT_EQ(trigger.status()->at("jobs").size(), kRunsKept);
  EXPECT_EQ(told, (std::vector<std::string>{started[0], started[1]}));
  // Reconciling again drops nothing.
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(trigger)}, Context()).ok());
  EXPECT_EQ(told.size(), 2u);
  // A run a view's fire starts (FireAndStart) drops none, and neither does the trigger's
  // reconcile while it runs (dropping is no write of its own): the one that records its end
  // does, and tells of it.
  {
    Batch batch(*store_);
    auto fired = FireAndStart(batch, *store_->Get(store::RefOf(trigger)),
                              {*ParseRfc3339("2026-03-01T02:50:00.000Z")}, SystemClock().Now());
    ASSERT_TRUE(fired.ok() && *fired) << fired.status().ToString();
    ASSERT_TRUE(batch.Commit().ok());
  }
  trigger = *store_->Get(store::RefOf(trigger));
  ASSERT_EQ(trigger.status()->at("jobs").size(), kRunsKept + 1);
  EXPECT_EQ(told.size(), 2u);
  const std::string version = trigger.resource_version();
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(trigger)}, Context()).ok());
  trigger = *store_->Get(store::RefOf(trigger));
  EXPECT_EQ(trigger.resource_version(), version);
  ASSERT_EQ(trigger.status()->at("jobs").size(), kRunsKept + 1);
  EXPECT_EQ(told.size(), 2u);
  started.push_back(trigger.status()->at("jobs").back().at("name"));
  Resource job = *store_->Get({kJob.kind, "default", started.back()});
  job.mutable_status()["conditions"] = Json::array({{{"type", "Complete"}, {"status", "True"}}});
  ASSERT_TRUE(store_->UpdateStatus(job).ok());
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(trigger)}, Context()).ok());
  trigger = *store_->Get(store::RefOf(trigger));
  ASSERT_EQ(trigger.status()->at("jobs").size(), kRunsKept);
  EXPECT_EQ(told, (std::vector<std::string>{started[0], started[1], started[2]}));
  // A new reconciler (a restart) knows the runs from its first read: the next run it starts
  // drops the oldest it read.
  std::vector<std::string> told_after;
  TriggerReconciler restarted(*store_,
                              [&](const store::ObjectRef& job) { told_after.push_back(job.name); });
  trigger.mutable_status()["timestamp"] = "2026-03-01T03:00:00.000Z";
  trigger = *store_->UpdateStatus(trigger);
  ASSERT_TRUE(restarted.Reconcile({store::RefOf(trigger)}, Context()).ok());
  EXPECT_EQ(told_after, std::vector<std::string>{started[3]});
  // The trigger deleted: every run it listed is told of.
  told_after.clear();
  const Json listed = store_->Get(store::RefOf(trigger))->status()->at("jobs");
  ASSERT_TRUE(store_->Delete(store::RefOf(trigger)).ok());
  ASSERT_TRUE(restarted.Reconcile({store::RefOf(trigger)}, Context()).ok());
  ASSERT_EQ(told_after.size(), kRunsKept);
  for (size_t i = 0; i < kRunsKept; ++i) EXPECT_EQ(told_after[i], listed.at(i).at("name"));
  // And only once.
  ASSERT_TRUE(restarted.Reconcile({store::RefOf(trigger)}, Context()).ok());
  EXPECT_EQ(told_after.size(), kRunsKept);
}

TEST_F(TriggerReconcilerTest, AScheduleThatIsNotCronFailsForGood) {
  Resource trigger = Fired("  schedule: 'every day'\n");
  TriggerReconciler reconciler(*store_);
  auto result = reconciler.Reconcile({store::RefOf(trigger)}, Context());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_TRUE(result->terminal);
  EXPECT_EQ(result->terminal->status.code(), StatusCode::kInvalidArgument)
      << result->terminal->status.ToString();
  EXPECT_EQ(store_->Get(kJob).status().code(), StatusCode::kNotFound);
  // A trigger that is gone is done.
  ASSERT_TRUE(store_->Delete(store::RefOf(trigger)).ok());
  result = reconciler.Reconcile({store::RefOf(trigger)}, Context());
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->terminal);
}

}  // namespace
}  // namespace hop::op
