// Statements that race to create one PostgreSQL table (docs/ddl.md, "Racing statements"),
// against a server of the test's own: one statement creates the table and then fails to commit,
// while another found the table there and committed its Table. The first's undo must leave the
// table to the second. The tests put the second writer at each point of the first's undo with
// hooks in the store, and then let several writers race freely for some rounds; after each, a
// Table in the store has its table in PostgreSQL.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "catalog/postgres.h"
#include "deploy/executor.h"
#include "resource/kinds.h"
#include "sql/parser.h"
#include "store/sqlite_store.h"
#include "test/lib/fixtures.h"
#include "test/lib/postgres_server.h"

namespace hop::deploy {
namespace {

using namespace std::chrono_literals;

// A one-shot signal between threads.
class Signal {
 public:
  void Set() {
    std::lock_guard<std::mutex> lock(mu_);
    set_ = true;
    cv_.notify_all();
  }
  // Whether it was set within `timeout`.
  bool Wait(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return set_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool set_ = false;
};

// A store that runs hooks where a statement's writer would meet another writer; everything
// else goes to the real one.
class HookedStore : public store::Store {
 public:
  explicit HookedStore(store::Store& real) : real_(real) {}
  Result<resource::Resource> Get(const store::ObjectRef& ref) override { return real_.Get(ref); }
  Result<store::ListResult> List(const store::ListOptions& o) override {
    auto listed = real_.List(o);
    if (after_next_list) std::exchange(after_next_list, nullptr)();
    return listed;
  }
  Result<std::vector<resource::Resource>> Commit(std::vector<store::Write> writes) override {
    if (before_next_commit) std::exchange(before_next_commit, nullptr)();
    if (fail_commits) return Status::Unavailable("disk I/O error");
    auto committed = real_.Commit(std::move(writes));
    if (after_next_commit) std::exchange(after_next_commit, nullptr)();
    return committed;
  }
  std::unique_ptr<store::Watch> StartWatch(const store::WatchOptions& o) override {
    return real_.StartWatch(o);
  }
  Result<int64_t> Revision() override { return real_.Revision(); }

  // Each runs once: before the next commit, after it, and after the next list has read the
  // store and before it answers (another writer's commit landing just after the read).
  std::function<void()> before_next_commit, after_next_commit, after_next_list;
  bool fail_commits = false;

 private:
  store::Store& real_;
};

class ProvisioningRaceTest : public ::testing::Test {
 protected:
  // One server for the tests (starting one takes a second or two); each starts without the table.
  static void SetUpTestSuite() {
    pg_ = std::make_unique<hop::testing::PostgresServer>();
    // Never a skip: a machine without PostgreSQL fails here (./scripts/setup installs it).
    started_ = pg_->Start();
  }
  static void TearDownTestSuite() { pg_.reset(); }

  void SetUp() override {
    ASSERT_TRUE(started_.ok()) << started_.ToString();
    ASSERT_TRUE(pg_->Exec("DROP TABLE IF EXISTS x").ok());
    store::SqliteStoreOptions opts;
    opts.durable = false;
    real_ = std::move(store::SqliteStore::Open(dir_.path(), opts)).value();
    Json database = {
        {"apiVersion", "hoptimator.linkedin.com/v1alpha1"},
        {"kind", "Database"},
        {"metadata", {{"name", "pg"}}},
        {"spec",
         {{"schema", "PG"},
          {"url", "postgresql:///postgres?host=" + pg_->socket_dir() + "&user=postgres"}}}};
    auto r = resource::Resource::FromJson(std::move(database), "test");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(real_->Create(*r).ok());
    provisioners_.Register("postgresql", &postgres_);
  }

  // Executes `sql` on `store` as a writer of its own: the summary, or "error: ...".
  std::string Run(store::Store& store, const std::string& sql) {
    auto stmt = sql::ParseStatement(sql);
    if (!stmt.ok()) return "parse error: " + stmt.status().ToString();
    ExecuteOptions options;
    options.provisioners = &provisioners_;
    Executor executor(store, options);
    auto outcome = executor.Execute(**stmt);
    if (!outcome.ok()) return "error: " + outcome.status().ToString();
    return outcome->Summary();
  }

  // Whether PostgreSQL has public.x.
  bool PgHasTable() {
    auto rows =
        pg_->Exec("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename = 'x'");
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() && rows->rows[0][0] == std::optional<std::string>("1");
  }
  // Whether the store has the Table of PG.X.
  bool StoreHasTable() {
    auto found = real_->Find({resource::TableKind::Info().group_kind(), "default", "pg-x"});
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    return found.ok() && found->has_value();
  }

  static constexpr const char* kCreate = "CREATE TABLE pg.x (id BIGINT NOT NULL, name VARCHAR)";

  static inline std::unique_ptr<hop::testing::PostgresServer> pg_;
  static inline Status started_;
  hop::testing::TempDir dir_{"hop-race-test"};
  std::unique_ptr<store::SqliteStore> real_;
  catalog::PostgresProvisioner postgres_;
  catalog::Provisioners provisioners_;
};

// A creates the table; B finds it there and commits first; A's commit then fails (the Table
// exists) and its undo must leave the table, which B's Table declares.
TEST_F(ProvisioningRaceTest, TheLoserOfARaceLeavesTheTableToTheWinner) {
  HookedStore a(*real_);
  std::string b;
  a.before_next_commit = [&] {
    ASSERT_TRUE(PgHasTable());  // A created it
    b = Run(*real_, kCreate);
  };
  const std::string lost = Run(a, kCreate);
  EXPECT_EQ(b, "CREATE TABLE PG.X: table/pg-x created");
  EXPECT_NE(lost.find("error: Already Exists:"), std::string::npos) << lost;
  EXPECT_TRUE(StoreHasTable());
  EXPECT_TRUE(PgHasTable()) << "B's Table has no table in PostgreSQL";
}

// A creates the table and its commit fails for a reason of its own; its undo looks at the store
// before B, which found the table there, commits. B's commit then lands while A's undo drops
// the table: B waits for the undo on the table's lock, finds the table gone, and creates it.
TEST_F(ProvisioningRaceTest, AWinnerThatCommitsDuringTheUndoMakesTheTableAgain) {
  HookedStore a(*real_);
  HookedStore b(*real_);
  Signal b_planned, a_looked, b_committed;
  std::string b_summary;
  std::thread b_writer;
  a.fail_commits = true;
  a.before_next_commit = [&] {
    ASSERT_TRUE(PgHasTable());  // A created it
    // B plans and finds the table there, then waits to commit.
    b_writer = std::thread([&] { b_summary = Run(b, kCreate); });
    ASSERT_TRUE(b_planned.Wait(10s));
    // A's undo lists the store's Tables, finds none, and only then does B commit.
    a.after_next_list = [&] {
      a_looked.Set();
      ASSERT_TRUE(b_committed.Wait(10s));
      // Until B makes sure of the table, waiting on the lock A's undo holds.
      bool waiting = false;
      for (int i = 0; i < 500 && !waiting; ++i) {
        auto rows = pg_->Exec("SELECT count(*) FROM pg_locks WHERE NOT granted");
        waiting = rows.ok() && rows->rows[0][0] != std::optional<std::string>("0");
        if (!waiting) std::this_thread::sleep_for(10ms);
      }
      EXPECT_TRUE(waiting) << "B did not wait for A's undo";
    };
  };
  b.before_next_commit = [&] {
    b_planned.Set();
    a_looked.Wait(10s);  // an undo that never looks at the store: B commits once A is done
  };
  b.after_next_commit = [&] { b_committed.Set(); };
  const std::string a_summary = Run(a, kCreate);
  a_looked.Set();
  if (b_writer.joinable()) b_writer.join();
  EXPECT_EQ(a_summary, "error: Unavailable: disk I/O error");
  EXPECT_EQ(b_summary, "CREATE TABLE PG.X: table PG.X created in pg; table/pg-x created");
  EXPECT_TRUE(StoreHasTable());
  EXPECT_TRUE(PgHasTable()) << "B's Table has no table in PostgreSQL";
}

// Writers race freely for some rounds. Each starts a little after the one before, so that later
// ones find the table an earlier one created (writers that all find none all create it, and all
// but one fail in PostgreSQL), and pauses a random moment before its commit, as on a slow disk,
// so that a later writer often commits first. After each round, the Table that won has its
// table, and DROP TABLE takes both away. (Before the undo asked the store, about two rounds in
// three lost the table.)
TEST_F(ProvisioningRaceTest, RacingWritersLeaveATableForTheTableStored) {
  constexpr int kRounds = 10;
  constexpr int kWriters = 4;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<std::unique_ptr<HookedStore>> stores;
    std::vector<std::thread> writers;
    std::vector<std::string> summaries(kWriters);
    for (int w = 0; w < kWriters; ++w) {
      stores.push_back(std::make_unique<HookedStore>(*real_));
      HookedStore* store = stores.back().get();
      const unsigned seed = static_cast<unsigned>(round * kWriters + w);
      store->before_next_commit = [seed] {
        std::minstd_rand random(seed);
        std::this_thread::sleep_for(std::chrono::milliseconds(random() % 40));
      };
      writers.emplace_back([&, w, store] {
        std::this_thread::sleep_for(std::chrono::milliseconds(8 * w));
        summaries[w] = Run(*store, kCreate);
      });
    }
    for (auto& t : writers) t.join();
    int created = 0;
    for (const std::string& s : summaries) {
      created += s.find("table/pg-x created") != std::string::npos;
    }
    EXPECT_EQ(created, 1) << "round " << round;
    ASSERT_TRUE(StoreHasTable()) << "round " << round;
    ASSERT_TRUE(PgHasTable()) << "round " << round << ": the Table has no table in PostgreSQL";
    ASSERT_EQ(Run(*real_, "DROP TABLE pg.x"),
              "DROP TABLE PG.X: table PG.X dropped in pg; table/pg-x deleted")
        << "round " << round;
    ASSERT_FALSE(PgHasTable()) << "round " << round;
  }
}

}  // namespace
}  // namespace hop::deploy
