// The Kubernetes-style object model: a resource is a JSON document with apiVersion, kind,
// metadata, spec and status. The document is kept whole, so fields hop does not know survive
// every round trip; the accessors here read and write the well-known parts.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "resource/json.h"

namespace hop::resource {

inline constexpr std::string_view kDefaultNamespace = "default";

// An API group and kind, the identity of a type of object ("" is the core group).
struct GroupKind {
  std::string group;
  std::string kind;
  friend bool operator==(const GroupKind&, const GroupKind&) = default;
  friend auto operator<=>(const GroupKind&, const GroupKind&) = default;
  std::string ToString() const;  // "Kind.group" or "Kind"
};

// The group of an apiVersion: "batch/v1" is "batch", "v1" is "".
std::string GroupOf(std::string_view api_version);

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;
  friend bool operator==(const OwnerReference&, const OwnerReference&) = default;
};

class Resource {
 public:
  Resource();  // an empty object
  explicit Resource(Json doc);
  Resource(const Resource& other);
  Resource(Resource&& other) noexcept;
  Resource& operator=(const Resource& other);
  Resource& operator=(Resource&& other) noexcept;
  ~Resource();

  // Wraps a parsed document after checking its shape: an object with string apiVersion and kind
  // and an object metadata with a string name. `where` names the document in errors.
  static Result<Resource> FromJson(Json doc, std::string_view where);

  const Json& json() const { return *doc_; }
  Json& mutable_json() { return *doc_; }

  std::string api_version() const;
  std::string kind() const;
  std::string group() const { return GroupOf(api_version()); }
  GroupKind group_kind() const { return {group(), kind()}; }
  // "Kind/name", for messages.
  std::string Describe() const;

  std::string name() const;
  // The namespace, "" when unset (the store defaults it).
  std::string namespace_name() const;
  std::string uid() const;
  std::string resource_version() const;
  int64_t generation() const;  // 0 when unset
  std::string creation_timestamp() const;
  std::optional<std::string> deletion_timestamp() const;
  std::map<std::string, std::string> labels() const;
  std::map<std::string, std::string> annotations() const;
  std::vector<OwnerReference> owner_references() const;
  std::vector<std::string> finalizers() const;

  void set_api_version(std::string_view v);
  void set_kind(std::string_view v);
  void set_name(std::string_view v);
  void set_namespace(std::string_view v);
  void set_uid(std::string_view v);
  void set_resource_version(std::string_view v);
  void clear_resource_version();
  void set_generation(int64_t v);
  void set_creation_timestamp(std::string_view v);
  void set_deletion_timestamp(std::string_view v);
  void set_label(std::string_view key, std::string_view value);
  void remove_label(std::string_view key);
  void set_annotation(std::string_view key, std::string_view value);
  void remove_annotation(std::string_view key);
  void set_owner_references(const std::vector<OwnerReference>& refs);
  void set_finalizers(const std::vector<std::string>& finalizers);

  // spec and status; null pointers when absent.
  const Json* spec() const;
  const Json* status() const;
  Json& mutable_spec();    // creates an empty spec if absent
  Json& mutable_status();  // creates an empty status if absent
  void set_status(Json status);
  void clear_status();

  // A copy with apiVersion, kind, metadata, spec and status first and metadata's well-known
  // fields in a fixed order; other keys keep their order after them.
  Json Ordered() const;
  // Block-style YAML of Ordered().
  std::string ToYaml() const;
  // JSON of Ordered(); indent < 0 is compact.
  std::string ToJsonText(int indent) const;

  // Semantic equality: mappings compare regardless of key order (see SameJson).
  friend bool operator==(const Resource& a, const Resource& b);

 private:
  std::unique_ptr<Json> doc_;
};

// Equality of JSON values where mappings are unordered, as Kubernetes treats them; sequences
// compare in order.
bool SameJson(const Json& a, const Json& b);

// An owner reference pointing at `owner`.
OwnerReference OwnerReferenceTo(const Resource& owner, bool controller = false);

}  // namespace hop::resource
