// The watch cache of the Kubernetes API (docs/kubernetes-api.md "Watch"): one store watch of
// every kind feeds a window of recent events that all HTTP watchers read, so that five hundred
// `kubectl get -w` cost one store reader, and each event is serialised once however many
// watchers receive it. A watcher resuming from a revision older than the window reads the store's
// own history instead (KubeWatchCache::kTooOld tells it to).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "resource/resource.h"
#include "store/store.h"

namespace hop::server {

// One change as watchers receive it.
struct CachedEvent {
  store::EventType type = store::EventType::kAdded;
  int64_t revision = 0;
  resource::Resource object;  // secrets redacted
  // `{"type":"ADDED","object":{...}}` and a newline: the line a JSON watcher is sent.
  std::string line;
  // When redaction changed the object: the object whole, and its line, for hop's store client
  // (docs/kubernetes-api.md "hop's store client"); otherwise null and empty, `object` and `line`
  // being whole already.
  std::shared_ptr<const resource::Resource> whole;
  std::string whole_line;

  const resource::Resource& Object(bool redacted) const {
    return redacted || whole == nullptr ? object : *whole;
  }
  const std::string& Line(bool redacted) const {
    return redacted || whole == nullptr ? line : whole_line;
  }
};

// The line of a watch event for `object`, as it is.
std::string WatchEventLine(std::string_view type, const Json& object);
// `object` as an event of a watch: secrets redacted, the lines serialised.
std::shared_ptr<const CachedEvent> MakeCachedEvent(store::EventType type, int64_t revision,
                                                   resource::Resource object);

class KubeWatchCache {
 public:
  // Keeps the last `capacity` events, and fewer when they would take more than `max_bytes`
  // (counted as four times an event's line: the line and the parsed object).
  KubeWatchCache(store::Store& store, size_t capacity, size_t max_bytes = 128u << 20);
  ~KubeWatchCache();  // Stop()
  KubeWatchCache(const KubeWatchCache&) = delete;
  KubeWatchCache& operator=(const KubeWatchCache&) = delete;

  // Called in the cache's thread with every event, before watchers can read it, until Stop:
  // set before Start. It may read and write the store.
  void SetObserver(std::function<void(const store::Event&)> observer);

  // Starts following the store from its current revision.
  Status Start();
  // Ends the feed; blocked and later Reads return kStopped. Idempotent.
  void Stop();

  enum class Outcome {
    kEvents,   // *events holds the events after `after`, in revision order
    kTimeout,  // none came within the timeout
    kTooOld,   // `after` is older than the window: read the store's history instead
    kStopped,
  };
  // The events with a revision greater than `after`, waiting up to `timeout` for one.
  // `*progress` is the revision up to which the window is complete (a bookmark's).
  Outcome Read(int64_t after, std::chrono::milliseconds timeout,
               std::vector<std::shared_ptr<const CachedEvent>>* events, int64_t* progress);

  // The revision up to which the window is complete.
  int64_t progress() const;
  // Waits until the window is complete up to `revision` (the store reached it and the feed read
  // that far), the cache stops, or `timeout` passes; whether it is complete up to `revision`.
  bool WaitFor(int64_t revision, std::chrono::milliseconds timeout);

 private:
  void Feed();

  store::Store& store_;
  const size_t capacity_;
  const size_t max_bytes_;
  std::unique_ptr<store::Watch> watch_;
  std::thread thread_;
  std::function<void(const store::Event&)> observer_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<const CachedEvent>> window_;
  int64_t oldest_ = 0;    // events after this revision are all in the window
  int64_t progress_ = 0;  // ... up to this one
  size_t bytes_ = 0;      // what the window's events take, as counted for max_bytes
  bool stopped_ = false;
};

}  // namespace hop::server
