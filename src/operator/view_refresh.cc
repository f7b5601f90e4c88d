#include "operator/view_refresh.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "binder/bound.h"
#include "catalog/catalog.h"
#include "common/cron.h"
#include "common/log.h"
#include "deploy/trigger_fires.h"
#include "operator/reconciler_util.h"
#include "operator/trigger_runs.h"
#include "resource/kinds.h"
#include "resource/names.h"

namespace hop::op {

namespace {

using resource::Resource;
using resource::ViewKind;

std::string Text(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<SystemTime> Time(const Json& object, const char* key) {
  return ParseRfc3339(Text(object, key));
}

// The refresh's Job: `hop refresh` for this view (or table, `kind`), owned by it, so that
// dropping it deletes its refreshes.
hop::Result<Resource> RefreshJob(const Resource& view, SystemTime at, const RefreshJobs& jobs,
                                 std::string_view kind = "view", std::string_view what = "refresh") {
  Json command = Json::array();
  for (const std::string& word : jobs.command) command.push_back(word);
  for (const std::string& word : {std::string("refresh"), std::string("-n"),
                                  view.namespace_name(),
                                  std::string(kind) + "/" + view.name()}) {
    command.push_back(word);
  }
  const std::string job_name = RunJobName(view.name() + "-" + std::string(what), at);
  Json doc = {
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata", {{"name", job_name}, {"namespace", view.namespace_name()}}},
      {"spec",
       {{"backoffLimit", jobs.backoff_limit},
        {"template",
         {{"spec",
           {{"restartPolicy", "Never"},
            {"containers",
             Json::array(
                 {{{"name", "refresh"},
                   {"command", command},
                   // Tells `hop refresh` that it runs as this Job, not by hand.
                   {"env", Json::array({{{"name", "HOP_JOB"}, {"value", job_name}}})}}})}}}}}}}};
  Json& pod = doc["spec"]["template"]["spec"];
  if (!jobs.image.empty()) pod["containers"][0]["image"] = jobs.image;
  if (!jobs.service_account.empty()) pod["serviceAccountName"] = jobs.service_account;
  HOP_ASSIGN_OR_RETURN(Resource job, Resource::FromJson(std::move(doc), "a refresh Job"));
  job.set_label(std::string(kRefreshLabel), resource::DependencyLabelValue(view.name()));
  job.set_owner_references({resource::OwnerReferenceTo(view)});
  return job;
}

// Records the end of the running Job of `state` (status.refresh or status.fill), if it has
// ended; false while it runs (its events bring the object back).
bool Finish(const Resource& object, const std::optional<Resource>& current_job, Json& state,
            const std::string& stamp, RefreshPlan& plan) {
  const std::string job = Text(state, "job");
  if (job.empty()) return true;
  std::optional<std::pair<bool, std::string>> finished;
  if (!current_job) {
    finished = std::make_pair(false, fmt::format("its Job {} was deleted before it finished", job));
  } else {
    finished = JobFinished(*current_job);
  }
  if (!finished) return false;
  state.erase("job");
  state.erase("byHand");
  if (const std::string kept = Text(state, "lastJob"); !kept.empty() && kept != job) {
    plan.remove = store::ObjectRef{{"batch", "Job"}, object.namespace_name(), kept};
  }
  state["lastJob"] = job;
  state["lastOutcome"] = finished->first ? "Succeeded" : "Failed";
  state["finished"] = stamp;
  if (finished->first) {
    state.erase("message");
  } else {
    state["message"] = fmt::format("{} failed: {}", job, finished->second);
  }
  plan.event = (plan.event.empty() ? "" : plan.event + "; ") +
               fmt::format("{} {}", job, finished->first ? "succeeded" : "failed");
  return true;
}

}  // namespace

hop::Result<RefreshPlan> PlanFill(const Resource& table, const std::optional<Resource>& current_job,
                                  SystemTime now, const RefreshJobs& jobs) {
  RefreshPlan plan;
  plan.status = StatusOf(table);
  const auto annotations = table.annotations();
  auto query = annotations.find(std::string(resource::kFillAnnotation));
  if (query == annotations.end()) return plan;
  // A watermark is a claim about the rows of the table's query: one kept from the rows of an
  // earlier query (CREATE OR REPLACE TABLE ... AS another) claims nothing about this one's, so
  // it is withdrawn, with the advances still queued for the triggers, until a fill of this query
  // succeeds and sets the one it earns (docs/runtime.md, "The watermark a refresh earns").
  if (deploy::UnfilledTable(table, current_job) &&
      (plan.status.contains("watermark") || plan.status.contains("pendingFires"))) {
    plan.status.erase("watermark");
    plan.status.erase("pendingFires");
    plan.event = "its watermark withdrawn: its rows are not its query's until the fill succeeds";
  }
  Json& fill = plan.status["fill"];
  if (!fill.is_object()) fill = Json::object();
  const std::string stamp = FormatRfc3339(now, 3);
  if (!Finish(table, current_job, fill, stamp, plan)) return plan;
  if (Text(fill, "query") == query->second) return plan;  // filled (or tried) with this query
  if (jobs.command.empty()) {
    fill["message"] = "its fill is due, but this control plane starts no refresh Jobs";
    return plan;
  }
  HOP_ASSIGN_OR_RETURN(Resource job, RefreshJob(table, now, jobs, "table", "fill"));
  fill["job"] = job.name();
  fill["started"] = stamp;
  fill["query"] = query->second;
  fill.erase("message");
  plan.event =
      (plan.event.empty() ? "" : plan.event + "; ") + fmt::format("fill {} started", job.name());
  plan.create = std::move(job);
  return plan;
}

std::optional<store::ObjectRef> RunningRefreshJob(const Resource& view) {
  return RunningJob(view, "refresh");
}

std::optional<store::ObjectRef> RunningJob(const Resource& view, const char* key) {
  const Json status = StatusOf(view);
  auto refresh = status.find(key);
  if (refresh == status.end() || !refresh->is_object()) return std::nullopt;
  const std::string job = Text(*refresh, "job");
  if (job.empty()) return std::nullopt;
  return store::ObjectRef{{"batch", "Job"}, view.namespace_name(), job};
}

hop::Result<RefreshPlan> PlanRefresh(const Resource& view,
                                     const std::optional<Resource>& current_job,
                                     const InputWatermarks& inputs, SystemTime now,
                                     const RefreshJobs& jobs) {
  RefreshPlan plan;
  plan.status = StatusOf(view);
  Json& refresh = plan.status["refresh"];
  if (!refresh.is_object()) refresh = Json::object();
  const std::string stamp = FormatRfc3339(now, 3);

  // The running refresh first: it ends when its Job does (or is gone).
  if (!Finish(view, current_job, refresh, stamp, plan)) return plan;

  // Why a refresh is due now, if it is.
  std::vector<std::string> reasons;
  const std::optional<SystemTime> requested = ParseRfc3339(ViewKind::kTimestamp.Get(view).value_or(""));
  const std::optional<SystemTime> last_request = Time(refresh, "lastRequest");
  if (requested && (!last_request || *requested > *last_request)) {
    reasons.push_back("REFRESH at " + FormatRfc3339(*requested, 3));
  }
  std::optional<SystemTime> tick;
  if (auto schedule = ViewKind::kSchedule.Get(view); schedule && !schedule->empty()) {
    HOP_ASSIGN_OR_RETURN(CronSchedule cron, CronSchedule::Parse(*schedule));
    const SystemTime since = Time(refresh, "lastSchedule")
                                 .value_or(ParseRfc3339(view.creation_timestamp()).value_or(now));
    if (auto latest = cron.Previous(now); latest && *latest > since) {
      tick = *latest;
      reasons.push_back("the schedule's tick at " + FormatRfc3339(*latest, 3));
    }
    if (auto next = cron.Next(now)) {
      plan.requeue_after = std::chrono::duration_cast<Duration>(*next - now) + Duration(1);
    }
  }
  if (resource::RefreshesOnSourceChange(view)) {
    const Json& seen = refresh.contains("inputs") ? refresh["inputs"] : Json::object();
    for (const auto& [input, watermark] : inputs) {
      if (!seen.is_object() || Text(seen, input.c_str()) != watermark) {
        reasons.push_back(fmt::format("{} advanced to {}", input, watermark));
        break;
      }
    }
  }
  if (reasons.empty()) return plan;
  if (ViewKind::kPaused.Get(view).value_or(false)) {
    refresh["message"] = fmt::format("paused: a refresh is due ({}) and starts on RESUME", reasons[0]);
    return plan;
  }
  if (jobs.command.empty()) {
    refresh["message"] = fmt::format(
        "a refresh is due ({}), but this control plane starts no refresh Jobs", reasons[0]);
    return plan;
  }

  HOP_ASSIGN_OR_RETURN(Resource job, RefreshJob(view, now, jobs));
  refresh["job"] = job.name();
  refresh["started"] = stamp;
  refresh["runs"] = (refresh.contains("runs") && refresh["runs"].is_number_integer()
                         ? refresh["runs"].get<int64_t>()
                         : 0) +
                    1;
  if (requested) refresh["lastRequest"] = FormatRfc3339(*requested, 3);
  if (tick) refresh["lastSchedule"] = FormatRfc3339(*tick, 3);
  Json taken = Json::object();
  for (const auto& [input, watermark] : inputs) taken[input] = watermark;
  refresh["inputs"] = std::move(taken);
  if (refresh.contains("message") && refresh["lastOutcome"] != "Failed") refresh.erase("message");
  plan.event = (plan.event.empty() ? "" : plan.event + "; ") +
               fmt::format("refresh {} started: {}", job.name(), reasons[0]);
  plan.create = std::move(job);
  return plan;
}

Status CommitRefreshPlan(store::Store& store, const Resource& object, RefreshPlan plan,
                         const ReconcileContext& context, const RefreshJobs& jobs) {
  Batch batch(store);
  if (plan.create) {
    HOP_RETURN_IF_ERROR(batch.CreateIfAbsent(std::move(*plan.create)).status());
  }
  if (plan.remove) {
    HOP_RETURN_IF_ERROR(batch.DeleteIfPresent(*plan.remove).status());
  }
  batch.UpdateStatusIfChanged(object, std::move(plan.status));
  HOP_RETURN_IF_ERROR(batch.Commit());
  if (!plan.event.empty()) {
    log::Info("[{}] {} {}/{}: {}", context.id, object.kind(), object.namespace_name(),
              object.name(), plan.event);
  }
  if (plan.remove && jobs.job_deleted) jobs.job_deleted(*plan.remove);
  return Status::OK();
}

hop::Result<std::vector<RefreshInput>> RefreshInputs(store::Store& store,
                                                     const catalog::Catalog& cat,
                                                     const binder::Rel& query,
                                                     const std::string& namespace_name) {
  std::map<std::string, const catalog::Table*> scanned;
  for (const binder::Rel* scan : binder::Scans(query)) {
    if (scan->table == nullptr) continue;
    // A materialized view in PostgreSQL is scanned as the table found there: its catalog entry,
    // by its path, is the View that keeps its watermark.
    auto entry = cat.Resolve(scan->path);
    const catalog::Table* table = entry.ok() ? *entry : scan->table;
    scanned.emplace(table->QualifiedName(), table);
  }
  std::vector<RefreshInput> out;
  for (const auto& [name, table] : scanned) {
    RefreshInput input{name, ""};
    if (!table->resource.empty()) {
      const store::GroupKind kind = table->kind == catalog::ObjectKind::kTable
                                        ? resource::TableKind::Info().group_kind()
                                        : ViewKind::Info().group_kind();
      HOP_ASSIGN_OR_RETURN(std::optional<Resource> object,
                           store.Find({kind, namespace_name, table->resource}));
      if (object) input.watermark = Text(StatusOf(*object), "watermark");
      // So does a table made by CREATE TABLE ... AS until a fill of its query succeeds.
      if (object && table->kind == catalog::ObjectKind::kTable) {
        HOP_ASSIGN_OR_RETURN(std::optional<std::string> unfilled,
                             deploy::UnfilledTable(store, *object));
        input.unfilled = unfilled.value_or("");
        if (!input.unfilled.empty()) input.resource = object->name();
      }
      // A materialized view hop refreshes gets a watermark from its first refresh: without one,
      // its table holds none of its query's rows yet.
      if (table->kind == catalog::ObjectKind::kMaterializedView && input.watermark.empty()) {
        auto schema = cat.SchemaFor(table->path);
        input.never_refreshed = schema.ok() && catalog::HopWritesTables(**schema);
      }
    }
    out.push_back(std::move(input));
  }
  return out;
}

EarnedWatermark EarnWatermark(const std::vector<RefreshInput>& inputs, SystemTime snapshot) {
  std::optional<EarnedWatermark> earliest;
  bool unbounded = inputs.empty();  // an input that claims nothing: the snapshot bounds it
  for (const RefreshInput& input : inputs) {
    const std::optional<SystemTime> at = ParseRfc3339(input.watermark);
    if (!at) {
      unbounded = true;
      continue;
    }
    if (!earliest || *at < earliest->at) earliest = EarnedWatermark{*at, input.name};
  }
  if (unbounded && (!earliest || snapshot < earliest->at)) return EarnedWatermark{snapshot, ""};
  return *earliest;
}

std::optional<std::string> PendingFill(const Resource& table, const std::optional<Resource>& job) {
  const auto annotations = table.annotations();
  auto query = annotations.find(std::string(resource::kFillAnnotation));
  if (query == annotations.end()) return std::nullopt;
  if (auto running = RunningJob(table, "fill")) {
    return "its fill " + deploy::JobProgress(running->name, job);
  }
  const Json status = StatusOf(table);
  auto fill = status.find("fill");
  if (fill != status.end() && fill->is_object() && Text(*fill, "query") == query->second) {
    return std::nullopt;
  }
  return std::string("its fill waits to start");
}

std::optional<std::string> PendingRefresh(const Resource& view,
                                          const std::optional<Resource>& job) {
  if (auto running = RunningRefreshJob(view)) {
    return "refresh job " + deploy::JobProgress(running->name, job);
  }
  if (ViewKind::kPaused.Get(view).value_or(false)) return std::nullopt;
  const Json status = StatusOf(view);
  const auto requested = ParseRfc3339(ViewKind::kTimestamp.Get(view).value_or(""));
  if (!requested) return std::nullopt;
  std::optional<SystemTime> last;
  if (auto r = status.find("refresh"); r != status.end() && r->is_object()) {
    last = Time(*r, "lastRequest");
  }
  if (last && *last >= *requested) return std::nullopt;
  return fmt::format("the refresh requested at {} waits to start", FormatRfc3339(*requested, 3));
}

}  // namespace hop::op
