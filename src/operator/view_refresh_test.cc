// PlanRefresh's decisions, one case a row, with the time given: what makes a refresh due (a
// REFRESH request, a schedule's tick, an input that advanced), what holds it (a refresh already
// running, PAUSE, no refresh command), and how a finished refresh is recorded.
#include "operator/view_refresh.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "resource/kinds.h"
#include "resource/yaml.h"

namespace hop::op {
namespace {

using resource::Resource;

SystemTime At(const char* text) { return *ParseRfc3339(text); }

Resource View(const std::string& spec_extra, const std::string& status) {
  std::string text = R"(
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: View
metadata:
  name: local-totals
  namespace: default
  uid: view-uid
  creationTimestamp: '2026-03-01T00:00:00Z'
spec:
  view: TOTALS
  schema: LOCAL
  sql: SELECT 1
  materialized: true
)" + spec_extra + (status.empty() ? "" : "status:\n" + status);
  auto docs = ParseYamlDocuments(text, "view");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  return *Resource::FromJson((*docs)[0], "view");
}

Resource FinishedJob(bool succeeded) {
  Json doc = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata", {{"name", "local-totals-refresh-1"}, {"namespace", "default"}}},
              {"status",
               {{"conditions", Json::array({{{"type", succeeded ? "Complete" : "Failed"},
                                             {"status", "True"},
                                             {"reason", "BackoffLimitExceeded"}}})}}}};
  return *Resource::FromJson(doc, "job");
}

struct Case {
  const char* name;
  std::string spec;    // more of the View's spec
  std::string status;  // its status, as YAML under `status:`
  std::optional<Resource> job;
  InputWatermarks inputs;
  bool command = true;
  bool starts;               // a Job is created
  std::string outcome;       // status.refresh.lastOutcome afterwards ("" for none)
  std::string message_part;  // in status.refresh.message ("" for no message)
};

TEST(PlanRefreshTest, DecidesWhenARefreshStarts) {
  const SystemTime now = At("2026-03-02T10:30:00Z");
  const std::vector<Case> cases = {
      {"nothing asked", "", "", std::nullopt, {}, true, false, "", ""},
      {"a request starts one", "", "  timestamp: '2026-03-02T10:00:00.000Z'\n", std::nullopt, {},
       true, true, "", ""},
      {"a request taken already starts none", "",
       "  timestamp: '2026-03-02T10:00:00.000Z'\n  refresh:\n    lastRequest: "
       "'2026-03-02T10:00:00.000Z'\n",
       std::nullopt, {}, true, false, "", ""},
      {"a newer request starts one", "",
       "  timestamp: '2026-03-02T10:05:00.000Z'\n  refresh:\n    lastRequest: "
       "'2026-03-02T10:00:00.000Z'\n",
       std::nullopt, {}, true, true, "", ""},
      {"paused holds a request", "  paused: true\n", "  timestamp: '2026-03-02T10:00:00.000Z'\n",
       std::nullopt, {}, true, false, "", "starts on RESUME"},
      {"no command, no Job, and it says so", "", "  timestamp: '2026-03-02T10:00:00.000Z'\n",
       std::nullopt, {}, false, false, "", "starts no refresh Jobs"},
      {"a running refresh holds a new request", "",
       "  timestamp: '2026-03-02T10:05:00.000Z'\n  refresh:\n    job: local-totals-refresh-1\n",
       Resource::FromJson(Json{{"apiVersion", "batch/v1"},
                               {"kind", "Job"},
                               {"metadata", {{"name", "local-totals-refresh-1"}}}},
                          "job")
           .value(),
       {}, true, false, "", ""},
      {"a finished refresh is recorded", "",
       "  refresh:\n    job: local-totals-refresh-1\n", FinishedJob(true), {}, true, false,
       "Succeeded", ""},
      {"a failed refresh says why", "", "  refresh:\n    job: local-totals-refresh-1\n",
       FinishedJob(false), {}, true, false, "Failed", "BackoffLimitExceeded"},
      {"a refresh whose Job is gone failed", "", "  refresh:\n    job: local-totals-refresh-1\n",
       std::nullopt, {}, true, false, "Failed", "was deleted"},
      {"a schedule's tick starts one", "  schedule: '0 * * * *'\n",
       "  refresh:\n    lastSchedule: '2026-03-02T09:00:00.000Z'\n", std::nullopt, {}, true, true,
       "", ""},
      {"a tick accounted for starts none", "  schedule: '0 * * * *'\n",
       "  refresh:\n    lastSchedule: '2026-03-02T10:00:00.000Z'\n", std::nullopt, {}, true,
       false, "", ""},
      {"an input that advanced starts one", "  options: {refresh: on-source-change}\n",
       "  refresh:\n    inputs: {LOCAL.ORDERS: '2026-03-02T09:00:00.000Z'}\n", std::nullopt,
       {{"LOCAL.ORDERS", "2026-03-02T10:00:00.000Z"}}, true, true, "", ""},
      {"inputs as they were start none", "  options: {refresh: on-source-change}\n",
       "  refresh:\n    inputs: {LOCAL.ORDERS: '2026-03-02T10:00:00.000Z'}\n", std::nullopt,
       {{"LOCAL.ORDERS", "2026-03-02T10:00:00.000Z"}}, true, false, "", ""},
      {"an input advancing without the option starts none", "",
       "  refresh:\n    inputs: {LOCAL.ORDERS: '2026-03-02T09:00:00.000Z'}\n", std::nullopt,
       {{"LOCAL.ORDERS", "2026-03-02T10:00:00.000Z"}}, true, false, "", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    RefreshJobs jobs;
    if (c.command) jobs.command = {"/usr/bin/hop", "--state", "/srv/hop"};
    auto plan = PlanRefresh(View(c.spec, c.status), c.job, c.inputs, now, jobs);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    const Json& refresh = plan->status["refresh"];
    EXPECT_EQ(plan->create.has_value(), c.starts) << refresh.dump();
    EXPECT_EQ(refresh.value("lastOutcome", ""), c.outcome) << refresh.dump();
    const std::string message = refresh.value("message", "");
    if (c.message_part.empty()) {
      EXPECT_EQ(message, "") << refresh.dump();
    } else {
      EXPECT_NE(message.find(c.message_part), std::string::npos) << refresh.dump();
    }
    if (plan->create) {
      // The Job runs `hop refresh` for this view, owned by it, and the view records it.
      const Resource& job = *plan->create;
      EXPECT_EQ(refresh.value("job", ""), job.name());
      EXPECT_EQ(job.labels().at("refresh"), "local-totals");
      ASSERT_EQ(job.owner_references().size(), 1u);
      EXPECT_EQ(job.owner_references()[0].name, "local-totals");
      const Json& command = job.json()["spec"]["template"]["spec"]["containers"][0]["command"];
      EXPECT_EQ(command.dump(),
                R"(["/usr/bin/hop","--state","/srv/hop","refresh","-n","default","view/local-totals"])");
      EXPECT_EQ(refresh.value("inputs", Json::object()).size(), c.inputs.size());
    }
  }
}

TEST(PlanRefreshTest, OnlyTheLatestFinishedRefreshKeepsItsJob) {
  auto plan = PlanRefresh(
      View("", "  refresh:\n    job: local-totals-refresh-1\n    lastJob: local-totals-refresh-0\n"),
      FinishedJob(true), {}, At("2026-03-02T10:30:00Z"), RefreshJobs{{"hop"}, 2});
  ASSERT_TRUE(plan.ok());
  ASSERT_TRUE(plan->remove.has_value());
  EXPECT_EQ(plan->remove->name, "local-totals-refresh-0");
  EXPECT_EQ(plan->status["refresh"].value("lastJob", ""), "local-totals-refresh-1");
}

TEST(PlanRefreshTest, AScheduleRequeuesForItsNextTick) {
  auto plan = PlanRefresh(View("  schedule: '0 * * * *'\n", ""), std::nullopt, {},
                          At("2026-03-02T10:30:00Z"), RefreshJobs{{"hop"}, 2});
  ASSERT_TRUE(plan.ok());
  ASSERT_TRUE(plan->requeue_after.has_value());
  EXPECT_NEAR(static_cast<double>(plan->requeue_after->count()), 30 * 60 * 1000.0, 10);
  // Missed ticks since the view was made are one refresh.
  EXPECT_TRUE(plan->create.has_value());
  EXPECT_EQ(plan->status["refresh"].value("lastSchedule", ""), "2026-03-02T10:00:00.000Z");
}

TEST(PlanRefreshTest, PendingRefreshSaysWhatIsLeft) {
  EXPECT_FALSE(PendingRefresh(View("", ""), std::nullopt).has_value());
  EXPECT_TRUE(PendingRefresh(View("", "  timestamp: '2026-03-02T10:00:00.000Z'\n"), std::nullopt)
                  .has_value());
  EXPECT_FALSE(PendingRefresh(View("  paused: true\n", "  timestamp: '2026-03-02T10:00:00.000Z'\n"),
                              std::nullopt)
                   .has_value());
  // Its Job made and not started yet: it waits, it is not "going".
  auto job = resource::Resource::FromJson(
      Json::parse(R"({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "x"}})"),
      "job");
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(PendingRefresh(View("", "  refresh:\n    job: x\n"), *job),
            "refresh job x waits to start");
}

}  // namespace
}  // namespace hop::op

namespace hop::op {
namespace {

resource::Resource FilledTable(const std::string& status) {
  std::string text = R"(
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Table
metadata:
  name: local-totals
  namespace: default
  uid: table-uid
  annotations: {hop.dev/fill: 'SELECT 1 AS "N"'}
spec: {database: local, schema: LOCAL, table: TOTALS}
)" + (status.empty() ? "" : "status:\n" + status);
  auto docs = ParseYamlDocuments(text, "table");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  return *resource::Resource::FromJson((*docs)[0], "table");
}

TEST(PlanFillTest, ATableIsFilledOncePerQuery) {
  const SystemTime now = *ParseRfc3339("2026-03-02T10:30:00Z");
  const RefreshJobs jobs{{"/usr/bin/hop", "--state", "/srv/hop"}, 2};
  // Made: its fill starts, with `hop refresh table/NAME`, and is pending until it ends.
  auto first = PlanFill(FilledTable(""), std::nullopt, now, jobs);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(first->create.has_value());
  EXPECT_EQ(first->create->json()["spec"]["template"]["spec"]["containers"][0]["command"].back(),
            "table/local-totals");
  EXPECT_EQ(PendingFill(FilledTable(""), std::nullopt), "its fill waits to start");
  // Filled with this query: nothing more, and nothing pending.
  const std::string done = "  fill: {query: 'SELECT 1 AS \"N\"', lastOutcome: Failed}\n";
  auto again = PlanFill(FilledTable(done), std::nullopt, now, jobs);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->create.has_value());
  EXPECT_FALSE(PendingFill(FilledTable(done), std::nullopt).has_value());
  // Another query (CREATE OR REPLACE TABLE ... AS): filled again.
  auto replaced =
      PlanFill(FilledTable("  fill: {query: 'SELECT 2 AS \"N\"'}\n"), std::nullopt, now, jobs);
  ASSERT_TRUE(replaced.ok());
  EXPECT_TRUE(replaced->create.has_value());
}

// A watermark is a claim about the rows of the table's query (docs/runtime.md, "The watermark a
// refresh earns"): one kept from an earlier query's rows is withdrawn, with its queued advances,
// until a fill of the query the table has now succeeds; a filled table keeps its own.
TEST(PlanFillTest, AReplacedQueryWithdrawsTheWatermarkOfTheEarlierOnesRows) {
  const SystemTime now = *ParseRfc3339("2026-03-02T10:30:00Z");
  const RefreshJobs jobs{{"/usr/bin/hop", "--state", "/srv/hop"}, 2};
  const std::string digest = resource::QueryDigest("SELECT 1 AS \"N\"");
  struct Case {
    const char* name;
    std::string status;
    bool keeps;
  };
  const Case kCases[] = {
      {"replaced: filled with another query",
       "  watermark: '2020-01-01T00:00:00.000Z'\n  pendingFires: ['2020-01-01T00:00:00.000Z']\n"
       "  refreshedQuery: '" +
           resource::QueryDigest("SELECT 2 AS \"N\"") +
           "'\n"
           "  fill: {query: 'SELECT 2 AS \"N\"', lastOutcome: Succeeded}\n",
       false},
      {"replaced, and its new fill failed",
       "  watermark: '2020-01-01T00:00:00.000Z'\n"
       "  fill: {query: 'SELECT 1 AS \"N\"', lastOutcome: Failed}\n",
       false},
      {"filled with its query",
       "  watermark: '2020-01-01T00:00:00.000Z'\n  refreshedQuery: '" + digest +
           "'\n  fill: {query: 'SELECT 2 AS \"N\"'}\n",
       true},
  };
  for (const Case& c : kCases) {
    auto plan = PlanFill(FilledTable(c.status), std::nullopt, now, jobs);
    ASSERT_TRUE(plan.ok()) << c.name;
    EXPECT_EQ(plan->status.contains("watermark"), c.keeps) << c.name << ": " << plan->status;
    if (!c.keeps) EXPECT_FALSE(plan->status.contains("pendingFires")) << c.name;
  }
}

// The watermark a refresh earns (docs/runtime.md, "Refreshes"): the earliest of its inputs',
// as given, an input without one counting as read up to the snapshot.
TEST(EarnWatermarkTest, TheEarliestOfItsInputs) {
  const SystemTime snapshot = At("2026-12-07T12:00:00Z");
  struct EarnCase {
    const char* name;
    std::vector<RefreshInput> inputs;
    const char* at;     // what it earns
    const char* input;  // whose it is ("" for the snapshot)
  };
  const std::vector<EarnCase> cases = {
      {"no input: the snapshot", {}, "2026-12-07T12:00:00Z", ""},
      {"an input later than the snapshot gives its time",
       {{"LOCAL.A", "2027-01-01T00:00:00.000Z"}},
       "2027-01-01T00:00:00Z",
       "LOCAL.A"},
      {"an input earlier than the snapshot gives its time",
       {{"LOCAL.A", "2026-11-01T00:00:00.000Z"}},
       "2026-11-01T00:00:00Z",
       "LOCAL.A"},
      {"the earliest of two",
       {{"LOCAL.A", "2027-01-01T00:00:00.000Z"}, {"LOCAL.B", "2026-11-01T00:00:00.000Z"}},
       "2026-11-01T00:00:00Z",
       "LOCAL.B"},
      {"an input without one is read up to the snapshot",
       {{"LOCAL.A", "2027-01-01T00:00:00.000Z"}, {"LOCAL.B", ""}},
       "2026-12-07T12:00:00Z",
       ""},
      {"an earlier input still bounds it beside one without",
       {{"LOCAL.A", "2026-11-01T00:00:00.000Z"}, {"LOCAL.B", ""}},
       "2026-11-01T00:00:00Z",
       "LOCAL.A"},
      {"only inputs without one: the snapshot",
       {{"LOCAL.A", ""}, {"LOCAL.B", ""}},
       "2026-12-07T12:00:00Z",
       ""},
      {"a watermark that is not a time counts as none",
       {{"LOCAL.A", "2027-01-01T00:00:00.000Z"}, {"LOCAL.B", "soon"}},
       "2026-12-07T12:00:00Z",
       ""},
  };
  for (const EarnCase& c : cases) {
    const EarnedWatermark earned = EarnWatermark(c.inputs, snapshot);
    EXPECT_EQ(FormatRfc3339(earned.at, 3), FormatRfc3339(At(c.at), 3)) << c.name;
    EXPECT_EQ(earned.input, c.input) << c.name;
  }
}

}  // namespace
}  // namespace hop::op
