#include "store/sqlite_store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "common/limits.h"
#include "resource/kinds.h"
#include "store/sqlite.h"
#include "test/lib/small_file_system.h"

namespace hop::store {
namespace {

using resource::DatabaseKind;
using resource::OwnerReferenceTo;
using resource::TableTemplateKind;

const GroupKind kDatabase{"hoptimator.linkedin.com", "Database"};
const GroupKind kConfigMap{"", "ConfigMap"};
const GroupKind kNamespace{"", "Namespace"};

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/hop-store-test-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Options for a store that is not durable and whose idle watches look every `poll`, whether or
// not other writers can wake them.
SqliteStoreOptions PollingEvery(std::chrono::milliseconds poll) {
  SqliteStoreOptions opts;
  opts.durable = false;
  opts.poll_interval = poll;
  opts.safety_poll_interval = poll;
  return opts;
}

Resource Database(const std::string& name, const std::string& url = "jdbc:demodb://names=ads") {
  Json doc = Json::parse(R"({"apiVersion": "hoptimator.linkedin.com/v1alpha1", "kind": "Database",
                             "metadata": {}, "spec": {}})");
  Resource r(std::move(doc));
  r.set_name(name);
  DatabaseKind::kUrl.Set(r, url);
  return r;
}

Resource ConfigMap(const std::string& name, const std::string& ns = "") {
  Resource r(Json::parse(R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {},
                             "data": {"k": "v"}})"));
  r.set_name(name);
  if (!ns.empty()) r.set_namespace(ns);
  return r;
}

class SqliteStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SqliteStoreOptions opts;
    opts.durable = false;
    // No watch here may rely on polling: writes in this process wake watches at once, and a
    // watch that only polled would wait an hour and fail the tests below.
    opts.poll_interval = std::chrono::hours(1);
    auto s = SqliteStore::Open(dir_.path(), opts);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
  }

  Resource MustCreate(Resource r) {
    auto c = store_->Create(std::move(r));
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? *c : Resource();
  }

  TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
};

TEST_F(SqliteStoreTest, CreateSetsServerFields) {
  Resource created = MustCreate(Database("ads-database"));
  EXPECT_EQ(created.namespace_name(), "default");
  EXPECT_EQ(created.uid().size(), 36u);
  EXPECT_EQ(created.generation(), 1);
  EXPECT_EQ(created.resource_version(), "2");  // a new store is at revision 1
  EXPECT_FALSE(created.creation_timestamp().empty());
  auto got = store_->Get({kDatabase, "default", "ads-database"});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, created);
  // The namespace defaults on reads too.
  EXPECT_TRUE(store_->Get({kDatabase, "", "ads-database"}).ok());

  auto again = store_->Create(Database("ads-database"));
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(again.status().message(),
            "Database.hoptimator.linkedin.com/default/ads-database already exists");

  // Cluster-scoped kinds have no namespace.
  Resource ns(Json::parse(R"({"apiVersion": "v1", "kind": "Namespace",
                              "metadata": {"name": "team", "namespace": "x"}})"));
  Resource stored = MustCreate(ns);
  EXPECT_EQ(stored.namespace_name(), "");
  EXPECT_TRUE(store_->Get({kNamespace, "", "team"}).ok());
}

// Objects are bounded as Kubernetes bounds them (HOP_MAX_OBJECT_BYTES): creates and updates past
// the limit fail and write nothing.
// A new store is at revision 1, not 0 (docs/store.md, "Revisions"), and a list of it says so.
TEST_F(SqliteStoreTest, ANewStoreIsAtRevisionOne) {
  EXPECT_EQ(*store_->Revision(), 1);
  auto list = store_->List({kConfigMap, "", {}});
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->revision, 1);
  EXPECT_EQ(MustCreate(ConfigMap("first")).resource_version(), "2");
}

TEST_F(SqliteStoreTest, StatsCountObjectsAndBytes) {
  MustCreate(ConfigMap("a"));
  MustCreate(ConfigMap("b"));
  auto stats = store_->ReadStats();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->objects, 2);
  EXPECT_EQ(stats->revision, *store_->Revision());
  EXPECT_GT(stats->bytes, 0);
}

// A watch's progress is the revision up to which it has returned every event: resuming there
// misses nothing, whatever it filtered out.
TEST_F(SqliteStoreTest, WatchProgressIsWhereAResumedWatchMissesNothing) {
  auto w = store_->StartWatch({kConfigMap, "", 0});
  EXPECT_EQ(w->Progress(), 0);
  MustCreate(ConfigMap("a"));
  Event e;
  ASSERT_EQ(w->Next(std::chrono::seconds(5), &e), Watch::Outcome::kEvent);
  EXPECT_EQ(w->Progress(), e.revision);
  Resource other = ConfigMap("x");
  other.set_kind("Secret");
  MustCreate(other);  // not a ConfigMap: the watch skips it but moves past it
  EXPECT_EQ(w->Next(std::chrono::milliseconds(50), &e), Watch::Outcome::kTimeout);
  EXPECT_EQ(w->Progress(), *store_->Revision());
}

TEST_F(SqliteStoreTest, ObjectsLargerThanTheLimitAreRefused) {
  const Limits saved = CurrentLimits();
  Limits limits = saved;
  limits.max_object_bytes = 4096;
  SetLimits(limits);
  Resource big = ConfigMap("big");
  big.mutable_json()["data"]["k"] = std::string(5000, 'x');
  auto created = store_->Create(big);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(created.status().message().find(
                "bytes as JSON, more than the 4 KiB an object may be (HOP_MAX_OBJECT_BYTES)"),
            std::string::npos)
      << created.status().message();
  Resource small = MustCreate(ConfigMap("small"));
  small.mutable_json()["data"]["k"] = std::string(5000, 'x');
  EXPECT_EQ(store_->Update(small).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->Get({kConfigMap, "default", "small"})->json()["data"]["k"], "v");
  EXPECT_EQ(store_->Get({kConfigMap, "default", "big"}).status().code(), StatusCode::kNotFound);
  SetLimits(saved);
}

TEST_F(SqliteStoreTest, UnknownFieldsSurvive) {
  Resource r = Database("d");
  r.mutable_spec()["futureField"] = Json::parse(R"({"nested": [1, "two", null]})");
  r.mutable_json()["extraTopLevel"] = "kept";
  MustCreate(r);
  auto got = store_->Get({kDatabase, "default", "d"});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->json()["spec"]["futureField"]["nested"][1], "two");
  EXPECT_EQ(got->json()["extraTopLevel"], "kept");
}

// A Secret is stored as Kubernetes stores one: its stringData goes into data, base64-encoded and
// over a data value of the same key, and is never kept or read back in plain text.
TEST_F(SqliteStoreTest, ASecretsStringDataGoesIntoItsData) {
  const ObjectRef ref{{"", "Secret"}, "default", "token"};
  Resource created = MustCreate(Resource(Json::parse(R"({"apiVersion": "v1", "kind": "Secret",
      "metadata": {"name": "token"}, "data": {"kept": "a2VwdA==", "user": "b2xk"},
      "stringData": {"user": "alice", "password": "hunter2"}})")));
  for (const Resource& r : {created, store_->Get(ref).value()}) {
    EXPECT_FALSE(r.json().contains("stringData")) << r.json().dump();
    EXPECT_EQ(
        r.json()["data"],
        Json::parse(R"({"kept": "a2VwdA==", "user": "YWxpY2U=", "password": "aHVudGVyMg=="})"));
  }
  Resource update = store_->Get(ref).value();
  update.mutable_json()["stringData"] = Json::parse(R"({"password": "changed"})");
  auto updated = store_->Update(update);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_FALSE(updated->json().contains("stringData"));
  EXPECT_EQ(updated->json()["data"]["password"], "Y2hhbmdlZA==");
  EXPECT_EQ(updated->json()["data"]["user"], "YWxpY2U=");
  // A Secret of stringData only (the usual way to write one) gets data of it, whatever comes
  // after it.
  Resource only = MustCreate(Resource(Json::parse(R"({"apiVersion": "v1", "kind": "Secret",
      "metadata": {"name": "only"}, "stringData": {"a": "1", "b": "2"}, "type": "Opaque"})")));
  EXPECT_FALSE(only.json().contains("stringData")) << only.json().dump();
  EXPECT_EQ(only.json()["data"], Json::parse(R"({"a": "MQ==", "b": "Mg=="})"));
  EXPECT_EQ(only.json()["type"], "Opaque");
  // Only a Secret's: another kind's field of that name is its own.
  Resource cm = MustCreate(Resource(Json::parse(R"({"apiVersion": "v1", "kind": "ConfigMap",
      "metadata": {"name": "settings"}, "stringData": {"a": "b"}})")));
  EXPECT_EQ(cm.json()["stringData"]["a"], "b");
}

// As Kubernetes refuses them: an immutable ConfigMap's or Secret's data cannot change and
// immutable cannot be unset; a Secret's type never changes. Metadata still may.
TEST_F(SqliteStoreTest, ImmutableConfigMapsAndSecretsAndSecretTypesDoNotChange) {
  struct Case {
    const char* name;
    const char* stored;
    const char* next;   // the fields replaced in the stored object
    const char* error;  // empty: the update is allowed
  };
  const Case kCases[] = {
      {"configmap data", R"({"kind":"ConfigMap","data":{"a":"b"},"immutable":true})",
       R"({"data":{"a":"c"}})", "data: Forbidden: field is immutable when `immutable` is set"},
      {"configmap binaryData", R"({"kind":"ConfigMap","binaryData":{"a":"AA=="},"immutable":true})",
       R"({"binaryData":{"a":"AQ=="}})", "binaryData: Forbidden"},
      {"configmap unset", R"({"kind":"ConfigMap","data":{"a":"b"},"immutable":true})",
       R"({"immutable":false})", "immutable: Forbidden"},
      {"configmap labels", R"({"kind":"ConfigMap","data":{"a":"b"},"immutable":true})",
       R"({"metadata":{"name":"x","labels":{"l":"v"}}})", ""},
      {"configmap mutable", R"({"kind":"ConfigMap","data":{"a":"b"}})",
       R"({"data":{"a":"c"},"immutable":true})", ""},
      {"secret data", R"({"kind":"Secret","data":{"a":"Yg=="},"immutable":true})",
       R"({"data":{"a":"Yw=="}})", "data: Forbidden"},
      {"secret stringData", R"({"kind":"Secret","data":{"a":"Yg=="},"immutable":true})",
       R"({"stringData":{"a":"c"}})", "data: Forbidden"},
      {"secret same stringData", R"({"kind":"Secret","data":{"a":"Yg=="},"immutable":true})",
       R"({"stringData":{"a":"b"}})", ""},
      {"secret type", R"({"kind":"Secret","data":{"a":"Yg=="},"type":"Opaque"})",
       R"({"type":"kubernetes.io/tls"})",
       R"(type: Invalid value: "kubernetes.io/tls": field is immutable)"},
      {"secret unset type is Opaque", R"({"kind":"Secret","data":{"a":"Yg=="}})",
       R"({"type":"Opaque"})", ""},
  };
  for (const Case& c : kCases) {
    Json doc = Json::parse(c.stored);
    doc["apiVersion"] = "v1";
    doc["metadata"] = Json{{"name", "x"}};
    const Resource stored = MustCreate(Resource(doc));
    Resource next = stored;
    const Json fields = Json::parse(c.next);
    for (const auto& [key, value] : fields.items()) next.mutable_json()[key] = value;
    auto updated = store_->Update(next);
    if (std::string(c.error).empty()) {
      EXPECT_TRUE(updated.ok()) << c.name << ": " << updated.status().ToString();
    } else {
      EXPECT_EQ(updated.status().code(), StatusCode::kValidation) << c.name;
      EXPECT_NE(updated.status().message().find(c.error), std::string::npos)
          << c.name << ": " << updated.status().ToString();
      EXPECT_EQ(store_->Get(store::RefOf(stored)).value(), stored) << c.name;
    }
    ASSERT_TRUE(store_->Delete(store::RefOf(stored)).ok()) << c.name;
  }
}

// As their API server refuses them: keys of a ConfigMap's or Secret's data that are not
// [-._a-zA-Z0-9]+ of at most 253 characters, or a key in both data and binaryData; a Secret of a
// built-in type without the keys it needs; a Namespace whose name is not a DNS-1123 label.
TEST_F(SqliteStoreTest, ObjectsTheirApiServerRefusesAreNotStored) {
  struct Case {
    const char* name;
    const char* object;  // without apiVersion, and without metadata when it has a name of "x"
    const char* error;   // empty: stored
  };
  const Case kCases[] = {
      {"configmap keys", R"({"kind":"ConfigMap","data":{"a-b.c_D9":"v"},"binaryData":{"e":""}})",
       ""},
      {"configmap data key", R"({"kind":"ConfigMap","data":{"a b":"v"}})", "data[a b]: "},
      {"configmap binaryData key", R"({"kind":"ConfigMap","binaryData":{"..":"AA=="}})",
       "binaryData[..]: "},
      {"configmap key twice", R"({"kind":"ConfigMap","data":{"k":"v"},"binaryData":{"k":"AA=="}})",
       R"(data[k]: Invalid value: "k": duplicate of key present in binaryData)"},
      {"secret data key", R"({"kind":"Secret","data":{"a/b":"dg=="}})", "data[a/b]: "},
      {"secret stringData key", R"({"kind":"Secret","stringData":{"a b":"v"}})", "data[a b]: "},
      {"tls secret", R"({"kind":"Secret","type":"kubernetes.io/tls","stringData":{"tls.crt":"c"}})",
       "data[tls.key]: Required value"},
      {"tls secret whole",
       R"({"kind":"Secret","type":"kubernetes.io/tls","stringData":{"tls.crt":"c","tls.key":"k"}})",
       ""},
      {"ssh secret", R"({"kind":"Secret","type":"kubernetes.io/ssh-auth"})",
       "data[ssh-privatekey]: Required value"},
      {"dotted namespace", R"({"kind":"Namespace","metadata":{"name":"team.a"}})",
       "metadata.name: "},
      {"namespace", R"({"kind":"Namespace","metadata":{"name":"team-a"}})", ""},
  };
  for (const Case& c : kCases) {
    Json doc = Json::parse(c.object);
    doc["apiVersion"] = "v1";
    if (!doc.contains("metadata")) doc["metadata"] = Json{{"name", "x"}};
    auto created = store_->Create(Resource(doc));
    if (std::string(c.error).empty()) {
      EXPECT_TRUE(created.ok()) << c.name << ": " << created.status().ToString();
      continue;
    }
    EXPECT_EQ(created.status().code(), StatusCode::kValidation) << c.name;
    EXPECT_NE(created.status().message().find(c.error), std::string::npos)
        << c.name << ": " << created.status().ToString();
  }
  // An update is checked as a create is.
  Resource cm = MustCreate(ConfigMap("cm"));
  cm.mutable_json()["data"]["a b"] = "v";
  EXPECT_EQ(store_->Update(cm).status().code(), StatusCode::kValidation);
}

TEST_F(SqliteStoreTest, ValidationRejectsBadObjects) {
  Resource no_url = Database("d");
  no_url.mutable_spec().erase("url");
  auto r = store_->Create(no_url);
  EXPECT_EQ(r.status().code(), StatusCode::kValidation);
  EXPECT_NE(r.status().message().find("spec.url: required field is missing"), std::string::npos)
      << r.status().message();

  Resource bad_dialect = Database("d");
  DatabaseKind::kDialect.Set(bad_dialect, "Oracle");
  r = store_->Create(bad_dialect);
  EXPECT_NE(
      r.status().message().find("spec.dialect: \"Oracle\" is not one of ANSI, MySQL, Calcite"),
      std::string::npos)
      << r.status().message();

  r = store_->Create(ConfigMap("Bad_Name"));
  EXPECT_EQ(r.status().code(), StatusCode::kValidation);
  EXPECT_NE(r.status().message().find("metadata.name"), std::string::npos) << r.status().message();
}

TEST_F(SqliteStoreTest, UpdateRules) {
  Resource v1 = MustCreate(Database("d"));

  // Unconditional update (no resourceVersion) of spec bumps generation.
  Resource change = Database("d", "jdbc:demodb://names=profile");
  auto v2 = store_->Update(change);
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ(v2->generation(), 2);
  EXPECT_EQ(v2->uid(), v1.uid());
  EXPECT_EQ(v2->creation_timestamp(), v1.creation_timestamp());
  EXPECT_EQ(v2->resource_version(), "3");

  // A stale resourceVersion is a conflict.
  Resource stale = *v2;
  stale.set_resource_version(v1.resource_version());
  DatabaseKind::kSchema.Set(stale, "ADS");
  EXPECT_EQ(store_->Update(stale).status().code(), StatusCode::kConflict);

  // Metadata-only changes keep the generation.
  Resource labelled = *v2;
  labelled.set_label("team", "ads");
  auto v3 = store_->Update(labelled);
  ASSERT_TRUE(v3.ok());
  EXPECT_EQ(v3->generation(), 2);
  EXPECT_EQ(v3->labels().at("team"), "ads");

  // An update that changes nothing writes nothing.
  auto same = store_->Update(*v3);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->resource_version(), v3->resource_version());
  EXPECT_EQ(*store_->Revision(), 4);

  // Server fields cannot be changed through an update.
  Resource forged = *v3;
  forged.set_uid("forged");
  forged.set_creation_timestamp("2000-01-01T00:00:00Z");
  auto v4 = store_->Update(forged);
  ASSERT_TRUE(v4.ok());
  EXPECT_EQ(v4->uid(), v1.uid());
  EXPECT_EQ(v4->creation_timestamp(), v1.creation_timestamp());

  EXPECT_EQ(store_->Update(Database("missing")).status().code(), StatusCode::kNotFound);
}

TEST_F(SqliteStoreTest, StatusIsASubresource) {
  Resource created = MustCreate(Database("d"));
  Resource with_status = created;
  with_status.mutable_status()["phase"] = "Ready";
  auto s1 = store_->UpdateStatus(with_status);
  ASSERT_TRUE(s1.ok()) << s1.status().ToString();
  EXPECT_EQ(s1->generation(), 1);
  EXPECT_EQ(s1->json()["status"]["phase"], "Ready");

  // A status update leaves the spec alone, even if the object carries another spec.
  Resource sneaky = *s1;
  DatabaseKind::kUrl.Set(sneaky, "jdbc:other://");
  sneaky.mutable_status()["phase"] = "Done";
  auto s2 = store_->UpdateStatus(sneaky);
  ASSERT_TRUE(s2.ok());
  EXPECT_EQ(DatabaseKind::kUrl.Get(*s2), "jdbc:demodb://names=ads");
  EXPECT_EQ(s2->json()["status"]["phase"], "Done");

  // A main-resource update keeps the stored status.
  Resource spec_change = *s2;
  spec_change.clear_status();
  DatabaseKind::kSchema.Set(spec_change, "ADS");
  auto s3 = store_->Update(spec_change);
  ASSERT_TRUE(s3.ok());
  EXPECT_EQ(s3->json()["status"]["phase"], "Done");
  EXPECT_EQ(s3->generation(), 2);

  // Kinds without a status subresource take status with the object.
  Resource tmpl(Json::parse(R"({"apiVersion": "hoptimator.linkedin.com/v1alpha1",
      "kind": "TableTemplate", "metadata": {"name": "t"}, "spec": {"connector": "c = d"}})"));
  Resource t1 = MustCreate(tmpl);
  t1.mutable_status()["note"] = "x";
  auto t2 = store_->Update(t1);
  ASSERT_TRUE(t2.ok());
  EXPECT_EQ(t2->json()["status"]["note"], "x");
}

TEST_F(SqliteStoreTest, FinalizersDelayDeletion) {
  Resource r = Database("d");
  r.set_finalizers({"hop/cleanup"});
  Resource created = MustCreate(r);
  auto marked = store_->Delete({kDatabase, "default", "d"});
  ASSERT_TRUE(marked.ok());
  EXPECT_TRUE(marked->deletion_timestamp().has_value());
  auto still = store_->Get({kDatabase, "default", "d"});
  ASSERT_TRUE(still.ok());
  EXPECT_TRUE(still->deletion_timestamp().has_value());

  Resource release = *still;
  release.set_finalizers({});
  ASSERT_TRUE(store_->Update(release).ok());
  EXPECT_EQ(store_->Get({kDatabase, "default", "d"}).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Delete({kDatabase, "default", "d"}).status().code(), StatusCode::kNotFound);
}

// As Kubernetes refuses it: a finalizer cannot be added to an object being deleted; removing
// them still ends the deletion.
TEST_F(SqliteStoreTest, NoFinalizerIsAddedToAnObjectBeingDeleted) {
  Resource r = ConfigMap("cm");
  r.set_finalizers({"hop/a", "hop/b"});
  MustCreate(r);
  auto marked = store_->Delete({kConfigMap, "default", "cm"});
  ASSERT_TRUE(marked.ok()) << marked.status().ToString();
  Resource added = *marked;
  added.set_finalizers({"hop/a", "hop/b", "hop/c"});
  auto refused = store_->Update(added);
  EXPECT_EQ(refused.status().code(), StatusCode::kValidation);
  EXPECT_NE(refused.status().message().find(
                "metadata.finalizers: Forbidden: no new finalizers can be added if the object is "
                "being deleted, found new finalizers []string{\"hop/c\"}"),
            std::string::npos)
      << refused.status().ToString();
  Resource fewer = *marked;
  fewer.set_finalizers({"hop/b"});
  auto kept = store_->Update(fewer);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  kept->set_finalizers({});
  ASSERT_TRUE(store_->Update(*kept).ok());
  EXPECT_EQ(store_->Get({kConfigMap, "default", "cm"}).status().code(), StatusCode::kNotFound);
}

TEST_F(SqliteStoreTest, DeletePreconditionIsChecked) {
  Resource created = MustCreate(Database("d"));
  EXPECT_EQ(store_->Delete({kDatabase, "default", "d"}, "999").status().code(),
            StatusCode::kConflict);
  // A uid that is not the object's: the object was deleted and made again meanwhile.
  auto other = store_->Commit({Write::Delete({kDatabase, "default", "d"}, "", "another-uid")});
  EXPECT_EQ(other.status().code(), StatusCode::kConflict);
  EXPECT_NE(other.status().message().find("Precondition failed: UID in precondition: another-uid, "
                                          "UID in object meta: " +
                                          created.uid()),
            std::string::npos)
      << other.status().ToString();
  EXPECT_TRUE(store_
                  ->Commit({Write::Delete({kDatabase, "default", "d"}, created.resource_version(),
                                          created.uid())})
                  .ok());
}

TEST_F(SqliteStoreTest, DeletingAnOwnerCollectsDependentsTransitively) {
  Resource owner = MustCreate(Database("owner"));
  Resource child = ConfigMap("child");
  child.set_owner_references({OwnerReferenceTo(owner)});
  Resource child_stored = MustCreate(child);
  Resource grandchild = ConfigMap("grandchild");
  grandchild.set_owner_references({OwnerReferenceTo(child_stored)});
  MustCreate(grandchild);
  // Two owners: survives until both are gone.
  Resource other_owner = MustCreate(Database("other"));
  Resource shared = ConfigMap("shared");
  shared.set_owner_references({OwnerReferenceTo(owner), OwnerReferenceTo(other_owner)});
  MustCreate(shared);
  // A dependent with a finalizer is marked, not removed.
  Resource guarded = ConfigMap("guarded");
  guarded.set_owner_references({OwnerReferenceTo(owner)});
  guarded.set_finalizers({"keep"});
  MustCreate(guarded);

  const int64_t before = *store_->Revision();
  ASSERT_TRUE(store_->Delete({kDatabase, "default", "owner"}).ok());
  EXPECT_EQ(store_->Get({kConfigMap, "default", "child"}).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Get({kConfigMap, "default", "grandchild"}).status().code(),
            StatusCode::kNotFound);
  // The survivor loses its reference to the deleted owner, as with Kubernetes' collector.
  auto s = store_->Get({kConfigMap, "default", "shared"});
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->owner_references().size(), 1u);
  EXPECT_EQ(s->owner_references()[0].name, "other");
  auto g = store_->Get({kConfigMap, "default", "guarded"});
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(g->deletion_timestamp().has_value());
  // owner, child, grandchild deleted, shared rewritten and guarded marked: five revisions, one
  // transaction.
  EXPECT_EQ(*store_->Revision(), before + 5);

  ASSERT_TRUE(store_->Delete({kDatabase, "default", "other"}).ok());
  EXPECT_EQ(store_->Get({kConfigMap, "default", "shared"}).status().code(), StatusCode::kNotFound);
}

TEST_F(SqliteStoreTest, OwnersWithoutUidAreFoundByNameInTheSameBatch) {
  Resource owner = Database("owner");
  Resource child = ConfigMap("child");
  resource::OwnerReference ref;
  ref.api_version = owner.api_version();
  ref.kind = owner.kind();
  ref.name = "owner";
  child.set_owner_references({ref});
  std::vector<Write> batch;
  batch.push_back(Write::Create(owner));
  batch.push_back(Write::Create(child));
  auto written = store_->Commit(std::move(batch));
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  ASSERT_EQ((*written)[1].owner_references().size(), 1u);
  EXPECT_EQ((*written)[1].owner_references()[0].uid, (*written)[0].uid());
  // The owner's deletion collects the child.
  ASSERT_TRUE(store_->Delete({kDatabase, "default", "owner"}).ok());
  EXPECT_EQ(store_->Get({kConfigMap, "default", "child"}).status().code(), StatusCode::kNotFound);
  // An owner that exists nowhere is an error, and nothing of the batch is written.
  Resource orphan = ConfigMap("orphan");
  ref.name = "missing";
  orphan.set_owner_references({ref});
  auto failed = store_->Commit({Write::Create(ConfigMap("x")), Write::Create(orphan)});
  EXPECT_EQ(failed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(failed.status().message().find("Database/missing"), std::string::npos);
  EXPECT_EQ(store_->Get({kConfigMap, "default", "x"}).status().code(), StatusCode::kNotFound);
}

TEST_F(SqliteStoreTest, BatchesAreAllOrNothing) {
  MustCreate(Database("exists"));
  const int64_t before = *store_->Revision();
  std::vector<Write> batch;
  batch.push_back(Write::Create(Database("a")));
  batch.push_back(Write::Create(Database("b")));
  batch.push_back(Write::Create(Database("exists")));  // fails
  auto r = store_->Commit(std::move(batch));
  EXPECT_EQ(r.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(r.status().message().find("write 3 of 3"), std::string::npos) << r.status().message();
  EXPECT_EQ(store_->Get({kDatabase, "default", "a"}).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(*store_->Revision(), before);

  std::vector<Write> ok;
  ok.push_back(Write::Create(Database("a")));
  ok.push_back(Write::Create(Database("b")));
  auto done = store_->Commit(std::move(ok));
  ASSERT_TRUE(done.ok());
  EXPECT_EQ((*done)[0].resource_version(), std::to_string(before + 1));
  EXPECT_EQ((*done)[1].resource_version(), std::to_string(before + 2));
}

std::vector<std::pair<EventType, std::string>> Drain(Watch* w, size_t n) {
  std::vector<std::pair<EventType, std::string>> out;
  Event e;
  while (out.size() < n && w->Next(std::chrono::seconds(5), &e) == Watch::Outcome::kEvent) {
    out.emplace_back(e.type, e.object.name() + "@" + std::to_string(e.revision));
  }
  return out;
}

// Waits up to 10 s for `done`; false when it never held.
bool WaitFor(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Another connection to the store's file that holds its write lock until Release: a commit
// started meanwhile waits for the lock, and the batches that arrive behind it queue up.
class WriteLockHolder {
 public:
  explicit WriteLockHolder(const std::string& dir) {
    EXPECT_EQ(sqlite3_open((dir + "/hop.db").c_str(), &db_), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  }
  ~WriteLockHolder() {
    Release();
    sqlite3_close(db_);
  }
  void Release() {
    if (held_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    held_ = false;
  }

 private:
  sqlite3* db_ = nullptr;
  bool held_ = true;
};

TEST_F(SqliteStoreTest, BatchesCommittedTogetherFailAloneAndSeeTheOnesBefore) {
  Resource shared = MustCreate(ConfigMap("shared"));
  const int64_t r0 = *store_->Revision();
  const SqliteStore::CommitStats before = store_->commit_stats();

  WriteLockHolder lock(dir_.path());
  // The first commit becomes the leader and waits for the lock; the next four queue behind it,
  // in this order, and are then committed in one transaction.
  std::vector<Result<std::vector<Resource>>> results(5, Status::Internal("not run"));
  std::vector<std::thread> threads;
  auto commit = [&](size_t i, std::vector<Write> writes) {
    threads.emplace_back([&, i, writes = std::move(writes)]() mutable {
      results[i] = store_->Commit(std::move(writes));
    });
  };
  std::vector<Write> a;
  a.push_back(Write::Create(ConfigMap("first")));
  commit(0, std::move(a));
  ASSERT_TRUE(WaitFor([&] { return store_->commit_stats().committing; }));

  Resource changed = shared;  // at resourceVersion r0
  changed.mutable_json()["data"]["k"] = "b";
  std::vector<Write> b;  // succeeds
  b.push_back(Write::Create(ConfigMap("x1")));
  b.push_back(Write::Update(changed));
  std::vector<Write> c;  // fails at its second write: its first must go too
  c.push_back(Write::Create(ConfigMap("c1")));
  c.push_back(Write::Create(ConfigMap("first")));
  Resource stale = shared;  // at r0 still, which B's update has moved on
  stale.mutable_json()["data"]["k"] = "d";
  std::vector<Write> d;  // a conflict with B, committed just before it in the same transaction
  d.push_back(Write::Update(stale));
  std::vector<Write> e;  // succeeds
  e.push_back(Write::Create(ConfigMap("e1")));
  std::vector<std::vector<Write>> queued;
  queued.push_back(std::move(b));
  queued.push_back(std::move(c));
  queued.push_back(std::move(d));
  queued.push_back(std::move(e));
  for (size_t i = 0; i < queued.size(); ++i) {
    commit(i + 1, std::move(queued[i]));
    ASSERT_TRUE(WaitFor([&] {
      return store_->commit_stats().waiting == static_cast<int64_t>(i + 1);
    })) << "batch "
        << i + 1 << " never queued";
  }
  // Reads go on while the commit waits.
  EXPECT_TRUE(store_->Get({kConfigMap, "default", "shared"}).ok());
  lock.Release();
  for (auto& t : threads) t.join();

  ASSERT_TRUE(results[0].ok()) << results[0].status().ToString();
  EXPECT_EQ((*results[0])[0].resource_version(), std::to_string(r0 + 1));
  ASSERT_TRUE(results[1].ok()) << results[1].status().ToString();
  EXPECT_EQ((*results[1])[0].resource_version(), std::to_string(r0 + 2));
  EXPECT_EQ((*results[1])[1].resource_version(), std::to_string(r0 + 3));
  EXPECT_EQ(results[2].status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(results[2].status().message().find("write 2 of 2"), std::string::npos)
      << results[2].status().message();
  EXPECT_EQ(results[3].status().code(), StatusCode::kConflict) << results[3].status().ToString();
  ASSERT_TRUE(results[4].ok()) << results[4].status().ToString();
  // The failed batches took no revision: the next batch has the next one.
  EXPECT_EQ((*results[4])[0].resource_version(), std::to_string(r0 + 4));
  EXPECT_EQ(*store_->Revision(), r0 + 4);

  EXPECT_EQ(store_->Get({kConfigMap, "default", "c1"}).status().code(), StatusCode::kNotFound);
  auto now = store_->Get({kConfigMap, "default", "shared"});
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->json()["data"]["k"], "b");
  const SqliteStore::CommitStats after = store_->commit_stats();
  EXPECT_EQ(after.batches - before.batches, 5);
  EXPECT_EQ(after.transactions - before.transactions, 2);  // the leader's, then the four

  // The log holds the committed writes only, in order, without gaps.
  auto w = store_->StartWatch({std::nullopt, "", r0});
  using T = EventType;
  EXPECT_EQ(Drain(w.get(), 4), (std::vector<std::pair<T, std::string>>{
                                   {T::kAdded, "first@" + std::to_string(r0 + 1)},
                                   {T::kAdded, "x1@" + std::to_string(r0 + 2)},
                                   {T::kModified, "shared@" + std::to_string(r0 + 3)},
                                   {T::kAdded, "e1@" + std::to_string(r0 + 4)}}));
}

// Opening a store that needs no migration reads; it does not wait for the write lock, which
// another process may hold through its fsync (hop serve while a `hop -e` starts).
TEST(SqliteStoreOpenTest, OpeningACurrentStoreDoesNotTakeTheWriteLock) {
  TempDir dir;
  SqliteStoreOptions opts;
  opts.durable = false;
  {
    auto store = SqliteStore::Open(dir.path(), opts);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->Create(ConfigMap("a")).ok());
  }
  WriteLockHolder lock(dir.path());
  auto store = SqliteStore::Open(dir.path(), opts);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_TRUE((*store)->Get({kConfigMap, "default", "a"}).ok());
}

TEST(SqliteStoreGroupCommitTest, ConcurrentCommitsShareDurableTransactions) {
  TempDir dir;
  auto opened = SqliteStore::Open(dir.path());  // durable: each transaction is an fsync
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  SqliteStore& store = **opened;
  constexpr int kThreads = 8;
  constexpr int kBatches = 25;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> revisions(kThreads);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int n = 0; n < kBatches; ++n) {
        const std::string name = "t" + std::to_string(t) + "-" + std::to_string(n);
        std::vector<Write> writes;
        writes.push_back(Write::Create(ConfigMap(name + "-a")));
        writes.push_back(Write::Create(ConfigMap(name + "-b")));
        auto r = store.Commit(std::move(writes));
        if (!r.ok() || r->size() != 2 || (*r)[0].name() != name + "-a") {
          ++failures;
          continue;
        }
        revisions[t].emplace_back(std::stoll((*r)[0].resource_version()),
                                  std::stoll((*r)[1].resource_version()));
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  std::set<int64_t> all;
  for (const auto& mine : revisions) {
    ASSERT_EQ(mine.size(), static_cast<size_t>(kBatches));
    for (size_t i = 0; i < mine.size(); ++i) {
      EXPECT_EQ(mine[i].second, mine[i].first + 1);             // a batch's writes are consecutive
      if (i > 0) EXPECT_GT(mine[i].first, mine[i - 1].second);  // a caller's batches in order
      all.insert(mine[i].first);
      all.insert(mine[i].second);
    }
  }
  EXPECT_EQ(all.size(), 2u * kThreads * kBatches);
  EXPECT_EQ(*all.begin(), 2);  // a new store is at revision 1
  EXPECT_EQ(*all.rbegin(), 1 + 2 * kThreads * kBatches);
  const SqliteStore::CommitStats stats = store.commit_stats();
  EXPECT_EQ(stats.batches, kThreads * kBatches);
  // Batches that arrived during another's fsync shared the next one.
  EXPECT_LT(stats.transactions, stats.batches);
  auto list = store.List({kConfigMap, "", {}});
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->items.size(), 2u * kThreads * kBatches);
}

// The size of the file at `path` (0 when it is missing).
int64_t FileSize(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

// A WAL grown past 1,000 pages is checkpointed by the store's own thread, beside the commits,
// and a WAL still growing is checkpointed by a commit once it reaches 4,000 pages: the file
// stays bounded, and everything committed is read back after the store is closed and opened.
TEST(SqliteStoreCheckpointTest, CheckpointsRunBesideTheCommitsAndKeepTheWalBounded) {
  TempDir dir;
  constexpr int kCommits = 1500;
  int64_t largest_wal = 0;
  {
    auto opened = SqliteStore::Open(dir.path());
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    SqliteStore& store = **opened;
    const std::string filler(5000, 'x');  // two pages an object, and its event
    for (int i = 0; i < kCommits; ++i) {
      Resource cm = ConfigMap("cm-" + std::to_string(i));
      cm.mutable_json()["data"]["k"] = filler;
      ASSERT_TRUE(store.Commit({Write::Create(std::move(cm))}).ok()) << i;
      largest_wal = std::max(largest_wal, FileSize(dir.path() + "/hop.db-wal"));
    }
    EXPECT_GE(store.commit_stats().background_checkpoints, 1);
  }
  // 4,000 pages and the group that crossed the line, with the WAL's headers.
  EXPECT_LT(largest_wal, 4100 * (4096 + 24));
  auto reopened = SqliteStore::Open(dir.path());
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  auto list = (*reopened)->List({kConfigMap, "", {}});
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->items.size(), static_cast<size_t>(kCommits));
}

TEST(SqliteStoreDurabilityTest, ACommitIsReportedOnlyOnceAnFsyncCoversIt) {
  TempDir dir;
  const std::string wal = dir.path() + "/hop.db-wal";
  std::atomic<int64_t> synced_bytes{-1};  // the WAL's size when the last fsync began
  SqliteStoreOptions opts;
  opts.sync_wal = [&](int fd) {
    struct stat st {};
    ::fstat(fd, &st);
    synced_bytes = st.st_size;
    return ::fdatasync(fd);
  };
  auto opened = SqliteStore::Open(dir.path(), opts);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  SqliteStore& store = **opened;
  for (int i = 0; i < 20; ++i) {
    const int64_t syncs = store.commit_stats().syncs;
    ASSERT_TRUE(store.Create(ConfigMap("c" + std::to_string(i))).ok());
    // Every byte of the WAL was written before the fsync that reported the commit began.
    EXPECT_EQ(synced_bytes.load(), FileSize(wal)) << i;
    EXPECT_EQ(store.commit_stats().syncs, syncs + 1) << i;
  }
  // A batch that writes nothing (a failed one) needs no fsync.
  const int64_t syncs = store.commit_stats().syncs;
  EXPECT_FALSE(store.Create(ConfigMap("c0")).ok());
  EXPECT_EQ(store.commit_stats().syncs, syncs);
}

TEST(SqliteStoreDurabilityTest, CommitsAreWrittenWhileAnotherIsMadeDurable) {
  TempDir dir;
  std::mutex mu;
  std::condition_variable cv;
  bool in_first_sync = false, release = false;
  int calls = 0;
  SqliteStoreOptions opts;
  opts.sync_wal = [&](int fd) {
    std::unique_lock<std::mutex> lock(mu);
    if (++calls == 1) {
      in_first_sync = true;
      cv.notify_all();
      cv.wait(lock, [&] { return release; });
    }
    return ::fdatasync(fd);
  };
  auto opened = SqliteStore::Open(dir.path(), opts);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  SqliteStore& store = **opened;
  std::atomic<bool> a_done{false}, b_done{false};
  std::thread a([&] {
    EXPECT_TRUE(store.Create(ConfigMap("a")).ok());
    a_done = true;
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return in_first_sync; }));
  }
  // While a's fsync is under way, b's commit is written: readers see it at once.
  std::thread b([&] {
    EXPECT_TRUE(store.Create(ConfigMap("b")).ok());
    b_done = true;
  });
  bool visible = false;
  for (int i = 0; i < 1000 && !visible; ++i) {
    visible = store.Get({kConfigMap, "default", "b"}).ok();
    if (!visible) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(visible);
  // Neither is reported before an fsync covers it.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(a_done.load());
  EXPECT_FALSE(b_done.load());
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_all();
  a.join();
  b.join();
  EXPECT_TRUE(a_done && b_done);
  // b's commit began after a's fsync did, so it needed one of its own.
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(store.commit_stats().transactions, 2);
}

// A batch reported once written is made durable by the store's syncer thread while its writer
// goes on: the writer neither runs nor waits for that fsync, and batches written while it runs
// share the next one.
TEST(SqliteStoreDurabilityTest, CommitWrittenIsMadeDurableByTheSyncerWhileItsWriterGoesOn) {
  TempDir dir;
  std::mutex mu;
  std::condition_variable cv;
  int calls = 0;
  bool release = false;
  std::thread::id syncing_thread;
  SqliteStoreOptions opts;
  opts.sync_wal = [&](int fd) {
    std::unique_lock<std::mutex> lock(mu);
    if (++calls == 1) {
      syncing_thread = std::this_thread::get_id();
      cv.notify_all();
      cv.wait(lock, [&] { return release; });
    }
    return ::fdatasync(fd);
  };
  auto opened = SqliteStore::Open(dir.path(), opts);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  SqliteStore& store = **opened;
  int64_t a = 0, b = 0, c = 0;
  ASSERT_TRUE(store.CommitWritten({Write::Create(ConfigMap("a"))}, &a).ok());
  EXPECT_GT(a, 0);
  {
    // Nobody waits for a, yet its fsync starts, on another thread.
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return calls == 1; }));
    EXPECT_NE(syncing_thread, std::this_thread::get_id());
  }
  // While it runs, more batches are written and visible, and their writer is not held up.
  ASSERT_TRUE(store.CommitWritten({Write::Create(ConfigMap("b"))}, &b).ok());
  ASSERT_TRUE(store.CommitWritten({Write::Create(ConfigMap("c"))}, &c).ok());
  EXPECT_GT(b, a);
  EXPECT_GT(c, b);
  EXPECT_TRUE(store.Get({kConfigMap, "default", "c"}).ok());
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(calls, 1);
    release = true;
  }
  cv.notify_all();
  EXPECT_TRUE(store.WaitDurable(a).ok());
  EXPECT_TRUE(store.WaitDurable(c).ok());
  EXPECT_TRUE(store.WaitDurable(b).ok());
  {
    // b and c, written during a's fsync, shared one more.
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(calls, 2);
  }
  // A batch that fails writes nothing and has nothing to wait for.
  int64_t again = -1;
  EXPECT_FALSE(store.CommitWritten({Write::Create(ConfigMap("a"))}, &again).ok());
  EXPECT_EQ(again, 0);
  EXPECT_TRUE(store.WaitDurable(0).ok());
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(calls, 2);
}

// A batch written lazily (CommitLazily, a status derived from other stored objects) starts no
// fsync of its own: the next fsync another commit needs covers it, or the syncer syncs it once it
// has waited a tenth of a second for one (one written while an fsync runs waits its own tenth,
// not the rest of the one before's); Sync makes it durable at once.
TEST(SqliteStoreDurabilityTest, CommitLazilyIsMadeDurableWithOthersOrWhenDue) {
  TempDir dir;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::chrono::steady_clock::time_point> syncs;
  bool release = false;  // the first fsync waits for it
  SqliteStoreOptions opts;
  opts.sync_wal = [&](int fd) {
    std::unique_lock<std::mutex> lock(mu);
    syncs.push_back(std::chrono::steady_clock::now());
    cv.notify_all();
    cv.wait(lock, [&] { return release; });
    return ::fdatasync(fd);
  };
  auto opened = SqliteStore::Open(dir.path(), opts);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  SqliteStore& store = **opened;
  auto synced = [&] {
    std::lock_guard<std::mutex> lock(mu);
    return syncs.size();
  };
  auto wait_for_syncs = [&](size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(10), [&] { return syncs.size() >= n; });
  };
  // Alone: synced, but not before it is due.
  const auto a_written = std::chrono::steady_clock::now();
  ASSERT_TRUE(store.CommitLazily({Write::Create(ConfigMap("a"))}).ok());
  EXPECT_TRUE(store.Get({kConfigMap, "default", "a"}).ok());
  ASSERT_TRUE(wait_for_syncs(1));
  // Written while a's fsync runs: due a tenth of a second from its own write.
  const auto b_written = std::chrono::steady_clock::now();
  ASSERT_TRUE(store.CommitLazily({Write::Create(ConfigMap("b"))}).ok());
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_GE(syncs[0] - a_written, std::chrono::milliseconds(100));
    release = true;
  }
  cv.notify_all();
  ASSERT_TRUE(wait_for_syncs(2));
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_GE(syncs[1] - b_written, std::chrono::milliseconds(100));
  }
  // With another commit's fsync: that one covers it, and no other follows.
  ASSERT_TRUE(store.CommitLazily({Write::Create(ConfigMap("c"))}).ok());
  int64_t d = 0;
  ASSERT_TRUE(store.CommitWritten({Write::Create(ConfigMap("d"))}, &d).ok());
  ASSERT_TRUE(store.WaitDurable(d).ok());
  EXPECT_EQ(synced(), 3u);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(synced(), 3u);
  // Sync: at once.
  ASSERT_TRUE(store.CommitLazily({Write::Create(ConfigMap("e"))}).ok());
  ASSERT_TRUE(store.Sync().ok());
  EXPECT_EQ(synced(), 4u);
  EXPECT_TRUE(store.Sync().ok());  // nothing more to sync
  EXPECT_EQ(synced(), 4u);
}

// Batches reported once written and batches reported once durable share groups: each caller
// gets its own result, and those that waited find their batch durable (under ASan, a leader that
// touched a batch whose caller had already gone would be caught here).
TEST(SqliteStoreDurabilityTest, WrittenAndDurableBatchesShareGroups) {
  TempDir dir;
  auto opened = SqliteStore::Open(dir.path());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  SqliteStore& store = **opened;
  constexpr int kThreads = 6;
  constexpr int kBatches = 40;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int n = 0; n < kBatches; ++n) {
        const std::string name = "t" + std::to_string(t) + "-" + std::to_string(n);
        if (t % 2 == 0) {
          int64_t mark = 0;
          auto r = store.CommitWritten({Write::Create(ConfigMap(name))}, &mark);
          if (!r.ok() || r->size() != 1 || mark <= 0 || !store.WaitDurable(mark).ok()) {
            ++failures;
          }
        } else if (!store.Create(ConfigMap(name)).ok()) {
          ++failures;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(store.List({kConfigMap, "", {}})->items.size(), size_t{kThreads * kBatches});
  EXPECT_EQ(store.commit_stats().batches, kThreads * kBatches);
}

TEST(SqliteStoreDurabilityTest, AFailedFsyncFailsItsCommitsAndEveryLaterOne) {
  TempDir dir;
  std::atomic<int> calls{0};
  SqliteStoreOptions opts;
  opts.sync_wal = [&](int fd) {
    if (++calls == 3) {
      errno = EIO;
      return -1;
    }
    return ::fdatasync(fd);
  };
  auto opened = SqliteStore::Open(dir.path(), opts);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  SqliteStore& store = **opened;
  ASSERT_TRUE(store.Create(ConfigMap("a")).ok());
  ASSERT_TRUE(store.Create(ConfigMap("b")).ok());
  auto c = store.Create(ConfigMap("c"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(c.status().message().find("cannot make the store's writes durable"),
            std::string::npos)
      << c.status().ToString();
  EXPECT_NE(c.status().message().find("Input/output error"), std::string::npos);
  // The kernel may have dropped what the failed fsync did not write: nothing later can be
  // counted durable, though the next fsync would succeed.
  auto d = store.Create(ConfigMap("d"));
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(calls.load(), 3);
}

// Store::Health (docs/store.md, "Health"): after a failed fsync the store says so, and a later
// batch is not written at all, not even where readers would see it.
TEST(SqliteStoreHealthTest, AFailedFsyncMakesTheStoreUnhealthyAndItWritesNothingMore) {
  TempDir dir;
  std::atomic<bool> fail{false};
  SqliteStoreOptions opts;
  opts.sync_wal = [&](int fd) {
    if (fail) {
      errno = EIO;
      return -1;
    }
    return ::fdatasync(fd);
  };
  auto opened = SqliteStore::Open(dir.path(), opts);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  SqliteStore& store = **opened;
  ASSERT_TRUE(store.Create(ConfigMap("a")).ok());
  EXPECT_TRUE(store.Health().ok()) << store.Health().ToString();
  fail = true;
  ASSERT_FALSE(store.Create(ConfigMap("b")).ok());
  const Status health = store.Health();
  EXPECT_EQ(health.code(), StatusCode::kUnavailable);
  EXPECT_NE(health.message().find("cannot make the store's writes durable"), std::string::npos)
      << health.ToString();
  EXPECT_NE(health.message().find(store.path()), std::string::npos) << health.ToString();
  auto c = store.Create(ConfigMap("c"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().ToString(), health.ToString());
  EXPECT_EQ(store.Get({kConfigMap, "default", "c"}).status().code(), StatusCode::kNotFound);
}

// A store whose state directory was removed under it, or whose file another took the place of,
// would write where no one opening the store again looks: it is unhealthy, says which, and
// takes no batch; the store opened again (on a new, empty file) is healthy.
TEST(SqliteStoreHealthTest, AStoreWhoseFileIsGoneOrReplacedIsUnhealthy) {
  TempDir parent;
  const std::string state = parent.path() + "/state";
  {
    auto opened = SqliteStore::Open(state);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    SqliteStore& store = **opened;
    ASSERT_TRUE(store.Create(ConfigMap("a")).ok());
    EXPECT_TRUE(store.Health().ok()) << store.Health().ToString();
    std::filesystem::remove_all(state);
    const Status health = store.Health();
    EXPECT_EQ(health.code(), StatusCode::kUnavailable);
    EXPECT_NE(health.message().find(state + "/hop.db was removed"), std::string::npos)
        << health.ToString();
    auto b = store.Create(ConfigMap("b"));
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(b.status().ToString(), health.ToString());
  }
  auto again = SqliteStore::Open(state);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE((*again)->Health().ok()) << (*again)->Health().ToString();
  ASSERT_TRUE((*again)->Create(ConfigMap("c")).ok());
  // A copy renamed over the file: same name, another file.
  const std::string file = state + "/hop.db";
  std::filesystem::copy_file(file, file + ".copy");
  ASSERT_EQ(::rename((file + ".copy").c_str(), file.c_str()), 0);
  const Status replaced = (*again)->Health();
  EXPECT_EQ(replaced.code(), StatusCode::kUnavailable);
  EXPECT_NE(replaced.message().find("is no longer the file this process opened"), std::string::npos)
      << replaced.ToString();
  EXPECT_FALSE((*again)->Create(ConfigMap("d")).ok());
}

Resource BigConfigMap(const std::string& name) {
  Resource r = ConfigMap(name);
  r.mutable_json()["data"]["k"] = std::string(512 * 1024, 'v');
  return r;
}

// A store whose writes fail because its file system is full is not writable (Store::Writable)
// though healthy (it loses nothing: the commit that failed was rolled back whole): until a
// commit succeeds, or, looked at once a second, there is room in the state directory again.
// The disk is a small tmpfs filled to the last byte.
TEST(SqliteStoreHealthTest, AStoreWhoseDiskIsFullIsNotWritableUntilThereIsRoomAgain) {
  TempDir parent;
  hop::testing::SmallFileSystem disk(parent.path() + "/disk", "4m");
  ASSERT_TRUE(disk.mounted()) << disk.why() << " (the tests run as root)";
  const std::string state = parent.path() + "/disk/state";
  auto opened = SqliteStore::Open(state);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  SqliteStore& store = **opened;
  ASSERT_TRUE(store.Create(ConfigMap("a")).ok());
  EXPECT_TRUE(store.Writable().ok()) << store.Writable().ToString();

  disk.Fill();
  auto full = store.Create(BigConfigMap("b"));
  ASSERT_FALSE(full.ok());
  EXPECT_NE(full.status().message().find("the state directory " + state +
                                         " has no space left (the disk is full)"),
            std::string::npos)
      << full.status().ToString();
  Status writable = store.Writable();
  EXPECT_EQ(writable.code(), StatusCode::kUnavailable);
  EXPECT_EQ(writable.ToString(), full.status().ToString());
  // Nothing was lost, so the store is healthy, and it goes on trying writes.
  EXPECT_TRUE(store.Health().ok()) << store.Health().ToString();
  EXPECT_FALSE(store.Create(BigConfigMap("c")).ok());
  // Still full when it looks again.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_FALSE(store.Writable().ok());

  // Room again: it says so by itself, at its next look, without a write.
  disk.Empty();
  const auto freed = std::chrono::steady_clock::now();
  while (!store.Writable().ok() &&
         std::chrono::steady_clock::now() - freed < std::chrono::seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(store.Writable().ok()) << store.Writable().ToString();
  ASSERT_TRUE(store.Create(BigConfigMap("d")).ok());

  // Full again, then a write that succeeds makes it writable at once, before any look.
  disk.Fill();
  ASSERT_FALSE(store.Create(BigConfigMap("e")).ok());
  EXPECT_FALSE(store.Writable().ok());
  disk.Empty();
  ASSERT_TRUE(store.Create(ConfigMap("f")).ok());
  EXPECT_TRUE(store.Writable().ok()) << store.Writable().ToString();
  EXPECT_TRUE(store.Get({kConfigMap, "default", "d"}).ok());
  EXPECT_EQ(store.Get({kConfigMap, "default", "e"}).status().code(), StatusCode::kNotFound);
}

// The words for an error of the store's file that is the fault of where it is kept: they name
// the state directory and what is wrong with it (read-only, full), whichever code and errno
// SQLite reports it with; other errors get none.
TEST(SqliteStorageProblemTest, NamesTheStateDirectoryAndWhatIsWrongWithIt) {
  struct Case {
    const char* name;
    int code;
    int system_errno;
    const char* want;  // "" for no words
  };
  const Case kCases[] = {
      {"a full database", SQLITE_FULL, 0, "/s/state has no space left (the disk is full)"},
      {"a write that found no space", SQLITE_IOERR_WRITE, ENOSPC,
       "/s/state has no space left (the disk is full)"},
      {"the shared memory file that could not grow", SQLITE_IOERR_SHMSIZE, ENOSPC,
       "/s/state has no space left (the disk is full)"},
      {"a quota used up", SQLITE_IOERR_WRITE, EDQUOT,
       "/s/state has no space left (the disk quota is used up)"},
      {"a journal it cannot create", SQLITE_READONLY_DIRECTORY, 0,
       "the state directory /s/state is read-only to this user"},
      {"a read-only database", SQLITE_READONLY, EACCES,
       "the state directory /s/state is read-only to this user"},
      {"a file it may not open", SQLITE_CANTOPEN, EACCES,
       "the state directory /s/state is read-only to this user"},
      {"a read-only file system", SQLITE_READONLY, EROFS,
       "the state directory /s/state is on a read-only file system"},
      {"a write to a read-only file system", SQLITE_IOERR_WRITE, EROFS,
       "the state directory /s/state is on a read-only file system"},
      {"a failing disk", SQLITE_IOERR_READ, EIO, "the device of the state directory /s/state"},
      {"a busy file", SQLITE_BUSY, 0, ""},
      {"a constraint", SQLITE_CONSTRAINT_UNIQUE, 0, ""},
      {"a missing file", SQLITE_CANTOPEN, ENOENT, ""},
  };
  for (const Case& c : kCases) {
    const std::string words = sqlite::StorageProblem(c.code, c.system_errno, "/s/state/hop.db");
    if (std::string(c.want).empty()) {
      EXPECT_EQ(words, "") << c.name;
    } else {
      EXPECT_NE(words.find(c.want), std::string::npos) << c.name << ": " << words;
      // ... and what to do.
      EXPECT_TRUE(words.find("another state directory") != std::string::npos ||
                  words.find("backup") != std::string::npos)
          << c.name << ": " << words;
    }
  }
}

TEST_F(SqliteStoreTest, WatchesOfDifferentKindsEachGetTheirEventsFromSharedReads) {
  auto maps = store_->StartWatch({kConfigMap, "", 0});
  auto dbs = store_->StartWatch({kDatabase, "", 0});
  auto ns2 = store_->StartWatch({std::nullopt, "ns2", 0});
  auto all = store_->StartWatch({std::nullopt, "", 0});
  // More events than one read takes (512), of both kinds and two namespaces.
  std::vector<std::string> want_maps, want_dbs, want_ns2, want_all;
  for (int i = 0; i < 700; ++i) {
    const std::string name = "o" + std::to_string(i);
    Resource r = i % 3 == 0 ? Database(name) : ConfigMap(name, i % 2 ? "ns1" : "ns2");
    Resource made = MustCreate(r);
    const std::string id = name + "@" + made.resource_version();
    (i % 3 == 0 ? want_dbs : want_maps).push_back(id);
    if (made.namespace_name() == "ns2") want_ns2.push_back(id);
    want_all.push_back(id);
    if (i == 350) {
      // One of them reads half way, the others later: they fall out of step and back.
      Event e;
      ASSERT_EQ(dbs->Next(std::chrono::seconds(5), &e), Watch::Outcome::kEvent);
      EXPECT_EQ(e.object.name(), "o0");
    }
  }
  want_dbs.erase(want_dbs.begin());
  auto names = [](Watch* w, size_t n) {
    std::vector<std::string> out;
    Event e;
    while (out.size() < n && w->Next(std::chrono::seconds(5), &e) == Watch::Outcome::kEvent) {
      out.push_back(e.object.name() + "@" + std::to_string(e.revision));
    }
    // Nothing more, nothing twice.
    EXPECT_EQ(w->Next(std::chrono::milliseconds(20), &e), Watch::Outcome::kTimeout);
    return out;
  };
  EXPECT_EQ(names(all.get(), want_all.size()), want_all);
  EXPECT_EQ(names(maps.get(), want_maps.size()), want_maps);
  EXPECT_EQ(names(ns2.get(), want_ns2.size()), want_ns2);
  EXPECT_EQ(names(dbs.get(), want_dbs.size()), want_dbs);
  // A watch from an older revision reads for itself.
  auto late = store_->StartWatch({kDatabase, "", 0});
  std::vector<std::string> every_db = want_dbs;
  every_db.insert(every_db.begin(), "o0@2");  // a new store is at revision 1
  EXPECT_EQ(names(late.get(), every_db.size()), every_db);
}

// A write that wakes no watch (another program writing hop.db) is still seen, at the next safety
// poll, however sure the last read was that nothing was new.
TEST(SqliteStorePollTest, AWriteThatWakesNoOneIsSeenAtTheNextPoll) {
  TempDir dir;
  const SqliteStoreOptions opts = PollingEvery(std::chrono::milliseconds(50));
  auto store = SqliteStore::Open(dir.path(), opts);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->Create(ConfigMap("a")).ok());  // revision 2: a new store is at 1
  auto w = (*store)->StartWatch({kConfigMap, "", 2});
  Event e;
  ASSERT_EQ(w->Next(std::chrono::milliseconds(10), &e), Watch::Outcome::kTimeout);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir.path() + "/hop.db").c_str(), &db), SQLITE_OK);
  const char* sql =
      "BEGIN IMMEDIATE; UPDATE meta SET value = 3 WHERE key = 'revision'; "
      "INSERT INTO events VALUES (3, 0, '', 'ConfigMap', 'default', 'quiet', "
      "'{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"quiet\","
      "\"namespace\":\"default\",\"resourceVersion\":\"3\"}}'); COMMIT;";
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  ASSERT_EQ(w->Next(std::chrono::seconds(10), &e), Watch::Outcome::kEvent);
  EXPECT_EQ(e.object.name(), "quiet");
  EXPECT_EQ(e.revision, 3);
}

TEST(SqliteStoreWalTest, ADurableCommitMarksTheWalWhoseDirectoryEntryItSynced) {
  TempDir dir;
  const std::string marker = dir.path() + "/hop.db-wal-durable";
  {
    SqliteStoreOptions fast;
    fast.durable = false;
    auto store = SqliteStore::Open(dir.path(), fast);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->Create(ConfigMap("a")).ok());
    // Nothing synced the WAL, so nothing is known of its directory entry.
    EXPECT_FALSE(std::filesystem::exists(marker));
  }
  auto read_marker = [&] {
    std::ifstream in(marker);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text;
  };
  auto wal_inode = [&] {
    struct stat st {};
    return ::stat((dir.path() + "/hop.db-wal").c_str(), &st) == 0 ? std::to_string(st.st_ino)
                                                                  : std::string("none");
  };
  std::string first;
  {
    auto store = SqliteStore::Open(dir.path());
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->Create(ConfigMap("b")).ok());
    first = read_marker();
    // "<device> <inode> <birth time>" of the WAL the commit synced.
    EXPECT_NE(first.find(" " + wal_inode() + " "), std::string::npos) << first;
    struct stat st {};
    ASSERT_EQ(::stat(marker.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    // A second connection finds it (its open skips SQLite's directory fsync) and commits.
    auto second = SqliteStore::Open(dir.path());
    ASSERT_TRUE(second.ok());
    ASSERT_TRUE((*second)->Create(ConfigMap("c")).ok());
    EXPECT_EQ(read_marker(), first);
  }
  // The last connection closed: its WAL is gone, and the marker names no file. The next WAL is
  // a new file, opened the usual way (its directory synced), then marked.
  EXPECT_EQ(wal_inode(), "none");
  auto store = SqliteStore::Open(dir.path());
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->Create(ConfigMap("d")).ok());
  const std::string next = read_marker();
  EXPECT_NE(next, first);
  EXPECT_NE(next.find(" " + wal_inode() + " "), std::string::npos) << next;
  EXPECT_EQ((*store)->List({kConfigMap, "", {}})->items.size(), 4u);
}

TEST_F(SqliteStoreTest, ListsByKindNamespaceAndSelector) {
  auto labelled = [](Resource r, std::map<std::string, std::string> labels) {
    for (const auto& [k, v] : labels) r.set_label(k, v);
    return r;
  };
  MustCreate(labelled(ConfigMap("a", "ns1"), {{"app", "web"}, {"tier", "front"}}));
  MustCreate(labelled(ConfigMap("b", "ns1"), {{"app", "web"}, {"tier", "back"}}));
  MustCreate(labelled(ConfigMap("c", "ns2"), {{"app", "db"}}));
  MustCreate(ConfigMap("d", "ns2"));
  MustCreate(labelled(Database("e"), {{"app", "web"}}));

  struct Case {
    const char* name;
    std::optional<GroupKind> kind;
    std::string ns;
    std::string selector;
    std::vector<std::string> want;
  };
  const Case kCases[] = {
      {"all", std::nullopt, "", "", {"a", "b", "c", "d", "e"}},
      {"kind", kConfigMap, "", "", {"a", "b", "c", "d"}},
      {"namespace", kConfigMap, "ns1", "", {"a", "b"}},
      {"equals", std::nullopt, "", "app=web", {"a", "b", "e"}},
      {"not equals", kConfigMap, "", "app!=web", {"c", "d"}},
      {"in", kConfigMap, "", "tier in (front,back)", {"a", "b"}},
      {"notin", kConfigMap, "", "tier notin (front)", {"b", "c", "d"}},
      {"exists", kConfigMap, "", "tier", {"a", "b"}},
      {"not exists", kConfigMap, "", "!app", {"d"}},
      {"and", kConfigMap, "", "app=web,tier=back", {"b"}},
      {"none", kConfigMap, "", "app=nothing", {}},
  };
  for (const auto& c : kCases) {
    ListOptions opts;
    opts.kind = c.kind;
    opts.namespace_name = c.ns;
    auto sel = resource::LabelSelector::Parse(c.selector);
    ASSERT_TRUE(sel.ok()) << c.name;
    opts.selector = *sel;
    auto r = store_->List(opts);
    ASSERT_TRUE(r.ok()) << c.name << ": " << r.status().ToString();
    std::vector<std::string> names;
    for (const auto& item : r->items) names.push_back(item.name());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, c.want) << c.name;
    EXPECT_EQ(r->revision, 6) << c.name;  // five writes to a new store, at revision 1
  }
}

Resource View(const std::string& name, const std::string& schema, const std::string& view) {
  Resource r(Json::parse(R"({"apiVersion": "hoptimator.linkedin.com/v1alpha1", "kind": "View",
                             "metadata": {}, "spec": {"sql": "SELECT 1"}})"));
  r.set_name(name);
  r.set_namespace("default");
  if (!schema.empty()) r.mutable_json()["spec"]["schema"] = schema;
  if (!view.empty()) r.mutable_json()["spec"]["view"] = view;
  return r;
}

const GroupKind kView{"hoptimator.linkedin.com", "View"};

std::vector<std::string> NamesWithKey(Store& store, const std::string& key) {
  ListOptions opts(kView, "default");
  opts.index_key = key;
  auto r = store.List(opts);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> names;
  if (r.ok()) {
    for (const auto& item : r->items) names.push_back(item.name());
  }
  return names;
}

// A list by index key finds exactly the objects whose kind gives them that key, as they are now:
// keys follow updates and go with deletions.
TEST_F(SqliteStoreTest, ListEachVisitsWhatListReturnsInItsOrder) {
  MustCreate(View("zeta", "ADS", "ZETA"));
  MustCreate(View("alpha", "ADS", "ALPHA"));
  Resource labelled = View("mid", "ADS", "MID");
  labelled.set_label("app", "web");
  MustCreate(labelled);
  for (const ListOptions& opts :
       {ListOptions(kView, "default", {}, {}),
        ListOptions(kView, "default", *resource::LabelSelector::Parse("app=web"), {})}) {
    auto listed = store_->List(opts);
    ASSERT_TRUE(listed.ok());
    std::vector<std::string> expected, visited;
    for (const Resource& r : listed->items) expected.push_back(r.name());
    auto revision = store_->ListEach(opts, [&](Resource r) { visited.push_back(r.name()); });
    ASSERT_TRUE(revision.ok());
    EXPECT_EQ(visited, expected);
    EXPECT_EQ(*revision, listed->revision);
  }
  std::vector<std::string> all;
  ASSERT_TRUE(
      store_->ListEach({kView, "default", {}, {}}, [&](Resource r) { all.push_back(r.name()); })
          .ok());
  EXPECT_EQ(all, (std::vector<std::string>{"alpha", "mid", "zeta"}));
}

TEST_F(SqliteStoreTest, ListsByIndexKey) {
  using resource::ViewKind;
  MustCreate(View("ads-audience", "ADS", "AUDIENCE"));
  MustCreate(View("ads-other", "ADS", "OTHER"));
  MustCreate(View("plain", "", "PLAIN"));  // in DEFAULT
  EXPECT_EQ(NamesWithKey(*store_, ViewKind::NameKey("", "ADS", "AUDIENCE")),
            std::vector<std::string>{"ads-audience"});
  EXPECT_EQ(NamesWithKey(*store_, ViewKind::SchemaKey("", "ADS")),
            (std::vector<std::string>{"ads-audience", "ads-other"}));
  EXPECT_EQ(NamesWithKey(*store_, ViewKind::NameKey("", "DEFAULT", "PLAIN")),
            std::vector<std::string>{"plain"});
  EXPECT_TRUE(NamesWithKey(*store_, ViewKind::NameKey("", "ADS", "audience")).empty());
  // An index key with a label selector: both hold.
  {
    Resource labelled = View("ads-labelled", "ADS", "LABELLED");
    labelled.set_label("app", "web");
    MustCreate(labelled);
    ListOptions opts(kView, "default", *resource::LabelSelector::Parse("app=web"),
                     ViewKind::SchemaKey("", "ADS"));
    auto r = store_->List(opts);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->items.size(), 1u);
    EXPECT_EQ(r->items[0].name(), "ads-labelled");
  }
  auto got = store_->Get({kView, "default", "ads-other"});
  ASSERT_TRUE(got.ok());
  got->mutable_json()["spec"]["view"] = "RENAMED";
  ASSERT_TRUE(store_->Update(*got).ok());
  EXPECT_TRUE(NamesWithKey(*store_, ViewKind::NameKey("", "ADS", "OTHER")).empty());
  EXPECT_EQ(NamesWithKey(*store_, ViewKind::NameKey("", "ADS", "RENAMED")),
            std::vector<std::string>{"ads-other"});
  ASSERT_TRUE(store_->Delete({kView, "default", "ads-audience"}).ok());
  EXPECT_TRUE(NamesWithKey(*store_, ViewKind::NameKey("", "ADS", "AUDIENCE")).empty());
  // A key may read the status: a View with one may be busy, a plain one not.
  const std::string busy(resource::kMayBeBusyKey);
  EXPECT_TRUE(NamesWithKey(*store_, busy).empty());
  auto with_status = store_->Get({kView, "default", "plain"});
  ASSERT_TRUE(with_status.ok());
  with_status->set_status(Json{{"pendingFires", Json::array({"2026-01-01T00:00:00Z"})}});
  ASSERT_TRUE(store_->UpdateStatus(*with_status).ok());
  EXPECT_EQ(NamesWithKey(*store_, busy), std::vector<std::string>{"plain"});
  with_status = store_->Get({kView, "default", "plain"});
  with_status->set_status(Json::object());
  ASSERT_TRUE(store_->UpdateStatus(*with_status).ok());
  EXPECT_TRUE(NamesWithKey(*store_, busy).empty());
  // A Job is listed as unfinished until a Complete or Failed condition holds.
  Resource job(Json::parse(R"({"apiVersion": "batch/v1", "kind": "Job",
                               "metadata": {"name": "run", "namespace": "default"}, "spec": {}})"));
  MustCreate(job);
  ListOptions unfinished(GroupKind{"batch", "Job"}, "default");
  unfinished.index_key = std::string(resource::kUnfinishedJobKey);
  ASSERT_EQ(store_->List(unfinished)->items.size(), 1u);
  auto running = store_->Get({{"batch", "Job"}, "default", "run"});
  ASSERT_TRUE(running.ok());
  running->set_status(Json::parse(R"({"conditions": [{"type": "Complete", "status": "False"}]})"));
  ASSERT_TRUE(store_->UpdateStatus(*running).ok());
  EXPECT_EQ(store_->List(unfinished)->items.size(), 1u);
  running = store_->Get({{"batch", "Job"}, "default", "run"});
  running->set_status(Json::parse(R"({"conditions": [{"type": "Complete", "status": "True"}]})"));
  ASSERT_TRUE(store_->UpdateStatus(*running).ok());
  EXPECT_TRUE(store_->List(unfinished)->items.empty());
  // A kind without keys has none to list by.
  ListOptions maps(kConfigMap, "");
  maps.index_key = ViewKind::SchemaKey("", "ADS");
  MustCreate(ConfigMap("cm", "default"));
  ASSERT_TRUE(store_->List(maps).ok());
  EXPECT_TRUE(store_->List(maps)->items.empty());
}

TEST_F(SqliteStoreTest, WatchDeliversOrderedEventsFromARevision) {
  MustCreate(Database("a"));  // revision 2 (a new store is at 1)
  auto all = store_->StartWatch({std::nullopt, "", 2});
  auto dbs = store_->StartWatch({kDatabase, "", 0});
  MustCreate(ConfigMap("cm"));             // 3
  Resource b = MustCreate(Database("b"));  // 4
  DatabaseKind::kSchema.Set(b, "X");
  ASSERT_TRUE(store_->Update(b).ok());                     // 5
  ASSERT_TRUE(store_->Delete({kDatabase, "", "a"}).ok());  // 6

  using T = EventType;
  EXPECT_EQ(
      Drain(all.get(), 4),
      (std::vector<std::pair<T, std::string>>{
          {T::kAdded, "cm@3"}, {T::kAdded, "b@4"}, {T::kModified, "b@5"}, {T::kDeleted, "a@6"}}));
  EXPECT_EQ(
      Drain(dbs.get(), 4),
      (std::vector<std::pair<T, std::string>>{
          {T::kAdded, "a@2"}, {T::kAdded, "b@4"}, {T::kModified, "b@5"}, {T::kDeleted, "a@6"}}));
  Event e;
  EXPECT_EQ(all->Next(std::chrono::milliseconds(20), &e), Watch::Outcome::kTimeout);
}

TEST_F(SqliteStoreTest, WatchWakesOnWritesAndClose) {
  auto w = store_->StartWatch({std::nullopt, "", 0});
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    MustCreate(Database("late"));
  });
  Event e;
  EXPECT_EQ(w->Next(std::chrono::seconds(10), &e), Watch::Outcome::kEvent);
  EXPECT_EQ(e.object.name(), "late");
  writer.join();

  std::thread closer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    w->Close();
  });
  EXPECT_EQ(w->Next(std::chrono::seconds(10), &e), Watch::Outcome::kClosed);
  closer.join();

  // A watch that outlives its store reports kClosed.
  auto orphan = store_->StartWatch({std::nullopt, "", 0});
  store_.reset();
  EXPECT_EQ(orphan->Next(std::chrono::milliseconds(10), &e), Watch::Outcome::kClosed);
}

// Watches blocked in Next at once, two of one kind, one of another and one of every kind, with
// polls too long to mask a lost wake-up: a write wakes one of the watches at its cursor, which
// reads for all of them and wakes those it found events for (docs/store.md, "Watches"). Each
// watch gets each of its events well within a second.
TEST(SqliteStoreWakeTest, EveryWaitingWatchHearsOfItsEventsAtOnce) {
  TempDir dir;
  const SqliteStoreOptions opts = PollingEvery(std::chrono::seconds(10));
  auto store = SqliteStore::Open(dir.path(), opts);
  ASSERT_TRUE(store.ok());
  auto now = [] { return std::chrono::steady_clock::now(); };
  std::mutex mu;
  std::map<std::string, std::chrono::steady_clock::time_point> written;  // guarded by mu
  struct Watcher {
    std::unique_ptr<Watch> watch;
    size_t expected;
    std::vector<std::string> names;
    std::chrono::steady_clock::duration slowest{0};
  };
  constexpr int kRounds = 20;
  std::vector<Watcher> watchers;
  watchers.push_back({(*store)->StartWatch({kConfigMap, "", 0}), kRounds});
  watchers.push_back({(*store)->StartWatch({kConfigMap, "", 0}), kRounds});
  watchers.push_back({(*store)->StartWatch({kDatabase, "", 0}), kRounds / 2});
  watchers.push_back({(*store)->StartWatch({std::nullopt, "", 0}), kRounds * 3 / 2});
  std::vector<std::thread> threads;
  for (Watcher& w : watchers) {
    threads.emplace_back([&] {
      Event e;
      while (w.names.size() < w.expected &&
             w.watch->Next(std::chrono::seconds(30), &e) == Watch::Outcome::kEvent) {
        const auto seen = now();
        std::lock_guard<std::mutex> lock(mu);
        w.names.push_back(e.object.name());
        w.slowest = std::max(w.slowest, seen - written[e.object.name()]);
      }
    });
  }
  auto create = [&](const Resource& r) {
    {
      std::lock_guard<std::mutex> lock(mu);
      written[r.name()] = now();
    }
    ASSERT_TRUE((*store)->Create(r).ok());
  };
  for (int i = 0; i < kRounds; ++i) {
    // The watches are waiting again before the next write.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    create(ConfigMap("cm" + std::to_string(i)));
    if (i % 2 == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      create(Database("db" + std::to_string(i)));
    }
  }
  for (std::thread& t : threads) t.join();
  for (const Watcher& w : watchers) {
    EXPECT_EQ(w.names.size(), w.expected);
    EXPECT_LT(w.slowest, std::chrono::seconds(1));
  }
}

// A store's own commits touch the wake file with its token, and its listener leaves its
// watches alone; another store's commit on the same directory (another writer, as another
// process would be) wakes them at once, and the watch sees it well before the safety poll
// (docs/store.md, "Watches across processes").
TEST(SqliteStoreWakeTest, OwnTouchesWakeNoOneAndOtherWritersDo) {
  TempDir dir;
  const SqliteStoreOptions opts = PollingEvery(std::chrono::seconds(30));
  auto mine = SqliteStore::Open(dir.path(), opts);
  auto other = SqliteStore::Open(dir.path(), opts);
  ASSERT_TRUE(mine.ok() && other.ok());
  auto watch = (*mine)->StartWatch({kConfigMap, "", 0});
  Event e;
  // A watch that waits starts the listener.
  ASSERT_EQ(watch->Next(std::chrono::milliseconds(10), &e), Watch::Outcome::kTimeout);
  // The first commit creates the wake file, which wakes the watches as any new wake file does.
  ASSERT_TRUE((*mine)->Create(ConfigMap("first")).ok());
  ASSERT_EQ(watch->Next(std::chrono::seconds(5), &e), Watch::Outcome::kEvent);
  // The listener has seen each touch once its count holds still for a while (inotify reports a
  // touch within microseconds, but a loaded machine may run the listener's thread late).
  const auto settled = [&] {
    int64_t last = (*mine)->commit_stats().wakes_from_others;
    auto still_since = std::chrono::steady_clock::now();
    const auto give_up = still_since + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() - still_since < std::chrono::milliseconds(300) &&
           std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      const int64_t now = (*mine)->commit_stats().wakes_from_others;
      if (now != last) {
        last = now;
        still_since = std::chrono::steady_clock::now();
      }
    }
    return last;
  };
  const int64_t created = settled();
  EXPECT_LE(created, 1);
  constexpr int kOwn = 20;
  for (int i = 0; i < kOwn; ++i) {
    ASSERT_TRUE((*mine)->Create(ConfigMap("own" + std::to_string(i))).ok());
    ASSERT_EQ(watch->Next(std::chrono::seconds(5), &e), Watch::Outcome::kEvent);
    EXPECT_EQ(e.object.name(), "own" + std::to_string(i));
  }
  EXPECT_EQ(settled(), created);

  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE((*other)->Create(ConfigMap("theirs")).ok());
  ASSERT_EQ(watch->Next(std::chrono::seconds(20), &e), Watch::Outcome::kEvent);
  EXPECT_EQ(e.object.name(), "theirs");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_GE((*mine)->commit_stats().wakes_from_others, 1);

  // A touch by a writer that sets no token (an older hop) wakes them too.
  const int64_t before = (*mine)->commit_stats().wakes_from_others;
  const int fd = ::open((dir.path() + "/hop.db-wake").c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::futimens(fd, nullptr), 0);
  ::close(fd);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while ((*mine)->commit_stats().wakes_from_others == before &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GT((*mine)->commit_stats().wakes_from_others, before);
}

// A connection that finds the write lock held (another process's commit under way) waits for
// it, and fails busy only once its limit has passed (sqlite.cc, WaitBriefly).
TEST(SqliteWaitWhenBusyTest, WaitsForTheLockAndGivesUpAfterItsLimit) {
  using std::chrono::milliseconds;
  using std::chrono::steady_clock;
  TempDir dir;
  const std::string path = dir.path() + "/busy.db";
  auto holder = sqlite::Database::Open(path);
  auto waiter = sqlite::Database::Open(path);
  ASSERT_TRUE(holder.ok() && waiter.ok());
  ASSERT_TRUE(holder->Exec("PRAGMA journal_mode=WAL; CREATE TABLE t (x)").ok());
  waiter->WaitWhenBusy(milliseconds(300));

  // Held for longer than the limit: busy, once the limit has passed.
  ASSERT_TRUE(holder->Exec("BEGIN IMMEDIATE").ok());
  auto start = steady_clock::now();
  const Status busy = waiter->Exec("BEGIN IMMEDIATE");
  auto waited = steady_clock::now() - start;
  EXPECT_EQ(busy.code(), StatusCode::kUnavailable) << busy.ToString();
  EXPECT_GE(waited, milliseconds(300));
  EXPECT_LT(waited, std::chrono::seconds(10));

  // Released within the limit: the waiter takes it.
  start = steady_clock::now();
  std::thread release([&] {
    std::this_thread::sleep_for(milliseconds(50));
    ASSERT_TRUE(holder->Exec("COMMIT").ok());
  });
  const Status taken = waiter->Exec("BEGIN IMMEDIATE");
  waited = steady_clock::now() - start;
  release.join();
  EXPECT_TRUE(taken.ok()) << taken.ToString();
  EXPECT_GE(waited, milliseconds(50));
  EXPECT_TRUE(waiter->Exec("INSERT INTO t VALUES (1); COMMIT").ok());
}

TEST(SqliteStoreRetentionTest, OldRevisionsAreTooOld) {
  TempDir dir;
  SqliteStoreOptions opts;
  opts.durable = false;
  opts.retained_events = 100;
  auto store = SqliteStore::Open(dir.path(), opts);
  ASSERT_TRUE(store.ok());
  for (int i = 0; i < 600; ++i) {
    ASSERT_TRUE((*store)->Create(ConfigMap("cm" + std::to_string(i))).ok());
  }
  Event e;
  auto old = (*store)->StartWatch({std::nullopt, "", 5});
  EXPECT_EQ(old->Next(std::chrono::milliseconds(10), &e), Watch::Outcome::kTooOld);
  auto recent = (*store)->StartWatch({std::nullopt, "", 590});
  EXPECT_EQ(recent->Next(std::chrono::milliseconds(10), &e), Watch::Outcome::kEvent);
  EXPECT_EQ(e.revision, 591);
}

TEST(SqliteStoreFormatTest, ReopensAndRefusesNewerFormats) {
  TempDir dir;
  {
    auto store = SqliteStore::Open(dir.path());
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->Create(Database("kept")).ok());
  }
  {
    auto store = SqliteStore::Open(dir.path());
    ASSERT_TRUE(store.ok());
    EXPECT_TRUE((*store)->Get({kDatabase, "default", "kept"}).ok());
    EXPECT_EQ(*(*store)->Revision(), 2);  // one write to a new store, at revision 1
  }
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir.path() + "/hop.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  auto newer = SqliteStore::Open(dir.path());
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.status().message().find("format 99, newer than this hop understands"),
            std::string::npos)
      << newer.status().ToString();
}

// A store of format 1 (before index keys) is migrated, and its objects get their keys; so does a
// store whose keys another version of the key functions computed.
TEST(SqliteStoreFormatTest, MigratingComputesTheIndexKeysOfEveryObject) {
  TempDir dir;
  {
    auto store = SqliteStore::Open(dir.path());
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->Create(View("ads-audience", "ADS", "AUDIENCE")).ok());
  }
  auto run = [&](const char* sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir.path() + "/hop.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
  };
  const std::string key = resource::ViewKind::NameKey("", "ADS", "AUDIENCE");
  // Back to format 1, as an older hop left it.
  run("DROP TABLE object_keys; DELETE FROM meta WHERE key = 'keys'; PRAGMA user_version=1");
  {
    auto store = SqliteStore::Open(dir.path());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    EXPECT_EQ(NamesWithKey(**store, key), std::vector<std::string>{"ads-audience"});
  }
  // Keys of another version (here: none, and a stale one) are computed again.
  run("DELETE FROM object_keys; INSERT INTO object_keys SELECT 'stale', id FROM objects; "
      "UPDATE meta SET value = 0 WHERE key = 'keys'");
  auto store = SqliteStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(NamesWithKey(**store, key), std::vector<std::string>{"ads-audience"});
  EXPECT_TRUE(NamesWithKey(**store, "stale").empty());
}

// A file that exists is used only if it is a hop store: anything else is refused with a message
// naming the file and the remedy, and is left as it was.
TEST(SqliteStoreFormatTest, RefusesFilesThatAreNotHopStores) {
  struct Case {
    const char* name;
    std::function<void(const std::string& file)> make;
    const char* expected;  // part of the message, after the file's path
  };
  const auto write = [](const std::string& file, const std::string& bytes) {
    std::ofstream(file, std::ios::binary) << bytes;
  };
  const auto sql = [](const std::string& file, const char* statements) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, statements, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  };
  const Case kCases[] = {
      {"zero bytes", [&](const std::string& f) { write(f, ""); }, " is empty (0 bytes)"},
      {"text", [&](const std::string& f) { write(f, std::string(8192, 'x')); },
       " is damaged or is not a hop store"},
      {"another program's database", [&](const std::string& f) { sql(f, "CREATE TABLE t(a)"); },
       " is an SQLite database that hop did not create"},
      {"hop's format without its tables",
       [&](const std::string& f) { sql(f, "CREATE TABLE meta(a); PRAGMA user_version=1"); },
       " has format 1 but lacks 4 of its tables"},
      {"a directory", [&](const std::string& f) { std::filesystem::create_directory(f); },
       " is not a regular file"},
  };
  for (const Case& c : kCases) {
    TempDir dir;
    const std::string file = dir.path() + "/hop.db";
    c.make(file);
    std::error_code ec;
    const auto size_before =
        std::filesystem::is_regular_file(file) ? std::filesystem::file_size(file, ec) : 0;
    auto store = SqliteStore::Open(dir.path());
    ASSERT_FALSE(store.ok()) << c.name;
    const std::string& message = store.status().message();
    EXPECT_NE(message.find(file + c.expected), std::string::npos) << c.name << ": " << message;
    EXPECT_NE(
        message.find("Move it aside to start a new, empty store, or restore it from a backup"),
        std::string::npos)
        << c.name << ": " << message;
    if (std::filesystem::is_regular_file(file)) {
      EXPECT_EQ(std::filesystem::file_size(file, ec), size_before) << c.name;
    }
  }
}

// A new store appears whole: no temporary file is left behind, and a store damaged after it
// was made names its file in the errors it causes.
TEST(SqliteStoreFormatTest, NewStoresAppearWholeAndDamageNamesTheFile) {
  TempDir dir;
  {
    SqliteStoreOptions opts;
    opts.durable = false;
    auto store = SqliteStore::Open(dir.path(), opts);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    for (int i = 0; i < 50; ++i) {
      ASSERT_TRUE((*store)->Create(ConfigMap("m" + std::to_string(i))).ok());
    }
  }
  // What a process killed while creating a store left behind is removed by the next creation.
  TempDir other;
  for (const char* suffix : {"", "-journal"}) {
    std::ofstream(other.path() + "/hop.db.new-999999999-x" + suffix) << "partial";
  }
  ASSERT_TRUE(SqliteStore::Open(other.path()).ok());
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(other.path())) {
    left.push_back(e.path().filename().string());
  }
  EXPECT_EQ(left, std::vector<std::string>{"hop.db"});

  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  // The log and shared memory go with the last connection; the wake file, which the writes
  // touched for other processes' watches (docs/store.md), stays.
  EXPECT_EQ(names, (std::vector<std::string>{"hop.db", "hop.db-wake"}));
  const std::string file = dir.path() + "/hop.db";
  {
    // Overwrite every page but the first (the header and the schema stay readable).
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    const auto size = std::filesystem::file_size(file);
    f.seekp(4096);
    f << std::string(size - 4096, '\x55');
  }
  auto store = SqliteStore::Open(dir.path());
  Status damaged = store.ok() ? (*store)->List({kConfigMap, "", {}}).status() : store.status();
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.message().find(file + " is damaged or is not a hop store"), std::string::npos)
      << damaged.ToString();
}

}  // namespace
}  // namespace hop::store
