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
          "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
          "big": {"type": "integer", "format": "int64"},
          "ratio": {"type": "number", "format": "int64"},
          "mode": {"type": "string", "default": "auto"},
          "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
          "ports": {"type": "array", "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {"name": {"type": "string"},
                                                               "port": {"type": "integer"}}}},
          "weight": {"type": "number", "minimum": 0, "exclusiveMinimum": true, "multipleOf": 0.5},
          "source": {"type": "object",
                     "properties": {"jar": {"type": "string"}, "image": {"type": "string"}},
                     "oneOf": [{"required": ["jar"]}, {"required": ["image"]}]},
          "labels": {"type": "object", "additionalProperties": {"type": "string"},
                     "maxProperties": 2},
          "size": {"x-kubernetes-int-or-string": true,
                   "anyOf": [{"type": "integer"}, {"type": "string"}],
                   "pattern": "^[0-9]+[GM]i$|^[0-9]+$"}
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
    {"valid",
     R"({"deploymentName": "session", "job": {"parallelism": 2, "args": ["a"]}})",
     {},
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
    {"pruned",
     R"({"deploymentName": "s", "extra": 1, "job": {"what": true}})",
     {},
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
     {"spec.restartNonce: Invalid value: 3000000000: spec.restartNonce in body must be of type "
      "int32"},
     nullptr},
    {"minimum",
     R"({"deploymentName": "s", "job": {"parallelism": 0}})",
     {"spec.job.parallelism: Invalid value: 0: spec.job.parallelism in body should be greater than "
      "or equal to 1"},
     nullptr},
    {"maxItems",
     R"({"deploymentName": "s", "job": {"args": ["a", "b", "c"]}})",
     {"spec.job.args: Too many: 3: must have at most 2 items"},
     nullptr},
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
    // A null where the field is not nullable is dropped, as the API server drops it before
    // defaulting; a required field is then missing.
    {"null dropped", R"({"deploymentName": null})", {"spec.deploymentName: Required value"}, "{}"},
    {"null item refused",
     R"({"deploymentName": "s", "job": {"args": [null]}})",
     {R"(spec.job.args[0]: Invalid value: null: spec.job.args[0] in body must be of type string: "null")"},
     nullptr},
    {"null takes the default",
     R"({"deploymentName": "s", "mode": null})",
     {},
     R"({"deploymentName": "s", "mode": "auto"})"},
    // Both used to be undefined behaviour or a crash; a number past 2^53 with an exponent is no
    // integer to Kubernetes.
    {"1e300 is no integer",
     R"({"deploymentName": "s", "job": {"parallelism": 1e300}})",
     {R"(spec.job.parallelism: Invalid value: 1e+300: spec.job.parallelism in body must be of type integer: "number")"},
     nullptr},
    {"int64 takes 64 bits", R"({"deploymentName": "s", "big": 9223372036854775807})", {}, nullptr},
    {"past int64 is no integer",
     R"({"deploymentName": "s", "big": 9223372036854775808})",
     {R"(spec.big: Invalid value: 9223372036854775808: spec.big in body must be of type integer: "number")"},
     nullptr},
    {"int64 format of a number",
     R"({"deploymentName": "s", "ratio": 1.5})",
     {"spec.ratio: Invalid value: 1.5: spec.ratio in body must be of type int64"},
     nullptr},
    // The wrong type is refused and what it holds is pruned all the same, as the API server
    // prunes by the schema before it validates.
    {"wrong type pruned too",
     R"({"deploymentName": {"a": 1}})",
     {R"(spec.deploymentName: Invalid value: "object": spec.deploymentName in body must be of type string: "object")"},
     R"({"deploymentName": {}})"},
    {"set duplicates",
     R"({"deploymentName": "s", "tags": ["a", "b", "a"]})",
     {R"(spec.tags[2]: Duplicate value: "a")"},
     nullptr},
    {"map duplicates",
     R"({"deploymentName": "s", "ports": [{"name": "a", "port": 1}, {"name": "a", "port": 2}]})",
     {R"(spec.ports[1]: Duplicate value: {"name":"a"})"},
     nullptr},
    {"exclusive minimum",
     R"({"deploymentName": "s", "weight": 0})",
     {"spec.weight: Invalid value: 0: spec.weight in body should be greater than 0"},
     nullptr},
    {"multipleOf",
     R"({"deploymentName": "s", "weight": 0.7})",
     {"spec.weight: Invalid value: 0.7: spec.weight in body should be a multiple of 0.5"},
     nullptr},
    {"oneOf none",
     R"({"deploymentName": "s", "source": {}})",
     {R"(spec.source: Invalid value: "object": must validate one and only one schema (oneOf). Found none valid)"},
     nullptr},
    {"oneOf two",
     R"({"deploymentName": "s", "source": {"jar": "a", "image": "b"}})",
     {R"(spec.source: Invalid value: "object": must validate one and only one schema (oneOf). Found more than one valid)"},
     nullptr},
    {"oneOf one", R"({"deploymentName": "s", "source": {"jar": "a"}})", {}, nullptr},
    {"maxProperties",
     R"({"deploymentName": "s", "labels": {"a": "1", "b": "2", "c": "3"}})",
     {"spec.labels: Too many: 3: must have at most 2 items"},
     nullptr},
    {"int-or-string with anyOf and a pattern",
     R"({"deploymentName": "s", "size": "2Gi"})",
     {},
     nullptr},
    {"int-or-string pattern",
     R"({"deploymentName": "s", "size": "2 GB"})",
     {R"(spec.size: Invalid value: "2 GB": spec.size in body should match '^[0-9]+[GM]i$|^[0-9]+$')"},
     nullptr},
    {"errors all named",
     R"({"job": {"parallelism": "x", "upgradeMode": "never"}})",
     {"spec.deploymentName: Required value",
      R"(spec.job.parallelism: Invalid value: "x": spec.job.parallelism in body must be of type integer: "string")",
      R"(spec.job.upgradeMode: Unsupported value: "never": supported values: "savepoint", "last-state", "stateless")"},
     nullptr},
};

TEST(OpenApiValidationTest, Cases) {
  auto compiled = StructuralSchema::Compile(SessionJobSchema());
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  for (const Case& c : kCases) {
    Json doc = Json::object();
    doc["apiVersion"] = "flink.apache.org/v1beta1";
    doc["kind"] = "FlinkSessionJob";
    doc["metadata"] = Json::object({{"name", "j"}});
    doc["spec"] = Json::parse(c.spec);
    std::vector<std::string> errors;
    (*compiled)->Validate(doc, "", &errors);
    EXPECT_EQ(errors, c.errors) << c.name;
    Json after = Json::parse(c.after ? c.after : c.spec);
    // Every spec gets the default of its `mode`.
    if (after.is_object() && !after.contains("mode")) after["mode"] = "auto";
    EXPECT_EQ(doc["spec"], after) << c.name;
    EXPECT_EQ(doc["metadata"]["name"], "j") << c.name;
  }
}

TEST(OpenApiValidationTest, PrunedFieldsAreNamedAndDefaultsSet) {
  auto compiled = StructuralSchema::Compile(SessionJobSchema());
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  Json doc = Json::parse(R"({"apiVersion": "v", "kind": "K", "metadata": {"name": "j", "x": 1},
      "extra": true, "spec": {"deploymentName": "s", "what": 1, "job": {"how": 2},
                              "free": {"kept": 3}}})");
  std::vector<std::string> errors;
  std::vector<std::string> pruned;
  (*compiled)->Validate(doc, "", &errors, &pruned);
  EXPECT_TRUE(errors.empty()) << JoinFieldErrors(errors);
  EXPECT_EQ(pruned, (std::vector<std::string>{"extra", "spec.what", "spec.job.how"}));
  EXPECT_EQ(doc, Json::parse(R"({"apiVersion": "v", "kind": "K", "metadata": {"name": "j", "x": 1},
      "spec": {"deploymentName": "s", "job": {}, "free": {"kept": 3}, "mode": "auto"}})"));
}

TEST(OpenApiValidationTest, JoinsErrorsAsKubernetes) {
  EXPECT_EQ(JoinFieldErrors({}), "");
  EXPECT_EQ(JoinFieldErrors({"a: Required value"}), "a: Required value");
  EXPECT_EQ(JoinFieldErrors({"a: Required value", "b: Required value"}),
            "[a: Required value, b: Required value]");
}

struct StructuralCase {
  const char* name;
  const char* schema;
  std::vector<std::string> errors;
};

const StructuralCase kStructuralCases[] = {
    {"structural",
     R"({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"n": {"type": "integer"}, "m": {"type": "object",
        "additionalProperties": {"type": "string"}}, "l": {"type": "array",
        "items": {"type": "string"}}, "p": {"x-kubernetes-int-or-string": true},
        "f": {"x-kubernetes-preserve-unknown-fields": true}}}}})",
     {}},
    // `type` that is not a string used to crash the validator.
    {"type not a string",
     R"({"type": "object", "properties": {"spec": {"type": 5}}})",
     {R"(s.properties[spec].type: Unsupported value: 5: supported values: "array", "boolean", "integer", "number", "object", "string")"}},
    {"type list",
     R"({"type": ["object", "null"]})",
     {R"(s.type: Unsupported value: "array": supported values: "array", "boolean", "integer", "number", "object", "string")"}},
    {"unknown type",
     R"({"type": "object", "properties": {"a": {"type": "int"}}})",
     {R"(s.properties[a].type: Unsupported value: "int": supported values: "array", "boolean", "integer", "number", "object", "string")"}},
    {"missing types",
     R"({"properties": {"a": {}, "b": {"type": "array", "items": {}}}})",
     {"s.type: Required value: must not be empty at the root",
      "s.properties[a].type: Required value: must not be empty for specified object fields",
      "s.properties[b].items.type: Required value: must not be empty for specified array items"}},
    {"root not an object",
     R"({"type": "string"})",
     {R"(s.type: Invalid value: "string": must be object at the root)"}},
    {"bad pattern",
     R"({"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}})",
     {R"(s.properties[a].pattern: Invalid value: "(": must be a valid regular expression, but isn't: missing ): ()"}},
    {"properties and additionalProperties",
     R"({"type": "object", "properties": {"a": {"type": "string"}},
         "additionalProperties": {"type": "string"}})",
     {"s.additionalProperties: Forbidden: additionalProperties and properties are mutual "
      "exclusive"}},
    {"additionalProperties false",
     R"({"type": "object", "additionalProperties": false})",
     {"s.additionalProperties: Forbidden: additionalProperties cannot be set to false"}},
    {"items list",
     R"({"type": "object", "properties": {"a": {"type": "array",
         "items": [{"type": "string"}]}}})",
     {"s.properties[a].items: Forbidden: items must be a schema object and not an array"}},
    {"array without items",
     R"({"type": "object", "properties": {"a": {"type": "array"}}})",
     {"s.properties[a].items: Required value: must be specified"}},
    {"ref",
     R"({"type": "object", "properties": {"a": {"$ref": "#/x"}}})",
     {"s.properties[a].$ref: Forbidden: $ref is not supported",
      "s.properties[a].type: Required value: must not be empty for specified object fields"}},
    {"type in a value validation",
     R"({"type": "object", "properties": {"a": {"type": "string", "anyOf": [{"type": "string"}]}}})",
     {"s.properties[a].anyOf[0].type: Forbidden: must be empty to be structural"}},
    {"metadata beyond name",
     R"({"type": "object", "properties": {"metadata": {"type": "object",
         "properties": {"labels": {"type": "object"}}}}})",
     {"s.properties[metadata]: Forbidden: must not specify anything other than name and "
      "generateName, but metadata is implicitly specified"}},
    {"metadata name",
     R"({"type": "object", "properties": {"metadata": {"type": "object",
         "properties": {"name": {"type": "string", "maxLength": 20}}}}})",
     {}},
    {"keyword types",
     R"({"type": "object", "required": "a", "properties": {"a": {"type": "string",
         "maxLength": -1, "enum": "x", "nullable": "yes"}}})",
     {R"(s.required: Invalid value: "a": must be a list of strings)",
      R"(s.properties[a].nullable: Invalid value: "yes": must be a boolean)",
      "s.properties[a].maxLength: Invalid value: -1: must be a non-negative integer",
      R"(s.properties[a].enum: Invalid value: "x": must be a list)"}},
    {"uniqueItems",
     R"({"type": "object", "properties": {"a": {"type": "array", "uniqueItems": true,
         "items": {"type": "string"}}}})",
     {"s.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime "
      "complexity becomes quadratic"}},
    {"int-or-string typed",
     R"({"type": "object", "properties": {"a": {"type": "string",
         "x-kubernetes-int-or-string": true}}})",
     {R"(s.properties[a].type: Invalid value: "string": must be empty if x-kubernetes-int-or-string is true)"}},
    {"not a schema",
     R"({"type": "object", "properties": {"a": 5}})",
     {"s.properties[a]: Invalid value: 5: must be a schema object"}},
};

TEST(OpenApiValidationTest, StructuralSchemas) {
  for (const StructuralCase& c : kStructuralCases) {
    std::vector<std::string> errors;
    CheckStructuralSchema(Json::parse(c.schema), "s", &errors);
    EXPECT_EQ(errors, c.errors) << c.name;
    auto compiled = StructuralSchema::Compile(Json::parse(c.schema), "s");
    EXPECT_EQ(compiled.ok(), c.errors.empty()) << c.name;
    if (!compiled.ok()) {
      EXPECT_EQ(compiled.status().code(), StatusCode::kValidation) << c.name;
      EXPECT_EQ(compiled.status().message(), JoinFieldErrors(c.errors)) << c.name;
    }
  }
}

// A value is never checked against a schema that does not compile: the schema's problems come
// back instead, and nothing crashes whatever the schema holds.
TEST(OpenApiValidationTest, ASchemaThatDoesNotCompileIsNamedNotUsed) {
  Json value = Json::parse(R"({"spec": {"a": 1}})");
  std::vector<std::string> errors;
  ValidateOpenApi(Json::parse(R"({"type": "object", "properties": {"spec": {"type": {"x": 1}}}})"),
                  value, "", &errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind("openAPIV3Schema.properties[spec].type: Unsupported value:", 0), 0u)
      << errors[0];
  for (const char* schema : {"5", "null", "[]", R"({"type": "object", "properties": []})",
                             R"({"type": "object", "allOf": {}})"}) {
    errors.clear();
    ValidateOpenApi(Json::parse(schema), value, "", &errors);
    EXPECT_FALSE(errors.empty()) << schema;
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
    {"session job",
     "flinksessionjob.yaml",
     R"({"spec": {"deploymentName": "basic-session-deployment", "job": {"entryClass": "x.Y",
         "args": ["a"], "jarURI": "file:///opt/a.jar", "parallelism": 1, "upgradeMode": "stateless",
         "state": "running"}}})",
     {}},
    {"session job bad parallelism",
     "flinksessionjob.yaml",
     R"({"spec": {"job": {"parallelism": "x"}}})",
     {R"(spec.job.parallelism: Invalid value: "x": spec.job.parallelism in body must be of type integer: "string")"}},
    {"session job bad state",
     "flinksessionjob.yaml",
     R"({"spec": {"job": {"state": "paused"}}})",
     {R"(spec.job.state: Unsupported value: "paused": supported values: "running", "suspended")"}},
    {"topic",
     "kafkatopic.yaml",
     R"({"spec": {"topicName": "t", "partitions": 3, "replicas": 1, "config": {"retention.ms": -1}}})",
     {}},
    {"topic no partitions",
     "kafkatopic.yaml",
     R"({"spec": {"partitions": 0}})",
     {"spec.partitions: Invalid value: 0: spec.partitions in body should be greater than or equal "
      "to 1"}},
    {"deployment",
     "flinkdeployment.yaml",
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
