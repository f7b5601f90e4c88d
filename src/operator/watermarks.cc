#include "operator/watermarks.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/log.h"
#include "deploy/trigger_fires.h"
#include "resource/kinds.h"
#include "resource/selector.h"

namespace hop::op {

using resource::Resource;

std::optional<SystemTime> DeriveWatermark(std::string_view policy,
                                          const std::vector<std::optional<SystemTime>>& inputs) {
  std::optional<SystemTime> out;
  if (policy == "all") {
    for (const auto& w : inputs) {
      if (!w) return std::nullopt;
      if (!out || *w < *out) out = w;
    }
  } else if (policy == "any") {
    for (const auto& w : inputs) {
      if (w && (!out || *w > *out)) out = w;
    }
  }
  return out;
}

std::string WatermarkPolicy(const Resource& view) {
  const auto labels = view.labels();
  auto it = labels.find(std::string(deploy::kWatermarkPolicyLabel));
  return it == labels.end() ? std::string() : it->second;
}

namespace {

std::string InputsOf(const Resource& view) {
  const auto annotations = view.annotations();
  auto it = annotations.find(std::string(deploy::kWatermarkInputsAnnotation));
  return it == annotations.end() ? std::string() : it->second;
}

}  // namespace

hop::Result<std::optional<SystemTime>> DerivedWatermarkOf(store::Store& store,
                                                          const Resource& view) {
  const std::string policy = WatermarkPolicy(view);
  if (policy.empty()) return std::optional<SystemTime>();
  auto inputs = deploy::ParseWatermarkTargets(InputsOf(view), view.namespace_name(), "inputs");
  // A hand-edited annotation that does not parse derives nothing.
  if (!inputs.ok() || inputs->empty()) return std::optional<SystemTime>();
  std::vector<std::optional<SystemTime>> watermarks;
  for (const store::ObjectRef& ref : *inputs) {
    HOP_ASSIGN_OR_RETURN(std::optional<Resource> input, store.Find(ref));
    std::optional<SystemTime> w;
    if (input && input->status() && input->status()->is_object()) {
      Json status = *input->status();
      w = deploy::ViewFires(status).Watermark();
    }
    watermarks.push_back(w);
  }
  return DeriveWatermark(policy, watermarks);
}

EventMapper DerivedViewsOf(store::Store& store) {
  return [&store](const store::Event& event) {
    std::vector<Request> out;
    const Resource& changed = event.object;
    const bool table = changed.group_kind() == resource::TableKind::Info().group_kind();
    const std::string text = (table ? "table/" : "view/") + changed.name();
    auto selector = resource::LabelSelector::Parse(std::string(deploy::kWatermarkPolicyLabel));
    if (!selector.ok()) return out;
    auto views =
        store.List({resource::ViewKind::Info().group_kind(), changed.namespace_name(), *selector});
    if (!views.ok()) {
      log::Warn("derived watermarks: cannot list the views of {}: {}", changed.namespace_name(),
                views.status().ToString());
      return out;
    }
    for (const Resource& view : views->items) {
      auto inputs = deploy::ParseWatermarkTargets(InputsOf(view), view.namespace_name(), "inputs");
      if (!inputs.ok()) continue;
      for (const store::ObjectRef& ref : *inputs) {
        if (deploy::WatermarkTargetText(ref) == text) {
          out.push_back(Request{store::RefOf(view)});
          break;
        }
      }
    }
    return out;
  };
}

}  // namespace hop::op
