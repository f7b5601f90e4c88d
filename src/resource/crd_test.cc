// Installed CustomResourceDefinitions read and checked as the Kubernetes API server checks them,
// and the status it gives them.
#include "resource/crd.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "resource/yaml.h"

namespace hop::resource {
namespace {

Json Crd() {
  return Json::parse(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"widgets.example.com"},
    "spec":{"group":"example.com","scope":"Namespaced",
      "names":{"kind":"Widget","plural":"widgets","shortNames":["wd"],"categories":["all"]},
      "versions":[
        {"name":"v1beta1","served":true,"storage":false,
         "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
        {"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
         "additionalPrinterColumns":[{"name":"Size","type":"integer","jsonPath":".spec.size"}],
         "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object",
           "properties":{"size":{"type":"integer"}}}}}}}]}})");
}

TEST(CrdTest, ReadsNamesVersionsAndSchemas) {
  auto crd = ReadCustomResourceDefinition(Crd());
  ASSERT_TRUE(crd.ok()) << crd.status().ToString();
  EXPECT_EQ(crd->name, "widgets.example.com");
  EXPECT_EQ(crd->singular, "widget");  // defaulted from the kind
  EXPECT_EQ(crd->list_kind, "WidgetList");
  EXPECT_EQ(crd->short_names, std::vector<std::string>{"wd"});
  EXPECT_EQ(crd->categories, std::vector<std::string>{"all"});
  EXPECT_TRUE(crd->namespaced);
  const CustomResourceVersion* served = crd->ServedStorageVersion();
  ASSERT_NE(served, nullptr);
  EXPECT_EQ(served->name, "v1");
  EXPECT_TRUE(served->status_subresource);
  ASSERT_EQ(served->columns.size(), 1u);
  EXPECT_EQ(served->columns[0].json_path, ".spec.size");
  EXPECT_NE(crd->ServedVersion("v1beta1"), nullptr);
  EXPECT_EQ(crd->ServedVersion("v2"), nullptr);
  const KindInfo kind = crd->ServedKind(*served);
  EXPECT_EQ(kind.api_version(), "example.com/v1");
  EXPECT_EQ(kind.plural, "widgets");
  EXPECT_TRUE(kind.status_subresource);
  ASSERT_NE(kind.open_api_schema, nullptr);
  EXPECT_EQ((*kind.open_api_schema)["properties"]["spec"]["properties"]["size"]["type"], "integer");

  Json object = Json::parse(R"({"spec": {"size": "x", "other": 1}})");
  std::vector<std::string> errors;
  served->schema->Validate(object, "", &errors);
  EXPECT_EQ(
      errors,
      std::vector<std::string>{
          R"(spec.size: Invalid value: "x": spec.size in body must be of type integer: "string")"});
  EXPECT_FALSE(object["spec"].contains("other"));

  // The storage version not served: nothing is.
  Json unserved = Crd();
  unserved["spec"]["versions"][1]["served"] = false;
  auto read = ReadCustomResourceDefinition(unserved);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->ServedStorageVersion(), nullptr);
}

// hop's own CRDs and the fixtures of test/crds read as the API server would read them.
TEST(CrdTest, HopsCrdsAndTheFixturesAreValid) {
  for (const Json& crd : AllCustomResourceDefinitions()) {
    EXPECT_EQ(CheckCustomResourceDefinition(crd), std::vector<std::string>{})
        << crd["metadata"]["name"];
    EXPECT_TRUE(ReadCustomResourceDefinition(crd).ok()) << crd["metadata"]["name"];
  }
  const char* root = std::getenv("HOP_SOURCE_DIR");
  for (const char* file : {"flinkdeployment.yaml", "flinksessionjob.yaml", "kafkatopic.yaml"}) {
    std::ifstream in(std::string(root ? root : ".") + "/test/crds/" + file);
    std::stringstream text;
    text << in.rdbuf();
    auto docs = ParseYamlDocuments(text.str(), file);
    ASSERT_TRUE(docs.ok() && docs->size() == 1) << file;
    EXPECT_EQ(CheckCustomResourceDefinition((*docs)[0]), std::vector<std::string>{}) << file;
  }
}

struct Bad {
  const char* name;
  const char* pointer;  // a JSON pointer into Crd()
  const char* value;    // its new value, JSON; null removes it
  std::vector<std::string> errors;
};

const Bad kBad[] = {
    {"no spec", "/spec", "null", {"spec: Required value"}},
    {"group without a dot",
     "/spec/group",
     R"("example")",
     {R"(spec.group: Invalid value: "example": should be a domain with at least one dot)",
      R"(metadata.name: Invalid value: "widgets.example.com": must be spec.names.plural+"."+spec.group)"}},
    {"plural",
     "/spec/names/plural",
     R"("Widgets")",
     {R"(spec.names.plural: Invalid value: "Widgets": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character)",
      R"(metadata.name: Invalid value: "widgets.example.com": must be spec.names.plural+"."+spec.group)"}},
    {"no kind", "/spec/names/kind", "null", {"spec.names.kind: Required value"}},
    {"kind",
     "/spec/names/kind",
     R"("9Widget")",
     {R"(spec.names.kind: Invalid value: "9Widget": may have mixed case, but should otherwise match: [a-z]([-a-z0-9]*[a-z0-9])?)"}},
    {"short name",
     "/spec/names/shortNames",
     R"(["ok", "Not_OK"])",
     {R"(spec.names.shortNames[1]: Invalid value: "Not_OK": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character)"}},
    {"names not an object", "/spec/names", "7", {"spec.names: Required value"}},
    {"scope",
     "/spec/scope",
     R"("Everywhere")",
     {R"(spec.scope: Unsupported value: "Everywhere": supported values: "Cluster", "Namespaced")"}},
    {"no versions",
     "/spec/versions",
     "[]",
     {"spec.versions: Invalid value: null: must have exactly one version marked as storage "
      "version"}},
    // Types a client may get wrong are errors, never exceptions.
    {"storage as text",
     "/spec/versions/1/storage",
     R"("yes")",
     {"spec.versions[1].storage: Required value: must be true or false",
      R"(spec.versions: Invalid value: [{"name":"v1beta1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},{"name":"v1","served":true,"storage":"yes","subresources":{"status":{}},"additionalPrinterColumns":[{"name":"Size","type":"integer","jsonPath":".spec.size"}],"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}}}]: must have exactly one version marked as storage version)"}},
    {"version name",
     "/spec/versions/0/name",
     R"("1beta")",
     {R"(spec.versions[0].name: Invalid value: "1beta": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character)"}},
    {"duplicate version",
     "/spec/versions/0/name",
     R"("v1")",
     {R"(spec.versions[1].name: Duplicate value: "v1")"}},
    {"no schema",
     "/spec/versions/1/schema",
     "null",
     {"spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required"}},
    {"schema not structural",
     "/spec/versions/1/schema/openAPIV3Schema/properties/spec/properties/size/type",
     "null",
     {"spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[size].type: Required "
      "value: must not be empty for specified object fields"}},
    {"column type",
     "/spec/versions/1/additionalPrinterColumns/0/type",
     R"("float")",
     {R"(spec.versions[1].additionalPrinterColumns[0].type: Unsupported value: "float": supported values: "boolean", "date", "integer", "number", "string")"}},
    {"column path",
     "/spec/versions/1/additionalPrinterColumns/0/jsonPath",
     "null",
     {"spec.versions[1].additionalPrinterColumns[0].jsonPath: Required value"}},
};

TEST(CrdTest, InvalidCrdsNameEveryProblem) {
  for (const Bad& b : kBad) {
    Json crd = Crd();
    const Json::json_pointer at(b.pointer);
    const Json value = Json::parse(b.value);
    if (value.is_null()) {
      crd[at.parent_pointer()].erase(at.back());
    } else {
      crd[at] = value;
    }
    EXPECT_EQ(CheckCustomResourceDefinition(crd), b.errors) << b.name;
    auto read = ReadCustomResourceDefinition(crd);
    ASSERT_FALSE(read.ok()) << b.name;
    EXPECT_EQ(read.status().code(), StatusCode::kValidation) << b.name;
    EXPECT_EQ(read.status().message(), JoinFieldErrors(b.errors)) << b.name;
  }
  for (const char* garbage :
       {"null", "7", "[]", R"({"spec": []})", R"({"spec": {"versions": 3}})"}) {
    EXPECT_FALSE(CheckCustomResourceDefinition(Json::parse(garbage)).empty()) << garbage;
  }
}

TEST(CrdTest, StatusSaysWhetherTheNamesAreAccepted) {
  auto crd = ReadCustomResourceDefinition(Crd());
  ASSERT_TRUE(crd.ok());
  const Json accepted = CustomResourceDefinitionStatus(*crd, "", Json(), "2026-01-01T00:00:00Z");
  EXPECT_EQ(accepted["conditions"][0]["type"], "NamesAccepted");
  EXPECT_EQ(accepted["conditions"][0]["status"], "True");
  EXPECT_EQ(accepted["conditions"][1]["type"], "Established");
  EXPECT_EQ(accepted["conditions"][1]["status"], "True");
  EXPECT_EQ(accepted["acceptedNames"]["plural"], "widgets");
  EXPECT_EQ(accepted["acceptedNames"]["shortNames"], Json::array({"wd"}));
  EXPECT_EQ(accepted["storedVersions"], Json::array({"v1"}));
  // Unchanged conditions keep when they last changed.
  const Json later = CustomResourceDefinitionStatus(*crd, "", accepted, "2027-01-01T00:00:00Z");
  EXPECT_EQ(later, accepted);
  const Json conflict = CustomResourceDefinitionStatus(*crd, "\"widgets\" is taken", accepted,
                                                       "2027-01-01T00:00:00Z");
  EXPECT_EQ(conflict["conditions"][0]["status"], "False");
  EXPECT_EQ(conflict["conditions"][0]["message"], "\"widgets\" is taken");
  EXPECT_EQ(conflict["conditions"][0]["lastTransitionTime"], "2027-01-01T00:00:00Z");
  EXPECT_EQ(conflict["acceptedNames"]["plural"], "");
  // Whatever a stored status holds, it is read without assuming its types.
  const Json garbage = Json::parse(R"({"conditions": [{"type": 5, "status": []}, 7]})");
  EXPECT_EQ(CustomResourceDefinitionStatus(*crd, "", garbage, "2026-01-01T00:00:00Z"), accepted);
}

}  // namespace
}  // namespace hop::resource
