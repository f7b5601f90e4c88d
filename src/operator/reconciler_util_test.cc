// The reconcilers' shared helpers against a real store: what each adds to a batch, and that a
// batch commits whole or not at all.
#include "operator/reconciler_util.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "operator/reconciler_test_fixture.h"

namespace hop::op {
namespace {

using resource::Resource;

const store::GroupKind kConfigMap{"", "ConfigMap"};

std::string ConfigMap(const std::string& name, const std::string& value = "v") {
  return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name +
         ", namespace: default}\ndata: {k: " + value + "}\n";
}

using ReconcilerUtilTest = ReconcilerStoreTest;

TEST_F(ReconcilerUtilTest, GetOrNotFoundSaysWhenTheObjectIsGone) {
  Create(ConfigMap("here"));
  auto here = GetOrNotFound(*store_, {{kConfigMap, "default", "here"}});
  ASSERT_TRUE(here.ok()) << here.status().ToString();
  ASSERT_TRUE(here->has_value());
  EXPECT_EQ((*here)->name(), "here");
  auto gone = GetOrNotFound(*store_, {{kConfigMap, "default", "gone"}});
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_FALSE(gone->has_value());
}

TEST_F(ReconcilerUtilTest, CreateIfAbsentLeavesWhatExistsAlone) {
  Create(ConfigMap("old", "stored"));
  Batch batch(*store_);
  auto old = batch.CreateIfAbsent(Parse(ConfigMap("old", "new")));
  ASSERT_TRUE(old.ok());
  EXPECT_FALSE(*old);
  auto fresh = batch.CreateIfAbsent(Parse(ConfigMap("fresh")));
  ASSERT_TRUE(fresh.ok());
  EXPECT_TRUE(*fresh);
  // A second create of one name could never commit: refused at once.
  auto twice = batch.CreateIfAbsent(Parse(ConfigMap("fresh")));
  EXPECT_EQ(twice.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(batch.size(), 1u);
  ASSERT_TRUE(batch.Commit().ok());
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ(store_->Get({kConfigMap, "default", "old"})->json()["data"]["k"], "stored");
  EXPECT_TRUE(store_->Get({kConfigMap, "default", "fresh"}).ok());
}

TEST_F(ReconcilerUtilTest, CreateOrUpdateWritesOnlyWhatChanged) {
  Create(ConfigMap("same"));
  Create(ConfigMap("changed"));
  auto read_at = store_->Revision();
  ASSERT_TRUE(read_at.ok());
  Batch batch(*store_);
  // What a plan gives: no uid, resourceVersion or generation.
  auto same = batch.CreateOrUpdate(Parse(ConfigMap("same")), *read_at);
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_FALSE(*same);
  auto changed = batch.CreateOrUpdate(Parse(ConfigMap("changed", "w")), *read_at);
  ASSERT_TRUE(changed.ok()) << changed.status().ToString();
  EXPECT_TRUE(*changed);
  auto created = batch.CreateOrUpdate(Parse(ConfigMap("created")), *read_at);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(*created);
  EXPECT_EQ(batch.size(), 2u);
  ASSERT_TRUE(batch.Commit().ok());
  EXPECT_EQ(store_->Get({kConfigMap, "default", "changed"})->json()["data"]["k"], "w");
  EXPECT_TRUE(store_->Get({kConfigMap, "default", "created"}).ok());
}

// An object written after the plan was made may have changed under it: Conflict, never an
// update made from what it was; and one that changes between the batch and its commit fails
// the whole batch.
TEST_F(ReconcilerUtilTest, CreateOrUpdateNeverOverwritesALaterWrite) {
  Create(ConfigMap("a"));
  auto read_at = store_->Revision();
  ASSERT_TRUE(read_at.ok());
  Create(ConfigMap("later"));
  Batch batch(*store_);
  EXPECT_EQ(batch.CreateOrUpdate(Parse(ConfigMap("later", "w")), *read_at).status().code(),
            StatusCode::kConflict);

  ASSERT_TRUE(batch.CreateOrUpdate(Parse(ConfigMap("a", "w")), *read_at).ok());
  ASSERT_TRUE(batch.CreateIfAbsent(Parse(ConfigMap("b"))).ok());
  Resource a = *store_->Get({kConfigMap, "default", "a"});
  a.mutable_json()["data"]["k"] = "meanwhile";
  ASSERT_TRUE(store_->Update(a).ok());
  EXPECT_EQ(batch.Commit().code(), StatusCode::kConflict);
  EXPECT_EQ(store_->Get({kConfigMap, "default", "a"})->json()["data"]["k"], "meanwhile");
  EXPECT_EQ(store_->Get({kConfigMap, "default", "b"}).status().code(), StatusCode::kNotFound);
}

TEST_F(ReconcilerUtilTest, UpdateStatusIfChangedAndDeleteIfPresent) {
  Resource cm = Create(ConfigMap("a"));
  Batch batch(*store_);
  // No status is an empty one.
  EXPECT_FALSE(batch.UpdateStatusIfChanged(cm, Json::object()));
  EXPECT_TRUE(batch.UpdateStatusIfChanged(cm, Json{{"ready", true}}));
  Resource changed = cm;
  changed.mutable_status()["ready"] = false;
  const Json before = Json{{"ready", false}};
  EXPECT_FALSE(batch.UpdateStatusIfChanged(changed, &before));
  EXPECT_EQ(batch.size(), 1u);
  ASSERT_TRUE(batch.Commit().ok());
  cm = *store_->Get(store::RefOf(cm));
  EXPECT_EQ(cm.status()->at("ready"), true);
  EXPECT_FALSE(batch.UpdateStatusIfChanged(cm, Json{{"ready", true}}));

  auto gone = batch.DeleteIfPresent({kConfigMap, "default", "never"});
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(*gone);
  auto deleted = batch.DeleteIfPresent(store::RefOf(cm));
  ASSERT_TRUE(deleted.ok());
  EXPECT_TRUE(*deleted);
  ASSERT_TRUE(batch.Commit().ok());
  EXPECT_EQ(store_->Get(store::RefOf(cm)).status().code(), StatusCode::kNotFound);

  // An empty batch writes nothing.
  const int64_t revision = *store_->Revision();
  ASSERT_TRUE(batch.Commit().ok());
  EXPECT_EQ(*store_->Revision(), revision);
}

// A lone status write: committed at once when the status changed, nothing otherwise, and a
// Conflict when the object changed since it was read.
TEST_F(ReconcilerUtilTest, AStatusAloneIsWrittenOnlyWhenItChanged) {
  Resource cm = Create(ConfigMap("a"));
  EXPECT_EQ(StatusOf(cm), Json::object());
  auto same = UpdateStatusIfChanged(*store_, cm, Json::object());
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_FALSE(*same);
  auto written = UpdateStatusIfChanged(*store_, cm, Json{{"ready", true}});
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_TRUE(*written);
  const Resource stored = *store_->Get(store::RefOf(cm));
  EXPECT_EQ(StatusOf(stored), (Json{{"ready", true}}));
  const int64_t revision = *store_->Revision();
  auto again = UpdateStatusIfChanged(*store_, stored, Json{{"ready", true}});
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  EXPECT_EQ(*store_->Revision(), revision);
  // `cm` is as read before the status was written.
  EXPECT_EQ(UpdateStatusIfChanged(*store_, cm, Json{{"ready", false}}).status().code(),
            StatusCode::kConflict);
  EXPECT_EQ(StatusOf(*store_->Get(store::RefOf(cm))), (Json{{"ready", true}}));
}

// A derived status (a Pipeline's) of an object deleted since it was read is nothing to write: the
// reconcile is done, not failed (two DROPs racing left a warning and a retry before).
TEST_F(ReconcilerUtilTest, ADerivedStatusOfAnObjectDeletedMeanwhileIsNothingToWrite) {
  Resource cm = Create(ConfigMap("gone"));
  ASSERT_TRUE(store_->Delete(store::RefOf(cm)).ok());
  auto written = UpdateDerivedStatusIfChanged(*store_, cm, Json{{"ready", true}});
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_FALSE(*written);
}

// An owner is added once, by kind and name, beside the owners an object has, with its uid.
TEST_F(ReconcilerUtilTest, AddOwnerAddsAnOwnerOnce) {
  Resource owner = Create(ConfigMap("owner"));
  Resource other = Create(ConfigMap("other"));
  Resource owned = Parse(ConfigMap("owned"));
  EXPECT_TRUE(AddOwner(owned, other));
  EXPECT_TRUE(AddOwner(owned, owner));
  EXPECT_FALSE(AddOwner(owned, owner));
  const auto owners = owned.owner_references();
  ASSERT_EQ(owners.size(), 2u);
  EXPECT_EQ(owners[0].name, "other");
  EXPECT_EQ(owners[1].name, "owner");
  EXPECT_EQ(owners[1].kind, "ConfigMap");
  EXPECT_EQ(owners[1].api_version, "v1");
  EXPECT_EQ(owners[1].uid, owner.uid());
  EXPECT_FALSE(owners[1].uid.empty());
  // What it owns goes with the last of its owners.
  ASSERT_TRUE(store_->Create(owned).ok());
  ASSERT_TRUE(store_->Delete(store::RefOf(other)).ok());
  ASSERT_TRUE(store_->Get(store::RefOf(owned)).ok());
  ASSERT_TRUE(store_->Delete(store::RefOf(owner)).ok());
  EXPECT_EQ(store_->Get(store::RefOf(owned)).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace hop::op
