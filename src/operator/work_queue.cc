// The work queue's bookkeeping: a FIFO of ready requests, the dirty and processing sets that
// de-duplicate them, a time-ordered set of waiting requests, and per-request failure counts.
#include "operator/work_queue.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace hop::op {
namespace {

// The longest Get() sleeps in one go while a request waits. Waits are re-computed after each
// wake-up, so this only keeps a far-away time from overflowing the condition variable's clock.
constexpr auto kMaxSleep = std::chrono::hours(1);

}  // namespace

WorkQueue::WorkQueue(WorkQueueOptions options) : options_(std::move(options)) {}

WorkQueue::~WorkQueue() { ShutDown(); }

void WorkQueue::Add(const Request& request) {
  std::lock_guard<std::mutex> lock(mu_);
  AddLocked(request);
}

void WorkQueue::AddLocked(const Request& request) {
  if (shutting_down_) return;
  if (!dirty_.insert(request).second) return;   // already queued, or already due again
  if (processing_.count(request) != 0) return;  // queued again by Done
  queue_.push_back(request);
  ready_cv_.notify_one();
}

void WorkQueue::AddAfter(const Request& request, Duration delay) {
  std::lock_guard<std::mutex> lock(mu_);
  if (shutting_down_) return;
  if (delay <= Duration(0)) {
    AddLocked(request);
    return;
  }
  const SystemTime when = options_.clock->Now() + delay;
  auto it = waiting_.find(request);
  if (it != waiting_.end()) {
    if (it->second <= when) return;  // the earlier time wins
    auto [first, last] = by_time_.equal_range(it->second);
    for (auto t = first; t != last; ++t) {
      if (t->second == request) {
        by_time_.erase(t);
        break;
      }
    }
    it->second = when;
  } else {
    waiting_.emplace(request, when);
  }
  by_time_.emplace(when, request);
  // A sleeping Get() may be waiting for a later time than this one.
  ready_cv_.notify_all();
}

Duration WorkQueue::AddRateLimited(const Request& request) {
  int failures;
  {
    std::lock_guard<std::mutex> lock(mu_);
    failures = failures_[request]++;
  }
  Duration delay = std::max(options_.backoff_base, Duration(0));
  for (int i = 0; i < failures && delay < options_.backoff_cap; ++i) delay *= 2;
  delay = std::min(delay, options_.backoff_cap);
  AddAfter(request, delay);
  return delay;
}

int WorkQueue::AddAgainNow(const Request& request) {
  int failures;
  {
    std::lock_guard<std::mutex> lock(mu_);
    failures = ++failures_[request];
  }
  Add(request);
  return failures;
}

void WorkQueue::Forget(const Request& request) {
  std::lock_guard<std::mutex> lock(mu_);
  failures_.erase(request);
}

int WorkQueue::NumRequeues(const Request& request) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = failures_.find(request);
  return it == failures_.end() ? 0 : it->second;
}

void WorkQueue::PromoteDueLocked(SystemTime now) {
  while (!by_time_.empty() && by_time_.begin()->first <= now) {
    Request request = std::move(by_time_.begin()->second);
    by_time_.erase(by_time_.begin());
    waiting_.erase(request);
    AddLocked(request);
  }
}

std::optional<Request> WorkQueue::PopLocked() {
  if (shutting_down_ || !handing_out_ || queue_.empty()) return std::nullopt;
  Request request = std::move(queue_.front());
  queue_.pop_front();
  processing_.insert(request);
  dirty_.erase(request);
  return request;
}

std::optional<Request> WorkQueue::Get() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (shutting_down_ || !handing_out_) return std::nullopt;
    PromoteDueLocked(options_.clock->Now());
    if (!queue_.empty()) return PopLocked();
    if (by_time_.empty()) {
      ready_cv_.wait(lock);
    } else {
      // Sleeps on the real clock for as long as the injected clock says is left; with a fake
      // clock that has not moved, this just sleeps again, until WakeUp().
      const auto left = by_time_.begin()->first - options_.clock->Now();
      ready_cv_.wait_for(lock, std::min<SystemTime::duration>(left, kMaxSleep));
    }
  }
}

std::optional<Request> WorkQueue::TryGet() {
  std::lock_guard<std::mutex> lock(mu_);
  PromoteDueLocked(options_.clock->Now());
  return PopLocked();
}

void WorkQueue::Done(const Request& request) {
  std::lock_guard<std::mutex> lock(mu_);
  processing_.erase(request);
  if (dirty_.count(request) != 0) {
    if (shutting_down_) {
      dirty_.erase(request);
    } else {
      queue_.push_back(request);
      ready_cv_.notify_one();
    }
  }
  NotifyIfIdleLocked();
}

void WorkQueue::WakeUp() {
  std::lock_guard<std::mutex> lock(mu_);
  PromoteDueLocked(options_.clock->Now());
  ready_cv_.notify_all();
}

void WorkQueue::ShutDown() {
  std::lock_guard<std::mutex> lock(mu_);
  shutting_down_ = true;
  queue_.clear();
  waiting_.clear();
  by_time_.clear();
  // Requests being processed stay dirty only until their Done, which drops them.
  for (auto it = dirty_.begin(); it != dirty_.end();) {
    it = processing_.count(*it) != 0 ? std::next(it) : dirty_.erase(it);
  }
  ready_cv_.notify_all();
  NotifyIfIdleLocked();
}

bool WorkQueue::HandingOutStopped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !handing_out_;
}

void WorkQueue::StopHandingOut() {
  std::lock_guard<std::mutex> lock(mu_);
  handing_out_ = false;
  ready_cv_.notify_all();
}

std::vector<std::pair<Request, SystemTime>> WorkQueue::Pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  const SystemTime now = options_.clock->Now();
  std::map<Request, SystemTime> due;
  for (const Request& r : dirty_) due.emplace(r, now);  // ready, or due again after Done
  for (const auto& [r, when] : waiting_) due.emplace(r, when);
  return {due.begin(), due.end()};
}

bool WorkQueue::ShuttingDown() const {
  std::lock_guard<std::mutex> lock(mu_);
  return shutting_down_;
}

size_t WorkQueue::Len() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

size_t WorkQueue::Processing() const {
  std::lock_guard<std::mutex> lock(mu_);
  return processing_.size();
}

size_t WorkQueue::Waiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_.size();
}

std::optional<SystemTime> WorkQueue::NextWaitingTime() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (by_time_.empty()) return std::nullopt;
  return by_time_.begin()->first;
}

bool WorkQueue::Idle() const {
  std::lock_guard<std::mutex> lock(mu_);
  return IdleLocked();
}

bool WorkQueue::IdleLocked() const {
  if (!queue_.empty() || !processing_.empty()) return false;
  // A request whose time has come is ready, whether or not anyone has looked yet.
  return by_time_.empty() || by_time_.begin()->first > options_.clock->Now();
}

bool WorkQueue::WaitIdle(Duration timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return idle_cv_.wait_for(lock, timeout, [&] { return IdleLocked(); });
}

void WorkQueue::NotifyIfIdleLocked() {
  if (IdleLocked()) idle_cv_.notify_all();
}

}  // namespace hop::op
