#include "operator/trigger_runs.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "common/cron.h"
#include "common/log.h"
#include "deploy/trigger_fires.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "resource/yaml.h"
#include "template/template.h"

namespace hop::op {

using resource::Resource;
using resource::TableTriggerKind;

namespace {

constexpr std::string_view kTriggerLabel = "trigger";
constexpr std::string_view kTriggerAnnotation = "trigger";
constexpr std::string_view kTimestampAnnotation = "triggerTimestamp";
constexpr std::string_view kNamespaceAnnotation = "hop.dev/trigger-namespace";
constexpr std::string_view kFromAnnotation = "hop.dev/window-from";
// The start of every first window.
constexpr std::string_view kEpoch = "1970-01-01T00:00:00.000Z";
// How often a running Job is looked at when no event says it changed.
constexpr Duration kRunningRecheck = std::chrono::minutes(1);

using Millis = std::chrono::milliseconds;

std::string Stamp(SystemTime t) { return deploy::TriggerFires::Stamp(t); }

std::optional<SystemTime> TimeAt(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return std::nullopt;
  return ParseRfc3339(it->get<std::string>());
}

std::string Text(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The Job of a run: the trigger's YAML rendered for the window (from, to]; `retry` counts the
// runs of that window before this one (FIRE TRIGGER ... RETRY), which its name tells apart.
hop::Result<Resource> RenderRun(const Resource& trigger, const std::string& from,
                                const std::string& to, SystemTime fire, int64_t retry) {
  const std::string yaml = TableTriggerKind::kYaml.Get(trigger).value_or("");
  if (yaml.empty()) return Status::InvalidArgument("the trigger has no job YAML");
  // Job properties first: the variables hop sets win, and a property naming one (written into
  // the trigger's YAML by hand: SQL refuses them) stops the run.
  tmpl::Environment env;
  for (const auto& [k, v] :
       TableTriggerKind::kJobProperties.Get(trigger).value_or(resource::StringMap{})) {
    HOP_RETURN_IF_ERROR(deploy::CheckTriggerOption(k));
    env.Set(k, v);
  }
  env.Set("trigger", trigger.name());
  env.Set("schema", TableTriggerKind::kSchema.Get(trigger).value_or(""));
  env.Set("table", TableTriggerKind::kTable.Get(trigger).value_or(""));
  if (auto catalog = TableTriggerKind::kCatalog.Get(trigger)) env.Set("catalog", *catalog);
  env.Set("timestamp", to).Set("watermark", from);
  tmpl::SkipReason why;
  HOP_ASSIGN_OR_RETURN(std::optional<std::string> text, tmpl::Render(yaml, env, &why));
  if (!text) return Status::InvalidArgument("its job does not render: " + why.ToString());
  HOP_ASSIGN_OR_RETURN(std::vector<Json> docs, ParseYamlDocuments(*text, "the job"));
  std::vector<Json> objects;
  for (Json& d : docs) {
    if (!d.is_null()) objects.push_back(std::move(d));
  }
  if (objects.size() != 1) {
    return Status::InvalidArgument(
        fmt::format("its job YAML renders {} objects; a trigger runs one", objects.size()));
  }
  HOP_ASSIGN_OR_RETURN(Resource job, Resource::FromJson(std::move(objects[0]), "the job"));
  const std::string base = job.name().empty() ? trigger.name() : job.name();
  job.set_name(RunJobName(base, fire, retry));
  if (job.namespace_name().empty()) job.set_namespace(trigger.namespace_name());
  job.set_label(kTriggerLabel, resource::DependencyLabelValue(trigger.name()));
  job.set_annotation(kTriggerAnnotation, trigger.name());
  job.set_annotation(kNamespaceAnnotation, trigger.namespace_name());
  job.set_annotation(kTimestampAnnotation, to);
  job.set_annotation(kFromAnnotation, from);
  // What the Job materialises: the trigger's outputs, then those its own YAML declares.
  std::string outputs;
  for (const std::string& o :
       TableTriggerKind::kOutputs.Get(trigger).value_or(resource::StringList{})) {
    outputs += (outputs.empty() ? "" : ",") + o;
  }
  const auto annotations = job.annotations();
  if (auto own = annotations.find(std::string(deploy::kOutputsAnnotation));
      own != annotations.end() && !own->second.empty()) {
    outputs += (outputs.empty() ? "" : ",") + own->second;
  }
  HOP_RETURN_IF_ERROR(deploy::ParseWatermarkTargets(outputs, trigger.namespace_name(),
                                                    "its outputs (hop.dev/outputs)")
                          .status());
  if (!outputs.empty()) job.set_annotation(deploy::kOutputsAnnotation, outputs);
  // Owned by the trigger when both live in one namespace: deleting the trigger deletes its runs.
  // Owner references never cross namespaces.
  if (job.namespace_name() == trigger.namespace_name()) {
    job.set_owner_references({resource::OwnerReferenceTo(trigger)});
  }
  return job;
}

// Where cron ticks are counted from: the latest tick accounted for, else the trigger's creation
// (a new trigger does not fire for ticks before it existed), else now.
std::optional<SystemTime> CronBaseline(const Resource& trigger, SystemTime now) {
  auto baseline = trigger.status() ? TimeAt(*trigger.status(), "lastSchedule") : std::nullopt;
  if (!baseline) baseline = ParseRfc3339(trigger.creation_timestamp());
  if (!baseline) baseline = now;
  return baseline;
}

}  // namespace

std::optional<std::string> PendingWork(const Resource& trigger, SystemTime now) {
  Json status =
      trigger.status() && trigger.status()->is_object() ? *trigger.status() : Json::object();
  deploy::TriggerFires fires(status, deploy::TriggerFires::Each(trigger));
  if (fires.Running()) {
    return fmt::format("run {} is going", Text(status["jobs"].back(), "name"));
  }
  if (TableTriggerKind::kPaused.Get(trigger).value_or(false)) return std::nullopt;
  if (auto retry = fires.Retry()) {
    return fmt::format("the retry of the run ending at {} waits to start", Stamp(*retry));
  }
  if (auto waiting = fires.Waiting()) {
    // Unless no run can start for it (the trigger's status says why): nothing will change that.
    if (Text(status, "message").rfind("Cannot start a run", 0) == 0) return std::nullopt;
    return fmt::format("the fire at {} waits for its run", Stamp(*waiting));
  }
  if (auto schedule = TableTriggerKind::kSchedule.Get(trigger); schedule && !schedule->empty()) {
    auto cron = CronSchedule::Parse(*schedule);
    auto last = cron.ok() ? cron->Previous(now) : std::nullopt;
    if (last && *last > *CronBaseline(trigger, now)) {
      return fmt::format("the cron tick at {} is due", Stamp(*last));
    }
  }
  return std::nullopt;
}

std::string RunJobName(std::string_view base, SystemTime fire, int64_t retry) {
  const std::string stamp = Stamp(fire);  // 2026-03-01T02:00:00.000Z
  std::string suffix = "-";
  for (char c : stamp) {
    if (c >= '0' && c <= '9') suffix += c;
    if (c == 'T') suffix += 't';
  }
  if (retry > 0) suffix += "-r" + std::to_string(retry);
  std::string name(base.substr(0, 63 - std::min<size_t>(63, suffix.size())));
  while (!name.empty() && (name.back() == '-' || name.back() == '.')) name.pop_back();
  return name + suffix;
}

std::optional<store::ObjectRef> CurrentRunJob(const Resource& trigger) {
  const Json* status = trigger.status();
  if (status == nullptr) return std::nullopt;
  auto runs = status->find("jobs");
  if (runs == status->end() || !runs->is_array() || runs->empty()) return std::nullopt;
  const Json& last = runs->back();
  if (!last.is_object() || last.contains("finished")) return std::nullopt;
  return store::ObjectRef{{"batch", "Job"}, Text(last, "namespace"), Text(last, "name")};
}

hop::Result<TriggerPlan> PlanTrigger(const Resource& trigger,
                                     const std::optional<Resource>& current_job, SystemTime now,
                                     bool keep_every_run) {
  TriggerPlan plan;
  plan.trigger = trigger;
  if (!plan.trigger.status() || !plan.trigger.status()->is_object()) {
    plan.trigger.set_status(Json::object());
  }
  Json& st = plan.trigger.mutable_status();
  // Every return below goes through `done`, which keeps the newest kRunsKept runs when the
  // status changes anyway: dropping a run is never a write of its own (the run FireAndStart
  // added waits for the write that records its end).
  auto done = [&]() -> hop::Result<TriggerPlan> {
    if (auto runs = st.find("jobs"); !keep_every_run && runs != st.end() && runs->is_array() &&
                                     runs->size() > kRunsKept &&
                                     (trigger.status() == nullptr || st != *trigger.status())) {
      runs->erase(runs->begin(), runs->end() - kRunsKept);
    }
    return std::move(plan);
  };
  const bool paused = TableTriggerKind::kPaused.Get(trigger).value_or(false);
  const bool each = deploy::TriggerFires::Each(trigger);
  deploy::TriggerFires fires(st, each);
  auto want_after = [&](Duration d) {
    if (!plan.requeue_after || d < *plan.requeue_after) plan.requeue_after = d;
  };

  // Cron ticks since the last one accounted for (or since the trigger was made) are fires.
  if (auto schedule = TableTriggerKind::kSchedule.Get(trigger); schedule && !schedule->empty()) {
    auto cron = CronSchedule::Parse(*schedule);
    if (!cron.ok()) return cron.status();
    auto baseline = CronBaseline(trigger, now);
    if (auto last = cron->Previous(now); last && *last > *baseline) {
      if (each) {
        std::vector<SystemTime> ticks;
        for (auto t = cron->Next(*baseline); t && *t <= now; t = cron->Next(*t)) {
          ticks.push_back(*t);
          if (ticks.size() > static_cast<size_t>(kMaxCatchUp)) ticks.erase(ticks.begin());
        }
        for (SystemTime t : ticks) fires.Record(t);
      } else {
        fires.Record(*last);
      }
      st["lastSchedule"] = Stamp(*last);
      plan.event = "cron fired at " + Stamp(*last);
    } else if (!TimeAt(st, "lastSchedule")) {
      st["lastSchedule"] = Stamp(*baseline);
    }
    if (auto next = cron->Next(now)) {
      want_after(std::chrono::duration_cast<Duration>(*next - now) + Millis(1));
    }
  }

  // The run going on, if any. (Entries of a JSON object move when keys are added or removed,
  // so the run is worked on as a copy and put back.)
  static const Json kNone;
  const Json& last = st.contains("jobs") && st["jobs"].is_array() && !st["jobs"].empty()
                         ? st["jobs"].back()
                         : kNone;
  if (last.is_object() && !last.contains("finished")) {
    Json run = last;
    const std::string name = Text(run, "name");
    if (!current_job) {
      run["finished"] = Stamp(now);
      run["outcome"] = "Failed";
      run["message"] = "its Job was deleted before it finished";
      st["message"] = fmt::format("Run {} failed: its Job was deleted", name);
      st["lastRun"] = "Failed";
      if (auto to = TimeAt(run, "to")) fires.Abandon(*to);
      plan.event = "run " + name + " lost its Job";
    } else if (auto finished = JobFinished(*current_job)) {
      run["finished"] = Stamp(now);
      run["outcome"] = finished->first ? "Succeeded" : "Failed";
      st["lastRun"] = run["outcome"];
      if (finished->first) {
        if (auto to = TimeAt(run, "to")) {
          fires.Covered(*to);
          const auto annotations = current_job->annotations();
          if (auto declared = annotations.find(std::string(deploy::kOutputsAnnotation));
              declared != annotations.end()) {
            // Checked when the Job was made; a Job edited since is taken as far as it parses.
            auto outputs = deploy::ParseWatermarkTargets(declared->second, trigger.namespace_name(),
                                                         "the Job's outputs");
            if (outputs.ok()) plan.outputs = std::move(*outputs);
            plan.outputs_to = *to;
          }
        }
        st.erase("message");
      } else {
        run["message"] = finished->second;
        st["message"] = fmt::format("Run {} failed: {}", name, finished->second);
        // Its fires are not run again on their own: the next fire's window starts at the same
        // watermark, so it covers them.
        if (auto to = TimeAt(run, "to")) fires.Abandon(*to);
      }
      plan.remove = store::RefOf(*current_job);
      plan.event = fmt::format("run {} {}", name,
                               finished->first ? "succeeded" : "failed: " + finished->second);
    } else {
      want_after(kRunningRecheck);
      return done();  // one run at a time
    }
    st["jobs"].back() = std::move(run);
  }

  // The next run, when the trigger is not paused: the failed window a retry was asked for
  // (FIRE TRIGGER ... RETRY), else the fire that waits, if one does.
  if (paused) return done();
  std::optional<SystemTime> to;
  int64_t retry = 0;
  if (auto again = fires.Retry()) {
    st.erase("retry");
    const Json& newest = st.contains("jobs") && st["jobs"].is_array() && !st["jobs"].empty()
                             ? st["jobs"].back()
                             : kNone;
    if (newest.is_object() && Text(newest, "outcome") == "Failed" &&
        TimeAt(newest, "to") == again) {
      to = again;
      auto before = newest.find("retry");
      retry =
          (before != newest.end() && before->is_number_integer() ? before->get<int64_t>() : 0) + 1;
    } else {
      plan.event = "the retry asked for of the run ending at " + Stamp(*again) +
                   " was dropped: it is not the newest run, or has not failed";
    }
  }
  if (!to) to = fires.Waiting();
  if (!to) return done();
  // The window's ends are timestamps in hop's own form, whatever the stored status holds.
  std::string from(kEpoch);
  if (const std::string watermark = Text(st, "watermark"); !watermark.empty()) {
    auto parsed = ParseRfc3339(watermark);
    if (!parsed) {
      st["message"] =
          fmt::format("Cannot start a run: status.watermark '{}' is not a timestamp", watermark);
      plan.event = st["message"].get<std::string>();
      return done();
    }
    from = Stamp(*parsed);
  }
  auto job = RenderRun(trigger, from, Stamp(*to), *to, retry);
  if (!job.ok()) {
    st["message"] = "Cannot start a run: " + job.status().message();
    plan.event = st["message"].get<std::string>();
    return done();
  }
  Json run = {{"name", job->name()},
              {"namespace", job->namespace_name()},
              {"from", from},
              {"to", Stamp(*to)},
              {"started", Stamp(now)}};
  if (retry > 0) run["retry"] = retry;
  st["lastRun"] = "Running";
  Json& runs = st["jobs"];
  if (!runs.is_array()) runs = Json::array();
  runs.push_back(std::move(run));
  plan.event = fmt::format("run {} started for ({}, {}]{}", job->name(), from, Stamp(*to),
                           retry > 0 ? fmt::format(", retry {}", retry) : "");
  plan.create = std::move(*job);
  want_after(kRunningRecheck);
  return done();
}

hop::Result<std::optional<Resource>> CurrentRunJobOf(store::Store& store, const Resource& trigger) {
  auto ref = CurrentRunJob(trigger);
  if (!ref) return std::optional<Resource>();
  return store.Find(*ref);
}

hop::Result<std::optional<Resource>> UnrecordedRunJob(store::Store& store,
                                                      const Resource& trigger) {
  // A batch that commits whole never leaves a Job without the status that records it.
  if (store.AtomicBatches()) return std::optional<Resource>();
  auto selector = resource::LabelSelector::Parse(
      fmt::format("{}={}", kTriggerLabel, resource::DependencyLabelValue(trigger.name())));
  if (!selector.ok()) return std::optional<Resource>();
  HOP_ASSIGN_OR_RETURN(store::ListResult jobs, store.List({store::GroupKind{"batch", "Job"},
                                                           trigger.namespace_name(), *selector}));
  const Json status = StatusOf(trigger);
  std::set<std::string> recorded;
  if (auto runs = status.find("jobs"); runs != status.end() && runs->is_array()) {
    for (const Json& run : *runs) {
      if (run.is_object()) recorded.insert(Text(run, "namespace") + "/" + Text(run, "name"));
    }
  }
  const std::optional<SystemTime> watermark = TimeAt(status, "watermark");
  std::optional<Resource> earliest;
  std::optional<SystemTime> earliest_to;
  for (Resource& job : jobs.items) {
    if (job.deletion_timestamp()) continue;
    if (recorded.count(job.namespace_name() + "/" + job.name())) continue;
    const auto of = TriggerOfJob(job);
    if (!of || of->name != trigger.name() || of->namespace_name != trigger.namespace_name()) {
      continue;
    }
    const auto annotations = job.annotations();
    auto to_text = annotations.find(std::string(kTimestampAnnotation));
    const auto to = to_text == annotations.end() ? std::nullopt : ParseRfc3339(to_text->second);
    if (!to || (watermark && *to <= *watermark)) continue;
    if (!earliest_to || *to < *earliest_to) {
      earliest_to = to;
      earliest = std::move(job);
    }
  }
  return earliest;
}

Resource AdoptRun(Resource trigger, const Resource& job, SystemTime now) {
  Json status = StatusOf(trigger);
  const auto annotations = job.annotations();
  auto text = [&](std::string_view key) {
    auto it = annotations.find(std::string(key));
    return it == annotations.end() ? std::string() : it->second;
  };
  const std::string from = text(kFromAnnotation);
  const std::string started = job.creation_timestamp();
  Json run = {{"name", job.name()},
              {"namespace", job.namespace_name()},
              {"from", from.empty() ? std::string(kEpoch) : from},
              {"to", text(kTimestampAnnotation)},
              {"started", started.empty() ? Stamp(now) : started}};
  Json& runs = status["jobs"];
  if (!runs.is_array()) runs = Json::array();
  runs.push_back(std::move(run));
  while (runs.size() > kRunsKept) runs.erase(runs.begin());
  status["lastRun"] = "Running";
  trigger.set_status(std::move(status));
  return trigger;
}

Status WriteRunPlan(Batch& batch, const TriggerPlan& plan, const Json* before,
                    store::Store* store) {
  if (plan.create) HOP_RETURN_IF_ERROR(batch.CreateIfAbsent(*plan.create).status());
  const std::vector<store::ObjectRef> none;
  for (const store::ObjectRef& ref : store != nullptr ? plan.outputs : none) {
    const std::string what = deploy::WatermarkTargetText(ref);
    HOP_ASSIGN_OR_RETURN(std::optional<Resource> output, store->Find(ref));
    if (!output) {
      log::Warn("TableTrigger {}/{}: output {} not found: its watermark is not advanced",
                plan.trigger.namespace_name(), plan.trigger.name(), what);
      continue;
    }
    if (output->labels().count(std::string(deploy::kWatermarkPolicyLabel))) {
      log::Warn(
          "TableTrigger {}/{}: output {} derives its watermark from its inputs': not advanced",
          plan.trigger.namespace_name(), plan.trigger.name(), what);
      continue;
    }
    // Whose watermark only hop's refresh or fill sets (docs/operator.md, "Jobs that declare
    // their outputs"): a materialized view hop refreshes (a Job's own YAML can still name one,
    // or a view made again under the name after CREATE TRIGGER), and a table CREATE TABLE ...
    // AS has not filled yet.
    if (ref.kind == resource::ViewKind::Info().group_kind()) {
      auto refreshed = deploy::HopRefreshesView(*store, *output);
      if (!refreshed.ok()) {
        log::Warn(
            "TableTrigger {}/{}: output {} not advanced: whether hop refreshes it is not "
            "known: {}",
            plan.trigger.namespace_name(), plan.trigger.name(), what, refreshed.status().message());
        continue;
      }
      if (*refreshed) {
        log::Warn(
            "TableTrigger {}/{}: output {} is a materialized view hop refreshes, whose watermark "
            "only its refreshes set: not advanced",
            plan.trigger.namespace_name(), plan.trigger.name(), what);
        continue;
      }
    } else if (auto unfilled = deploy::UnfilledTable(*store, *output);
               !unfilled.ok() || *unfilled) {
      if (!unfilled.ok()) {
        log::Warn(
            "TableTrigger {}/{}: output {} not advanced: whether its fill succeeded is not "
            "known: {}",
            plan.trigger.namespace_name(), plan.trigger.name(), what, unfilled.status().message());
        continue;
      }
      log::Warn(
          "TableTrigger {}/{}: output {} is filled by CREATE TABLE ... AS, and {}: not advanced "
          "until its fill succeeds",
          plan.trigger.namespace_name(), plan.trigger.name(), what, **unfilled);
      continue;
    }
    Json status = StatusOf(*output);
    auto moved = deploy::ViewFires(status, ref.kind.kind).Set(plan.outputs_to, false, ref.name);
    if (!moved.ok()) {
      log::Info("TableTrigger {}/{}: output {} not advanced: {}", plan.trigger.namespace_name(),
                plan.trigger.name(), what, moved.status().message());
      continue;
    }
    if (*moved) batch.UpdateStatusIfChanged(*output, std::move(status));
  }
  batch.UpdateStatusIfChanged(plan.trigger, before);
  if (plan.remove) HOP_RETURN_IF_ERROR(batch.DeleteIfPresent(*plan.remove).status());
  return Status::OK();
}

hop::Result<bool> FireAndStart(Batch& batch, Resource trigger, const std::vector<SystemTime>& fires,
                               SystemTime now) {
  const Json before = StatusOf(trigger);
  Json status = before;
  deploy::TriggerFires recorded(status, deploy::TriggerFires::Each(trigger));
  for (SystemTime at : fires) recorded.Record(at);
  if (status == before) return false;
  trigger.set_status(std::move(status));
  // Where batches are not atomic, a run started but not recorded may be the trigger's current
  // one, which only its reconciler looks for and adopts: the runs start there, woken by the
  // fires this batch records.
  if (!CurrentRunJob(trigger) && batch.store().AtomicBatches()) {
    // The run the first new fire starts: what the TableTrigger reconciler would decide next.
    // A trigger whose run cannot be planned here gets only its fires; its own reconciler says
    // why.
    auto plan = PlanTrigger(trigger, std::nullopt, now, /*keep_every_run=*/true);
    if (plan.ok() && plan->create && !plan->remove) {
      HOP_ASSIGN_OR_RETURN(bool created, batch.CreateIfAbsent(std::move(*plan->create)));
      if (created) {
        batch.UpdateStatusIfChanged(std::move(plan->trigger), &before);
        return true;
      }
    }
  }
  batch.UpdateStatusIfChanged(std::move(trigger), &before);
  return true;
}

std::optional<store::ObjectRef> TriggerOfJob(const Resource& job) {
  const auto annotations = job.annotations();
  auto name = annotations.find(std::string(kTriggerAnnotation));
  auto ns = annotations.find(std::string(kNamespaceAnnotation));
  if (name == annotations.end() || ns == annotations.end()) return std::nullopt;
  return store::ObjectRef{TableTriggerKind::Info().group_kind(), ns->second, name->second};
}

}  // namespace hop::op
