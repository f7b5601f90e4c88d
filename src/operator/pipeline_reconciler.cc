#include "operator/pipeline_reconciler.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/log.h"
#include "common/strings.h"
#include "operator/reconciler_util.h"
#include "resource/kinds.h"
#include "resource/yaml.h"

namespace hop::op {

using resource::Resource;

namespace {

constexpr Duration kPipelineRecheck = std::chrono::minutes(1);

std::string Text(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// What an element's status says by compatibility.md §7's reading, when it says anything: nullopt
// for a status with neither `ready`, conditions, nor a state.
std::optional<ElementState> ReportedState(const Json& status) {
  ElementState s;
  if (auto ready = status.find("ready"); ready != status.end() && ready->is_boolean()) {
    s.ready = ready->get<bool>();
    if (auto failed = status.find("failed"); failed != status.end() && failed->is_boolean()) {
      s.failed = failed->get<bool>();
    }
    s.message = Text(status, "message");
    return s;
  }
  if (auto conditions = status.find("conditions");
      conditions != status.end() && conditions->is_array() && !conditions->empty()) {
    for (const Json& c : *conditions) {
      if (!c.is_object()) continue;
      const std::string type = Text(c, "type");
      const std::string why = Text(c, "message").empty() ? Text(c, "reason") : Text(c, "message");
      if (Text(c, "status") != "True") {
        // Strimzi's KafkaTopic: Ready False says what keeps it from being ready.
        if (type == "Ready" && s.message.empty()) s.message = why;
        continue;
      }
      // A batch/v1 Job's Complete, a Strimzi resource's Ready.
      if (type == "Complete" || type == "Ready") s.ready = true;
      if (type == "Failed") {
        s.failed = true;
        s.message = why;
      }
      if (type == "NotReady" && s.message.empty()) s.message = why;
    }
    return s;
  }
  std::string state = Text(status, "state");
  if (state.empty()) {
    if (auto job = status.find("jobStatus"); job != status.end() && job->is_object()) {
      state = Text(*job, "state");
    }
  }
  // A FlinkDeployment in session mode runs no job of its own: its JobManager says.
  if (state.empty()) state = Text(status, "jobManagerDeploymentStatus");
  if (state.empty()) return std::nullopt;
  const std::string upper = AsciiToUpper(state);
  s.ready = upper == "READY" || upper == "RUNNING" || upper == "FINISHED";
  s.failed = upper == "CRASHLOOPBACKOFF" || upper == "FAILED" || upper == "ERROR";
  s.message = "state " + state;
  return s;
}

const ControlledKind* FindControlled(const PipelineRules& rules, const store::GroupKind& kind) {
  for (const ControlledKind& c : rules.controlled) {
    if (c.kind == kind) return &c;
  }
  return nullptr;
}

}  // namespace

ElementState EstimateElement(const std::optional<Resource>& element, const PipelineRules& rules) {
  ElementState s;
  if (!element) {
    s.message = "not found";
    return s;
  }
  const Json* status = element->status();
  const bool has_status = status != nullptr && status->is_object() && !status->empty();
  const ControlledKind* controlled = FindControlled(rules, element->group_kind());
  if (controlled != nullptr && controlled->reports == ControlledKind::Reports::kStanding) {
    // In force once it exists; its controller's message is a problem it could not get past.
    s.message = has_status ? Text(*status, "message") : "";
    s.ready = s.message.empty();
    return s;
  }
  if (has_status) {
    if (auto reported = ReportedState(*status)) return *reported;
  }
  if (controlled == nullptr) {
    s.uncontrolled_kind = element->kind();
    s.message = fmt::format("no controller for {} in this control plane", element->kind());
  } else {
    s.message = has_status ? "in progress" : "not reconciled yet";
  }
  return s;
}

PipelineState SummarizePipeline(const std::vector<std::pair<std::string, ElementState>>& elements) {
  PipelineState p;
  std::vector<std::string> uncontrolled;  // kinds, in order, once each
  const std::pair<std::string, ElementState>* waiting = nullptr;
  size_t not_ready = 0;
  for (const auto& element : elements) {
    const auto& [name, e] = element;
    if (e.failed && !p.failed) {
      p.failed = true;
      p.message = "Failed: " + name + (e.message.empty() ? "" : ": " + e.message);
    }
    if (e.ready && !e.failed) continue;
    ++not_ready;
    if (e.uncontrolled_kind.empty()) p.recheck = true;
    if (waiting == nullptr) waiting = &element;
    if (!e.uncontrolled_kind.empty() && std::find(uncontrolled.begin(), uncontrolled.end(),
                                                  e.uncontrolled_kind) == uncontrolled.end()) {
      uncontrolled.push_back(e.uncontrolled_kind);
    }
  }
  if (p.failed) {
    p.recheck = false;  // a failed element changes, or nothing will
    return p;
  }
  if (not_ready == 0) {
    p.ready = true;
    p.message = "Ready.";
  } else if (!uncontrolled.empty()) {
    // Nothing here will ever make these ready: say so rather than that they are on their way.
    std::string kinds;
    for (size_t i = 0; i < uncontrolled.size(); ++i) kinds += (i ? ", " : "") + uncontrolled[i];
    p.message = fmt::format("Pending: no controller for {} in this control plane", kinds);
  } else {
    const auto& [name, e] = *waiting;
    p.message = "Deployed: waiting for " + name + (e.message.empty() ? "" : ": " + e.message);
    if (not_ready > 1) p.message += fmt::format(" (and {} more)", not_ready - 1);
  }
  return p;
}

std::vector<Request> PipelineReconciler::ViewEvent(const store::Event& event) {
  if (!resource::ViewKind::kMaterialized.Get(event.object).value_or(false)) return {};
  return {Request{{resource::PipelineKind::Info().group_kind(), event.object.namespace_name(),
                   event.object.name()}}};
}

hop::Result<std::vector<PipelineReconciler::ElementRef>> PipelineReconciler::Elements(
    const Resource& pipeline, const std::string& yaml) {
  const std::string key = pipeline.namespace_name() + "/" + pipeline.name();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = parsed_.find(key);
    if (it != parsed_.end() && it->second.uid == pipeline.uid() &&
        it->second.generation == pipeline.generation()) {
      return it->second.elements;
    }
  }
  std::vector<ElementRef> out;
  HOP_ASSIGN_OR_RETURN(std::vector<Json> docs,
                       ParseYamlDocuments(yaml, "pipeline " + pipeline.name()));
  for (Json& doc : docs) {
    if (doc.is_null()) continue;
    HOP_ASSIGN_OR_RETURN(Resource element,
                         Resource::FromJson(std::move(doc), "pipeline " + pipeline.name()));
    const std::string ns =
        element.namespace_name().empty() ? pipeline.namespace_name() : element.namespace_name();
    out.push_back({{element.group_kind(), ns, element.name()}, element.kind()});
  }
  std::lock_guard<std::mutex> lock(mu_);
  parsed_[key] = {pipeline.uid(), pipeline.generation(), out};
  return out;
}

hop::Result<ReconcileResult> PipelineReconciler::Reconcile(const Request& request,
                                                           const ReconcileContext& context) {
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> pipeline, GetOrNotFound(store_, request));
  const std::string key = request.ref.namespace_name + "/" + request.ref.name;
  if (!pipeline) {
    std::lock_guard<std::mutex> lock(mu_);
    parsed_.erase(key);
    written_.erase(key);
    return ReconcileResult::Done();
  }
  const std::string yaml = resource::PipelineKind::kYaml.Get(*pipeline).value_or("");
  std::vector<std::pair<std::string, ElementState>> elements;
  Json element_states = Json::array();  // status.elements, read by "k8s".PIPELINE_ELEMENTS
  auto parsed = Elements(*pipeline, yaml);
  if (!parsed.ok()) return ReconcileResult::Terminal(parsed.status());
  for (const ElementRef& element : *parsed) {
    HOP_ASSIGN_OR_RETURN(std::optional<Resource> live, store_.Find(element.ref));
    const ElementState& estimate =
        elements
            .emplace_back(AsciiToLower(element.kind) + "/" + element.ref.name,
                          EstimateElement(live, rules_))
            .second;
    element_states.push_back({{"name", element.kind + "/" + element.ref.name},
                              {"ready", estimate.ready},
                              {"failed", estimate.failed},
                              {"message", estimate.message}});
  }
  // A view hop refreshes (its status has `refresh`, view_refresh.h) is run by its refresh Jobs:
  // they are an element of its pipeline, ready once one succeeded.
  for (const resource::OwnerReference& owner : pipeline->owner_references()) {
    if (owner.kind != "View") continue;
    HOP_ASSIGN_OR_RETURN(std::optional<Resource> view,
                         store_.Find({resource::ViewKind::Info().group_kind(),
                                      pipeline->namespace_name(), owner.name}));
    const Json view_status = view ? StatusOf(*view) : Json::object();
    auto refresh = view_status.find("refresh");
    if (refresh == view_status.end() || !refresh->is_object()) continue;
    // The rows are those of the query the latest successful refresh read, by whichever runner
    // (status.refreshedQuery, a digest; refreshes before hop recorded it have none): a view
    // replaced since holds an older query's.
    ElementState s;
    const std::string outcome = refresh->value("lastOutcome", "");
    const std::string refreshed = view_status.value(resource::kRefreshedQueryStatus, "");
    const bool replaced =
        !refreshed.empty() &&
        refreshed != resource::QueryDigest(resource::ViewKind::kSql.Get(*view).value_or(""));
    const std::string running = refresh->value("job", "");
    s.failed = outcome == "Failed";
    s.ready = !s.failed && !replaced && (outcome == "Succeeded" || !refreshed.empty());
    if (s.failed) {
      s.message = refresh->value("message", "");
    } else if (s.ready) {
      s.message = outcome == "Succeeded"
                      ? "refreshed by hop at " + refresh->value("finished", "")
                      : "refreshed by hop (watermark " + view_status.value("watermark", "") + ")";
    } else if (replaced) {
      s.message = running.empty() ? "its query was replaced since its latest refresh: its rows "
                                    "are the earlier query's until the next"
                                  : "its query was replaced; refresh " + running + " is running";
    } else {
      s.message = running.empty() ? "refreshed by hop: not refreshed yet"
                                  : "refresh " + running + " is running";
    }
    const std::string name = "refresh/" + owner.name;
    element_states.push_back(
        {{"name", name}, {"ready", s.ready}, {"failed", s.failed}, {"message", s.message}});
    elements.emplace_back(name, std::move(s));
  }
  const PipelineState state = SummarizePipeline(elements);
  Json status = StatusOf(*pipeline);
  status["ready"] = state.ready;
  status["failed"] = state.failed;
  status["message"] = state.message;
  status["elements"] = std::move(element_states);
  std::string version;
  HOP_ASSIGN_OR_RETURN(const bool written, UpdateDerivedStatusIfChanged(
                                               store_, *pipeline, std::move(status), &version));
  if (written) {
    std::lock_guard<std::mutex> lock(mu_);
    written_[pipeline->namespace_name() + "/" + pipeline->name()] = version;
  }
  if (written) {
    log::Info("[{}] Pipeline {}/{}: {}", context.id, pipeline->namespace_name(), pipeline->name(),
              state.message);
  }
  // Elements' changes are events of the kinds the pipeline watches; the recheck is for those
  // something here is working on, in case one is missed.
  if (!state.recheck) return ReconcileResult::Done();
  return ReconcileResult::RequeueAfter(kPipelineRecheck);
}

bool PipelineReconciler::OwnWrite(const store::Event& event) {
  if (event.type != store::EventType::kModified) return false;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = written_.find(event.object.namespace_name() + "/" + event.object.name());
  if (it == written_.end() || it->second != event.object.resource_version()) return false;
  written_.erase(it);
  return true;
}

std::vector<Request> PipelineReconciler::ElementEvent(const store::Event& event) {
  std::vector<Request> out;
  for (const auto& owner : event.object.owner_references()) {
    if (owner.kind != "Pipeline") continue;
    out.push_back(Request{
        {resource::PipelineKind::Info().group_kind(), event.object.namespace_name(), owner.name}});
  }
  return out;
}

}  // namespace hop::op
