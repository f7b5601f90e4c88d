// Binding a SELECT: its FROM and WHERE clauses, the select list with `*` and `t.*` expanded
// (merged NATURAL / USING columns first), Calcite's names for unnamed items, DISTINCT, and an
// ORDER BY that may name columns the select list drops. Grouping is in bind_aggregate.cc.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "binder/binder_impl.h"

namespace hop::binder {

namespace {

// Calcite's uniquifier: a repeated name gets the smallest numeric suffix that is free.
void Uniquify(std::vector<std::string>& names) {
  std::set<std::string> used;
  for (auto& n : names) {
    if (used.insert(n).second) continue;
    for (int i = 0;; ++i) {
      std::string candidate = n + std::to_string(i);
      if (used.insert(candidate).second) {
        n = std::move(candidate);
        break;
      }
    }
  }
}

// The name Calcite gives a select item without an alias: a column's own name, else EXPR$i.
std::string DerivedName(const sql::Expr& e, size_t ordinal) {
  if (e.kind == ExprKind::kColumnRef) return e.As<sql::ColumnRefExpr>().name.back().name;
  return fmt::format("EXPR${}", ordinal);
}

}  // namespace

Result<std::vector<Binder::Impl::Item>> Binder::Impl::Items(const sql::SelectBody& select,
                                                            const Scope& scope) {
  std::vector<Item> items;
  auto star_table = [&](const ScopeTable& t) {
    for (size_t c = 0; c < t.row_type.columns.size(); ++c) {
      int index = t.offset + static_cast<int>(c);
      Item item;
      item.column = index;
      item.bound = InputRef(index, scope.row.columns[index].type);
      item.name = t.row_type.columns[c].name;
      items.push_back(std::move(item));
    }
  };
  for (size_t i = 0; i < select.items.size(); ++i) {
    const sql::SelectItem& si = select.items[i];
    if (si.expr->kind != ExprKind::kStar) {
      Item item;
      item.expr = si.expr.get();
      item.name = si.alias ? si.alias->name : DerivedName(*si.expr, i);
      item.loc = si.expr->loc;
      items.push_back(std::move(item));
      continue;
    }
    const auto& star = si.expr->As<sql::StarExpr>();
    if (scope.tables.empty()) {
      return Error(star.loc, "SELECT * requires a FROM clause");
    }
    if (star.qualifier.empty()) {
      // Merged columns first (once), then every other column in table order.
      std::vector<std::pair<int, std::string>> merged_in_order;
      for (const auto& [name, index] : scope.merged) merged_in_order.emplace_back(index, name);
      std::sort(merged_in_order.begin(), merged_in_order.end());
      for (const auto& [index, name] : merged_in_order) {
        Item item;
        item.column = index;
        item.bound = InputRef(index, scope.row.columns[index].type);
        item.name = name;
        items.push_back(std::move(item));
      }
      for (const auto& t : scope.tables) {
        for (size_t c = 0; c < t.row_type.columns.size(); ++c) {
          int index = t.offset + static_cast<int>(c);
          auto merged = scope.merged.find(scope.row.columns[index].name);
          if (scope.hidden.count(index) ||
              (merged != scope.merged.end() && merged->second == index)) {
            continue;
          }
          Item item;
          item.column = index;
          item.bound = InputRef(index, scope.row.columns[index].type);
          item.name = t.row_type.columns[c].name;
          items.push_back(std::move(item));
        }
      }
      continue;
    }
    // t.* (or s.t.*): the table whose alias or path ends with the qualifier.
    const ScopeTable* found = nullptr;
    for (const auto& t : scope.tables) {
      bool match = false;
      if (star.qualifier.size() == 1) {
        match = t.alias == star.qualifier.back().name;
      } else if (t.path.size() >= star.qualifier.size()) {
        match = true;
        size_t off = t.path.size() - star.qualifier.size();
        for (size_t k = 0; k < star.qualifier.size(); ++k) {
          if (t.path[off + k] != star.qualifier.parts[k].name) match = false;
        }
      }
      if (match) {
        found = &t;
        break;
      }
    }
    if (!found) {
      return Error(star.loc, fmt::format("Table '{}' not found", star.qualifier.ToString()));
    }
    star_table(*found);
  }
  if (items.size() > kMaxTargetColumns) {
    // A column of a star has no place of its own: the SELECT's.
    const Item& past = items[kMaxTargetColumns];
    HOP_RETURN_IF_ERROR(CheckTargetWidth(items.size(), past.expr ? past.loc : select.loc));
  }
  return items;
}

Result<RelPtr> Binder::Impl::Select(const sql::SelectBody& select, const Scope* outer,
                                    const std::vector<sql::OrderItem>* order_by) {
  From from;
  if (select.from) {
    HOP_ASSIGN_OR_RETURN(from, FromItem(*select.from, outer, nullptr));
  } else {
    // SELECT without FROM reads one empty row.
    Rel one;
    one.kind = RelKind::kValues;
    one.rows.emplace_back();
    from.rel = MakeRel(std::move(one));
  }
  from.scope.outer = outer;
  const Scope& scope = from.scope;
  ExprContext ctx;
  ctx.scope = &scope;

  RelPtr rel = from.rel;
  if (select.where) {
    if (ContainsAggregate(select.where.get())) {
      return Error(select.where->loc, "Aggregate expression is illegal in WHERE clause");
    }
    HOP_ASSIGN_OR_RETURN(ScalarPtr cond, Expr(*select.where, ctx));
    if (!IsBoolean(cond->type) && !IsNull(cond->type)) {
      return Error(select.where->loc, "WHERE clause condition must be a boolean expression");
    }
    Rel filter;
    filter.kind = RelKind::kFilter;
    filter.row_type = rel->row_type;
    filter.condition = std::move(cond);
    filter.inputs = {rel};
    rel = MakeRel(std::move(filter));
  }
  // PostgreSQL's set-returning _pg_expandarray in the select list (bind_pg.cc).
  HOP_ASSIGN_OR_RETURN(rel, ExpandSetReturning(select, from.scope, std::move(rel)));

  HOP_ASSIGN_OR_RETURN(std::vector<Item> items, Items(select, scope));
  bool aggregate = !select.group_by.empty() || select.having ||
                   std::any_of(select.items.begin(), select.items.end(),
                               [](const auto& i) { return ContainsAggregate(i.expr.get()); });

  SelectList list;
  list.visible = items.size();
  if (!aggregate) {
    ctx.allow_windows = true;
    for (auto& item : items) {
      if (item.expr) {
        HOP_ASSIGN_OR_RETURN(item.bound, Expr(*item.expr, ctx));
      }
      list.exprs.push_back(item.bound);
      list.names.push_back(item.name);
    }
    HOP_RETURN_IF_ERROR(OrderBy(select, order_by, items, ctx, nullptr, list));
  } else {
    HOP_ASSIGN_OR_RETURN(rel, Aggregate(select, order_by, items, ctx, std::move(rel), list));
  }
  std::vector<ScalarPtr>& exprs = list.exprs;
  std::vector<std::string>& names = list.names;
  std::vector<SortKey>& sort_keys = list.sort_keys;
  const size_t visible = list.visible;
  // The ORDER BY keys that are not in the select list are columns of it until the sort.
  HOP_RETURN_IF_ERROR(CheckTargetWidth(exprs.size(), select.loc));

  // The select list.
  std::vector<std::string> output_names(names.begin(), names.begin() + visible);
  Uniquify(output_names);
  Rel project;
  project.kind = RelKind::kProject;
  project.exprs = exprs;
  for (size_t i = 0; i < exprs.size(); ++i) {
    project.row_type.columns.push_back({i < visible ? output_names[i] : names[i], exprs[i]->type});
  }
  project.inputs = {rel};
  rel = MakeRel(std::move(project));

  if (select.quantifier == sql::SetQuantifier::kDistinct) {
    Rel distinct;
    distinct.kind = RelKind::kAggregate;
    distinct.row_type = rel->row_type;
    for (size_t i = 0; i < rel->row_type.columns.size(); ++i) {
      distinct.group.push_back(static_cast<int>(i));
    }
    distinct.inputs = {rel};
    rel = MakeRel(std::move(distinct));
  }
  if (!sort_keys.empty()) {
    Rel sort;
    sort.kind = RelKind::kSort;
    sort.row_type = rel->row_type;
    sort.keys = std::move(sort_keys);
    sort.inputs = {rel};
    rel = MakeRel(std::move(sort));
    if (exprs.size() > visible) {
      Rel trim;
      trim.kind = RelKind::kProject;
      for (size_t i = 0; i < visible; ++i) {
        trim.exprs.push_back(InputRef(static_cast<int>(i), rel->row_type.columns[i].type));
        trim.row_type.columns.push_back(rel->row_type.columns[i]);
      }
      trim.inputs = {rel};
      rel = MakeRel(std::move(trim));
    }
  }
  return rel;
}

Status Binder::Impl::OrderBy(const sql::SelectBody& select,
                             const std::vector<sql::OrderItem>* order_by,
                             const std::vector<Item>& items, const ExprContext& ctx,
                             Aggregation* agg, SelectList& list) {
  if (!order_by) return Status::OK();
  for (const auto& o : *order_by) {
    const sql::Expr& e = *o.expr;
    int column = -1;
    if (e.kind == ExprKind::kLiteral &&
        e.As<sql::LiteralExpr>().literal == sql::LiteralKind::kInteger) {
      column = std::atoi(e.As<sql::LiteralExpr>().value.c_str()) - 1;
      if (column < 0 || column >= static_cast<int>(list.visible)) {
        return Error(e.loc, fmt::format("Ordinal out of range"));
      }
    } else if (e.kind == ExprKind::kColumnRef && e.As<sql::ColumnRefExpr>().name.size() == 1) {
      const std::string& n = e.As<sql::ColumnRefExpr>().name.back().name;
      for (size_t i = 0; i < list.visible; ++i) {
        if (list.names[i] == n && items[i].expr && items[i].expr->kind != ExprKind::kColumnRef) {
          column = static_cast<int>(i);  // an alias of a computed column
          break;
        }
      }
    }
    if (column < 0 && e.kind == ExprKind::kColumnRef &&
        e.As<sql::ColumnRefExpr>().name.size() == 1) {
      // A name no FROM column has is the alias of an item that renames a column
      // (`nspname AS table_schem ... ORDER BY table_schem`).
      auto bound = Expr(e, ctx);
      if (!bound.ok()) {
        const std::string& n = e.As<sql::ColumnRefExpr>().name.back().name;
        for (size_t i = 0; i < list.visible; ++i) {
          if (list.names[i] == n) {
            column = static_cast<int>(i);
            break;
          }
        }
        if (column < 0) return bound.status();
      }
    }
    if (column < 0) {
      HOP_ASSIGN_OR_RETURN(ScalarPtr s, Expr(e, ctx));
      if (agg) {
        HOP_ASSIGN_OR_RETURN(s, Lift(s, *agg, ctx.scope->row, e.loc));
      }
      for (size_t i = 0; i < list.exprs.size(); ++i) {
        if (SameScalar(*list.exprs[i], *s)) {
          column = static_cast<int>(i);
          break;
        }
      }
      if (column < 0) {
        if (select.quantifier == sql::SetQuantifier::kDistinct) {
          return Error(e.loc, "Expression is not in the select list of SELECT DISTINCT");
        }
        column = static_cast<int>(list.exprs.size());
        list.exprs.push_back(s);
        list.names.push_back(fmt::format("EXPR${}", list.exprs.size() - 1));
      }
    }
    list.sort_keys.push_back({column, o.direction, o.nulls});
  }
  return Status::OK();
}

}  // namespace hop::binder
