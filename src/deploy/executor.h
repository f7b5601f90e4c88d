// The DDL executor: a statement becomes the set of resources that make it true, written to the
// store in one atomic batch, so that a statement either happens whole or not at all (reference
// §5). The same path without the write is `!specify`.
//
// Executed here: CREATE [OR REPLACE] VIEW, CREATE [OR REPLACE] MATERIALIZED VIEW (a View, the
// Pipeline it owns, and the elements the Pipeline owns), CREATE [OR REPLACE] TABLE (a Table and
// the resources its templates render for it), CREATE DATABASE, and DROP TABLE / VIEW /
// MATERIALIZED VIEW (DROP TABLE only when no pipeline or trigger depends on the table). Modes
// follow reference §1.4: CREATE makes objects and fails on existing ones unless IF NOT EXISTS;
// CREATE OR REPLACE, or any CREATE in apply mode, updates them.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "common/status.h"
#include "resource/resource.h"
#include "sql/ast/create_table_statement.h"
#include "sql/ast/statement.h"
#include "store/store.h"
#include "template/value.h"

namespace hop::deploy {

struct ExecuteOptions {
  std::string namespace_name = "default";
  tmpl::Entries hints;
  bool apply_mode = false;  // the connection's mode is `apply`
};

// What a statement changed, object by object.
struct Outcome {
  std::string statement;  // e.g. "CREATE MATERIALIZED VIEW ADS.AUDIENCE"
  std::vector<resource::Resource> objects;
  std::vector<std::string> verbs;  // per object: created, configured, unchanged, deleted

  // `CREATE MATERIALIZED VIEW ADS.AUDIENCE: view/ads-audience, pipeline/ads-audience created`;
  // `...: nothing to do` when the statement changed nothing (IF NOT EXISTS).
  std::string Summary() const;
};

class Executor {
 public:
  Executor(store::Store& store, ExecuteOptions options);

  // Whether this kind of statement is executed here.
  static bool Executes(const sql::Statement& statement);

  // Executes the statement: one atomic batch of writes.
  Result<Outcome> Execute(const sql::Statement& statement);

  // The objects executing the statement would write (deleted ones are not listed), in order;
  // nothing is written.
  Result<std::vector<resource::Resource>> Specify(const sql::Statement& statement);

 private:
  struct Change;
  Result<std::vector<Change>> Changes(const sql::Statement& statement);
  // Adds a create of `desired`, or an update of the object stored under its name (whose labels
  // and annotations the desired ones override when `desired_wins`, else complete).
  Status Put(std::vector<Change>& changes, const resource::Resource& desired, bool desired_wins);
  Status CreateTable(const sql::CreateTableStatement& statement, std::vector<Change>& changes);
  Status DropTable(const catalog::Table& table, std::vector<Change>& changes);

  store::Store& store_;
  ExecuteOptions options_;
};

}  // namespace hop::deploy
