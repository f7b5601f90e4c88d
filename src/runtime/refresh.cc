#include "runtime/refresh.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "binder/binder.h"
#include "catalog/catalog.h"
#include "common/strings.h"
#include "deploy/trigger_fires.h"
#include "engine/engine.h"
#include "resource/kinds.h"
#include "sql/ast/query_statement.h"
#include "sql/parser.h"

namespace hop::runtime {

namespace {

using resource::Resource;
using resource::ViewKind;

store::ObjectRef ViewRef(const std::string& ns, const std::string& name) {
  return {ViewKind::Info().group_kind(), ns, name};
}

// The catalog path of a View resource: [catalog,] schema, view.
std::vector<std::string> ViewPath(const Resource& view) {
  std::vector<std::string> path;
  if (auto c = ViewKind::kCatalog.Get(view); c && !c->empty()) path.push_back(*c);
  path.push_back(ViewKind::kSchema.Get(view).value_or("DEFAULT"));
  path.push_back(ViewKind::kView.Get(view).value_or(view.name()));
  return path;
}

// The view `name` names: a View resource's name, or a SQL name (dotted; unquoted parts fold to
// upper case as in SQL), as the catalog entry and its resource's name.
Result<const catalog::Table*> FindView(store::Store& store, const catalog::Catalog& cat,
                                       const std::string& ns, const std::string& name) {
  std::vector<std::string> path;
  if (name.find('.') == std::string::npos) {
    HOP_ASSIGN_OR_RETURN(std::optional<Resource> view, store.Find(ViewRef(ns, name)));
    if (!view) {
      return Status::NotFound(
          fmt::format("view/{} not found in namespace {}: refresh names a materialized view by "
                      "its resource (view/NAME) or its SQL name (SCHEMA.VIEW)",
                      name, ns));
    }
    path = ViewPath(*view);
  } else {
    for (size_t start = 0;;) {
      const size_t dot = name.find('.', start);
      path.push_back(Utf8ToUpper(std::string_view(name).substr(start, dot - start)));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
  }
  HOP_ASSIGN_OR_RETURN(const catalog::Table* table, cat.Resolve(path));
  if (table->kind != catalog::ObjectKind::kMaterializedView) {
    return Status::InvalidArgument(
        fmt::format("{} is not a materialized view: only materialized views are refreshed",
                    table->QualifiedName()));
  }
  return table;
}

// Moves the watermark of the view (or table: `ref`) to `snapshot` (never back), queueing it for
// its triggers; retried when another writer changed the object meanwhile.
Status AdvanceWatermark(store::Store& store, const store::ObjectRef& ref,
                        const std::string& sql_name, SystemTime snapshot) {
  constexpr int kAttempts = 20;
  for (int attempt = 1;; ++attempt) {
    HOP_ASSIGN_OR_RETURN(Resource view, store.Get(ref));
    deploy::ViewFires fires(view.mutable_status(), ref.kind.kind);
    const auto current = fires.Watermark();
    if (current && *current >= snapshot) return Status::OK();
    HOP_RETURN_IF_ERROR(fires.Advance(snapshot, sql_name));
    auto written = store.UpdateStatus(std::move(view));
    if (written.ok()) return Status::OK();
    if (written.status().code() != StatusCode::kConflict || attempt == kAttempts) {
      return written.status();
    }
  }
}

// The rows of `sink` become the query's, then the watermark of `ref` (the View or Table that
// keeps it) the snapshot time: the steps a refresh and a fill share.
Result<RefreshOutcome> Replace(store::Store& store, const catalog::Catalog& cat,
                               const RefreshOptions& options, const catalog::Table& sink,
                               const binder::RelPtr& query, const store::ObjectRef& ref,
                               SystemTime snapshot) {
  binder::BoundInsert insert;
  insert.target = &sink;
  insert.query = query;
  for (size_t i = 0; i < sink.row_type.columns.size(); ++i) {
    insert.target_columns.push_back(static_cast<int>(i));
  }
  HOP_ASSIGN_OR_RETURN(std::unique_ptr<engine::Engine> engine,
                       engine::Engine::Open({options.state_dir}));
  HOP_ASSIGN_OR_RETURN(int64_t rows, engine->Replace(cat, insert, engine::Budget{}));
  HOP_RETURN_IF_ERROR(AdvanceWatermark(store, ref, sink.QualifiedName(), snapshot));
  RefreshOutcome outcome;
  outcome.view = sink.QualifiedName();
  outcome.resource = ref.name;
  outcome.rows = rows;
  outcome.snapshot = snapshot;
  return outcome;
}

// CREATE TABLE ... AS query: the table's rows become the query's (its kFillAnnotation), then
// its watermark the snapshot time.
Result<RefreshOutcome> FillTable(store::Store& store, const catalog::Catalog& cat,
                                 const RefreshOptions& options, const std::string& name,
                                 SystemTime snapshot) {
  const store::ObjectRef ref{resource::TableKind::Info().group_kind(), options.namespace_name,
                             name};
  HOP_ASSIGN_OR_RETURN(std::optional<Resource> resource, store.Find(ref));
  if (!resource) {
    return Status::NotFound(
        fmt::format("table/{} not found in namespace {}", name, options.namespace_name));
  }
  const auto annotations = resource->annotations();
  auto fill = annotations.find(std::string(resource::kFillAnnotation));
  if (fill == annotations.end()) {
    return Status::InvalidArgument(fmt::format(
        "table/{} has no query to fill it with: only tables made by CREATE TABLE ... AS are "
        "refreshed",
        name));
  }
  std::vector<std::string> path;
  if (auto c = resource::TableKind::kCatalog.Get(*resource); c && !c->empty()) path.push_back(*c);
  path.push_back(resource::TableKind::kSchema.Get(*resource).value_or(""));
  path.push_back(resource::TableKind::kTable.Get(*resource).value_or(""));
  HOP_ASSIGN_OR_RETURN(const catalog::Table* table, cat.Resolve(path));
  HOP_ASSIGN_OR_RETURN(sql::StatementPtr parsed, sql::ParseStatement(fill->second));
  if (parsed->kind != sql::StatementKind::kQuery) {
    return Status::InvalidArgument(fmt::format("table/{}: its fill is not a query", name));
  }
  binder::Binder binder(cat);
  HOP_ASSIGN_OR_RETURN(binder::RelPtr query,
                       binder.BindQuery(*parsed->As<sql::QueryStatement>().query));
  if (query->row_type.columns.size() != table->row_type.columns.size()) {
    return Status::InvalidArgument(fmt::format(
        "{}: its fill query has {} columns and the table {}", table->QualifiedName(),
        query->row_type.columns.size(), table->row_type.columns.size()));
  }
  return Replace(store, cat, options, *table, query, ref, snapshot);
}

}  // namespace

Result<RefreshOutcome> RefreshView(store::Store& store, const RefreshOptions& options) {
  using std::chrono::milliseconds;
  // What the refresh reads is what the sources hold from now: the watermark it earns.
  const SystemTime snapshot = std::chrono::time_point_cast<milliseconds>(options.clock->Now());
  HOP_ASSIGN_OR_RETURN(catalog::Catalog cat,
                       catalog::Catalog::Load(store, options.namespace_name));
  if (options.view.rfind("table/", 0) == 0) {
    return FillTable(store, cat, options, options.view.substr(6), snapshot);
  }
  HOP_ASSIGN_OR_RETURN(const catalog::Table* view,
                       FindView(store, cat, options.namespace_name, options.view));
  HOP_ASSIGN_OR_RETURN(const catalog::Schema* schema, cat.SchemaFor(view->path));
  if (!catalog::HopWritesTables(*schema)) {
    return Status::InvalidArgument(fmt::format(
        "{} is not refreshed by hop: its table is in database {} ({}), which hop does not write; "
        "its pipeline's job keeps it",
        view->QualifiedName(), schema->database, schema->url));
  }

  binder::Binder binder(cat);
  HOP_ASSIGN_OR_RETURN(binder::RelPtr query, binder.BindView(*view));
  catalog::Table sink = *view;
  sink.kind = catalog::ObjectKind::kTable;
  sink.sql.clear();
  sink.row_type = query->row_type;
  return Replace(store, cat, options, sink, query,
                 ViewRef(options.namespace_name, view->resource), snapshot);
}

}  // namespace hop::runtime
