// The PostgreSQL adapter (docs/postgres.md): a Database whose URL is `jdbc:postgresql://...` or a
// libpq URI (`postgresql://...`). Its tables are found in the server when a statement touches
// them (loading the catalog connects to nothing), read by the local engine through a TableSource
// that pushes projections and equality filters down as bound parameters, and created and dropped
// inside CREATE TABLE and DROP TABLE by the PostgresProvisioner. Connections are kept in one
// process-wide pool, by server and credentials.
//
// Names: hop folds unquoted names to upper case and PostgreSQL to lower case, so a PostgreSQL
// name in lower case reads as its upper case in hop (`widgets` is `WIDGETS`) and any other is
// kept as spelled (`"MixedCase"`); a name hop creates is lowered when it has no lower-case letter.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/provisioner.h"
#include "catalog/source.h"
#include "common/status.h"
#include "sql/ast/data_type.h"
#include "sql/ast/query.h"

namespace hop::catalog {

// Whether `url` is a libpq URI (`postgresql://` or `postgres://`).
bool IsPostgresUri(std::string_view url);

// What a PostgreSQL database URL says, before any secret is read.
struct PostgresConfig {
  // libpq connection keywords and values (host, port, dbname, user, password, sslmode, ...),
  // in URL order; the password only when the URL spells it.
  std::vector<std::pair<std::string, std::string>> params;
  std::string schema = "public";  // currentSchema
  std::string password_env;       // password=${env:NAME}: NAME
  std::string password_file;      // passwordFile=PATH
};

// Parses `jdbc:postgresql://[user[:password]@]host[:port][,host[:port]...][/db][?k=v&...]` or a
// libpq URI of the same shape. JDBC parameters: user, password, currentSchema, ssl, sslmode,
// sslcert, sslkey, sslrootcert, connectTimeout, ApplicationName, options, passwordFile; others
// are ignored. A libpq URI's parameters are libpq keywords, plus currentSchema and passwordFile.
// Errors (InvalidArgument) say what is wrong, never showing the password.
Result<PostgresConfig> ParsePostgresUrl(std::string_view url);

// The connection keywords with the password read from where the config says (the environment
// or the file, which must not be readable by group or others). Errors name the variable or file.
Result<std::vector<std::pair<std::string, std::string>>> ResolveCredentials(
    const PostgresConfig& config);

// Names across the two foldings (see the file comment).
std::string PostgresName(std::string_view hop_name);
std::string HopName(std::string_view postgres_name);

// A PostgreSQL column type as the catalog reads it: its type OID and modifier, and, for arrays,
// the element's OID; `spelled` is format_type()'s text, for messages.
struct PostgresType {
  uint32_t oid = 0;
  int32_t typmod = -1;
  uint32_t element_oid = 0;  // arrays
  std::string spelled;
};
// The Calcite type of a PostgreSQL column type. Errors (InvalidArgument) name the type hop
// does not map.
Result<sql::DataType> CalciteType(const PostgresType& type);
// The PostgreSQL type, spelled as format_type() spells it (`integer`, `numeric(10,2)`,
// `character varying(20)[]`), of a column hop creates. Errors name the type hop cannot create.
Result<std::string> PostgresTypeOf(const sql::DataType& type);
// The type, in the SQL writer's terms, of the PostgreSQL column hop creates for a Calcite type:
// what the PostgreSQL dialect prints has exactly PostgresTypeOf's meaning (TINYINT is SMALLINT,
// FLOAT DOUBLE PRECISION, any binary BYTEA, an unbounded VARCHAR TEXT, TIME and TIMESTAMP with
// their precision written, WITH LOCAL TIME ZONE PostgreSQL's WITH TIME ZONE). Errors as
// PostgresTypeOf's.
Result<sql::DataType> PostgresColumnType(const sql::DataType& type);

// Sets up a schema of a PostgreSQL Database (adapter kPostgres, URL and names set): its
// PostgreSQL schema and its discovery. Connects to nothing. Errors: the URL's.
Status ConfigurePostgresSchema(Schema& schema);
// The discovery of the tables of a PostgreSQL schema (remote_schema set).
std::shared_ptr<const TableDiscovery> PostgresTables(const Schema& schema);
// The discovery of every schema of the database of `base` (a Database with spec.catalog).
std::shared_ptr<const SchemaDiscovery> PostgresSchemas(const Schema& base);
// How the local engine reads `table`, a table hop declared (a Table resource) in a PostgreSQL
// schema: the PostgreSQL table and columns of its names.
std::shared_ptr<const TableSource> PostgresSource(const Schema& schema, const Table& table);

// Creates and drops the tables of PostgreSQL databases in the statement that declares them
// (provisioner.h), with PostgreSQL's names and types. Thread-safe; uses the connection pool.
// The comment hop gives the PostgreSQL tables it creates: what tells them from tables it found
// there, which DROP TABLE leaves alone.
inline constexpr std::string_view kMadeByHopComment =
    "made by hop: DROP TABLE in hop drops it (tables hop found here are left alone)";

class PostgresProvisioner : public Provisioner {
 public:
  // True when the table exists with the definition's columns; an error (AlreadyExists) when it
  // has other columns; the server's error when it cannot be asked.
  Result<bool> Exists(const Schema& schema, const TableDefinition& table) override;
  // CREATE TABLE in the schema, marked as hop's by its comment (kMadeByHopComment) in the same
  // transaction; fails with the server's message, having created nothing.
  Status Create(const Schema& schema, const TableDefinition& table) override;
  // DROP TABLE IF EXISTS.
  Status Drop(const Schema& schema, const TableDefinition& table) override;
  // Whether the table's comment is hop's mark (a table made by a hop older than the mark, or
  // whose comment was changed since, counts as not hop's: it is kept rather than dropped).
  Result<bool> MadeByHop(const Schema& schema, const TableDefinition& table) override;
  // Both in a transaction that locks the table, so that each runs whole before or after the
  // other: the undo holds ACCESS EXCLUSIVE from before it asks `in_use` until its drop commits,
  // and EnsureExists waits for it with ACCESS SHARE (which refreshes, holding SHARE ROW
  // EXCLUSIVE, do not hold up), then finds the table, or finds it gone and creates it.
  Status DropUnlessInUse(const Schema& schema, const TableDefinition& table,
                         const std::function<Result<bool>()>& in_use) override;
  Result<bool> EnsureExists(const Schema& schema, const TableDefinition& table) override;
  // The URL parses and every column's type has a PostgreSQL form (PostgresColumnType).
  Status Check(const Schema& schema, const TableDefinition& table) override;
};

// Rows written into a PostgreSQL table in one transaction of its server (a materialized view's
// refresh, runtime/refresh.h). A table with a primary key is upserted by it (rows whose key is
// new are inserted, the others updated, rows the write does not name kept); any other has its
// rows replaced. The table is locked against other writers (SHARE ROW EXCLUSIVE: readers go on,
// seeing the old rows) from Begin until Commit; nothing is visible before Commit, and a writer
// destroyed first, or a process killed, leaves the table as it was.
class PostgresTableWriter {
 public:
  // Opens the transaction on a pooled connection. `table` is hop's name of a table of `schema`;
  // `columns` are the columns rows will give, in order, with hop's names and types. Errors: the
  // server cannot be reached, has no such table, or refuses the lock.
  static Result<std::unique_ptr<PostgresTableWriter>> Begin(const Schema& schema,
                                                            std::string_view table,
                                                            const RowType& columns);
  ~PostgresTableWriter();
  PostgresTableWriter(const PostgresTableWriter&) = delete;
  PostgresTableWriter& operator=(const PostgresTableWriter&) = delete;

  // The primary key's columns, with PostgreSQL's names; empty when the table has none.
  const std::vector<std::string>& key() const;
  // `schema.table` as PostgreSQL names it, for messages.
  std::string Name() const;

  // Starts `COPY ... FROM STDIN`; then Write sends rows in COPY's text format (whole lines).
  Status StartCopy();
  Status Write(std::string_view rows);
  // Or the rows of a query PostgreSQL runs itself (`INSERT ... SELECT`): `query` reads tables of
  // the same database, with PostgreSQL's names, and gives the columns in order. When the server
  // refuses it, the transaction is as before the call (a savepoint), for StartCopy.
  Status InsertQuery(std::unique_ptr<sql::Query> query);
  // Whether `table` (the one written, or one read by a query for InsertQuery, in the same
  // database) still has in PostgreSQL, as the transaction sees it, every column hop declares for
  // it, with the type hop gives it (as hop would create it). A column dropped or retyped in
  // PostgreSQL behind hop's back is an ExecutionError naming it: the rows would otherwise be
  // converted to the new type without a word (10.5 rounded into an integer column).
  Status CheckColumns(const Table& table);
  // Makes the rows the table's. The number of rows written.
  Result<int64_t> Commit();

 private:
  struct State;
  explicit PostgresTableWriter(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// The PostgreSQL schema and name of a table the engine reads from PostgreSQL (its source is the
// adapter's), or nullopt for any other table.
std::optional<std::vector<std::string>> PostgresTablePath(const Table& table);
// Whether the engine reads `table` from the PostgreSQL database of `schema` (same server,
// database and credentials), so that a query there can read it.
bool PostgresTableIn(const Table& table, const Schema& schema);

// Connections the process holds open to PostgreSQL servers, idle or in use, and the connections
// it has tried to open, successful or not (for tests of reuse and of what connects).
int PostgresOpenConnections();
int PostgresConnectionAttempts();

}  // namespace hop::catalog
