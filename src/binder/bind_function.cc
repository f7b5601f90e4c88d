// Binding function calls against the function library (binder/functions.h): argument checks
// with Calcite's messages, aggregate calls where aggregation is allowed, DISTINCT, FILTER and
// WITHIN GROUP, and window functions with their OVER clause.
#include <fmt/format.h>

#include "binder/binder_impl.h"
#include "binder/functions.h"

namespace hop::binder {

Result<ScalarPtr> Binder::Impl::Function(const sql::FunctionExpr& f, const ExprContext& ctx) {
  const std::string& name = f.name.back().name;
  if (name == "_PG_EXPANDARRAY" &&
      (f.name.size() == 1 || (f.name.size() == 2 && f.name.parts[0].name == kInformationSchema))) {
    return SetReturningCall(f);  // PostgreSQL's set-returning function (bind_pg.cc)
  }
  // `pg_catalog.f` is PostgreSQL's built-in function f.
  const bool pg_qualified = f.name.size() == 2 && f.name.parts[0].name == kPgCatalogSchema;
  const binder::Function* fn =
      f.name.size() == 1 || pg_qualified ? FindFunction(name) : nullptr;
  ExprContext arg_ctx = ctx;
  arg_ctx.allow_windows = false;
  bool is_aggregate = fn && fn->kind == FunctionKind::kAggregate && !f.over;
  if (is_aggregate) {
    if (!ctx.allow_aggregates) {
      return Error(f.loc, fmt::format("Aggregate expression '{}' is illegal here", name));
    }
    arg_ctx.allow_aggregates = false;  // no nested aggregates
  }
  std::vector<ScalarPtr> args;
  std::vector<DataType> types;
  for (const auto& a : f.args) {
    if (ContainsAggregate(a.get()) && is_aggregate) {
      return Error(a->loc, "Aggregate expressions cannot be nested");
    }
    HOP_ASSIGN_OR_RETURN(ScalarPtr s, Expr(*a, arg_ctx));
    types.push_back(s->type);
    args.push_back(std::move(s));
  }
  if (f.name.size() == 1 || pg_qualified) {
    HOP_ASSIGN_OR_RETURN(ScalarPtr pg, PgFunction(f, name, args));
    if (pg) return pg;
  }
  if (!fn) return Error(f.loc, NoMatchMessage(f.name.ToString(), types));
  if (f.star && name != "COUNT") {
    return Error(f.loc, fmt::format("'{}(*)' is only valid for COUNT", name));
  }
  if (fn->kind == FunctionKind::kWindow && !f.over) {
    return Error(f.loc, fmt::format("OVER clause is necessary for window functions"));
  }
  if (f.over && !ctx.allow_windows) {
    return Error(f.loc, "Windowed aggregate expression is illegal here");
  }
  if (f.quantifier == sql::SetQuantifier::kDistinct && fn->kind != FunctionKind::kAggregate) {
    return Error(f.loc,
                 fmt::format("DISTINCT is only valid for aggregate functions, not {}", name));
  }
  if (!f.star) {
    Status st = CheckArguments(*fn, types);
    if (!st.ok()) return Error(f.loc, st.message());
  }
  Scalar s;
  s.kind = ScalarKind::kCall;
  s.function = fn;
  s.text = name;
  s.star = f.star;
  s.distinct = f.quantifier == sql::SetQuantifier::kDistinct;
  s.type = fn->return_type(types);
  s.args = std::move(args);
  if (!f.order_by.empty()) {
    // ORDER BY among the arguments orders what the aggregate collects: the same keys as WITHIN
    // GROUP, kept apart so that the call prints back as it was written.
    const bool ordered = name == "STRING_AGG" || name == "LISTAGG" || name == "GROUP_CONCAT" ||
                         name == "ARRAY_AGG" || name == "COLLECT";
    if (!is_aggregate || !ordered || !f.within_group.empty()) {
      return Error(f.loc, fmt::format("ORDER BY inside {}(...) is not supported: only the "
                                      "aggregates STRING_AGG, LISTAGG, GROUP_CONCAT, ARRAY_AGG "
                                      "and COLLECT take one, without WITHIN GROUP{}",
                                      name, f.over ? " or OVER" : ""));
    }
  }
  if (!f.within_group.empty() || !f.order_by.empty() || f.filter) {
    if (!is_aggregate) {
      return Error(f.loc,
                   fmt::format("FILTER and WITHIN GROUP apply to aggregate calls; {} {}", name,
                               f.over ? "is used as a window function here"
                                      : "is not an aggregate function"));
    }
    if (f.filter) {
      HOP_ASSIGN_OR_RETURN(s.filter, Expr(*f.filter, arg_ctx));
      if (!IsBoolean(s.filter->type) && !IsNull(s.filter->type)) {
        return Error(f.filter->loc, "FILTER (WHERE ...) needs a boolean condition");
      }
    }
    s.order_in_call = !f.order_by.empty();
    for (const auto& o : s.order_in_call ? f.order_by : f.within_group) {
      HOP_ASSIGN_OR_RETURN(ScalarPtr key, Expr(*o.expr, arg_ctx));
      s.within_group.push_back({std::move(key), o.direction, o.nulls});
    }
  }
  if (name.rfind("PERCENTILE_", 0) == 0 && s.within_group.size() != 1) {
    return Error(f.loc, fmt::format("{} needs WITHIN GROUP (ORDER BY one expression)", name));
  }
  if (name == "PERCENTILE_DISC" && !s.within_group.empty()) {
    s.type = WithNullable(s.within_group[0].expr->type, true);
  }
  if (f.over) {
    ExprContext wctx = arg_ctx;
    wctx.allow_aggregates = ctx.allow_aggregates;
    auto w = std::make_shared<Window>();
    for (const auto& p : f.over->partition_by) {
      HOP_ASSIGN_OR_RETURN(ScalarPtr ps, Expr(*p, wctx));
      w->partition_by.push_back(std::move(ps));
    }
    for (const auto& o : f.over->order_by) {
      HOP_ASSIGN_OR_RETURN(ScalarPtr os, Expr(*o.expr, wctx));
      w->order_by.push_back({std::move(os), o.direction, o.nulls});
    }
    w->frame_unit = f.over->frame_unit;
    w->start = f.over->frame_start.kind;
    if (f.over->frame_start.offset) {
      HOP_ASSIGN_OR_RETURN(w->start_offset, Expr(*f.over->frame_start.offset, wctx));
    }
    if (f.over->frame_end) {
      w->end = f.over->frame_end->kind;
      if (f.over->frame_end->offset) {
        HOP_ASSIGN_OR_RETURN(w->end_offset, Expr(*f.over->frame_end->offset, wctx));
      }
    }
    s.window = std::move(w);
    if (fn->kind == FunctionKind::kAggregate) s.type = WithNullable(s.type, true);
  }
  return Make(std::move(s));
}

}  // namespace hop::binder
