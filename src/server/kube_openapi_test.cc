#include "server/kube_openapi.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace hop::server {
namespace {

using resource::KindInfo;

std::vector<const KindInfo*> AllKinds() {
  std::vector<const KindInfo*> out = resource::HopKinds();
  for (const KindInfo* k : resource::ExternalKinds()) out.push_back(k);
  return out;
}

std::string CollectionPath(const KindInfo& k) {
  std::string base = k.group.empty() ? "/api/" + k.version : "/apis/" + k.group + "/" + k.version;
  return base + (k.namespaced ? "/namespaces/{namespace}/" : "/") + k.plural;
}

// Every "$ref" under `node`, with the JSON pointer of where it sits.
void CollectRefs(const Json& node, const std::string& where,
                 std::vector<std::pair<std::string, std::string>>* out) {
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      if (key == "$ref" && value.is_string()) {
        out->emplace_back(where, value.get<std::string>());
      } else {
        CollectRefs(value, where + "/" + key, out);
      }
    }
  } else if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i)
      CollectRefs(node[i], where + "/" + std::to_string(i), out);
  }
}

void ExpectRefsResolve(const Json& doc, const std::string& prefix, const Json& targets,
                       const std::string& name) {
  std::vector<std::pair<std::string, std::string>> refs;
  CollectRefs(doc, "", &refs);
  EXPECT_GT(refs.size(), 10u) << name;
  for (const auto& [where, ref] : refs) {
    ASSERT_EQ(ref.rfind(prefix, 0), 0u) << name << " " << where << ": " << ref;
    EXPECT_TRUE(targets.contains(ref.substr(prefix.size())))
        << name << " " << where << ": " << ref << " is not defined";
  }
}

// The operations of a path item, keyed by method.
std::vector<std::pair<std::string, const Json*>> Operations(const Json& item) {
  std::vector<std::pair<std::string, const Json*>> out;
  for (const char* m : {"get", "post", "put", "patch", "delete"}) {
    if (item.contains(m)) out.emplace_back(m, &item.at(m));
  }
  return out;
}

bool HasQueryParam(const Json& op, std::string_view name) {
  for (const auto& p : op.value("parameters", Json::array())) {
    if (p.value("name", "") == name && p.value("in", "") == "query") return true;
  }
  return false;
}

// A protobuf message decoded one level deep: the values of each field in order, varints as
// numbers and length-delimited fields as their bytes. `ok` is false for malformed input.
struct Proto {
  std::multimap<int, std::string> bytes;
  std::multimap<int, uint64_t> varints;
  bool ok = true;

  std::vector<std::string> All(int field) const {
    std::vector<std::string> out;
    auto [begin, end] = bytes.equal_range(field);
    for (auto it = begin; it != end; ++it) out.push_back(it->second);
    return out;
  }
  std::string One(int field) const {
    auto all = All(field);
    return all.size() == 1 ? all[0] : "<" + std::to_string(all.size()) + " values>";
  }
};

bool ReadVarint(std::string_view in, size_t* pos, uint64_t* out) {
  *out = 0;
  for (int shift = 0; shift < 64 && *pos < in.size(); shift += 7) {
    const auto byte = static_cast<unsigned char>(in[(*pos)++]);
    *out |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return true;
  }
  return false;
}

Proto Decode(std::string_view in) {
  Proto p;
  size_t pos = 0;
  while (pos < in.size() && p.ok) {
    uint64_t key = 0;
    uint64_t value = 0;
    p.ok = ReadVarint(in, &pos, &key) && ReadVarint(in, &pos, &value);
    if (!p.ok) break;
    const int field = static_cast<int>(key >> 3);
    if ((key & 7) == 0) {
      p.varints.emplace(field, value);
    } else if ((key & 7) == 2 && value <= in.size() - pos) {
      p.bytes.emplace(field, std::string(in.substr(pos, value)));
      pos += value;
    } else {
      p.ok = false;
    }
  }
  return p;
}

// The value (field 2) of the Named* entry (name in field 1) called `name` among `field`'s.
Proto Named(const Proto& p, int field, std::string_view name) {
  for (const auto& entry : p.All(field)) {
    Proto named = Decode(entry);
    if (named.One(1) == name) return Decode(named.One(2));
  }
  Proto missing;
  missing.ok = false;
  return missing;
}

// The names of the Named* entries of `field`.
std::vector<std::string> Names(const Proto& p, int field) {
  std::vector<std::string> out;
  for (const auto& entry : p.All(field)) out.push_back(Decode(entry).One(1));
  return out;
}

TEST(KubeOpenApiTest, DefinitionNamesFollowKubeApiserver) {
  struct Case {
    std::string_view kind;
    std::string_view group;
    std::string_view want;
  };
  constexpr Case kCases[] = {
      {"View", "hoptimator.linkedin.com", "com.linkedin.hoptimator.v1alpha1.View"},
      {"ConfigMap", "", "io.k8s.api.core.v1.ConfigMap"},
      {"Namespace", "", "io.k8s.api.core.v1.Namespace"},
      {"Job", "batch", "io.k8s.api.batch.v1.Job"},
      {"Deployment", "apps", "io.k8s.api.apps.v1.Deployment"},
      {"FlinkDeployment", "flink.apache.org", "org.apache.flink.v1beta1.FlinkDeployment"},
      {"KafkaTopic", "kafka.strimzi.io", "io.strimzi.kafka.v1beta2.KafkaTopic"},
  };
  for (const Case& c : kCases) {
    const KindInfo* k = resource::FindKind({std::string(c.group), std::string(c.kind)});
    ASSERT_NE(k, nullptr) << c.kind;
    EXPECT_EQ(OpenApiDefinitionName(*k), c.want) << c.kind;
  }
  KindInfo ingress;
  ingress.group = "networking.k8s.io";
  ingress.version = "v1";
  ingress.kind = "Ingress";
  EXPECT_EQ(OpenApiDefinitionName(ingress), "io.k8s.api.networking.v1.Ingress");
}

TEST(KubeOpenApiTest, V2HasDefinitionsAndPathsForEveryKind) {
  const Json doc = OpenApiV2(AllKinds());
  EXPECT_EQ(doc.at("swagger"), "2.0");
  const Json& defs = doc.at("definitions");
  const Json& paths = doc.at("paths");
  for (const KindInfo* k : AllKinds()) {
    const std::string name = OpenApiDefinitionName(*k);
    ASSERT_TRUE(defs.contains(name)) << name;
    ASSERT_TRUE(defs.contains(name + "List")) << name;
    const Json& def = defs.at(name);
    EXPECT_EQ(def.at("x-kubernetes-group-version-kind"),
              Json::array({{{"group", k->group}, {"kind", k->kind}, {"version", k->version}}}))
        << name;
    EXPECT_EQ(defs.at(name + "List").at("x-kubernetes-group-version-kind")[0].at("kind"),
              k->kind + "List")
        << name;
    EXPECT_EQ(def.at("properties").at("metadata").at("$ref"),
              "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
        << name;
    EXPECT_EQ(defs.at(name + "List").at("properties").at("items").at("items").at("$ref"),
              "#/definitions/" + name);

    const std::string collection = CollectionPath(*k);
    ASSERT_TRUE(paths.contains(collection)) << collection;
    ASSERT_TRUE(paths.contains(collection + "/{name}")) << collection;
    EXPECT_EQ(paths.contains(collection + "/{name}/status"), k->status_subresource) << collection;
    const std::string all =
        (k->group.empty() ? "/api/" : "/apis/" + k->group + "/") + k->version + "/" + k->plural;
    if (k->namespaced) {
      ASSERT_TRUE(paths.contains(all)) << all;
      EXPECT_FALSE(paths.at(all).contains("post")) << all;
    }

    const Json& coll = paths.at(collection);
    EXPECT_EQ(coll.at("get").at("x-kubernetes-action"), "list") << collection;
    EXPECT_EQ(coll.at("post").at("x-kubernetes-action"), "post") << collection;
    EXPECT_TRUE(HasQueryParam(coll.at("get"), "watch")) << collection;
    EXPECT_TRUE(HasQueryParam(coll.at("get"), "labelSelector")) << collection;
    const Json& item = paths.at(collection + "/{name}");
    for (const char* m : {"get", "put", "patch", "delete"}) {
      ASSERT_TRUE(item.contains(m)) << collection << " " << m;
      EXPECT_EQ(item.at(m).at("x-kubernetes-group-version-kind"),
                Json({{"group", k->group}, {"kind", k->kind}, {"version", k->version}}))
          << collection << " " << m;
    }
    EXPECT_TRUE(HasQueryParam(item.at("delete"), "propagationPolicy")) << collection;
  }
}

TEST(KubeOpenApiTest, PathsOfClusterScopedKindsHaveNoNamespace) {
  const Json paths = OpenApiV2(resource::ExternalKinds()).at("paths");
  ASSERT_TRUE(paths.contains("/api/v1/namespaces/{name}"));
  EXPECT_FALSE(paths.contains("/api/v1/namespaces/{namespace}/namespaces"));
  std::set<std::string> params;
  for (const auto& p : paths.at("/api/v1/namespaces/{name}").at("parameters")) {
    params.insert(p.at("name").get<std::string>());
  }
  EXPECT_EQ(params, (std::set<std::string>{"name", "pretty"}));
  params.clear();
  for (const auto& p :
       paths.at("/apis/batch/v1/namespaces/{namespace}/jobs/{name}").at("parameters")) {
    params.insert(p.at("name").get<std::string>());
  }
  EXPECT_EQ(params, (std::set<std::string>{"name", "namespace", "pretty"}));
}

TEST(KubeOpenApiTest, PatchesAreNeverStrategicAndDeclareFieldValidation) {
  const std::vector<std::string> want = {"application/json-patch+json",
                                         "application/merge-patch+json",
                                         "application/apply-patch+yaml"};
  const Json v2 = OpenApiV2(AllKinds());
  int patches = 0;
  for (const auto& [path, item] : v2.at("paths").items()) {
    for (const auto& [method, op] : Operations(item)) {
      EXPECT_EQ(op->dump().find("strategic-merge-patch"), std::string::npos) << path;
      if (method != "patch") continue;
      ++patches;
      EXPECT_EQ(op->at("consumes"), Json(want)) << path;
      EXPECT_TRUE(HasQueryParam(*op, "fieldValidation")) << path;
      EXPECT_TRUE(HasQueryParam(*op, "fieldManager")) << path;
      EXPECT_TRUE(HasQueryParam(*op, "dryRun")) << path;
    }
  }
  EXPECT_GT(patches, 20);

  // The index is kept: a range over a member of a temporary would outlive the temporary.
  const Json index = OpenApiV3Index(AllKinds());
  for (const auto& [key, entry] : index.at("paths").items()) {
    const std::string group = key.starts_with("api/") ? "" : key.substr(5, key.rfind('/') - 5);
    const std::string version = key.substr(key.rfind('/') + 1);
    auto doc = OpenApiV3(group, version, AllKinds());
    ASSERT_TRUE(doc.ok()) << key << ": " << doc.status().ToString();
    for (const auto& [path, item] : doc->at("paths").items()) {
      for (const auto& [method, op] : Operations(item)) {
        EXPECT_EQ(op->dump().find("strategic-merge-patch"), std::string::npos) << path;
        if (method == "patch") {
          Json types = Json::array();
          for (const auto& [t, _] : op->at("requestBody").at("content").items()) types.push_back(t);
          EXPECT_EQ(types, Json(want)) << path;
          // kubectl reads this parameter of PATCH operations to leave validation to the server.
          EXPECT_TRUE(HasQueryParam(*op, "fieldValidation")) << path;
        }
        if (method == "post" || method == "put") {
          EXPECT_TRUE(op->at("requestBody").at("content").contains("application/json")) << path;
          EXPECT_TRUE(op->at("requestBody").at("content").contains("application/yaml")) << path;
          EXPECT_TRUE(HasQueryParam(*op, "fieldValidation")) << path;
        }
      }
    }
  }
}

TEST(KubeOpenApiTest, EveryRefResolves) {
  const Json v2 = OpenApiV2(AllKinds());
  ExpectRefsResolve(v2, "#/definitions/", v2.at("definitions"), "v2");
  const Json index = OpenApiV3Index(AllKinds());
  // hop, core, batch, apps, flink, strimzi, coordination, rbac, apiextensions
  EXPECT_EQ(index.at("paths").size(), 9u);
  for (const auto& [key, entry] : index.at("paths").items()) {
    const std::string group = key.starts_with("api/") ? "" : key.substr(5, key.rfind('/') - 5);
    const std::string version = key.substr(key.rfind('/') + 1);
    auto doc = OpenApiV3(group, version, AllKinds());
    ASSERT_TRUE(doc.ok()) << key;
    EXPECT_EQ(doc->at("openapi"), "3.0.0");
    ExpectRefsResolve(*doc, "#/components/schemas/", doc->at("components").at("schemas"), key);
  }
}

TEST(KubeOpenApiTest, IndexHashesMatchTheDocuments) {
  const Json index = OpenApiV3Index(AllKinds());
  ASSERT_TRUE(index.at("paths").contains("apis/hoptimator.linkedin.com/v1alpha1"));
  ASSERT_TRUE(index.at("paths").contains("api/v1"));
  ASSERT_TRUE(index.at("paths").contains("apis/batch/v1"));
  for (const auto& [key, entry] : index.at("paths").items()) {
    const std::string group = key.starts_with("api/") ? "" : key.substr(5, key.rfind('/') - 5);
    const std::string version = key.substr(key.rfind('/') + 1);
    auto doc = OpenApiV3(group, version, AllKinds());
    ASSERT_TRUE(doc.ok()) << key;
    const std::string hash = OpenApiV3Hash(*doc);
    EXPECT_EQ(hash.size(), 128u) << key;  // SHA-512, hex
    EXPECT_EQ(entry.at("serverRelativeURL"), "/openapi/v3/" + key + "?hash=" + hash) << key;
  }
  // Stable: the same kinds make the same index; a change of the document changes its hash.
  EXPECT_EQ(OpenApiV3Index(AllKinds()), index);
  auto hop = OpenApiV3("hoptimator.linkedin.com", "v1alpha1", AllKinds());
  ASSERT_TRUE(hop.ok());
  Json changed = *hop;
  changed["info"]["version"] = "v2";
  EXPECT_NE(OpenApiV3Hash(changed), OpenApiV3Hash(*hop));
  EXPECT_EQ(OpenApiV3Hash(Json::object()),
            "27C74670ADB75075FAD058D5CEAF7B20C4E7786C83BAE8A32F626F9782AF34C9A33C2046EF60FD2A7878D3"
            "78E29FEC851806BBD9A67878F3A9F1CDA4830763FD");  // sha512("{}")
}

TEST(KubeOpenApiTest, UnknownGroupVersionIsNotFound) {
  auto doc = OpenApiV3("example.com", "v1", AllKinds());
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(doc.status().message(), "no kinds are served in apis/example.com/v1");
  EXPECT_FALSE(OpenApiV3("hoptimator.linkedin.com", "v1", AllKinds()).ok());
  EXPECT_FALSE(OpenApiV3("", "v2", AllKinds()).ok());
}

TEST(KubeOpenApiTest, V3DocumentHoldsOnlyItsGroupVersion) {
  auto doc = OpenApiV3("", "v1", AllKinds());
  ASSERT_TRUE(doc.ok());
  const Json& schemas = doc->at("components").at("schemas");
  EXPECT_TRUE(schemas.contains("io.k8s.api.core.v1.ConfigMap"));
  EXPECT_TRUE(schemas.contains("io.k8s.api.core.v1.Secret"));
  EXPECT_TRUE(schemas.contains("io.k8s.api.core.v1.NamespaceList"));
  EXPECT_FALSE(schemas.contains("io.k8s.api.batch.v1.Job"));
  EXPECT_FALSE(schemas.contains("com.linkedin.hoptimator.v1alpha1.View"));
  for (const auto& [path, item] : doc->at("paths").items()) {
    EXPECT_TRUE(path.starts_with("/api/v1/")) << path;
  }
  EXPECT_TRUE(doc->at("paths").contains("/api/v1/namespaces/{namespace}/configmaps/{name}"));
  // metadata keeps its description beside the reference, as kube-apiserver's v3 does.
  EXPECT_EQ(schemas.at("io.k8s.api.core.v1.ConfigMap").at("properties").at("metadata"),
            Json::parse(R"({"allOf":[{"$ref":"#/components/schemas/)"
                        R"(io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}],)"
                        R"("default":{},"description":"Standard object metadata."})"));
}

TEST(KubeOpenApiTest, SchemasComeFromTheKinds) {
  const Json v2 = OpenApiV2(AllKinds());
  const Json& defs = v2.at("definitions");
  const Json& view = defs.at("com.linkedin.hoptimator.v1alpha1.View");
  EXPECT_EQ(view.at("properties").at("spec"), resource::ToOpenApi(resource::ViewKind::Info().spec));
  EXPECT_EQ(view.at("properties").at("spec").at("properties").at("sql").at("type"), "string");
  EXPECT_EQ(view.at("properties").at("status"),
            resource::ToOpenApi(resource::ViewKind::Info().status));
  // External kinds are free-form below typed metadata.
  const Json& job = defs.at("io.k8s.api.batch.v1.Job");
  EXPECT_EQ(job.at("properties").at("spec").at("x-kubernetes-preserve-unknown-fields"), true);
  EXPECT_EQ(job.at("properties").at("status").at("x-kubernetes-preserve-unknown-fields"), true);
  // ConfigMaps and Secrets carry their data at the top level, where validation must allow it.
  const Json& cm = defs.at("io.k8s.api.core.v1.ConfigMap").at("properties");
  EXPECT_TRUE(cm.contains("data"));
  EXPECT_TRUE(cm.contains("binaryData"));
  EXPECT_FALSE(cm.contains("spec"));
  EXPECT_TRUE(defs.at("io.k8s.api.core.v1.Secret").at("properties").contains("stringData"));
  EXPECT_EQ(cm.at("binaryData").at("additionalProperties").at("format"), "byte");
  // A Lease has a typed spec and no status.
  const Json& lease = defs.at("io.k8s.api.coordination.v1.Lease");
  EXPECT_EQ(lease.at("x-kubernetes-group-version-kind"),
            Json::parse(R"([{"group":"coordination.k8s.io","kind":"Lease","version":"v1"}])"));
  EXPECT_FALSE(lease.at("properties").contains("status"));
  const Json& lease_spec = lease.at("properties").at("spec").at("properties");
  EXPECT_EQ(lease_spec.at("holderIdentity").at("type"), "string");
  EXPECT_EQ(lease_spec.at("leaseDurationSeconds").at("format"), "int32");
  EXPECT_EQ(lease_spec.at("leaseTransitions").at("type"), "integer");
  EXPECT_EQ(lease_spec.at("acquireTime").at("format"), "date-time");
  EXPECT_EQ(lease_spec.at("renewTime").at("format"), "date-time");
  EXPECT_FALSE(lease.at("properties").at("spec").contains("x-kubernetes-preserve-unknown-fields"));
  EXPECT_TRUE(v2.at("paths").contains(
      "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}"));
  EXPECT_FALSE(v2.at("paths").contains(
      "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}/status"));

  const Json& meta = defs.at("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta").at("properties");
  for (const char* f : {"name", "namespace", "labels", "annotations", "uid", "resourceVersion",
                        "generation", "creationTimestamp", "deletionTimestamp", "finalizers",
                        "ownerReferences", "managedFields", "generateName"}) {
    EXPECT_TRUE(meta.contains(f)) << f;
  }
  EXPECT_EQ(meta.at("labels").at("additionalProperties").at("type"), "string");
  EXPECT_EQ(meta.at("generation").at("format"), "int64");
  EXPECT_EQ(meta.at("creationTimestamp").at("$ref"),
            "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Time");
  EXPECT_EQ(meta.at("ownerReferences").at("items").at("$ref"),
            "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference");
  EXPECT_EQ(defs.at("io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference").at("required"),
            Json::array({"apiVersion", "kind", "name", "uid"}));
  EXPECT_EQ(
      defs.at("io.k8s.apimachinery.pkg.apis.meta.v1.Status").at("x-kubernetes-group-version-kind"),
      Json::parse(R"([{"group":"","kind":"Status","version":"v1"}])"));
}

TEST(KubeOpenApiTest, OperationIdsAreKubeApiserversAndUnique) {
  const Json paths = OpenApiV2(AllKinds()).at("paths");
  struct Case {
    std::string_view path;
    std::string_view method;
    std::string_view id;
  };
  constexpr Case kCases[] = {
      {"/apis/hoptimator.linkedin.com/v1alpha1/namespaces/{namespace}/views", "get",
       "listHoptimatorLinkedinComV1alpha1NamespacedView"},
      {"/apis/hoptimator.linkedin.com/v1alpha1/namespaces/{namespace}/views/{name}/status", "patch",
       "patchHoptimatorLinkedinComV1alpha1NamespacedViewStatus"},
      {"/apis/hoptimator.linkedin.com/v1alpha1/views", "get",
       "listHoptimatorLinkedinComV1alpha1ViewForAllNamespaces"},
      {"/api/v1/namespaces/{namespace}/configmaps/{name}", "put",
       "replaceCoreV1NamespacedConfigMap"},
      {"/api/v1/namespaces/{name}", "delete", "deleteCoreV1Namespace"},
      {"/apis/batch/v1/namespaces/{namespace}/jobs", "post", "createBatchV1NamespacedJob"},
  };
  for (const Case& c : kCases) {
    ASSERT_TRUE(paths.contains(c.path)) << c.path;
    EXPECT_EQ(paths.at(c.path).at(c.method).at("operationId"), c.id) << c.path;
  }
  std::set<std::string> ids;
  for (const auto& [path, item] : paths.items()) {
    for (const auto& [method, op] : Operations(item)) {
      EXPECT_TRUE(ids.insert(op->at("operationId").get<std::string>()).second)
          << path << " " << method;
    }
  }
}

TEST(KubeOpenApiTest, TakesAnyKindAndSkipsRepeats) {
  KindInfo widget;
  widget.group = "example.com";
  widget.version = "v1";
  widget.kind = "Widget";
  widget.plural = "widgets";
  widget.namespaced = false;
  widget.status_subresource = false;
  widget.spec = resource::Schema::FreeForm();
  widget.status = resource::Schema::FreeForm();
  const Json doc = OpenApiV2({&widget, &widget, &resource::ViewKind::Info()});
  EXPECT_TRUE(doc.at("paths").contains("/apis/example.com/v1/widgets/{name}"));
  EXPECT_FALSE(doc.at("paths").contains("/apis/example.com/v1/widgets/{name}/status"));
  EXPECT_TRUE(doc.at("definitions").contains("com.example.v1.Widget"));
  EXPECT_EQ(doc.at("paths").size(), 2u + 4u);  // Widget: collection, item; View: + status, all
  auto v3 = OpenApiV3("example.com", "v1", {&widget});
  ASSERT_TRUE(v3.ok());
  EXPECT_EQ(OpenApiV3Index({&widget}).at("paths").at("apis/example.com/v1").at("serverRelativeURL"),
            "/openapi/v3/apis/example.com/v1?hash=" + OpenApiV3Hash(*v3));
}

TEST(KubeOpenApiTest, ProtobufEncodesTheWireFormat) {
  // Document{swagger: "2.0", info: Info{title: "t", version: "v"}}: field 1 and message field 2.
  EXPECT_EQ(
      OpenApiV2Protobuf(Json::parse(R"({"swagger":"2.0","info":{"title":"t","version":"v"}})")),
      std::string("\x0a\x03"
                  "2.0"
                  "\x12\x06\x0a\x01t\x12\x01v"));
  // Lengths from 128 on take two varint bytes; booleans are varints; false is left out.
  const std::string long_title(200, 'x');
  const std::string doc = OpenApiV2Protobuf(Json{{"info", {{"title", long_title}}}});
  EXPECT_EQ(doc.substr(0, 6), std::string("\x12\xcb\x01\x0a\xc8\x01"));
  EXPECT_EQ(doc.size(), 6u + 200u);
}

TEST(KubeOpenApiTest, ProtobufHoldsTheDocument) {
  // Field numbers of gnostic's openapi.v2 messages.
  const Json json = OpenApiV2(AllKinds());
  const Proto doc = Decode(OpenApiV2Protobuf(json));
  ASSERT_TRUE(doc.ok);
  EXPECT_EQ(doc.One(1), "2.0");
  EXPECT_EQ(Decode(doc.One(2)).One(1), "hop");  // Info.title

  const Proto defs = Decode(doc.One(9));  // Definitions
  EXPECT_EQ(Names(defs, 1).size(), json.at("definitions").size());
  const Proto view = Named(defs, 1, "com.linkedin.hoptimator.v1alpha1.View");
  ASSERT_TRUE(view.ok);
  EXPECT_EQ(Decode(view.One(22)).All(1), std::vector<std::string>{"object"});  // Schema.type
  // Schema.vendor_extension: a NamedAny whose Any.yaml holds the value as JSON.
  const Proto gvk = Named(view, 31, "x-kubernetes-group-version-kind");
  ASSERT_TRUE(gvk.ok);
  EXPECT_EQ(
      Json::parse(gvk.One(2)),
      Json::parse(R"([{"group":"hoptimator.linkedin.com","kind":"View","version":"v1alpha1"}])"));
  const Proto props = Decode(view.One(25));  // Schema.properties
  EXPECT_EQ(Names(props, 1),
            (std::vector<std::string>{"apiVersion", "kind", "metadata", "spec", "status"}));
  EXPECT_EQ(Named(props, 1, "metadata").One(1),
            "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  const Proto spec = Named(props, 1, "spec");
  EXPECT_EQ(spec.All(19), resource::ViewKind::Info().spec.required);  // Schema.required
  const Proto options = Named(Decode(spec.One(25)), 1, "options");
  const Proto additional = Decode(Decode(options.One(21)).One(1));  // AdditionalPropertiesItem
  EXPECT_EQ(Decode(additional.One(22)).One(1), "string");
  const Proto job_spec =
      Named(Decode(Named(defs, 1, "io.k8s.api.batch.v1.Job").One(25)), 1, "spec");
  EXPECT_EQ(Named(job_spec, 31, "x-kubernetes-preserve-unknown-fields").One(2), "true");

  const Proto paths = Decode(doc.One(8));
  EXPECT_EQ(Names(paths, 2).size(), json.at("paths").size());
  const Proto item =
      Named(paths, 2, "/apis/hoptimator.linkedin.com/v1alpha1/namespaces/{namespace}/views/{name}");
  ASSERT_TRUE(item.ok);
  const Proto patch = Decode(item.One(8));  // PathItem.patch
  EXPECT_EQ(patch.One(5), "patchHoptimatorLinkedinComV1alpha1NamespacedView");
  EXPECT_EQ(patch.All(7),
            (std::vector<std::string>{"application/json-patch+json", "application/merge-patch+json",
                                      "application/apply-patch+yaml"}));
  EXPECT_EQ(Named(patch, 13, "x-kubernetes-action").One(2), "\"patch\"");
  // Operation.parameters: ParametersItem.parameter; Parameter.body_parameter or
  // .non_body_parameter; NonBodyParameter.query_parameter_sub_schema, whose name is field 4
  // and type field 6.
  std::map<std::string, std::string> query;
  bool body = false;
  for (const auto& p : patch.All(8)) {
    const Proto param = Decode(Decode(p).One(1));
    if (!param.All(1).empty()) {
      body = Decode(param.One(1)).One(2) == "body";
      continue;
    }
    const Proto sub = Decode(Decode(param.One(2)).One(3));
    query[sub.One(4)] = sub.One(6);
  }
  EXPECT_TRUE(body);
  EXPECT_EQ(query["fieldValidation"], "string");
  EXPECT_EQ(query["force"], "boolean");
  // PathItem.parameters: the path parameters, PathParameterSubSchema with type at field 5.
  std::set<std::string> in_path;
  for (const auto& p : item.All(9)) {
    const Proto non_body = Decode(Decode(Decode(p).One(1)).One(2));
    if (non_body.All(4).empty()) continue;
    const Proto sub = Decode(non_body.One(4));
    EXPECT_EQ(sub.varints.count(1), 1u);  // required
    EXPECT_EQ(sub.One(5), "string");
    in_path.insert(sub.One(4));
  }
  EXPECT_EQ(in_path, (std::set<std::string>{"name", "namespace"}));
  // Operation.responses: NamedResponseValue "200" -> Response -> SchemaItem.schema.$ref.
  const Proto ok = Decode(Named(Decode(patch.One(9)), 1, "200").One(1));
  EXPECT_EQ(ok.One(1), "OK");
  EXPECT_EQ(Decode(Decode(ok.One(2)).One(1)).One(1),
            "#/definitions/com.linkedin.hoptimator.v1alpha1.View");
}

}  // namespace
}  // namespace hop::server
