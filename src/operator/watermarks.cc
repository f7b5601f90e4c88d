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

namespace {

// The derived views of `input`'s namespace that list it among their inputs.
hop::Result<std::vector<Resource>> ViewsReading(store::Store& store,
                                                const store::ObjectRef& input) {
  std::vector<Resource> out;
  HOP_ASSIGN_OR_RETURN(resource::LabelSelector selector,
                       resource::LabelSelector::Parse(std::string(deploy::kWatermarkPolicyLabel)));
  HOP_ASSIGN_OR_RETURN(store::ListResult views, store.List({resource::ViewKind::Info().group_kind(),
                                                            input.namespace_name, selector}));
  const std::string text = deploy::WatermarkTargetText(input);
  for (Resource& view : views.items) {
    auto inputs = deploy::ParseWatermarkTargets(InputsOf(view), view.namespace_name(), "inputs");
    if (!inputs.ok()) continue;
    for (const store::ObjectRef& ref : *inputs) {
      if (deploy::WatermarkTargetText(ref) == text) {
        out.push_back(std::move(view));
        break;
      }
    }
  }
  return out;
}

}  // namespace

Status QueueOnDerivedViews(store::Store& store, Batch& batch, const store::ObjectRef& input,
                           const std::vector<SystemTime>& advances) {
  if (advances.empty()) return Status::OK();
  HOP_ASSIGN_OR_RETURN(std::vector<Resource> views, ViewsReading(store, input));
  const std::string text = deploy::WatermarkTargetText(input);
  for (Resource& view : views) {
    Json status = StatusOf(view);
    Json& queue = status["inputFires"];
    if (!queue.is_array()) queue = Json::array();
    for (SystemTime at : advances) {
      queue.push_back({{"input", text}, {"at", deploy::TriggerFires::Stamp(at)}});
    }
    while (queue.size() > kMaxInputFires) queue.erase(queue.begin());
    batch.UpdateStatusIfChanged(view, std::move(status));
  }
  return Status::OK();
}

hop::Result<std::vector<SystemTime>> DeriveAdvances(store::Store& store, const Resource& view,
                                                    Json& status) {
  std::vector<SystemTime> out;
  const std::string policy = WatermarkPolicy(view);
  if (policy.empty()) return out;
  if (!status.is_object()) status = Json::object();
  auto inputs = deploy::ParseWatermarkTargets(InputsOf(view), view.namespace_name(), "inputs");
  if (!inputs.ok() || inputs->empty()) return out;
  // What each input was last seen at.
  std::vector<std::string> names;
  std::vector<std::optional<SystemTime>> seen;
  const Json* recorded = status.contains("inputWatermarks") && status["inputWatermarks"].is_object()
                             ? &status["inputWatermarks"]
                             : nullptr;
  for (const store::ObjectRef& ref : *inputs) {
    names.push_back(deploy::WatermarkTargetText(ref));
    std::optional<SystemTime> t;
    if (recorded != nullptr) {
      if (auto it = recorded->find(names.back()); it != recorded->end() && it->is_string()) {
        t = ParseRfc3339(it->get<std::string>());
      }
    }
    seen.push_back(t);
  }
  std::optional<SystemTime> current = deploy::ViewFires(status).Watermark();
  auto derive = [&] {
    auto derived = DeriveWatermark(policy, seen);
    if (derived && (!current || *derived > *current)) {
      out.push_back(*derived);
      current = derived;
    }
  };
  // The inputs' advances, in the order they were delivered.
  if (auto queue = status.find("inputFires"); queue != status.end() && queue->is_array()) {
    for (const Json& entry : *queue) {
      if (!entry.is_object()) continue;
      const std::string input = entry.value("input", "");
      auto at = ParseRfc3339(entry.value("at", ""));
      auto name = std::find(names.begin(), names.end(), input);
      if (!at || name == names.end()) continue;
      std::optional<SystemTime>& last = seen[name - names.begin()];
      if (last && *at <= *last) continue;  // seen already
      last = at;
      derive();
    }
  }
  status.erase("inputFires");
  // Then the inputs as stored, except those whose advances are still to be queued here.
  for (size_t i = 0; i < inputs->size(); ++i) {
    HOP_ASSIGN_OR_RETURN(std::optional<Resource> input, store.Find((*inputs)[i]));
    if (!input) {
      seen[i].reset();
      continue;
    }
    Json input_status = StatusOf(*input);
    deploy::ViewFires fires(input_status);
    if (fires.HasPending()) continue;
    seen[i] = fires.Watermark();
  }
  derive();
  Json record = Json::object();
  for (size_t i = 0; i < names.size(); ++i) {
    if (seen[i]) record[names[i]] = deploy::TriggerFires::Stamp(*seen[i]);
  }
  if (record.empty()) {
    status.erase("inputWatermarks");
  } else {
    status["inputWatermarks"] = std::move(record);
  }
  return out;
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
