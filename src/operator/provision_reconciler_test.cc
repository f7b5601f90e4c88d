// The TableProvisionJob reconciler against a real store and provisioners that record what they
// are asked or answer as a server that is down, refuses, or comes back would: the outcome of
// each, the columns a job carries, and the controller's retries of a job whose server is away.
#include "operator/provision_reconciler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

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

// A provisioner whose server answers as told: `down` (Unavailable) until `up_after` calls of
// Exists have been made, then it has no table until Create, which fails with `refusal` when set.
class Scripted : public catalog::Provisioner {
 public:
  Result<bool> Exists(const catalog::Schema&, const catalog::TableDefinition& t) override {
    std::lock_guard<std::mutex> lock(mu);
    ++calls;
    row_type = t.row_type;
    if (calls <= up_after) {
      return Status::Unavailable(
          "Database pg (postgresql://app:<redacted>@db/app): cannot connect to PostgreSQL: "
          "connection refused");
    }
    return created;
  }
  Status Create(const catalog::Schema&, const catalog::TableDefinition&) override {
    std::lock_guard<std::mutex> lock(mu);
    if (!refusal.empty()) return Status::ExecutionError(refusal);
    created = true;
    return Status::OK();
  }
  Status Drop(const catalog::Schema&, const catalog::TableDefinition&) override {
    return Status::OK();
  }
  std::mutex mu;
  int calls = 0;
  int up_after = 0;
  bool created = false;
  std::string refusal;
  catalog::RowType row_type;
};

constexpr char kPgDatabase[] =
    "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Database\nmetadata: {name: pg}\n"
    "spec: {schema: PG, url: 'jdbc:postgresql://db/app', provisioning: async}\n";
constexpr char kPgJob[] =
    "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: TableProvisionJob\n"
    "metadata: {name: pg-clicks}\nspec: {database: pg, schema: PG, table: CLICKS, columns: "
    "[{name: ID, type: BIGINT, nullable: false}, {name: URL, type: VARCHAR(20)}]}\n";

TEST_F(ReconcilerStoreTest, EachOutcomeOfAProvisioningIsItsStatus) {
  struct Case {
    const char* name;
    int up_after;         // Exists calls answered Unavailable
    const char* refusal;  // Create's error, or ""
    bool ready, failed, retrying;
    const char* message;
  };
  const Case kCases[] = {
      {"created", 0, "", true, false, false, "Table created."},
      {"unreachable", 1, "", false, false, true,
       "Database pg (postgresql://app:<redacted>@db/app): cannot connect to PostgreSQL: "
       "connection refused"},
      {"refused", 0, "Database pg: PostgreSQL: type \"nope\" does not exist", false, true, false,
       "Database pg: PostgreSQL: type \"nope\" does not exist"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    TearDown();
    SetUp();
    Create(kPgDatabase);
    Resource job = Create(kPgJob);
    Scripted pg;
    pg.up_after = c.up_after;
    pg.refusal = c.refusal;
    catalog::Provisioners provisioners;
    provisioners.Register("postgresql", &pg);
    ProvisionReconciler reconciler(*store_, &provisioners);
    auto result = reconciler.Reconcile({store::RefOf(job)}, Context());
    // Unreachable: an error, for the controller's backoff; refused: terminal; else done.
    EXPECT_EQ(result.ok(), !c.retrying) << result.status().ToString();
    if (result.ok()) {
      EXPECT_EQ(result->terminal.has_value(), c.failed);
    }
    auto done = store_->Get(store::RefOf(job));
    ASSERT_TRUE(done.ok());
    const Json& status = *done->status();
    EXPECT_EQ(status.at("ready"), c.ready);
    EXPECT_EQ(status.at("failed"), c.failed);
    EXPECT_EQ(status.value("retrying", false), c.retrying);
    EXPECT_EQ(status.at("message"), c.message);
    EXPECT_EQ(status.at("observedGeneration"), done->generation());
    // The columns come from the job: no Table resource has them.
    ASSERT_EQ(pg.row_type.columns.size(), 2u);
    EXPECT_EQ(pg.row_type.columns[0].name, "ID");
    EXPECT_EQ(pg.row_type.columns[0].type.nullability, sql::Nullability::kNotNull);
    EXPECT_EQ(pg.row_type.columns[1].type.precision, 20);
  }
}

TEST_F(ReconcilerStoreTest, AJobWhoseColumnsDoNotParseFailsSayingWhich) {
  Create(kPgDatabase);
  Resource job = Create(
      "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: TableProvisionJob\n"
      "metadata: {name: pg-bad}\nspec: {database: pg, schema: PG, table: BAD, columns: "
      "[{name: A, type: 'NOT A TYPE ((('}]}\n");
  Scripted pg;
  catalog::Provisioners provisioners;
  provisioners.Register("postgresql", &pg);
  ProvisionReconciler reconciler(*store_, &provisioners);
  auto result = reconciler.Reconcile({store::RefOf(job)}, Context());
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->terminal.has_value());
  auto done = store_->Get(store::RefOf(job));
  EXPECT_EQ(done->status()->at("failed"), true);
  const std::string message = done->status()->at("message");
  EXPECT_EQ(message.rfind("spec.columns: column A: ", 0), 0u) << message;
  EXPECT_EQ(pg.calls, 0);  // nothing was asked of the server
}

// The controller retries a job whose server is down, with its backoff, until the server answers;
// the status says so meanwhile and then says it is ready.
TEST_F(ReconcilerStoreTest, TheControllerRetriesAJobUntilItsServerAnswers) {
  Create(kPgDatabase);
  Scripted pg;
  pg.up_after = 3;
  catalog::Provisioners provisioners;
  provisioners.Register("postgresql", &pg);
  ProvisionReconciler reconciler(*store_, &provisioners);
  ManagerOptions options;
  options.backoff_base = std::chrono::milliseconds(5);
  options.resync = Duration(0);
  Manager manager(*store_, options);
  manager.Register(resource::TableProvisionJobKind::Info().group_kind(), &reconciler);
  ASSERT_TRUE(manager.Start().ok());
  Resource job = Create(kPgJob);
  bool retrying_seen = false;
  bool ready = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!ready && std::chrono::steady_clock::now() < deadline) {
    auto now = store_->Get(store::RefOf(job));
    ASSERT_TRUE(now.ok());
    if (now->status() && now->status()->is_object()) {
      retrying_seen |= now->status()->value("retrying", false);
      ready = now->status()->value("ready", false);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  manager.Stop();
  EXPECT_TRUE(ready);
  EXPECT_TRUE(retrying_seen);
  EXPECT_EQ(pg.calls, 4);  // three refused connections, then the one that created it
  EXPECT_GE(manager.metrics().errors, 3);
  auto done = store_->Get(store::RefOf(job));
  EXPECT_EQ(done->status()->at("message"), "Table created.");
  EXPECT_FALSE(done->status()->contains("retrying"));
}

}  // namespace
}  // namespace hop::op
