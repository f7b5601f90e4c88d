// A Batch is what a deployer builds for one statement (ARCHITECTURE.md §4.10): the writes that
// make the statement true, committed together by the executor, the changes it needs outside the
// store (tables a provisioner creates or drops), and the validators' findings. It also gives the
// deployer what it reads: the store, the session's options, the namespace's catalog and the
// templates. Building one writes nothing.
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
  // Return once the statement's batch is written, not yet durable: Outcome::durable_mark is then
  // what the caller waits on before it reports the statement (a script's next statement is
  // planned meanwhile; docs/store.md, "Writing and syncing").
  bool report_when_written = false;
};

// One write of a statement, and how the statement's summary names it.
struct Change {
  Change(store::Write w, std::string prior = {}, std::string v = {}, bool q = false)
      : write(std::move(w)), prior_version(std::move(prior)), verb(std::move(v)), quiet(q) {}

  store::Write write;
  std::string prior_version;  // updates: the resourceVersion before, to tell "unchanged"
  std::string verb;           // what to call it instead of created/configured/deleted
  bool quiet = false;         // a second write of an object already listed
  // An object a template rendered (a pipeline's job, a table's topic), which Hoptimator's
  // `!specify` prints; hop's own objects around it (View, Pipeline, Table, ...) are not.
  bool element = false;
};

// A change to a system outside the store, made by a provisioner.
struct Effect {
  bool create = true;  // else drop
  // A create of a table that must hold nothing from before: the sink of a new materialized
  // view. One found there that hop made and that nothing in the store relies on (a view's
  // table a statement killed before its commit left behind, or one a view dropped by an older
  // hop kept) is dropped and made again, empty (docs/ddl.md, "Provisioning").
  bool fresh = false;
  catalog::Provisioner* provisioner = nullptr;
  catalog::Schema schema;  // without its tables
  catalog::TableDefinition table;
};

class Batch {
 public:
  // For `statement` (null for a deletion that no statement asked for: `hop delete`), in the
  // namespace and with the options of `options`, over `catalog`.
  Batch(store::Store& store, const ExecuteOptions& options, const catalog::Catalog& catalog,
        const sql::Statement* statement);

  store::Store& store() const { return store_; }
  const ExecuteOptions& options() const { return options_; }
  const std::string& namespace_name() const { return options_.namespace_name; }
  const catalog::Catalog& catalog() const { return catalog_; }
  // The namespace's templates and configuration, knowing which databases are provisioned
  // synchronously.
  Result<RenderContext> Render() const;

  // Adds a create of `desired`, or an update of the object stored under its name (whose labels
  // and annotations the desired ones override when `desired_wins`, else complete; its status
  // kept). With `must_create`, always a create: the statement found no such object, and a batch
  // that finds one after all must fail (and be planned again) rather than overwrite what another
  // writer made.
  Status Put(const resource::Resource& desired, bool desired_wins, bool must_create = false);
  // The rendered elements of `owner` (a Pipeline, a Table), owned by it when they share its
  // namespace. One that exists keeps its metadata and gains `owner` as one more owner, so that
  // a table shared by partial views outlives any one of them.
  Status PutElements(const std::vector<Spec>& specs, const resource::Resource& owner);
  void Add(Change change) { changes_.push_back(std::move(change)); }
  // Gives the batch's delete of `deletion.ref` the preconditions of `deletion` (Write::uid,
  // Write::resource_version), which the store checks as it deletes.
  void SetDeletePreconditions(const store::Write& deletion);
  // When the table's system has a provisioner, the Effect that creates (or drops) it there.
  // Tables of other systems are provisioned by the TableProvisionJobs rendered for them, and so
  // are the tables a Database with `provisioning: async` creates: for those no Effect is added,
  // and the provisioner only checks, connecting to nothing, that it could create the table (its
  // error is returned). Dropping always is an Effect. `fresh`: Effect::fresh.
  Status AddEffect(bool create, const catalog::Schema& schema,
                   const catalog::TableDefinition& table, bool fresh = false);

  // Runs the validators on `subject`; the tree of errors when there are any.
  Status Check(Subject subject);
  Status CheckObject(const resource::Resource& object);
  // The validators' findings so far; deployers add their own warnings.
  Issues& issues() { return issues_; }

  // A time to stamp that is now, and later than each of `after` (RFC 3339 texts, or empty), so
  // that a new fire is never taken for one already handled: UTC, milliseconds.
  std::string StampAfter(std::initializer_list<std::string_view> after) const;

  const std::vector<Change>& changes() const { return changes_; }
  std::vector<Effect>& effects() { return effects_; }
  // What the summary says of the TableProvisionJobs of hop's own the batch creates (Spec::queued).
  const std::vector<std::string>& queued() const { return queued_; }

 private:
  store::Store& store_;
  const ExecuteOptions& options_;
  const catalog::Catalog& catalog_;
  const sql::Statement* statement_;
  std::vector<Change> changes_;
  size_t last_put_ = 0;  // the change the last Put made or merged into
  std::vector<Effect> effects_;
  std::vector<std::string> queued_;
  Issues issues_;
};

}  // namespace hop::deploy
