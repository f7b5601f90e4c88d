// The TableProvisionJob reconciler against a real store and a provisioner that records what it
// is asked.
#include "operator/provision_reconciler.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "catalog/provisioner.h"
#include "operator/reconciler_test_fixture.h"
#include "resource/kinds.h"

namespace hop::op {
namespace {

using resource::Resource;

// A provisioner that says whether it was asked to create.
class OneTable : public catalog::Provisioner {
 public:
  Result<bool> Exists(const catalog::Schema&, const catalog::TableDefinition&) override {
    return exists;
  }
  Status Create(const catalog::Schema&, const catalog::TableDefinition& t) override {
    created = t.path.back();
    exists = true;
    return Status::OK();
  }
  Status Drop(const catalog::Schema&, const catalog::TableDefinition&) override {
    return Status::OK();
  }
  bool exists = false;
  std::string created;
};

TEST_F(ReconcilerStoreTest, TableProvisionJobsUseTheirDatabasesProvisioner) {
  Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Database\nmetadata: {name: iceberg}\n"
      "spec: {catalog: ICEBERG, schema: WAREHOUSE, url: 'jdbc:iceberg://x'}\n");
  Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Database\nmetadata: {name: kafka}\n"
      "spec: {schema: KAFKA, url: 'jdbc:kafka://x'}\n");
  Resource job = Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: TableProvisionJob\n"
      "metadata: {name: iceberg-clicks}\nspec: {database: iceberg, catalog: ICEBERG, "
      "schema: WAREHOUSE, table: CLICKS}\n");
  Resource other = Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: TableProvisionJob\n"
      "metadata: {name: kafka-events}\nspec: {database: kafka, schema: KAFKA, table: events}\n");
  OneTable iceberg;
  catalog::Provisioners provisioners;
  provisioners.Register("iceberg", &iceberg);
  ProvisionReconciler reconciler(*store_, &provisioners);

  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(job)}, Context()).ok());
  EXPECT_EQ(iceberg.created, "CLICKS");
  auto done = store_->Get(store::RefOf(job));
  EXPECT_EQ(done->status()->at("ready"), true);
  EXPECT_EQ(done->status()->at("message"), "Table created.");

  // Provisioned: nothing to do again; an existing table is not created.
  iceberg.created.clear();
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(job)}, Context()).ok());
  EXPECT_EQ(iceberg.created, "");

  // No local provisioner for Kafka: left to an external controller, and said so.
  ASSERT_TRUE(reconciler.Reconcile({store::RefOf(other)}, Context()).ok());
  auto waiting = store_->Get(store::RefOf(other));
  EXPECT_EQ(waiting->status()->at("ready"), false);
  EXPECT_EQ(waiting->status()->at("message"),
            "No local provisioner for database kafka (kafka): left for an external controller");
}

}  // namespace
}  // namespace hop::op
