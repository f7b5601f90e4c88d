// Binding queries: WITH (common table expressions), the query body (SELECT, VALUES, set
// operations, a nested query), column lists, and ORDER BY / LIMIT / OFFSET over a body.
#include <fmt/format.h>

#include <cstdlib>

#include "binder/binder_impl.h"

namespace hop::binder {

Result<RelPtr> Binder::Impl::Query(const sql::Query& q, const Scope* outer) {
  const size_t ctes_before = ctes_.size();
  for (const auto& cte : q.with) {
    // Under WITH RECURSIVE, the query of a CTE may name the CTE itself: it finds this null
    // entry, and is refused as such (Table), not as a table the catalog lacks.
    if (q.recursive) ctes_.emplace_back(cte.name.name, nullptr);
    auto bound =
        cte.columns.empty() ? Query(*cte.query, outer) : QueryWithColumns(*cte.query, cte.columns);
    if (q.recursive) ctes_.pop_back();
    if (!bound.ok()) {
      ctes_.resize(ctes_before);
      return bound.status();
    }
    ctes_.emplace_back(cte.name.name, *bound);
  }
  auto result = Body(*q.body, outer, q.order_by.empty() ? nullptr : &q.order_by, q.limit.get(),
                     q.offset.get());
  ctes_.resize(ctes_before);
  return result;
}

Result<RelPtr> Binder::Impl::QueryWithColumns(const sql::Query& q,
                                              const std::vector<sql::Identifier>& cols) {
  HOP_ASSIGN_OR_RETURN(RelPtr rel, Query(q, nullptr));
  if (cols.empty()) return rel;
  if (cols.size() != rel->row_type.columns.size()) {
    return Error(cols.front().loc,
                 fmt::format("List of column aliases must have same degree as table; table has "
                             "{} columns ({}), whereas alias list has {} columns",
                             rel->row_type.columns.size(), QuotedList(rel->row_type), cols.size()));
  }
  std::vector<std::string> names;
  for (const auto& c : cols) names.push_back(c.name);
  std::set<std::string> seen;
  for (size_t i = 0; i < cols.size(); ++i) {
    if (!seen.insert(names[i]).second) {
      return Error(cols[i].loc, fmt::format("Duplicate name '{}' in column alias list", names[i]));
    }
  }
  return Rename(rel, names);
}

Result<RelPtr> Binder::Impl::Body(const sql::QueryBody& body, const Scope* outer,
                                  const std::vector<sql::OrderItem>* order_by,
                                  const sql::Expr* limit, const sql::Expr* offset) {
  RelPtr rel;
  switch (body.kind) {
    case sql::QueryBodyKind::kSelect: {
      // ORDER BY of a SELECT may name columns the select list drops; Select handles it, and
      // LIMIT and OFFSET go on the same sort.
      HOP_ASSIGN_OR_RETURN(rel, Select(body.As<sql::SelectBody>(), outer, order_by));
      if (order_by && rel->kind == RelKind::kProject && rel->inputs[0]->kind == RelKind::kSort &&
          (limit || offset)) {
        HOP_ASSIGN_OR_RETURN(RelPtr limited,
                             OrderAndLimit(rel->inputs[0], nullptr, limit, offset, outer));
        Rel sort = *rel->inputs[0];
        sort.fetch = limited->fetch;
        sort.offset = limited->offset;
        Rel trim = *rel;
        trim.inputs = {MakeRel(std::move(sort))};
        return MakeRel(std::move(trim));
      }
      if (order_by && rel->kind == RelKind::kSort && (limit || offset)) {
        HOP_ASSIGN_OR_RETURN(RelPtr limited, OrderAndLimit(rel, nullptr, limit, offset, outer));
        Rel sort = *rel;
        sort.fetch = limited->fetch;
        sort.offset = limited->offset;
        return MakeRel(std::move(sort));
      }
      return OrderAndLimit(rel, nullptr, limit, offset, outer);
    }
    case sql::QueryBodyKind::kValues: {
      HOP_ASSIGN_OR_RETURN(rel, Values(body.As<sql::ValuesBody>(), outer));
      break;
    }
    case sql::QueryBodyKind::kSetOperation: {
      HOP_ASSIGN_OR_RETURN(rel, SetOp(body.As<sql::SetOperationBody>(), outer));
      break;
    }
    case sql::QueryBodyKind::kQuery: {
      HOP_ASSIGN_OR_RETURN(rel, Query(*body.As<sql::NestedQueryBody>().query, outer));
      break;
    }
  }
  return OrderAndLimit(rel, order_by, limit, offset, outer);
}

Result<RelPtr> Binder::Impl::OrderAndLimit(RelPtr rel, const std::vector<sql::OrderItem>* order_by,
                                           const sql::Expr* limit, const sql::Expr* offset,
                                           const Scope* outer) {
  if (!order_by && !limit && !offset) return rel;
  Rel sort;
  sort.kind = RelKind::kSort;
  sort.row_type = rel->row_type;
  if (order_by) {
    for (const auto& item : *order_by) {
      int column = -1;
      const sql::Expr& e = *item.expr;
      if (e.kind == ExprKind::kLiteral &&
          e.As<sql::LiteralExpr>().literal == sql::LiteralKind::kInteger) {
        column = std::atoi(e.As<sql::LiteralExpr>().value.c_str()) - 1;
        if (column < 0 || column >= static_cast<int>(rel->row_type.columns.size())) {
          return Error(e.loc, fmt::format("Ordinal out of range"));
        }
      } else if (e.kind == ExprKind::kColumnRef && e.As<sql::ColumnRefExpr>().name.size() == 1) {
        column = rel->row_type.Find(e.As<sql::ColumnRefExpr>().name.back().name);
      }
      if (column < 0) {
        return Error(e.loc,
                     "ORDER BY of a set operation or VALUES must name an output column "
                     "or its ordinal");
      }
      sort.keys.push_back({column, item.direction, item.nulls});
    }
  }
  ExprContext ctx;
  Scope empty;
  empty.outer = outer;
  ctx.scope = &empty;
  if (limit) {
    HOP_ASSIGN_OR_RETURN(sort.fetch, Expr(*limit, ctx));
  }
  if (offset) {
    HOP_ASSIGN_OR_RETURN(sort.offset, Expr(*offset, ctx));
  }
  for (const ScalarPtr* p : {&sort.fetch, &sort.offset}) {
    if (*p && !IsExactNumeric((*p)->type) && (*p)->kind != ScalarKind::kParameter) {
      return Error((limit ? limit : offset)->loc, "LIMIT and OFFSET must be integers");
    }
  }
  sort.inputs = {std::move(rel)};
  return MakeRel(std::move(sort));
}

Result<RelPtr> Binder::Impl::Values(const sql::ValuesBody& values, const Scope* outer) {
  Rel rel;
  rel.kind = RelKind::kValues;
  Scope empty;
  empty.outer = outer;
  ExprContext ctx;
  ctx.scope = &empty;
  size_t width = values.rows.empty() ? 0 : values.rows[0].size();
  if (width > kMaxTargetColumns) {
    HOP_RETURN_IF_ERROR(CheckTargetWidth(width, values.rows[0][kMaxTargetColumns]->loc));
  }
  for (const auto& row : values.rows) {
    if (row.size() != width) {
      return Error(row.empty() ? values.loc : row[0]->loc,
                   "Values passed to VALUES operator must have compatible types");
    }
    HOP_ASSIGN_OR_RETURN(auto bound, ExprList(row, ctx));
    rel.rows.push_back(std::move(bound));
  }
  for (size_t c = 0; c < width; ++c) {
    std::vector<DataType> types;
    for (const auto& row : rel.rows) types.push_back(row[c]->type);
    auto t = LeastRestrictive(types);
    if (!t) return Error(values.loc, "Values passed to VALUES operator must have compatible types");
    rel.row_type.columns.push_back({fmt::format("EXPR${}", c), *t});
  }
  return MakeRel(std::move(rel));
}

Result<RelPtr> Binder::Impl::SetOp(const sql::SetOperationBody& op, const Scope* outer) {
  HOP_ASSIGN_OR_RETURN(RelPtr left, Body(*op.left, outer, nullptr, nullptr, nullptr));
  HOP_ASSIGN_OR_RETURN(RelPtr right, Body(*op.right, outer, nullptr, nullptr, nullptr));
  static constexpr std::string_view kNames[] = {"UNION", "INTERSECT", "EXCEPT"};
  const auto& lc = left->row_type.columns;
  const auto& rc = right->row_type.columns;
  if (lc.size() != rc.size()) {
    return Error(op.loc,
                 fmt::format("Column count mismatch in {}", kNames[static_cast<int>(op.op)]));
  }
  Rel rel;
  rel.kind = RelKind::kSetOp;
  rel.set_op = op.op;
  rel.all = op.quantifier == sql::SetQuantifier::kAll;
  for (size_t i = 0; i < lc.size(); ++i) {
    DataType pair[] = {lc[i].type, rc[i].type};
    auto t = LeastRestrictive(pair);
    if (!t) {
      return Error(op.loc, fmt::format("Type mismatch in column {} of {}", i + 1,
                                       kNames[static_cast<int>(op.op)]));
    }
    rel.row_type.columns.push_back({lc[i].name, *t});
  }
  rel.inputs = {std::move(left), std::move(right)};
  return MakeRel(std::move(rel));
}

}  // namespace hop::binder
