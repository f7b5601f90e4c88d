// Real PostgreSQL clients against `hop serve --pg-port`, as its own process: psql (-c and -f),
// psycopg 3, the PostgreSQL JDBC driver and Node's pg, each running the programs in
// test/pgwire/. scripts/setup installs them all; a missing one fails its test.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "test/lib/fixtures.h"
#include "test/lib/postgres_server.h"

extern char** environ;

namespace {

std::string Source(const std::string& rel) { return std::string(HOP_SOURCE_DIR) + "/" + rel; }

using hop::testing::Shell;

using hop::testing::FreePort;

bool Accepts(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0;
  close(fd);
  return ok;
}

// One `hop serve --pg-port` for the whole suite, stopped by its pid with SIGTERM.
class PgwireClientsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new hop::testing::TempDir("hop-pgwire-clients");
    port_ = FreePort();
    const std::string hop = HOP_BINARY;
    const std::string port = std::to_string(port_);
    const std::string log = dir_->path() + "/serve.log";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    // The default of idle_in_transaction_session_timeout is set, as psql then shows it.
    const char* argv[] = {hop.c_str(),
                          "--state",
                          dir_->path().c_str(),
                          "serve",
                          "--pg-port",
                          port.c_str(),
                          "--pg-idle-in-transaction-timeout",
                          "90",
                          nullptr};
    if (posix_spawn(&pid_, hop.c_str(), &actions, nullptr, const_cast<char**>(argv), environ) !=
        0) {
      pid_ = -1;
    }
    posix_spawn_file_actions_destroy(&actions);
    for (int i = 0; i < 200 && pid_ > 0 && !Accepts(port_); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    // The rows every client reads.
    auto [out, rc] = Shell(fmt("psql {} -X -q -A -f " + Source("test/pgwire/script.sql")));
    setup_output_ = out;
    setup_rc_ = rc;
  }
  static void TearDownTestSuite() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      waitpid(pid_, &status, 0);
      // SIGTERM is a clean stop: every connection ended, the process exits 0.
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    }
    delete dir_;
  }
  static std::string fmt(const std::string& pattern) {
    std::string s = pattern;
    const std::string conn =
        "'host=127.0.0.1 port=" + std::to_string(port_) + " user=t dbname=hop'";
    const size_t at = s.find("{}");
    if (at != std::string::npos) s.replace(at, 2, conn);
    return s;
  }

  static hop::testing::TempDir* dir_;
  static int port_;
  static pid_t pid_;
  static std::string setup_output_;
  static int setup_rc_;
};

hop::testing::TempDir* PgwireClientsTest::dir_ = nullptr;
int PgwireClientsTest::port_ = 0;
pid_t PgwireClientsTest::pid_ = -1;
std::string PgwireClientsTest::setup_output_;
int PgwireClientsTest::setup_rc_ = -1;

TEST_F(PgwireClientsTest, PsqlRunsAScriptOfDdlAndQueries) {
  ASSERT_GT(pid_, 0);
  EXPECT_EQ(setup_rc_, 0) << setup_output_;
  EXPECT_EQ(setup_output_,
            "psql:" + Source("test/pgwire/script.sql") +
                ":2: INFO:  CREATE DATABASE CLIENTDB: database/clientdb created\n"
                "psql:" +
                Source("test/pgwire/script.sql") +
                ":3: INFO:  CREATE TABLE C.PEOPLE: table C.PEOPLE created in clientdb; "
                "table/clientdb-people created\n"
                "psql:" +
                Source("test/pgwire/script.sql") +
                ":4: INFO:  INSERT INTO C.PEOPLE: 2 rows inserted\n"
                "psql:" +
                Source("test/pgwire/script.sql") +
                ":5: INFO:  CREATE VIEW C.TOP: view/c-top created\n"
                "id|name|score|born\n1|Ada|9.5|1815-12-10\n2|Alan|8.25|1912-06-23\n(2 rows)\n"
                "name\nAda\n(1 row)\n");
}

TEST_F(PgwireClientsTest, PsqlCommandsAndErrors) {
  auto [out, rc] = Shell(fmt("psql {} -X -A -t -c 'SELECT COUNT(*) FROM c.people' -c 'SHOW mode'"));
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out, "2\nmode|create\n");
  auto [err, erc] =
      Shell(fmt("psql {} -X -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c 'SELECT FROM c.people'"));
  EXPECT_EQ(erc, 1);
  // The SQLSTATE says the kind; the message is hop's words without their category.
  EXPECT_NE(err.find("ERROR:  42601: "), std::string::npos) << err;
  EXPECT_EQ(err.find("Parse Error"), std::string::npos) << err;
  EXPECT_NE(err.find("LINE 1: SELECT FROM c.people"), std::string::npos) << err;
}

// psql's \copy is refused as not supported (0A000, not a syntax error) and says what to use;
// \password's first question, CURRENT_USER, is the connection's user; \dT and \dp answer from
// the emulated pg_catalog, and \df, \dx and \dconfig, which read tables it does not have, say
// so (docs/pgwire.md, docs/pg_catalog.md).
TEST_F(PgwireClientsTest, PsqlCopyCurrentUserAndCatalogCommands) {
  auto [copy, crc] =
      Shell(fmt("printf '1\\n\\\\.\\n' | psql {} -X -v VERBOSITY=verbose -c "
                "'\\copy c.people from stdin' 2>&1"));
  EXPECT_NE(crc, 0) << copy;
  EXPECT_NE(copy.find("ERROR:  0A000: COPY is not supported by hop"), std::string::npos) << copy;
  EXPECT_NE(copy.find("INSERT"), std::string::npos) << copy;
  auto [user, urc] = Shell(fmt("psql {} -X -A -t -c 'SELECT CURRENT_USER, SESSION_USER'"));
  EXPECT_EQ(urc, 0) << user;
  EXPECT_EQ(user, "t|t\n");
  auto [types, trc] = Shell(fmt("psql {} -X -A -t -c '\\dT' -c '\\dp c.*'"));
  EXPECT_EQ(trc, 0) << types;
  EXPECT_EQ(types, "c|people|table|||\nc|top|view|||\n") << types;
  for (const char* command : {"\\df", "\\dx", "\\dconfig"}) {
    auto [missing, mrc] = Shell(fmt(std::string("psql {} -X -c '") + command + "' 2>&1"));
    EXPECT_NE(mrc, 0) << command;
    EXPECT_NE(missing.find("hop emulates only the tables of PostgreSQL's catalog that "
                           "docs/pg_catalog.md lists"),
              std::string::npos)
        << missing;
  }
}

// hop serve --pg-idle-in-transaction-timeout is the default of each connection's
// idle_in_transaction_session_timeout, which it may SET (docs/pgwire.md, "Settings").
TEST_F(PgwireClientsTest, TheServersIdleInTransactionTimeoutIsTheSessionsDefault) {
  auto [out, rc] =
      Shell(fmt("psql {} -X -q -A -t -c 'SHOW idle_in_transaction_session_timeout' -c 'SET "
                "idle_in_transaction_session_timeout = 1500' -c 'SHOW "
                "idle_in_transaction_session_timeout'"));
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out, "90s\n1500ms\n") << out;
}

// psql's statements, each its own Query: SET LOCAL ends with the block's COMMIT, a SET in a
// block that rolls back is undone, and SET LOCAL outside a block warns and changes nothing, as
// in PostgreSQL (docs/pgwire.md, "Settings").
TEST_F(PgwireClientsTest, PsqlSettingsEndWithTheirTransaction) {
  auto [out, rc] = Shell(fmt(
      "psql {} -X -q -A -t -c BEGIN -c \"SET LOCAL statement_timeout = '5s'\" -c 'SHOW "
      "statement_timeout' -c COMMIT -c 'SHOW statement_timeout' -c BEGIN -c \"SET "
      "application_name = 'inner'\" -c \"SET LOCAL namespace = 'other'\" -c 'SHOW namespace' -c "
      "ROLLBACK -c 'SHOW application_name' -c 'SHOW namespace' -c 'SET LOCAL search_path = x' -c "
      "'SHOW search_path' 2>/dev/null"));
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out, "5s\n0\nnamespace|other\npsql\nnamespace|default\n\"$user\", public\n");
  auto [warned, wrc] = Shell(fmt("psql {} -X -q -A -t -c 'SET LOCAL search_path = x'"));
  EXPECT_EQ(wrc, 0) << warned;
  EXPECT_EQ(warned, "WARNING:  SET LOCAL can only be used in transaction blocks\n");
}

// psql's catalog commands read the emulated pg_catalog (docs/pg_catalog.md) over the wire.
TEST_F(PgwireClientsTest, PsqlListsTablesViewsSchemasAndDatabases) {
  auto [out, rc] = Shell(fmt("psql {} -X -A -t -c '\\dt c.*' -c '\\dv c.*' -c '\\l'"));
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out, "c|people|table|hop\nc|top|view|hop\ndefault|hop|UTF8|C|C||libc|\n") << out;
  auto [schemas, src] = Shell(fmt("psql {} -X -A -t -c '\\dn'"));
  EXPECT_EQ(src, 0) << schemas;
  EXPECT_EQ(schemas.rfind("c|hop\n", 0), 0u) << schemas;
  auto [roles, rrc] = Shell(fmt("psql {} -X -A -t -c '\\du'"));
  EXPECT_EQ(rrc, 0) << roles;
  EXPECT_EQ(roles, "hop|Superuser, Create role, Create DB|{}\n") << roles;
}

// psql's \d TABLE and \d VIEW (and \d+): the columns with their types and nullability, and none
// of the indexes, policies, statistics or publications hop does not have (docs/pg_catalog.md).
TEST_F(PgwireClientsTest, PsqlDescribesTablesAndViews) {
  auto [made, mrc] =
      Shell(fmt("psql {} -X -q -v ON_ERROR_STOP=1 -c 'CREATE TABLE c.keyed (id "
                "INTEGER NOT NULL, label VARCHAR(20), price DECIMAL(10, 2))'"));
  ASSERT_EQ(mrc, 0) << made;
  auto [out, rc] = Shell(fmt("psql {} -X -v ON_ERROR_STOP=1 -c '\\d c.keyed' -c '\\d c.top'"));
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out,
            "                         Table \"c.keyed\"\n"
            " Column |         Type          | Collation | Nullable | Default \n"
            "--------+-----------------------+-----------+----------+---------\n"
            " id     | integer               |           | not null | \n"
            " label  | character varying(20) |           |          | \n"
            " price  | numeric(10,2)         |           |          | \n"
            "\n"
            "                  View \"c.top\"\n"
            " Column | Type | Collation | Nullable | Default \n"
            "--------+------+-----------+----------+---------\n"
            " name   | text |           |          | \n"
            "\n")
      << out;
  // \d+ adds each column's storage and a view's definition, as hop keeps its query.
  auto [plus, prc] = Shell(fmt("psql {} -X -v ON_ERROR_STOP=1 -c '\\d+ c.keyed' -c '\\d+ c.top'"));
  EXPECT_EQ(prc, 0) << plus;
  EXPECT_NE(plus.find(" id     | integer               |           | not null |         | plain    "
                      "|             |              | \n"
                      " label  | character varying(20) |           |          |         | extended "
                      "|             |              | \n"),
            std::string::npos)
      << plus;
  EXPECT_NE(plus.find(" name   | text |           |          |         | extended | \n"
                      "View definition:\n"
                      "SELECT \"NAME\" FROM \"C\".\"PEOPLE\" WHERE \"SCORE\" > 9\n"),
            std::string::npos)
      << plus;
  // A name of nothing: psql's own message, after hop found no relation.
  auto [none, nrc] = Shell(fmt("psql {} -X -c '\\d c.nosuch'"));
  EXPECT_EQ(nrc, 1) << none;
  EXPECT_EQ(none, "Did not find any relation named \"c.nosuch\".\n");
}

// The primary key of a PostgreSQL table (a server of the test's own) over the wire: psql's \d
// lists it as PostgreSQL's psql would, JDBC's getPrimaryKeys returns its columns in key order.
TEST_F(PgwireClientsTest, PrimaryKeysOfPostgresTables) {
  hop::testing::PostgresServer server;
  hop::Status started = server.Start();
  ASSERT_TRUE(started.ok()) << started.ToString();
  ASSERT_TRUE(server
                  .Exec("CREATE TABLE parts (maker text, serial integer, name text, PRIMARY KEY "
                        "(serial, maker))")
                  .ok());
  auto [made, mrc] =
      Shell(fmt("psql {} -X -q -v ON_ERROR_STOP=1 -c \"CREATE DATABASE partsdb WITH "
                "(url 'postgresql:///postgres?host=" +
                server.socket_dir() + "&user=postgres', schema 'PARTS')\""));
  ASSERT_EQ(mrc, 0) << made;
  auto [out, rc] = Shell(fmt("psql {} -X -v ON_ERROR_STOP=1 -c '\\d parts.parts'"));
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(" serial | integer |           | not null | \n"), std::string::npos) << out;
  EXPECT_NE(out.find("Indexes:\n    \"parts_pkey\" PRIMARY KEY, btree (serial, maker)\n"),
            std::string::npos)
      << out;
  auto [keys, krc] = Shell(
      "java -cp /usr/share/java/postgresql.jar " + Source("test/pgwire/JdbcPrimaryKeys.java") +
      " jdbc:postgresql://127.0.0.1:" + std::to_string(port_) + "/hop parts parts");
  EXPECT_EQ(krc, 0) << keys;
  EXPECT_EQ(keys, "parts.parts serial 1 parts_pkey\nparts.parts maker 2 parts_pkey\n");
}

TEST_F(PgwireClientsTest, PsycopgParameterisedQueries) {
  auto [out, rc] =
      Shell(fmt("/usr/bin/python3 " + Source("test/pgwire/psycopg_client.py") + " {}"));
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out,
            "[(2, 'Alan')]\n"
            "(\"it's\", 1.5, None)\n"
            "[(1, 9.5, datetime.date(1815, 12, 10)), (2, 8.25, datetime.date(1912, 6, 23))]\n"
            "2\n"
            "{'id': 1, 'who': 'Ada'}\n"
            "error 42703\n"
            "1\n"
            "5\n"
            "DROP VIEW\n"
            "11\n");
}

TEST_F(PgwireClientsTest, JdbcStatementsAndPreparedStatements) {
  auto [out, rc] =
      Shell("java -cp /usr/share/java/postgresql.jar " + Source("test/pgwire/JdbcClient.java") +
            " jdbc:postgresql://127.0.0.1:" + std::to_string(port_) + "/hop");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(
      out,
      "1 Ada\n2 Alan\nAlan 8.25 1912-06-23\nAda 9.5 1815-12-10\n1\nerror 42703\n"
      "table c.people\ncolumn id int4\ncolumn name text\ncolumn score float8\n"
      "column born date\nprimary keys 0\ntypes _int4 json _interval {1,2} [[\"k\",1]] interval\n");
}

TEST_F(PgwireClientsTest, NodePgQueriesWithParameters) {
  auto [out, rc] = Shell("NODE_PATH=" + Source(".deps/node/node_modules") + " node " +
                         Source("test/pgwire/node_client.js") +
                         " postgresql://t@127.0.0.1:" + std::to_string(port_) + "/hop");
  EXPECT_EQ(rc, 0) << out;
  // The JDBC test inserted Grace, if it ran first.
  EXPECT_EQ(out.rfind("[{\"id\":1,\"name\":\"Ada\"},{\"id\":2,\"name\":\"Alan\"}", 0), 0u) << out;
  EXPECT_NE(out.find("\nAlan\nerror 42703\n"), std::string::npos) << out;
}

}  // namespace
