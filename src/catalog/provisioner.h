// Provisioners: what makes a table exist in the system that backs it (compatibility.md
// §12). A system whose adapter can create a table quickly and
// synchronously (PostgreSQL) registers a Provisioner, and CREATE TABLE and CREATE MATERIALIZED
// VIEW use it inside the statement, failing the statement with the system's own error, unless
// the Database asks for `provisioning: async`: its tables then get a TableProvisionJob that the
// operator hands to the same Provisioner. Systems without one get the TableProvisionJobs their
// JobTemplates render, which a reconciler (or an external controller) acts on.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "common/status.h"

namespace hop::catalog {

// A table as a provisioner sees it.
struct TableDefinition {
  std::string database;           // the Database resource's name
  std::vector<std::string> path;  // [catalog,] schema, table
  RowType row_type;
  std::map<std::string, std::string> options;  // WITH options
};

class Provisioner {
 public:
  virtual ~Provisioner() = default;

  // Whether the table exists in the system now.
  virtual Result<bool> Exists(const Schema& schema, const TableDefinition& table) = 0;
  // Creates the table; fails with the system's error, having created nothing.
  virtual Status Create(const Schema& schema, const TableDefinition& table) = 0;
  // Drops the table: DROP TABLE. A table that is not there is nothing to do.
  virtual Status Drop(const Schema& schema, const TableDefinition& table) = 0;
  // Whether hop made the table (an existing table: Exists was true). DROP TABLE drops only
  // those; one hop found there when its CREATE TABLE ran (and took as its own) stays, with its
  // rows (docs/postgres.md). By default every table is hop's: a system whose tables only hop
  // makes (local databases).
  virtual Result<bool> MadeByHop(const Schema& schema, const TableDefinition& table) {
    (void)schema;
    (void)table;
    return true;
  }

  // Undoing a Create whose statement failed later, and making sure of the table once a
  // statement that needs it committed. Statements that race to create one table (docs/ddl.md,
  // "Racing statements") make these two necessary: one creates the table and then fails to
  // commit, while another found the table there and committed; the first's undo must not drop
  // the table from under the second.
  //
  // DropUnlessInUse drops the table unless `in_use()`, asked once no EnsureExists of the table
  // can run, says that objects in the store rely on it (true: the table is kept; an error keeps
  // it too and is returned). EnsureExists returns whether it created the table: false when it
  // was there. A provisioner whose system can serialise the two (PostgreSQL: a lock on the
  // table) makes each run whole before or after the other, so that a statement that committed
  // and then ran EnsureExists keeps its table. The defaults do what they say without that.
  virtual Status DropUnlessInUse(const Schema& schema, const TableDefinition& table,
                                 const std::function<Result<bool>()>& in_use) {
    HOP_ASSIGN_OR_RETURN(bool used, in_use());
    return used ? Status::OK() : Drop(schema, table);
  }
  virtual Result<bool> EnsureExists(const Schema& schema, const TableDefinition& table) {
    HOP_ASSIGN_OR_RETURN(bool exists, Exists(schema, table));
    if (exists) return false;
    HOP_RETURN_IF_ERROR(Create(schema, table));
    return true;
  }
  // Whether Create could make the table, asking nothing of the system: OK, or the error Create
  // would fail with before connecting (a type the system has no form for). A statement that
  // leaves the creation to a TableProvisionJob fails with it at once. By default, OK.
  virtual Status Check(const Schema& schema, const TableDefinition& table) {
    (void)schema;
    (void)table;
    return Status::OK();
  }
};

// The provisioners of a process, by the system of a database URL (`postgresql` for
// `jdbc:postgresql://...`). Not owning; not synchronised (filled at start-up, then read).
class Provisioners {
 public:
  void Register(std::string system, Provisioner* provisioner) {
    by_system_[std::move(system)] = provisioner;
  }
  // The provisioner of the schema's system, or null.
  Provisioner* For(const Schema& schema) const {
    auto it = by_system_.find(schema.system);
    return it == by_system_.end() ? nullptr : it->second;
  }

 private:
  std::map<std::string, Provisioner*, std::less<>> by_system_;
};

}  // namespace hop::catalog
