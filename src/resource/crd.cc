// CRD generation, and the reading and checking of installed CRDs.
#include "resource/crd.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "common/strings.h"
#include "resource/names.h"

namespace hop::resource {

Json CustomResourceDefinition(const KindInfo& kind) {
  Json names = Json::object();
  names["kind"] = kind.kind;
  names["listKind"] = kind.kind + "List";
  names["plural"] = kind.plural;
  names["singular"] = kind.singular;
  if (!kind.short_names.empty()) names["shortNames"] = kind.short_names;

  Json root = Json::object();
  if (!kind.description.empty()) root["description"] = kind.description;
  root["type"] = "object";
  Json props = Json::object();
  props["apiVersion"] = Json{{"type", "string"}};
  props["kind"] = Json{{"type", "string"}};
  props["metadata"] = Json{{"type", "object"}};
  props["spec"] = ToOpenApi(kind.spec);
  props["status"] = ToOpenApi(kind.status);
  root["properties"] = std::move(props);
  if (!kind.spec.required.empty()) root["required"] = Json::array({"spec"});

  Json version = Json::object();
  version["name"] = kind.version;
  version["served"] = true;
  version["storage"] = true;
  version["schema"] = Json{{"openAPIV3Schema", std::move(root)}};
  if (kind.status_subresource) version["subresources"] = Json{{"status", Json::object()}};
  if (!kind.columns.empty()) {
    Json columns = Json::array();
    for (const auto& c : kind.columns) {
      Json col = Json::object();
      col["name"] = c.name;
      col["type"] = c.type;
      if (!c.format.empty()) col["format"] = c.format;
      if (!c.description.empty()) col["description"] = c.description;
      col["jsonPath"] = c.json_path;
      columns.push_back(std::move(col));
    }
    version["additionalPrinterColumns"] = std::move(columns);
  }

  Json crd = Json::object();
  crd["apiVersion"] = "apiextensions.k8s.io/v1";
  crd["kind"] = "CustomResourceDefinition";
  crd["metadata"] = Json{{"name", kind.plural + "." + kind.group}};
  Json spec = Json::object();
  spec["group"] = kind.group;
  spec["names"] = std::move(names);
  spec["scope"] = kind.namespaced ? "Namespaced" : "Cluster";
  spec["versions"] = Json::array({std::move(version)});
  crd["spec"] = std::move(spec);
  return crd;
}

std::vector<Json> AllCustomResourceDefinitions() {
  std::vector<Json> out;
  for (const KindInfo* k : HopKinds()) out.push_back(CustomResourceDefinition(*k));
  return out;
}

namespace {

std::string Quoted(const Json& v) { return v.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string Text(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Whether `name` is a lowercase RFC 1123 label, as plural, singular, short names and categories
// must be.
bool IsDnsLabel(std::string_view name) { return ValidateDnsLabel(name).ok(); }

// Whether `name` is an RFC 1035 label (a DNS label that starts with a letter), as version names
// must be.
bool IsDns1035Label(std::string_view name) {
  return IsDnsLabel(name) && name.front() >= 'a' && name.front() <= 'z';
}

// Whether `kind` reads as a kind: a letter, then letters and digits.
bool IsKindName(std::string_view kind) {
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (kind.empty() || !letter(kind.front())) return false;
  return std::all_of(kind.begin(), kind.end(),
                     [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

bool HasCelRules(const Json& node) {
  if (node.is_object()) {
    if (node.contains("x-kubernetes-validations")) return true;
    for (const auto& [key, value] : node.items()) {
      if (HasCelRules(value)) return true;
    }
  } else if (node.is_array()) {
    for (const Json& value : node) {
      if (HasCelRules(value)) return true;
    }
  }
  return false;
}

void CheckLabel(const Json& value, const std::string& path, std::vector<std::string>* errors) {
  if (!value.is_string() || !IsDnsLabel(value.get<std::string>())) {
    errors->push_back(fmt::format(
        "{}: Invalid value: {}: a lowercase RFC 1123 label must consist of lower case "
        "alphanumeric characters or '-', and must start and end with an alphanumeric character",
        path, Quoted(value)));
  }
}

void CheckNames(const Json& names, std::vector<std::string>* errors) {
  if (!names.is_object()) {
    errors->push_back("spec.names: Required value");
    return;
  }
  for (const char* key : {"plural", "kind"}) {
    if (Text(names, key).empty()) {
      errors->push_back(fmt::format("spec.names.{}: Required value", key));
    }
  }
  for (const char* key : {"plural", "singular"}) {
    if (auto it = names.find(key);
        it != names.end() && !(it->is_string() && it->get<std::string>().empty())) {
      CheckLabel(*it, fmt::format("spec.names.{}", key), errors);
    }
  }
  for (const char* key : {"kind", "listKind"}) {
    auto it = names.find(key);
    if (it == names.end() || (it->is_string() && it->get<std::string>().empty())) continue;
    if (!it->is_string() || !IsKindName(it->get<std::string>())) {
      errors->push_back(fmt::format(
          "spec.names.{}: Invalid value: {}: may have mixed case, but should otherwise match: "
          "[a-z]([-a-z0-9]*[a-z0-9])?",
          key, Quoted(*it)));
    }
  }
  if (Text(names, "kind") != "" && Text(names, "kind") == Text(names, "listKind")) {
    errors->push_back(
        fmt::format("spec.names.listKind: Invalid value: {}: kind and listKind may not be the same",
                    Quoted(names["listKind"])));
  }
  for (const char* key : {"shortNames", "categories"}) {
    auto it = names.find(key);
    if (it == names.end() || it->is_null()) continue;
    if (!it->is_array()) {
      errors->push_back(fmt::format("spec.names.{}: Invalid value: {}: must be a list of strings",
                                    key, Quoted(*it)));
      continue;
    }
    for (size_t i = 0; i < it->size(); ++i) {
      CheckLabel((*it)[i], fmt::format("spec.names.{}[{}]", key, i), errors);
    }
  }
}

void CheckVersion(const Json& v, size_t i, std::vector<std::string>* errors) {
  const std::string path = fmt::format("spec.versions[{}]", i);
  if (!v.is_object()) {
    errors->push_back(fmt::format("{}: Invalid value: {}: must be an object", path, Quoted(v)));
    return;
  }
  const Json name = v.value("name", Json());
  if (!name.is_string() || name.get<std::string>().empty()) {
    errors->push_back(path + ".name: Required value");
  } else if (!IsDns1035Label(name.get<std::string>())) {
    errors->push_back(fmt::format(
        "{}.name: Invalid value: {}: a DNS-1035 label must consist of lower case alphanumeric "
        "characters or '-', start with an alphabetic character, and end with an alphanumeric "
        "character",
        path, Quoted(name)));
  }
  for (const char* key : {"served", "storage"}) {
    auto it = v.find(key);
    if (it == v.end() || !it->is_boolean()) {
      errors->push_back(fmt::format("{}.{}: Required value: must be true or false", path, key));
    }
  }
  const Json* schema = nullptr;
  if (auto it = v.find("schema"); it != v.end() && it->is_object()) {
    if (auto s = it->find("openAPIV3Schema"); s != it->end()) schema = &*s;
  }
  if (schema == nullptr) {
    errors->push_back(path + ".schema.openAPIV3Schema: Required value: schemas are required");
  } else {
    CheckStructuralSchema(*schema, path + ".schema.openAPIV3Schema", errors);
  }
  if (auto it = v.find("subresources"); it != v.end() && !it->is_null()) {
    if (!it->is_object()) {
      errors->push_back(
          fmt::format("{}.subresources: Invalid value: {}: must be an object", path, Quoted(*it)));
    } else if (auto st = it->find("status"); st != it->end() && !st->is_object()) {
      errors->push_back(fmt::format("{}.subresources.status: Invalid value: {}: must be an object",
                                    path, Quoted(*st)));
    }
  }
  if (auto it = v.find("additionalPrinterColumns"); it != v.end() && !it->is_null()) {
    if (!it->is_array()) {
      errors->push_back(fmt::format(
          "{}.additionalPrinterColumns: Invalid value: {}: must be a list", path, Quoted(*it)));
      return;
    }
    for (size_t c = 0; c < it->size(); ++c) {
      const Json& col = (*it)[c];
      const std::string where = fmt::format("{}.additionalPrinterColumns[{}]", path, c);
      if (!col.is_object()) {
        errors->push_back(
            fmt::format("{}: Invalid value: {}: must be an object", where, Quoted(col)));
        continue;
      }
      for (const char* key : {"name", "type", "jsonPath"}) {
        if (Text(col, key).empty())
          errors->push_back(fmt::format("{}.{}: Required value", where, key));
      }
      const std::string type = Text(col, "type");
      if (!type.empty() && type != "integer" && type != "number" && type != "string" &&
          type != "boolean" && type != "date") {
        errors->push_back(
            fmt::format("{}.type: Unsupported value: {}: supported values: \"boolean\", \"date\", "
                        "\"integer\", \"number\", \"string\"",
                        where, Quoted(col["type"])));
      }
    }
  }
}

}  // namespace

std::vector<std::string> CheckCustomResourceDefinition(const Json& crd) {
  std::vector<std::string> errors;
  const Json spec = crd.is_object() ? crd.value("spec", Json()) : Json();
  if (!spec.is_object()) {
    errors.push_back("spec: Required value");
    return errors;
  }
  const std::string group = Text(spec, "group");
  if (group.empty()) {
    errors.push_back("spec.group: Required value");
  } else if (group.find('.') == std::string::npos) {
    errors.push_back(
        fmt::format("spec.group: Invalid value: {}: should be a domain with at least one dot",
                    Quoted(spec["group"])));
  } else {
    size_t start = 0;
    while (start <= group.size()) {
      size_t dot = group.find('.', start);
      if (dot == std::string::npos) dot = group.size();
      if (!IsDnsLabel(std::string_view(group).substr(start, dot - start))) {
        errors.push_back(fmt::format(
            "spec.group: Invalid value: {}: a lowercase RFC 1123 subdomain must consist of lower "
            "case alphanumeric characters, '-' or '.'",
            Quoted(spec["group"])));
        break;
      }
      start = dot + 1;
    }
  }
  const Json names = spec.value("names", Json());
  CheckNames(names, &errors);
  const std::string plural = names.is_object() ? Text(names, "plural") : "";
  const std::string name =
      crd.contains("metadata") && crd["metadata"].is_object() ? Text(crd["metadata"], "name") : "";
  if (!plural.empty() && !group.empty() && name != plural + "." + group) {
    errors.push_back(fmt::format(
        "metadata.name: Invalid value: \"{}\": must be spec.names.plural+\".\"+spec.group", name));
  }
  const Json scope = spec.value("scope", Json());
  if (scope != "Namespaced" && scope != "Cluster") {
    errors.push_back(scope.is_null() ? std::string("spec.scope: Required value")
                                     : fmt::format("spec.scope: Unsupported value: {}: supported "
                                                   "values: \"Cluster\", \"Namespaced\"",
                                                   Quoted(scope)));
  }
  const Json versions = spec.value("versions", Json());
  if (!versions.is_array() || versions.empty()) {
    errors.push_back(
        "spec.versions: Invalid value: null: must have exactly one version marked as "
        "storage version");
    return errors;
  }
  std::set<std::string> seen;
  int storage = 0;
  for (size_t i = 0; i < versions.size(); ++i) {
    CheckVersion(versions[i], i, &errors);
    if (!versions[i].is_object()) continue;
    const std::string version = Text(versions[i], "name");
    if (!version.empty() && !seen.insert(version).second) {
      errors.push_back(fmt::format("spec.versions[{}].name: Duplicate value: \"{}\"", i, version));
    }
    if (versions[i].value("storage", Json()) == true) ++storage;
  }
  if (storage != 1) {
    errors.push_back(fmt::format(
        "spec.versions: Invalid value: {}: must have exactly one version marked as storage "
        "version",
        Quoted(versions)));
  }
  return errors;
}

Result<InstalledCrd> ReadCustomResourceDefinition(const Json& crd) {
  const std::vector<std::string> errors = CheckCustomResourceDefinition(crd);
  if (!errors.empty()) return Status::ValidationError(JoinFieldErrors(errors));
  const Json& spec = crd["spec"];
  const Json& names = spec["names"];
  InstalledCrd out;
  out.name = Text(crd["metadata"], "name");
  out.group = Text(spec, "group");
  out.kind = Text(names, "kind");
  out.plural = Text(names, "plural");
  out.singular = Text(names, "singular");
  if (out.singular.empty()) out.singular = AsciiToLower(out.kind);
  out.list_kind = Text(names, "listKind");
  if (out.list_kind.empty()) out.list_kind = out.kind + "List";
  for (const char* key : {"shortNames", "categories"}) {
    std::vector<std::string>& list =
        std::string_view(key) == "shortNames" ? out.short_names : out.categories;
    if (auto it = names.find(key); it != names.end() && it->is_array()) {
      for (const Json& v : *it) list.push_back(v.get<std::string>());
    }
  }
  out.namespaced = spec["scope"] == "Namespaced";
  for (size_t i = 0; i < spec["versions"].size(); ++i) {
    const Json& v = spec["versions"][i];
    CustomResourceVersion version;
    version.name = Text(v, "name");
    version.served = v["served"].get<bool>();
    version.storage = v["storage"].get<bool>();
    if (auto sub = v.find("subresources"); sub != v.end() && sub->is_object()) {
      version.status_subresource = sub->contains("status");
    }
    if (auto cols = v.find("additionalPrinterColumns"); cols != v.end() && cols->is_array()) {
      for (const Json& c : *cols) {
        version.columns.push_back({Text(c, "name"), Text(c, "type"), Text(c, "jsonPath"),
                                   Text(c, "description"), Text(c, "format")});
      }
    }
    const Json& schema = v["schema"]["openAPIV3Schema"];
    out.has_cel_rules = out.has_cel_rules || HasCelRules(schema);
    HOP_ASSIGN_OR_RETURN(version.schema,
                         StructuralSchema::Compile(
                             schema, fmt::format("spec.versions[{}].schema.openAPIV3Schema", i)));
    version.schema_json = std::make_shared<const Json>(schema);
    out.versions.push_back(std::move(version));
  }
  return out;
}

const CustomResourceVersion* InstalledCrd::ServedStorageVersion() const {
  for (const CustomResourceVersion& v : versions) {
    if (v.storage) return v.served ? &v : nullptr;
  }
  return nullptr;
}

const CustomResourceVersion* InstalledCrd::ServedVersion(std::string_view version) const {
  for (const CustomResourceVersion& v : versions) {
    if (v.served && v.name == version) return &v;
  }
  return nullptr;
}

KindInfo InstalledCrd::ServedKind(const CustomResourceVersion& version) const {
  KindInfo info;
  info.group = group;
  info.version = version.name;
  info.kind = kind;
  info.plural = plural;
  info.singular = singular;
  info.short_names = short_names;
  info.categories = categories;
  info.namespaced = namespaced;
  info.status_subresource = version.status_subresource;
  info.spec = Schema::FreeForm();
  info.status = Schema::FreeForm();
  info.columns = version.columns;
  info.open_api_schema = version.schema_json;
  return info;
}

Json CustomResourceDefinitionStatus(const InstalledCrd& crd, const std::string& conflict,
                                    const Json& previous, const std::string& now) {
  const bool accepted = conflict.empty();
  auto condition = [&](const char* type, const char* reason, const std::string& message) {
    Json c = Json::object();
    c["type"] = type;
    c["status"] = accepted ? "True" : "False";
    c["reason"] = reason;
    c["message"] = message;
    c["lastTransitionTime"] = now;
    if (previous.is_object() && previous.contains("conditions") &&
        previous["conditions"].is_array()) {
      for (const Json& old : previous["conditions"]) {
        // The stored status is anyone's to write: nothing is assumed of its types.
        if (old.is_object() && old.value("type", Json()) == type &&
            old.value("status", Json()) == c["status"] && old.contains("lastTransitionTime")) {
          c["lastTransitionTime"] = old["lastTransitionTime"];
        }
      }
    }
    return c;
  };
  Json status = Json::object();
  status["conditions"] =
      Json::array({condition("NamesAccepted", accepted ? "NoConflicts" : "NameConflict",
                             accepted ? "no conflicts found" : conflict),
                   condition("Established", accepted ? "InitialNamesAccepted" : "NotAccepted",
                             accepted ? "the initial names have been accepted"
                                      : "not all names are accepted")});
  Json names = Json::object();
  if (accepted) {
    names["kind"] = crd.kind;
    names["listKind"] = crd.list_kind;
    names["plural"] = crd.plural;
    names["singular"] = crd.singular;
    if (!crd.short_names.empty()) names["shortNames"] = crd.short_names;
    if (!crd.categories.empty()) names["categories"] = crd.categories;
  } else {
    names["kind"] = "";
    names["plural"] = "";
  }
  status["acceptedNames"] = std::move(names);
  Json stored = Json::array();
  for (const CustomResourceVersion& v : crd.versions) {
    if (v.storage) stored.push_back(v.name);
  }
  status["storedVersions"] = std::move(stored);
  return status;
}

}  // namespace hop::resource
