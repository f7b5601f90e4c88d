// CRD generation.
#include "resource/crd.h"

#include <nlohmann/json.hpp>

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

}  // namespace hop::resource
