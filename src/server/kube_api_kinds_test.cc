// The Kubernetes API's kinds beyond hop's own, called through KubeApi::Handle over a SqliteStore
// in a temporary directory: Kubernetes' own kinds with their declared fields (Lease, RBAC,
// ServiceAccount, Service, CustomResourceDefinition); installed CRDs serving their kinds and
// validating objects; and hop's store client (X-Hop-Store-Client), answered as Kubernetes would.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <variant>

#include "common/strings.h"
#include "resource/crd.h"
#include "resource/json.h"
#include "resource/yaml.h"
#include "server/kube_api.h"
#include "store/sqlite_store.h"
#include "test/lib/fixtures.h"

namespace hop::server {
namespace {

constexpr const char* kLeases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

class KubeApiKindsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::SqliteStoreOptions options;
    options.durable = false;
    options.poll_interval = std::chrono::milliseconds(5);
    auto store = store::SqliteStore::Open(dir_.path(), options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    api_ = std::make_unique<KubeApi>(*store_, KubeApiOptions{});
    ASSERT_TRUE(api_->Start().ok());
  }
  void TearDown() override { api_->Stop(); }

  KubeResponse Call(const std::string& method, const std::string& target,
                    const std::string& body = "",
                    const std::string& content_type = "application/json") {
    KubeRequest req;
    req.method = method;
    const size_t q = target.find('?');
    req.path = target.substr(0, q);
    if (q != std::string::npos) {
      std::string query = target.substr(q + 1);
      size_t i = 0;
      while (i <= query.size()) {
        size_t j = query.find('&', i);
        if (j == std::string::npos) j = query.size();
        const std::string part = query.substr(i, j - i);
        const size_t eq = part.find('=');
        if (!part.empty()) {
          req.query[part.substr(0, eq)] = eq == std::string::npos ? "" : part.substr(eq + 1);
        }
        i = j + 1;
      }
    }
    req.body = body;
    req.content_type = content_type;
    req.store_client = store_client_;
    return api_->Handle(req);
  }
  Json CallJson(const std::string& method, const std::string& target, const std::string& body = "",
                int want = 0, const std::string& content_type = "application/json") {
    KubeResponse r = Call(method, target, body, content_type);
    if (want != 0) EXPECT_EQ(r.status, want) << method << " " << target << "\n" << r.body;
    return Json::parse(r.body, nullptr, false);
  }

  hop::testing::TempDir dir_{"hop-kube-kinds"};
  std::unique_ptr<store::SqliteStore> store_;
  std::unique_ptr<store::Store> interleaving_store_;  // what a test puts between api_ and store_
  std::unique_ptr<KubeApi> api_;
  bool store_client_ = false;
};

// The resource of `plural` in an APIResourceList, or null.
Json Resource(const Json& list, const std::string& plural) {
  for (const Json& r : list.value("resources", Json::array())) {
    if (r.value("name", "") == plural) return r;
  }
  return nullptr;
}

Json Lease(const std::string& name, const std::string& holder) {
  return Json::parse(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
    "metadata":{"name":")" +
                     name + R"("},
    "spec":{"holderIdentity":")" +
                     holder + R"(","leaseDurationSeconds":15,
            "acquireTime":"2026-01-02T03:04:05.000000Z","renewTime":"2026-01-02T03:04:06.000000Z",
            "leaseTransitions":0}})");
}

TEST_F(KubeApiKindsTest, LeasesAreServedWithTheirSpecChecked) {
  const Json group = CallJson("GET", "/apis/coordination.k8s.io/v1", "", 200);
  const Json leases = Resource(group, "leases");
  ASSERT_TRUE(leases.is_object()) << group.dump();
  EXPECT_EQ(leases["kind"], "Lease");
  EXPECT_EQ(leases["namespaced"], true);
  EXPECT_EQ(leases["singularName"], "lease");
  EXPECT_TRUE(Resource(group, "leases/status").is_null()) << "a Lease has no status subresource";

  const std::string strict = std::string(kLeases) + "?fieldValidation=Strict";
  Json made = CallJson("POST", strict, Lease("hop-operator", "pod-a").dump(), 201);
  EXPECT_EQ(made["spec"]["holderIdentity"], "pod-a");
  EXPECT_EQ(made["spec"]["leaseDurationSeconds"], 15);
  EXPECT_FALSE(made["metadata"].value("resourceVersion", "").empty());

  // A renewal by the holder, then a stale one: the second is a conflict.
  Json renewed = made;
  renewed["spec"]["renewTime"] = "2026-01-02T03:04:10.000000Z";
  const std::string item = std::string(kLeases) + "/hop-operator?fieldValidation=Strict";
  CallJson("PUT", item, renewed.dump(), 200);
  made["spec"]["holderIdentity"] = "pod-b";
  EXPECT_EQ(Call("PUT", item, made.dump()).status, 409);
  EXPECT_EQ(CallJson("GET", std::string(kLeases) + "/hop-operator")["spec"]["holderIdentity"],
            "pod-a");

  // Strict refuses a field a Lease does not declare, in its spec and at the top level.
  Json unknown = Lease("other", "pod-c");
  unknown["spec"]["holder"] = "pod-c";
  KubeResponse refused = Call("POST", strict, unknown.dump());
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_NE(refused.body.find("spec.holder: unknown field"), std::string::npos) << refused.body;
  Json top = Lease("other", "pod-c");
  top["status"] = Json::object();
  refused = Call("POST", strict, top.dump());
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_NE(refused.body.find("status: unknown field"), std::string::npos) << refused.body;
  // A wrong type is refused whatever the field validation.
  Json wrong = Lease("other", "pod-c");
  wrong["spec"]["leaseDurationSeconds"] = "15s";
  refused = Call("POST", kLeases, wrong.dump());
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_NE(refused.body.find("spec.leaseDurationSeconds"), std::string::npos) << refused.body;
  // So are values outside int32 and times that are not RFC 3339 date-times, on create, update
  // and patch alike, while the edges of int32 pass.
  struct Bad {
    const char* field;
    Json value;
  };
  const Bad kBad[] = {
      {"leaseDurationSeconds", Json(3000000000LL)},
      {"leaseDurationSeconds", Json(2147483648LL)},
      {"leaseTransitions", Json(-99999999999LL)},
      {"leaseTransitions", Json(-2147483649LL)},
      {"renewTime", Json("yesterday")},
      {"acquireTime", Json("2026-01-02")},
      {"renewTime", Json("2026-13-02T03:04:05Z")},
  };
  for (const Bad& b : kBad) {
    Json bad = Lease("bad", "pod-c");
    bad["spec"][b.field] = b.value;
    const std::string what = std::string(b.field) + " " + b.value.dump();
    refused = Call("POST", kLeases, bad.dump());
    EXPECT_EQ(refused.status, 422) << what << "\n" << refused.body;
    EXPECT_NE(refused.body.find(std::string("spec.") + b.field), std::string::npos) << what << "\n"
                                                                                    << refused.body;
    refused = Call("PATCH", std::string(kLeases) + "/hop-operator",
                   Json{{"spec", {{b.field, b.value}}}}.dump(), "application/merge-patch+json");
    EXPECT_EQ(refused.status, 422) << what << "\n" << refused.body;
  }
  EXPECT_EQ(Call("GET", std::string(kLeases) + "/bad").status, 404);
  Json edges = Lease("edges", "pod-c");
  edges["spec"]["leaseDurationSeconds"] = 2147483647;
  edges["spec"]["leaseTransitions"] = -2147483648LL;
  edges["spec"]["renewTime"] = "2026-01-02T03:04:06+02:00";
  CallJson("POST", kLeases, edges.dump(), 201);
  // Warn keeps the unknown field and says so.
  KubeResponse warned =
      Call("POST", std::string(kLeases) + "?fieldValidation=Warn", unknown.dump());
  EXPECT_EQ(warned.status, 201) << warned.body;
  ASSERT_EQ(warned.warnings.size(), 1u);
  EXPECT_NE(warned.warnings[0].find("spec.holder"), std::string::npos);
}

// --- Kubernetes' own kinds ---

TEST_F(KubeApiKindsTest, KubernetesOwnKindsHaveTheirScopeNamesAndFields) {
  struct Want {
    const char* group_version;
    const char* plural;
    const char* kind;
    bool namespaced;
    std::vector<std::string> short_names;
    bool status;
  };
  const Want kWant[] = {
      {"v1", "serviceaccounts", "ServiceAccount", true, {"sa"}, false},
      {"v1", "services", "Service", true, {"svc"}, true},
      {"rbac.authorization.k8s.io/v1", "roles", "Role", true, {}, false},
      {"rbac.authorization.k8s.io/v1", "clusterroles", "ClusterRole", false, {}, false},
      {"rbac.authorization.k8s.io/v1", "rolebindings", "RoleBinding", true, {}, false},
      {"rbac.authorization.k8s.io/v1",
       "clusterrolebindings",
       "ClusterRoleBinding",
       false,
       {},
       false},
      {"apiextensions.k8s.io/v1",
       "customresourcedefinitions",
       "CustomResourceDefinition",
       false,
       {"crd", "crds"},
       true},
      {"coordination.k8s.io/v1", "leases", "Lease", true, {}, false},
      // hop's kinds have the short names of Hoptimator's CRDs, and those of views, tables and
      // table triggers have none (docs/kubernetes-api.md "Kinds and discovery").
      {"hoptimator.linkedin.com/v1alpha1", "databases", "Database", true, {"db", "dbs"}, true},
      {"hoptimator.linkedin.com/v1alpha1", "pipelines", "Pipeline", true, {"pip", "pips"}, true},
      {"hoptimator.linkedin.com/v1alpha1", "views", "View", true, {}, true},
      {"hoptimator.linkedin.com/v1alpha1", "tables", "Table", true, {}, true},
      {"hoptimator.linkedin.com/v1alpha1", "tabletriggers", "TableTrigger", true, {}, true},
  };
  for (const Want& w : kWant) {
    const std::string gv = w.group_version;
    const Json list = CallJson("GET", gv == "v1" ? "/api/v1" : "/apis/" + gv, "", 200);
    const Json r = Resource(list, w.plural);
    ASSERT_TRUE(r.is_object()) << w.plural;
    EXPECT_EQ(r["kind"], w.kind) << w.plural;
    EXPECT_EQ(r["namespaced"], w.namespaced) << w.plural;
    EXPECT_EQ(r.value("shortNames", Json::array()), Json(w.short_names)) << w.plural;
    EXPECT_EQ(Resource(list, std::string(w.plural) + "/status").is_object(), w.status) << w.plural;
  }
  // `kubectl get all` takes services, deployments and jobs.
  EXPECT_EQ(Resource(CallJson("GET", "/api/v1"), "services")["categories"], Json::array({"all"}));
}

TEST_F(KubeApiKindsTest, RbacServiceAccountsAndServicesAreWrittenStrictly) {
  const std::string strict = "?fieldValidation=Strict";
  CallJson("POST", "/api/v1/namespaces/hop-system/serviceaccounts" + strict,
           R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"hop"},
               "automountServiceAccountToken":true,"imagePullSecrets":[{"name":"pull"}]})",
           201);
  CallJson("POST", "/api/v1/namespaces/hop-system/services" + strict,
           R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"hop-metrics"},
               "spec":{"selector":{"app":"hop"},"ports":[{"name":"metrics","port":8080}]}})",
           201);
  const std::string rules =
      R"("rules":[{"apiGroups":["hoptimator.linkedin.com"],"resources":["views","views/status"],
                   "verbs":["get","list","watch"]}])";
  CallJson("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles" + strict,
           R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
               "metadata":{"name":"hop-operator"},)" +
               rules + "}",
           201);
  const Json role =
      CallJson("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/hop-system/roles" + strict,
               R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role",
          "metadata":{"name":"hop-leader"},"rules":[{"apiGroups":["coordination.k8s.io"],
          "resources":["leases"],"verbs":["get","create","update"]}]})",
               201);
  EXPECT_EQ(role["metadata"]["namespace"], "hop-system");
  const std::string binding =
      R"("roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"hop-operator"},
         "subjects":[{"kind":"ServiceAccount","name":"hop","namespace":"hop-system"}])";
  const Json cluster_binding =
      CallJson("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings" + strict,
               R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding",
          "metadata":{"name":"hop-operator"},)" +
                   binding + "}",
               201);
  EXPECT_FALSE(cluster_binding["metadata"].contains("namespace")) << cluster_binding.dump();
  CallJson("GET", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/hop-operator", "", 200);
  // A cluster-scoped kind has no namespaced URL.
  EXPECT_EQ(Call("GET", "/apis/rbac.authorization.k8s.io/v1/namespaces/x/clusterroles").status,
            404);

  // What their schemas refuse: a rule without verbs, a binding without roleRef, an unknown field.
  const std::string roles = "/apis/rbac.authorization.k8s.io/v1/namespaces/hop-system/roles";
  KubeResponse r = Call("POST", roles + strict,
                        R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role",
                            "metadata":{"name":"bad"},"rules":[{"resources":["views"]}]})");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_NE(r.body.find("rules[0].verbs: required field is missing"), std::string::npos) << r.body;
  r = Call("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/hop-system/rolebindings" + strict,
           R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
               "metadata":{"name":"bad"},"subjects":[]})");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_NE(r.body.find("roleRef: required field is missing"), std::string::npos) << r.body;
  r = Call("POST", roles + strict,
           R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"bad"},
               "rules":[{"verbs":["get"],"verb":["list"]}]})");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_NE(r.body.find("rules[0].verb: unknown field"), std::string::npos) << r.body;
  r = Call("POST", "/api/v1/namespaces/hop-system/serviceaccounts" + strict,
           R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"bad"},"spec":{}})");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_NE(r.body.find("spec: unknown field"), std::string::npos) << r.body;
}

// --- custom resources ---

// A CRD of group example.com: Widget (namespaced, with a status subresource, a printer column and
// defaults) or Gadget (cluster-scoped).
std::string WidgetCrd(const std::string& scope = "Namespaced", const std::string& kind = "Widget") {
  std::string lower = kind;
  for (char& c : lower) c = static_cast<char>(std::tolower(c));
  return R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":")" +
         lower + R"(s.example.com"},
    "spec":{"group":"example.com","scope":")" +
         scope + R"(",
      "names":{"kind":")" +
         kind + R"(","plural":")" + lower + R"(s","shortNames":["w)" + lower.substr(0, 2) + R"("]},
      "versions":[{"name":"v1","served":true,"storage":true,
        "subresources":{"status":{}},
        "additionalPrinterColumns":[{"name":"Size","type":"integer","jsonPath":".spec.size"}],
        "schema":{"openAPIV3Schema":{"type":"object","properties":{
          "spec":{"type":"object","required":["size"],"properties":{
            "size":{"type":"integer","minimum":1},
            "color":{"type":"string","enum":["red","blue"],"default":"red"},
            "name":{"type":"string","pattern":"^[a-z]+$"}}},
          "status":{"type":"object","properties":{"ready":{"type":"boolean"}}}}}}}]}})";
}

constexpr const char* kCrds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
constexpr const char* kWidgets = "/apis/example.com/v1/namespaces/default/widgets";

std::string Widget(const std::string& name, const std::string& spec) {
  return R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":")" + name +
         R"("},"spec":)" + spec + "}";
}

TEST_F(KubeApiKindsTest, ACustomResourceDefinitionServesItsKind) {
  EXPECT_EQ(Call("GET", kWidgets).status, 404);
  const Json crd =
      CallJson("POST", std::string(kCrds) + "?fieldValidation=Strict", WidgetCrd(), 201);
  EXPECT_EQ(crd["metadata"]["name"], "widgets.example.com");
  // The API establishes it, as the API server's controllers do.
  const Json stored = CallJson("GET", std::string(kCrds) + "/widgets.example.com", "", 200);
  ASSERT_TRUE(stored["status"]["conditions"].is_array()) << stored.dump();
  for (const Json& c : stored["status"]["conditions"]) {
    EXPECT_EQ(c["status"], "True") << c.dump();
  }
  EXPECT_EQ(stored["status"]["acceptedNames"]["plural"], "widgets");
  EXPECT_EQ(stored["status"]["storedVersions"], Json::array({"v1"}));

  // Discovery, plain and aggregated.
  const Json group = CallJson("GET", "/apis/example.com/v1", "", 200);
  const Json widgets = Resource(group, "widgets");
  EXPECT_EQ(widgets["kind"], "Widget");
  EXPECT_EQ(widgets["singularName"], "widget");
  EXPECT_EQ(widgets["shortNames"], Json::array({"wwi"}));
  EXPECT_TRUE(Resource(group, "widgets/status").is_object());
  EXPECT_EQ(CallJson("GET", "/apis/example.com", "", 200)["preferredVersion"]["version"], "v1");
  KubeRequest aggregated;
  aggregated.method = "GET";
  aggregated.path = "/apis";
  aggregated.accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
  const std::string all = api_->Handle(aggregated).body;
  EXPECT_NE(all.find(R"("resource":"widgets")"), std::string::npos) << all;
  // OpenAPI: the CRD's schema under the kind's name.
  const Json v3 = CallJson("GET", "/openapi/v3/apis/example.com/v1", "", 200);
  const Json& def = v3["components"]["schemas"]["com.example.v1.Widget"];
  EXPECT_EQ(def["properties"]["spec"]["properties"]["size"]["minimum"], 1) << def.dump();
  EXPECT_EQ(def["x-kubernetes-group-version-kind"][0]["kind"], "Widget");
  EXPECT_NE(CallJson("GET", "/openapi/v3", "", 200)["paths"].dump().find("apis/example.com/v1"),
            std::string::npos);

  // Objects: created with their defaults; refused with every error joined; unknown fields
  // pruned, or refused under Strict.
  Json made = CallJson("POST", kWidgets, Widget("one", R"({"size": 3})"), 201);
  EXPECT_EQ(made["spec"]["color"], "red");
  KubeResponse invalid =
      Call("POST", kWidgets, Widget("bad", R"({"size": 0, "color": "green", "name": "X1"})"));
  EXPECT_EQ(invalid.status, 422) << invalid.body;
  const Json status = Json::parse(invalid.body);
  EXPECT_EQ(status["reason"], "Invalid");
  EXPECT_EQ(
      status["message"],
      R"(Widget.example.com "bad" is invalid: [spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1, spec.color: Unsupported value: "green": supported values: "red", "blue", spec.name: Invalid value: "X1": spec.name in body should match '^[a-z]+$'])");
  EXPECT_EQ(status["details"]["causes"].size(), 3u);
  EXPECT_EQ(status["details"]["causes"][1]["field"], "spec.color");
  EXPECT_EQ(status["details"]["causes"][1]["reason"], "FieldValueNotSupported");
  invalid = Call("POST", kWidgets, Widget("bad", R"({"color": "blue"})"));
  EXPECT_EQ(invalid.status, 422);
  EXPECT_EQ(Json::parse(invalid.body)["message"],
            R"(Widget.example.com "bad" is invalid: spec.size: Required value)");

  KubeResponse strict = Call("POST", std::string(kWidgets) + "?fieldValidation=Strict",
                             Widget("two", R"({"size": 1, "shape": "round"})"));
  EXPECT_EQ(strict.status, 400) << strict.body;
  EXPECT_NE(strict.body.find(R"(strict decoding error: unknown field \"spec.shape\")"),
            std::string::npos)
      << strict.body;
  KubeResponse warned = Call("POST", kWidgets, Widget("two", R"({"size": 1, "shape": "round"})"));
  EXPECT_EQ(warned.status, 201) << warned.body;
  EXPECT_EQ(warned.warnings, std::vector<std::string>{R"(unknown field "spec.shape")"});
  EXPECT_FALSE(Json::parse(warned.body)["spec"].contains("shape"));
  // Patches and updates are validated too.
  EXPECT_EQ(Call("PATCH", std::string(kWidgets) + "/one", R"({"spec":{"size":-1}})",
                 "application/merge-patch+json")
                .status,
            422);
  EXPECT_EQ(Call("PATCH", std::string(kWidgets) + "/one", R"({"spec":{"size":-1}})",
                 "application/strategic-merge-patch+json")
                .status,
            415);
  made["spec"]["size"] = "big";
  EXPECT_EQ(Call("PUT", std::string(kWidgets) + "/one", made.dump()).status, 422);
  EXPECT_EQ(Call("POST", std::string(kWidgets) + "?dryRun=All", Widget("dry", R"({})")).status,
            422);

  // The status subresource: a create or an update of the object keeps the stored status, a
  // write of the status keeps the rest.
  Json with_status = Json::parse(Widget("three", R"({"size": 2})"));
  with_status["status"] = Json{{"ready", true}};
  EXPECT_FALSE(CallJson("POST", kWidgets, with_status.dump(), 201).contains("status"));
  Json current = CallJson("GET", std::string(kWidgets) + "/three", "", 200);
  current["status"] = Json{{"ready", true}, {"extra", 1}};
  current["spec"]["size"] = 9;
  Json after = CallJson("PUT", std::string(kWidgets) + "/three/status", current.dump(), 200);
  EXPECT_EQ(after["status"], Json({{"ready", true}}));  // pruned by the schema
  EXPECT_EQ(after["spec"]["size"], 2);
  after["spec"]["size"] = 4;
  after["status"]["ready"] = false;
  after = CallJson("PUT", std::string(kWidgets) + "/three", after.dump(), 200);
  EXPECT_EQ(after["spec"]["size"], 4);
  EXPECT_EQ(after["status"]["ready"], true);
  EXPECT_EQ(after["metadata"]["generation"], 2);

  // A Table has the CRD's printer columns.
  KubeRequest table;
  table.method = "GET";
  table.path = kWidgets;
  table.accept = "application/json;as=Table;g=meta.k8s.io;v=v1";
  const Json t = Json::parse(api_->Handle(table).body);
  EXPECT_EQ(t["columnDefinitions"][1]["name"], "Size") << t.dump();
  EXPECT_EQ(t["rows"][0]["cells"][1], 3) << t.dump();
  EXPECT_EQ(CallJson("GET", kWidgets, "", 200)["items"].size(), 3u);

  // Deleting the CRD stops serving the kind and deletes its objects, as on Kubernetes.
  CallJson("DELETE", std::string(kCrds) + "/widgets.example.com", "", 200);
  EXPECT_EQ(Call("GET", kWidgets).status, 404);
  EXPECT_EQ(Call("GET", "/apis/example.com/v1").status, 404);
  auto left = store_->List({resource::GroupKind{"example.com", "Widget"}});
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->items.empty());
}

TEST_F(KubeApiKindsTest, AClusterScopedCustomKindHasNoNamespace) {
  CallJson("POST", kCrds, WidgetCrd("Cluster", "Gadget"), 201);
  const std::string gadgets = "/apis/example.com/v1/gadgets";
  const Json made = CallJson(
      "POST", gadgets,
      R"({"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"size":1}})",
      201);
  EXPECT_FALSE(made["metadata"].contains("namespace")) << made.dump();
  EXPECT_FALSE(CallJson("GET", gadgets + "/g", "", 200)["metadata"].contains("namespace"));
  const Json list = CallJson("GET", gadgets, "", 200);
  ASSERT_EQ(list["items"].size(), 1u);
  EXPECT_FALSE(list["items"][0]["metadata"].contains("namespace"));
  EXPECT_EQ(Call("GET", "/apis/example.com/v1/namespaces/default/gadgets").status, 404);
  Json patched = CallJson("PATCH", gadgets + "/g", R"({"spec":{"size":5}})", 200,
                          "application/merge-patch+json");
  EXPECT_EQ(patched["spec"]["size"], 5);
  EXPECT_FALSE(patched["metadata"].contains("namespace"));
  EXPECT_EQ(Call("POST", gadgets,
                 R"({"apiVersion":"example.com/v1","kind":"Gadget",
                     "metadata":{"name":"h","namespace":"default"},"spec":{"size":1}})")
                .status,
            400);
}

// A watch of a kind only a CRD defines: the objects as they are, then each change; a
// cluster-scoped one without the namespace the store keeps it in.
TEST_F(KubeApiKindsTest, AWatchOfACustomKindSeesItsObjectsAndChanges) {
  CallJson("POST", kCrds, WidgetCrd("Cluster", "Gadget"), 201);
  const std::string gadgets = "/apis/example.com/v1/gadgets";
  auto gadget = [](const std::string& name) {
    return R"({"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":")" + name +
           R"("},"spec":{"size":1}})";
  };
  CallJson("POST", gadgets, gadget("a"), 201);
  KubeRequest req;
  req.method = "GET";
  req.path = gadgets;
  req.query = {{"watch", "true"}, {"timeoutSeconds", "10"}};
  auto opened = api_->OpenWatch(req);
  ASSERT_TRUE(std::holds_alternative<std::unique_ptr<KubeWatchStream>>(opened));
  auto stream = std::move(std::get<std::unique_ptr<KubeWatchStream>>(opened));
  std::atomic<bool> stopping{false};
  std::mutex mu;
  std::string seen;
  std::thread runner([&] {
    stream->Run(
        [&](std::string_view chunk) {
          std::lock_guard<std::mutex> lock(mu);
          seen += chunk;
          return true;
        },
        stopping);
  });
  CallJson("POST", gadgets, gadget("b"), 201);
  auto lines = [&] {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<Json> out;
    size_t i = 0;
    for (size_t nl; (nl = seen.find('\n', i)) != std::string::npos; i = nl + 1) {
      out.push_back(Json::parse(seen.substr(i, nl - i)));
    }
    return out;
  };
  for (int i = 0; i < 500 && lines().size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stopping = true;
  runner.join();
  const std::vector<Json> events = lines();
  ASSERT_EQ(events.size(), 2u) << seen;
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[0]["object"]["metadata"]["name"], "a");
  EXPECT_EQ(events[1]["type"], "ADDED");
  EXPECT_EQ(events[1]["object"]["metadata"]["name"], "b");
  for (const Json& e : events) {
    EXPECT_FALSE(e["object"]["metadata"].contains("namespace")) << e.dump();
  }
}

TEST_F(KubeApiKindsTest, InvalidCustomResourceDefinitionsAreRefused) {
  struct Bad {
    const char* name;
    std::string from;
    std::string to;
    std::string error;
  };
  const Bad kBad[] = {
      {"not structural", R"("size":{"type":"integer","minimum":1})", R"("size":{"minimum":1})",
       "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type: Required "
       "value: must not be empty for specified object fields"},
      {"type not a string", R"("size":{"type":"integer","minimum":1})", R"("size":{"type":7})",
       R"(spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type: Unsupported value: 7)"},
      {"bad pattern", R"("pattern":"^[a-z]+$")", R"("pattern":"([a-z]")",
       R"(spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[name].pattern: Invalid value: \"([a-z]\": must be a valid regular expression, but isn't: missing ))"},
      {"name", R"("name":"widgets.example.com")", R"("name":"things.example.com")",
       R"(metadata.name: Invalid value: \"things.example.com\": must be spec.names.plural+\".\"+spec.group)"},
      {"scope", R"("scope":"Namespaced")", R"("scope":"Global")",
       R"(spec.scope: Unsupported value: \"Global\")"},
      {"no storage version", R"("storage":true)", R"("storage":false)",
       "must have exactly one version marked as storage version"},
  };
  for (const Bad& b : kBad) {
    std::string crd = WidgetCrd();
    const size_t at = crd.find(b.from);
    ASSERT_NE(at, std::string::npos) << b.name;
    crd.replace(at, b.from.size(), b.to);
    KubeResponse r = Call("POST", kCrds, crd);
    EXPECT_EQ(r.status, 422) << b.name << "\n" << r.body;
    EXPECT_NE(r.body.find(b.error), std::string::npos) << b.name << "\n" << r.body;
    EXPECT_NE(r.body.find(R"(CustomResourceDefinition.apiextensions.k8s.io \")"), std::string::npos)
        << b.name << "\n"
        << r.body;
  }
  EXPECT_EQ(CallJson("GET", kCrds, "", 200)["items"].size(), 0u);
}

// A CRD whose names clash with a kind served already is stored, not established, not served.
TEST_F(KubeApiKindsTest, ACustomResourceDefinitionWhoseNamesClashIsNotEstablished) {
  std::string crd = WidgetCrd();
  for (auto [from, to] :
       {std::pair<std::string, std::string>{"example.com", "hoptimator.linkedin.com"},
        {R"("plural":"widgets")", R"("plural":"views")"}}) {
    size_t at;
    while ((at = crd.find(from)) != std::string::npos) crd.replace(at, from.size(), to);
  }
  crd.replace(crd.find("widgets.hoptimator"), 7, "views");
  CallJson("POST", kCrds, crd, 201);
  const Json stored =
      CallJson("GET", std::string(kCrds) + "/views.hoptimator.linkedin.com", "", 200);
  EXPECT_EQ(stored["status"]["conditions"][0]["type"], "NamesAccepted");
  EXPECT_EQ(stored["status"]["conditions"][0]["status"], "False") << stored.dump();
  EXPECT_EQ(stored["status"]["conditions"][1]["status"], "False") << stored.dump();
  // views are still hop's Views.
  EXPECT_EQ(Resource(CallJson("GET", "/apis/hoptimator.linkedin.com/v1alpha1"), "views")["kind"],
            "View");
}

// The test/crds fixture of a kind hop knows free-form: its objects are validated by it, and the
// kind is served as hop knows it, with the CRD's schema in the OpenAPI documents.
std::string Fixture(const std::string& file) {
  const char* root = std::getenv("HOP_SOURCE_DIR");
  std::ifstream in(std::string(root ? root : ".") + "/test/crds/" + file);
  std::stringstream text;
  text << in.rdbuf();
  auto docs = ParseYamlDocuments(text.str(), file);
  EXPECT_TRUE(docs.ok() && docs->size() == 1) << file;
  return docs.ok() && !docs->empty() ? (*docs)[0].dump() : "";
}

TEST_F(KubeApiKindsTest, AnInstalledCrdValidatesAKindHopKnows) {
  const std::string jobs = "/apis/flink.apache.org/v1beta1/namespaces/default/flinksessionjobs";
  const std::string bad = R"({"apiVersion":"flink.apache.org/v1beta1","kind":"FlinkSessionJob",
      "metadata":{"name":"j"},"spec":{"deploymentName":"d","job":{"parallelism":"x","state":"paused"}}})";
  // Free-form until its CRD is installed.
  CallJson("POST", jobs + "?dryRun=All", bad, 201);
  CallJson("POST", kCrds, Fixture("flinksessionjob.yaml"), 201);
  KubeResponse refused = Call("POST", jobs, bad);
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_EQ(
      Json::parse(refused.body)["message"],
      R"(FlinkSessionJob.flink.apache.org "j" is invalid: [spec.job.parallelism: Invalid value: "x": spec.job.parallelism in body must be of type integer: "string", spec.job.state: Unsupported value: "paused": supported values: "running", "suspended"])");
  CallJson("POST", jobs,
           R"({"apiVersion":"flink.apache.org/v1beta1","kind":"FlinkSessionJob",
               "metadata":{"name":"j"},"spec":{"deploymentName":"d","job":{"parallelism":2}}})",
           201);
  // Served as hop knows it, with the CRD's short name, schema and columns.
  const Json group = CallJson("GET", "/apis/flink.apache.org/v1beta1", "", 200);
  EXPECT_EQ(Resource(group, "flinksessionjobs")["shortNames"], Json::array({"sessionjob"}));
  const Json v2 = CallJson("GET", "/openapi/v2", "", 200);
  EXPECT_EQ(v2["definitions"]["org.apache.flink.v1beta1.FlinkSessionJob"]["properties"]["spec"]
              ["properties"]["job"]["properties"]["state"]["enum"],
            Json::array({"running", "suspended"}));
  // Deleting its CRD keeps the kind, and its objects, served free-form.
  CallJson("DELETE", std::string(kCrds) + "/flinksessionjobs.flink.apache.org", "", 200);
  CallJson("GET", jobs + "/j", "", 200);
  Json other = Json::parse(bad);
  other["metadata"]["name"] = "k";
  CallJson("POST", jobs + "?dryRun=All", other.dump(), 201);
}

// The CRDs `hop crds` prints install, and then check hop's kinds as the API server would, on top
// of hop's own validation.
TEST_F(KubeApiKindsTest, HopsOwnCrdsInstallAndValidateHopsKinds) {
  for (const Json& crd : resource::AllCustomResourceDefinitions()) {
    CallJson("POST", std::string(kCrds) + "?fieldValidation=Strict", crd.dump(), 201);
  }
  const std::string sqljobs = "/apis/hoptimator.linkedin.com/v1alpha1/namespaces/default/sqljobs";
  const Json job = CallJson(
      "POST", sqljobs,
      R"({"apiVersion":"hoptimator.linkedin.com/v1alpha1","kind":"SqlJob","metadata":{"name":"s"},
          "spec":{"sql":["SELECT 1"]}})",
      201);
  // The CRD's defaults, as the API server sets them.
  EXPECT_EQ(job["spec"]["dialect"], "Flink");
  EXPECT_EQ(job["spec"]["executionMode"], "Streaming");
  // A status field the CRD does not declare is pruned from a status write.
  const std::string views = "/apis/hoptimator.linkedin.com/v1alpha1/namespaces/default/views";
  Json view = CallJson("POST", views,
                       R"({"apiVersion":"hoptimator.linkedin.com/v1alpha1","kind":"View",
                           "metadata":{"name":"v"},"spec":{"view":"V","sql":"SELECT 1"}})",
                       201);
  view["status"] = Json{{"watermark", "2026-01-01T00:00:00Z"}, {"undeclared", true}};
  const Json written = CallJson("PUT", views + "/v/status", view.dump(), 200);
  EXPECT_EQ(written["status"], Json({{"watermark", "2026-01-01T00:00:00Z"}}));
  // hop's validation still answers first.
  KubeResponse r = Call("POST", views,
                        R"({"apiVersion":"hoptimator.linkedin.com/v1alpha1","kind":"View",
                            "metadata":{"name":"w"},"spec":{"view":"W"}})");
  EXPECT_EQ(r.status, 422);
  EXPECT_NE(r.body.find("spec.sql: required field is missing"), std::string::npos) << r.body;
}

// A CRD written around the API (hop apply writes the store) takes effect when the watch cache
// sees it.
TEST_F(KubeApiKindsTest, ACrdWrittenToTheStoreIsServedSoon) {
  auto crd = resource::Resource::FromJson(Json::parse(WidgetCrd()), "test");
  ASSERT_TRUE(crd.ok());
  ASSERT_TRUE(store_->Create(std::move(*crd)).ok());
  int status = 0;
  for (int i = 0; i < 400 && status != 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    status = Call("GET", kWidgets).status;
  }
  EXPECT_EQ(status, 200);
  Json stored;
  for (int i = 0; i < 400 && !stored.contains("status"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stored = CallJson("GET", std::string(kCrds) + "/widgets.example.com");
  }
  EXPECT_EQ(stored["status"]["conditions"][1]["type"], "Established") << stored.dump();
}

// --- preconditions and patches ---

constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";

Json ConfigMap(const std::string& name) {
  return Json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
                     R"("},"data":{"x":"y"}})");
}

TEST_F(KubeApiKindsTest, AUidThatNamesAnotherObjectIsAConflict) {
  const std::string item = std::string(kConfigMaps) + "/cm";
  const Json made = CallJson("POST", kConfigMaps, ConfigMap("cm").dump(), 201);
  const std::string uid = made["metadata"]["uid"];
  const std::string other = "5a0e33b6-0000-4000-8000-000000000000";
  const std::string precondition = fmt::format(
      "Precondition failed: UID in precondition: {}, UID in object meta: {}", other, uid);
  auto expect_conflict = [&](const KubeResponse& r, const std::string& what) {
    EXPECT_EQ(r.status, 409) << what << "\n" << r.body;
    const Json status = Json::parse(r.body, nullptr, false);
    EXPECT_EQ(status.value("reason", ""), "Conflict") << what << "\n" << r.body;
    EXPECT_NE(status.value("message", "").find(precondition), std::string::npos) << what << "\n"
                                                                                 << r.body;
  };

  // Writes: PUT of the object and of its status, merge and JSON patches setting the uid.
  Json put = made;
  put["metadata"]["uid"] = other;
  put["data"]["x"] = "changed";
  expect_conflict(Call("PUT", item, put.dump()), "PUT");
  put["metadata"].erase("resourceVersion");
  expect_conflict(Call("PUT", item, put.dump()), "PUT without a resourceVersion");
  expect_conflict(
      Call("PATCH", item, R"({"metadata":{"uid":")" + other + R"("},"data":{"x":"changed"}})",
           "application/merge-patch+json"),
      "merge patch");
  expect_conflict(
      Call("PATCH", item, R"([{"op":"replace","path":"/metadata/uid","value":")" + other + R"("}])",
           "application/json-patch+json"),
      "JSON patch");
  EXPECT_EQ(CallJson("GET", item, "", 200)["data"]["x"], "y");
  // The object's own uid, or none, is no obstacle.
  put["metadata"]["uid"] = uid;
  CallJson("PUT", item, put.dump(), 200);

  // Deletes: DeleteOptions in the body or the query, dry run or not.
  expect_conflict(Call("DELETE", item, R"({"preconditions":{"uid":")" + other + R"("}})"),
                  "DELETE with a body");
  expect_conflict(
      Call("DELETE", item, R"({"dryRun":["All"],"preconditions":{"uid":")" + other + R"("}})"),
      "dry-run DELETE");
  expect_conflict(Call("DELETE", item + "?preconditions.uid=" + other), "DELETE with a query");
  KubeResponse stale = Call("DELETE", item, R"({"preconditions":{"resourceVersion":"1"}})");
  EXPECT_EQ(stale.status, 409) << stale.body;
  EXPECT_EQ(Call("DELETE", item + "?preconditions.resourceVersion=1").status, 409);
  EXPECT_EQ(Call("GET", item).status, 200) << "no refused delete took the object";
  CallJson("DELETE", item, R"({"preconditions":{"uid":")" + uid + R"("}})", 200);
  EXPECT_EQ(Call("GET", item).status, 404);
}

// A store that runs `before_next_commit` once, just before the next commit: another writer's
// change landing between the API's read of an object and its write. The rest goes to `real`.
class InterleavingStore : public store::Store {
 public:
  explicit InterleavingStore(store::Store& real) : real_(real) {}
  Result<resource::Resource> Get(const store::ObjectRef& ref) override { return real_.Get(ref); }
  Result<store::ListResult> List(const store::ListOptions& o) override { return real_.List(o); }
  Result<std::vector<resource::Resource>> Commit(std::vector<store::Write> writes) override {
    if (before_next_commit) std::exchange(before_next_commit, nullptr)();
    return real_.Commit(std::move(writes));
  }
  std::unique_ptr<store::Watch> StartWatch(const store::WatchOptions& o) override {
    return real_.StartWatch(o);
  }
  Result<int64_t> Revision() override { return real_.Revision(); }

  std::function<void()> before_next_commit;

 private:
  store::Store& real_;
};

// The API over an InterleavingStore of the fixture's store, for the tests of writes that another
// writer's change lands in the middle of.
class KubeApiInterleavedTest : public KubeApiKindsTest {
 protected:
  InterleavingStore& Interleave() {
    api_->Stop();
    auto owned = std::make_unique<InterleavingStore>(*store_);
    InterleavingStore& interleaving = *owned;
    interleaving_store_ = std::move(owned);
    api_ = std::make_unique<KubeApi>(interleaving, KubeApiOptions{});
    EXPECT_TRUE(api_->Start().ok());
    return interleaving;
  }
  // A Database named cm, as the ConfigMap the tests write beside it.
  static Json DatabaseCm() {
    return Json::parse(R"({"apiVersion":"hoptimator.linkedin.com/v1alpha1",
      "kind":"Database","metadata":{"name":"cm"},
      "spec":{"schema":"ADS","url":"jdbc:demodb://names=ads","dialect":"Calcite"}})");
  }
};

TEST_F(KubeApiInterleavedTest, ADeletePreconditionHoldsAgainstAnObjectMadeAgainMeanwhile) {
  // The API over a store where another writer deletes the object and makes it again between the
  // API's read of it and its delete: the preconditions name the object read, not the new one.
  InterleavingStore& interleaving = Interleave();
  const std::string databases =
      "/apis/hoptimator.linkedin.com/v1alpha1/namespaces/default/databases";
  const Json database = DatabaseCm();
  struct Case {
    const char* name;
    std::string collection;
    Json object;
    bool by_uid;  // else by resourceVersion
    bool store_client;
  };
  const Case kCases[] = {
      {"ConfigMap, uid", kConfigMaps, ConfigMap("cm"), true, false},
      {"ConfigMap, resourceVersion", kConfigMaps, ConfigMap("cm"), false, false},
      {"Database, uid", databases, database, true, false},
      {"Database, resourceVersion", databases, database, false, false},
      {"ConfigMap, uid, store client", kConfigMaps, ConfigMap("cm"), true, true},
  };
  for (const Case& c : kCases) {
    store_client_ = c.store_client;
    const std::string item = c.collection + "/cm";
    const Json made = CallJson("POST", c.collection, c.object.dump(), 201);
    const std::string uid = made["metadata"]["uid"];
    const std::string version = made["metadata"]["resourceVersion"];
    std::string remade_uid;
    interleaving.before_next_commit = [&] {
      resource::Resource again = resource::Resource::FromJson(c.object, "test").value();
      ASSERT_TRUE(store_->Delete(store::RefOf(again)).ok());
      auto created = store_->Create(again);
      ASSERT_TRUE(created.ok()) << created.status().ToString();
      remade_uid = created->uid();
    };
    const Json preconditions = c.by_uid ? Json{{"uid", uid}} : Json{{"resourceVersion", version}};
    KubeResponse r = Call("DELETE", item, Json{{"preconditions", preconditions}}.dump());
    EXPECT_EQ(r.status, 409) << c.name << "\n" << r.body;
    EXPECT_EQ(Json::parse(r.body, nullptr, false).value("reason", ""), "Conflict") << c.name;
    if (c.by_uid) {
      EXPECT_NE(r.body.find(fmt::format("Precondition failed: UID in precondition: {}, UID in "
                                        "object meta: {}",
                                        uid, remade_uid)),
                std::string::npos)
          << c.name << "\n"
          << r.body;
    }
    const Json still = CallJson("GET", item, "", 200);
    EXPECT_EQ(still["metadata"].value("uid", ""), remade_uid) << c.name << ": the new object stays";
    CallJson("DELETE", item, "", 200);
  }
}

TEST_F(KubeApiInterleavedTest, APutUidPreconditionHoldsAgainstAnObjectMadeAgainMeanwhile) {
  // The API over a store where another writer deletes the object and makes it again between the
  // API's read of it and its update: a PUT naming the object read by metadata.uid, without a
  // resourceVersion, leaves the new object as it is.
  InterleavingStore& interleaving = Interleave();
  const std::string databases =
      "/apis/hoptimator.linkedin.com/v1alpha1/namespaces/default/databases";
  const Json database = DatabaseCm();
  struct Case {
    const char* name;
    std::string collection;
    Json object;
    const char* field;  // the top-level field the PUT changes
    bool store_client;
  };
  const Case kCases[] = {
      {"ConfigMap", kConfigMaps, ConfigMap("cm"), "data", false},
      {"Database", databases, database, "spec", false},
      {"ConfigMap, store client", kConfigMaps, ConfigMap("cm"), "data", true},
  };
  for (const Case& c : kCases) {
    store_client_ = c.store_client;
    const std::string item = c.collection + "/cm";
    const Json made = CallJson("POST", c.collection, c.object.dump(), 201);
    const std::string uid = made["metadata"]["uid"];
    std::string remade_uid;
    interleaving.before_next_commit = [&] {
      resource::Resource again = resource::Resource::FromJson(c.object, "test").value();
      ASSERT_TRUE(store_->Delete(store::RefOf(again)).ok());
      auto created = store_->Create(again);
      ASSERT_TRUE(created.ok()) << created.status().ToString();
      remade_uid = created->uid();
    };
    Json put = c.object;
    put["metadata"]["uid"] = uid;
    if (std::string(c.field) == "data") {
      put["data"]["put"] = "yes";
    } else {
      put["spec"]["schema"] = "PUT";
    }
    KubeResponse r = Call("PUT", item, put.dump());
    EXPECT_FALSE(interleaving.before_next_commit) << c.name << ": the PUT wrote nothing";
    EXPECT_EQ(r.status, 409) << c.name << "\n" << r.body;
    EXPECT_EQ(Json::parse(r.body, nullptr, false).value("reason", ""), "Conflict") << c.name;
    EXPECT_NE(r.body.find(fmt::format("Precondition failed: UID in precondition: {}, UID in "
                                      "object meta: {}",
                                      uid, remade_uid)),
              std::string::npos)
        << c.name << "\n"
        << r.body;
    const Json still = CallJson("GET", item, "", 200);
    EXPECT_EQ(still["metadata"].value("uid", ""), remade_uid) << c.name << ": the new object stays";
    EXPECT_EQ(still[c.field], c.object[c.field]) << c.name << ": unchanged";
    // Naming the new object, the PUT writes.
    put["metadata"]["uid"] = remade_uid;
    EXPECT_EQ(CallJson("PUT", item, put.dump(), 200)[c.field], put[c.field]) << c.name;
    CallJson("DELETE", item, "", 200);
  }
}

TEST_F(KubeApiKindsTest, APatchCannotChangeTheApiVersionOrKind) {
  const std::string item = std::string(kConfigMaps) + "/cm";
  CallJson("POST", kConfigMaps, ConfigMap("cm").dump(), 201);
  const std::string view = "/apis/hoptimator.linkedin.com/v1alpha1/namespaces/default/views/v";
  CallJson(
      "POST", "/apis/hoptimator.linkedin.com/v1alpha1/namespaces/default/views",
      R"({"apiVersion":"hoptimator.linkedin.com/v1alpha1","kind":"View","metadata":{"name":"v"},
          "spec":{"view":"V","schema":"ADS","sql":"SELECT 1"}})",
      201);
  struct Case {
    const char* target;
    const char* type;
    const char* patch;
  };
  const std::string merge = "application/merge-patch+json";
  const Case kCases[] = {
      {kConfigMaps, "application/merge-patch+json", R"({"apiVersion":"v3"})"},
      {kConfigMaps, "application/strategic-merge-patch+json", R"({"apiVersion":"apps/v1"})"},
      {kConfigMaps, "application/json-patch+json",
       R"([{"op":"replace","path":"/apiVersion","value":"v3"}])"},
      {kConfigMaps, "application/merge-patch+json", R"({"kind":"Secret"})"},
      {"views", "application/merge-patch+json",
       R"({"apiVersion":"hoptimator.linkedin.com/v1alpha2"})"},
      {"views", "application/json-patch+json",
       R"([{"op":"replace","path":"/apiVersion","value":"hoptimator.linkedin.com/v1"}])"},
  };
  for (const Case& c : kCases) {
    const std::string target = std::string(c.target) == "views" ? view : item;
    KubeResponse r = Call("PATCH", target, c.patch, c.type);
    EXPECT_EQ(r.status, 422) << c.target << " " << c.patch << "\n" << r.body;
  }
  EXPECT_EQ(CallJson("GET", item, "", 200)["apiVersion"], "v1");
  EXPECT_EQ(CallJson("GET", view, "", 200)["apiVersion"], "hoptimator.linkedin.com/v1alpha1");
  // A patch naming the object's own version and kind is a patch like any other.
  CallJson("PATCH", item, R"({"apiVersion":"v1","kind":"ConfigMap","data":{"x":"z"}})", 200, merge);
}

TEST_F(KubeApiKindsTest, AJsonPatchIntoAValueThatHoldsNoFieldsIsInvalid) {
  const std::string item = std::string(kConfigMaps) + "/cm";
  Json made = ConfigMap("cm");
  made["metadata"]["labels"] = Json{{"team", "ads"}};
  made["binaryData"] = Json{{"n", "AAE="}};
  CallJson("POST", kConfigMaps, made.dump(), 201);
  const Json before = CallJson("GET", item, "", 200);
  // data.x is a string and metadata.labels.team too: neither holds a member "y".
  const char* const kCases[] = {
      R"([{"op":"add","path":"/data/x/y","value":"z"}])",
      R"([{"op":"remove","path":"/data/x/y"}])",
      R"([{"op":"replace","path":"/data/x/y","value":"z"}])",
      R"([{"op":"copy","from":"/data/x","path":"/metadata/labels/team/y"}])",
      R"([{"op":"move","from":"/data/x/y","path":"/data/z"}])",
      R"([{"op":"move","from":"/binaryData/n","path":"/data/x/0"}])",
      R"([{"op":"add","path":"/data/k","value":"v"},{"op":"add","path":"/data/k/y","value":"z"}])",
  };
  for (const char* patch : kCases) {
    KubeResponse r = Call("PATCH", item, patch, "application/json-patch+json");
    EXPECT_EQ(r.status, 422) << patch << "\n" << r.body;
    EXPECT_EQ(Json::parse(r.body, nullptr, false).value("reason", ""), "Invalid") << patch << "\n"
                                                                                  << r.body;
  }
  EXPECT_EQ(CallJson("GET", item, "", 200), before) << "no refused patch wrote anything";
  // Into an object or an array they apply.
  const Json patched =
      CallJson("PATCH", item,
               R"([{"op":"add","path":"/data/y","value":"z"},{"op":"remove","path":"/data/x"},
                   {"op":"move","from":"/binaryData/n","path":"/binaryData/m"}])",
               200, "application/json-patch+json");
  EXPECT_EQ(patched["data"], Json({{"y", "z"}}));
  EXPECT_EQ(patched["binaryData"], Json({{"m", "AAE="}}));
}

TEST_F(KubeApiKindsTest, AnImmutableConfigMapOrSecretKeepsItsData) {
  Json cm = ConfigMap("cm");
  cm["immutable"] = true;
  CallJson("POST", kConfigMaps, cm.dump(), 201);
  const std::string secrets = "/api/v1/namespaces/default/secrets";
  CallJson("POST", secrets,
           R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"immutable":true,
               "stringData":{"a":"b"},"type":"Opaque"})",
           201);
  const std::string merge = "application/merge-patch+json";
  struct Case {
    const char* method;
    std::string target;
    std::string body;
    std::string content_type;
    const char* error;
  };
  const std::string cm_item = std::string(kConfigMaps) + "/cm";
  Json put = cm;
  put["data"]["x"] = "z";
  const Case kCases[] = {
      {"PUT", cm_item, put.dump(), "application/json",
       "data: Forbidden: field is immutable when `immutable` is set"},
      {"PATCH", cm_item, R"({"data":{"x":"z"}})", merge, "data: Forbidden"},
      {"PATCH", cm_item + "?dryRun=All", R"({"binaryData":{"b":"AA=="}})", merge,
       "binaryData: Forbidden"},
      {"PATCH", cm_item, R"({"immutable":false})", merge, "immutable: Forbidden"},
      {"PATCH", cm_item, R"([{"op":"remove","path":"/immutable"}])", "application/json-patch+json",
       "immutable: Forbidden"},
      {"PATCH", secrets + "/s", R"({"stringData":{"a":"c"}})", merge, "data: Forbidden"},
      {"PATCH", secrets + "/s", R"({"data":null})", merge, "data: Forbidden"},
      {"PATCH", secrets + "/s", R"({"type":"kubernetes.io/tls"})", merge,
       R"(type: Invalid value: \"kubernetes.io/tls\": field is immutable)"},
  };
  for (const Case& c : kCases) {
    KubeResponse r = Call(c.method, c.target, c.body, c.content_type);
    EXPECT_EQ(r.status, 422) << c.method << " " << c.target << " " << c.body << "\n" << r.body;
    EXPECT_NE(r.body.find(c.error), std::string::npos) << c.body << "\n" << r.body;
  }
  EXPECT_EQ(CallJson("GET", cm_item, "", 200)["data"], Json({{"x", "y"}}));
  const Json secret = CallJson("GET", secrets + "/s", "", 200);
  EXPECT_EQ(secret["data"], Json({{"a", "Yg=="}}));
  EXPECT_EQ(secret["type"], "Opaque");
  // Its metadata may change, and the same stringData again is no change.
  CallJson("PATCH", cm_item, R"({"metadata":{"labels":{"team":"ads"}}})", 200, merge);
  CallJson("PATCH", secrets + "/s", R"({"stringData":{"a":"b"}})", 200, merge);
}

// --- what the API server refuses of ConfigMaps, Secrets, Namespaces and any object ---

constexpr const char* kSecrets = "/api/v1/namespaces/default/secrets";

// The Status of a refused write: its code, reason and message.
struct Refusal {
  int code = 0;
  std::string reason;
  std::string message;
};

Refusal RefusalOf(const KubeResponse& r) {
  const Json status = Json::parse(r.body, nullptr, false);
  return {r.status, status.is_object() ? status.value("reason", "") : "",
          status.is_object() ? status.value("message", "") : ""};
}

TEST_F(KubeApiKindsTest, ConfigMapAndSecretKeysFollowTheirRule) {
  const std::string longest(253, 'k');
  const std::string too_long(254, 'k');
  struct Case {
    const char* name;
    const char* collection;
    std::string fields;  // the object's fields besides apiVersion, kind and metadata
    std::string error;   // in the message of the 422; empty: created
  };
  const Case kCases[] = {
      {"every allowed character", kConfigMaps, R"({"data":{"-._aZ09":"v"}})", ""},
      {"a key of 253 characters", kConfigMaps, R"({"data":{")" + longest + R"(":"v"}})", ""},
      {"a key starting with one dot", kConfigMaps, R"({"data":{".env":"v"}})", ""},
      {"data and binaryData with other keys", kConfigMaps,
       R"({"data":{"a":"v"},"binaryData":{"b":"AA=="}})", ""},
      {"a space", kConfigMaps, R"({"data":{"a b":"v"}})", "data[a b]: "},
      {"a slash in binaryData", kConfigMaps, R"({"binaryData":{"a/b":"AA=="}})",
       "binaryData[a/b]: "},
      {"an empty key", kConfigMaps, R"({"data":{"":"v"}})", "data[]: "},
      {"a key of 254 characters", kConfigMaps, R"({"data":{")" + too_long + R"(":"v"}})",
       "data[" + too_long + "]: "},
      {"a key that is a dot", kConfigMaps, R"({"data":{".":"v"}})", "data[.]: "},
      {"a key that is two dots", kConfigMaps, R"({"data":{"..":"v"}})", "data[..]: "},
      {"a key starting with two dots", kConfigMaps, R"({"data":{"..a":"v"}})", "data[..a]: "},
      {"a key in data and binaryData", kConfigMaps,
       R"({"data":{"k":"v"},"binaryData":{"k":"AA=="}})",
       R"(data[k]: Invalid value: "k": duplicate of key present in binaryData)"},
      {"a Secret's data", kSecrets, R"({"data":{"a b":"dg=="}})", "data[a b]: "},
      {"a Secret's stringData", kSecrets, R"({"stringData":{"a:b":"v"}})", "data[a:b]: "},
      {"a Secret's right keys", kSecrets, R"({"data":{"a.b":"dg=="},"stringData":{"c_d":"v"}})",
       ""},
  };
  int n = 0;
  for (const Case& c : kCases) {
    Json object = Json::parse(c.fields);
    object["apiVersion"] = "v1";
    object["kind"] = std::string(c.collection) == kSecrets ? "Secret" : "ConfigMap";
    const std::string name = fmt::format("o{}", ++n);
    object["metadata"] = Json{{"name", name}};
    KubeResponse r = Call("POST", c.collection, object.dump());
    if (c.error.empty()) {
      EXPECT_EQ(r.status, 201) << c.name << "\n" << r.body;
      continue;
    }
    const Refusal refusal = RefusalOf(r);
    EXPECT_EQ(refusal.code, 422) << c.name << "\n" << r.body;
    EXPECT_EQ(refusal.reason, "Invalid") << c.name;
    EXPECT_NE(refusal.message.find(c.error), std::string::npos) << c.name << "\n" << r.body;
    // A dry run is refused alike, and so is an update that brings the key.
    EXPECT_EQ(Call("POST", std::string(c.collection) + "?dryRun=All", object.dump()).status, 422)
        << c.name;
    Json plain = object;
    for (const char* field : {"data", "binaryData", "stringData"}) plain.erase(field);
    CallJson("POST", c.collection, plain.dump(), 201);
    const std::string item = std::string(c.collection) + "/" + name;
    EXPECT_EQ(Call("PUT", item, object.dump()).status, 422) << c.name;
    EXPECT_EQ(Call("PATCH", item, c.fields, "application/merge-patch+json").status, 422) << c.name;
    EXPECT_EQ(CallJson("GET", item, "", 200).value("data", Json()), Json()) << c.name;
  }
}

TEST_F(KubeApiKindsTest, SecretsOfTheBuiltInTypesHoldTheirKeys) {
  const std::string docker = Base64Encode(R"({"auths":{"r.example.com":{"auth":"eDp5"}}})");
  const std::string docker_old = Base64Encode(R"({"r.example.com":{"auth":"eDp5"}})");
  struct Case {
    const char* type;
    std::string fields;
    std::vector<std::string> errors;  // each in the message of the 422; none: created
  };
  const Case kCases[] = {
      {"Opaque", "{}", {}},
      {"example.com/own", "{}", {}},
      {"kubernetes.io/tls", R"({"data":{"tls.crt":"Yw==","tls.key":"aw=="}})", {}},
      {"kubernetes.io/tls", R"({"stringData":{"tls.crt":"c","tls.key":""}})", {}},
      {"kubernetes.io/tls",
       "{}",
       {"data[tls.crt]: Required value", "data[tls.key]: Required value"}},
      {"kubernetes.io/tls", R"({"data":{"tls.crt":"Yw=="}})", {"data[tls.key]: Required value"}},
      {"kubernetes.io/basic-auth", R"({"stringData":{"username":"u"}})", {}},
      {"kubernetes.io/basic-auth", R"({"stringData":{"password":""}})", {}},
      {"kubernetes.io/basic-auth",
       R"({"stringData":{"user":"u"}})",
       {"data[username]: Required value", "data[password]: Required value"}},
      {"kubernetes.io/ssh-auth", R"({"stringData":{"ssh-privatekey":"k"}})", {}},
      {"kubernetes.io/ssh-auth", "{}", {"data[ssh-privatekey]: Required value"}},
      {"kubernetes.io/ssh-auth",
       R"({"data":{"ssh-privatekey":""}})",
       {"data[ssh-privatekey]: Required value"}},
      {"kubernetes.io/dockerconfigjson",
       R"({"data":{".dockerconfigjson":")" + docker + R"("}})",
       {}},
      {"kubernetes.io/dockerconfigjson", "{}", {"data[.dockerconfigjson]: Required value"}},
      {"kubernetes.io/dockerconfigjson",
       R"({"stringData":{".dockerconfigjson":"not json"}})",
       {R"(data[.dockerconfigjson]: Invalid value: \"<secret contents redacted>\")"}},
      {"kubernetes.io/dockerconfigjson",
       R"({"stringData":{".dockerconfigjson":"[1]"}})",
       {R"(data[.dockerconfigjson]: Invalid value)"}},
      {"kubernetes.io/dockercfg", R"({"data":{".dockercfg":")" + docker_old + R"("}})", {}},
      {"kubernetes.io/dockercfg",
       R"({"data":{".dockerconfigjson":")" + docker + R"("}})",
       {"data[.dockercfg]: Required value"}},
      {"kubernetes.io/dockercfg",
       R"({"stringData":{".dockercfg":"{"}})",
       {"data[.dockercfg]: Invalid value"}},
  };
  int n = 0;
  for (const Case& c : kCases) {
    Json object = Json::parse(c.fields);
    object["apiVersion"] = "v1";
    object["kind"] = "Secret";
    object["metadata"] = Json{{"name", fmt::format("s{}", ++n)}};
    object["type"] = c.type;
    const std::string what = std::string(c.type) + " " + c.fields;
    KubeResponse r = Call("POST", kSecrets, object.dump());
    if (c.errors.empty()) {
      EXPECT_EQ(r.status, 201) << what << "\n" << r.body;
      continue;
    }
    EXPECT_EQ(r.status, 422) << what << "\n" << r.body;
    EXPECT_EQ(RefusalOf(r).reason, "Invalid") << what;
    for (const std::string& e : c.errors) {
      EXPECT_NE(r.body.find(e), std::string::npos) << what << ": " << e << "\n" << r.body;
    }
  }
  // Taking a required key out of a stored Secret is refused as well.
  const std::string item = std::string(kSecrets) + "/s3";
  KubeResponse r =
      Call("PATCH", item, R"({"data":{"tls.key":null}})", "application/merge-patch+json");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_NE(r.body.find("data[tls.key]: Required value"), std::string::npos) << r.body;
}

TEST_F(KubeApiKindsTest, ANamespaceNameIsADnsLabel) {
  const std::string namespaces = "/api/v1/namespaces";
  auto ns = [](const std::string& name) {
    return Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}}.dump();
  };
  for (const std::string& bad : {std::string("team.a"), std::string(64, 'n')}) {
    KubeResponse r = Call("POST", namespaces, ns(bad));
    const Refusal refusal = RefusalOf(r);
    EXPECT_EQ(refusal.code, 422) << bad << "\n" << r.body;
    EXPECT_EQ(refusal.reason, "Invalid") << bad;
    EXPECT_NE(
        refusal.message.find(fmt::format("metadata.name: invalid DNS-1123 label \"{}\"", bad)),
        std::string::npos)
        << r.body;
    EXPECT_EQ(Call("GET", namespaces + "/" + bad).status, 404) << bad;
  }
  CallJson("POST", namespaces, ns("team-a"), 201);
  CallJson("POST", namespaces, ns(std::string(63, 'n')), 201);
}

TEST_F(KubeApiKindsTest, NoFinalizerIsAddedToAnObjectBeingDeleted) {
  const std::string item = std::string(kConfigMaps) + "/cm";
  const std::string merge = "application/merge-patch+json";
  Json cm = ConfigMap("cm");
  cm["metadata"]["finalizers"] = {"example.com/a"};
  CallJson("POST", kConfigMaps, cm.dump(), 201);
  // Before the deletion a finalizer may come and go.
  CallJson("PATCH", item, R"({"metadata":{"finalizers":["example.com/a","example.com/b"]}})", 200,
           merge);
  CallJson("PATCH", item, R"({"metadata":{"finalizers":["example.com/a"]}})", 200, merge);
  const Json marked = CallJson("DELETE", item, "", 202);
  ASSERT_TRUE(marked["metadata"].contains("deletionTimestamp")) << marked.dump();

  const std::string forbidden =
      "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being "
      "deleted, found new finalizers []string{\"example.com/b\"}";
  Json put = marked;
  put["metadata"]["finalizers"] = {"example.com/a", "example.com/b"};
  Json swapped = marked;
  swapped["metadata"]["finalizers"] = {"example.com/b"};
  swapped["metadata"].erase("resourceVersion");
  struct Case {
    const char* name;
    const char* method;
    std::string body;
    std::string content_type;
  };
  const Case kCases[] = {
      {"PUT", "PUT", put.dump(), "application/json"},
      {"PUT that swaps one for another", "PUT", swapped.dump(), "application/json"},
      {"merge patch", "PATCH", R"({"metadata":{"finalizers":["example.com/a","example.com/b"]}})",
       merge},
      {"JSON patch", "PATCH",
       R"([{"op":"add","path":"/metadata/finalizers/-","value":"example.com/b"}])",
       "application/json-patch+json"},
      {"dry run", "PATCH", R"({"metadata":{"finalizers":["example.com/b"]}})", merge},
  };
  for (const Case& c : kCases) {
    const std::string target = std::string(c.name) == "dry run" ? item + "?dryRun=All" : item;
    KubeResponse r = Call(c.method, target, c.body, c.content_type);
    const Refusal refusal = RefusalOf(r);
    EXPECT_EQ(refusal.code, 422) << c.name << "\n" << r.body;
    EXPECT_EQ(refusal.reason, "Invalid") << c.name;
    EXPECT_NE(refusal.message.find(forbidden), std::string::npos) << c.name << "\n" << r.body;
  }
  EXPECT_EQ(CallJson("GET", item, "", 200)["metadata"]["finalizers"], Json({"example.com/a"}));
  // Other changes still may be made, and removing the last finalizer ends the deletion.
  CallJson("PATCH", item, R"({"metadata":{"labels":{"team":"ads"}}})", 200, merge);
  CallJson("PATCH", item, R"({"metadata":{"finalizers":null}})", 200, merge);
  EXPECT_EQ(Call("GET", item).status, 404);
}

TEST_F(KubeApiKindsTest, WritesOfBodiesThatAreNotJsonOrYamlAreUnsupportedMediaTypes) {
  const std::string item = std::string(kConfigMaps) + "/cm";
  CallJson("POST", kConfigMaps, ConfigMap("cm").dump(), 201);
  const Json stored = CallJson("GET", item, "", 200);
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded",
                           "application/merge-patch+json", "application/json-patch+json",
                           "application/apply-patch+yaml", "application/jsonx", "*/*"}) {
    for (const char* method : {"POST", "PUT"}) {
      const bool post = std::string(method) == "POST";
      Json body = post ? ConfigMap("other") : stored;
      KubeResponse r = Call(method, post ? kConfigMaps : item, body.dump(), type);
      const Refusal refusal = RefusalOf(r);
      EXPECT_EQ(refusal.code, 415) << method << " " << type << "\n" << r.body;
      EXPECT_EQ(refusal.reason, "UnsupportedMediaType") << method << " " << type;
      EXPECT_NE(refusal.message.find("the body of the request was in an unknown format - "
                                     "accepted media types include: application/json, "
                                     "application/yaml"),
                std::string::npos)
          << r.body;
    }
  }
  EXPECT_EQ(Call("GET", std::string(kConfigMaps) + "/other").status, 404);
  // JSON under its parameters and in any case, YAML, and no type at all (JSON) are read.
  const struct {
    const char* type;
    std::string body;
  } kRead[] = {
      {"application/json; charset=utf-8", ConfigMap("a").dump()},
      {"Application/JSON", ConfigMap("b").dump()},
      {"application/yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"},
      {"", ConfigMap("d").dump()},
  };
  for (const auto& c : kRead) CallJson("POST", kConfigMaps, c.body, 201, c.type);
}

TEST_F(KubeApiKindsTest, AnObjectWithoutANameIsInvalid) {
  const std::string databases =
      "/apis/hoptimator.linkedin.com/v1alpha1/namespaces/default/databases";
  const struct {
    std::string collection;
    const char* body;
    const char* message;
  } kCases[] = {
      {kConfigMaps, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{},"data":{}})",
       R"(ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required)"},
      {kConfigMaps, R"({"apiVersion":"v1","kind":"ConfigMap","data":{}})",
       "metadata.name: Required value: name or generateName is required"},
      {kConfigMaps, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":""}})",
       "metadata.name: Required value: name or generateName is required"},
      {kConfigMaps, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":""}})",
       "metadata.name: Required value: name or generateName is required"},
      {databases,
       R"({"apiVersion":"hoptimator.linkedin.com/v1alpha1","kind":"Database","metadata":{},
           "spec":{"schema":"ADS","url":"jdbc:demodb://names=ads","dialect":"Calcite"}})",
       R"(Database.hoptimator.linkedin.com "" is invalid: metadata.name: Required value: name or generateName is required)"},
  };
  for (const auto& c : kCases) {
    KubeResponse r = Call("POST", c.collection, c.body);
    const Refusal refusal = RefusalOf(r);
    EXPECT_EQ(refusal.code, 422) << c.body << "\n" << r.body;
    EXPECT_EQ(refusal.reason, "Invalid") << c.body;
    EXPECT_NE(refusal.message.find(c.message), std::string::npos) << c.body << "\n" << r.body;
    const Json details = Json::parse(r.body, nullptr, false).value("details", Json::object());
    ASSERT_EQ(details.value("causes", Json::array()).size(), 1u) << r.body;
    EXPECT_EQ(details["causes"][0].value("reason", ""), "FieldValueRequired") << r.body;
    EXPECT_EQ(details["causes"][0].value("field", ""), "metadata.name") << r.body;
  }
  EXPECT_EQ(CallJson("GET", kConfigMaps, "", 200)["items"].size(), 0u);
}

TEST_F(KubeApiKindsTest, AListFromAFutureResourceVersionWaitsForItThenTimesOut) {
  CallJson("POST", kConfigMaps, ConfigMap("before").dump(), 201);
  const int64_t now = store_->Revision().value();
  // A revision the store reaches while the list waits for it: the list holds what it wrote.
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    auto later = resource::Resource::FromJson(ConfigMap("later"), "test");
    ASSERT_TRUE(store_->Create(*later).ok());
  });
  const Json list =
      CallJson("GET", fmt::format("{}?resourceVersion={}", kConfigMaps, now + 1), "", 200);
  writer.join();
  ASSERT_EQ(list["items"].size(), 2u) << list.dump();
  EXPECT_EQ(list["items"][1]["metadata"]["name"], "later");
  EXPECT_GE(std::stoll(list["metadata"].value("resourceVersion", "0")), now + 1);
  // One it does not reach: 504 Timeout, as the API server answers once it gave up waiting.
  const int64_t future = now + 1000;
  KubeResponse r = Call("GET", fmt::format("{}?resourceVersion={}", kConfigMaps, future));
  EXPECT_EQ(r.status, 504) << r.body;
  const Json status = Json::parse(r.body, nullptr, false);
  EXPECT_EQ(status.value("reason", ""), "Timeout") << r.body;
  EXPECT_EQ(status.value("message", ""),
            fmt::format("Timeout: Too large resource version: {}, current: {}", future, now + 1))
      << r.body;
  ASSERT_TRUE(status.contains("details")) << r.body;
  EXPECT_EQ(status["details"].value("causes", Json::array()),
            Json::parse(R"([{"reason":"ResourceVersionTooLarge",
                             "message":"Too large resource version"}])"))
      << r.body;
  // The versions it has reached, and none, are served at once.
  for (const std::string& v : {std::string("0"), std::string(""), std::to_string(now)}) {
    EXPECT_EQ(
        CallJson("GET", fmt::format("{}?resourceVersion={}", kConfigMaps, v), "", 200)["items"]
            .size(),
        2u)
        << v;
  }
  EXPECT_EQ(Call("GET", std::string(kConfigMaps) + "?resourceVersion=x1").status, 400);
}

// --- hop's store client ---

TEST_F(KubeApiKindsTest, TheStoreClientReadsSecretsWholeAndDeletesAsTheStore) {
  const std::string hop = "/apis/hoptimator.linkedin.com/v1alpha1/namespaces/";
  const std::string secret = hop + "secrets/databases/db";
  CallJson("POST", hop + "secrets/databases",
           R"({"apiVersion":"hoptimator.linkedin.com/v1alpha1","kind":"Database",
               "metadata":{"name":"db"},"spec":{"schema":"ADS","dialect":"Calcite",
               "url":"jdbc:mysql://localhost:3306;user=app;password=swordfish"}})",
           201);
  EXPECT_EQ(Call("GET", secret).body.find("swordfish"), std::string::npos);
  store_client_ = true;
  Json whole = CallJson("GET", secret, "", 200);
  EXPECT_EQ(whole["spec"]["url"], "jdbc:mysql://localhost:3306;user=app;password=swordfish");
  EXPECT_NE(Call("GET", hop + "secrets/databases").body.find("swordfish"), std::string::npos);
  // What it writes back is whole too, and taken as it is.
  whole["metadata"]["labels"] = Json{{"a", "b"}};
  CallJson("PUT", secret, whole.dump(), 200);

  // A view that reads a database: hop's DDL guard refuses others the delete; the store client
  // deletes as the store does, and gets the Status the API server gives.
  store_client_ = false;
  const std::string db = hop + "default/databases/ads";
  CallJson("POST", hop + "default/databases",
           R"({"apiVersion":"hoptimator.linkedin.com/v1alpha1","kind":"Database",
               "metadata":{"name":"ads"},"spec":{"schema":"ADS","dialect":"Calcite",
               "url":"jdbc:demodb://names=ads"}})",
           201);
  CallJson(
      "POST", hop + "default/views",
      R"({"apiVersion":"hoptimator.linkedin.com/v1alpha1","kind":"View","metadata":{"name":"v"},
               "spec":{"view":"V","schema":"ADS","sql":"SELECT * FROM ADS.PAGE_VIEWS"}})",
      201);
  KubeResponse guarded = Call("DELETE", db);
  EXPECT_EQ(guarded.status, 409) << guarded.body;
  EXPECT_NE(guarded.body.find("view/v"), std::string::npos) << guarded.body;
  store_client_ = true;
  KubeResponse stale = Call("DELETE", db, R"({"preconditions":{"resourceVersion":"1"}})");
  EXPECT_EQ(stale.status, 409) << stale.body;
  EXPECT_EQ(Call("DELETE", db + "?dryRun=All").status, 200);
  const Json deleted = CallJson("DELETE", db, "", 200);
  EXPECT_EQ(deleted["kind"], "Status") << deleted.dump();
  EXPECT_EQ(deleted["status"], "Success");
  EXPECT_EQ(Call("GET", db).status, 404);
}

}  // namespace
}  // namespace hop::server
