#include "server/kube_api.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "common/issues.h"
#include "common/redact.h"
#include "common/strings.h"
#include "common/time.h"
#include "deploy/executor.h"
#include "resource/kinds.h"
#include "resource/names.h"
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
    case StatusCode::kNotFound:
      return KubeStatusResponse(404, "NotFound", what + " not found");
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
    case StatusCode::kParse:
      return KubeStatusResponse(400, "BadRequest", message);
    case StatusCode::kUnavailable:
      return KubeStatusResponse(503, "ServiceUnavailable", message);
    default:
      return KubeStatusResponse(500, "InternalError", message);
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

// Every kind the API serves: hop's and the well-known kinds its templates render.
const std::vector<const KindInfo*>& ServedKinds() {
  static const std::vector<const KindInfo*> kinds = [] {
    std::vector<const KindInfo*> out = resource::HopKinds();
    for (const KindInfo* k : resource::ExternalKinds()) out.push_back(k);
    return out;
  }();
  return kinds;
}

const KindInfo* KindByPlural(std::string_view group, std::string_view version,
                             std::string_view plural) {
  for (const KindInfo* k : ServedKinds()) {
    if (k->group == group && k->version == version && k->plural == plural) return k;
  }
  return nullptr;
}

// What a resource URL names.
struct Target {
  const KindInfo* kind = nullptr;
  std::string namespace_name;  // "" for every namespace, or a cluster-scoped kind
  std::string name;            // "" for the collection
  std::string subresource;     // "" or "status"
};

// Parses the segments after `/api/v1` or `/apis/GROUP/VERSION`.
Result<Target> ParseTarget(std::string_view group, std::string_view version,
                           const std::vector<std::string>& seg) {
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
  t.kind = KindByPlural(group, version, seg[i]);
  if (t.kind == nullptr) return Status::NotFound("the server could not find the requested resource");
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
Result<Target> TargetOf(const std::vector<std::string>& seg) {
  if (seg.size() >= 3 && seg[0] == "api" && seg[1] == "v1") {
    return ParseTarget("", "v1", {seg.begin() + 2, seg.end()});
  }
  if (seg.size() >= 4 && seg[0] == "apis") {
    return ParseTarget(seg[1], seg[2], {seg.begin() + 3, seg.end()});
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

Json ResourceList(std::string_view group, std::string_view version) {
  Json list = Json::object();
  list["kind"] = "APIResourceList";
  list["apiVersion"] = "v1";
  list["groupVersion"] = group.empty() ? std::string(version) : fmt::format("{}/{}", group, version);
  list["resources"] = Json::array();
  for (const KindInfo* k : ServedKinds()) {
    if (k->group != group || k->version != version) continue;
    list["resources"].push_back(ApiResource(*k, k->plural, false));
    if (k->status_subresource) {
      list["resources"].push_back(ApiResource(*k, k->plural + "/status", true));
    }
  }
  return list;
}

// The groups other than the core one, each with its one version.
std::vector<std::pair<std::string, std::string>> Groups() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const KindInfo* k : ServedKinds()) {
    if (k->group.empty()) continue;
    std::pair<std::string, std::string> gv{k->group, k->version};
    if (std::find(out.begin(), out.end(), gv) == out.end()) out.push_back(gv);
  }
  return out;
}

Json ApiGroup(const std::string& group, const std::string& version) {
  Json gv = Json::object();
  gv["groupVersion"] = group + "/" + version;
  gv["version"] = version;
  Json g = Json::object();
  g["name"] = group;
  g["versions"] = Json::array({gv});
  g["preferredVersion"] = gv;
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

Json AggregatedDiscovery(bool core) {
  Json list = Json::object();
  list["kind"] = "APIGroupDiscoveryList";
  list["apiVersion"] = "apidiscovery.k8s.io/v2";
  list["metadata"] = Json::object();
  list["items"] = Json::array();
  std::vector<std::pair<std::string, std::string>> groups;
  if (core) {
    groups.emplace_back("", "v1");
  } else {
    groups = Groups();
  }
  for (const auto& [group, version] : groups) {
    Json v = Json::object();
    v["version"] = version;
    v["resources"] = Json::array();
    for (const KindInfo* k : ServedKinds()) {
      if (k->group == group && k->version == version) v["resources"].push_back(DiscoveryResource(*k));
    }
    v["freshness"] = "Current";
    Json item = Json::object();
    item["metadata"] = Json::object();
    item["metadata"]["name"] = group;
    item["versions"] = Json::array({v});
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

// --- OpenAPI: built once, on first use (the kinds are fixed) ---

struct OpenApiDocuments {
  std::string v2_json;
  std::string v2_protobuf;
  std::string v3_index;
  std::map<std::string, std::string> v3;  // "apis/GROUP/VERSION" or "api/v1"
};

const OpenApiDocuments& Documents() {
  static const OpenApiDocuments docs = [] {
    OpenApiDocuments d;
    const Json v2 = OpenApiV2(ServedKinds());
    d.v2_json = Dump(v2);
    d.v2_protobuf = OpenApiV2Protobuf(v2);
    d.v3_index = Dump(OpenApiV3Index(ServedKinds()));
    std::vector<std::pair<std::string, std::string>> gvs = Groups();
    gvs.emplace_back("", "v1");
    for (const auto& [group, version] : gvs) {
      auto doc = OpenApiV3(group, version, ServedKinds());
      if (!doc.ok()) continue;
      d.v3[group.empty() ? "api/" + version : "apis/" + group + "/" + version] = Dump(*doc);
    }
    return d;
  }();
  return docs;
}

KubeResponse OpenApi(const KubeRequest& req, const std::vector<std::string>& seg) {
  const OpenApiDocuments& docs = Documents();
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

Json Shown(const Resource& r) {
  Json doc = r.Ordered();
  resource::RedactSecretsIn(doc);
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
  auto text = token.size() > 4096 ? Result<std::string>(Status::InvalidArgument(""))
                                   : Base64Decode(token);
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
      : store_(store), options_(std::move(options)), cache_(store, options_.watch_cache_events) {}

  Status Start() { return cache_.Start(); }
  void Stop() { cache_.Stop(); }

  KubeResponse Handle(const KubeRequest& req);
  std::variant<KubeResponse, std::unique_ptr<KubeWatchStream>> OpenWatch(const KubeRequest& req);

  store::Store& store() { return store_; }
  KubeWatchCache& cache() { return cache_; }
  const KubeApiOptions& options() const { return options_; }

 private:
  KubeResponse Discovery(const KubeRequest& req, const std::vector<std::string>& seg, bool* done);
  KubeResponse Resource(const KubeRequest& req, const Target& t);
  KubeResponse Get(const KubeRequest& req, const Target& t);
  KubeResponse List(const KubeRequest& req, const Target& t);
  KubeResponse Create(const KubeRequest& req, const Target& t);
  KubeResponse Update(const KubeRequest& req, const Target& t);
  KubeResponse Patch(const KubeRequest& req, const Target& t);
  KubeResponse Delete(const KubeRequest& req, const Target& t);

  // Parses a request body (JSON or YAML) into an object of the target's kind, checked as
  // Kubernetes checks it: apiVersion and kind, the namespace and name of the URL.
  Result<resource::Resource> BodyObject(const KubeRequest& req, const Target& t);
  // Validates `r` as the request's fieldValidation asks; warnings go to `*warnings`.
  Status Validate(const KubeRequest& req, const resource::Resource& r,
                  std::vector<std::string>* warnings);
  KubeResponse Written(int code, const resource::Resource& r, std::vector<std::string> warnings);

  store::Store& store_;
  KubeApiOptions options_;
  KubeWatchCache cache_;
};

// --- watch streams ---

namespace {

constexpr std::chrono::milliseconds kCoalesce{2};

// Sends a watch's events from the cache (or from the store's history while the client is
// behind the cache's window), filtered by namespace, labels and fields.
class CacheWatchStream : public KubeWatchStream {
 public:
  CacheWatchStream(KubeApi::Impl& api, const KindInfo& kind, std::string ns,
                   resource::LabelSelector labels, std::vector<FieldRequirement> fields,
                   int64_t from, std::vector<std::string> selected,
                   std::vector<std::shared_ptr<const CachedEvent>> initial,
                   bool table, std::string include, bool bookmarks,
                   std::chrono::milliseconds duration)
      : api_(api),
        kind_(kind),
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
      const auto wait = std::min<std::chrono::steady_clock::duration>(
          end - now, std::chrono::milliseconds(500));
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
    if (!table_) {
      return write(type == e.type ? e.line
                                  : WatchEventLine(store::EventTypeName(type), e.object.Ordered()));
    }
    Json t = Table(kind_, {e.object.Ordered()}, include_, e.revision, "");
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
  const KindInfo& kind_;
  std::string ns_;
  resource::LabelSelector labels_;
  std::vector<FieldRequirement> fields_;
  int64_t from_;
  std::vector<std::shared_ptr<const CachedEvent>> initial_;
  bool table_;
  std::string include_;
  bool bookmarks_;
  std::chrono::milliseconds duration_;
  const bool filtered_;  // by labels or fields
  std::set<std::string> shown_;  // with a filter: NAMESPACE/NAME of the objects selected
  std::string batch_;            // the lines of one read of the cache
  int64_t bookmarked_ = 0;
};

}  // namespace

std::variant<KubeResponse, std::unique_ptr<KubeWatchStream>> KubeApi::Impl::OpenWatch(
    const KubeRequest& req) {
  const auto seg = SplitPath(req.path);
  Result<Target> t = TargetOf(seg);
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
    for (char c : rv) {
      if (c < '0' || c > '9' || rv.size() > 18) {
        return KubeStatusResponse(400, "BadRequest",
                                  fmt::format("invalid resourceVersion \"{}\"", rv));
      }
    }
    from = std::stoll(rv);
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
  return std::unique_ptr<KubeWatchStream>(new CacheWatchStream(
      *this, *t->kind, t->namespace_name, std::move(*labels), std::move(*fields), from,
      std::move(selected), std::move(initial), WantsTable(req), include, Truthy(req.query, "allowWatchBookmarks"),
      duration));
}

// --- requests ---

KubeResponse KubeApi::Impl::Handle(const KubeRequest& req) {
  const auto seg = SplitPath(req.path);
  bool done = false;
  KubeResponse discovery = Discovery(req, seg, &done);
  if (done) return discovery;
  Result<Target> t = TargetOf(seg);
  if (!t.ok()) return KubeStatusResponse(404, "NotFound", t.status().message());
  return Resource(req, *t);
}

KubeResponse KubeApi::Impl::Discovery(const KubeRequest& req, const std::vector<std::string>& seg,
                                      bool* done) {
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
    KubeResponse r = JsonResponse(200, AggregatedDiscovery(seg[0] == "api"));
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
    for (const auto& [group, version] : Groups()) list["groups"].push_back(ApiGroup(group, version));
    return JsonResponse(200, list);
  }
  if (seg.size() == 2 && seg[0] == "api" && seg[1] == "v1") return JsonResponse(200, ResourceList("", "v1"));
  if (seg.size() == 2 && seg[0] == "apis") {
    for (const auto& [group, version] : Groups()) {
      if (group == seg[1]) {
        Json g = ApiGroup(group, version);
        g["kind"] = "APIGroup";
        g["apiVersion"] = "v1";
        return JsonResponse(200, g);
      }
    }
    return KubeStatusResponse(404, "NotFound", "the server could not find the requested resource");
  }
  if (seg.size() == 3 && seg[0] == "apis") {
    for (const auto& [group, version] : Groups()) {
      if (group == seg[1] && version == seg[2]) return JsonResponse(200, ResourceList(group, version));
    }
    return KubeStatusResponse(404, "NotFound", "the server could not find the requested resource");
  }
  if (!seg.empty() && seg[0] == "openapi") return OpenApi(req, seg);
  *done = false;
  return {};
}

KubeResponse KubeApi::Impl::Resource(const KubeRequest& req, const Target& t) {
  // kubectl sends built-in kinds as protobuf from its imperative commands (`create configmap`);
  // hop reads JSON and YAML only.
  if (!req.body.empty() && req.content_type.find("protobuf") != std::string::npos) {
    return KubeStatusResponse(
        415, "UnsupportedMediaType",
        "hop's Kubernetes API reads JSON and YAML bodies, not protobuf: write the object to a "
        "file and use kubectl apply -f or create -f");
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
  if (req.method == "POST" && t.name.empty()) return Create(req, t);
  if (req.method == "PUT" && !t.name.empty()) return Update(req, t);
  if (req.method == "PATCH" && !t.name.empty()) return Patch(req, t);
  if (req.method == "DELETE" && !t.name.empty()) return Delete(req, t);
  return KubeStatusResponse(405, "MethodNotAllowed",
                            fmt::format("{} is not supported on this URL", req.method));
}

KubeResponse KubeApi::Impl::Get(const KubeRequest& req, const Target& t) {
  auto r = store_.Get({t.kind->group_kind(), t.namespace_name, t.name});
  if (!r.ok()) return FromStatus(r.status(), t.kind, t.name);
  Json doc = Shown(*r);
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
  auto list = store_.List({t.kind->group_kind(), t.namespace_name, *labels});
  if (!list.ok()) return FromStatus(list.status(), t.kind, "");
  // Later pages are read from the store as it is then, after the last key of the page before;
  // every page carries the first page's revision (docs/kubernetes-api.md "Lists").
  const int64_t revision = from ? from->revision : list->revision;
  std::vector<Json> shown;
  std::string continue_token;
  size_t taken = 0;
  const resource::Resource* last = nullptr;
  for (const auto& r : list->items) {
    if (from && std::pair(r.namespace_name(), r.name()) <= std::pair(from->namespace_name, from->name)) {
      continue;
    }
    if (!FieldsMatch(*fields, r)) continue;
    if (limit > 0 && taken == limit) {
      continue_token = ContinueToken(revision, *last);
      break;
    }
    shown.push_back(Shown(r));
    last = &r;
    ++taken;
  }
  if (WantsTable(req)) {
    return JsonResponse(200, Table(*t.kind, shown, QueryValue(req, "includeObject"), revision,
                                   continue_token));
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
  if (req.content_type.find("yaml") != std::string::npos) {
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
  if (doc["metadata"].is_object() && !doc["metadata"].contains("name") &&
      doc["metadata"].value("generateName", Json()).is_string() && t.name.empty()) {
    doc["metadata"]["name"] = doc["metadata"]["generateName"].get<std::string>() + RandomSuffix();
  }
  if (doc["metadata"].is_object() && !doc["metadata"].contains("name") && !t.name.empty()) {
    doc["metadata"]["name"] = t.name;
  }
  HOP_ASSIGN_OR_RETURN(auto r, resource::Resource::FromJson(std::move(doc), "the request body"));
  if (r.api_version() != t.kind->api_version() || r.kind() != t.kind->kind) {
    return Status::InvalidArgument(fmt::format(
        "the object is a {} of {}, but the URL is for {} of {}", r.kind(), r.api_version(),
        t.kind->kind, t.kind->api_version()));
  }
  if (t.kind->namespaced) {
    if (r.namespace_name().empty()) {
      r.set_namespace(t.namespace_name);
    } else if (r.namespace_name() != t.namespace_name) {
      return Status::InvalidArgument(
          "the namespace of the provided object does not match the namespace sent on the request");
    }
  } else if (!r.namespace_name().empty()) {
    return Status::InvalidArgument(
        fmt::format("{} are cluster-scoped: the object must not name a namespace",
                    Qualified(*t.kind)));
  }
  if (!t.name.empty() && r.name() != t.name) {
    return Status::InvalidArgument(fmt::format(
        "the name of the object ({}) does not match the name on the URL ({})", r.name(), t.name));
  }
  return r;
}

Status KubeApi::Impl::Validate(const KubeRequest& req, const resource::Resource& r,
                               std::vector<std::string>* warnings) {
  // Kubernetes' default is Warn; kubectl asks for Strict.
  const std::string mode = QueryValue(req, "fieldValidation");
  resource::UnknownFields unknown = resource::UnknownFields::kWarn;
  if (mode == "Strict") {
    unknown = resource::UnknownFields::kReject;
  } else if (mode == "Ignore") {
    unknown = resource::UnknownFields::kAllow;
  } else if (!mode.empty() && mode != "Warn") {
    return Status::InvalidArgument(
        fmt::format("fieldValidation must be Strict, Warn or Ignore, not \"{}\"", mode));
  }
  Issues issues;
  resource::ValidateResource(r, &issues, {.unknown_fields = unknown, .external_fields = true});
  resource::RefuseRedacted(r.json(), "", issues);
  HOP_RETURN_IF_ERROR(issues.ToStatus(StatusCode::kValidation, "the object is invalid:"));
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
  return Status::OK();
}

KubeResponse KubeApi::Impl::Written(int code, const resource::Resource& r,
                                    std::vector<std::string> warnings) {
  KubeResponse resp = JsonResponse(code, Shown(r));
  resp.warnings = std::move(warnings);
  return resp;
}

KubeResponse KubeApi::Impl::Create(const KubeRequest& req, const Target& t) {
  auto r = BodyObject(req, t);
  if (!r.ok()) return FromStatus(r.status(), t.kind, "");
  if (!r->resource_version().empty()) {
    return KubeStatusResponse(400, "BadRequest",
                              "resourceVersion should not be set on objects to be created");
  }
  std::vector<std::string> warnings;
  if (Status s = Validate(req, *r, &warnings); !s.ok()) return FromStatus(s, t.kind, r->name());
  if (QueryValue(req, "dryRun") == "All") {
    auto existing = store_.Find(store::RefOf(*r));
    if (!existing.ok()) return FromStatus(existing.status(), t.kind, r->name());
    if (existing->has_value()) {
      return FromStatus(Status::AlreadyExists(""), t.kind, r->name());
    }
    return Written(201, *r, std::move(warnings));
  }
  const std::string name = r->name();
  auto created = store_.Create(std::move(*r));
  if (!created.ok()) return FromStatus(created.status(), t.kind, name);
  return Written(201, *created, std::move(warnings));
}

KubeResponse KubeApi::Impl::Update(const KubeRequest& req, const Target& t) {
  auto r = BodyObject(req, t);
  if (!r.ok()) return FromStatus(r.status(), t.kind, t.name);
  std::vector<std::string> warnings;
  if (Status s = Validate(req, *r, &warnings); !s.ok()) return FromStatus(s, t.kind, t.name);
  auto existing = store_.Get(store::RefOf(*r));
  if (!existing.ok()) return FromStatus(existing.status(), t.kind, t.name);
  if (!r->resource_version().empty() && r->resource_version() != existing->resource_version()) {
    return FromStatus(Status::Conflict(fmt::format("the stored resourceVersion is {}, not {}",
                                                   existing->resource_version(),
                                                   r->resource_version())),
                      t.kind, t.name);
  }
  if (QueryValue(req, "dryRun") == "All") return Written(200, *r, std::move(warnings));
  Result<resource::Resource> written = t.subresource == "status" ? store_.UpdateStatus(std::move(*r))
                                                                : store_.Update(std::move(*r));
  if (!written.ok()) return FromStatus(written.status(), t.kind, t.name);
  return Written(200, *written, std::move(warnings));
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

}  // namespace

KubeResponse KubeApi::Impl::Patch(const KubeRequest& req, const Target& t) {
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
  if (kind == Kind::kStrategic && t.kind->group == resource::kHopGroup) {
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
      std::vector<std::string> warnings;
      if (Status s = Validate(req, *r, &warnings); !s.ok()) return FromStatus(s, t.kind, t.name);
      if (QueryValue(req, "dryRun") == "All") return Written(201, *r, std::move(warnings));
      auto created = store_.Create(std::move(*r));
      if (!created.ok() && created.status().code() == StatusCode::kAlreadyExists && attempt < 5) {
        continue;
      }
      if (!created.ok()) return FromStatus(created.status(), t.kind, t.name);
      return Written(201, *created, std::move(warnings));
    }
    Json doc = (*existing)->json();
    try {
      if (kind == Kind::kJson) {
        doc = doc.patch(patch);
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
    if (r->group_kind() != t.kind->group_kind() || r->name() != t.name ||
        r->namespace_name() != t.namespace_name) {
      return KubeStatusResponse(422, "Invalid",
                                "a patch cannot change an object's kind, name or namespace");
    }
    const bool pinned = r->resource_version() != (*existing)->resource_version();
    if (r->resource_version().empty()) r->set_resource_version((*existing)->resource_version());
    std::vector<std::string> warnings;
    if (Status s = Validate(req, *r, &warnings); !s.ok()) return FromStatus(s, t.kind, t.name);
    if (pinned) {
      return FromStatus(Status::Conflict(fmt::format("the stored resourceVersion is {}, not {}",
                                                     (*existing)->resource_version(),
                                                     r->resource_version())),
                        t.kind, t.name);
    }
    if (QueryValue(req, "dryRun") == "All") return Written(200, *r, std::move(warnings));
    Result<resource::Resource> written = t.subresource == "status"
                                             ? store_.UpdateStatus(std::move(*r))
                                             : store_.Update(std::move(*r));
    if (!written.ok() && written.status().code() == StatusCode::kConflict && attempt < 5) continue;
    if (!written.ok()) return FromStatus(written.status(), t.kind, t.name);
    return Written(200, *written, std::move(warnings));
  }
}

KubeResponse KubeApi::Impl::Delete(const KubeRequest& req, const Target& t) {
  if (!t.subresource.empty()) {
    return KubeStatusResponse(405, "MethodNotAllowed", "a subresource cannot be deleted");
  }
  // DeleteOptions come in the body or the query.
  std::string policy = QueryValue(req, "propagationPolicy");
  std::string precondition;
  if (!TrimWhitespace(req.body).empty()) {
    auto body = ParseJson(req.body, "the delete options");
    if (!body.ok()) return FromStatus(body.status(), t.kind, t.name);
    if (!body->is_object()) return KubeStatusResponse(400, "BadRequest", "DeleteOptions must be an object");
    if (auto it = body->find("propagationPolicy"); it != body->end() && it->is_string()) {
      policy = it->get<std::string>();
    }
    if (auto it = body->find("preconditions"); it != body->end() && it->is_object()) {
      precondition = it->value("resourceVersion", "");
    }
    if (auto it = body->find("dryRun"); it != body->end() && it->is_array() && !it->empty()) {
      if (*it != Json::array({"All"})) return KubeStatusResponse(400, "BadRequest", "dryRun must be [\"All\"]");
      KubeRequest dry = req;
      dry.query["dryRun"] = "All";
      dry.body.clear();
      return Delete(dry, t);
    }
  }
  if (!policy.empty() && policy != "Background" && policy != "Foreground" && policy != "Orphan") {
    return KubeStatusResponse(
        400, "BadRequest",
        fmt::format("propagationPolicy must be Background, Foreground or Orphan, not \"{}\"", policy));
  }
  const ObjectRef ref{t.kind->group_kind(), t.namespace_name, t.name};
  auto existing = store_.Get(ref);
  if (!existing.ok()) return FromStatus(existing.status(), t.kind, t.name);
  if (!precondition.empty() && precondition != existing->resource_version()) {
    return FromStatus(Status::Conflict(fmt::format("the stored resourceVersion is {}, not {}",
                                                   existing->resource_version(), precondition)),
                      t.kind, t.name);
  }
  deploy::ExecuteOptions execute;
  execute.namespace_name = t.namespace_name.empty() ? std::string(resource::kDefaultNamespace)
                                                    : t.namespace_name;
  execute.provisioners = options_.provisioners;
  deploy::Executor executor(store_, std::move(execute));
  if (QueryValue(req, "dryRun") == "All") {
    // The dependency guard is asked too; nothing is written or dropped.
    if (Status guard = executor.CheckDelete(ref); !guard.ok()) {
      if (guard.code() == StatusCode::kValidation) {
        return KubeStatusResponse(409, "Conflict", RedactSecrets(guard.message()));
      }
      return FromStatus(guard, t.kind, t.name);
    }
    return JsonResponse(200, Shown(*existing));
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
  // Objects go as the DROP of their kind does: not while something depends on them
  // (deploy::Executor::Delete, the same guard as `hop delete`).
  auto deleted = executor.Delete(ref, /*force=*/false);
  if (!deleted.ok()) {
    if (deleted.status().code() == StatusCode::kValidation) {
      return KubeStatusResponse(409, "Conflict", RedactSecrets(deleted.status().message()));
    }
    return FromStatus(deleted.status(), t.kind, t.name);
  }
  for (const resource::Resource& r : deleted->objects) {
    if (store::RefOf(r).ToString() == ref.ToString()) {
      // Still there while finalizers hold it: the object, as Kubernetes answers (202).
      if (r.deletion_timestamp() && !r.finalizers().empty()) return JsonResponse(202, Shown(r));
      return JsonResponse(200, Shown(r));
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
  Result<Target> t = TargetOf(seg);
  if (!t.ok()) return "discovery";
  return t->name.empty() ? "list" : "get";
}

}  // namespace hop::server
