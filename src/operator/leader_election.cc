#include "operator/leader_election.h"

#include <fmt/format.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "resource/resource.h"

namespace hop::op {

namespace {

const store::GroupKind kLease{"coordination.k8s.io", "Lease"};

// MicroTime, as the Lease's times are written.
std::string MicroTime(SystemTime t) { return FormatRfc3339(t, 6); }

std::string StringOf(const Json* spec, const char* key) {
  if (spec == nullptr || !spec->is_object()) return "";
  auto it = spec->find(key);
  return it != spec->end() && it->is_string() ? it->get<std::string>() : "";
}

int64_t IntOf(const Json* spec, const char* key) {
  if (spec == nullptr || !spec->is_object()) return 0;
  auto it = spec->find(key);
  return it != spec->end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

}  // namespace

std::string DefaultIdentity() {
  const char* pod = std::getenv("POD_NAME");
  std::string base;
  if (pod != nullptr && *pod != '\0') {
    base = pod;
  } else {
    char host[HOST_NAME_MAX + 1] = {0};
    base = gethostname(host, sizeof host - 1) == 0 ? host : "hop";
  }
  return fmt::format("{}-{}", base, static_cast<long>(getpid()));
}

LeaderElector::LeaderElector(store::Store& store, LeaderElectionOptions options)
    : store_(store), options_(std::move(options)) {
  if (options_.identity.empty()) options_.identity = DefaultIdentity();
}

std::string LeaderElector::Holder() const {
  std::lock_guard<std::mutex> lock(mu_);
  return observed_holder_.empty() ? "nobody" : observed_holder_;
}

Result<bool> LeaderElector::TryAcquireOrRenew() {
  const SystemTime now = options_.clock->Now();
  const auto steady = std::chrono::steady_clock::now();
  const int64_t seconds = std::max<int64_t>(
      1, std::chrono::duration_cast<std::chrono::seconds>(options_.lease_duration).count());
  const store::ObjectRef ref{kLease, options_.namespace_name, options_.name};
  HOP_ASSIGN_OR_RETURN(std::optional<resource::Resource> found, store_.Find(ref));
  std::lock_guard<std::mutex> lock(mu_);
  if (!found) {
    resource::Resource lease(
        Json{{"apiVersion", "coordination.k8s.io/v1"},
             {"kind", "Lease"},
             {"metadata", {{"name", options_.name}, {"namespace", options_.namespace_name}}},
             {"spec",
              {{"holderIdentity", options_.identity},
               {"leaseDurationSeconds", seconds},
               {"acquireTime", MicroTime(now)},
               {"renewTime", MicroTime(now)},
               {"leaseTransitions", 0}}}});
    auto created = store_.Create(std::move(lease));
    if (!created.ok()) {
      holding_ = false;
      if (created.status().code() == StatusCode::kAlreadyExists) return false;
      return created.status();
    }
    observed_version_ = created->resource_version();
    observed_at_ = steady;
    observed_holder_ = options_.identity;
    observed_renew_ = MicroTime(now);
    holding_ = true;
    return true;
  }
  resource::Resource lease = std::move(*found);
  const Json* spec = lease.spec();
  const std::string holder = StringOf(spec, "holderIdentity");
  if (lease.resource_version() != observed_version_) {
    observed_version_ = lease.resource_version();
    observed_at_ = steady;
    observed_holder_ = holder;
    observed_renew_ = StringOf(spec, "renewTime");
  }
  // The duration the holder asked for, as this candidate's own clock measures it.
  const int64_t held_for = IntOf(spec, "leaseDurationSeconds");
  const auto duration =
      held_for > 0 ? std::chrono::seconds(held_for)
                   : std::chrono::duration_cast<std::chrono::seconds>(options_.lease_duration);
  if (!holder.empty() && holder != options_.identity && steady < observed_at_ + duration) {
    holding_ = false;
    return false;
  }
  Json& s = lease.mutable_spec();
  if (holder != options_.identity) {
    s["acquireTime"] = MicroTime(now);
    s["leaseTransitions"] = IntOf(spec, "leaseTransitions") + (holder.empty() ? 0 : 1);
  }
  s["holderIdentity"] = options_.identity;
  s["leaseDurationSeconds"] = seconds;
  s["renewTime"] = MicroTime(now);
  auto updated = store_.Update(std::move(lease));
  if (!updated.ok()) {
    holding_ = false;
    if (updated.status().code() == StatusCode::kConflict ||
        updated.status().code() == StatusCode::kNotFound) {
      return false;  // another candidate wrote first
    }
    return updated.status();
  }
  observed_version_ = updated->resource_version();
  observed_at_ = steady;
  observed_holder_ = options_.identity;
  observed_renew_ = MicroTime(now);
  holding_ = true;
  return true;
}

Status LeaderElector::Release() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!holding_) return Status::OK();
    holding_ = false;
  }
  const store::ObjectRef ref{kLease, options_.namespace_name, options_.name};
  HOP_ASSIGN_OR_RETURN(std::optional<resource::Resource> found, store_.Find(ref));
  if (!found || StringOf(found->spec(), "holderIdentity") != options_.identity) {
    return Status::OK();
  }
  resource::Resource lease = std::move(*found);
  Json& s = lease.mutable_spec();
  s["holderIdentity"] = "";
  s["leaseDurationSeconds"] = 1;
  s["renewTime"] = MicroTime(options_.clock->Now());
  auto updated = store_.Update(std::move(lease));
  if (!updated.ok() && updated.status().code() != StatusCode::kConflict) return updated.status();
  return Status::OK();
}

}  // namespace hop::op
