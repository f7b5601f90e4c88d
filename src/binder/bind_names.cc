// Binding names: a table name is a common table expression or a catalog table, a view is inlined
// (bound once per Binder, its cycles and nesting bounded), and a column reference is resolved in
// its scope (qualified by alias or path, then ROW fields), or one level out as a correlated
// reference.
#include <fmt/format.h>

#include <algorithm>

#include "binder/binder_impl.h"
#include "common/strings.h"
#include "sql/ast/query_statement.h"
#include "sql/parser.h"

namespace hop::binder {

namespace {

// Views may refer to views; this bounds the chain, counting the view being defined, so that
// whatever can be created can be queried. Cycles are found separately, with their path.
constexpr size_t kMaxViewDepth = 64;

}  // namespace

Result<From> Binder::Impl::Table(const sql::BaseTableRef& ref, const Scope* outer) {
  (void)outer;
  const auto& parts = ref.name.parts;
  if (parts.size() == 1) {
    for (auto it = ctes_.rbegin(); it != ctes_.rend(); ++it) {
      if (it->first == parts[0].name) {
        if (it->second == nullptr) {
          return ErrorCode(StatusCode::kInvalidArgument, ref.loc,
                           fmt::format("WITH RECURSIVE: {} refers to itself, and hop does not "
                                       "run recursive queries",
                                       parts[0].name));
        }
        return Aliased(it->second, parts[0].name, {parts[0].name}, ref.alias, ref.loc);
      }
    }
  }
  std::vector<std::string> path;
  for (const auto& p : parts) path.push_back(p.name);
  const bool pg_path = path.size() == 2 && PgCatalog::IsSchema(path[0]);
  auto resolved = pg_path ? Result<const catalog::Table*>(nullptr) : catalog_.Resolve(path);
  if (pg_path || (!resolved.ok() && path.size() == 1 && PgCatalog::HasPgCatalogTable(path[0]))) {
    // PostgreSQL's catalog (pg_catalog.h); an unqualified pg_catalog name the catalog has no
    // table for is pg_catalog's, as on PostgreSQL's search path.
    std::shared_ptr<const catalog::Table> pg = PgTable(path);
    if (!pg) {
      return ErrorCode(StatusCode::kCatalogNotFound, ref.loc,
                       fmt::format("Object '{}' not found within '{}': hop emulates only the "
                                   "tables of PostgreSQL's catalog that docs/pg_catalog.md lists",
                                   path[1], path[0]));
    }
    Rel scan;
    scan.kind = RelKind::kScan;
    scan.table = pg.get();
    scan.path = pg->path;
    scan.row_type = pg->row_type;
    scan.owned_table = pg;
    return Aliased(MakeRel(std::move(scan)), pg->name, pg->path, ref.alias, ref.loc);
  }
  if (!resolved.ok()) {
    return ErrorCode(resolved.status().code(), ref.loc, resolved.status().message());
  }
  const catalog::Table* table = *resolved;
  if (view_stack_.empty() &&
      std::find(direct_inputs_.begin(), direct_inputs_.end(), table) == direct_inputs_.end()) {
    direct_inputs_.push_back(table);
  }
  RelPtr rel;
  if (defined_view_ && table->kind != catalog::ObjectKind::kTable &&
      table->path == *defined_view_) {
    // The catalog still has the view's old definition: reaching it means the new one would
    // read itself.
    std::string cycle = hop::Join(*defined_view_, ".");
    for (const catalog::Table* v : view_stack_) cycle += " -> " + v->QualifiedName();
    cycle += " -> " + hop::Join(*defined_view_, ".");
    return ErrorCode(
        StatusCode::kBind, ref.loc,
        fmt::format("View {} would depend on itself: {}", hop::Join(*defined_view_, "."), cycle));
  }
  const bool stored = table->kind == catalog::ObjectKind::kMaterializedView && StoresRows(*table);
  if (table->kind != catalog::ObjectKind::kTable && !table->sql.empty() && !stored) {
    HOP_ASSIGN_OR_RETURN(rel, View(*table));
  } else {
    // A logical table's rows are its tier's: the scan reads that table, under the logical name.
    const catalog::Table* read = catalog_.ReadTable(*table);
    Rel scan;
    scan.kind = RelKind::kScan;
    scan.table = read;
    scan.path = read->path;
    scan.row_type = read->row_type;
    if (stored) {
      // A materialized view hop refreshes is read from its table: the rows of its last refresh,
      // with the row type of its query.
      HOP_ASSIGN_OR_RETURN(RelPtr query, View(*table));
      scan.row_type = query->row_type;
      HOP_ASSIGN_OR_RETURN(scan.table, StoredRows(*table, ref.loc));
    }
    rel = MakeRel(std::move(scan));
  }
  return Aliased(std::move(rel), table->name, table->path, ref.alias, ref.loc);
}

Result<const catalog::Table*> Binder::Impl::StoredRows(const catalog::Table& view,
                                                      const sql::Location& loc) const {
  HOP_ASSIGN_OR_RETURN(const catalog::Schema* schema, catalog_.SchemaFor(view.path));
  if (schema->adapter != catalog::Adapter::kPostgres) return &view;  // a local file's table
  // In PostgreSQL, the table hop created for it, read through the adapter.
  const catalog::Table* rows = nullptr;
  if (schema->discovery) {
    auto found = schema->discovery->Find(view.name);
    if (!found.ok()) return ErrorCode(found.status().code(), loc, found.status().message());
    rows = *found;
  }
  if (rows == nullptr) {
    return ErrorCode(StatusCode::kBind, loc,
                     fmt::format("Materialized view {} has no table in database {}: its rows "
                                 "are kept there, and it is not there (dropped outside hop?)",
                                 view.QualifiedName(), schema->database));
  }
  return rows;
}

bool Binder::Impl::StoresRows(const catalog::Table& view) const {
  auto schema = catalog_.SchemaFor(view.path);
  return schema.ok() && catalog::HopWritesTables(**schema);
}

Result<RelPtr> Binder::Impl::View(const catalog::Table& view) {
  if (auto it = views_.find(&view); it != views_.end()) return it->second;
  if (auto first = std::find(view_stack_.begin(), view_stack_.end(), &view);
      first != view_stack_.end()) {
    // A cycle stored before hop refused them at creation.
    std::string cycle;
    for (auto it = first; it != view_stack_.end(); ++it) cycle += (*it)->QualifiedName() + " -> ";
    cycle += view.QualifiedName();
    return Status::BindError(
        fmt::format("View {} depends on itself: {}", view.QualifiedName(), cycle));
  }
  if (view_stack_.size() + (defined_view_ ? 1 : 0) >= kMaxViewDepth) {
    const std::string outermost =
        defined_view_ ? hop::Join(*defined_view_, ".") : view_stack_.front()->QualifiedName();
    return Status::BindError(
        fmt::format("View {} nests views more than {} deep (reaching {}): hop expands at most {} "
                    "levels of views",
                    outermost, kMaxViewDepth, view.QualifiedName(), kMaxViewDepth));
  }
  auto parsed = sql::ParseStatement(view.sql);
  if (!parsed.ok()) {
    return Status::BindError(fmt::format("View {} has SQL hop cannot parse: {}",
                                         view.QualifiedName(), parsed.status().message()));
  }
  if ((*parsed)->kind != sql::StatementKind::kQuery) {
    return Status::BindError(fmt::format("View {} is not a query", view.QualifiedName()));
  }
  // A view's names resolve without the CTEs of the query that reads it.
  auto saved_ctes = std::move(ctes_);
  ctes_.clear();
  view_stack_.push_back(&view);
  auto rel = Query(*(*parsed)->As<sql::QueryStatement>().query, nullptr);
  view_stack_.pop_back();
  ctes_ = std::move(saved_ctes);
  if (!rel.ok()) return rel.status();
  views_.emplace(&view, *rel);
  return *rel;
}

Result<ScalarPtr> Binder::Impl::Column(const sql::ColumnRefExpr& ref, const Scope& scope) {
  const auto& parts = ref.name.parts;
  // Try the longest table qualifier first: s.t.c, then t.c, then c; what is left over are
  // ROW field accesses.
  struct Match {
    int index = -1;
    size_t used = 0;  // parts consumed by qualifier + column
  };
  auto resolve_in = [&](const Scope& s, Match* match, bool* ambiguous) {
    for (size_t q = std::min<size_t>(parts.size() - 1, 3);; --q) {
      // q parts of qualifier, then the column.
      const std::string& column = parts[q].name;
      int found = -1;
      int count = 0;
      if (q == 0) {
        if (auto m = s.merged.find(column); m != s.merged.end()) {
          found = m->second;
          count = 1;
        } else {
          for (size_t i = 0; i < s.row.columns.size(); ++i) {
            if (s.row.columns[i].name == column && !s.hidden.count(static_cast<int>(i))) {
              if (found < 0) found = static_cast<int>(i);
              ++count;
            }
          }
        }
      } else {
        for (const auto& t : s.tables) {
          bool match_table = false;
          if (q == 1) {
            match_table = t.alias == parts[0].name;
          } else if (t.path.size() >= q) {
            match_table = true;
            for (size_t k = 0; k < q; ++k) {
              if (t.path[t.path.size() - q + k] != parts[k].name) match_table = false;
            }
          }
          if (!match_table) continue;
          int c = t.row_type.Find(column);
          if (c >= 0) {
            if (found < 0) found = t.offset + c;
            ++count;
          }
        }
      }
      if (count > 1) {
        *ambiguous = true;
        match->used = q + 1;
        return;
      }
      if (found >= 0) {
        match->index = found;
        match->used = q + 1;
        return;
      }
      if (q == 0) return;
    }
  };
  Match match;
  bool ambiguous = false;
  resolve_in(scope, &match, &ambiguous);
  if (ambiguous) {
    return Error(ref.loc, fmt::format("Column '{}' is ambiguous", parts[match.used - 1].name));
  }
  if (match.index < 0) {
    int depth = 1;
    for (const Scope* o = scope.outer; o; o = o->outer, ++depth) {
      Match outer_match;
      bool outer_ambiguous = false;
      resolve_in(*o, &outer_match, &outer_ambiguous);
      if (outer_ambiguous) {
        return Error(ref.loc,
                     fmt::format("Column '{}' is ambiguous", parts[outer_match.used - 1].name));
      }
      if (outer_match.index < 0) continue;
      // A correlated reference: one level up, to a plain column.
      if (depth > 1 || outer_match.used != parts.size()) {
        return Error(ref.loc, fmt::format("Column '{}' refers to a query more than one level "
                                          "out, or to a field of one; hop supports correlated "
                                          "references to the enclosing query's columns only",
                                          ref.name.ToString()));
      }
      ++outer_refs_;
      Scalar s;
      s.kind = ScalarKind::kOuterRef;
      s.index = outer_match.index;
      s.type = o->row.columns[outer_match.index].type;
      return Make(std::move(s));
    }
    if (parts.size() >= 2) {
      // Name the missing table if no table matches the qualifier.
      bool table_exists = false;
      for (const auto& t : scope.tables) {
        if (t.alias == parts[parts.size() - 2].name) table_exists = true;
        if (parts.size() == 2 && t.alias == parts[0].name) table_exists = true;
      }
      if (!table_exists) {
        std::string qualifier;
        for (size_t i = 0; i + 1 < parts.size(); ++i) qualifier += (i ? "." : "") + parts[i].name;
        return Error(ref.loc, fmt::format("Table '{}' not found", qualifier));
      }
      return Error(ref.loc, fmt::format("Column '{}' not found in table '{}'", parts.back().name,
                                        parts[parts.size() - 2].name));
    }
    return Error(ref.loc, fmt::format("Column '{}' not found in any table", parts.back().name));
  }
  ScalarPtr s = InputRef(match.index, scope.row.columns[match.index].type);
  for (size_t k = match.used; k < parts.size(); ++k) {
    const DataType& t = s->type;
    if (t.name != TypeName::kRow) {
      return Error(parts[k].loc, fmt::format("Column '{}' is not a ROW; it has no field '{}'",
                                             parts[k - 1].name, parts[k].name));
    }
    int field = -1;
    for (size_t f = 0; f < t.fields.size(); ++f) {
      if (t.fields[f].name.name == parts[k].name) field = static_cast<int>(f);
    }
    if (field < 0) {
      return Error(parts[k].loc, fmt::format("Unknown field '{}'", parts[k].name));
    }
    Scalar access;
    access.kind = ScalarKind::kField;
    access.index = field;
    access.text = parts[k].name;
    access.type =
        WithNullable(t.fields[field].type, IsNullable(t.fields[field].type) || IsNullable(t));
    access.args = {s};
    s = Make(std::move(access));
  }
  return s;
}

}  // namespace hop::binder
