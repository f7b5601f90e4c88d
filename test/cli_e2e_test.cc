// End-to-end tests of the `hop` binary: the commands as a user runs them, exit statuses included.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "test/lib/datadriven.h"
#include "test/lib/fixtures.h"
#include "test/lib/hop_serve.h"
#include "test/lib/postgres_server.h"
#include "test/lib/small_file_system.h"

extern char** environ;

namespace {

struct HopRun {
  int status;
  std::string out;  // stdout and stderr, interleaved
};

// A shell command line, its standard input empty.
HopRun Command(const std::string& command) {
  HopRun r{0, ""};
  FILE* p = popen(("(" + command + ") 2>&1 < /dev/null").c_str(), "r");
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

HopRun Hop(const std::string& args, const std::string& input = "") {
  std::string cmd = std::string(HOP_BINARY) + " " + args + " 2>&1";
  // Tests run in parallel processes: each input gets a file of its own.
  std::string in;
  if (!input.empty()) {
    char tmpl[] = "/tmp/hop-e2e-stdin-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd >= 0) close(fd);
    in = tmpl;
    std::ofstream(in) << input;
    cmd += " < " + in;
  }
  HopRun r{0, ""};
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (!in.empty()) std::filesystem::remove(in);
  return r;
}

TEST(CliTest, VersionAndHelp) {
  HopRun v = Hop("--version");
  EXPECT_EQ(v.status, 0);
  EXPECT_EQ(v.out.rfind("hop ", 0), 0u) << v.out;
  HopRun h = Hop("--help");
  EXPECT_EQ(h.status, 0);
  for (const char* cmd : {"check", "apply", "get", "delete", "crds", "--state"}) {
    EXPECT_NE(h.out.find(cmd), std::string::npos) << cmd;
  }
  // A usage error is exit status 2, whatever the mistake (docs/resources.md).
  EXPECT_EQ(Hop("no-such-command").status, 2);
  EXPECT_EQ(Hop("get").status, 2);
  EXPECT_EQ(Hop("--kube-qps -1 get views").status, 2);
  EXPECT_EQ(Hop("import --no-such-option").status, 2);
  HopRun no_state = Hop("--state '' get views");
  EXPECT_EQ(no_state.status, 2) << no_state.out;
  EXPECT_NE(no_state.out.find("--state names no directory"), std::string::npos) << no_state.out;
  // A namespace that no object could be in is refused before anything runs.
  HopRun bad_namespace = Hop("--namespace ../etc -e 'SELECT 1'");
  EXPECT_EQ(bad_namespace.status, 2) << bad_namespace.out;
  EXPECT_NE(bad_namespace.out.find("--namespace: invalid DNS-1123 label"), std::string::npos)
      << bad_namespace.out;
  // A subcommand's options are defined only when the command line names it (docs/
  // architecture.md, "Start-up"): its help and its parsing see them; another subcommand refuses
  // them as unknown.
  HopRun serve_help = Hop("serve --help");
  EXPECT_EQ(serve_help.status, 0);
  for (const char* option : {"--pg-port", "--http-port", "--max-jobs", "--workers"}) {
    EXPECT_NE(serve_help.out.find(option), std::string::npos) << option << serve_help.out;
  }
  HopRun set_help = Hop("watermark set --help");
  EXPECT_EQ(set_help.status, 0);
  EXPECT_NE(set_help.out.find("--force"), std::string::npos) << set_help.out;
  HopRun foreign = Hop("get views --pg-port 5432");
  EXPECT_EQ(foreign.status, 2);
  EXPECT_NE(foreign.out.find("--pg-port"), std::string::npos) << foreign.out;
}

// A numeric option of hop serve given something that is not a number of its kind says so, naming
// the option and what it takes, rather than CLI11's `Could not convert` or `Value abc not in
// range` (docs/cli.md); a value out of range says that; all are usage errors.
TEST(CliTest, ANumericOptionGivenANonNumberSaysSo) {
  struct Case {
    const char* option;
    const char* value;
    const char* says;
  };
  const Case kCases[] = {
      {"--pg-idle-in-transaction-timeout", "abc",
       "--pg-idle-in-transaction-timeout: 'abc' is not a number of seconds (0 to 2147483.647)"},
      {"--pg-idle-timeout", "abc", "--pg-idle-timeout: 'abc' is not a number of seconds"},
      {"--pg-idle-timeout", "nan", "--pg-idle-timeout: 'nan' is not a number of seconds"},
      {"--pg-idle-timeout", "-1",
       "--pg-idle-timeout: -1 is out of range: it takes a number of seconds from 0 to "
       "2147483.647"},
      {"--pg-max-connections", "abc",
       "--pg-max-connections: 'abc' is not a whole number (1 to 2147483647)"},
      {"--pg-max-connections", "1.5", "--pg-max-connections: '1.5' is not a whole number"},
      {"--pg-max-message-bytes", "abc", "--pg-max-message-bytes: 'abc' is not a whole number"},
      {"--pg-max-message-bytes", "-1", "--pg-max-message-bytes: -1 is out of range"},
      {"--pg-port", "abc", "--pg-port: 'abc' is not a whole number (0 to 65535)"},
      {"--pg-port", "70000", "--pg-port: 70000 is out of range"},
      {"--http-port", "abc", "--http-port: 'abc' is not a whole number (0 to 65535)"},
      {"--http-max-body-bytes", "abc", "--http-max-body-bytes: 'abc' is not a whole number"},
      {"--http-max-body-bytes", "-1", "--http-max-body-bytes: -1 is out of range"},
      {"--workers", "abc", "--workers: 'abc' is not a whole number"},
      {"--max-jobs", "abc", "--max-jobs: 'abc' is not a whole number"},
      {"--store-history", "abc", "--store-history: 'abc' is not a whole number"},
      // Decimal, whatever the leading zeros: as octal, 0100000 would be port 32768.
      {"--pg-port", "0100000", "--pg-port: 0100000 is out of range"},
      {"--store-history", "-08", "--store-history: -08 is out of range"},
  };
  // A value wrongly taken would start the server: `timeout` ends it, and the test fails.
  hop::testing::TempDir dir("hop-numeric-options");
  for (const Case& c : kCases) {
    const HopRun r = Command(std::string("timeout 20 ") + HOP_BINARY + " --state " + dir.path() +
                             " serve " + c.option + " " + c.value);
    EXPECT_EQ(r.status, 2) << c.option << " " << c.value << ": " << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << c.option << " " << c.value << ": " << r.out;
  }
  // hop operator's and hop wait's too, before anything else is looked at.
  const Case kOthers[] = {
      {"operator --lease-duration", "abc",
       "--lease-duration: 'abc' is not a number of seconds (0 to 3600)"},
      {"operator --renew-deadline", "nan", "--renew-deadline: 'nan' is not a number of seconds"},
      {"operator --retry-period", "-2", "--retry-period: -2 is out of range"},
      {"operator --workers", "two", "--workers: 'two' is not a whole number"},
      {"wait --timeout", "soon", "--timeout: 'soon' is not a number of seconds (0 to 86400)"},
      {"wait --timeout", "0x5", "--timeout: '0x5' is not a number of seconds"},
  };
  for (const Case& c : kOthers) {
    const HopRun r = Command(std::string("timeout 20 ") + HOP_BINARY + " --state " + dir.path() +
                             " " + c.option + " " + c.value);
    EXPECT_EQ(r.status, 2) << c.option << " " << c.value << ": " << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << c.option << " " << c.value << ": " << r.out;
  }
  const HopRun qps = Hop("--kube-qps many get views");
  EXPECT_EQ(qps.status, 2) << qps.out;
  EXPECT_NE(qps.out.find("--kube-qps: 'many' is not a number of requests a second"),
            std::string::npos)
      << qps.out;
}

// The options that take a value, of the command `path` and of each command under it, as their
// --help lists them (`--workers INT=2`, `-n,--namespace TEXT`): {command, option}.
void ValueOptions(const std::string& path,
                  std::vector<std::pair<std::string, std::string>>* found) {
  const HopRun help = Hop(path + " --help");
  ASSERT_EQ(help.status, 0) << path << ": " << help.out;
  std::istringstream lines(help.out);
  std::string section;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] != ' ') {
      section = line;
      continue;
    }
    std::istringstream words(line);
    std::string first, second;
    words >> first >> second;
    if (section == "Subcommands:" && !first.empty()) {
      ValueOptions(path + " " + first, found);
    } else if (section == "Options:" && !second.empty() &&
               std::all_of(second.begin(),
                           second.begin() + std::min(second.find('='), second.size()),
                           [](char c) { return std::isupper(static_cast<unsigned char>(c)); })) {
      const size_t long_name = first.find("--");
      if (long_name != std::string::npos) found->emplace_back(path, first.substr(long_name));
    }
  }
}

// An option given with `=` and nothing after it needs a value: it is a usage error naming the
// option, for every option of every command that takes one, rather than taking the next
// argument as its value (`--kube-qps= 5`) or CLI11's `1 required INT missing` (docs/cli.md).
TEST(CliTest, AnOptionGivenAnEmptyValueAfterItsEqualsSignSaysItNeedsOne) {
  hop::testing::TempDir dir("hop-empty-values");
  std::vector<std::pair<std::string, std::string>> options;
  ValueOptions("", &options);
  std::set<std::string> seen;
  for (const auto& [command, option] : options) seen.insert(command + " " + option);
  for (const char* expected :
       {" --kube-qps", " --state", " --execute", " serve --workers", " serve --pg-port",
        " get --namespace", " watermark set --namespace", " pg-user add --pg-users",
        " wait --timeout", " operator --workers"}) {
    EXPECT_TRUE(seen.count(expected)) << expected << " is not among the options found";
  }
  for (const auto& [command, option] : options) {
    // Last on the line, and followed by an argument it would otherwise take. A value wrongly
    // taken could start a server: `timeout` ends it, and the test fails.
    for (const std::string after : {"", " 5"}) {
      const HopRun r = Command("timeout 20 " + std::string(HOP_BINARY) + " --state " + dir.path() +
                               command + " " + option + "=" + after);
      EXPECT_EQ(r.status, 2) << command << " " << option << "=" << after << ": " << r.out;
      EXPECT_NE(r.out.find(option + ": needs a value, and nothing follows its '='"),
                std::string::npos)
          << command << " " << option << "=" << after << ": " << r.out;
    }
  }
  // An argument of that form that is another option's value is that value, as written; an
  // unknown option of that form is named as written.
  const HopRun comment = Hop("--state " + dir.path() + " --format csv -e --x= -e 'SELECT 7'");
  EXPECT_EQ(comment.status, 0) << comment.out;
  EXPECT_NE(comment.out.find("7"), std::string::npos) << comment.out;
  const HopRun unknown = Hop("--state " + dir.path() + " get views --bogus=");
  EXPECT_EQ(unknown.status, 2) << unknown.out;
  EXPECT_NE(unknown.out.find("not expected: --bogus=\n"), std::string::npos) << unknown.out;
  // A flag written so stays set, as before.
  const HopRun flag = Hop("--state " + dir.path() + " get views --all-namespaces=");
  EXPECT_EQ(flag.status, 0) << flag.out;
}

// hop serve takes its numbers as written: a port with a leading zero is decimal, not octal, and
// an idle timeout under a millisecond is one millisecond, never no limit, so a client that waits
// half a second between two queries is disconnected (FATAL 57P05) before the second.
TEST(CliTest, ServeTakesItsNumericOptionsAsWritten) {
  hop::testing::TempDir dir("hop-idle-ms");
  const int free_port = hop::testing::FreePort();
  hop::testing::HopServe serve(HOP_BINARY, dir.path() + "/state",
                               {"--no-operator", "--pg-port", "0" + std::to_string(free_port),
                                "--pg-idle-timeout", "0.0001"});
  ASSERT_TRUE(serve.Start()) << serve.log();
  const std::string log = serve.log();
  const std::string mark = "PostgreSQL protocol on 127.0.0.1:";
  const size_t at = log.find(mark);
  ASSERT_NE(at, std::string::npos) << log;
  const int port = std::atoi(log.c_str() + at + mark.size());
  EXPECT_EQ(port, free_port) << log;
  const HopRun r = Command("psql 'host=127.0.0.1 port=" + std::to_string(port) +
                           " user=hop dbname=hop' -c \"SELECT 1\" -c '\\! sleep 0.5' -c "
                           "\"SELECT 'second' || 'ran'\"");
  EXPECT_EQ(r.out.find("secondran"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("idle-session timeout"), std::string::npos) << r.out;
}

// Each shared library `hop` maps costs every command its loading and relocation
// (docs/architecture.md, "Start-up"): a release build maps glibc's and nothing else.
TEST(CliTest, ACommandMapsOnlyTheLibrariesItNeedsAtStart) {
  HopRun r = Command("LD_TRACE_LOADED_OBJECTS=1 " + std::string(HOP_BINARY));
  ASSERT_EQ(r.status, 0) << r.out;
  std::set<std::string> mapped;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string name;
    if (words >> name) mapped.insert(std::filesystem::path(name).filename().string());
  }
  ASSERT_TRUE(mapped.count("libc.so.6")) << r.out;
  for (const std::string& name : mapped) {
    EXPECT_EQ(name.find("libfmt"), std::string::npos) << r.out;
    EXPECT_EQ(name.find("libspdlog"), std::string::npos) << r.out;
    EXPECT_EQ(name.find("libsqlite3"), std::string::npos) << r.out;
    EXPECT_EQ(name.find("libyaml"), std::string::npos) << r.out;
    EXPECT_EQ(name.find("libpq"), std::string::npos) << r.out;
    EXPECT_EQ(name.find("libcurl"), std::string::npos) << r.out;
    EXPECT_EQ(name.find("libcrypto"), std::string::npos) << r.out;
#ifndef __SANITIZE_ADDRESS__  // the sanitizers' runtime needs the shared libstdc++
    EXPECT_EQ(name.find("libstdc++"), std::string::npos) << r.out;
    EXPECT_EQ(name.find("libgcc_s"), std::string::npos) << r.out;
#endif
  }
}

TEST(CliTest, CheckReportsErrorsAndExitsNonZero) {
  HopRun ok = Hop("check -", "SELECT 1; CREATE MATERIALIZED VIEW a.b AS SELECT * FROM c.d;");
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_EQ(ok.out, "<stdin>: 2 statement(s) OK\n");
  HopRun bad = Hop("check -", "SELECT 1;\nSELECT FROM;\n");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("at line 2, column 8"), std::string::npos) << bad.out;
  HopRun printed = Hop("check --print --dialect flink -", "select a from t");
  EXPECT_EQ(printed.out, "SELECT `A` FROM `T`;\n");
  EXPECT_EQ(Hop("check --dialect oracle -", "select 1").status, 2);
  // Random bytes are an error, never a crash.
  std::string noise;
  for (int i = 0; i < 4096; ++i) noise.push_back(static_cast<char>((i * 7919) % 251 + 1));
  HopRun r = Hop("check -", noise);
  EXPECT_EQ(r.status, 1) << r.out.substr(0, 200);
}

// Output that does not reach standard output (a full disk, here /dev/full; a closed descriptor)
// fails the command, so that `hop manifests > file && kubectl apply -f file` stops at a
// half-written file; output that does reach it leaves the status as it was.
TEST(CliTest, ACommandWhoseOutputIsLostFails) {
  char tmpl[] = "/tmp/hop-e2e-XXXXXX";
  const std::string state = mkdtemp(tmpl);
  const std::string hop = std::string(HOP_BINARY) + " --state " + state;
  ASSERT_EQ(Hop("--state " + state + " apply -f " +
                hop::testing::SourcePath("examples/demo-environment.yaml"))
                .status,
            0);
  for (const std::string args : {"--version", "crds", "manifests", "get databases",
                                 "get databases -o yaml", "-e 'SELECT 1'", "export"}) {
    for (const std::string lost : {" > /dev/full", " >&-"}) {
      HopRun r = Command(hop + " " + args + lost);
      EXPECT_EQ(r.status, 1) << args << lost << ": " << r.out;
      EXPECT_NE(r.out.find("cannot write to standard output"), std::string::npos)
          << args << lost << ": " << r.out;
    }
    HopRun kept = Command(hop + " " + args + " > /dev/null");
    EXPECT_EQ(kept.status, 0) << args << ": " << kept.out;
    EXPECT_EQ(kept.out, "") << args;
  }
  // A command that failed keeps its own status and message.
  HopRun failed = Command(hop + " get databases nope > /dev/full");
  EXPECT_EQ(failed.status, 1) << failed.out;
  EXPECT_NE(failed.out.find("Not Found"), std::string::npos) << failed.out;
  std::filesystem::remove_all(state);
}

TEST(CliTest, ResourcesRoundTripThroughAStateDirectory) {
  char tmpl[] = "/tmp/hop-e2e-XXXXXX";
  const std::string state = mkdtemp(tmpl);
  const std::string demo = hop::testing::SourcePath("examples/demo-environment.yaml");
  HopRun a = Hop("--state " + state + " apply -f " + demo);
  ASSERT_EQ(a.status, 0) << a.out;
  EXPECT_NE(a.out.find("database.hoptimator.linkedin.com/ads-database created"), std::string::npos);
  HopRun again = Hop("--state " + state + " apply -f " + demo);
  EXPECT_EQ(again.out.find("created"), std::string::npos) << again.out;
  EXPECT_EQ(again.out.find("configured"), std::string::npos) << again.out;
  HopRun get = Hop("--state " + state + " get db");
  EXPECT_NE(get.out.find("profile-database"), std::string::npos) << get.out;
  HopRun one = Hop("--state " + state + " get jobt flink-template -o yaml");
  EXPECT_NE(one.out.find("{{flink.app.type==SQL}}"), std::string::npos) << one.out;
  HopRun missing = Hop("--state " + state + " get db nope");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.out.find("Not Found"), std::string::npos) << missing.out;
  HopRun del = Hop("--state " + state + " delete -f " + demo);
  EXPECT_EQ(del.status, 0) << del.out;
  EXPECT_NE(Hop("--state " + state + " get cm").out.find("No resources found"), std::string::npos);
  // An empty name (a variable that expanded to nothing) is refused, not taken for "every object".
  HopRun empty = Hop("--state " + state + " get databases ''");
  EXPECT_EQ(empty.status, 2) << empty.out;
  EXPECT_NE(empty.out.find("the object name is empty"), std::string::npos) << empty.out;
  HopRun crds = Hop("crds");
  EXPECT_EQ(crds.status, 0);
  EXPECT_NE(crds.out.find("name: tableprovisionjobs.hoptimator.linkedin.com"), std::string::npos);
  std::filesystem::remove_all(state);
}

// `hop apply` refuses a View over a physical table's name with CREATE VIEW's words, and writes
// nothing of the file; a View stored over one anyway (by an older hop) does not hide the table.
TEST(CliTest, ApplyRefusesAViewOverAPhysicalTablesName) {
  char tmpl[] = "/tmp/hop-e2e-XXXXXX";
  const std::string state = mkdtemp(tmpl);
  const std::string demo = hop::testing::SourcePath("examples/demo-environment.yaml");
  ASSERT_EQ(Hop("--state " + state + " apply -f " + demo).status, 0);
  const std::string shadow = R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: View
metadata: {name: ads-page-views}
spec: {schema: ADS, view: PAGE_VIEWS, sql: "SELECT 1 AS x"}
)";
  HopRun refused = Hop("--state " + state + " apply -f -", shadow);
  EXPECT_EQ(refused.status, 1) << refused.out;
  EXPECT_NE(refused.out.find("Cannot overwrite physical table PAGE_VIEWS with a view."),
            std::string::npos)
      << refused.out;
  EXPECT_NE(refused.out.find("nothing was applied"), std::string::npos) << refused.out;
  HopRun read =
      Hop("--state " + state + " -e 'SELECT COUNT(*) AS n FROM ads.page_views' --format csv");
  EXPECT_EQ(read.status, 0) << read.out;
  EXPECT_EQ(read.out.find("X"), std::string::npos) << read.out;
  std::filesystem::remove_all(state);
}

// A parse error's caret stays under the character it points at when the line it shows has a
// secret redacted, which changes the line's length.
TEST(CliTest, TheCaretUnderARedactedLinePointsAtTheError) {
  HopRun r = Hop("-e \"SELECT 'password=hunter2' AS x FROM t WHERE ((\"");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(r.out.find("hunter2"), std::string::npos) << r.out;
  // The column is the statement's as typed, as PostgreSQL's position counts the query sent.
  EXPECT_NE(r.out.find("at line 1, column 47\n"), std::string::npos) << r.out;
  const std::string line = "SELECT 'password=<redacted>' AS x FROM t WHERE ((";
  const size_t at = r.out.find(line + "\n");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string caret = r.out.substr(
      at + line.size() + 1, r.out.find('\n', at + line.size() + 1) - at - line.size() - 1);
  // The statement ends after the second `(`: the caret is past it, at the end of the line.
  EXPECT_EQ(caret, std::string(line.size(), ' ') + "^") << r.out;
}

// Queries from the command line: results in the format --format asks for, errors on stderr with a
// failing exit status, and local tables that outlive the process and are read by the next one.
TEST(CliTest, QueriesRunFromTheCommandLineInTheChosenFormat) {
  char tmpl[] = "/tmp/hop-e2e-XXXXXX";
  const std::string state = mkdtemp(tmpl);
  const std::string flag = "--state " + state;
  ASSERT_EQ(
      Hop(flag + " apply -f " + hop::testing::SourcePath("examples/demo-environment.yaml")).status,
      0);
  HopRun csv = Hop(flag +
                   " --format csv -e 'SELECT first_name, last_name FROM profile.members "
                   "ORDER BY first_name DESC LIMIT 2'");
  EXPECT_EQ(csv.status, 0) << csv.out;
  EXPECT_EQ(csv.out, "FIRST_NAME,LAST_NAME\nCharlie,Chapman\nBob,Baker\n");
  HopRun json = Hop(flag + " --format json -e 'SELECT COUNT(*) AS n FROM ads.page_views'");
  EXPECT_EQ(json.out, "[\n{\"N\":2}\n]\n");
  HopRun bad = Hop(flag + " --format xml -e 'SELECT 1'");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find("--format must be table, mysql, csv, tsv or json, not 'xml'"),
            std::string::npos)
      << bad.out;
  // A table made by one process, filled by a second, read by a third.
  EXPECT_EQ(Hop(flag + " -e 'CREATE TABLE local.kv (k VARCHAR, v INTEGER)'").status, 0);
  HopRun insert = Hop(flag + " -e \"INSERT INTO local.kv VALUES ('a', 1), ('b', 2)\"");
  EXPECT_EQ(insert.out, "INSERT INTO LOCAL.KV: 2 rows inserted\n") << insert.out;
  HopRun sum = Hop(flag + " --format tsv -e 'SELECT SUM(v) AS total FROM local.kv'");
  EXPECT_EQ(sum.out, "TOTAL\n3\n");
  HopRun failed = Hop(flag + " -e 'SELECT 1 / 0' -e 'SELECT 2 AS two'");
  EXPECT_EQ(failed.status, 1);
  EXPECT_NE(failed.out.find("Execution Error: Division by zero (at row 1)"), std::string::npos)
      << failed.out;
  EXPECT_NE(failed.out.find(" TWO\n-----\n   2\n(1 row)"), std::string::npos) << failed.out;
  std::filesystem::remove_all(state);
}

// The quickstart of `make demo`: the demo environment, the script, `hop get` and the drops.
TEST(CliTest, TheQuickstartRuns) {
  char tmpl[] = "/tmp/hop-e2e-XXXXXX";
  const std::string state = mkdtemp(tmpl);
  const std::string flag = "--state " + state;
  ASSERT_EQ(
      Hop(flag + " apply -f " + hop::testing::SourcePath("examples/demo-environment.yaml")).status,
      0);
  HopRun run = Hop(flag + " -f " + hop::testing::SourcePath("examples/quickstart.sql"));
  EXPECT_EQ(run.status, 0) << run.out;
  for (const char* line :
       {"CREATE MATERIALIZED VIEW ADS.AUDIENCE: view/ads-audience, pipeline/ads-audience, "
        "flinksessionjob/ads-database-audience created",
        "CREATE TRIGGER AUDIENCE_REPORT: tabletrigger/audiencereport created",
        "FIRE MATERIALIZED VIEW ADS.AUDIENCE: view/ads-audience fired",
        // Rows: a join of demo tables, a view, a local table after its INSERT.
        " Alice      | Addison   | urn:li:page:10000\n Bob        | Baker     | urn:li:page:10001\n"
        "(2 rows)",
        "INSERT INTO LOCAL.VISITS: 3 rows inserted",
        " FIRST_NAME | VISITS | MINUTES\n------------+--------+---------\n"
        " Bob        |      1 |    41.5\n Alice      |      2 |    15.5\n(2 rows)",
        "LOCAL.VISITS in local/default.db (state directory)",
        // The system tables, after the operator ran (!wait).
        // Nothing here runs a FlinkSessionJob: its pipeline and its element say so.
        " ads-audience          | false | false  | Pending: no controller for FlinkSessionJob in "
        "this control plane",
        // Rows moved: the local views hop refreshed, the second when the first advanced.
        " MEMBER_URN        | MINUTES\n-------------------+---------\n"
        " urn:li:member:123 |    15.5\n urn:li:member:456 |    41.5\n(2 rows)",
        " local-busiest         | true  | false  | Ready.",
        " local-minutesbymember | true  | false  | Ready.",
        " refresh/local-busiest                 | true  | false  | refreshed by hop at ",
        " busiestreport  | 1970-01-01 00:00:00.000 |",
        " FlinkSessionJob/ads-database-audience | false | false  | no controller for "
        "FlinkSessionJob in this control plane | null",
        " audiencereport | 1970-01-01 00:00:00.000 |"}) {
    EXPECT_NE(run.out.find(line), std::string::npos) << line << "\n" << run.out;
  }
  EXPECT_NE(Hop(flag + " get tabletriggers").out.find("audiencereport"), std::string::npos);
  // Nothing here runs the Flink job: the pipeline says so rather than that it is ready.
  auto pipeline =
      nlohmann::json::parse(Hop(flag + " get pipeline ads-audience -o json").out, nullptr, false);
  ASSERT_FALSE(pipeline.is_discarded());
  EXPECT_EQ(pipeline["status"].value("ready", true), false) << pipeline.dump();
  EXPECT_EQ(pipeline["status"].value("message", ""),
            "Pending: no controller for FlinkSessionJob in this control plane")
      << pipeline.dump();
  // The trigger ran its job here: FIRE, then the operator and the runtime in this process.
  HopRun logs = Hop(flag + " logs tabletrigger/audiencereport");
  EXPECT_EQ(logs.status, 0) << logs.out;
  EXPECT_NE(logs.out.find("ADS.AUDIENCE advanced from 1970-01-01T00:00:00.000Z to "),
            std::string::npos)
      << logs.out;
  EXPECT_NE(logs.out.find("] Succeeded"), std::string::npos) << logs.out;
  // The trigger's SQL name works as well as its resource name.
  EXPECT_EQ(Hop(flag + " logs tabletrigger/audience_report").out, logs.out);
  HopRun drop = Hop(flag +
                    " -e 'DROP TRIGGER audience_report;' -e 'DROP MATERIALIZED VIEW ads.audience;'"
                    " -e 'DROP VIEW ads.visitors;'");
  EXPECT_EQ(drop.status, 0) << drop.out;
  EXPECT_NE(Hop(flag + " get flinksessionjobs").out.find("No resources found"), std::string::npos);
  std::filesystem::remove_all(state);
}

// A view's refreshes leave the files of the last one only: each earlier refresh's Job is
// deleted when the next ends, and its work directory and log go with it (docs/runtime.md,
// "Logs"); the last stays, as the view's status.refresh.lastJob.
TEST(CliTest, AViewKeepsTheFilesOfItsLastRefreshOnly) {
  char tmpl[] = "/tmp/hop-e2e-XXXXXX";
  const std::string state = mkdtemp(tmpl);
  const std::string flag = "--state " + state;
  ASSERT_EQ(
      Hop(flag + " apply -f " + hop::testing::SourcePath("examples/demo-environment.yaml")).status,
      0);
  ASSERT_EQ(Hop(flag + " -f " + hop::testing::SourcePath("examples/quickstart.sql")).status, 0);
  for (int i = 0; i < 3; ++i) {
    HopRun again =
        Hop(flag + " -f -", "REFRESH MATERIALIZED VIEW local.minutes_by_member;\n!wait 60\n");
    ASSERT_EQ(again.status, 0) << again.out;
  }
  auto named = [&](const std::string& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(state + "/" + dir, ec)) {
      const std::string name = entry.path().stem().string();
      if (name.rfind("local-minutesbymember-refresh-", 0) == 0) names.push_back(name);
    }
    return names;
  };
  auto view = nlohmann::json::parse(Hop(flag + " get view local-minutesbymember -o json").out,
                                    nullptr, false);
  ASSERT_FALSE(view.is_discarded());
  const std::string last = view["status"]["refresh"].value("lastJob", "");
  ASSERT_FALSE(last.empty()) << view.dump();
  EXPECT_GE(view["status"]["refresh"].value("runs", 0), 4) << view.dump();
  EXPECT_EQ(named("logs/default"), std::vector<std::string>{last});
  EXPECT_EQ(named("jobs/default"), std::vector<std::string>{last});
  EXPECT_EQ(Hop(flag + " logs job/" + last).status, 0);
  std::filesystem::remove_all(state);
}

// `hop export` and `hop import` move a state directory's resources (docs/kubernetes.md): the
// quickstart's views, pipelines and their elements, its triggers with the runs they recorded,
// tables, a Secret. Exporting the copy gives the same text, and importing again changes nothing.
TEST(CliTest, ExportAndImportMoveAStateDirectory) {
  char from_tmpl[] = "/tmp/hop-e2e-XXXXXX";
  const std::string from = mkdtemp(from_tmpl);
  char to_tmpl[] = "/tmp/hop-e2e-XXXXXX";
  const std::string to = mkdtemp(to_tmpl);
  ASSERT_EQ(Hop("--state " + from + " apply -f " +
                hop::testing::SourcePath("examples/demo-environment.yaml"))
                .status,
            0);
  HopRun quickstart =
      Hop("--state " + from + " -f " + hop::testing::SourcePath("examples/quickstart.sql"));
  ASSERT_EQ(quickstart.status, 0) << quickstart.out;
  ASSERT_EQ(Hop("--state " + from + " apply -f -",
                "apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\n"
                "stringData: {password: s3cret-value}\n")
                .status,
            0);

  const std::string file = from + "/export.yaml";
  HopRun exported = Hop("--state " + from + " export -o " + file);
  ASSERT_EQ(exported.status, 0) << exported.out;
  EXPECT_NE(exported.out.find(" objects written to " + file), std::string::npos) << exported.out;
  // The refresh Jobs the quickstart ran stay behind.
  EXPECT_NE(exported.out.find("batch/v1 Jobs left out"), std::string::npos) << exported.out;
  EXPECT_EQ(std::filesystem::status(file).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* part : {"kind: FlinkSessionJob", "name: audiencereport-report-",
                           "outcome: Succeeded", "password: czNjcmV0LXZhbHVl", "kind: Table\n"}) {
    EXPECT_NE(text.find(part), std::string::npos) << part;
  }
  EXPECT_EQ(text.find("uid:"), std::string::npos);

  HopRun imported = Hop("--state " + to + " import -f " + file);
  ASSERT_EQ(imported.status, 0) << imported.out;
  EXPECT_NE(
      imported.out.find("TableTrigger.hoptimator.linkedin.com/default/audiencereport created"),
      std::string::npos)
      << imported.out;
  EXPECT_NE(imported.out.find(" updated, 0 unchanged, 0 failed\n"), std::string::npos);
  EXPECT_EQ(Hop("--state " + to + " export").out, text);
  HopRun again = Hop("--state " + to + " import -f -", text);
  EXPECT_EQ(again.status, 0) << again.out;
  EXPECT_NE(again.out.find(": 0 created, 0 updated, "), std::string::npos) << again.out;
  EXPECT_EQ(again.out.find(" created\n"), std::string::npos) << again.out;
  // The copy answers SQL with what the original recorded.
  HopRun runs = Hop("--state " + to +
                    " -e 'SELECT \"TRIGGER\", outcome FROM \"k8s\".trigger_runs ORDER BY 1'");
  EXPECT_NE(runs.out.find("audiencereport | Succeeded"), std::string::npos) << runs.out;

  HopRun unknown = Hop("--state " + from + " export --kind gadgets");
  EXPECT_EQ(unknown.status, 1);
  EXPECT_NE(unknown.out.find("hop knows no kind \"gadgets\""), std::string::npos);
  EXPECT_NE(Hop("--state " + to + " import").status, 0);  // -f is required

  HopRun manifests = Hop("manifests");
  EXPECT_EQ(manifests.status, 0);
  for (const char* part : {"name: views.hoptimator.linkedin.com", "kind: ClusterRole\n",
                           "kind: Deployment", "image: hop:", "path: /readyz"}) {
    EXPECT_NE(manifests.out.find(part), std::string::npos) << part;
  }
  EXPECT_EQ(Hop("manifests --namespace Hop_System").status, 2);
  HopRun help = Hop("--help");
  for (const char* cmd : {"export", "import", "manifests"}) {
    EXPECT_NE(help.out.find(cmd), std::string::npos) << cmd;
  }
  std::filesystem::remove_all(from);
  std::filesystem::remove_all(to);
}

}  // namespace

namespace {

// A state directory with the test environment applied.
class StateDir {
 public:
  StateDir() {
    char tmpl[] = "/tmp/hop-e2e-sql-XXXXXX";
    path_ = mkdtemp(tmpl);
    HopRun a = Hop("--state " + path_ + " apply -f " +
                   hop::testing::SourcePath("test/sql/env/samples.yaml"));
    EXPECT_EQ(a.status, 0) << a.out;
  }
  ~StateDir() { std::filesystem::remove_all(path_); }
  std::string Flag() const { return "--state " + path_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Makes LOCAL.BIG hold the ids 1..rows (and, `with_text`, s = 'row <id>'), written into the local
// file with the sqlite3 shell: the millions of rows the refresh tests need come faster that way
// than through hop. The table is made by CREATE TABLE local.big (id BIGINT[, s VARCHAR]).
void FillBig(const StateDir& state, int rows, bool with_text = true) {
  HopRun r = Command("sqlite3 " + state.path() +
                     "/local/default.db \"DELETE FROM BIG; WITH RECURSIVE c(x) AS (SELECT 1 "
                     "UNION ALL SELECT x + 1 FROM c WHERE x < " +
                     std::to_string(rows) + ") INSERT INTO BIG SELECT x" +
                     (with_text ? ", 'row ' || x" : "") + " FROM c\"");
  ASSERT_EQ(r.status, 0) << r.out;
}

// A trigger's runs as `hop get` shows them: each run's outcome and window end.
std::vector<std::string> Runs(const StateDir& state, const std::string& trigger) {
  HopRun get = Hop(state.Flag() + " get tabletrigger " + trigger + " -o json");
  auto doc = nlohmann::json::parse(get.out, nullptr, false);
  std::vector<std::string> out;
  if (doc.is_discarded() || !doc.contains("status") || !doc["status"].contains("jobs")) {
    return out;
  }
  for (const auto& run : doc["status"]["jobs"]) {
    out.push_back(run.value("outcome", "Running") + " " + run.value("to", ""));
  }
  return out;
}

// View watermarks fire triggers (compatibility.md §13) end to end: two triggers on a view over two
// tables each run once per FIRE VIEW, in this process (it holds the state directory's lease);
// a paused trigger runs the fire it missed when resumed; FIRE TRIGGER during a run is refused.
TEST(CliTest, TriggersOnAViewRunTheirJobsLocally) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("test/sql/env/jobs.yaml")).status,
      0);
  HopRun setup = Hop(state.Flag() + " -f -", R"(
CREATE VIEW ads.visits AS SELECT first_name, page_urn FROM ads.page_views NATURAL JOIN profile.members;
CREATE TRIGGER first_report ON ads.visits AS 'echo-report';
CREATE TRIGGER second_report ON ads.visits AS 'echo-report';
FIRE VIEW ads.visits;
!wait 60
!metrics
)");
  ASSERT_EQ(setup.status, 0) << setup.out;
  // Both runs counted, with how long their fire waited for its process.
  EXPECT_NE(setup.out.find("| trigger_runs_started | 2 "), std::string::npos) << setup.out;
  EXPECT_NE(setup.out.find("| fire_to_start_p99_ms |"), std::string::npos) << setup.out;
  auto first = Runs(state, "firstreport");
  auto second = Runs(state, "secondreport");
  ASSERT_EQ(first.size(), 1u) << setup.out;
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(first[0].substr(0, 10), "Succeeded ");
  EXPECT_EQ(first[0], second[0]);  // the same fire: the view's watermark

  // The job's output is in its log, with the window it covered.
  HopRun views = Hop(state.Flag() + " get view ads-visits -o json");
  const std::string watermark = nlohmann::json::parse(views.out)["status"]["watermark"];
  EXPECT_EQ(first[0], "Succeeded " + watermark);
  HopRun logs = Hop(state.Flag() + " logs job/" + "firstreport-" + [&] {
    std::string digits;
    for (char c : watermark) {
      if (isdigit(static_cast<unsigned char>(c))) digits += c;
      if (c == 'T') digits += 't';
    }
    return digits;
  }());
  EXPECT_NE(logs.out.find("firstreport covers 1970-01-01T00:00:00.000Z to " + watermark),
            std::string::npos)
      << logs.out;

  // Paused, the first trigger records the next fire and runs it after RESUME.
  HopRun paused = Hop(state.Flag() + " -f -", R"(
PAUSE TRIGGER first_report;
FIRE VIEW ads.visits;
!wait 60
)");
  ASSERT_EQ(paused.status, 0) << paused.out;
  EXPECT_EQ(Runs(state, "firstreport").size(), 1u);
  EXPECT_EQ(Runs(state, "secondreport").size(), 2u);
  HopRun resumed = Hop(state.Flag() + " -f -", "RESUME TRIGGER first_report;\n!wait 60\n");
  ASSERT_EQ(resumed.status, 0) << resumed.out;
  first = Runs(state, "firstreport");
  second = Runs(state, "secondreport");
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[1], second[1]);

  // A fire while the trigger's run is going is refused.
  HopRun busy = Hop(state.Flag() + " -f -", R"(
CREATE TRIGGER slow ON ads.visits AS 'slow-report' WITH ('job.properties.seconds' '3');
FIRE TRIGGER slow;
FIRE TRIGGER slow;
!wait 60
)");
  EXPECT_EQ(busy.status, 1) << busy.out;
  EXPECT_NE(busy.out.find("Trigger SLOW has an in-flight execution"), std::string::npos)
      << busy.out;
  auto slow = Runs(state, "slow");
  ASSERT_EQ(slow.size(), 1u) << busy.out;
  EXPECT_EQ(slow[0].substr(0, 10), "Succeeded ");
}

// The files of a trigger's runs stay bounded: a run's work directory goes when the trigger
// deletes its Job, its log when the trigger's status (its newest 20 runs) no longer lists it,
// and the logs of the runs a dropped trigger listed go with it.
TEST(CliTest, ATriggersRunsLeaveNoFilesBeyondItsHistory) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("test/sql/env/jobs.yaml")).status,
      0);
  std::string script =
      "CREATE VIEW ads.visits AS SELECT first_name, page_urn FROM ads.page_views NATURAL JOIN "
      "profile.members;\nCREATE TRIGGER kept ON ads.visits AS 'echo-report';\n";
  for (int i = 0; i < 23; ++i) script += "FIRE VIEW ads.visits;\n!wait 60\n";
  HopRun fired = Hop(state.Flag() + " -f -", script);
  ASSERT_EQ(fired.status, 0) << fired.out;
  ASSERT_EQ(Runs(state, "kept").size(), 20u);
  auto count = [&](const std::string& dir) {
    size_t n = 0;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(state.path() + "/" + dir, ec)) {
      n += entry.path().filename().string().rfind("kept-", 0) == 0;
    }
    return n;
  };
  EXPECT_EQ(count("jobs/default"), 0u);
  EXPECT_EQ(count("logs/default"), 20u);
  HopRun logs = Hop(state.Flag() + " logs tabletrigger/kept");
  EXPECT_EQ(logs.status, 0) << logs.out;
  EXPECT_EQ(logs.out.find("no local log"), std::string::npos) << logs.out;
  size_t runs = 0;
  for (size_t at = logs.out.find("=== kept-"); at != std::string::npos;
       at = logs.out.find("=== kept-", at + 1)) {
    ++runs;
  }
  EXPECT_EQ(runs, 20u) << logs.out;
  // Dropped by a process whose operator has reconciled the trigger (docs/runtime.md, "Logs").
  HopRun dropped = Hop(state.Flag() + " -f -",
                       "FIRE VIEW ads.visits;\n!wait 60\nDROP TRIGGER kept;\n!wait 60\n");
  ASSERT_EQ(dropped.status, 0) << dropped.out;
  EXPECT_EQ(count("logs/default"), 0u);
}

// `hop serve` in the background, as its own process; killed with `signal` by Stop.
class Serve {
 public:
  explicit Serve(const StateDir& state) : state_(state) { Start(); }
  ~Serve() { Stop(SIGKILL); }
  void Start() {
    const std::string hop = HOP_BINARY;
    const std::string dir = state_.path();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    const char* argv[] = {hop.c_str(), "--state", dir.c_str(), "serve", nullptr};
    if (posix_spawn(&pid_, hop.c_str(), &actions, nullptr, const_cast<char**>(argv), environ) !=
        0) {
      pid_ = -1;
    }
    posix_spawn_file_actions_destroy(&actions);
  }
  pid_t pid() const { return pid_; }
  // Whether it holds the state directory's lease (the lease file names its pid).
  bool Leads() const {
    std::ifstream in(std::filesystem::path(state_.path()) / "operator.lease");
    std::string word, pid;
    in >> word >> pid;
    return pid_ > 0 && word == "pid" && pid == std::to_string(pid_);
  }
  // Sends `signal` and waits for the process; its exit status, or -1.
  int Stop(int signal) {
    if (pid_ <= 0) return -1;
    kill(pid_, signal);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  const StateDir& state_;
  pid_t pid_ = -1;
};

// Polls `done` every 50 ms for up to `seconds`.
bool Eventually(const std::function<bool()>& done, int seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

std::string Status(const StateDir& state, const std::string& kind, const std::string& name,
                   const char* field) {
  auto doc = nlohmann::json::parse(Hop(state.Flag() + " get " + kind + " " + name + " -o json").out,
                                   nullptr, false);
  if (doc.is_discarded() || !doc.contains("status") || !doc["status"].contains(field)) return "";
  return doc["status"][field].get<std::string>();
}

// `hop get -w` in one process sees what another writes to the same state directory, row by
// row, and stops with status 0 on SIGINT; `hop get -w | head -n 1` ends once head has gone.
TEST(CliTest, GetWatchSeesWritesOfOtherProcesses) {
  StateDir state;
  const std::string out_path = state.path() + "/watch.out";
  const std::string hop = HOP_BINARY;
  const std::string dir = state.path();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  const char* argv[] = {hop.c_str(), "--state", dir.c_str(), "get",          "cm",
                        "-w",        "--output-watch-events", nullptr};
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, hop.c_str(), &actions, nullptr, const_cast<char**>(argv), environ),
            0);
  posix_spawn_file_actions_destroy(&actions);
  const auto output = [&] {
    std::ifstream in(out_path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  const auto apply = [&](const std::string& name) {
    return Hop(state.Flag() + " apply -f -",
               "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + "}\ndata: {a: b}\n");
  };
  // Written until the watch shows one: the watcher may not have listed yet when the first is.
  int n = 0;
  ASSERT_TRUE(Eventually(
      [&] {
        EXPECT_EQ(apply("from-elsewhere-" + std::to_string(++n)).status, 0);
        return output().find("from-elsewhere-") != std::string::npos;
      },
      20))
      << output();
  HopRun del = Hop(state.Flag() + " delete cm from-elsewhere-1");
  ASSERT_EQ(del.status, 0) << del.out;
  EXPECT_TRUE(Eventually([&] { return output().find("DELETED") != std::string::npos; }, 20))
      << output();
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);

  // A closed pipe ends the watch quietly at its next row.
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    for (int i = 0; i < 3; ++i) apply("after-head-" + std::to_string(i));
  });
  HopRun piped = Command("bash -c '" + hop + " " + state.Flag() +
                         " get cm -w | head -n 1; echo \"status ${PIPESTATUS[0]}\"'");
  writer.join();
  EXPECT_NE(piped.out.find("status 0"), std::string::npos) << piped.out;
}

// Ctrl-C stops a script between statements, after reporting every statement it wrote: what the
// output says was created is what the store holds. The exit status is 130, and standard error
// says where the script stopped. (A SIGINT used to kill hop with the output of the statements
// written last still held back, waiting for their fsync.)
TEST(CliTest, AnInterruptedScriptReportsEveryStatementItWrote) {
  StateDir state;
  const std::string script = state.path() + "/views.sql";
  {
    std::ofstream out(script);
    for (int i = 0; i < 5000; ++i)
      out << "CREATE VIEW stopped_" << i << " AS SELECT " << i << " AS x;\n";
  }
  const std::string out_path = state.path() + "/script.out";
  const std::string err_path = state.path() + "/script.err";
  const std::string hop = HOP_BINARY;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  // SIGINT as a terminal's Ctrl-C delivers it, whatever this test inherited.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  const std::string dir = state.path();
  const char* argv[] = {hop.c_str(), "--state", dir.c_str(), "-f", script.c_str(), nullptr};
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, hop.c_str(), &actions, &attr, const_cast<char**>(argv), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  const auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  const auto reported = [&] {
    const std::string out = read(out_path);
    size_t n = 0;
    for (size_t at = out.find("created"); at != std::string::npos;
         at = out.find("created", at + 1)) {
      ++n;
    }
    return n;
  };
  ASSERT_TRUE(Eventually([&] { return reported() >= 20; }, 60)) << read(err_path);
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  const std::string err = read(err_path);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal "
                                 << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                 << "; stderr: " << err;
  EXPECT_EQ(WEXITSTATUS(status), 130) << err;
  EXPECT_NE(err.find("hop: interrupted: the script stopped before line "), std::string::npos)
      << err;
  const size_t shown = reported();
  ASSERT_LT(shown, 5000u) << "the script was not stopped";
  HopRun views = Hop(state.Flag() + " get views -o json");
  ASSERT_EQ(views.status, 0) << views.out;
  size_t stored = 0;
  for (size_t at = views.out.find("\"default-stopped"); at != std::string::npos;
       at = views.out.find("\"default-stopped", at + 1)) {
    ++stored;
  }
  EXPECT_EQ(stored, shown) << "statements written but not reported, or reported but not written";
  EXPECT_NE(err.find("line " + std::to_string(shown + 1) + " of"), std::string::npos) << err;
}

// A script saved by a Windows editor, with a byte-order mark first and CRLF line ends, runs as
// it reads, whichever way it is given.
TEST(CliTest, AScriptSavedByAWindowsEditorRuns) {
  StateDir state;
  const std::string script = "\xEF\xBB\xBFSELECT 1 AS one;\r\nSELECT 'a b' AS two;\r\n";
  const std::string file = state.path() + "/windows.sql";
  std::ofstream(file) << script;
  for (const HopRun& r : {Hop(state.Flag() + " -f " + file), Hop(state.Flag() + " -f -", script),
                          Hop(state.Flag(), script)}) {
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("ONE"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("a b"), std::string::npos) << r.out;
  }
  HopRun checked = Hop("check " + file);
  EXPECT_EQ(checked.status, 0) << checked.out;
  EXPECT_NE(checked.out.find("2 statement(s) OK"), std::string::npos) << checked.out;
}

// `hop serve` reconciles a state directory that other hop processes write to; an interactive
// or -e hop beside it does not reconcile, yet can wait for it; SIGTERM stops it cleanly.
TEST(CliTest, ServeReconcilesWhatOtherProcessesWrite) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("test/sql/env/jobs.yaml")).status,
      0);
  Serve serve(state);
  // Wait until serve holds the lease.
  ASSERT_TRUE(Eventually([&] { return serve.Leads(); }, 20));
  HopRun fire = Hop(state.Flag() + " -f -", R"(
CREATE VIEW ads.visits AS SELECT first_name, page_urn FROM ads.page_views NATURAL JOIN profile.members;
CREATE TRIGGER report ON ads.visits AS 'echo-report';
FIRE VIEW ads.visits;
)");
  ASSERT_EQ(fire.status, 0) << fire.out;
  HopRun wait = Hop(state.Flag() + " wait --timeout 60");
  EXPECT_EQ(wait.status, 0) << wait.out;
  const std::string watermark = Status(state, "view", "ads-visits", "watermark");
  ASSERT_FALSE(watermark.empty());
  EXPECT_EQ(Status(state, "tabletrigger", "report", "watermark"), watermark);
  EXPECT_TRUE(serve.Leads());  // the -f and the wait above did not take over
  EXPECT_EQ(serve.Stop(SIGTERM), 0);
}

// `method` `path` on 127.0.0.1:`port`, with `body` as JSON when not empty: the status code and
// the body; {0, why} when there is no answer (nothing listens, say).
std::pair<int, std::string> HttpRequest(int port, const std::string& method,
                                        const std::string& path, const std::string& body = "") {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return {0, "no socket"};
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  std::string reply;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    std::string request =
        method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n";
    if (!body.empty()) {
      request +=
          "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
          "\r\n";
    }
    request += "\r\n" + body;
    if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
        static_cast<ssize_t>(request.size())) {
      char buf[4096];
      ssize_t n;
      while ((n = recv(fd, buf, sizeof buf, 0)) > 0) reply.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  if (reply.compare(0, 9, "HTTP/1.1 ") != 0) return {0, "no answer: " + reply};
  const size_t at = reply.find("\r\n\r\n");
  return {std::atoi(reply.c_str() + 9),
          at == std::string::npos ? std::string() : reply.substr(at + 4)};
}

std::pair<int, std::string> HttpGet(int port, const std::string& path) {
  return HttpRequest(port, "GET", path);
}

// The port of the Kubernetes API of the `hop serve` logging to `log`, once its /readyz answers
// 200; 0 when that does not come within 20 s.
int ReadyHttpPort(const std::string& log) {
  int port = 0;
  const bool ready = Eventually(
      [&] {
        const std::string text = hop::testing::ReadFileText(log);
        const std::string mark = "Kubernetes API on http://127.0.0.1:";
        const size_t at = text.find(mark);
        if (at != std::string::npos) port = std::atoi(text.c_str() + at + mark.size());
        return port > 0 && HttpGet(port, "/readyz").first == 200;
      },
      20);
  return ready ? port : 0;
}

// `hop serve` whose state directory is removed while it runs (docs/cli.md, "When the store
// fails"): /readyz answers 503 with the reason at once, /livez stays 200 meanwhile, and the
// process takes no more work and exits with status 1, saying why.
TEST(CliTest, ServeWhoseStateDirectoryIsRemovedIsNotReadyAndStops) {
  hop::testing::TempDir parent("hop-e2e-health");
  const std::string state = parent.path() + "/state";
  const std::string log = parent.path() + "/serve.log";
  const pid_t pid =
      hop::testing::SpawnLogged({HOP_BINARY, "--state", state, "serve", "--http-port", "0"}, log);
  ASSERT_GT(pid, 0);
  const auto exited = [&](int* status) { return waitpid(pid, status, WNOHANG) == pid; };
  const int port = ReadyHttpPort(log);
  ASSERT_GT(port, 0) << hop::testing::ReadFileText(log);
  std::filesystem::remove_all(state);
  std::pair<int, std::string> ready;
  EXPECT_TRUE(Eventually(
      [&] {
        ready = HttpGet(port, "/readyz");
        return ready.first == 503;
      },
      10))
      << ready.first << " " << ready.second;
  EXPECT_NE(ready.second.find("not ready: the store failed: " + state + "/hop.db was removed"),
            std::string::npos)
      << ready.second;
  int status = 0;
  bool gone = Eventually([&] { return exited(&status); }, 30);
  if (!gone) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  ASSERT_TRUE(gone) << "hop serve went on after its state directory was removed\n"
                    << hop::testing::ReadFileText(log);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status;
  EXPECT_NE(hop::testing::ReadFileText(log).find(
                "hop serve: stopping: the store cannot keep what it is given: " + state +
                "/hop.db was removed"),
            std::string::npos)
      << hop::testing::ReadFileText(log);
}

// `hop serve` whose state directory's disk is full (docs/cli.md, "When the store fails"): a
// write fails saying so, /readyz answers 503 with that reason while /livez stays 200, the
// process does not stop, and once there is room again /readyz answers 200 by itself, without a
// write, and writes succeed. The disk is a small tmpfs, filled to the last byte.
TEST(CliTest, ServeWhoseDiskIsFullIsNotReadyUntilThereIsRoomAgain) {
  hop::testing::TempDir parent("hop-e2e-full");
  hop::testing::SmallFileSystem disk(parent.path() + "/disk", "16m");
  ASSERT_TRUE(disk.mounted()) << disk.why() << " (the tests run as root)";
  const std::string state = parent.path() + "/disk/state";
  const std::string log = parent.path() + "/serve.log";
  const pid_t pid =
      hop::testing::SpawnLogged({HOP_BINARY, "--state", state, "serve", "--http-port", "0"}, log);
  ASSERT_GT(pid, 0);
  const int port = ReadyHttpPort(log);
  ASSERT_GT(port, 0) << hop::testing::ReadFileText(log);
  const auto config_map = [](const std::string& name) {
    return nlohmann::json{{"apiVersion", "v1"},
                          {"kind", "ConfigMap"},
                          {"metadata", {{"name", name}}},
                          {"data", {{"k", std::string(512 * 1024, 'v')}}}}
        .dump();
  };
  const std::string maps = "/api/v1/namespaces/default/configmaps";
  ASSERT_NO_FATAL_FAILURE(disk.Fill());
  const auto written = HttpRequest(port, "POST", maps, config_map("full"));
  EXPECT_EQ(written.first, 503) << written.second;
  const std::string said = "the state directory " + state + " has no space left (the disk is full)";
  EXPECT_NE(written.second.find(said), std::string::npos) << written.second;
  const auto ready = HttpGet(port, "/readyz");
  EXPECT_EQ(ready.first, 503) << ready.second;
  EXPECT_NE(ready.second.find("not ready: the store cannot write: " + said), std::string::npos)
      << ready.second;
  EXPECT_NE(HttpGet(port, "/readyz?verbose").second.find("[-]store cannot write: " + said),
            std::string::npos);
  EXPECT_EQ(HttpGet(port, "/livez").first, 200);
  // It does not stop for a full disk (it checks its store's health every second).
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, WNOHANG), 0) << hop::testing::ReadFileText(log);
  EXPECT_EQ(HttpGet(port, "/readyz").first, 503);

  disk.Empty();
  std::pair<int, std::string> again;
  EXPECT_TRUE(Eventually(
      [&] {
        again = HttpGet(port, "/readyz");
        return again.first == 200;
      },
      10))
      << again.first << " " << again.second;
  const auto after = HttpRequest(port, "POST", maps, config_map("room"));
  EXPECT_EQ(after.first, 201) << after.second;
  kill(pid, SIGTERM);
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// A state directory hop may not write to is said to be one, with its path, by `hop -e`, `hop -f`
// and `hop serve`, exit status 1 (it used to be an Internal Error quoting SQLite). As root,
// which any directory lets write, the commands run as the user nobody.
TEST(CliTest, AReadOnlyStateDirectoryIsSaidToBeOne) {
  hop::testing::TempDir parent("hop-e2e-readonly");
  const std::string state = parent.path() + "/state";
  std::string as_user;
  if (geteuid() == 0) {
    ASSERT_EQ(Command("command -v setpriv").status, 0) << "running as root needs setpriv";
    as_user = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
    ASSERT_EQ(chmod(parent.path().c_str(), 0777), 0);
  }
  const std::string script = parent.path() + "/script.sql";
  std::ofstream(script) << "SELECT 1;\n";
  ASSERT_EQ(chmod(script.c_str(), 0644), 0);
  const std::string hop = as_user + HOP_BINARY + " --state " + state;
  HopRun made = Command(hop + " -e 'SELECT 1'");
  ASSERT_EQ(made.status, 0) << made.out;
  ASSERT_EQ(chmod(state.c_str(), 0555), 0);
  const std::string said = "the state directory " + state + " is read-only to this user";
  for (const std::string& command :
       {hop + " -e 'SELECT 1'", hop + " -f " + script, hop + " serve"}) {
    HopRun r = Command(command);
    EXPECT_EQ(r.status, 1) << command << "\n" << r.out;
    EXPECT_NE(r.out.find(said), std::string::npos) << command << "\n" << r.out;
    EXPECT_EQ(r.out.find("Internal"), std::string::npos) << command << "\n" << r.out;
  }
  ASSERT_EQ(chmod(state.c_str(), 0700), 0);
}

// Crash safety: `hop serve` is killed (SIGKILL) at random moments while ten triggers on one view
// take a burst of 100 fires. After a last restart every trigger catches up with the view, the
// windows of its runs follow each other from the start to the last fire without a gap, and no
// fire ever had two Jobs (each run's log shows one attempt).
TEST(CliTest, NoFireIsLostOrRunTwiceWhenServeIsKilled) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("test/sql/env/jobs.yaml")).status,
      0);
  std::string setup =
      "CREATE VIEW ads.visits AS SELECT first_name, page_urn FROM ads.page_views NATURAL JOIN "
      "profile.members;\n";
  for (int i = 0; i < 10; ++i) {
    setup += "CREATE TRIGGER t" + std::to_string(i) + " ON ads.visits AS 'echo-report';\n";
  }
  ASSERT_EQ(Hop(state.Flag() + " -f -", setup).status, 0);

  std::mt19937 random(20261130);
  {
    Serve serve(state);
    for (int round = 0; round < 10; ++round) {
      std::string fires;
      for (int i = 0; i < 10; ++i) fires += "FIRE VIEW ads.visits;\n";
      // Serve may hold the lease or be restarting: -f then reconciles itself or leaves it.
      HopRun r = Hop(state.Flag() + " -f -", fires);
      ASSERT_EQ(r.status, 0) << r.out;
      std::this_thread::sleep_for(std::chrono::milliseconds(random() % 200));
      serve.Stop(SIGKILL);
      serve.Start();
    }
    const std::string last = Status(state, "view", "ads-visits", "watermark");
    ASSERT_FALSE(last.empty());
    for (int i = 0; i < 10; ++i) {
      const std::string name = "t" + std::to_string(i);
      EXPECT_TRUE(
          Eventually([&] { return Status(state, "tabletrigger", name, "watermark") == last; }, 120))
          << name << " did not catch up with " << last;
    }
    EXPECT_EQ(serve.Stop(SIGTERM), 0);
  }
  // Every run left a log: windows are contiguous per trigger, and each Job ran once.
  const std::filesystem::path logs = std::filesystem::path(state.path()) / "logs" / "default";
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> windows;
  for (const auto& entry : std::filesystem::directory_iterator(logs)) {
    std::ifstream in(entry.path());
    std::string line, trigger, from, to;
    int outputs = 0;
    while (std::getline(in, line)) {
      std::istringstream words(line);
      std::string covers, word_to;
      if (line.find(" covers ") != std::string::npos && line.rfind("---", 0) != 0) {
        words >> trigger >> covers >> from >> word_to >> to;
        ++outputs;
      }
    }
    // The command ran once. (The log's own `--- hop:` lines are best effort across a kill: a
    // runner killed while starting an attempt may have written its header already, one killed
    // as it recorded the end may not have written the footer.)
    EXPECT_EQ(outputs, 1) << entry.path();
    ASSERT_FALSE(trigger.empty()) << entry.path();
    windows[trigger].emplace_back(from, to);
  }
  ASSERT_EQ(windows.size(), 10u);
  const std::string last = Status(state, "view", "ads-visits", "watermark");
  for (auto& [trigger, runs] : windows) {
    std::sort(runs.begin(), runs.end(),
              [](const auto& a, const auto& b) { return a.second < b.second; });
    std::string expected_from = "1970-01-01T00:00:00.000Z";
    std::set<std::string> ends;
    for (const auto& [from, to] : runs) {
      EXPECT_EQ(from, expected_from) << trigger;
      EXPECT_TRUE(ends.insert(to).second) << trigger << ": two runs for " << to;
      expected_from = to;
    }
    EXPECT_EQ(expected_from, last) << trigger;
  }
}

// The names of a trigger's runs' Jobs, oldest first.
std::vector<std::string> RunJobs(const StateDir& state, const std::string& trigger) {
  auto doc = nlohmann::json::parse(
      Hop(state.Flag() + " get tabletrigger " + trigger + " -o json").out, nullptr, false);
  std::vector<std::string> out;
  if (doc.is_discarded() || !doc.contains("status") || !doc["status"].contains("jobs")) return out;
  for (const auto& run : doc["status"]["jobs"]) out.push_back(run.value("name", ""));
  return out;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Issue #10 point 3: a Job whose command the system refuses to start (a 200 KB argument:
// "Argument list too long") is a failed attempt: recorded with the reason in the Job, its log
// and the trigger's run, subject to backoffLimit 0, and the trigger takes the next fire.
TEST(CliTest, AJobThatCannotStartFailsItsRun) {
  StateDir state;
  const std::string yaml = state.path() + "/too-long.yaml";
  std::ofstream(yaml) << "apiVersion: hoptimator.linkedin.com/v1alpha1\n"
                         "kind: JobTemplate\nmetadata: {name: too-long}\nspec:\n  yaml: |\n"
                         "    apiVersion: batch/v1\n    kind: Job\n    metadata: {name: big}\n"
                         "    spec:\n      backoffLimit: 0\n      template:\n        spec:\n"
                         "          restartPolicy: Never\n          containers:\n"
                         "          - name: big\n            image: busybox\n"
                         "            command: [echo, " +
                             std::string(200 * 1024, 'x') + "]\n";
  ASSERT_EQ(Hop(state.Flag() + " apply -f " + yaml).status, 0);
  HopRun run = Hop(state.Flag() + " -f -",
                   "CREATE TRIGGER big ON ads.page_views AS 'too-long';\nFIRE TRIGGER big;\n"
                   "!wait 60\n");
  ASSERT_EQ(run.status, 0) << run.out.substr(0, 2000);
  auto runs = Runs(state, "big");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].substr(0, 7), "Failed ");
  const std::string message = Status(state, "tabletrigger", "big", "message");
  EXPECT_NE(message.find("BackoffLimitExceeded: Job has reached the specified backoff limit (0): "
                         "attempt 1 could not start: cannot start echo: Argument list too long"),
            std::string::npos)
      << message;
  HopRun get = Hop(state.Flag() + " get tabletriggers");
  EXPECT_NE(get.out.find("LAST RUN"), std::string::npos) << get.out;
  EXPECT_NE(get.out.find("   Failed "), std::string::npos) << get.out;
  HopRun logs = Hop(state.Flag() + " logs tabletrigger/big");
  EXPECT_EQ(Count(logs.out,
                  "attempt 1 could not start: cannot start echo: Argument list too "
                  "long"),
            1u)
      << logs.out.substr(0, 3000);
  EXPECT_LT(logs.out.size(), 10000u);  // the 200 KB command is not copied into the log

  HopRun again = Hop(state.Flag() + " -f -", "FIRE TRIGGER big;\n!wait 60\n");
  EXPECT_EQ(again.status, 0) << again.out.substr(0, 2000);
  EXPECT_EQ(Runs(state, "big").size(), 2u);
}

// Issue #11 point 1: a run that failed (exit 3, backoffLimit 1) leaves its trigger free: FIRE
// TRIGGER runs again from the old watermark, so the failed window is covered; FIRE TRIGGER ...
// RETRY runs exactly the failed window again, in a Job of its own; `hop get` shows the outcome.
TEST(CliTest, AFailedRunNeverWedgesItsTriggerAndCanBeRetried) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("test/sql/env/jobs.yaml")).status,
      0);
  const std::string gate = state.path() + "/gate";
  HopRun first = Hop(state.Flag() + " -f -",
                     "CREATE TRIGGER gated ON ads.page_views AS 'gated-report' WITH "
                     "('job.properties.gate' '" +
                         gate + "');\nFIRE TRIGGER gated;\n!wait 60\n");
  ASSERT_EQ(first.status, 0) << first.out;
  auto runs = Runs(state, "gated");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].substr(0, 7), "Failed ");
  EXPECT_NE(Hop(state.Flag() + " get tabletriggers").out.find("   Failed "), std::string::npos);

  HopRun second = Hop(state.Flag() + " -f -", "FIRE TRIGGER gated;\n!wait 60\n");
  ASSERT_EQ(second.status, 0) << second.out;
  runs = Runs(state, "gated");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].substr(0, 7), "Failed ");
  const std::string failed_to = runs[1].substr(7);
  HopRun logs = Hop(state.Flag() + " logs tabletrigger/gated");
  EXPECT_NE(logs.out.find("gated covers 1970-01-01T00:00:00.000Z to " + failed_to),
            std::string::npos)
      << logs.out;

  // The gate opens; RETRY runs (1970..., failed_to] again, and succeeds.
  std::ofstream(gate) << "open\n";
  HopRun retry = Hop(state.Flag() + " -f -", "FIRE TRIGGER gated RETRY;\n!wait 60\n");
  ASSERT_EQ(retry.status, 0) << retry.out;
  EXPECT_NE(retry.out.find("FIRE TRIGGER GATED: tabletrigger/gated retry requested"),
            std::string::npos)
      << retry.out;
  runs = Runs(state, "gated");
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[2], "Succeeded " + failed_to);
  const auto jobs = RunJobs(state, "gated");
  EXPECT_EQ(jobs[2], jobs[1] + "-r1");
  EXPECT_EQ(Status(state, "tabletrigger", "gated", "watermark"), failed_to);
  EXPECT_NE(Hop(state.Flag() + " get tabletriggers").out.find("   Succeeded "), std::string::npos);
  // Nothing failed is left to retry.
  HopRun nothing = Hop(state.Flag() + " -e 'FIRE TRIGGER gated RETRY'");
  EXPECT_EQ(nothing.status, 1);
  EXPECT_NE(
      nothing.out.find("has no failed run to retry: its last run, " + jobs[2] + ", succeeded"),
      std::string::npos)
      << nothing.out;
}

// `hop get jobs` shows what a Job's status records, in kubectl's columns, and what it runs for
// (docs/resources.md, "Commands"): a view's refresh that succeeded is Complete 1/1, one whose
// query fails Failed 0/1, each with how long it ran; a trigger's run that nothing has started
// (no local Jobs) is Pending, with no duration.
TEST(CliTest, GetJobsShowsTheirStatusDurationAndOwner) {
  StateDir state;
  ASSERT_EQ(hop::testing::ApplyTestEnvironment(HOP_BINARY, state.path()).second, 0);
  HopRun refreshes = Hop(state.Flag() + " -f -", R"(
CREATE TABLE local.orders (member VARCHAR, amount VARCHAR);
INSERT INTO local.orders VALUES ('a', '10'), ('b', 'x');
CREATE MATERIALIZED VIEW local.good AS SELECT member FROM local.orders;
CREATE MATERIALIZED VIEW local.bad AS SELECT SUM(CAST(amount AS INTEGER)) AS total FROM local.orders;
REFRESH MATERIALIZED VIEW local.good;
REFRESH MATERIALIZED VIEW local.bad;
!wait 60
)");
  ASSERT_EQ(refreshes.status, 0) << refreshes.out;
  HopRun pending = Hop(state.Flag() + " --no-local-jobs -f -",
                       "CREATE TRIGGER fine ON ads.page_views AS 'echo-report';\n"
                       "FIRE TRIGGER fine;\n!wait 2\n");
  ASSERT_NE(pending.out.find("has not started"), std::string::npos) << pending.out;
  const std::vector<std::string> fine = RunJobs(state, "fine");
  ASSERT_EQ(fine.size(), 1u);

  HopRun get = Hop(state.Flag() + " get jobs");
  ASSERT_EQ(get.status, 0) << get.out;
  std::istringstream lines(get.out);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::vector<std::string> cells;
    for (std::string w; words >> w;) cells.push_back(w);
    rows.push_back(cells);
  }
  ASSERT_EQ(rows.size(), 4u) << get.out;
  EXPECT_EQ(rows[0],
            (std::vector<std::string>{"NAME", "STATUS", "COMPLETIONS", "DURATION", "OWNER", "AGE"}))
      << get.out;
  // By name: the trigger's run, then the two refreshes.
  ASSERT_EQ(rows[1].size(), 5u) << get.out;  // no DURATION before it starts
  EXPECT_EQ(rows[1][0], fine[0]);
  EXPECT_EQ(std::vector<std::string>(rows[1].begin() + 1, rows[1].end() - 1),
            (std::vector<std::string>{"Pending", "0/1", "tabletrigger/fine"}))
      << get.out;
  ASSERT_EQ(rows[2].size(), 6u) << get.out;
  EXPECT_EQ(rows[2][0].rfind("local-bad-refresh-", 0), 0u) << get.out;
  EXPECT_EQ(rows[2][1], "Failed") << get.out;
  EXPECT_EQ(rows[2][2], "0/1") << get.out;
  EXPECT_EQ(rows[2][3].back(), 's') << get.out;  // seconds: its attempts were brief
  EXPECT_EQ(rows[2][4], "view/local-bad") << get.out;
  ASSERT_EQ(rows[3].size(), 6u) << get.out;
  EXPECT_EQ(rows[3][0].rfind("local-good-refresh-", 0), 0u) << get.out;
  EXPECT_EQ(rows[3][1], "Complete") << get.out;
  EXPECT_EQ(rows[3][2], "1/1") << get.out;
  EXPECT_EQ(rows[3][3].back(), 's') << get.out;
  EXPECT_EQ(rows[3][4], "view/local-good") << get.out;
}

// Issue #10 point 4: with `hop serve` reconciling, a burst of FIRE MATERIALIZED VIEW gives every
// firePolicy Each trigger on the view one run per fire, each window following the last; a
// Coalesce trigger catches up with fewer runs.
TEST(CliTest, EveryFireOfAnEachTriggerIsARun) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("test/sql/env/jobs.yaml")).status,
      0);
  std::string setup =
      "CREATE MATERIALIZED VIEW ads.audience AS SELECT first_name FROM profile.members;\n"
      "CREATE TRIGGER coalesced ON ads.audience AS 'echo-report';\n";
  for (int i = 0; i < 3; ++i) {
    setup += "CREATE TRIGGER each" + std::to_string(i) +
             " ON ads.audience AS 'echo-report' WITH (firePolicy 'Each');\n";
  }
  ASSERT_EQ(Hop(state.Flag() + " -f -", setup).status, 0);
  Serve serve(state);
  ASSERT_TRUE(Eventually([&] { return serve.Leads(); }, 20));
  std::string fires;
  for (int i = 0; i < 10; ++i) fires += "FIRE MATERIALIZED VIEW ads.audience;\n";
  HopRun fired = Hop(state.Flag() + " -f -", fires);
  ASSERT_EQ(fired.status, 0) << fired.out;
  HopRun wait = Hop(state.Flag() + " wait --timeout 120");
  ASSERT_EQ(wait.status, 0) << wait.out;
  const std::string last = Status(state, "view", "ads-audience", "watermark");
  for (int i = 0; i < 3; ++i) {
    const std::string name = "each" + std::to_string(i);
    auto runs = Runs(state, name);
    ASSERT_EQ(runs.size(), 10u) << name;
    for (const std::string& run : runs) EXPECT_EQ(run.substr(0, 10), "Succeeded ") << name;
    EXPECT_EQ(runs.back(), "Succeeded " + last);
    HopRun logs = Hop(state.Flag() + " logs tabletrigger/" + name);
    EXPECT_EQ(Count(logs.out, name + " covers "), 10u) << logs.out;
  }
  auto coalesced = Runs(state, "coalesced");
  ASSERT_FALSE(coalesced.empty());
  EXPECT_LE(coalesced.size(), 10u);
  EXPECT_EQ(coalesced.back(), "Succeeded " + last);
  EXPECT_EQ(serve.Stop(SIGTERM), 0);
}

// Issue #11 point 2: `!wait` and `hop wait` return once the state directory is idle, whichever
// process holds the lease: not while a failed attempt waits for its retry, and under `hop
// serve` as well as in-process; a timeout fails with a message and exit status 1.
TEST(CliTest, WaitReturnsWhenTheStateDirectoryIsIdle) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("test/sql/env/jobs.yaml")).status,
      0);
  // In-process: the first attempt fails and the retry comes a second later.
  HopRun here = Hop(state.Flag() + " -f -",
                    "CREATE TRIGGER flaky ON ads.page_views AS 'flaky-report';\n"
                    "FIRE TRIGGER flaky;\n!wait 60\n");
  ASSERT_EQ(here.status, 0) << here.out;
  auto runs = Runs(state, "flaky");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].substr(0, 10), "Succeeded ");
  EXPECT_EQ(Count(Hop(state.Flag() + " logs tabletrigger/flaky").out, "--- hop: Job "), 2u);
  // A wait of 0 looks at the store once, whatever the operator's checkpoint says.
  EXPECT_EQ(Hop(state.Flag() + " wait --timeout 0").status, 0);
  EXPECT_EQ(Hop(state.Flag() + " -e '!wait 0'").status, 0);

  // With `hop serve` holding the lease.
  Serve serve(state);
  ASSERT_TRUE(Eventually([&] { return serve.Leads(); }, 20));
  HopRun there = Hop(state.Flag() + " -f -", "FIRE TRIGGER flaky;\n!wait 60\n");
  ASSERT_EQ(there.status, 0) << there.out;
  runs = Runs(state, "flaky");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].substr(0, 10), "Succeeded ");

  // Long enough to be running still when the two waits below look, however slow the processes
  // before them (each is a whole `hop`, seconds apiece under the sanitizers on a busy machine).
  HopRun slow = Hop(state.Flag() + " -f -",
                    "CREATE TRIGGER slow ON ads.page_views AS 'slow-report' WITH "
                    "('job.properties.seconds' '30');\nFIRE TRIGGER slow;\n");
  ASSERT_EQ(slow.status, 0) << slow.out;
  HopRun early = Hop(state.Flag() + " wait --timeout 0.5");
  EXPECT_EQ(early.status, 1) << early.out;
  EXPECT_NE(early.out.find("hop wait: Unavailable: still busy after 0.5 s: TableTrigger "
                           "default/slow: "),
            std::string::npos)
      << early.out;
  EXPECT_NE(early.out.find("reconciles the state directory"), std::string::npos) << early.out;
  HopRun command = Hop(state.Flag() + " -e '!wait 0.2'");
  EXPECT_EQ(command.status, 1) << command.out;
  EXPECT_NE(command.out.find("!wait: still busy after 0.2 s"), std::string::npos) << command.out;
  HopRun done = Hop(state.Flag() + " wait --timeout 120");
  EXPECT_EQ(done.status, 0) << done.out;
  runs = Runs(state, "slow");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].substr(0, 10), "Succeeded ");
  EXPECT_TRUE(serve.Leads());
  EXPECT_EQ(Hop(state.Flag() + " wait --timeout 0").status, 0);  // idle: one look is enough
  EXPECT_EQ(Hop(state.Flag() + " wait --timeout -3").status, 2);
  EXPECT_EQ(serve.Stop(SIGTERM), 0);
}

// A wait whose work another process was to do, and that process died while the wait waited:
// the wait takes the lease over and does the work, rather than time out waiting for no one.
TEST(CliTest, AWaitTakesOverFromALeaseHolderThatDied) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("test/sql/env/jobs.yaml")).status,
      0);
  Serve serve(state);
  ASSERT_TRUE(Eventually([&] { return serve.Leads(); }, 20));
  ASSERT_EQ(kill(serve.pid(), SIGSTOP), 0);  // it holds the lease and does nothing
  HopRun waited{-1, ""};
  const auto start = std::chrono::steady_clock::now();
  std::thread script([&] {
    waited = Hop(state.Flag() + " -f -",
                 "CREATE TRIGGER orphaned ON ads.page_views AS 'echo-report';\n"
                 "FIRE TRIGGER orphaned;\n!wait 30\n");
  });
  std::this_thread::sleep_for(std::chrono::seconds(2));
  serve.Stop(SIGKILL);
  script.join();
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(waited.status, 0) << waited.out;
  EXPECT_LT(took, 25) << waited.out;
  auto runs = Runs(state, "orphaned");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].substr(0, 10), "Succeeded ");
}

TEST(CliTest, ExecuteRunsStatementsAndCommandsInOrder) {
  StateDir state;
  HopRun r = Hop(state.Flag() +
                 " -e 'SET hints = \"kafka.source.k1=v1\";' -e 'SHOW hints;'"
                 " -e '!pipeline insert into kafka.\"existing-topic-1\" select * from "
                 "kafka.\"existing-topic-2\"'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("kafka.source.k1=v1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("'k1'='v1'"), std::string::npos) << r.out;
  // Flags set the session too, and a failing item makes the exit status 1 while the others run.
  HopRun flags = Hop(state.Flag() +
                     " --hint kafka.sink.k2=v2 --hint flink.parallelism=2 --mode apply"
                     " -e 'SHOW ALL;' -e '!resolve nope.nope' -e 'SHOW mode;'");
  EXPECT_EQ(flags.status, 1) << flags.out;
  EXPECT_NE(flags.out.find("kafka.sink.k2=v2,flink.parallelism=2"), std::string::npos) << flags.out;
  EXPECT_NE(flags.out.find("Catalog Error: Schema for NOPE.NOPE not found."), std::string::npos)
      << flags.out;
  EXPECT_EQ(flags.out.find("-e:"), std::string::npos) << flags.out;  // -e is not a place
  EXPECT_NE(flags.out.rfind("| mode | apply |"), std::string::npos) << flags.out;
  EXPECT_EQ(Hop(state.Flag() + " --mode sideways -e 'SHOW mode;'").status, 2);
  EXPECT_EQ(Hop(state.Flag() + " --hint novalue -e 'SHOW mode;'").status, 2);
  // `!quit` (or `!exit`) ends a script as it ends the shell: nothing after it runs, from -e, from
  // a file or from standard input, and the status is that of what ran.
  HopRun quit = Hop(state.Flag() +
                        " -e 'SHOW mode;' -e '!quit' -e 'CREATE VIEW after_quit AS "
                        "SELECT 1 AS x;' -f -",
                    "CREATE VIEW after_quit2 AS SELECT 1 AS x;\n");
  EXPECT_EQ(quit.status, 0) << quit.out;
  EXPECT_EQ(quit.out.find("after_quit"), std::string::npos) << quit.out;
  EXPECT_EQ(quit.out.find("unknown command"), std::string::npos) << quit.out;
  HopRun piped =
      Hop(state.Flag() + " -f -",
          "SHOW mode;\n!resolve nope.nope\n!EXIT now\nCREATE VIEW after_exit AS SELECT 1 AS x;\n");
  EXPECT_EQ(piped.status, 1) << piped.out;  // the !resolve failed
  EXPECT_EQ(piped.out.find("after_exit"), std::string::npos) << piped.out;
  EXPECT_EQ(Hop(state.Flag() + " get views").out.find("after"), std::string::npos);
}

TEST(CliTest, FileRunsAScript) {
  StateDir state;
  const std::string script =
      "-- the README's view\n"
      "!pipeline create materialized view ads.audience as select first_name, last_name "
      "from ads.page_views natural join profile.members\n"
      "SET mode = 'apply';\n"
      "!describe PROFILE.MEMBERS\n";
  HopRun r = Hop(state.Flag() + " -f -", script);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("INSERT INTO `ADS`.`AUDIENCE` (`FIRST_NAME`, `LAST_NAME`) SELECT "
                       "`MEMBERS`.`FIRST_NAME`, `MEMBERS`.`LAST_NAME` FROM `ADS`.`PAGE_VIEWS` "
                       "INNER JOIN `PROFILE`.`MEMBERS` ON `PAGE_VIEWS`.`MEMBER_URN` = "
                       "`MEMBERS`.`MEMBER_URN`;"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("| COMPANY_URN | VARCHAR"), std::string::npos) << r.out;
  HopRun bad = Hop(state.Flag() + " -f -", "!pipeline select nope from ads.page_views\n");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("<stdin>: Binder Error: Column 'NOPE' not found in any table at line "
                         "1, column 18"),
            std::string::npos)
      << bad.out;
  EXPECT_EQ(Hop(state.Flag() + " -f /no/such/file").status, 2);
}

// A file named on the command line that cannot be read is a usage error, exit status 2, for
// every command that reads one (docs/cli.md, "Exit status"); what a readable file holds is the
// command's to judge, exit status 1.
TEST(CliTest, AnInputFileThatCannotBeReadIsAUsageError) {
  StateDir state;
  const std::string missing = state.path() + "/missing.yaml";
  const std::string directory = state.path() + "/a-directory";
  std::filesystem::create_directory(directory);
  struct Case {
    const char* command;  // FILE stands for the file
    const char* name;     // how the command names itself in its message
  };
  const Case kCases[] = {
      {"-f FILE", "hop"},
      {"check FILE", "hop check"},
      {"apply -f FILE", "hop apply"},
      {"delete -f FILE", "hop delete"},
      {"import -f FILE", "hop import"},
      // Files options name for hop to read are checked before anything starts.
      {"--kubeconfig FILE get views", "hop"},
      {"serve --http-port 0 --http-token-file FILE", "hop serve"},
      {"serve --http-port 0 --http-tls-cert FILE --http-tls-key FILE", "hop serve"},
      {"serve --pg-port 0 --pg-cert FILE --pg-key FILE", "hop serve"},
      {"serve --pg-port 0 --pg-auth scram-sha-256 --pg-users FILE", "hop serve"},
  };
  for (const Case& c : kCases) {
    for (const std::string& file : {missing, directory}) {
      std::string command = c.command;
      for (size_t at; (at = command.find("FILE")) != std::string::npos;) {
        command.replace(at, 4, file);
      }
      HopRun r = Hop(state.Flag() + " " + command);
      EXPECT_EQ(r.status, 2) << command << "\n" << r.out;
      const std::string said = file == missing
                                   ? std::string(c.name) + ": cannot read " + file
                                   : std::string(c.name) + ": " + file + " is a directory";
      EXPECT_NE(r.out.find(said), std::string::npos) << command << "\n" << r.out;
    }
  }
  // Readable, and wrong inside: the command ran and failed.
  const std::string bad = state.path() + "/bad.yaml";
  std::ofstream(bad) << "a: [1, 2\n";
  for (const char* command : {"apply -f ", "delete -f ", "import -f "}) {
    HopRun r = Hop(state.Flag() + " " + command + bad);
    EXPECT_EQ(r.status, 1) << command << "\n" << r.out;
    EXPECT_NE(r.out.find("end of sequence flow not found"), std::string::npos) << r.out;
  }
}

// YAML's infinities and NaN, and numbers beyond a double, have no JSON form: `hop apply` and
// `hop import` refuse them with the field they are in and store nothing, where they were stored as
// null (or kept as a string); quoted, they are text (docs/resources.md, "YAML").
TEST(CliTest, NumbersJsonCannotHoldAreRefused) {
  StateDir state;
  const std::string document =
      "apiVersion: flink.apache.org/v1beta1\nkind: FlinkSessionJob\nmetadata: {name: ratios}\n"
      "spec:\n  job:\n    args: [a, VALUE]\n";
  const auto with = [&](const std::string& value) {
    std::string text = document;
    text.replace(text.find("VALUE"), 5, value);
    return text;
  };
  for (const char* value : {".inf", "-.Inf", ".nan", "1e999"}) {
    for (const char* command : {" apply -f -", " import -f -"}) {
      HopRun r = Hop(state.Flag() + command, with(value));
      EXPECT_EQ(r.status, 1) << command << " " << value << "\n" << r.out;
      EXPECT_NE(r.out.find("spec.job.args[1]: \"" + std::string(value) + "\""), std::string::npos)
          << command << " " << value << "\n"
          << r.out;
      EXPECT_NE(r.out.find("which JSON cannot represent"), std::string::npos) << r.out;
    }
    EXPECT_EQ(Hop(state.Flag() + " get flinksessionjobs ratios").status, 1) << value;
  }
  HopRun quoted = Hop(state.Flag() + " apply -f -", with("'.inf'"));
  ASSERT_EQ(quoted.status, 0) << quoted.out;
  auto doc = nlohmann::json::parse(Hop(state.Flag() + " get flinksessionjobs ratios -o json").out,
                                   nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["spec"]["job"]["args"], nlohmann::json::parse(R"(["a", ".inf"])"));
}

// `hop graph` prints what !graph prints, from another process than the one that wrote the
// pipelines; bad arguments and unknown names fail with the message and status 1.
TEST(CliTest, GraphPrintsThePipelinesAroundATable) {
  StateDir state;
  HopRun mv = Hop(state.Flag() +
                  " -e 'create materialized view ads.\"PAGE_VIEWS$reverse\" as select "
                  "member_urn, campaign_urn as page_urn from ads.ad_clicks;'");
  ASSERT_EQ(mv.status, 0) << mv.out;
  const std::string want =
      "flowchart LR\n"
      "  n0[(\"ADS.AD_CLICKS\")]\n"
      "  n1[/\"ads-pageviews-reverse<br/>kind: FlinkSessionJob<br/>engine: Flink\"/]\n"
      "  n2[(\"ADS.PAGE_VIEWS\")]\n"
      "  n0 --> n1\n"
      "  n1 --> n2\n";
  HopRun g = Hop(state.Flag() + " graph ADS.AD_CLICKS");
  EXPECT_EQ(g.status, 0) << g.out;
  EXPECT_EQ(g.out, want);
  // The same as the shell's command, which takes the same words.
  HopRun e = Hop(state.Flag() + " -e '!graph ads.ad_clicks --depth 2'");
  EXPECT_EQ(e.out, want);
  HopRun view = Hop(state.Flag() + " graph 'ADS.\"PAGE_VIEWS$reverse\"' --depth 0");
  EXPECT_EQ(view.status, 0) << view.out;
  EXPECT_EQ(view.out.rfind("flowchart LR\n  subgraph n0[\"Materialized View\"]\n", 0), 0u)
      << view.out;
  HopRun json = Hop(state.Flag() + " graph ADS.AD_CLICKS --format json");
  EXPECT_EQ(json.status, 0) << json.out;
  auto doc = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << json.out;
  EXPECT_EQ(doc["root"], "external:ads-database/ADS.AD_CLICKS");
  EXPECT_EQ(doc["nodes"].size(), 3u);
  EXPECT_EQ(doc["edges"][0]["type"], "DEPENDS_ON_SOURCE");
  HopRun other = Hop(state.Flag() + " graph ADS.AD_CLICKS -n elsewhere");
  EXPECT_EQ(other.status, 1);
  EXPECT_EQ(other.out,
            "hop graph: Catalog Error: Identifier ADS.AD_CLICKS does not exist: schema segment "
            "'ADS' not found in this connection.\n");
  struct Bad {
    const char* args;
    const char* message;
  };
  const Bad kBad[] = {
      {"ADS.NOPE", "table 'NOPE' not found in schema ADS."},
      {"ADS.AD_CLICKS --depth x", "--depth requires an integer value"},
      {"ADS.AD_CLICKS --depth -1", "depth must be non-negative; got: -1"},
      {"ADS.AD_CLICKS --format dot", "Unsupported graph format: 'dot'. Available formats: [mermaid, json]"},
      {"'\"ADS.AD_CLICKS'", "Not a well-formed quoted table identifier"},
      {"\"ADS.$(printf '\\001')\"", "table '\\x01' not found in schema ADS."},
  };
  for (const Bad& b : kBad) {
    HopRun r = Hop(state.Flag() + " graph " + b.args);
    EXPECT_EQ(r.status, 1) << b.args << ": " << r.out;
    EXPECT_EQ(r.out.rfind("hop graph: ", 0), 0u) << b.args << ": " << r.out;
    EXPECT_NE(r.out.find(b.message), std::string::npos) << b.args << ": " << r.out;
  }
  EXPECT_NE(Hop(state.Flag() + " graph").status, 0);  // the identifier is required
}

TEST(CliTest, CheckBindsAgainstTheCatalog) {
  StateDir state;
  const std::string script =
      "CREATE VIEW ads.v AS SELECT first_name FROM profile.members;\n"
      "SELECT first_name FROM ads.v;\n"
      "CREATE TABLE kafka.t (k VARCHAR, n INT);\n"
      "INSERT INTO kafka.t SELECT first_name, 1 FROM ads.v;\n";
  HopRun ok = Hop(state.Flag() + " check --bind -", script);
  EXPECT_EQ(ok.status, 0) << ok.out;
  HopRun parse_only = Hop(state.Flag() + " check -", "SELECT nope FROM ads.page_views;");
  EXPECT_EQ(parse_only.status, 0) << parse_only.out;
  HopRun bound = Hop(state.Flag() + " check --bind -",
                     "SELECT 1;\nSELECT nope FROM ads.page_views;\nSELECT * FROM ads.nope;\n");
  EXPECT_EQ(bound.status, 1) << bound.out;
  EXPECT_NE(bound.out.find("Column 'NOPE' not found in any table at line 2, column 8"),
            std::string::npos)
      << bound.out;
  EXPECT_NE(bound.out.find("Object 'NOPE' not found within 'ADS' at line 3, column 15"),
            std::string::npos)
      << bound.out;
  EXPECT_NE(bound.out.find("2 of 3 statement(s) failed"), std::string::npos) << bound.out;
  // Every statement is bound as executing it would (session::Session::Check): DDL's names and
  // kinds too, and what the script drops is gone for the statements after.
  HopRun ddl = Hop(state.Flag() + " check --bind -",
                   "CREATE VIEW ads.w AS SELECT page_urn FROM ads.page_views;\n"
                   "DROP VIEW ads.w;\n"
                   "SELECT * FROM ads.w;\n"
                   "DROP TABLE ads.page_views;\n"
                   "CREATE TRIGGER t ON ads.nope AS 'x';\n"
                   "FIRE VIEW ads.page_views;\n");
  EXPECT_EQ(ddl.status, 1) << ddl.out;
  for (const char* want : {"Object 'W' not found within 'ADS'", "View/table ADS.NOPE not found.",
                           "Element PAGE_VIEWS is a table and does not correspond to FIRE VIEW",
                           "3 of 6 statement(s) failed"}) {
    EXPECT_NE(ddl.out.find(want), std::string::npos) << want << "\n" << ddl.out;
  }
}

}  // namespace

namespace {

// The shell reads standard input when it is not a terminal: no prompts, statements over several
// lines, errors reported and passed over, `!quit` stops; the exit status is 1 when an item failed
// (as for `hop -f -`).
TEST(CliTest, ShellReadsStatementsFromAPipe) {
  StateDir state;
  HopRun ok = Hop(state.Flag(), "SHOW namespace;\n");
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_NE(ok.out.find("| namespace | default |"), std::string::npos) << ok.out;
  EXPECT_EQ(ok.out.find("hop>"), std::string::npos) << ok.out;

  const std::string input =
      "-- a session piped in\n"
      "SET hints =\n"
      "  'kafka.source.k1=v1';\n"
      "SHOW\n"
      "  hints\n"
      ";\n"
      "!describe nope.nope\n"
      "!describe PROFILE.MEMBERS\n"
      "!quit\n"
      "SHOW mode;\n";
  HopRun r = Hop(state.Flag() + " --mode apply", input);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("| hints | kafka.source.k1=v1 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Catalog Error: Schema for NOPE.NOPE not found."), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("| COMPANY_URN | VARCHAR"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("| mode |"), std::string::npos) << r.out;  // after !quit
  // A last statement without ';' runs at the end of the input, as in a script.
  HopRun last = Hop(state.Flag() + " --mode apply", "SHOW mode");
  EXPECT_EQ(last.status, 0) << last.out;
  EXPECT_NE(last.out.find("| mode | apply |"), std::string::npos) << last.out;
  EXPECT_EQ(Hop(state.Flag() + " --mode sideways", "SHOW mode;").status, 2);
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// A terminal for the shell: a tmux server of its own (its socket in the test's directory, no user
// configuration), killed when the test ends whatever happens. Every tmux call is bounded by
// `timeout`, and every wait by a deadline, so nothing can hang.
class Terminal {
 public:
  static constexpr const char* kExitMark = "[exited with status ";

  explicit Terminal(const std::string& dir)
      : socket_(dir + "/tmux.sock"), conf_(dir + "/tmux.conf") {
    // The pane stays after its program exits, so its last screen can be read.
    std::ofstream(conf_) << "set -g remain-on-exit on\nset -g history-limit 5000\n";
  }
  ~Terminal() { Tmux("kill-server"); }

  static bool Available() { return std::system("tmux -V >/dev/null 2>&1") == 0; }

  int Tmux(const std::string& args) {
    const std::string cmd = "env -u TMUX timeout 10 tmux -S " + socket_ + " -f " + conf_ + " " +
                            args + " >/dev/null 2>&1";
    return std::system(cmd.c_str());
  }

  std::string Output(const std::string& args) {
    const std::string cmd =
        "env -u TMUX timeout 10 tmux -S " + socket_ + " -f " + conf_ + " " + args + " 2>/dev/null";
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) return out;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    pclose(p);
    return out;
  }

  // Starts `command` in a detached session named `name`; the shell running it prints its exit
  // status when it ends.
  bool Start(const std::string& name, const std::string& command) {
    const std::string run = command + "; echo \"" + kExitMark + "$?\"";
    return Tmux("new-session -d -s " + name + " -x 200 -y 50 " + ShellQuote(run)) == 0;
  }
  void Type(const std::string& name, std::string text) {
    // tmux reads an argument's final ';' as a command separator unless escaped.
    if (!text.empty() && text.back() == ';') text.insert(text.size() - 1, "\\");
    Tmux("send-keys -t " + name + " -l " + ShellQuote(text));
  }
  void Key(const std::string& name, const std::string& key) {
    Tmux("send-keys -t " + name + " " + key);
  }
  // The screen and its scrollback (lines without their trailing blanks).
  std::string Screen(const std::string& name) {
    return Output("capture-pane -p -J -S - -t " + name);
  }
  // Waits until `done(screen)` holds; false after the deadline.
  template <typename Pred>
  bool WaitFor(const std::string& name, Pred done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (done(Screen(name))) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  bool WaitForText(const std::string& name, const std::string& text, size_t times = 1) {
    return WaitFor(name, [&](const std::string& s) { return Count(s, text) >= times; });
  }
  // The exit status of a program started by `Start`, once it has exited; -1 after the deadline.
  // The status comes from the shell that ran it: tmux's own (#{pane_dead_status}) is not
  // always collected in sandboxes that reap children lazily.
  int WaitForExit(const std::string& name) {
    int status = -1;
    WaitFor(name, [&](const std::string& screen) {
      const size_t at = screen.find(kExitMark);
      if (at == std::string::npos) return false;
      status = std::atoi(screen.c_str() + at + std::strlen(kExitMark));
      return true;
    });
    return status;
  }

  static size_t Count(const std::string& s, const std::string& text) {
    size_t n = 0;
    for (size_t at = s.find(text); at != std::string::npos; at = s.find(text, at + 1)) ++n;
    return n;
  }

 private:
  std::string socket_;
  std::string conf_;
};

// The shell at a real terminal: tab completion of commands, keywords and catalog names, a
// statement over two lines, Ctrl-C dropping an unfinished statement, and history that survives a
// restart.
TEST(CliTest, ShellAtATerminal) {
  // tmux comes from scripts/setup: without it this test fails rather than passing unrun.
  ASSERT_TRUE(Terminal::Available()) << "tmux is not installed (scripts/setup installs it)";
  StateDir state;
  Terminal term(state.path());
  // HOME is the state directory, so no ~/.editrc of the user's changes the keys.
  const std::string command = "env HOME=" + state.path() + " " + HOP_BINARY + " " + state.Flag();
  ASSERT_TRUE(term.Start("one", command)) << "tmux cannot start a session here";
  auto screen = [&](const std::string& name) { return "\n--- screen ---\n" + term.Screen(name); };

  ASSERT_TRUE(term.WaitForText("one", "hop>")) << screen("one");
  term.Type("one", "!desc");
  term.Key("one", "Tab");
  ASSERT_TRUE(term.WaitForText("one", "hop> !describe")) << screen("one");
  // A schema completes without a space after it: a '.' follows.
  term.Type("one", "prof");
  term.Key("one", "Tab");
  ASSERT_TRUE(term.WaitForText("one", "hop> !describe profile")) << screen("one");
  term.Type("one", ".mem");
  term.Key("one", "Tab");
  ASSERT_TRUE(term.WaitForText("one", "hop> !describe profile.members")) << screen("one");
  term.Key("one", "Enter");
  ASSERT_TRUE(term.WaitForText("one", "hop>", 2)) << screen("one");
  EXPECT_NE(term.Screen("one").find("| COMPANY_URN | VARCHAR"), std::string::npos) << screen("one");

  term.Type("one", "SHOW");
  term.Key("one", "Enter");
  ASSERT_TRUE(term.WaitForText("one", "  ->")) << screen("one");
  term.Type("one", "mode;");
  term.Key("one", "Enter");
  ASSERT_TRUE(term.WaitForText("one", "hop>", 3)) << screen("one");
  EXPECT_NE(term.Screen("one").find("| mode | create |"), std::string::npos) << screen("one");

  term.Type("one", "sh");
  term.Key("one", "Tab");
  ASSERT_TRUE(term.WaitForText("one", "hop> show")) << screen("one");
  term.Type("one", "namespace;");
  term.Key("one", "Enter");
  ASSERT_TRUE(term.WaitForText("one", "hop>", 4)) << screen("one");
  EXPECT_NE(term.Screen("one").find("| namespace | default |"), std::string::npos) << screen("one");

  term.Type("one", "!quit");
  term.Key("one", "Enter");
  ASSERT_EQ(term.WaitForExit("one"), 0) << screen("one");

  std::ifstream in(state.path() + "/history");
  std::stringstream history;
  history << in.rdbuf();
  EXPECT_EQ(history.str(), "!describe profile.members\nSHOW\\nmode;\nshow namespace;\n");

  // A new shell recalls the last session's entries, and Ctrl-C drops an unfinished statement.
  ASSERT_TRUE(term.Start("two", command)) << "second session";
  ASSERT_TRUE(term.WaitForText("two", "hop>")) << screen("two");
  term.Key("two", "Up");
  ASSERT_TRUE(term.WaitForText("two", "hop> show namespace;")) << screen("two");
  term.Key("two", "Enter");
  ASSERT_TRUE(term.WaitForText("two", "hop>", 2)) << screen("two");
  EXPECT_NE(term.Screen("two").find("| namespace | default |"), std::string::npos) << screen("two");
  term.Type("two", "SELECT 'unfinished");
  term.Key("two", "Enter");
  ASSERT_TRUE(term.WaitForText("two", "  ->")) << screen("two");
  term.Key("two", "C-c");
  ASSERT_TRUE(term.WaitForText("two", "hop>", 3)) << screen("two");
  term.Type("two", "SHOW mode;");
  term.Key("two", "Enter");
  ASSERT_TRUE(term.WaitForText("two", "| mode | create |")) << screen("two");
  term.Key("two", "C-d");
  ASSERT_EQ(term.WaitForExit("two"), 0) << screen("two");
}

}  // namespace

namespace {

// What a hostile user can type must never run as a command through the shipped examples: not a
// FIRE or CREATE TRIGGER option, not a job property, not a table or schema name (docs/ddl.md,
// docs/templates.md "Transforms"). Each hostile value writes a file if a shell ever runs it.
TEST(CliTest, NoValueFromSqlOrATriggerReachesAShellUnquoted) {
  char tmpl[] = "/tmp/hop-e2e-hostile-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string flag = "--state " + dir + "/state";
  const std::string pwned = dir + "/pwned";
  ASSERT_EQ(
      Hop(flag + " apply -f " + hop::testing::SourcePath("examples/demo-environment.yaml")).status,
      0);
  // Every way a shell could be made to run `touch <pwned>`, and a placeholder to expand.
  const std::vector<std::string> hostile = {
      "$(touch " + pwned + ")",      "`touch " + pwned + "`",    "'; touch " + pwned + "; '",
      "\"; touch " + pwned + "; \"", "x\ntouch " + pwned + "\n", "a'\"$(touch " + pwned + ")\"'b",
      "{{timestamp}}:{{trigger}}",
  };
  auto sql_string = [](const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
  };
  HopRun made = Hop(flag + " -f -", R"(
CREATE MATERIALIZED VIEW ads.audience AS SELECT first_name, last_name FROM ads.page_views NATURAL JOIN profile.members;
CREATE TRIGGER report ON ads.audience AS 'audience-report';
)");
  ASSERT_EQ(made.status, 0) << made.out;

  // Options that would set a variable hop gives the job are refused, in any case and as job
  // properties, at CREATE and at FIRE; nothing is kept of them.
  for (const std::string key : {"timestamp", "WATERMARK", "job.properties.timestamp",
                                 "job.properties.Trigger", "schema", "table"}) {
    for (const std::string& value : hostile) {
      HopRun fire = Hop(flag + " -f -",
                        "FIRE TRIGGER report WITH (\"" + key + "\" " + sql_string(value) + ");\n");
      EXPECT_EQ(fire.status, 1) << key << ": " << fire.out;
      EXPECT_NE(fire.out.find("which hop gives the trigger's job itself"), std::string::npos)
          << fire.out;
    }
    HopRun create = Hop(flag + " -f -",
                        "CREATE TRIGGER other ON ads.audience AS "
                        "'audience-report' WITH (\"" +
                            key + "\" 'x');\n");
    EXPECT_EQ(create.status, 1) << key << ": " << create.out;
  }
  EXPECT_EQ(Hop(flag + " get tabletrigger report -o json").out.find("jobProperties"),
            std::string::npos);

  // Other options are job properties, kept as they are: a placeholder in one is not expanded.
  std::string fires;
  for (size_t i = 0; i < hostile.size(); ++i) {
    fires += "FIRE TRIGGER report WITH (\"job.properties.note" + std::to_string(i) + "\" " +
             sql_string(hostile[i]) + ");\n!wait 60\n";
  }
  HopRun fired = Hop(flag + " -f -", fires);
  EXPECT_EQ(fired.status, 0) << fired.out;
  auto trigger = nlohmann::json::parse(Hop(flag + " get tabletrigger report -o json").out);
  for (size_t i = 0; i < hostile.size(); ++i) {
    EXPECT_EQ(trigger["spec"]["jobProperties"]["note" + std::to_string(i)], hostile[i]);
  }

  // A trigger written as a resource, with hostile names and job properties: the names reach the
  // shipped job's script quoted; a job property naming a fire-time variable stops the run.
  auto job_template =
      nlohmann::json::parse(Hop(flag + " get jobtemplate audience-report -o json").out);
  const std::string job_yaml = job_template["spec"]["yaml"];
  nlohmann::json resources = nlohmann::json::array();
  for (size_t i = 0; i < hostile.size(); ++i) {
    resources.push_back({{"apiVersion", "hoptimator.linkedin.com/v1alpha1"},
                         {"kind", "TableTrigger"},
                         {"metadata", {{"name", "hostile" + std::to_string(i)}}},
                         {"spec",
                          {{"schema", hostile[i]},
                           {"table", hostile[(i + 1) % hostile.size()]},
                           {"yaml", job_yaml},
                           {"jobProperties", {{"note", hostile[i]}}}}}});
  }
  resources.push_back({{"apiVersion", "hoptimator.linkedin.com/v1alpha1"},
                       {"kind", "TableTrigger"},
                       {"metadata", {{"name", "overrides"}}},
                       {"spec",
                        {{"schema", "ADS"},
                         {"table", "AUDIENCE"},
                         {"yaml", job_yaml},
                         {"jobProperties", {{"timestamp", hostile[0]}}}}}});
  std::string documents;
  for (const auto& r : resources) documents += "---\n" + r.dump() + "\n";
  HopRun applied = Hop(flag + " apply -f -", documents);
  ASSERT_EQ(applied.status, 0) << applied.out;
  std::string fire_all;
  for (size_t i = 0; i < hostile.size(); ++i) {
    fire_all += "FIRE TRIGGER hostile" + std::to_string(i) + ";\n";
  }
  HopRun ran = Hop(flag + " -f -", fire_all + "FIRE TRIGGER overrides;\n!wait 60\n");
  EXPECT_EQ(ran.status, 0) << ran.out;
  for (size_t i = 0; i < hostile.size(); ++i) {
    const std::string name = "hostile" + std::to_string(i);
    auto doc = nlohmann::json::parse(Hop(flag + " get tabletrigger " + name + " -o json").out);
    ASSERT_EQ(doc["status"]["jobs"].size(), 1u) << name << doc.dump();
    EXPECT_EQ(doc["status"]["jobs"][0].value("outcome", ""), "Succeeded") << name << doc.dump();
    HopRun logs = Hop(flag + " logs tabletrigger/" + name);
    // The script printed the names as they are, but for line breaks: the prefix rule of
    // docs/templates.md makes them a space after "echo ", and nothing after ".".
    std::string schema = hostile[i];
    std::replace(schema.begin(), schema.end(), '\n', ' ');
    std::string table = hostile[(i + 1) % hostile.size()];
    std::erase(table, '\n');
    const std::string shown = schema + "." + table;
    EXPECT_NE(logs.out.find(shown + " advanced from "), std::string::npos) << name << logs.out;
  }
  auto overrides = nlohmann::json::parse(Hop(flag + " get tabletrigger overrides -o json").out);
  EXPECT_FALSE(overrides["status"].contains("jobs")) << overrides.dump();
  EXPECT_NE(overrides["status"].value("message", "").find("would set the variable 'timestamp'"),
            std::string::npos)
      << overrides.dump();

  EXPECT_FALSE(std::filesystem::exists(pwned)) << "a hostile value ran as a command";
  std::filesystem::remove_all(dir);
}

// The runner expands `$(NAME)` in a Job's command, args and env before the shell reads them, as
// Kubernetes does (docs/runtime.md): a job property `$(NOTE)` inside a shellQuote word would be
// replaced there by another property's value, whose quotes end the word. shellQuote writes such
// a `$` as `$$` (docs/templates.md), so each value reaches the command as it was written, in the
// script and as an argument, and nothing runs.
TEST(CliTest, AShellQuotedValueIsNotExpandedByTheRunner) {
  char tmpl[] = "/tmp/hop-e2e-dollar-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string flag = "--state " + dir + "/state";
  const std::string pwned = dir + "/pwned";
  HopRun applied = Hop(flag + " apply -f -", R"(
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: JobTemplate
metadata: {name: echo-note}
spec:
  yaml: |
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: {{name}}-run
    spec:
      backoffLimit: 0
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: c
            command:
            - sh
            - -c
            - |-
              printf '<%s>' {{a shellQuote}} {{b shellQuote}} {{c shellQuote}} {{d shellQuote}} "$@"
            - sh
            args: [{{a shellQuote yamlQuote}}, {{b shellQuote yamlQuote}}]
            env:
            - name: NOTE
              value: {{note yamlQuote}}
)");
  ASSERT_EQ(applied.status, 0) << applied.out;
  HopRun ran = Hop(flag + " -f -", R"(
CREATE DATABASE localdb WITH (url 'jdbc:local:', schema 'LOCAL');
CREATE TABLE local.tt (id INT);
CREATE TRIGGER tn ON local.tt AS 'echo-note' WITH ('job.properties.a' '$(NOTE)',
  'job.properties.b' '$$(NOTE) $$ $', 'job.properties.c' '$(NOTE $$',
  'job.properties.d' 'a$b$$$(x)', 'job.properties.note' ''' ; touch )" +
                                       pwned + R"( ; echo ''');
FIRE TABLE local.tt;
!wait 60
)");
  ASSERT_EQ(ran.status, 0) << ran.out;
  auto trigger = nlohmann::json::parse(Hop(flag + " get tabletrigger tn -o json").out);
  ASSERT_EQ(trigger["status"]["jobs"].size(), 1u) << trigger.dump();
  EXPECT_EQ(trigger["status"]["jobs"][0].value("outcome", ""), "Succeeded") << trigger.dump();
  HopRun logs = Hop(flag + " logs tabletrigger/tn");
  // The script's words, then the arguments, which no shell reads: they keep their quotes.
  EXPECT_NE(
      logs.out.find("<$(NOTE)><$$(NOTE) $$ $><$(NOTE $$><a$b$$$(x)><'$(NOTE)'><'$$(NOTE) $$ $'>"),
      std::string::npos)
      << logs.out;
  EXPECT_FALSE(std::filesystem::exists(pwned)) << "a job property ran as a command";
  std::filesystem::remove_all(dir);
}

// A yamlQuoted value in a Job's env value or args is read for `$(NAME)` before the command runs
// (docs/runtime.md): a job property `$(PGPASSWORD)` would become the secret the template gives
// the job, printed by it. yamlQuote writes such a `$` as `$$` (docs/templates.md), so the value
// reaches the command as written and the secret does not.
TEST(CliTest, AYamlQuotedValueDoesNotBecomeAnotherEnvVariable) {
  char tmpl[] = "/tmp/hop-e2e-yamldollar-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string flag = "--state " + dir + "/state";
  HopRun applied = Hop(flag + " apply -f -", R"(
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: JobTemplate
metadata: {name: print-note}
spec:
  yaml: |
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: {{name}}-run
    spec:
      backoffLimit: 0
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: c
            command: [sh, -c, 'printf "<%s>" "$NOTE" "$@"', sh]
            args: [{{note yamlQuote}}, {{other yamlQuote}}]
            env:
            - name: PGPASSWORD
              value: swordfish7
            - name: NOTE
              value: {{note yamlQuote}}
)");
  ASSERT_EQ(applied.status, 0) << applied.out;
  HopRun ran = Hop(flag + " -f -", R"(
CREATE DATABASE localdb WITH (url 'jdbc:local:', schema 'LOCAL');
CREATE TABLE local.tt (id INT);
CREATE TRIGGER tn ON local.tt AS 'print-note' WITH ('job.properties.note' '$(PGPASSWORD)',
  'job.properties.other' 'a $$(PGPASSWORD) $$ $');
FIRE TABLE local.tt;
!wait 60
)");
  ASSERT_EQ(ran.status, 0) << ran.out;
  auto trigger = nlohmann::json::parse(Hop(flag + " get tabletrigger tn -o json").out);
  ASSERT_EQ(trigger["status"]["jobs"].size(), 1u) << trigger.dump();
  EXPECT_EQ(trigger["status"]["jobs"][0].value("outcome", ""), "Succeeded") << trigger.dump();
  HopRun logs = Hop(flag + " logs tabletrigger/tn");
  EXPECT_NE(logs.out.find("<$(PGPASSWORD)><$(PGPASSWORD)><a $$(PGPASSWORD) $$ $>"),
            std::string::npos)
      << logs.out;
  EXPECT_EQ(logs.out.find("swordfish7"), std::string::npos) << logs.out;
  std::filesystem::remove_all(dir);
}

// A pipeline whose job is a batch/v1 Job: the local runtime runs it, and the pipeline is ready
// when the Job completed. Without local Jobs nothing here runs it, and the pipeline says so.
TEST(CliTest, APipelineIsReadyOnlyWhenSomethingHereConfirmedIt) {
  const std::string environment = R"(
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: ads-database}
spec: {schema: ADS, url: 'jdbc:demodb://names=ads'}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: TableTemplate
metadata: {name: any}
spec:
  connector: |
    connector = datagen
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: JobTemplate
metadata: {name: copy}
spec:
  yaml: |
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: {{name}}
    spec:
      backoffLimit: 0
      template:
        spec:
          containers:
          - name: copy
            image: busybox
            command: ["true"]
          restartPolicy: Never
)";
  for (const bool local_jobs : {true, false}) {
    char tmpl[] = "/tmp/hop-e2e-XXXXXX";
    const std::string dir = mkdtemp(tmpl);
    const std::string flag = "--state " + dir + (local_jobs ? "" : " --no-local-jobs");
    ASSERT_EQ(Hop(flag + " apply -f -", environment).status, 0);
    // Without local jobs nothing here finishes the Job, so the wait times out naming it
    // (docs/operator.md); the Pipeline's status is written meanwhile.
    HopRun run = Hop(flag + " -f -",
                     "CREATE MATERIALIZED VIEW ads.copied AS SELECT * FROM ads.page_views;\n" +
                         std::string(local_jobs ? "!wait 60\n" : "!wait 3\n"));
    if (local_jobs) {
      ASSERT_EQ(run.status, 0) << run.out;
    } else {
      ASSERT_EQ(run.status, 1) << run.out;
      EXPECT_NE(run.out.find("Job default/ads-database-copied has not started"), std::string::npos)
          << run.out;
    }
    auto pipeline =
        nlohmann::json::parse(Hop(flag + " get pipeline ads-copied -o json").out, nullptr, false);
    ASSERT_FALSE(pipeline.is_discarded());
    if (local_jobs) {
      EXPECT_EQ(pipeline["status"].value("ready", false), true) << pipeline.dump();
      EXPECT_EQ(pipeline["status"].value("message", ""), "Ready.") << pipeline.dump();
    } else {
      EXPECT_EQ(pipeline["status"].value("ready", true), false) << pipeline.dump();
      EXPECT_EQ(pipeline["status"].value("message", ""),
                "Pending: no controller for Job in this control plane")
          << pipeline.dump();
    }
    std::filesystem::remove_all(dir);
  }
}

// REFRESH and REFRESHED are recorded and say that nothing refreshes yet; with the operator
// running, nothing claims a refresh happened: no watermark, no Job, no fire of the view's trigger.
// A refresh killed with SIGKILL half way leaves the table's previous rows and the view's
// previous watermark; two refreshes at once both succeed, one after the other; the next refresh
// after a kill works (nothing is left locked).
TEST(CliTest, AKilledRefreshLeavesThePreviousRowsAndWatermark) {
  StateDir state;
  ASSERT_EQ(Hop(state.Flag() + " apply -f " +
                hop::testing::SourcePath("examples/demo-environment.yaml"))
                .status,
            0);
  ASSERT_EQ(Hop(state.Flag() + " -e 'CREATE TABLE local.big (id BIGINT, s VARCHAR)'").status, 0);
  const std::string file = state.path() + "/local/default.db";
  auto fill = [&](int rows) { ASSERT_NO_FATAL_FAILURE(FillBig(state, rows)); };
  auto count = [&]() { return Command("sqlite3 " + file + " 'SELECT COUNT(*) FROM COPY'").out; };
  auto watermark = [&]() {
    auto doc = nlohmann::json::parse(Hop(state.Flag() + " get view local-copy -o json").out);
    return doc.contains("status") ? doc["status"].value("watermark", "") : std::string();
  };
  fill(1000);
  ASSERT_EQ(Hop(state.Flag() + " -e 'CREATE MATERIALIZED VIEW local.copy AS SELECT id, s FROM "
                               "local.big'").status,
            0);
  ASSERT_EQ(Hop(state.Flag() + " refresh local.copy").status, 0);
  ASSERT_EQ(count(), "1000\n");
  const std::string before = watermark();
  ASSERT_FALSE(before.empty());

  fill(3000000);  // a refresh long enough to be killed while it writes
  const std::string hop = HOP_BINARY;
  const std::string dir = state.path();
  const char* argv[] = {hop.c_str(), "--state", dir.c_str(), "refresh", "local.copy", nullptr};
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, hop.c_str(), nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the refresh finished before it was killed";
  EXPECT_EQ(count(), "1000\n");
  EXPECT_EQ(watermark(), before);

  // Two at once: each replaces the rows whole, and both advance the watermark.
  std::vector<HopRun> runs(2);
  std::thread a([&] { runs[0] = Hop(state.Flag() + " refresh view/local-copy"); });
  std::thread b([&] { runs[1] = Hop(state.Flag() + " refresh LOCAL.COPY"); });
  a.join();
  b.join();
  for (const HopRun& r : runs) EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(count(), "3000000\n");
  EXPECT_GT(watermark(), before);
}

// A local refresh computes its rows before it takes the local file's write lock (docs/runtime.md,
// "Refreshes"): while a slow query runs, a write to another table of the same file goes through
// at once, where it used to wait for the whole refresh (and failed after 10 s).
TEST(CliTest, ALocalRefreshHoldsNoWriteLockWhileItsQueryRuns) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("examples/demo-environment.yaml"))
          .status,
      0);
  ASSERT_EQ(Hop(state.Flag() + " -e 'CREATE TABLE local.big (id BIGINT)' -e 'CREATE TABLE "
                               "local.other (id BIGINT)'")
                .status,
            0);
  const std::string file = state.path() + "/local/default.db";
  ASSERT_NO_FATAL_FAILURE(FillBig(state, 8000, /*with_text=*/false));
  // A pair of each two rows: about 32 million comparisons, a second or more, for one row.
  ASSERT_EQ(Hop(state.Flag() + " -e 'CREATE MATERIALIZED VIEW local.pairs AS SELECT COUNT(*) AS n "
                               "FROM local.big a JOIN local.big b ON a.id < b.id'")
                .status,
            0);
  const std::string hop = HOP_BINARY;
  const std::string dir = state.path();
  const char* argv[] = {hop.c_str(), "--state", dir.c_str(), "refresh", "local.pairs", nullptr};
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, hop.c_str(), nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  HopRun insert = Hop(state.Flag() + " -e 'INSERT INTO local.other VALUES (1)'");
  int status = 0;
  const pid_t finished = waitpid(pid, &status, WNOHANG);
  EXPECT_EQ(insert.status, 0) << insert.out;
  EXPECT_EQ(finished, 0) << "the insert waited for the refresh to end";
  if (finished == 0) waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(Command("sqlite3 " + file + " 'SELECT N FROM PAIRS'").out, "31996000\n");
  EXPECT_EQ(Command("sqlite3 " + file + " 'SELECT COUNT(*) FROM OTHER'").out, "1\n");
  // Nothing is left of the rows' staging: the next refresh, and a failed one, start clean.
  ASSERT_EQ(Hop(state.Flag() + " refresh local.pairs").status, 0);
  EXPECT_EQ(Command("sqlite3 " + file + " 'SELECT N FROM PAIRS'").out, "31996000\n");
}

// A write to a local table, or a refresh, that finds its file system full, or a temporary
// directory that is full or missing, says which file or directory and what to do, in the store's
// words (docs/runtime.md, "Refreshes"; it used to be SQLite's "database or disk is full", and a
// missing $TMPDIR was passed over for /var/tmp). The local files' directory and the temporary
// directory are small tmpfs, filled to the last byte.
TEST(CliTest, AFullDiskOrTemporaryDirectoryIsNamedWithWhatToDo) {
  StateDir state;
  hop::testing::SmallFileSystem local(state.path() + "/local", "32m");
  ASSERT_TRUE(local.mounted()) << local.why() << " (the tests run as root)";
  hop::testing::TempDir parent("hop-e2e-tmpdir");
  hop::testing::SmallFileSystem tmp(parent.path() + "/tmp", "32m");
  ASSERT_TRUE(tmp.mounted()) << tmp.why();
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("examples/demo-environment.yaml"))
          .status,
      0);
  ASSERT_EQ(Hop(state.Flag() + " -e 'CREATE TABLE local.big (id BIGINT, s VARCHAR)'").status, 0);
  // 80 rows of 100 kB: more than SQLite keeps of a temporary table in memory.
  const std::string file = state.path() + "/local/default.db";
  HopRun filled = Command("sqlite3 " + file +
                          " \"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
                          "WHERE x < 80) INSERT INTO BIG SELECT x, hex(zeroblob(50000)) FROM c\"");
  ASSERT_EQ(filled.status, 0) << filled.out;
  ASSERT_EQ(Hop(state.Flag() + " -e 'CREATE MATERIALIZED VIEW local.copy AS SELECT id, s FROM "
                               "local.big'")
                .status,
            0);
  ASSERT_EQ(Hop(state.Flag() + " refresh local.copy").status, 0);

  // The local file's directory is full. A process that opens the file then cannot make its WAL
  // and shared-memory files; one that finds them there (another process has the file open, as
  // hop serve's sessions keep it) fails at the INSERT, or at the copy step of a refresh.
  ASSERT_NO_FATAL_FAILURE(local.Fill());
  const std::string local_full =
      "Database local-database: the directory " + state.path() +
      "/local has no space left (the disk is full): hop cannot write default.db, the file of "
      "its local tables, there. Free some space on its file system";
  HopRun opening = Hop(state.Flag() + " -e 'SELECT COUNT(*) FROM local.big'");
  EXPECT_NE(opening.status, 0);
  EXPECT_NE(opening.out.find(local_full), std::string::npos) << opening.out;
  local.Empty();
  FILE* holder = popen(("sqlite3 " + file + " > /dev/null").c_str(), "w");
  ASSERT_NE(holder, nullptr);
  fputs("SELECT COUNT(*) FROM BIG;\n", holder);
  fflush(holder);
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(file + "-shm"); }, 10));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // it has read the file
  ASSERT_NO_FATAL_FAILURE(local.Fill());
  HopRun insert = Hop(state.Flag() + " -f -",
                      "INSERT INTO local.big VALUES (0, '" + std::string(200000, 'y') + "');\n");
  EXPECT_NE(insert.status, 0);
  EXPECT_NE(insert.out.find("cannot write the rows of LOCAL.BIG: " + local_full), std::string::npos)
      << insert.out;
  HopRun copy = Hop(state.Flag() + " refresh local.copy");
  EXPECT_NE(copy.status, 0);
  EXPECT_NE(copy.out.find("cannot write the new rows of LOCAL.COPY into its file: " + local_full),
            std::string::npos)
      << copy.out;
  EXPECT_NE(copy.out.find("its old rows are kept"), std::string::npos) << copy.out;
  local.Empty();
  pclose(holder);

  // The temporary directory is full: the refresh's first step.
  ASSERT_NO_FATAL_FAILURE(tmp.Fill());
  const std::string env = "env -u SQLITE_TMPDIR TMPDIR=" + parent.path() + "/tmp ";
  HopRun staged = Command(env + HOP_BINARY + " " + state.Flag() + " refresh local.copy");
  EXPECT_NE(staged.status, 0);
  EXPECT_NE(staged.out.find("cannot write the new rows of LOCAL.COPY to a temporary file: the "
                            "temporary directory " +
                            parent.path() +
                            "/tmp ($TMPDIR) has no space left (the disk is full): hop cannot "
                            "write a refresh's new rows there. Free some space on its file "
                            "system, or set $TMPDIR"),
            std::string::npos)
      << staged.out;
  tmp.Empty();
  HopRun roomy = Command(env + HOP_BINARY + " " + state.Flag() + " refresh local.copy");
  EXPECT_EQ(roomy.status, 0) << roomy.out;

  // A $TMPDIR that does not exist is named, not passed over for /var/tmp.
  const std::string missing = parent.path() + "/no-such-dir";
  HopRun nowhere = Command("env -u SQLITE_TMPDIR TMPDIR=" + missing + " " + HOP_BINARY + " " +
                           state.Flag() + " refresh local.copy");
  EXPECT_NE(nowhere.status, 0);
  EXPECT_NE(nowhere.out.find("$TMPDIR is " + missing + ", which does not exist"), std::string::npos)
      << nowhere.out;
  EXPECT_EQ(Command("sqlite3 " + file + " 'SELECT COUNT(*) FROM COPY'").out, "80\n");
}

// A view replaced with another query while it is refreshed (docs/runtime.md, "Refreshes"): the
// refresh either ran to its end before the replace, and its view is then not ready until the
// next, or it finds the new query when it comes to record its watermark, fails and leaves the
// watermark; in no case is the new query's view ready, or given a watermark, with the old query's
// rows. Then a refresh of the new query makes it ready. A view created again over the table a
// DROP left is not refreshed yet, whatever the table holds.
TEST(CliTest, AViewReplacedDuringItsRefreshIsNotReadyWithTheOldRows) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("examples/demo-environment.yaml"))
          .status,
      0);
  ASSERT_EQ(Hop(state.Flag() + " -e 'CREATE TABLE local.big (id BIGINT, s VARCHAR)'").status, 0);
  const std::string file = state.path() + "/local/default.db";
  ASSERT_NO_FATAL_FAILURE(FillBig(state, 2000000));
  ASSERT_EQ(Hop(state.Flag() + " -e 'CREATE MATERIALIZED VIEW local.copy AS SELECT id, s FROM "
                               "local.big'")
                .status,
            0);
  auto view = [&]() {
    return nlohmann::json::parse(Hop(state.Flag() + " get view local-copy -o json").out);
  };
  auto pipeline_message = [&]() {
    EXPECT_EQ(Hop(state.Flag() + " wait --timeout 60").status, 0);
    auto doc = nlohmann::json::parse(Hop(state.Flag() + " get pipeline local-copy -o json").out);
    return doc["status"].value("message", "") + " " + doc["status"]["elements"].dump();
  };

  HopRun refresh;
  std::thread running([&] { refresh = Hop(state.Flag() + " refresh local.copy"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  HopRun replaced = Hop(state.Flag() +
                        " -e 'CREATE OR REPLACE MATERIALIZED VIEW local.copy AS "
                        "SELECT id, s FROM local.big WHERE id < 10'");
  running.join();
  ASSERT_EQ(replaced.status, 0) << replaced.out;
  const nlohmann::json after = view();
  if (refresh.status == 0) {
    // It finished first: the digest it recorded is the old query's.
    EXPECT_NE(pipeline_message().find("its query was replaced since its latest refresh"),
              std::string::npos);
  } else {
    EXPECT_NE(refresh.out.find("LOCAL.COPY was replaced with another query while it was "
                               "refreshed"),
              std::string::npos)
        << refresh.out;
    EXPECT_FALSE(after.contains("status") && after["status"].contains("watermark")) << after;
    EXPECT_EQ(pipeline_message().find("Ready."), std::string::npos);
  }
  HopRun again = Hop(state.Flag() + " refresh local.copy");
  ASSERT_EQ(again.status, 0) << again.out;
  EXPECT_EQ(Command("sqlite3 " + file + " 'SELECT COUNT(*) FROM COPY'").out, "9\n");
  const std::string message = pipeline_message();
  EXPECT_EQ(message.find("its query was replaced"), std::string::npos) << message;
  EXPECT_NE(message.find("refreshed by hop (watermark 20"), std::string::npos) << message;
  EXPECT_NE(message.find("Ready."), std::string::npos) << message;

  // Dropped and made again over the table DROP left: its 9 rows are not a refresh of it.
  ASSERT_EQ(Hop(state.Flag() + " -e 'DROP MATERIALIZED VIEW local.copy'").status, 0);
  HopRun made = Hop(state.Flag() +
                    " -e 'CREATE MATERIALIZED VIEW local.copy AS SELECT id, s "
                    "FROM local.big WHERE id < 10'");
  ASSERT_EQ(made.status, 0) << made.out;
  EXPECT_NE(made.out.find("until the first whatever its table held already"), std::string::npos)
      << made.out;
  EXPECT_NE(pipeline_message().find("not refreshed yet"), std::string::npos);
}

// Refreshes into PostgreSQL (docs/postgres.md, "Refreshes"): rows from the local engine arrive by
// COPY with every type intact; a view over tables of the same database runs inside it; a table
// with a primary key is upserted; a refresh that fails, or is killed, leaves the old rows and the
// old watermark; the REFRESH statement runs the same refresh as a Job.
TEST(CliTest, RefreshesIntoPostgres) {
  hop::testing::PostgresServer pg;
  ASSERT_TRUE(pg.Start(/*tcp=*/true).ok());  // never a skip: ./scripts/setup installs it
  ASSERT_TRUE(pg.Exec("CREATE TABLE widgets (id integer PRIMARY KEY, name text NOT NULL);"
                      "INSERT INTO widgets VALUES (1, 'bolt'), (2, 'nut');"
                      "CREATE TABLE keyed (id integer PRIMARY KEY, name text NOT NULL);"
                      "INSERT INTO keyed VALUES (99, 'kept')")
                  .ok());
  StateDir state;
  ASSERT_EQ(Hop(state.Flag() + " apply -f " +
                hop::testing::SourcePath("examples/demo-environment.yaml"))
                .status,
            0);
  HopRun applied = Hop(state.Flag() + " apply -f -", R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: pg}
spec:
  schema: PG
  url: jdbc:postgresql://127.0.0.1:)" + std::to_string(pg.port()) + R"(/postgres?user=postgres
)");
  ASSERT_EQ(applied.status, 0) << applied.out;
  auto rows = [&](const std::string& sql) {
    auto r = pg.Exec(sql);
    std::string out;
    if (!r.ok()) return r.status().ToString();
    for (const auto& row : r->rows) {
      for (size_t i = 0; i < row.size(); ++i) out += (i ? "|" : "") + row[i].value_or("NULL");
      out += "\n";
    }
    return out;
  };
  auto watermark = [&](const std::string& view) {
    auto doc = nlohmann::json::parse(Hop(state.Flag() + " get view " + view + " -o json").out);
    return doc.contains("status") ? doc["status"].value("watermark", "") : std::string();
  };

  HopRun run = Hop(state.Flag() + " -f -", R"(
CREATE TABLE local.things (id BIGINT NOT NULL, label VARCHAR, ok BOOLEAN, price DECIMAL(10, 2),
  ratio DOUBLE, day DATE, at TIMESTAMP(3), tags VARCHAR ARRAY, raw VARBINARY);
INSERT INTO local.things VALUES
  (1, 'tab	and
newline \ backslash', TRUE, 12.50, 0.1, DATE '2026-01-02', TIMESTAMP '2026-01-02 03:04:05.678',
   ARRAY['a', 'b c', 'q"', ''], X'00ff'),
  (2, NULL, FALSE, -0.05, NULL, NULL, NULL, NULL, NULL);
CREATE MATERIALIZED VIEW pg.things AS SELECT * FROM local.things;
CREATE MATERIALIZED VIEW pg.names AS SELECT id * 10 AS id, name || '!' AS name FROM pg.widgets
  WHERE id > 0;
CREATE MATERIALIZED VIEW pg.keyed AS SELECT id, name FROM pg.widgets;
CREATE MATERIALIZED VIEW pg.late AS SELECT id FROM pg.widgets WHERE name > 'm';
CREATE MATERIALIZED VIEW local.either AS SELECT id FROM pg.widgets WHERE id = 2 OR name = 'bolt';
)");
  ASSERT_EQ(run.status, 0) << run.out;
  HopRun copied = Hop(state.Flag() + " refresh pg.things");
  ASSERT_EQ(copied.status, 0) << copied.out;
  EXPECT_NE(copied.out.find("2 rows replaced by COPY from the local engine"), std::string::npos)
      << copied.out;
  EXPECT_EQ(rows("SELECT id, label, ok, price, ratio, day, at, tags, encode(raw, 'hex') FROM "
                 "things ORDER BY id"),
            "1|tab\tand\nnewline \\ backslash|t|12.50|0.1|2026-01-02|2026-01-02 03:04:05.678|"
            "{a,\"b c\",\"q\\\"\",\"\"}|00ff\n"
            "2|NULL|f|-0.05|NULL|NULL|NULL|NULL|NULL\n");
  // Read back through hop, from the table, as the local engine shows it.
  HopRun back = Hop(state.Flag() + " -e 'SELECT id, ok, price, tags FROM pg.things ORDER BY id'");
  EXPECT_NE(back.out.find(" 1 | true  | 12.50 | [a, b c, q\", ]"), std::string::npos) << back.out;

  HopRun inside = Hop(state.Flag() + " refresh pg.names");
  ASSERT_EQ(inside.status, 0) << inside.out;
  EXPECT_NE(inside.out.find("2 rows replaced inside PostgreSQL"), std::string::npos) << inside.out;
  EXPECT_EQ(rows("SELECT * FROM names ORDER BY id"), "10|bolt!\n20|nut!\n");
  // Text order follows PostgreSQL's collation: computed by the local engine instead.
  HopRun late = Hop(state.Flag() + " refresh pg.late");
  ASSERT_EQ(late.status, 0) << late.out;
  EXPECT_NE(late.out.find("1 rows replaced by COPY from the local engine"), std::string::npos)
      << late.out;
  EXPECT_EQ(rows("SELECT * FROM late"), "2\n");
  // An OR across two columns of a PostgreSQL table, on the local engine: one query per branch,
  // and the refresh stores a row of each (it stored the first branch's only, and said so).
  HopRun either = Hop(state.Flag() + " refresh local.either");
  ASSERT_EQ(either.status, 0) << either.out;
  EXPECT_NE(either.out.find("2 rows replaced"), std::string::npos) << either.out;
  HopRun stored = Hop(state.Flag() + " -e 'SELECT id FROM local.either ORDER BY id'");
  EXPECT_NE(stored.out.find(" ID\n----\n  1\n  2\n(2 rows)"), std::string::npos) << stored.out;

  // A NaN, which the local engine cannot hold (it would read as NULL), fails a refresh that reads
  // it on the local engine, naming it, and nothing is written; inside PostgreSQL it is copied.
  ASSERT_TRUE(pg.Exec("CREATE TABLE floats (id integer, f double precision);"
                      "INSERT INTO floats VALUES (1, 'NaN'), (2, 1.5)")
                  .ok());
  run = Hop(state.Flag() + " -f -", R"(
CREATE MATERIALIZED VIEW local.floats_copy AS SELECT id, f FROM pg.floats;
CREATE MATERIALIZED VIEW pg.floats_copy AS SELECT id, f FROM pg.floats;
)");
  ASSERT_EQ(run.status, 0) << run.out;
  HopRun nan_local = Hop(state.Flag() + " refresh local.floats_copy");
  EXPECT_EQ(nan_local.status, 1) << nan_local.out;
  EXPECT_NE(
      nan_local.out.find("PG.FLOATS, column F, row 1: NaN cannot be read by the local engine"),
      std::string::npos)
      << nan_local.out;
  EXPECT_EQ(watermark("local-floatscopy"), "");
  HopRun nan_inside = Hop(state.Flag() + " refresh pg.floats_copy");
  ASSERT_EQ(nan_inside.status, 0) << nan_inside.out;
  EXPECT_NE(nan_inside.out.find("inside PostgreSQL"), std::string::npos) << nan_inside.out;
  EXPECT_EQ(rows("SELECT * FROM floats_copy ORDER BY id"), "1|NaN\n2|1.5\n");

  // A value beyond a REAL column's range fails the refresh, naming the column, into PostgreSQL
  // (by COPY) and into a local table alike, and nothing is written; it went out as Infinity.
  ASSERT_TRUE(pg.Exec("CREATE TABLE wide (id integer, d double precision, big bigint);"
                      "INSERT INTO wide VALUES (1, 1.5, 7), (2, 1e40, 8)")
                  .ok());
  run = Hop(state.Flag() + " -f -", R"(
CREATE MATERIALIZED VIEW pg.narrow AS SELECT id, CAST(d AS REAL) AS r FROM pg.wide;
CREATE MATERIALIZED VIEW local.narrow AS SELECT id, CAST(d AS REAL) AS r FROM pg.wide;
CREATE MATERIALIZED VIEW pg.small AS SELECT id, CAST(big AS INTEGER) * 1000000000 AS n
  FROM pg.wide;
)");
  ASSERT_EQ(run.status, 0) << run.out;
  HopRun narrow_pg = Hop(state.Flag() + " refresh pg.narrow");
  EXPECT_EQ(narrow_pg.status, 1) << narrow_pg.out;
  EXPECT_NE(narrow_pg.out.find("PG.NARROW, row 2: 1.0E40 is out of range for REAL (column R): "
                               "overflow"),
            std::string::npos)
      << narrow_pg.out;
  EXPECT_EQ(rows("SELECT count(*) FROM narrow"), "0\n");
  HopRun narrow_local = Hop(state.Flag() + " refresh local.narrow");
  EXPECT_EQ(narrow_local.status, 1) << narrow_local.out;
  EXPECT_NE(narrow_local.out.find("1.0E40 is out of range for REAL (column R): overflow"),
            std::string::npos)
      << narrow_local.out;
  EXPECT_EQ(watermark("local-narrow"), "");
  // An INTEGER computed beyond its range: PostgreSQL's COPY would refuse it without the column.
  HopRun small = Hop(state.Flag() + " refresh pg.small");
  EXPECT_EQ(small.status, 1) << small.out;
  EXPECT_NE(small.out.find("PG.SMALL, row 1: 7000000000 is out of range for INTEGER (column N)"),
            std::string::npos)
      << small.out;

  // Upserted by the primary key: new keys inserted, known ones updated, others kept.
  ASSERT_TRUE(pg.Exec("UPDATE widgets SET name = 'bolt2' WHERE id = 1; INSERT INTO widgets VALUES "
                      "(3, 'gear')")
                  .ok());
  HopRun upserted = Hop(state.Flag() + " refresh pg.keyed");
  ASSERT_EQ(upserted.status, 0) << upserted.out;
  EXPECT_NE(upserted.out.find("3 rows upserted inside PostgreSQL"), std::string::npos)
      << upserted.out;
  EXPECT_EQ(rows("SELECT * FROM keyed ORDER BY id"), "1|bolt2\n2|nut\n3|gear\n99|kept\n");

  // A column retyped in PostgreSQL behind hop's back, in a table a query reads inside PostgreSQL
  // or in the table written, fails the refresh, which writes nothing: PostgreSQL would convert
  // the values to hop's types without a word (10.5 rounded to an integer).
  run = Hop(state.Flag() + " -f -", R"(
CREATE TABLE pg.own (id INTEGER, a INTEGER);
CREATE MATERIALIZED VIEW pg.own_copy AS SELECT id, a FROM pg.own;
CREATE MATERIALIZED VIEW pg.prices AS SELECT id, price FROM local.things;
)");
  ASSERT_EQ(run.status, 0) << run.out;
  ASSERT_TRUE(pg.Exec("INSERT INTO own VALUES (1, 10)").ok());
  HopRun fine = Hop(state.Flag() + " refresh pg.own_copy");
  ASSERT_EQ(fine.status, 0) << fine.out;
  EXPECT_NE(fine.out.find("inside PostgreSQL"), std::string::npos) << fine.out;
  ASSERT_EQ(Hop(state.Flag() + " refresh pg.prices").status, 0);
  ASSERT_TRUE(pg.Exec("ALTER TABLE own ALTER a TYPE numeric(10,2); INSERT INTO own VALUES (2, "
                      "10.5); ALTER TABLE prices ALTER price TYPE numeric(10,0)")
                  .ok());
  const std::string own_before = watermark("pg-owncopy");
  HopRun retyped = Hop(state.Flag() + " refresh pg.own_copy");
  EXPECT_EQ(retyped.status, 1) << retyped.out;
  EXPECT_NE(retyped.out.find("table public.own, column a, is numeric(10,2) in PostgreSQL and "
                             "integer in hop's table PG.OWN"),
            std::string::npos)
      << retyped.out;
  EXPECT_EQ(rows("SELECT * FROM own_copy"), "1|10\n");
  EXPECT_EQ(watermark("pg-owncopy"), own_before);
  HopRun sink = Hop(state.Flag() + " refresh pg.prices");
  EXPECT_EQ(sink.status, 1) << sink.out;
  EXPECT_NE(sink.out.find("column price, is numeric(10,0) in PostgreSQL and numeric(10,2)"),
            std::string::npos)
      << sink.out;
  EXPECT_EQ(rows("SELECT price FROM prices ORDER BY id"), "13\n0\n");

  // A refresh that fails half way keeps the rows and the watermark.
  const std::string before = watermark("pg-things");
  ASSERT_FALSE(before.empty());
  run = Hop(state.Flag() + " -f -", R"(
CREATE TABLE local.texts (v VARCHAR);
INSERT INTO local.texts VALUES ('1'), ('2'), ('x');
CREATE MATERIALIZED VIEW pg.numbers AS SELECT CAST(v AS INTEGER) AS n FROM local.texts;
)");
  ASSERT_EQ(run.status, 0) << run.out;
  ASSERT_TRUE(pg.Exec("INSERT INTO numbers VALUES (7)").ok());
  HopRun failed = Hop(state.Flag() + " refresh pg.numbers");
  EXPECT_EQ(failed.status, 1);
  EXPECT_NE(failed.out.find("Cannot cast 'x' to INTEGER"), std::string::npos) << failed.out;
  EXPECT_EQ(rows("SELECT * FROM numbers"), "7\n");
  EXPECT_EQ(watermark("pg-numbers"), "");

  // Killed while it copies: PostgreSQL rolls the transaction back.
  const std::string file = state.path() + "/local/default.db";
  ASSERT_EQ(Hop(state.Flag() + " -e 'CREATE TABLE local.big (id BIGINT, s VARCHAR)'").status, 0);
  ASSERT_NO_FATAL_FAILURE(FillBig(state, 2000000));
  ASSERT_EQ(Hop(state.Flag() + " -e 'CREATE MATERIALIZED VIEW pg.big AS SELECT id, s FROM "
                "local.big WHERE id <= 10'").status, 0);
  ASSERT_EQ(Hop(state.Flag() + " refresh pg.big").status, 0);
  const std::string big_before = watermark("pg-big");
  ASSERT_EQ(Hop(state.Flag() + " -e 'CREATE OR REPLACE MATERIALIZED VIEW pg.big AS SELECT id, s "
                "FROM local.big'").status, 0);
  const std::string hop = HOP_BINARY;
  const std::string dir = state.path();
  const char* argv[] = {hop.c_str(), "--state", dir.c_str(), "refresh", "pg.big", nullptr};
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, hop.c_str(), nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  // Killed once its COPY runs in PostgreSQL, rather than after a fixed time that a fast machine
  // finishes the refresh in.
  for (int i = 0; i < 2000; ++i) {
    if (rows("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY%' AND "
             "pid <> pg_backend_pid()") != "0\n") {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the refresh finished before it was killed";
  EXPECT_EQ(rows("SELECT count(*) FROM big"), "10\n");
  EXPECT_EQ(watermark("pg-big"), big_before);

  // The REFRESH statement runs it as a Job; it waits for the killed one's lock to go. A view over
  // it refreshed on its change follows.
  run = Hop(state.Flag() + " -f -", R"(
CREATE MATERIALIZED VIEW pg.big_count WITH ('refresh' 'on-source-change') AS
  SELECT COUNT(*) AS n FROM pg.big;
REFRESH MATERIALIZED VIEW pg.big;
!wait 120
)");
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_EQ(rows("SELECT count(*), sum(id) FROM big"), "2000000|2000001000000\n");
  EXPECT_GT(watermark("pg-big"), big_before);
  EXPECT_EQ(rows("SELECT n FROM big_count"), "2000000\n");
  EXPECT_GE(watermark("pg-bigcount"), watermark("pg-big"));
}

// CREATE TABLE ... AS query (docs/ddl.md): the table is made with the query's columns and filled
// once by a refresh Job; its watermark then advances, which fires the trigger on it. A fill that
// fails says why in status.fill and leaves the table empty.
TEST(CliTest, CreateTableAsFillsTheTableOnce) {
  StateDir state;
  ASSERT_EQ(hop::testing::ApplyTestEnvironment(HOP_BINARY, state.path()).second, 0);
  HopRun run = Hop(state.Flag() + " -f -", R"(
CREATE TABLE local.orders (member VARCHAR, amount VARCHAR);
INSERT INTO local.orders VALUES ('a', '10'), ('b', '20'), ('a', '5');
CREATE TABLE local.totals AS
  SELECT member, SUM(CAST(amount AS INTEGER)) AS total FROM local.orders GROUP BY member;
CREATE TRIGGER on_totals ON local.totals AS 'echo-report';
!wait 60
SELECT * FROM local.totals ORDER BY member;
CREATE TABLE local.broken AS SELECT CAST(amount || 'x' AS INTEGER) AS n FROM local.orders;
!wait 60
SELECT COUNT(*) AS n FROM local.broken;
)");
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("Note: LOCAL.TOTALS is filled by a refresh Job"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find(" a      |    15\n b      |    20\n(2 rows)"), std::string::npos)
      << run.out;
  auto table = nlohmann::json::parse(Hop(state.Flag() + " get table localdb-totals -o json").out,
                                     nullptr, false);
  if (table.is_discarded() || !table.contains("status")) {
    table = nlohmann::json::parse(
        Hop(state.Flag() + " get table local-database-totals -o json").out, nullptr, false);
  }
  ASSERT_FALSE(table.is_discarded());
  EXPECT_EQ(table["status"]["fill"].value("lastOutcome", ""), "Succeeded") << table.dump();
  EXPECT_FALSE(table["status"].value("watermark", "").empty()) << table.dump();
  EXPECT_EQ(Runs(state, "ontotals").size(), 1u);
  // The failed fill: no rows, and why.
  EXPECT_NE(run.out.find(" N\n---\n 0\n(1 row)"), std::string::npos) << run.out;
  auto broken = nlohmann::json::parse(
      Hop(state.Flag() + " get table local-database-broken -o json").out, nullptr, false);
  ASSERT_FALSE(broken.is_discarded());
  EXPECT_EQ(broken["status"]["fill"].value("lastOutcome", ""), "Failed") << broken.dump();
  EXPECT_FALSE(broken["status"].contains("watermark")) << broken.dump();
  // By hand, it says why.
  HopRun again = Hop(state.Flag() + " refresh table/local-database-broken");
  EXPECT_EQ(again.status, 1);
  EXPECT_NE(again.out.find("Cannot cast"), std::string::npos) << again.out;
}

// The watermark a refresh earns (docs/runtime.md, "Refreshes"): the earliest of its inputs'
// watermarks, as given (an input complete up to a time after the wall clock gives that time, one
// complete up to an earlier time that one), and the time the refresh began for an input without
// one; back too, when an input went back. `hop refresh` by hand, the Job of REFRESH MATERIALIZED
// VIEW and the Jobs of a view refreshed on its inputs' change agree, and a trigger on the view
// fires at what it earned.
TEST(CliTest, ARefreshEarnsTheEarliestWatermarkOfItsInputs) {
  StateDir state;
  ASSERT_EQ(hop::testing::ApplyTestEnvironment(HOP_BINARY, state.path()).second, 0);
  HopRun made = Hop(state.Flag() + " -f -", R"(
CREATE TABLE local.late (id INT);
CREATE TABLE local.early (id INT);
CREATE TABLE local.plain (id INT);
INSERT INTO local.late VALUES (1), (2);
INSERT INTO local.early VALUES (3);
INSERT INTO local.plain VALUES (4);
FIRE TABLE local.late WATERMARK '2099-01-01T00:00:00Z';
FIRE TABLE local.early WATERMARK '2020-01-01T00:00:00Z';
CREATE MATERIALIZED VIEW local.late_count AS SELECT COUNT(*) AS n FROM local.late;
CREATE MATERIALIZED VIEW local.both AS SELECT id FROM local.late UNION ALL SELECT id FROM local.early;
CREATE MATERIALIZED VIEW local.unmarked AS
  SELECT id FROM local.late UNION ALL SELECT id FROM local.plain;
)");
  ASSERT_EQ(made.status, 0) << made.out;
  auto watermark = [&](const std::string& view) {
    auto doc = nlohmann::json::parse(Hop(state.Flag() + " get view " + view + " -o json").out,
                                     nullptr, false);
    return doc.is_object() && doc.contains("status") ? doc["status"].value("watermark", "")
                                                     : std::string();
  };

  // By hand: the input's time, later than the wall clock.
  HopRun late = Hop(state.Flag() + " refresh local.late_count");
  ASSERT_EQ(late.status, 0) << late.out;
  EXPECT_EQ(watermark("local-latecount"), "2099-01-01T00:00:00.000Z");
  EXPECT_NE(late.out.find("; watermark 2099-01-01T00:00:00.000Z (the watermark of its input "
                          "LOCAL.LATE)"),
            std::string::npos)
      << late.out;
  // Two inputs: the earlier, though the wall clock is later.
  HopRun both = Hop(state.Flag() + " refresh local.both");
  ASSERT_EQ(both.status, 0) << both.out;
  EXPECT_EQ(watermark("local-both"), "2020-01-01T00:00:00.000Z");
  // An input without a watermark counts as read up to the refresh's start.
  HopRun unmarked = Hop(state.Flag() + " refresh local.unmarked");
  ASSERT_EQ(unmarked.status, 0) << unmarked.out;
  EXPECT_NE(unmarked.out.find("(the refresh's start)"), std::string::npos) << unmarked.out;
  const std::string started = watermark("local-unmarked");
  EXPECT_GT(started, "2026-") << started;
  EXPECT_LT(started, "2099-01-01T00:00:00.000Z") << started;

  // Exactly what it earns: the refresh rewrote every row of the view from an input moved back,
  // so its watermark moves back with it, and it says so.
  HopRun back =
      Hop(state.Flag() + " watermark set --force table/local-database-late 2098-01-01T00:00:00Z");
  ASSERT_EQ(back.status, 0) << back.out;
  HopRun again = Hop(state.Flag() + " refresh view/local-latecount");
  ASSERT_EQ(again.status, 0) << again.out;
  EXPECT_EQ(watermark("local-latecount"), "2098-01-01T00:00:00.000Z");
  EXPECT_NE(again.out.find("; watermark 2098-01-01T00:00:00.000Z (the watermark of its input "
                           "LOCAL.LATE), moved back from 2099-01-01T00:00:00.000Z: the refresh "
                           "rewrote every row its query gives"),
            std::string::npos)
      << again.out;

  // Refreshed by Jobs on its inputs' change: the same rule, and the trigger on the view runs
  // once per watermark it earns, up to it.
  HopRun follow = Hop(state.Flag() + " -f -", R"(
CREATE MATERIALIZED VIEW local.follow WITH ('refresh' 'on-source-change') AS
  SELECT id FROM local.late UNION ALL SELECT id FROM local.early;
CREATE TRIGGER on_follow ON local.follow AS 'echo-report';
!wait 60
FIRE TABLE local.early WATERMARK '2021-06-01T00:00:00Z';
!wait 60
)");
  ASSERT_EQ(follow.status, 0) << follow.out;
  EXPECT_EQ(watermark("local-follow"), "2021-06-01T00:00:00.000Z");
  EXPECT_EQ(Runs(state, "onfollow"),
            (std::vector<std::string>{"Succeeded 2020-01-01T00:00:00.000Z",
                                      "Succeeded 2021-06-01T00:00:00.000Z"}));
  // An input's change that earns nothing later (late moves, early holds the view): refreshed,
  // and no new run.
  HopRun held = Hop(state.Flag() + " -f -", R"(
FIRE TABLE local.late WATERMARK '2098-06-01T00:00:00Z';
!wait 60
)");
  ASSERT_EQ(held.status, 0) << held.out;
  EXPECT_EQ(watermark("local-follow"), "2021-06-01T00:00:00.000Z");
  EXPECT_EQ(Runs(state, "onfollow").size(), 2u);
  // REFRESH MATERIALIZED VIEW's Job: early's new watermark.
  HopRun requested = Hop(state.Flag() + " -f -", R"(
REFRESH MATERIALIZED VIEW local.both;
!wait 60
)");
  ASSERT_EQ(requested.status, 0) << requested.out;
  EXPECT_EQ(watermark("local-both"), "2021-06-01T00:00:00.000Z");
}

// FIRE MATERIALIZED VIEW of a view hop refreshes (docs/ddl.md): never refreshed (no refresh yet,
// or only failed ones), its table holds none of its query's rows, and FIRE is refused, saying
// how to refresh it; refreshed, its watermark is what its refreshes earn, and FIRE is refused
// too. Neither moves the watermark.
TEST(CliTest, FireRefusesAMaterializedViewHopRefreshes) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("examples/demo-environment.yaml"))
          .status,
      0);
  HopRun made = Hop(state.Flag() + " -f -", R"(
CREATE TABLE local.src (id INT, s VARCHAR);
INSERT INTO local.src VALUES (1, 'a'), (2, 'b');
CREATE MATERIALIZED VIEW local.copy AS SELECT id FROM local.src;
CREATE MATERIALIZED VIEW local.broken AS SELECT CAST(s AS INTEGER) AS n FROM local.src;
REFRESH MATERIALIZED VIEW local.broken;
!wait 60
)");
  ASSERT_EQ(made.status, 0) << made.out;
  auto status = [&](const std::string& view) {
    auto doc = nlohmann::json::parse(Hop(state.Flag() + " get view " + view + " -o json").out,
                                     nullptr, false);
    return doc.is_object() && doc.contains("status") ? doc["status"] : nlohmann::json::object();
  };
  ASSERT_EQ(status("local-broken")["refresh"].value("lastOutcome", ""), "Failed")
      << status("local-broken");

  for (const char* fire : {"FIRE MATERIALIZED VIEW local.copy",
                           "FIRE MATERIALIZED VIEW local.copy WATERMARK '2026-03-01T00:00:00Z'",
                           "FIRE MATERIALIZED VIEW local.broken"}) {
    HopRun refused = Hop(state.Flag() + " -e \"" + fire + "\"");
    EXPECT_NE(refused.status, 0) << fire << ": " << refused.out;
    EXPECT_NE(refused.out.find("has never been refreshed"), std::string::npos)
        << fire << ": " << refused.out;
    EXPECT_NE(refused.out.find("REFRESH MATERIALIZED VIEW LOCAL."), std::string::npos)
        << fire << ": " << refused.out;
  }
  EXPECT_FALSE(status("local-copy").contains("watermark")) << status("local-copy");
  EXPECT_FALSE(status("local-broken").contains("watermark")) << status("local-broken");

  // Refreshed: its watermark is its refresh's, which FIRE would overstate.
  ASSERT_EQ(Hop(state.Flag() + " refresh local.copy").status, 0);
  const std::string refreshed = status("local-copy").value("watermark", "");
  ASSERT_FALSE(refreshed.empty());
  HopRun refused = Hop(state.Flag() + " -e 'FIRE MATERIALIZED VIEW local.copy'");
  EXPECT_NE(refused.status, 0) << refused.out;
  EXPECT_NE(refused.out.find("is the one its refreshes earn"), std::string::npos) << refused.out;
  EXPECT_EQ(status("local-copy").value("watermark", ""), refreshed);
  // Nor does hop watermark set, a producer's word, move it, with or without --force.
  for (const char* set :
       {" watermark set view/local-copy 2099-01-01T00:00:00Z",
        " watermark set --force view/local-copy", " watermark set view/local-broken"}) {
    HopRun not_set = Hop(state.Flag() + set);
    EXPECT_EQ(not_set.status, 1) << set << ": " << not_set.out;
    EXPECT_NE(not_set.out.find("is a materialized view hop refreshes"), std::string::npos)
        << set << ": " << not_set.out;
  }
  EXPECT_EQ(status("local-copy").value("watermark", ""), refreshed);
  EXPECT_FALSE(status("local-broken").contains("watermark")) << status("local-broken");
}

// A refresh that reads a materialized view hop refreshes but has never refreshed would compute
// its rows from a table holding none of that view's (docs/runtime.md, "Refreshes"): it fails,
// naming the view to refresh first, and claims no watermark; once that view is refreshed, it
// runs.
TEST(CliTest, ARefreshOfAViewOverANeverRefreshedViewFails) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("examples/demo-environment.yaml"))
          .status,
      0);
  HopRun made = Hop(state.Flag() + " -f -", R"(
CREATE TABLE local.a (id INT);
INSERT INTO local.a VALUES (1), (2);
CREATE MATERIALIZED VIEW local.inner_view AS SELECT id FROM local.a;
CREATE MATERIALIZED VIEW local.outer_view AS SELECT id FROM local.inner_view;
)");
  ASSERT_EQ(made.status, 0) << made.out;
  auto watermark = [&](const std::string& view) {
    auto doc = nlohmann::json::parse(Hop(state.Flag() + " get view " + view + " -o json").out,
                                     nullptr, false);
    return doc.is_object() && doc.contains("status") ? doc["status"].value("watermark", "")
                                                     : std::string();
  };
  HopRun refused = Hop(state.Flag() + " refresh local.outer_view");
  EXPECT_EQ(refused.status, 1) << refused.out;
  EXPECT_NE(refused.out.find("reads LOCAL.INNER_VIEW, a materialized view hop refreshes that has "
                             "never been refreshed"),
            std::string::npos)
      << refused.out;
  EXPECT_EQ(watermark("local-outerview"), "");
  ASSERT_EQ(Hop(state.Flag() + " refresh local.inner_view").status, 0);
  HopRun refreshed = Hop(state.Flag() + " refresh local.outer_view");
  EXPECT_EQ(refreshed.status, 0) << refreshed.out;
  EXPECT_NE(refreshed.out.find("2 rows replaced"), std::string::npos) << refreshed.out;
  EXPECT_FALSE(watermark("local-innerview").empty());
  EXPECT_EQ(watermark("local-outerview"), watermark("local-innerview"));
}

// A table made by CREATE TABLE ... AS (docs/ddl.md, FIRE; docs/runtime.md, "The watermark a
// refresh earns"): until its fill succeeds it holds none of its query's rows, so FIRE TABLE,
// hop watermark set (with or without --force) and a trigger's Job that declares it an output
// leave its watermark alone; once filled it takes INSERTs and its writers' watermark, and a
// refill, which replaces their rows too, sets it back to what the fill earns.
TEST(CliTest, ATableItsFillHasNotFilledTakesNoProducersWatermark) {
  StateDir state;
  ASSERT_EQ(hop::testing::ApplyTestEnvironment(HOP_BINARY, state.path()).second, 0);
  HopRun made = Hop(state.Flag() + " -f -", R"(
CREATE TABLE local.orders (member VARCHAR, amount VARCHAR);
INSERT INTO local.orders VALUES ('a', '10'), ('b', '20');
CREATE TABLE local.broken AS SELECT CAST(amount || 'x' AS INTEGER) AS n FROM local.orders;
!wait 60
)");
  ASSERT_EQ(made.status, 0) << made.out;
  auto status = [&](const std::string& table) {
    auto doc = nlohmann::json::parse(Hop(state.Flag() + " get table " + table + " -o json").out,
                                     nullptr, false);
    return doc.is_object() && doc.contains("status") ? doc["status"] : nlohmann::json::object();
  };
  ASSERT_EQ(status("local-database-broken")["fill"].value("lastOutcome", ""), "Failed");

  // Its fill failed: nobody may claim a watermark for rows it does not hold.
  for (const char* fire : {" -e 'FIRE TABLE local.broken'",
                           " -e \"FIRE TABLE local.broken WATERMARK '2099-01-01T00:00:00Z'\""}) {
    HopRun refused = Hop(state.Flag() + fire);
    EXPECT_NE(refused.status, 0) << fire << ": " << refused.out;
    EXPECT_NE(refused.out.find("Cannot FIRE TABLE LOCAL.BROKEN: CREATE TABLE ... AS fills it, and "
                               "its fill failed"),
              std::string::npos)
        << fire << ": " << refused.out;
  }
  for (const char* set : {" watermark set table/local-database-broken 2099-01-01T00:00:00Z",
                          " watermark set --force table/local-database-broken",
                          " watermark set table/local-database-broken"}) {
    HopRun refused = Hop(state.Flag() + set);
    EXPECT_EQ(refused.status, 1) << set << ": " << refused.out;
    EXPECT_NE(refused.out.find("table/local-database-broken is filled by CREATE TABLE ... AS, and "
                               "its fill failed"),
              std::string::npos)
        << set << ": " << refused.out;
  }
  EXPECT_FALSE(status("local-database-broken").contains("watermark"))
      << status("local-database-broken");

  // Nor does a trigger's Job that declares it an output; a table filled from an input complete
  // up to 2020 is complete up to 2020.
  HopRun run = Hop(state.Flag() + " -f -", R"(
CREATE TRIGGER on_orders ON local.orders AS 'echo-report' WITH (outputs 'table/local-database-broken');
FIRE TABLE local.orders WATERMARK '2020-01-01T00:00:00Z';
CREATE TABLE local.totals AS
  SELECT member, SUM(CAST(amount AS INTEGER)) AS total FROM local.orders GROUP BY member;
!wait 60
)");
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_EQ(Runs(state, "onorders"),
            (std::vector<std::string>{"Succeeded 2020-01-01T00:00:00.000Z"}));
  EXPECT_FALSE(status("local-database-broken").contains("watermark"))
      << status("local-database-broken");
  EXPECT_EQ(status("local-database-totals").value("watermark", ""), "2020-01-01T00:00:00.000Z");

  // Filled, it is a table its writers keep: they INSERT and say how complete it is.
  HopRun wrote = Hop(state.Flag() + " -f -", R"(
INSERT INTO local.totals VALUES ('c', 1);
FIRE TABLE local.totals WATERMARK '2021-01-01T00:00:00Z';
)");
  ASSERT_EQ(wrote.status, 0) << wrote.out;
  HopRun set =
      Hop(state.Flag() + " watermark set table/local-database-totals 2022-01-01T00:00:00Z");
  ASSERT_EQ(set.status, 0) << set.out;
  EXPECT_EQ(status("local-database-totals").value("watermark", ""), "2022-01-01T00:00:00.000Z");
  // A refill replaces every row, theirs too: the watermark is again what the fill earns.
  HopRun refill = Hop(state.Flag() + " refresh table/local-database-totals");
  ASSERT_EQ(refill.status, 0) << refill.out;
  EXPECT_NE(refill.out.find("; watermark 2020-01-01T00:00:00.000Z (the watermark of its input "
                            "LOCAL.ORDERS), moved back from 2022-01-01T00:00:00.000Z"),
            std::string::npos)
      << refill.out;
  EXPECT_EQ(status("local-database-totals").value("watermark", ""), "2020-01-01T00:00:00.000Z");
  HopRun rows = Hop(state.Flag() + " -e 'SELECT COUNT(*) AS n FROM local.totals'");
  EXPECT_NE(rows.out.find(" N\n---\n 2\n(1 row)"), std::string::npos) << rows.out;
}

// A watermark is a claim about the rows of a table's query (docs/runtime.md, "The watermark a
// refresh earns"): CREATE OR REPLACE TABLE ... AS another query withdraws the one the earlier
// query's rows earned until a fill of the new one succeeds, so that it is neither reported nor
// fired, and a view that reads the table cannot be refreshed from it meanwhile, as over a view
// never refreshed; the new query's fill sets the one it earns.
TEST(CliTest, AReplacedTableAsQueryHasNoWatermarkUntilItsNewQueryFills) {
  StateDir state;
  ASSERT_EQ(hop::testing::ApplyTestEnvironment(HOP_BINARY, state.path()).second, 0);
  HopRun made = Hop(state.Flag() + " -f -", R"(
CREATE TABLE local.orders (member VARCHAR, amount VARCHAR);
INSERT INTO local.orders VALUES ('a', '10'), ('b', '20');
FIRE TABLE local.orders WATERMARK '2020-01-01T00:00:00Z';
CREATE TABLE local.totals AS SELECT member, CAST(amount AS INTEGER) AS total FROM local.orders;
CREATE MATERIALIZED VIEW local.members AS SELECT member FROM local.totals;
CREATE TRIGGER on_totals ON local.totals AS 'echo-report';
!wait 60
)");
  ASSERT_EQ(made.status, 0) << made.out;
  auto status = [&]() {
    auto doc = nlohmann::json::parse(
        Hop(state.Flag() + " get table local-database-totals -o json").out, nullptr, false);
    return doc.is_object() && doc.contains("status") ? doc["status"] : nlohmann::json::object();
  };
  ASSERT_EQ(status().value("watermark", ""), "2020-01-01T00:00:00.000Z") << status();
  EXPECT_EQ(Runs(state, "ontotals"),
            (std::vector<std::string>{"Succeeded 2020-01-01T00:00:00.000Z"}));
  HopRun members = Hop(state.Flag() + " refresh local.members");
  ASSERT_EQ(members.status, 0) << members.out;

  // Replaced with a query whose fill fails: the table keeps the earlier query's rows, and no
  // watermark; a trigger created now does not fire, and the view cannot be refreshed from it.
  HopRun replaced = Hop(state.Flag() + " -f -", R"(
CREATE OR REPLACE TABLE local.totals AS
  SELECT member, CAST(amount || 'x' AS INTEGER) AS total FROM local.orders;
!wait 60
CREATE TRIGGER later_on_totals ON local.totals AS 'echo-report';
!wait 60
)");
  ASSERT_EQ(replaced.status, 0) << replaced.out;
  ASSERT_EQ(status()["fill"].value("lastOutcome", ""), "Failed") << status();
  EXPECT_FALSE(status().contains("watermark")) << status();
  EXPECT_FALSE(status().contains("pendingFires")) << status();
  const HopRun listed = Hop(state.Flag() + " get tables local-database-totals");
  EXPECT_EQ(listed.out.find("2020-01-01"), std::string::npos) << listed.out;
  EXPECT_TRUE(Runs(state, "laterontotals").empty());
  HopRun refused = Hop(state.Flag() + " refresh local.members");
  EXPECT_EQ(refused.status, 1) << refused.out;
  EXPECT_NE(refused.out.find("LOCAL.MEMBERS reads LOCAL.TOTALS, a table CREATE TABLE ... AS "
                             "fills, and its fill failed"),
            std::string::npos)
      << refused.out;

  // A query that fills: the watermark it earns, and the trigger created meanwhile fires at it.
  HopRun refilled = Hop(state.Flag() + " -f -", R"(
CREATE OR REPLACE TABLE local.totals AS
  SELECT member, CAST(amount AS INTEGER) + 1 AS total FROM local.orders;
!wait 60
)");
  ASSERT_EQ(refilled.status, 0) << refilled.out;
  EXPECT_EQ(status().value("watermark", ""), "2020-01-01T00:00:00.000Z") << status();
  EXPECT_EQ(Runs(state, "laterontotals"),
            (std::vector<std::string>{"Succeeded 2020-01-01T00:00:00.000Z"}));
  EXPECT_EQ(Hop(state.Flag() + " refresh local.members").status, 0);
}

// A fill Job that has not started is said to wait, not to be going (hop wait, FIRE TABLE), and
// a fill by hand is recorded in status.fill as a Job's is when it ends, so that a table filled
// by hand after a failed Job does not show that failure as its fill's (docs/ddl.md).
TEST(CliTest, AFillSaysWhetherItsJobStartedAndAFillByHandIsRecorded) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("examples/demo-environment.yaml"))
          .status,
      0);
  auto status = [&](const std::string& table) {
    auto doc = nlohmann::json::parse(Hop(state.Flag() + " get table " + table + " -o json").out,
                                     nullptr, false);
    return doc.is_object() && doc.contains("status") ? doc["status"] : nlohmann::json::object();
  };
  // No runner: the fill's Job is made and waits.
  HopRun waiting = Hop(state.Flag() + " --no-local-jobs -f -", R"(
CREATE TABLE local.orders (member VARCHAR, amount VARCHAR);
INSERT INTO local.orders VALUES ('a', '10'), ('b', 'x');
CREATE TABLE local.later AS SELECT member FROM local.orders;
!wait 1
)");
  const std::string job = status("local-database-later")["fill"].value("job", "");
  ASSERT_FALSE(job.empty()) << waiting.out;
  EXPECT_NE(
      waiting.out.find("Table default/local-database-later: its fill " + job + " waits to start"),
      std::string::npos)
      << waiting.out;
  EXPECT_EQ(waiting.out.find("going"), std::string::npos) << waiting.out;
  HopRun fire = Hop(state.Flag() + " --no-local-jobs -e 'FIRE TABLE local.later'");
  EXPECT_NE(fire.out.find("and its fill " + job + " waits to start, so it holds none"),
            std::string::npos)
      << fire.out;

  // A fill Job that failed, then a fill by hand once the rows are mended: status.fill says the
  // hand fill succeeded, and no longer why the Job failed.
  HopRun failed = Hop(state.Flag() + " -f -", R"(
CREATE TABLE local.skip (member VARCHAR);
CREATE TABLE local.totals AS SELECT member, CAST(amount AS INTEGER) AS total FROM local.orders
  WHERE member NOT IN (SELECT member FROM local.skip);
!wait 60
INSERT INTO local.skip VALUES ('b');
)");
  const nlohmann::json before = status("local-database-totals");
  ASSERT_EQ(before["fill"].value("lastOutcome", ""), "Failed") << failed.out << before;
  // The waiting Job ran meanwhile: its own fill is the Job's, not one by hand.
  const nlohmann::json by_job = status("local-database-later")["fill"];
  EXPECT_EQ(by_job.value("lastOutcome", ""), "Succeeded") << by_job;
  EXPECT_EQ(by_job.value("lastJob", ""), job) << by_job;
  EXPECT_FALSE(by_job.contains("byHand")) << by_job;
  const HopRun hand = Command("env -u HOP_JOB " + std::string(HOP_BINARY) + " " + state.Flag() +
                              " refresh table/local-database-totals");
  ASSERT_EQ(hand.status, 0) << hand.out;
  const nlohmann::json fill = status("local-database-totals")["fill"];
  EXPECT_EQ(fill.value("lastOutcome", ""), "Succeeded") << fill;
  EXPECT_EQ(fill.value("byHand", false), true) << fill;
  EXPECT_FALSE(fill.contains("message")) << fill;
  EXPECT_FALSE(fill.contains("job")) << fill;
  EXPECT_EQ(fill.value("lastJob", ""), before["fill"].value("lastJob", "")) << fill;
  EXPECT_GT(fill.value("finished", ""), before["fill"].value("finished", "")) << fill;
}

// A materialized view hop refreshes is written only by its refreshes (docs/operator.md, "Jobs
// that declare their outputs"): CREATE TRIGGER refuses it in `outputs`, and a run whose Job's own
// YAML declares it leaves its watermark alone.
TEST(CliTest, ATriggersJobDoesNotAdvanceAViewHopRefreshes) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("examples/demo-environment.yaml"))
          .status,
      0);
  HopRun declared =
      Hop(state.Flag() + " apply -f -", R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: JobTemplate
metadata: {name: declares-copy}
spec:
  yaml: |
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: {{trigger}}
      annotations: {hop.dev/outputs: view/local-copy}
    spec:
      backoffLimit: 0
      template:
        spec:
          containers:
          - name: report
            image: busybox
            command:
            - sh
            - -c
            - echo {{trigger shellQuote}} covers {{watermark shellQuote}} to {{timestamp shellQuote}}
          restartPolicy: Never
)");
  ASSERT_EQ(declared.status, 0) << declared.out;
  HopRun made = Hop(state.Flag() + " -f -", R"(
CREATE TABLE local.src (id INT);
INSERT INTO local.src VALUES (1), (2);
FIRE TABLE local.src WATERMARK '2020-01-01T00:00:00Z';
CREATE MATERIALIZED VIEW local.copy AS SELECT id FROM local.src;
REFRESH MATERIALIZED VIEW local.copy;
!wait 60
)");
  ASSERT_EQ(made.status, 0) << made.out;
  auto watermark = [&]() {
    auto doc = nlohmann::json::parse(Hop(state.Flag() + " get view local-copy -o json").out,
                                     nullptr, false);
    return doc.is_object() && doc.contains("status") ? doc["status"].value("watermark", "")
                                                     : std::string();
  };
  ASSERT_EQ(watermark(), "2020-01-01T00:00:00.000Z");

  HopRun refused = Hop(state.Flag() +
                       " -e \"CREATE TRIGGER declared ON local.src AS 'declares-copy' WITH "
                       "(outputs 'view/local-copy')\"");
  EXPECT_NE(refused.status, 0) << refused.out;
  EXPECT_NE(refused.out.find("Option outputs: view/local-copy is a materialized view hop "
                             "refreshes: only its refreshes write its rows"),
            std::string::npos)
      << refused.out;

  // Declared by the Job's own YAML: the run succeeds, and the view keeps what its refresh earned.
  HopRun run = Hop(state.Flag() + " -f -", R"(
CREATE TRIGGER on_src ON local.src AS 'declares-copy';
FIRE TABLE local.src WATERMARK '2099-01-01T00:00:00Z';
!wait 60
)");
  ASSERT_EQ(run.status, 0) << run.out;
  // (A first run may cover the watermark src had when the trigger was made.)
  const std::vector<std::string> runs = Runs(state, "onsrc");
  ASSERT_FALSE(runs.empty());
  EXPECT_EQ(runs.back(), "Succeeded 2099-01-01T00:00:00.000Z");
  EXPECT_EQ(watermark(), "2020-01-01T00:00:00.000Z");
}

TEST(CliTest, AViewHopDoesNotRefreshIsNotClaimedRefreshed) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("test/sql/env/jobs.yaml")).status,
      0);
  HopRun run = Hop(state.Flag() + " -f -", R"(
CREATE MATERIALIZED VIEW ads.hourly REFRESHED '* * * * *' AS SELECT first_name FROM profile.members;
CREATE TRIGGER on_hourly ON ads.hourly AS 'echo-report';
REFRESH MATERIALIZED VIEW ads.hourly;
!wait 60
)");
  for (const char* line :
       {"REFRESHED '* * * * *' is recorded in spec.schedule, but hop refreshes only views whose "
        "table is in a local or PostgreSQL database",
        "ADS.HOURLY is not refreshed by hop: hop refreshes materialized views whose table is in a "
        "local or PostgreSQL database"}) {
    EXPECT_NE(run.out.find(line), std::string::npos) << line << "\n" << run.out;
  }
  auto view = nlohmann::json::parse(Hop(state.Flag() + " get view ads-hourly -o json").out);
  EXPECT_FALSE(view.contains("status") && view["status"].contains("watermark")) << view.dump();
  EXPECT_TRUE(Runs(state, "onhourly").empty());
  EXPECT_NE(Hop(state.Flag() + " get jobs").out.find("No resources found"), std::string::npos);
}

// DEFAULT needs no Database (compatibility.md §1.4): its tables are local tables of hop's own,
// and a materialized view there is refreshed by hop like one in a local database.
TEST(CliTest, DefaultSchemaHoldsTablesAndRefreshedViews) {
  StateDir state;
  HopRun run = Hop(state.Flag() + " -f -", R"(
CREATE TABLE foo (id VARCHAR(128), a VARCHAR, c INT) WITH (a 'b', c 'd');
INSERT INTO foo VALUES ('1', 'x', 3), ('2', 'y', 4);
CREATE MATERIALIZED VIEW foo_sum AS SELECT SUM(c) AS total FROM foo;
REFRESH MATERIALIZED VIEW foo_sum;
!wait 60
SELECT * FROM foo_sum;
)");
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("     7\n(1 row)"), std::string::npos) << run.out;
  EXPECT_TRUE(std::filesystem::exists(state.path() + "/local/_default.db"));
}

// A materialized view into a local database is refreshed by hop (docs/runtime.md,
// "Refreshes"): REFRESH starts a Job running `hop refresh`, whose rows replace the table's; the
// view's watermark advances, which refreshes a view over it (on-source-change) and fires the
// trigger on that one. A refresh that fails leaves the rows and the watermark as they were.
TEST(CliTest, RefreshesMoveRowsAndAdvanceWatermarks) {
  StateDir state;
  ASSERT_EQ(hop::testing::ApplyTestEnvironment(HOP_BINARY, state.path()).second, 0);
  HopRun run = Hop(state.Flag() + " -f -", R"(
CREATE TABLE local.orders (member VARCHAR, amount VARCHAR);
INSERT INTO local.orders VALUES ('a', '10'), ('b', '20'), ('a', '5');
CREATE MATERIALIZED VIEW local.totals AS
  SELECT member, SUM(CAST(amount AS INTEGER)) AS total FROM local.orders GROUP BY member;
CREATE MATERIALIZED VIEW local.summary WITH ('refresh' 'on-source-change') AS
  SELECT COUNT(*) AS members, SUM(total) AS total FROM local.totals;
CREATE TRIGGER on_summary ON local.summary AS 'echo-report';
SELECT * FROM local.totals;
REFRESH MATERIALIZED VIEW local.totals;
!wait 60
SELECT * FROM local.totals ORDER BY member;
SELECT * FROM local.summary;
)");
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("(0 rows)"), std::string::npos) << run.out;  // before the refresh
  EXPECT_NE(run.out.find(" a      |    15\n b      |    20\n(2 rows)"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("       2 |    35\n(1 row)"), std::string::npos) << run.out;
  auto watermark = [&](const std::string& view) {
    auto doc = nlohmann::json::parse(Hop(state.Flag() + " get view " + view + " -o json").out);
    return doc["status"].value("watermark", "");
  };
  const std::string totals = watermark("local-totals");
  const std::string summary = watermark("local-summary");
  EXPECT_FALSE(totals.empty());
  EXPECT_GE(summary, totals);
  EXPECT_EQ(Runs(state, "onsummary").size(), 1u);

  // A refresh that fails half way (a value its query cannot cast) keeps the old rows and the
  // old watermark, and says why in the view's status.
  run = Hop(state.Flag() + " -f -", R"(
INSERT INTO local.orders VALUES ('c', 'not a number');
REFRESH MATERIALIZED VIEW local.totals;
!wait 60
SELECT * FROM local.totals ORDER BY member;
)");
  EXPECT_NE(run.out.find(" a      |    15\n b      |    20\n(2 rows)"), std::string::npos)
      << run.out;
  EXPECT_EQ(watermark("local-totals"), totals);
  auto view = nlohmann::json::parse(Hop(state.Flag() + " get view local-totals -o json").out);
  EXPECT_EQ(view["status"]["refresh"].value("lastOutcome", ""), "Failed") << view.dump();
  EXPECT_NE(view["status"]["refresh"].value("message", "").find("BackoffLimitExceeded"),
            std::string::npos)
      << view.dump();
  // `hop refresh` by hand says why, and exits 1.
  HopRun by_hand = Hop(state.Flag() + " refresh LOCAL.TOTALS");
  EXPECT_EQ(by_hand.status, 1);
  EXPECT_NE(by_hand.out.find("Cannot cast 'not a number' to INTEGER"), std::string::npos)
      << by_hand.out;
}

// A view refreshed on its inputs' change hears of them in any later process: one that resumes
// from the operator's checkpoint has reconciled no view, and finds the view by its label
// (docs/operator.md, "Refreshes"). Each `hop -e` below is such a process.
TEST(CliTest, AViewRefreshedOnChangeHearsOfItInALaterProcess) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("examples/demo-environment.yaml"))
          .status,
      0);
  HopRun run = Hop(state.Flag() + " -f -", R"(
CREATE TABLE local.e (id INT);
INSERT INTO local.e VALUES (1);
CREATE MATERIALIZED VIEW local.a WITH ('refresh' 'on-source-change') AS SELECT COUNT(*) AS n FROM local.e;
CREATE MATERIALIZED VIEW local.b WITH ('refresh' 'on-source-change') AS SELECT n * 10 AS m FROM local.a;
)");
  ASSERT_EQ(run.status, 0) << run.out;
  ASSERT_TRUE(std::filesystem::exists(state.path() + "/operator.checkpoint"));
  // The checkpoint of the first process may hold a request for the view (it is reconciled
  // then, whatever the events); after the second, none is left.
  for (const char* rows : {"(2)", "(3), (4)"}) {
    run = Hop(state.Flag() + " -e 'INSERT INTO local.e VALUES " + rows +
              "' -e 'FIRE TABLE local.e' -e '!wait 60'");
    ASSERT_EQ(run.status, 0) << run.out;
  }
  run = Hop(state.Flag() + " -e 'SELECT n FROM local.a' -e 'SELECT m FROM local.b'");
  EXPECT_NE(run.out.find(" N\n---\n 4\n(1 row)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(" M\n----\n 40\n(1 row)"), std::string::npos) << run.out;
  auto view = nlohmann::json::parse(Hop(state.Flag() + " get view local-a -o json").out);
  EXPECT_EQ(view["metadata"].value("labels", nlohmann::json::object()).value("hop.dev/refresh", ""),
            "on-source-change")
      << view.dump();
}

// A trigger made on a view or a table that has a watermark already fires at it as soon as the
// trigger exists (docs/operator.md, "Watermarks"): its object is reconciled then, not at the next
// resync, so `hop wait` has nothing left to wait for.
TEST(CliTest, ATriggerOnAnObjectWithAWatermarkFiresAtOnce) {
  StateDir state;
  ASSERT_EQ(hop::testing::ApplyTestEnvironment(HOP_BINARY, state.path()).second, 0);
  HopRun run = Hop(state.Flag() + " -f -", R"(
CREATE TABLE local.e (id INT);
CREATE MATERIALIZED VIEW local.b AS SELECT id FROM local.e;
REFRESH MATERIALIZED VIEW local.b;
FIRE TABLE local.e;
!wait 60
)");
  ASSERT_EQ(run.status, 0) << run.out;
  run = Hop(state.Flag() + " -e \"CREATE TRIGGER on_b ON local.b AS 'echo-report'\"" +
            " -e \"CREATE TRIGGER on_e ON local.e AS 'echo-report'\"");
  ASSERT_EQ(run.status, 0) << run.out;
  run = Hop(state.Flag() + " wait --timeout 20");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_EQ(Runs(state, "onb").size(), 1u);
  EXPECT_EQ(Runs(state, "one").size(), 1u);
}

}  // namespace

namespace {

// Apply and CREATE OR REPLACE are upserts: writers racing on the same objects all succeed, each
// computing its batch again when another got there first (docs/resources.md, docs/ddl.md).
TEST(CliTest, RacingUpsertsAllSucceed) {
  char tmpl[] = "/tmp/hop-e2e-race-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string demo = hop::testing::SourcePath("examples/demo-environment.yaml");
  constexpr int kWriters = 4;
  auto race = [&](const std::function<std::string(int)>& command) {
    std::vector<HopRun> runs(kWriters);
    std::vector<std::thread> threads;
    for (int i = 0; i < kWriters; ++i) {
      threads.emplace_back([&, i] { runs[i] = Hop(command(i)); });
    }
    for (auto& t : threads) t.join();
    return runs;
  };
  for (int round = 0; round < 6; ++round) {
    const std::string flag = "--state " + dir + "/apply" + std::to_string(round);
    for (const HopRun& r : race([&](int) { return flag + " apply -f " + demo; })) {
      EXPECT_EQ(r.status, 0) << "round " << round << ": " << r.out;
    }
  }
  const std::string flag = "--state " + dir + "/views";
  ASSERT_EQ(Hop(flag + " apply -f " + demo).status, 0);
  for (int round = 0; round < 8; ++round) {
    const std::string view = "ads.v" + std::to_string(round);
    for (const HopRun& r : race([&](int i) {
           return flag + " -e 'CREATE OR REPLACE VIEW " + view + " AS SELECT page_urn, " +
                  std::to_string(i) + " AS writer FROM ads.page_views;'";
         })) {
      EXPECT_EQ(r.status, 0) << view << ": " << r.out;
    }
    // A plain CREATE races too: one creates, the others are told it exists.
    int created = 0;
    for (const HopRun& r : race([&](int) {
           return flag + " -e 'CREATE VIEW " + view + "x AS SELECT page_urn FROM ads.page_views;'";
         })) {
      if (r.status == 0) {
        ++created;
      } else {
        EXPECT_NE(r.out.find("already exists. Use CREATE OR REPLACE"), std::string::npos) << r.out;
      }
    }
    EXPECT_EQ(created, 1) << view;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace

namespace {

// Secrets never print (ARCHITECTURE.md §4.16, docs/resources.md "Secrets"): a password in a
// database URL or a connector configuration shows as <redacted> in `hop get`, `!schemas`,
// `!pipeline`, errors and job log headers; and the state directory is private whatever the umask.
TEST(CliTest, SecretsNeverPrintAndStateIsPrivate) {
  char tmpl[] = "/tmp/hop-e2e-secrets-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string state = dir + "/state";
  const std::string flag = "--state " + state;
  const mode_t old_umask = umask(0);  // the children inherit it: nothing may rely on it
  HopRun applied = Hop(flag + " apply -f -", R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: secretdb}
spec:
  schema: SECRET
  url: jdbc:postgresql://app:hunter2@db.example:5432/app?user=app&password=hunter2
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: weird}
spec:
  schema: WEIRD
  url: jdbc:nosuchsystem://x;password=hunter2
---
apiVersion: batch/v1
kind: Job
metadata: {name: with-secret}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        env:
        - {name: PGPASSWORD, value: hunter2}
        command: [sh, -c, 'test "$1" = "$PGPASSWORD" && test -n "$1" && echo ok', sh, $(PGPASSWORD)]
)");
  ASSERT_EQ(applied.status, 0) << applied.out;
  auto never_shows_it = [](const HopRun& r, const char* what) {
    EXPECT_EQ(r.out.find("hunter2"), std::string::npos) << what << ":\n" << r.out;
  };
  HopRun table = Hop(flag + " get databases");
  EXPECT_NE(table.out.find("jdbc:postgresql://app:<redacted>@db.example"), std::string::npos)
      << table.out;
  never_shows_it(table, "get databases");
  HopRun yaml = Hop(flag + " get database secretdb -o yaml");
  EXPECT_NE(yaml.out.find("password=<redacted>"), std::string::npos) << yaml.out;
  never_shows_it(yaml, "get -o yaml");
  never_shows_it(Hop(flag + " get databases -o json"), "get -o json");
  EXPECT_NE(Hop(flag + " get database secretdb -o yaml --show-secrets").out.find("hunter2"),
            std::string::npos);
  // What `hop get` printed cannot be applied back: it would store <redacted> as the password.
  HopRun back = Hop(flag + " apply -f -", yaml.out);
  EXPECT_EQ(back.status, 1) << back.out;
  EXPECT_NE(back.out.find("spec.url: holds <redacted>"), std::string::npos) << back.out;
  never_shows_it(Hop(flag + " -e '!schemas'"), "!schemas");
  never_shows_it(Hop(flag + " -e 'SELECT * FROM weird.t;'"), "query error");
  never_shows_it(Hop(flag + " check --bind -", "SELECT * FROM weird.t;"), "check --bind");

  // The job ran with the secret, but its log header shows the command as written.
  HopRun waited = Hop(flag + " -e '!wait 60'");
  EXPECT_EQ(waited.status, 0) << waited.out;
  HopRun logs = Hop(flag + " logs job/with-secret");
  EXPECT_NE(logs.out.find("$(PGPASSWORD)"), std::string::npos) << logs.out;
  EXPECT_NE(logs.out.find("\nok\n"), std::string::npos) << logs.out;
  never_shows_it(logs, "logs");

  umask(old_umask);
  // Everything hop made under the state directory is private.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(state)) {
    const auto perms = entry.status().permissions();
    const auto others = std::filesystem::perms::group_all | std::filesystem::perms::others_all;
    EXPECT_EQ(perms & others, std::filesystem::perms::none) << entry.path();
  }
  EXPECT_EQ(std::filesystem::status(state).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_all);
  std::filesystem::remove_all(dir);
}

// Secrets as the values of map entries whose keys name them, in every kind that holds such maps,
// in a URL's query under a percent-encoded key, and as options of statements `hop check --print`
// prints, never print (docs/resources.md "Secrets").
TEST(CliTest, SecretsInMapsAndStatementOptionsNeverPrint) {
  char tmpl[] = "/tmp/hop-e2e-secret-maps-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string flag = "--state " + dir + "/state";
  HopRun applied = Hop(flag + " apply -f -", R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: SqlJob
metadata: {name: sj1}
spec:
  sql: ["select 1"]
  configs: {secret: hunter3a, ssl.truststore.password: hunter3b, parallelism: '2'}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: TableTrigger
metadata: {name: trg1}
spec:
  schema: ADS
  table: PAGE_VIEWS
  paused: true
  jobProperties: {password: hunter3c, db.password: hunter3d}
  yaml: "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n"
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Subscription
metadata: {name: sub1}
spec: {sql: select 1, database: x, hints: {apikey: hunter3e}}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: View
metadata: {name: vw}
spec: {view: VW, schema: S, sql: SELECT 1, options: {password: hunter3f, pwd: $(PW)}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm1
  annotations: {db-password: hunter3g}
data: {db.password: hunter3h, plain: shown}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: encdb}
spec: {schema: ENC, url: 'jdbc:postgresql://h/db?pass%77ord=hunter3i&user=u'}
)");
  ASSERT_EQ(applied.status, 0) << applied.out;
  HopRun made = Hop(flag + " -f -", R"(
CREATE DATABASE localdb WITH (url 'jdbc:local:', schema 'LOCAL');
CREATE TABLE local.pt (id INT) WITH ('password' 'hunter3j', 'db-token' 'hunter3k');
)");
  ASSERT_EQ(made.status, 0) << made.out;
  for (const std::string kind :
       {"sqljob", "tabletrigger", "subscription", "view", "configmap", "database", "table"}) {
    for (const std::string output : {"yaml", "json"}) {
      HopRun got = Hop(flag + " get " + kind + " -o " + output);
      EXPECT_EQ(got.status, 0) << kind << got.out;
      EXPECT_EQ(got.out.find("hunter3"), std::string::npos) << kind << " -o " << output << got.out;
      EXPECT_NE(got.out.find("<redacted>"), std::string::npos)
          << kind << " -o " << output << got.out;
    }
  }
  // What is not a secret is shown: a reference, and other keys.
  EXPECT_NE(Hop(flag + " get view vw -o yaml").out.find("pwd: $(PW)"), std::string::npos);
  EXPECT_NE(Hop(flag + " get configmap cm1 -o yaml").out.find("plain: shown"), std::string::npos);
  EXPECT_NE(Hop(flag + " get sqljob sj1 -o yaml --show-secrets").out.find("hunter3b"),
            std::string::npos);

  HopRun printed = Hop("check --print -",
                       "CREATE DATABASE x WITH ('url' 'postgresql://u:hunter3l@h/x', "
                       "'password' 'hunter3m', schema 'X');\n");
  EXPECT_EQ(printed.status, 0) << printed.out;
  EXPECT_EQ(printed.out.find("hunter3"), std::string::npos) << printed.out;
  EXPECT_NE(printed.out.find("'password' '<redacted>'"), std::string::npos) << printed.out;
  std::filesystem::remove_all(dir);
}

// A secret in a container's env list or given to a command line as an option's value never
// prints: `hop get`, a JobTemplate's text, the job's log header, `hop check --print`
// (docs/resources.md "Secrets"); the job itself still gets it, and what is not a secret (a path to
// one) shows.
TEST(CliTest, SecretsInEnvListsAndArgumentsNeverPrint) {
  char tmpl[] = "/tmp/hop-e2e-secret-env-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string flag = "--state " + dir + "/state";
  HopRun applied = Hop(flag + " apply -f -", R"(apiVersion: batch/v1
kind: Job
metadata: {name: envjob}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        env:
        - name: PGPASSWORD
          value: hunter6a
        - {name: API_TOKEN, value: hunter6b}
        - {name: PASSWORD_FILE, value: /run/secrets/pw}
        command: [sh, -c, 'test "${2#hunter}" = 6c && test "${PGPASSWORD#hunter}" = 6a && echo ok', sh]
        args: [--password, hunter6c, --token=hunter6d]
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: JobTemplate
metadata: {name: envtemplate}
spec:
  yaml: |
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: {{name}}
    spec:
      template:
        spec:
          containers:
          - name: c
            args: ["--secret", "hunter6e"]
            env:
            - name: DB_PASSWORD
              value: "hunter6f"
)");
  ASSERT_EQ(applied.status, 0) << applied.out;
  const auto never_shows_it = [](const HopRun& r, const std::string& what) {
    EXPECT_EQ(r.out.find("hunter6"), std::string::npos) << what << ":\n" << r.out;
  };
  for (const std::string kind : {"job", "jobtemplate"}) {
    for (const std::string output : {"yaml", "json"}) {
      HopRun got = Hop(flag + " get " + kind + " -o " + output);
      EXPECT_EQ(got.status, 0) << got.out;
      never_shows_it(got, kind + " -o " + output);
    }
  }
  EXPECT_NE(Hop(flag + " get job envjob -o yaml").out.find("/run/secrets/pw"), std::string::npos);
  EXPECT_NE(Hop(flag + " get job envjob -o yaml --show-secrets").out.find("hunter6a"),
            std::string::npos);

  HopRun waited = Hop(flag + " -e '!wait 60'");
  EXPECT_EQ(waited.status, 0) << waited.out;
  HopRun logs = Hop(flag + " logs job/envjob");
  EXPECT_NE(logs.out.find("\nok\n"), std::string::npos) << logs.out;  // it ran with them
  EXPECT_NE(logs.out.find("--password '<redacted>' '--token=<redacted>'"), std::string::npos)
      << logs.out;
  never_shows_it(logs, "logs");

  HopRun printed = Hop("check --print -", "!sh psql --password hunter6g -c 'select 1'\n");
  EXPECT_EQ(printed.status, 0) << printed.out;
  never_shows_it(printed, "check --print");
  std::filesystem::remove_all(dir);
}

// Hostile input as a user could give it (docs/resources.md "Limits"): every input is bounded
// with a clear error, a file that is not what hop expects is refused, and nothing a user wrote
// reaches the terminal as a control sequence or a path outside the state directory.
TEST(CliTest, HostileInputIsBoundedAndRefused) {
  char tmpl[] = "/tmp/hop-e2e-hostile-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string flag = "--state " + dir + "/state";
  const auto contains = [](const HopRun& r, const std::string& part) {
    return r.out.find(part) != std::string::npos;
  };

  // Unbounded input stops at the request limit: a file that cannot be read, a usage error.
  HopRun zero = Hop(flag + " apply -f /dev/zero");
  EXPECT_EQ(zero.status, 2) << zero.out;
  EXPECT_EQ(zero.out,
            "hop apply: /dev/zero is larger than 3 MiB, the most hop reads from one input "
            "(HOP_MAX_REQUEST_BYTES)\n");
  HopRun check_zero = Hop("check /dev/zero");
  EXPECT_EQ(check_zero.status, 2) << check_zero.out;
  EXPECT_TRUE(contains(check_zero, "hop check: /dev/zero is larger than 3 MiB")) << check_zero.out;
  HopRun shell_zero = Hop(flag + " < /dev/zero");
  EXPECT_EQ(shell_zero.status, 1) << shell_zero.out.substr(0, 300);
  EXPECT_TRUE(contains(shell_zero, "the statement being entered is larger than 3 MiB"))
      << shell_zero.out.substr(0, 300);
  // The limit is the environment's to change.
  HopRun limited = Command("echo 'SELECT 1, 2, 3;' | HOP_MAX_REQUEST_BYTES=10 " +
                           std::string(HOP_BINARY) + " check -");
  EXPECT_EQ(limited.status, 2) << limited.out;
  EXPECT_EQ(limited.out,
            "hop check: <stdin> is larger than 10 bytes, the most hop reads from one input "
            "(HOP_MAX_REQUEST_BYTES)\n");
  HopRun bad_limit = Command("HOP_MAX_REQUEST_BYTES=lots " + std::string(HOP_BINARY) + " check -");
  EXPECT_EQ(bad_limit.status, 2) << bad_limit.out;
  EXPECT_TRUE(
      contains(bad_limit, "HOP_MAX_REQUEST_BYTES=lots: expected a positive number of bytes"))
      << bad_limit.out;

  // What apply -f got, when it is not a YAML stream.
  HopRun directory = Hop(flag + " apply -f " + dir);
  EXPECT_EQ(directory.status, 2);
  EXPECT_EQ(directory.out, "hop apply: " + dir + " is a directory\n");
  std::ofstream(dir + "/empty.yaml").close();
  HopRun empty = Hop(flag + " apply -f " + dir + "/empty.yaml");
  EXPECT_EQ(empty.status, 1);
  EXPECT_EQ(empty.out, "hop apply: " + dir + "/empty.yaml holds no object\n");
  HopRun missing = Hop(flag + " apply -f " + dir + "/nope.yaml");
  EXPECT_EQ(missing.status, 2);
  EXPECT_TRUE(contains(missing, "nope.yaml: No such file or directory")) << missing.out;
  HopRun open_quote = Hop(flag + " apply -f -",
                          "kind: ConfigMap\napiVersion: v1\n"
                          "metadata: {name: q}\ndata:\n  a: \"abc\n");
  EXPECT_EQ(open_quote.status, 1);
  EXPECT_TRUE(contains(open_quote, "<stdin>: line 5, column 6: unterminated quoted string"))
      << open_quote.out;

  // SQL that is not UTF-8 or holds a NUL is refused with its position.
  HopRun nul = Hop("check -", std::string("SELECT 'a\0b';", 13));
  EXPECT_EQ(nul.status, 1);
  EXPECT_TRUE(contains(nul, "a NUL character is not allowed in SQL text at line 1, column 10"))
      << nul.out;
  HopRun latin1 = Hop("check -", "SELECT 'caf\xe9';");
  EXPECT_EQ(latin1.status, 1);
  EXPECT_TRUE(contains(latin1, "invalid UTF-8 byte 0xE9 at line 1, column 12")) << latin1.out;

  // Control characters are escaped wherever user text is printed: errors, hop get's tables.
  HopRun esc = Hop("check -", "SELECT \x1b[2J;");
  EXPECT_EQ(esc.out.find('\x1b'), std::string::npos) << esc.out;
  EXPECT_TRUE(contains(esc, "unexpected character '\\x1b' at line 1, column 8\nSELECT \\x1b[2J\n"))
      << esc.out;
  HopRun applied =
      Hop(flag + " apply -f -",
          "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Database\n"
          "metadata: {name: esc}\n"
          "spec: {schema: \"E\\e[31mX\", url: \"jdbc:demodb://names=ads\\e]0;t\\a\"}\n");
  ASSERT_EQ(applied.status, 0) << applied.out;
  HopRun table = Hop(flag + " get databases");
  EXPECT_EQ(table.out.find('\x1b'), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find('\a'), std::string::npos) << table.out;
  EXPECT_TRUE(contains(table, "E\\x1b[31mX")) << table.out;
  EXPECT_TRUE(contains(table, "names=ads\\x1b]0;t\\x07")) << table.out;
  HopRun sql_error = Hop(flag + " -e 'CREATE VIEW esc.v AS SELECT 1'");
  EXPECT_EQ(sql_error.out.find('\x1b'), std::string::npos) << sql_error.out;

  // Names become paths only when they are names: nothing outside the state directory is read.
  std::filesystem::create_directories(dir + "/outside");
  std::ofstream(dir + "/outside/x.log") << "SECRET\n";
  for (const std::string& args :
       {std::string(" logs job/../../../outside/x"), " logs job/" + dir + "/outside/x"}) {
    HopRun logs = Hop(flag + args);
    EXPECT_EQ(logs.status, 1) << args << ": " << logs.out;
    EXPECT_FALSE(contains(logs, "SECRET")) << args << ": " << logs.out;
    EXPECT_TRUE(contains(logs, "hop logs: Invalid Argument: ")) << args << ": " << logs.out;
  }
  // A namespace that is not one is a usage error, before anything is read.
  for (const std::string& args : {std::string(" logs -n ../../outside job/x"),
                                  std::string(" logs -n .. job/outside"),
                                  std::string(" --namespace .. logs job/outside")}) {
    HopRun logs = Hop(flag + args);
    EXPECT_EQ(logs.status, 2) << args << ": " << logs.out;
    EXPECT_FALSE(contains(logs, "SECRET")) << args << ": " << logs.out;
    EXPECT_TRUE(contains(logs, "hop logs: namespace: invalid DNS-1123 label")) << args << ": "
                                                                               << logs.out;
  }

  // A store file that is not a hop store is refused, never taken for a new, empty store.
  std::filesystem::create_directories(dir + "/zero");
  std::ofstream(dir + "/zero/hop.db").close();
  HopRun zero_db = Hop("--state " + dir + "/zero get databases");
  EXPECT_EQ(zero_db.status, 1) << zero_db.out;
  EXPECT_EQ(zero_db.out, "hop: Invalid Argument: " + dir +
                             "/zero/hop.db is empty (0 bytes): it is not a hop store. Move it "
                             "aside to start a new, empty store, or restore it from a backup\n");
  EXPECT_EQ(std::filesystem::file_size(dir + "/zero/hop.db"), 0u);
  HopRun fresh = Hop("--state " + dir + "/fresh get databases");
  EXPECT_EQ(fresh.status, 0) << fresh.out;
  EXPECT_TRUE(contains(fresh, "No resources found")) << fresh.out;

  std::filesystem::remove_all(dir);
}

// A short statement cannot make a template render past HOP_MAX_RENDERED_BYTES: a value with many
// line breaks under a long prefix (docs/templates.md "Size") is refused before it is built.
TEST(CliTest, TemplatesCannotAmplifyPastTheRenderedBound) {
  char tmpl[] = "/tmp/hop-e2e-amplify-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string flag = "--state " + dir;
  ASSERT_EQ(
      Hop(flag + " apply -f " + hop::testing::SourcePath("examples/demo-environment.yaml")).status,
      0);
  nlohmann::json job = {
      {"apiVersion", "hoptimator.linkedin.com/v1alpha1"},
      {"kind", "JobTemplate"},
      {"metadata", {{"name", "amplify"}}},
      {"spec",
       {{"yaml", "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{trigger}}-x\nnote: |" +
                     std::string(20000, '\n') + "  {{note}}\n"}}}};
  HopRun applied = Hop(flag + " apply -f -", job.dump());
  ASSERT_EQ(applied.status, 0) << applied.out;
  // 1 KB of SQL: 1000 line breaks, each repeating the 20000-byte prefix.
  const std::string statement = "CREATE TRIGGER big ON ads.page_views AS 'amplify' WITH ('note' '" +
                                std::string(1000, '\n') + "');\n";
  HopRun created = Hop(flag + " -f -", statement);
  EXPECT_EQ(created.status, 1) << created.out.substr(0, 500);
  EXPECT_NE(created.out.find("the template's output would be larger than 1.5 MiB "
                             "(HOP_MAX_RENDERED_BYTES)"),
            std::string::npos)
      << created.out.substr(0, 500);
  EXPECT_LT(created.out.size(), 4096u);
  std::filesystem::remove_all(dir);
}

// Running out of memory is an error of the command, not an abort (the one catch-all, in main).
TEST(CliTest, OutOfMemoryIsAnError) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves more address space than the limit allows";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "AddressSanitizer reserves more address space than the limit allows";
#endif
#endif
  // A request limit far beyond the address space the process may use: reading /dev/zero
  // exhausts memory before the limit stops it.
  HopRun oom = Command("ulimit -v 400000; HOP_MAX_REQUEST_BYTES=2Gi " + std::string(HOP_BINARY) +
                       " check /dev/zero");
  EXPECT_EQ(oom.status, 1) << oom.out;
  EXPECT_TRUE(oom.out.find("hop: out of memory") != std::string::npos) << oom.out;
}

// Issue #14 points 4 and 5 end to end: producers advance tables' watermarks with `hop watermark
// set`; a trigger on a view WITH ('watermark' 'all') runs only once both tables advanced, at the
// older watermark; its Job declares the table it fills (outputs), whose watermark then advances
// to the run's window end and fires the triggers downstream; one of them, as a streaming job
// would, advances another table itself from inside its Job with the environment it is given.
TEST(CliTest, WatermarksOfTablesDriveTriggersDownstream) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("test/sql/env/jobs.yaml")).status,
      0);
  HopRun setup = Hop(state.Flag() + " -f -", R"(
CREATE DATABASE localdb WITH (url 'jdbc:local:', schema 'LOCAL');
CREATE TABLE local.a (id INT);
CREATE TABLE local.b (id INT);
CREATE TABLE local.filled (id INT);
CREATE TABLE local.checkpointed (id INT);
CREATE VIEW local.ab WITH ('watermark' 'all') AS SELECT a.id FROM local.a a JOIN local.b b ON a.id = b.id;
CREATE TRIGGER fill ON local.ab AS 'echo-report' WITH (outputs 'table/localdb-filled');
CREATE TRIGGER downstream ON local.filled AS 'echo-report';
CREATE TRIGGER stream ON local.filled AS 'checkpoint-report' WITH ('job.properties.target' 'table/localdb-checkpointed');
)");
  ASSERT_EQ(setup.status, 0) << setup.out;

  // One input advanced: the view has no watermark, nothing runs.
  HopRun a = Hop(state.Flag() + " watermark set table/localdb-a 2026-03-01T01:00:00Z");
  ASSERT_EQ(a.status, 0) << a.out;
  EXPECT_EQ(a.out, "table/localdb-a watermark 2026-03-01T01:00:00.000Z\n");
  ASSERT_EQ(Hop(state.Flag() + " wait --timeout 60").status, 0);
  EXPECT_TRUE(Runs(state, "fill").empty());
  EXPECT_EQ(Status(state, "view", "local-ab", "watermark"), "");

  // Both advanced: one run, to the older of the two.
  HopRun b = Hop(state.Flag() + " watermark set table/localdb-b 2026-03-01T02:00:00Z");
  ASSERT_EQ(b.status, 0) << b.out;
  HopRun waited = Hop(state.Flag() + " wait --timeout 60");
  ASSERT_EQ(waited.status, 0) << waited.out;
  EXPECT_EQ(Status(state, "view", "local-ab", "watermark"), "2026-03-01T01:00:00.000Z");
  EXPECT_EQ(Runs(state, "fill"), std::vector<std::string>{"Succeeded 2026-03-01T01:00:00.000Z"});
  // Its Job declared what it fills: that table advanced to the window's end, and fired the
  // triggers on it.
  EXPECT_EQ(Status(state, "table", "localdb-filled", "watermark"), "2026-03-01T01:00:00.000Z");
  EXPECT_EQ(Runs(state, "downstream"),
            std::vector<std::string>{"Succeeded 2026-03-01T01:00:00.000Z"});
  EXPECT_EQ(Runs(state, "stream"), std::vector<std::string>{"Succeeded 2026-03-01T01:00:00.000Z"});
  // The streaming job was told where its state is and advanced its output itself.
  HopRun logs = Hop(state.Flag() + " logs tabletrigger/stream");
  EXPECT_NE(logs.out.find("ns=default job=stream-20260301t010000000 trigger=stream from="
                          "1970-01-01T00:00:00.000Z to=2026-03-01T01:00:00.000Z outputs="),
            std::string::npos)
      << logs.out;
  EXPECT_NE(logs.out.find("table/localdb-checkpointed watermark 2026-03-01T01:00:00.000Z"),
            std::string::npos)
      << logs.out;
  EXPECT_EQ(Status(state, "table", "localdb-checkpointed", "watermark"),
            "2026-03-01T01:00:00.000Z");
  HopRun fill_logs = Hop(state.Flag() + " logs tabletrigger/fill");
  EXPECT_NE(fill_logs.out.find("fill covers 1970-01-01T00:00:00.000Z to 2026-03-01T01:00:00.000Z"),
            std::string::npos)
      << fill_logs.out;

  // a advancing past b moves the view to b's watermark: one more run.
  ASSERT_EQ(Hop(state.Flag() + " watermark set table/localdb-a 2026-03-01T03:00:00Z").status, 0);
  ASSERT_EQ(Hop(state.Flag() + " wait --timeout 60").status, 0);
  EXPECT_EQ(Runs(state, "fill"), (std::vector<std::string>{"Succeeded 2026-03-01T01:00:00.000Z",
                                                           "Succeeded 2026-03-01T02:00:00.000Z"}));
  EXPECT_EQ(Status(state, "table", "localdb-filled", "watermark"), "2026-03-01T02:00:00.000Z");

  // Producers' mistakes: an earlier time, a time or target of the wrong form, a derived view.
  HopRun earlier = Hop(state.Flag() + " watermark set table/localdb-a 2026-03-01T00:00:00Z");
  EXPECT_EQ(earlier.status, 1);
  EXPECT_NE(earlier.out.find("is earlier, and a watermark only moves forward"), std::string::npos)
      << earlier.out;
  HopRun forced =
      Hop(state.Flag() + " watermark set --force table/localdb-a 2026-03-01T00:00:00Z");
  EXPECT_EQ(forced.status, 0) << forced.out;
  EXPECT_EQ(forced.out,
            "table/localdb-a watermark 2026-03-01T00:00:00.000Z (was 2026-03-01T03:00:00.000Z)\n");
  EXPECT_EQ(Hop(state.Flag() + " watermark set table/localdb-a yesterday").status, 2);
  EXPECT_EQ(Hop(state.Flag() + " watermark set 'table/$(rm -rf x)'").status, 2);
  EXPECT_EQ(Hop(state.Flag() + " watermark set job/x").status, 2);
  EXPECT_EQ(Hop(state.Flag() + " watermark set table/nope").status, 1);
  HopRun derived = Hop(state.Flag() + " watermark set view/local-ab");
  EXPECT_EQ(derived.status, 1);
  EXPECT_NE(derived.out.find("derives its watermark from its inputs'"), std::string::npos)
      << derived.out;
  ASSERT_EQ(Hop(state.Flag() + " wait --timeout 60").status, 0);
  EXPECT_EQ(Runs(state, "fill").size(), 2u);  // moving a back fired nothing
}

// PostgreSQL passwords never show (docs/postgres.md, "Credentials"): a scenario against a live
// server that checks them (scram-sha-256), with the password taken from the environment, from a
// file, and written in the URL. Every output, and every file of the state directory whose
// Databases hold only references, is searched for it.
// The status of an object as `hop get -o json` shows it (empty when it has none, or there is no
// such object).
nlohmann::json StatusOf(const std::string& flag, const std::string& kind, const std::string& name) {
  auto doc = nlohmann::json::parse(Hop(flag + " get " + kind + " " + name + " -o json").out,
                                   nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("status") ||
      !doc["status"].is_object()) {
    return nlohmann::json::object();
  }
  return doc["status"];
}

// Whether `hop get` finds the object.
bool Found(const std::string& flag, const std::string& kind, const std::string& name) {
  return Hop(flag + " get " + kind + " " + name).status == 0;
}

// A column list of a PostgreSQL table as `name type [NOT NULL]`, in order.
std::string PgColumns(hop::testing::PostgresServer& pg, const std::string& table) {
  auto rows = pg.Exec(
      "SELECT attname, format_type(atttypid, atttypmod), attnotnull FROM "
      "pg_attribute WHERE attrelid = to_regclass('public." +
      table + "') AND attnum > 0 AND NOT attisdropped ORDER BY attnum");
  if (!rows.ok()) return rows.status().ToString();
  std::string out;
  for (const auto& row : rows->rows) {
    out +=
        (out.empty() ? "" : ", ") + *row[0] + " " + *row[1] + (*row[2] == "t" ? " NOT NULL" : "");
  }
  return out;
}

// The seed's three cases against a real PostgreSQL, with a Database that provisions
// asynchronously (docs/ddl.md#provisioning): CREATE TABLE writes a TableProvisionJob that `hop
// serve` reconciles, retrying while the server is down and creating the table once it is up; a
// materialized view ensures its source (there already: a no-op) and creates its sink; refusals
// fail the job with the server's message; DROP TABLE drops the table in the statement.
TEST(CliTest, AsyncProvisioningCreatesTablesOnceTheServerAnswers) {
  hop::testing::PostgresServer pg;
  // Never a skip: a machine without PostgreSQL fails here (./scripts/setup installs it).
  ASSERT_TRUE(pg.Start(/*tcp=*/true).ok());
  ASSERT_TRUE(
      pg.Exec("CREATE TABLE visits (id integer, page text); CREATE TABLE taken (x integer)").ok());
  ASSERT_TRUE(pg.Stop().ok());
  const std::string password = "Pg-async-s3cret-1623";
  const std::string url = "jdbc:postgresql://127.0.0.1:" + std::to_string(pg.port()) +
                          "/postgres?user=postgres&password=" + password + "&connectTimeout=2";
  StateDir state;
  std::vector<HopRun> outputs;
  auto hop = [&](const std::string& args, const std::string& in = "") {
    outputs.push_back(Hop(state.Flag() + " " + args, in));
    return outputs.back();
  };
  HopRun applied = hop("apply -f -",
                       "apiVersion: hoptimator.linkedin.com/v1alpha1\n"
                       "kind: Database\nmetadata: {name: pga}\nspec:\n  schema: PGA\n"
                       "  provisioning: async\n  url: " +
                           url + "\n");
  ASSERT_EQ(applied.status, 0) << applied.out;
  Serve serve(state);
  ASSERT_TRUE(Eventually([&] { return serve.Leads(); }, 20));

  // Case 1, written while the server is down: queued, retried, not ready, saying why.
  HopRun created = hop("-e 'CREATE TABLE pga.clicks (id BIGINT NOT NULL, url VARCHAR(200));'");
  ASSERT_EQ(created.status, 0) << created.out;
  EXPECT_NE(created.out.find("CREATE TABLE PGA.CLICKS: table PGA.CLICKS queued for provisioning "
                             "in pga; table/pga-clicks, tableprovisionjob/pga-clicks created"),
            std::string::npos)
      << created.out;
  ASSERT_TRUE(Eventually(
      [&] { return StatusOf(state.Flag(), "tpj", "pga-clicks").value("retrying", false); }, 30));
  nlohmann::json down = StatusOf(state.Flag(), "tpj", "pga-clicks");
  EXPECT_EQ(down.value("ready", true), false);
  EXPECT_EQ(down.value("failed", true), false);
  const std::string why = down.value("message", "");
  EXPECT_NE(why.find("Database pga ("), std::string::npos) << why;
  EXPECT_NE(why.find("cannot connect to PostgreSQL"), std::string::npos) << why;
  EXPECT_NE(why.find("<redacted>"), std::string::npos) << why;
  HopRun listed = hop("get tableprovisionjobs");
  EXPECT_NE(listed.out.find("READY"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("false"), std::string::npos) << listed.out;
  HopRun busy = hop("wait --timeout 1");
  EXPECT_EQ(busy.status, 1) << busy.out;
  EXPECT_NE(busy.out.find("TableProvisionJob default/pga-clicks is retried"), std::string::npos)
      << busy.out;

  // The server comes up: the controller's next retry creates the table.
  ASSERT_TRUE(pg.Restart().ok());
  ASSERT_TRUE(Eventually(
      [&] { return StatusOf(state.Flag(), "tpj", "pga-clicks").value("ready", false); }, 60));
  EXPECT_EQ(StatusOf(state.Flag(), "tpj", "pga-clicks").value("message", ""), "Table created.");
  EXPECT_EQ(PgColumns(pg, "clicks"), "id bigint NOT NULL, url character varying(200)");
  EXPECT_EQ(hop("wait --timeout 30").status, 0);

  // Cases 2 and 3: a view reading a table PostgreSQL has (its job finds it: a no-op) into one it
  // has not (created); a view from the provisioned table into another (the source's job gains
  // the pipeline as an owner and stays ready; the sink is created).
  HopRun views = hop("-f -", R"(
CREATE MATERIALIZED VIEW pga.visit_copy AS SELECT id, page FROM pga.visits;
CREATE MATERIALIZED VIEW pga.clicks_by_url AS SELECT url, COUNT(*) AS n FROM pga.clicks GROUP BY url;
)");
  ASSERT_EQ(views.status, 0) << views.out;
  EXPECT_NE(views.out.find("table PGA.VISITS queued for provisioning in pga, table PGA.VISIT_COPY "
                           "queued for provisioning in pga;"),
            std::string::npos)
      << views.out;
  EXPECT_NE(views.out.find("tableprovisionjob/pga-clicks configured"), std::string::npos)
      << views.out;
  ASSERT_EQ(hop("wait --timeout 60").status, 0);
  EXPECT_EQ(StatusOf(state.Flag(), "tpj", "pga-visits").value("message", ""), "Table exists.");
  EXPECT_EQ(StatusOf(state.Flag(), "tpj", "pga-visitcopy").value("message", ""), "Table created.");
  EXPECT_EQ(StatusOf(state.Flag(), "tpj", "pga-clicksbyurl").value("message", ""),
            "Table created.");
  EXPECT_EQ(StatusOf(state.Flag(), "tpj", "pga-clicks").value("message", ""), "Table created.");
  EXPECT_EQ(PgColumns(pg, "visit_copy"), "id integer, page text");
  EXPECT_EQ(PgColumns(pg, "clicks_by_url"), "url character varying(200), n bigint NOT NULL");
  EXPECT_EQ(PgColumns(pg, "visits"), "id integer, page text");

  // Refusals fail the job with the server's message, and are not waited for; a type PostgreSQL
  // has no form for in hop fails the statement at once.
  HopRun refused = hop("-f -", R"(
CREATE TABLE pga.wide (s VARCHAR(20000000));
CREATE TABLE pga.taken (y INT);
)");
  ASSERT_EQ(refused.status, 0) << refused.out;
  ASSERT_EQ(hop("wait --timeout 60").status, 0);
  nlohmann::json wide = StatusOf(state.Flag(), "tpj", "pga-wide");
  EXPECT_EQ(wide.value("failed", false), true) << wide;
  EXPECT_NE(wide.value("message", "").find("length for type varchar cannot exceed 10485760"),
            std::string::npos)
      << wide;
  nlohmann::json taken = StatusOf(state.Flag(), "tpj", "pga-taken");
  EXPECT_EQ(taken.value("failed", false), true) << taken;
  EXPECT_NE(taken.value("message", "").find("already has a table public.taken with other columns"),
            std::string::npos)
      << taken;
  HopRun map = hop("-e 'CREATE TABLE pga.m (m MAP<VARCHAR, INTEGER>);'");
  EXPECT_EQ(map.status, 1) << map.out;
  EXPECT_NE(map.out.find("Cannot create table PGA.M in database pga: column M: "),
            std::string::npos)
      << map.out;
  EXPECT_FALSE(Found(state.Flag(), "tpj", "pga-m"));

  // DROP TABLE drops the table in PostgreSQL inside the statement, and its job with it; while
  // the server is down it fails and changes nothing.
  ASSERT_EQ(hop("-e 'CREATE TABLE pga.temp (a INT);'").status, 0);
  ASSERT_EQ(hop("wait --timeout 60").status, 0);
  EXPECT_EQ(PgColumns(pg, "temp"), "a integer");
  ASSERT_TRUE(pg.Stop().ok());
  HopRun drop_down = hop("-e 'DROP TABLE pga.temp;'");
  EXPECT_EQ(drop_down.status, 1) << drop_down.out;
  EXPECT_NE(drop_down.out.find("Cannot drop table PGA.TEMP in database pga"), std::string::npos)
      << drop_down.out;
  ASSERT_TRUE(pg.Restart().ok());
  EXPECT_TRUE(Found(state.Flag(), "tpj", "pga-temp"));
  HopRun dropped = hop("-e 'DROP TABLE pga.temp;'");
  EXPECT_EQ(dropped.status, 0) << dropped.out;
  EXPECT_NE(dropped.out.find("table PGA.TEMP dropped in pga; table/pga-temp deleted"),
            std::string::npos)
      << dropped.out;
  EXPECT_EQ(PgColumns(pg, "temp"), "");
  EXPECT_FALSE(Found(state.Flag(), "tpj", "pga-temp"));
  EXPECT_EQ(serve.Stop(SIGTERM), 0);

  for (const HopRun& r : outputs) EXPECT_EQ(r.out.find(password), std::string::npos) << r.out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(state.path())) {
    if (!entry.is_regular_file() || entry.path().filename().string().rfind("hop.db", 0) == 0) {
      continue;  // the store holds the Database as written
    }
    std::stringstream text;
    text << std::ifstream(entry.path(), std::ios::binary).rdbuf();
    EXPECT_EQ(text.str().find(password), std::string::npos) << entry.path();
  }
}

// The same three cases run by `hop -f`, whose control plane starts at its first DDL statement
// and which `!wait` waits for, against an asynchronous and a synchronous Database of one server:
// the tables are there, with their columns, when the script ends.
TEST(CliTest, ScriptsProvisionTablesBothWays) {
  hop::testing::PostgresServer pg;
  ASSERT_TRUE(pg.Start(/*tcp=*/true).ok());
  ASSERT_TRUE(pg.Exec("CREATE TABLE a_seen (id integer); CREATE TABLE s_seen (id integer)").ok());
  const std::string url =
      "jdbc:postgresql://127.0.0.1:" + std::to_string(pg.port()) + "/postgres?user=postgres";
  StateDir state;
  HopRun applied = Hop(state.Flag() + " apply -f -",
                       "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Database\n"
                       "metadata: {name: pga}\nspec: {schema: PGA, provisioning: async, url: '" +
                           url +
                           "'}\n---\napiVersion: hoptimator.linkedin.com/v1alpha1\n"
                           "kind: Database\nmetadata: {name: pgs}\nspec: {schema: PGS, url: '" +
                           url + "'}\n");
  ASSERT_EQ(applied.status, 0) << applied.out;
  HopRun run = Hop(state.Flag() + " -f -", R"(
CREATE TABLE pga.a_src (id INT NOT NULL, name VARCHAR(10));
CREATE MATERIALIZED VIEW pga.a_copy AS SELECT id FROM pga.a_seen;
CREATE MATERIALIZED VIEW pga.a_sink AS SELECT id, name FROM pga.a_src;
CREATE TABLE pgs.s_src (id INT NOT NULL, name VARCHAR(10));
CREATE MATERIALIZED VIEW pgs.s_copy AS SELECT id FROM pgs.s_seen;
CREATE MATERIALIZED VIEW pgs.s_sink AS SELECT id, name FROM pgs.s_src;
!wait 60
)");
  ASSERT_EQ(run.status, 0) << run.out;
  // Asynchronous: queued, each table once; synchronous: created in the statement, the table
  // PostgreSQL had left alone, and no job written.
  EXPECT_NE(run.out.find("CREATE TABLE PGA.A_SRC: table PGA.A_SRC queued for provisioning in pga;"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("CREATE TABLE PGS.S_SRC: table PGS.S_SRC created in pgs; table/pgs-ssrc "
                         "created"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("CREATE MATERIALIZED VIEW PGS.S_COPY: table PGS.S_COPY created in pgs;"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(run.out.find("S_SEEN created"), std::string::npos) << run.out;
  for (const char* table : {"a_src", "s_src"}) {
    EXPECT_EQ(PgColumns(pg, table), "id integer NOT NULL, name character varying(10)") << table;
  }
  for (const char* table : {"a_copy", "s_copy", "a_seen", "s_seen"}) {
    EXPECT_EQ(PgColumns(pg, table), "id integer") << table;
  }
  for (const char* table : {"a_sink", "s_sink"}) {
    EXPECT_EQ(PgColumns(pg, table), "id integer NOT NULL, name character varying(10)") << table;
  }
  HopRun jobs = Hop(state.Flag() + " get tableprovisionjobs");
  EXPECT_NE(jobs.out.find("pga-asrc "), std::string::npos) << jobs.out;
  EXPECT_NE(jobs.out.find("pga-aseen "), std::string::npos) << jobs.out;
  EXPECT_EQ(jobs.out.find("pgs-"), std::string::npos) << jobs.out;
  EXPECT_EQ(StatusOf(state.Flag(), "tpj", "pga-aseen").value("message", ""), "Table exists.");
  EXPECT_EQ(StatusOf(state.Flag(), "tpj", "pga-asink").value("message", ""), "Table created.");

  // `hop delete table/...` drops the table in its system, as DROP TABLE does.
  ASSERT_EQ(Hop(state.Flag() + " -e 'CREATE TABLE pgs.s_gone (a INT);'").status, 0);
  EXPECT_EQ(PgColumns(pg, "s_gone"), "a integer");
  HopRun deleted = Hop(state.Flag() + " delete table pgs-sgone");
  EXPECT_EQ(deleted.status, 0) << deleted.out;
  EXPECT_NE(deleted.out.find("table PGS.S_GONE dropped in pgs"), std::string::npos) << deleted.out;
  EXPECT_EQ(PgColumns(pg, "s_gone"), "");
}

TEST(CliTest, PostgresPasswordsNeverShow) {
  hop::testing::PostgresServer pg;
  // Never a skip: a machine without PostgreSQL fails here (./scripts/setup installs it).
  ASSERT_TRUE(pg.Start(/*tcp=*/true).ok());
  const std::string password = "Pg-s3cret-4815";
  ASSERT_TRUE(pg.Exec("CREATE ROLE app LOGIN PASSWORD '" + password +
                      "'; GRANT ALL ON SCHEMA public TO app; SET ROLE app; CREATE TABLE things "
                      "(id integer, label text); INSERT INTO things VALUES (1, 'one'), (2, 'two');"
                      " RESET ROLE")
                  .ok());
  // The role must prove its password over TCP.
  const std::string hba = pg.socket_dir() + "/data/pg_hba.conf";
  std::stringstream old;
  old << std::ifstream(hba).rdbuf();
  std::ofstream(hba) << "host all app 127.0.0.1/32 scram-sha-256\n" << old.str();
  ASSERT_TRUE(pg.Exec("SELECT pg_reload_conf()").ok());

  char tmpl[] = "/tmp/hop-e2e-pg-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string server = "127.0.0.1:" + std::to_string(pg.port());
  const std::string pwfile = dir + "/pgpass";
  std::ofstream(pwfile) << password << "\n";
  chmod(pwfile.c_str(), 0600);
  setenv("HOP_E2E_PGPASS", password.c_str(), 1);
  setenv("HOP_E2E_WRONG", "wrong-password", 1);

  std::vector<std::pair<std::string, HopRun>> outputs;
  auto run = [&](const std::string& what, const std::string& args, const std::string& in = "") {
    outputs.emplace_back(what, Hop(args, in));
    return outputs.back().second;
  };

  // State A: the Databases hold references only.
  const std::string a = "--state " + dir + "/a";
  HopRun applied = run("apply", a + " apply -f -", R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: pgenv}
spec:
  schema: PGENV
  url: jdbc:postgresql://)" + server + R"(/postgres?user=app&password=${env:HOP_E2E_PGPASS}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: pgfile}
spec:
  schema: PGFILE
  url: jdbc:postgresql://)" + server + R"(/postgres?user=app&passwordFile=)" + pwfile + R"(
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: pgwrong}
spec:
  schema: PGWRONG
  url: jdbc:postgresql://)" + server + R"(/postgres?user=app&password=${env:HOP_E2E_WRONG}
)");
  ASSERT_EQ(applied.status, 0) << applied.out;
  HopRun read = run("select env", a + " -e 'SELECT label FROM pgenv.things ORDER BY id;'");
  EXPECT_EQ(read.status, 0) << read.out;
  EXPECT_NE(read.out.find("two"), std::string::npos) << read.out;
  HopRun file = run("select file", a + " -e 'SELECT label FROM pgfile.things WHERE id = 1;'");
  EXPECT_NE(file.out.find("one"), std::string::npos) << file.out;
  HopRun wrong = run("wrong password", a + " -e 'SELECT * FROM pgwrong.things;'");
  EXPECT_EQ(wrong.status, 1) << wrong.out;
  EXPECT_NE(wrong.out.find("Database pgwrong"), std::string::npos) << wrong.out;
  EXPECT_NE(wrong.out.find("password authentication failed"), std::string::npos) << wrong.out;
  EXPECT_EQ(wrong.out.find("wrong-password"), std::string::npos) << wrong.out;
  HopRun created = run("create", a + " -e 'CREATE TABLE pgenv.made (a INT NOT NULL, b VARCHAR);'");
  EXPECT_EQ(created.status, 0) << created.out;
  auto made = pg.Exec("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid "
                      "= 'public.made'::regclass AND attnum > 0 ORDER BY attnum");
  ASSERT_TRUE(made.ok());
  ASSERT_EQ(made->rows.size(), 2u);
  EXPECT_EQ(made->rows[1][0], std::optional<std::string>("text"));
  run("explain", a + " -e 'EXPLAIN SELECT label FROM pgenv.things WHERE id = 1;'");
  run("specify", a + " -e '!specify CREATE TABLE pgenv.other (a INT)'");
  run("tables", a + " -e '!tables'");
  run("schemas", a + " -e '!schemas'");
  run("system table", a + " -e 'SELECT * FROM \"k8s\".DATABASES;'");
  run("get yaml", a + " get databases -o yaml");
  run("get tables", a + " get tables");
  run("drop", a + " -e 'DROP TABLE pgenv.made;'");
  run("wait", a + " -e '!wait 10'");

  // State B: a password written in the URL (the user's resource holds it; hop never echoes it).
  const std::string b = "--state " + dir + "/b";
  HopRun inline_applied = run("apply inline", b + " apply -f -",
                              R"(apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: pgurl}
spec:
  schema: PGURL
  url: jdbc:postgresql://app:)" + password + "@" + server + R"(/postgres
)");
  ASSERT_EQ(inline_applied.status, 0) << inline_applied.out;
  HopRun inline_read = run("select inline", b + " -e 'SELECT count(*) FROM pgurl.things;'");
  EXPECT_NE(inline_read.out.find(" 2"), std::string::npos) << inline_read.out;
  run("inline explain", b + " -e 'EXPLAIN SELECT * FROM pgurl.things WHERE label = \"x\";'");
  run("inline error", b + " -e 'SELECT * FROM pgurl.nothing;'");
  run("inline system table", b + " -e 'SELECT URL FROM \"k8s\".DATABASES;'");
  // Output is redacted as a whole, but a query must not probe the password either.
  HopRun probe = run("inline probe", b + " -e 'SELECT count(*) AS n FROM \"k8s\".DATABASES WHERE "
                                         "URL LIKE '\\''%" + password + "%'\\'';'");
  EXPECT_NE(probe.out.find(" 0\n"), std::string::npos) << probe.out;
  run("inline get", b + " get database pgurl -o yaml");
  run("inline create", b + " -e 'CREATE TABLE pgurl.made2 (a INT);'");
  run("inline create again", b + " -e 'CREATE TABLE pgurl.things (a INT);'");

  for (const auto& [what, r] : outputs) {
    EXPECT_EQ(r.out.find(password), std::string::npos) << what << ":\n" << r.out;
  }
  // Every file of state A (store, logs, leases); the log files of state B.
  int searched = 0;
  for (const char* state : {"/a", "/b"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir + state)) {
      if (!entry.is_regular_file()) continue;
      const std::string name = entry.path().filename().string();
      if (std::string(state) == "/b" && name.rfind("hop.db", 0) == 0) continue;
      std::stringstream text;
      text << std::ifstream(entry.path(), std::ios::binary).rdbuf();
      EXPECT_EQ(text.str().find(password), std::string::npos) << entry.path();
      ++searched;
    }
  }
  EXPECT_GT(searched, 1);
  unsetenv("HOP_E2E_PGPASS");
  unsetenv("HOP_E2E_WRONG");
  std::filesystem::remove_all(dir);
}

// A local materialized view's table goes with the view: DROP MATERIALIZED VIEW drops it, so the
// name takes another query's columns next. A new view's table holds nothing from before: one
// left in the file with no object naming it (a CREATE killed before its commit) is made anew.
TEST(CliTest, ALocalMaterializedViewsTableGoesWithItAndANewOneStartsEmpty) {
  StateDir state;
  ASSERT_EQ(
      Hop(state.Flag() + " apply -f " + hop::testing::SourcePath("examples/demo-environment.yaml"))
          .status,
      0);
  const std::string file = state.path() + "/local/default.db";
  HopRun made = Hop(state.Flag() + " -f -", R"(
CREATE TABLE local.ev (k VARCHAR, n INT);
INSERT INTO local.ev VALUES ('a', 10), ('b', 20);
CREATE MATERIALIZED VIEW local.ff AS SELECT k FROM local.ev WHERE n > 5;
REFRESH MATERIALIZED VIEW local.ff;
!wait 60
SELECT COUNT(*) AS n FROM local.ff;
DROP MATERIALIZED VIEW local.ff;
)");
  ASSERT_EQ(made.status, 0) << made.out;
  EXPECT_NE(made.out.find("table LOCAL.FF dropped in local-database"), std::string::npos)
      << made.out;
  EXPECT_EQ(Command("sqlite3 " + file + " .tables").out, "EV\n");
  HopRun again = Hop(state.Flag() + " -f -", R"(
CREATE MATERIALIZED VIEW local.ff AS SELECT k, n FROM local.ev WHERE n > 1000;
SELECT COUNT(*) AS n FROM local.ff;
)");
  ASSERT_EQ(again.status, 0) << again.out;
  EXPECT_NE(again.out.find(" N\n---\n 0\n"), std::string::npos) << again.out;

  // What a CREATE killed between making its table and committing its view leaves behind.
  ASSERT_EQ(
      Command("sqlite3 " + file + " \"CREATE TABLE GG (K TEXT); INSERT INTO GG VALUES ('x')\"")
          .status,
      0);
  HopRun fresh = Hop(state.Flag() + " -f -", R"(
CREATE MATERIALIZED VIEW local.gg AS SELECT k FROM local.ev;
SELECT COUNT(*) AS n FROM local.gg;
)");
  ASSERT_EQ(fresh.status, 0) << fresh.out;
  EXPECT_NE(fresh.out.find("table LOCAL.GG, which no object named, dropped from local-database"),
            std::string::npos)
      << fresh.out;
  EXPECT_NE(fresh.out.find(" N\n---\n 0\n"), std::string::npos) << fresh.out;

  // Once another Database keeps its tables in the same file (here one of another namespace), a
  // table there may be that Database's: hop drops none on its own.
  const std::string other = state.path() + "/other.yaml";
  std::ofstream(other) << "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: Database\n"
                          "metadata: {name: local-database, namespace: other}\n"
                          "spec: {schema: LOCAL, url: 'jdbc:local:'}\n";
  ASSERT_EQ(Hop(state.Flag() + " apply -f " + other).status, 0);
  HopRun taken = Hop(state.Flag() + " --namespace other -f -", R"(
CREATE MATERIALIZED VIEW local.ev AS SELECT 1 AS one;
DROP MATERIALIZED VIEW local.gg;
)");
  EXPECT_NE(taken.out.find("already has a table EV with other columns"), std::string::npos)
      << taken.out;
  EXPECT_EQ(Hop(state.Flag() + " -e 'DROP MATERIALIZED VIEW local.gg'").out,
            "DROP MATERIALIZED VIEW LOCAL.GG: view/local-gg deleted\n");
  EXPECT_EQ(Command("sqlite3 " + file + " 'SELECT COUNT(*) FROM EV; SELECT COUNT(*) FROM GG'").out,
            "2\n0\n");
}

}  // namespace
