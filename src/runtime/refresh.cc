#include "runtime/refresh.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "binder/binder.h"
#include "binder/to_sql.h"
#include "catalog/catalog.h"
#include "catalog/postgres.h"
#include "common/strings.h"
#include "deploy/trigger_fires.h"
#include "engine/engine.h"
#include "operator/view_refresh.h"
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
    path = ViewKind::Path(*view);
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

// The View a refresh read: the rows it writes are this view's query.
struct ReadView {
  std::string uid;
  std::string sql;
};

// The query whose rows a refresh writes: a View's spec.sql, a Table's fill.
std::string QueryOf(const Resource& object) {
  if (object.kind() != ViewKind::Info().kind) {
    const auto annotations = object.annotations();
    auto fill = annotations.find(std::string(resource::kFillAnnotation));
    return fill == annotations.end() ? std::string() : fill->second;
  }
  return ViewKind::kSql.Get(object).value_or("");
}

// Moves the watermark of the view (or table: `ref`) to `earned`, queueing it for its triggers;
// retried when another writer changed the object meanwhile. Returns the watermark it has
// afterwards: `earned` exactly, moved back from a later one (said in `moved_back`), since a
// refresh or fill rewrote every row its query gives, and those rows are only as complete as
// what it read (docs/runtime.md, "The watermark a refresh earns"). With `read`, only if the
// view (or table) still has the uid and query the refresh read, and with
// status.refreshedQuery, the digest of that query (docs/runtime.md, "Refreshes"): one replaced
// with another query or created again while it was refreshed keeps its watermark, and the
// refresh fails.
//
// A table's fill by hand (`hop refresh table/NAME` not run as the fill Job status.fill.job
// names) is recorded in status.fill in the same update, as the reconciler records a fill Job's
// end: lastOutcome Succeeded, finished, its query, and byHand (docs/ddl.md, CREATE TABLE ... AS).
Result<SystemTime> AdvanceWatermark(store::Store& store, const store::ObjectRef& ref,
                                    const std::string& sql_name, SystemTime earned,
                                    const std::optional<ReadView>& read,
                                    const RefreshOptions& options,
                                    std::optional<SystemTime>& moved_back) {
  const bool fill = ref.kind == resource::TableKind::Info().group_kind();
  constexpr int kAttempts = 20;
  for (int attempt = 1;; ++attempt) {
    HOP_ASSIGN_OR_RETURN(Resource view, store.Get(ref));
    if (read && (view.uid() != read->uid || QueryOf(view) != read->sql)) {
      return Status::Conflict(fmt::format(
          "{} was {} while it was refreshed: its table now holds the rows of the query it had, "
          "and its watermark stays where it was; refresh it again",
          sql_name,
          view.uid() != read->uid ? "dropped and created again" : "replaced with another query"));
    }
    const std::string digest = read ? resource::QueryDigest(read->sql) : "";
    deploy::ViewFires fires(view.mutable_status(), ref.kind.kind);
    const auto current = fires.Watermark();
    const Json* status = view.status();
    const bool recorded =
        !read || (status != nullptr && status->is_object() &&
                  status->value(resource::kRefreshedQueryStatus, std::string()) == digest);
    // A fill by hand is recorded in status.fill (a fill Job's end records its own).
    bool by_hand = false;
    if (fill && read) {
      const Json* state = status != nullptr && status->is_object() && status->contains("fill")
                              ? &(*status)["fill"]
                              : nullptr;
      const Json* job = state != nullptr && state->is_object() && state->contains("job")
                            ? &(*state)["job"]
                            : nullptr;
      by_hand = !(job != nullptr && job->is_string() && !options.job.empty() &&
                  job->get<std::string>() == options.job);
    }
    const bool back = current && *current > earned;
    if (current && *current == earned && recorded && !by_hand) return earned;
    if (!current || *current != earned) HOP_RETURN_IF_ERROR(fires.Advance(earned, sql_name));
    if (read) view.mutable_status()[resource::kRefreshedQueryStatus] = digest;
    if (by_hand) {
      // Looked up after the writes above, which may move the status's members.
      Json& state = view.mutable_status()["fill"];
      if (!state.is_object()) state = Json::object();
      state["query"] = read->sql;
      state["lastOutcome"] = "Succeeded";
      state["finished"] = FormatRfc3339(options.clock->Now(), 3);
      state["byHand"] = true;
      state.erase("message");
    }
    auto written = store.UpdateStatus(std::move(view));
    if (written.ok()) {
      if (back) moved_back = current;
      return earned;
    }
    if (written.status().code() != StatusCode::kConflict || attempt == kAttempts) {
      return written.status();
    }
  }
}

// Whether PostgreSQL can run `rel` itself with the local engine's meaning: the scans are of
// tables of the sink's database, and the operators, functions and types are those whose results
// are the same in both (integers, doubles, text equality, no collation-dependent ordering, no
// time zones). docs/postgres.md, "Refreshes", lists them.
bool SameInPostgres(const binder::Scalar& s);

// VARCHAR, and the CHAR of a string literal (CHAR columns are not pushed: PostgreSQL drops their
// padding where the engine keeps it).
bool IsText(const sql::DataType& t) {
  return t.name == sql::TypeName::kVarchar || t.name == sql::TypeName::kChar;
}

// Types whose operators mean the same in both: integers, booleans, dates and timestamps without a
// time zone (a double's NaN compares differently, and its sums depend on the order of addition).
bool IsExact(const sql::DataType& t) {
  using sql::TypeName;
  switch (t.name) {
    case TypeName::kBoolean:
    case TypeName::kSmallInt:
    case TypeName::kInteger:
    case TypeName::kBigInt:
    case TypeName::kDate:
    case TypeName::kNull: return true;
    case TypeName::kTimestamp: return t.time_zone == sql::TimeZone::kNone;
    default: return false;
  }
}

// Types a pushed query may carry: the exact ones, doubles and VARCHAR (whose operators are
// checked one by one).
bool SameInPostgresType(const sql::DataType& t) {
  return IsExact(t) || t.name == sql::TypeName::kDouble || t.name == sql::TypeName::kVarchar;
}

bool IsInteger(const sql::DataType& t) {
  using sql::TypeName;
  return t.name == TypeName::kSmallInt || t.name == TypeName::kInteger ||
         t.name == TypeName::kBigInt;
}

bool SameInPostgres(const binder::Scalar& s) {
  using binder::ScalarKind;
  const bool string_literal =
      s.kind == ScalarKind::kLiteral && s.literal == sql::LiteralKind::kString;
  if (!SameInPostgresType(s.type) && !string_literal) return false;
  for (const auto& a : s.args) {
    if (!SameInPostgres(*a)) return false;
  }
  auto args_are = [&](bool (*ok)(const sql::DataType&)) {
    return std::all_of(s.args.begin(), s.args.end(), [&](const auto& a) { return ok(a->type); });
  };
  switch (s.kind) {
    case ScalarKind::kInputRef:
    case ScalarKind::kIs:
    case ScalarKind::kCase: return true;
    case ScalarKind::kLiteral: return s.literal != sql::LiteralKind::kInterval;
    case ScalarKind::kUnary: return args_are(IsExact);  // NOT, -
    case ScalarKind::kInList:
      return args_are(IsExact) || args_are(IsText);  // equality
    case ScalarKind::kBinary: {
      using sql::BinaryOp;
      switch (s.binary_op) {
        case BinaryOp::kAnd:
        case BinaryOp::kOr: return true;
        case BinaryOp::kConcat: return args_are(IsText);
        case BinaryOp::kEq:
        case BinaryOp::kNe:
        case BinaryOp::kIsDistinctFrom:
        case BinaryOp::kIsNotDistinctFrom: return args_are(IsExact) || args_are(IsText);
        case BinaryOp::kLt:
        case BinaryOp::kLe:
        case BinaryOp::kGt:
        case BinaryOp::kGe: return args_are(IsExact);  // text order depends on the collation
        case BinaryOp::kAdd:
        case BinaryOp::kSubtract:
        case BinaryOp::kMultiply:
        case BinaryOp::kDivide:  // truncates in both
        case BinaryOp::kModulo: return args_are(IsInteger) && IsInteger(s.type);
        default: return false;  // regular expressions: PostgreSQL's and RE2's differ
      }
    }
    case ScalarKind::kBetween: return args_are(IsExact);
    case ScalarKind::kCast:
      // Between integers, and text to text; not the text forms of numbers or dates.
      return (IsInteger(s.type) && args_are(IsInteger)) || (IsText(s.type) && args_are(IsText));
    case ScalarKind::kCall: {
      if (s.window) return false;
      const std::string name = Utf8ToUpper(s.text);
      // UPPER and LOWER are not here: PostgreSQL's follow the database's locale.
      return name == "COALESCE" || (name == "ABS" && args_are(IsInteger));
    }
    default: return false;
  }
}

bool SameInPostgres(const binder::Rel& rel, const catalog::Schema& sink) {
  using binder::RelKind;
  for (const auto& input : rel.inputs) {
    if (!SameInPostgres(*input, sink)) return false;
  }
  auto all = [](const std::vector<binder::ScalarPtr>& exprs) {
    return std::all_of(exprs.begin(), exprs.end(),
                       [](const binder::ScalarPtr& e) { return SameInPostgres(*e); });
  };
  for (const auto& c : rel.row_type.columns) {
    if (!SameInPostgresType(c.type)) return false;
  }
  switch (rel.kind) {
    case RelKind::kScan:
      return rel.table != nullptr && catalog::PostgresTableIn(*rel.table, sink);
    case RelKind::kFilter:
    case RelKind::kJoin: return !rel.condition || SameInPostgres(*rel.condition);
    case RelKind::kProject: return all(rel.exprs);
    case RelKind::kSort: return !rel.offset && !rel.fetch;
    case RelKind::kSetOp: return true;
    case RelKind::kAggregate:
      for (const auto& a : rel.aggregates) {
        const std::string name = Utf8ToUpper(a.name);
        const bool exact =
            a.args.empty() ||
            IsExact(rel.inputs[0]->row_type.columns[static_cast<size_t>(a.args[0])].type);
        const bool ok = name == "COUNT" || ((name == "SUM" || name == "MIN" || name == "MAX") &&
                                            exact);
        if (!ok || a.filter >= 0 || !a.within_group.empty() || !a.literal_args.empty()) {
          return false;
        }
      }
      return true;
    default: return false;
  }
}

// The view's query as PostgreSQL SQL over its own tables, when PostgreSQL computes the same rows
// (SameInPostgres); else null.
Result<std::unique_ptr<sql::Query>> InsidePostgres(const binder::RelPtr& query,
                                                   const catalog::Schema& sink) {
  if (!SameInPostgres(*query, sink)) return std::unique_ptr<sql::Query>();
  binder::ToSqlOptions to_sql;
  to_sql.table_path = [](const binder::Rel& scan) {
    return *catalog::PostgresTablePath(*scan.table);
  };
  to_sql.column_name = [](const binder::Rel&, const std::string& column) {
    return catalog::PostgresName(column);
  };
  return binder::ToSql(*binder::Simplify(query), to_sql);
}

// Writes the query's rows into the PostgreSQL table of `sink`: inside PostgreSQL when it can run
// the query, else from the local engine by COPY.
Result<int64_t> WritePostgres(const catalog::Catalog& cat, const RefreshOptions& options,
                              const catalog::Schema& schema, const catalog::Table& sink,
                              const binder::RelPtr& query, std::string& how) {
  HOP_ASSIGN_OR_RETURN(std::unique_ptr<catalog::PostgresTableWriter> writer,
                       catalog::PostgresTableWriter::Begin(schema, sink.name, query->row_type));
  const char* mode = writer->key().empty() ? "replaced" : "upserted";
  // The table written, and those a query inside PostgreSQL would read, have the columns hop
  // declares (the local engine's scans check the values they read themselves).
  HOP_RETURN_IF_ERROR(writer->CheckColumns(sink));
  HOP_ASSIGN_OR_RETURN(std::unique_ptr<sql::Query> inside, InsidePostgres(query, schema));
  if (inside) {
    for (const binder::Rel* scan : binder::Scans(*query)) {
      if (scan->table != nullptr) HOP_RETURN_IF_ERROR(writer->CheckColumns(*scan->table));
    }
    Status st = writer->InsertQuery(std::move(inside));
    if (st.ok()) {
      how = fmt::format("{} inside PostgreSQL (INSERT ... SELECT)", mode);
      return writer->Commit();
    }
    how = fmt::format("{} by COPY from the local engine (PostgreSQL refused the query: {})",
                      mode, st.message());
  } else {
    how = fmt::format("{} by COPY from the local engine", mode);
  }
  HOP_ASSIGN_OR_RETURN(std::unique_ptr<engine::Engine> engine,
                       engine::Engine::Open({options.state_dir}));
  HOP_ASSIGN_OR_RETURN(std::unique_ptr<engine::Cursor> cursor,
                       engine->Query(cat, *query, engine::Budget{}));
  HOP_RETURN_IF_ERROR(writer->StartCopy());
  constexpr size_t kChunk = 256 * 1024;
  const std::vector<engine::Rep>& reps = cursor->reps();
  const int width = static_cast<int>(reps.size());
  // The columns whose values are checked against the table's types before they are sent: a REAL
  // the engine holds as a double would go out as Infinity (engine::CheckFits).
  std::vector<std::pair<int, engine::Rep>> checked;
  for (int c = 0; c < width && c < static_cast<int>(sink.row_type.columns.size()); ++c) {
    const catalog::Column& column = sink.row_type.columns[static_cast<size_t>(c)];
    const engine::Rep to = engine::RepOf(column.type);
    if (to.type.name == sql::TypeName::kReal || to.type.name == sql::TypeName::kTinyInt ||
        to.type.name == sql::TypeName::kSmallInt || to.type.name == sql::TypeName::kInteger) {
      checked.emplace_back(c, to);
    }
  }
  std::string chunk;
  chunk.reserve(kChunk + 4096);
  for (;;) {
    HOP_ASSIGN_OR_RETURN(bool row, cursor->Next());
    if (!row) break;
    for (const auto& [c, to] : checked) {
      if (cursor->IsNull(c)) continue;
      Status fits = engine::CheckFits(cursor->GetValue(c), reps[static_cast<size_t>(c)], to,
                                      sink.row_type.columns[static_cast<size_t>(c)].name);
      if (!fits.ok()) {
        return Status::ExecutionError(
            fmt::format("{}, row {}: {}", sink.QualifiedName(), cursor->rows(), fits.message()));
      }
    }
    for (int c = 0; c < width; ++c) {
      if (c > 0) chunk += '\t';
      cursor->AppendCopyField(c, chunk);
    }
    chunk += '\n';
    if (chunk.size() >= kChunk) {
      HOP_RETURN_IF_ERROR(writer->Write(chunk));
      chunk.clear();
    }
  }
  if (!chunk.empty()) HOP_RETURN_IF_ERROR(writer->Write(chunk));
  cursor.reset();
  return writer->Commit();
}

// The rows of `sink` become the query's, then the watermark of `ref` (the View or Table that
// keeps it) the one the refresh earns: the steps a refresh and a fill share. The inputs'
// watermarks are read before the query reads their rows, so that the rows read hold at least
// what those watermarks promise (docs/runtime.md, "Refreshes").
Result<RefreshOutcome> Replace(store::Store& store, const catalog::Catalog& cat,
                               const RefreshOptions& options, const catalog::Table& sink,
                               const binder::RelPtr& query, const store::ObjectRef& ref,
                               SystemTime snapshot,
                               const std::optional<ReadView>& read = std::nullopt) {
  HOP_ASSIGN_OR_RETURN(const catalog::Schema* schema, cat.SchemaFor(sink.path));
  HOP_ASSIGN_OR_RETURN(std::vector<op::RefreshInput> inputs,
                       op::RefreshInputs(store, cat, *query, options.namespace_name));
  for (const op::RefreshInput& input : inputs) {
    if (!input.unfilled.empty()) {
      return Status::InvalidArgument(fmt::format(
          "{} reads {}, a table CREATE TABLE ... AS fills, and {}: it holds none of its query's "
          "rows, so no rows or watermark can be computed from it; fill it first (hop refresh "
          "table/{})",
          sink.QualifiedName(), input.name, input.unfilled, input.resource));
    }
    if (!input.never_refreshed) continue;
    return Status::InvalidArgument(fmt::format(
        "{} reads {}, a materialized view hop refreshes that has never been refreshed: its table "
        "holds none of its query's rows yet, so no rows or watermark can be computed from it; "
        "refresh it first (REFRESH MATERIALIZED VIEW {})",
        sink.QualifiedName(), input.name, input.name));
  }
  const op::EarnedWatermark earned = op::EarnWatermark(inputs, snapshot);
  RefreshOutcome outcome;
  if (schema->adapter == catalog::Adapter::kPostgres) {
    HOP_ASSIGN_OR_RETURN(outcome.rows,
                         WritePostgres(cat, options, *schema, sink, query, outcome.how));
  } else {
    binder::BoundInsert insert;
    insert.target = &sink;
    insert.query = query;
    for (size_t i = 0; i < sink.row_type.columns.size(); ++i) {
      insert.target_columns.push_back(static_cast<int>(i));
    }
    HOP_ASSIGN_OR_RETURN(std::unique_ptr<engine::Engine> engine,
                         engine::Engine::Open({options.state_dir}));
    HOP_ASSIGN_OR_RETURN(outcome.rows, engine->Replace(cat, insert, engine::Budget{}));
    outcome.how = "replaced in the local database";
  }
  HOP_ASSIGN_OR_RETURN(outcome.watermark,
                       AdvanceWatermark(store, ref, sink.QualifiedName(), earned.at, read, options,
                                        outcome.moved_back));
  outcome.view = sink.QualifiedName();
  outcome.resource = ref.name;
  outcome.fill = ref.kind == resource::TableKind::Info().group_kind();
  outcome.snapshot = snapshot;
  outcome.earned = earned.at;
  outcome.earned_from = earned.input;
  return outcome;
}

// CREATE TABLE ... AS query: the table's rows become the query's (its kFillAnnotation), then
// its watermark the one the fill earns.
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
  return Replace(store, cat, options, *table, query, ref, snapshot,
                 ReadView{resource->uid(), fill->second});
}

}  // namespace

Result<RefreshOutcome> RefreshView(store::Store& store, const RefreshOptions& options) {
  using std::chrono::milliseconds;
  // What the refresh reads is what the sources hold from now: the watermark it earns when they
  // claim nothing more (op::EarnWatermark).
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

  // The View whose query the catalog holds: the one read after it, if its query is the same
  // (a view replaced in between is refreshed with its new query next time).
  const store::ObjectRef ref = ViewRef(options.namespace_name, view->resource);
  HOP_ASSIGN_OR_RETURN(Resource resource, store.Get(ref));
  if (ViewKind::kSql.Get(resource).value_or("") != view->sql) {
    return Status::Conflict(fmt::format("{} was replaced as its refresh began; refresh it again",
                                        view->QualifiedName()));
  }
  const ReadView read{resource.uid(), view->sql};

  binder::Binder binder(cat);
  HOP_ASSIGN_OR_RETURN(binder::RelPtr query, binder.BindView(*view));
  catalog::Table sink = *view;
  sink.kind = catalog::ObjectKind::kTable;
  sink.sql.clear();
  sink.row_type = query->row_type;
  return Replace(store, cat, options, sink, query, ref, snapshot, read);
}

}  // namespace hop::runtime
