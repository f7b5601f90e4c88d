// Bound statements: what the binder makes of every statement, DDL included, before anything
// runs. Names are resolved in the catalog (the schema a CREATE places its object in, the table or
// view a DROP, FIRE or trigger names), kinds are checked (DROP VIEW of a table is an error here),
// and whether an object a CREATE makes already exists is decided under the session's mode
// (compatibility.md §1.4). The deployers of src/deploy turn a bound statement into the writes
// that make it true; they check only what the catalog cannot know (objects that exist only in
// the store, such as triggers and databases).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binder/binder.h"
#include "binder/bound.h"
#include "catalog/catalog.h"
#include "common/status.h"
#include "sql/ast/node_allocator.h"
#include "sql/ast/statement.h"

namespace hop::binder {

// The base of every bound statement: the statement it binds (owned by the caller, which keeps
// it alive as long as the bound statement) and the kind tag code switches on.
struct BoundStatement {
  explicit BoundStatement(const sql::Statement& s) : statement(s) {}
  virtual ~BoundStatement() = default;
  BoundStatement(const BoundStatement&) = delete;
  BoundStatement& operator=(const BoundStatement&) = delete;

  sql::StatementKind kind() const { return statement.kind; }
  template <typename T>
  const T& As() const {
    return sql::CheckedCast<T>(*this);
  }

  const sql::Statement& statement;
  // The statement changes nothing: CREATE ... IF NOT EXISTS of an object that exists, DROP ...
  // IF EXISTS of one that does not.
  bool nothing_to_do = false;
};

using BoundStatementPtr = std::unique_ptr<BoundStatement>;

// CREATE [OR REPLACE] VIEW and CREATE [OR REPLACE] MATERIALIZED VIEW.
struct BoundCreateView : BoundStatement {
  using BoundStatement::BoundStatement;
  bool materialized = false;
  const catalog::Schema* schema = nullptr;   // where the view goes
  std::vector<std::string> path;             // [catalog,] schema, name
  std::string resource;                      // its View (and Pipeline): the canonical path
  const catalog::Table* existing = nullptr;  // the view of that name, if there is one
  bool replace = false;                      // OR REPLACE, or the apply mode
  RelPtr query;                              // the query with the column list applied
  const sql::Query* query_ast = nullptr;
  const std::vector<sql::Identifier>* columns = nullptr;
  // Materialized views.
  std::optional<std::string> schedule;  // REFRESHED, a valid cron expression
  // Plain views: WITH ('watermark' 'all' | 'any'), lower-cased; "" without it. The view's
  // watermark is then derived from `inputs`, the tables and views its query names itself.
  std::string watermark_policy;
  std::vector<const catalog::Table*> inputs;
};

// CREATE [OR REPLACE] TABLE.
struct BoundCreateTable : BoundStatement {
  using BoundStatement::BoundStatement;
  const catalog::Schema* schema = nullptr;
  std::vector<std::string> path;  // [catalog,] schema, name
  catalog::RowType row;           // declared, the LIKE table's, or the AS query's
  std::map<std::string, std::string> options;
  const catalog::Table* existing = nullptr;  // the table of that name, if there is one
  bool replace = false;
  // CREATE TABLE ... AS query: the query, in hop's SQL, that fills the table once.
  std::string fill_sql;
};

// CREATE [OR REPLACE] TRIGGER.
struct BoundCreateTrigger : BoundStatement {
  using BoundStatement::BoundStatement;
  std::string name;                               // the TableTrigger's: the canonical trigger name
  std::string sql_name;                           // as written, for messages
  const catalog::Schema* schema = nullptr;        // of the target
  const catalog::Table* target = nullptr;         // the table or view it listens to
  std::vector<std::string> path;                  // the target's full path
  std::string database;                           // the target table's Database; "" for a view
  std::optional<std::string> schedule;            // SCHEDULED, a valid cron expression
  std::string template_name;                      // the JobTemplate's canonical name
  std::optional<std::string> template_namespace;  // IN 'namespace'
  bool replace = false;
};

// CREATE [OR REPLACE] DATABASE.
struct BoundCreateDatabase : BoundStatement {
  using BoundStatement::BoundStatement;
  std::string name;      // the Database's: canonical
  std::string sql_name;  // as written
  // The options by lower-cased key: `url` (present), and any of the other fields of a
  // Database's spec (driver, schema, catalog, dialect, provisioning), each value within its
  // field's list where the field has one.
  std::map<std::string, std::string> options;
  bool replace = false;
};

// DROP TABLE / VIEW / MATERIALIZED VIEW / TRIGGER / DATABASE.
struct BoundDrop : BoundStatement {
  using BoundStatement::BoundStatement;
  sql::ObjectKind object = sql::ObjectKind::kTable;
  const catalog::Table* target = nullptr;  // tables and views; null when nothing_to_do
  std::string name;                        // triggers and databases: the canonical name
  std::string sql_name;                    // as written
  bool if_exists = false;
};

// FIRE, PAUSE, RESUME and REFRESH: statements that act on an object that exists.
struct BoundObjectStatement : BoundStatement {
  using BoundStatement::BoundStatement;
  sql::ObjectKind object = sql::ObjectKind::kTrigger;
  const catalog::Table* target = nullptr;  // tables, views, materialized views
  std::string name;                        // triggers: the canonical name
  std::string sql_name;                    // as written
};

// A query (SELECT ...).
struct BoundQueryStatement : BoundStatement {
  using BoundStatement::BoundStatement;
  RelPtr query;
};

// INSERT INTO ... SELECT / VALUES.
struct BoundInsertStatement : BoundStatement {
  using BoundStatement::BoundStatement;
  BoundInsert insert;
};

// SET, RESET, SHOW and CREATE FUNCTION: nothing in the catalog to resolve.
struct BoundOtherStatement : BoundStatement {
  using BoundStatement::BoundStatement;
};

struct BindOptions {
  // The session's mode is `apply`: a CREATE of an object that exists updates it, as CREATE OR
  // REPLACE does (compatibility.md §1.4).
  bool apply_mode = false;
};

// Binds any statement against `catalog` (the one switch over statement kinds; each kind's
// binding is in its own file: bind_create.cc, bind_drop.cc, bind_object.cc). Errors are the
// statement's own, with Hoptimator's messages: `Schema for X not found.`, `Cannot overwrite
// physical table T with a view.`, `View V already exists. Use CREATE OR REPLACE to update.`,
// `Element T is a view and does not correspond to DROP TABLE`, and the query's binding errors.
// The bound statement refers to `statement` and to objects of `catalog`: both must outlive it.
Result<BoundStatementPtr> BindStatement(const catalog::Catalog& catalog,
                                        const sql::Statement& statement,
                                        const BindOptions& options = {});

// `Element AUDIENCE is a materialized view and does not correspond to DROP VIEW` unless `table`
// is of the kind `expected` for `statement` ("DROP", "FIRE", ...).
Status CheckKind(const catalog::Table& table, sql::ObjectKind expected, std::string_view statement);

}  // namespace hop::binder
