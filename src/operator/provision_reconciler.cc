#include "operator/provision_reconciler.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "common/log.h"
#include "common/redact.h"
#include "operator/reconciler_util.h"
#include "resource/kinds.h"

namespace hop::op {

using resource::Resource;
using resource::TableProvisionJobKind;

namespace {

// The schema a job names: its catalog and schema, or, without a catalog, its database's one.
// Null when the namespace has nothing of that name for the job's database.
const catalog::Schema* SchemaOf(const catalog::Catalog& cat, const std::string& database,
                                const std::vector<std::string>& path) {
  const std::vector<std::string> schema_path(path.begin(), path.end() - 1);
  const catalog::Schema* schema = cat.FindSchema(schema_path);
  if (schema != nullptr && schema->database == database) return schema;
  // A catalog's schema is its own: another schema of the database is not a stand-in for it.
  return path.size() < 3 ? cat.SchemaOfDatabase(database) : nullptr;
}

}  // namespace

ProvisionOutcome ProvisionTable(catalog::Provisioner& provisioner, const catalog::Schema& schema,
                                const catalog::TableDefinition& table) {
  ProvisionOutcome out;
  Status st = schema.status;
  if (st.ok()) {
    auto exists = provisioner.Exists(schema, table);
    if (exists.ok() && *exists) {
      out.ready = true;
      out.message = "Table exists.";
      return out;
    }
    st = exists.ok() ? provisioner.Create(schema, table) : exists.status();
    if (st.ok()) {
      out.ready = true;
      out.message = "Table created.";
      return out;
    }
  }
  out.message = RedactSecrets(st.message());
  out.error = Status(st.code(), out.message);
  // The system could not be reached (or a secret read): it may be later. Anything else is the
  // system's answer about this table, which asking again will not change.
  out.retrying = st.code() == StatusCode::kUnavailable;
  out.failed = !out.retrying;
  return out;
}

hop::Result<ReconcileResult> ProvisionReconciler::Reconcile(const Request& request,
                                                            const ReconcileContext& context) {
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
  const catalog::Schema* schema = SchemaOf(cat, database, path);
  catalog::Provisioner* provisioner =
      schema != nullptr && provisioners_ != nullptr ? provisioners_->For(*schema) : nullptr;
  ProvisionOutcome outcome;
  if (schema == nullptr) {
    outcome.failed = true;
    outcome.message =
        path.size() < 3
            ? fmt::format("Database {} is not in namespace {}", database, job->namespace_name())
            : fmt::format("Database {} has no schema {}.{} in namespace {}", database, path[0],
                          path[1], job->namespace_name());
  } else if (provisioner == nullptr) {
    outcome.message =
        fmt::format("No local provisioner for database {} ({}): left for an external controller",
                    database, schema->system.empty() ? RedactSecrets(schema->url) : schema->system);
  } else {
    catalog::TableDefinition def;
    def.database = database;
    def.path = path;
    Status columns;
    if (auto declared = TableProvisionJobKind::kColumns.Get(*job)) {
      // Written by hop with the table: its columns, whether or not a Table resource has them.
      auto row = catalog::RowTypeOfColumns(*declared);
      if (row.ok()) {
        def.row_type = std::move(*row);
      } else {
        columns = row.status().WithContext("spec.columns: ");
      }
    } else if (const catalog::Table* t = cat.Lookup(*schema, path.back())) {
      def.row_type = t->row_type;
    }
    for (const auto& [k, v] :
         TableProvisionJobKind::kOptions.Get(*job).value_or(resource::StringMap{})) {
      def.options[k] = v;
    }
    if (columns.ok()) {
      outcome = ProvisionTable(*provisioner, *schema, def);
    } else {
      outcome.failed = true;
      outcome.message = columns.message();
      outcome.error = columns;
    }
  }
  Json status = StatusOf(*job);
  status["ready"] = outcome.ready;
  status["failed"] = outcome.failed;
  status["message"] = outcome.message;
  status["observedGeneration"] = job->generation();
  if (outcome.retrying) {
    status["retrying"] = true;
  } else {
    status.erase("retrying");
  }
  HOP_ASSIGN_OR_RETURN(const bool written, UpdateStatusIfChanged(store_, *job, std::move(status)));
  if (written) {
    log::Info("[{}] TableProvisionJob {}/{}: {}", context.id, job->namespace_name(), job->name(),
              outcome.message);
  }
  // Unreachable: an error, which the controller retries with backoff. Refused: terminal, until
  // the job changes (or the next resync looks again).
  if (outcome.retrying) return outcome.error;
  if (!outcome.error.ok()) return ReconcileResult::Terminal(outcome.error);
  return ReconcileResult::Done();
}

}  // namespace hop::op
