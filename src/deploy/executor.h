// The DDL executor: a statement becomes the set of resources that make it true, written to the
// store in one atomic batch, so that a statement either happens whole or not at all
// (compatibility.md §5). Its loop is short: bind the statement (src/binder), let the deployer of
// its kind specify the batch (deployer.h), validate what the batch would write, run the effects
// outside the store (tables a provisioner creates), commit, and undo the effects if the commit
// fails (make sure of the tables if it succeeds). The same path without the commit is
// `!specify`.
//
// Executed here: CREATE [OR REPLACE] VIEW, MATERIALIZED VIEW, TABLE, DATABASE and TRIGGER, DROP of
// each (only when nothing depends on the object), and the statements that act on existing
// objects: FIRE TRIGGER / TABLE / VIEW / MATERIALIZED VIEW, PAUSE and RESUME TRIGGER /
// MATERIALIZED VIEW, REFRESH MATERIALIZED VIEW. Modes follow compatibility.md §1.4: CREATE makes
// objects and fails on existing ones unless IF NOT EXISTS; CREATE OR REPLACE, or any CREATE in
// apply mode, updates them.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "common/status.h"
#include "deploy/batch.h"
#include "resource/resource.h"
#include "sql/ast/statement.h"
#include "store/store.h"

namespace hop::deploy {

// What a statement changed, object by object.
struct Outcome {
  std::string statement;  // e.g. "CREATE MATERIALIZED VIEW ADS.AUDIENCE"
  std::vector<resource::Resource> objects;
  // Per object: created, configured, unchanged, deleted, or what a statement on an existing
  // object did (fired, paused, resumed, refresh recorded).
  std::vector<std::string> verbs;
  // What it did outside the store: `table ICEBERG.WAREHOUSE.CLICKS created in iceberg`.
  std::vector<std::string> effects;
  // What validators warned about, as their tree (empty when nothing).
  std::string warnings;
  // With ExecuteOptions::report_when_written: Store::WaitDurable's mark for the batch (0: none
  // to wait for).
  int64_t durable_mark = 0;

  // `CREATE MATERIALIZED VIEW ADS.AUDIENCE: view/ads-audience, pipeline/ads-audience created`;
  // `...: nothing to do` when the statement changed nothing (IF NOT EXISTS). Effects follow,
  // after `; `.
  std::string Summary() const;
};

class Executor {
 public:
  Executor(store::Store& store, ExecuteOptions options);

  // Whether this kind of statement is executed here (it has a deployer).
  static bool Executes(const sql::Statement& statement);

  // Executes the statement: the tables it needs are created by their provisioners (DROP TABLE
  // drops them), then its writes go to the store in one atomic batch, and then each table it
  // needs is made sure of (created again if another statement's undo dropped it meanwhile). If
  // anything fails before the commit is done, the store is unchanged and the tables this
  // statement created are dropped again, unless objects in the store rely on them (docs/ddl.md,
  // "Racing statements"). A batch that lost a race with another writer is planned again from the
  // store, up to 50 times.
  Result<Outcome> Execute(const sql::Statement& statement);

  // The objects executing the statement would write (deleted ones are not listed), in order, as a
  // user would write them; nothing is written. What the validators warned about goes to
  // `*warnings` when it is not null (empty when nothing). `*elements`, when not null, says of
  // each whether a template rendered it (Change::element).
  Result<std::vector<resource::Resource>> Specify(const sql::Statement& statement,
                                                  std::string* warnings = nullptr,
                                                  std::vector<bool>* elements = nullptr);

  // Deletes the object `ref` names as the DROP of its kind does (deployer.h SpecifyDeletion),
  // with `force` skipping the dependency guard. This is `hop delete`.
  Result<Outcome> Delete(const store::ObjectRef& ref, bool force);
  // The same for the delete `deletion` (store::Write::Delete) asks for, whose preconditions (a
  // uid, a resourceVersion) the object must meet as the store deletes it: an object deleted and
  // made again under its name meanwhile is not deleted (Conflict).
  Result<Outcome> Delete(const store::Write& deletion, bool force);
  // What Delete(ref, false) would refuse, with nothing written and nothing dropped: NotFound,
  // or the dependency guard's Validation error. A dry-run delete.
  Status CheckDelete(const store::ObjectRef& ref);

 private:
  // The namespace's catalog: the one given in the options, or one read from the store.
  Result<const catalog::Catalog*> NamespaceCatalog();
  // Binds the statement and lets its deployer fill `batch`, validated.
  Status Plan(const sql::Statement& statement, Batch& batch);
  // Runs the batch's effects and commits its writes; what it did. `label` names it.
  Result<Outcome> Apply(std::string label, Batch& batch);
  // Attempts `once` until it did not lose a race with another writer (up to 50 times, a short
  // random pause between), reading the catalog anew after each loss.
  Result<Outcome> Retrying(const std::function<Result<Outcome>()>& once);

  store::Store& store_;
  ExecuteOptions options_;
  std::optional<catalog::Catalog> loaded_catalog_;
  bool lost_race_ = false;  // the last commit failed because another writer got there first
};

}  // namespace hop::deploy
