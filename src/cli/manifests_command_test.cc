#include "cli/manifests_command.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "resource/crd.h"
#include "resource/kinds.h"
#include "resource/yaml.h"
#include "test/lib/datadriven.h"

namespace hop::cli {
namespace {

// The manifests as `hop manifests` prints them, read back.
std::vector<Json> Printed(const ManifestsOptions& options) {
  std::ostringstream out, err;
  EXPECT_EQ(RunManifests(options, out, err), 0) << err.str();
  auto docs = ParseYamlDocuments(out.str(), "manifests");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  return docs.ok() ? *docs : std::vector<Json>{};
}

ManifestsOptions Defaults() {
  ManifestsOptions options;
  options.version = "1.2.3";
  return options;
}

std::string Describe(const Json& doc) {
  std::string ns = doc["metadata"].value("namespace", "");
  return doc["kind"].get<std::string>() + "/" + (ns.empty() ? "" : ns + "/") +
         doc["metadata"]["name"].get<std::string>();
}

const Json* Find(const std::vector<Json>& docs, const std::string& description) {
  for (const Json& doc : docs) {
    if (Describe(doc) == description) return &doc;
  }
  return nullptr;
}

// (group, resource, verb) of every rule of a Role or ClusterRole.
using Grant = std::tuple<std::string, std::string, std::string>;
std::set<Grant> Grants(const Json& role) {
  std::set<Grant> out;
  for (const Json& rule : role["rules"]) {
    for (const Json& group : rule["apiGroups"]) {
      for (const Json& resource : rule["resources"]) {
        for (const Json& verb : rule["verbs"]) out.emplace(group, resource, verb);
      }
    }
  }
  return out;
}

std::set<Grant> TableGrants(bool operator_namespace_only) {
  std::set<Grant> out;
  for (const RbacRule& rule : OperatorRbacRules()) {
    if (rule.operator_namespace_only != operator_namespace_only) continue;
    for (const std::string& verb : rule.verbs) out.emplace(rule.api_group, rule.resource, verb);
  }
  return out;
}

TEST(ManifestsTest, WhatAClusterNeedsInApplyOrder) {
  const std::vector<Json> docs = Printed(Defaults());
  std::vector<std::string> order;
  for (const Json& doc : docs) order.push_back(Describe(doc));
  std::vector<std::string> want;
  for (const Json& crd : resource::AllCustomResourceDefinitions()) {
    want.push_back("CustomResourceDefinition/" + crd["metadata"]["name"].get<std::string>());
  }
  for (const char* rest :
       {"Namespace/hop-system", "ServiceAccount/hop-system/hop-operator",
        "ClusterRole/hop-operator", "ClusterRoleBinding/hop-operator",
        "Role/hop-system/hop-operator-leader-election",
        "RoleBinding/hop-system/hop-operator-leader-election", "ClusterRole/hop-refresh",
        "Deployment/hop-system/hop-operator", "Service/hop-system/hop-operator"}) {
    want.push_back(rest);
  }
  EXPECT_EQ(order, want);
  for (const Json& doc : docs) {
    EXPECT_EQ(doc["metadata"]["labels"].value(kAppLabel, ""), "hop") << Describe(doc);
  }
}

// The CRDs are `hop crds`'s, with the label.
TEST(ManifestsTest, TheCrdsAreHopCrds) {
  const std::vector<Json> docs = Printed(Defaults());
  const std::vector<Json> crds = resource::AllCustomResourceDefinitions();
  ASSERT_GE(docs.size(), crds.size());
  for (size_t i = 0; i < crds.size(); ++i) {
    Json doc = docs[i];
    doc["metadata"].erase("labels");
    EXPECT_EQ(EmitJson(doc, -1), EmitJson(crds[i], -1)) << i;
  }
}

// The RBAC grants exactly what the table says: hop's group and the rest wherever the operator
// acts, the Lease only in its own namespace.
TEST(ManifestsTest, RbacComesFromTheTable) {
  const std::vector<Json> docs = Printed(Defaults());
  const Json* cluster_role = Find(docs, "ClusterRole/hop-operator");
  const Json* lease_role = Find(docs, "Role/hop-system/hop-operator-leader-election");
  ASSERT_TRUE(cluster_role && lease_role);
  EXPECT_EQ(Grants(*cluster_role), TableGrants(false));
  EXPECT_EQ(Grants(*lease_role), TableGrants(true));
  EXPECT_EQ(Grants(*lease_role), (std::set<Grant>{{"coordination.k8s.io", "leases", "create"},
                                                  {"coordination.k8s.io", "leases", "get"},
                                                  {"coordination.k8s.io", "leases", "update"}}));
  // The table itself is checked against the operator's requests in
  // test/kubernetes_mode_test.cc; here, that nothing is granted wholesale.
  const std::set<Grant> grants = TableGrants(false);
  EXPECT_TRUE(grants.count({"batch", "jobs", "create"}));
  EXPECT_FALSE(grants.count({"batch", "jobs", "update"}));
  EXPECT_FALSE(grants.count({"", "secrets", "get"}));
  for (const Grant& g : grants) EXPECT_NE(std::get<2>(g), "*");
  const Json* refresh = Find(docs, "ClusterRole/hop-refresh");
  ASSERT_TRUE(refresh);
  std::set<Grant> refresh_grants;
  for (const RbacRule& rule : RefreshRbacRules()) {
    for (const std::string& verb : rule.verbs)
      refresh_grants.emplace(rule.api_group, rule.resource, verb);
  }
  EXPECT_EQ(Grants(*refresh), refresh_grants);

  const Json* binding = Find(docs, "ClusterRoleBinding/hop-operator");
  ASSERT_TRUE(binding);
  EXPECT_EQ((*binding)["roleRef"]["kind"], "ClusterRole");
  EXPECT_EQ((*binding)["subjects"][0]["namespace"], "hop-system");
  EXPECT_EQ((*binding)["subjects"][0]["name"], "hop-operator");
}

// With --watch-namespace the operator gets a Role there and nothing cluster-wide.
TEST(ManifestsTest, OneWatchedNamespaceGetsARole) {
  ManifestsOptions options = Defaults();
  options.namespace_name = "ops";
  options.watch_namespace = "pipelines";
  const std::vector<Json> docs = Printed(options);
  EXPECT_EQ(Find(docs, "ClusterRole/hop-operator"), nullptr);
  EXPECT_EQ(Find(docs, "ClusterRoleBinding/hop-operator"), nullptr);
  const Json* role = Find(docs, "Role/pipelines/hop-operator");
  const Json* binding = Find(docs, "RoleBinding/pipelines/hop-operator");
  ASSERT_TRUE(role && binding);
  EXPECT_EQ(Grants(*role), TableGrants(false));
  EXPECT_EQ((*binding)["roleRef"]["kind"], "Role");
  EXPECT_EQ((*binding)["subjects"][0]["namespace"], "ops");
  EXPECT_NE(Find(docs, "Role/ops/hop-operator-leader-election"), nullptr);
  // Refresh Jobs run there as `hop`, bound to their Role.
  EXPECT_NE(Find(docs, "Role/pipelines/hop-refresh"), nullptr);
  EXPECT_NE(Find(docs, "ServiceAccount/pipelines/hop"), nullptr);
  const Json* refresh_binding = Find(docs, "RoleBinding/pipelines/hop-refresh");
  ASSERT_TRUE(refresh_binding);
  EXPECT_EQ((*refresh_binding)["subjects"][0]["name"], "hop");
  const Json* deployment = Find(docs, "Deployment/ops/hop-operator");
  ASSERT_TRUE(deployment);
  EXPECT_EQ((*deployment)["spec"]["template"]["spec"]["containers"][0]["args"],
            Json::array({"--in-cluster", "operator", "--http-port", "8080", "--watch-namespace",
                         "pipelines"}));
  EXPECT_NE(Find(docs, "Deployment/ops/hop-operator"), nullptr);
  EXPECT_NE(Find(docs, "Namespace/ops"), nullptr);
}

TEST(ManifestsTest, TheDeployment) {
  const std::vector<Json> docs = Printed(Defaults());
  const Json* deployment = Find(docs, "Deployment/hop-system/hop-operator");
  ASSERT_TRUE(deployment);
  const Json& spec = (*deployment)["spec"];
  EXPECT_EQ(spec["replicas"], 2);
  EXPECT_EQ(spec["selector"]["matchLabels"], spec["template"]["metadata"]["labels"]);
  const Json& pod = spec["template"]["spec"];
  EXPECT_EQ(pod["serviceAccountName"], "hop-operator");
  EXPECT_EQ(pod["securityContext"]["runAsNonRoot"], true);
  ASSERT_EQ(pod["containers"].size(), 1u);
  const Json& c = pod["containers"][0];
  EXPECT_EQ(c["image"], "hop:1.2.3");
  EXPECT_EQ(c["args"], Json::parse(R"(["--in-cluster", "operator", "--http-port", "8080"])"));
  EXPECT_EQ(c["env"], Json::parse(R"([{"name": "POD_NAMESPACE",
      "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}}])"));
  EXPECT_EQ(c["livenessProbe"]["httpGet"], Json::parse(R"({"path": "/livez", "port": 8080})"));
  EXPECT_EQ(c["readinessProbe"]["httpGet"], Json::parse(R"({"path": "/readyz", "port": 8080})"));
  EXPECT_EQ(c["ports"], Json::parse(R"([{"name": "metrics", "containerPort": 8080,
      "protocol": "TCP"}])"));
  EXPECT_TRUE(c["resources"]["requests"].contains("cpu"));
  EXPECT_TRUE(c["resources"]["requests"].contains("memory"));
  EXPECT_EQ(c["securityContext"]["readOnlyRootFilesystem"], true);
  EXPECT_EQ(c["securityContext"]["allowPrivilegeEscalation"], false);

  const Json* service = Find(docs, "Service/hop-system/hop-operator");
  ASSERT_TRUE(service);
  EXPECT_EQ((*service)["spec"]["selector"], spec["selector"]["matchLabels"]);
  EXPECT_EQ((*service)["spec"]["ports"][0]["targetPort"], "metrics");
  EXPECT_EQ((*service)["spec"]["ports"][0]["port"], 8080);

  ManifestsOptions options = Defaults();
  options.image = "registry.example.com/hop@sha256:abc";
  const std::vector<Json> others = Printed(options);
  const Json* other = Find(others, "Deployment/hop-system/hop-operator");
  ASSERT_TRUE(other);
  EXPECT_EQ((*other)["spec"]["template"]["spec"]["containers"][0]["image"],
            "registry.example.com/hop@sha256:abc");
}

// The image deploy/Containerfile builds runs as the user the Deployment asks for, and starts
// `hop` with the Deployment's args.
TEST(ManifestsTest, TheImageMatchesTheDeployment) {
  std::ifstream in(hop::testing::SourcePath("deploy/Containerfile"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(text.empty());
  const std::vector<Json> docs = Printed(Defaults());
  const Json* deployment = Find(docs, "Deployment/hop-system/hop-operator");
  ASSERT_TRUE(deployment);
  const Json& security = (*deployment)["spec"]["template"]["spec"]["securityContext"];
  const std::string user = fmt::format("USER {}:{}\n", security["runAsUser"].get<int>(),
                                       security["runAsGroup"].get<int>());
  EXPECT_NE(text.find(user), std::string::npos) << user;
  EXPECT_NE(text.find("\nENTRYPOINT [\"hop\"]\n"), std::string::npos);
  EXPECT_NE(text.find("FROM docker.io/library/debian:12-slim\n"), std::string::npos);
}

TEST(ManifestsTest, BadOptionsAreRefused) {
  struct Case {
    std::string namespace_name, watch_namespace, image;
    std::string error;
  };
  const Case kCases[] = {
      {"Hop_System", "", "", "--namespace: "},
      {"", "", "", "--namespace: "},
      {"hop-system", "a.b", "", "--watch-namespace: "},
      {"hop-system", "", "hop:1 --privileged", "--image must not hold blanks"},
      {"hop-system", "", "hop\n:1", "--image must not hold blanks"},
  };
  for (const Case& c : kCases) {
    ManifestsOptions options = Defaults();
    options.namespace_name = c.namespace_name;
    options.watch_namespace = c.watch_namespace;
    options.image = c.image;
    std::ostringstream out, err;
    EXPECT_EQ(RunManifests(options, out, err), 2) << c.error;
    EXPECT_EQ(out.str(), "") << c.error;
    EXPECT_EQ(err.str().rfind("hop manifests: Invalid Argument: " + c.error, 0), 0u) << err.str();
  }
}

}  // namespace
}  // namespace hop::cli
