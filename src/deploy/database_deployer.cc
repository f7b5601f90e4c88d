// CREATE [OR REPLACE] DATABASE (compatibility.md §5.6): a Database resource.
#include <fmt/format.h>

#include "deploy/deployers.h"
#include "deploy/objects.h"
#include "resource/kinds.h"
#include "sql/ast/create_database_statement.h"

namespace hop::deploy {

using resource::DatabaseKind;
using resource::Resource;

Status DatabaseDeployer::Specify(const binder::BoundStatement& statement, Batch& batch) const {
  const auto& db = statement.As<binder::BoundCreateDatabase>();
  Resource r = NewObject("Database", db.name, batch.namespace_name());
  DatabaseKind::kUrl.Set(r, db.options.at("url"));
  if (auto it = db.options.find("driver"); it != db.options.end()) {
    DatabaseKind::kDriver.Set(r, it->second);
  }
  if (auto it = db.options.find("schema"); it != db.options.end()) {
    DatabaseKind::kSchema.Set(r, it->second);
  }
  if (auto it = db.options.find("catalog"); it != db.options.end()) {
    DatabaseKind::kCatalog.Set(r, it->second);
  }
  if (auto it = db.options.find("dialect"); it != db.options.end()) {
    DatabaseKind::kDialect.Set(r, it->second);
  }
  if (auto it = db.options.find("provisioning"); it != db.options.end()) {
    DatabaseKind::kProvisioning.Set(r, it->second);
  }
  // Databases are resources, not catalog objects: whether one exists is read here.
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> existing, batch.store().Find(store::RefOf(r)));
  if (existing && !db.replace) {
    if (db.statement.As<sql::CreateDatabaseStatement>().if_not_exists) return Status::OK();
    return Status::AlreadyExists(
        fmt::format("Database {} already exists. Use CREATE OR REPLACE to update.", db.sql_name));
  }
  HOP_RETURN_IF_ERROR(batch.CheckObject(r));
  return batch.Put(r, true, /*must_create=*/!existing);
}

}  // namespace hop::deploy
