// What keeps a state directory busy (BusyWork), object by object, against a real store: each case
// writes one object as a reconciler or a FIRE would leave it and says whether it is busy and why;
// and WaitUntilIdle's timeout, which names what is left.
#include "session/control_plane.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "resource/yaml.h"
#include "store/sqlite_store.h"
#include "test/lib/fixtures.h"

namespace hop::session {
namespace {

using resource::Resource;

constexpr const char* kNow = "2026-03-01T12:30:00Z";

Resource Parse(const std::string& yaml) {
  auto docs = ParseYamlDocuments(yaml, "test");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  auto r = Resource::FromJson((*docs)[0], "test");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return *r;
}

std::string Trigger(const std::string& spec, const std::string& status) {
  return "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: TableTrigger\n"
         "metadata: {name: t, labels: {view: ads-v}}\n"
         "spec: {schema: ADS, table: V, yaml: x" +
         spec + "}\nstatus: " + status + "\n";
}

std::string Job(const std::string& spec, const std::string& status) {
  return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {template: {}" + spec +
         "}\nstatus: " + status + "\n";
}

const char* const kRunning =
    "[{name: t-1, namespace: default, from: '1970-01-01T00:00:00.000Z', "
    "to: '2026-03-01T12:00:00.000Z', started: '2026-03-01T12:00:00.000Z'}]";
const char* const kFailed =
    "[{name: t-1, namespace: default, from: '1970-01-01T00:00:00.000Z', "
    "to: '2026-03-01T12:00:00.000Z', started: '2026-03-01T12:00:00.000Z', "
    "finished: '2026-03-01T12:01:00.000Z', outcome: Failed}]";

TEST(BusyWorkTest, SaysWhatIsLeftToDo) {
  struct Case {
    const char* name;
    std::vector<std::string> objects;  // YAML, written with their status
    const char* busy;                  // the items, "; "-joined; "" for idle
  };
  const std::string waiting = "{timestamp: '2026-03-01T12:00:00.000Z'}";
  const Case kCases[] = {
      {"nothing", {}, ""},
      {"a fire waits for its run",
       {Trigger("", waiting)},
       "TableTrigger default/t: the fire at 2026-03-01T12:00:00.000Z waits for its run"},
      {"a paused trigger holds it", {Trigger(", paused: true", waiting)}, ""},
      {"no run can start for it",
       {Trigger("", "{timestamp: '2026-03-01T12:00:00.000Z', message: 'Cannot start a run: x'}")},
       ""},
      {"a run is going",
       {Trigger(", paused: true",
                std::string("{timestamp: '2026-03-01T12:00:00.000Z', jobs: ") + kRunning + "}")},
       "TableTrigger default/t: run t-1 is going"},
      {"a failed run is over",
       {Trigger("", std::string("{timestamp: '2026-03-01T12:00:00.000Z', jobs: ") + kFailed + "}")},
       ""},
      {"a retry is asked for",
       {Trigger("", std::string("{timestamp: '2026-03-01T12:00:00.000Z', retry: "
                                "'2026-03-01T12:00:00.000Z', jobs: ") +
                        kFailed + "}")},
       "TableTrigger default/t: the retry of the run ending at 2026-03-01T12:00:00.000Z waits to "
       "start"},
      {"Each: the fires after a run",
       {Trigger(", firePolicy: Each",
                std::string("{timestamp: '2026-03-01T12:10:00.000Z', pending: "
                            "['2026-03-01T12:00:00.000Z', '2026-03-01T12:10:00.000Z'], jobs: ") +
                    kFailed + "}")},
       "TableTrigger default/t: the fire at 2026-03-01T12:10:00.000Z waits for its run"},
      {"a cron tick is due",
       {Trigger(", schedule: '0 * * * *'", "{lastSchedule: '2026-03-01T11:00:00.000Z'}")},
       "TableTrigger default/t: the cron tick at 2026-03-01T12:00:00.000Z is due"},
      {"the next cron tick is not",
       {Trigger(", schedule: '0 * * * *'", "{lastSchedule: '2026-03-01T12:00:00.000Z'}")},
       ""},
      {"a view's queued watermarks",
       {"apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: View\nmetadata: {name: ads-v}\n"
        "spec: {view: V, sql: x}\nstatus: {watermark: '2026-03-01T12:00:00.000Z', pendingFires: "
        "['2026-03-01T12:00:00.000Z']}\n"},
       "View default/ads-v: watermarks wait to be given to its triggers"},
      {"a view ahead of its trigger",
       {"apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: View\nmetadata: {name: ads-v}\n"
        "spec: {view: V, sql: x}\nstatus: {watermark: '2026-03-01T12:20:00.000Z'}\n",
        Trigger("", std::string("{timestamp: '2026-03-01T12:00:00.000Z', watermark: "
                                "'2026-03-01T12:00:00.000Z'}"))},
       "View default/ads-v: its watermark 2026-03-01T12:20:00.000Z has not reached trigger t yet"},
      {"a view its trigger has caught up with",
       {"apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: View\nmetadata: {name: ads-v}\n"
        "spec: {view: V, sql: x}\nstatus: {watermark: '2026-03-01T12:00:00.000Z'}\n",
        Trigger("", std::string("{timestamp: '2026-03-01T12:00:00.000Z', watermark: "
                                "'2026-03-01T12:00:00.000Z'}"))},
       ""},
      {"a Job not started", {Job("", "{}")}, "Job default/j has not started"},
      {"a Job running",
       {Job("", "{active: 1, hop: {attempts: 2, pid: 4242}}")},
       "Job default/j: attempt 2 is running"},
      {"a Job waiting to retry",
       {Job("", "{failed: 1, hop: {attempts: 1}}")},
       "Job default/j: a retry waits, after 1 failed attempt"},
      {"a suspended Job", {Job(", suspend: true", "{}")}, ""},
      {"a finished Job",
       {Job("", "{failed: 1, conditions: [{type: Failed, status: 'True'}]}")},
       ""},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    testing::TempDir dir;
    store::SqliteStoreOptions opts;
    opts.durable = false;
    auto store = store::SqliteStore::Open(dir.path(), opts);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    for (const std::string& yaml : c.objects) {
      Resource object = Parse(yaml);
      const Json status = *object.status();
      auto created = (*store)->Create(object);
      ASSERT_TRUE(created.ok()) << created.status().ToString();
      created->set_status(status);
      ASSERT_TRUE((*store)->UpdateStatus(*created).ok());
    }
    auto busy = BusyWork(**store, *ParseRfc3339(kNow));
    ASSERT_TRUE(busy.ok()) << busy.status().ToString();
    std::string joined;
    for (const std::string& item : *busy) joined += (joined.empty() ? "" : "; ") + item;
    EXPECT_EQ(joined, c.busy);
  }
}

TEST(BusyWorkTest, AWaitThatTimesOutSaysWhatIsLeft) {
  testing::TempDir dir;
  auto store = store::SqliteStore::Open(dir.path());
  ASSERT_TRUE(store.ok());
  Resource job = Parse(Job("", "{}"));
  ASSERT_TRUE((*store)->Create(job).ok());
  WaitOptions options;
  options.timeout = std::chrono::milliseconds(0);
  options.state_dir = dir.path();
  Status st = WaitUntilIdle(**store, options);
  EXPECT_EQ(st.code(), StatusCode::kUnavailable);
  EXPECT_EQ(st.message(),
            "still busy after 0 s: Job default/j has not started (no process reconciles the "
            "state directory: hop serve would)");
  ASSERT_TRUE((*store)->Delete(store::RefOf(job)).ok());
  EXPECT_TRUE(WaitUntilIdle(**store, options).ok());
}

// `!wait` and `hop wait` hand WaitUntilIdle a control plane that has not run: it runs when a
// look finds work for it, and on a converged state directory it never does.
TEST(WaitUntilIdleTest, RunsTheControlPlaneOnlyWhenThereIsWorkForIt) {
  testing::TempDir dir;
  auto store = store::SqliteStore::Open(dir.path());
  ASSERT_TRUE(store.ok());
  ControlPlaneOptions cpo;
  cpo.state_dir = dir.path();
  WaitOptions wait;
  wait.timeout = std::chrono::seconds(60);
  // Waits with a control plane of its own; whether that ran.
  auto ran = [&] {
    std::unique_ptr<ControlPlane> cp = ControlPlane::Create(**store, cpo);
    wait.control_plane = cp.get();
    Status st = WaitUntilIdle(**store, wait);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return cp->ran();
  };
  // A wait of 0 looks once and starts nothing, checkpoint or not.
  wait.timeout = std::chrono::milliseconds(0);
  EXPECT_FALSE(ran());
  wait.timeout = std::chrono::seconds(60);
  EXPECT_TRUE(ran());   // no operator has left a checkpoint yet
  EXPECT_FALSE(ran());  // it left one at the store's revision
  // A Job to run: the control plane runs, the Job's process runs and finishes before the wait
  // returns.
  Resource job = Parse(Job(", backoffLimit: 0", "{}"));
  job.mutable_json()["spec"]["template"] = Json::parse(
      R"({"spec": {"restartPolicy": "Never",
                   "containers": [{"name": "main", "image": "x", "command": ["true"]}]}})");
  ASSERT_TRUE((*store)->Create(job).ok());
  EXPECT_TRUE(ran());
  auto done = (*store)->Get(store::RefOf(job));
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(done->status() != nullptr && done->status()->value("succeeded", 0) == 1)
      << done->json().dump();
  EXPECT_FALSE(ran());
  // A write the operator has not seen, whatever its kind.
  ASSERT_TRUE(
      (*store)->Create(Parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")).ok());
  EXPECT_TRUE(ran());
  EXPECT_FALSE(ran());
  // A process left by an attempt no runner has seen end: the runner adopts or kills it.
  std::filesystem::create_directories(dir.path() + "/jobs/default/gone");
  std::ofstream(dir.path() + "/jobs/default/gone/.hop-process")
      << "4194300 1 - uid 1 /nonexistent\n";
  EXPECT_TRUE(ran());
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/jobs/default/gone/.hop-process"));
  EXPECT_FALSE(ran());
}

}  // namespace
}  // namespace hop::session
