// What the reconcilers' tests share: objects from YAML, a real store in a temporary directory to
// reconcile against (no manager: a test calls Reconcile itself), and a store that counts commits.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/time.h"
#include "operator/controller.h"
#include "resource/resource.h"
#include "resource/yaml.h"
#include "store/sqlite_store.h"

namespace hop::op {

using resource::Resource;

// An object from its YAML (the first document).
inline resource::Resource Parse(const std::string& yaml) {
  auto docs = ParseYamlDocuments(yaml, "test");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  return *resource::Resource::FromJson((*docs)[0], "test");
}

// A store that counts its commits and their writes, over a real one.
class CountingStore : public store::Store {
 public:
  explicit CountingStore(store::Store& inner) : inner_(inner) {}
  Result<Resource> Get(const store::ObjectRef& ref) override { return inner_.Get(ref); }
  Result<store::ListResult> List(const store::ListOptions& options) override {
    return inner_.List(options);
  }
  Result<std::vector<Resource>> Commit(std::vector<store::Write> writes) override {
    commits.push_back(writes.size());
    return inner_.Commit(std::move(writes));
  }
  std::unique_ptr<store::Watch> StartWatch(const store::WatchOptions& options) override {
    return inner_.StartWatch(options);
  }
  Result<int64_t> Revision() override { return inner_.Revision(); }

  std::vector<size_t> commits;  // how many writes each commit had

 private:
  store::Store& inner_;
};

// A store whose batches the reconcilers take as applied write by write (as KubernetesStore's
// are), over a real one.
class NonAtomicStore : public CountingStore {
 public:
  using CountingStore::CountingStore;
  bool AtomicBatches() const override { return false; }
};

// A fresh, non-durable SqliteStore per test.
class ReconcilerStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hop-reconciler-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    store::SqliteStoreOptions opts;
    opts.durable = false;
    store_ = std::move(store::SqliteStore::Open(dir_, opts)).value();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  resource::Resource Create(const std::string& yaml) {
    auto r = store_->Create(Parse(yaml));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return *r;
  }
  ReconcileContext Context() { return {"r-test", &SystemClock()}; }

  std::string dir_;
  std::unique_ptr<store::SqliteStore> store_;
};

}  // namespace hop::op
