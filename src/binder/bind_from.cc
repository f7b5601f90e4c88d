// Binding FROM items: derived tables and their aliases (with column lists), joins (NATURAL and
// USING as explicit ON conditions on the common columns, outer joins making the other side
// nullable), and UNNEST of arrays, multisets, maps and of a query. Tables are in bind_names.cc.
#include <fmt/format.h>

#include <algorithm>

#include "binder/binder_impl.h"
#include "sql/unparser.h"

namespace hop::binder {

namespace {

ScalarPtr And(std::vector<ScalarPtr> terms) {
  if (terms.empty()) return nullptr;
  ScalarPtr out = terms[0];
  for (size_t i = 1; i < terms.size(); ++i) {
    bool nullable = IsNullable(out->type) || IsNullable(terms[i]->type);
    out = Binary(sql::BinaryOp::kAnd, out, terms[i],
                 WithNullable(DataType(TypeName::kBoolean), nullable));
  }
  return out;
}

ScalarPtr Equals(int left, const DataType& lt, int right, const DataType& rt) {
  bool nullable = IsNullable(lt) || IsNullable(rt);
  return Binary(sql::BinaryOp::kEq, InputRef(left, lt), InputRef(right, rt),
                WithNullable(DataType(TypeName::kBoolean), nullable));
}

}  // namespace

Result<From> Binder::Impl::Aliased(RelPtr rel, std::string alias, std::vector<std::string> path,
                                   const std::optional<sql::TableAlias>& alias_clause,
                                   sql::Location loc) {
  if (alias_clause) {
    alias = alias_clause->name.name;
    path = {alias};
    if (!alias_clause->columns.empty()) {
      if (alias_clause->columns.size() != rel->row_type.columns.size()) {
        return Error(loc, fmt::format("List of column aliases must have same degree as table; "
                                      "table has {} columns ({}), whereas alias list has {} "
                                      "columns",
                                      rel->row_type.columns.size(), QuotedList(rel->row_type),
                                      alias_clause->columns.size()));
      }
      std::vector<std::string> names;
      for (const auto& c : alias_clause->columns) names.push_back(c.name);
      rel = Rename(rel, names);
    }
  }
  From from;
  from.scope.tables.push_back({alias, std::move(path), rel->row_type, 0});
  from.scope.row = rel->row_type;
  from.rel = std::move(rel);
  return from;
}

Result<From> Binder::Impl::FromItem(const sql::TableRef& ref, const Scope* outer,
                                    const From* lateral) {
  switch (ref.kind) {
    case sql::TableRefKind::kTable: return Table(ref.As<sql::BaseTableRef>(), outer);
    case sql::TableRefKind::kSubquery: {
      const auto& sub = ref.As<sql::SubqueryRef>();
      if (sub.lateral) return Error(sub.loc, "LATERAL subqueries are not supported");
      HOP_ASSIGN_OR_RETURN(RelPtr rel, Query(*sub.query, outer));
      std::string alias = fmt::format("EXPR${}", subquery_aliases_++);
      return Aliased(std::move(rel), alias, {alias}, sub.alias, sub.loc);
    }
    case sql::TableRefKind::kJoin: return Join(ref.As<sql::JoinRef>(), outer, lateral);
    case sql::TableRefKind::kUnnest: return Unnest(ref.As<sql::UnnestRef>(), outer, lateral);
    case sql::TableRefKind::kFunction:
      return TableFunction(ref.As<sql::FunctionRef>(), outer, lateral);
  }
  return Status::Internal("unknown table reference");
}

Result<From> Binder::Impl::Join(const sql::JoinRef& join, const Scope* outer, const From* lateral) {
  HOP_ASSIGN_OR_RETURN(From left, FromItem(*join.left, outer, lateral));
  HOP_ASSIGN_OR_RETURN(From right, FromItem(*join.right, outer, &left));
  From out;
  out.scope = left.scope;
  const int width = static_cast<int>(left.scope.row.columns.size());
  for (auto t : right.scope.tables) {
    t.offset += width;
    out.scope.tables.push_back(std::move(t));
  }
  for (const auto& c : right.scope.row.columns) out.scope.row.columns.push_back(c);
  for (int h : right.scope.hidden) out.scope.hidden.insert(h + width);
  // Columns merged inside the right input stay merged, shifted.
  for (const auto& [name, index] : right.scope.merged) {
    if (!out.scope.merged.count(name)) out.scope.merged[name] = index + width;
  }
  out.scope.outer = outer;

  Rel rel;
  rel.kind = RelKind::kJoin;
  rel.join_type = join.type;
  rel.row_type = out.scope.row;
  // Outer joins make the other side's columns nullable.
  auto make_nullable = [&](int from, int to) {
    for (int i = from; i < to; ++i) {
      rel.row_type.columns[i].type = WithNullable(rel.row_type.columns[i].type, true);
    }
  };
  const int total = static_cast<int>(rel.row_type.columns.size());
  if (join.type == sql::JoinType::kLeft || join.type == sql::JoinType::kFull) {
    make_nullable(width, total);
  }
  if (join.type == sql::JoinType::kRight || join.type == sql::JoinType::kFull) {
    make_nullable(0, width);
  }
  out.scope.row = rel.row_type;

  std::vector<std::string> common;
  if (join.natural) {
    for (const auto& c : left.scope.row.columns) {
      if (left.scope.hidden.count(left.scope.row.Find(c.name))) continue;
      bool in_right = false;
      for (size_t i = 0; i < right.scope.row.columns.size(); ++i) {
        if (right.scope.row.columns[i].name == c.name &&
            !right.scope.hidden.count(static_cast<int>(i))) {
          in_right = true;
        }
      }
      if (in_right && std::find(common.begin(), common.end(), c.name) == common.end()) {
        common.push_back(c.name);
      }
    }
  } else {
    for (const auto& u : join.using_cols) common.push_back(u.name);
  }
  std::vector<ScalarPtr> terms;
  for (size_t k = 0; k < common.size(); ++k) {
    const std::string& name = common[k];
    auto find_one = [&](const Scope& s, int* index) -> Status {
      int found = -1, count = 0;
      for (size_t i = 0; i < s.row.columns.size(); ++i) {
        if (s.row.columns[i].name == name && !s.hidden.count(static_cast<int>(i))) {
          if (found < 0) found = static_cast<int>(i);
          ++count;
        }
      }
      if (auto m = s.merged.find(name); m != s.merged.end()) {
        found = m->second;
        count = 1;
      }
      sql::Location loc = join.natural ? join.loc : join.using_cols[k].loc;
      if (count == 0) {
        return Error(loc, fmt::format("Column '{}' not found in any table", name));
      }
      if (count > 1)
        return Error(loc, fmt::format("Column name '{}' in USING clause is not "
                                      "unique on one side of join",
                                      name));
      *index = found;
      return Status::OK();
    };
    int li = 0, ri = 0;
    HOP_RETURN_IF_ERROR(find_one(left.scope, &li));
    HOP_RETURN_IF_ERROR(find_one(right.scope, &ri));
    ri += width;
    const DataType& lt = out.scope.row.columns[li].type;
    const DataType& rt = out.scope.row.columns[ri].type;
    if (!Comparable(lt, rt)) {
      return Error(join.loc, fmt::format("Column '{}' matched using NATURAL keyword or USING "
                                         "clause has incompatible types: cannot compare '{}' "
                                         "to '{}'",
                                         name, sql::TypeString(lt), sql::TypeString(rt)));
    }
    terms.push_back(Equals(li, lt, ri, rt));
    // Unqualified references mean the left copy (the right one for RIGHT JOIN).
    bool right_wins = join.type == sql::JoinType::kRight;
    out.scope.merged[name] = right_wins ? ri : li;
    out.scope.hidden.insert(right_wins ? li : ri);
  }
  if (join.natural || !join.using_cols.empty()) {
    rel.condition = terms.empty() ? nullptr : And(std::move(terms));
    if (!rel.condition && rel.join_type == sql::JoinType::kInner) {
      rel.join_type = sql::JoinType::kCross;
    }
  } else if (join.on) {
    ExprContext ctx;
    ctx.scope = &out.scope;
    ctx.in_join_condition = true;
    if (ContainsAggregate(join.on.get())) {
      return Error(join.on->loc, "Aggregate expression is illegal in ON clause");
    }
    HOP_ASSIGN_OR_RETURN(rel.condition, Expr(*join.on, ctx));
    if (!IsBoolean(rel.condition->type) && !IsNull(rel.condition->type)) {
      return Error(join.on->loc, "ON clause condition must be a boolean expression");
    }
  }
  if (rel.join_type == sql::JoinType::kComma) rel.join_type = sql::JoinType::kCross;
  rel.inputs = {left.rel, right.rel};
  out.rel = MakeRel(std::move(rel));
  return out;
}

Result<From> Binder::Impl::Unnest(const sql::UnnestRef& unnest, const Scope* outer,
                                  const From* lateral) {
  if (unnest.args.size() == 1 && unnest.args[0]->kind == ExprKind::kSubquery) {
    return UnnestQuery(unnest, outer);
  }
  Scope scope;
  if (lateral) scope = lateral->scope;
  scope.outer = outer;
  ExprContext ctx;
  ctx.scope = &scope;
  Rel rel;
  rel.kind = RelKind::kUnnest;
  rel.with_ordinality = unnest.with_ordinality;
  for (const auto& arg : unnest.args) {
    HOP_ASSIGN_OR_RETURN(ScalarPtr s, Expr(*arg, ctx));
    const DataType& t = s->type;
    if (t.name == TypeName::kArray || t.name == TypeName::kMultiset) {
      const DataType& element = t.params[0];
      if (element.name == TypeName::kRow) {
        for (const auto& f : element.fields) {
          rel.row_type.columns.push_back({f.name.name, f.type});
        }
      } else {
        rel.row_type.columns.push_back(
            {fmt::format("EXPR${}", rel.row_type.columns.size()), element});
      }
    } else if (t.name == TypeName::kMap) {
      rel.row_type.columns.push_back({"KEY", t.params[0]});
      rel.row_type.columns.push_back({"VALUE", t.params[1]});
    } else {
      return Error(arg->loc, fmt::format("Cannot apply 'UNNEST' to arguments of type "
                                         "'UNNEST(<{}>)'. Supported form(s): "
                                         "'UNNEST(<MULTISET>)' 'UNNEST(<ARRAY>)' "
                                         "'UNNEST(<MAP>)'",
                                         sql::TypeString(t)));
    }
    rel.exprs.push_back(std::move(s));
  }
  if (rel.with_ordinality) {
    rel.row_type.columns.push_back({"ORDINALITY", NotNull(TypeName::kInteger)});
  }
  std::string alias = fmt::format("EXPR${}", subquery_aliases_++);
  return NameUnnest(std::move(rel), alias, unnest);
}

Result<From> Binder::Impl::NameUnnest(Rel rel, std::string alias, const sql::UnnestRef& unnest) {
  // Column aliases name the UNNEST's own columns (it must stay the direct input of its join).
  // Without them, a one-column UNNEST takes the table alias as its column's name.
  std::optional<sql::TableAlias> table_alias = unnest.alias;
  if (table_alias && table_alias->columns.empty() && rel.row_type.columns.size() == 1) {
    rel.row_type.columns[0].name = table_alias->name.name;
  }
  if (table_alias && !table_alias->columns.empty()) {
    if (table_alias->columns.size() != rel.row_type.columns.size()) {
      return Error(unnest.loc, fmt::format("List of column aliases must have same degree as "
                                           "table; table has {} columns ({}), whereas alias "
                                           "list has {} columns",
                                           rel.row_type.columns.size(), QuotedList(rel.row_type),
                                           table_alias->columns.size()));
    }
    for (size_t i = 0; i < table_alias->columns.size(); ++i) {
      rel.row_type.columns[i].name = table_alias->columns[i].name;
    }
    table_alias->columns.clear();
  }
  return Aliased(MakeRel(std::move(rel)), alias, {alias}, table_alias, unnest.loc);
}

// `UNNEST(SELECT ...)`: every row of the query, each of its collections unnested.
Result<From> Binder::Impl::UnnestQuery(const sql::UnnestRef& unnest, const Scope* outer) {
  HOP_ASSIGN_OR_RETURN(RelPtr query, Query(*unnest.args[0]->As<sql::SubqueryExpr>().query, outer));
  Rel u;
  u.kind = RelKind::kUnnest;
  u.with_ordinality = unnest.with_ordinality;
  for (size_t i = 0; i < query->row_type.columns.size(); ++i) {
    const DataType& t = query->row_type.columns[i].type;
    if (t.name == TypeName::kArray) {
      if (t.params[0].name == TypeName::kRow) {
        for (const auto& f : t.params[0].fields)
          u.row_type.columns.push_back({f.name.name, f.type});
      } else {
        u.row_type.columns.push_back({query->row_type.columns[i].name, t.params[0]});
      }
    } else if (t.name == TypeName::kMap) {
      u.row_type.columns.push_back({"KEY", t.params[0]});
      u.row_type.columns.push_back({"VALUE", t.params[1]});
    } else {
      return Error(unnest.args[0]->loc,
                   fmt::format("UNNEST of a query needs ARRAY or MAP columns; column '{}' is {}",
                               query->row_type.columns[i].name, sql::TypeString(t)));
    }
    u.exprs.push_back(InputRef(static_cast<int>(i), t));
  }
  if (u.with_ordinality) {
    u.row_type.columns.push_back({"ORDINALITY", NotNull(TypeName::kInteger)});
  }
  std::string alias = fmt::format("EXPR${}", subquery_aliases_++);
  HOP_ASSIGN_OR_RETURN(From named, NameUnnest(std::move(u), alias, unnest));
  // The query's rows, each joined with its unnested collections; only the latter are seen.
  const int width = static_cast<int>(query->row_type.columns.size());
  Rel join;
  join.kind = RelKind::kJoin;
  join.join_type = sql::JoinType::kCross;
  join.row_type = query->row_type;
  for (const auto& c : named.rel->row_type.columns) join.row_type.columns.push_back(c);
  join.inputs = {query, named.rel};
  RelPtr joined = MakeRel(std::move(join));
  Rel project;
  project.kind = RelKind::kProject;
  for (size_t i = 0; i < named.rel->row_type.columns.size(); ++i) {
    const catalog::Column& c = named.rel->row_type.columns[i];
    project.exprs.push_back(InputRef(width + static_cast<int>(i), c.type));
    project.row_type.columns.push_back(c);
  }
  project.inputs = {joined};
  named.rel = MakeRel(std::move(project));
  return named;
}

}  // namespace hop::binder
