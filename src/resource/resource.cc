// Accessors of the object model over the wrapped JSON document.
#include "resource/resource.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "resource/yaml.h"

namespace hop::resource {
namespace {

const Json* Member(const Json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::string StringMember(const Json& obj, std::string_view key) {
  const Json* v = Member(obj, key);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

std::map<std::string, std::string> StringMap(const Json* obj) {
  std::map<std::string, std::string> out;
  if (!obj || !obj->is_object()) return out;
  for (const auto& [k, v] : obj->items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

// The metadata object, created if absent (or replaced if it is not an object).
Json& MutableMetadata(Json& doc) {
  Json& md = doc["metadata"];
  if (!md.is_object()) md = Json::object();
  return md;
}

}  // namespace

std::string GroupKind::ToString() const { return group.empty() ? kind : kind + "." + group; }

std::string GroupOf(std::string_view api_version) {
  size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string()
                                         : std::string(api_version.substr(0, slash));
}

Resource::Resource() : doc_(std::make_unique<Json>(Json::object())) {}
Resource::Resource(Json doc) : doc_(std::make_unique<Json>(std::move(doc))) {}
Resource::Resource(const Resource& other) : doc_(std::make_unique<Json>(*other.doc_)) {}
Resource::Resource(Resource&& other) noexcept : doc_(std::move(other.doc_)) {
  other.doc_ = std::make_unique<Json>(Json::object());
}
Resource& Resource::operator=(const Resource& other) {
  if (this != &other) *doc_ = *other.doc_;
  return *this;
}
Resource& Resource::operator=(Resource&& other) noexcept {
  std::swap(doc_, other.doc_);
  return *this;
}
Resource::~Resource() = default;

Result<Resource> Resource::FromJson(Json doc, std::string_view where) {
  auto fail = [&](std::string_view what) {
    return Status::InvalidArgument(fmt::format("{}: {}", where, what));
  };
  if (!doc.is_object()) return fail("a resource must be a mapping");
  const Json* api = Member(doc, "apiVersion");
  if (!api || !api->is_string() || api->get<std::string>().empty()) {
    return fail("apiVersion: required string is missing");
  }
  const Json* kind = Member(doc, "kind");
  if (!kind || !kind->is_string() || kind->get<std::string>().empty()) {
    return fail("kind: required string is missing");
  }
  const Json* md = Member(doc, "metadata");
  if (!md || !md->is_object()) return fail("metadata: required mapping is missing");
  const Json* name = Member(*md, "name");
  if (!name || !name->is_string() || name->get<std::string>().empty()) {
    return fail("metadata.name: required string is missing");
  }
  for (const char* key : {"spec", "status"}) {
    const Json* part = Member(doc, key);
    if (part && !part->is_null() && !part->is_object()) {
      return fail(fmt::format("{}: must be a mapping", key));
    }
  }
  return Resource(std::move(doc));
}

std::string Resource::api_version() const { return StringMember(*doc_, "apiVersion"); }
std::string Resource::kind() const { return StringMember(*doc_, "kind"); }
std::string Resource::Describe() const { return kind() + "/" + name(); }

namespace {
const Json& MetadataOf(const Json& doc) {
  static const Json kEmpty = Json::object();
  const Json* md = Member(doc, "metadata");
  return md && md->is_object() ? *md : kEmpty;
}
}  // namespace

std::string Resource::name() const { return StringMember(MetadataOf(*doc_), "name"); }
std::string Resource::namespace_name() const {
  return StringMember(MetadataOf(*doc_), "namespace");
}
std::string Resource::uid() const { return StringMember(MetadataOf(*doc_), "uid"); }
std::string Resource::resource_version() const {
  return StringMember(MetadataOf(*doc_), "resourceVersion");
}
int64_t Resource::generation() const {
  const Json* g = Member(MetadataOf(*doc_), "generation");
  return g && g->is_number_integer() ? g->get<int64_t>() : 0;
}
std::string Resource::creation_timestamp() const {
  return StringMember(MetadataOf(*doc_), "creationTimestamp");
}
std::optional<std::string> Resource::deletion_timestamp() const {
  const Json* d = Member(MetadataOf(*doc_), "deletionTimestamp");
  if (!d || !d->is_string()) return std::nullopt;
  return d->get<std::string>();
}
std::map<std::string, std::string> Resource::labels() const {
  return StringMap(Member(MetadataOf(*doc_), "labels"));
}
std::map<std::string, std::string> Resource::annotations() const {
  return StringMap(Member(MetadataOf(*doc_), "annotations"));
}

std::vector<OwnerReference> Resource::owner_references() const {
  std::vector<OwnerReference> out;
  const Json* refs = Member(MetadataOf(*doc_), "ownerReferences");
  if (!refs || !refs->is_array()) return out;
  for (const Json& r : *refs) {
    if (!r.is_object()) continue;
    OwnerReference o;
    o.api_version = StringMember(r, "apiVersion");
    o.kind = StringMember(r, "kind");
    o.name = StringMember(r, "name");
    o.uid = StringMember(r, "uid");
    const Json* c = Member(r, "controller");
    o.controller = c && c->is_boolean() && c->get<bool>();
    const Json* b = Member(r, "blockOwnerDeletion");
    o.block_owner_deletion = b && b->is_boolean() && b->get<bool>();
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<std::string> Resource::finalizers() const {
  std::vector<std::string> out;
  const Json* f = Member(MetadataOf(*doc_), "finalizers");
  if (!f || !f->is_array()) return out;
  for (const Json& v : *f) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

void Resource::set_api_version(std::string_view v) { (*doc_)["apiVersion"] = std::string(v); }
void Resource::set_kind(std::string_view v) { (*doc_)["kind"] = std::string(v); }
void Resource::set_name(std::string_view v) { MutableMetadata(*doc_)["name"] = std::string(v); }
void Resource::set_namespace(std::string_view v) {
  MutableMetadata(*doc_)["namespace"] = std::string(v);
}
void Resource::set_uid(std::string_view v) { MutableMetadata(*doc_)["uid"] = std::string(v); }
void Resource::set_resource_version(std::string_view v) {
  MutableMetadata(*doc_)["resourceVersion"] = std::string(v);
}
void Resource::clear_resource_version() { MutableMetadata(*doc_).erase("resourceVersion"); }
void Resource::set_generation(int64_t v) { MutableMetadata(*doc_)["generation"] = v; }
void Resource::set_creation_timestamp(std::string_view v) {
  MutableMetadata(*doc_)["creationTimestamp"] = std::string(v);
}
void Resource::set_deletion_timestamp(std::string_view v) {
  MutableMetadata(*doc_)["deletionTimestamp"] = std::string(v);
}

namespace {
Json& MutableStringMap(Json& doc, const char* key) {
  Json& m = MutableMetadata(doc)[key];
  if (!m.is_object()) m = Json::object();
  return m;
}
void EraseFromMap(Json& doc, const char* key, std::string_view entry) {
  Json& md = MutableMetadata(doc);
  auto it = md.find(key);
  if (it == md.end() || !it->is_object()) return;
  it->erase(std::string(entry));
  if (it->empty()) md.erase(key);
}
}  // namespace

void Resource::set_label(std::string_view key, std::string_view value) {
  MutableStringMap(*doc_, "labels")[std::string(key)] = std::string(value);
}
void Resource::remove_label(std::string_view key) { EraseFromMap(*doc_, "labels", key); }
void Resource::set_annotation(std::string_view key, std::string_view value) {
  MutableStringMap(*doc_, "annotations")[std::string(key)] = std::string(value);
}
void Resource::remove_annotation(std::string_view key) { EraseFromMap(*doc_, "annotations", key); }

void Resource::set_owner_references(const std::vector<OwnerReference>& refs) {
  Json& md = MutableMetadata(*doc_);
  if (refs.empty()) {
    md.erase("ownerReferences");
    return;
  }
  Json arr = Json::array();
  for (const auto& r : refs) {
    Json o = Json::object();
    o["apiVersion"] = r.api_version;
    o["kind"] = r.kind;
    o["name"] = r.name;
    // Without a uid the reference names its owner by kind and name (the store fills it in).
    if (!r.uid.empty()) o["uid"] = r.uid;
    if (r.controller) o["controller"] = true;
    if (r.block_owner_deletion) o["blockOwnerDeletion"] = true;
    arr.push_back(std::move(o));
  }
  md["ownerReferences"] = std::move(arr);
}

void Resource::set_finalizers(const std::vector<std::string>& finalizers) {
  Json& md = MutableMetadata(*doc_);
  if (finalizers.empty()) {
    md.erase("finalizers");
  } else {
    md["finalizers"] = finalizers;
  }
}

const Json* Resource::spec() const {
  const Json* s = Member(*doc_, "spec");
  return s && s->is_object() ? s : nullptr;
}
const Json* Resource::status() const {
  const Json* s = Member(*doc_, "status");
  return s && s->is_object() ? s : nullptr;
}
Json& Resource::mutable_spec() {
  Json& s = (*doc_)["spec"];
  if (!s.is_object()) s = Json::object();
  return s;
}
Json& Resource::mutable_status() {
  Json& s = (*doc_)["status"];
  if (!s.is_object()) s = Json::object();
  return s;
}
void Resource::set_status(Json status) { (*doc_)["status"] = std::move(status); }
void Resource::clear_status() { doc_->erase("status"); }

Json Resource::Ordered() const {
  static constexpr std::string_view kTop[] = {"apiVersion", "kind", "metadata", "spec", "status"};
  static constexpr std::string_view kMetadata[] = {"name",
                                                   "namespace",
                                                   "labels",
                                                   "annotations",
                                                   "ownerReferences",
                                                   "finalizers",
                                                   "uid",
                                                   "resourceVersion",
                                                   "generation",
                                                   "creationTimestamp",
                                                   "deletionTimestamp"};
  auto ordered = [](const Json& src, auto& keys) {
    Json out = Json::object();
    for (std::string_view k : keys) {
      auto it = src.find(k);
      if (it != src.end()) out[std::string(k)] = *it;
    }
    for (const auto& [k, v] : src.items()) {
      if (!out.contains(k)) out[k] = v;
    }
    return out;
  };
  if (!doc_->is_object()) return *doc_;
  Json out = ordered(*doc_, kTop);
  auto md = out.find("metadata");
  if (md != out.end() && md->is_object()) *md = ordered(*md, kMetadata);
  return out;
}

std::string Resource::ToYaml() const { return EmitYaml(Ordered()); }

std::string Resource::ToJsonText(int indent) const { return EmitJson(Ordered(), indent); }

bool SameJson(const Json& a, const Json& b) {
  if (a.is_object() && b.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      auto other = b.find(it.key());
      if (other == b.end() || !SameJson(it.value(), *other)) return false;
    }
    return true;
  }
  if (a.is_array() && b.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!SameJson(a[i], b[i])) return false;
    }
    return true;
  }
  return a == b;
}

bool operator==(const Resource& a, const Resource& b) { return SameJson(*a.doc_, *b.doc_); }

OwnerReference OwnerReferenceTo(const Resource& owner, bool controller) {
  OwnerReference r;
  r.api_version = owner.api_version();
  r.kind = owner.kind();
  r.name = owner.name();
  r.uid = owner.uid();
  r.controller = controller;
  return r;
}

}  // namespace hop::resource
