#include "deploy/trigger_fires.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "resource/kinds.h"

namespace hop::deploy {

namespace {

// The most fires a trigger queues (firePolicy Each); the oldest go first beyond it.
constexpr size_t kMaxPending = 1000;

std::optional<SystemTime> TimeAt(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return std::nullopt;
  return ParseRfc3339(it->get<std::string>());
}

constexpr std::string_view kJobPropertiesPrefix = "job.properties.";

}  // namespace

std::optional<std::string> JobProperty(std::string_view key) {
  if (key.size() <= kJobPropertiesPrefix.size() ||
      !EqualsIgnoreCase(key.substr(0, kJobPropertiesPrefix.size()), kJobPropertiesPrefix)) {
    return std::nullopt;
  }
  return std::string(key.substr(kJobPropertiesPrefix.size()));
}

Status CheckTriggerOption(std::string_view key) {
  const std::optional<std::string> property = JobProperty(key);
  const std::string_view name = property ? std::string_view(*property) : key;
  for (std::string_view reserved : kTriggerVariables) {
    if (EqualsIgnoreCase(name, reserved)) {
      return Status::InvalidArgument(fmt::format(
          "Option '{}' would set the variable '{}', which hop gives the trigger's job itself; "
          "choose another name",
          key, reserved));
    }
  }
  return Status::OK();
}

TriggerFires::TriggerFires(Json& status, bool each) : status_(status), each_(each) {
  if (!status_.is_object()) status_ = Json::object();
}

bool TriggerFires::Each(const resource::Resource& trigger) {
  return EqualsIgnoreCase(resource::TableTriggerKind::kFirePolicy.Get(trigger).value_or(""),
                          "Each");
}

std::string TriggerFires::Stamp(SystemTime t) {
  return FormatRfc3339(std::chrono::time_point_cast<std::chrono::milliseconds>(t), 3);
}

std::optional<SystemTime> TriggerFires::Latest() const { return TimeAt(status_, "timestamp"); }
std::optional<SystemTime> TriggerFires::Watermark() const { return TimeAt(status_, "watermark"); }

void TriggerFires::Record(SystemTime t) {
  auto latest = Latest();
  if (!latest || t > *latest) status_["timestamp"] = Stamp(t);
  if (!each_) return;
  if (auto watermark = Watermark(); watermark && t <= *watermark) return;
  Json& pending = status_["pending"];
  if (!pending.is_array()) pending = Json::array();
  if (!pending.empty() && pending.back().is_string()) {
    auto last = ParseRfc3339(pending.back().get<std::string>());
    if (last && t <= *last) return;
  }
  pending.push_back(Stamp(t));
  while (pending.size() > kMaxPending) pending.erase(pending.begin());
}

std::optional<SystemTime> TriggerFires::Next() const {
  if (each_) {
    auto pending = status_.find("pending");
    if (pending == status_.end() || !pending->is_array()) return std::nullopt;
    for (const Json& p : *pending) {
      if (p.is_string()) return ParseRfc3339(p.get<std::string>());
    }
    return std::nullopt;
  }
  auto latest = Latest();
  auto watermark = Watermark();
  if (latest && (!watermark || *latest > *watermark)) return latest;
  return std::nullopt;
}

void TriggerFires::Covered(SystemTime to) {
  if (auto watermark = Watermark(); !watermark || to > *watermark) {
    status_["watermark"] = Stamp(to);
  }
  Abandon(to);
}

void TriggerFires::Abandon(SystemTime to) {
  auto pending = status_.find("pending");
  if (pending == status_.end() || !pending->is_array()) return;
  while (!pending->empty()) {
    const Json& first = pending->front();
    auto t = first.is_string() ? ParseRfc3339(first.get<std::string>()) : std::nullopt;
    if (t && *t > to) break;
    pending->erase(pending->begin());
  }
}

}  // namespace hop::deploy
