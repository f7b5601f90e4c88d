// Tests of the interactive shell without a terminal: buffer completeness, completion candidates,
// the history file, and the loop driven by a scripted reader over a real session.
#include "cli/shell.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "catalog/local.h"
#include "cli/resource_commands.h"
#include "store/sqlite_store.h"
#include "test/lib/datadriven.h"

namespace hop::cli {
namespace {

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) {
    if (!out.empty()) out += ' ';
    out += s;
  }
  return out;
}

TEST(ShellTest, IsComplete) {
  struct Case {
    const char* buffer;
    bool complete;
  };
  const Case kCases[] = {
      {"", true},
      {"   \n\t", true},
      {"-- only a comment", true},
      {"/* only a comment */", true},
      {"/* unterminated", false},
      {"SELECT 1", false},
      {"SELECT 1;", true},
      {"SELECT 1 ;  \n", true},
      {"SELECT 1\nFROM t\n;", true},
      {"SELECT 1; -- trailing comment", true},
      {"SELECT 1; /* open", false},
      {"SELECT 1; SELECT 2", false},
      {"SELECT 1; SELECT 2;", true},
      {"SELECT ';'", false},
      {"SELECT ';", false},
      {"SELECT ';';", true},
      {"SELECT 'it''s;'", false},
      {"SELECT \"a;b\"", false},
      {"SELECT `a;b`;", true},
      {"SELECT 1 -- ;", false},
      {"SELECT 1 -- ;\n;", true},
      {"SELECT 1 /* ; */", false},
      {"SELECT 1 /* ; */;", true},
      {"SELECT $x$ ; $x$", false},
      {"SELECT $x$ ; $x$;", true},
      {"SELECT a$b; ", true},
      {"!tables", true},
      {"  !describe ADS.PAGE_VIEWS", true},
      {"!pipeline SELECT 'unterminated", true},
      {"-- a comment line\n!schemas", true},
      {"SELECT\n!tables", false},
      {"SELECT 1 != 2", false},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(IsComplete(c.buffer), c.complete) << "buffer: " << c.buffer;
  }
}

CompletionWords TestWords() {
  CompletionWords w = BaseCompletionWords();
  w.schemas = {
      {"", "ADS", {"AD_CLICKS", "PAGE_VIEWS"}},
      {"ADS_CATALOG", "ADS", {"PAGE_VIEWS"}},
      {"", "DEFAULT", {"LOOSE"}},
      {"", "KAFKA", {"existing-topic-1", "existing-topic-2", "PAGES"}},
      {"MYSQL", "testdb", {"orders"}},
      {"", "PROFILE", {"MEMBERS"}},
      {"", "VENICE-CLUSTER0", {"test-store"}},
  };
  w.databases = {"ads-database", "mysql", "profiledb"};
  w.default_schema = "DEFAULT";
  return w;
}

TEST(ShellTest, Completions) {
  struct Case {
    const char* text;
    const char* expected;  // candidates joined by spaces
  };
  const Case kCases[] = {
      // Keywords keep what was typed and follow the case of its last letter.
      {"sel", "select"},
      {"SEL", "SELECT"},
      {"Sel", "Select"},
      {"seLE", "seLECT"},
      {"select * fr", "from"},
      {"CREATE MATERIALIZED VI", "VIEW VIRTUAL"},
      {"select a from t whe", "when where"},
      {"SELECT (sel", "select"},
      // Names: schemas, catalogs and the default schema's tables.
      {"pro", "profile"},
      {"ads", "ads ads_catalog"},
      {"lo", "local localtime localtimestamp loose"},
      {"ve", "\"VENICE-CLUSTER0\""},
      {"\"VE", "\"VENICE-CLUSTER0\""},
      {"\"ve", ""},
      {"ads-", ""},
      // Database names after DATABASE, as identifiers when they can be.
      {"DROP DATABASE ", "\"ads-database\" MYSQL PROFILEDB"},
      {"drop database  pro", "profiledb"},
      {"drop database \"ads-d", "\"ads-database\""},
      // Qualified names complete within their schema or catalog, keeping the qualifier as typed.
      {"select * from ads.", "ads.ad_clicks ads.page_views"},
      {"select * from ads.pa", "ads.page_views"},
      {"select * from ADS.PA", "ADS.PAGE_VIEWS"},
      {"select * from \"ADS\".pa", "\"ADS\".page_views"},
      {"select * from \"ads\".pa", ""},
      {"select * from ads_catalog.", "ads_catalog.ads"},
      {"select * from ads_catalog.ads.", "ads_catalog.ads.page_views"},
      {"select * from kafka.", "kafka.\"existing-topic-1\" kafka.\"existing-topic-2\" kafka.pages"},
      {"select * from kafka.ex", "kafka.\"existing-topic-1\" kafka.\"existing-topic-2\""},
      {"select * from kafka.\"existing-topic-1", "kafka.\"existing-topic-1\""},
      {"select * from mysql.testdb.o", "mysql.testdb.\"orders\""},
      {"select * from nope.", ""},
      {"select * from a.b.c.", ""},
      {"insert into profile.members select * from ads.page_views join profile.", "profile.members"},
      // A statement over several lines: the words before the cursor's line do not matter.
      {"SELECT *\nFROM ads.page", "ads.page_views"},
      // Commands, where a command may start.
      {"!", "!describe !exit !graph !help !pipeline !quit !resolve !schemas !specify !tables"},
      {"!ta", "!tables"},
      {"!TA", "!TABLES"},
      {"  !sch", "!schemas"},
      {"SELECT 1;\n!ta", "!tables"},
      {"!describe prof", "profile"},
      {"!describe profile.m", "profile.members"},
      {"SELECT\n!ta", ""},
      {"SELECT 1 !", ""},
      {"x", ""},
  };
  const CompletionWords words = TestWords();
  for (const auto& c : kCases) {
    EXPECT_EQ(Join(Completions(c.text, words)), c.expected) << "text: " << c.text;
  }
}

// A completed schema or catalog is followed by '.', so completing one adds no space.
TEST(ShellTest, SchemasAndCatalogsAreContainers) {
  const CompletionWords words = TestWords();
  struct Case {
    const char* word;
    bool container;
  };
  const Case kCases[] = {
      {"profile", true},
      {"ADS", true},
      {"ads_catalog", true},
      {"ads_catalog.ads", true},
      {"\"VENICE-CLUSTER0\"", true},
      {"ads.page_views", false},
      {"select", false},
      {"ads.", false},
      {"nope", false},
  };
  for (const Case& c : kCases) EXPECT_EQ(NamesAContainer(c.word, words), c.container) << c.word;
}

TEST(ShellTest, CompletionWordStart) {
  struct Case {
    const char* text;
    size_t start;
  };
  const Case kCases[] = {
      {"", 0},          {"sel", 0}, {"select a", 7},
      {"f(ads.pa", 2},  {"a=b", 2}, {"x kafka.\"existing-t", 2},
      {"SELECT 1;", 9},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(CompletionWordStart(c.text), c.start) << "text: " << c.text;
  }
}

TEST(ShellTest, CommonCompletion) {
  struct Case {
    const char* word;
    std::vector<std::string> candidates;
    const char* expected;
  };
  const Case kCases[] = {
      {"sel", {}, "sel"},
      {"sel", {"select"}, "select"},
      {"kafka.ex", {"kafka.\"existing-topic-1\""}, "kafka.\"existing-topic-1\""},
      {"loc", {"local", "localtime", "localtimestamp"}, "local"},
      {"ads", {"ads", "ads_catalog"}, "ads"},
      // The common prefix drops what was typed: keep the word.
      {"kafka.ex", {"kafka.\"existing-topic-1\"", "kafka.\"existing-topic-2\""}, "kafka.ex"},
      {"ve", {"\"VENICE\"", "venice"}, "ve"},
      // Never inside a UTF-8 sequence (é is C3 A9, è is C3 A8).
      {"\"", {"\"\xC3\xA9t\xC3\xA9\"", "\"\xC3\xA8re\""}, "\""},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(CommonCompletion(c.word, c.candidates), c.expected) << "word: " << c.word;
  }
}

TEST(ShellTest, HistoryEntryEncoding) {
  const char* kCases[] = {
      "SELECT 1;",
      "SELECT a,\n  b\nFROM t;",
      "SELECT '\\n' -- a backslash and an n\n;",
      "\\",
      "a\r\nb",
      "",
  };
  for (const char* c : kCases) {
    const std::string encoded = EncodeHistoryEntry(c);
    EXPECT_EQ(encoded.find('\n'), std::string::npos) << "entry: " << c;
    EXPECT_EQ(DecodeHistoryEntry(encoded), c) << "entry: " << c;
  }
  EXPECT_EQ(DecodeHistoryEntry("a\\qb\\"), "a\\qb\\");
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/hop-shell-test-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(ShellTest, HistoryRoundTripsThroughItsFile) {
  TempDir dir;
  const std::string path = dir.path() + "/history";
  {
    History h(path);
    ASSERT_TRUE(h.Load().ok());  // missing: empty
    EXPECT_TRUE(h.entries().empty());
    ASSERT_TRUE(h.Add("!tables").ok());
    ASSERT_TRUE(h.Add("SELECT a,\n  b\nFROM t;").ok());
    ASSERT_TRUE(h.Add("SELECT a,\n  b\nFROM t;").ok());  // a repeat is not kept twice
    ASSERT_TRUE(h.Add("").ok());
  }
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  History again(path);
  ASSERT_TRUE(again.Load().ok());
  ASSERT_EQ(again.entries().size(), 2u);
  EXPECT_EQ(again.entries()[0], "!tables");
  EXPECT_EQ(again.entries()[1], "SELECT a,\n  b\nFROM t;");
}

TEST(ShellTest, HistoryKeepsTheNewestEntriesUpToItsLimit) {
  TempDir dir;
  const std::string path = dir.path() + "/history";
  {
    History h(path, 3);
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(h.Add("!tables T" + std::to_string(i)).ok());
    EXPECT_EQ(h.entries().size(), 3u);
  }
  History capped(path, 3);
  ASSERT_TRUE(capped.Load().ok());
  ASSERT_EQ(capped.entries().size(), 3u);
  EXPECT_EQ(capped.entries().front(), "!tables T2");
  EXPECT_EQ(capped.entries().back(), "!tables T4");
  // Loading rewrote the file with only those.
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "!tables T2\n!tables T3\n!tables T4\n");
}

TEST(ShellTest, HistoryThatCannotBeWrittenIsAnErrorNotACrash) {
  History h("/nonexistent-dir/for/hop/history");
  EXPECT_TRUE(h.Load().ok());
  Status st = h.Add("!tables");
  EXPECT_EQ(st.code(), StatusCode::kUnavailable);
  EXPECT_NE(st.message().find("cannot write /nonexistent-dir/for/hop/history"), std::string::npos)
      << st.message();
  EXPECT_EQ(h.entries().size(), 1u);  // kept for this session all the same
}

// A reader that returns scripted lines, Ctrl-C as kInterrupted, and records prompts and recalls.
class ScriptedReader : public LineReader {
 public:
  static constexpr const char* kCtrlC = "\x03";
  explicit ScriptedReader(std::vector<std::string> lines) : lines_(std::move(lines)) {}

  Result Read(const std::string& prompt, std::string& line) override {
    prompts.push_back(prompt);
    if (next_ >= lines_.size()) return Result::kEof;
    line = lines_[next_++];
    return line == kCtrlC ? Result::kInterrupted : Result::kLine;
  }
  void Remember(const std::string& entry) override { remembered.push_back(entry); }

  std::vector<std::string> prompts;
  std::vector<std::string> remembered;

 private:
  std::vector<std::string> lines_;
  size_t next_ = 0;
};

// A session on a fresh state directory holding the test environment.
class ShellLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::SqliteStoreOptions opts;
    opts.durable = false;
    store_ = std::move(store::SqliteStore::Open(dir_.path(), opts)).value();
    ApplyOptions apply;
    apply.file = hop::testing::SourcePath("test/sql/env/samples.yaml");
    std::ostringstream out, err;
    ASSERT_EQ(RunApply(apply, *store_, out, err), 0) << err.str();
    session_ = std::make_unique<session::Session>(*store_, session::Properties{});
  }

  TempDir dir_;
  std::unique_ptr<store::SqliteStore> store_;
  std::unique_ptr<session::Session> session_;
  std::ostringstream out_;
  std::ostringstream err_;
};

TEST_F(ShellLoopTest, RunsMultiLineStatementsAndCommandsAndGoesOnAfterErrors) {
  History history(dir_.path() + "/history");
  Shell shell(*session_, *store_, &history, out_, err_);
  ScriptedReader reader({
      "SET mode",     // a statement over three lines
      "  = 'apply'",  //
      ";",            //
      "",             // blank lines between items are nothing
      "SHOW mode; SHOW namespace;",
      "!describe nope.nope",  // fails; the loop goes on
      "SELECT 'half",         // dropped by Ctrl-C
      ScriptedReader::kCtrlC, "!help", "!quit",
      "SHOW mode;",  // never read
  });
  EXPECT_EQ(shell.Run(reader, false), 1);
  EXPECT_NE(out_.str().find("| mode | apply |"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("| namespace | default |"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("!quit, !exit"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("!describe <table>"), std::string::npos) << out_.str();
  EXPECT_EQ(err_.str(), "Catalog Error: Schema for NOPE.NOPE not found.\n");
  const char* p = Shell::kPrompt;
  const char* c = Shell::kContinuationPrompt;
  EXPECT_EQ(reader.prompts, (std::vector<std::string>{p, c, c, p, p, p, p, c, p, p}));
  const std::vector<std::string> expected = {
      "SET mode\n  = 'apply'\n;", "SHOW mode; SHOW namespace;", "!describe nope.nope", "!help"};
  EXPECT_EQ(reader.remembered, expected);
  History saved(dir_.path() + "/history");
  ASSERT_TRUE(saved.Load().ok());
  EXPECT_EQ(std::vector<std::string>(saved.entries().begin(), saved.entries().end()), expected);
}

TEST_F(ShellLoopTest, EndOfInputRunsOrDropsTheUnfinishedStatement) {
  {
    Shell shell(*session_, *store_, nullptr, out_, err_);
    ScriptedReader reader({"SHOW", "mode"});
    EXPECT_EQ(shell.Run(reader, true), 0);
    EXPECT_NE(out_.str().find("| mode | create |"), std::string::npos) << out_.str();
  }
  out_.str("");
  Shell shell(*session_, *store_, nullptr, out_, err_);
  ScriptedReader reader({"SHOW", "mode"});
  EXPECT_EQ(shell.Run(reader, false), 0);
  EXPECT_EQ(out_.str(), "");
}

TEST_F(ShellLoopTest, UnwritableHistoryWarnsOnce) {
  History history("/nonexistent-dir/for/hop/history");
  Shell shell(*session_, *store_, &history, out_, err_);
  ScriptedReader reader({"SHOW mode;", "SHOW namespace;", "!exit"});
  EXPECT_EQ(shell.Run(reader, false), 0);
  EXPECT_EQ(
      err_.str(),
      "hop: history is not saved: cannot write /nonexistent-dir/for/hop/history: No such file "
      "or directory\n");
  EXPECT_EQ(reader.remembered.size(), 2u);
}

TEST_F(ShellLoopTest, CompletionNamesFollowTheCatalog) {
  Shell shell(*session_, *store_, nullptr, out_, err_);
  EXPECT_EQ(Join(shell.Complete("select * from ads.pa")), "ads.page_views");
  EXPECT_EQ(Join(shell.Complete("select * from kafka.ex")),
            "kafka.\"existing-topic-1\" kafka.\"existing-topic-2\"");
  EXPECT_EQ(Join(shell.Complete("select * from mysql.testdb.")),
            "mysql.testdb.\"orders\" mysql.testdb.\"users\"");
  EXPECT_EQ(Join(shell.Complete("!describe venice-c")), "\"VENICE-CLUSTER0\"");
  EXPECT_EQ(Join(shell.Complete("select * from kafka.new")), "");
  // DDL adds a table; the next completion sees it.
  ScriptedReader reader({"CREATE TABLE kafka.new_events (k VARCHAR, n INT);"});
  EXPECT_EQ(shell.Run(reader, false), 0) << err_.str();
  EXPECT_EQ(Join(shell.Complete("select * from kafka.new")), "kafka.new_events");
  // The unfinished statement comes before the line being typed.
  EXPECT_TRUE(shell.Feed("SELECT *", reader));
  EXPECT_EQ(shell.pending(), "SELECT *");
  EXPECT_EQ(Join(shell.Complete("FROM profile.mem")), "profile.members");
  EXPECT_EQ(Join(shell.Complete("!ta")), "");  // not a command inside a statement
}

// Ctrl-C while a query runs cancels it (SIGINT, as the terminal sends it to the process); the
// shell goes on with the next statement.
TEST_F(ShellLoopTest, CtrlCCancelsTheRunningQueryAndTheShellGoesOn) {
  catalog::LocalProvisioner local(dir_.path());
  catalog::Provisioners provisioners;
  provisioners.Register("local", &local);
  session::Properties props;
  props.state_dir = dir_.path();
  props.provisioners = &provisioners;
  session::Session session(*store_, props);
  Shell shell(session, *store_, nullptr, out_, err_);
  shell.set_cancel_on_interrupt(true);
  ScriptedReader setup({
      "CREATE DATABASE localdb WITH (url 'jdbc:local:', schema 'LOCAL');",
      "CREATE TABLE local.n (x INTEGER);",
      "INSERT INTO local.n SELECT a.x FROM (VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), "
      "(10)) AS a (x) CROSS JOIN (VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), (10)) AS "
      "b (x) CROSS JOIN (VALUES (1), (2), (3), (4), (5)) AS c (x);",
  });
  ASSERT_EQ(shell.Run(setup, false), 0) << err_.str();
  // A query of 500^4 rows, which would run for minutes, and a Ctrl-C after a moment.
  std::thread ctrl_c([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(::getpid(), SIGINT);
  });
  ScriptedReader reader({"SELECT COUNT(*) FROM local.n a, local.n b, local.n c, local.n d;",
                         "SELECT COUNT(*) AS rows_after FROM local.n;"});
  EXPECT_EQ(shell.Run(reader, false), 1);
  ctrl_c.join();
  EXPECT_NE(err_.str().find("Execution Error: the query was cancelled"), std::string::npos)
      << err_.str();
  EXPECT_NE(out_.str().find(" ROWS_AFTER\n------------\n        500\n(1 row)"), std::string::npos)
      << out_.str();
  // Ctrl-C between statements has its default action again (the handler was put back).
  struct sigaction now = {};
  sigaction(SIGINT, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

}  // namespace
}  // namespace hop::cli
