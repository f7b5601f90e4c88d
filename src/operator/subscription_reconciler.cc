#include "operator/subscription_reconciler.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "common/log.h"
#include "deploy/executor.h"
#include "operator/reconciler_util.h"
#include "resource/kinds.h"
#include "resource/yaml.h"
#include "sql/ast/create_materialized_view_statement.h"
#include "sql/ast/query_statement.h"
#include "sql/parser.h"

namespace hop::op {

using resource::Resource;
using resource::SubscriptionKind;

namespace {

// How often a Subscription whose pipeline is not ready yet is looked at again.
constexpr Duration kNotReadyRecheck = std::chrono::seconds(15);

bool IsJob(const std::string& kind) {
  return kind == "FlinkSessionJob" || kind == "FlinkDeployment" || kind == "SqlJob" ||
         kind == "Job";
}

// A name hop synthesises, quoted: it is exactly `folded`.
sql::Identifier Quoted(const std::string& folded) {
  sql::Identifier id(folded);
  id.quoted = true;
  return id;
}

// The statement a Subscription stands for, as an AST: `CREATE OR REPLACE MATERIALIZED VIEW
// <schema path>."<name>" AS <query>`, the query parsed from `sql` alone. Its source is the
// query's, so that an error points into what the Subscription says.
Result<sql::StatementPtr> ViewStatement(const std::vector<std::string>& schema_path,
                                        const std::string& name, const std::string& sql) {
  HOP_ASSIGN_OR_RETURN(sql::StatementPtr parsed, sql::ParseStatement(sql));
  if (parsed->kind != sql::StatementKind::kQuery) {
    return Status::InvalidArgument(
        "spec.sql is not a query: a Subscription's sql is the SELECT (or VALUES, WITH ...) its "
        "materialized view is made of");
  }
  auto view = std::make_unique<sql::CreateMaterializedViewStatement>();
  view->or_replace = true;
  for (const std::string& part : schema_path) view->name.parts.push_back(Quoted(part));
  view->name.parts.push_back(Quoted(name));
  view->query = std::move(parsed->As<sql::QueryStatement>().query);
  view->loc = parsed->loc;
  view->source = std::move(parsed->source);
  view->line_prefix = std::move(parsed->line_prefix);
  return sql::StatementPtr(std::move(view));
}

}  // namespace

hop::Result<ReconcileResult> SubscriptionReconciler::Reconcile(const Request& request,
                                                               const ReconcileContext& context) {
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> found, GetOrNotFound(store_, request));
  if (!found) return ReconcileResult::Done();
  const Resource& sub = *found;
  const std::string ns = sub.namespace_name();
  const std::string database = SubscriptionKind::kDatabase.Get(sub).value_or("");
  const resource::StringMap hints =
      SubscriptionKind::kHints.Get(sub).value_or(resource::StringMap{});

  const Json before = StatusOf(sub);
  // A failure the Subscription must change to get past: said in its status, not retried.
  auto fail = [&](const std::string& message) -> hop::Result<ReconcileResult> {
    Json status = before;
    status["ready"] = false;
    status["failed"] = true;
    status["message"] = message;
    log::Warn("[{}] Subscription {}/{}: {}", context.id, ns, sub.name(), message);
    HOP_RETURN_IF_ERROR(UpdateStatusIfChanged(store_, sub, std::move(status)).status());
    return ReconcileResult::Done();  // until the Subscription changes
  };
  // What may pass by itself: the store down, or another writer first (an object changed, or one
  // to create appeared, since they were read).
  auto passing = [](const Status& s, bool committing) {
    return s.code() == StatusCode::kUnavailable || s.code() == StatusCode::kConflict ||
           (committing && s.code() == StatusCode::kAlreadyExists);
  };

  // The materialized view it stands for, planned as DDL in apply mode would plan it.
  HOP_ASSIGN_OR_RETURN(catalog::Catalog cat, catalog::Catalog::Load(store_, ns));
  const catalog::Schema* schema = cat.SchemaOfDatabase(database);
  if (schema == nullptr)
    return fail(fmt::format("Database {} not found in namespace {}", database, ns));
  auto statement =
      ViewStatement(schema->Path(), sub.name(), SubscriptionKind::kSql.Get(sub).value_or(""));
  if (!statement.ok()) return fail(statement.status().ToString());
  deploy::ExecuteOptions options;
  options.namespace_name = ns;
  options.apply_mode = true;
  for (const auto& [k, v] : hints) options.hints.emplace_back(k, v);
  deploy::Executor executor(store_, options);
  // What the store held when the plan was made: an object written after it may have changed
  // after the plan read it, and the batch is then planned again.
  HOP_ASSIGN_OR_RETURN(const int64_t read_at, store_.Revision());
  auto planned = executor.Specify(**statement);
  if (!planned.ok()) {
    if (passing(planned.status(), false)) return planned.status();  // retried with backoff
    return fail(planned.status().ToString());
  }

  // The view, its pipeline and the pipeline's elements, the view owned by the Subscription
  // (deleting it deletes them all), and the Subscription's status: one batch.
  Batch batch(store_);
  std::optional<Resource> pipeline;
  for (Resource& object : *planned) {
    if (object.kind() == "Pipeline") pipeline = object;
    if (object.kind() == "View") AddOwner(object, sub);
    auto added = batch.CreateOrUpdate(std::move(object), read_at);
    if (!added.ok()) {
      // An object rendered twice can never be written; anything else may pass.
      if (added.status().code() == StatusCode::kAlreadyExists) {
        return fail(added.status().ToString());
      }
      return added.status();
    }
  }
  if (!pipeline) return Status::Internal("the materialized view has no pipeline");
  // Its live status, written by the Pipeline reconciler (an update keeps it).
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> live, store_.Find(store::RefOf(*pipeline)));
  const Json* pipeline_status = live ? live->status() : nullptr;

  Json resources = Json::array();
  Json jobs = Json::array();
  auto docs = ParseYamlDocuments(resource::PipelineKind::kYaml.Get(*pipeline).value_or(""),
                                 "pipeline " + pipeline->name());
  if (docs.ok()) {
    for (const Json& doc : *docs) {
      if (!doc.is_object()) continue;
      const std::string kind = doc.value("kind", "");
      const std::string element =
          kind + "/" + (doc.contains("metadata") ? doc["metadata"].value("name", "") : "");
      resources.push_back(element);
      if (IsJob(kind)) jobs.push_back(element);
    }
  }
  const bool ready = pipeline_status && pipeline_status->value("ready", false);
  const bool failed = pipeline_status && pipeline_status->value("failed", false);
  Json status = before;
  status["ready"] = ready;
  status["failed"] = failed;
  status["message"] =
      pipeline_status ? pipeline_status->value("message", "Deployed.") : std::string("Deployed.");
  status["sql"] = resource::PipelineKind::kSql.Get(*pipeline).value_or("");
  Json hint_map = Json::object();
  for (const auto& [k, v] : hints) hint_map[k] = v;
  status["hints"] = std::move(hint_map);
  status["resources"] = std::move(resources);
  status["jobResources"] = std::move(jobs);
  if (!status.contains("downstreamResources")) status["downstreamResources"] = Json::array();
  batch.UpdateStatusIfChanged(sub, std::move(status));
  if (Status committed = batch.Commit(); !committed.ok()) {
    if (passing(committed, true)) return committed;
    return fail(committed.ToString());
  }
  if (ready) return ReconcileResult::Done();
  return ReconcileResult::RequeueAfter(kNotReadyRecheck);
}

}  // namespace hop::op
