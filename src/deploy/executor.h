// The DDL executor: a statement becomes the set of resources that make it true, written to the
// store in one atomic batch, so that a statement either happens whole or not at all
// (compatibility.md §5). The same path without the write is `!specify`.
//
// Executed here: CREATE [OR REPLACE] VIEW, CREATE [OR REPLACE] MATERIALIZED VIEW (a View, the
// Pipeline it owns, and the elements the Pipeline owns), CREATE [OR REPLACE] TABLE (a Table and
// the resources its templates render for it), CREATE DATABASE, CREATE [OR REPLACE] TRIGGER (a
// TableTrigger), DROP of each (only when nothing depends on the object), and the statements that
// act on existing objects: FIRE TRIGGER / TABLE / VIEW / MATERIALIZED VIEW, PAUSE and RESUME
// TRIGGER / MATERIALIZED VIEW, REFRESH MATERIALIZED VIEW. Modes follow compatibility.md §1.4:
// CREATE makes objects and fails on existing ones unless IF NOT EXISTS; CREATE OR REPLACE, or any
// CREATE in apply mode, updates them.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/provisioner.h"
#include "common/issues.h"
#include "common/status.h"
#include "common/time.h"
#include "deploy/render.h"
#include "deploy/validate.h"
#include "resource/resource.h"
#include "sql/ast/create_table_statement.h"
#include "sql/ast/statement.h"
#include "store/store.h"
#include "template/value.h"

namespace hop::deploy {

struct ExecuteOptions {
  std::string namespace_name = "default";
  tmpl::Entries hints;
  bool apply_mode = false;              // the connection's mode is `apply`
  const Clock* clock = &SystemClock();  // the time FIRE and REFRESH stamp
  // Systems whose tables are created inside the statement; null: none.
  const catalog::Provisioners* provisioners = nullptr;
  // The namespace's catalog and render context as of now (a session keeps them current); null:
  // read from the store.
  const catalog::Catalog* catalog = nullptr;
  const RenderContext* render = nullptr;
};

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

  // `CREATE MATERIALIZED VIEW ADS.AUDIENCE: view/ads-audience, pipeline/ads-audience created`;
  // `...: nothing to do` when the statement changed nothing (IF NOT EXISTS). Effects follow,
  // after `; `.
  std::string Summary() const;
};

class Executor {
 public:
  Executor(store::Store& store, ExecuteOptions options);

  // Whether this kind of statement is executed here.
  static bool Executes(const sql::Statement& statement);

  // Executes the statement: the tables it needs are created by their provisioners (DROP TABLE
  // drops them), then its writes go to the store in one atomic batch. If anything fails, the
  // store is unchanged and the tables this statement created are dropped again.
  Result<Outcome> Execute(const sql::Statement& statement);

  // Deletes the object `ref` names as the DROP of its kind does (a Database, a Table or a View:
  // after the same dependency guard, with the same effects outside the store, such as a
  // provisioned table dropped); any other object is deleted as it is. With `force` the guard
  // is skipped and whatever depends on the object is left as it is. Not Found when there is no
  // such object. This is `hop delete`.
  Result<Outcome> Delete(const store::ObjectRef& ref, bool force);

  // The objects executing the statement would write (deleted ones are not listed), in order;
  // nothing is written. `warnings`, when not null, gets what Outcome::warnings would hold
  // (validators' warnings, skipped templates), empty when nothing.
  Result<std::vector<resource::Resource>> Specify(const sql::Statement& statement,
                                                  std::string* warnings = nullptr);

 private:
  struct Change;
  // The namespace's catalog: the one given in the options, or one read from the store.
  Result<const catalog::Catalog*> NamespaceCatalog();
  Result<Outcome> ExecuteOnce(const sql::Statement& statement);
  // Runs the effects of the planned changes and commits them in one batch; what it did.
  Result<Outcome> Apply(std::string label, std::vector<Change> changes);
  Status DeleteChanges(const store::ObjectRef& ref, std::vector<Change>& changes);
  // Changes() and the validation of everything it would write.
  Result<std::vector<Change>> Plan(const sql::Statement& statement);
  // Runs the validators on `subject` (validate.h); the tree of errors when there are any.
  Status Check(Subject subject);
  Status CheckObject(const resource::Resource& object);
  // A change to a system outside the store, made by a provisioner.
  struct Effect {
    bool create = true;  // else drop
    catalog::Provisioner* provisioner = nullptr;
    catalog::Schema schema;  // without its tables
    catalog::TableDefinition table;
  };
  // The render context of the namespace, knowing which databases are provisioned synchronously.
  Result<RenderContext> LoadRender(const catalog::Catalog& cat);
  // When the table's system has a provisioner, adds the Effect that creates (or drops) it.
  // Tables of other systems are provisioned by the TableProvisionJobs rendered for them.
  void AddEffect(bool create, const catalog::Schema& schema, const catalog::TableDefinition& table);
  // Runs the effects, recording what each did in `done`; on failure undoes those it made and
  // returns why.
  Status RunEffects(std::vector<std::string>& done);
  void UndoEffects();
  Result<std::vector<Change>> Changes(const sql::Statement& statement);
  // Adds a create of `desired`, or an update of the object stored under its name (whose labels
  // and annotations the desired ones override when `desired_wins`, else complete). With
  // `must_create`, always a create: the statement found no such object, and a batch that finds
  // one after all must fail (and be planned again) rather than overwrite what another wrote.
  Status Put(std::vector<Change>& changes, const resource::Resource& desired, bool desired_wins,
             bool must_create = false);
  Status CreateTable(const sql::CreateTableStatement& statement, std::vector<Change>& changes);
  // Warns when a materialized view's pipeline renders no job (`specs` has none); `skipped` says
  // whether the warnings of skipped templates explain it. A warning, not an error: a pipeline
  // whose elements are only triggers or topics is one Hoptimator writes too (docs/ddl.md).
  void WarnWithoutJob(const planner::Pipeline& pipeline, const std::vector<Spec>& specs,
                      const std::vector<SkippedTemplate>& skipped);
  Status DropTable(const catalog::Table& table, std::vector<Change>& changes);
  // DROP DATABASE: the Database, once no table or view is left in it.
  Status DropDatabase(const sql::Statement& statement, std::vector<Change>& changes);
  Status DropDatabase(const store::ObjectRef& ref, std::vector<Change>& changes);
  // DROP VIEW / MATERIALIZED VIEW: the View, unless a trigger or another pipeline uses it.
  Status DropView(const catalog::Table& view, std::vector<Change>& changes);
  // The table or view `name` names, which must be of the `expected` kind for `statement`
  // ("DROP", "FIRE", ...): `Element X is a view and does not correspond to FIRE TABLE`.
  Result<const catalog::Table*> Element(const catalog::Catalog& cat, const sql::QualifiedName& name,
                                        sql::ObjectKind expected, std::string_view statement);
  // Triggers and the statements that fire, pause and refresh (triggers.cc).
  Status CreateTrigger(const sql::Statement& statement, std::vector<Change>& changes);
  Status DropTrigger(const sql::Statement& statement, std::vector<Change>& changes);
  Status Pause(const sql::Statement& statement, std::vector<Change>& changes);
  Status Fire(const sql::Statement& statement, std::vector<Change>& changes);
  Status Refresh(const sql::Statement& statement, std::vector<Change>& changes);
  // A time to stamp that is now, and later than each of `after` (RFC 3339 texts, or empty), so
  // that a new fire is never taken for one already handled.
  std::string StampAfter(std::initializer_list<std::string_view> after) const;
  // Records a fire now (later than each of `after`) in a trigger's status.
  void RecordFire(resource::Resource& trigger, std::initializer_list<std::string_view> after);

  store::Store& store_;
  ExecuteOptions options_;
  std::optional<catalog::Catalog> loaded_catalog_;
  const sql::Statement* statement_ = nullptr;  // being executed
  Issues issues_;                              // what its validators found
  std::vector<Effect> effects_;                // of the statement being executed
  std::vector<const Effect*> made_;            // the effects RunEffects made
  bool force_ = false;                         // Delete(force): the dependency guards do not run
  bool lost_race_ = false;  // the last commit failed because another writer got there first
};

}  // namespace hop::deploy
