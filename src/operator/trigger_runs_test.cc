// PlanTrigger's decisions, step by step, with the time given: fires become runs one at a time,
// runs record their windows, cron ticks (missed ones too) are fires, paused triggers hold fires,
// and a crash between recording a run and creating its Job creates the same Job again.
#include "operator/trigger_runs.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "deploy/trigger_fires.h"
#include "resource/kinds.h"
#include "resource/yaml.h"

namespace hop::op {
namespace {

using resource::Resource;

SystemTime At(const char* text) { return *ParseRfc3339(text); }

constexpr const char* kTrigger = R"(
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: TableTrigger
metadata:
  name: nightly
  namespace: default
  uid: trigger-uid
  creationTimestamp: '2026-03-01T00:00:00Z'
spec:
  schema: ADS
  table: AUDIENCE
  jobProperties: {date: today}
  yaml: |
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: {{trigger}}-report
    spec:
      template:
        spec:
          containers:
          - name: report
            image: busybox
            command: ["echo", "{{schema}}.{{table}} {{watermark}} {{timestamp}} {{date}}"]
          restartPolicy: Never
)";

Resource Trigger(const std::string& extra_spec = "") {
  std::string text = kTrigger;
  if (!extra_spec.empty()) {
    const std::string anchor = "spec:\n";
    text.insert(text.find(anchor) + anchor.size(), extra_spec);
  }
  auto docs = ParseYamlDocuments(text, "trigger");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  return *Resource::FromJson((*docs)[0], "trigger");
}

// A Job as the runtime leaves it when it finished.
Resource Finished(const Resource& job, bool succeeded) {
  Resource out = job;
  Json condition = Json::object();
  condition["type"] = succeeded ? "Complete" : "Failed";
  condition["status"] = "True";
  if (!succeeded) condition["reason"] = "BackoffLimitExceeded";
  Json conditions = Json::array();
  conditions.push_back(std::move(condition));
  out.mutable_status()["conditions"] = std::move(conditions);
  return out;
}

// Applies a plan to the trigger as the reconciler would.
void Apply(Resource& trigger, const TriggerPlan& plan) { trigger = plan.trigger; }

std::string Runs(const Resource& trigger) {
  std::string out;
  const Json* status = trigger.status();
  if (!status || !status->contains("jobs")) return out;
  for (const Json& r : (*status)["jobs"]) {
    out += r.value("name", "") + " (" + r.value("from", "") + ", " + r.value("to", "") + "] " +
           r.value("outcome", "running") + "\n";
  }
  return out;
}

TEST(TriggerPlanTest, AFireRunsAJobForItsWindowAndMovesTheWatermark) {
  Resource t = Trigger();
  // Nothing fired: nothing to do.
  auto plan = PlanTrigger(t, std::nullopt, At("2026-03-01T01:00:00Z"));
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_FALSE(plan->create);

  t.mutable_status()["timestamp"] = "2026-03-01T02:00:00.000Z";
  plan = PlanTrigger(t, std::nullopt, At("2026-03-01T02:00:01Z"));
  ASSERT_TRUE(plan.ok());
  ASSERT_TRUE(plan->create);
  const Resource job = *plan->create;
  EXPECT_EQ(job.name(), "nightly-report-20260301t020000000");
  EXPECT_EQ(job.namespace_name(), "default");
  EXPECT_EQ(job.labels().at("trigger"), "nightly");
  EXPECT_EQ(job.annotations().at("triggerTimestamp"), "2026-03-01T02:00:00.000Z");
  ASSERT_EQ(job.owner_references().size(), 1u);
  EXPECT_EQ(job.owner_references()[0].uid, "trigger-uid");
  const std::string command =
      job.json().at("spec").at("template").at("spec").at("containers").at(0).at("command").at(1);
  EXPECT_EQ(command, "ADS.AUDIENCE 1970-01-01T00:00:00.000Z 2026-03-01T02:00:00.000Z today");
  Apply(t, *plan);
  EXPECT_EQ(Runs(t),
            "nightly-report-20260301t020000000 (1970-01-01T00:00:00.000Z, "
            "2026-03-01T02:00:00.000Z] running\n");

  // Running: nothing new starts, even if another fire arrives.
  t.mutable_status()["timestamp"] = "2026-03-01T02:30:00.000Z";
  plan = PlanTrigger(t, job, At("2026-03-01T02:31:00Z"));
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->create);
  Apply(t, *plan);

  // Done: the watermark moves to the end of its window, its Job goes, and the fire that came
  // meanwhile starts the next run, for the window after.
  plan = PlanTrigger(t, Finished(job, true), At("2026-03-01T02:40:00Z"));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->trigger.status()->at("watermark"), "2026-03-01T02:00:00.000Z");
  ASSERT_TRUE(plan->remove);
  EXPECT_EQ(plan->remove->name, job.name());
  ASSERT_TRUE(plan->create);
  EXPECT_EQ(plan->create->name(), "nightly-report-20260301t023000000");
  Apply(t, *plan);
  EXPECT_EQ(Runs(t),
            "nightly-report-20260301t020000000 (1970-01-01T00:00:00.000Z, "
            "2026-03-01T02:00:00.000Z] Succeeded\n"
            "nightly-report-20260301t023000000 (2026-03-01T02:00:00.000Z, "
            "2026-03-01T02:30:00.000Z] running\n");
}

// The window and names hop gives a job win over job properties, and the window's ends are
// always timestamps in hop's form: what the status holds never reaches the job as text.
TEST(TriggerPlanTest, FireTimeVariablesAreHopsAndTyped) {
  Resource t = Trigger();
  t.mutable_status()["timestamp"] = "2026-03-01T02:00:00.000Z";
  t.mutable_status()["watermark"] = "2026-03-01T01:00:00Z";
  auto plan = PlanTrigger(t, std::nullopt, At("2026-03-01T02:00:01Z"));
  ASSERT_TRUE(plan.ok() && plan->create) << plan.status().ToString();
  const std::string command = plan->create->json()
                                  .at("spec").at("template").at("spec").at("containers").at(0)
                                  .at("command").at(1);
  EXPECT_EQ(command, "ADS.AUDIENCE 2026-03-01T01:00:00.000Z 2026-03-01T02:00:00.000Z today");

  // A watermark that is not a timestamp starts no run, and says why.
  t.mutable_status()["watermark"] = "$(touch /tmp/x)";
  plan = PlanTrigger(t, std::nullopt, At("2026-03-01T02:00:01Z"));
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->create);
  EXPECT_EQ(plan->trigger.status()->at("message"),
            "Cannot start a run: status.watermark '$(touch /tmp/x)' is not a timestamp");

  // A job property that names a fire-time variable starts no run either.
  for (const char* key : {"timestamp", "Watermark", "trigger", "table"}) {
    Resource bad = Trigger();
    resource::TableTriggerKind::kJobProperties.Set(bad, {{key, "$(touch /tmp/x)"}});
    bad.mutable_status()["timestamp"] = "2026-03-01T02:00:00.000Z";
    plan = PlanTrigger(bad, std::nullopt, At("2026-03-01T02:00:01Z"));
    ASSERT_TRUE(plan.ok());
    EXPECT_FALSE(plan->create) << key;
    EXPECT_NE(plan->trigger.status()->value("message", "").find("which hop gives the trigger's"),
              std::string::npos)
        << key;
  }
}

TEST(TriggerPlanTest, FiresDuringARunAreCoalescedOrEachRunInOrder) {
  for (bool each : {false, true}) {
    SCOPED_TRACE(each ? "Each" : "Coalesce");
    Resource t = Trigger(each ? "  firePolicy: Each\n" : "");
    Json& st = t.mutable_status();
    deploy::TriggerFires fires(st, each);
    fires.Record(At("2026-03-01T01:00:00Z"));
    auto plan = PlanTrigger(t, std::nullopt, At("2026-03-01T01:00:01Z"));
    ASSERT_TRUE(plan->create);
    Resource job = *plan->create;
    Apply(t, *plan);
    // Three more fires while it runs.
    {
      deploy::TriggerFires more(t.mutable_status(), each);
      for (const char* f :
           {"2026-03-01T01:10:00Z", "2026-03-01T01:20:00Z", "2026-03-01T01:30:00Z"}) {
        more.Record(At(f));
      }
    }
    // The rest run: one run for all three, or three runs one after the other.
    std::vector<std::string> windows;
    SystemTime now = At("2026-03-01T02:00:00Z");
    for (int i = 0; i < 5; ++i) {
      plan = PlanTrigger(t, Finished(job, true), now);
      ASSERT_TRUE(plan.ok());
      Apply(t, *plan);
      if (!plan->create) break;
      job = *plan->create;
      windows.push_back(job.annotations().at("hop.dev/window-from") + " " +
                        job.annotations().at("triggerTimestamp"));
      now += std::chrono::minutes(1);
    }
    if (each) {
      EXPECT_EQ(windows,
                (std::vector<std::string>{"2026-03-01T01:00:00.000Z 2026-03-01T01:10:00.000Z",
                                          "2026-03-01T01:10:00.000Z 2026-03-01T01:20:00.000Z",
                                          "2026-03-01T01:20:00.000Z 2026-03-01T01:30:00.000Z"}));
    } else {
      EXPECT_EQ(windows,
                (std::vector<std::string>{"2026-03-01T01:00:00.000Z 2026-03-01T01:30:00.000Z"}));
    }
    EXPECT_EQ(t.status()->at("watermark"), "2026-03-01T01:30:00.000Z");
  }
}

TEST(TriggerPlanTest, APausedTriggerHoldsItsFiresUntilResumed) {
  Resource t = Trigger("  paused: true\n");
  t.mutable_status()["timestamp"] = "2026-03-01T02:00:00.000Z";
  auto plan = PlanTrigger(t, std::nullopt, At("2026-03-01T03:00:00Z"));
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->create);
  Apply(t, *plan);
  t.mutable_json()["spec"]["paused"] = false;
  plan = PlanTrigger(t, std::nullopt, At("2026-03-01T04:00:00Z"));
  ASSERT_TRUE(plan->create);
  EXPECT_EQ(plan->create->annotations().at("triggerTimestamp"), "2026-03-01T02:00:00.000Z");
}

TEST(TriggerPlanTest, CronTicksAreFiresAndMissedOnesAreCaughtUp) {
  // Hourly; created at 00:00; hop looks at 00:30 (nothing), then not until 03:10.
  for (bool each : {false, true}) {
    SCOPED_TRACE(each ? "Each" : "Coalesce");
    Resource t =
        Trigger(std::string("  schedule: '0 * * * *'\n") + (each ? "  firePolicy: Each\n" : ""));
    auto plan = PlanTrigger(t, std::nullopt, At("2026-03-01T00:30:00Z"));
    ASSERT_TRUE(plan.ok());
    EXPECT_FALSE(plan->create);
    ASSERT_TRUE(plan->requeue_after);
    EXPECT_EQ(*plan->requeue_after, std::chrono::minutes(30) + std::chrono::milliseconds(1));
    Apply(t, *plan);

    plan = PlanTrigger(t, std::nullopt, At("2026-03-01T03:10:00Z"));
    ASSERT_TRUE(plan->create);
    EXPECT_EQ(plan->trigger.status()->at("lastSchedule"), "2026-03-01T03:00:00.000Z");
    EXPECT_EQ(plan->create->annotations().at("triggerTimestamp"),
              each ? "2026-03-01T01:00:00.000Z" : "2026-03-01T03:00:00.000Z");
    if (each) {
      EXPECT_EQ(plan->trigger.status()->at("pending").size(), 3u);
    }
    // Looking again within the hour fires nothing new.
    Apply(t, *plan);
    Resource job = *plan->create;
    plan = PlanTrigger(t, job, At("2026-03-01T03:20:00Z"));
    EXPECT_FALSE(plan->create);
    EXPECT_EQ(plan->trigger.status()->at("lastSchedule"), "2026-03-01T03:00:00.000Z");
  }
}

TEST(TriggerPlanTest, ARunWhoseJobDisappearsFailsAndTheNextFireCoversItsWindow) {
  // A run and its Job are written in one commit, so a run without its Job lost it.
  Resource t = Trigger();
  t.mutable_status()["timestamp"] = "2026-03-01T02:00:00.000Z";
  auto first = PlanTrigger(t, std::nullopt, At("2026-03-01T02:00:01Z"));
  Apply(t, *first);
  auto lost = PlanTrigger(t, std::nullopt, At("2026-03-01T02:05:00Z"));
  ASSERT_TRUE(lost.ok());
  EXPECT_FALSE(lost->create);
  EXPECT_EQ(lost->trigger.status()->at("message"),
            "Run nightly-report-20260301t020000000 failed: its Job was deleted");
  Apply(t, *lost);
  deploy::TriggerFires(t.mutable_status(), false).Record(At("2026-03-01T03:00:00Z"));
  auto next = PlanTrigger(t, std::nullopt, At("2026-03-01T03:00:01Z"));
  ASSERT_TRUE(next->create);
  EXPECT_EQ(next->create->annotations().at("hop.dev/window-from"), "1970-01-01T00:00:00.000Z");
}

TEST(TriggerPlanTest, AFailedRunKeepsTheWatermarkAndSaysWhy) {
  Resource t = Trigger();
  t.mutable_status()["timestamp"] = "2026-03-01T02:00:00.000Z";
  auto plan = PlanTrigger(t, std::nullopt, At("2026-03-01T02:00:01Z"));
  Resource job = *plan->create;
  Apply(t, *plan);
  plan = PlanTrigger(t, Finished(job, false), At("2026-03-01T02:10:00Z"));
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->trigger.status()->contains("watermark"));
  EXPECT_EQ(plan->trigger.status()->at("message"),
            "Run nightly-report-20260301t020000000 failed: BackoffLimitExceeded");
  EXPECT_FALSE(plan->create);  // the next fire tries the window again
}

// A failed run is over (issue #11): the trigger takes the next fire at once, and that run's
// window starts at the old watermark, so it covers the failed one; the failed fire itself, seen
// again (a view's resync records its watermark again), starts nothing.
TEST(TriggerPlanTest, AFailedRunNeverWedgesItsTrigger) {
  for (bool each : {false, true}) {
    SCOPED_TRACE(each ? "Each" : "Coalesce");
    Resource t = Trigger(each ? "  firePolicy: Each\n" : "");
    t.mutable_status()["watermark"] = "2026-03-01T01:00:00.000Z";
    deploy::TriggerFires(t.mutable_status(), each).Record(At("2026-03-01T02:00:00Z"));
    auto plan = PlanTrigger(t, std::nullopt, At("2026-03-01T02:00:01Z"));
    ASSERT_TRUE(plan.ok() && plan->create);
    EXPECT_EQ(plan->trigger.status()->at("lastRun"), "Running");
    Resource job = *plan->create;
    Apply(t, *plan);

    plan = PlanTrigger(t, Finished(job, false), At("2026-03-01T02:10:00Z"));
    ASSERT_TRUE(plan.ok());
    EXPECT_FALSE(plan->create);
    EXPECT_EQ(plan->trigger.status()->at("lastRun"), "Failed");
    Apply(t, *plan);
    {
      Json copy = *t.status();
      deploy::TriggerFires fires(copy, each);
      EXPECT_FALSE(fires.Running());
      EXPECT_FALSE(fires.Waiting());             // so FIRE TRIGGER is accepted again
      fires.Record(At("2026-03-01T02:00:00Z"));  // the failed fire again
      EXPECT_FALSE(fires.Waiting());
      EXPECT_EQ(copy, *t.status());
    }
    plan = PlanTrigger(t, std::nullopt, At("2026-03-01T02:20:00Z"));
    EXPECT_FALSE(plan->create);

    deploy::TriggerFires(t.mutable_status(), each).Record(At("2026-03-01T03:00:00Z"));
    plan = PlanTrigger(t, std::nullopt, At("2026-03-01T03:00:01Z"));
    ASSERT_TRUE(plan.ok() && plan->create);
    EXPECT_EQ(plan->create->annotations().at("hop.dev/window-from"), "2026-03-01T01:00:00.000Z");
    EXPECT_EQ(plan->create->annotations().at("triggerTimestamp"), "2026-03-01T03:00:00.000Z");
    Apply(t, *plan);
    plan = PlanTrigger(t, Finished(*plan->create, true), At("2026-03-01T03:10:00Z"));
    EXPECT_EQ(plan->trigger.status()->at("watermark"), "2026-03-01T03:00:00.000Z");
    EXPECT_EQ(plan->trigger.status()->at("lastRun"), "Succeeded");
    EXPECT_FALSE(plan->trigger.status()->contains("message"));
  }
}

// An Each trigger whose run lost its Job goes on with the next fire instead of waiting forever
// on the lost one.
TEST(TriggerPlanTest, AnEachTriggerGoesOnAfterARunLostItsJob) {
  Resource t = Trigger("  firePolicy: Each\n");
  deploy::TriggerFires(t.mutable_status(), true).Record(At("2026-03-01T02:00:00Z"));
  auto plan = PlanTrigger(t, std::nullopt, At("2026-03-01T02:00:01Z"));
  ASSERT_TRUE(plan->create);
  Apply(t, *plan);
  plan = PlanTrigger(t, std::nullopt, At("2026-03-01T02:05:00Z"));  // its Job is gone
  Apply(t, *plan);
  EXPECT_EQ(t.status()->at("lastRun"), "Failed");
  deploy::TriggerFires(t.mutable_status(), true).Record(At("2026-03-01T03:00:00Z"));
  plan = PlanTrigger(t, std::nullopt, At("2026-03-01T03:00:01Z"));
  ASSERT_TRUE(plan->create);
  EXPECT_EQ(plan->create->annotations().at("triggerTimestamp"), "2026-03-01T03:00:00.000Z");
  EXPECT_EQ(plan->create->annotations().at("hop.dev/window-from"), "1970-01-01T00:00:00.000Z");
}

// FIRE TRIGGER ... RETRY: the failed window runs again, exactly, in a Job of its own name; a
// retry that fails can be retried again; a retry asked for while paused waits for RESUME.
TEST(TriggerPlanTest, ARetryRunsTheFailedWindowAgain) {
  Resource t = Trigger();
  t.mutable_status()["watermark"] = "2026-03-01T01:00:00.000Z";
  deploy::TriggerFires(t.mutable_status(), false).Record(At("2026-03-01T02:00:00Z"));
  auto plan = PlanTrigger(t, std::nullopt, At("2026-03-01T02:00:01Z"));
  Resource job = *plan->create;
  Apply(t, *plan);
  // Nothing to retry while it runs.
  EXPECT_EQ(deploy::TriggerFires(t.mutable_status(), false).RequestRetry("NIGHTLY").code(),
            StatusCode::kConflict);
  plan = PlanTrigger(t, Finished(job, false), At("2026-03-01T02:10:00Z"));
  Apply(t, *plan);

  for (int retry = 1; retry <= 2; ++retry) {
    SCOPED_TRACE(retry);
    ASSERT_TRUE(deploy::TriggerFires(t.mutable_status(), false).RequestRetry("NIGHTLY").ok());
    EXPECT_EQ(deploy::TriggerFires(t.mutable_status(), false).RequestRetry("NIGHTLY").code(),
              StatusCode::kConflict);  // asked for already
    t.mutable_json()["spec"]["paused"] = true;
    plan = PlanTrigger(t, std::nullopt, At("2026-03-01T02:20:00Z"));
    EXPECT_FALSE(plan->create);
    Apply(t, *plan);
    t.mutable_json()["spec"]["paused"] = false;
    plan = PlanTrigger(t, std::nullopt, At("2026-03-01T02:30:00Z"));
    ASSERT_TRUE(plan.ok() && plan->create);
    job = *plan->create;
    EXPECT_EQ(job.name(), "nightly-report-20260301t020000000-r" + std::to_string(retry));
    EXPECT_EQ(job.annotations().at("hop.dev/window-from"), "2026-03-01T01:00:00.000Z");
    EXPECT_EQ(job.annotations().at("triggerTimestamp"), "2026-03-01T02:00:00.000Z");
    EXPECT_FALSE(plan->trigger.status()->contains("retry"));
    EXPECT_EQ(plan->trigger.status()->at("jobs").back().at("retry"), retry);
    Apply(t, *plan);
    plan = PlanTrigger(t, Finished(job, false), At("2026-03-01T02:40:00Z"));
    Apply(t, *plan);
  }
  ASSERT_TRUE(deploy::TriggerFires(t.mutable_status(), false).RequestRetry("NIGHTLY").ok());
  plan = PlanTrigger(t, std::nullopt, At("2026-03-01T02:50:00Z"));
  Apply(t, *plan);
  plan = PlanTrigger(t, Finished(*plan->create, true), At("2026-03-01T03:00:00Z"));
  EXPECT_EQ(plan->trigger.status()->at("watermark"), "2026-03-01T02:00:00.000Z");
  Apply(t, *plan);
  // Succeeded: nothing to retry.
  EXPECT_EQ(deploy::TriggerFires(t.mutable_status(), false).RequestRetry("NIGHTLY").code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Runs(t).substr(Runs(t).rfind("nightly")),
            "nightly-report-20260301t020000000-r3 (2026-03-01T01:00:00.000Z, "
            "2026-03-01T02:00:00.000Z] Succeeded\n");
}

TEST(TriggerPlanTest, AJobThatCannotRenderIsReportedNotStarted) {
  Resource t = Trigger();
  t.mutable_json()["spec"]["yaml"] = "name: {{missing}}\n";
  t.mutable_status()["timestamp"] = "2026-03-01T02:00:00.000Z";
  auto plan = PlanTrigger(t, std::nullopt, At("2026-03-01T02:00:01Z"));
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->create);
  EXPECT_EQ(plan->trigger.status()->at("message"),
            "Cannot start a run: its job does not render: variable 'missing' is missing at line "
            "1, column 7");
}

TEST(TriggerPlanTest, RunJobNamesFitKubernetes) {
  EXPECT_EQ(RunJobName("report", At("2026-03-01T02:00:00.123Z")), "report-20260301t020000123");
  const std::string name = RunJobName(std::string(80, 'a'), At("2026-03-01T02:00:00Z"));
  EXPECT_EQ(name.size(), 63u);
  EXPECT_EQ(name.substr(name.size() - 19), "-20260301t020000000");
  const std::string retried = RunJobName(std::string(80, 'a'), At("2026-03-01T02:00:00Z"), 12);
  EXPECT_EQ(retried.size(), 63u);
  EXPECT_EQ(retried.substr(retried.size() - 23), "-20260301t020000000-r12");
}

// What a run's Job materialises: the trigger's outputs and the Job's own annotation, joined on
// the Job; a run that succeeds says to advance them to its window's end, one that fails does not.
TEST(TriggerPlanTest, ARunsDeclaredOutputsAdvanceOnlyWhenItSucceeds) {
  Resource t = Trigger("  outputs: [table/filled]\n");
  Json& yaml = t.mutable_json()["spec"]["yaml"];
  std::string text = yaml.get<std::string>();
  text.replace(text.find("  name: {{trigger}}-report\n"), 27,
               "  name: {{trigger}}-report\n  annotations: {hop.dev/outputs: view/v}\n");
  yaml = text;
  t.mutable_status()["timestamp"] = "2026-03-01T02:00:00.000Z";
  auto plan = PlanTrigger(t, std::nullopt, At("2026-03-01T02:00:01Z"));
  ASSERT_TRUE(plan.ok() && plan->create) << t.json().dump();
  const Resource job = *plan->create;
  EXPECT_EQ(job.annotations().at("hop.dev/outputs"), "table/filled,view/v");
  Apply(t, *plan);

  auto failed = PlanTrigger(t, Finished(job, false), At("2026-03-01T02:10:00Z"));
  ASSERT_TRUE(failed.ok());
  EXPECT_TRUE(failed->outputs.empty());

  auto succeeded = PlanTrigger(t, Finished(job, true), At("2026-03-01T02:10:00Z"));
  ASSERT_TRUE(succeeded.ok());
  ASSERT_EQ(succeeded->outputs.size(), 2u);
  EXPECT_EQ(succeeded->outputs[0].kind, resource::TableKind::Info().group_kind());
  EXPECT_EQ(succeeded->outputs[0].name, "filled");
  EXPECT_EQ(succeeded->outputs[0].namespace_name, "default");
  EXPECT_EQ(succeeded->outputs[1].kind, resource::ViewKind::Info().group_kind());
  EXPECT_EQ(succeeded->outputs_to, At("2026-03-01T02:00:00Z"));

  // An output of another form (a TableTrigger written by hand) starts no run, and says why.
  Resource bad = Trigger("  outputs: ['job/x']\n");
  bad.mutable_status()["timestamp"] = "2026-03-01T02:00:00.000Z";
  plan = PlanTrigger(bad, std::nullopt, At("2026-03-01T02:00:01Z"));
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->create);
  EXPECT_EQ(plan->trigger.status()->at("message"),
            "Cannot start a run: its outputs (hop.dev/outputs): 'job/x' is not table/NAME or "
            "view/NAME (a Table or View resource)");
}

}  // namespace
}  // namespace hop::op
