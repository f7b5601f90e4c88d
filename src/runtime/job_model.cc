// Reading a Job's spec and writing its status for the local runner; see job_model.h.
#include "runtime/job_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "resource/kinds.h"

namespace hop::runtime {
namespace {

constexpr const char* kHop = "hop";  // status.hop: the runner's bookkeeping

const Json* Member(const Json* object, std::string_view key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(std::string(key));
  return it == object->end() || it->is_null() ? nullptr : &*it;
}

// An optional integer field; InvalidArgument naming `path` when present but not an integer.
Result<std::optional<int64_t>> IntField(const Json* object, std::string_view key,
                                        std::string_view path) {
  const Json* v = Member(object, key);
  if (v == nullptr) return std::optional<int64_t>();
  if (!v->is_number_integer()) {
    return Status::InvalidArgument(fmt::format("{} must be an integer, not {}", path, v->dump()));
  }
  return std::optional<int64_t>(v->get<int64_t>());
}

Result<std::vector<std::string>> StringList(const Json* object, std::string_view key,
                                            std::string_view path) {
  std::vector<std::string> out;
  const Json* v = Member(object, key);
  if (v == nullptr) return out;
  if (!v->is_array()) return Status::InvalidArgument(fmt::format("{} must be a list", path));
  for (const Json& e : *v) {
    if (!e.is_string()) {
      return Status::InvalidArgument(fmt::format("{} must hold strings, not {}", path, e.dump()));
    }
    out.push_back(e.get<std::string>());
  }
  return out;
}

int64_t IntOr(const Json* object, std::string_view key, int64_t fallback) {
  const Json* v = Member(object, key);
  return v != nullptr && v->is_number_integer() ? v->get<int64_t>() : fallback;
}

std::string StringOr(const Json* object, std::string_view key) {
  const Json* v = Member(object, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

std::string Timestamp(SystemTime t) { return FormatRfc3339(t); }

// Removes the running attempt's fields from status (the attempt count and last exit stay).
void ClearAttempt(Json& status) {
  status.erase("active");
  auto hop = status.find(kHop);
  if (hop == status.end() || !hop->is_object()) return;
  for (const char* key : {"pid", "pidStartTicks", "bootId", "exitFile"}) hop->erase(key);
}

}  // namespace

Result<JobSpec> ParseJobSpec(const resource::Resource& job) {
  const Json* spec = job.spec();
  if (spec == nullptr || !spec->is_object()) return Status::InvalidArgument("the Job has no spec");
  JobSpec out;
  HOP_ASSIGN_OR_RETURN(auto parallelism, IntField(spec, "parallelism", "spec.parallelism"));
  HOP_ASSIGN_OR_RETURN(auto completions, IntField(spec, "completions", "spec.completions"));
  if (parallelism.value_or(1) != 1 || completions.value_or(1) != 1) {
    return Status::InvalidArgument(fmt::format(
        "the local runner runs one process per Job: spec.parallelism {} and spec.completions {} "
        "are not supported (only 1)",
        parallelism.value_or(1), completions.value_or(1)));
  }
  HOP_ASSIGN_OR_RETURN(auto backoff, IntField(spec, "backoffLimit", "spec.backoffLimit"));
  if (backoff && *backoff < 0) {
    return Status::InvalidArgument("spec.backoffLimit must not be negative");
  }
  out.backoff_limit = backoff.value_or(kDefaultBackoffLimit);
  HOP_ASSIGN_OR_RETURN(out.active_deadline_seconds,
                       IntField(spec, "activeDeadlineSeconds", "spec.activeDeadlineSeconds"));
  if (out.active_deadline_seconds && *out.active_deadline_seconds <= 0) {
    return Status::InvalidArgument("spec.activeDeadlineSeconds must be positive");
  }
  if (const Json* suspend = Member(spec, "suspend")) {
    if (!suspend->is_boolean()) return Status::InvalidArgument("spec.suspend must be a boolean");
    out.suspend = suspend->get<bool>();
  }

  const Json* pod = Member(Member(spec, "template"), "spec");
  HOP_ASSIGN_OR_RETURN(out.termination_grace_seconds,
                       IntField(pod, "terminationGracePeriodSeconds",
                                "spec.template.spec.terminationGracePeriodSeconds"));
  const Json* containers = Member(pod, "containers");
  if (containers == nullptr || !containers->is_array() || containers->empty() ||
      !containers->front().is_object()) {
    return Status::InvalidArgument(
        "spec.template.spec.containers is empty: the Job has nothing to run");
  }
  const Json* container = &containers->front();

  // env first: command and args may refer to it.
  std::map<std::string, std::string> vars;
  if (const Json* env = Member(container, "env")) {
    if (!env->is_array()) {
      return Status::InvalidArgument("spec.template.spec.containers[0].env must be a list");
    }
    for (const Json& entry : *env) {
      std::string name = StringOr(&entry, "name");
      if (name.empty()) {
        return Status::InvalidArgument(
            "spec.template.spec.containers[0].env has an entry without a name");
      }
      if (Member(&entry, "valueFrom") != nullptr) {
        out.unresolved_env.push_back(name);
        continue;
      }
      const Json* value = Member(&entry, "value");
      if (value != nullptr && !value->is_string()) {
        return Status::InvalidArgument(
            fmt::format("spec.template.spec.containers[0].env {}: value must be a string", name));
      }
      // An entry sees the entries before it, as in Kubernetes.
      std::string expanded = ExpandVars(value != nullptr ? value->get<std::string>() : "", vars);
      vars[name] = expanded;
      out.env.emplace_back(name, std::move(expanded));
    }
  }
  HOP_ASSIGN_OR_RETURN(
      auto command, StringList(container, "command", "spec.template.spec.containers[0].command"));
  HOP_ASSIGN_OR_RETURN(auto args,
                       StringList(container, "args", "spec.template.spec.containers[0].args"));
  for (auto* part : {&command, &args}) {
    for (const std::string& word : *part) {
      out.argv.push_back(ExpandVars(word, vars));
      out.written_argv.push_back(word);
    }
  }
  if (out.argv.empty()) {
    return Status::InvalidArgument(
        "spec.template.spec.containers[0] has neither command nor args: the local runner runs "
        "commands, not images");
  }
  return out;
}

std::string ExpandVars(std::string_view text, const std::map<std::string, std::string>& vars) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '$' || i + 1 == text.size()) {
      out += text[i++];
      continue;
    }
    if (text[i + 1] == '$') {
      out += '$';
      i += 2;
      continue;
    }
    if (text[i + 1] != '(') {
      out += text[i++];
      continue;
    }
    size_t close = text.find(')', i + 2);
    if (close == std::string_view::npos) {
      // "$(" never closed is kept, and the text after it is read on, as Kubernetes reads it:
      // a `$$` there is still a `$`.
      out += "$(";
      i += 2;
      continue;
    }
    std::string name(text.substr(i + 2, close - i - 2));
    auto it = vars.find(name);
    if (it != vars.end()) {
      out += it->second;
    } else {
      out += text.substr(i, close + 1 - i);
    }
    i = close + 1;
  }
  return out;
}

int64_t BackoffLimitOf(const resource::Resource& job) {
  int64_t limit = IntOr(job.spec(), "backoffLimit", kDefaultBackoffLimit);
  return limit < 0 ? kDefaultBackoffLimit : limit;
}

std::optional<SystemTime> DeadlineOf(const resource::Resource& job) {
  const Json* seconds = Member(job.spec(), "activeDeadlineSeconds");
  if (seconds == nullptr || !seconds->is_number_integer()) return std::nullopt;
  auto start = ParseRfc3339(StringOr(job.status(), "startTime"));
  if (!start) return std::nullopt;
  return *start + std::chrono::seconds(seconds->get<int64_t>());
}

// One reading of a Job's conditions, which the store's index key (kUnfinishedJobKey) shares.
bool ConditionTrue(const resource::Resource& job, std::string_view type) {
  return resource::BatchJobConditionTrue(job, type);
}

bool JobFinished(const resource::Resource& job) { return resource::BatchJobFinished(job); }

void SetCondition(Json& status, std::string_view type, std::string_view reason,
                  std::string_view message, SystemTime now) {
  Json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = Json::array();
  Json* condition = nullptr;
  for (Json& c : conditions) {
    if (c.is_object() && StringOr(&c, "type") == type) condition = &c;
  }
  if (condition == nullptr) {
    conditions.push_back(Json::object());
    condition = &conditions.back();
    (*condition)["type"] = std::string(type);
  }
  if (StringOr(condition, "status") != "True") {
    (*condition)["lastTransitionTime"] = Timestamp(now);
  }
  (*condition)["status"] = "True";
  (*condition)["lastProbeTime"] = Timestamp(now);
  (*condition)["reason"] = std::string(reason);
  (*condition)["message"] = std::string(message);
}

std::optional<AttemptRecord> RecordedAttempt(const resource::Resource& job) {
  const Json* hop = Member(job.status(), kHop);
  const Json* pid = Member(hop, "pid");
  if (pid == nullptr || !pid->is_number_integer()) return std::nullopt;
  AttemptRecord record;
  record.attempt = IntOr(hop, "attempts", 0);
  record.pid = static_cast<pid_t>(pid->get<int64_t>());
  record.start_ticks = IntOr(hop, "pidStartTicks", 0);
  record.boot_id = StringOr(hop, "bootId");
  record.exit_file = StringOr(hop, "exitFile");
  return record;
}

int64_t AttemptsOf(const resource::Resource& job) {
  return IntOr(Member(job.status(), kHop), "attempts", 0);
}

int64_t FailedOf(const resource::Resource& job) { return IntOr(job.status(), "failed", 0); }

void MarkStarted(Json& status, const AttemptRecord& record, SystemTime now) {
  status["active"] = 1;
  if (StringOr(&status, "startTime").empty()) status["startTime"] = Timestamp(now);
  Json& hop = status[kHop];
  if (!hop.is_object()) hop = Json::object();
  hop["attempts"] = record.attempt;
  hop["pid"] = record.pid;
  hop["pidStartTicks"] = record.start_ticks;
  hop["bootId"] = record.boot_id;
  hop["exitFile"] = record.exit_file;
  hop["attemptStartTime"] = FormatRfc3339(now, 3);
}

void MarkNeverRan(Json& status, int64_t attempt) {
  ClearAttempt(status);
  Json& hop = status[kHop];
  if (!hop.is_object()) hop = Json::object();
  hop["attempts"] = attempt - 1;
  hop.erase("attemptStartTime");
}

void MarkEnded(Json& status, const AttemptEnd& end, int64_t backoff_limit, SystemTime now) {
  ClearAttempt(status);
  Json& hop = status[kHop];
  if (!hop.is_object()) hop = Json::object();
  hop["lastExitTime"] = FormatRfc3339(now, 3);
  if (end.exit_code) {
    hop["lastExitCode"] = *end.exit_code;
  } else {
    hop.erase("lastExitCode");
  }
  hop["lastResult"] = fmt::format("attempt {} {}", end.attempt, end.description);
  if (end.exit_code == 0) {
    status["succeeded"] = 1;
    status["completionTime"] = Timestamp(now);
    SetCondition(status, kComplete, kReasonCompleted,
                 fmt::format("attempt {} {}", end.attempt, end.description), now);
    return;
  }
  int64_t failed = IntOr(&status, "failed", 0) + 1;
  status["failed"] = failed;
  if (failed > backoff_limit) {
    SetCondition(status, kFailed, kReasonBackoffLimit,
                 fmt::format("Job has reached the specified backoff limit ({}): attempt {} {}",
                             backoff_limit, end.attempt, end.description),
                 now);
  }
}

void MarkNotStarted(Json& status, const AttemptEnd& end, int64_t backoff_limit, SystemTime now) {
  if (StringOr(&status, "startTime").empty()) status["startTime"] = Timestamp(now);
  Json& hop = status[kHop];
  if (!hop.is_object()) hop = Json::object();
  hop["attempts"] = end.attempt;
  MarkEnded(status, end, backoff_limit, now);
}

void MarkFailed(Json& status, std::string_view reason, std::string_view message, SystemTime now) {
  if (Member(Member(&status, kHop), "pid") != nullptr) {
    status["failed"] = IntOr(&status, "failed", 0) + 1;
    status[kHop]["lastExitTime"] = FormatRfc3339(now, 3);
  }
  ClearAttempt(status);
  SetCondition(status, kFailed, reason, message, now);
}

std::chrono::milliseconds RetryDelay(int64_t failed, std::chrono::milliseconds base,
                                     std::chrono::milliseconds cap) {
  if (failed <= 0 || base.count() <= 0) return std::chrono::milliseconds(0);
  std::chrono::milliseconds delay = base;
  for (int64_t i = 1; i < failed && delay < cap; ++i) delay *= 2;
  return std::min(delay, cap);
}

std::optional<SystemTime> LastExitTime(const resource::Resource& job) {
  return ParseRfc3339(StringOr(Member(job.status(), kHop), "lastExitTime"));
}

}  // namespace hop::runtime
