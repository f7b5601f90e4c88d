#include "resource/openapi_validation.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "resource/yaml.h"

namespace hop::resource {
namespace {

// A schema shaped as the FlinkSessionJob CRD's spec (test/crds/flinksessionjob.yaml).
const Json& SessionJobSchema() {
  static const Json schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "spec": {
        "type": "object",
        "required": ["deploymentName"],
        "properties": {
          "deploymentName": {"type": "string", "minLength": 1, "pattern": "^[a-z0-9-]+$"},
          "flinkConfiguration": {"type": "object", "additionalProperties": {"type": "string"}},
          "restartNonce": {"type": "integer", "format": "int32"},
          "job": {
            "type": "object",
            "properties": {
              "parallelism": {"type": "integer", "minimum": 1, "maximum": 1000},
              "args": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
              "upgradeMode": {"type": "string", "enum": ["savepoint", "last-state", "stateless"]},
              "port": {"x-kubernetes-int-or-string": true},
              "since": {"type": "string", "format": "date-time"},
              "note": {"type": "string", "nullable": true}
            }
          },
          "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
        }
      }
    }
  })");
  return schema;
}

struct Case {
  const char* name;
  const char* spec;
  std::vector<std::string> errors;
  const char* after;  // the spec after pruning, or nullptr when it is unchanged
};

const Case kCases[] = {
    {"valid", R"({"deploymentName": "session", "job": {"parallelism": 2, "args": ["a"]}})", {},
     nullptr},
    {"wrong type",
     R"({"deploymentName": "s", "job": {"parallelism": "x"}})",
     {R"(spec.job.parallelism: Invalid value: "x": spec.job.parallelism in body must be of type integer: "string")"},
     nullptr},
    {"missing required", R"({"job": {}})", {"spec.deploymentName: Required value"}, nullptr},
    {"bad enum",
     R"({"deploymentName": "s", "job": {"upgradeMode": "never"}})",
     {R"(spec.job.upgradeMode: Unsupported value: "never": supported values: "savepoint", "last-state", "stateless")"},
     nullptr},
    {"pruned", R"({"deploymentName": "s", "extra": 1, "job": {"what": true}})", {},
     R"({"deploymentName": "s", "job": {}})"},
    {"preserved", R"({"deploymentName": "s", "free": {"any": {"thing": 1}}})", {}, nullptr},
    {"additionalProperties schema",
     R"({"deploymentName": "s", "flinkConfiguration": {"a": "1", "b": 2}})",
     {R"(spec.flinkConfiguration.b: Invalid value: 2: spec.flinkConfiguration.b in body must be of type string: "integer")"},
     nullptr},
    {"int-or-string", R"({"deploymentName": "s", "job": {"port": "http"}})", {}, nullptr},
    {"int-or-string refused",
     R"({"deploymentName": "s", "job": {"port": true}})",
     {R"(spec.job.port: Invalid value: true: spec.job.port in body must be of type integer,string: "boolean")"},
     nullptr},
    {"int32 range",
     R"({"deploymentName": "s", "restartNonce": 3000000000})",
     {"spec.restartNonce: Invalid value: 3000000000: spec.restartNonce in body must be of type int32"},
     nullptr},
    {"minimum",
     R"({"deploymentName": "s", "job": {"parallelism": 0}})",
     {"spec.job.parallelism: Invalid value: 0: spec.job.parallelism in body should be greater than or equal to 1"},
     nullptr},
    {"maxItems",
     R"({"deploymentName": "s", "job": {"args": ["a", "b", "c"]}})",
     {"spec.job.args: Too many: 3: must have at most 2 items"}, nullptr},
    {"item type",
     R"({"deploymentName": "s", "job": {"args": [1]}})",
     {R"(spec.job.args[0]: Invalid value: 1: spec.job.args[0] in body must be of type string: "integer")"},
     nullptr},
    {"pattern",
     R"({"deploymentName": "Bad_Name"})",
     {R"(spec.deploymentName: Invalid value: "Bad_Name": spec.deploymentName in body should match '^[a-z0-9-]+$')"},
     nullptr},
    {"date-time",
     R"({"deploymentName": "s", "job": {"since": "yesterday"}})",
     {R"(spec.job.since: Invalid value: "yesterday": spec.job.since in body must be of type date-time: "yesterday")"},
     nullptr},
    {"nullable", R"({"deploymentName": "s", "job": {"note": null}})", {}, nullptr},
    {"null refused",
     R"({"deploymentName": null})",
     {R"(spec.deploymentName: Invalid value: null: spec.deploymentName in body must be of type string: "null")"},
     nullptr},
};

TEST(OpenApiValidationTest, Cases) {
  for (const Case& c : kCases) {
    Json doc = Json::object();
    doc["apiVersion"] = "flink.apache.org/v1beta1";
    doc["kind"] = "FlinkSessionJob";
    doc["metadata"] = Json::object({{"name", "j"}});
    doc["spec"] = Json::parse(c.spec);
    std::vector<std::string> errors;
    ValidateOpenApi(SessionJobSchema(), doc, "", &errors);
    EXPECT_EQ(errors, c.errors) << c.name;
    EXPECT_EQ(doc["spec"], Json::parse(c.after ? c.after : c.spec)) << c.name;
    EXPECT_EQ(doc["metadata"]["name"], "j") << c.name;
  }
}

}  // namespace
}  // namespace hop::resource

namespace hop::resource {
namespace {

// The served version's schema of a CRD fixture under test/crds/.
Json FixtureSchema(const std::string& file) {
  const char* root = std::getenv("HOP_SOURCE_DIR");
  std::ifstream in(std::string(root ? root : ".") + "/test/crds/" + file);
  std::stringstream text;
  text << in.rdbuf();
  auto docs = ParseYamlDocuments(text.str(), file);
  EXPECT_TRUE(docs.ok()) << file;
  if (!docs.ok() || docs->size() != 1) return Json();
  return (*docs)[0]["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
}

struct FixtureCase {
  const char* name;
  const char* file;
  const char* object;  // JSON
  std::vector<std::string> errors;
};

const FixtureCase kFixtureCases[] = {
    {"session job", "flinksessionjob.yaml",
     R"({"spec": {"deploymentName": "basic-session-deployment", "job": {"entryClass": "x.Y",
         "args": ["a"], "jarURI": "file:///opt/a.jar", "parallelism": 1, "upgradeMode": "stateless",
         "state": "running"}}})",
     {}},
    {"session job bad parallelism", "flinksessionjob.yaml",
     R"({"spec": {"job": {"parallelism": "x"}}})",
     {R"(spec.job.parallelism: Invalid value: "x": spec.job.parallelism in body must be of type integer: "string")"}},
    {"session job bad state", "flinksessionjob.yaml", R"({"spec": {"job": {"state": "paused"}}})",
     {R"(spec.job.state: Unsupported value: "paused": supported values: "running", "suspended")"}},
    {"topic", "kafkatopic.yaml",
     R"({"spec": {"topicName": "t", "partitions": 3, "replicas": 1, "config": {"retention.ms": -1}}})",
     {}},
    {"topic no partitions", "kafkatopic.yaml", R"({"spec": {"partitions": 0}})",
     {"spec.partitions: Invalid value: 0: spec.partitions in body should be greater than or equal to 1"}},
    {"deployment", "flinkdeployment.yaml",
     R"({"spec": {"image": "flink:1.18", "flinkVersion": "v1_18", "jobManager": {"replicas": 1,
         "resource": {"cpu": 0.5, "memory": "1g"}}, "podTemplate": {"spec": {"containers": []}}}})",
     {}},
};

TEST(OpenApiValidationTest, Fixtures) {
  for (const FixtureCase& c : kFixtureCases) {
    const Json schema = FixtureSchema(c.file);
    ASSERT_TRUE(schema.is_object()) << c.name;
    Json doc = Json::parse(c.object);
    const Json before = doc;
    std::vector<std::string> errors;
    ValidateOpenApi(schema, doc, "", &errors);
    EXPECT_EQ(errors, c.errors) << c.name;
    if (c.errors.empty()) {
      EXPECT_EQ(doc, before) << c.name << ": nothing should be pruned";
    }
  }
}

}  // namespace
}  // namespace hop::resource
