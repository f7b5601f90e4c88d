// The wire server against libpq (PostgreSQL's own client library) and against raw bytes:
// malformed, oversized, partial and interleaved clients.
#include "server/pg_server.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <poll.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "catalog/local.h"
#include "catalog/provisioner.h"
#include "server/pg_auth.h"
#include "server/pg_protocol.h"
#include "store/sqlite_store.h"
#include "test/lib/fixtures.h"

namespace hop::server {
namespace {

std::string Be32(uint32_t v) {
  std::string s;
  for (int shift = 24; shift >= 0; shift -= 8) s += static_cast<char>((v >> shift) & 0xff);
  return s;
}
std::string Be16(uint16_t v) {
  return std::string{static_cast<char>(v >> 8), static_cast<char>(v)};
}
std::string Msg(char type, const std::string& body) {
  return std::string(1, type) + Be32(static_cast<uint32_t>(body.size() + 4)) + body;
}
// ReadyForQuery, idle: where a raw client's exchange ends.
const std::string kReadyIdle("Z\0\0\0\x05I", 6);
std::string Startup(const std::string& user = "tester") {
  std::string body = Be32(kProtocolVersion3) + "user" + '\0' + user + '\0' + '\0';
  return Be32(static_cast<uint32_t>(body.size() + 4)) + body;
}

class PgServerTest : public ::testing::Test {
 protected:
  void StartServer(PgServerOptions options = {}) {
    auto store = store::SqliteStore::Open(dir_.path());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    local_ = std::make_unique<catalog::LocalProvisioner>(dir_.path());
    provisioners_.Register("local", local_.get());
    options.port = 0;
    options.properties.state_dir = dir_.path();
    options.properties.provisioners = &provisioners_;
    auto server = PgServer::Start(*store_, std::move(options));
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }
  std::string Conninfo(const std::string& extra = "") {
    return fmt::format("host=127.0.0.1 port={} user=tester dbname=hop connect_timeout=5 {}",
                       server_->port(), extra);
  }
  PGconn* Connect(const std::string& extra = "") {
    PGconn* c = PQconnectdb(Conninfo(extra).c_str());
    EXPECT_EQ(PQstatus(c), CONNECTION_OK) << PQerrorMessage(c);
    return c;
  }
  // A local database whose schema is LOCAL, made over the wire.
  static void CreateLocalDatabase(PGconn* c) {
    PGresult* r = PQexec(c, "CREATE DATABASE localdb WITH (url 'jdbc:local:wire', schema 'LOCAL')");
    EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
    EXPECT_STREQ(PQcmdStatus(r), "CREATE DATABASE");
    PQclear(r);
  }
  // A query counting 10^10 rows: minutes of work (hop runs no recursive queries), which ends
  // soon only when something stops it.
  static std::string SlowQuery() {
    std::string slow = "SELECT COUNT(*) FROM ";
    for (int i = 0; i < 10; ++i) {
      slow += fmt::format("{}(VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) AS t{} (x)",
                          i ? ", " : "", i);
    }
    return slow;
  }
  // Runs `query` on `c` (in the extended protocol when `extended`), which something stops: it
  // fails within 10 s with 57014 and `message`, and the connection goes on.
  static void ExpectCancelled(PGconn* c, const std::string& query, bool extended,
                              const char* message, const std::string& what) {
    const auto start = std::chrono::steady_clock::now();
    PGresult* r = extended
                      ? PQexecParams(c, query.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0)
                      : PQexec(c, query.c_str());
    EXPECT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR) << what;
    const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    EXPECT_STREQ(state ? state : "", "57014") << what << ": " << PQresultErrorMessage(r);
    const char* primary = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
    EXPECT_STREQ(primary ? primary : "", message) << what;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10)) << what;
    PQclear(r);
    r = PQexec(c, "SELECT 1");
    EXPECT_STREQ(PQgetvalue(r, 0, 0), "1") << what;
    PQclear(r);
  }
  // A raw socket to the server.
  int Raw() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(server_->port()));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
    return fd;
  }
  static void Send(int fd, const std::string& bytes) {
    ASSERT_EQ(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }
  // Everything the server sends until it closes the connection or goes quiet for `quiet_ms`.
  static std::string ReadAll(int fd, std::string_view until = {}, int quiet_ms = 2000) {
    std::string got;
    char buf[4096];
    for (;;) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, quiet_ms) <= 0) break;
      const ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
      if (!until.empty() && got.find(until) != std::string::npos) break;
    }
    return got;
  }
  // The message types in `bytes`, in order ("RSSK Z").
  static std::string Types(const std::string& bytes) {
    std::string types;
    size_t i = 0;
    while (i + 5 <= bytes.size()) {
      types += bytes[i];
      const uint32_t n =
          (static_cast<uint8_t>(bytes[i + 1]) << 24) | (static_cast<uint8_t>(bytes[i + 2]) << 16) |
          (static_cast<uint8_t>(bytes[i + 3]) << 8) | static_cast<uint8_t>(bytes[i + 4]);
      i += 1 + n;
    }
    return types;
  }

  testing::TempDir dir_{"hop-pgwire"};
  std::unique_ptr<store::SqliteStore> store_;
  std::unique_ptr<catalog::LocalProvisioner> local_;
  catalog::Provisioners provisioners_;
  std::unique_ptr<PgServer> server_;
};

TEST_F(PgServerTest, RunsQueriesWithPostgresqlTypesAndTextForms) {
  StartServer();
  PGconn* c = Connect();
  EXPECT_STREQ(PQparameterStatus(c, "server_version"), "15.0 (hop)");
  EXPECT_EQ(PQserverVersion(c), 150000);
  EXPECT_STREQ(PQparameterStatus(c, "integer_datetimes"), "on");
  PGresult* r = PQexec(c,
                       "SELECT 1 AS a, 'x' AS b, TRUE AS c, CAST(1.5 AS DOUBLE) AS d, DATE "
                       "'2026-01-02' AS e, TIMESTAMP '2026-01-02 03:04:05.5' AS f, CAST(NULL AS "
                       "INTEGER) AS g");
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  ASSERT_EQ(PQnfields(r), 7);
  EXPECT_STREQ(PQfname(r, 0), "a");  // named as PostgreSQL names unquoted columns
  EXPECT_EQ(PQftype(r, 0), 23u);
  EXPECT_EQ(PQftype(r, 2), 16u);
  EXPECT_EQ(PQftype(r, 3), 701u);
  EXPECT_EQ(PQftype(r, 4), 1082u);
  EXPECT_EQ(PQftype(r, 5), 1114u);
  EXPECT_STREQ(PQgetvalue(r, 0, 0), "1");
  EXPECT_STREQ(PQgetvalue(r, 0, 1), "x");
  EXPECT_STREQ(PQgetvalue(r, 0, 2), "t");
  EXPECT_STREQ(PQgetvalue(r, 0, 3), "1.5");
  EXPECT_STREQ(PQgetvalue(r, 0, 4), "2026-01-02");
  EXPECT_STREQ(PQgetvalue(r, 0, 5), "2026-01-02 03:04:05.5");
  EXPECT_TRUE(PQgetisnull(r, 0, 6));
  EXPECT_STREQ(PQcmdStatus(r), "SELECT 1");
  PQclear(r);
  r = PQexec(c, "");
  EXPECT_EQ(PQresultStatus(r), PGRES_EMPTY_QUERY);
  PQclear(r);
  PQfinish(c);
}

// Trust admits only the user hop serve runs as: loopback is open to every user of the machine.
// The server is told that the user it serves is not this test's, so this test is the stranger.
TEST_F(PgServerTest, TrustAdmitsOnlyTheUserTheServerRunsAs) {
  PgServerOptions options;
  options.loopback_user = geteuid() + 1;
  StartServer(options);
  PGconn* c = PQconnectdb(Conninfo().c_str());
  EXPECT_EQ(PQstatus(c), CONNECTION_BAD);
  const std::string error = PQerrorMessage(c);
  EXPECT_NE(error.find(fmt::format("trust authentication admits only the user hop serve runs as "
                                   "(uid {}), and this connection is not theirs",
                                   geteuid() + 1)),
            std::string::npos)
      << error;
  PQfinish(c);
  server_->Stop();
  server_.reset();
  StartServer();  // the user it runs as: this test
  PGconn* mine = Connect();
  EXPECT_EQ(PQstatus(mine), CONNECTION_OK);
  PQfinish(mine);
}

TEST_F(PgServerTest, SeveralStatementsInOneQueryAndDdl) {
  StartServer();
  PGconn* c = Connect();
  CreateLocalDatabase(c);
  ASSERT_EQ(PQsendQuery(c,
                        "CREATE TABLE local.t (id INTEGER, name VARCHAR); INSERT INTO local.t "
                        "VALUES (1, 'a'), (2, 'b'); SELECT id, name FROM local.t ORDER BY id"),
            1);
  std::vector<std::string> tags;
  int rows = -1;
  while (PGresult* r = PQgetResult(c)) {
    EXPECT_NE(PQresultStatus(r), PGRES_FATAL_ERROR) << PQresultErrorMessage(r);
    tags.push_back(PQcmdStatus(r));
    if (PQresultStatus(r) == PGRES_TUPLES_OK) rows = PQntuples(r);
    PQclear(r);
  }
  EXPECT_EQ(tags, (std::vector<std::string>{"CREATE TABLE", "INSERT 0 2", "SELECT 2"}));
  EXPECT_EQ(rows, 2);
  // SHOW of hop's settings and SET of what clients send at connect.
  PGresult* r = PQexec(c, "SET extra_float_digits = 3");
  EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
  PQclear(r);
  r = PQexec(c, "SET TimeZone = 'Europe/Paris'");
  EXPECT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR);
  PQclear(r);
  r = PQexec(c, "SET mode = apply; SHOW mode");
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  EXPECT_STREQ(PQgetvalue(r, 0, 1), "apply");
  PQclear(r);
  // A setting hop accepts and does not act on shows what was set, or PostgreSQL's default.
  for (const auto& [sql, shown] : std::vector<std::pair<const char*, const char*>>{
           {"SHOW extra_float_digits", "3"},
           {"SHOW statement_timeout", "0"},
           {"SET statement_timeout TO '5s'; SHOW statement_timeout", "5s"},
           {"SET extra_float_digits TO DEFAULT; SHOW extra_float_digits", "1"}}) {
    r = PQexec(c, sql);
    ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << sql << ": " << PQresultErrorMessage(r);
    EXPECT_STREQ(PQgetvalue(r, 0, 0), shown) << sql;
    PQclear(r);
  }
  PQfinish(c);
}

// A session's writes to a local database file that was removed or replaced while it had the
// file open (its state directory deleted, say) would be lost: they fail, saying so, instead of
// reporting INSERT 0 1 (docs/store.md, "Health").
TEST_F(PgServerTest, AWriteToALocalFileRemovedMeanwhileFails) {
  StartServer();
  PGconn* c = Connect();
  CreateLocalDatabase(c);
  PGresult* r =
      PQexec(c, "CREATE TABLE local.kept (id INTEGER); INSERT INTO local.kept VALUES (1)");
  ASSERT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
  PQclear(r);
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path() + "/local")) {
    if (entry.path().extension() == ".db") files.push_back(entry.path());
  }
  ASSERT_EQ(files.size(), 1u);
  std::filesystem::rename(files[0], files[0].string() + ".moved");
  r = PQexec(c, "INSERT INTO local.kept VALUES (2)");
  EXPECT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR) << PQcmdStatus(r);
  EXPECT_NE(std::string(PQresultErrorMessage(r)).find("was removed or replaced"), std::string::npos)
      << PQresultErrorMessage(r);
  PQclear(r);
  PQfinish(c);
}

TEST_F(PgServerTest, ErrorsCarrySqlStateAndPosition) {
  StartServer();
  PGconn* c = Connect();
  PGresult* r = PQexec(c, "SELECT 1;\nSELECT FROM");
  ASSERT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR);
  EXPECT_STREQ(PQresultErrorField(r, PG_DIAG_SQLSTATE), "42601");
  EXPECT_STREQ(PQresultErrorField(r, PG_DIAG_STATEMENT_POSITION), "18");
  PQclear(r);
  r = PQexec(c, "SELECT * FROM nowhere.t");
  EXPECT_STREQ(PQresultErrorField(r, PG_DIAG_SQLSTATE), "42P01") << PQresultErrorMessage(r);
  PQclear(r);
  // A failed transaction block refuses statements until it ends.
  PQclear(PQexec(c, "BEGIN"));
  EXPECT_EQ(PQtransactionStatus(c), PQTRANS_INTRANS);
  PQclear(PQexec(c, "SELECT nope"));
  EXPECT_EQ(PQtransactionStatus(c), PQTRANS_INERROR);
  r = PQexec(c, "SELECT 1");
  EXPECT_STREQ(PQresultErrorField(r, PG_DIAG_SQLSTATE), "25P02");
  PQclear(r);
  r = PQexec(c, "ROLLBACK");
  EXPECT_STREQ(PQcmdStatus(r), "ROLLBACK");
  PQclear(r);
  EXPECT_EQ(PQtransactionStatus(c), PQTRANS_IDLE);
  r = PQexec(c, "SELECT 2");
  EXPECT_STREQ(PQgetvalue(r, 0, 0), "2");
  PQclear(r);
  PQfinish(c);
}

// Savepoints (psycopg's nested transactions use them) keep the block going; none undoes a
// statement, and each says so when one would have.
TEST_F(PgServerTest, SavepointsKeepTheBlockAndSayTheyUndoNothing) {
  StartServer();
  PGconn* c = Connect();
  std::vector<std::string> notices;
  PQsetNoticeReceiver(
      c,
      [](void* arg, const PGresult* r) {
        static_cast<std::vector<std::string>*>(arg)->push_back(PQresultErrorMessage(r));
      },
      &notices);
  auto run = [&](const char* q) {
    PGresult* r = PQexec(c, q);
    std::string tag = PQresultStatus(r) == PGRES_FATAL_ERROR
                          ? std::string("error ") + PQresultErrorField(r, PG_DIAG_SQLSTATE)
                          : PQcmdStatus(r);
    PQclear(r);
    return tag;
  };
  EXPECT_EQ(run("SAVEPOINT a"), "error 25P01");
  EXPECT_EQ(run("BEGIN"), "BEGIN");
  EXPECT_EQ(run("SAVEPOINT \"_pg3_1\""), "SAVEPOINT");
  EXPECT_EQ(run("SELECT 1"), "SELECT 1");
  EXPECT_EQ(run("RELEASE \"_pg3_1\""), "RELEASE");
  EXPECT_EQ(run("SAVEPOINT a"), "SAVEPOINT");
  EXPECT_EQ(run("CREATE VIEW sv AS SELECT 1 AS x"), "CREATE VIEW");
  notices.clear();
  EXPECT_EQ(run("ROLLBACK TO SAVEPOINT a"), "ROLLBACK");
  EXPECT_EQ(PQtransactionStatus(c), PQTRANS_INTRANS);
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("ROLLBACK TO SAVEPOINT undid nothing"), std::string::npos);
  // A failed block goes on from its savepoint.
  EXPECT_EQ(run("SELECT nope"), "error 42703");
  EXPECT_EQ(PQtransactionStatus(c), PQTRANS_INERROR);
  EXPECT_EQ(run("RELEASE a"), "error 25P02");
  EXPECT_EQ(run("ROLLBACK TO b"), "error 3B001");
  EXPECT_EQ(run("ROLLBACK TO a"), "ROLLBACK");
  EXPECT_EQ(PQtransactionStatus(c), PQTRANS_INTRANS);
  EXPECT_EQ(run("SELECT 2"), "SELECT 1");
  // A failed block that wrote, ended by COMMIT: a ROLLBACK that says it undid nothing.
  EXPECT_EQ(run("SELECT nope"), "error 42703");
  notices.clear();
  EXPECT_EQ(run("COMMIT"), "ROLLBACK");
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("ROLLBACK undid nothing"), std::string::npos);
  EXPECT_EQ(PQtransactionStatus(c), PQTRANS_IDLE);
  PQfinish(c);
}

// Settings end with their transaction as in PostgreSQL (docs/pgwire.md, "Settings"): SET LOCAL
// lasts until the COMMIT or ROLLBACK; a SET in a block that rolls back (or fails) is undone, one
// in a block that commits stays; ROLLBACK TO a savepoint undoes what was set after it; SET LOCAL
// outside a block warns and changes nothing; a Query of several statements is one implicit
// block. Every setting: PostgreSQL's the connection keeps and hop's own.
TEST_F(PgServerTest, SettingsEndWithTheirTransactionAsInPostgresql) {
  StartServer();
  PGconn* c = Connect("application_name=start options='-c statement_timeout=7s'");
  std::vector<std::string> notices;
  PQsetNoticeReceiver(
      c,
      [](void* arg, const PGresult* r) {
        static_cast<std::vector<std::string>*>(arg)->push_back(
            std::string(PQresultErrorField(r, PG_DIAG_SQLSTATE)) + " " +
            PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY));
      },
      &notices);
  auto run = [&](const std::string& q) {
    PGresult* r = PQexec(c, q.c_str());
    const ExecStatusType status = PQresultStatus(r);
    EXPECT_TRUE(status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)
        << q << ": " << PQresultErrorMessage(r);
    PQclear(r);
  };
  // The value SHOW gives (hop's own settings answer a name and a value).
  auto show = [&](const std::string& name) {
    PGresult* r = PQexec(c, ("SHOW " + name).c_str());
    std::string v = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1
                        ? PQgetvalue(r, 0, PQnfields(r) - 1)
                        : std::string("? ") + PQresultErrorMessage(r);
    PQclear(r);
    return v;
  };
  struct Case {
    const char* name;
    const char* value;  // as SET writes it
    const char* shown;  // as SHOW gives it
    const char* start;  // SHOW before: the connection's value
  };
  const Case kCases[] = {
      {"application_name", "'inner'", "inner", "start"},
      {"statement_timeout", "'5min'", "5min", "7s"},
      {"idle_in_transaction_session_timeout", "'2h'", "2h", "5min"},
      {"search_path", "'elsewhere'", "elsewhere", "\"$user\", public"},
      {"extra_float_digits", "3", "3", "1"},
      {"client_min_messages", "warning", "warning", "notice"},
      {"namespace", "'other'", "other", "default"},
      {"mode", "apply", "apply", "create"},
      {"query_timeout", "9", "9", "0"},
      {"outputformat", "csv", "csv", "table"},
  };
  // Outside a block, AND CHAIN is an error, as in PostgreSQL.
  PGresult* chained = PQexec(c, "COMMIT AND CHAIN");
  EXPECT_EQ(PQresultStatus(chained), PGRES_FATAL_ERROR);
  EXPECT_STREQ(PQresultErrorField(chained, PG_DIAG_SQLSTATE), "25P01");
  PQclear(chained);
  for (const Case& k : kCases) {
    const std::string name = k.name;
    const std::string set = "SET " + name + " = " + k.value;
    const std::string set_local = "SET LOCAL " + name + " = " + k.value;
    ASSERT_EQ(show(name), k.start) << name;
    // SET LOCAL: until the COMMIT, and until the ROLLBACK.
    for (const char* end : {"COMMIT", "ROLLBACK"}) {
      run("BEGIN");
      run(set_local);
      EXPECT_EQ(show(name), k.shown) << name << " " << end;
      run(end);
      EXPECT_EQ(show(name), k.start) << name << " SET LOCAL, then " << end;
    }
    // COMMIT AND CHAIN begins the next block at once: a SET in it is undone by its ROLLBACK,
    // and the committed one stays.
    run("BEGIN");
    run(set);
    run("COMMIT AND CHAIN");
    run("SET " + name + " = DEFAULT");
    run("ROLLBACK");
    EXPECT_EQ(show(name), k.shown) << name << " SET, COMMIT AND CHAIN, SET, ROLLBACK";
    run("RESET " + name);
    // A SET undone by the ROLLBACK, by a failure in the block, or by a ROLLBACK TO.
    run("BEGIN");
    run(set);
    run("ROLLBACK");
    EXPECT_EQ(show(name), k.start) << name << " SET, then ROLLBACK";
    run("BEGIN");
    run(set);
    PQclear(PQexec(c, "SELECT nope"));
    run("COMMIT");
    EXPECT_EQ(show(name), k.start) << name << " SET, a failure, then COMMIT";
    run("BEGIN");
    run("SAVEPOINT a");
    run(set);
    run("ROLLBACK TO SAVEPOINT a");
    EXPECT_EQ(show(name), k.start) << name << " ROLLBACK TO";
    run("COMMIT");
    EXPECT_EQ(show(name), k.start) << name << " ROLLBACK TO, then COMMIT";
    // Outside a block SET LOCAL warns, as PostgreSQL does, and its value ends with the statement.
    notices.clear();
    run(set_local);
    EXPECT_EQ(notices, std::vector<std::string>{"25P01 SET LOCAL can only be used in transaction "
                                                "blocks"})
        << name;
    EXPECT_EQ(show(name), k.start) << name << " SET LOCAL outside a block";
    // A Query of several statements is one implicit block: SET LOCAL holds to its end.
    notices.clear();
    PGresult* r = PQexec(c, (set_local + "; SHOW " + name).c_str());
    EXPECT_EQ(PQgetvalue(r, 0, PQnfields(r) - 1), std::string(k.shown)) << name;
    PQclear(r);
    EXPECT_TRUE(notices.empty()) << name << ": " << notices[0];
    EXPECT_EQ(show(name), k.start) << name << " SET LOCAL in a Query of several";
    // ... whose failure undoes its SET.
    PQclear(PQexec(c, (set + "; SELECT nope").c_str()));
    EXPECT_EQ(show(name), k.start) << name << " SET in a failed Query of several";
    // A SET in a block that commits stays, over a SET LOCAL before or after it; RESET goes back
    // to the connection's value.
    run("BEGIN");
    run(set_local);
    run(set);
    run("COMMIT");
    EXPECT_EQ(show(name), k.shown) << name << " SET LOCAL, SET, COMMIT";
    run("RESET " + name);
    EXPECT_EQ(show(name), k.start) << name << " RESET";
    run("BEGIN");
    run(set);
    run("SAVEPOINT a");
    run("RESET " + name);
    run("RELEASE a");
    run(set_local);
    run("RESET " + name);
    run(set_local);
    run("COMMIT");
    EXPECT_EQ(show(name), k.start) << name << " SET, RESET, SET LOCAL, COMMIT";
    run("BEGIN");
    run(set);
    run("COMMIT");
    EXPECT_EQ(show(name), k.shown) << name << " SET, COMMIT";
    run("SET " + name + " TO DEFAULT");
    EXPECT_EQ(show(name), k.start) << name << " SET TO DEFAULT";
  }
  // A ROLLBACK TO keeps what was set before its savepoint; the extended protocol's SET LOCAL
  // (libpq's PQexecParams) is hop's too.
  run("BEGIN");
  run("SET statement_timeout = '1min'");
  run("SAVEPOINT a");
  PGresult* r = PQexecParams(c, "SET LOCAL statement_timeout = '2min'", 0, nullptr, nullptr,
                             nullptr, nullptr, 0);
  EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
  PQclear(r);
  r = PQexecParams(c, "SET LOCAL namespace = 'third'", 0, nullptr, nullptr, nullptr, nullptr, 0);
  EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
  PQclear(r);
  EXPECT_EQ(show("statement_timeout"), "2min");
  EXPECT_EQ(show("namespace"), "third");
  run("ROLLBACK TO a");
  EXPECT_EQ(show("statement_timeout"), "1min");
  EXPECT_EQ(show("namespace"), "default");
  run("COMMIT");
  EXPECT_EQ(show("statement_timeout"), "1min");
  run("RESET ALL");
  EXPECT_EQ(show("statement_timeout"), "7s");

  // The client is told application_name's value in effect after the COMMIT or ROLLBACK
  // (ParameterStatus, before ReadyForQuery).
  EXPECT_STREQ(PQparameterStatus(c, "application_name"), "start");
  run("BEGIN");
  run("SET application_name = 'inner'");
  EXPECT_STREQ(PQparameterStatus(c, "application_name"), "inner");
  run("ROLLBACK");
  EXPECT_STREQ(PQparameterStatus(c, "application_name"), "start");
  run("BEGIN");
  run("SET LOCAL application_name = 'local'");
  EXPECT_STREQ(PQparameterStatus(c, "application_name"), "local");
  run("COMMIT");
  EXPECT_STREQ(PQparameterStatus(c, "application_name"), "start");
  run("BEGIN");
  run("SET application_name = 'kept'");
  run("COMMIT");
  EXPECT_STREQ(PQparameterStatus(c, "application_name"), "kept");
  PQfinish(c);
}

TEST_F(PgServerTest, ExtendedProtocolWithTextAndBinaryParameters) {
  StartServer();
  PGconn* c = Connect();
  CreateLocalDatabase(c);
  PQclear(PQexec(c,
                 "CREATE TABLE local.p (id INTEGER, name VARCHAR); INSERT INTO local.p VALUES "
                 "(1, 'one'), (2, 'two'), (3, 'three')"));
  const Oid types[] = {23, 25};
  const uint32_t two = htonl(2);
  const char* values[] = {reinterpret_cast<const char*>(&two), "two"};
  const int lengths[] = {4, 3};
  const int formats[] = {1, 0};
  PGresult* r = PQexecParams(c, "SELECT id, name FROM local.p WHERE id = $1 AND name = $2", 2,
                             types, values, lengths, formats, /*resultFormat=*/1);
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  ASSERT_EQ(PQntuples(r), 1);
  ASSERT_EQ(PQgetlength(r, 0, 0), 4);
  uint32_t id = 0;
  std::memcpy(&id, PQgetvalue(r, 0, 0), 4);
  EXPECT_EQ(ntohl(id), 2u);
  EXPECT_EQ(std::string(PQgetvalue(r, 0, 1), 3), "two");
  PQclear(r);
  // A named statement, prepared once and run twice; Describe gives its columns first.
  r = PQprepare(c, "byid", "SELECT name FROM local.p WHERE id = $1", 1, types);
  ASSERT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
  PQclear(r);
  r = PQdescribePrepared(c, "byid");
  ASSERT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
  EXPECT_EQ(PQnparams(r), 1);
  EXPECT_EQ(PQparamtype(r, 0), 23u);
  ASSERT_EQ(PQnfields(r), 1);
  EXPECT_STREQ(PQfname(r, 0), "name");
  PQclear(r);
  for (const char* v : {"1", "3"}) {
    const char* vs[] = {v};
    r = PQexecPrepared(c, "byid", 1, vs, nullptr, nullptr, 0);
    ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
    EXPECT_STREQ(PQgetvalue(r, 0, 0), std::string(v) == "1" ? "one" : "three");
    PQclear(r);
  }
  // A value that is not of its type is an error, not SQL.
  const char* evil[] = {"1 OR 1=1"};
  r = PQexecPrepared(c, "byid", 1, evil, nullptr, nullptr, 0);
  EXPECT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR);
  EXPECT_STREQ(PQresultErrorField(r, PG_DIAG_SQLSTATE), "22023");
  PQclear(r);
  // A float parameter computes as a float, however the client spells it.
  const Oid float8[] = {701};
  const char* two_text[] = {"2"};
  r = PQexecParams(c, "SELECT $1 / 4 AS q", 1, float8, two_text, nullptr, nullptr, 0);
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  EXPECT_STREQ(PQgetvalue(r, 0, 0), "0.5");
  EXPECT_EQ(PQftype(r, 0), 701u);
  PQclear(r);
  // DEALLOCATE forgets a named statement (an unquoted name folds to lower case).
  r = PQexec(c, "DEALLOCATE PREPARE BYID");
  EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
  EXPECT_STREQ(PQcmdStatus(r), "DEALLOCATE");
  PQclear(r);
  const char* one[] = {"1"};
  r = PQexecPrepared(c, "byid", 1, one, nullptr, nullptr, 0);
  EXPECT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR);
  PQclear(r);
  r = PQexec(c, "DEALLOCATE byid");
  EXPECT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR);
  EXPECT_NE(std::string(PQresultErrorMessage(r)).find("prepared statement \"byid\" does not exist"),
            std::string::npos);
  PQclear(r);
  PQfinish(c);
}

TEST_F(PgServerTest, ExecuteRowLimitsSuspendThePortal) {
  StartServer();
  const int fd = Raw();
  Send(fd, Startup());
  std::string got = ReadAll(fd, kReadyIdle);
  ASSERT_EQ(Types(got), "RSSSSSSSSSSSKZ");
  const std::string q = "SELECT * FROM (VALUES (1), (2), (3)) AS t (x)";
  Send(fd, Msg('P', std::string("\0", 1) + q + '\0' + Be16(0)) +
               Msg('B', std::string("\0\0", 2) + Be16(0) + Be16(0) + Be16(0)) +
               Msg('D', std::string("P\0", 2)) + Msg('E', std::string("\0", 1) + Be32(2)) +
               Msg('E', std::string("\0", 1) + Be32(2)) + Msg('S', ""));
  got = ReadAll(fd, kReadyIdle);
  // ParseComplete, BindComplete, RowDescription, 2 rows, PortalSuspended, 1 row, complete.
  EXPECT_EQ(Types(got), "12TDDsDCZ");
  EXPECT_NE(got.find(std::string("SELECT 3\0", 9)), std::string::npos);
  close(fd);
}

// CopyData, CopyDone and CopyFail outside a COPY (hop never starts one) are ignored, as
// PostgreSQL ignores them: a client that sends the rest of a refused COPY's data and then a query
// gets the query's answer, with no Sync needed.
TEST_F(PgServerTest, CopyMessagesOutsideACopyAreIgnored) {
  StartServer();
  const int fd = Raw();
  Send(fd, Startup());
  std::string got = ReadAll(fd, kReadyIdle);
  ASSERT_EQ(Types(got), "RSSSSSSSSSSSKZ");
  Send(fd, Msg('d', "1\tleft over\n") + Msg('c', "") + Msg('f', std::string("gave up\0", 8)) +
               Msg('Q', std::string("SELECT 1\0", 9)));
  got = ReadAll(fd, kReadyIdle);
  EXPECT_EQ(Types(got), "TDCZ");
  EXPECT_NE(got.find(std::string("SELECT 1\0", 9)), std::string::npos);
  close(fd);
}

// A prepared statement whose table changed under it fails, as PostgreSQL's cached plan does,
// when its rows would go out under the columns a Describe of the statement gave; a client that
// describes the portal (libpq does at every run) is told the new columns and gets its rows.
TEST_F(PgServerTest, APreparedStatementWhoseColumnsChangedFails) {
  StartServer();
  PGconn* c = Connect();
  CreateLocalDatabase(c);
  PQclear(PQexec(c,
                 "CREATE TABLE local.ps (a INTEGER, b VARCHAR); INSERT INTO local.ps VALUES "
                 "(1, 'x')"));
  const int fd = Raw();
  Send(fd, Startup());
  std::string got = ReadAll(fd, kReadyIdle);
  const std::string q = "SELECT * FROM local.ps WHERE a >= 0";
  Send(fd, Msg('P', std::string("s1\0", 3) + q + '\0' + Be16(0)) +
               Msg('D', std::string("Ss1\0", 4)) + Msg('S', ""));
  got = ReadAll(fd, kReadyIdle);
  EXPECT_EQ(Types(got), "1tTZ");
  const std::string run = Msg('B', std::string("\0s1\0", 4) + Be16(0) + Be16(0) + Be16(0)) +
                          Msg('E', std::string("\0", 1) + Be32(0)) + Msg('S', "");
  Send(fd, run);
  got = ReadAll(fd, kReadyIdle);
  EXPECT_EQ(Types(got), "2DCZ");
  PGresult* r =
      PQexec(c, "DROP TABLE local.ps; CREATE TABLE local.ps (b VARCHAR, a DOUBLE, z INTEGER)");
  ASSERT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
  PQclear(r);
  PQclear(PQexec(c, "INSERT INTO local.ps VALUES ('y', 2.5, 3)"));
  Send(fd, run);
  got = ReadAll(fd, kReadyIdle);
  EXPECT_EQ(Types(got), "2EZ");
  EXPECT_NE(got.find("0A000"), std::string::npos);
  EXPECT_NE(got.find("cached plan must not change result type"), std::string::npos);
  close(fd);
  // With a Describe of the portal, the client learns the new columns.
  r = PQprepare(c, "s2", "SELECT * FROM local.ps WHERE a >= 0", 0, nullptr);
  PQclear(r);
  r = PQexecPrepared(c, "s2", 0, nullptr, nullptr, nullptr, 0);
  EXPECT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  EXPECT_EQ(PQnfields(r), 3);
  PQclear(r);
  PQfinish(c);
}

// A binary result of a type hop cannot write (numeric) fails before any DataRow: the client
// gets whole messages and goes on using the connection.
TEST_F(PgServerTest, ABinaryResultHopCannotWriteFailsBeforeAnyRow) {
  StartServer();
  const int fd = Raw();
  Send(fd, Startup());
  std::string got = ReadAll(fd, kReadyIdle);
  const std::string q = "SELECT CAST(1.5 AS DECIMAL(3, 1)) AS x, 2 AS y";
  Send(fd, Msg('P', std::string("\0", 1) + q + '\0' + Be16(0)) +
               Msg('B', std::string("\0\0", 2) + Be16(0) + Be16(0) + Be16(1) + Be16(1)) +
               Msg('D', std::string("P\0", 2)) + Msg('E', std::string("\0", 1) + Be32(0)) +
               Msg('S', ""));
  got = ReadAll(fd, kReadyIdle);
  EXPECT_EQ(Types(got), "12TEZ");
  EXPECT_NE(got.find("hop does not send numeric values in binary format"), std::string::npos);
  Send(fd, Msg('Q', std::string("SELECT 1 AS one") + '\0'));
  got = ReadAll(fd, kReadyIdle);
  EXPECT_EQ(Types(got), "TDCZ");
  close(fd);
}

TEST_F(PgServerTest, MalformedAndOversizedMessagesCloseOnlyTheirConnection) {
  PgServerOptions options;
  options.max_message_bytes = 1024;
  StartServer(options);
  PGconn* good = Connect();
  const std::string kBad[] = {
      Msg('Q', std::string(2000, 'x')),                 // oversized
      std::string("Q") + Be32(2),                       // length below 4
      Msg('?', ""),                                     // unknown type
      Msg('Q', "SELECT 1"),                             // no NUL
      Msg('B', std::string("\0\0", 2) + Be16(0xffff)),  // negative count
      Msg('E', std::string("\0", 1)),                   // short
  };
  for (const std::string& bad : kBad) {
    const int fd = Raw();
    Send(fd, Startup());
    ReadAll(fd, kReadyIdle);
    Send(fd, bad);
    const std::string got = ReadAll(fd);
    EXPECT_NE(got.find("08P01"), std::string::npos) << ::testing::PrintToString(bad);
    EXPECT_EQ(Types(got), "E") << ::testing::PrintToString(bad);
    close(fd);
  }
  // A bad startup packet, a client that sends half a message and goes, garbage.
  for (const std::string& bad : {Be32(3), Be32(1 << 30), std::string("GET / HTTP/1.1\r\n\r\n")}) {
    const int fd = Raw();
    Send(fd, bad);
    ReadAll(fd);
    close(fd);
  }
  {
    const int fd = Raw();
    Send(fd, Startup());
    ReadAll(fd, kReadyIdle);
    Send(fd, std::string("Q") + Be32(100) + "SELE");
    close(fd);
  }
  PGresult* r = PQexec(good, "SELECT 42");
  EXPECT_STREQ(PQgetvalue(r, 0, 0), "42");
  PQclear(r);
  PQfinish(good);
}

TEST_F(PgServerTest, MessagesInOneSegmentOrByteByByteAreEachAnswered) {
  StartServer();
  // A whole extended-protocol round trip and a simple query in one send.
  {
    const int fd = Raw();
    Send(fd, Startup());
    ReadAll(fd, kReadyIdle);
    const std::string parse = Msg('P', std::string("\0SELECT 40 + $1\0\0\0", 18));
    const std::string bind =
        Msg('B', std::string("\0\0\0\0\0\x01", 6) + Be32(1) + "2" + std::string("\0\0", 2));
    const std::string execute = Msg('E', std::string("\0", 1) + Be32(0));
    Send(fd, parse + bind + execute + Msg('S', "") + Msg('Q', std::string("SELECT 'next'\0", 14)));
    const std::string got = ReadAll(fd, "next");
    EXPECT_EQ(Types(got).substr(0, 6), "12DCZT") << ::testing::PrintToString(got);
    EXPECT_NE(got.find("42"), std::string::npos);
    EXPECT_NE(got.find("next"), std::string::npos);
    close(fd);
  }
  // The same query sent one byte at a time.
  {
    const int fd = Raw();
    Send(fd, Startup());
    ReadAll(fd, kReadyIdle);
    for (char ch : Msg('Q', std::string("SELECT 'slow'\0", 14))) Send(fd, std::string(1, ch));
    const std::string got = ReadAll(fd, kReadyIdle);
    EXPECT_EQ(Types(got), "TDCZ") << ::testing::PrintToString(got);
    EXPECT_NE(got.find("slow"), std::string::npos);
    close(fd);
  }
}

TEST_F(PgServerTest, ASessionSeesWhatAnotherMadeAfterQueriesThatReadNoTable) {
  StartServer();
  PGconn* reader = Connect();
  PGconn* writer = Connect();
  // The reader's catalog is loaded by a query that reads no table and is then kept.
  for (int i = 0; i < 3; ++i) {
    PGresult* r = PQexec(reader, "SELECT 1");
    EXPECT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
    PQclear(r);
  }
  CreateLocalDatabase(writer);
  PGresult* r = PQexec(writer,
                       "CREATE TABLE local.seen (id INTEGER); INSERT INTO local.seen VALUES (7)");
  EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
  PQclear(r);
  r = PQexec(reader, "SELECT id FROM local.seen");
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  EXPECT_STREQ(PQgetvalue(r, 0, 0), "7");
  PQclear(r);
  // Kept (parsed and bound once) with the catalog as it is now.
  r = PQexec(reader, "SELECT * FROM local.seen");
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  EXPECT_EQ(PQnfields(r), 1);
  PQclear(r);
  // The same text again after the table changed shape: the new columns, not the old statement's.
  r = PQexec(writer,
             "DROP TABLE local.seen; CREATE TABLE local.seen (id INTEGER, name VARCHAR); "
             "INSERT INTO local.seen VALUES (8, 'eight')");
  EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
  PQclear(r);
  r = PQexec(reader, "SELECT * FROM local.seen");
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  ASSERT_EQ(PQnfields(r), 2);
  EXPECT_STREQ(PQgetvalue(r, 0, 1), "eight");
  PQclear(r);
  // A query that looks nothing up is kept across namespaces only as long as the namespace is.
  for (const char* expected : {"default", "default", "other", "other"}) {
    if (std::string_view(expected) == "other") PQclear(PQexec(reader, "SET namespace = 'other'"));
    r = PQexec(reader, "SELECT current_database()");
    ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
    EXPECT_STREQ(PQgetvalue(r, 0, 0), expected);
    PQclear(r);
  }
  PQfinish(reader);
  PQfinish(writer);
}

TEST_F(PgServerTest, InspectingStatementsReturnRowsInBothProtocols) {
  StartServer();
  PGconn* c = Connect();
  CreateLocalDatabase(c);
  PGresult* r = PQexec(c, "CREATE TABLE local.t (id INTEGER, name VARCHAR)");
  EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
  PQclear(r);
  r = PQexec(c, "DESCRIBE local.t");
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  ASSERT_EQ(PQntuples(r), 2);
  EXPECT_STREQ(PQfname(r, 0), "columnName");
  EXPECT_STREQ(PQgetvalue(r, 1, 0), "NAME");
  EXPECT_STREQ(PQgetvalue(r, 1, 1), "VARCHAR");
  PQclear(r);
  // Prepared: the row description comes before a row is read, as for a query. (Hoptimator's
  // SPECIFY refuses a CREATE VIEW; hop's objects are shown with specify = all.)
  r = PQexec(c, "SET specify = all");
  ASSERT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
  PQclear(r);
  r = PQprepare(c, "spec", "SPECIFY CREATE VIEW local.v AS SELECT id FROM local.t", 0, nullptr);
  ASSERT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
  PQclear(r);
  r = PQdescribePrepared(c, "spec");
  ASSERT_EQ(PQnfields(r), 3);
  EXPECT_STREQ(PQfname(r, 0), "kind");
  EXPECT_STREQ(PQfname(r, 2), "yaml");
  PQclear(r);
  r = PQexecPrepared(c, "spec", 0, nullptr, nullptr, nullptr, 0);
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  ASSERT_EQ(PQntuples(r), 1);
  EXPECT_STREQ(PQgetvalue(r, 0, 0), "View");
  EXPECT_STREQ(PQgetvalue(r, 0, 1), "local-v");
  EXPECT_NE(std::string(PQgetvalue(r, 0, 2)).find("sql: SELECT \"ID\" FROM \"LOCAL\".\"T\""),
            std::string::npos)
      << PQgetvalue(r, 0, 2);
  PQclear(r);
  // Specified, not made.
  r = PQexec(c, "SELECT * FROM local.v");
  EXPECT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR);
  PQclear(r);
  r = PQexec(c, "PIPELINE SELECT id FROM local.t");
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  EXPECT_STREQ(PQfname(r, 0), "sql");
  EXPECT_GE(PQntuples(r), 1);
  PQclear(r);
  r = PQexec(c, "RESOLVE local.t");
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  EXPECT_STREQ(PQgetvalue(r, 0, 0), "avro schema");
  PQclear(r);
  // GRAPH: a row per line of the Mermaid text, described before it runs when prepared.
  r = PQprepare(c, "graph", "GRAPH local.t DEPTH 1", 0, nullptr);
  ASSERT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
  PQclear(r);
  r = PQdescribePrepared(c, "graph");
  ASSERT_EQ(PQnfields(r), 1);
  EXPECT_STREQ(PQfname(r, 0), "graph");
  PQclear(r);
  r = PQexecPrepared(c, "graph", 0, nullptr, nullptr, nullptr, 0);
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  ASSERT_EQ(PQntuples(r), 3);
  EXPECT_STREQ(PQgetvalue(r, 0, 0), "flowchart LR");
  EXPECT_STREQ(PQgetvalue(r, 1, 0), "  n0[(\"LOCAL.T\")]");
  EXPECT_EQ(std::string(PQgetvalue(r, 2, 0)).rfind("%% WARNING: no pipelines reference", 0), 0u);
  PQclear(r);
  r = PQexec(c, "GRAPH local.nope FORMAT JSON");
  EXPECT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR);
  EXPECT_NE(std::string(PQresultErrorMessage(r)).find("table 'NOPE' not found in schema LOCAL."),
            std::string::npos)
      << PQresultErrorMessage(r);
  PQclear(r);
  PQfinish(c);
}

TEST_F(PgServerTest, AClientKilledWhileRowsStreamLeavesTheServerServing) {
  StartServer();
  // A result larger than the socket buffers, and a client that never reads it and goes.
  const std::string many =
      "SELECT a.x * 1000 + b.x * 100 + c.x * 10 + d.x FROM (VALUES (0), (1), (2), (3), (4), (5), "
      "(6), (7), (8), (9)) AS a (x), (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) AS "
      "b (x), (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) AS c (x), (VALUES (0), "
      "(1), (2), (3), (4), (5), (6), (7), (8), (9)) AS d (x), (VALUES (0), (1), (2), (3), (4), "
      "(5), (6), (7), (8), (9)) AS e (x)";
  for (int i = 0; i < 3; ++i) {
    const int fd = Raw();
    Send(fd, Startup());
    ReadAll(fd, kReadyIdle);
    Send(fd, Msg('Q', many + '\0'));
    close(fd);
  }
  PGconn* c = Connect();
  PGresult* r = PQexec(c, many.c_str());
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  EXPECT_EQ(PQntuples(r), 100000);
  PQclear(r);
  PQfinish(c);
}

TEST_F(PgServerTest, InterleavedClientsDoNotWaitForEachOther) {
  StartServer();
  // One client stalls in the middle of a message; another runs queries meanwhile.
  const int stalled = Raw();
  Send(stalled, Startup());
  ReadAll(stalled, kReadyIdle);
  Send(stalled, std::string("Q") + Be32(100));
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      PGconn* c = PQconnectdb(Conninfo().c_str());
      for (int i = 0; i < 20; ++i) {
        PGresult* r = PQexec(c, fmt::format("SELECT {} + {}", t, i).c_str());
        if (PQresultStatus(r) == PGRES_TUPLES_OK && std::atoi(PQgetvalue(r, 0, 0)) == t + i) ++ok;
        PQclear(r);
      }
      PQfinish(c);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 80);
  close(stalled);
}

// A CancelRequest stops the running statement, in the simple and the extended protocol, with
// PostgreSQL's 57014 canceling statement due to user request; the connection goes on.
TEST_F(PgServerTest, CancelRequestStopsTheRunningQuery) {
  StartServer();
  PGconn* c = Connect();
  // Were the cancel lost, the budget would end the query.
  PQclear(PQexec(c, "SET query_timeout = 20"));
  for (const bool extended : {false, true}) {
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      PGcancel* cancel = PQgetCancel(c);
      char err[256];
      EXPECT_EQ(PQcancel(cancel, err, sizeof err), 1) << err;
      PQfreeCancel(cancel);
    });
    ExpectCancelled(c, SlowQuery(), extended, "canceling statement due to user request",
                    extended ? "extended" : "simple");
    canceller.join();
  }
  PQfinish(c);
}

// statement_timeout is acted on as PostgreSQL does (docs/pgwire.md, "Settings"): a statement
// that runs longer is cancelled with 57014, by SET or the startup options, in the simple and the
// extended protocol; 0 is no timeout; values are read with PostgreSQL's units.
TEST_F(PgServerTest, StatementTimeoutCancelsALongerStatement) {
  StartServer();
  const std::string slow = SlowQuery();
  auto expect_timeout = [&slow](PGconn* c, bool extended, const std::string& what) {
    ExpectCancelled(c, slow, extended, "canceling statement due to statement timeout", what);
  };
  auto show = [](PGconn* c) {
    PGresult* r = PQexec(c, "SHOW statement_timeout");
    std::string v = PQresultStatus(r) == PGRES_TUPLES_OK ? PQgetvalue(r, 0, 0) : "?";
    PQclear(r);
    return v;
  };
  PGconn* c = Connect();
  PQclear(PQexec(c, "SET statement_timeout = '300ms'"));
  EXPECT_EQ(show(c), "300ms");
  // Each time the connection goes on, and a quick statement is not cancelled.
  expect_timeout(c, /*extended=*/false, "simple");
  expect_timeout(c, /*extended=*/true, "extended");
  // A plain number is milliseconds; a unit PostgreSQL does not know is refused.
  PQclear(PQexec(c, "SET statement_timeout TO 1500"));
  EXPECT_EQ(show(c), "1500ms");
  PGresult* r = PQexec(c, "SET statement_timeout = '5S'");
  EXPECT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR);
  EXPECT_STREQ(PQresultErrorField(r, PG_DIAG_SQLSTATE), "22023");
  PQclear(r);
  EXPECT_EQ(show(c), "1500ms");
  // 0 is no timeout: the slow query now ends by hop's own query_timeout, not statement_timeout.
  PQclear(PQexec(c, "SET statement_timeout = 0"));
  EXPECT_EQ(show(c), "0");
  PQclear(PQexec(c, "SET query_timeout = 2"));
  r = PQexec(c, slow.c_str());
  EXPECT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR);
  EXPECT_STREQ(PQresultErrorField(r, PG_DIAG_SQLSTATE), "22000");
  EXPECT_NE(std::string(PQresultErrorMessage(r)).find("query_timeout"), std::string::npos)
      << PQresultErrorMessage(r);
  PQclear(r);
  PQfinish(c);
  // The startup packet's options set it too.
  c = Connect("options='-c statement_timeout=200'");
  ASSERT_EQ(PQstatus(c), CONNECTION_OK) << PQerrorMessage(c);
  EXPECT_EQ(show(c), "200ms");
  expect_timeout(c, /*extended=*/false, "startup option");
  PQfinish(c);
  c = PQconnectdb(Conninfo("options='-c statement_timeout=-5'").c_str());
  EXPECT_EQ(PQstatus(c), CONNECTION_BAD);
  EXPECT_NE(std::string(PQerrorMessage(c)).find("outside the valid range"), std::string::npos)
      << PQerrorMessage(c);
  PQfinish(c);
}

// idle_in_transaction_session_timeout is acted on as PostgreSQL does (docs/pgwire.md,
// "Settings"): a client idle inside a transaction block, or holding a portal whose rows it has
// not all read, is disconnected with FATAL 25P03, and the read of the local tables' SQLite file
// its portal held open is released, so a checkpoint of that file can complete again; a client
// idle outside a transaction is not. Its default is the server's (5 minutes), SET and the
// startup options change it, and values are read with PostgreSQL's units.
TEST_F(PgServerTest, AClientIdleInATransactionIsDisconnectedAndItsReadReleased) {
  StartServer();
  auto show = [](PGconn* c) {
    PGresult* r = PQexec(c, "SHOW idle_in_transaction_session_timeout");
    std::string v = PQresultStatus(r) == PGRES_TUPLES_OK ? PQgetvalue(r, 0, 0) : "?";
    PQclear(r);
    return v;
  };
  auto exec = [](PGconn* c, const char* sql) {
    PGresult* r = PQexec(c, sql);
    EXPECT_NE(PQresultStatus(r), PGRES_FATAL_ERROR) << sql << ": " << PQresultErrorMessage(r);
    PQclear(r);
  };
  PGconn* c = Connect();
  EXPECT_EQ(show(c), "5min");
  exec(c, "SET idle_in_transaction_session_timeout = 0");
  EXPECT_EQ(show(c), "0");
  exec(c, "SET idle_in_transaction_session_timeout TO DEFAULT");
  EXPECT_EQ(show(c), "5min");
  PGresult* r = PQexec(c, "SET idle_in_transaction_session_timeout = '2 weeks'");
  EXPECT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR);
  EXPECT_STREQ(PQresultErrorField(r, PG_DIAG_SQLSTATE), "22023");
  PQclear(r);
  CreateLocalDatabase(c);
  exec(c, "CREATE TABLE local.t (n INTEGER)");
  exec(c, "INSERT INTO local.t VALUES (1), (2), (3)");
  // A checkpoint that empties the WAL of the table's file, from a connection of the test's: it
  // cannot complete (SQLITE_BUSY) while a reader holds a snapshot older than the last write.
  const std::string file = dir_.path() + "/local/wire.db";
  auto checkpoint = [&file] {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
    // A read first, so that the connection opens the WAL the file's header says it has (waiting
    // out the server's own brief locks); the checkpoint then does not wait for readers.
    sqlite3_busy_timeout(db, 10000);
    EXPECT_EQ(sqlite3_exec(db, "SELECT COUNT(*) FROM sqlite_master", nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_busy_timeout(db, 0);
    const int rc =
        sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
    sqlite3_close(db);
    return rc;
  };
  EXPECT_EQ(checkpoint(), SQLITE_OK);

  // Raw clients reading the table a row at a time: one inside a block (rows kept past Sync, as
  // JDBC's fetch size reads them), one outside any, whose Flush keeps the portal open; then
  // nothing.
  const std::string portal =
      Msg('P', std::string("\0", 1) + "SELECT n FROM local.t" + '\0' + Be16(0)) +
      Msg('B', std::string("\0\0", 2) + Be16(0) + Be16(0) + Be16(0)) +
      Msg('E', std::string("\0", 1) + Be32(1));
  const std::string ready_in_block("Z\0\0\0\x05T", 6);
  const int in_block = Raw();
  Send(in_block, Startup());
  ASSERT_NE(ReadAll(in_block, kReadyIdle).find(kReadyIdle), std::string::npos);
  Send(in_block,
       Msg('Q', std::string("SET idle_in_transaction_session_timeout = '2s'; BEGIN") + '\0'));
  ASSERT_NE(ReadAll(in_block, ready_in_block).find(ready_in_block), std::string::npos);
  Send(in_block, portal + Msg('S', ""));
  EXPECT_EQ(Types(ReadAll(in_block, ready_in_block)), "12DsZ");
  const int flushed = Raw();
  Send(flushed, Startup());
  ASSERT_NE(ReadAll(flushed, kReadyIdle).find(kReadyIdle), std::string::npos);
  Send(flushed, Msg('Q', std::string("SET idle_in_transaction_session_timeout = 2000") + '\0'));
  ASSERT_NE(ReadAll(flushed, kReadyIdle).find(kReadyIdle), std::string::npos);
  Send(flushed, portal + Msg('H', ""));
  EXPECT_EQ(Types(ReadAll(flushed, std::string("s\0\0\0\x04", 5))), "12Ds");
  exec(c, "INSERT INTO local.t VALUES (4), (5)");  // as a refresh writes
  EXPECT_EQ(checkpoint(), SQLITE_BUSY);            // the portals' reads hold the WAL
  // libpq clients: one idle in a block after its query's rows, one idle outside any.
  PGconn* idle_in_block = Connect("options='-c idle_in_transaction_session_timeout=2s'");
  EXPECT_EQ(show(idle_in_block), "2s");
  exec(idle_in_block, "BEGIN");
  exec(idle_in_block, "SELECT n FROM local.t");
  PGconn* idle = Connect("options='-c idle_in_transaction_session_timeout=2s'");
  const auto idle_since = std::chrono::steady_clock::now();

  for (const int fd : {in_block, flushed}) {
    const std::string got = ReadAll(fd, "timeout", 10000);
    EXPECT_NE(got.find("25P03"), std::string::npos) << got;
    EXPECT_NE(got.find("terminating connection due to idle-in-transaction timeout"),
              std::string::npos)
        << got;
    // and the connection is closed
    pollfd closed{fd, POLLIN, 0};
    EXPECT_EQ(poll(&closed, 1, 5000), 1);
    char byte;
    EXPECT_EQ(recv(fd, &byte, 1, MSG_DONTWAIT), 0);
    close(fd);
  }
  EXPECT_EQ(checkpoint(), SQLITE_OK);
  pollfd told{PQsocket(idle_in_block), POLLIN, 0};
  EXPECT_EQ(poll(&told, 1, 10000), 1);
  r = PQexec(idle_in_block, "SELECT 1");
  EXPECT_NE(PQresultStatus(r), PGRES_TUPLES_OK);
  EXPECT_NE(std::string(PQerrorMessage(idle_in_block))
                .find("terminating connection due to idle-in-transaction timeout"),
            std::string::npos)
      << PQerrorMessage(idle_in_block);
  PQclear(r);
  std::this_thread::sleep_until(idle_since + std::chrono::milliseconds(2500));
  r = PQexec(idle, "SELECT 1");
  EXPECT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  PQclear(r);
  PQfinish(idle_in_block);
  PQfinish(idle);
  PQfinish(c);
}

// A select list is held to PostgreSQL's 1664 columns (docs/engine.md, "What is refused"): wider
// ones fail at bind with 54011 too_many_columns, not an internal error; 1664 run.
TEST_F(PgServerTest, OverWideSelectListsAreRefusedWithTooManyColumns) {
  StartServer();
  PGconn* c = Connect();
  auto list = [](int n, const char* item) {
    std::string s;
    for (int i = 0; i < n; ++i) s += fmt::format("{}{}", i ? ", " : "", item);
    return s;
  };
  PGresult* r = PQexec(c, ("SELECT " + list(1664, "1")).c_str());
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  EXPECT_EQ(PQnfields(r), 1664);
  PQclear(r);
  const std::string kWide[] = {
      "SELECT " + list(50001, "1"),
      "VALUES (" + list(1665, "1") + ")",
      "SELECT * FROM (SELECT " + list(900, "1") + ") AS a, (SELECT " + list(900, "2") + ") AS b",
  };
  for (const std::string& q : kWide) {
    const std::string what = q.substr(0, 40);
    r = PQexec(c, q.c_str());
    EXPECT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR) << what;
    const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    EXPECT_STREQ(state ? state : "", "54011") << what << ": " << PQresultErrorMessage(r);
    EXPECT_NE(std::string(PQresultErrorMessage(r)).find("target lists can have at most 1664"),
              std::string::npos)
        << what << ": " << PQresultErrorMessage(r);
    PQclear(r);
    // The extended protocol refuses it when the statement is described.
    r = PQprepare(c, "", q.c_str(), 0, nullptr);
    if (PQresultStatus(r) == PGRES_COMMAND_OK) {
      PQclear(r);
      r = PQdescribePrepared(c, "");
    }
    state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    EXPECT_STREQ(state ? state : "", "54011") << what << ": " << PQresultErrorMessage(r);
    PQclear(r);
  }
  r = PQexec(c, "SELECT 1");
  EXPECT_STREQ(PQgetvalue(r, 0, 0), "1");
  PQclear(r);
  PQfinish(c);
}

// A CHAR(n) value goes out padded to n, in text and in binary, as PostgreSQL sends a bpchar, and
// compares without its trailing spaces (docs/engine.md, "Strings and LIKE").
TEST_F(PgServerTest, CharValuesGoOutPaddedAndCompareWithoutTheirPadding) {
  StartServer();
  PGconn* c = Connect();
  CreateLocalDatabase(c);
  PGresult* r = PQexec(c,
                       "CREATE TABLE local.codes (id INTEGER, code CHAR(5)); INSERT INTO "
                       "local.codes VALUES (1, 'ab'), (2, 'ab '), (3, 'x')");
  EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
  PQclear(r);
  for (int format : {0, 1}) {
    r = PQexecParams(c, "SELECT code FROM local.codes WHERE code = 'ab   ' ORDER BY id", 0, nullptr,
                     nullptr, nullptr, nullptr, format);
    ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
    ASSERT_EQ(PQntuples(r), 2) << format;
    EXPECT_EQ(PQftype(r, 0), 1042u);
    for (int row = 0; row < 2; ++row) {
      EXPECT_EQ(std::string(PQgetvalue(r, row, 0), PQgetlength(r, row, 0)), "ab   ") << format;
    }
    PQclear(r);
  }
  r = PQexec(c, "SELECT COUNT(DISTINCT code) FROM local.codes");
  EXPECT_STREQ(PQgetvalue(r, 0, 0), "2");
  PQclear(r);
  PQfinish(c);
}

TEST_F(PgServerTest, PasswordMd5AndScramAgainstTheUsersFile) {
  const std::string users = dir_.path() + "/users";
  ASSERT_TRUE(AddPgUser(users, "tester", "right pw").ok());
  for (AuthMethod m : {AuthMethod::kScramSha256, AuthMethod::kMd5, AuthMethod::kPassword}) {
    PgServerOptions options;
    options.auth = m;
    options.users_file = users;
    server_.reset();
    provisioners_ = catalog::Provisioners();
    StartServer(options);
    PGconn* c = PQconnectdb(Conninfo("password='right pw'").c_str());
    EXPECT_EQ(PQstatus(c), CONNECTION_OK) << AuthMethodName(m) << ": " << PQerrorMessage(c);
    PQfinish(c);
    c = PQconnectdb(Conninfo("password=wrong").c_str());
    EXPECT_EQ(PQstatus(c), CONNECTION_BAD) << AuthMethodName(m);
    EXPECT_NE(std::string(PQerrorMessage(c)).find("password authentication failed"),
              std::string::npos)
        << PQerrorMessage(c);
    PQfinish(c);
    c = PQconnectdb(
        fmt::format("host=127.0.0.1 port={} user=nobody password=x dbname=hop", server_->port())
            .c_str());
    EXPECT_EQ(PQstatus(c), CONNECTION_BAD);
    PQfinish(c);
  }
}

TEST_F(PgServerTest, TlsWhenACertificateIsGivenAndNotOtherwise) {
  // Without a certificate an SSLRequest is refused: sslmode=require gives up.
  StartServer();
  PGconn* plain = PQconnectdb(Conninfo("sslmode=require").c_str());
  EXPECT_EQ(PQstatus(plain), CONNECTION_BAD);
  PQfinish(plain);
  server_.reset();
  provisioners_ = catalog::Provisioners();
  const std::string cert = dir_.path() + "/server.crt";
  const std::string key = dir_.path() + "/server.key";
  const std::string made =
      "openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost -days 1 "
      "-keyout " +
      key + " -out " + cert + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(made.c_str()), 0) << "openssl (the package) makes the test certificate";
  PgServerOptions options;
  options.tls_cert = cert;
  options.tls_key = key;
  StartServer(options);
  {
    // Bytes in the clear behind the SSLRequest are refused, not taken as if encrypted.
    const int fd = Raw();
    Send(fd, Be32(8) + Be32(80877103) + Startup());
    const std::string got = ReadAll(fd);
    EXPECT_NE(got.find("08P01"), std::string::npos) << ::testing::PrintToString(got);
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got[0], 'E');  // an ErrorResponse, not the 'S' that starts a handshake
    close(fd);
  }
  PGconn* c = Connect("sslmode=require");
  EXPECT_EQ(PQsslInUse(c), 1);
  PGresult* r = PQexec(c, "SELECT 'over TLS' AS t");
  EXPECT_STREQ(PQgetvalue(r, 0, 0), "over TLS");
  PQclear(r);
  PQfinish(c);
  // A TLS client that goes away while rows are written to it ends its connection, not the
  // server (a write to it must not raise SIGPIPE, which would end this process).
  for (int i = 0; i < 3; ++i) {
    PGconn* gone = Connect("sslmode=require");
    ASSERT_EQ(PQsendQuery(gone, "SELECT repeat('x', 100000) FROM generate_series(1, 200)"), 1);
    shutdown(PQsocket(gone), SHUT_RDWR);
    PQfinish(gone);
  }
  PGconn* after = Connect("sslmode=require");
  r = PQexec(after, "SELECT 'still here' AS t");
  EXPECT_STREQ(PQgetvalue(r, 0, 0), "still here");
  PQclear(r);
  PQfinish(after);
  // A client may still go on in the clear.
  PGconn* clear = Connect("sslmode=disable");
  EXPECT_EQ(PQsslInUse(clear), 0);
  PQfinish(clear);
  // A certificate without its key, or one that does not load, is refused at start.
  PgServerOptions half;
  half.tls_cert = cert;
  EXPECT_FALSE(PgServer::Start(*store_, half).ok());
  half.tls_key = cert;
  EXPECT_FALSE(PgServer::Start(*store_, half).ok());
}

TEST_F(PgServerTest, RefusesTrustOffLoopbackAndTooManyClients) {
  auto store = store::SqliteStore::Open(dir_.path());
  ASSERT_TRUE(store.ok());
  PgServerOptions options;
  options.listen = "0.0.0.0";
  auto refused = PgServer::Start(**store, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("loopback"), std::string::npos);
  EXPECT_TRUE(IsLoopbackAddress("127.0.0.2"));
  EXPECT_TRUE(IsLoopbackAddress("::1"));
  EXPECT_FALSE(IsLoopbackAddress("10.0.0.1"));

  PgServerOptions two;
  two.max_connections = 2;
  StartServer(two);
  PGconn* a = Connect();
  PGconn* b = Connect();
  PGconn* c = PQconnectdb(Conninfo("sslmode=disable").c_str());
  EXPECT_EQ(PQstatus(c), CONNECTION_BAD);
  EXPECT_NE(std::string(PQerrorMessage(c)).find("too many clients"), std::string::npos)
      << PQerrorMessage(c);
  PQfinish(c);
  PQfinish(a);
  PQfinish(b);
}

// A statement running when the server stops ends its session as in PostgreSQL: its error is
// FATAL 57P01 admin_shutdown, not a statement's error followed by one (docs/pgwire.md).
TEST_F(PgServerTest, AStopEndsARunningStatementWithFatal57P01) {
  StartServer();
  PGconn* c = Connect();
  // Were the stop lost, the budget would end the query.
  PQclear(PQexec(c, "SET query_timeout = 20"));
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    server_->Stop();
  });
  // libpq folds a FATAL error and the connection's end into one message; verbose, it has the
  // SQLSTATE.
  PQsetErrorVerbosity(c, PQERRORS_VERBOSE);
  PGresult* r = PQexec(c, SlowQuery().c_str());
  stopper.join();
  EXPECT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR);
  const std::string message = PQerrorMessage(c);
  EXPECT_EQ(message.rfind("FATAL:  57P01: terminating connection due to administrator command", 0),
            0u)
      << message;
  EXPECT_EQ(message.find("ERROR"), std::string::npos) << message;
  PQclear(r);
  EXPECT_EQ(PQstatus(c), CONNECTION_BAD);
  PQfinish(c);
}

// A client that begins a message and does not finish it within the message timeout is not an
// idle one (57P05): its connection is given up with 08006, whether it stopped in the message's
// header or in its body (docs/pgwire.md, "Connections").
TEST_F(PgServerTest, AClientStalledInAMessageIsToldItsConnectionFailed) {
  PgServerOptions options;
  options.message_timeout = std::chrono::milliseconds(300);
  StartServer(options);
  const std::string kParts[] = {
      std::string("Q\0\0", 3),                   // in the header
      std::string("Q\0\0\0\x10", 5) + "SELECT",  // in the body
  };
  for (const std::string& part : kParts) {
    const int fd = Raw();
    Send(fd, Startup());
    ASSERT_NE(ReadAll(fd, kReadyIdle).find(kReadyIdle), std::string::npos);
    Send(fd, part);
    const std::string got = ReadAll(fd);
    EXPECT_EQ(Types(got), "E") << part.size();
    EXPECT_NE(got.find("C08006"), std::string::npos) << got;
    EXPECT_NE(got.find("did not send the rest of it within 0.3 s"), std::string::npos) << got;
    EXPECT_EQ(got.find("57P05"), std::string::npos) << got;
    close(fd);
  }
}

TEST_F(PgServerTest, IdleClientsTimeOutAndStopEndsConnections) {
  PgServerOptions options;
  options.idle_timeout = std::chrono::milliseconds(200);
  StartServer(options);
  const int fd = Raw();
  Send(fd, Startup());
  const std::string got = ReadAll(fd);
  EXPECT_NE(got.find("57P05"), std::string::npos);
  close(fd);
  PGconn* c = Connect();
  // A client waiting between queries does not hold the stop up.
  const auto stop_started = std::chrono::steady_clock::now();
  server_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - stop_started, std::chrono::milliseconds(900));
  PGresult* r = PQexec(c, "SELECT 1");
  EXPECT_NE(PQresultStatus(r), PGRES_TUPLES_OK);
  PQclear(r);
  PQfinish(c);
}

// The startup packet's own application_name wins over one in its `options`, as in PostgreSQL
// 15 (which reads `options` first).
TEST_F(PgServerTest, StartupPacketsOwnApplicationNameWinsOverOptions) {
  StartServer();
  PGconn* c = Connect("options='-c application_name=fromoptions' application_name=own");
  EXPECT_STREQ(PQparameterStatus(c, "application_name"), "own");
  PGresult* r = PQexec(c, "SHOW application_name");
  EXPECT_STREQ(PQgetvalue(r, 0, 0), "own");
  PQclear(r);
  PQfinish(c);
}

// A failed statement's SQLSTATE is PostgreSQL 15's for the same cause (each checked against
// it), and its primary message is hop's words without their category.
TEST_F(PgServerTest, QueryErrorsHavePostgresqlsSqlstatesAndNoCategory) {
  StartServer();
  PGconn* c = Connect();
  struct Case {
    const char* query;
    const char* sqlstate;
  };
  const Case kCases[] = {
      {"SELECT 1 / 0", "22012"},  // division_by_zero
      {"SELECT CAST(1 AS DECIMAL(3, 1)) / 0", "22012"},
      {"SELECT 9223372036854775807 + 1", "22003"},  // numeric_value_out_of_range
      {"SELECT CAST(40000 AS SMALLINT)", "22003"},
      {"SELECT CAST('abc' AS INTEGER)", "22P02"},          // invalid_text_representation
      {"SELECT CAST('99999999999' AS INTEGER)", "22003"},  // a number, out of range
      {"SELECT CAST(' 70000 ' AS SMALLINT)", "22003"},
      {"SELECT CAST('1e3' AS INTEGER)", "22P02"},
      {"SELECT * FROM nosuch", "42P01"},      // undefined_table
      {"SELECT nope", "42703"},               // undefined_column
      {"SELECT nosuchfunction(1)", "42883"},  // undefined_function
      {"SELEC 1", "42601"},                   // syntax_error
      {"PREPARE TRANSACTION 'x'", "0A000"},   // feature_not_supported
      {"COMMIT PREPARED 'x'", "0A000"},
      {"ROLLBACK PREPARED 'x'", "0A000"},
  };
  for (const Case& k : kCases) {
    for (bool extended : {false, true}) {
      PGresult* r = extended ? PQexecParams(c, k.query, 0, nullptr, nullptr, nullptr, nullptr, 0)
                             : PQexec(c, k.query);
      EXPECT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR) << k.query;
      const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
      const char* primary = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
      EXPECT_STREQ(state ? state : "", k.sqlstate) << k.query << ": " << PQresultErrorMessage(r);
      const std::string message = primary ? primary : "";
      for (int code = static_cast<int>(StatusCode::kParse);
           code <= static_cast<int>(StatusCode::kInternal); ++code) {
        const std::string category(StatusCodeCategory(static_cast<StatusCode>(code)));
        EXPECT_NE(message.rfind(category + ":", 0), 0u) << k.query << ": " << message;
      }
      if (std::string_view(k.sqlstate) == "0A000") {
        EXPECT_NE(message.find("hop does not support two-phase commit"), std::string::npos)
            << message;
      }
      PQclear(r);
    }
  }
  PQfinish(c);
}

// COPY, in any of its forms and either protocol, is refused with feature_not_supported and
// words saying what to use instead, not a syntax error; the connection goes on.
TEST_F(PgServerTest, CopyIsRefusedAsNotSupported) {
  StartServer();
  PGconn* c = Connect();
  const char* kCopies[] = {
      "COPY t FROM STDIN",
      "copy t (a, b) from stdin with (format csv)",
      "COPY t TO STDOUT",
      "COPY (SELECT 1) TO STDOUT WITH CSV HEADER",
      "COPY t FROM '/tmp/hop-copy-input'",
      "COPY t TO PROGRAM 'cat'",
      "/* psql */ COPY public.t FROM STDIN BINARY",
  };
  for (const char* copy : kCopies) {
    for (bool extended : {false, true}) {
      PGresult* r = extended ? PQexecParams(c, copy, 0, nullptr, nullptr, nullptr, nullptr, 0)
                             : PQexec(c, copy);
      EXPECT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR) << copy;
      const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
      EXPECT_STREQ(state ? state : "", "0A000") << copy << ": " << PQresultErrorMessage(r);
      const char* primary = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
      const std::string message = primary ? primary : "";
      EXPECT_EQ(message.rfind("COPY is not supported by hop", 0), 0u) << copy << ": " << message;
      EXPECT_NE(message.find("INSERT"), std::string::npos) << message;
      PQclear(r);
      r = PQexec(c, "SELECT 'after'");
      EXPECT_STREQ(PQgetvalue(r, 0, 0), "after") << copy;
      PQclear(r);
    }
  }
  PQfinish(c);
}

// A FunctionCall message is answered at once, as PostgreSQL answers it (it belongs to the simple
// protocol: no Sync follows it): ErrorResponse 0A000, then ReadyForQuery.
TEST_F(PgServerTest, FunctionCallIsAnsweredAtOnceAsNotSupported) {
  StartServer();
  const int fd = Raw();
  Send(fd, Startup());
  ReadAll(fd, kReadyIdle);
  // Function OID 1598 (random()), no argument format codes, no arguments, a text result.
  std::string body = Be32(1598);
  body += std::string("\0\0\0\0\0\0", 6);
  Send(fd, Msg('F', body));
  std::string got = ReadAll(fd, kReadyIdle);
  EXPECT_EQ(Types(got), "EZ") << ::testing::PrintToString(got);
  EXPECT_NE(got.find("0A000"), std::string::npos) << ::testing::PrintToString(got);
  EXPECT_NE(got.find("function call protocol is not supported"), std::string::npos);
  // The connection goes on.
  Send(fd, Msg('Q', std::string("SELECT 'next'\0", 14)));
  got = ReadAll(fd, kReadyIdle);
  EXPECT_EQ(Types(got), "TDCZ") << ::testing::PrintToString(got);
  close(fd);
}

// SET TIME ZONE LOCAL goes back to the connection's starting zone, as SET TIME ZONE DEFAULT
// does in PostgreSQL; the startup packet's `options` are read as PostgreSQL reads them, a
// backslash taking the next character (a blank or a backslash) into the value.
TEST_F(PgServerTest, SetTimeZoneLocalAndEscapedStartupOptions) {
  StartServer();
  PGconn* c = Connect(R"(options='-c TimeZone=Etc/UTC -c application_name=a\\ b\\\\c )"
                      R"(-csearch_path=x --extra-float-digits=3')");
  ASSERT_EQ(PQstatus(c), CONNECTION_OK) << PQerrorMessage(c);
  auto show = [&](const char* name) {
    PGresult* r = PQexec(c, (std::string("SHOW ") + name).c_str());
    std::string v = PQresultStatus(r) == PGRES_TUPLES_OK ? PQgetvalue(r, 0, 0) : "?";
    PQclear(r);
    return v;
  };
  EXPECT_EQ(show("application_name"), "a b\\c");
  EXPECT_STREQ(PQparameterStatus(c, "application_name"), "a b\\c");
  EXPECT_EQ(show("search_path"), "x");
  EXPECT_EQ(show("extra_float_digits"), "3");
  for (const char* local : {"SET TIME ZONE LOCAL", "set time zone local", "SET TIME ZONE DEFAULT",
                            "SET LOCAL TIME ZONE LOCAL"}) {
    PGresult* r = PQexec(c, "SET TIME ZONE 'UTC'");
    PQclear(r);
    EXPECT_EQ(show("TimeZone"), "UTC");
    r = PQexec(c, local);
    EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << local << ": " << PQresultErrorMessage(r);
    PQclear(r);
    if (std::string_view(local).find("SET LOCAL") == std::string_view::npos) {
      EXPECT_EQ(show("TimeZone"), "Etc/UTC") << local;
    }
  }
  // The string 'LOCAL' names no zone, in PostgreSQL too.
  PGresult* r = PQexec(c, "SET TIME ZONE 'LOCAL'");
  EXPECT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR);
  PQclear(r);
  PQfinish(c);
}

// CURRENT_USER and its kin, written bare as in PostgreSQL, name the connection's user (the
// startup packet's), in both protocols; psql's \password asks it first.
TEST_F(PgServerTest, CurrentUserIsTheConnectionsUser) {
  StartServer();
  PGconn* c = Connect();
  const char* kQuery = "SELECT CURRENT_USER, session_user, user, Current_Role";
  for (bool extended : {false, true}) {
    PGresult* r = extended ? PQexecParams(c, kQuery, 0, nullptr, nullptr, nullptr, nullptr, 0)
                           : PQexec(c, kQuery);
    ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
    ASSERT_EQ(PQnfields(r), 4);
    for (int i = 0; i < 4; ++i) EXPECT_STREQ(PQgetvalue(r, 0, i), "tester") << i;
    PQclear(r);
  }
  PQfinish(c);
}

// TimeZone is shown and reported by the name it was set to, as PostgreSQL does; a DateStyle of
// another field order than MDY is refused (hop reads dates only as year-month-day), not taken
// and ignored.
TEST_F(PgServerTest, TimeZoneKeepsItsNameAndDateStyleRefusesAnotherOrder) {
  StartServer();
  PGconn* c = Connect();
  auto show = [&](const char* name) {
    PGresult* r = PQexec(c, (std::string("SHOW ") + name).c_str());
    std::string v = PQresultStatus(r) == PGRES_TUPLES_OK ? PQgetvalue(r, 0, 0) : "?";
    PQclear(r);
    return v;
  };
  auto state = [&](const char* q) {
    PGresult* r = PQexec(c, q);
    const char* s = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    std::string out = PQresultStatus(r) == PGRES_COMMAND_OK ? "ok" : s ? s : "?";
    PQclear(r);
    return out;
  };
  EXPECT_STREQ(PQparameterStatus(c, "TimeZone"), "UTC");
  struct Case {
    const char* set;
    const char* shown;  // PostgreSQL 15's SHOW timezone after it
  };
  const Case kCases[] = {
      {"SET TIME ZONE 'Etc/UTC'", "Etc/UTC"}, {"SET TIME ZONE 'utc'", "UTC"},
      {"SET timezone = 'GMT'", "GMT"},        {"SET TIME ZONE 'Z'", "Etc/UTC"},
      {"SET TIME ZONE 'zulu'", "Zulu"},       {"SET TIME ZONE '+00:00'", "+00:00"},
  };
  for (const Case& k : kCases) {
    EXPECT_EQ(state(k.set), "ok") << k.set;
    EXPECT_EQ(show("timezone"), k.shown) << k.set;
    EXPECT_STREQ(PQparameterStatus(c, "TimeZone"), k.shown) << k.set;
  }
  EXPECT_EQ(state("SET TIME ZONE 'Europe/Paris'"), "22023");
  EXPECT_EQ(show("timezone"), "+00:00");
  EXPECT_EQ(state("RESET timezone"), "ok");
  EXPECT_EQ(show("timezone"), "UTC");
  EXPECT_STREQ(PQparameterStatus(c, "TimeZone"), "UTC");
  for (const char* order : {"SET DateStyle = 'ISO, DMY'", "SET DateStyle = 'DMY'",
                            "SET DateStyle = 'ISO, YMD'", "SET DateStyle = 'SQL, MDY'"}) {
    EXPECT_EQ(state(order), "22023") << order;
    EXPECT_EQ(show("DateStyle"), "ISO, MDY") << order;
  }
  for (const char* same : {"SET DateStyle = 'ISO'", "SET DateStyle = 'ISO, MDY'",
                           "SET DateStyle = 'mdy, iso'", "SET DateStyle = 'ISO, US'"}) {
    EXPECT_EQ(state(same), "ok") << same;
  }
  PQfinish(c);
  // A connection whose startup packet gives the zone is told it back.
  c = Connect("options='-c TimeZone=Etc/UTC'");
  EXPECT_STREQ(PQparameterStatus(c, "TimeZone"), "Etc/UTC");
  EXPECT_EQ(show("timezone"), "Etc/UTC");
  PQfinish(c);
  PGconn* dmy = PQconnectdb(Conninfo("options='-c DateStyle=ISO,DMY'").c_str());
  EXPECT_NE(PQstatus(dmy), CONNECTION_OK);
  PQfinish(dmy);
}

// hop's own settings may be given in the startup packet, as any of PostgreSQL's may, and RESET
// (RESET ALL, SET ... TO DEFAULT) goes back to those starting values, as PostgreSQL's RESET goes
// back to the session's defaults, startup values included.
TEST_F(PgServerTest, ResetGoesBackToTheConnectionsStartingValues) {
  StartServer();
  PGconn* c = Connect("options='-c namespace=startns -c mode=apply -c statement_timeout=3s'");
  auto show = [&](const char* name) {
    PGresult* r = PQexec(c, (std::string("SHOW ") + name).c_str());
    std::string v = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1
                        ? PQgetvalue(r, 0, PQnfields(r) - 1)
                        : std::string("? ") + PQresultErrorMessage(r);
    PQclear(r);
    return v;
  };
  auto run = [&](const char* q) {
    PGresult* r = PQexec(c, q);
    EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << q << ": " << PQresultErrorMessage(r);
    PQclear(r);
  };
  EXPECT_EQ(show("namespace"), "startns");
  EXPECT_EQ(show("mode"), "apply");
  run("SET namespace = 'other'");
  run("RESET namespace");
  EXPECT_EQ(show("namespace"), "startns");
  run("SET namespace = 'other'");
  run("SET namespace TO DEFAULT");
  EXPECT_EQ(show("namespace"), "startns");
  run("SET namespace = 'other'");
  run("SET mode = 'create'");
  run("SET statement_timeout = '9s'");
  run("SET query_timeout = 5");
  run("RESET ALL");
  EXPECT_EQ(show("namespace"), "startns");
  EXPECT_EQ(show("mode"), "apply");
  EXPECT_EQ(show("statement_timeout"), "3s");
  EXPECT_EQ(show("query_timeout"), "0");
  PQfinish(c);
  // A value the setting does not take ends the connection at its start, as PostgreSQL's does.
  PGconn* bad = PQconnectdb(Conninfo("options='-c namespace=Not_A_Label'").c_str());
  EXPECT_NE(PQstatus(bad), CONNECTION_OK);
  EXPECT_NE(std::string(PQerrorMessage(bad)).find("namespace"), std::string::npos)
      << PQerrorMessage(bad);
  PQfinish(bad);
}

// The WARNING of a SET LOCAL outside a block comes before the statement's error in the extended
// protocol too, as PostgreSQL sends it.
TEST_F(PgServerTest, ExtendedProtocolSendsAWarningBeforeTheError) {
  StartServer();
  PGconn* c = Connect();
  std::vector<std::string> notices;
  PQsetNoticeReceiver(
      c,
      [](void* arg, const PGresult* r) {
        static_cast<std::vector<std::string>*>(arg)->push_back(
            std::string(PQresultErrorField(r, PG_DIAG_SQLSTATE)) + " " +
            PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY));
      },
      &notices);
  for (const char* q :
       {"SET LOCAL statement_timeout = 'bogus'", "SET LOCAL namespace = 'Not_A_Label'"}) {
    notices.clear();
    PGresult* r = PQexecParams(c, q, 0, nullptr, nullptr, nullptr, nullptr, 0);
    EXPECT_EQ(PQresultStatus(r), PGRES_FATAL_ERROR) << q;
    EXPECT_STREQ(PQresultErrorField(r, PG_DIAG_SQLSTATE), "22023") << q;
    PQclear(r);
    EXPECT_EQ(notices,
              std::vector<std::string>{"25P01 SET LOCAL can only be used in transaction blocks"})
        << q;
  }
  PQfinish(c);
}

}  // namespace
}  // namespace hop::server
