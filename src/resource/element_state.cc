// The estimate of a pipeline element's state (element_state.h).
#include "resource/element_state.h"

#include <nlohmann/json.hpp>

#include "common/strings.h"

namespace hop::resource {

namespace {

std::string Text(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

ElementState EstimateElement(const std::optional<Resource>& element) {
  ElementState s;
  if (!element) {
    s.message = "not found";
    return s;
  }
  const Json* status = element->status();
  if (status == nullptr || !status->is_object() || status->empty()) {
    s.ready = true;  // nothing reports on it: considered ready
    return s;
  }
  if (auto ready = status->find("ready"); ready != status->end() && ready->is_boolean()) {
    s.ready = ready->get<bool>();
    if (auto failed = status->find("failed"); failed != status->end() && failed->is_boolean()) {
      s.failed = failed->get<bool>();
    }
    s.message = Text(*status, "message");
    return s;
  }
  if (auto conditions = status->find("conditions");
      conditions != status->end() && conditions->is_array()) {
    for (const Json& c : *conditions) {
      if (!c.is_object() || Text(c, "status") != "True") continue;
      if (Text(c, "type") == "Complete") s.ready = true;
      if (Text(c, "type") == "Failed") {
        s.failed = true;
        s.message = Text(c, "message").empty() ? Text(c, "reason") : Text(c, "message");
      }
    }
    return s;
  }
  std::string state = Text(*status, "state");
  if (state.empty()) {
    if (auto job = status->find("jobStatus"); job != status->end() && job->is_object()) {
      state = Text(*job, "state");
    }
  }
  const std::string upper = AsciiToUpper(state);
  s.ready = upper == "READY" || upper == "RUNNING" || upper == "FINISHED";
  s.failed = upper == "CRASHLOOPBACKOFF" || upper == "FAILED";
  if (!state.empty()) s.message = "state " + state;
  return s;
}

}  // namespace hop::resource
