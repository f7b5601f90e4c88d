#include "deploy/executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "binder/bound_statement.h"
#include "common/log.h"
#include "common/strings.h"
#include "deploy/deployer.h"
#include "deploy/objects.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "sql/ast/statements.h"

namespace hop::deploy {

using resource::Resource;
using store::Write;

namespace {

// Creates (or drops) the tables of the batch's effects in their systems, recording what each
// did in `done` and the effects it made in `made`; on failure undoes those (UndoEffects) and
// returns why.
void UndoEffects(store::Store& store, const std::string& ns, std::vector<const Effect*>& made);

Result<bool> TableInUse(store::Store& store, const std::string& ns, const Effect& e);

// For an Effect::fresh create whose table is there (with the same columns or not): drops it when
// hop may drop it on its own (HopMayDropOnItsOwn), made it, and nothing in the store relies on
// it, and says so in `done`. Whether it dropped.
Result<bool> DropLeftOver(store::Store& store, const std::string& ns, const Effect& e,
                          std::vector<std::string>& done) {
  HOP_ASSIGN_OR_RETURN(bool may, HopMayDropOnItsOwn(store, ns, e.table.database, e.schema));
  if (!may) return false;
  HOP_ASSIGN_OR_RETURN(bool made_by_hop, e.provisioner->MadeByHop(e.schema, e.table));
  if (!made_by_hop) return false;
  HOP_RETURN_IF_ERROR(
      e.provisioner->DropUnlessInUse(e.schema, e.table, [&] { return TableInUse(store, ns, e); }));
  HOP_ASSIGN_OR_RETURN(bool still, e.provisioner->Exists(e.schema, e.table));
  if (still) return false;
  done.push_back(fmt::format("table {}, which no object named, dropped from {}",
                             Join(e.table.path, "."), e.table.database));
  return true;
}

Status RunEffects(store::Store& store, const std::string& ns, const std::vector<Effect>& effects,
                  std::vector<std::string>& done, std::vector<const Effect*>& made) {
  made.clear();
  for (const Effect& e : effects) {
    const std::string name = Join(e.table.path, ".");
    auto exists = e.provisioner->Exists(e.schema, e.table);
    Status st = exists.status();
    // A drop takes the table whatever its columns.
    if (!e.create && st.code() == StatusCode::kAlreadyExists) {
      exists = true;
      st = Status::OK();
    }
    // A new view's table that is there already was left by no object of the store's.
    if (e.fresh && ((st.ok() && *exists) || st.code() == StatusCode::kAlreadyExists)) {
      auto dropped = DropLeftOver(store, ns, e, done);
      if (dropped.ok() && *dropped) exists = e.provisioner->Exists(e.schema, e.table);
      st = dropped.ok() ? exists.status() : dropped.status();
    }
    if (st.ok() && *exists && !e.create) {
      // A table hop found there (its CREATE TABLE took it) is not hop's to drop: only its
      // resources go (docs/postgres.md).
      auto made_by_hop = e.provisioner->MadeByHop(e.schema, e.table);
      st = made_by_hop.status();
      if (st.ok() && !*made_by_hop) {
        done.push_back(fmt::format("table {} left in {}: hop found it there, it did not create it",
                                   name, e.table.database));
        continue;
      }
    }
    // Creating a table that exists, or dropping one that does not, is nothing to do.
    if (st.ok() && *exists != e.create) {
      st = e.create ? e.provisioner->Create(e.schema, e.table)
                    : e.provisioner->Drop(e.schema, e.table);
      if (st.ok()) {
        made.push_back(&e);
        done.push_back(fmt::format("table {} {} in {}", name, e.create ? "created" : "dropped",
                                   e.table.database));
      }
    }
    if (!st.ok()) {
      UndoEffects(store, ns, made);
      return Status(st.code(), fmt::format("Cannot {} table {} in database {}: {}",
                                           e.create ? "create" : "drop", name, e.table.database,
                                           st.message()));
    }
  }
  return Status::OK();
}

// Whether the store holds an object that relies on the table of `e`: a Table of its database
// and name (in any case: a near miss keeps a table rather than drop one), or a pipeline or
// trigger that reads or writes it (the dependency guard's dependents).
Result<bool> TableInUse(store::Store& store, const std::string& ns, const Effect& e) {
  using resource::TableKind;
  HOP_ASSIGN_OR_RETURN(store::ListResult tables, store.List({TableKind::Info().group_kind(), ns}));
  for (const Resource& t : tables.items) {
    if (TableKind::kDatabase.Get(t).value_or("") == e.table.database &&
        EqualsIgnoreCase(TableKind::kTable.Get(t).value_or(""), e.table.path.back())) {
      return true;
    }
  }
  HOP_ASSIGN_OR_RETURN(
      std::vector<std::string> dependents,
      Dependents(store, ns, resource::DependencyIdentifier(e.table.database, e.table.path)));
  return !dependents.empty();
}

void UndoEffects(store::Store& store, const std::string& ns, std::vector<const Effect*>& made) {
  // Tables this statement created are dropped again, unless objects in the store rely on them:
  // another writer's statement that found the table there may have committed meanwhile (one that
  // commits after the look makes sure of the table itself, EnsureEffects; docs/ddl.md, "Racing
  // statements"). A dropped table cannot be brought back, which is why drops run last (see
  // Apply).
  for (auto it = made.rbegin(); it != made.rend(); ++it) {
    const Effect& e = **it;
    if (!e.create) continue;
    Status st =
        e.provisioner->DropUnlessInUse(e.schema, e.table, [&] { return TableInUse(store, ns, e); });
    if (!st.ok()) {
      log::Warn("could not drop table {} in {} to undo a failed statement: {}",
                Join(e.table.path, "."), e.table.database, st.ToString());
    }
  }
  made.clear();
}

// After the batch committed: each table it creates is there, made again if the undo of a
// statement that lost the race to it dropped it (docs/ddl.md, "Racing statements"). Says so in
// `done` when it made one this statement had not; a failure is a warning, since the batch is
// written.
void EnsureEffects(const std::vector<Effect>& effects, std::vector<std::string>& done,
                   Issues& issues) {
  for (const Effect& e : effects) {
    if (!e.create) continue;
    const std::string name = Join(e.table.path, ".");
    auto created = e.provisioner->EnsureExists(e.schema, e.table);
    if (!created.ok()) {
      issues.Warning(fmt::format("Cannot make sure table {} exists in database {}: {}", name,
                                 e.table.database, created.status().message()));
      continue;
    }
    const std::string line = fmt::format("table {} created in {}", name, e.table.database);
    if (*created && std::find(done.begin(), done.end(), line) == done.end()) done.push_back(line);
  }
}

// What a delete did to `r`, as the store returned it: deleted, or only marked for deletion
// while finalizers hold it (it stays, and is read, until they go).
std::string DeletedVerb(const Resource& r) {
  const std::vector<std::string> finalizers = r.finalizers();
  if (!r.deletion_timestamp() || finalizers.empty()) return "deleted";
  return fmt::format("marked for deletion (waits for finalizer{} {})",
                     finalizers.size() == 1 ? "" : "s", Join(finalizers, ", "));
}

// Validates everything the batch would write, all at once.
Status CheckElements(Batch& batch) {
  std::vector<Resource> elements;
  for (const Change& c : batch.changes()) {
    if (c.write.op != Write::Op::kDelete && !c.quiet) elements.push_back(c.write.object);
  }
  Subject written(ValidationPoint::kElements);
  written.elements = &elements;
  return batch.Check(std::move(written));
}

}  // namespace

std::string Outcome::Summary() const {
  std::string out = statement + ":";
  for (size_t i = 0; i < effects.size(); ++i) out += (i == 0 ? " " : ", ") + effects[i];
  if (!effects.empty()) out += objects.empty() ? "" : ";";
  if (objects.empty()) return effects.empty() ? out + " nothing to do" : out;
  // Consecutive objects with the same verb share it: `a, b created, c deleted`.
  for (size_t i = 0; i < objects.size(); ++i) {
    out += i == 0 ? " " : ", ";
    out += AsciiToLower(objects[i].kind()) + "/" + objects[i].name();
    if (i + 1 == objects.size() || verbs[i + 1] != verbs[i]) out += " " + verbs[i];
  }
  return out;
}

Executor::Executor(store::Store& store, ExecuteOptions options)
    : store_(store), options_(std::move(options)) {}

bool Executor::Executes(const sql::Statement& s) {
  if (s.kind == sql::StatementKind::kDrop &&
      s.As<sql::DropStatement>().object == sql::ObjectKind::kFunction) {
    return false;
  }
  return DeployerFor(s.kind) != nullptr;
}

Result<const catalog::Catalog*> Executor::NamespaceCatalog() {
  if (options_.catalog != nullptr) return options_.catalog;
  if (!loaded_catalog_) {
    HOP_ASSIGN_OR_RETURN(catalog::Catalog loaded,
                         catalog::Catalog::Load(store_, options_.namespace_name));
    loaded_catalog_ = std::move(loaded);
  }
  return &*loaded_catalog_;
}

Status Executor::Plan(const sql::Statement& statement, Batch& batch) {
  HOP_ASSIGN_OR_RETURN(binder::BoundStatementPtr bound,
                       binder::BindStatement(batch.catalog(), statement, {options_.apply_mode}));
  const Deployer* deployer = DeployerFor(statement.kind);
  if (deployer == nullptr || !Executes(statement)) {
    return Status::InvalidArgument(fmt::format(
        "{} statements are not executed by this version of hop", sql::StatementTitle(statement)));
  }
  HOP_RETURN_IF_ERROR(batch.Check(Subject(ValidationPoint::kStatement)));
  HOP_RETURN_IF_ERROR(deployer->Specify(*bound, batch));
  return CheckElements(batch);
}

Result<Outcome> Executor::Retrying(const std::function<Result<Outcome>()>& once) {
  // A batch that lost a race with another writer (an object it read changed, or one it found
  // absent was created, or one it found was deleted, before it wrote) is planned again on what the
  // store holds then, from a catalog read anew: the session's may be older than the winner's write.
  // CREATE OR REPLACE is then an update; a plain CREATE finds the object and says it exists.
  constexpr int kAttempts = 50;
  static thread_local std::minstd_rand random(std::random_device{}());
  for (int attempt = 1;; ++attempt) {
    lost_race_ = false;
    auto outcome = once();
    if (outcome.ok() || !lost_race_ || attempt == kAttempts) return outcome;
    options_.catalog = nullptr;
    options_.render = nullptr;
    loaded_catalog_.reset();
    const int ceiling = std::min(50, 2 << std::min(attempt, 5));
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + random() % ceiling));
  }
}

Result<Outcome> Executor::Execute(const sql::Statement& statement) {
  return Retrying([&]() -> Result<Outcome> {
    HOP_ASSIGN_OR_RETURN(const catalog::Catalog* cat, NamespaceCatalog());
    Batch batch(store_, options_, *cat, &statement);
    HOP_RETURN_IF_ERROR(Plan(statement, batch));
    return Apply(sql::StatementTitle(statement), batch);
  });
}

Result<Outcome> Executor::Delete(const store::ObjectRef& ref, bool force) {
  return Delete(Write::Delete(ref), force);
}

Result<Outcome> Executor::Delete(const store::Write& deletion, bool force) {
  // A store that refuses the preconditions loses a race: planned again, the deletion finds the
  // new object and refuses it as it reads it.
  return Retrying([&]() -> Result<Outcome> {
    HOP_ASSIGN_OR_RETURN(const catalog::Catalog* cat, NamespaceCatalog());
    Batch batch(store_, options_, *cat, nullptr);
    HOP_RETURN_IF_ERROR(SpecifyDeletion(deletion, force, batch));
    const store::ObjectRef& ref = deletion.ref;
    return Apply("delete " + AsciiToLower(ref.kind.kind) + "/" + ref.name, batch);
  });
}

Status Executor::CheckDelete(const store::ObjectRef& ref) {
  HOP_ASSIGN_OR_RETURN(const catalog::Catalog* cat, NamespaceCatalog());
  Batch batch(store_, options_, *cat, nullptr);
  // Effects (tables to drop) are only listed in the batch; Apply would run them.
  return SpecifyDeletion(Write::Delete(ref), /*force=*/false, batch);
}

Result<Outcome> Executor::Apply(std::string label, Batch& batch) {
  Outcome outcome;
  outcome.statement = std::move(label);
  if (batch.issues().HasWarnings()) outcome.warnings = batch.issues().Render();
  std::vector<const Effect*> made;
  HOP_RETURN_IF_ERROR(
      RunEffects(store_, batch.namespace_name(), batch.effects(), outcome.effects, made));
  const std::vector<Change>& changes = batch.changes();
  if (changes.empty()) return outcome;
  std::vector<Write> writes;
  for (const auto& c : changes) writes.push_back(c.write);
  int64_t durable_mark = 0;
  auto committed = options_.report_when_written
                       ? store_.CommitWritten(std::move(writes), &durable_mark)
                       : store_.Commit(std::move(writes));
  if (!committed.ok()) {
    // NotFound: an object the batch read (to update or delete it) was deleted by another writer
    // meanwhile, e.g. two DROPs of one table; planned again, the statement says it is not there.
    lost_race_ = committed.status().code() == StatusCode::kConflict ||
                 committed.status().code() == StatusCode::kAlreadyExists ||
                 committed.status().code() == StatusCode::kNotFound;
    // A dropped table stays dropped: say so, so that running the DROP again finishes it.
    std::string dropped;
    for (const std::string& e : outcome.effects) {
      if (e.find(" dropped in ") != std::string::npos) dropped += (dropped.empty() ? "" : ", ") + e;
    }
    UndoEffects(store_, batch.namespace_name(), made);
    if (!dropped.empty()) {
      return committed.status().WithContext(
          fmt::format("{} (its resources were not deleted; run the statement again): ", dropped));
    }
    return committed.status();
  }
  outcome.durable_mark = durable_mark;
  std::vector<Resource> written = std::move(committed).value();
  EnsureEffects(batch.effects(), outcome.effects, batch.issues());
  if (batch.issues().HasWarnings()) outcome.warnings = batch.issues().Render();
  // Tables whose TableProvisionJobs this statement wrote: the operator creates them.
  for (const std::string& q : batch.queued()) outcome.effects.push_back(q);
  for (size_t i = 0; i < changes.size(); ++i) {
    const Change& c = changes[i];
    if (c.quiet) continue;
    switch (c.write.op) {
      case Write::Op::kCreate: outcome.verbs.push_back("created"); break;
      case Write::Op::kDelete: outcome.verbs.push_back(DeletedVerb(written[i])); break;
      case Write::Op::kUpdateStatus: outcome.verbs.push_back(c.verb); break;
      default:
        outcome.verbs.push_back(written[i].resource_version() == c.prior_version ? "unchanged"
                                : c.verb.empty()                                 ? "configured"
                                                                                 : c.verb);
    }
    outcome.objects.push_back(std::move(written[i]));
  }
  return outcome;
}

Result<std::vector<Resource>> Executor::Specify(const sql::Statement& statement,
                                                std::string* warnings,
                                                std::vector<bool>* elements) {
  HOP_ASSIGN_OR_RETURN(const catalog::Catalog* cat, NamespaceCatalog());
  Batch batch(store_, options_, *cat, &statement);
  HOP_RETURN_IF_ERROR(Plan(statement, batch));
  if (warnings != nullptr) *warnings = batch.issues().HasWarnings() ? batch.issues().Render() : "";
  std::vector<Resource> out;
  for (const Change& c : batch.changes()) {
    if (c.write.op == Write::Op::kDelete || c.quiet) continue;
    Resource r = c.write.object;
    // What the user would write: without what the store assigns.
    Json& md = r.mutable_json()["metadata"];
    for (const char* key : {"uid", "resourceVersion", "generation", "creationTimestamp"}) {
      md.erase(key);
    }
    auto owners = r.owner_references();
    for (auto& o : owners) o.uid.clear();
    r.set_owner_references(owners);
    out.push_back(std::move(r));
    if (elements != nullptr) elements->push_back(c.element);
  }
  return out;
}

}  // namespace hop::deploy
