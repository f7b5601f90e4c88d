#include "resource/resource.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/issues.h"
#include "resource/crd.h"
#include "resource/kinds.h"
#include "resource/validation.h"
#include "resource/yaml.h"
#include "test/lib/datadriven.h"

namespace hop::resource {
namespace {

Resource Parse(const char* yaml) {
  auto docs = ParseYamlDocuments(yaml, "test");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  auto r = Resource::FromJson((*docs)[0], "test");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return *r;
}

TEST(ResourceTest, GroupsOfApiVersions) {
  EXPECT_EQ(GroupOf("hoptimator.linkedin.com/v1alpha1"), "hoptimator.linkedin.com");
  EXPECT_EQ(GroupOf("batch/v1"), "batch");
  EXPECT_EQ(GroupOf("v1"), "");
  EXPECT_EQ((GroupKind{"batch", "Job"}).ToString(), "Job.batch");
  EXPECT_EQ((GroupKind{"", "ConfigMap"}).ToString(), "ConfigMap");
}

TEST(ResourceTest, FromJsonChecksTheShape) {
  struct Case {
    const char* json;
    const char* error;  // empty: valid
  };
  const Case kCases[] = {
      {R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}})", ""},
      {R"([1, 2])", "doc: a resource must be a mapping"},
      {R"({"kind": "ConfigMap", "metadata": {"name": "x"}})",
       "doc: apiVersion: required string is missing"},
      {R"({"apiVersion": "v1", "metadata": {"name": "x"}})", "doc: kind: required string is missing"},
      {R"({"apiVersion": "v1", "kind": "ConfigMap"})",
       "doc: metadata: required mapping is missing"},
      {R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}})",
       "doc: metadata.name: required string is missing"},
      {R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "spec": [1]})",
       "doc: spec: must be a mapping"},
  };
  for (const auto& c : kCases) {
    auto r = Resource::FromJson(Json::parse(c.json), "doc");
    if (c.error[0] == '\0') {
      EXPECT_TRUE(r.ok()) << c.json << ": " << r.status().ToString();
    } else {
      ASSERT_FALSE(r.ok()) << c.json;
      EXPECT_EQ(r.status().message(), c.error) << c.json;
    }
  }
}

TEST(ResourceTest, MetadataAccessors) {
  Resource r = Parse(R"(
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  labels: {a: '1'}
  annotations: {note: x}
  ownerReferences:
  - {apiVersion: v1, kind: Secret, name: s, uid: u1, controller: true}
  finalizers: [f1]
)");
  EXPECT_EQ(r.Describe(), "ConfigMap/cm");
  EXPECT_EQ(r.labels().at("a"), "1");
  EXPECT_EQ(r.annotations().at("note"), "x");
  ASSERT_EQ(r.owner_references().size(), 1u);
  EXPECT_EQ(r.owner_references()[0].uid, "u1");
  EXPECT_TRUE(r.owner_references()[0].controller);
  EXPECT_EQ(r.finalizers(), std::vector<std::string>{"f1"});
  r.set_label("b", "2");
  r.remove_label("a");
  r.remove_annotation("note");
  EXPECT_EQ(r.labels(), (std::map<std::string, std::string>{{"b", "2"}}));
  EXPECT_TRUE(r.annotations().empty());
  EXPECT_FALSE(r.json()["metadata"].contains("annotations"));
  r.set_owner_references({});
  EXPECT_FALSE(r.json()["metadata"].contains("ownerReferences"));
  EXPECT_EQ(r.generation(), 0);
  EXPECT_FALSE(r.deletion_timestamp().has_value());
}

TEST(ResourceTest, OrderedPutsWellKnownKeysFirst) {
  Resource r(Json::parse(R"({"status": {"s": 1}, "spec": {"b": 1, "a": 2}, "extra": true,
      "metadata": {"resourceVersion": "3", "labels": {"x": "y"}, "name": "n", "uid": "u"},
      "kind": "View", "apiVersion": "hoptimator.linkedin.com/v1alpha1"})"));
  EXPECT_EQ(r.ToJsonText(-1),
            R"({"apiVersion":"hoptimator.linkedin.com/v1alpha1","kind":"View",)"
            R"("metadata":{"name":"n","labels":{"x":"y"},"uid":"u","resourceVersion":"3"},)"
            R"("spec":{"b":1,"a":2},"status":{"s":1},"extra":true})");
  // Semantic equality ignores key order.
  Resource reordered(r.Ordered());
  EXPECT_EQ(r, reordered);
}

TEST(KindsTest, TypedFieldsReadAndWrite) {
  Resource r = Parse(R"(
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: TableTrigger
metadata: {name: t}
spec:
  schema: ADS
  table: AD_CLICKS
  paused: true
  jobProperties: {account: '0012'}
status:
  timestamp: '2026-11-30T04:11:12Z'
)");
  EXPECT_EQ(TableTriggerKind::kSchema.Get(r), "ADS");
  EXPECT_EQ(TableTriggerKind::kPaused.Get(r), true);
  EXPECT_EQ(TableTriggerKind::kJobProperties.Get(r)->at("account"), "0012");
  EXPECT_EQ(TableTriggerKind::kTimestamp.Get(r), "2026-11-30T04:11:12Z");
  EXPECT_FALSE(TableTriggerKind::kSchedule.Get(r).has_value());
  EXPECT_EQ(TableTriggerKind::kSchema.path(), "spec.schema");
  EXPECT_EQ(TableTriggerKind::kWatermark.path(), "status.watermark");

  TableTriggerKind::kSchedule.Set(r, "@hourly");
  TableTriggerKind::kPaused.Clear(r);
  TableTriggerKind::kWatermark.Set(r, "2026-11-30T05:00:00Z");
  EXPECT_EQ(r.json()["spec"]["schedule"], "@hourly");
  EXPECT_FALSE(r.json()["spec"].contains("paused"));
  EXPECT_EQ(r.json()["status"]["watermark"], "2026-11-30T05:00:00Z");

  // A value of another type reads as absent.
  r.mutable_spec()["table"] = 42;
  EXPECT_FALSE(TableTriggerKind::kTable.Get(r).has_value());
}

TEST(KindsTest, EveryFieldIsInItsKindsSchema) {
  // The schema is built from the field handles; spot-check that nothing is lost on the way.
  const KindInfo& db = DatabaseKind::Info();
  EXPECT_EQ(db.spec.required, std::vector<std::string>{"url"});
  ASSERT_NE(db.spec.FindProperty("dialect"), nullptr);
  EXPECT_EQ(db.spec.FindProperty("dialect")->enum_values,
            (std::vector<std::string>{"ANSI", "MySQL", "Calcite"}));
  const KindInfo& tpj = TableProvisionJobKind::Info();
  EXPECT_EQ(tpj.spec.required, (std::vector<std::string>{"database", "table"}));
  EXPECT_NE(tpj.status.FindProperty("observedGeneration"), nullptr);
  EXPECT_EQ(tpj.short_names, std::vector<std::string>{"tpj"});
  EXPECT_EQ(HopKinds().size(), 12u);
  const KindInfo& table = TableKind::Info();
  EXPECT_EQ(table.spec.required, (std::vector<std::string>{"table", "database"}));
}

TEST(KindsTest, LookupByEveryName) {
  struct Case {
    const char* name;
    const char* kind;  // nullptr: unknown
  };
  const Case kCases[] = {
      {"databases", "Database"},    {"database", "Database"},     {"db", "Database"},
      {"DBS", "Database"},          {"Database", "Database"},     {"tpj", "TableProvisionJob"},
      {"tabt", "TableTemplate"},    {"jobt", "JobTemplate"},      {"sj", "SqlJob"},
      {"pips", "Pipeline"},         {"lt", "LogicalTable"},       {"subs", "Subscription"},
      {"jobs", "Job"},              {"jobs.batch", "Job"},        {"cm", "ConfigMap"},
      {"flinksessionjobs", "FlinkSessionJob"}, {"kt", "KafkaTopic"}, {"jobs.apps", nullptr},
      {"widgets", nullptr},
  };
  for (const auto& c : kCases) {
    const KindInfo* k = LookupKind(c.name);
    if (c.kind == nullptr) {
      EXPECT_EQ(k, nullptr) << c.name;
    } else {
      ASSERT_NE(k, nullptr) << c.name;
      EXPECT_EQ(k->kind, c.kind) << c.name;
    }
  }
  EXPECT_EQ(FindKind({"batch", "Job"})->plural, "jobs");
  EXPECT_EQ(FindKind({"other", "Job"}), nullptr);
}

// `hop get jobs` and the API's Table show a batch/v1 Job's state, from what its status records
// (docs/runtime.md, "Status"), as kubectl's STATUS, COMPLETIONS and DURATION, and whom it runs
// for; a field the Job does not record gives an empty cell, never a made-up one.
TEST(KindsTest, JobColumnsShowWhatItsStatusRecords) {
  const KindInfo* job = FindKind({"batch", "Job"});
  ASSERT_NE(job, nullptr);
  std::vector<std::string> names;
  for (const auto& c : job->columns) {
    names.push_back(c.name);
    EXPECT_NE(c.compute, nullptr) << c.name;
  }
  ASSERT_EQ(names, (std::vector<std::string>{"STATUS", "COMPLETIONS", "DURATION", "OWNER"}));
  const SystemTime now = *ParseRfc3339("2026-01-01T10:00:00Z");
  struct Case {
    const char* name;
    const char* job;  // JSON
    std::vector<std::string> cells;
  };
  const Case kCases[] = {
      {"not started", R"({"metadata": {"name": "j"}, "spec": {}})", {"Pending", "0/1", "", ""}},
      {"running",
       R"({"metadata": {"name": "j", "ownerReferences": [{"apiVersion":
           "hoptimator.linkedin.com/v1alpha1", "kind": "TableTrigger", "name": "count",
           "uid": "u"}]}, "status": {"active": 1, "startTime": "2026-01-01T09:58:30Z"}})",
       {"Running", "0/1", "90s", "tabletrigger/count"}},
      {"between attempts",
       R"({"metadata": {"name": "j"}, "status": {"failed": 1,
           "startTime": "2026-01-01T09:59:00Z"}})",
       {"Running", "0/1", "60s", ""}},
      {"complete",
       R"({"metadata": {"name": "j", "ownerReferences": [{"kind": "View", "name": "a",
           "uid": "1"}, {"kind": "TableTrigger", "name": "t", "uid": "2", "controller": true}]},
           "status": {"succeeded": 1, "startTime": "2026-01-01T09:00:00Z",
           "completionTime": "2026-01-01T09:05:03Z", "conditions": [{"type": "Complete",
           "status": "True"}]}})",
       {"Complete", "1/1", "5m3s", "tabletrigger/t"}},
      {"failed",
       R"({"metadata": {"name": "j", "annotations": {"trigger": "count",
           "hop.dev/trigger-namespace": "team"}}, "spec": {"completions": 1},
           "status": {"failed": 2, "startTime": "2026-01-01T08:00:00Z", "conditions": [{"type":
           "Failed", "status": "True", "reason": "BackoffLimitExceeded",
           "lastTransitionTime": "2026-01-01T08:00:42Z"}]}})",
       {"Failed", "0/1", "42s", "tabletrigger/count in team"}},
      {"a condition that is not True",
       R"({"metadata": {"name": "j"}, "status": {"active": 1, "startTime":
           "2026-01-01T10:00:00Z", "conditions": [{"type": "Failed", "status": "False"}]}})",
       {"Running", "0/1", "0s", ""}},
      {"suspended",
       R"({"metadata": {"name": "j"}, "spec": {"suspend": true}})",
       {"Suspended", "0/1", "", ""}},
      {"being deleted",
       R"({"metadata": {"name": "j", "deletionTimestamp": "2026-01-01T09:00:00Z",
           "annotations": {"trigger": "no namespace recorded"}}, "status": {"active": 1}})",
       {"Terminating", "0/1", "", ""}},
  };
  for (const Case& c : kCases) {
    const Json doc = Json::parse(c.job);
    std::vector<std::string> cells;
    for (const auto& column : job->columns) cells.push_back(column.compute(doc, now));
    EXPECT_EQ(cells, c.cells) << c.name;
  }
}

TEST(ValidationTest, ReportsEveryProblemWithItsPath) {
  Resource r = Parse(R"(
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: SqlJob
metadata:
  name: My_Job
  namespace: Team
  labels: {"bad key!": x, ok: "not a valid value!"}
spec:
  sql: [1]
  dialect: Hive
  configs: {a: 1}
status:
  lastDeployedAt: soon
)");
  Issues issues("doc");
  ValidateResource(r, &issues);
  const std::string text = issues.Render();
  for (const char* want : {
           "metadata.name: invalid object name \"My_Job\"",
           "metadata.namespace: invalid",
           "metadata.labels.bad key!: invalid label key",
           "metadata.labels.ok: invalid label value",
           "spec.sql[0]: must be a string, not integer",
           "spec.dialect: \"Hive\" is not one of Flink, FlinkBeam, Spark",
           "spec.configs.a: must be a string, not integer",
           "status.lastDeployedAt: must be an integer, not string",
       }) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }

  Resource ok = Parse(R"(
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: SqlJob
metadata: {name: job}
spec:
  sql: ["SELECT 1"]
  futureField: {kept: true}
)");
  Issues none;
  ValidateResource(ok, &none);
  EXPECT_FALSE(none.HasErrors()) << none.Render();

  Resource wrong_version = ok;
  wrong_version.set_api_version("hoptimator.linkedin.com/v2");
  Issues version;
  ValidateResource(wrong_version, &version);
  EXPECT_NE(version.Render().find("apiVersion: hoptimator.linkedin.com/v2 is not served"),
            std::string::npos);
}

TEST(CrdTest, MatchesTheGoldenFile) {
  // The full CRD text is reviewed as a golden file: src/resource/testdata/crds.yaml.
  const std::string path = std::string(HOP_SOURCE_DIR) + "/src/resource/testdata/crds.yaml";
  const std::string actual = EmitYamlDocuments(AllCustomResourceDefinitions());
  if (hop::testing::RewriteMode()) std::ofstream(path) << actual;
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  EXPECT_EQ(buf.str(), actual) << "run with HOP_REWRITE=1 to accept the new CRDs";
}

}  // namespace
}  // namespace hop::resource

namespace hop::resource {
namespace {

// Every input the YAML fuzzer failed on is kept in fuzz/regressions/yaml: each must parse or fail
// with a Parse Error, and what parses must emit and parse back to the same documents.
TEST(YamlRegressionTest, FuzzRegressionsPass) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(
           hop::testing::SourcePath("fuzz/regressions/yaml"))) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    auto docs = ParseYamlDocuments(buf.str(), "regression");
    ++files;
    if (!docs.ok()) {
      EXPECT_EQ(docs.status().code(), StatusCode::kParse) << entry.path();
      continue;
    }
    auto back = ParseYamlDocuments(EmitYamlDocuments(*docs), "emitted");
    ASSERT_TRUE(back.ok()) << entry.path() << ": " << back.status().ToString();
    ASSERT_EQ(back->size(), docs->size()) << entry.path();
    for (size_t i = 0; i < docs->size(); ++i) {
      // dump() throws on invalid UTF-8: parsed text must always be valid.
      EXPECT_EQ((*docs)[i].dump(), (*back)[i].dump()) << entry.path();
    }
  }
  EXPECT_GT(files, 0);
}

// yaml-cpp decodes these escapes to raw bytes; hop turns them into the characters they name.
TEST(YamlRegressionTest, EscapesNameCharacters) {
  auto docs = ParseYamlDocuments("\"a\\N\\xe9\\_b\"", "t");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  EXPECT_EQ((*docs)[0].get<std::string>(), "a\xc2\x85\xc3\xa9\xc2\xa0" "b");
}

}  // namespace
}  // namespace hop::resource
