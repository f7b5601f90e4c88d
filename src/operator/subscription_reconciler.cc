#include "operator/subscription_reconciler.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "common/log.h"
#include "common/strings.h"
#include "deploy/executor.h"
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

}  // namespace

hop::Result<ReconcileResult> SubscriptionReconciler::Reconcile(const Request& request,
                                                               const ReconcileContext& context) {
  auto got = store_.Get(request.ref);
  if (!got.ok()) {
    if (got.status().code() == StatusCode::kNotFound) return ReconcileResult::Done();
    return got.status();
  }
  Resource sub = std::move(got).value();
  const std::string ns = sub.namespace_name();
  const std::string database = SubscriptionKind::kDatabase.Get(sub).value_or("");
  const resource::StringMap hints =
      SubscriptionKind::kHints.Get(sub).value_or(resource::StringMap{});

  Json status = sub.status() ? *sub.status() : Json::object();
  const Json before = status;
  auto write_status = [&]() -> Status {
    if (status == before) return Status::OK();
    Resource updated = sub;
    updated.set_status(status);
    return store_.UpdateStatus(updated).status();
  };
  auto fail = [&](const std::string& message) -> hop::Result<ReconcileResult> {
    status["ready"] = false;
    status["failed"] = true;
    status["message"] = message;
    log::Warn("[{}] Subscription {}/{}: {}", context.id, ns, sub.name(), message);
    HOP_RETURN_IF_ERROR(write_status());
    return ReconcileResult::Done();  // until the Subscription changes
  };

  // The materialized view it stands for.
  HOP_ASSIGN_OR_RETURN(catalog::Catalog cat, catalog::Catalog::Load(store_, ns));
  const catalog::Schema* schema = cat.SchemaOfDatabase(database);
  if (schema == nullptr)
    return fail(fmt::format("Database {} not found in namespace {}", database, ns));
  // `CREATE OR REPLACE MATERIALIZED VIEW <schema>."<name>" AS <spec.sql>`, as an AST around the
  // parsed query: errors point into spec.sql, which must be one query.
  auto query = sql::ParseStatement(SubscriptionKind::kSql.Get(sub).value_or(""));
  if (!query.ok()) return fail(query.status().ToString());
  if ((*query)->kind != sql::StatementKind::kQuery) {
    return fail("spec.sql must be a query (SELECT ...)");
  }
  auto statement = std::make_unique<sql::CreateMaterializedViewStatement>();
  statement->or_replace = true;
  for (const std::string& part : schema->Path()) statement->name.parts.emplace_back(part);
  statement->name.parts.emplace_back(sub.name());
  statement->query = std::move((*query)->As<sql::QueryStatement>().query);
  statement->loc = (*query)->loc;
  statement->source = std::move((*query)->source);
  deploy::ExecuteOptions options;
  options.namespace_name = ns;
  options.apply_mode = true;
  for (const auto& [k, v] : hints) options.hints.emplace_back(k, v);
  deploy::Executor executor(store_, options);
  auto outcome = executor.Execute(*statement);
  if (!outcome.ok()) {
    if (outcome.status().code() == StatusCode::kUnavailable ||
        outcome.status().code() == StatusCode::kConflict) {
      return outcome.status();  // retried with backoff
    }
    return fail(outcome.status().ToString());
  }

  // The view belongs to the Subscription: deleting it deletes them all.
  std::optional<Resource> pipeline;
  for (const Resource& object : outcome->objects) {
    if (object.kind() == "Pipeline") pipeline = object;
    if (object.kind() != "View") continue;
    auto owners = object.owner_references();
    bool owned = false;
    for (const auto& o : owners) owned |= o.kind == sub.kind() && o.name == sub.name();
    if (owned) continue;
    resource::OwnerReference ref;
    ref.api_version = sub.api_version();
    ref.kind = sub.kind();
    ref.name = sub.name();
    ref.uid = sub.uid();
    owners.push_back(ref);
    Resource view = object;
    view.set_owner_references(owners);
    HOP_RETURN_IF_ERROR(store_.Update(view).status());
  }
  if (!pipeline) return Status::Internal("the materialized view has no pipeline");
  // Its live status, written by the Pipeline reconciler.
  auto live = store_.Get(store::RefOf(*pipeline));
  if (live.ok()) pipeline = std::move(live).value();

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
  const Json* pipeline_status = pipeline->status();
  const bool ready = pipeline_status && pipeline_status->value("ready", false);
  const bool failed = pipeline_status && pipeline_status->value("failed", false);
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
  HOP_RETURN_IF_ERROR(write_status());
  if (ready) return ReconcileResult::Done();
  return ReconcileResult::RequeueAfter(kNotReadyRecheck);
}

}  // namespace hop::op
