#include "deploy/trigger_fires.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "common/strings.h"
#include "resource/kinds.h"
#include "resource/names.h"

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

// `object[key]` when it is a string, else "".
std::string TextAt(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::optional<std::string> JobProperty(std::string_view key) {
  if (key.size() <= kJobPropertiesPrefix.size() ||
      key.substr(0, kJobPropertiesPrefix.size()) != kJobPropertiesPrefix) {
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

void TriggerFires::Record(SystemTime in) {
  const SystemTime t = std::chrono::floor<std::chrono::milliseconds>(in);
  if (auto latest = Latest(); latest && t <= *latest) return;
  status_["timestamp"] = Stamp(t);
  if (!each_) return;
  if (auto watermark = Watermark(); watermark && t <= *watermark) return;
  Json& pending = status_["pending"];
  if (!pending.is_array()) pending = Json::array();
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

const Json* TriggerFires::Newest() const {
  auto runs = status_.find("jobs");
  if (runs == status_.end() || !runs->is_array() || runs->empty() || !runs->back().is_object()) {
    return nullptr;
  }
  return &runs->back();
}

bool TriggerFires::Running() const {
  const Json* newest = Newest();
  return newest != nullptr && !newest->contains("finished");
}

std::optional<SystemTime> TriggerFires::Waiting() const {
  // Runs take fires in order, so what the newest run took (whatever its outcome) is taken.
  const Json* newest = Newest();
  const std::optional<SystemTime> taken = newest ? TimeAt(*newest, "to") : std::nullopt;
  if (each_) {
    auto pending = status_.find("pending");
    if (pending == status_.end() || !pending->is_array()) return std::nullopt;
    for (const Json& p : *pending) {
      auto t = p.is_string() ? ParseRfc3339(p.get<std::string>()) : std::nullopt;
      if (t && (!taken || *t > *taken)) return t;
    }
    return std::nullopt;
  }
  auto next = Next();
  if (next && taken && *next <= *taken) return std::nullopt;
  return next;
}

std::optional<SystemTime> TriggerFires::Retry() const { return TimeAt(status_, "retry"); }

Status TriggerFires::RequestRetry(std::string_view trigger) {
  const Json* newest = Newest();
  if (newest == nullptr) {
    return Status::InvalidArgument(
        fmt::format("Trigger {} has no failed run to retry: it has not run yet", trigger));
  }
  const std::string name = newest->value("name", "");
  if (!newest->contains("finished")) {
    return Status::Conflict(fmt::format(
        "Trigger {} has a run going ({}): wait for it; RETRY runs the window of a failed run "
        "again",
        trigger, name));
  }
  if (Retry()) {
    return Status::Conflict(
        fmt::format("Trigger {} already has a retry of its failed run asked for", trigger));
  }
  auto from = newest->value("from", "");
  auto to = TimeAt(*newest, "to");
  if (newest->value("outcome", "") != "Failed" || !to) {
    return Status::InvalidArgument(fmt::format(
        "Trigger {} has no failed run to retry: its last run, {}, succeeded", trigger, name));
  }
  if (auto waiting = Waiting()) {
    return Status::InvalidArgument(fmt::format(
        "Trigger {} has a fire waiting (at {}), whose run covers the failed window ({}, {}] too",
        trigger, Stamp(*waiting), from, Stamp(*to)));
  }
  status_["retry"] = Stamp(*to);
  return Status::OK();
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

bool TriggerOnTable(const resource::Resource& trigger, const std::vector<std::string>& path) {
  using resource::TableTriggerKind;
  if (path.size() < 2) return false;
  return TableTriggerKind::kTable.Get(trigger).value_or("") == path.back() &&
         TableTriggerKind::kSchema.Get(trigger).value_or("") == path[path.size() - 2] &&
         TableTriggerKind::kCatalog.Get(trigger).value_or("") == (path.size() == 3 ? path[0] : "");
}

Result<std::vector<store::ObjectRef>> ParseWatermarkTargets(std::string_view list,
                                                            const std::string& ns,
                                                            std::string_view where) {
  std::vector<store::ObjectRef> out;
  for (size_t start = 0; start <= list.size();) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    const std::string_view entry = TrimWhitespace(list.substr(start, comma - start));
    start = comma + 1;
    if (entry.empty()) continue;
    const size_t slash = entry.find('/');
    const std::string_view kind = slash == std::string_view::npos ? "" : entry.substr(0, slash);
    const std::string name(slash == std::string_view::npos ? "" : entry.substr(slash + 1));
    store::ObjectRef ref;
    if (EqualsIgnoreCase(kind, "table")) {
      ref.kind = resource::TableKind::Info().group_kind();
    } else if (EqualsIgnoreCase(kind, "view")) {
      ref.kind = resource::ViewKind::Info().group_kind();
    } else {
      return Status::InvalidArgument(fmt::format(
          "{}: '{}' is not table/NAME or view/NAME (a Table or View resource)", where, entry));
    }
    if (Status valid = resource::ValidateObjectName(name); !valid.ok()) {
      return Status::InvalidArgument(fmt::format("{}: '{}': {}", where, entry, valid.message()));
    }
    ref.namespace_name = ns;
    ref.name = name;
    out.push_back(std::move(ref));
  }
  return out;
}

std::string WatermarkTargetText(const store::ObjectRef& ref) {
  return (ref.kind == resource::TableKind::Info().group_kind() ? "table/" : "view/") + ref.name;
}

std::string JobProgress(const std::string& name, const std::optional<resource::Resource>& job) {
  if (!job) return name + " was deleted before it finished";
  const Json* status = job->status();
  const Json none = Json::object();
  const Json& s = status != nullptr && status->is_object() ? *status : none;
  auto count = [&](const char* key) {
    auto it = s.find(key);
    return it != s.end() && it->is_number_integer() ? it->get<int64_t>() : int64_t{0};
  };
  if (auto conditions = s.find("conditions"); conditions != s.end() && conditions->is_array()) {
    for (const Json& c : *conditions) {
      if (!c.is_object() || TextAt(c, "status") != "True") continue;
      const std::string type = TextAt(c, "type");
      if (type == "Complete") return name + " succeeded";
      if (type != "Failed") continue;
      std::string why = TextAt(c, "reason");
      if (const std::string message = TextAt(c, "message"); !message.empty()) {
        why += (why.empty() ? "" : ": ") + message;
      }
      return name + " failed" + (why.empty() ? "" : " (" + why + ")");
    }
  }
  if (count("active") > 0) return name + " runs";
  if (const int64_t failed = count("failed"); failed > 0) {
    return fmt::format("{} waits to retry after {} failed attempt{}", name, failed,
                       failed == 1 ? "" : "s");
  }
  return name + " waits to start";
}

Result<std::optional<std::string>> UnfilledTable(store::Store& store,
                                                 const resource::Resource& table) {
  std::optional<resource::Resource> job;
  const Json* status = table.status();
  if (status != nullptr && status->is_object() && status->contains("fill") &&
      (*status)["fill"].is_object()) {
    if (const std::string name = TextAt((*status)["fill"], "job"); !name.empty()) {
      HOP_ASSIGN_OR_RETURN(job, store.Find({{"batch", "Job"}, table.namespace_name(), name}));
    }
  }
  return UnfilledTable(table, job);
}

std::optional<std::string> UnfilledTable(const resource::Resource& table,
                                         const std::optional<resource::Resource>& fill_job) {
  const auto annotations = table.annotations();
  auto query = annotations.find(std::string(resource::kFillAnnotation));
  if (query == annotations.end()) return std::nullopt;
  const Json* status = table.status();
  const Json none = Json::object();
  const Json& s = status != nullptr && status->is_object() ? *status : none;
  const Json fill = s.contains("fill") && s["fill"].is_object() ? s["fill"] : none;
  auto text = [](const Json& object, const char* key) {
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  // Filled: the fill of this query recorded its digest (by its Job or by hand, even with a fill
  // Job of it still to run, which will replace those rows with the same query's), or, before
  // fills recorded one, the fill Job of this query succeeded.
  if (text(s, resource::kRefreshedQueryStatus) == resource::QueryDigest(query->second)) {
    return std::nullopt;
  }
  if (const std::string job = text(fill, "job"); !job.empty()) {
    return "its fill " + JobProgress(job, fill_job);
  }
  const bool this_query = text(fill, "query") == query->second;
  if (this_query && text(fill, "lastOutcome") == "Succeeded") return std::nullopt;
  if (this_query && text(fill, "lastOutcome") == "Failed") {
    const std::string message = text(fill, "message");
    return message.empty() ? std::string("its fill failed") : "its fill failed (" + message + ")";
  }
  return std::string("its fill waits to start");
}

Result<bool> HopRefreshesView(store::Store& store, const resource::Resource& view) {
  using resource::ViewKind;
  if (!ViewKind::kMaterialized.Get(view).value_or(false)) return false;
  HOP_ASSIGN_OR_RETURN(catalog::Catalog cat, catalog::Catalog::Load(store, view.namespace_name()));
  auto schema = cat.SchemaFor(ViewKind::Path(view));
  return schema.ok() && catalog::HopWritesTables(**schema);
}

ViewFires::ViewFires(Json& status, std::string_view kind) : status_(status), kind_(kind) {
  if (!status_.is_object()) status_ = Json::object();
}

Status ViewFires::Advance(SystemTime t, std::string_view view) {
  auto queued = status_.find("pendingFires");
  const size_t waiting = queued != status_.end() && queued->is_array() ? queued->size() : 0;
  if (waiting >= kMaxPending) {
    return Status::Unavailable(fmt::format(
        "{} {} has {} fires its triggers have not been given yet: no operator seems to "
        "reconcile this state directory (hop serve, or !wait in a session). Fire it again once "
        "they have been",
        kind_, view, waiting));
  }
  const std::string stamp = TriggerFires::Stamp(t);
  status_["watermark"] = stamp;
  Json& pending = status_["pendingFires"];
  if (!pending.is_array()) pending = Json::array();
  pending.push_back(stamp);
  return Status::OK();
}

Result<bool> ViewFires::Set(SystemTime in, bool force, std::string_view name) {
  const SystemTime t = std::chrono::floor<std::chrono::milliseconds>(in);
  if (auto current = Watermark()) {
    if (t == *current) return false;
    if (t < *current && !force) {
      return Status::InvalidArgument(fmt::format(
          "{} {} has watermark {}: {} is earlier, and a watermark only moves forward (hop "
          "watermark set --force moves it back)",
          kind_, name, TriggerFires::Stamp(*current), TriggerFires::Stamp(t)));
    }
  }
  HOP_RETURN_IF_ERROR(Advance(t, name));
  return true;
}

std::optional<SystemTime> ViewFires::Watermark() const { return TimeAt(status_, "watermark"); }

std::vector<SystemTime> ViewFires::Undelivered() const {
  std::vector<SystemTime> out = Queued();
  if (auto watermark = TimeAt(status_, "watermark")) out.push_back(*watermark);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool ViewFires::HasPending() const { return status_.contains("pendingFires"); }

std::vector<SystemTime> ViewFires::Queued() const {
  std::vector<SystemTime> out;
  if (auto pending = status_.find("pendingFires");
      pending != status_.end() && pending->is_array()) {
    for (const Json& p : *pending) {
      if (auto t = p.is_string() ? ParseRfc3339(p.get<std::string>()) : std::nullopt) {
        out.push_back(*t);
      }
    }
  }
  return out;
}

void ViewFires::Delivered() { status_.erase("pendingFires"); }

}  // namespace hop::deploy
