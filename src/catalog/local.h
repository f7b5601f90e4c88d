// Local tables: the `local` database type (`url: "jdbc:local:"`, or `jdbc:local:NAME` for a file
// of its own), the embedded default place for data. A local database's tables are declared with
// CREATE TABLE (Table resources, which keep their Calcite types) and kept in one SQLite file of
// the state directory, `local/NAME.db` (`default` when the URL names none), which the local
// engine reads and writes natively. Two Databases with one URL share their tables, as two
// Database resources pointing at one PostgreSQL database would.
//
// Values are stored in the local engine's encoding (engine/value.h; docs/engine.md): each column
// is declared with the SQLite storage class of its type (INTEGER, REAL, TEXT or BLOB), NOT NULL
// when the type is.
#pragma once

#include <string>
#include <string_view>

#include "catalog/provisioner.h"
#include "common/status.h"
#include "sql/ast/data_type.h"

namespace hop::catalog {

// The file name a local URL names: `default` for `jdbc:local:`, NAME for `jdbc:local:NAME`.
// NAME is 1 to 63 of [a-z0-9_-], starting with a letter or digit: never a path. Errors
// (InvalidArgument) say what is wrong with it.
Result<std::string> LocalFileName(std::string_view url);

// `<state_dir>/local/<name>.db`.
std::string LocalFilePath(std::string_view state_dir, std::string_view name);

// OK when a local database's tables can be reached: `state_dir` is not empty. A session on a
// Kubernetes cluster has no state directory (docs/kubernetes.md): InvalidArgument naming the
// database.
Status CheckLocalStateDir(std::string_view state_dir, std::string_view database);
// `local/<name>.db`: the file as messages name it, within the state directory.
std::string LocalFileDisplay(std::string_view name);

// The SQLite storage class a column of type `t` is declared with: INTEGER for booleans, exact
// numbers, dates, times and timestamps, REAL for approximate numbers, TEXT for strings and
// collections, BLOB for binary strings. Errors for what a local table cannot hold (INTERVAL
// columns; DECIMAL beyond 18 digits).
Result<sql::TypeName> LocalStorageType(const sql::DataType& t);

// Creates and drops local tables, in the statement that declares them (provisioner.h).
class LocalProvisioner : public Provisioner {
 public:
  explicit LocalProvisioner(std::string state_dir) : state_dir_(std::move(state_dir)) {}

  // True when the file has the table with the definition's columns; an error when it has a
  // table of that name with other columns (which CREATE TABLE must not take for its own).
  Result<bool> Exists(const Schema& schema, const TableDefinition& table) override;
  // Creates the file (mode 0600, in a 0700 directory) if needed, and the table.
  Status Create(const Schema& schema, const TableDefinition& table) override;
  // Drops the table and its rows; a table that is not there is nothing to do.
  Status Drop(const Schema& schema, const TableDefinition& table) override;

 private:
  std::string state_dir_;
};

}  // namespace hop::catalog
