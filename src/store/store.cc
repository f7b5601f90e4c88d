// The parts of the Store interface shared by every implementation.
#include "store/store.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/issues.h"
#include "resource/kinds.h"
#include "resource/validation.h"

namespace hop::store {

std::string ObjectRef::ToString() const {
  std::string out = kind.ToString();
  out += '/';
  if (!namespace_name.empty()) {
    out += namespace_name;
    out += '/';
  }
  out += name;
  return out;
}

ObjectRef RefOf(const Resource& r) { return {r.group_kind(), r.namespace_name(), r.name()}; }

bool HasIndexKey(const Resource& r, const std::string& key) {
  if (key.empty()) return true;
  const resource::KindInfo* info = resource::FindKind(r.group_kind());
  if (info == nullptr || info->index_keys == nullptr) return false;
  const std::vector<std::string> keys = info->index_keys(r);
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

namespace {

// The verdict of a store's validation of `r`.
Status Verdict(const Resource& r, const Issues& issues) {
  if (!issues.HasErrors()) return Status::OK();
  return Status::ValidationError(fmt::format("{} is invalid:\n{}", r.Describe(), issues.Render()));
}

}  // namespace

Status ValidateObject(const Resource& r) {
  Issues issues(r.Describe());
  resource::ValidateResource(r, &issues);
  return Verdict(r, issues);
}

Status ValidateUpdate(const Resource& stored, const Resource& next) {
  // The change's problems first, as the API server lists them.
  Issues issues(next.Describe());
  for (const std::string& e : resource::UpdateErrors(stored, next)) issues.Error(e);
  resource::ValidateResource(next, &issues);
  return Verdict(next, issues);
}

Result<std::optional<Resource>> Store::Find(const ObjectRef& ref) {
  auto r = Get(ref);
  if (r.ok()) return std::optional<Resource>(std::move(r).value());
  if (r.status().code() == StatusCode::kNotFound) return std::optional<Resource>();
  return r.status();
}

std::string_view EventTypeName(EventType t) {
  switch (t) {
    case EventType::kAdded: return "ADDED";
    case EventType::kModified: return "MODIFIED";
    case EventType::kDeleted: return "DELETED";
  }
  return "?";
}

Write Write::Create(Resource r) {
  Write w;
  w.op = Op::kCreate;
  w.object = std::move(r);
  return w;
}

Write Write::Update(Resource r, std::string uid) {
  Write w;
  w.op = Op::kUpdate;
  w.object = std::move(r);
  w.uid = std::move(uid);
  return w;
}

Write Write::UpdateStatus(Resource r, std::string uid) {
  Write w;
  w.op = Op::kUpdateStatus;
  w.object = std::move(r);
  w.uid = std::move(uid);
  return w;
}

Write Write::Delete(ObjectRef ref, std::string resource_version, std::string uid) {
  Write w;
  w.op = Op::kDelete;
  w.ref = std::move(ref);
  w.resource_version = std::move(resource_version);
  w.uid = std::move(uid);
  return w;
}

Status CheckUidPrecondition(const ObjectRef& ref, std::string_view wanted, std::string_view uid) {
  if (wanted.empty() || wanted == uid) return Status::OK();
  return Status::Conflict(
      fmt::format("{}: Precondition failed: UID in precondition: {}, UID in object meta: {}",
                  ref.ToString(), wanted, uid));
}

Status CheckDeletePreconditions(const Write& deletion, std::string_view uid,
                                std::string_view resource_version) {
  HOP_RETURN_IF_ERROR(CheckUidPrecondition(deletion.ref, deletion.uid, uid));
  if (!deletion.resource_version.empty() && deletion.resource_version != resource_version) {
    return Status::Conflict(fmt::format(
        "{}: the object has been modified (resourceVersion {} is not {}); read it again",
        deletion.ref.ToString(), resource_version, deletion.resource_version));
  }
  return Status::OK();
}

namespace {
Result<Resource> Single(Result<std::vector<Resource>> r) {
  if (!r.ok()) return r.status();
  return std::move(r->front());
}
}  // namespace

Result<std::vector<Resource>> Store::CommitWritten(std::vector<Write> writes,
                                                   int64_t* durable_mark) {
  *durable_mark = 0;
  return Commit(std::move(writes));
}

Status Store::WaitDurable(int64_t /*durable_mark*/) { return Status::OK(); }
Status Store::Sync() { return Status::OK(); }

Result<std::vector<Resource>> Store::CommitLazily(std::vector<Write> writes) {
  return Commit(std::move(writes));
}

Result<Resource> Store::Create(Resource r) { return Single(Commit({Write::Create(std::move(r))})); }
Result<Resource> Store::Update(Resource r, std::string uid) {
  return Single(Commit({Write::Update(std::move(r), std::move(uid))}));
}
Result<Resource> Store::UpdateStatus(Resource r, std::string uid) {
  return Single(Commit({Write::UpdateStatus(std::move(r), std::move(uid))}));
}
Result<Resource> Store::Delete(const ObjectRef& ref, std::string resource_version) {
  return Single(Commit({Write::Delete(ref, std::move(resource_version))}));
}

Result<bool> ChangedSince(Store& store, const std::vector<GroupKind>& kinds,
                          const std::string& namespace_name, int64_t revision) {
  if (!store.ReplaysHistoryAtOnce()) return true;
  // Started together, the watches share one read of a store's log (docs/store.md, "Watches").
  std::vector<std::unique_ptr<Watch>> watches;
  for (const GroupKind& kind : kinds) {
    watches.push_back(store.StartWatch({kind, namespace_name, revision}));
  }
  for (const auto& watch : watches) {
    Event event;
    if (watch->Next(std::chrono::milliseconds(0), &event) != Watch::Outcome::kTimeout) {
      return true;
    }
  }
  return false;
}

Result<int64_t> Store::ListEach(const ListOptions& options,
                                const std::function<void(Resource)>& visit) {
  HOP_ASSIGN_OR_RETURN(ListResult list, List(options));
  for (Resource& r : list.items) visit(std::move(r));
  return list.revision;
}

Result<Store::Stats> Store::ReadStats() {
  HOP_ASSIGN_OR_RETURN(ListResult all, List({}));
  Stats stats;
  stats.revision = all.revision;
  stats.objects = static_cast<int64_t>(all.items.size());
  return stats;
}

}  // namespace hop::store
