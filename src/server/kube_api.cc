#include "server/kube_api.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "common/issues.h"
#include "common/log.h"
#include "common/redact.h"
#include "common/strings.h"
#include "common/time.h"
#include "deploy/executor.h"
#include "deploy/validate.h"
#include "resource/crd.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "resource/openapi_validation.h"
#include "resource/secrets.h"
#include "resource/validation.h"
#include "resource/yaml.h"
#include "server/kube_openapi.h"
#include "server/pg_auth.h"

namespace hop::server {

namespace {

using resource::KindInfo;
using resource::Resource;
using store::ObjectRef;
using store::Write;

// The Kubernetes version whose API this one follows (docs/kubernetes-api.md).
constexpr std::string_view kApiMajor = "1";
constexpr std::string_view kApiMinor = "32";

Json StatusBody(int code, std::string_view reason, std::string_view message) {
  Json s = Json::object();
  s["kind"] = "Status";
  s["apiVersion"] = "v1";
  s["metadata"] = Json::object();
  s["status"] = code < 400 ? "Success" : "Failure";
  s["message"] = message;
  s["reason"] = reason;
  s["code"] = code;
  return s;
}

std::string Dump(const Json& doc) {
  return doc.dump(-1, ' ', false, Json::error_handler_t::replace);
}

KubeResponse JsonResponse(int code, const Json& doc) {
  KubeResponse r;
  r.status = code;
  r.body = Dump(doc);
  return r;
}

// How Kubernetes names a kind's objects in messages: `views.hoptimator.linkedin.com "x"`.
std::string Qualified(const KindInfo& kind) {
  return kind.group.empty() ? kind.plural : kind.plural + "." + kind.group;
}

// A hop Status as the Kubernetes failure a client expects.
KubeResponse FromStatus(const Status& s, const KindInfo* kind, std::string_view name) {
  const std::string what =
      kind ? fmt::format("{} \"{}\"", Qualified(*kind), name) : fmt::format("\"{}\"", name);
  const std::string message = RedactSecrets(s.ToString());
  switch (s.code()) {
    case StatusCode::kNotFound: return KubeStatusResponse(404, "NotFound", what + " not found");
    case StatusCode::kAlreadyExists:
      return KubeStatusResponse(409, "AlreadyExists", what + " already exists");
    case StatusCode::kConflict:
      return KubeStatusResponse(
          409, "Conflict",
          fmt::format("Operation cannot be fulfilled on {}: the object has been modified; please "
                      "apply your changes to the latest version and try again ({})",
                      what, message));
    case StatusCode::kValidation:
      return KubeStatusResponse(422, "Invalid", fmt::format("{} is invalid: {}", what, message));
    case StatusCode::kInvalidArgument:
    case StatusCode::kParse: return KubeStatusResponse(400, "BadRequest", message);
    case StatusCode::kUnavailable: return KubeStatusResponse(503, "ServiceUnavailable", message);
    default: return KubeStatusResponse(500, "InternalError", message);
  }
}

bool Truthy(const std::map<std::string, std::string>& q, const std::string& key) {
  auto it = q.find(key);
  return it != q.end() && (it->second == "true" || it->second == "1");
}

std::string QueryValue(const KubeRequest& r, const std::string& key) {
  auto it = r.query.find(key);
  return it == r.query.end() ? std::string() : it->second;
}

// The media type of a request body as the API server reads Content-Type: without parameters,
// lower-cased; empty when none is given.
std::string MediaType(std::string_view content_type) {
  return AsciiToLower(TrimWhitespace(content_type.substr(0, content_type.find(';'))));
}

// A resourceVersion a client sent: a revision, or none when it is not a decimal number of at
// most 18 digits.
std::optional<int64_t> ParseRevision(std::string_view rv) {
  if (rv.empty() || rv.size() > 18) return std::nullopt;
  for (char c : rv) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return std::stoll(std::string(rv));
}

// How long a list from a revision the store has not reached waits for it, as the API server
// waits for its watch cache, before it answers TooLargeResourceVersion.
constexpr std::chrono::seconds kFutureRevisionWait{3};

// The API server's answer to a list from a revision its store has not reached when it stopped
// waiting for it: 504 Timeout, with the cause clients look for and a time to retry after.
KubeResponse TooLargeResourceVersion(int64_t wanted, int64_t current) {
  Json body = StatusBody(
      504, "Timeout",
      fmt::format("Timeout: Too large resource version: {}, current: {}", wanted, current));
  Json cause = Json::object();
  cause["reason"] = "ResourceVersionTooLarge";
  cause["message"] = "Too large resource version";
  body["details"] = Json::object();
  body["details"]["causes"] = Json::array({std::move(cause)});
  body["details"]["retryAfterSeconds"] = 1;
  return JsonResponse(504, body);
}

std::vector<std::string> SplitPath(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) out.emplace_back(path.substr(i, j - i));
    i = j;
  }
  return out;
}

// --- the kinds served ---

// The OpenAPI documents of a set of kinds, built on first use.
struct OpenApiDocuments {
  std::string v2_json;
  std::string v2_protobuf;
  std::string v3_index;
  std::map<std::string, std::string> v3;  // "apis/GROUP/VERSION" or "api/v1"
};

// The kinds the API serves at one moment (docs/kubernetes-api.md "Custom resources"): hop's, the
// external ones (with an installed CRD's schema in place of their free-form one), and those that
// only an installed CRD defines; and the installed CRDs, which validate objects of their kinds.
// Immutable once built: a change of the CRDs builds another, and a request or a watch keeps the
// one it started with.
struct ServedKinds {
  std::vector<const KindInfo*> kinds;
  std::deque<KindInfo> owned;  // the kinds built from CRDs, which `kinds` points into
  // The installed CRD of each group and kind it defines (whether hop knows the kind or not).
  std::map<std::pair<std::string, std::string>, std::shared_ptr<const resource::InstalledCrd>> crds;
  // Why a stored CRD is not served (its names conflict), by the CRD's name.
  std::map<std::string, std::string> conflicts;

  // The kind served at GROUP/VERSION/PLURAL, or null.
  const KindInfo* ByPlural(std::string_view group, std::string_view version,
                           std::string_view plural) const {
    for (const KindInfo* k : kinds) {
      if (k->group == group && k->version == version && k->plural == plural) return k;
    }
    return nullptr;
  }

  // The installed CRD of `gk`, or null.
  const resource::InstalledCrd* Crd(const resource::GroupKind& gk) const {
    auto it = crds.find({gk.group, gk.kind});
    return it == crds.end() ? nullptr : it->second.get();
  }

  // Whether hop knows `kind` only through a CRD: the store then knows neither its scope nor its
  // status subresource, and the API keeps them itself.
  static bool DefinedByCrd(const KindInfo& kind) {
    return resource::FindKind(kind.group_kind()) == nullptr;
  }

  // The groups other than the core one, in the order of the kinds, each with its versions.
  std::vector<std::pair<std::string, std::vector<std::string>>> Groups() const {
    std::vector<std::pair<std::string, std::vector<std::string>>> out;
    for (const KindInfo* k : kinds) {
      if (k->group.empty()) continue;
      auto it =
          std::find_if(out.begin(), out.end(), [&](const auto& g) { return g.first == k->group; });
      if (it == out.end()) {
        out.push_back({k->group, {k->version}});
      } else if (std::find(it->second.begin(), it->second.end(), k->version) == it->second.end()) {
        it->second.push_back(k->version);
      }
    }
    return out;
  }

  const OpenApiDocuments& Documents() const {
    std::call_once(docs_once, [this] {
      const Json v2 = OpenApiV2(kinds);
      docs.v2_json = Dump(v2);
      docs.v2_protobuf = OpenApiV2Protobuf(v2);
      docs.v3_index = Dump(OpenApiV3Index(kinds));
      std::vector<std::pair<std::string, std::string>> gvs = {{"", "v1"}};
      for (const auto& [group, versions] : Groups()) {
        for (const std::string& version : versions) gvs.emplace_back(group, version);
      }
      for (const auto& [group, version] : gvs) {
        auto doc = OpenApiV3(group, version, kinds);
        if (!doc.ok()) continue;
        docs.v3[group.empty() ? "api/" + version : "apis/" + group + "/" + version] = Dump(*doc);
      }
    });
    return docs;
  }

 private:
  mutable std::once_flag docs_once;
  mutable OpenApiDocuments docs;
};

// Whether the names of `crd` clash with a served kind of its group: its kind, plural, singular or
// a short name taken by another kind. The message says which, or is empty.
std::string NameConflict(const std::vector<const KindInfo*>& served,
                         const resource::InstalledCrd& crd) {
  for (const KindInfo* k : served) {
    if (k->group != crd.group) continue;
    if (k->kind == crd.kind) {
      return fmt::format("kind \"{}\" is already in use by {}", crd.kind, Qualified(*k));
    }
    std::vector<std::string> taken = k->short_names;
    taken.push_back(k->plural);
    taken.push_back(k->singular);
    for (const std::string& name : taken) {
      if (name == crd.plural || name == crd.singular ||
          std::find(crd.short_names.begin(), crd.short_names.end(), name) !=
              crd.short_names.end()) {
        return fmt::format("\"{}\" is already in use by {}", name, Qualified(*k));
      }
    }
  }
  return "";
}

// The kinds served with the CRDs stored (`crds`, in the store's order): a CRD that is invalid
// (written around the API) is left out; one whose names clash with a served kind is recorded in
// ServedKinds::conflicts and not served.
std::shared_ptr<const ServedKinds> BuildServedKinds(const std::vector<resource::Resource>& crds) {
  auto out = std::make_shared<ServedKinds>();
  out->kinds = resource::HopKinds();
  for (const KindInfo* k : resource::ExternalKinds()) out->kinds.push_back(k);
  for (const resource::Resource& object : crds) {
    auto read = resource::ReadCustomResourceDefinition(object.json());
    if (!read.ok()) {
      log::Warn("kubernetes api: the CustomResourceDefinition {} is invalid and not served: {}",
                object.name(), read.status().message());
      continue;
    }
    auto crd = std::make_shared<const resource::InstalledCrd>(std::move(read).value());
    const resource::GroupKind gk{crd->group, crd->kind};
    if (const KindInfo* known = resource::FindKind(gk)) {
      // hop serves the kind as it knows it; the CRD validates its objects and, for kinds of
      // other systems, gives the OpenAPI documents its schema and Tables its columns.
      out->crds[{gk.group, gk.kind}] = crd;
      const resource::CustomResourceVersion* version = crd->ServedVersion(known->version);
      if (known->group == resource::kHopGroup || version == nullptr) continue;
      KindInfo& described = out->owned.emplace_back(*known);
      described.open_api_schema = version->schema_json;
      if (described.columns.empty()) described.columns = version->columns;
      for (const std::string& s : crd->short_names) {
        if (std::find(described.short_names.begin(), described.short_names.end(), s) ==
            described.short_names.end()) {
          described.short_names.push_back(s);
        }
      }
      std::replace(out->kinds.begin(), out->kinds.end(), known,
                   static_cast<const KindInfo*>(&described));
      continue;
    }
    if (std::string conflict = NameConflict(out->kinds, *crd); !conflict.empty()) {
      out->conflicts[crd->name] = std::move(conflict);
      continue;
    }
    out->crds[{gk.group, gk.kind}] = crd;
    if (const resource::CustomResourceVersion* version = crd->ServedStorageVersion()) {
      out->kinds.push_back(&out->owned.emplace_back(crd->ServedKind(*version)));
    }
  }
  return out;
}

// What a resource URL names.
struct Target {
  const KindInfo* kind = nullptr;
  std::string namespace_name;  // "" for every namespace, or a cluster-scoped kind
  std::string name;            // "" for the collection
  std::string subresource;     // "" or "status"
};

// Parses the segments after `/api/v1` or `/apis/GROUP/VERSION`.
Result<Target> ParseTarget(const ServedKinds& kinds, std::string_view group,
                           std::string_view version, const std::vector<std::string>& seg) {
  Target t;
  size_t i = 0;
  // `namespaces/NS/PLURAL...`, except the Namespace kind's own `namespaces/NAME[/status]`.
  if (seg.size() >= 3 && seg[0] == "namespaces" &&
      !(group.empty() && seg.size() == 3 && (seg[2] == "status" || seg[2] == "finalize"))) {
    t.namespace_name = seg[1];
    i = 2;
  }
  if (i >= seg.size() || seg.size() - i > 3) {
    return Status::NotFound("the server could not find the requested resource");
  }
  t.kind = kinds.ByPlural(group, version, seg[i]);
  if (t.kind == nullptr)
    return Status::NotFound("the server could not find the requested resource");
  if (seg.size() - i >= 2) t.name = seg[i + 1];
  if (seg.size() - i == 3) t.subresource = seg[i + 2];
  if (!t.subresource.empty() && (t.subresource != "status" || !t.kind->status_subresource)) {
    return Status::NotFound("the server could not find the requested resource");
  }
  if (!t.kind->namespaced && !t.namespace_name.empty()) {
    return Status::NotFound("the server could not find the requested resource");
  }
  return t;
}

// The target of a URL's segments: `/api/v1/...` or `/apis/GROUP/VERSION/...`.
Result<Target> TargetOf(const ServedKinds& kinds, const std::vector<std::string>& seg) {
  if (seg.size() >= 3 && seg[0] == "api" && seg[1] == "v1") {
    return ParseTarget(kinds, "", "v1", {seg.begin() + 2, seg.end()});
  }
  if (seg.size() >= 4 && seg[0] == "apis") {
    return ParseTarget(kinds, seg[1], seg[2], {seg.begin() + 3, seg.end()});
  }
  return Status::NotFound("the server could not find the requested resource");
}

// --- discovery ---

Json ApiResource(const KindInfo& k, const std::string& name, bool subresource) {
  Json r = Json::object();
  r["name"] = name;
  r["singularName"] = subresource ? "" : k.singular;
  r["namespaced"] = k.namespaced;
  r["kind"] = k.kind;
  if (subresource) {
    r["verbs"] = Json::array({"get", "patch", "update"});
  } else {
    r["verbs"] = Json::array({"create", "delete", "get", "list", "patch", "update", "watch"});
    if (!k.short_names.empty()) r["shortNames"] = k.short_names;
    if (!k.categories.empty()) r["categories"] = k.categories;
  }
  return r;
}

Json ResourceList(const ServedKinds& kinds, std::string_view group, std::string_view version) {
  Json list = Json::object();
  list["kind"] = "APIResourceList";
  list["apiVersion"] = "v1";
  list["groupVersion"] =
      group.empty() ? std::string(version) : fmt::format("{}/{}", group, version);
  list["resources"] = Json::array();
  for (const KindInfo* k : kinds.kinds) {
    if (k->group != group || k->version != version) continue;
    list["resources"].push_back(ApiResource(*k, k->plural, false));
    if (k->status_subresource) {
      list["resources"].push_back(ApiResource(*k, k->plural + "/status", true));
    }
  }
  return list;
}

Json GroupVersion(const std::string& group, const std::string& version) {
  Json gv = Json::object();
  gv["groupVersion"] = group + "/" + version;
  gv["version"] = version;
  return gv;
}

Json ApiGroup(const std::string& group, const std::vector<std::string>& versions) {
  Json g = Json::object();
  g["name"] = group;
  g["versions"] = Json::array();
  for (const std::string& v : versions) g["versions"].push_back(GroupVersion(group, v));
  g["preferredVersion"] = GroupVersion(group, versions.front());
  return g;
}

// Aggregated discovery (apidiscovery.k8s.io/v2): every group's resources in one response.
Json DiscoveryResource(const KindInfo& k) {
  Json kind = Json::object();
  kind["group"] = k.group;
  kind["version"] = k.version;
  kind["kind"] = k.kind;
  Json r = Json::object();
  r["resource"] = k.plural;
  r["responseKind"] = kind;
  r["scope"] = k.namespaced ? "Namespaced" : "Cluster";
  r["singularResource"] = k.singular;
  r["verbs"] = Json::array({"create", "delete", "get", "list", "patch", "update", "watch"});
  if (!k.short_names.empty()) r["shortNames"] = k.short_names;
  if (!k.categories.empty()) r["categories"] = k.categories;
  if (k.status_subresource) {
    Json sub = Json::object();
    sub["subresource"] = "status";
    sub["responseKind"] = kind;
    sub["verbs"] = Json::array({"get", "patch", "update"});
    r["subresources"] = Json::array({sub});
  }
  return r;
}

Json AggregatedDiscovery(const ServedKinds& kinds, bool core) {
  Json list = Json::object();
  list["kind"] = "APIGroupDiscoveryList";
  list["apiVersion"] = "apidiscovery.k8s.io/v2";
  list["metadata"] = Json::object();
  list["items"] = Json::array();
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  if (core) {
    groups.push_back({"", {"v1"}});
  } else {
    groups = kinds.Groups();
  }
  for (const auto& [group, versions] : groups) {
    Json item = Json::object();
    item["metadata"] = Json::object();
    item["metadata"]["name"] = group;
    item["versions"] = Json::array();
    for (const std::string& version : versions) {
      Json v = Json::object();
      v["version"] = version;
      v["resources"] = Json::array();
      for (const KindInfo* k : kinds.kinds) {
        if (k->group == group && k->version == version) {
          v["resources"].push_back(DiscoveryResource(*k));
        }
      }
      v["freshness"] = "Current";
      item["versions"].push_back(std::move(v));
    }
    list["items"].push_back(std::move(item));
  }
  return list;
}

bool WantsAggregated(const KubeRequest& r) {
  return r.accept.find("as=APIGroupDiscoveryList") != std::string::npos &&
         r.accept.find("v=v2") != std::string::npos;
}

constexpr std::string_view kAggregatedType =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

// --- OpenAPI: built once for each set of kinds, on first use ---

KubeResponse OpenApi(const ServedKinds& kinds, const KubeRequest& req,
                     const std::vector<std::string>& seg) {
  const OpenApiDocuments& docs = kinds.Documents();
  KubeResponse r;
  if (seg.size() == 2 && seg[1] == "v2") {
    // kubectl asks for gnostic's protobuf first (1.20 only for it), and reads it as
    // application/octet-stream.
    if (req.accept.find("protobuf") != std::string::npos) {
      r.content_type = "application/octet-stream";
      r.body = docs.v2_protobuf;
    } else {
      r.body = docs.v2_json;
    }
    return r;
  }
  if (seg.size() == 2 && seg[1] == "v3") {
    r.body = docs.v3_index;
    return r;
  }
  std::string key;
  for (size_t i = 2; i < seg.size(); ++i) key += (i > 2 ? "/" : "") + seg[i];
  if (seg.size() >= 3 && seg[1] == "v3") {
    if (auto it = docs.v3.find(key); it != docs.v3.end()) {
      r.body = it->second;
      return r;
    }
  }
  return KubeStatusResponse(404, "NotFound", "the server could not find the requested resource");
}

// --- objects ---

bool WantsTable(const KubeRequest& r) { return r.accept.find("as=Table") != std::string::npos; }

std::string HumanAge(const std::string& created) {
  auto t = ParseRfc3339(created);
  if (!t) return "<unknown>";
  return HumanDuration(std::chrono::duration_cast<std::chrono::seconds>(SystemClock().Now() - *t));
}

Json ColumnDefinition(std::string_view name, std::string_view type, std::string_view format,
                      std::string_view description, int priority) {
  Json c = Json::object();
  c["name"] = name;
  c["type"] = type;
  c["format"] = format;
  c["description"] = description;
  c["priority"] = priority;
  return c;
}

Json TableColumns(const KindInfo& kind) {
  Json cols = Json::array();
  cols.push_back(ColumnDefinition("Name", "string", "name", "The object's name", 0));
  for (const auto& c : kind.columns) {
    cols.push_back(ColumnDefinition(c.name, c.type, c.format, c.description, 0));
  }
  cols.push_back(ColumnDefinition("Age", "date", "", "Time since the object was created", 0));
  return cols;
}

// One row of a Table; `object` already redacted.
Json TableRow(const KindInfo& kind, const Json& object, const std::string& include) {
  Json cells = Json::array();
  cells.push_back(object["metadata"].value("name", ""));
  for (const auto& c : kind.columns) {
    if (c.compute != nullptr) {
      std::string text = c.compute(object, SystemClock().Now());
      cells.push_back(text.empty() ? Json(nullptr) : Json(std::move(text)));
      continue;
    }
    const Json* v = resource::PrinterColumnValue(object, c.json_path);
    if (v == nullptr || v->is_null()) {
      cells.push_back(nullptr);
    } else if (c.type == "date" && v->is_string()) {
      cells.push_back(HumanAge(v->get<std::string>()));
    } else {
      cells.push_back(*v);
    }
  }
  cells.push_back(HumanAge(object["metadata"].value("creationTimestamp", "")));
  Json row = Json::object();
  row["cells"] = std::move(cells);
  if (include == "Object") {
    row["object"] = object;
  } else if (include != "None") {
    Json meta = Json::object();
    meta["kind"] = "PartialObjectMetadata";
    meta["apiVersion"] = "meta.k8s.io/v1";
    meta["metadata"] = object["metadata"];
    row["object"] = std::move(meta);
  }
  return row;
}

Json Table(const KindInfo& kind, const std::vector<Json>& objects, const std::string& include,
           int64_t revision, const std::string& continue_token) {
  Json t = Json::object();
  t["kind"] = "Table";
  t["apiVersion"] = "meta.k8s.io/v1";
  t["metadata"] = Json::object();
  if (revision > 0) t["metadata"]["resourceVersion"] = std::to_string(revision);
  if (!continue_token.empty()) t["metadata"]["continue"] = continue_token;
  t["columnDefinitions"] = TableColumns(kind);
  t["rows"] = Json::array();
  for (const Json& o : objects) t["rows"].push_back(TableRow(kind, o, include));
  return t;
}

// How a response shows objects: with their secrets redacted, for every client but hop's store
// client; and without the namespace the store gives them, for the cluster-scoped kinds only a
// CRD defines (the store takes every kind it does not know as namespaced).
struct Presentation {
  bool redact = true;
  bool drop_namespace = false;
};

Presentation PresentationOf(const KubeRequest& req, const KindInfo& kind) {
  return {!req.store_client, !kind.namespaced && ServedKinds::DefinedByCrd(kind)};
}

Json Shown(const Resource& r, const Presentation& p) {
  Json doc = r.Ordered();
  if (p.redact) resource::RedactSecretsIn(doc);
  if (p.drop_namespace && doc["metadata"].is_object()) doc["metadata"].erase("namespace");
  return doc;
}

// --- field selectors: metadata.name and metadata.namespace, with =, == and != ---

struct FieldRequirement {
  std::string field;
  bool equals = true;
  std::string value;
};

Result<std::vector<FieldRequirement>> ParseFieldSelector(std::string_view text) {
  std::vector<FieldRequirement> out;
  size_t i = 0;
  while (i <= text.size()) {
    size_t j = text.find(',', i);
    if (j == std::string_view::npos) j = text.size();
    std::string_view part = TrimWhitespace(text.substr(i, j - i));
    i = j + 1;
    if (part.empty()) continue;
    FieldRequirement f;
    size_t op = part.find("!=");
    size_t len = 2;
    if (op != std::string_view::npos) {
      f.equals = false;
    } else if ((op = part.find("==")) == std::string_view::npos) {
      op = part.find('=');
      len = 1;
    }
    if (op == std::string_view::npos) {
      return Status::InvalidArgument(
          fmt::format("invalid field selector \"{}\": expected FIELD=VALUE or FIELD!=VALUE", part));
    }
    f.field = std::string(TrimWhitespace(part.substr(0, op)));
    f.value = std::string(TrimWhitespace(part.substr(op + len)));
    if (f.field != "metadata.name" && f.field != "metadata.namespace") {
      return Status::InvalidArgument(fmt::format(
          "field label not supported: {} (hop selects by metadata.name and metadata.namespace)",
          f.field));
    }
    out.push_back(std::move(f));
  }
  return out;
}

bool FieldsMatch(const std::vector<FieldRequirement>& fields, const Resource& r) {
  for (const auto& f : fields) {
    const std::string v = f.field == "metadata.name" ? r.name() : r.namespace_name();
    if ((v == f.value) != f.equals) return false;
  }
  return true;
}

// --- continue tokens: the revision of the first page and the last key served, opaque ---

std::string ContinueToken(int64_t revision, const Resource& last) {
  Json t = Json::object();
  t["rv"] = revision;
  t["ns"] = last.namespace_name();
  t["name"] = last.name();
  return Base64Encode(Dump(t));
}

struct ContinueFrom {
  int64_t revision = 0;
  std::string namespace_name;
  std::string name;
};

Result<ContinueFrom> ParseContinue(std::string_view token) {
  auto text =
      token.size() > 4096 ? Result<std::string>(Status::InvalidArgument("")) : Base64Decode(token);
  if (!text.ok()) return Status::InvalidArgument("continue key is not valid");
  Json t = Json::parse(*text, nullptr, false);
  if (!t.is_object() || !t.contains("rv") || !t["rv"].is_number_integer() ||
      !t.value("ns", Json()).is_string() || !t.value("name", Json()).is_string()) {
    return Status::InvalidArgument("continue key is not valid");
  }
  return ContinueFrom{t["rv"].get<int64_t>(), t["ns"].get<std::string>(),
                      t["name"].get<std::string>()};
}

std::string RandomSuffix() {
  static thread_local std::mt19937 random(std::random_device{}());
  constexpr std::string_view kChars = "bcdfghjklmnpqrstvwxz2456789";
  std::string s;
  for (int i = 0; i < 5; ++i) s += kChars[random() % kChars.size()];
  return s;
}

}  // namespace

KubeResponse KubeStatusResponse(int code, std::string_view reason, std::string_view message) {
  return JsonResponse(code, StatusBody(code, reason, message));
}

class KubeApi::Impl {
 public:
  Impl(store::Store& store, KubeApiOptions options)
      : store_(store),
        options_(std::move(options)),
        cache_(store, options_.watch_cache_events),
        kinds_(BuildServedKinds({})) {}

  Status Start();
  void Stop() { cache_.Stop(); }

  KubeResponse Handle(const KubeRequest& req);
  std::variant<KubeResponse, std::unique_ptr<KubeWatchStream>> OpenWatch(const KubeRequest& req);

  store::Store& store() { return store_; }
  KubeWatchCache& cache() { return cache_; }
  const KubeApiOptions& options() const { return options_; }

  // The kinds served now.
  std::shared_ptr<const ServedKinds> Kinds() const {
    std::lock_guard<std::mutex> lock(kinds_mu_);
    return kinds_;
  }

 private:
  KubeResponse Discovery(const ServedKinds& kinds, const KubeRequest& req,
                         const std::vector<std::string>& seg, bool* done);
  KubeResponse Resource(const ServedKinds& kinds, const KubeRequest& req, const Target& t);
  KubeResponse Get(const KubeRequest& req, const Target& t);
  KubeResponse List(const KubeRequest& req, const Target& t);
  KubeResponse Create(const ServedKinds& kinds, const KubeRequest& req, const Target& t);
  KubeResponse Update(const ServedKinds& kinds, const KubeRequest& req, const Target& t);
  KubeResponse Patch(const ServedKinds& kinds, const KubeRequest& req, const Target& t);
  KubeResponse Delete(const ServedKinds& kinds, const KubeRequest& req, const Target& t);

  // Parses a request body (JSON or YAML) into an object of the target's kind, checked as
  // Kubernetes checks it: apiVersion and kind, the namespace and name of the URL. A Validation
  // error is the one field error of an object with neither a name nor a generateName, for the
  // caller to answer as 422 Invalid; other errors are the request's (400).
  Result<resource::Resource> BodyObject(const KubeRequest& req, const Target& t);
  // Validates `r` as the request's fieldValidation asks and, when a CRD describes its kind, as
  // that CRD's schema says, pruning and defaulting `r` as the CRD's does; warnings go to
  // `*warnings`. The failure to answer with, if any.
  std::optional<KubeResponse> Validate(const ServedKinds& kinds, const KubeRequest& req,
                                       const KindInfo& kind, resource::Resource& r,
                                       std::vector<std::string>* warnings);
  KubeResponse Written(int code, const KubeRequest& req, const KindInfo& kind,
                       const resource::Resource& r, std::vector<std::string> warnings);
  // Deletes the objects of the kind a CRD defines along with the CRD, when hop does not know
  // that kind otherwise, as the API server does: the writes to commit.
  Result<std::vector<Write>> CrdDeletion(const ServedKinds& kinds, const resource::Resource& crd);

  // Reads the stored CRDs again: the kinds served from now on, and the status of each CRD
  // (NamesAccepted, Established) where it changed. Called at Start, after each write of a CRD
  // through the API, and for each change of a CRD the watch cache sees (a CRD written around
  // the API, by `hop apply`).
  void SyncCustomResourceDefinitions();

  store::Store& store_;
  KubeApiOptions options_;
  KubeWatchCache cache_;
  mutable std::mutex kinds_mu_;
  std::shared_ptr<const ServedKinds> kinds_;  // guarded by kinds_mu_
  std::mutex sync_mu_;                        // one SyncCustomResourceDefinitions at a time
};

// --- watch streams ---

namespace {

constexpr std::chrono::milliseconds kCoalesce{2};

// Sends a watch's events from the cache (or from the store's history while the client is
// behind the cache's window), filtered by namespace, labels and fields.
class CacheWatchStream : public KubeWatchStream {
 public:
  CacheWatchStream(KubeApi::Impl& api, std::shared_ptr<const ServedKinds> kinds,
                   const KindInfo& kind, Presentation presentation, std::string ns,
                   resource::LabelSelector labels, std::vector<FieldRequirement> fields,
                   int64_t from, std::vector<std::string> selected,
                   std::vector<std::shared_ptr<const CachedEvent>> initial, bool table,
                   std::string include, bool bookmarks, std::chrono::milliseconds duration)
      : api_(api),
        kinds_(std::move(kinds)),
        kind_(kind),
        presentation_(presentation),
        ns_(std::move(ns)),
        labels_(std::move(labels)),
        fields_(std::move(fields)),
        from_(from),
        initial_(std::move(initial)),
        table_(table),
        include_(std::move(include)),
        bookmarks_(bookmarks),
        duration_(duration),
        filtered_(!labels_.empty() || !fields_.empty()),
        shown_(std::make_move_iterator(selected.begin()), std::make_move_iterator(selected.end())) {
    for (const auto& e : initial_) {
      if (filtered_) shown_.insert(e->object.namespace_name() + "/" + e->object.name());
    }
  }

  // The media type kube-apiserver gives a JSON watch, which clients read as a stream of events.
  std::string content_type() const override { return "application/json;stream=watch"; }

  void Run(const std::function<bool(std::string_view)>& write,
           const std::atomic<bool>& stopping) override {
    const auto end = std::chrono::steady_clock::now() + duration_;
    auto last_sent = std::chrono::steady_clock::now();
    // The objects as they are, in writes of about 64 KiB.
    batch_.clear();
    for (const auto& e : initial_) {
      Send(*e, [&](std::string_view line) {
        batch_ += line;
        return true;
      });
      if (batch_.size() >= 64 * 1024) {
        if (!write(batch_)) return;
        batch_.clear();
      }
    }
    if (!batch_.empty() && !write(batch_)) return;
    initial_.clear();
    int64_t pos = from_;
    std::vector<std::shared_ptr<const CachedEvent>> events;
    std::unique_ptr<store::Watch> history;  // while behind the cache's window
    while (!stopping.load(std::memory_order_relaxed)) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= end) return;
      const auto wait =
          std::min<std::chrono::steady_clock::duration>(end - now, std::chrono::milliseconds(500));
      int64_t progress = pos;
      if (history) {
        store::Event e;
        const auto outcome =
            history->Next(std::chrono::duration_cast<std::chrono::milliseconds>(wait), &e);
        if (outcome == store::Watch::Outcome::kClosed) return;
        if (outcome == store::Watch::Outcome::kTooOld) {
          Expired(write, pos);
          return;
        }
        if (outcome == store::Watch::Outcome::kEvent) {
          pos = e.revision;
          auto cached = MakeCachedEvent(e.type, e.revision, std::move(e.object));
          if (!Send(*cached, write)) return;
          last_sent = std::chrono::steady_clock::now();
          continue;
        }
        // Caught up with the store's head: the cache's window reaches back to here again.
        pos = std::max(pos, history->Progress());
        history.reset();
        progress = pos;
      } else {
        events.clear();
        const auto outcome = api_.cache().Read(
            pos, std::chrono::duration_cast<std::chrono::milliseconds>(wait), &events, &progress);
        if (outcome == KubeWatchCache::Outcome::kStopped) return;
        if (outcome == KubeWatchCache::Outcome::kTooOld) {
          history = api_.store().StartWatch({kind_.group_kind(), ns_, pos});
          continue;
        }
        // Everything the window had goes out in one write: under load a watcher that fell
        // behind catches up in few system calls.
        batch_.clear();
        for (const auto& e : events) {
          pos = e->revision;
          if (!InScope(e->object)) continue;
          Send(*e, [&](std::string_view line) {
            batch_ += line;
            return true;
          });
        }
        if (!batch_.empty()) {
          if (!write(batch_)) return;
          last_sent = std::chrono::steady_clock::now();
          // A short pause before reading again: under a stream of changes each wake-up then
          // carries several events (one write, one wake-up, for many), at the cost of at most
          // this much latency on the ones behind the first.
          std::this_thread::sleep_for(kCoalesce);
          continue;
        }
        // Nothing of this watch's: a bookmark may still be due, also while other kinds change.
        progress = std::max(progress, pos);
      }
      if (bookmarks_ && progress > bookmarked_ &&
          std::chrono::steady_clock::now() - last_sent >= api_.options().bookmark_interval) {
        pos = std::max(pos, progress);
        if (!Bookmark(write, pos)) return;
        last_sent = std::chrono::steady_clock::now();
      }
    }
  }

 private:
  bool InScope(const Resource& r) const {
    return r.group_kind() == kind_.group_kind() && (ns_.empty() || r.namespace_name() == ns_);
  }
  bool Selected(const Resource& r) const {
    return labels_.Matches(r.labels()) && FieldsMatch(fields_, r);
  }

  // With a selector an object that comes to match is ADDED and one that stops matching is
  // DELETED, as Kubernetes sends them.
  bool Send(const CachedEvent& e, const std::function<bool(std::string_view)>& write) {
    if (!InScope(e.object)) return true;
    if (!filtered_) return Write(e, e.type, write);
    const bool selected = Selected(e.object);
    std::string key = e.object.namespace_name() + "/" + e.object.name();
    const bool shown = shown_.erase(key) > 0;
    if (e.type == store::EventType::kDeleted) {
      return (shown || selected) ? Write(e, e.type, write) : true;
    }
    if (selected) {
      shown_.insert(std::move(key));
      return Write(e, shown ? e.type : store::EventType::kAdded, write);
    }
    return shown ? Write(e, store::EventType::kDeleted, write) : true;
  }

  bool Write(const CachedEvent& e, store::EventType type,
             const std::function<bool(std::string_view)>& write) {
    if (!table_ && type == e.type && !presentation_.drop_namespace) {
      return write(e.Line(presentation_.redact));
    }
    // The cached object is redacted already when it has to be.
    Json doc = Shown(e.Object(presentation_.redact), {false, presentation_.drop_namespace});
    if (!table_) return write(WatchEventLine(store::EventTypeName(type), doc));
    Json t = Table(kind_, {std::move(doc)}, include_, e.revision, "");
    return write(WatchEventLine(store::EventTypeName(type), t));
  }

  bool Bookmark(const std::function<bool(std::string_view)>& write, int64_t revision) {
    bookmarked_ = revision;
    Json o = Json::object();
    o["kind"] = kind_.kind;
    o["apiVersion"] = kind_.api_version();
    o["metadata"] = Json::object();
    o["metadata"]["resourceVersion"] = std::to_string(revision);
    o["metadata"]["annotations"] = Json::object();
    o["metadata"]["annotations"]["k8s.io/initial-events-end"] = "true";
    return write(WatchEventLine("BOOKMARK", o));
  }

  void Expired(const std::function<bool(std::string_view)>& write, int64_t revision) {
    write(WatchEventLine(
        "ERROR", StatusBody(410, "Expired",
                            fmt::format("too old resource version: {} (the store no longer holds "
                                        "the changes after it; list again)",
                                        revision))));
  }

  KubeApi::Impl& api_;
  std::shared_ptr<const ServedKinds> kinds_;  // keeps kind_ alive
  const KindInfo& kind_;
  const Presentation presentation_;
  std::string ns_;
  resource::LabelSelector labels_;
  std::vector<FieldRequirement> fields_;
  int64_t from_;
  std::vector<std::shared_ptr<const CachedEvent>> initial_;
  bool table_;
  std::string include_;
  bool bookmarks_;
  std::chrono::milliseconds duration_;
  const bool filtered_;          // by labels or fields
  std::set<std::string> shown_;  // with a filter: NAMESPACE/NAME of the objects selected
  std::string batch_;            // the lines of one read of the cache
  int64_t bookmarked_ = 0;
};

}  // namespace

std::variant<KubeResponse, std::unique_ptr<KubeWatchStream>> KubeApi::Impl::OpenWatch(
    const KubeRequest& req) {
  const auto seg = SplitPath(req.path);
  std::shared_ptr<const ServedKinds> kinds = Kinds();
  Result<Target> t = TargetOf(*kinds, seg);
  if (!t.ok()) return KubeStatusResponse(404, "NotFound", t.status().message());
  if (!t->subresource.empty()) {
    return KubeStatusResponse(405, "MethodNotAllowed", "a subresource cannot be watched");
  }
  auto labels = resource::LabelSelector::Parse(QueryValue(req, "labelSelector"));
  if (!labels.ok()) return KubeStatusResponse(400, "BadRequest", labels.status().message());
  auto fields = ParseFieldSelector(QueryValue(req, "fieldSelector"));
  if (!fields.ok()) return KubeStatusResponse(400, "BadRequest", fields.status().message());
  // A watch on one object (`/views/NAME?watch=true`, an older form) is a watch on its name.
  if (!t->name.empty()) fields->push_back({"metadata.name", true, t->name});
  std::chrono::milliseconds duration = options_.max_watch;
  if (std::string s = QueryValue(req, "timeoutSeconds"); !s.empty()) {
    int64_t secs = 0;
    for (char c : s) {
      if (c < '0' || c > '9' || secs > 1000000) {
        return KubeStatusResponse(400, "BadRequest", "timeoutSeconds must be a whole number");
      }
      secs = secs * 10 + (c - '0');
    }
    duration = std::min<std::chrono::milliseconds>(duration, std::chrono::seconds(secs));
  }
  // Without a resourceVersion (or with "0") the watch starts with the objects as they are, as
  // ADDED events; with one, it sends what changed after it.
  const std::string rv = QueryValue(req, "resourceVersion");
  int64_t from = 0;
  std::vector<std::shared_ptr<const CachedEvent>> initial;
  if (rv.empty() || rv == "0") {
    auto list = store_.List({t->kind->group_kind(), t->namespace_name, *labels});
    if (!list.ok()) return FromStatus(list.status(), t->kind, "");
    from = list->revision;
    for (auto& r : list->items) {
      if (!FieldsMatch(*fields, r)) continue;
      initial.push_back(MakeCachedEvent(store::EventType::kAdded, list->revision, std::move(r)));
    }
  } else {
    const std::optional<int64_t> parsed = ParseRevision(rv);
    if (!parsed) {
      return KubeStatusResponse(400, "BadRequest",
                                fmt::format("invalid resourceVersion \"{}\"", rv));
    }
    from = *parsed;
    auto latest = store_.Revision();
    if (!latest.ok()) return FromStatus(latest.status(), t->kind, "");
    if (from > *latest) {
      // Kubernetes waits for a future revision; hop's revisions only grow from writes here, so
      // one from the future is a client's mistake (or another store's).
      return KubeStatusResponse(
          504, "Timeout",
          fmt::format("Too large resource version: {}, current: {}", from, *latest));
    }
  }
  // A watch with a selector sends DELETED for an object that stops matching, so it must know
  // what matches at its start: a resumed watch takes that from the store as it is now, which is
  // its revision's state unless an object changed in between (docs/kubernetes-api.md "Watch").
  std::vector<std::string> selected;
  const bool resumed = !(rv.empty() || rv == "0");
  if (resumed && (!labels->empty() || !fields->empty())) {
    auto list = store_.List({t->kind->group_kind(), t->namespace_name, *labels});
    if (!list.ok()) return FromStatus(list.status(), t->kind, "");
    for (const auto& r : list->items) {
      if (FieldsMatch(*fields, r)) selected.push_back(r.namespace_name() + "/" + r.name());
    }
  }
  std::string include = QueryValue(req, "includeObject");
  const Presentation presentation = PresentationOf(req, *t->kind);
  return std::unique_ptr<KubeWatchStream>(new CacheWatchStream(
      *this, kinds, *t->kind, presentation, t->namespace_name, std::move(*labels),
      std::move(*fields), from, std::move(selected), std::move(initial), WantsTable(req), include,
      Truthy(req.query, "allowWatchBookmarks"), duration));
}

// --- requests ---

KubeResponse KubeApi::Impl::Handle(const KubeRequest& req) {
  const auto seg = SplitPath(req.path);
  // The kinds as they are when the request comes: a CRD written meanwhile changes the next one.
  const std::shared_ptr<const ServedKinds> kinds = Kinds();
  bool done = false;
  KubeResponse discovery = Discovery(*kinds, req, seg, &done);
  if (done) return discovery;
  Result<Target> t = TargetOf(*kinds, seg);
  if (!t.ok()) return KubeStatusResponse(404, "NotFound", t.status().message());
  return Resource(*kinds, req, *t);
}

KubeResponse KubeApi::Impl::Discovery(const ServedKinds& kinds, const KubeRequest& req,
                                      const std::vector<std::string>& seg, bool* done) {
  *done = true;
  if (req.method != "GET") {
    *done = false;  // only resources take other methods
    return {};
  }
  if (seg.size() == 1 && seg[0] == "version") {
    Json v = Json::object();
    v["major"] = kApiMajor;
    v["minor"] = kApiMinor;
    v["gitVersion"] = fmt::format("v{}.{}.0+hop", kApiMajor, kApiMinor);
    v["gitCommit"] = "";
    v["gitTreeState"] = "clean";
    v["buildDate"] = "";
    v["goVersion"] = "";
    v["compiler"] = "hop";
    v["platform"] = "linux/amd64";
    return JsonResponse(200, v);
  }
  if (seg.size() == 1 && (seg[0] == "api" || seg[0] == "apis") && WantsAggregated(req)) {
    KubeResponse r = JsonResponse(200, AggregatedDiscovery(kinds, seg[0] == "api"));
    r.content_type = kAggregatedType;
    return r;
  }
  if (seg.size() == 1 && seg[0] == "api") {
    Json v = Json::object();
    v["kind"] = "APIVersions";
    v["versions"] = Json::array({"v1"});
    v["serverAddressByClientCIDRs"] = Json::array();
    return JsonResponse(200, v);
  }
  if (seg.size() == 1 && seg[0] == "apis") {
    Json list = Json::object();
    list["kind"] = "APIGroupList";
    list["apiVersion"] = "v1";
    list["groups"] = Json::array();
    for (const auto& [group, versions] : kinds.Groups()) {
      list["groups"].push_back(ApiGroup(group, versions));
    }
    return JsonResponse(200, list);
  }
  if (seg.size() == 2 && seg[0] == "api" && seg[1] == "v1") {
    return JsonResponse(200, ResourceList(kinds, "", "v1"));
  }
  if (seg.size() == 2 && seg[0] == "apis") {
    for (const auto& [group, versions] : kinds.Groups()) {
      if (group == seg[1]) {
        Json g = ApiGroup(group, versions);
        g["kind"] = "APIGroup";
        g["apiVersion"] = "v1";
        return JsonResponse(200, g);
      }
    }
    return KubeStatusResponse(404, "NotFound", "the server could not find the requested resource");
  }
  if (seg.size() == 3 && seg[0] == "apis") {
    for (const auto& [group, versions] : kinds.Groups()) {
      if (group == seg[1] &&
          std::find(versions.begin(), versions.end(), seg[2]) != versions.end()) {
        return JsonResponse(200, ResourceList(kinds, group, seg[2]));
      }
    }
    return KubeStatusResponse(404, "NotFound", "the server could not find the requested resource");
  }
  if (!seg.empty() && seg[0] == "openapi") return OpenApi(kinds, req, seg);
  *done = false;
  return {};
}

KubeResponse KubeApi::Impl::Resource(const ServedKinds& kinds, const KubeRequest& req,
                                     const Target& t) {
  // kubectl sends built-in kinds as protobuf from its imperative commands (`create configmap`);
  // hop reads JSON and YAML only.
  if (!req.body.empty() && req.content_type.find("protobuf") != std::string::npos) {
    return KubeStatusResponse(
        415, "UnsupportedMediaType",
        "hop's Kubernetes API reads JSON and YAML bodies, not protobuf: write the object to a "
        "file and use kubectl apply -f or create -f");
  }
  // An object to create or replace is read from JSON (also when no type is given) or YAML, as
  // the API server reads it; a patch's type says which patch it is (Patch).
  if (req.method == "POST" || req.method == "PUT") {
    const std::string type = MediaType(req.content_type);
    if (!type.empty() && type != "application/json" && type != "application/yaml") {
      return KubeStatusResponse(415, "UnsupportedMediaType",
                                "the body of the request was in an unknown format - accepted "
                                "media types include: application/json, application/yaml");
    }
  }
  if (!t.namespace_name.empty()) {
    if (Status s = resource::ValidateDnsLabel(t.namespace_name); !s.ok()) {
      return KubeStatusResponse(400, "BadRequest",
                                fmt::format("invalid namespace \"{}\"", t.namespace_name));
    }
  }
  if (t.kind->namespaced && t.namespace_name.empty() && req.method != "GET") {
    return KubeStatusResponse(
        405, "MethodNotAllowed",
        fmt::format("{} are namespaced: name a namespace in the URL", Qualified(*t.kind)));
  }
  const std::string dry = QueryValue(req, "dryRun");
  if (!dry.empty() && dry != "All") {
    return KubeStatusResponse(400, "BadRequest",
                              fmt::format("unsupported dry run value \"{}\" (only All)", dry));
  }
  if (req.method == "GET") return t.name.empty() ? List(req, t) : Get(req, t);
  if (req.method == "POST" && t.name.empty()) return Create(kinds, req, t);
  if (req.method == "PUT" && !t.name.empty()) return Update(kinds, req, t);
  if (req.method == "PATCH" && !t.name.empty()) return Patch(kinds, req, t);
  if (req.method == "DELETE" && !t.name.empty()) return Delete(kinds, req, t);
  return KubeStatusResponse(405, "MethodNotAllowed",
                            fmt::format("{} is not supported on this URL", req.method));
}

KubeResponse KubeApi::Impl::Get(const KubeRequest& req, const Target& t) {
  auto r = store_.Get({t.kind->group_kind(), t.namespace_name, t.name});
  if (!r.ok()) return FromStatus(r.status(), t.kind, t.name);
  Json doc = Shown(*r, PresentationOf(req, *t.kind));
  if (WantsTable(req)) {
    return JsonResponse(200, Table(*t.kind, {doc}, QueryValue(req, "includeObject"),
                                   std::stoll("0" + r->resource_version()), ""));
  }
  return JsonResponse(200, doc);
}

KubeResponse KubeApi::Impl::List(const KubeRequest& req, const Target& t) {
  auto labels = resource::LabelSelector::Parse(QueryValue(req, "labelSelector"));
  if (!labels.ok()) return KubeStatusResponse(400, "BadRequest", labels.status().message());
  auto fields = ParseFieldSelector(QueryValue(req, "fieldSelector"));
  if (!fields.ok()) return KubeStatusResponse(400, "BadRequest", fields.status().message());
  size_t limit = 0;
  if (std::string s = QueryValue(req, "limit"); !s.empty()) {
    for (char c : s) {
      if (c < '0' || c > '9' || limit > 1000000000) {
        return KubeStatusResponse(400, "BadRequest", "limit must be a whole number");
      }
      limit = limit * 10 + static_cast<size_t>(c - '0');
    }
  }
  std::optional<ContinueFrom> from;
  if (std::string c = QueryValue(req, "continue"); !c.empty()) {
    auto parsed = ParseContinue(c);
    if (!parsed.ok()) return KubeStatusResponse(400, "BadRequest", parsed.status().message());
    from = *parsed;
  }
  // A first page at least as new as a resourceVersion ("0" and none: any): one the store has not
  // reached is waited for a while (another writer may reach it), then refused.
  if (std::string rv = QueryValue(req, "resourceVersion"); !from && !rv.empty() && rv != "0") {
    const std::optional<int64_t> wanted = ParseRevision(rv);
    if (!wanted) {
      return KubeStatusResponse(400, "BadRequest",
                                fmt::format("invalid resourceVersion \"{}\"", rv));
    }
    auto latest = store_.Revision();
    if (latest.ok() && *latest < *wanted) {
      cache_.WaitFor(*wanted, kFutureRevisionWait);
      latest = store_.Revision();
    }
    if (!latest.ok()) return FromStatus(latest.status(), t.kind, "");
    if (*latest < *wanted) return TooLargeResourceVersion(*wanted, *latest);
  }
  auto list = store_.List({t.kind->group_kind(), t.namespace_name, *labels});
  if (!list.ok()) return FromStatus(list.status(), t.kind, "");
  // Later pages are read from the store as it is then, after the last key of the page before;
  // every page carries the first page's revision (docs/kubernetes-api.md "Lists").
  const int64_t revision = from ? from->revision : list->revision;
  std::vector<Json> shown;
  std::string continue_token;
  size_t taken = 0;
  const Presentation presentation = PresentationOf(req, *t.kind);
  const resource::Resource* last = nullptr;
  for (const auto& r : list->items) {
    if (from &&
        std::pair(r.namespace_name(), r.name()) <= std::pair(from->namespace_name, from->name)) {
      continue;
    }
    if (!FieldsMatch(*fields, r)) continue;
    if (limit > 0 && taken == limit) {
      continue_token = ContinueToken(revision, *last);
      break;
    }
    shown.push_back(Shown(r, presentation));
    last = &r;
    ++taken;
  }
  if (WantsTable(req)) {
    return JsonResponse(
        200, Table(*t.kind, shown, QueryValue(req, "includeObject"), revision, continue_token));
  }
  Json doc = Json::object();
  doc["apiVersion"] = t.kind->api_version();
  doc["kind"] = t.kind->kind + "List";
  doc["metadata"] = Json::object();
  doc["metadata"]["resourceVersion"] = std::to_string(revision);
  if (!continue_token.empty()) doc["metadata"]["continue"] = continue_token;
  doc["items"] = Json::array();
  for (Json& o : shown) doc["items"].push_back(std::move(o));
  return JsonResponse(200, doc);
}

Result<resource::Resource> KubeApi::Impl::BodyObject(const KubeRequest& req, const Target& t) {
  Json doc;
  if (MediaType(req.content_type) == "application/yaml") {
    HOP_ASSIGN_OR_RETURN(auto docs, ParseYamlDocuments(req.body, "the request body"));
    if (docs.size() != 1) {
      return Status::InvalidArgument("the request body must hold exactly one object");
    }
    doc = std::move(docs.front());
  } else {
    HOP_ASSIGN_OR_RETURN(doc, ParseJson(req.body, "the request body"));
  }
  if (!doc.is_object()) return Status::InvalidArgument("the request body is not an object");
  // The kind and version may be left out: the URL names them.
  if (!doc.contains("apiVersion")) doc["apiVersion"] = t.kind->api_version();
  if (!doc.contains("kind")) doc["kind"] = t.kind->kind;
  if (!doc.contains("metadata")) doc["metadata"] = Json::object();
  if (Json& md = doc["metadata"]; md.is_object() && !t.name.empty()) {
    if (!md.contains("name")) md["name"] = t.name;
  } else if (md.is_object()) {
    // A new object's name left out, null or empty is made from its generateName, as the API
    // server makes it; without either the object is invalid.
    auto empty = [](const Json& v) {
      return v.is_null() || (v.is_string() && v.get_ref<const std::string&>().empty());
    };
    if (auto name = md.find("name"); name == md.end() || empty(*name)) {
      auto prefix = md.find("generateName");
      if (prefix == md.end() || !prefix->is_string() || empty(*prefix)) {
        return Status::ValidationError(
            "metadata.name: Required value: name or generateName is required");
      }
      md["name"] = prefix->get<std::string>() + RandomSuffix();
    }
  }
  HOP_ASSIGN_OR_RETURN(auto r, resource::Resource::FromJson(std::move(doc), "the request body"));
  if (r.api_version() != t.kind->api_version() || r.kind() != t.kind->kind) {
    return Status::InvalidArgument(
        fmt::format("the object is a {} of {}, but the URL is for {} of {}", r.kind(),
                    r.api_version(), t.kind->kind, t.kind->api_version()));
  }
  if (t.kind->namespaced) {
    if (r.namespace_name().empty()) {
      r.set_namespace(t.namespace_name);
    } else if (r.namespace_name() != t.namespace_name) {
      return Status::InvalidArgument(
          "the namespace of the provided object does not match the namespace sent on the request");
    }
  } else if (!r.namespace_name().empty()) {
    return Status::InvalidArgument(fmt::format(
        "{} are cluster-scoped: the object must not name a namespace", Qualified(*t.kind)));
  }
  if (!t.name.empty() && r.name() != t.name) {
    return Status::InvalidArgument(fmt::format(
        "the name of the object ({}) does not match the name on the URL ({})", r.name(), t.name));
  }
  return r;
}

namespace {

// A field error (`spec.a: Required value`) as a metav1.StatusCause.
Json Cause(const std::string& error) {
  static constexpr std::pair<std::string_view, std::string_view> kReasons[] = {
      {"Invalid value", "FieldValueInvalid"},
      {"Required value", "FieldValueRequired"},
      {"Unsupported value", "FieldValueNotSupported"},
      {"Forbidden", "FieldValueForbidden"},
      {"Too long", "FieldValueTooLong"},
      {"Too many", "FieldValueTooMany"},
      {"Duplicate value", "FieldValueDuplicate"}};
  const size_t colon = error.find(": ");
  const std::string message = colon == std::string::npos ? error : error.substr(colon + 2);
  std::string_view reason = "FieldValueInvalid";
  for (const auto& [prefix, name] : kReasons) {
    if (message.starts_with(prefix)) reason = name;
  }
  Json c = Json::object();
  c["reason"] = reason;
  c["message"] = message;
  c["field"] = colon == std::string::npos ? "" : error.substr(0, colon);
  return c;
}

// 422 Invalid worded as the API server words it, `KIND.GROUP "NAME" is invalid: ERRORS` (the
// errors joined as resource::JoinFieldErrors joins them), with a cause for each.
KubeResponse InvalidResponse(const KindInfo& kind, const std::string& name,
                             const std::vector<std::string>& errors) {
  const std::string qualified = kind.group.empty() ? kind.kind : kind.kind + "." + kind.group;
  Json body = StatusBody(
      422, "Invalid",
      fmt::format("{} \"{}\" is invalid: {}", qualified, name, resource::JoinFieldErrors(errors)));
  Json details = Json::object();
  details["name"] = name;
  details["group"] = kind.group;
  details["kind"] = kind.kind;
  details["causes"] = Json::array();
  for (const std::string& e : errors) details["causes"].push_back(Cause(e));
  body["details"] = std::move(details);
  return JsonResponse(422, body);
}

bool IsCrd(const resource::Resource& r) {
  return r.group() == resource::kApiextensionsGroup &&
         r.kind() == resource::kCustomResourceDefinitionKind;
}

// The refusal of a write or delete whose uid precondition (`metadata.uid` of the object written,
// `preconditions.uid` of DeleteOptions) names another object than the stored one, worded as the
// API server words it (docs/kubernetes-api.md "Writing"); none when `uid` is empty or matches.
std::optional<KubeResponse> UidMismatch(const KindInfo& kind, std::string_view name,
                                        std::string_view uid, const resource::Resource& stored) {
  if (uid.empty() || uid == stored.uid()) return std::nullopt;
  return KubeStatusResponse(
      409, "Conflict",
      fmt::format("Operation cannot be fulfilled on {} \"{}\": Precondition failed: UID in "
                  "precondition: {}, UID in object meta: {}",
                  Qualified(kind), name, uid, stored.uid()));
}

// What the API server of `r`'s kind refuses of it beyond its fields' types (resource::
// ObjectErrors: a ConfigMap's keys) and, for an update of `stored` (null for a create or a write
// of the status), of the change (resource::UpdateErrors: an immutable ConfigMap's data), as one
// 422 Invalid worded as that server words it; none when it refuses nothing. The store refuses the
// same (store/store.h ValidateUpdate), dry run or not.
std::optional<KubeResponse> KindRefusal(const KindInfo& kind, const std::string& name,
                                        const resource::Resource* stored,
                                        const resource::Resource& r) {
  std::vector<std::string> errors;
  if (stored != nullptr) errors = resource::UpdateErrors(*stored, r);
  for (std::string& e : resource::ObjectErrors(r)) errors.push_back(std::move(e));
  if (errors.empty()) return std::nullopt;
  return InvalidResponse(kind, name, errors);
}

// The refusal of a delete whose preconditions (`deletion`'s uid and resourceVersion, from
// DeleteOptions) `stored` does not meet, worded as the API server words it, the uid first; none
// when it meets them.
std::optional<KubeResponse> PreconditionFailed(const KindInfo& kind, std::string_view name,
                                               const Write& deletion,
                                               const resource::Resource& stored) {
  if (auto refused = UidMismatch(kind, name, deletion.uid, stored)) return refused;
  const std::string& version = deletion.resource_version;
  if (version.empty() || version == stored.resource_version()) return std::nullopt;
  return KubeStatusResponse(
      409, "Conflict",
      fmt::format("Operation cannot be fulfilled on {} \"{}\": Precondition failed: "
                  "ResourceVersion in precondition: {}, ResourceVersion in object meta: {}",
                  Qualified(kind), name, version, stored.resource_version()));
}

// The store's refusal `s` of a write or delete it checked preconditions of: a Conflict is worded
// by `refusal` as the object the store now holds says (another writer may have deleted the object
// and made it again since the API read it), when it refuses that object; anything else is `s`.
KubeResponse StoreRefusal(
    store::Store& store, const Status& s, const ObjectRef& ref, const KindInfo& kind,
    std::string_view name,
    const std::function<std::optional<KubeResponse>(const resource::Resource&)>& refusal) {
  if (s.code() == StatusCode::kConflict) {
    if (auto now = store.Get(ref); now.ok()) {
      if (auto refused = refusal(*now)) return *refused;
    }
  }
  return FromStatus(s, &kind, name);
}

// The status the API server keeps on a write of an object (not of its status) whose kind has the
// status subresource: the stored one, or none for a new object.
void KeepStoredStatus(resource::Resource& r, const resource::Resource* stored) {
  if (stored != nullptr && stored->status() != nullptr) {
    r.set_status(*stored->status());
  } else {
    r.clear_status();
  }
}

// A write of the status subresource: the object as stored, with the status of `r`; the
// resourceVersion `r` names, if any, is the precondition.
resource::Resource WithStatusOf(const resource::Resource& stored, const resource::Resource& r) {
  resource::Resource out = stored;
  if (r.status() != nullptr) {
    out.set_status(*r.status());
  } else {
    out.clear_status();
  }
  if (!r.resource_version().empty()) out.set_resource_version(r.resource_version());
  return out;
}

}  // namespace

std::optional<KubeResponse> KubeApi::Impl::Validate(const ServedKinds& kinds,
                                                    const KubeRequest& req, const KindInfo& kind,
                                                    resource::Resource& r,
                                                    std::vector<std::string>* warnings) {
  // Kubernetes' default is Warn; kubectl asks for Strict.
  const std::string mode = QueryValue(req, "fieldValidation");
  resource::UnknownFields unknown = resource::UnknownFields::kWarn;
  if (mode == "Strict") {
    unknown = resource::UnknownFields::kReject;
  } else if (mode == "Ignore") {
    unknown = resource::UnknownFields::kAllow;
  } else if (!mode.empty() && mode != "Warn") {
    return KubeStatusResponse(
        400, "BadRequest",
        fmt::format("fieldValidation must be Strict, Warn or Ignore, not \"{}\"", mode));
  }
  Issues issues;
  resource::ValidateResource(r, &issues, {.unknown_fields = unknown, .external_fields = true});
  // hop's store client reads secrets whole, so what it writes back holds no redacted value.
  if (!req.store_client) resource::RefuseRedacted(r.json(), "", issues);
  // What the DDL checks as it binds (a View over a physical table's name), for objects written
  // as they are; hop's store client writes what its control plane bound already.
  if (!req.store_client && !issues.HasErrors()) deploy::CheckWrittenObject(store_, r, issues);
  if (Status s = issues.ToStatus(StatusCode::kValidation, "the object is invalid:"); !s.ok()) {
    return FromStatus(s, &kind, r.name());
  }
  if (issues.HasWarnings()) {
    std::string rendered = issues.Render();
    size_t i = 0;
    while (i < rendered.size()) {
      size_t j = rendered.find('\n', i);
      if (j == std::string::npos) j = rendered.size();
      std::string_view line = TrimWhitespace(std::string_view(rendered).substr(i, j - i));
      if (line.starts_with("- WARNING: ")) warnings->emplace_back(line.substr(11));
      i = j + 1;
    }
  }
  // An installed CRD checks its kind's objects as the API server does: pruned, defaulted,
  // validated against the schema of the object's version (docs/kubernetes-api.md "Custom
  // resources").
  if (const resource::InstalledCrd* crd = kinds.Crd(r.group_kind())) {
    if (const resource::CustomResourceVersion* version = crd->ServedVersion(kind.version)) {
      std::vector<std::string> errors;
      std::vector<std::string> pruned;
      version->schema->Validate(r.mutable_json(), "", &errors, &pruned);
      // hop's own validation named the unknown fields of hop's kinds already.
      if (kind.group != resource::kHopGroup && !pruned.empty() &&
          unknown != resource::UnknownFields::kAllow) {
        std::vector<std::string> named;
        for (const std::string& p : pruned) named.push_back(fmt::format("unknown field \"{}\"", p));
        if (unknown == resource::UnknownFields::kReject) {
          return KubeStatusResponse(
              400, "BadRequest",
              fmt::format(
                  "{} in version \"{}\" cannot be handled as a {}: strict decoding error: {}",
                  kind.kind, kind.version, kind.kind, Join(named, ", ")));
        }
        warnings->insert(warnings->end(), named.begin(), named.end());
      }
      if (!errors.empty()) return InvalidResponse(kind, r.name(), errors);
    }
  }
  if (IsCrd(r)) {
    const std::vector<std::string> errors = resource::CheckCustomResourceDefinition(r.json());
    if (!errors.empty()) return InvalidResponse(kind, r.name(), errors);
    if (auto read = resource::ReadCustomResourceDefinition(r.json());
        read.ok() && read->has_cel_rules) {
      warnings->push_back(
          "hop does not evaluate x-kubernetes-validations (CEL) rules: objects of this kind are "
          "not checked against them");
    }
  }
  return std::nullopt;
}

KubeResponse KubeApi::Impl::Written(int code, const KubeRequest& req, const KindInfo& kind,
                                    const resource::Resource& r,
                                    std::vector<std::string> warnings) {
  KubeResponse resp = JsonResponse(code, Shown(r, PresentationOf(req, kind)));
  resp.warnings = std::move(warnings);
  return resp;
}

KubeResponse KubeApi::Impl::Create(const ServedKinds& kinds, const KubeRequest& req,
                                   const Target& t) {
  auto r = BodyObject(req, t);
  if (!r.ok() && r.status().code() == StatusCode::kValidation) {
    return InvalidResponse(*t.kind, "", {r.status().message()});
  }
  if (!r.ok()) return FromStatus(r.status(), t.kind, "");
  if (!r->resource_version().empty()) {
    return KubeStatusResponse(400, "BadRequest",
                              "resourceVersion should not be set on objects to be created");
  }
  // A new object of a kind with the status subresource starts without a status, whatever the
  // request says, as on Kubernetes.
  if (t.kind->status_subresource) KeepStoredStatus(*r, nullptr);
  if (auto refused = KindRefusal(*t.kind, r->name(), nullptr, *r)) return *refused;
  std::vector<std::string> warnings;
  if (auto refused = Validate(kinds, req, *t.kind, *r, &warnings)) return *refused;
  if (QueryValue(req, "dryRun") == "All") {
    auto existing = store_.Find(store::RefOf(*r));
    if (!existing.ok()) return FromStatus(existing.status(), t.kind, r->name());
    if (existing->has_value()) {
      return FromStatus(Status::AlreadyExists(""), t.kind, r->name());
    }
    return Written(201, req, *t.kind, *r, std::move(warnings));
  }
  const std::string name = r->name();
  const bool crd = IsCrd(*r);
  auto created = store_.Create(std::move(*r));
  if (!created.ok()) return FromStatus(created.status(), t.kind, name);
  if (crd) SyncCustomResourceDefinitions();
  return Written(201, req, *t.kind, *created, std::move(warnings));
}

KubeResponse KubeApi::Impl::Update(const ServedKinds& kinds, const KubeRequest& req,
                                   const Target& t) {
  auto r = BodyObject(req, t);
  if (!r.ok()) return FromStatus(r.status(), t.kind, t.name);
  const store::ObjectRef ref = store::RefOf(*r);
  auto existing = store_.Get(ref);
  if (!existing.ok()) return FromStatus(existing.status(), t.kind, t.name);
  // The store keeps the stored uid whatever an update says; the API refuses one naming another,
  // and the store checks it again as it writes (Write::uid): another writer may have deleted the
  // object and made it again since this read. Its refusal is worded as the object then stored
  // says.
  const std::string uid = r->uid();
  if (auto refused = UidMismatch(*t.kind, t.name, uid, *existing)) return *refused;
  auto refused_by_store = [&](const Status& s) {
    return StoreRefusal(store_, s, ref, *t.kind, t.name, [&](const resource::Resource& now) {
      return UidMismatch(*t.kind, t.name, uid, now);
    });
  };
  if (!r->resource_version().empty() && r->resource_version() != existing->resource_version()) {
    return FromStatus(
        Status::Conflict(fmt::format("the stored resourceVersion is {}, not {}",
                                     existing->resource_version(), r->resource_version())),
        t.kind, t.name);
  }
  const bool status_only = t.subresource == "status";
  if (status_only) {
    *r = WithStatusOf(*existing, *r);
  } else if (t.kind->status_subresource) {
    KeepStoredStatus(*r, &*existing);
  }
  if (auto refused = KindRefusal(*t.kind, t.name, status_only ? nullptr : &*existing, *r)) {
    return *refused;
  }
  std::vector<std::string> warnings;
  if (auto refused = Validate(kinds, req, *t.kind, *r, &warnings)) return *refused;
  if (QueryValue(req, "dryRun") == "All")
    return Written(200, req, *t.kind, *r, std::move(warnings));
  const bool crd = IsCrd(*r);
  Result<resource::Resource> written =
      status_only ? store_.UpdateStatus(std::move(*r), uid) : store_.Update(std::move(*r), uid);
  if (!written.ok()) return refused_by_store(written.status());
  if (crd) SyncCustomResourceDefinitions();
  return Written(200, req, *t.kind, *written, std::move(warnings));
}

namespace {

// Strategic merge patch of a kind Kubernetes does not know as a built-in: hop treats it as a
// JSON merge patch after dropping the directives (`$patch`, `$setElementOrder/...`,
// `$retainKeys`, `$deleteFromPrimitiveList/...`) that only strategic merge understands
// (docs/kubernetes-api.md "Patch").
void DropDirectives(Json& patch) {
  if (!patch.is_object()) return;
  for (auto it = patch.begin(); it != patch.end();) {
    if (!it.key().empty() && it.key()[0] == '$') {
      it = patch.erase(it);
    } else {
      DropDirectives(*it);
      ++it;
    }
  }
}

// Why the operation `op` of a JSON patch cannot apply to `doc`, or empty: an add, copy, move or
// remove whose path (or a move's from) has a parent that is neither an object nor an array (a
// string, a number, a boolean, null). nlohmann's patch leaves the document as it was for those
// instead of failing, while a replace of the same path fails (docs/kubernetes-api.md "Writing").
// A malformed operation is left for the library to report.
std::string ParentIsNoContainer(const Json& doc, const Json& op) {
  if (!op.is_object()) return "";
  const std::string name = op.value("op", Json()).is_string() ? op["op"].get<std::string>() : "";
  std::vector<std::string> keys;
  if (name == "add" || name == "copy" || name == "move" || name == "remove") keys.push_back("path");
  if (name == "move") keys.push_back("from");
  for (const std::string& key : keys) {
    auto it = op.find(key);
    if (it == op.end() || !it->is_string()) continue;
    const Json::json_pointer pointer(it->get<std::string>());
    if (pointer.empty()) continue;
    const Json::json_pointer parent = pointer.parent_pointer();
    if (!doc.contains(parent)) continue;  // the library reports a missing parent
    const Json& container = doc.at(parent);
    if (container.is_object() || container.is_array()) continue;
    return fmt::format("{} operation does not apply: the {} {} is inside {}, which is a {}", name,
                       key, pointer.to_string(), parent.to_string(), container.type_name());
  }
  return "";
}

}  // namespace

KubeResponse KubeApi::Impl::Patch(const ServedKinds& kinds, const KubeRequest& req,
                                  const Target& t) {
  const std::string& type = req.content_type;
  enum class Kind { kJson, kMerge, kStrategic, kApply } kind;
  if (type.starts_with("application/json-patch+json")) {
    kind = Kind::kJson;
  } else if (type.starts_with("application/merge-patch+json")) {
    kind = Kind::kMerge;
  } else if (type.starts_with("application/strategic-merge-patch+json")) {
    kind = Kind::kStrategic;
  } else if (type.starts_with("application/apply-patch+yaml")) {
    kind = Kind::kApply;
  } else {
    return KubeStatusResponse(
        415, "UnsupportedMediaType",
        fmt::format("the body of a patch must be application/json-patch+json, "
                    "application/merge-patch+json, application/strategic-merge-patch+json or "
                    "application/apply-patch+yaml, not \"{}\"",
                    type));
  }
  // Custom resources take no strategic merge patch, as on Kubernetes (kubectl then sends a JSON
  // merge patch); the built-in kinds do.
  if (kind == Kind::kStrategic &&
      (t.kind->group == resource::kHopGroup || kinds.Crd(t.kind->group_kind()) != nullptr)) {
    return KubeStatusResponse(
        415, "UnsupportedMediaType",
        fmt::format("the body of the request was in an unknown format - accepted media types "
                    "include: application/json-patch+json, application/merge-patch+json, "
                    "application/apply-patch+yaml"));
  }
  Json patch;
  if (kind == Kind::kApply) {
    auto docs = ParseYamlDocuments(req.body, "the patch");
    if (!docs.ok()) return FromStatus(docs.status(), t.kind, t.name);
    if (docs->size() != 1 || !docs->front().is_object()) {
      return KubeStatusResponse(400, "BadRequest", "an apply patch must hold exactly one object");
    }
    patch = std::move(docs->front());
    if (QueryValue(req, "fieldManager").empty()) {
      return KubeStatusResponse(400, "BadRequest",
                                "PATCH of type application/apply-patch+yaml needs a fieldManager");
    }
  } else {
    auto parsed = ParseJson(req.body, "the patch");
    if (!parsed.ok()) return FromStatus(parsed.status(), t.kind, t.name);
    patch = std::move(*parsed);
    if (kind == Kind::kJson && !patch.is_array()) {
      return KubeStatusResponse(400, "BadRequest", "a JSON patch must be an array of operations");
    }
    if (kind != Kind::kJson && !patch.is_object()) {
      return KubeStatusResponse(400, "BadRequest", "a merge patch must be an object");
    }
    if (kind == Kind::kStrategic) DropDirectives(patch);
  }
  const ObjectRef ref{t.kind->group_kind(), t.namespace_name, t.name};
  const bool status_only = t.subresource == "status";
  // A patch applies to the object as stored (its secrets whole); a write that lost a race with
  // another writer is patched again, unless the patch itself named the version it expects.
  for (int attempt = 1;; ++attempt) {
    auto existing = store_.Find(ref);
    if (!existing.ok()) return FromStatus(existing.status(), t.kind, t.name);
    if (!existing->has_value()) {
      if (kind != Kind::kApply) return FromStatus(Status::NotFound(""), t.kind, t.name);
      // Server-side apply creates what does not exist.
      KubeRequest create = req;
      create.body = Dump(patch);
      create.content_type = "application/json";
      auto r = BodyObject(create, t);
      if (!r.ok()) return FromStatus(r.status(), t.kind, t.name);
      if (t.kind->status_subresource) KeepStoredStatus(*r, nullptr);
      if (auto refused = KindRefusal(*t.kind, t.name, nullptr, *r)) return *refused;
      std::vector<std::string> warnings;
      if (auto refused = Validate(kinds, req, *t.kind, *r, &warnings)) return *refused;
      if (QueryValue(req, "dryRun") == "All") {
        return Written(201, req, *t.kind, *r, std::move(warnings));
      }
      const bool crd = IsCrd(*r);
      auto created = store_.Create(std::move(*r));
      if (!created.ok() && created.status().code() == StatusCode::kAlreadyExists && attempt < 5) {
        continue;
      }
      if (!created.ok()) return FromStatus(created.status(), t.kind, t.name);
      if (crd) SyncCustomResourceDefinitions();
      return Written(201, req, *t.kind, *created, std::move(warnings));
    }
    Json doc = (*existing)->json();
    try {
      if (kind == Kind::kJson) {
        // One operation at a time, each checked against the document the ones before made.
        for (const Json& op : patch) {
          if (std::string refused = ParentIsNoContainer(doc, op); !refused.empty()) {
            return KubeStatusResponse(422, "Invalid",
                                      fmt::format("the patch cannot be applied: {}", refused));
          }
          doc = doc.patch(Json::array({op}));
        }
      } else {
        doc.merge_patch(patch);
      }
    } catch (const nlohmann::json::exception& e) {
      // what() starts with the library's "[json.exception.KIND.N] ".
      std::string_view what = e.what();
      if (size_t end = what.find("] "); what.starts_with("[json.") && end != what.npos) {
        what.remove_prefix(end + 2);
      }
      return KubeStatusResponse(422, "Invalid",
                                fmt::format("the patch cannot be applied: {}", what));
    }
    auto r = resource::Resource::FromJson(std::move(doc), "the patched object");
    if (!r.ok()) return KubeStatusResponse(422, "Invalid", r.status().message());
    // A cluster-scoped kind only a CRD defines is stored in the store's default namespace.
    if (ServedKinds::DefinedByCrd(*t.kind) && !t.kind->namespaced) {
      r->set_namespace((*existing)->namespace_name());
    }
    // As the body of a PUT must be of the URL's version (BodyObject), so must a patched object.
    if (r->api_version() != t.kind->api_version()) {
      return KubeStatusResponse(
          422, "Invalid",
          fmt::format("a patch cannot change an object's apiVersion: the patched object is of "
                      "{}, but the URL is for {} of {}",
                      r->api_version(), t.kind->kind, t.kind->api_version()));
    }
    if (r->group_kind() != t.kind->group_kind() || r->name() != t.name ||
        r->namespace_name() != (*existing)->namespace_name()) {
      return KubeStatusResponse(422, "Invalid",
                                "a patch cannot change an object's kind, name or namespace");
    }
    if (auto refused = UidMismatch(*t.kind, t.name, r->uid(), **existing)) return *refused;
    const bool pinned = r->resource_version() != (*existing)->resource_version();
    if (r->resource_version().empty()) r->set_resource_version((*existing)->resource_version());
    if (status_only) {
      *r = WithStatusOf(**existing, *r);
    } else if (t.kind->status_subresource) {
      KeepStoredStatus(*r, &**existing);
    }
    if (auto refused = KindRefusal(*t.kind, t.name, status_only ? nullptr : &**existing, *r)) {
      return *refused;
    }
    std::vector<std::string> warnings;
    if (auto refused = Validate(kinds, req, *t.kind, *r, &warnings)) return *refused;
    if (pinned) {
      return FromStatus(
          Status::Conflict(fmt::format("the stored resourceVersion is {}, not {}",
                                       (*existing)->resource_version(), r->resource_version())),
          t.kind, t.name);
    }
    if (QueryValue(req, "dryRun") == "All") {
      return Written(200, req, *t.kind, *r, std::move(warnings));
    }
    const bool crd = IsCrd(*r);
    Result<resource::Resource> written =
        status_only ? store_.UpdateStatus(std::move(*r)) : store_.Update(std::move(*r));
    if (!written.ok() && written.status().code() == StatusCode::kConflict && attempt < 5) continue;
    if (!written.ok()) return FromStatus(written.status(), t.kind, t.name);
    if (crd) SyncCustomResourceDefinitions();
    return Written(200, req, *t.kind, *written, std::move(warnings));
  }
}

Result<std::vector<Write>> KubeApi::Impl::CrdDeletion(const ServedKinds& kinds,
                                                      const resource::Resource& crd) {
  std::vector<Write> writes;
  auto read = resource::ReadCustomResourceDefinition(crd.json());
  if (!read.ok()) return writes;  // never served (written around the API)
  const resource::GroupKind gk{read->group, read->kind};
  // A kind hop knows stays served, with its objects; one only this CRD defined goes with them.
  if (resource::FindKind(gk) != nullptr) return writes;
  const resource::InstalledCrd* served = kinds.Crd(gk);
  if (served == nullptr || served->name != read->name) return writes;
  HOP_ASSIGN_OR_RETURN(auto objects, store_.List({gk}));
  for (const resource::Resource& o : objects.items)
    writes.push_back(Write::Delete(store::RefOf(o)));
  return writes;
}

KubeResponse KubeApi::Impl::Delete(const ServedKinds& kinds, const KubeRequest& req,
                                   const Target& t) {
  if (!t.subresource.empty()) {
    return KubeStatusResponse(405, "MethodNotAllowed", "a subresource cannot be deleted");
  }
  // DeleteOptions come in the body or the query.
  std::string policy = QueryValue(req, "propagationPolicy");
  std::string precondition = QueryValue(req, "preconditions.resourceVersion");
  std::string uid_precondition = QueryValue(req, "preconditions.uid");
  bool dry_run = QueryValue(req, "dryRun") == "All";
  if (!TrimWhitespace(req.body).empty()) {
    auto body = ParseJson(req.body, "the delete options");
    if (!body.ok()) return FromStatus(body.status(), t.kind, t.name);
    if (!body->is_object())
      return KubeStatusResponse(400, "BadRequest", "DeleteOptions must be an object");
    if (auto it = body->find("propagationPolicy"); it != body->end() && it->is_string()) {
      policy = it->get<std::string>();
    }
    if (auto it = body->find("preconditions"); it != body->end() && it->is_object()) {
      if (auto v = it->find("resourceVersion"); v != it->end() && v->is_string()) {
        precondition = v->get<std::string>();
      }
      if (auto v = it->find("uid"); v != it->end() && v->is_string()) {
        uid_precondition = v->get<std::string>();
      }
    }
    if (auto it = body->find("dryRun"); it != body->end() && it->is_array() && !it->empty()) {
      if (*it != Json::array({"All"}))
        return KubeStatusResponse(400, "BadRequest", "dryRun must be [\"All\"]");
      dry_run = true;
    }
  }
  if (!policy.empty() && policy != "Background" && policy != "Foreground" && policy != "Orphan") {
    return KubeStatusResponse(
        400, "BadRequest",
        fmt::format("propagationPolicy must be Background, Foreground or Orphan, not \"{}\"",
                    policy));
  }
  const ObjectRef ref{t.kind->group_kind(), t.namespace_name, t.name};
  const Write deletion = Write::Delete(ref, precondition, uid_precondition);
  auto existing = store_.Get(ref);
  if (!existing.ok()) return FromStatus(existing.status(), t.kind, t.name);
  if (auto refused = PreconditionFailed(*t.kind, t.name, deletion, *existing)) return *refused;
  // The store checks the preconditions again as it deletes (another writer may have deleted the
  // object and made it again since): its refusal is worded as the object it then holds says.
  auto refused_by_store = [&](const Status& s) {
    return StoreRefusal(store_, s, ref, *t.kind, t.name, [&](const resource::Resource& now) {
      return PreconditionFailed(*t.kind, t.name, deletion, now);
    });
  };
  const Presentation presentation = PresentationOf(req, *t.kind);
  // hop's store client deletes as the store does: its control plane asked the DDL guard
  // already, and a Table's table is its deployers' to drop (docs/kubernetes-api.md "hop's store
  // client"). A CRD goes with the objects of the kind only it defined.
  const bool plain = req.store_client || IsCrd(*existing);
  deploy::ExecuteOptions execute;
  execute.namespace_name =
      t.namespace_name.empty() ? std::string(resource::kDefaultNamespace) : t.namespace_name;
  execute.provisioners = options_.provisioners;
  deploy::Executor executor(store_, std::move(execute));
  if (dry_run) {
    if (!plain) {
      // The dependency guard is asked too; nothing is written or dropped.
      if (Status guard = executor.CheckDelete(ref); !guard.ok()) {
        if (guard.code() == StatusCode::kValidation) {
          return KubeStatusResponse(409, "Conflict", RedactSecrets(guard.message()));
        }
        return FromStatus(guard, t.kind, t.name);
      }
    }
    return JsonResponse(200, Shown(*existing, presentation));
  }
  // Orphan: the dependents lose their owner reference first, so the delete takes only the
  // object itself.
  if (policy == "Orphan") {
    auto all = store_.List({std::nullopt, t.namespace_name, {}});
    if (!all.ok()) return FromStatus(all.status(), t.kind, t.name);
    std::vector<Write> writes;
    for (resource::Resource& d : all->items) {
      auto owners = d.owner_references();
      const auto before = owners.size();
      std::erase_if(owners, [&](const auto& o) { return o.uid == existing->uid(); });
      if (owners.size() == before) continue;
      d.set_owner_references(owners);
      writes.push_back(Write::Update(std::move(d)));
    }
    if (!writes.empty()) {
      auto committed = store_.Commit(std::move(writes));
      if (!committed.ok()) return FromStatus(committed.status(), t.kind, t.name);
    }
  }
  std::vector<resource::Resource> gone;
  if (plain) {
    std::vector<Write> writes;
    if (IsCrd(*existing)) {
      auto objects = CrdDeletion(kinds, *existing);
      if (!objects.ok()) return FromStatus(objects.status(), t.kind, t.name);
      writes = std::move(*objects);
    }
    // The object read, which met the preconditions, and nothing that replaced it.
    writes.push_back(Write::Delete(ref, existing->resource_version(), existing->uid()));
    auto committed = store_.Commit(std::move(writes));
    if (!committed.ok()) return refused_by_store(committed.status());
    if (IsCrd(*existing)) SyncCustomResourceDefinitions();
    gone.push_back(std::move(committed->back()));
  } else {
    // Objects go as the DROP of their kind does: not while something depends on them
    // (deploy::Executor::Delete, the same guard as `hop delete`).
    auto deleted = executor.Delete(deletion, /*force=*/false);
    if (!deleted.ok()) {
      if (deleted.status().code() == StatusCode::kValidation) {
        return KubeStatusResponse(409, "Conflict", RedactSecrets(deleted.status().message()));
      }
      return refused_by_store(deleted.status());
    }
    gone = std::move(deleted->objects);
  }
  for (const resource::Resource& r : gone) {
    if (store::RefOf(r).ToString() == store::RefOf(*existing).ToString()) {
      // Still there while finalizers hold it: the object, as Kubernetes answers (202).
      if (r.deletion_timestamp() && !r.finalizers().empty()) {
        return JsonResponse(202, Shown(r, presentation));
      }
      // Gone: the store client gets the Status the API server gives, others the object.
      if (!req.store_client) return JsonResponse(200, Shown(r, presentation));
    }
  }
  Json ok = StatusBody(200, "", "");
  ok["details"] = Json::object();
  ok["details"]["name"] = t.name;
  ok["details"]["group"] = t.kind->group;
  ok["details"]["kind"] = t.kind->plural;
  ok["details"]["uid"] = existing->uid();
  return JsonResponse(200, ok);
}

Status KubeApi::Impl::Start() {
  // A CRD written around the API (by `hop apply`, another process) takes effect when the
  // watch cache sees it.
  cache_.SetObserver([this](const store::Event& e) {
    if (IsCrd(e.object)) SyncCustomResourceDefinitions();
  });
  HOP_RETURN_IF_ERROR(cache_.Start());
  SyncCustomResourceDefinitions();
  return Status::OK();
}

void KubeApi::Impl::SyncCustomResourceDefinitions() {
  std::lock_guard<std::mutex> lock(sync_mu_);
  auto list =
      store_.List({resource::GroupKind{std::string(resource::kApiextensionsGroup),
                                       std::string(resource::kCustomResourceDefinitionKind)}});
  if (!list.ok()) {
    log::Warn("kubernetes api: the CustomResourceDefinitions cannot be read: {}",
              list.status().ToString());
    return;
  }
  std::shared_ptr<const ServedKinds> kinds = BuildServedKinds(list->items);
  {
    std::lock_guard<std::mutex> kinds_lock(kinds_mu_);
    kinds_ = kinds;
  }
  // Each CRD's status says whether its kind is served, as the API server's controllers say it.
  const std::string now = FormatRfc3339(SystemClock().Now());
  for (resource::Resource& crd : list->items) {
    if (crd.deletion_timestamp()) continue;
    auto read = resource::ReadCustomResourceDefinition(crd.json());
    if (!read.ok()) continue;
    auto conflict = kinds->conflicts.find(crd.name());
    const Json previous = crd.status() != nullptr ? *crd.status() : Json();
    Json status = resource::CustomResourceDefinitionStatus(
        *read, conflict == kinds->conflicts.end() ? "" : conflict->second, previous, now);
    if (resource::SameJson(status, previous)) continue;
    const std::string name = crd.name();
    crd.set_status(std::move(status));
    auto written = store_.UpdateStatus(std::move(crd));
    // A conflict means the CRD changed again: that change brings another sync.
    if (!written.ok() && written.status().code() != StatusCode::kConflict &&
        written.status().code() != StatusCode::kNotFound) {
      log::Warn(
          "kubernetes api: the status of the CustomResourceDefinition {} cannot be written: {}",
          name, written.status().ToString());
    }
  }
}

KubeApi::KubeApi(store::Store& store, KubeApiOptions options)
    : impl_(std::make_unique<Impl>(store, std::move(options))) {}
KubeApi::~KubeApi() { impl_->Stop(); }
Status KubeApi::Start() { return impl_->Start(); }
void KubeApi::Stop() { impl_->Stop(); }
KubeResponse KubeApi::Handle(const KubeRequest& request) { return impl_->Handle(request); }
bool KubeApi::IsWatch(const KubeRequest& request) {
  return request.method == "GET" && Truthy(request.query, "watch");
}
std::variant<KubeResponse, std::unique_ptr<KubeWatchStream>> KubeApi::OpenWatch(
    const KubeRequest& request) {
  return impl_->OpenWatch(request);
}

std::string_view KubeApi::Verb(const KubeRequest& request) {
  const std::string& m = request.method;
  if (m == "POST") return "create";
  if (m == "PUT") return "update";
  if (m == "PATCH") return "patch";
  if (m == "DELETE") return "delete";
  if (m != "GET") return "other";
  if (IsWatch(request)) return "watch";
  const auto seg = SplitPath(request.path);
  if (!seg.empty() && seg[0] == "openapi") return "openapi";
  // The segments after /api/v1 or /apis/GROUP/VERSION, whatever kinds are served.
  size_t rest = 0;
  if (seg.size() >= 3 && seg[0] == "api" && seg[1] == "v1") {
    rest = 2;
  } else if (seg.size() >= 4 && seg[0] == "apis") {
    rest = 3;
  } else {
    return "discovery";
  }
  size_t n = seg.size() - rest;
  // `namespaces/NS/PLURAL...`, except the Namespace kind's own `namespaces/NAME[/status]`.
  if (n >= 3 && seg[rest] == "namespaces" &&
      !(rest == 2 && n == 3 && (seg.back() == "status" || seg.back() == "finalize"))) {
    n -= 2;
  }
  return n == 1 ? "list" : "get";
}

}  // namespace hop::server
