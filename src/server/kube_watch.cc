#include "server/kube_watch.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/log.h"
#include "common/redact.h"
#include "resource/secrets.h"

namespace hop::server {

std::string WatchEventLine(std::string_view type, const Json& object) {
  Json event = Json::object();
  event["type"] = type;
  event["object"] = object;
  std::string line = event.dump(-1, ' ', false, Json::error_handler_t::replace);
  line += '\n';
  return line;
}

std::shared_ptr<const CachedEvent> MakeCachedEvent(store::EventType type, int64_t revision,
                                                   resource::Resource object) {
  auto e = std::make_shared<CachedEvent>();
  e->type = type;
  e->revision = revision;
  // A deleted object's resourceVersion is its deletion's, as Kubernetes sends it: a watcher
  // resumes from the last version it saw, and the object's last write is older than the delete.
  if (type == store::EventType::kDeleted) object.set_resource_version(std::to_string(revision));
  // Most objects hold no secret: they are serialised once, for every watcher.
  if (resource::HoldsSecrets(object.json())) {
    e->whole_line = WatchEventLine(store::EventTypeName(type), object.json());
    e->whole = std::make_shared<const resource::Resource>(object);
    resource::RedactSecretsIn(object.mutable_json());
  }
  e->line = WatchEventLine(store::EventTypeName(type), object.json());
  e->object = std::move(object);
  return e;
}

void KubeWatchCache::SetObserver(std::function<void(const store::Event&)> observer) {
  observer_ = std::move(observer);
}

KubeWatchCache::KubeWatchCache(store::Store& store, size_t capacity, size_t max_bytes)
    : store_(store), capacity_(capacity == 0 ? 1 : capacity), max_bytes_(max_bytes) {}

KubeWatchCache::~KubeWatchCache() { Stop(); }

Status KubeWatchCache::Start() {
  HOP_ASSIGN_OR_RETURN(int64_t revision, store_.Revision());
  {
    std::lock_guard<std::mutex> lock(mu_);
    oldest_ = progress_ = revision;
  }
  watch_ = store_.StartWatch({std::nullopt, "", revision});
  thread_ = std::thread([this] { Feed(); });
  return Status::OK();
}

void KubeWatchCache::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_ && !thread_.joinable()) return;
    stopped_ = true;
  }
  cv_.notify_all();
  if (watch_) watch_->Close();
  if (thread_.joinable()) thread_.join();
}

void KubeWatchCache::Feed() {
  store::Event event;
  for (;;) {
    const auto outcome = watch_->Next(std::chrono::milliseconds(500), &event);
    if (outcome == store::Watch::Outcome::kClosed) break;
    if (outcome == store::Watch::Outcome::kTooOld) {
      // The store forgot history this feed had not read (it fell far behind): start again from
      // the store's revision; watchers behind it are told to read the store, which sends them
      // 410 Expired, and they list again.
      auto revision = store_.Revision();
      if (!revision.ok()) break;
      log::Warn("kubernetes api: the watch cache fell behind the store's history; restarting at {}",
                *revision);
      watch_ = store_.StartWatch({std::nullopt, "", *revision});
      std::lock_guard<std::mutex> lock(mu_);
      window_.clear();
      bytes_ = 0;
      oldest_ = progress_ = *revision;
      continue;
    }
    std::shared_ptr<const CachedEvent> cached;
    if (outcome == store::Watch::Outcome::kEvent) {
      if (observer_) observer_(event);
      cached = MakeCachedEvent(event.type, event.revision, std::move(event.object));
    }
    const int64_t progress = watch_->Progress();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopped_) break;
      if (cached) {
        bytes_ += 4 * cached->line.size();
        window_.push_back(std::move(cached));
        while (window_.size() > 1 && (window_.size() > capacity_ || bytes_ > max_bytes_)) {
          oldest_ = window_.front()->revision;
          bytes_ -= 4 * window_.front()->line.size();
          window_.pop_front();
        }
      }
      if (progress > progress_) progress_ = progress;
      if (!window_.empty() && window_.back()->revision > progress_) {
        progress_ = window_.back()->revision;
      }
    }
    cv_.notify_all();
  }
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  cv_.notify_all();
}

KubeWatchCache::Outcome KubeWatchCache::Read(
    int64_t after, std::chrono::milliseconds timeout,
    std::vector<std::shared_ptr<const CachedEvent>>* events, int64_t* progress) {
  std::unique_lock<std::mutex> lock(mu_);
  const auto ready = [&] { return stopped_ || after < oldest_ || progress_ > after; };
  if (!ready()) cv_.wait_for(lock, timeout, ready);
  *progress = progress_;
  if (stopped_) return Outcome::kStopped;
  if (after < oldest_) return Outcome::kTooOld;
  // The window is in revision order: find the first event after `after`.
  auto it = std::upper_bound(window_.begin(), window_.end(), after,
                             [](int64_t rev, const auto& e) { return rev < e->revision; });
  for (; it != window_.end(); ++it) events->push_back(*it);
  return events->empty() ? Outcome::kTimeout : Outcome::kEvents;
}

int64_t KubeWatchCache::progress() const {
  std::lock_guard<std::mutex> lock(mu_);
  return progress_;
}

bool KubeWatchCache::WaitFor(int64_t revision, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return stopped_ || progress_ >= revision; });
  return progress_ >= revision;
}

}  // namespace hop::server
