// The Store contract (src/store/store.h) checked against both backends with the same tests: the
// embedded SqliteStore, and KubernetesStore talking to a separate `hop serve --http-port`
// process that stands in for a Kubernetes API server. Where Kubernetes keeps a promise
// differently (docs/store.md, "On Kubernetes": garbage collection afterwards, a batch undone
// rather than rolled back), a test waits for the outcome or says which backend it expects what
// of. The tests of the Kubernetes backend alone come last: a watch that outlives a server killed
// and started again, 410 Gone and relisting, the requests it makes.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "resource/kinds.h"
#include "resource/yaml.h"
#include "store/kubeconfig.h"
#include "store/kubernetes_store.h"
#include "store/sqlite_store.h"
#include "test/lib/fixtures.h"
#include "test/lib/hop_serve.h"

namespace hop::store {
namespace {

using namespace std::chrono_literals;

using testing::Eventually;
using testing::HopServe;
using testing::TempDir;

const GroupKind kConfigMap{"", "ConfigMap"};
const GroupKind kJob{"batch", "Job"};

Resource Yaml(const std::string& text) {
  auto docs = ParseYamlDocuments(text, "test");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  auto r = Resource::FromJson(docs->front(), "test");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return *r;
}

Resource ConfigMap(const std::string& ns, const std::string& name,
                   std::map<std::string, std::string> data = {{"k", "v"}},
                   std::map<std::string, std::string> labels = {}) {
  Json doc = {{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"metadata", {{"name", name}, {"namespace", ns}}},
              {"data", Json::object()}};
  for (auto& [k, v] : data) doc["data"][k] = v;
  for (auto& [k, v] : labels) doc["metadata"]["labels"][k] = v;
  return Resource(std::move(doc));
}

// A View: one of hop's kinds, with a status subresource.
Resource View(const std::string& ns, const std::string& name, const std::string& sql = "SELECT 1") {
  Json doc = {{"apiVersion", "hoptimator.linkedin.com/v1alpha1"},
              {"kind", "View"},
              {"metadata", {{"name", name}, {"namespace", ns}}},
              {"spec", {{"view", name}, {"sql", sql}}}};
  return Resource(std::move(doc));
}

enum class Backend { kSqlite, kKubernetes };

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kSqlite ? "Sqlite" : "Kubernetes";
}

// One store of each backend for the whole suite; each test writes in a namespace of its own.
class StoreConformanceTest : public ::testing::TestWithParam<Backend> {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir("hop-conformance");
    SqliteStoreOptions options;
    options.durable = false;
    auto sqlite = SqliteStore::Open(dir_->path() + "/sqlite", options);
    ASSERT_TRUE(sqlite.ok()) << sqlite.status().ToString();
    sqlite_ = std::move(sqlite).value().release();
    // The stand-in: the API only (no reconcilers, no Jobs run), so nothing but the tests writes.
    server_ =
        new HopServe(HOP_BINARY, dir_->path() + "/server", {"--no-operator"}, {"--no-local-jobs"});
    server_started_ = server_->Start();
    if (!server_started_) return;
    KubeConfig config;
    config.server = server_->url();
    auto kube = KubernetesStore::Open(config);
    ASSERT_TRUE(kube.ok()) << kube.status().ToString();
    kube_ = std::move(kube).value().release();
  }
  static void TearDownTestSuite() {
    delete kube_;
    kube_ = nullptr;
    delete server_;
    server_ = nullptr;
    delete sqlite_;
    sqlite_ = nullptr;
    delete dir_;
  }

  void SetUp() override {
    if (GetParam() == Backend::kKubernetes) {
      ASSERT_TRUE(server_started_) << "hop serve did not start:\n" << server_->log();
    }
    // A namespace per test: lower-case letters, digits and '-'.
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ns_.clear();
    for (char c : name.substr(0, name.find('/'))) {
      if (std::isalnum(static_cast<unsigned char>(c))) {
        if (std::isupper(static_cast<unsigned char>(c)) && !ns_.empty()) ns_ += '-';
        ns_ += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
    }
    // Room for the suffixes some tests add ("-elsewhere"), within a label's 63 characters.
    ns_ = ns_.substr(0, 40);
    while (!ns_.empty() && ns_.back() == '-') ns_.pop_back();
  }

  Store& store() {
    if (GetParam() == Backend::kSqlite) return *sqlite_;
    return *kube_;
  }
  bool kubernetes() const { return GetParam() == Backend::kKubernetes; }

  Resource MustCreate(Resource r) {
    auto created = store().Create(std::move(r));
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    return created.ok() ? *created : Resource();
  }

  std::vector<std::string> Names(const ListOptions& options) {
    auto list = store().List(options);
    EXPECT_TRUE(list.ok()) << list.status().ToString();
    std::vector<std::string> names;
    if (list.ok()) {
      for (const Resource& r : list->items) names.push_back(r.name());
    }
    return names;
  }

  bool Gone(const ObjectRef& ref) {
    auto got = store().Find(ref);
    return got.ok() && !got->has_value();
  }

  static TempDir* dir_;
  static SqliteStore* sqlite_;
  static HopServe* server_;
  static bool server_started_;
  static KubernetesStore* kube_;
  std::string ns_;
};

TempDir* StoreConformanceTest::dir_ = nullptr;
SqliteStore* StoreConformanceTest::sqlite_ = nullptr;
HopServe* StoreConformanceTest::server_ = nullptr;
bool StoreConformanceTest::server_started_ = false;
KubernetesStore* StoreConformanceTest::kube_ = nullptr;

TEST_P(StoreConformanceTest, CreateSetsWhatTheStoreOwnsAndGetReadsItBack) {
  const Resource created = MustCreate(ConfigMap(ns_, "a", {{"x", "1"}}));
  EXPECT_FALSE(created.uid().empty());
  EXPECT_FALSE(created.creation_timestamp().empty());
  EXPECT_GT(std::stoll(created.resource_version()), 0);
  auto got = store().Get({kConfigMap, ns_, "a"});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->uid(), created.uid());
  EXPECT_EQ(got->resource_version(), created.resource_version());
  EXPECT_EQ(got->json()["data"]["x"], "1");
  EXPECT_EQ(got->api_version(), "v1");
  EXPECT_EQ(got->kind(), "ConfigMap");

  const Resource view = MustCreate(View(ns_, "v"));
  EXPECT_EQ(view.generation(), 1);
}

TEST_P(StoreConformanceTest, ANamespacedObjectWithoutANamespaceGoesToDefault) {
  Resource r = ConfigMap("", "conformance-default-ns");
  const Resource created = MustCreate(r);
  EXPECT_EQ(created.namespace_name(), "default");
  auto got = store().Get({kConfigMap, "", "conformance-default-ns"});
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(store().Delete({kConfigMap, "default", "conformance-default-ns"}).ok());
}

TEST_P(StoreConformanceTest, MissingAndExistingObjectsGiveTheirCodes) {
  EXPECT_EQ(store().Get({kConfigMap, ns_, "nope"}).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store().Delete({kConfigMap, ns_, "nope"}).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store().Update(ConfigMap(ns_, "nope")).status().code(), StatusCode::kNotFound);
  MustCreate(ConfigMap(ns_, "a"));
  EXPECT_EQ(store().Create(ConfigMap(ns_, "a")).status().code(), StatusCode::kAlreadyExists);
  auto found = store().Find({kConfigMap, ns_, "nope"});
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->has_value());
}

TEST_P(StoreConformanceTest, AStaleResourceVersionIsAConflict) {
  const Resource created = MustCreate(ConfigMap(ns_, "a"));
  Resource first = created;
  first.mutable_json()["data"]["k"] = "first";
  auto updated = store().Update(first);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_NE(updated->resource_version(), created.resource_version());
  Resource second = created;  // still the old resourceVersion
  second.mutable_json()["data"]["k"] = "second";
  EXPECT_EQ(store().Update(second).status().code(), StatusCode::kConflict);
  EXPECT_EQ(store().Delete({kConfigMap, ns_, "a"}, created.resource_version()).status().code(),
            StatusCode::kConflict);
  // Without a resourceVersion an update is unconditional.
  Resource third = created;
  third.clear_resource_version();
  third.mutable_json()["data"]["k"] = "third";
  auto forced = store().Update(third);
  ASSERT_TRUE(forced.ok()) << forced.status().ToString();
  EXPECT_EQ(forced->json()["data"]["k"], "third");
}

TEST_P(StoreConformanceTest, AUidPreconditionKeepsAnUpdateFromAnObjectMadeAgain) {
  // Updates meant for an object that was deleted and made again under its name, by uid
  // (Write::uid) and without a resourceVersion, write nothing; naming the new uid, they write.
  for (Resource r : {ConfigMap(ns_, "a", {{"k", "first"}}), View(ns_, "v", "SELECT 1")}) {
    const Resource first = MustCreate(r);
    ASSERT_TRUE(store().Delete(RefOf(first)).ok());
    Resource made_again = r;
    if (made_again.kind() == "ConfigMap") {
      made_again.mutable_json()["data"]["k"] = "again";
    } else {
      made_again.mutable_spec()["sql"] = "SELECT 2";
    }
    const Resource again = MustCreate(made_again);
    const std::string refusal = "Precondition failed: UID in precondition: " + first.uid() +
                                ", UID in object meta: " + again.uid();
    Resource stale = again;
    stale.clear_resource_version();
    if (stale.kind() == "ConfigMap") {
      stale.mutable_json()["data"]["k"] = "stale";
    } else {
      stale.mutable_spec()["sql"] = "SELECT 3";
    }
    stale.mutable_status()["phase"] = "Stale";
    for (bool status_only : {false, true}) {
      auto refused = status_only ? store().UpdateStatus(stale, first.uid())
                                 : store().Update(stale, first.uid());
      EXPECT_EQ(refused.status().code(), StatusCode::kConflict)
          << r.kind() << (status_only ? " status" : "") << ": " << refused.status().ToString();
      EXPECT_NE(refused.status().message().find(refusal), std::string::npos)
          << refused.status().ToString();
    }
    auto got = store().Get(RefOf(again));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->resource_version(), again.resource_version()) << r.kind() << ": unchanged";
    auto updated = store().Update(stale, again.uid());
    ASSERT_TRUE(updated.ok()) << updated.status().ToString();
    EXPECT_NE(updated->resource_version(), again.resource_version()) << r.kind();
  }
}

TEST_P(StoreConformanceTest, OfTwoWritersFromOneVersionOneWins) {
  const Resource created = MustCreate(ConfigMap(ns_, "a"));
  std::atomic<int> won{0}, conflicts{0};
  std::vector<std::thread> writers;
  for (int i = 0; i < 4; ++i) {
    writers.emplace_back([&, i] {
      Resource r = created;
      r.mutable_json()["data"]["k"] = "writer" + std::to_string(i);
      auto result = store().Update(r);
      if (result.ok()) {
        ++won;
      } else if (result.status().code() == StatusCode::kConflict) {
        ++conflicts;
      }
    });
  }
  for (auto& t : writers) t.join();
  EXPECT_EQ(won, 1);
  EXPECT_EQ(conflicts, 3);
}

TEST_P(StoreConformanceTest, AnUpdateThatChangesNothingKeepsTheVersion) {
  const Resource created = MustCreate(ConfigMap(ns_, "a"));
  auto again = store().Update(created);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->resource_version(), created.resource_version());
}

TEST_P(StoreConformanceTest, StatusIsASubresource) {
  Resource v = View(ns_, "v");
  v.mutable_status()["watermark"] = "2026-01-01T00:00:00Z";
  const Resource created = MustCreate(v);
  // Created with its status (on Kubernetes the store writes the status right after).
  ASSERT_NE(created.status(), nullptr);
  EXPECT_EQ((*created.status())["watermark"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(created.generation(), 1);

  // A status update leaves the spec and the generation.
  Resource s = created;
  s.mutable_status()["watermark"] = "2026-02-01T00:00:00Z";
  s.mutable_spec()["sql"] = "SELECT 2";  // ignored: status only
  auto status = store().UpdateStatus(s);
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_EQ((*status->status())["watermark"], "2026-02-01T00:00:00Z");
  EXPECT_EQ((*status->spec())["sql"], "SELECT 1");
  EXPECT_EQ(status->generation(), 1);

  // An update keeps the stored status and moves the generation with the spec.
  Resource u = *status;
  u.mutable_spec()["sql"] = "SELECT 3";
  u.mutable_status()["watermark"] = "1999-01-01T00:00:00Z";  // ignored: the status subresource
  auto updated = store().Update(u);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ((*updated->spec())["sql"], "SELECT 3");
  EXPECT_EQ((*updated->status())["watermark"], "2026-02-01T00:00:00Z");
  EXPECT_EQ(updated->generation(), 2);

  // A kind without a status subresource keeps its status with the object.
  Resource cm = ConfigMap(ns_, "c");
  const Resource c = MustCreate(cm);
  Resource cs = c;
  cs.mutable_status()["phase"] = "Seen";
  auto cms = store().UpdateStatus(cs);
  ASSERT_TRUE(cms.ok()) << cms.status().ToString();
  auto cget = store().Get(RefOf(c));
  ASSERT_TRUE(cget.ok());
  ASSERT_NE(cget->status(), nullptr);
  EXPECT_EQ((*cget->status())["phase"], "Seen");
}

TEST_P(StoreConformanceTest, HopKindsAreValidated) {
  Resource bad = View(ns_, "bad");
  bad.mutable_spec()["sql"] = 42;  // a number where the schema says string
  EXPECT_EQ(store().Create(bad).status().code(), StatusCode::kValidation);
  EXPECT_TRUE(Gone({resource::ViewKind::Info().group_kind(), ns_, "bad"}));
}

TEST_P(StoreConformanceTest, FinalizersHoldADeletion) {
  Resource r = ConfigMap(ns_, "held");
  r.set_finalizers({"hop.dev/test"});
  MustCreate(r);
  auto marked = store().Delete({kConfigMap, ns_, "held"});
  ASSERT_TRUE(marked.ok()) << marked.status().ToString();
  EXPECT_TRUE(marked->deletion_timestamp().has_value());
  auto still = store().Get({kConfigMap, ns_, "held"});
  ASSERT_TRUE(still.ok()) << still.status().ToString();
  EXPECT_TRUE(still->deletion_timestamp().has_value());
  Resource released = *still;
  released.set_finalizers({});
  ASSERT_TRUE(store().Update(released).ok());
  EXPECT_TRUE(Eventually([&] { return Gone({kConfigMap, ns_, "held"}); }));
}

TEST_P(StoreConformanceTest, OwnersNamedWithoutAUidAreFoundAndDeletingThemDeletesTheirDependents) {
  Resource owner = ConfigMap(ns_, "owner");
  Resource dependent = ConfigMap(ns_, "dependent");
  dependent.set_owner_references({{"v1", "ConfigMap", "owner", "", false, false}});
  auto written = store().Commit({Write::Create(owner), Write::Create(dependent)});
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  ASSERT_EQ(written->size(), 2u);
  const auto refs = (*written)[1].owner_references();
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].uid, (*written)[0].uid());

  // An owner that exists nowhere is refused.
  Resource orphan = ConfigMap(ns_, "orphan");
  orphan.set_owner_references({{"v1", "ConfigMap", "missing", "", false, false}});
  EXPECT_EQ(store().Create(orphan).status().code(), StatusCode::kInvalidArgument);

  ASSERT_TRUE(store().Delete({kConfigMap, ns_, "owner"}).ok());
  // Kubernetes' garbage collector takes the dependents soon after; the embedded store at once.
  EXPECT_TRUE(Eventually([&] { return Gone({kConfigMap, ns_, "dependent"}); }));
}

TEST_P(StoreConformanceTest, ABatchThatFailsLeavesNothingOfItsOwn) {
  MustCreate(ConfigMap(ns_, "exists"));
  auto batch = store().Commit(
      {Write::Create(ConfigMap(ns_, "new")), Write::Create(ConfigMap(ns_, "exists"))});
  EXPECT_EQ(batch.status().code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(Gone({kConfigMap, ns_, "new"}));

  // Updates before the failing write are put back.
  const Resource before = *store().Get({kConfigMap, ns_, "exists"});
  Resource changed = before;
  changed.mutable_json()["data"]["k"] = "changed";
  auto second = store().Commit({Write::Update(changed), Write::Create(ConfigMap(ns_, "exists"))});
  EXPECT_EQ(second.status().code(), StatusCode::kAlreadyExists);
  auto after = store().Get({kConfigMap, ns_, "exists"});
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->json()["data"]["k"], "v");
}

TEST_P(StoreConformanceTest, ListsSelectByNamespaceLabelAndIndexKeyAndPage) {
  for (int i = 0; i < 3; ++i) {
    MustCreate(ConfigMap(ns_, "web-" + std::to_string(i), {{"k", "v"}}, {{"app", "web"}}));
  }
  MustCreate(ConfigMap(ns_, "db-0", {{"k", "v"}}, {{"app", "db"}}));
  MustCreate(ConfigMap(ns_ + "-other", "web-x", {{"k", "v"}}, {{"app", "web"}}));
  auto selector = resource::LabelSelector::Parse("app=web");
  ASSERT_TRUE(selector.ok());
  EXPECT_EQ(Names({kConfigMap, ns_, *selector}),
            (std::vector<std::string>{"web-0", "web-1", "web-2"}));
  EXPECT_EQ(Names({kConfigMap, ns_, {}}),
            (std::vector<std::string>{"db-0", "web-0", "web-1", "web-2"}));
  auto across = Names({kConfigMap, "", *selector});
  EXPECT_GE(std::count(across.begin(), across.end(), "web-x"), 1);

  // More objects than one page of the Kubernetes client (500).
  std::vector<Write> many;
  for (int i = 0; i < 620; ++i) {
    char name[32];
    snprintf(name, sizeof name, "p-%04d", i);
    many.push_back(Write::Create(ConfigMap(ns_ + "-pages", name, {{"k", "v"}}, {{"page", "yes"}})));
  }
  ASSERT_TRUE(store().Commit(std::move(many)).ok());
  const auto paged = Names({kConfigMap, ns_ + "-pages", {}});
  ASSERT_EQ(paged.size(), 620u);
  EXPECT_TRUE(std::is_sorted(paged.begin(), paged.end()));
  size_t visited = 0;
  auto each = store().ListEach({kConfigMap, ns_ + "-pages", {}}, [&](Resource) { ++visited; });
  ASSERT_TRUE(each.ok()) << each.status().ToString();
  EXPECT_EQ(visited, 620u);

  // An index key: a Job is unfinished until a Complete or Failed condition holds.
  Resource job = Yaml(R"(apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: NS}
spec: {template: {spec: {containers: [{name: c, image: busybox, command: ["true"]}]}}}
)");
  job.set_namespace(ns_);
  Resource stored = MustCreate(job);
  ListOptions unfinished{kJob, ns_, {}, std::string(resource::kUnfinishedJobKey)};
  EXPECT_EQ(Names(unfinished), std::vector<std::string>{"j"});
  stored.mutable_status()["conditions"] = Json::array({{{"type", "Complete"}, {"status", "True"}}});
  ASSERT_TRUE(store().UpdateStatus(stored).ok());
  EXPECT_TRUE(Names(unfinished).empty());
}

TEST_P(StoreConformanceTest, AWatchFromAListSeesEveryChangeAfterItInOrder) {
  auto list = store().List({kConfigMap, ns_, {}});
  ASSERT_TRUE(list.ok());
  auto watch = store().StartWatch({kConfigMap, ns_, list->revision});
  const Resource a = MustCreate(ConfigMap(ns_, "a"));
  Resource changed = a;
  changed.mutable_json()["data"]["k"] = "2";
  ASSERT_TRUE(store().Update(changed).ok());
  ASSERT_TRUE(store().Delete({kConfigMap, ns_, "a"}).ok());
  MustCreate(ConfigMap(ns_ + "-elsewhere", "b"));  // another namespace: not seen

  std::vector<std::pair<EventType, int64_t>> seen;
  Event event;
  while (seen.size() < 3) {
    auto outcome = watch->Next(10s, &event);
    ASSERT_EQ(outcome, Watch::Outcome::kEvent) << "after " << seen.size() << " events";
    EXPECT_EQ(event.object.name(), "a");
    seen.emplace_back(event.type, event.revision);
  }
  EXPECT_EQ(seen[0].first, EventType::kAdded);
  EXPECT_EQ(seen[1].first, EventType::kModified);
  EXPECT_EQ(seen[2].first, EventType::kDeleted);
  EXPECT_LT(seen[0].second, seen[1].second);
  EXPECT_LT(seen[1].second, seen[2].second);
  EXPECT_EQ(watch->Next(300ms, &event), Watch::Outcome::kTimeout);
  EXPECT_GE(watch->Progress(), seen[2].second);
  watch->Close();
  EXPECT_EQ(watch->Next(0ms, &event), Watch::Outcome::kClosed);
}

// A watch opened only after the writes that followed its list still gets them (a client's
// watch stream can open late). On a new store the list's revision is not 0, which the
// Kubernetes API would read as "any state" and answer with the objects as they are: none here.
TEST_P(StoreConformanceTest, AWatchOpenedLateFromAListSeesWhatWasWrittenMeanwhile) {
  auto list = store().List({kConfigMap, ns_, {}});
  ASSERT_TRUE(list.ok());
  EXPECT_NE(list->revision, 0);
  MustCreate(ConfigMap(ns_, "brief"));
  ASSERT_TRUE(store().Delete({kConfigMap, ns_, "brief"}).ok());
  auto watch = store().StartWatch({kConfigMap, ns_, list->revision});
  Event event;
  ASSERT_EQ(watch->Next(10s, &event), Watch::Outcome::kEvent);
  EXPECT_EQ(event.type, EventType::kAdded);
  EXPECT_EQ(event.object.name(), "brief");
  ASSERT_EQ(watch->Next(10s, &event), Watch::Outcome::kEvent);
  EXPECT_EQ(event.type, EventType::kDeleted);
  EXPECT_EQ(event.object.name(), "brief");
  watch->Close();
}

TEST_P(StoreConformanceTest, RevisionsOnlyMoveForward) {
  auto r1 = store().Revision();
  ASSERT_TRUE(r1.ok()) << r1.status().ToString();
  const Resource a = MustCreate(ConfigMap(ns_, "a"));
  auto r2 = store().Revision();
  ASSERT_TRUE(r2.ok());
  EXPECT_GT(*r2, *r1);
  EXPECT_GE(*r2, std::stoll(a.resource_version()));
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreConformanceTest,
                         ::testing::Values(Backend::kSqlite, Backend::kKubernetes), BackendName);

// --- The Kubernetes backend alone ---

class KubernetesStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = std::make_unique<TempDir>("hop-kube-store"); }

  std::unique_ptr<HopServe> Serve(std::vector<std::string> args = {"--no-operator"}) {
    auto serve = std::make_unique<HopServe>(HOP_BINARY, dir_->path() + "/state", std::move(args));
    EXPECT_TRUE(serve->Start()) << serve->log();
    return serve;
  }

  std::unique_ptr<KubernetesStore> Connect(const HopServe& serve,
                                           KubernetesStoreOptions options = {}) {
    KubeConfig config;
    config.server = serve.url();
    auto store = KubernetesStore::Open(config, std::move(options));
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  std::unique_ptr<TempDir> dir_;
};

TEST_F(KubernetesStoreTest, AWatchOutlivesTheServerAndMissesNothing) {
  auto serve = Serve();
  auto store = Connect(*serve);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Create(ConfigMap("w", "seed")).ok());  // a revision past 0 to watch from
  auto list = store->List({kConfigMap, "w", {}});
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  auto watch = store->StartWatch({kConfigMap, "w", list->revision});
  ASSERT_TRUE(store->Create(ConfigMap("w", "before")).ok());
  Event event;
  ASSERT_EQ(watch->Next(10s, &event), Watch::Outcome::kEvent);
  EXPECT_EQ(event.object.name(), "before");

  serve->Kill();
  // Written while no server runs: a second process on the same state directory.
  {
    SqliteStoreOptions options;
    auto local = SqliteStore::Open(dir_->path() + "/state", options);
    ASSERT_TRUE(local.ok()) << local.status().ToString();
    ASSERT_TRUE((*local)->Create(ConfigMap("w", "while-down")).ok());
  }
  ASSERT_TRUE(serve->Restart()) << serve->log();
  ASSERT_TRUE(store->Create(ConfigMap("w", "after")).ok());

  std::vector<std::string> names;
  while (names.size() < 2) {
    ASSERT_EQ(watch->Next(20s, &event), Watch::Outcome::kEvent) << "got " << names.size();
    names.push_back(event.object.name());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"while-down", "after"}));
  EXPECT_EQ(watch->Next(500ms, &event), Watch::Outcome::kTimeout);
}

TEST_F(KubernetesStoreTest, AWatchOlderThanTheServersHistoryIsTooOld) {
  auto serve = Serve({"--no-operator", "--store-history", "10"});
  auto store = Connect(*serve);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Create(ConfigMap("seed", "seed")).ok());
  auto start = store->Revision();
  ASSERT_TRUE(start.ok()) << start.status().ToString();
  std::vector<Write> writes;
  for (int i = 0; i < 600; ++i)
    writes.push_back(Write::Create(ConfigMap("old", "c" + std::to_string(i))));
  ASSERT_TRUE(store->Commit(std::move(writes)).ok());
  auto watch = store->StartWatch({kConfigMap, "old", *start});
  Event event;
  EXPECT_EQ(watch->Next(10s, &event), Watch::Outcome::kTooOld);
  // Relisting gives a revision to watch from again.
  auto list = store->List({kConfigMap, "old", {}});
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->items.size(), 600u);
  auto again = store->StartWatch({kConfigMap, "old", list->revision});
  ASSERT_TRUE(store->Create(ConfigMap("old", "fresh")).ok());
  ASSERT_EQ(again->Next(10s, &event), Watch::Outcome::kEvent);
  EXPECT_EQ(event.object.name(), "fresh");
  // A watch from 0 gets every object as it is now, then the changes.
  auto from_start = store->StartWatch({kConfigMap, "old", 0});
  std::set<std::string> names;
  while (names.size() < 601) {
    ASSERT_EQ(from_start->Next(10s, &event), Watch::Outcome::kEvent) << names.size();
    EXPECT_EQ(event.type, EventType::kAdded);
    names.insert(event.object.name());
  }
  EXPECT_EQ(from_start->Next(300ms, &event), Watch::Outcome::kTimeout);
}

TEST_F(KubernetesStoreTest, AnUnreachableServerIsUnavailableAndKindsItDoesNotServeAreSaidSo) {
  KubeConfig config;
  config.server = "http://127.0.0.1:1";  // nothing listens there
  KubernetesStoreOptions options;
  options.client.max_retries = 1;
  auto store = KubernetesStore::Open(config, options);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->Get({kConfigMap, "default", "x"}).status().code(), StatusCode::kUnavailable);

  auto serve = Serve();
  auto live = Connect(*serve);
  ASSERT_TRUE(live);
  auto unknown = live->Get({{"example.com", "Widget"}, "default", "x"});
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("serves no kind Widget.example.com"), std::string::npos)
      << unknown.status().ToString();
}

// A namespace or name that would change a request's path is refused before any request: the
// server here is unreachable, so anything sent would come back Unavailable.
TEST_F(KubernetesStoreTest, NamespacesAndNamesAreCheckedBeforeTheyGoIntoAPath) {
  KubeConfig config;
  config.server = "http://127.0.0.1:1";
  KubernetesStoreOptions options;
  options.client.max_retries = 1;
  auto opened = KubernetesStore::Open(config, options);
  ASSERT_TRUE(opened.ok());
  KubernetesStore& store = **opened;
  auto refused = [](const Status& s, const std::string& part) {
    return s.code() == StatusCode::kInvalidArgument && s.message().find(part) != std::string::npos;
  };
  for (const char* ns : {"../../api", "a/b", "x?y=1", "UPPER", "a%2Fb"}) {
    EXPECT_TRUE(refused(store.Get({kConfigMap, ns, "x"}).status(), "namespace")) << ns;
    EXPECT_TRUE(refused(store.List({kConfigMap, ns, {}}).status(), "namespace")) << ns;
    EXPECT_TRUE(refused(store.Delete({kConfigMap, ns, "x"}).status(), "namespace")) << ns;
    auto watch = store.StartWatch({kConfigMap, ns, 0});
    Event event;
    EXPECT_EQ(watch->Next(std::chrono::milliseconds(200), &event), Watch::Outcome::kClosed) << ns;
  }
  for (const char* name : {".", "..", "a/../b", "a%2Fb"}) {
    EXPECT_TRUE(refused(store.Get({kConfigMap, "default", name}).status(), "invalid name")) << name;
    EXPECT_TRUE(refused(store.Delete({kConfigMap, "default", name}).status(), "invalid name"))
        << name;
  }
  // A name that is only unusual goes to the server (which is not there).
  EXPECT_EQ(store.Get({kConfigMap, "default", "a.b-c"}).status().code(), StatusCode::kUnavailable);
}

// HTTPS with the server's certificate as the authority and a bearer token, as the kubeconfig
// `hop serve --kubeconfig-out` writes says; a wrong token or an unknown authority is refused.
TEST_F(KubernetesStoreTest, TlsAndABearerTokenFromAKubeconfig) {
  const std::string d = dir_->path();
  auto [made, rc] = testing::Shell(
      "openssl req -x509 -newkey rsa:2048 -nodes -keyout " + d + "/key.pem -out " + d +
      "/cert.pem -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1");
  ASSERT_EQ(rc, 0) << "openssl (./scripts/setup installs it): " << made;
  std::ofstream(d + "/token") << "s3cret-token\n";
  auto serve =
      Serve({"--no-operator", "--http-tls-cert", d + "/cert.pem", "--http-tls-key", d + "/key.pem",
             "--http-token-file", d + "/token", "--kubeconfig-out", d + "/kc"});
  ASSERT_EQ(serve->url().rfind("https://", 0), 0u) << serve->log();
  EXPECT_EQ(serve->log().find("kubectl does not send"), std::string::npos) << serve->log();
  auto config = LoadKubeconfig(d + "/kc");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->token, "s3cret-token");
  EXPECT_FALSE(config->ca_pem.empty());
  {
    auto store = KubernetesStore::Open(*config);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ASSERT_TRUE((*store)->Create(ConfigMap("tls", "a")).ok());
    EXPECT_TRUE((*store)->Get({kConfigMap, "tls", "a"}).ok());
  }
  KubeConfig wrong_token = *config;
  wrong_token.token = "guess";
  auto refused = (*KubernetesStore::Open(wrong_token))->Get({kConfigMap, "tls", "a"});
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("does not accept hop's credentials"), std::string::npos)
      << refused.status().ToString();
  EXPECT_EQ(refused.status().message().find("guess"), std::string::npos);
  KubeConfig no_ca = *config;
  no_ca.ca_pem.clear();
  KubernetesStoreOptions once;
  once.client.max_retries = 0;
  EXPECT_EQ((*KubernetesStore::Open(no_ca, once))->Get({kConfigMap, "tls", "a"}).status().code(),
            StatusCode::kUnavailable);
}

// kubectl sends a bearer token over HTTPS only: a kubeconfig with a token and no TLS would get
// 401 for each of its requests, and serve says so when it writes one.
TEST_F(KubernetesStoreTest, AKubeconfigWithATokenOverPlainHttpWarnsOfKubectl) {
  const std::string d = dir_->path();
  std::ofstream(d + "/token") << "plain-token\n";
  auto serve =
      Serve({"--no-operator", "--http-token-file", d + "/token", "--kubeconfig-out", d + "/kc"});
  EXPECT_TRUE(testing::Eventually(
      [&] { return serve->log().find("kubectl does not send the token") != std::string::npos; },
      std::chrono::seconds(10)))
      << serve->log();
  EXPECT_EQ(serve->log().find("plain-token"), std::string::npos);
}

TEST_F(KubernetesStoreTest, CredentialsNeverGoInTheClearOffLoopback) {
  KubeConfig config;
  config.server = "http://10.1.2.3:8080";
  config.token = "secret";
  auto store = KubernetesStore::Open(config);
  EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store.status().message().find("secret"), std::string::npos);
}

TEST_F(KubernetesStoreTest, ItReadsSecretsWholeWhereKubectlSeesThemRedacted) {
  auto serve = Serve();
  auto store = Connect(*serve);
  ASSERT_TRUE(store);
  Resource db = Yaml(R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: pg, namespace: default}
spec: {url: "postgresql://app:s3cret@127.0.0.1:5432/app", schema: PG}
)");
  auto created = store->Create(db);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto got = store->Get({resource::DatabaseKind::Info().group_kind(), "default", "pg"});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got->spec())["url"], "postgresql://app:s3cret@127.0.0.1:5432/app");
}

TEST_F(KubernetesStoreTest, EveryRequestIsReportedWithItsVerbForRbac) {
  auto serve = Serve();
  std::mutex mu;
  std::set<std::string> seen;
  KubernetesStoreOptions options;
  options.on_request = [&](std::string_view verb, std::string_view group, std::string_view resource,
                           std::string_view sub) {
    std::lock_guard<std::mutex> lock(mu);
    seen.insert(fmt::format("{} {}/{}{}{}", verb, group, resource, sub.empty() ? "" : "/", sub));
  };
  auto store = Connect(*serve, std::move(options));
  ASSERT_TRUE(store);
  Resource v = View("default", "rbac");
  v.mutable_status()["watermark"] = "2026-01-01T00:00:00Z";
  auto created = store->Create(v);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Resource s = *created;
  s.mutable_status()["watermark"] = "2026-02-01T00:00:00Z";
  ASSERT_TRUE(store->UpdateStatus(s).ok());
  ASSERT_TRUE(store->List({resource::ViewKind::Info().group_kind(), "default", {}}).ok());
  ASSERT_TRUE(store->Delete(RefOf(*created)).ok());
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_TRUE(seen.count("create hoptimator.linkedin.com/views"));
  EXPECT_TRUE(seen.count("update hoptimator.linkedin.com/views/status"));
  EXPECT_TRUE(seen.count("list hoptimator.linkedin.com/views"));
  EXPECT_TRUE(seen.count("get hoptimator.linkedin.com/views"));
  EXPECT_TRUE(seen.count("delete hoptimator.linkedin.com/views"));
}

}  // namespace
}  // namespace hop::store
