// What the deployers share: building hop's objects and their dependency metadata.
#include "deploy/objects.h"

#include <fmt/format.h>

#include <algorithm>

#include "catalog/local.h"
#include "common/strings.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "resource/selector.h"

namespace hop::deploy {

using resource::PipelineKind;
using resource::Resource;

Resource NewObject(std::string_view kind, const std::string& name, const std::string& ns) {
  Resource r;
  r.set_api_version(resource::kHopApiVersion);
  r.set_kind(kind);
  r.set_name(name);
  r.set_namespace(ns);
  return r;
}

resource::OwnerReference OwnerByName(const Resource& owner) {
  resource::OwnerReference ref;
  ref.api_version = owner.api_version();
  ref.kind = owner.kind();
  ref.name = owner.name();
  ref.uid = owner.uid();  // empty for an owner written in the same batch: the store fills it
  return ref;
}

void SetDependencies(Resource& object, const std::vector<std::string>& sources,
                     const std::vector<std::string>* sinks) {
  auto joined = [](const std::vector<std::string>& ids) {
    std::string out;
    for (size_t i = 0; i < ids.size(); ++i) out += (i ? "," : "") + ids[i];
    return out;
  };
  for (const auto* ids : {&sources, sinks}) {
    if (ids == nullptr) continue;
    for (const std::string& id : *ids) {
      object.set_label(resource::DependencyLabelKey(id), resource::DependencyLabelValue(id));
    }
  }
  object.set_annotation(kSourcesAnnotation, joined(sources));
  if (sinks != nullptr) object.set_annotation(kSinksAnnotation, joined(*sinks));
}

namespace {

// Whether a comma-separated list of identifiers holds `id`.
bool Lists(std::string_view list, std::string_view id) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    if (list.substr(0, comma) == id) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

Result<std::vector<std::string>> Dependents(store::Store& store, const std::string& ns,
                                            const std::string& id, std::string_view self_kind,
                                            std::string_view self_name) {
  HOP_ASSIGN_OR_RETURN(resource::LabelSelector selector,
                       resource::LabelSelector::Parse(resource::DependencyLabelKey(id)));
  std::vector<std::string> dependents;
  for (const resource::KindInfo* kind :
       {&PipelineKind::Info(), &resource::TableTriggerKind::Info()}) {
    HOP_ASSIGN_OR_RETURN(store::ListResult found, store.List({kind->group_kind(), ns, selector}));
    for (const Resource& r : found.items) {
      // The annotations say what an object depends on now; its labels may be stale.
      auto annotations = r.annotations();
      auto sources = annotations.find(std::string(kSourcesAnnotation));
      auto sinks = annotations.find(std::string(kSinksAnnotation));
      const bool annotated = sources != annotations.end() || sinks != annotations.end();
      if (annotated && !(sources != annotations.end() && Lists(sources->second, id)) &&
          !(sinks != annotations.end() && Lists(sinks->second, id))) {
        continue;
      }
      auto owners = r.owner_references();
      if (!self_kind.empty() &&
          std::any_of(owners.begin(), owners.end(), [&](const resource::OwnerReference& o) {
            return o.kind == self_kind && o.name == self_name;
          })) {
        continue;
      }
      std::string d =
          (r.kind() == "TableTrigger" ? "trigger" : AsciiToLower(r.kind())) + "/" + r.name();
      if (!owners.empty()) d += fmt::format(" (owned by {}/{})", owners[0].kind, owners[0].name);
      dependents.push_back(std::move(d));
    }
  }
  return dependents;
}

std::string ViewLabelValue(std::string_view name) { return resource::DependencyLabelValue(name); }

void SetTriggerCreationVariables(tmpl::Environment& env, const std::string& trigger,
                                 const std::string& job_template, const catalog::Schema& schema,
                                 const std::vector<std::string>& path) {
  // `name` is the Job's: the trigger's and the template's names (compatibility.md §2).
  env.Set("name", resource::Canonicalize(std::vector<std::string>{trigger, job_template}));
  env.Set("trigger", trigger).Set("job", job_template);
  env.Set("path", Join(path, ".")).Set("table", path.back()).Set("schema", schema.name);
  if (!schema.catalog.empty()) env.Set("catalog", schema.catalog);
}

Result<bool> HopMayDropOnItsOwn(store::Store& store, const std::string& ns,
                                const std::string& database, const catalog::Schema& schema) {
  if (schema.adapter != catalog::Adapter::kLocal || schema.local_file.empty()) return false;
  using resource::DatabaseKind;
  HOP_ASSIGN_OR_RETURN(store::ListResult databases,
                       store.List({DatabaseKind::Info().group_kind(), "", {}}));
  for (const Resource& d : databases.items) {
    if (d.namespace_name() == ns && d.name() == database) continue;
    const std::string url = DatabaseKind::kUrl.Get(d).value_or("");
    if (!url.starts_with("jdbc:local:")) continue;
    auto file = catalog::LocalFileName(url);
    if (!file.ok() || *file == schema.local_file) return false;
  }
  return true;
}

}  // namespace hop::deploy
