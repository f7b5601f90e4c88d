// The controller loop: watches turn store events into requests on one WorkQueue, workers run
// the reconcilers and turn their outcomes into forget, requeue-after or backoff, and a timer
// resyncs every object now and then. This is the one place that holds the operator's plumbing
// and its only catch-all.
#include "operator/controller.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <tuple>

#include "common/files.h"
#include "common/log.h"
#include "common/metrics.h"
#include "operator/work_queue.h"
#include "resource/json.h"

namespace hop::op {
namespace {

// How long a watch thread waits in one Next() call. Close() interrupts it, so this only bounds
// how often an idle watch loops.
constexpr auto kWatchTimeout = std::chrono::seconds(30);
// How long to wait before listing again after a list failed or a watch closed by itself.
constexpr auto kWatchRetry = std::chrono::seconds(1);
// The longest the resync timer sleeps in one go (it re-reads the clock on waking).
constexpr auto kMaxSleep = std::chrono::hours(1);
// How many write conflicts in a row a request is reconciled again at once after, before the
// next one backs off as another failure does.
constexpr int kConflictsRetriedAtOnce = 3;

// "850us", "12.3ms", "4.20s": a reconcile's duration, for log lines.
std::string ElapsedText(std::chrono::steady_clock::duration d) {
  const double us = std::chrono::duration<double, std::micro>(d).count();
  if (us < 1000) return fmt::format("{:.0f}us", us);
  if (us < 1e6) return fmt::format("{:.1f}ms", us / 1e3);
  return fmt::format("{:.2f}s", us / 1e6);
}

// Reconciles take from well under a millisecond (nothing to do) to seconds (a slow store or a
// provisioner's round trip): buckets from 1 ms to 30 s.
const std::vector<double> kReconcileBuckets = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                               0.25,  0.5,    1,     2.5,  5,     10,   30};

// The metrics of one reconciled kind, looked up once when the kind is registered so that a
// reconcile only bumps atomics (docs/metrics.md).
struct KindMetrics {
  metrics::Counter* success = nullptr;  // hop_reconciles_total{kind,result="success"}
  metrics::Counter* requeue = nullptr;  // ... result="requeue"
  metrics::Counter* error = nullptr;    // ... result="error"
  metrics::Counter* errors = nullptr;   // hop_reconcile_errors_total{kind}
  metrics::Histogram* duration = nullptr;

  static KindMetrics For(metrics::Registry& registry, const std::string& kind) {
    auto& reconciles = registry.Counter(
        "hop_reconciles_total",
        "Reconciles finished, by kind and result (success, requeue, error).", {"kind", "result"});
    KindMetrics m;
    m.success = &reconciles.With({kind, "success"});
    m.requeue = &reconciles.With({kind, "requeue"});
    m.error = &reconciles.With({kind, "error"});
    m.errors = &registry
                    .Counter("hop_reconcile_errors_total",
                             "Reconciles that failed, retried or terminal, by kind.", {"kind"})
                    .With({kind});
    m.duration = &registry
                      .Histogram("hop_reconcile_duration_seconds",
                                 "How long reconciles took, by kind.", {"kind"}, kReconcileBuckets)
                      .With({kind});
    return m;
  }
};

// "250ms", "5s": a delay, for log lines.
std::string DelayText(Duration d) {
  if (d.count() >= 1000 && d.count() % 1000 == 0) return fmt::format("{}s", d.count() / 1000);
  return fmt::format("{}ms", d.count());
}

// What Stop leaves for the next Start (ManagerOptions::checkpoint_path): the revision the
// watches had delivered, what the manager watches (a checkpoint of other watches is not used),
// and the requests left to do with when each is due, in Unix milliseconds.
// The checkpoint's format. 2: the views refreshed on their inputs' change are labelled
// (resource::kRefreshOnChangeLabel), which a store a version-1 manager left may not be: a manager
// that finds a version-1 file lists instead, and its reconciles add the labels.
constexpr int kCheckpointVersion = 2;

struct Checkpoint {
  int64_t revision = 0;
  std::string watches;  // Impl::WatchesText
  std::vector<std::pair<Request, SystemTime>> requests;
};

// The content of the file at `path`; nullopt when it cannot be read.
std::optional<std::string> FileText(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<Checkpoint> ReadCheckpoint(const std::string& path, const std::string& ns) {
  const std::optional<std::string> text = FileText(path);
  if (!text) return std::nullopt;
  Json doc = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || doc.value("version", 0) != kCheckpointVersion ||
      doc.value("namespace", "") != ns || !doc.contains("revision") ||
      !doc["revision"].is_number_integer() || !doc.contains("requests") ||
      !doc["requests"].is_array()) {
    return std::nullopt;
  }
  Checkpoint c;
  c.revision = doc["revision"].get<int64_t>();
  c.watches = doc.value("watches", "");
  for (const Json& r : doc["requests"]) {
    if (!r.is_array() || r.size() != 5 || !r[4].is_number_integer()) return std::nullopt;
    for (int i = 0; i < 4; ++i) {
      if (!r[i].is_string()) return std::nullopt;
    }
    Request request{{{r[0].get<std::string>(), r[1].get<std::string>()},
                     r[2].get<std::string>(),
                     r[3].get<std::string>()}};
    c.requests.emplace_back(std::move(request),
                            SystemTime(std::chrono::milliseconds(r[4].get<int64_t>())));
  }
  return c;
}

// Writes `c` in place of the file at `path`, whole or not at all (a new file renamed over it).
// A file that says so already is left as it is: a manager that started on a converged state
// directory and found nothing to do stops without a write.
Status WriteCheckpoint(const std::string& path, const std::string& ns, const Checkpoint& c) {
  Json requests = Json::array();
  for (const auto& [r, when] : c.requests) {
    const int64_t ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count();
    requests.push_back(
        Json::array({r.ref.kind.group, r.ref.kind.kind, r.ref.namespace_name, r.ref.name, ms}));
  }
  const Json doc = {{"version", kCheckpointVersion},
                    {"namespace", ns},
                    {"revision", c.revision},
                    {"watches", c.watches},
                    {"requests", std::move(requests)}};
  const std::string text = doc.dump() + "\n";
  if (FileText(path) == text) return Status::OK();
  const std::string tmp = path + ".tmp";
  const int fd = OpenPrivateFile(tmp, O_WRONLY | O_TRUNC);
  if (fd < 0) return Status::Internal(fmt::format("cannot write {}", tmp));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  if (done != text.size() || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status::Internal(fmt::format("cannot write {}", path));
  }
  return Status::OK();
}

}  // namespace

bool operator<(const Request& a, const Request& b) {
  return std::tie(a.ref.kind.group, a.ref.kind.kind, a.ref.namespace_name, a.ref.name) <
         std::tie(b.ref.kind.group, b.ref.kind.kind, b.ref.namespace_name, b.ref.name);
}

std::string RequestText(const Request& r) {
  if (r.ref.namespace_name.empty()) return fmt::format("{} {}", r.ref.kind.kind, r.ref.name);
  return fmt::format("{} {}/{}", r.ref.kind.kind, r.ref.namespace_name, r.ref.name);
}

ReconcileResult ReconcileResult::Terminal(Status why) {
  if (why.ok()) why = Status::Internal("a terminal failure without a cause");
  ReconcileResult out;
  out.terminal = TerminalError{std::move(why)};
  return out;
}

// ---------------------------------------------------------------------------------------------

struct Manager::Impl {
  // What an event on a watched kind turns into.
  struct Handler {
    store::GroupKind primary;  // the kind whose requests it makes
    EventMapper mapper;        // empty: a request for the event's own object
  };

  // One watched kind: one store watch, one thread, every handler interested in the kind.
  struct WatchedKind {
    store::GroupKind kind;
    std::vector<Handler> handlers;
    int64_t revision = 0;                 // the last event seen; only its thread touches it
    std::unique_ptr<store::Watch> watch;  // guarded by Impl::mu (replaced on relist)
  };

  Impl(store::Store& s, ManagerOptions o)
      : store(s),
        options(std::move(o)),
        registry(options.registry ? *options.registry : metrics::Registry::Default()),
        queue(WorkQueueOptions{options.backoff_base, options.backoff_cap, options.clock}) {
    // One queue serves every kind, so its gauges have no kind label.
    auto gauge = [&](const char* name, const char* help, std::function<double()> value) {
      queue_gauges.push_back(registry.Gauge(name, help).AddCallback({}, std::move(value)));
    };
    gauge("hop_work_queue_depth", "Requests ready to be reconciled, for every kind.",
          [this] { return static_cast<double>(queue.Len()); });
    gauge("hop_work_queue_in_flight", "Requests being reconciled now.",
          [this] { return static_cast<double>(queue.Processing()); });
    gauge("hop_work_queue_delayed",
          "Requests waiting for a requeue-after or a backoff to pass before they are ready.",
          [this] { return static_cast<double>(queue.Waiting()); });
  }

  WatchedKind& Watched(const store::GroupKind& kind) {
    for (auto& w : watched) {
      if (w->kind == kind) return *w;
    }
    watched.push_back(std::make_unique<WatchedKind>());
    watched.back()->kind = kind;
    return *watched.back();
  }

  // What the manager watches and what each watch feeds, e.g. "batch/Job>TableTrigger,View;...":
  // a checkpoint is only used by a manager that watches the same way.
  std::string WatchesText() const {
    std::vector<std::string> parts;
    for (const auto& w : watched) {
      std::vector<std::string> primaries;
      for (const Handler& h : w->handlers) primaries.push_back(h.primary.ToString());
      std::sort(primaries.begin(), primaries.end());
      std::string part = w->kind.ToString() + ">";
      for (size_t i = 0; i < primaries.size(); ++i) part += (i ? "," : "") + primaries[i];
      parts.push_back(std::move(part));
    }
    std::sort(parts.begin(), parts.end());
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? ";" : "") + parts[i];
    return out;
  }

  // The checkpoint Start may resume from, if there is a usable one.
  std::optional<Checkpoint> UsableCheckpoint() const {
    if (options.checkpoint_path.empty()) return std::nullopt;
    std::optional<Checkpoint> c = ReadCheckpoint(options.checkpoint_path, options.namespace_name);
    if (!c) return std::nullopt;
    if (c->watches != WatchesText()) {
      log::Info("controller: {} was left by a manager that watched other kinds; listing",
                options.checkpoint_path);
      return std::nullopt;
    }
    // A store the checkpoint is ahead of is not the one it was taken on.
    auto now = store.Revision();
    if (!now.ok() || c->revision > *now) return std::nullopt;
    return c;
  }

  void Dispatch(const WatchedKind& w, const store::Event& event) {
    for (const Handler& h : w.handlers) {
      if (!h.mapper) {
        // (The reconcilers are fixed once started: read without the lock.)
        auto r = reconcilers.find(h.primary);
        if (r != reconcilers.end() && r->second->OwnWrite(event)) continue;
        queue.Add({{h.primary, event.object.namespace_name(), event.object.name()}});
        continue;
      }
      try {
        for (const Request& r : h.mapper(event)) queue.Add(r);
      } catch (const std::exception& e) {
        log::Error("controller: mapping {} {} to {} threw: {}", EventTypeName(event.type),
                   event.object.Describe(), h.primary.ToString(), e.what());
      }
    }
  }

  hop::Result<store::ListResult> ListKind(const store::GroupKind& kind) {
    store::ListOptions opts;
    opts.kind = kind;
    opts.namespace_name = options.namespace_name;
    auto listed = store.List(opts);
    if (!listed.ok()) {
      return listed.status().WithContext(fmt::format("listing {}: ", kind.ToString()));
    }
    return listed;
  }

  // Lists `w`'s kind and hands every object to its handlers as an event of type `type`. Returns
  // the revision of the list. A kind whose handlers only queue the object itself is streamed
  // (Store::ListEach), so that no list of a large store is held whole; a mapper may read the
  // store, which a ListEach visitor must not, so a kind with one is listed first.
  hop::Result<int64_t> ListAndDispatch(const WatchedKind& w, store::EventType type) {
    const bool mapped = std::any_of(w.handlers.begin(), w.handlers.end(),
                                    [](const Handler& h) { return bool(h.mapper); });
    if (!mapped) {
      store::ListOptions opts(w.kind, options.namespace_name);
      auto revision = store.ListEach(opts, [&](store::Resource object) {
        for (const Handler& h : w.handlers) {
          queue.Add({{h.primary, object.namespace_name(), object.name()}});
        }
      });
      if (!revision.ok()) {
        return revision.status().WithContext(fmt::format("listing {}: ", w.kind.ToString()));
      }
      return *revision;
    }
    HOP_ASSIGN_OR_RETURN(store::ListResult listed, ListKind(w.kind));
    for (store::Resource& object : listed.items) {
      store::Event event;
      event.type = type;
      event.revision = listed.revision;
      event.object = std::move(object);
      Dispatch(w, event);
    }
    return listed.revision;
  }

  // After a gap in `w`'s events: lists it again and, because a mapper cannot map objects that
  // were deleted during the gap, also queues every object of the kinds its mappers feed. Those
  // are streamed: only their names are kept (a gap in seven watches of element kinds once held
  // seven lists of every Pipeline at once, 60 KB a view).
  hop::Result<int64_t> Relist(const WatchedKind& w) {
    HOP_ASSIGN_OR_RETURN(int64_t revision, ListAndDispatch(w, store::EventType::kAdded));
    for (const Handler& h : w.handlers) {
      if (!h.mapper) continue;
      store::ListOptions opts(h.primary, options.namespace_name);
      auto listed = store.ListEach(opts, [&](store::Resource object) {
        queue.Add({{h.primary, object.namespace_name(), object.name()}});
      });
      if (!listed.ok()) {
        return listed.status().WithContext(fmt::format("listing {}: ", h.primary.ToString()));
      }
    }
    return revision;
  }

  bool Stopping() {
    std::lock_guard<std::mutex> lock(mu);
    return stopping;
  }

  // Waits on the real clock for `d`, or until Stop. False when stopping.
  bool Pause(std::chrono::milliseconds d) {
    std::unique_lock<std::mutex> lock(mu);
    timer_cv.wait_for(lock, d, [&] { return stopping; });
    return !stopping;
  }

  // Lists again and replaces the watch, until that works or the manager stops.
  void Rewatch(WatchedKind& w) {
    while (true) {
      auto revision = Relist(w);
      if (revision.ok()) {
        auto watch = store.StartWatch({w.kind, options.namespace_name, *revision});
        std::lock_guard<std::mutex> lock(mu);
        if (stopping) return;
        w.watch = std::move(watch);
        w.revision = *revision;
        return;
      }
      log::Warn("controller: watch of {}: {}; trying again in {}", w.kind.ToString(),
                revision.status().ToString(), DelayText(kWatchRetry));
      if (!Pause(kWatchRetry)) return;
    }
  }

  void WatchLoop(WatchedKind& w) {
    store::Event event;
    while (true) {
      store::Watch* watch;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (stopping) return;
        watch = w.watch.get();
      }
      switch (watch->Next(kWatchTimeout, &event)) {
        case store::Watch::Outcome::kEvent:
          w.revision = event.revision;
          Dispatch(w, event);
          break;
        case store::Watch::Outcome::kTimeout: break;
        case store::Watch::Outcome::kTooOld:
          log::Info(
              "controller: watch of {} fell behind the store's history at revision {}; "
              "listing again",
              w.kind.ToString(), w.revision);
          Rewatch(w);
          break;
        case store::Watch::Outcome::kClosed:
          if (Stopping()) return;
          log::Warn("controller: watch of {} closed at revision {}; listing again in {}",
                    w.kind.ToString(), w.revision, DelayText(kWatchRetry));
          if (!Pause(kWatchRetry)) return;
          Rewatch(w);
          break;
      }
    }
  }

  void Resync() {
    for (const auto& w : watched) {
      auto listed = ListAndDispatch(*w, store::EventType::kModified);
      if (!listed.ok()) log::Warn("controller: resync: {}", listed.status().ToString());
    }
  }

  // Resyncs at `next` and every options.resync after it, by the injected clock.
  void TimerLoop(SystemTime next) {
    std::unique_lock<std::mutex> lock(mu);
    while (!stopping) {
      const SystemTime now = options.clock->Now();
      if (now >= next) {
        lock.unlock();
        log::Debug("controller: resync");
        Resync();
        lock.lock();
        next = now + options.resync;
        continue;
      }
      timer_cv.wait_for(lock, std::min<SystemTime::duration>(next - now, kMaxSleep));
    }
  }

  hop::Result<ReconcileResult> Call(Reconciler* reconciler, const Request& request,
                                    const ReconcileContext& context) {
    try {
      return reconciler->Reconcile(request, context);
    } catch (const std::exception& e) {
      return Status::Internal(fmt::format("reconciler threw: {}", e.what()));
    } catch (...) {
      return Status::Internal("reconciler threw a non-standard exception");
    }
  }

  void ReconcileOne(const Request& request) {
    const std::string id = fmt::format("r-{:06d}", next_id.fetch_add(1) + 1);
    const std::string what = RequestText(request);
    // Every line logged from here to the end of the reconcile, the reconciler's too, carries
    // its id (in JSON logs).
    log::ReconcileScope scope(id, what);
    auto found = reconcilers.find(request.ref.kind);
    if (found == reconcilers.end()) {
      log::Warn("{} {}: no reconciler for kind {}; dropped", id, what, request.ref.kind.ToString());
      queue.Forget(request);
      return;
    }
    const KindMetrics& m = kind_metrics.at(request.ref.kind);
    ReconcileContext context{id, options.clock};
    const auto start = std::chrono::steady_clock::now();
    hop::Result<ReconcileResult> result = Call(found->second, request, context);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    const std::string took = ElapsedText(elapsed);
    reconciles.fetch_add(1);
    m.duration->Observe(std::chrono::duration<double>(elapsed).count());
    // A terminal failure is an error too: result "error", and counted in the errors.
    const bool failed = !result.ok() || result->terminal;
    (failed ? m.error : result->requeue_after ? m.requeue : m.success)->Inc();
    if (failed) m.errors->Inc();

    if (!result.ok()) {
      errors.fetch_add(1);
      // Another writer changed what the reconcile read: reading again is all it takes, so the
      // first conflicts in a row run again at once, and only a request that keeps losing
      // backs off (docs/operator.md, "Workers").
      if (result.status().code() == StatusCode::kConflict &&
          queue.NumRequeues(request) < kConflictsRetriedAtOnce) {
        const int attempt = queue.AddAgainNow(request);
        log::Debug("{} {}: conflict (attempt {}), again at once, in {}: {}", id, what, attempt,
                   took, result.status().ToString());
        return;
      }
      const Duration delay = queue.AddRateLimited(request);
      log::Warn("{} {}: failed (attempt {}), retry in {}, in {}: {}", id, what,
                queue.NumRequeues(request), DelayText(delay), took, result.status().ToString());
      return;
    }
    if (result->terminal) {
      errors.fetch_add(1);
      queue.Forget(request);
      log::Warn("{} {}: failed, not retried, in {}: {}", id, what, took,
                result->terminal->status.ToString());
      return;
    }
    queue.Forget(request);
    if (result->requeue_after) {
      queue.AddAfter(request, *result->requeue_after);
      log::Debug("{} {}: requeue after {}, in {}", id, what, DelayText(*result->requeue_after),
                 took);
    } else {
      log::Debug("{} {}: done in {}", id, what, took);
    }
  }

  void WorkerLoop() {
    while (std::optional<Request> request = queue.Get()) {
      ReconcileOne(*request);
      queue.Done(*request);
    }
  }

  store::Store& store;
  const ManagerOptions options;
  metrics::Registry& registry;
  WorkQueue queue;
  // Read `queue` at each Render; declared after it, so they are removed before it goes.
  std::vector<metrics::CallbackHandle> queue_gauges;

  // Set by Register, before Start; read-only afterwards.
  std::map<store::GroupKind, Reconciler*> reconcilers;
  std::map<store::GroupKind, KindMetrics> kind_metrics;  // one per key of `reconcilers`
  std::vector<std::unique_ptr<WatchedKind>> watched;

  std::atomic<int64_t> reconciles{0};
  std::atomic<int64_t> errors{0};
  std::atomic<uint64_t> next_id{0};

  std::mutex stop_mu;                // serialises Stop() calls; held while joining
  std::mutex mu;                     // guards started, stopping and every WatchedKind::watch
  std::condition_variable timer_cv;  // wakes the resync timer and paused watch threads
  bool started = false;
  bool stopping = false;
  bool checkpointed = false;         // Stop wrote the checkpoint (under stop_mu)
  bool resumed = false;              // Start resumed from a checkpoint
  std::vector<std::thread> threads;  // written by Start, joined by Stop (under stop_mu)
};

Manager::Manager(store::Store& store, ManagerOptions options)
    : impl_(std::make_unique<Impl>(store, std::move(options))) {}

Manager::~Manager() { Stop(); }

void Manager::Register(store::GroupKind kind, Reconciler* reconciler,
                       std::vector<std::pair<store::GroupKind, EventMapper>> extra) {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    // Register after Start is a programming error: the watches and lists are already fixed.
    assert(!impl_->started && "Manager::Register called after Start");
    if (impl_->started) {
      log::Error("controller: {} registered after Start; ignored", kind.ToString());
      return;
    }
  }
  // Registering a kind again replaces its reconciler.
  const bool again = impl_->reconcilers.count(kind) != 0;
  impl_->reconcilers[kind] = reconciler;
  if (!again) impl_->kind_metrics.emplace(kind, KindMetrics::For(impl_->registry, kind.kind));
  if (!again) impl_->Watched(kind).handlers.push_back({kind, nullptr});
  for (auto& [watched_kind, mapper] : extra) {
    impl_->Watched(watched_kind).handlers.push_back({kind, std::move(mapper)});
  }
}

Status Manager::Start() {
  Impl& m = *impl_;
  {
    std::lock_guard<std::mutex> lock(m.mu);
    if (m.started || m.stopping) {
      return Status::InvalidArgument("controller manager: Start after Start or Stop");
    }
  }
  if (std::optional<Checkpoint> c = m.UsableCheckpoint()) {
    // The watches replay every change since; what was left to do is queued at its time.
    for (auto& w : m.watched) w->revision = c->revision;
    const SystemTime now = m.options.clock->Now();
    for (const auto& [request, when] : c->requests) {
      m.queue.AddAfter(request, std::chrono::duration_cast<Duration>(
                                    std::max(SystemTime::duration(0), when - now)));
    }
    m.resumed = true;
    log::Debug("controller: resumed from revision {} with {} requests", c->revision,
               c->requests.size());
  } else {
    // List everything first, so that nothing is started when a list fails.
    for (auto& w : m.watched) {
      HOP_ASSIGN_OR_RETURN(w->revision, m.ListAndDispatch(*w, store::EventType::kAdded));
    }
  }
  std::lock_guard<std::mutex> stop_lock(m.stop_mu);
  std::lock_guard<std::mutex> lock(m.mu);
  if (m.started || m.stopping) {
    return Status::InvalidArgument("controller manager: Start after Start or Stop");
  }
  m.started = true;
  for (auto& w : m.watched) {
    w->watch = m.store.StartWatch({w->kind, m.options.namespace_name, w->revision});
    m.threads.emplace_back([&m, &w = *w] { m.WatchLoop(w); });
  }
  const int workers = std::max(1, m.options.workers);
  for (int i = 0; i < workers; ++i) m.threads.emplace_back([&m] { m.WorkerLoop(); });
  if (m.options.resync > Duration(0)) {
    // Counted from now, not from whenever the thread gets going.
    const SystemTime first = m.options.clock->Now() + m.options.resync;
    m.threads.emplace_back([&m, first] { m.TimerLoop(first); });
  }
  log::Debug("controller: started {} workers and {} watches", workers, m.watched.size());
  return Status::OK();
}

Result<bool> Manager::Converged() const {
  const std::optional<Checkpoint> c = impl_->UsableCheckpoint();
  if (!c) return false;
  HOP_ASSIGN_OR_RETURN(const int64_t now, impl_->store.Revision());
  if (c->revision != now) return false;
  const SystemTime clock_now = impl_->options.clock->Now();
  for (const auto& [request, when] : c->requests) {
    if (when <= clock_now) return false;
  }
  return true;
}

void Manager::Stop() {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> stop_lock(m.stop_mu);
  {
    std::lock_guard<std::mutex> lock(m.mu);
    m.stopping = true;
    for (auto& w : m.watched) {
      if (w->watch) w->watch->Close();
    }
  }
  // Workers finish what they hold and requeue as they would; what is left is the checkpoint's.
  m.queue.StopHandingOut();
  m.timer_cv.notify_all();
  for (std::thread& t : m.threads) t.join();
  m.threads.clear();
  if (m.started && !m.checkpointed && !m.options.checkpoint_path.empty()) {
    m.checkpointed = true;
    Checkpoint c;
    c.watches = m.WatchesText();
    c.requests = m.queue.Pending();
    // Every event up to the smallest of the watches' progress has been dispatched by all.
    c.revision = -1;
    for (const auto& w : m.watched) {
      const int64_t progress = w->watch ? w->watch->Progress() : w->revision;
      c.revision = c.revision < 0 ? progress : std::min(c.revision, progress);
    }
    // The progress it records covers the reconciles' writes, some reported once written
    // (UpdateDerivedStatusIfChanged): they must be durable before it is.
    Status synced = c.revision >= 0 ? m.store.Sync() : Status::OK();
    if (!synced.ok()) {
      log::Warn("controller: no checkpoint: {}", synced.ToString());
    } else if (c.revision >= 0) {
      Status s = WriteCheckpoint(m.options.checkpoint_path, m.options.namespace_name, c);
      if (!s.ok()) log::Warn("controller: {}", s.ToString());
    }
  }
  m.queue.ShutDown();
}

void Manager::Enqueue(const Request& request, Duration delay) {
  impl_->queue.AddAfter(request, delay);
}

void Manager::WakeUp() {
  impl_->queue.WakeUp();
  // Taking the lock orders this notification after the timer's check of the clock.
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->timer_cv.notify_all();
}

bool Manager::Idle() const { return impl_->queue.Idle(); }

bool Manager::WaitIdle(Duration timeout) const { return impl_->queue.WaitIdle(timeout); }

bool Manager::resumed() const { return impl_->resumed; }

bool Manager::Stopping() const { return impl_->queue.HandingOutStopped(); }

Metrics Manager::metrics() const {
  Metrics out;
  out.reconciles = impl_->reconciles.load();
  out.errors = impl_->errors.load();
  out.queue_depth = static_cast<int64_t>(impl_->queue.Len());
  out.in_flight = static_cast<int64_t>(impl_->queue.Processing());
  out.delayed = static_cast<int64_t>(impl_->queue.Waiting());
  return out;
}

}  // namespace hop::op
