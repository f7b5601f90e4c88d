// Tests of the PostgreSQL adapter's pure parts (URLs, credentials, names, types both ways) and,
// against a server of the test's own, of what SQL cannot show: connections are reused, a scan
// stopped early leaves its connection usable, one the server dropped is replaced, constraints are
// parameters, and the provisioner creates, checks and drops.
#include "catalog/postgres.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sql/parser.h"
#include "sql/unparser.h"
#include "test/lib/postgres_server.h"

namespace hop::catalog {
namespace {

std::string Params(const PostgresConfig& c) {
  std::string out;
  for (const auto& [k, v] : c.params) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}

TEST(PostgresTest, Urls) {
  struct Case {
    const char* url;
    const char* params;  // null: refused
    const char* schema = "public";
    const char* env = "";
    const char* file = "";
  };
  const Case kCases[] = {
      {"jdbc:postgresql://db.example:5432/app?user=hop&password=s3cret",
       "host=db.example port=5432 dbname=app user=hop password=s3cret"},
      {"jdbc:postgresql://db/app", "host=db dbname=app"},
      {"jdbc:postgresql://app:pw@db/app", "user=app password=pw host=db dbname=app"},
      {"jdbc:postgresql:///app", "host=localhost dbname=app"},
      {"jdbc:postgresql://a:1,b:2/app", "host=a,b port=1,2 dbname=app"},
      {"jdbc:postgresql://[::1]:6543/app", "host=::1 port=6543 dbname=app"},
      {"jdbc:postgresql://db/app?currentSchema=sales,public", "host=db dbname=app", "sales"},
      {"jdbc:postgresql://db/app?ssl=true&connectTimeout=3&ApplicationName=x&loginTimeout=9",
       "host=db dbname=app connect_timeout=3 application_name=x sslmode=require"},
      {"jdbc:postgresql://db/app?ssl=true&sslmode=verify-full",
       "host=db dbname=app sslmode=verify-full"},
      {"jdbc:postgresql://db/app?user=a%40b&password=p%26q",
       "host=db dbname=app user=a@b password=p&q"},
      {"jdbc:postgresql://db/app?user=hop&password=${env:PGPASS}", "host=db dbname=app user=hop",
       "public", "PGPASS"},
      {"jdbc:postgresql://db/app?passwordFile=/run/pw", "host=db dbname=app", "public", "",
       "/run/pw"},
      {"postgresql://hop:pw@/app?host=/tmp/sock&port=5433",
       "user=hop password=pw dbname=app host=/tmp/sock port=5433"},
      {"postgres://db/app?sslmode=disable", "host=db dbname=app sslmode=disable"},
      {"postgresql:///app?currentSchema=x", "dbname=app", "x"},
      {"jdbc:postgresql:app", nullptr},
      {"jdbc:postgresql://db:port/app", nullptr},
      {"jdbc:postgresql://db/app?user=a%0", nullptr},
      {"jdbc:postgresql://db/a%00b", nullptr},
      {"jdbc:postgresql://[::1/app", nullptr},
      {"jdbc:postgresql://db/app?password=${vault:x}", nullptr},
      {"jdbc:postgresql://db/app?currentSchema=", nullptr},
      {"jdbc:mysql://db/app", nullptr},
  };
  for (const Case& c : kCases) {
    auto config = ParsePostgresUrl(c.url);
    if (c.params == nullptr) {
      EXPECT_FALSE(config.ok()) << c.url;
      continue;
    }
    ASSERT_TRUE(config.ok()) << c.url << ": " << config.status().ToString();
    EXPECT_EQ(Params(*config), c.params) << c.url;
    EXPECT_EQ(config->schema, c.schema) << c.url;
    EXPECT_EQ(config->password_env, c.env) << c.url;
    EXPECT_EQ(config->password_file, c.file) << c.url;
  }
  // Errors never show the password.
  auto bad = ParsePostgresUrl("jdbc:postgresql://u:hunter2@db:x/app");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().find("hunter2"), std::string::npos);
}

TEST(PostgresTest, CredentialsFromTheEnvironmentOrAPrivateFile) {
  PostgresConfig env;
  env.password_env = "HOP_TEST_PG_PASSWORD";
  unsetenv("HOP_TEST_PG_PASSWORD");
  auto missing = ResolveCredentials(env);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("HOP_TEST_PG_PASSWORD"), std::string::npos);
  setenv("HOP_TEST_PG_PASSWORD", "from-env", 1);
  auto resolved = ResolveCredentials(env);
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->back(), (std::pair<std::string, std::string>("password", "from-env")));
  unsetenv("HOP_TEST_PG_PASSWORD");

  char tmpl[] = "/tmp/hop-pgpass-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string path = dir + "/pw";
  std::ofstream(path) << "from-file\nsecond line\n";
  PostgresConfig file;
  file.password_file = path;
  chmod(path.c_str(), 0644);
  auto readable = ResolveCredentials(file);
  ASSERT_FALSE(readable.ok());
  EXPECT_NE(readable.status().message().find("chmod 600"), std::string::npos);
  chmod(path.c_str(), 0600);
  auto read = ResolveCredentials(file);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->back().second, "from-file");
  file.password_file = dir + "/none";
  EXPECT_FALSE(ResolveCredentials(file).ok());
  std::filesystem::remove_all(dir);
}

TEST(PostgresTest, Names) {
  const std::pair<const char*, const char*> kHopToPostgres[] = {
      {"WIDGETS", "widgets"}, {"MixedCase", "MixedCase"}, {"A_1", "a_1"}, {"x", "x"}};
  for (const auto& [hop, pg] : kHopToPostgres) EXPECT_EQ(PostgresName(hop), pg) << hop;
  const std::pair<const char*, const char*> kPostgresToHop[] = {
      {"widgets", "WIDGETS"}, {"MixedCase", "MixedCase"}, {"UPPER", "UPPER"}, {"a_1", "A_1"}};
  for (const auto& [pg, hop] : kPostgresToHop) EXPECT_EQ(HopName(pg), hop) << pg;
}

TEST(PostgresTest, TypesMapBothWaysWithoutLoss) {
  // Calcite type -> PostgreSQL's spelling -> (as PostgreSQL reads it back) Calcite type.
  struct Case {
    const char* calcite;
    const char* postgres;  // null: refused
    PostgresType back;     // what the server reports for the column
    const char* calcite_back;
  };
  const Case kCases[] = {
      {"BOOLEAN", "boolean", {16, -1}, "BOOLEAN"},
      {"TINYINT", "smallint", {21, -1}, "SMALLINT"},
      {"SMALLINT", "smallint", {21, -1}, "SMALLINT"},
      {"INTEGER", "integer", {23, -1}, "INTEGER"},
      {"BIGINT", "bigint", {20, -1}, "BIGINT"},
      {"DECIMAL(10, 2)", "numeric(10,2)", {1700, (10 << 16) + 2 + 4}, "DECIMAL(10, 2)"},
      {"REAL", "real", {700, -1}, "REAL"},
      {"DOUBLE", "double precision", {701, -1}, "DOUBLE"},
      {"FLOAT", "double precision", {701, -1}, "DOUBLE"},
      {"CHAR(3)", "character(3)", {1042, 7}, "CHAR(3)"},
      {"VARCHAR(20)", "character varying(20)", {1043, 24}, "VARCHAR(20)"},
      {"VARCHAR", "text", {25, -1}, "VARCHAR"},
      {"VARBINARY", "bytea", {17, -1}, "VARBINARY"},
      {"DATE", "date", {1082, -1}, "DATE"},
      {"TIME", "time(0) without time zone", {1083, 0}, "TIME(0)"},
      {"TIME(6)", "time(6) without time zone", {1083, 6}, "TIME(6)"},
      {"TIMESTAMP(3)", "timestamp(3) without time zone", {1114, 3}, "TIMESTAMP(3)"},
      {"TIMESTAMP(3) WITH LOCAL TIME ZONE",
       "timestamp(3) with time zone",
       {1184, 3},
       "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
      {"INTEGER ARRAY", "integer[]", {1007, -1, 23}, "INTEGER ARRAY"},
      {"VARCHAR(8) ARRAY", "character varying(8)[]", {1015, 12, 1043}, "VARCHAR(8) ARRAY"},
      {"DECIMAL", nullptr, {}, ""},
      {"DECIMAL(19, 0)", nullptr, {}, ""},
      {"MAP<VARCHAR, INTEGER>", nullptr, {}, ""},
      {"ROW(a INTEGER)", nullptr, {}, ""},
      {"INTEGER ARRAY ARRAY", nullptr, {}, ""},
      {"INTEGER MULTISET", nullptr, {}, ""},
  };
  for (const Case& c : kCases) {
    auto type = sql::ParseDataType(c.calcite);
    ASSERT_TRUE(type.ok()) << c.calcite;
    auto pg = PostgresTypeOf(*type);
    if (c.postgres == nullptr) {
      EXPECT_FALSE(pg.ok()) << c.calcite;
      continue;
    }
    ASSERT_TRUE(pg.ok()) << c.calcite << ": " << pg.status().ToString();
    EXPECT_EQ(*pg, c.postgres) << c.calcite;
    PostgresType back = c.back;
    back.spelled = *pg;
    auto calcite = CalciteType(back);
    ASSERT_TRUE(calcite.ok()) << c.calcite << ": " << calcite.status().ToString();
    auto want = sql::ParseDataType(c.calcite_back);
    ASSERT_TRUE(want.ok()) << c.calcite_back;
    EXPECT_TRUE(*calcite == *want) << c.calcite;
  }
  // PostgreSQL types hop does not map are refused by name.
  const PostgresType kRefused[] = {{790, -1, 0, "money"},
                                   {1700, -1, 0, "numeric"},
                                   {1700, (30 << 16) + 4, 0, "numeric(30,0)"},
                                   {600, -1, 0, "point"},
                                   {1186, -1, 0, "interval"}};
  for (const PostgresType& t : kRefused) {
    auto calcite = CalciteType(t);
    ASSERT_FALSE(calcite.ok()) << t.spelled;
    EXPECT_NE(calcite.status().message().find(t.spelled), std::string::npos)
        << calcite.status().message();
  }
}

// The column type CREATE TABLE writes for each Calcite type (the SQL writer's PostgreSQL
// dialect), with the meaning PostgresTypeOf spells; a refused type is refused by both.
TEST(PostgresTest, CreatedColumnTypesPrintInThePostgresDialect) {
  const std::pair<const char*, const char*> kCases[] = {
      {"BOOLEAN", "BOOLEAN"},
      {"TINYINT", "SMALLINT"},
      {"BIGINT NOT NULL", "BIGINT"},
      {"DECIMAL(10, 2)", "DECIMAL(10, 2)"},
      {"DECIMAL(5)", "DECIMAL(5, 0)"},
      {"FLOAT", "DOUBLE PRECISION"},
      {"CHAR", "CHAR(1)"},
      {"VARCHAR(20)", "VARCHAR(20)"},
      {"VARCHAR", "TEXT"},
      {"BINARY(4)", "BYTEA"},
      {"VARBINARY", "BYTEA"},
      {"TIME", "TIME(0)"},
      {"TIME(9)", "TIME(6)"},
      {"TIMESTAMP", "TIMESTAMP(0)"},
      {"TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP(3) WITH TIME ZONE"},
      {"VARCHAR(8) ARRAY", "VARCHAR(8)[]"},
      {"ARRAY<INTEGER NOT NULL>", "INTEGER[]"},
      {"TIMESTAMP WITH TIME ZONE", nullptr},
      {"INTEGER ARRAY ARRAY", nullptr},
      {"MAP<VARCHAR, INTEGER>", nullptr},
  };
  for (const auto& [calcite, printed] : kCases) {
    auto type = sql::ParseDataType(calcite);
    ASSERT_TRUE(type.ok()) << calcite;
    auto column = PostgresColumnType(*type);
    if (printed == nullptr) {
      EXPECT_FALSE(column.ok()) << calcite;
      EXPECT_FALSE(PostgresTypeOf(*type).ok()) << calcite;
      continue;
    }
    ASSERT_TRUE(column.ok()) << calcite << ": " << column.status().ToString();
    auto text = sql::PrintType(*column, {sql::Dialect::kPostgres});
    ASSERT_TRUE(text.ok()) << calcite << ": " << text.status().ToString();
    EXPECT_EQ(*text, printed) << calcite;
  }
}

// The query a scan sends, as EXPLAIN shows it: every column read through the expression that
// gives the engine's encoding, names quoted, constraints as parameters. Connects to nothing.
TEST(PostgresTest, ScanQueriesArePrintedByTheSqlWriter) {
  Schema schema;
  schema.name = "PG";
  schema.database = "pg";
  schema.url = "postgresql:///postgres?host=/nonexistent&user=postgres";
  schema.adapter = Adapter::kPostgres;
  ASSERT_TRUE(ConfigurePostgresSchema(schema).ok());
  Table table;
  table.name = "MY\"T";  // folds to my"t, as hop names PostgreSQL tables
  const std::pair<const char*, const char*> kColumns[] = {
      {"ID", "BIGINT"},
      {"NAME", "VARCHAR"},
      {"BIN", "VARBINARY"},
      {"AT", "TIMESTAMP(6) WITH LOCAL TIME ZONE"},
      {"NUMS", "DECIMAL(5, 2) ARRAY"},
      {"DAYS", "DATE ARRAY"},
      {"TS", "TIMESTAMP(3) ARRAY"},
      {"FLAG", "BOOLEAN"},
  };
  for (const auto& [name, type] : kColumns) {
    auto t = sql::ParseDataType(type);
    ASSERT_TRUE(t.ok()) << type;
    table.row_type.columns.push_back({name, *t});
  }
  auto source = PostgresSource(schema, table);
  ASSERT_NE(source, nullptr);
  ScanRequest all;
  all.columns.assign(std::size(kColumns), true);
  all.constraints = {{0, "2", ScanOp::kGe}, {7, "true", ScanOp::kEq}, {1, "x", ScanOp::kEq}};
  EXPECT_EQ(source->DescribeScan(all),
            "SELECT \"id\", \"name\", ENCODE(\"bin\", 'hex'), TIMEZONE('UTC', \"at\"), CASE WHEN "
            "\"nums\" IS NULL THEN NULL ELSE COALESCE((SELECT JSON_AGG(CAST(\"e\" * 100 AS "
            "BIGINT) ORDER BY \"n\") FROM UNNEST(\"nums\") WITH ORDINALITY AS \"u\" (\"e\", "
            "\"n\")), '[]') END, CASE WHEN \"days\" IS NULL THEN NULL ELSE COALESCE((SELECT "
            "JSON_AGG(\"e\" - DATE '1970-01-01' ORDER BY \"n\") FROM UNNEST(\"days\") WITH "
            "ORDINALITY AS \"u\" (\"e\", \"n\")), '[]') END, CASE WHEN \"ts\" IS NULL THEN NULL "
            "ELSE COALESCE((SELECT JSON_AGG(CAST(EXTRACT(EPOCH FROM \"e\") * 1000000 AS BIGINT) "
            "ORDER BY \"n\") FROM UNNEST(\"ts\") WITH ORDINALITY AS \"u\" (\"e\", \"n\")), '[]') "
            "END, \"flag\" FROM \"public\".\"my\"\"t\" WHERE \"id\" >= CAST($1 AS BIGINT) AND "
            "\"flag\" = $2 AND \"name\" = $3");
  ScanRequest none;
  none.columns.assign(std::size(kColumns), false);
  EXPECT_EQ(source->DescribeScan(none), "SELECT 1 FROM \"public\".\"my\"\"t\"");
}

// A live server: connections are reused across scans, discovery and provisioning.
class PostgresLiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Never a skip: a machine without PostgreSQL fails here (./scripts/setup installs it).
    ASSERT_TRUE(server_.Start().ok());
    ASSERT_TRUE(
        server_
            .Exec("CREATE TABLE t (id integer, name text); INSERT INTO t SELECT g, 'n' || g "
                  "FROM generate_series(1, 1000) g")
            .ok());
    schema_.name = "PG";
    schema_.database = "pg";
    schema_.url = "postgresql:///postgres?host=" + server_.socket_dir() + "&user=postgres";
    schema_.system = "postgresql";
    schema_.adapter = Adapter::kPostgres;
    ASSERT_TRUE(ConfigurePostgresSchema(schema_).ok());
  }

  hop::testing::PostgresServer server_;
  Schema schema_;
};

TEST_F(PostgresLiveTest, ConnectionsAreReusedAndEarlyStopsLeaveThemUsable) {
  auto table = schema_.discovery->Find("T");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_NE(*table, nullptr);
  const TableSource& source = *(*table)->source;
  const int before = PostgresOpenConnections();
  ScanRequest all;
  all.columns = {true, true};
  for (int i = 0; i < 50; ++i) {
    // Half the scans stop after one row (a LIMIT): the query is cancelled, the connection kept.
    auto cursor = source.Open(all);
    ASSERT_TRUE(cursor.ok()) << cursor.status().ToString();
    Row row;
    int rows = 0;
    for (;;) {
      auto more = (*cursor)->Next(row);
      ASSERT_TRUE(more.ok()) << more.status().ToString();
      if (!*more) break;
      ++rows;
      if (i % 2 == 1) break;
    }
    EXPECT_EQ(rows, i % 2 == 1 ? 1 : 1000);
  }
  EXPECT_LE(PostgresOpenConnections() - before, 1);
  // A constraint is a parameter: a value that would be SQL if spliced in is just a value.
  ScanRequest narrowed;
  narrowed.columns = {true, true};
  narrowed.constraints = {{1, "n7' OR '1'='1"}};
  auto cursor = source.Open(narrowed);
  ASSERT_TRUE(cursor.ok());
  Row row;
  auto more = (*cursor)->Next(row);
  ASSERT_TRUE(more.ok());
  EXPECT_FALSE(*more);
  narrowed.constraints = {{0, "7"}};
  cursor = source.Open(narrowed);
  ASSERT_TRUE(cursor.ok());
  more = (*cursor)->Next(row);
  ASSERT_TRUE(more.ok() && *more);
  EXPECT_EQ(row[1], std::optional<std::string>("n7"));
}

TEST_F(PostgresLiveTest, AConnectionTheServerDroppedIsReplaced) {
  auto table = schema_.discovery->Find("T");
  ASSERT_TRUE(table.ok() && *table) << table.status().ToString();
  ScanRequest one;
  one.columns = {true, false};
  one.constraints = {{0, "1"}};
  auto scan = [&]() -> Result<int> {
    HOP_ASSIGN_OR_RETURN(auto cursor, (*table)->source->Open(one));
    Row row;
    int rows = 0;
    for (;;) {
      HOP_ASSIGN_OR_RETURN(bool more, cursor->Next(row));
      if (!more) return rows;
      ++rows;
    }
  };
  ASSERT_EQ(*scan(), 1);
  // The server ends every connection hop holds (as a restart would): the next scan reconnects.
  ASSERT_TRUE(server_
                  .Exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                        "application_name = 'hop'")
                  .ok());
  auto again = scan();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, 1);
  PostgresProvisioner p;
  TableDefinition def;
  def.database = "pg";
  def.path = {"PG", "T"};
  ASSERT_TRUE(server_
                  .Exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                        "application_name = 'hop'")
                  .ok());
  EXPECT_TRUE(p.Exists(schema_, def).status().code() == StatusCode::kAlreadyExists);
}

TEST_F(PostgresLiveTest, ProvisionerCreatesChecksAndDrops) {
  PostgresProvisioner p;
  TableDefinition def;
  def.database = "pg";
  def.path = {"PG", "MADE"};
  auto type = sql::ParseDataType("BIGINT NOT NULL");
  def.row_type.columns.push_back({"ID", *type});
  auto exists = p.Exists(schema_, def);
  ASSERT_TRUE(exists.ok()) << exists.status().ToString();
  EXPECT_FALSE(*exists);
  ASSERT_TRUE(p.Create(schema_, def).ok());
  exists = p.Exists(schema_, def);
  ASSERT_TRUE(exists.ok());
  EXPECT_TRUE(*exists);
  auto again = p.Create(schema_, def);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.message().find("relation \"made\" already exists"), std::string::npos)
      << again.message();
  def.row_type.columns[0].type = *sql::ParseDataType("INTEGER");
  EXPECT_EQ(p.Exists(schema_, def).status().code(), StatusCode::kAlreadyExists);
  ASSERT_TRUE(p.Drop(schema_, def).ok());
  ASSERT_TRUE(p.Drop(schema_, def).ok());  // a table that is not there is nothing to do
  auto rows = server_.Exec("SELECT count(*) FROM pg_tables WHERE tablename = 'made'");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->rows[0][0], std::optional<std::string>("0"));
}

}  // namespace
}  // namespace hop::catalog
