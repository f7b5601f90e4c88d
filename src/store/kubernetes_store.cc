// KubernetesStore over the REST API (docs/store.md, "On Kubernetes"): paths are built from each
// kind's group, version and plural (hop's own kinds table first, the server's discovery for the
// rest), bodies are JSON, and each Kubernetes answer maps to one of the store's error codes.
#include "store/kubernetes_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/log.h"
#include "common/redact.h"
#include "common/strings.h"
#include "resource/json_parse.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "resource/yaml.h"

namespace hop::store {

namespace {

using resource::KindInfo;

// What a namespace and a name must be before they go into a request's path: a namespace is a
// DNS-1123 label, and a name a path segment, as the API server takes it ("." and ".." and names
// holding '/' or '%' would address something else). InvalidArgument naming the value otherwise.
Status CheckPathParts(std::string_view ns, std::string_view name) {
  if (!ns.empty()) {
    if (Status s = resource::ValidateDnsLabel(ns); !s.ok()) {
      return Status::InvalidArgument("namespace: " + s.message());
    }
  }
  if (name == "." || name == ".." || name.find_first_of("/%") != std::string_view::npos) {
    return Status::InvalidArgument(
        fmt::format("invalid name \"{}\": a name in the Kubernetes API is not \".\" or \"..\" and "
                    "holds no '/' or '%'",
                    name));
  }
  return Status::OK();
}

// How a kind is addressed on the API server.
struct ApiResource {
  std::string group;
  std::string version;
  std::string kind;
  std::string plural;
  bool namespaced = true;
  bool status_subresource = false;

  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  // "/api/v1" or "/apis/GROUP/VERSION"
  std::string prefix() const {
    return group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  }
  std::string Collection(std::string_view ns) const {
    std::string path = prefix();
    if (namespaced && !ns.empty()) path += "/namespaces/" + UrlEscape(ns);
    path += "/" + plural;
    return path;
  }
  std::string Item(std::string_view ns, std::string_view name,
                   std::string_view subresource = "") const {
    std::string path = Collection(ns) + "/" + UrlEscape(name);
    if (!subresource.empty()) path += "/" + std::string(subresource);
    return path;
  }
};

ApiResource FromKindInfo(const KindInfo& k) {
  return {k.group, k.version, k.kind, k.plural, k.namespaced, k.status_subresource};
}

Result<Json> ParseBody(const std::string& body, std::string_view what) {
  if (std::optional<Json> fast = resource::FastParseJson(body)) return std::move(*fast);
  return ParseJson(body, what);
}

int64_t RevisionOf(std::string_view rv) {
  int64_t out = 0;
  for (char c : rv) {
    if (c < '0' || c > '9') return -1;
    if (out > (INT64_MAX - 9) / 10) return -1;
    out = out * 10 + (c - '0');
  }
  return rv.empty() ? -1 : out;
}

// The message of a metav1.Status body, or the body itself (cut) when it is not one.
struct ApiError {
  long code = 0;
  std::string reason;
  std::string message;
};

ApiError ErrorOf(const KubeHttpResponse& response) {
  ApiError e;
  e.code = response.status;
  std::optional<Json> body = resource::FastParseJson(response.body);
  if (body && body->is_object()) {
    e.reason = body->value("reason", "");
    e.message = body->value("message", "");
  }
  if (e.message.empty()) {
    e.message = std::string(TrimWhitespace(std::string_view(response.body).substr(0, 500)));
  }
  if (e.message.empty()) e.message = fmt::format("HTTP {}", response.status);
  e.message = RedactSecrets(e.message);
  return e;
}

// The store's error for an answer that is not a success; `what` names the object.
Status StatusOf(const KubeHttpResponse& response, const std::string& what) {
  const ApiError e = ErrorOf(response);
  switch (e.code) {
    case 400: return Status::InvalidArgument(e.message);
    case 401:
      return Status::InvalidArgument(
          fmt::format("the Kubernetes API does not accept hop's credentials: {}", e.message));
    case 403:
      return Status::InvalidArgument(fmt::format("the Kubernetes API forbids it: {}", e.message));
    case 404: return Status::NotFound(fmt::format("{} not found", what));
    case 409:
      if (e.reason == "AlreadyExists") {
        return Status::AlreadyExists(fmt::format("{} already exists", what));
      }
      return Status::Conflict(fmt::format("{}: {}", what, e.message));
    case 410: return Status::Unavailable(fmt::format("{}: {}", what, e.message));
    case 413: return Status::InvalidArgument(fmt::format("{}: {}", what, e.message));
    case 422: return Status::ValidationError(fmt::format("{} is invalid: {}", what, e.message));
    default: break;
  }
  if (e.code >= 500 || e.code == 429) {
    return Status::Unavailable(
        fmt::format("the Kubernetes API failed ({}): {}", e.code, e.message));
  }
  return Status::Internal(fmt::format("the Kubernetes API answered {}: {}", e.code, e.message));
}

bool Success(long status) { return status >= 200 && status < 300; }

// Fills in apiVersion and kind, which list items of built-in kinds leave out.
Result<Resource> AsResource(Json doc, const ApiResource& api) {
  if (!doc.is_object())
    return Status::Internal("the Kubernetes API sent an object that is not one");
  if (!doc.contains("apiVersion")) doc["apiVersion"] = api.api_version();
  if (!doc.contains("kind")) doc["kind"] = api.kind;
  return Resource::FromJson(std::move(doc), api.kind);
}

// What a written object is sent as: without the fields only the server sets on create.
std::string CreateBody(const Resource& r) {
  Json doc = r.json();
  if (auto md = doc.find("metadata"); md != doc.end() && md->is_object()) {
    for (const char* key : {"uid", "resourceVersion", "creationTimestamp", "deletionTimestamp",
                            "generation", "managedFields"}) {
      md->erase(key);
    }
  }
  return doc.dump();
}

std::string Verb(std::string_view method, bool item) {
  if (method == "GET") return item ? "get" : "list";
  if (method == "POST") return "create";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return "delete";
  return std::string(method);
}

}  // namespace

class KubernetesStore::Impl {
 public:
  Impl(std::unique_ptr<KubeClient> client, KubernetesStoreOptions options)
      : client_(std::move(client)), options_(std::move(options)) {}

  KubeClient& client() { return *client_; }
  const KubernetesStoreOptions& options() const { return options_; }

  // A request about `api`, recorded for RBAC.
  Result<KubeHttpResponse> Send(std::string_view method, const ApiResource& api, bool item,
                                std::string_view subresource, const std::string& target,
                                std::string_view body = {}) {
    if (options_.on_request) {
      options_.on_request(Verb(method, item), api.group, api.plural, subresource);
    }
    log::Debug("kubernetes: {} {}", method, target);
    return client_->Request(method, target, body);
  }

  void RecordWatch(const ApiResource& api) {
    if (options_.on_request) options_.on_request("watch", api.group, api.plural, "");
  }

  // How `kind` is addressed: hop's kinds table, else the server's discovery (cached). `version`,
  // when given (an object's apiVersion), is the one used.
  Result<ApiResource> Resolve(const GroupKind& kind, std::string_view version = "") {
    if (const KindInfo* info = resource::FindKind(kind)) {
      ApiResource api = FromKindInfo(*info);
      if (!version.empty()) api.version = std::string(version);
      return api;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = discovered_.find(kind);
      if (it != discovered_.end() && (version.empty() || it->second.version == version)) {
        return it->second;
      }
    }
    HOP_ASSIGN_OR_RETURN(ApiResource api, Discover(kind, version));
    std::lock_guard<std::mutex> lock(mu_);
    discovered_[kind] = api;
    return api;
  }

  // The plural, scope and status subresource of a kind hop does not know, from the server.
  Result<ApiResource> Discover(const GroupKind& kind, std::string_view version) {
    std::string v(version);
    const std::string not_served = fmt::format(
        "the Kubernetes API at {} serves no kind {} (are its CRDs installed? `hop "
        "manifests | kubectl apply -f -` installs hop's)",
        client_->server(), kind.ToString());
    if (v.empty()) {
      if (kind.group.empty()) {
        v = "v1";
      } else {
        HOP_ASSIGN_OR_RETURN(KubeHttpResponse r, client_->Request("GET", "/apis/" + kind.group));
        if (r.status == 404) return Status::InvalidArgument(not_served);
        if (!Success(r.status)) return StatusOf(r, "API group " + kind.group);
        HOP_ASSIGN_OR_RETURN(Json doc, ParseBody(r.body, "API group " + kind.group));
        const Json* preferred = doc.is_object() && doc.contains("preferredVersion")
                                    ? &doc["preferredVersion"]
                                    : nullptr;
        if (preferred == nullptr || !preferred->is_object() ||
            !preferred->value("version", "").size()) {
          return Status::InvalidArgument(not_served);
        }
        v = (*preferred)["version"].get<std::string>();
      }
    }
    ApiResource api;
    api.group = kind.group;
    api.version = v;
    api.kind = kind.kind;
    HOP_ASSIGN_OR_RETURN(KubeHttpResponse r, client_->Request("GET", api.prefix()));
    if (r.status == 404) return Status::InvalidArgument(not_served);
    if (!Success(r.status)) return StatusOf(r, "API " + api.api_version());
    HOP_ASSIGN_OR_RETURN(Json doc, ParseBody(r.body, "API " + api.api_version()));
    auto resources = doc.is_object() ? doc.find("resources") : doc.end();
    if (!doc.is_object() || resources == doc.end() || !resources->is_array()) {
      return Status::InvalidArgument(not_served);
    }
    std::string plural;
    for (const Json& res : *resources) {
      if (!res.is_object() || res.value("kind", "") != kind.kind) continue;
      const std::string name = res.value("name", "");
      if (name.find('/') == std::string::npos) {
        plural = name;
        api.namespaced = res.value("namespaced", true);
      }
    }
    if (plural.empty()) return Status::InvalidArgument(not_served);
    api.plural = plural;
    for (const Json& res : *resources) {
      if (res.is_object() && res.value("name", "") == plural + "/status") {
        api.status_subresource = true;
      }
    }
    return api;
  }

  Result<ApiResource> ResolveObject(const Resource& r) {
    const std::string av = r.api_version();
    const size_t slash = av.find('/');
    return Resolve(r.group_kind(), slash == std::string::npos ? av : av.substr(slash + 1));
  }

  // The namespace an object is written to: "default" for a namespaced kind that names none.
  static void NormalizeNamespace(Resource* r, const ApiResource& api) {
    if (!api.namespaced) {
      if (!r->namespace_name().empty()) r->mutable_json()["metadata"].erase("namespace");
    } else if (r->namespace_name().empty()) {
      r->set_namespace(resource::kDefaultNamespace);
    }
  }

  static std::string NamespaceOf(const ObjectRef& ref, const ApiResource& api) {
    if (!api.namespaced) return "";
    return ref.namespace_name.empty() ? std::string(resource::kDefaultNamespace)
                                      : ref.namespace_name;
  }

  Result<Resource> Get(const ObjectRef& ref) {
    HOP_RETURN_IF_ERROR(CheckPathParts(ref.namespace_name, ref.name));
    HOP_ASSIGN_OR_RETURN(ApiResource api, Resolve(ref.kind));
    const std::string ns = NamespaceOf(ref, api);
    HOP_ASSIGN_OR_RETURN(KubeHttpResponse r, Send("GET", api, true, "", api.Item(ns, ref.name)));
    ObjectRef named = ref;
    named.namespace_name = ns;
    if (!Success(r.status)) return StatusOf(r, named.ToString());
    HOP_ASSIGN_OR_RETURN(Json doc, ParseBody(r.body, named.ToString()));
    return AsResource(std::move(doc), api);
  }

  // One kind's objects, page by page, each handed to `visit`. `restartable`: a page whose
  // continue token expired starts the list again (the caller holds nothing yet).
  Result<int64_t> ListKind(const ApiResource& api, const ListOptions& options,
                           const std::function<void(Resource)>& visit) {
    std::string base = api.Collection(options.namespace_name) + "?limit=500";
    if (!options.selector.empty())
      base += "&labelSelector=" + UrlEscape(options.selector.ToString());
    int64_t revision = -1;
    std::string cont;
    for (;;) {
      const std::string target = cont.empty() ? base : base + "&continue=" + UrlEscape(cont);
      HOP_ASSIGN_OR_RETURN(KubeHttpResponse r, Send("GET", api, false, "", target));
      if (r.status == 404 && cont.empty()) {
        // The kind is not served (its CRD is not installed): it has no objects.
        if (revision < 0) {
          HOP_ASSIGN_OR_RETURN(revision, CurrentRevision());
        }
        return revision;
      }
      if (r.status == 410 && !cont.empty()) {
        return Status::Unavailable(fmt::format(
            "listing {} took longer than the Kubernetes API keeps its snapshot; try again",
            api.plural));
      }
      if (!Success(r.status)) return StatusOf(r, api.plural);
      HOP_ASSIGN_OR_RETURN(Json doc, ParseBody(r.body, api.plural));
      if (!doc.is_object())
        return Status::Internal("the Kubernetes API sent a list that is not one");
      const Json& md = doc.contains("metadata") ? doc["metadata"] : Json::object();
      if (revision < 0)
        revision = RevisionOf(md.is_object() ? md.value("resourceVersion", "") : "");
      if (auto items = doc.find("items"); items != doc.end() && items->is_array()) {
        for (Json& item : *items) {
          HOP_ASSIGN_OR_RETURN(Resource res, AsResource(std::move(item), api));
          if (!HasIndexKey(res, options.index_key)) continue;
          visit(std::move(res));
        }
      }
      cont = md.is_object() ? md.value("continue", "") : "";
      if (cont.empty()) break;
    }
    return std::max<int64_t>(revision, 0);
  }

  // Every kind a list without a kind reads: hop's and the ones hop knows of, in the order of
  // their group and kind.
  static std::vector<const KindInfo*> AllKinds() {
    std::vector<const KindInfo*> kinds;
    for (const auto* list : {&resource::HopKinds(), &resource::ExternalKinds()}) {
      kinds.insert(kinds.end(), list->begin(), list->end());
    }
    std::sort(kinds.begin(), kinds.end(), [](const KindInfo* a, const KindInfo* b) {
      return a->group_kind() < b->group_kind();
    });
    return kinds;
  }

  Result<int64_t> ListEach(const ListOptions& options, const std::function<void(Resource)>& visit) {
    HOP_RETURN_IF_ERROR(CheckPathParts(options.namespace_name, ""));
    if (options.kind) {
      HOP_ASSIGN_OR_RETURN(ApiResource api, Resolve(*options.kind));
      if (!api.namespaced && !options.namespace_name.empty()) return int64_t{0};
      return ListKind(api, options, visit);
    }
    int64_t revision = -1;
    for (const KindInfo* k : AllKinds()) {
      if (!k->namespaced && !options.namespace_name.empty()) continue;
      HOP_ASSIGN_OR_RETURN(int64_t r, ListKind(FromKindInfo(*k), options, visit));
      if (revision < 0) revision = r;
    }
    return std::max<int64_t>(revision, 0);
  }

  // The cluster's revision: that of a list of one object of a kind every hop installation has.
  Result<int64_t> CurrentRevision() {
    const ApiResource api = FromKindInfo(resource::DatabaseKind::Info());
    HOP_ASSIGN_OR_RETURN(KubeHttpResponse r,
                         Send("GET", api, false, "", api.Collection("default") + "?limit=1"));
    if (r.status == 404) {
      return Status::Unavailable(fmt::format(
          "the Kubernetes API at {} does not serve hop's kinds: install the CRDs first (`hop "
          "manifests | kubectl apply -f -`)",
          client_->server()));
    }
    if (!Success(r.status)) return StatusOf(r, "databases");
    HOP_ASSIGN_OR_RETURN(Json doc, ParseBody(r.body, "databases"));
    const int64_t revision =
        doc.is_object() && doc.contains("metadata") && doc["metadata"].is_object()
            ? RevisionOf(doc["metadata"].value("resourceVersion", ""))
            : -1;
    if (revision < 0) return Status::Internal("the Kubernetes API sent a list without a revision");
    return revision;
  }

  // A 404 for a collection: its namespace does not exist (Kubernetes wants namespaces made
  // first), or its kind is not served (its CRD is not installed).
  Status CollectionMissing(const KubeHttpResponse& resp, const ApiResource& api,
                           const std::string& ns) {
    std::optional<Json> body = resource::FastParseJson(resp.body);
    if (body && body->is_object() && body->contains("details") && (*body)["details"].is_object() &&
        (*body)["details"].value("kind", "") == "namespaces") {
      return Status::InvalidArgument(fmt::format(
          "namespace {} does not exist on the Kubernetes cluster at {}: create it first "
          "(kubectl create namespace {})",
          ns, client_->server(), ns));
    }
    return Status::InvalidArgument(fmt::format(
        "the Kubernetes API at {} serves no kind {} (are its CRDs installed? `hop manifests | "
        "kubectl apply -f -` installs hop's)",
        client_->server(), GroupKind{api.group, api.kind}.ToString()));
  }

  // A PUT of `object` to `target`. Without a resourceVersion it is unconditional, as the store
  // promises, which Kubernetes refuses for custom resources: the stored version is read and
  // named, again if another writer came in between.
  Result<Resource> Put(const ApiResource& api, std::string_view subresource, Resource object) {
    const std::string what = RefOf(object).ToString();
    const std::string target = api.Item(object.namespace_name(), object.name(), subresource);
    const bool unconditional = object.resource_version().empty();
    for (int attempt = 0;; ++attempt) {
      if (unconditional) {
        HOP_ASSIGN_OR_RETURN(Resource stored, Get(RefOf(object)));
        // The server checks metadata.uid as a precondition too: a 409 for it is no race to retry.
        HOP_RETURN_IF_ERROR(CheckUidPrecondition(RefOf(object), object.uid(), stored.uid()));
        object.set_resource_version(stored.resource_version());
      }
      HOP_ASSIGN_OR_RETURN(KubeHttpResponse resp,
                           Send("PUT", api, true, subresource, target, object.json().dump()));
      if (resp.status == 409 && unconditional && attempt < 5) continue;
      if (!Success(resp.status)) return StatusOf(resp, what);
      return Decode(resp, api, what);
    }
  }

  // --- Commit ---

  // What a write did, to be undone if a later write of its batch fails.
  struct Applied {
    Write::Op op;
    ApiResource api;
    std::optional<Resource> before;
    Resource after;
  };

  Status ResolveOwners(Resource* r, const std::vector<Resource>& earlier) {
    auto owners = r->owner_references();
    bool changed = false;
    for (auto& o : owners) {
      if (!o.uid.empty()) continue;
      const GroupKind gk{resource::GroupOf(o.api_version), o.kind};
      for (const Resource& e : earlier) {
        if (e.group_kind() == gk && e.name() == o.name &&
            e.namespace_name() == r->namespace_name()) {
          o.uid = e.uid();
        }
      }
      if (o.uid.empty()) {
        auto owner = Get({gk, r->namespace_name(), o.name});
        if (!owner.ok()) {
          if (owner.status().code() != StatusCode::kNotFound) return owner.status();
          return Status::InvalidArgument(
              fmt::format("{}: its owner {}/{} does not exist in namespace {}",
                          RefOf(*r).ToString(), o.kind, o.name, r->namespace_name()));
        }
        o.uid = owner->uid();
      }
      changed = true;
    }
    if (changed) r->set_owner_references(owners);
    return Status::OK();
  }

  Result<Resource> Decode(const KubeHttpResponse& r, const ApiResource& api,
                          const std::string& what) {
    HOP_ASSIGN_OR_RETURN(Json doc, ParseBody(r.body, what));
    return AsResource(std::move(doc), api);
  }

  // `uid`: the write's uid precondition (Write::uid), if any.
  Result<Resource> PutStatus(const ApiResource& api, Resource object, const std::string& uid = {}) {
    const std::string what = RefOf(object).ToString();
    if (!uid.empty()) object.set_uid(uid);
    if (api.status_subresource) return Put(api, "status", object);
    // A kind without a status subresource: its status goes with the object, so the rest is what
    // is stored now (and the PUT is of its resourceVersion).
    HOP_ASSIGN_OR_RETURN(Resource stored, Get(RefOf(object)));
    HOP_RETURN_IF_ERROR(CheckUidPrecondition(RefOf(object), uid, stored.uid()));
    if (!object.resource_version().empty() &&
        object.resource_version() != stored.resource_version()) {
      return Status::Conflict(fmt::format(
          "{}: the object has been modified (resourceVersion {} is not {}); read it again", what,
          stored.resource_version(), object.resource_version()));
    }
    if (const Json* status = object.status()) {
      stored.set_status(*status);
    } else {
      stored.clear_status();
    }
    return Put(api, "", std::move(stored));
  }

  Result<Resource> Apply(Write& w, const ApiResource& api, const std::vector<Resource>& earlier,
                         bool keep_before, std::optional<Resource>* before) {
    switch (w.op) {
      case Write::Op::kCreate: {
        Resource& r = w.object;
        HOP_RETURN_IF_ERROR(ResolveOwners(&r, earlier));
        const std::string what = RefOf(r).ToString();
        HOP_ASSIGN_OR_RETURN(
            KubeHttpResponse resp,
            Send("POST", api, false, "", api.Collection(r.namespace_name()), CreateBody(r)));
        if (resp.status == 404) return CollectionMissing(resp, api, r.namespace_name());
        if (!Success(resp.status)) return StatusOf(resp, what);
        HOP_ASSIGN_OR_RETURN(Resource created, Decode(resp, api, what));
        // Kubernetes drops the status of a kind with a status subresource on create; the store
        // keeps it, so it is written next.
        const Json* status = r.status();
        if (api.status_subresource && status != nullptr && !status->empty() &&
            (created.status() == nullptr || !resource::SameJson(*created.status(), *status))) {
          Resource with = created;
          with.set_status(*status);
          return PutStatus(api, with);
        }
        return created;
      }
      case Write::Op::kUpdate: {
        Resource& r = w.object;
        HOP_RETURN_IF_ERROR(ResolveOwners(&r, earlier));
        if (keep_before) {
          HOP_ASSIGN_OR_RETURN(*before, Get(RefOf(r)));
        }
        // The uid precondition goes as metadata.uid, which the API server checks as it updates.
        if (!w.uid.empty()) r.set_uid(w.uid);
        return Put(api, "", r);
      }
      case Write::Op::kUpdateStatus: {
        if (keep_before) {
          HOP_ASSIGN_OR_RETURN(*before, Get(RefOf(w.object)));
        }
        return PutStatus(api, w.object, w.uid);
      }
      case Write::Op::kDelete: {
        const std::string ns = NamespaceOf(w.ref, api);
        ObjectRef ref = w.ref;
        ref.namespace_name = ns;
        HOP_ASSIGN_OR_RETURN(Resource existing, Get(ref));
        Write checked = w;
        checked.ref = ref;
        HOP_RETURN_IF_ERROR(
            CheckDeletePreconditions(checked, existing.uid(), existing.resource_version()));
        Json options = {{"apiVersion", "v1"},
                        {"kind", "DeleteOptions"},
                        {"propagationPolicy", "Background"},
                        {"preconditions", {{"uid", existing.uid()}}}};
        if (!w.resource_version.empty()) {
          options["preconditions"]["resourceVersion"] = w.resource_version;
        }
        HOP_ASSIGN_OR_RETURN(KubeHttpResponse resp, Send("DELETE", api, true, "",
                                                         api.Item(ns, w.ref.name), options.dump()));
        if (!Success(resp.status)) {
          // A precondition that failed is a change made by another writer.
          if (resp.status == 409) {
            return Status::Conflict(
                fmt::format("{}: the object has been modified; read it again ({})", ref.ToString(),
                            ErrorOf(resp).message));
          }
          return StatusOf(resp, ref.ToString());
        }
        // The object as marked for deletion (finalizers hold it), or as it was.
        auto doc = resource::FastParseJson(resp.body);
        if (doc && doc->is_object() && doc->value("kind", "") == api.kind) {
          auto marked = AsResource(std::move(*doc), api);
          if (marked.ok()) return marked;
        }
        return existing;
      }
    }
    return Status::Internal("unknown write");
  }

  // Puts back what `a` changed, if nobody changed it since.
  void Undo(const Applied& a) {
    const std::string what = RefOf(a.after).ToString();
    Status undone;
    switch (a.op) {
      case Write::Op::kCreate: {
        if (a.api.group == "batch" && a.api.kind == "Job") {
          // A Job may have started already: deleting it would not undo its run. It is left for
          // whoever made it, which finds it (op::UnrecordedRunJob).
          log::Info("kubernetes: the batch failed after creating {}, which is left", what);
          return;
        }
        Json options = {
            {"apiVersion", "v1"},
            {"kind", "DeleteOptions"},
            {"propagationPolicy", "Background"},
            {"preconditions",
             {{"uid", a.after.uid()}, {"resourceVersion", a.after.resource_version()}}}};
        auto r = Send("DELETE", a.api, true, "",
                      a.api.Item(a.after.namespace_name(), a.after.name()), options.dump());
        undone = !r.ok() ? r.status() : Success(r->status) ? Status::OK() : StatusOf(*r, what);
        break;
      }
      case Write::Op::kUpdate:
      case Write::Op::kUpdateStatus: {
        if (!a.before) return;
        Resource back = *a.before;
        back.set_resource_version(a.after.resource_version());
        if (a.op == Write::Op::kUpdateStatus) {
          undone = PutStatus(a.api, back).status();
        } else {
          auto r = Send("PUT", a.api, true, "", a.api.Item(back.namespace_name(), back.name()),
                        back.json().dump());
          undone = !r.ok() ? r.status() : Success(r->status) ? Status::OK() : StatusOf(*r, what);
        }
        break;
      }
      case Write::Op::kDelete:
        log::Warn("kubernetes: the batch failed after deleting {}, which cannot be undone", what);
        return;
    }
    if (!undone.ok()) {
      log::Warn("kubernetes: the batch failed and {} could not be put back: {}", what,
                undone.ToString());
    }
  }

  Result<std::vector<Resource>> Commit(std::vector<Write> writes) {
    // Everything that can be checked before writing is checked for the whole batch first.
    std::vector<ApiResource> apis;
    apis.reserve(writes.size());
    for (Write& w : writes) {
      if (w.op == Write::Op::kDelete) {
        HOP_RETURN_IF_ERROR(CheckPathParts(w.ref.namespace_name, w.ref.name));
        HOP_ASSIGN_OR_RETURN(ApiResource api, Resolve(w.ref.kind));
        apis.push_back(std::move(api));
        continue;
      }
      if (w.object.name().empty()) return Status::InvalidArgument("metadata.name is required");
      HOP_ASSIGN_OR_RETURN(ApiResource api, ResolveObject(w.object));
      NormalizeNamespace(&w.object, api);
      if (w.op != Write::Op::kUpdateStatus) HOP_RETURN_IF_ERROR(ValidateObject(w.object));
      HOP_RETURN_IF_ERROR(CheckPathParts(w.object.namespace_name(), w.object.name()));
      apis.push_back(std::move(api));
    }
    const bool undoable = writes.size() > 1;
    std::vector<Resource> results;
    std::vector<Applied> applied;
    for (size_t i = 0; i < writes.size(); ++i) {
      std::optional<Resource> before;
      auto done = Apply(writes[i], apis[i], results, undoable, &before);
      if (!done.ok()) {
        for (auto it = applied.rbegin(); it != applied.rend(); ++it) Undo(*it);
        return done.status();
      }
      if (undoable) applied.push_back({writes[i].op, apis[i], std::move(before), *done});
      results.push_back(std::move(done).value());
    }
    return results;
  }

 private:
  std::unique_ptr<KubeClient> client_;
  KubernetesStoreOptions options_;
  std::mutex mu_;
  std::map<GroupKind, ApiResource> discovered_;
};

namespace {

// A watch of one kind: a thread reads the API server's watch stream into a queue, and opens it
// again from the last revision it saw when the server ends it or the connection breaks, so that
// a watcher sees every event once across restarts of the server.
class KubeWatch : public Watch {
 public:
  KubeWatch(KubernetesStore::Impl* store, Result<ApiResource> api, std::string ns, int64_t from,
            std::chrono::seconds timeout)
      : store_(store), ns_(std::move(ns)), revision_(from), timeout_(timeout), progress_(from) {
    if (!api.ok()) {
      log::Warn("kubernetes: cannot watch: {}", api.status().ToString());
      closed_ = true;
      return;
    }
    api_ = std::move(api).value();
    // From 0, the store's whole history: the API server sends every object as it is now (ADDED,
    // in no order of revisions), then the changes. Such a stream cannot be resumed where it
    // broke (what it had still to send is unknown): its end is kTooOld, and the caller lists.
    from_start_ = from <= 0;
    revision_ = std::max<int64_t>(from, 0);
    thread_ = std::thread([this] { Loop(); });
  }

  ~KubeWatch() override {
    Close();
    if (thread_.joinable()) thread_.join();
  }

  Outcome Next(std::chrono::milliseconds timeout, Event* event) override {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      while (!queue_.empty()) {
        Item item = std::move(queue_.front());
        queue_.pop_front();
        progress_ = std::max(progress_, item.revision);
        if (item.bookmark) continue;
        *event = std::move(item.event);
        return Outcome::kEvent;
      }
      if (too_old_) return Outcome::kTooOld;
      if (closed_) return Outcome::kClosed;
      if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && queue_.empty()) {
        if (too_old_) return Outcome::kTooOld;
        return closed_ ? Outcome::kClosed : Outcome::kTimeout;
      }
    }
  }

  int64_t Progress() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return progress_;
  }

  void Close() override {
    std::unique_ptr<KubeClient::Stream>* stream = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
      stream = &stream_;
      if (*stream) (*stream)->Cancel();
    }
    cv_.notify_all();
  }

 private:
  struct Item {
    bool bookmark = false;
    int64_t revision = 0;
    Event event;
  };

  bool Closed() {
    std::lock_guard<std::mutex> lock(mu_);
    return closed_;
  }

  // Waits `d` unless the watch is closed first.
  void Pause(std::chrono::milliseconds d) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, d, [this] { return closed_; });
  }

  void Loop() {
    std::chrono::milliseconds backoff(100);
    while (!Closed()) {
      const std::string target =
          api_.Collection(ns_) +
          fmt::format("?watch=true&allowWatchBookmarks=true&resourceVersion={}&timeoutSeconds={}",
                      revision_, timeout_.count());
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (closed_) break;
        stream_ = store_->client().OpenStream(target);
      }
      store_->RecordWatch(api_);
      bool expired = false;
      bool progressed = false;
      std::string error;
      const auto opened = std::chrono::steady_clock::now();
      auto status = stream_->Run(
          [&](std::string_view line) { return OnLine(line, &expired, &progressed, &error); });
      {
        std::lock_guard<std::mutex> lock(mu_);
        stream_.reset();
      }
      if (Closed()) break;
      if (status.ok() && *status == 410) expired = true;
      if (expired || from_start_) {
        std::lock_guard<std::mutex> lock(mu_);
        too_old_ = true;
        cv_.notify_all();
        return;
      }
      if (!status.ok()) {
        error = status.status().ToString();
      } else if (*status != 200) {
        error = fmt::format("HTTP {}", *status);
      }
      if (error.empty() &&
          (progressed || std::chrono::steady_clock::now() - opened > std::chrono::seconds(1))) {
        backoff = std::chrono::milliseconds(100);  // the server ended it: open it again now
        continue;
      }
      // A stream the server ends at once, with nothing, is opened again after a while.
      if (error.empty()) error = "ended at once";
      if (progressed) backoff = std::chrono::milliseconds(100);
      log::Debug("kubernetes: the watch of {} broke ({}); again in {} ms", api_.plural, error,
                 backoff.count());
      Pause(backoff);
      backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
    }
  }

  bool OnLine(std::string_view line, bool* expired, bool* progressed, std::string* error) {
    std::optional<Json> doc = resource::FastParseJson(line);
    if (!doc) {
      auto parsed = ParseJson(line, "a watch event");
      if (!parsed.ok()) {
        *error = parsed.status().ToString();
        return false;
      }
      doc = std::move(parsed).value();
    }
    if (!doc->is_object()) {
      *error = "a watch event that is not an object";
      return false;
    }
    const std::string type = doc->value("type", "");
    auto object = doc->find("object");
    if (object == doc->end() || !object->is_object()) {
      *error = "a watch event without an object";
      return false;
    }
    if (type == "ERROR") {
      if ((*object).value("code", 0) == 410) {
        *expired = true;
      } else {
        *error = RedactSecrets((*object).value("message", std::string("an ERROR event")));
      }
      return false;
    }
    const Json* md = object->contains("metadata") ? &(*object)["metadata"] : nullptr;
    const int64_t revision =
        md != nullptr && md->is_object() ? RevisionOf(md->value("resourceVersion", "")) : -1;
    if (revision < 0) {
      *error = "a watch event without a resourceVersion";
      return false;
    }
    Item item;
    item.revision = revision;
    if (type == "BOOKMARK") {
      item.bookmark = true;
    } else {
      // Seen before the stream was opened again (a stream from the start sends the objects in
      // no order of revisions, and each once).
      if (!from_start_ && revision <= revision_) return true;
      if (type == "ADDED") {
        item.event.type = EventType::kAdded;
      } else if (type == "MODIFIED") {
        item.event.type = EventType::kModified;
      } else if (type == "DELETED") {
        item.event.type = EventType::kDeleted;
      } else {
        *error = fmt::format("a watch event of type '{}'", type);
        return false;
      }
      item.event.revision = revision;
      auto r = AsResource(std::move(*object), api_);
      if (!r.ok()) {
        *error = r.status().ToString();
        return false;
      }
      item.event.object = std::move(r).value();
    }
    if (revision > revision_) revision_ = revision;
    *progressed = true;
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(item));
    }
    cv_.notify_all();
    return true;
  }

  KubernetesStore::Impl* store_;
  ApiResource api_;
  std::string ns_;
  int64_t revision_;  // the watch thread's: the newest revision it has read
  bool from_start_ = false;
  std::chrono::seconds timeout_;
  std::thread thread_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  int64_t progress_;
  bool closed_ = false;
  bool too_old_ = false;
  std::unique_ptr<KubeClient::Stream> stream_;
};

}  // namespace

KubernetesStore::KubernetesStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
KubernetesStore::~KubernetesStore() = default;

Result<std::unique_ptr<KubernetesStore>> KubernetesStore::Open(KubeConfig config,
                                                               KubernetesStoreOptions options) {
  HOP_ASSIGN_OR_RETURN(std::unique_ptr<KubeClient> client,
                       KubeClient::Create(std::move(config), options.client));
  return std::unique_ptr<KubernetesStore>(
      new KubernetesStore(std::make_unique<Impl>(std::move(client), std::move(options))));
}

Result<Resource> KubernetesStore::Get(const ObjectRef& ref) { return impl_->Get(ref); }

Result<ListResult> KubernetesStore::List(const ListOptions& options) {
  ListResult out;
  HOP_ASSIGN_OR_RETURN(out.revision, impl_->ListEach(options, [&](Resource r) {
    out.items.push_back(std::move(r));
  }));
  return out;
}

Result<int64_t> KubernetesStore::ListEach(const ListOptions& options,
                                          const std::function<void(Resource)>& visit) {
  return impl_->ListEach(options, visit);
}

Result<std::vector<Resource>> KubernetesStore::Commit(std::vector<Write> writes) {
  return impl_->Commit(std::move(writes));
}

std::unique_ptr<Watch> KubernetesStore::StartWatch(const WatchOptions& options) {
  if (!options.kind) {
    return std::make_unique<KubeWatch>(
        impl_.get(),
        Status::InvalidArgument("a watch of every kind at once (watch one kind at a time)"),
        options.namespace_name, options.from_revision, impl_->options().watch_timeout);
  }
  Status path = CheckPathParts(options.namespace_name, "");
  return std::make_unique<KubeWatch>(
      impl_.get(), path.ok() ? impl_->Resolve(*options.kind) : Result<ApiResource>(std::move(path)),
      options.namespace_name, options.from_revision, impl_->options().watch_timeout);
}

Result<int64_t> KubernetesStore::Revision() { return impl_->CurrentRevision(); }

Result<Store::Stats> KubernetesStore::ReadStats() {
  Stats stats;
  HOP_ASSIGN_OR_RETURN(stats.revision, impl_->CurrentRevision());
  stats.objects = -1;
  stats.bytes = -1;
  return stats;
}

const std::string& KubernetesStore::server() const { return impl_->client().server(); }

const std::string& KubernetesStore::default_namespace() const {
  return impl_->client().config().namespace_name;
}

}  // namespace hop::store
