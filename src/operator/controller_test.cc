// Tests of the controller Manager against the real SqliteStore with a recording reconciler:
// initial lists, watch events, backoff, terminal errors, requeue-after, resync, extra watches,
// idleness and stopping. Delays run on a fake clock that the tests advance (then WakeUp), so
// nothing waits for a backoff; the waits below are for worker threads, bounded generously and
// never measured.
#include "operator/controller.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <stdexcept>
#include <thread>

#include "common/log.h"
#include "common/metrics.h"
#include "operator/reconciler_test_fixture.h"
#include "store/sqlite_store.h"
#include "test/lib/fixtures.h"

namespace hop::op {
namespace {

using hop::testing::FakeClock;
using hop::testing::TempDir;

using resource::Resource;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr Duration kWait = std::chrono::seconds(60);  // for threads; never reached when it works

const store::GroupKind kConfigMap{"", "ConfigMap"};
const store::GroupKind kJob{"batch", "Job"};

// Polls `condition` until it holds; false after kWait. Only for states that no callback
// announces.
bool Eventually(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

Resource ConfigMap(const std::string& name, const std::string& ns = "default") {
  Resource r(Json::parse(R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {},
                             "data": {"k": "v"}})"));
  r.set_name(name);
  r.set_namespace(ns);
  return r;
}

// A Job labelled with the ConfigMap it belongs to.
Resource Job(const std::string& name, const std::string& owner) {
  Resource r(Json::parse(R"({"apiVersion": "batch/v1", "kind": "Job", "metadata": {},
                             "spec": {}})"));
  r.set_name(name);
  r.set_namespace("default");
  r.mutable_json()["metadata"]["labels"]["owner"] = owner;
  return r;
}

Request CM(const std::string& name, const std::string& ns = "default") {
  return {{kConfigMap, ns, name}};
}

// Records every reconcile and answers with a programmable behaviour. Thread-safe.
class TestReconciler : public Reconciler {
 public:
  // The answer to the `call`-th reconcile (from 1) of a request.
  using Behavior = std::function<hop::Result<ReconcileResult>(const Request& request, int call)>;

  explicit TestReconciler(store::Store* store, Behavior behavior = nullptr)
      : store_(store), behavior_(std::move(behavior)) {}

  hop::Result<ReconcileResult> Reconcile(const Request& request,
                                         const ReconcileContext& context) override {
    EXPECT_NE(context.clock, nullptr);
    const bool exists = store_->Get(request.ref).ok();  // level-based: look at the store
    int call;
    {
      std::lock_guard<std::mutex> lock(mu_);
      call = ++calls_[request.ref.name];
      ids_.push_back(context.id);
      exists_[request.ref.name] = exists;
    }
    cv_.notify_all();
    return behavior_ ? behavior_(request, call) : ReconcileResult::Done();
  }

  int Calls(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_[name];
  }
  bool Existed(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    return exists_[name];
  }
  std::vector<std::string> Ids() {
    std::lock_guard<std::mutex> lock(mu_);
    return ids_;
  }
  // Waits until `name` has been reconciled at least `n` times; false after kWait.
  bool WaitForCalls(const std::string& name, int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kWait, [&] { return calls_[name] >= n; });
  }

 private:
  store::Store* store_;
  const Behavior behavior_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, int> calls_;    // guarded by mu_
  std::map<std::string, bool> exists_;  // guarded by mu_: at the last reconcile
  std::vector<std::string> ids_;        // guarded by mu_
};

class ManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::SqliteStoreOptions opts;
    opts.durable = false;
    auto s = store::SqliteStore::Open(dir_.path(), opts);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
  }

  ManagerOptions Options() {
    ManagerOptions o;
    o.workers = 2;
    o.resync = hours(10);
    o.backoff_base = seconds(1);
    o.backoff_cap = minutes(1);
    o.clock = &clock_;
    return o;
  }

  void Create(Resource r) {
    auto created = store_->Create(std::move(r));
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }

  // Moves the fake clock and lets the manager notice.
  void Advance(Manager& m, Duration d) {
    clock_.Advance(d);
    m.WakeUp();
  }

  TempDir dir_;
  std::unique_ptr<store::SqliteStore> store_;
  FakeClock clock_;
};

// A watch over another store, held (answering nothing) until released.
class HeldWatch : public store::Watch {
 public:
  HeldWatch(std::unique_ptr<store::Watch> inner, const std::atomic<bool>& held)
      : inner_(std::move(inner)), held_(held) {}
  Outcome Next(std::chrono::milliseconds timeout, store::Event* event) override {
    if (held_) {
      std::this_thread::sleep_for(std::min(timeout, std::chrono::milliseconds(5)));
      return Outcome::kTimeout;
    }
    return inner_->Next(timeout, event);
  }
  int64_t Progress() const override { return inner_->Progress(); }
  void Close() override { inner_->Close(); }

 private:
  std::unique_ptr<store::Watch> inner_;
  const std::atomic<bool>& held_;
};

// A store whose watches can be held, as a watch that stops reading (a slow network, an API
// server gone for a while) lets its place fall out of the store's history.
class HoldingStore : public CountingStore {
 public:
  using CountingStore::CountingStore;
  std::unique_ptr<store::Watch> StartWatch(const store::WatchOptions& options) override {
    ++watches;
    return std::make_unique<HeldWatch>(CountingStore::StartWatch(options), held);
  }

  std::atomic<bool> held = false;
  std::atomic<int> watches = 0;
};

// A watch whose place the store's history no longer holds (Kubernetes' 410 Gone) lists again
// and watches from the list: what was created or changed meanwhile is reconciled, and what
// comes after reaches the new watch.
TEST_F(ManagerTest, AWatchThatFellBehindTheHistoryListsAgainAndMissesNothing) {
  store::SqliteStoreOptions opts;
  opts.durable = false;
  opts.retained_events = 5;
  auto opened = store::SqliteStore::Open(dir_.path() + "/short", opts);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  HoldingStore store(**opened);
  ASSERT_TRUE(store.Create(ConfigMap("before")).ok());

  TestReconciler rec(&store);
  Manager m(store, Options());
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(rec.WaitForCalls("before", 1));
  ASSERT_TRUE(m.WaitIdle(kWait));
  const int watches = store.watches;

  store.held = true;
  // The store trims its history in steps of 256 revisions.
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(store.Create(ConfigMap("gap-" + std::to_string(i))).ok());
  }
  auto before = store.Get(CM("before").ref);
  ASSERT_TRUE(before.ok());
  before->mutable_json()["data"]["k"] = "changed";
  ASSERT_TRUE(store.Update(*before).ok());
  store.held = false;

  for (int i = 0; i < 300; ++i) ASSERT_TRUE(rec.WaitForCalls("gap-" + std::to_string(i), 1)) << i;
  ASSERT_TRUE(rec.WaitForCalls("before", 2));
  EXPECT_GT(store.watches, watches);  // a new watch, from the list
  ASSERT_TRUE(store.Create(ConfigMap("after")).ok());
  ASSERT_TRUE(rec.WaitForCalls("after", 1));
  ASSERT_TRUE(m.WaitIdle(kWait));
  m.Stop();
}

// A store that counts the objects each whole List returns, by kind; ListEach streams from the
// store under it.
class ListCountingStore : public HoldingStore {
 public:
  explicit ListCountingStore(store::Store& inner) : HoldingStore(inner), inner_(inner) {}
  Result<store::ListResult> List(const store::ListOptions& options) override {
    auto listed = HoldingStore::List(options);
    if (listed.ok() && options.kind) {
      std::lock_guard<std::mutex> lock(mu);
      listed_whole[options.kind->kind] += static_cast<int>(listed->items.size());
    }
    return listed;
  }
  Result<int64_t> ListEach(const store::ListOptions& options,
                           const std::function<void(Resource)>& visit) override {
    return inner_.ListEach(options, visit);
  }
  int ListedWhole(const std::string& kind) {
    std::lock_guard<std::mutex> lock(mu);
    return listed_whole[kind];
  }

 private:
  store::Store& inner_;
  std::mutex mu;
  std::map<std::string, int> listed_whole;
};

// The lists a start or a watch's gap makes hold no kind whole that they only queue: its own
// kind's (a kind reconciled by itself) and those its mappers feed are streamed, one object at a
// time, and every object is still reconciled. A store of 20,000 views once took 1.2 GB to
// converge, as seven watches of element kinds each held a list of every Pipeline.
TEST_F(ManagerTest, ListsAStartOrAGapMakesHoldNoKindWholeThatTheyOnlyQueue) {
  store::SqliteStoreOptions opts;
  opts.durable = false;
  opts.retained_events = 5;
  auto opened = store::SqliteStore::Open(dir_.path() + "/short", opts);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  ListCountingStore store(**opened);
  for (int i = 0; i < 40; ++i) ASSERT_TRUE(store.Create(ConfigMap(fmt::format("cm{}", i))).ok());
  ASSERT_TRUE(store.Create(Job("j0", "cm0")).ok());

  TestReconciler rec(&store);
  EventMapper owner_of = [](const store::Event& event) {
    auto labels = event.object.labels();
    if (!labels.count("owner")) return std::vector<Request>{};
    return std::vector<Request>{CM(labels["owner"], event.object.namespace_name())};
  };
  Manager m(store, Options());
  m.Register(kConfigMap, &rec, {{kJob, owner_of}});
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(m.WaitIdle(kWait));
  for (int i = 0; i < 40; ++i) EXPECT_EQ(rec.Calls(fmt::format("cm{}", i)), 1) << i;

  // A gap: the Job watch lists again and queues every ConfigMap. Another watch's read of the
  // log fills a held watch's buffer up to 4,096 events, so the gap is longer (the ConfigMap
  // watch, with no events in it, may have passed it while waiting, and then has no gap).
  const int watches = store.watches;
  store.held = true;
  for (int i = 0; i < 5000; ++i) {
    ASSERT_TRUE(store.Create(Job(fmt::format("gap-{}", i), "cm1")).ok());
  }
  store.held = false;
  ASSERT_TRUE(Eventually([&] { return store.watches >= watches + 1; }));
  for (int i = 0; i < 40; ++i) ASSERT_TRUE(rec.WaitForCalls(fmt::format("cm{}", i), 2)) << i;
  ASSERT_TRUE(m.WaitIdle(kWait));
  m.Stop();
  EXPECT_EQ(store.ListedWhole("ConfigMap"), 0);
  // A mapper may read the store, which a streamed list's visitor must not: Jobs are listed.
  EXPECT_GT(store.ListedWhole("Job"), 0);
}

TEST_F(ManagerTest, ReconcilesObjectsThatExistBeforeStart) {
  Create(ConfigMap("a"));
  Create(ConfigMap("b"));
  Create(ConfigMap("c", "team"));
  TestReconciler rec(store_.get());
  Manager m(*store_, Options());
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(m.WaitIdle(kWait));
  for (const char* name : {"a", "b", "c"}) {
    EXPECT_EQ(rec.Calls(name), 1) << name;
    EXPECT_TRUE(rec.Existed(name)) << name;
  }
  Metrics metrics = m.metrics();
  EXPECT_EQ(metrics.reconciles, 3);
  EXPECT_EQ(metrics.errors, 0);
  EXPECT_EQ(metrics.queue_depth, 0);
  EXPECT_EQ(metrics.in_flight, 0);
  EXPECT_EQ(metrics.delayed, 0);

  // Every reconcile has its own id, of the documented form.
  std::vector<std::string> ids = rec.Ids();
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), ids.size());
  for (const std::string& id : ids) EXPECT_TRUE(std::regex_match(id, std::regex("r-\\d{6}"))) << id;
}

TEST_F(ManagerTest, WatchesOnlyItsNamespace) {
  Create(ConfigMap("mine", "team"));
  Create(ConfigMap("other", "default"));
  TestReconciler rec(store_.get());
  ManagerOptions options = Options();
  options.namespace_name = "team";
  Manager m(*store_, options);
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(rec.Calls("mine"), 1);

  // Events arrive in revision order, so once the later write is reconciled the earlier one
  // would have been too.
  Create(ConfigMap("other2", "default"));
  Create(ConfigMap("mine2", "team"));
  ASSERT_TRUE(rec.WaitForCalls("mine2", 1));
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(rec.Calls("other"), 0);
  EXPECT_EQ(rec.Calls("other2"), 0);
}

TEST_F(ManagerTest, CreatesUpdatesAndDeletesAfterStartCauseReconciles) {
  TestReconciler rec(store_.get());
  Manager m(*store_, Options());
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(m.WaitIdle(kWait));

  Create(ConfigMap("a"));
  ASSERT_TRUE(rec.WaitForCalls("a", 1));
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_TRUE(rec.Existed("a"));

  auto got = store_->Get(CM("a").ref);
  ASSERT_TRUE(got.ok());
  Resource changed = *got;
  changed.mutable_json()["data"]["k"] = "changed";
  ASSERT_TRUE(store_->Update(changed).ok());
  ASSERT_TRUE(rec.WaitForCalls("a", 2));
  ASSERT_TRUE(m.WaitIdle(kWait));

  ASSERT_TRUE(store_->Delete(CM("a").ref).ok());
  ASSERT_TRUE(rec.WaitForCalls("a", 3));
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_FALSE(rec.Existed("a"));  // the reconciler saw it gone
  EXPECT_EQ(m.metrics().reconciles, 3);
}

TEST_F(ManagerTest, ErrorsRetryWithBackoffThenSucceed) {
  Create(ConfigMap("a"));
  TestReconciler rec(store_.get(), [](const Request&, int call) -> hop::Result<ReconcileResult> {
    if (call <= 2) return Status::Unavailable("database is down");
    return ReconcileResult::Done();
  });
  Manager m(*store_, Options());  // backoff 1s, 2s, 4s, ...
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(m.WaitIdle(kWait));  // a retry due later does not count
  EXPECT_EQ(rec.Calls("a"), 1);
  EXPECT_EQ(m.metrics().errors, 1);
  EXPECT_EQ(m.metrics().delayed, 1);

  Advance(m, seconds(1));  // first backoff: 1s
  ASSERT_TRUE(rec.WaitForCalls("a", 2));
  ASSERT_TRUE(m.WaitIdle(kWait));

  Advance(m, seconds(1));  // the second backoff is 2s: not yet
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(rec.Calls("a"), 2);

  Advance(m, seconds(1));
  ASSERT_TRUE(rec.WaitForCalls("a", 3));
  ASSERT_TRUE(m.WaitIdle(kWait));
  Metrics metrics = m.metrics();
  EXPECT_EQ(metrics.reconciles, 3);
  EXPECT_EQ(metrics.errors, 2);
  EXPECT_EQ(metrics.delayed, 0);

  // Success forgot the failures: nothing comes back, however long we wait.
  Advance(m, hours(1));
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(rec.Calls("a"), 3);
}

// A write conflict is cured by reading again: the first ones in a row run again at once, with
// no backoff (the clock never moves here), and only a request that keeps losing backs off.
TEST_F(ManagerTest, ConflictsRunAgainAtOnceUntilTheyKeepHappening) {
  Create(ConfigMap("a"));
  Create(ConfigMap("b"));
  TestReconciler rec(store_.get(), [](const Request& r, int call) -> hop::Result<ReconcileResult> {
    if (r.ref.name == "b" || call <= 2) return Status::Conflict("modified; read it again");
    return ReconcileResult::Done();
  });
  Manager m(*store_, Options());  // backoff 1s, 2s, 4s, ...
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(rec.WaitForCalls("a", 3));
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(rec.Calls("a"), 3);
  // b lost four times in a row: three more at once, then a backoff.
  EXPECT_EQ(rec.Calls("b"), 4);
  EXPECT_EQ(m.metrics().delayed, 1);
  EXPECT_EQ(m.metrics().errors, 6);
  Advance(m, seconds(8));
  ASSERT_TRUE(rec.WaitForCalls("b", 5));
}

TEST_F(ManagerTest, ExceptionsAreCaughtAndRetried) {
  Create(ConfigMap("a"));
  TestReconciler rec(store_.get(), [](const Request&, int call) -> hop::Result<ReconcileResult> {
    if (call == 1) throw std::runtime_error("boom");
    return ReconcileResult::Done();
  });
  Manager m(*store_, Options());
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(m.metrics().errors, 1);
  Advance(m, seconds(1));
  ASSERT_TRUE(rec.WaitForCalls("a", 2));
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(m.metrics().errors, 1);
}

TEST_F(ManagerTest, TerminalErrorsAreNotRetriedUntilTheObjectChanges) {
  Create(ConfigMap("a"));
  TestReconciler rec(store_.get(), [](const Request&, int call) -> hop::Result<ReconcileResult> {
    if (call == 1) return ReconcileResult::Terminal(Status::ValidationError("spec.url is missing"));
    return ReconcileResult::Done();
  });
  Manager m(*store_, Options());
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(rec.Calls("a"), 1);
  EXPECT_EQ(m.metrics().errors, 1);
  EXPECT_EQ(m.metrics().delayed, 0);

  Advance(m, hours(1));
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(rec.Calls("a"), 1);

  auto got = store_->Get(CM("a").ref);
  ASSERT_TRUE(got.ok());
  Resource changed = *got;
  changed.mutable_json()["data"]["k"] = "fixed";
  ASSERT_TRUE(store_->Update(changed).ok());
  ASSERT_TRUE(rec.WaitForCalls("a", 2));
  ASSERT_TRUE(m.WaitIdle(kWait));
}

TEST_F(ManagerTest, RequeueAfterCausesALaterReconcile) {
  Create(ConfigMap("a"));
  TestReconciler rec(store_.get(), [](const Request&, int call) -> hop::Result<ReconcileResult> {
    if (call == 1) return ReconcileResult::RequeueAfter(seconds(30));
    return ReconcileResult::Done();
  });
  Manager m(*store_, Options());
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(rec.Calls("a"), 1);
  EXPECT_EQ(m.metrics().delayed, 1);

  Advance(m, seconds(29));
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(rec.Calls("a"), 1);

  Advance(m, seconds(1));
  ASSERT_TRUE(rec.WaitForCalls("a", 2));
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(m.metrics().delayed, 0);
  EXPECT_EQ(m.metrics().errors, 0);
}

TEST_F(ManagerTest, ResyncReconcilesEveryObjectAgain) {
  Create(ConfigMap("a"));
  Create(ConfigMap("b"));
  TestReconciler rec(store_.get());
  ManagerOptions options = Options();
  options.resync = minutes(10);
  Manager m(*store_, options);
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(rec.Calls("a"), 1);

  Advance(m, minutes(10));
  ASSERT_TRUE(rec.WaitForCalls("a", 2));
  ASSERT_TRUE(rec.WaitForCalls("b", 2));
  ASSERT_TRUE(m.WaitIdle(kWait));

  Advance(m, minutes(10));
  ASSERT_TRUE(rec.WaitForCalls("a", 3));
  ASSERT_TRUE(m.WaitIdle(kWait));
}

TEST_F(ManagerTest, ExtraWatchMapsEventsToRequests) {
  Create(ConfigMap("a"));
  Create(ConfigMap("b"));
  Create(Job("early", "b"));
  TestReconciler rec(store_.get());
  std::mutex mu;
  std::vector<std::string> seen;  // guarded by mu: "TYPE job-name"
  EventMapper owner_of = [&](const store::Event& event) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back(fmt::format("{} {}", EventTypeName(event.type), event.object.name()));
    auto labels = event.object.labels();
    if (!labels.count("owner")) return std::vector<Request>{};
    return std::vector<Request>{CM(labels["owner"], event.object.namespace_name())};
  };
  Manager m(*store_, Options());
  m.Register(kConfigMap, &rec, {{kJob, owner_of}});
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(rec.Calls("a"), 1);
  EXPECT_EQ(rec.Calls("b"), 1);      // listed itself and through its Job: queued once
  EXPECT_EQ(rec.Calls("early"), 0);  // Jobs have no reconciler of their own

  Create(Job("j1", "a"));
  ASSERT_TRUE(rec.WaitForCalls("a", 2));
  ASSERT_TRUE(store_->Delete({kJob, "default", "j1"}).ok());
  ASSERT_TRUE(rec.WaitForCalls("a", 3));
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(rec.Calls("b"), 1);

  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(seen, (std::vector<std::string>{"ADDED early", "ADDED j1", "DELETED j1"}));
}

TEST_F(ManagerTest, EnqueueReachesTheReconcilerEvenForMissingObjects) {
  TestReconciler rec(store_.get());
  Manager m(*store_, Options());
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  m.Enqueue(CM("ghost"));
  ASSERT_TRUE(rec.WaitForCalls("ghost", 1));
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_FALSE(rec.Existed("ghost"));

  m.Enqueue(CM("ghost"), seconds(5));
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(m.metrics().delayed, 1);
  Advance(m, seconds(5));
  ASSERT_TRUE(rec.WaitForCalls("ghost", 2));

  // A request of a kind nobody reconciles is dropped, not retried.
  m.Enqueue({{kJob, "default", "nobody"}});
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(m.metrics().delayed, 0);
}

// A reconciler that holds its first call until the test opens the gate.
class GatedReconciler : public Reconciler {
 public:
  hop::Result<ReconcileResult> Reconcile(const Request&, const ReconcileContext&) override {
    std::unique_lock<std::mutex> lock(mu_);
    entered_ = true;
    cv_.notify_all();
    cv_.wait(lock, [&] { return open_; });
    ++finished_;
    return Status::Unavailable("fails, to be retried by nobody");
  }
  bool WaitEntered() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kWait, [&] { return entered_; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  int finished() {
    std::lock_guard<std::mutex> lock(mu_);
    return finished_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool entered_ = false;  // guarded by mu_
  bool open_ = false;     // guarded by mu_
  int finished_ = 0;      // guarded by mu_
};

TEST_F(ManagerTest, WaitIdleIsFalseWhileAReconcileIsInFlight) {
  Create(ConfigMap("a"));
  GatedReconciler rec;
  Manager m(*store_, Options());
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(rec.WaitEntered());
  EXPECT_FALSE(m.Idle());
  EXPECT_FALSE(m.WaitIdle(std::chrono::milliseconds(1)));
  EXPECT_EQ(m.metrics().in_flight, 1);
  rec.Open();
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(m.metrics().in_flight, 0);
}

TEST_F(ManagerTest, StopLetsTheReconcileInFlightFinishAndJoins) {
  for (const char* name : {"a", "b", "c", "d"}) Create(ConfigMap(name));
  GatedReconciler rec;
  ManagerOptions options = Options();
  options.workers = 1;
  Manager m(*store_, options);
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(rec.WaitEntered());

  EXPECT_EQ(m.metrics().queue_depth, 3);
  std::thread stopper([&] { m.Stop(); });
  // Stop hands out nothing more while it waits for the reconcile in flight (what is queued is
  // kept until then, for a checkpoint).
  ASSERT_TRUE(Eventually([&] { return m.Stopping(); }));
  EXPECT_EQ(m.metrics().in_flight, 1);
  rec.Open();
  stopper.join();
  // The reconcile in flight finished; nothing else was reconciled, and the requests still
  // queued, with its retry, were dropped.
  EXPECT_EQ(rec.finished(), 1);
  EXPECT_TRUE(m.Idle());
  Metrics metrics = m.metrics();
  EXPECT_EQ(metrics.in_flight, 0);
  EXPECT_EQ(metrics.queue_depth, 0);
  EXPECT_EQ(metrics.delayed, 0);

  m.Stop();  // idempotent; the destructor stops once more
  m.Enqueue(CM("a"));
  EXPECT_EQ(m.metrics().queue_depth, 0);
}

TEST_F(ManagerTest, StartOnlyOnce) {
  TestReconciler rec(store_.get());
  {
    Manager m(*store_, Options());
    m.Stop();  // before Start: fine
    EXPECT_EQ(m.Start().code(), StatusCode::kInvalidArgument);
  }
  Manager m(*store_, Options());
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  EXPECT_EQ(m.Start().code(), StatusCode::kInvalidArgument);
}

TEST_F(ManagerTest, LogsEveryOutcome) {
  // The log lines themselves go to standard error; this runs every formatting path at debug.
  const log::Level before = log::GetLevel();
  log::SetLevel(log::Level::kDebug);
  Create(ConfigMap("done"));
  Create(ConfigMap("later"));
  Create(ConfigMap("failing"));
  Create(ConfigMap("terminal"));
  TestReconciler rec(store_.get(), [](const Request& r, int) -> hop::Result<ReconcileResult> {
    if (r.ref.name == "later") return ReconcileResult::RequeueAfter(minutes(2));
    if (r.ref.name == "failing") return Status::Unavailable("down");
    if (r.ref.name == "terminal")
      return ReconcileResult::Terminal(Status::InvalidArgument("never"));
    return ReconcileResult::Done();
  });
  {
    Manager m(*store_, Options());
    m.Register(kConfigMap, &rec);
    ASSERT_TRUE(m.Start().ok());
    ASSERT_TRUE(m.WaitIdle(kWait));
    EXPECT_EQ(m.metrics().reconciles, 4);
    EXPECT_EQ(m.metrics().errors, 2);
  }
  log::SetLevel(before);
}

// ---- Terminal outcomes and request text ----

// A terminal failure is told by its type, whatever the words: an error Status that reads like one
// is retried, and the terminal outcome keeps its Status as it was.
TEST_F(ManagerTest, ATerminalFailureIsATypeNotAMessage) {
  Create(ConfigMap("worded"));
  Create(ConfigMap("typed"));
  TestReconciler rec(store_.get(), [](const Request& r, int) -> hop::Result<ReconcileResult> {
    if (r.ref.name == "worded") return Status::InvalidArgument("terminal: spec.url is missing");
    return ReconcileResult::Terminal(Status::ValidationError("spec.url is missing"));
  });
  Manager m(*store_, Options());
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(m.metrics().errors, 2);
  EXPECT_EQ(m.metrics().delayed, 1);  // "worded" waits for its backoff; "typed" is forgotten
  Advance(m, seconds(1));
  ASSERT_TRUE(rec.WaitForCalls("worded", 2));
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(rec.Calls("typed"), 1);
}

TEST(ControllerTest, ATerminalOutcomeKeepsItsStatus) {
  const ReconcileResult terminal =
      ReconcileResult::Terminal(Status::ValidationError("spec.url is missing"));
  ASSERT_TRUE(terminal.terminal.has_value());
  EXPECT_EQ(terminal.terminal->status.ToString(), "Validation Error: spec.url is missing");
  EXPECT_FALSE(ReconcileResult::Done().terminal.has_value());
  EXPECT_FALSE(ReconcileResult::RequeueAfter(seconds(1)).terminal.has_value());
  // A terminal failure always has a cause.
  EXPECT_EQ(ReconcileResult::Terminal(Status::OK()).terminal->status.code(), StatusCode::kInternal);
}

TEST(ControllerTest, RequestText) {
  struct Case {
    Request request;
    std::string text;
  };
  const Case kCases[] = {
      {{{{"hoptimator.linkedin.com", "TableTrigger"}, "default", "nightly"}},
       "TableTrigger default/nightly"},
      {{{{"", "Namespace"}, "", "team"}}, "Namespace team"},
  };
  for (const Case& c : kCases) EXPECT_EQ(RequestText(c.request), c.text);
}

// ---- Metrics and the reconcile's log context ----

// The value of the series `series` (name and labels as rendered) in `text`; "" when absent.
std::string Sample(const std::string& text, const std::string& series) {
  const std::string start = series + " ";
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + at, end - at);
    if (line.substr(0, start.size()) == start) return std::string(line.substr(start.size()));
    at = end + 1;
  }
  return "";
}

TEST_F(ManagerTest, ExportsReconcilesByKindAndResult) {
  Create(ConfigMap("done"));
  Create(ConfigMap("later"));
  Create(ConfigMap("failing"));
  Create(ConfigMap("terminal"));
  TestReconciler rec(store_.get(), [](const Request& r, int) -> hop::Result<ReconcileResult> {
    if (r.ref.name == "later") return ReconcileResult::RequeueAfter(minutes(2));
    if (r.ref.name == "failing") return Status::Unavailable("down");
    if (r.ref.name == "terminal")
      return ReconcileResult::Terminal(Status::InvalidArgument("never"));
    return ReconcileResult::Done();
  });
  metrics::Registry registry;
  ManagerOptions options = Options();
  options.registry = &registry;
  Manager m(*store_, options);
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(m.WaitIdle(kWait));

  const std::string text = registry.Render();
  struct Case {
    const char* series;
    const char* want;
  };
  const Case kCases[] = {
      {R"(hop_reconciles_total{kind="ConfigMap",result="success"})", "1"},
      {R"(hop_reconciles_total{kind="ConfigMap",result="requeue"})", "1"},
      {R"(hop_reconciles_total{kind="ConfigMap",result="error"})", "2"},  // terminal included
      {R"(hop_reconcile_errors_total{kind="ConfigMap"})", "2"},
      {R"(hop_reconcile_duration_seconds_count{kind="ConfigMap"})", "4"},
      {R"(hop_reconcile_duration_seconds_bucket{kind="ConfigMap",le="+Inf"})", "4"},
      {"hop_work_queue_depth", "0"},
      {"hop_work_queue_in_flight", "0"},
      {"hop_work_queue_delayed", "2"},  // "later" and the retry of "failing"
  };
  for (const Case& c : kCases)
    EXPECT_EQ(Sample(text, c.series), c.want) << c.series << "\n" << text;

  // The failing request's retry moves the counters again.
  Advance(m, seconds(1));
  ASSERT_TRUE(rec.WaitForCalls("failing", 2));
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(Sample(registry.Render(), R"(hop_reconcile_errors_total{kind="ConfigMap"})"), "3");
}

TEST_F(ManagerTest, ExportsTheQueueDepthWhileWorkWaits) {
  for (const char* name : {"a", "b", "c", "d"}) Create(ConfigMap(name));
  GatedReconciler rec;
  metrics::Registry registry;
  {
    ManagerOptions options = Options();
    options.workers = 1;
    options.registry = &registry;
    Manager m(*store_, options);
    m.Register(kConfigMap, &rec);
    ASSERT_TRUE(m.Start().ok());
    ASSERT_TRUE(rec.WaitEntered());
    const std::string text = registry.Render();
    EXPECT_EQ(Sample(text, "hop_work_queue_depth"), "3") << text;
    EXPECT_EQ(Sample(text, "hop_work_queue_in_flight"), "1") << text;
    rec.Open();
  }
  // A manager that is gone no longer reports its queue (and is not read).
  EXPECT_EQ(Sample(registry.Render(), "hop_work_queue_depth"), "0");
}

// Records the reconcile id the log front sees while it reconciles.
class ContextReconciler : public Reconciler {
 public:
  hop::Result<ReconcileResult> Reconcile(const Request&, const ReconcileContext& context) override {
    std::lock_guard<std::mutex> lock(mu_);
    seen_.emplace_back(context.id, log::CurrentReconcileId());
    return ReconcileResult::Done();
  }
  std::vector<std::pair<std::string, std::string>> seen() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<std::string, std::string>> seen_;  // guarded by mu_
};

TEST_F(ManagerTest, LogLinesDuringAReconcileCarryItsId) {
  Create(ConfigMap("a"));
  Create(ConfigMap("b"));
  ContextReconciler rec;
  metrics::Registry registry;
  ManagerOptions options = Options();
  options.registry = &registry;
  Manager m(*store_, options);
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(m.WaitIdle(kWait));
  const auto seen = rec.seen();
  ASSERT_EQ(seen.size(), 2u);
  for (const auto& [id, logged] : seen) EXPECT_EQ(id, logged);
  EXPECT_EQ(log::CurrentReconcileId(), "");  // the test's thread reconciled nothing
}

// A manager that stops leaves a checkpoint; the next one resumes from it: nothing that did not
// change is reconciled again, changes made while no manager ran are, and what was waiting
// keeps its time.
TEST_F(ManagerTest, ResumesFromTheCheckpointItsPredecessorLeft) {
  Create(ConfigMap("a"));
  Create(ConfigMap("b"));
  Create(ConfigMap("later"));
  const std::string checkpoint = dir_.path() + "/operator.checkpoint";
  ManagerOptions options = Options();
  options.checkpoint_path = checkpoint;
  {
    TestReconciler rec(store_.get(), [](const Request& r, int) -> hop::Result<ReconcileResult> {
      if (r.ref.name == "later") return ReconcileResult::RequeueAfter(seconds(30));
      return ReconcileResult::Done();
    });
    Manager m(*store_, options);
    m.Register(kConfigMap, &rec);
    ASSERT_TRUE(m.Start().ok());
    EXPECT_FALSE(m.resumed());  // nothing to resume from: it listed
    ASSERT_TRUE(m.WaitIdle(kWait));
    EXPECT_EQ(rec.Calls("a"), 1);
    m.Stop();
  }
  ASSERT_TRUE(std::filesystem::exists(checkpoint));
  // Written while no manager runs.
  auto got = store_->Get(CM("b").ref);
  ASSERT_TRUE(got.ok());
  Resource changed = *got;
  changed.mutable_json()["data"]["k"] = "changed";
  ASSERT_TRUE(store_->Update(changed).ok());
  Create(ConfigMap("new"));
  ASSERT_TRUE(store_->Delete(CM("a").ref).ok());

  TestReconciler rec(store_.get());
  Manager m(*store_, options);
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  EXPECT_TRUE(m.resumed());
  ASSERT_TRUE(rec.WaitForCalls("new", 1));
  ASSERT_TRUE(rec.WaitForCalls("b", 1));
  ASSERT_TRUE(rec.WaitForCalls("a", 1));  // its deletion
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_FALSE(rec.Existed("a"));
  EXPECT_EQ(rec.Calls("later"), 0);  // still waiting: 30 s from the first manager's reconcile
  EXPECT_EQ(m.metrics().delayed, 1);
  Advance(m, seconds(30));
  ASSERT_TRUE(rec.WaitForCalls("later", 1));
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(m.metrics().reconciles, 4);  // b, new, a, later: nothing else
}

// A reconciler that says which events are of its own writes.
class OwnWritesReconciler : public TestReconciler {
 public:
  using TestReconciler::TestReconciler;
  bool OwnWrite(const store::Event& event) override {
    return event.object.name() == "own" && event.type == store::EventType::kModified;
  }
};

// An event a reconciler says is of its own write (Reconciler::OwnWrite: a status it derived)
// queues no request for it; the object's other events, and other objects', still do.
TEST_F(ManagerTest, QueuesNothingForAReconcilersOwnWrite) {
  OwnWritesReconciler rec(store_.get());
  Manager m(*store_, Options());
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  Create(ConfigMap("own"));
  ASSERT_TRUE(rec.WaitForCalls("own", 1));  // its creation
  auto got = store_->Get(CM("own").ref);
  ASSERT_TRUE(got.ok());
  Resource changed = *got;
  changed.mutable_json()["data"]["k"] = "changed";
  ASSERT_TRUE(store_->Update(changed).ok());  // an own write, as this reconciler says
  Create(ConfigMap("other"));
  ASSERT_TRUE(rec.WaitForCalls("other", 1));  // an event after it has been dispatched
  ASSERT_TRUE(m.WaitIdle(kWait));
  EXPECT_EQ(rec.Calls("own"), 1);
  ASSERT_TRUE(store_->Delete(CM("own").ref).ok());
  ASSERT_TRUE(rec.WaitForCalls("own", 2));  // its deletion
}

// A store whose Sync fails (its fsyncs fail), over a real one.
class UnsyncableStore : public CountingStore {
 public:
  using CountingStore::CountingStore;
  Status Sync() override { return Status::Unavailable("cannot make the writes durable"); }
};

// The progress a checkpoint records covers writes reported once written (a Pipeline's status,
// Store::CommitLazily): the manager syncs the store first, and writes no checkpoint when it
// cannot, so that a restart never resumes past writes a crash could take back.
TEST_F(ManagerTest, WritesNoCheckpointItsStoreCannotMakeDurable) {
  Create(ConfigMap("a"));
  const std::string checkpoint = dir_.path() + "/operator.checkpoint";
  ManagerOptions options = Options();
  options.checkpoint_path = checkpoint;
  UnsyncableStore unsyncable(*store_);
  TestReconciler rec(store_.get());
  Manager m(unsyncable, options);
  m.Register(kConfigMap, &rec);
  ASSERT_TRUE(m.Start().ok());
  ASSERT_TRUE(rec.WaitForCalls("a", 1));
  ASSERT_TRUE(m.WaitIdle(kWait));
  m.Stop();
  EXPECT_FALSE(std::filesystem::exists(checkpoint));
}

// A manager that resumed and had nothing to do leaves the checkpoint as it found it (the same
// file: a rewrite would rename a new one over it); one that did something writes it again.
TEST_F(ManagerTest, AManagerThatDidNothingLeavesTheCheckpointAlone) {
  Create(ConfigMap("a"));
  const std::string checkpoint = dir_.path() + "/operator.checkpoint";
  ManagerOptions options = Options();
  options.checkpoint_path = checkpoint;
  // Starts a manager, waits for it to reconcile `expected` (if any) and go idle, stops it.
  auto run = [&](const std::string& expected) {
    TestReconciler rec(store_.get());
    Manager m(*store_, options);
    m.Register(kConfigMap, &rec);
    ASSERT_TRUE(m.Start().ok());
    if (!expected.empty()) ASSERT_TRUE(rec.WaitForCalls(expected, 1));
    ASSERT_TRUE(m.WaitIdle(kWait));
    m.Stop();
  };
  auto inode = [&] {
    struct stat st {};
    EXPECT_EQ(::stat(checkpoint.c_str(), &st), 0);
    return st.st_ino;
  };
  run("a");
  const ino_t first = inode();
  run("");
  EXPECT_EQ(inode(), first);
  Create(ConfigMap("b"));
  run("b");
  EXPECT_NE(inode(), first);
}

// Converged says whether a Start would have nothing to do: only with a checkpoint this manager
// can use, taken at the store's revision, and no request in it due yet.
TEST_F(ManagerTest, ConvergedOnlyWhenAStartWouldHaveNothingToDo) {
  Create(ConfigMap("a"));
  Create(ConfigMap("later"));
  ManagerOptions options = Options();
  options.checkpoint_path = dir_.path() + "/operator.checkpoint";
  TestReconciler rec(store_.get(), [](const Request& r, int) -> hop::Result<ReconcileResult> {
    if (r.ref.name == "later") return ReconcileResult::RequeueAfter(seconds(30));
    return ReconcileResult::Done();
  });
  auto converged = [&](const std::vector<store::GroupKind>& kinds) {
    Manager m(*store_, options);
    for (const auto& kind : kinds) m.Register(kind, &rec);
    auto c = m.Converged();
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() && *c;
  };
  EXPECT_FALSE(converged({kConfigMap}));  // no checkpoint yet
  {
    Manager m(*store_, options);
    m.Register(kConfigMap, &rec);
    ASSERT_TRUE(m.Start().ok());
    ASSERT_TRUE(rec.WaitForCalls("later", 1));
    ASSERT_TRUE(m.WaitIdle(kWait));
    m.Stop();
  }
  EXPECT_TRUE(converged({kConfigMap}));         // "later" is due in 30 s
  EXPECT_FALSE(converged({kConfigMap, kJob}));  // another manager's checkpoint
  clock_.Advance(seconds(30));
  EXPECT_FALSE(converged({kConfigMap}));  // "later" is due now
  {
    Manager m(*store_, options);
    m.Register(kConfigMap, &rec);
    ASSERT_TRUE(m.Start().ok());
    ASSERT_TRUE(rec.WaitForCalls("later", 2));
    ASSERT_TRUE(m.WaitIdle(kWait));
    m.Stop();
  }
  EXPECT_TRUE(converged({kConfigMap}));
  Create(ConfigMap("b"));  // a write no manager has seen
  EXPECT_FALSE(converged({kConfigMap}));
}

// A checkpoint is only a shortcut: one that cannot be trusted is not used, and the manager
// lists as if there were none.
TEST_F(ManagerTest, ListsWhenTheCheckpointCannotBeUsed) {
  Create(ConfigMap("a"));
  const std::string checkpoint = dir_.path() + "/operator.checkpoint";
  ManagerOptions options = Options();
  options.checkpoint_path = checkpoint;
  auto run = [&](const std::vector<store::GroupKind>& kinds) {
    TestReconciler rec(store_.get());
    Manager m(*store_, options);
    for (const auto& kind : kinds) m.Register(kind, &rec);
    EXPECT_TRUE(m.Start().ok());
    EXPECT_TRUE(m.WaitIdle(kWait));
    const bool resumed = m.resumed();
    m.Stop();
    return std::make_pair(resumed, rec.Calls("a"));
  };
  EXPECT_EQ(run({kConfigMap}), std::make_pair(false, 1));
  EXPECT_EQ(run({kConfigMap}), std::make_pair(true, 0));
  // Another set of watches.
  EXPECT_EQ(run({kConfigMap, kJob}), std::make_pair(false, 1));
  // Garbage, and a file cut short.
  for (const char* text : {"not json", "{\"version\": 1, \"namespace\": \"\", \"revision\": 3"}) {
    FILE* f = std::fopen(checkpoint.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(text, f);
    std::fclose(f);
    EXPECT_EQ(run({kConfigMap}), std::make_pair(false, 1)) << text;
  }
  // A checkpoint from another store (ahead of this one's revision).
  {
    run({kConfigMap});  // a good checkpoint again
    std::ifstream in(checkpoint);
    Json doc = Json::parse(in);
    doc["revision"] = 1000000;
    std::ofstream(checkpoint) << doc.dump();
    EXPECT_EQ(run({kConfigMap}), std::make_pair(false, 1));
  }
  // One of an older format (version 1: views refreshed on their inputs' change may be unlabelled).
  {
    run({kConfigMap});
    std::ifstream in(checkpoint);
    Json doc = Json::parse(in);
    ASSERT_EQ(doc["version"], 2);
    EXPECT_EQ(run({kConfigMap}), std::make_pair(true, 0));
    doc["version"] = 1;
    std::ofstream(checkpoint) << doc.dump();
    EXPECT_EQ(run({kConfigMap}), std::make_pair(false, 1));
  }
  // Another namespace's.
  options.namespace_name = "team";
  EXPECT_EQ(run({kConfigMap}).first, false);
}

}  // namespace
}  // namespace hop::op
