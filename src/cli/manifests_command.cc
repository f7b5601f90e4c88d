// Implementation of `hop manifests` (docs/kubernetes.md "Manifests").
#include "cli/manifests_command.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "resource/crd.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "resource/yaml.h"

namespace hop::cli {

namespace {

// The names of the objects the manifests make.
constexpr const char* kOperator = "hop-operator";
constexpr const char* kLeaderElection = "hop-operator-leader-election";
// The role of refresh Jobs, and the service account they run as (hop operator's
// --job-service-account default) in the namespaces of the views they refresh.
constexpr const char* kRefresh = "hop-refresh";
constexpr const char* kJobServiceAccount = "hop";
constexpr const char* kComponentLabel = "app.kubernetes.io/component";
constexpr const char* kComponent = "operator";
// The port of the operator's HTTP server: metrics and health checks.
constexpr int kHttpPort = 8080;
// The user and group the image's Containerfile (deploy/Containerfile) makes for hop.
constexpr int kUser = 10001;

Json Labels() { return Json{{kAppLabel, kAppName}, {kComponentLabel, kComponent}}; }

Json Metadata(const std::string& name, const std::string& namespace_name = "") {
  Json md = Json::object();
  md["name"] = name;
  if (!namespace_name.empty()) md["namespace"] = namespace_name;
  md["labels"] = Labels();
  return md;
}

Json Object(const char* api_version, const char* kind, Json metadata) {
  Json doc = Json::object();
  doc["apiVersion"] = api_version;
  doc["kind"] = kind;
  doc["metadata"] = std::move(metadata);
  return doc;
}

// PolicyRules for `rules`: one per API group and set of verbs, its resources in table order.
Json PolicyRules(const std::vector<RbacRule>& rules) {
  std::vector<std::pair<std::string, std::vector<std::string>>> keys;  // first-seen order
  std::map<std::pair<std::string, std::vector<std::string>>, std::vector<std::string>> grouped;
  for (const RbacRule& rule : rules) {
    auto key = std::make_pair(rule.api_group, rule.verbs);
    auto [it, fresh] = grouped.try_emplace(key);
    if (fresh) keys.push_back(key);
    it->second.push_back(rule.resource);
  }
  Json out = Json::array();
  for (const auto& key : keys) {
    Json rule = Json::object();
    rule["apiGroups"] = Json::array({key.first});
    rule["resources"] = grouped[key];
    rule["verbs"] = key.second;
    out.push_back(std::move(rule));
  }
  return out;
}

Json Binding(const char* kind, const char* role_kind, const std::string& name,
             const std::string& binding_namespace, const std::string& service_account_namespace,
             const char* service_account = kOperator) {
  Json doc = Object("rbac.authorization.k8s.io/v1", kind, Metadata(name, binding_namespace));
  doc["roleRef"] =
      Json{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", role_kind}, {"name", name}};
  doc["subjects"] = Json::array({Json{{"kind", "ServiceAccount"},
                                      {"name", service_account},
                                      {"namespace", service_account_namespace}}});
  return doc;
}

Json Deployment(const ManifestsOptions& options, const std::string& image) {
  Json container = Json::object();
  container["name"] = kComponent;
  container["image"] = image;
  container["args"] =
      Json::array({"--in-cluster", "operator", "--http-port", std::to_string(kHttpPort)});
  if (!options.watch_namespace.empty()) {
    container["args"].push_back("--watch-namespace");
    container["args"].push_back(options.watch_namespace);
  }
  container["env"] = Json::array(
      {Json{{"name", "POD_NAMESPACE"},
            {"valueFrom", Json{{"fieldRef", Json{{"fieldPath", "metadata.namespace"}}}}}}});
  container["ports"] =
      Json::array({Json{{"name", "metrics"}, {"containerPort", kHttpPort}, {"protocol", "TCP"}}});
  auto probe = [](const char* path, int period) {
    return Json{{"httpGet", Json{{"path", path}, {"port", kHttpPort}}},
                {"periodSeconds", period},
                {"failureThreshold", 3}};
  };
  container["livenessProbe"] = probe("/livez", 10);
  container["readinessProbe"] = probe("/readyz", 5);
  container["resources"] = Json{{"requests", Json{{"cpu", "100m"}, {"memory", "128Mi"}}}};
  container["securityContext"] = Json{{"allowPrivilegeEscalation", false},
                                      {"readOnlyRootFilesystem", true},
                                      {"capabilities", Json{{"drop", Json::array({"ALL"})}}}};
  // The root filesystem is read-only: temporary files go to a volume of the pod's own.
  container["volumeMounts"] = Json::array({Json{{"name", "tmp"}, {"mountPath", "/tmp"}}});

  Json pod = Json::object();
  pod["serviceAccountName"] = kOperator;
  pod["securityContext"] = Json{{"runAsNonRoot", true},
                                {"runAsUser", kUser},
                                {"runAsGroup", kUser},
                                {"seccompProfile", Json{{"type", "RuntimeDefault"}}}};
  pod["containers"] = Json::array({std::move(container)});
  pod["volumes"] = Json::array({Json{{"name", "tmp"}, {"emptyDir", Json::object()}}});

  Json doc = Object("apps/v1", "Deployment", Metadata(kOperator, options.namespace_name));
  // Two replicas: one leads (its Lease), the other stands by to take over.
  doc["spec"] =
      Json{{"replicas", 2},
           {"selector", Json{{"matchLabels", Labels()}}},
           {"template", Json{{"metadata", Json{{"labels", Labels()}}}, {"spec", std::move(pod)}}}};
  return doc;
}

Status CheckImage(const std::string& image) {
  if (image.empty()) return Status::InvalidArgument("--image must name an image");
  for (unsigned char c : image) {
    if (c <= ' ' || c == 0x7f) {
      return Status::InvalidArgument(
          fmt::format("--image must not hold blanks or control characters: \"{}\"", image));
    }
  }
  return Status::OK();
}

}  // namespace

std::vector<RbacRule> OperatorRbacRules() {
  // What the operator's reconcilers call (session/control_plane.cc), checked against its
  // requests by test/kubernetes_mode_test.cc (hop operator --request-report):
  //  - the catalog lists Databases, the templates, and the Kafka topics and logical tables its
  //    databases read from resources;
  //  - each controller lists and watches its kind and its watched kinds, gets the object of a
  //    request, and writes statuses;
  //  - the Subscription reconciler creates and updates the View, the Pipeline and the elements
  //    its templates render (FlinkSessionJob, SqlJob, KafkaTopic);
  //  - the TableTrigger, View and Table reconcilers create the Jobs of runs and refreshes, and
  //    delete the finished ones; the Pipeline reconciler reads every element;
  //  - ConfigMaps are read for hoptimator-configmap's template variables;
  //  - leader election gets, creates and renews its Lease in the operator's own namespace.
  const std::string hop(resource::kHopGroup);
  const std::vector<std::string> kRead = {"get", "list", "watch"};
  const std::vector<std::string> kWrite = {"get", "list", "watch", "create", "update"};
  const std::vector<std::string> kStatus = {"update"};
  return {
      {hop, "databases", {"list"}},
      {hop, "tabletemplates", {"list"}},
      {hop, "jobtemplates", {"list"}},
      {hop, "logicaltables", {"list"}},
      {hop, "views", kWrite},
      {hop, "views/status", kStatus},
      {hop, "pipelines", kWrite},
      {hop, "pipelines/status", kStatus},
      {hop, "sqljobs", kWrite},
      {hop, "tables", kRead},
      {hop, "tables/status", kStatus},
      {hop, "tabletriggers", kRead},
      {hop, "tabletriggers/status", kStatus},
      {hop, "tableprovisionjobs", kRead},
      {hop, "tableprovisionjobs/status", kStatus},
      {hop, "subscriptions", kRead},
      {hop, "subscriptions/status", kStatus},
      {"batch", "jobs", {"get", "list", "watch", "create", "delete"}},
      {"flink.apache.org", "flinksessionjobs", kWrite},
      {"flink.apache.org", "flinkdeployments", {"list", "watch"}},
      {"kafka.strimzi.io", "kafkatopics", kWrite},
      {"", "configmaps", {"get"}},
      {"coordination.k8s.io",
       "leases",
       {"get", "create", "update"},
       /*operator_namespace_only=*/true},
  };
}

std::vector<RbacRule> RefreshRbacRules() {
  // What `hop refresh` calls (runtime/refresh.h), checked against its requests by
  // test/kubernetes_mode_test.cc: the catalog lists Databases, tables, views and what its
  // databases read from resources; the view or table refreshed is read and its status written.
  const std::string hop(resource::kHopGroup);
  return {
      {hop, "databases", {"list"}},
      {hop, "logicaltables", {"list"}},
      {hop, "views", {"get", "list"}},
      {hop, "views/status", {"update"}},
      {hop, "tables", {"get", "list"}},
      {hop, "tables/status", {"update"}},
      {"kafka.strimzi.io", "kafkatopics", {"list"}},
  };
}

Result<std::vector<Json>> Manifests(const ManifestsOptions& options) {
  if (Status s = resource::ValidateDnsLabel(options.namespace_name); !s.ok()) {
    return s.WithContext("--namespace: ");
  }
  if (!options.watch_namespace.empty()) {
    if (Status s = resource::ValidateDnsLabel(options.watch_namespace); !s.ok()) {
      return s.WithContext("--watch-namespace: ");
    }
  }
  const std::string image =
      options.image.empty() ? fmt::format("hop:{}", options.version) : options.image;
  HOP_RETURN_IF_ERROR(CheckImage(image));

  std::vector<Json> docs;
  for (Json crd : resource::AllCustomResourceDefinitions()) {
    crd["metadata"]["labels"] = Json{{kAppLabel, kAppName}};
    docs.push_back(std::move(crd));
  }
  docs.push_back(Object("v1", "Namespace", Metadata(options.namespace_name)));
  docs.push_back(Object("v1", "ServiceAccount", Metadata(kOperator, options.namespace_name)));

  std::vector<RbacRule> everywhere, own_namespace;
  for (RbacRule& rule : OperatorRbacRules()) {
    (rule.operator_namespace_only ? own_namespace : everywhere).push_back(std::move(rule));
  }
  const bool cluster_wide = options.watch_namespace.empty();
  Json role = Object("rbac.authorization.k8s.io/v1", cluster_wide ? "ClusterRole" : "Role",
                     Metadata(kOperator, options.watch_namespace));
  role["rules"] = PolicyRules(everywhere);
  docs.push_back(std::move(role));
  docs.push_back(Binding(cluster_wide ? "ClusterRoleBinding" : "RoleBinding",
                         cluster_wide ? "ClusterRole" : "Role", kOperator, options.watch_namespace,
                         options.namespace_name));
  Json lease_role = Object("rbac.authorization.k8s.io/v1", "Role",
                           Metadata(kLeaderElection, options.namespace_name));
  lease_role["rules"] = PolicyRules(own_namespace);
  docs.push_back(std::move(lease_role));
  docs.push_back(Binding("RoleBinding", "Role", kLeaderElection, options.namespace_name,
                         options.namespace_name));
  // Refresh Jobs run as `hop` in the namespace of their view. Cluster-wide, the ClusterRole is
  // bound in each namespace where views are refreshed (docs/kubernetes.md says how); in the one
  // watched namespace, the account and its binding are made here.
  Json refresh_role = Object("rbac.authorization.k8s.io/v1", cluster_wide ? "ClusterRole" : "Role",
                             Metadata(kRefresh, options.watch_namespace));
  refresh_role["rules"] = PolicyRules(RefreshRbacRules());
  docs.push_back(std::move(refresh_role));
  if (!cluster_wide) {
    docs.push_back(
        Object("v1", "ServiceAccount", Metadata(kJobServiceAccount, options.watch_namespace)));
    docs.push_back(Binding("RoleBinding", "Role", kRefresh, options.watch_namespace,
                           options.watch_namespace, kJobServiceAccount));
  }

  docs.push_back(Deployment(options, image));
  Json service = Object("v1", "Service", Metadata(kOperator, options.namespace_name));
  service["spec"] = Json{{"selector", Labels()},
                         {"ports", Json::array({Json{{"name", "metrics"},
                                                     {"port", kHttpPort},
                                                     {"targetPort", "metrics"},
                                                     {"protocol", "TCP"}}})}};
  docs.push_back(std::move(service));
  return docs;
}

int RunManifests(const ManifestsOptions& options, std::ostream& out, std::ostream& err) {
  auto docs = Manifests(options);
  if (!docs.ok()) {
    err << "hop manifests: " << EscapeForTerminal(docs.status().ToString()) << "\n";
    return 2;
  }
  out << EmitYamlDocuments(*docs);
  return 0;
}

}  // namespace hop::cli
