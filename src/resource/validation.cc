// Resource validation.
#include "resource/validation.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "resource/kinds.h"
#include "resource/names.h"
#include "template/template.h"

namespace hop::resource {
namespace {

void Check(const Status& s, const std::string& path, Issues* issues) {
  if (!s.ok()) issues->Error(fmt::format("{}: {}", path, s.message()));
}

void ValidateStringMap(const Json& md, const char* key, bool labels, Issues* issues) {
  auto it = md.find(key);
  if (it == md.end() || it->is_null()) return;
  const std::string path = std::string("metadata.") + key;
  if (!it->is_object()) {
    issues->Error(path + ": must be a mapping of strings");
    return;
  }
  for (auto e = it->begin(); e != it->end(); ++e) {
    const std::string entry = fmt::format("{}.{}", path, e.key());
    Check(labels ? ValidateLabelKey(e.key()) : ValidateAnnotationKey(e.key()), entry, issues);
    if (!e.value().is_string()) {
      issues->Error(entry + ": value must be a string");
    } else if (labels) {
      Check(ValidateLabelValue(e.value().get<std::string>()), entry, issues);
    }
  }
}

// The fields of every Kubernetes object besides its kind's own, and those of its metadata.
constexpr std::string_view kObjectFields[] = {"apiVersion", "kind", "metadata"};
constexpr std::string_view kMetadataFields[] = {"name",
                                                "generateName",
                                                "namespace",
                                                "uid",
                                                "labels",
                                                "annotations",
                                                "resourceVersion",
                                                "generation",
                                                "finalizers",
                                                "creationTimestamp",
                                                "deletionTimestamp",
                                                "deletionGracePeriodSeconds",
                                                "ownerReferences",
                                                "managedFields",
                                                "selfLink"};

// One top-level field of a kind (KindInfo::ObjectFields, without copying the schemas).
struct KindField {
  std::string_view name;
  const Schema* schema;
};

std::vector<KindField> FieldsOf(const KindInfo& kind) {
  std::vector<KindField> out;
  if (kind.top_level.properties.empty()) return {{"spec", &kind.spec}, {"status", &kind.status}};
  for (const SchemaProperty& p : kind.top_level.properties) out.push_back({p.name, &p.schema});
  return out;
}

void CheckUnknown(const Json& object, const std::vector<std::string_view>& known,
                  const std::string& path, UnknownFields unknown, Issues* issues) {
  for (const auto& [key, value] : object.items()) {
    bool found = false;
    for (std::string_view k : known) found |= k == key;
    if (found) continue;
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    std::string message = fmt::format("{}{}: unknown field (known fields: {})", path, key, list);
    if (unknown == UnknownFields::kReject) {
      issues->Error(std::move(message));
    } else {
      issues->Warning(std::move(message));
    }
  }
}

// The fields whose text is a template (docs/templates.md), rendered later for every pipeline or
// trigger fire: a syntax error found now is one error at apply time, not a failure of every
// statement that would use the template.
void ValidateTemplates(const Resource& r, const KindInfo& kind, Issues* issues) {
  std::vector<const Field<std::string>*> fields;
  if (&kind == &TableTemplateKind::Info()) {
    fields = {&TableTemplateKind::kYaml, &TableTemplateKind::kConnector};
  } else if (&kind == &JobTemplateKind::Info()) {
    fields = {&JobTemplateKind::kYaml};
  } else if (&kind == &TableTriggerKind::Info()) {
    fields = {&TableTriggerKind::kYaml};
  }
  for (const Field<std::string>* field : fields) {
    const std::optional<std::string> text = field->Get(r);
    if (!text) continue;
    if (Status s = tmpl::CheckSyntax(*text); !s.ok()) {
      // The first line says what and where; the source line and caret do not fit the tree.
      const std::string& message = s.message();
      issues->Error(fmt::format("{}: {}", field->path(), message.substr(0, message.find('\n'))));
    }
  }
}

}  // namespace

void ValidateResource(const Resource& r, Issues* issues, const ValidationOptions& options) {
  const Json& doc = r.json();
  auto md_it = doc.find("metadata");
  if (md_it == doc.end() || !md_it->is_object()) {
    issues->Error("metadata: required mapping is missing");
    return;
  }
  const Json& md = *md_it;
  const KindInfo* kind = FindKind(r.group_kind());
  const bool hop_kind = kind != nullptr && r.group() == kHopGroup;
  // The fields of the kind: spec and status, or its own top-level fields (a ConfigMap's data).
  // (Only when something reads them: the store validates every write with neither option.)
  const bool checks_fields =
      options.unknown_fields != UnknownFields::kAllow || options.external_fields;
  const std::vector<KindField> fields =
      kind != nullptr && checks_fields ? FieldsOf(*kind) : std::vector<KindField>();
  if (options.unknown_fields != UnknownFields::kAllow) {
    if (kind != nullptr) {
      std::vector<std::string_view> known(std::begin(kObjectFields), std::end(kObjectFields));
      for (const KindField& f : fields) known.push_back(f.name);
      CheckUnknown(doc, known, "", options.unknown_fields, issues);
    }
    CheckUnknown(
        md, std::vector<std::string_view>(std::begin(kMetadataFields), std::end(kMetadataFields)),
        "metadata.", options.unknown_fields, issues);
  }
  Check(kind != nullptr && kind->validate_name != nullptr ? kind->validate_name(r.name())
                                                          : ValidateObjectName(r.name()),
        "metadata.name", issues);
  auto ns = md.find("namespace");
  if (ns != md.end() && !ns->is_null()) {
    if (!ns->is_string()) {
      issues->Error("metadata.namespace: must be a string");
    } else {
      Check(ValidateDnsLabel(ns->get<std::string>()), "metadata.namespace", issues);
    }
  }
  ValidateStringMap(md, "labels", true, issues);
  ValidateStringMap(md, "annotations", false, issues);

  // What the kind's API server refuses beyond the fields' types (a ConfigMap's keys), checked
  // whatever the options say, as that server checks it.
  for (const std::string& e : ObjectErrors(r)) issues->Error(e);
  if (kind != nullptr && !hop_kind && options.external_fields) {
    // The declared fields of a kind hop does not define; free-form ones take anything.
    for (const std::string& name : kind->top_level.required) {
      auto it = doc.find(name);
      if (it == doc.end() || it->is_null()) {
        issues->Error(fmt::format("{}: required field is missing", name));
      }
    }
    for (const KindField& f : fields) {
      auto it = doc.find(f.name);
      if (it == doc.end() || it->is_null()) continue;
      ValidateAgainst(*it, *f.schema, std::string(f.name), issues, options.unknown_fields,
                      /*formats=*/true);
    }
  }
  if (!hop_kind) return;  // unstructured: stored as it is
  if (r.api_version() != kind->api_version()) {
    issues->Error(
        fmt::format("apiVersion: {} is not served; use {}", r.api_version(), kind->api_version()));
  }
  const Json* spec = r.spec();
  if (spec == nullptr) {
    if (!kind->spec.required.empty()) issues->Error("spec: required mapping is missing");
  } else {
    ValidateAgainst(*spec, kind->spec, "spec", issues, options.unknown_fields);
    ValidateTemplates(r, *kind, issues);
  }
  if (const Json* status = r.status()) ValidateAgainst(*status, kind->status, "status", issues);
}

}  // namespace hop::resource
