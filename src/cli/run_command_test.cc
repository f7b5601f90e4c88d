// Tests for RunSql's scripts on a durable store: a statement's output is shown once its batch
// is durable, while the next statement runs, so that statements share fsyncs (docs/store.md,
// "Writing and syncing"); a batch that cannot be made durable is reported as failed.
#include "cli/run_command.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/resource_commands.h"
#include "sql/script.h"
#include "store/sqlite_store.h"
#include "test/lib/datadriven.h"

namespace hop::cli {
namespace {

constexpr int kStatements = 10;

class RunScriptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hop-run-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  // A durable store on the demo environment whose fsyncs of the WAL are counted, and fail from
  // the `fail_from`-th on (0: none fails).
  store::SqliteStore& Open(int fail_from = 0) {
    store::SqliteStoreOptions opts;
    opts.sync_wal = [this, fail_from](int fd) {
      const int n = ++syncs_;
      struct stat st {};
      ::fstat(fd, &st);
      synced_bytes_ = st.st_size;
      if (fail_from > 0 && n >= fail_from) {
        errno = EIO;
        return -1;
      }
      return ::fdatasync(fd);
    };
    auto s = store::SqliteStore::Open(dir_, opts);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
    std::ostringstream out, err;
    ApplyOptions apply;
    apply.file = hop::testing::SourcePath("examples/demo-environment.yaml");
    EXPECT_EQ(RunApply(apply, *store_, out, err), 0) << err.str();
    return *store_;
  }

  // kStatements CREATE MATERIALIZED VIEW statements, ads.audience_0 ... in order.
  static std::string Script() {
    std::string script;
    for (int i = 0; i < kStatements; ++i) {
      script += "CREATE MATERIALIZED VIEW ads.audience_" + std::to_string(i) +
                " AS SELECT first_name, last_name FROM ads.page_views NATURAL JOIN "
                "profile.members;\n";
    }
    return script;
  }

  std::string dir_;
  std::unique_ptr<store::SqliteStore> store_;
  std::atomic<int> syncs_{0};
  std::atomic<int64_t> synced_bytes_{-1};  // the WAL's size when the last fsync began
};

TEST_F(RunScriptTest, StatementsShareFsyncsAndReportInOrder) {
  store::SqliteStore& store = Open();
  ASSERT_FALSE(HasFatalFailure());
  const int before = syncs_.load();
  RunOptions run;
  run.execute = {Script()};
  run.state_dir = dir_;
  std::ostringstream out, err;
  ASSERT_EQ(RunSql(run, store, out, err), 0) << out.str() << err.str();
  EXPECT_EQ(err.str(), "");
  // Each statement's output, in order, once.
  size_t at = 0;
  for (int i = 0; i < kStatements; ++i) {
    const std::string line = "CREATE MATERIALIZED VIEW ADS.AUDIENCE_" + std::to_string(i) + ":";
    const size_t found = out.str().find(line, at);
    ASSERT_NE(found, std::string::npos) << line << "\n" << out.str();
    at = found + line.size();
  }
  // A statement is written while the store's syncer makes the last one durable, and an fsync
  // covers every statement written before it began: at most one a statement (fewer when an
  // fsync takes longer than planning a statement), never one a statement plus the script's own.
  const int syncs = syncs_.load() - before;
  EXPECT_GE(syncs, 1);
  EXPECT_LE(syncs, kStatements) << out.str();
  // The last was durable when reported: every byte of the WAL was written before the last fsync.
  struct stat st {};
  ASSERT_EQ(::stat((dir_ + "/hop.db-wal").c_str(), &st), 0);
  EXPECT_EQ(synced_bytes_.load(), static_cast<int64_t>(st.st_size));
}

TEST_F(RunScriptTest, AStatementWhoseBatchCannotBeMadeDurableFails) {
  // The demo environment's apply takes the first fsync; the script's first fails.
  store::SqliteStore& store = Open(/*fail_from=*/2);
  RunOptions run;
  run.execute = {Script()};
  run.state_dir = dir_;
  std::ostringstream out, err;
  EXPECT_EQ(RunSql(run, store, out, err), 1);
  // No statement is reported done, and each says why it failed.
  EXPECT_EQ(out.str().find("CREATE MATERIALIZED VIEW ADS.AUDIENCE"), std::string::npos)
      << out.str();
  size_t failures = 0;
  for (size_t at = err.str().find("cannot make the store's writes durable");
       at != std::string::npos;
       at = err.str().find("cannot make the store's writes durable", at + 1)) {
    ++failures;
  }
  EXPECT_EQ(failures, static_cast<size_t>(kStatements)) << err.str();
}

// The items that run while the last DDL statement's output waits for its fsync: DDL only.
TEST(RunsWhileOutputWaitsTest, DdlRunsWhileTheLastOutputWaitsAndNothingElseDoes) {
  auto first = [](std::string_view script) {
    const std::vector<sql::ScriptItem> items = sql::SplitScript(script);
    EXPECT_EQ(items.size(), 1u) << script;
    return items.empty() ? sql::ScriptItem{} : items[0];
  };
  for (std::string_view ddl :
       {"CREATE MATERIALIZED VIEW a.b AS SELECT 1;", "  create table t (a int);",
        "-- a comment\n/* another */ DROP VIEW v;", "ALTER TRIGGER t PAUSE;", "fire view a.b;",
        "PAUSE TRIGGER t;", "RESUME TRIGGER t;", "CREATE(x);"}) {
    EXPECT_TRUE(RunsWhileOutputWaits(first(ddl))) << ddl;
  }
  for (std::string_view other :
       {"SELECT 1;", "REFRESH MATERIALIZED VIEW a.b;", "INSERT INTO t VALUES (1);", "!wait",
        "!pipeline CREATE MATERIALIZED VIEW a.b AS SELECT 1;", "-- CREATE\nSELECT 1;",
        "/* CREATE */ SHOW namespace;", "CREATED;", "EXPLAIN CREATE VIEW v AS SELECT 1;"}) {
    EXPECT_FALSE(RunsWhileOutputWaits(first(other))) << other;
  }
}

}  // namespace
}  // namespace hop::cli
