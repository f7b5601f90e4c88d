#include "operator/provision_reconciler.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "common/log.h"
#include "operator/reconciler_util.h"
#include "resource/kinds.h"

namespace hop::op {

using resource::Resource;

hop::Result<ReconcileResult> ProvisionReconciler::Reconcile(const Request& request,
                                                            const ReconcileContext& context) {
  using resource::TableProvisionJobKind;
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> job, GetOrNotFound(store_, request));
  if (!job) return ReconcileResult::Done();
  if (TableProvisionJobKind::kObservedGeneration.Get(*job).value_or(0) == job->generation() &&
      TableProvisionJobKind::kReady.Get(*job).value_or(false)) {
    return ReconcileResult::Done();  // provisioned; nothing changed since
  }
  const std::string database = TableProvisionJobKind::kDatabase.Get(*job).value_or("");
  std::vector<std::string> path;
  if (auto c = TableProvisionJobKind::kCatalog.Get(*job); c && !c->empty()) path.push_back(*c);
  path.push_back(TableProvisionJobKind::kSchema.Get(*job).value_or(""));
  path.push_back(TableProvisionJobKind::kTable.Get(*job).value_or(""));

  HOP_ASSIGN_OR_RETURN(catalog::Catalog cat, catalog::Catalog::Load(store_, job->namespace_name()));
  const catalog::Schema* schema = cat.SchemaOfDatabase(database);
  catalog::Provisioner* provisioner =
      schema != nullptr && provisioners_ != nullptr ? provisioners_->For(*schema) : nullptr;
  bool ready = false;
  bool failed = false;
  std::string message;
  Status error;
  if (schema == nullptr) {
    failed = true;
    message = fmt::format("Database {} is not in namespace {}", database, job->namespace_name());
  } else if (provisioner == nullptr) {
    message =
        fmt::format("No local provisioner for database {} ({}): left for an external controller",
                    database, schema->system.empty() ? schema->url : schema->system);
  } else {
    catalog::TableDefinition def;
    def.database = database;
    def.path = path;
    if (auto t = schema->tables.find(path.back()); t != schema->tables.end()) {
      def.row_type = t->second.row_type;
    }
    for (const auto& [k, v] :
         TableProvisionJobKind::kOptions.Get(*job).value_or(resource::StringMap{})) {
      def.options[k] = v;
    }
    auto exists = provisioner->Exists(*schema, def);
    if (exists.ok() && *exists) {
      ready = true;
      message = "Table exists.";
    } else {
      Status st = exists.ok() ? provisioner->Create(*schema, def) : exists.status();
      if (st.ok()) {
        ready = true;
        message = "Table created.";
      } else {
        failed = true;
        message = st.message();
        error = st;
      }
    }
  }
  Json status = StatusOf(*job);
  status["ready"] = ready;
  status["failed"] = failed;
  status["message"] = message;
  status["observedGeneration"] = job->generation();
  HOP_ASSIGN_OR_RETURN(const bool written, UpdateStatusIfChanged(store_, *job, std::move(status)));
  if (written) {
    log::Info("[{}] TableProvisionJob {}/{}: {}", context.id, job->namespace_name(), job->name(),
              message);
  }
  HOP_RETURN_IF_ERROR(error);  // retried with backoff
  return ReconcileResult::Done();
}

}  // namespace hop::op
