// Binding INSERT: the target must be a table; its columns (all, or the listed ones, each once)
// are filled by the query's in order, renamed to them, with an assignment cast where the types
// differ, merged into the query's own select list so that the SQL shows one SELECT.
#include <fmt/format.h>

#include <algorithm>

#include "binder/binder_impl.h"
#include "common/strings.h"
#include "sql/unparser.h"

namespace hop::binder {

namespace {

ScalarPtr CastTo(ScalarPtr operand, DataType type) {
  Scalar s;
  s.kind = ScalarKind::kCast;
  s.args = {std::move(operand)};
  s.type = std::move(type);
  return Make(std::move(s));
}

bool HasWindow(const ScalarPtr& s) {
  if (!s) return false;
  if (s->window) return true;
  return std::any_of(s->args.begin(), s->args.end(), HasWindow);
}

}  // namespace

Result<BoundInsert> Binder::Impl::Insert(const sql::InsertStatement& insert) {
  std::vector<std::string> path;
  for (const auto& p : insert.target.parts) path.push_back(p.name);
  auto resolved = catalog_.Resolve(path);
  if (!resolved.ok() && ((path.size() == 2 && PgCatalog::IsSchema(path[0])) ||
                         (path.size() == 1 && PgCatalog::HasPgCatalogTable(path[0])))) {
    return Error(insert.target.loc(),
                 fmt::format("{} is PostgreSQL's catalog of this namespace, read only: its rows "
                             "describe the catalog (docs/pg_catalog.md)",
                             hop::Join(path, ".")));
  }
  if (!resolved.ok()) {
    return ErrorCode(resolved.status().code(), insert.target.loc(), resolved.status().message());
  }
  const catalog::Table* target = *resolved;
  if (target->kind != catalog::ObjectKind::kTable) {
    return Error(insert.target.loc(),
                 fmt::format("Cannot INSERT INTO {}: it is a view", target->QualifiedName()));
  }
  HOP_ASSIGN_OR_RETURN(RelPtr query, Query(*insert.query, nullptr));
  BoundInsert out;
  out.target = target;
  const auto& tcols = target->row_type.columns;
  if (insert.columns.empty()) {
    for (size_t i = 0; i < tcols.size(); ++i) out.target_columns.push_back(static_cast<int>(i));
  } else {
    for (const auto& c : insert.columns) {
      int index = target->row_type.Find(c.name);
      if (index < 0) {
        return Error(c.loc, fmt::format("Unknown target column '{}'", c.name));
      }
      if (std::find(out.target_columns.begin(), out.target_columns.end(), index) !=
          out.target_columns.end()) {
        return Error(c.loc, fmt::format("Target column '{}' is assigned more than once", c.name));
      }
      out.target_columns.push_back(index);
    }
  }
  const auto& qcols = query->row_type.columns;
  if (qcols.size() != out.target_columns.size()) {
    return Error(insert.query->loc,
                 fmt::format("Number of INSERT target columns ({}) does not equal number of "
                             "source items ({})",
                             out.target_columns.size(), qcols.size()));
  }
  // Name each query column after its target column, casting where the types differ.
  std::vector<ScalarPtr> exprs;
  bool changed = false;
  Rel project;
  project.kind = RelKind::kProject;
  for (size_t i = 0; i < qcols.size(); ++i) {
    const catalog::Column& target_col = tcols[out.target_columns[i]];
    ScalarPtr ref = InputRef(static_cast<int>(i), qcols[i].type);
    DataType want = WithNullable(target_col.type, IsNullable(qcols[i].type));
    if (!Assignable(qcols[i].type, target_col.type)) {
      return Error(insert.query->loc,
                   fmt::format("Cannot assign to target field '{}' of type {} from source field "
                               "'{}' of type {}",
                               target_col.name, sql::TypeString(target_col.type, true),
                               qcols[i].name, sql::TypeString(qcols[i].type, true)));
    }
    bool same_family_and_size = qcols[i].type.name == target_col.type.name ||
                                (IsCharacter(qcols[i].type) && IsCharacter(target_col.type)) ||
                                IsNull(qcols[i].type);
    if (!same_family_and_size) {
      ref = CastTo(ref, want);
      changed = true;
    }
    if (qcols[i].name != target_col.name) changed = true;
    exprs.push_back(ref);
    project.row_type.columns.push_back({target_col.name, ref->type});
  }
  if (!changed) {
    out.query = std::move(query);
    return out;
  }
  project.exprs = std::move(exprs);
  project.inputs = {query};
  out.query = MakeRel(std::move(project));
  // Merge into the query's own top Project, so the SQL shows one SELECT.
  if (query->kind == RelKind::kProject &&
      !std::any_of(query->exprs.begin(), query->exprs.end(), HasWindow)) {
    Rel merged = *out.query;
    for (auto& e : merged.exprs) e = SubstituteInputs(e, query->exprs);
    merged.inputs = query->inputs;
    out.query = MakeRel(std::move(merged));
  }
  return out;
}

}  // namespace hop::binder
