// Binding aggregation: GROUP BY (expressions, ordinals and select aliases), aggregate calls
// lifted out of the select list, HAVING and ORDER BY into one Aggregate over an optional
// pre-projection, and the checks that every other column is grouped.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "binder/binder_impl.h"
#include "binder/functions.h"

namespace hop::binder {

namespace {

bool IsAggregateCall(const sql::Expr& e) {
  if (e.kind != ExprKind::kFunction) return false;
  const auto& f = e.As<sql::FunctionExpr>();
  if (f.over || f.name.size() != 1) return false;
  const Function* fn = FindFunction(f.name.back().name);
  return fn && fn->kind == FunctionKind::kAggregate;
}

bool AnyAggregate(const std::vector<sql::ExprPtr>& list) {
  return std::any_of(list.begin(), list.end(),
                     [](const auto& x) { return ContainsAggregate(x.get()); });
}

}  // namespace

bool ContainsAggregate(const sql::Expr* e) {
  if (!e) return false;
  if (IsAggregateCall(*e)) return true;
  switch (e->kind) {
    case ExprKind::kUnary: return ContainsAggregate(e->As<sql::UnaryExpr>().operand.get());
    case ExprKind::kBinary: {
      const auto& b = e->As<sql::BinaryExpr>();
      return ContainsAggregate(b.left.get()) || ContainsAggregate(b.right.get());
    }
    case ExprKind::kIs: return ContainsAggregate(e->As<sql::IsExpr>().operand.get());
    case ExprKind::kBetween: {
      const auto& b = e->As<sql::BetweenExpr>();
      return ContainsAggregate(b.operand.get()) || ContainsAggregate(b.low.get()) ||
             ContainsAggregate(b.high.get());
    }
    case ExprKind::kInList: {
      const auto& in = e->As<sql::InListExpr>();
      return ContainsAggregate(in.operand.get()) || AnyAggregate(in.list);
    }
    case ExprKind::kInSubquery:
      return ContainsAggregate(e->As<sql::InSubqueryExpr>().operand.get());
    case ExprKind::kLike: {
      const auto& l = e->As<sql::LikeExpr>();
      return ContainsAggregate(l.operand.get()) || ContainsAggregate(l.pattern.get());
    }
    case ExprKind::kCase: {
      const auto& c = e->As<sql::CaseExpr>();
      if (ContainsAggregate(c.operand.get()) || ContainsAggregate(c.else_result.get())) {
        return true;
      }
      for (const auto& w : c.whens) {
        if (ContainsAggregate(w.condition.get()) || ContainsAggregate(w.result.get())) return true;
      }
      return false;
    }
    case ExprKind::kCast: return ContainsAggregate(e->As<sql::CastExpr>().operand.get());
    case ExprKind::kFunction: {
      const auto& f = e->As<sql::FunctionExpr>();
      return !f.over && AnyAggregate(f.args);
    }
    case ExprKind::kExtract: return ContainsAggregate(e->As<sql::ExtractExpr>().operand.get());
    case ExprKind::kJsonObject:
      for (const auto& [k, v] : e->As<sql::JsonObjectExpr>().entries) {
        if (ContainsAggregate(k.get()) || ContainsAggregate(v.get())) return true;
      }
      return false;
    case ExprKind::kArray: return AnyAggregate(e->As<sql::ArrayExpr>().elements);
    case ExprKind::kMap: return AnyAggregate(e->As<sql::MapExpr>().elements);
    case ExprKind::kRow: return AnyAggregate(e->As<sql::RowExpr>().elements);
    case ExprKind::kSubscript: {
      const auto& s = e->As<sql::SubscriptExpr>();
      return ContainsAggregate(s.base.get()) || ContainsAggregate(s.index.get());
    }
    case ExprKind::kQuantified: {
      const auto& q = e->As<sql::QuantifiedExpr>();
      return ContainsAggregate(q.operand.get()) || ContainsAggregate(q.array.get());
    }
    case ExprKind::kField: return ContainsAggregate(e->As<sql::FieldExpr>().base.get());
    default: return false;
  }
}

Result<RelPtr> Binder::Impl::Aggregate(const sql::SelectBody& select,
                                       const std::vector<sql::OrderItem>* order_by,
                                       const std::vector<Item>& items, const ExprContext& ctx,
                                       RelPtr rel, SelectList& list) {
  const Scope& scope = *ctx.scope;
  Aggregation agg;
  // GROUP BY: expressions over the FROM row; an ordinal or a select alias also works.
  for (const auto& g : select.group_by) {
    ScalarPtr bound;
    if (g->kind == ExprKind::kLiteral &&
        g->As<sql::LiteralExpr>().literal == sql::LiteralKind::kInteger) {
      int ordinal = std::atoi(g->As<sql::LiteralExpr>().value.c_str()) - 1;
      if (ordinal < 0 || ordinal >= static_cast<int>(items.size())) {
        return Error(g->loc, "Ordinal out of range");
      }
      if (items[ordinal].expr) {
        if (ContainsAggregate(items[ordinal].expr)) {
          return Error(g->loc, "Aggregate expression is illegal in GROUP BY clause");
        }
        HOP_ASSIGN_OR_RETURN(bound, Expr(*items[ordinal].expr, ctx));
      } else {
        bound = items[ordinal].bound;
      }
    } else {
      if (ContainsAggregate(g.get())) {
        return Error(g->loc, "Aggregate expression is illegal in GROUP BY clause");
      }
      auto r = Expr(*g, ctx);
      if (!r.ok() && g->kind == ExprKind::kColumnRef &&
          g->As<sql::ColumnRefExpr>().name.size() == 1) {
        // Not a column: maybe a select alias.
        const std::string& n = g->As<sql::ColumnRefExpr>().name.back().name;
        for (const auto& item : items) {
          if (item.name == n && item.expr && !ContainsAggregate(item.expr)) {
            r = Expr(*item.expr, ctx);
            break;
          }
        }
      }
      if (!r.ok()) return r.status();
      bound = *r;
    }
    bool repeated = std::any_of(agg.groups.begin(), agg.groups.end(),
                                [&](const ScalarPtr& x) { return SameScalar(*x, *bound); });
    if (!repeated) agg.groups.push_back(bound);
  }
  agg.pre = agg.groups;
  ExprContext actx = ctx;
  actx.allow_aggregates = true;
  actx.allow_windows = true;
  for (const auto& item : items) {
    ScalarPtr s = item.bound;
    if (item.expr) {
      HOP_ASSIGN_OR_RETURN(s, Expr(*item.expr, actx));
    }
    HOP_ASSIGN_OR_RETURN(ScalarPtr lifted, Lift(s, agg, scope.row, item.loc));
    list.exprs.push_back(lifted);
    list.names.push_back(item.name);
  }
  ScalarPtr having;
  if (select.having) {
    HOP_ASSIGN_OR_RETURN(ScalarPtr h, Expr(*select.having, actx));
    HOP_ASSIGN_OR_RETURN(having, Lift(h, agg, scope.row, select.having->loc));
    if (!IsBoolean(having->type)) {
      return Error(select.having->loc, "HAVING clause must be a condition");
    }
  }
  HOP_RETURN_IF_ERROR(OrderBy(select, order_by, items, actx, &agg, list));

  // Pre-projection (only when some key or argument is not a plain column).
  bool trivial = std::all_of(agg.pre.begin(), agg.pre.end(),
                             [](const ScalarPtr& s) { return s->kind == ScalarKind::kInputRef; });
  Rel aggregate_rel;
  aggregate_rel.kind = RelKind::kAggregate;
  if (trivial) {
    for (size_t i = 0; i < agg.groups.size(); ++i) aggregate_rel.group.push_back(agg.pre[i]->index);
    for (auto& call : agg.calls) {
      for (int& a : call.args) a = agg.pre[a]->index;
      for (auto& k : call.within_group) k.column = agg.pre[k.column]->index;
      if (call.filter >= 0) call.filter = agg.pre[call.filter]->index;
    }
    aggregate_rel.inputs = {rel};
  } else {
    Rel pre;
    pre.kind = RelKind::kProject;
    pre.exprs = agg.pre;
    for (size_t i = 0; i < agg.pre.size(); ++i) {
      std::string name = agg.pre[i]->kind == ScalarKind::kInputRef
                             ? scope.row.columns[agg.pre[i]->index].name
                             : fmt::format("$f{}", i);
      pre.row_type.columns.push_back({name, agg.pre[i]->type});
    }
    pre.inputs = {rel};
    for (size_t i = 0; i < agg.groups.size(); ++i)
      aggregate_rel.group.push_back(static_cast<int>(i));
    aggregate_rel.inputs = {MakeRel(std::move(pre))};
  }
  const RowType& agg_input = aggregate_rel.inputs[0]->row_type;
  for (int g : aggregate_rel.group) aggregate_rel.row_type.columns.push_back(agg_input.columns[g]);
  for (size_t i = 0; i < agg.calls.size(); ++i) {
    aggregate_rel.row_type.columns.push_back({fmt::format("EXPR${}", i), agg.calls[i].type});
  }
  aggregate_rel.aggregates = std::move(agg.calls);
  rel = MakeRel(std::move(aggregate_rel));
  if (having) {
    Rel filter;
    filter.kind = RelKind::kFilter;
    filter.row_type = rel->row_type;
    filter.condition = having;
    filter.inputs = {rel};
    rel = MakeRel(std::move(filter));
  }
  return rel;
}

int Binder::Impl::PreColumn(Aggregation& agg, const ScalarPtr& s) {
  for (size_t i = 0; i < agg.pre.size(); ++i) {
    if (SameScalar(*agg.pre[i], *s)) return static_cast<int>(i);
  }
  agg.pre.push_back(s);
  return static_cast<int>(agg.pre.size() - 1);
}

Result<ScalarPtr> Binder::Impl::Lift(const ScalarPtr& s, Aggregation& agg, const RowType& from_row,
                                     sql::Location loc) {
  for (size_t i = 0; i < agg.groups.size(); ++i) {
    if (SameScalar(*agg.groups[i], *s)) return InputRef(static_cast<int>(i), s->type);
  }
  if (s->kind == ScalarKind::kCall && s->function &&
      s->function->kind == FunctionKind::kAggregate && !s->window) {
    for (size_t i = 0; i < agg.call_exprs.size(); ++i) {
      if (SameScalar(*agg.call_exprs[i], *s)) {
        return InputRef(static_cast<int>(agg.groups.size() + i), s->type);
      }
    }
    AggregateCall call;
    call.function = s->function;
    call.name = s->text;
    call.distinct = s->distinct;
    call.star = s->star;
    call.type = s->type;
    for (const auto& a : s->args) {
      if (a->kind == ScalarKind::kLiteral && call.function->name != "COUNT" && !call.args.empty()) {
        call.literal_args.push_back(a);  // LISTAGG(x, ',')
        continue;
      }
      call.args.push_back(PreColumn(agg, a));
    }
    if (s->filter) call.filter = PreColumn(agg, s->filter);
    for (const auto& k : s->within_group) {
      call.within_group.push_back({PreColumn(agg, k.expr), k.direction, k.nulls});
    }
    call.order_in_call = s->order_in_call;
    agg.calls.push_back(std::move(call));
    agg.call_exprs.push_back(s);
    return InputRef(static_cast<int>(agg.groups.size() + agg.calls.size() - 1), s->type);
  }
  if (s->kind == ScalarKind::kInputRef) {
    return Error(
        loc, fmt::format("Expression '{}' is not being grouped", from_row.columns[s->index].name));
  }
  if (s->args.empty() && !s->window) return s;
  Scalar copy = *s;
  for (auto& a : copy.args) {
    if (a) {
      HOP_ASSIGN_OR_RETURN(a, Lift(a, agg, from_row, loc));
    }
  }
  if (s->window) {
    auto w = std::make_shared<Window>(*s->window);
    for (auto& p : w->partition_by) {
      HOP_ASSIGN_OR_RETURN(p, Lift(p, agg, from_row, loc));
    }
    for (auto& k : w->order_by) {
      HOP_ASSIGN_OR_RETURN(k.expr, Lift(k.expr, agg, from_row, loc));
    }
    copy.window = std::move(w);
  }
  return Make(std::move(copy));
}

}  // namespace hop::binder
