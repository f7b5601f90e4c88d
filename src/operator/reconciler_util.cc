#include "operator/reconciler_util.h"

#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>
#include <string>

namespace hop::op {

using resource::Resource;

namespace {

// The revision an object was last written at (its resourceVersion), if it reads as one.
std::optional<int64_t> WrittenAt(const Resource& object) {
  const std::string version = object.resource_version();
  int64_t out = 0;
  auto [end, error] = std::from_chars(version.data(), version.data() + version.size(), out);
  if (error != std::errc() || end != version.data() + version.size()) return std::nullopt;
  return out;
}

// `desired` with what the store assigns taken from `stored` (uid, resourceVersion, generation,
// creation time, the uids of owners named by kind and name), to compare the two.
Resource WithStoredMetadata(Resource desired, const Resource& stored) {
  Json& md = desired.mutable_json()["metadata"];
  const Json& from = stored.json().at("metadata");
  for (const char* key : {"uid", "resourceVersion", "generation", "creationTimestamp"}) {
    if (auto it = from.find(key); it != from.end()) {
      md[key] = *it;
    } else {
      md.erase(key);
    }
  }
  auto owners = desired.owner_references();
  const auto stored_owners = stored.owner_references();
  for (auto& o : owners) {
    if (!o.uid.empty()) continue;
    for (const auto& s : stored_owners) {
      if (s.kind == o.kind && s.name == o.name && s.api_version == o.api_version) o.uid = s.uid;
    }
  }
  if (!owners.empty()) desired.set_owner_references(owners);
  return desired;
}

// A status as read, an object without one counting as an empty one.
const Json& StatusOr(const Json* status) {
  static const Json kEmpty = Json::object();
  return status != nullptr ? *status : kEmpty;
}

}  // namespace

Json StatusOf(const Resource& object) {
  return object.status() != nullptr ? *object.status() : Json::object();
}

bool AddOwner(Resource& object, const Resource& owner) {
  auto owners = object.owner_references();
  for (const auto& o : owners) {
    if (o.kind == owner.kind() && o.name == owner.name()) return false;
  }
  owners.push_back(resource::OwnerReferenceTo(owner));
  object.set_owner_references(owners);
  return true;
}

Result<std::optional<Resource>> GetOrNotFound(store::Store& store, const Request& request) {
  return store.Find(request.ref);
}

Result<bool> Batch::CreateIfAbsent(Resource object) {
  const store::ObjectRef ref = store::RefOf(object);
  std::string key = ref.ToString();
  if (creates_.count(key) != 0) {
    return Status::AlreadyExists(fmt::format("{} is created twice in one batch", key));
  }
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing, store_.Find(ref));
  if (existing) return false;
  creates_.insert(std::move(key));
  writes_.push_back(store::Write::Create(std::move(object)));
  return true;
}

Result<bool> Batch::CreateOrUpdate(Resource desired, int64_t read_at) {
  const store::ObjectRef ref = store::RefOf(desired);
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing, store_.Find(ref));
  if (!existing) return CreateIfAbsent(std::move(desired));
  const std::optional<int64_t> written = WrittenAt(*existing);
  if (!written || *written > read_at) {
    return Status::Conflict(
        fmt::format("{} changed while its update was being made", ref.ToString()));
  }
  Resource compared = WithStoredMetadata(desired, *existing);
  if (resource::SameJson(compared.json(), existing->json())) return false;
  desired.set_resource_version(existing->resource_version());
  writes_.push_back(store::Write::Update(std::move(desired)));
  return true;
}

bool Batch::UpdateStatusIfChanged(const Resource& object, Json status) {
  if (status == StatusOr(object.status())) return false;
  Resource updated = object;
  updated.set_status(std::move(status));
  writes_.push_back(store::Write::UpdateStatus(std::move(updated)));
  return true;
}

bool Batch::UpdateStatusIfChanged(Resource object, const Json* before) {
  const Json* now = object.status();
  if (now == nullptr || *now == StatusOr(before)) return false;  // a status is never removed
  writes_.push_back(store::Write::UpdateStatus(std::move(object)));
  return true;
}

Result<bool> Batch::DeleteIfPresent(const store::ObjectRef& ref) {
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing, store_.Find(ref));
  if (!existing) return false;
  writes_.push_back(store::Write::Delete(ref));
  return true;
}

Status Batch::Commit() {
  if (writes_.empty()) return Status::OK();
  std::vector<store::Write> writes = std::move(writes_);
  writes_.clear();
  creates_.clear();
  return store_.Commit(std::move(writes)).status();
}

Result<bool> UpdateStatusIfChanged(store::Store& store, const Resource& object, Json status) {
  Batch batch(store);
  if (!batch.UpdateStatusIfChanged(object, std::move(status))) return false;
  HOP_RETURN_IF_ERROR(batch.Commit());
  return true;
}

Result<bool> UpdateDerivedStatusIfChanged(store::Store& store, const Resource& object, Json status,
                                          std::string* resource_version) {
  if (status == StatusOr(object.status())) return false;
  Resource updated = object;
  updated.set_status(std::move(status));
  std::vector<store::Write> writes;
  writes.push_back(store::Write::UpdateStatus(std::move(updated)));
  Result<std::vector<Resource>> committed = store.CommitLazily(std::move(writes));
  // Deleted since it was read: it has no status left to derive.
  if (committed.status().code() == StatusCode::kNotFound) return false;
  HOP_ASSIGN_OR_RETURN(std::vector<Resource> written, std::move(committed));
  if (resource_version != nullptr && !written.empty()) {
    *resource_version = written.front().resource_version();
  }
  return true;
}

std::optional<std::pair<bool, std::string>> JobFinished(const resource::Resource& job) {
  const Json* status = job.status();
  if (status == nullptr) return std::nullopt;
  auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return std::nullopt;
  auto text = [](const Json& object, const char* key) {
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  for (const Json& c : *conditions) {
    if (!c.is_object() || text(c, "status") != "True") continue;
    const std::string type = text(c, "type");
    if (type == "Complete") return std::make_pair(true, std::string());
    if (type == "Failed") {
      std::string why = text(c, "reason");
      const std::string message = text(c, "message");
      if (!message.empty()) why += (why.empty() ? "" : ": ") + message;
      return std::make_pair(false, why.empty() ? std::string("failed") : why);
    }
  }
  return std::nullopt;
}

}  // namespace hop::op
