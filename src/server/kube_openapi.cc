// Builds the OpenAPI v2 and v3 documents of hop's Kubernetes API (kube_openapi.h). One set of
// builders serves both versions; a Flavor says where `$ref`s point and how parameters, bodies
// and responses are spelled, which is all that differs between the two for these documents.
#include "server/kube_openapi.h"

#include <cassert>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "common/digest.h"
#include "common/strings.h"

namespace hop::server {

namespace {

using resource::KindInfo;

enum class Flavor { kV2, kV3 };

constexpr std::string_view kMetaPrefix = "io.k8s.apimachinery.pkg.apis.meta.v1.";

std::string Meta(std::string_view name) { return std::string(kMetaPrefix) + std::string(name); }

// ---------------------------------------------------------------------------------------------
// Schema pieces

Json Ref(Flavor f, const std::string& name) {
  return Json{{"$ref", (f == Flavor::kV2 ? "#/definitions/" : "#/components/schemas/") + name}};
}

// A property typed by another definition. OpenAPI 3.0 ignores the siblings of a `$ref`, so v3
// wraps it in allOf to keep the description (and, for objects, an empty default), as
// kube-apiserver does; v2 documents carry the siblings beside the `$ref` anyway.
Json RefProperty(Flavor f, const std::string& name, const std::string& description,
                 bool is_object = true) {
  Json p = Json::object();
  if (f == Flavor::kV2) {
    p = Ref(f, name);
  } else {
    p["allOf"] = Json::array({Ref(f, name)});
    if (is_object) p["default"] = Json::object();
  }
  if (!description.empty()) p["description"] = description;
  return p;
}

Json Typed(std::string_view type, const std::string& description, std::string_view format = {}) {
  Json p = Json::object();
  if (!description.empty()) p["description"] = description;
  p["type"] = std::string(type);
  if (!format.empty()) p["format"] = std::string(format);
  return p;
}

Json Str(const std::string& d) { return Typed("string", d); }
Json Bool(const std::string& d) { return Typed("boolean", d); }
Json Int64(const std::string& d) { return Typed("integer", d, "int64"); }
Json Int32(const std::string& d) { return Typed("integer", d, "int32"); }

Json StringMap(const std::string& d, std::string_view format = {}) {
  Json p = Typed("object", d);
  p["additionalProperties"] = Typed("string", "", format);
  return p;
}

Json ArrayOf(Json items, const std::string& d) {
  Json p = Typed("array", d);
  p["items"] = std::move(items);
  return p;
}

Json ObjectOf(const std::string& d, Json properties) {
  Json p = Typed("object", d);
  p["properties"] = std::move(properties);
  return p;
}

Json Gvk(const std::string& group, const std::string& version, const std::string& kind) {
  return Json{{"group", group}, {"kind", kind}, {"version", version}};
}

// The metav1 types the kinds refer to, typed as kube-apiserver types them so that kubectl's
// client-side validation and `explain` treat metadata exactly as they would against Kubernetes.
void AddMetaDefinitions(Flavor f, Json& defs) {
  defs[Meta("Time")] =
      Typed("string", "A time in RFC 3339 form, to the second, in UTC.", "date-time");
  defs[Meta("FieldsV1")] =
      Typed("object", "The set of fields a manager owns, in the FieldsV1 trie format.");
  defs[Meta("Patch")] =
      Typed("object", "The body of a patch, in the format its content type names.");

  defs[Meta("ManagedFieldsEntry")] = ObjectOf(
      "Which fields of an object one manager owns, and through which operation.",
      Json{{"apiVersion", Str("The version of the object's schema the fields are written in.")},
           {"fieldsType", Str("The format of fieldsV1; always \"FieldsV1\".")},
           {"fieldsV1", RefProperty(f, Meta("FieldsV1"), "The fields the manager owns.")},
           {"manager", Str("The name of the manager (its fieldManager).")},
           {"operation", Str("The operation that made this entry: Apply or Update.")},
           {"subresource", Str("The subresource the fields were written through, if any.")},
           {"time", RefProperty(f, Meta("Time"), "When the manager last changed the fields.",
                                /*is_object=*/false)}});

  Json owner = ObjectOf(
      "An object this one belongs to; deleting the owner deletes this object too.",
      Json{{"apiVersion", Str("API version of the owner.")},
           {"blockOwnerDeletion", Bool("If true, the owner is not deleted (in the foreground) "
                                       "before this object is.")},
           {"controller", Bool("If true, the owner is this object's managing controller.")},
           {"kind", Str("Kind of the owner.")},
           {"name", Str("Name of the owner.")},
           {"uid", Str("UID of the owner.")}});
  owner["required"] = Json::array({"apiVersion", "kind", "name", "uid"});
  owner["x-kubernetes-map-type"] = "atomic";
  defs[Meta("OwnerReference")] = std::move(owner);

  Json finalizers = ArrayOf(Str(""),
                            "Names of the steps that must finish before the object "
                            "is removed; deletion waits until the list is empty.");
  finalizers["x-kubernetes-list-type"] = "set";
  Json owners = ArrayOf(Ref(f, Meta("OwnerReference")), "The objects this one belongs to.");
  owners["x-kubernetes-list-map-keys"] = Json::array({"uid"});
  owners["x-kubernetes-list-type"] = "map";
  defs[Meta("ObjectMeta")] = ObjectOf(
      "Metadata every stored object has: its name, namespace, labels and the server's "
      "bookkeeping.",
      Json{{"annotations", StringMap("Free-form key-value pairs tools keep on the object.")},
           {"creationTimestamp", RefProperty(f, Meta("Time"), "When the object was created.",
                                             /*is_object=*/false)},
           {"deletionGracePeriodSeconds", Int64("Seconds the object may take to go once its "
                                                "deletion was requested.")},
           {"deletionTimestamp",
            RefProperty(f, Meta("Time"), "When deletion was requested; set by the server.",
                        /*is_object=*/false)},
           {"finalizers", std::move(finalizers)},
           {"generateName", Str("A prefix from which the server generates a unique name when "
                                "name is empty.")},
           {"generation", Int64("A number the server increases on each change of the "
                                "object's desired state.")},
           {"labels", StringMap("Key-value pairs that label selectors match.")},
           {"managedFields",
            ArrayOf(Ref(f, Meta("ManagedFieldsEntry")), "Which manager owns which fields.")},
           {"name", Str("The object's name, unique in its namespace and kind.")},
           {"namespace", Str("The namespace the object lives in; empty for cluster-scoped "
                             "kinds.")},
           {"ownerReferences", std::move(owners)},
           {"resourceVersion", Str("An opaque version of the object, for optimistic "
                                   "concurrency and watches.")},
           {"selfLink", Str("Deprecated; not set.")},
           {"uid", Str("A unique id the server assigns when the object is created.")}});

  defs[Meta("ListMeta")] = ObjectOf(
      "Metadata of a list: its resource version and where to continue.",
      Json{{"continue", Str("Set when the list is incomplete: pass it back as `continue` for "
                            "the next page.")},
           {"remainingItemCount", Int64("How many more items a paged list holds, when known.")},
           {"resourceVersion", Str("The version of the store the list was read at.")},
           {"selfLink", Str("Deprecated; not set.")}});

  defs[Meta("StatusCause")] = ObjectOf(
      "One cause of an error.", Json{{"field", Str("The field that caused the error, if any.")},
                                     {"message", Str("What went wrong, for people.")},
                                     {"reason", Str("What went wrong, for programs.")}});
  defs[Meta("StatusDetails")] =
      ObjectOf("More about an error: the object it concerns and its causes.",
               Json{{"causes", ArrayOf(Ref(f, Meta("StatusCause")), "The causes of the error.")},
                    {"group", Str("The group of the object.")},
                    {"kind", Str("The kind of the object.")},
                    {"name", Str("The name of the object.")},
                    {"retryAfterSeconds", Int32("Seconds after which the request may be retried.")},
                    {"uid", Str("The UID of the object.")}});
  Json status =
      ObjectOf("The result of a request that returns no object: an error, or a completed deletion.",
               Json{{"apiVersion", Str("API version of this object.")},
                    {"code", Int32("The HTTP status code.")},
                    {"details", RefProperty(f, Meta("StatusDetails"), "More about the error.")},
                    {"kind", Str("Kind of this object.")},
                    {"message", Str("What happened, for people.")},
                    {"metadata", RefProperty(f, Meta("ListMeta"), "List metadata.")},
                    {"reason", Str("A one-word reason for the failure, for programs.")},
                    {"status", Str("Success or Failure.")}});
  status["x-kubernetes-group-version-kind"] = Json::array({Gvk("", "v1", "Status")});
  defs[Meta("Status")] = std::move(status);

  defs[Meta("Preconditions")] =
      ObjectOf("Conditions a deletion requires of the object.",
               Json{{"resourceVersion", Str("The object's expected resourceVersion.")},
                    {"uid", Str("The object's expected UID.")}});
  defs[Meta("DeleteOptions")] = ObjectOf(
      "Options of a deletion.",
      Json{{"apiVersion", Str("API version of this object.")},
           {"dryRun", ArrayOf(Str(""), "When it holds All, nothing is deleted.")},
           {"gracePeriodSeconds", Int64("Seconds the object may take to go.")},
           {"kind", Str("Kind of this object.")},
           {"orphanDependents", Bool("Deprecated: use propagationPolicy.")},
           {"preconditions", RefProperty(f, Meta("Preconditions"),
                                         "Conditions the object must meet to be deleted.")},
           {"propagationPolicy", Str("What happens to dependents: Orphan, Background or "
                                     "Foreground.")}});
}

// The definition of a kind an installed CRD describes: its openAPIV3Schema, as kube-apiserver
// publishes a custom resource's, with apiVersion, kind and the typed metadata filled in.
Json CustomKindDefinition(Flavor f, const KindInfo& kind) {
  Json def = *kind.open_api_schema;
  if (!def.contains("properties") || !def["properties"].is_object()) {
    def["properties"] = Json::object();
  }
  Json& props = def["properties"];
  props["apiVersion"] = Str("The versioned schema of this object: " + kind.api_version() + ".");
  props["kind"] = Str("The kind of this object: " + kind.kind + ".");
  props["metadata"] = RefProperty(f, Meta("ObjectMeta"), "Standard object metadata.");
  def["type"] = "object";
  def["x-kubernetes-group-version-kind"] = Json::array({Gvk(kind.group, kind.version, kind.kind)});
  return def;
}

Json KindDefinition(Flavor f, const KindInfo& kind) {
  if (kind.open_api_schema != nullptr) return CustomKindDefinition(f, kind);
  Json props = Json::object();
  props["apiVersion"] = Str("The versioned schema of this object: " + kind.api_version() + ".");
  props["kind"] = Str("The kind of this object: " + kind.kind + ".");
  props["metadata"] = RefProperty(f, Meta("ObjectMeta"), "Standard object metadata.");
  Json required = Json::array();
  // Kinds whose fields sit at the top level (a ConfigMap's data) declare them instead of spec
  // and status, which kubectl's client-side validation would otherwise reject as unknown.
  if (!kind.top_level.properties.empty()) {
    for (const auto& [name, schema] : kind.top_level.properties) {
      props[name] = resource::ToOpenApi(schema);
    }
    for (const std::string& name : kind.top_level.required) required.push_back(name);
  } else {
    props["spec"] = resource::ToOpenApi(kind.spec);
    props["status"] = resource::ToOpenApi(kind.status);
    // As the CRD says (resource/crd.cc): spec is required when it has required fields.
    if (!kind.spec.required.empty()) required.push_back("spec");
  }
  Json def = Json::object();
  if (!kind.description.empty()) def["description"] = kind.description;
  def["type"] = "object";
  def["properties"] = std::move(props);
  if (!required.empty()) def["required"] = std::move(required);
  def["x-kubernetes-group-version-kind"] = Json::array({Gvk(kind.group, kind.version, kind.kind)});
  return def;
}

Json ListDefinition(Flavor f, const KindInfo& kind) {
  Json props = Json::object();
  props["apiVersion"] = Str("The versioned schema of this object: " + kind.api_version() + ".");
  props["items"] = ArrayOf(Ref(f, OpenApiDefinitionName(kind)), "The " + kind.kind + " objects.");
  props["kind"] = Str("The kind of this object: " + kind.kind + "List.");
  props["metadata"] = RefProperty(f, Meta("ListMeta"), "Standard list metadata.");
  Json def = ObjectOf("A list of " + kind.kind + " objects.", std::move(props));
  def["required"] = Json::array({"items"});
  def["x-kubernetes-group-version-kind"] =
      Json::array({Gvk(kind.group, kind.version, kind.kind + "List")});
  return def;
}

// ---------------------------------------------------------------------------------------------
// Paths

struct ParamSpec {
  std::string_view name;
  std::string_view in;  // path or query
  std::string_view type;
  std::string_view description;
};

// Every parameter an operation may take, described once.
constexpr ParamSpec kParams[] = {
    {"namespace", "path", "string", "The namespace of the objects."},
    {"name", "path", "string", "The name of the object."},
    {"pretty", "query", "string", "If 'true', the response is indented."},
    {"dryRun", "query", "string",
     "When 'All', the request is validated and answered but nothing is stored."},
    {"fieldManager", "query", "string",
     "The name of the actor making the change, recorded in managedFields. Required for apply "
     "patches."},
    {"fieldValidation", "query", "string",
     "What the server does with fields the schema does not declare and with duplicated "
     "fields: Ignore (drop them), Warn (keep going with a warning; the default) or Strict "
     "(fail the request)."},
    {"force", "query", "boolean",
     "Apply patches only: take over fields other managers own instead of failing with a "
     "conflict."},
    {"labelSelector", "query", "string", "Only objects whose labels match this selector."},
    {"fieldSelector", "query", "string", "Only objects whose fields match this selector."},
    {"limit", "query", "integer",
     "At most this many objects; the list's metadata.continue then asks for the rest."},
    {"continue", "query", "string", "The metadata.continue of the previous page."},
    {"resourceVersion", "query", "string", "The store version to read at, or to watch from."},
    {"resourceVersionMatch", "query", "string", "How resourceVersion is matched on lists."},
    {"watch", "query", "boolean",
     "Stream the changes to the objects (added, modified, deleted) instead of listing them."},
    {"allowWatchBookmarks", "query", "boolean", "Watches may send BOOKMARK events."},
    {"timeoutSeconds", "query", "integer", "Ends a list or watch after this many seconds."},
    {"gracePeriodSeconds", "query", "integer", "Seconds the object may take to go."},
    {"propagationPolicy", "query", "string",
     "What happens to the objects this one owns: Orphan, Background or Foreground."},
};

Json Param(Flavor f, std::string_view name) {
  const ParamSpec* spec = nullptr;
  for (const ParamSpec& p : kParams) {
    if (p.name == name) spec = &p;
  }
  // Only this file names parameters, all from kParams; a miss is a typo here.
  assert(spec != nullptr && "a parameter missing from kParams");
  Json p = Json::object();
  p["name"] = std::string(spec->name);
  p["in"] = std::string(spec->in);
  p["description"] = std::string(spec->description);
  if (spec->in == "path") p["required"] = true;
  if (f == Flavor::kV2) {
    p["type"] = std::string(spec->type);
    p["uniqueItems"] = true;
  } else {
    p["schema"] = Json{{"type", std::string(spec->type)}, {"uniqueItems", true}};
  }
  return p;
}

Json Params(Flavor f, const std::vector<std::string_view>& names) {
  Json out = Json::array();
  for (auto n : names) out.push_back(Param(f, n));
  return out;
}

const std::vector<std::string_view> kListParams = {
    "allowWatchBookmarks",  "continue",       "fieldSelector",
    "labelSelector",        "limit",          "resourceVersion",
    "resourceVersionMatch", "timeoutSeconds", "watch"};
const std::vector<std::string_view> kWriteParams = {"dryRun", "fieldManager", "fieldValidation"};
const std::vector<std::string_view> kPatchParams = {"dryRun", "fieldManager", "fieldValidation",
                                                    "force"};
const std::vector<std::string_view> kDeleteParams = {"dryRun", "gracePeriodSeconds",
                                                     "propagationPolicy"};

// The content types of request bodies. Patches leave out strategic merge patch, as
// kube-apiserver does for custom resources: it needs per-field merge keys hop's schemas do not
// declare, and without it kubectl sends hop's kinds JSON merge patches.
const std::vector<std::string> kPatchTypes = {
    "application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"};
const std::vector<std::string> kObjectTypes = {"application/json", "application/yaml"};
const std::vector<std::string> kResponseTypes = {"application/json", "application/yaml"};
const std::vector<std::string> kWatchResponseTypes = {"application/json", "application/yaml",
                                                      "application/json;stream=watch"};

struct Operation {
  std::string method = {};  // get, post, put, patch, delete
  std::string action = {};  // x-kubernetes-action
  std::string id = {};
  std::string description = {};
  std::vector<std::string_view> params = {};  // query parameters of this operation
  std::string body = {};                      // definition of the request body, or empty
  bool body_required = true;
  const std::vector<std::string>* body_types = &kObjectTypes;
  std::vector<std::pair<std::string, std::string>> responses = {};  // code, definition
  const std::vector<std::string>* response_types = &kResponseTypes;
};

std::string_view CodeText(std::string_view code) {
  if (code == "200") return "OK";
  if (code == "201") return "Created";
  if (code == "202") return "Accepted";
  return "Unauthorized";
}

// "hoptimator.linkedin.com" -> "HoptimatorLinkedinCom"; the core group is "Core".
std::string GroupPascal(const std::string& group) {
  if (group.empty()) return "Core";
  std::string out;
  bool up = true;
  for (char c : group) {
    if (c == '.' || c == '-') {
      up = true;
      continue;
    }
    out += up ? AsciiUpper(c) : c;
    up = false;
  }
  return out;
}

std::string Capitalized(std::string s) {
  if (!s.empty()) s[0] = AsciiUpper(s[0]);
  return s;
}

Json OperationJson(Flavor f, const KindInfo& kind, const Operation& op) {
  std::string tag = GroupPascal(kind.group) + "_" + kind.version;
  tag[0] = AsciiLower(tag[0]);
  Json o = Json::object();
  o["description"] = op.description;
  if (f == Flavor::kV2) {
    o["consumes"] = op.body.empty() ? Json::array({"*/*"}) : Json(*op.body_types);
    o["produces"] = *op.response_types;
    o["schemes"] = Json::array({"https"});
  }
  o["tags"] = Json::array({tag});
  o["operationId"] = op.id;
  Json params = Params(f, op.params);
  if (!op.body.empty()) {
    if (f == Flavor::kV2) {
      Json body = Json::object();
      body["name"] = "body";
      body["in"] = "body";
      if (op.body_required) body["required"] = true;
      body["schema"] = Ref(f, op.body);
      params.insert(params.begin(), std::move(body));
    } else {
      Json content = Json::object();
      for (const auto& t : *op.body_types) content[t] = Json{{"schema", Ref(f, op.body)}};
      Json body = Json{{"content", std::move(content)}};
      if (op.body_required) body["required"] = true;
      o["requestBody"] = std::move(body);
    }
  }
  if (!params.empty()) o["parameters"] = std::move(params);
  Json responses = Json::object();
  for (const auto& [code, def] : op.responses) {
    Json r = Json::object();
    r["description"] = std::string(CodeText(code));
    if (f == Flavor::kV2) {
      r["schema"] = Ref(f, def);
    } else {
      Json content = Json::object();
      for (const auto& t : *op.response_types) content[t] = Json{{"schema", Ref(f, def)}};
      r["content"] = std::move(content);
    }
    responses[code] = std::move(r);
  }
  responses["401"] = Json{{"description", "Unauthorized"}};
  o["responses"] = std::move(responses);
  o["x-kubernetes-action"] = op.action;
  o["x-kubernetes-group-version-kind"] = Gvk(kind.group, kind.version, kind.kind);
  return o;
}

Json PathItem(Flavor f, const KindInfo& kind, const std::vector<std::string_view>& path_params,
              const std::vector<Operation>& ops) {
  Json item = Json::object();
  for (const Operation& op : ops) item[op.method] = OperationJson(f, kind, op);
  std::vector<std::string_view> shared = path_params;
  shared.push_back("pretty");
  item["parameters"] = Params(f, shared);
  return item;
}

void AddPaths(Flavor f, const KindInfo& kind, Json& paths) {
  const std::string base =
      kind.group.empty() ? "/api/" + kind.version : "/apis/" + kind.group + "/" + kind.version;
  const std::string collection =
      base + (kind.namespaced ? "/namespaces/{namespace}/" : "/") + kind.plural;
  const std::string item = collection + "/{name}";
  const std::string self = OpenApiDefinitionName(kind);
  const std::string list = self + "List";
  const std::string status = Meta("Status");
  // operationIds as kube-apiserver forms them: verb, group, version, scope, kind, subresource.
  const std::string id_tail = GroupPascal(kind.group) + Capitalized(kind.version) +
                              (kind.namespaced ? "Namespaced" : "") + kind.kind;
  const std::string& k = kind.kind;
  std::vector<std::string_view> scope;
  if (kind.namespaced) scope.push_back("namespace");
  std::vector<std::string_view> item_scope = {"name"};
  if (kind.namespaced) item_scope.push_back("namespace");

  Operation list_op{.method = "get",
                    .action = "list",
                    .id = "list" + id_tail,
                    .description = "List or watch objects of kind " + k + ".",
                    .params = kListParams,
                    .responses = {{"200", list}},
                    .response_types = &kWatchResponseTypes};
  Operation create{.method = "post",
                   .action = "post",
                   .id = "create" + id_tail,
                   .description = "Create a " + k + ".",
                   .params = kWriteParams,
                   .body = self,
                   .responses = {{"200", self}, {"201", self}, {"202", self}}};
  paths[collection] = PathItem(f, kind, scope, {list_op, create});

  auto read = [&](const std::string& suffix, const std::string& what) {
    return Operation{.method = "get",
                     .action = "get",
                     .id = "read" + id_tail + suffix,
                     .description = "Read " + what + ".",
                     .responses = {{"200", self}}};
  };
  auto replace = [&](const std::string& suffix, const std::string& what) {
    return Operation{.method = "put",
                     .action = "put",
                     .id = "replace" + id_tail + suffix,
                     .description = "Replace " + what + ".",
                     .params = kWriteParams,
                     .body = self,
                     .responses = {{"200", self}, {"201", self}}};
  };
  auto patch = [&](const std::string& suffix, const std::string& what) {
    return Operation{.method = "patch",
                     .action = "patch",
                     .id = "patch" + id_tail + suffix,
                     .description = "Partially update " + what + ".",
                     .params = kPatchParams,
                     .body = Meta("Patch"),
                     .body_types = &kPatchTypes,
                     .responses = {{"200", self}, {"201", self}}};
  };
  Operation del{.method = "delete",
                .action = "delete",
                .id = "delete" + id_tail,
                .description = "Delete a " + k + ".",
                .params = kDeleteParams,
                .body = Meta("DeleteOptions"),
                .body_required = false,
                .responses = {{"200", status}, {"202", status}}};
  const std::string the = "the given " + k;
  paths[item] =
      PathItem(f, kind, item_scope, {read("", the), replace("", the), del, patch("", the)});
  if (kind.status_subresource) {
    const std::string its = "the status of the given " + k;
    paths[item + "/status"] = PathItem(
        f, kind, item_scope, {read("Status", its), replace("Status", its), patch("Status", its)});
  }
  if (kind.namespaced) {
    Operation all{
        .method = "get",
        .action = "list",
        .id = "list" + GroupPascal(kind.group) + Capitalized(kind.version) + k + "ForAllNamespaces",
        .description = "List or watch objects of kind " + k + " in every namespace.",
        .params = kListParams,
        .responses = {{"200", list}},
        .response_types = &kWatchResponseTypes};
    paths[base + "/" + kind.plural] = PathItem(f, kind, {}, {all});
  }
}

// The kinds in order, without repeats of a definition name (a caller may pass a kind twice).
std::vector<const KindInfo*> Distinct(const std::vector<const KindInfo*>& kinds) {
  std::set<std::string> seen;
  std::vector<const KindInfo*> out;
  for (const KindInfo* k : kinds) {
    if (seen.insert(OpenApiDefinitionName(*k)).second) out.push_back(k);
  }
  return out;
}

void AddKinds(Flavor f, const std::vector<const KindInfo*>& kinds, Json& paths, Json& defs) {
  for (const KindInfo* k : kinds) {
    const std::string name = OpenApiDefinitionName(*k);
    defs[name] = KindDefinition(f, *k);
    defs[name + "List"] = ListDefinition(f, *k);
    AddPaths(f, *k, paths);
  }
  AddMetaDefinitions(f, defs);
}

Json Info() { return Json{{"title", "hop"}, {"version", "v1"}}; }

// "api/v1" or "apis/GROUP/VERSION": the key of a group-version in the v3 index.
std::string GroupVersionPath(const std::string& group, const std::string& version) {
  return group.empty() ? "api/" + version : "apis/" + group + "/" + version;
}

}  // namespace

std::string OpenApiDefinitionName(const KindInfo& kind) {
  std::string prefix;
  if (kind.group == resource::kApiextensionsGroup) {
    // CustomResourceDefinition lives in its own server's packages.
    prefix = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions";
  } else if (kind.group.empty()) {
    prefix = "io.k8s.api.core";
  } else if (kind.group.find('.') == std::string::npos) {
    prefix = "io.k8s.api." + kind.group;  // batch, apps, ...
  } else if (kind.group.ends_with(".k8s.io")) {
    prefix = "io.k8s.api." + kind.group.substr(0, kind.group.find('.'));  // networking.k8s.io
  } else {
    // Reversed label by label: flink.apache.org -> org.apache.flink.
    std::string label;
    for (char c : kind.group) {
      if (c != '.') {
        label += c;
        continue;
      }
      prefix = prefix.empty() ? label : label + "." + prefix;
      label.clear();
    }
    prefix = prefix.empty() ? label : label + "." + prefix;
  }
  return prefix + "." + kind.version + "." + kind.kind;
}

Json OpenApiV2(const std::vector<const KindInfo*>& kinds) {
  Json paths = Json::object();
  Json defs = Json::object();
  AddKinds(Flavor::kV2, Distinct(kinds), paths, defs);
  Json doc = Json::object();
  doc["swagger"] = "2.0";
  doc["info"] = Info();
  doc["paths"] = std::move(paths);
  doc["definitions"] = std::move(defs);
  return doc;
}

Result<Json> OpenApiV3(std::string_view group, std::string_view version,
                       const std::vector<const KindInfo*>& kinds) {
  std::vector<const KindInfo*> mine;
  for (const KindInfo* k : Distinct(kinds)) {
    if (k->group == group && k->version == version) mine.push_back(k);
  }
  if (mine.empty()) {
    return Status::NotFound("no kinds are served in " +
                            GroupVersionPath(std::string(group), std::string(version)));
  }
  Json paths = Json::object();
  Json schemas = Json::object();
  AddKinds(Flavor::kV3, mine, paths, schemas);
  Json doc = Json::object();
  doc["openapi"] = "3.0.0";
  doc["info"] = Info();
  doc["paths"] = std::move(paths);
  doc["components"] = Json{{"schemas", std::move(schemas)}};
  return doc;
}

Json OpenApiV3Index(const std::vector<const KindInfo*>& kinds) {
  std::set<std::pair<std::string, std::string>> gvs;
  for (const KindInfo* k : kinds) gvs.emplace(k->group, k->version);
  Json paths = Json::object();
  for (const auto& [group, version] : gvs) {
    Result<Json> doc = OpenApiV3(group, version, kinds);
    // The group-version came from `kinds`, so it has at least one kind.
    assert(doc.ok() && "a group-version of the kinds without a document");
    const std::string key = GroupVersionPath(group, version);
    paths[key] = Json{{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + OpenApiV3Hash(*doc)}};
  }
  return Json{{"paths", std::move(paths)}};
}

std::string OpenApiV3Hash(const Json& doc) {
  return digest::Hex(digest::Of<digest::Sha512>(doc.dump()), /*upper=*/true);
}

}  // namespace hop::server
