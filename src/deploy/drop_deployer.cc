// DROP (compatibility.md §5.7, §5.8), and `hop delete`, which deletes a resource as the DROP of
// its kind would: the object goes once nothing depends on it, with what it owns; a table goes
// from its system too when the system has a provisioner.
#include <fmt/format.h>

#include "common/strings.h"
#include "deploy/deployers.h"
#include "deploy/objects.h"
#include "resource/kinds.h"
#include "resource/names.h"

namespace hop::deploy {

using resource::DatabaseKind;
using resource::Resource;
using resource::TableTriggerKind;
using resource::ViewKind;
using store::ObjectRef;
using store::Write;

Status DropDeployer::DropTable(const catalog::Table& table, bool force, Batch& batch) {
  const std::string& ns = batch.namespace_name();
  if (table.resource.empty() && !table.topic_resource.empty()) {
    // A topic listed from its KafkaTopic: deleting the resource deletes the topic (Strimzi's
    // operator does that in a cluster), once nothing depends on the table.
    const ObjectRef topic{{"kafka.strimzi.io", "KafkaTopic"}, ns, table.topic_resource};
    Subject pending(ValidationPoint::kPendingDelete);
    pending.deleted = topic;
    pending.identifier = resource::DependencyIdentifier(table.database, table.path);
    if (!force) HOP_RETURN_IF_ERROR(batch.Check(std::move(pending)));
    batch.Add({Write::Delete(topic), ""});
    return Status::OK();
  }
  if (table.resource.empty()) {
    return Status::InvalidArgument(
        fmt::format("Table {} comes from database {}; hop cannot drop it", table.QualifiedName(),
                    table.database));
  }
  HOP_ASSIGN_OR_RETURN(const catalog::Schema* schema, batch.catalog().SchemaFor(table.path));
  // The pre-delete guard (compatibility.md §5.8): pipelines and triggers that depend on the table.
  Subject pending(ValidationPoint::kPendingDelete);
  pending.deleted = {resource::TableKind::Info().group_kind(), ns, table.resource};
  pending.identifier = resource::DependencyIdentifier(table.database, table.path);
  if (schema->system == "logical") {
    // A logical table (§5.9) goes with its LogicalTable and, by ownership, the tables of its
    // tiers and what runs between them: nothing else may depend on any of them.
    const std::string logical_table = resource::Canonicalize(table.path);
    pending.self_kind = "LogicalTable";
    pending.self_name = logical_table;
    for (const auto& [tier, database] : schema->tiers) {
      const catalog::Schema* tier_schema = batch.catalog().SchemaOfDatabase(database);
      if (tier_schema == nullptr) continue;
      const catalog::Table* held = batch.catalog().Lookup(*tier_schema, table.name);
      if (held == nullptr || held->resource.empty()) continue;
      Subject tier_pending(ValidationPoint::kPendingDelete);
      tier_pending.deleted = {resource::TableKind::Info().group_kind(), ns, held->resource};
      tier_pending.identifier = resource::DependencyIdentifier(database, held->path);
      tier_pending.self_kind = "LogicalTable";
      tier_pending.self_name = logical_table;
      if (!force) HOP_RETURN_IF_ERROR(batch.Check(std::move(tier_pending)));
      const catalog::Table& t = *held;
      HOP_RETURN_IF_ERROR(
          batch.AddEffect(false, *tier_schema, {t.database, t.path, t.row_type, t.options}));
    }
  }
  if (!force) HOP_RETURN_IF_ERROR(batch.Check(std::move(pending)));
  // Deleting the Table deletes, by ownership, the resources rendered for it; its system's
  // provisioner, if it has one, drops it there.
  HOP_RETURN_IF_ERROR(
      batch.AddEffect(false, *schema, {table.database, table.path, table.row_type, table.options}));
  batch.Add({Write::Delete({resource::TableKind::Info().group_kind(), ns, table.resource}), ""});
  return Status::OK();
}

Status DropDeployer::DropView(const catalog::Table& view, bool force, Batch& batch) {
  const std::string& ns = batch.namespace_name();
  // Triggers listening to the view, and pipelines reading a materialized view's table (other
  // than its own).
  Subject pending(ValidationPoint::kPendingDelete);
  pending.deleted = {ViewKind::Info().group_kind(), ns, view.resource};
  pending.trigger_selector =
      fmt::format("{}={}", kViewLabel, ViewLabelValue(resource::Canonicalize(view.path)));
  if (view.kind == catalog::ObjectKind::kMaterializedView && !view.database.empty()) {
    pending.identifier = resource::DependencyIdentifier(view.database, view.path);
    pending.self_kind = "View";
    pending.self_name = view.resource;
  }
  if (!force) HOP_RETURN_IF_ERROR(batch.Check(std::move(pending)));
  // A local materialized view's table goes from its file with it, unless another Database keeps
  // its tables in that file (docs/ddl.md, "Statements executed").
  if (view.kind == catalog::ObjectKind::kMaterializedView && !view.database.empty()) {
    auto schema = batch.catalog().SchemaFor(view.path);
    if (schema.ok()) {
      HOP_ASSIGN_OR_RETURN(bool may,
                           HopMayDropOnItsOwn(batch.store(), ns, view.database, **schema));
      if (may) {
        HOP_RETURN_IF_ERROR(batch.AddEffect(
            false, **schema, {view.database, view.path, view.row_type, view.options}));
      }
    }
  }
  // Deleting the View deletes, by ownership, its Pipeline and the elements it alone owns.
  batch.Add({Write::Delete({ViewKind::Info().group_kind(), ns, view.resource}), ""});
  return Status::OK();
}

Status DropDeployer::DropDatabase(const ObjectRef& ref, bool force, Batch& batch) {
  // Nothing may be left in it: the Tables declared in it and the Views of its schema (of its
  // catalog, for a catalog of schemas), read by their index keys (docs/store.md), not by
  // listing the namespace. The database's own tables (demo tables, topics) go with it.
  std::vector<std::string> dependents;
  const std::string& ns = batch.namespace_name();
  auto add = [&](const store::GroupKind& kind, std::string key, const char* prefix) -> Status {
    store::ListOptions list(kind, ns, {}, std::move(key));
    HOP_ASSIGN_OR_RETURN(store::ListResult found, batch.store().List(list));
    for (const Resource& r : found.items) dependents.push_back(prefix + r.name());
    return Status::OK();
  };
  HOP_RETURN_IF_ERROR(add(resource::TableKind::Info().group_kind(),
                          resource::TableKind::DatabaseKey(ref.name), "table/"));
  HOP_ASSIGN_OR_RETURN(Resource db, batch.store().Get(ref));
  const std::string catalog = Utf8ToUpper(DatabaseKind::kCatalog.Get(db).value_or(""));
  const std::string schema = DatabaseKind::kSchema.Get(db).value_or("");
  if (!catalog.empty() && schema.empty()) {
    HOP_RETURN_IF_ERROR(
        add(ViewKind::Info().group_kind(), ViewKind::CatalogKey(catalog), "view/"));
  } else if (const catalog::Schema* s = batch.catalog().SchemaOfDatabase(ref.name)) {
    HOP_RETURN_IF_ERROR(
        add(ViewKind::Info().group_kind(), ViewKind::SchemaKey(s->catalog, s->name), "view/"));
  }
  if (!dependents.empty() && !force) {
    return Status::ValidationError(
        fmt::format("Cannot delete database {} \u2014 {} active dependent(s): {}", ref.name,
                    dependents.size(), Join(dependents, ", ")));
  }
  batch.Add({Write::Delete(ref), ""});
  return Status::OK();
}

Status DropDeployer::Specify(const binder::BoundStatement& statement, Batch& batch) const {
  const auto& drop = statement.As<binder::BoundDrop>();
  if (drop.nothing_to_do) return Status::OK();
  const std::string& ns = batch.namespace_name();
  switch (drop.object) {
    case sql::ObjectKind::kTrigger: {
      // Triggers are resources, not catalog objects: whether one exists is read here.
      const ObjectRef ref{TableTriggerKind::Info().group_kind(), ns, drop.name};
      HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing, batch.store().Find(ref));
      if (!existing) {
        if (drop.if_exists) return Status::OK();
        return Status::NotFound(fmt::format("Trigger {} not found.", drop.sql_name));
      }
      batch.Add({Write::Delete(ref), ""});
      return Status::OK();
    }
    case sql::ObjectKind::kDatabase: {
      const ObjectRef ref{DatabaseKind::Info().group_kind(), ns, drop.name};
      HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing, batch.store().Find(ref));
      if (!existing) {
        if (drop.if_exists) return Status::OK();
        return Status::NotFound(fmt::format("Database {} not found.", drop.sql_name));
      }
      return DropDatabase(ref, /*force=*/false, batch);
    }
    case sql::ObjectKind::kTable: return DropTable(*drop.target, /*force=*/false, batch);
    default: return DropView(*drop.target, /*force=*/false, batch);
  }
}

namespace {

// The writes that delete `existing`, stored under `ref`, as the DROP of its kind does.
Status SpecifyDrop(const ObjectRef& ref, const Resource& existing, bool force, Batch& batch) {
  const bool table = ref.kind == resource::TableKind::Info().group_kind();
  const bool view = ref.kind == ViewKind::Info().group_kind();
  if (ref.kind == DatabaseKind::Info().group_kind()) {
    return DropDeployer::DropDatabase(ref, force, batch);
  }
  if (table || view) {
    // The table or view the catalog made of it, if it made one: looked up by the names the
    // resource gives it.
    const catalog::Catalog& cat = batch.catalog();
    const catalog::Schema* schema = nullptr;
    std::string name;
    if (table) {
      using resource::TableKind;
      schema = cat.SchemaOfDatabase(TableKind::kDatabase.Get(existing).value_or(""));
      if (schema != nullptr && !schema->catalog.empty()) {
        if (auto in = TableKind::kSchema.Get(existing); in && !in->empty()) {
          if (const catalog::Schema* s = cat.FindSchema({schema->catalog, *in})) schema = s;
        }
      }
      name = TableKind::kTable.Get(existing).value_or(existing.name());
    } else {
      std::vector<std::string> path;
      if (auto c = ViewKind::kCatalog.Get(existing); c && !c->empty()) path.push_back(*c);
      path.push_back(ViewKind::kSchema.Get(existing).value_or(catalog::kDefaultSchema));
      schema = cat.FindSchema(path);
      name = ViewKind::kView.Get(existing).value_or(existing.name());
    }
    const catalog::Table* t = schema == nullptr ? nullptr : cat.Lookup(*schema, name);
    if (t != nullptr && t->resource == ref.name &&
        (t->kind == catalog::ObjectKind::kTable) == table) {
      return table ? DropDeployer::DropTable(*t, force, batch)
                   : DropDeployer::DropView(*t, force, batch);
    }
  }
  batch.Add({Write::Delete(ref), ""});
  return Status::OK();
}

}  // namespace

Status SpecifyDeletion(const Write& deletion, bool force, Batch& batch) {
  const ObjectRef& ref = deletion.ref;
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing, batch.store().Find(ref));
  if (!existing) return batch.store().Get(ref).status();  // its own Not Found
  HOP_RETURN_IF_ERROR(
      store::CheckDeletePreconditions(deletion, existing->uid(), existing->resource_version()));
  HOP_RETURN_IF_ERROR(SpecifyDrop(ref, *existing, force, batch));
  batch.SetDeletePreconditions(deletion);
  return Status::OK();
}

}  // namespace hop::deploy
