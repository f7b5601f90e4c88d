// Lowering of plan operators into SQLite query clauses. One SELECT holds as many operators as
// its clauses can express in SQL's evaluation order (FROM, WHERE, GROUP BY, HAVING, SELECT,
// ORDER BY, LIMIT); an operator that needs an earlier clause wraps what is built so far in a
// derived table `(SELECT ... AS c0, ...) AS tN` and starts again over it. SQLite flattens such
// derived tables, so the nesting costs nothing at run time.
#include "engine/lower.h"

#include <fmt/format.h>

#include <algorithm>

#include "binder/prune_empty.h"
#include "binder/types.h"
#include "engine/functions.h"
#include "engine/lower_impl.h"
#include "sql/ast/insert_statement.h"

namespace hop::engine {

using binder::Rel;
using binder::RelKind;
using binder::Scalar;
using binder::ScalarKind;
using sql::ExprPtr;

namespace internal {

namespace {

// Plans nest at most this deep when lowered (the binder's and the writer's limits, with room).
constexpr int kMaxDepth = 1000;

std::string OutName(size_t i) { return fmt::format("c{}", i); }

bool HasWindow(const binder::ScalarPtr& s) {
  if (!s) return false;
  if (s->window) return true;
  return std::any_of(s->args.begin(), s->args.end(), HasWindow);
}

}  // namespace

// ---- AST builders ----------------------------------------------------------------------------

sql::Identifier Id(std::string name) { return sql::Identifier(std::move(name)); }

ExprPtr ColumnRef(const std::string& table, const std::string& column) {
  auto ref = std::make_unique<sql::ColumnRefExpr>();
  if (!table.empty()) ref->name.parts.push_back(Id(table));
  ref->name.parts.push_back(Id(column));
  return ref;
}

ExprPtr IntLit(int64_t v) {
  auto lit = std::make_unique<sql::LiteralExpr>();
  lit->literal = sql::LiteralKind::kInteger;
  if (v >= 0) {
    lit->value = std::to_string(v);
    return lit;
  }
  // -9223372036854775808 has no positive literal: write it as (-9223372036854775807 - 1).
  if (v == INT64_MIN) {
    return Bin(sql::BinaryOp::kSubtract, IntLit(INT64_MIN + 1), IntLit(1));
  }
  lit->value = std::to_string(-v);
  auto neg = std::make_unique<sql::UnaryExpr>();
  neg->op = sql::UnaryOp::kNegate;
  neg->operand = std::move(lit);
  return neg;
}

ExprPtr RealLit(double v) {
  if (v < 0) {
    auto neg = std::make_unique<sql::UnaryExpr>();
    neg->op = sql::UnaryOp::kNegate;
    neg->operand = RealLit(-v);
    return neg;
  }
  auto lit = std::make_unique<sql::LiteralExpr>();
  lit->literal = sql::LiteralKind::kFloat;
  lit->value = fmt::format("{:.17e}", v);
  return lit;
}

ExprPtr StrLit(std::string s) {
  auto lit = std::make_unique<sql::LiteralExpr>();
  lit->literal = sql::LiteralKind::kString;
  lit->value = std::move(s);
  return lit;
}

ExprPtr NullLit() { return std::make_unique<sql::LiteralExpr>(); }

ExprPtr Call(std::string_view name, std::vector<ExprPtr> args) {
  auto f = std::make_unique<sql::FunctionExpr>();
  f->name.parts.push_back(Id(std::string(name)));
  f->args = std::move(args);
  return f;
}

ExprPtr Bin(sql::BinaryOp op, ExprPtr a, ExprPtr b) {
  auto e = std::make_unique<sql::BinaryExpr>();
  e->op = op;
  e->left = std::move(a);
  e->right = std::move(b);
  return e;
}

ExprPtr Not(ExprPtr e) {
  auto u = std::make_unique<sql::UnaryExpr>();
  u->op = sql::UnaryOp::kNot;
  u->operand = std::move(e);
  return u;
}

ExprPtr IsNull(ExprPtr e, bool negated) {
  auto is = std::make_unique<sql::IsExpr>();
  is->operand = std::move(e);
  is->test = sql::IsTest::kNull;
  is->negated = negated;
  return is;
}

ExprPtr StorageCast(ExprPtr e, sql::TypeName name) {
  auto c = std::make_unique<sql::CastExpr>();
  c->operand = std::move(e);
  c->type = sql::DataType(name);
  return c;
}

Rep BooleanRep() { return RepOf(sql::DataType(sql::TypeName::kBoolean)); }
Rep TextRep() { return RepOf(sql::DataType(sql::TypeName::kVarchar)); }
Rep BigIntRep() { return RepOf(sql::DataType(sql::TypeName::kBigInt)); }
Rep DoubleRep() { return RepOf(sql::DataType(sql::TypeName::kDouble)); }

bool OneRow(const Rel& rel) {
  switch (rel.kind) {
    case RelKind::kProject: return OneRow(*rel.inputs[0]);
    case RelKind::kAggregate: return rel.group.empty();
    case RelKind::kValues: return rel.rows.size() == 1;
    default: return false;
  }
}

// ---- frames ----------------------------------------------------------------------------------

std::string Lowerer::NewAlias(char prefix) { return fmt::format("{}{}", prefix, aliases_++); }

Result<std::unique_ptr<sql::Query>> Lowerer::Finish(Frame f) {
  auto q = std::make_unique<sql::Query>();
  if (f.body) {
    q->body = std::move(f.body);
  } else {
    auto& items = f.select->items;
    items.clear();
    for (size_t i = 0; i < f.cols->size(); ++i) {
      HOP_ASSIGN_OR_RETURN(ExprPtr e, (*f.cols)[i].make());
      items.push_back({std::move(e), Id(OutName(i))});
    }
    // A SELECT lists at least one column.
    if (items.empty()) items.push_back({NullLit(), Id(OutName(0))});
    q->body = std::move(f.select);
  }
  q->order_by = std::move(f.order_by);
  q->limit = std::move(f.limit);
  q->offset = std::move(f.offset);
  return q;
}

Result<Frame> Lowerer::Wrap(Frame f) {
  std::vector<std::string> names;
  if (f.body) {
    names = f.body_names;
  } else {
    for (size_t i = 0; i < f.cols->size(); ++i) names.push_back(OutName(i));
  }
  Cols reps = *f.cols;
  HOP_ASSIGN_OR_RETURN(auto query, Finish(std::move(f)));
  auto sub = std::make_unique<sql::SubqueryRef>();
  sub->query = std::move(query);
  const std::string alias = NewAlias();
  sub->alias = sql::TableAlias{Id(alias), {}};
  Frame out;
  out.select = std::make_unique<sql::SelectBody>();
  out.select->from = std::move(sub);
  for (size_t i = 0; i < reps.size(); ++i) {
    const std::string name = names[i];
    out.cols->push_back(
        {[alias, name]() -> Result<ExprPtr> { return ColumnRef(alias, name); }, reps[i].rep});
  }
  return out;
}

Result<sql::TableRefPtr> Lowerer::FromItem(Frame& f, bool allow_join) {
  const bool plain = !f.body && f.level == Level::kFrom && f.select && f.select->from &&
                     !f.select->where && f.order_by.empty() && !f.limit && !f.offset &&
                     (allow_join || f.select->from->kind != sql::TableRefKind::kJoin);
  if (!plain) {
    HOP_ASSIGN_OR_RETURN(f, Wrap(std::move(f)));
  }
  return std::move(f.select->from);
}

Result<Frame> Lowerer::Visit(const Rel& rel) {
  if (depth_ >= kMaxDepth) {
    return Status::InvalidArgument(
        fmt::format("the query is nested more than {} levels deep to run", kMaxDepth));
  }
  ++depth_;
  auto out = VisitOfKind(rel);
  --depth_;
  return out;
}

Result<Frame> Lowerer::VisitOfKind(const Rel& rel) {
  switch (rel.kind) {
    case RelKind::kScan: return Scan(rel);
    case RelKind::kValues: return Values(rel);
    case RelKind::kFilter: return Filter(rel);
    case RelKind::kProject: return Project(rel);
    case RelKind::kAggregate: return Aggregate(rel);
    case RelKind::kSort: return Sort(rel);
    case RelKind::kJoin: return Join(rel);
    case RelKind::kUnnest: return Unnest(rel, nullptr, sql::JoinType::kInner, nullptr);
    case RelKind::kSetOp: return SetOp(rel);
  }
  return Status::Internal("unknown plan node");
}

Result<Frame> Lowerer::Scan(const Rel& rel) { return Scan(rel, options_.scan); }

Result<Frame> Lowerer::Scan(const Rel& rel,
                            const std::function<Result<ScanName>(const Rel&)>& named) {
  HOP_ASSIGN_OR_RETURN(ScanName name, named(rel));
  auto ref = std::make_unique<sql::BaseTableRef>();
  for (const auto& p : name.name) ref->name.parts.push_back(Id(p));
  const std::string alias = NewAlias();
  ref->alias = sql::TableAlias{Id(alias), {}};
  Frame f;
  f.select = std::make_unique<sql::SelectBody>();
  f.select->from = std::move(ref);
  for (size_t i = 0; i < rel.row_type.columns.size(); ++i) {
    const std::string column = i < name.columns.size() ? name.columns[i] : OutName(i);
    f.cols->push_back({[alias, column]() -> Result<ExprPtr> { return ColumnRef(alias, column); },
                       RepOf(rel.row_type.columns[i].type)});
  }
  return f;
}

Result<Frame> Lowerer::Values(const Rel& rel) {
  const size_t width = rel.row_type.columns.size();
  Frame f;
  if (rel.rows.empty()) {
    // No rows (what a plan that yields nothing is reduced to, binder/prune_empty.h): SQL has no
    // empty VALUES, so `SELECT NULL AS c0, ... WHERE 0`.
    auto select = std::make_unique<sql::SelectBody>();
    for (size_t c = 0; c < std::max<size_t>(width, 1); ++c) {
      select->items.push_back({NullLit(), Id(OutName(c))});
      f.body_names.push_back(OutName(c));
    }
    f.body_names.resize(width);
    select->where = IntLit(0);
    f.body = std::move(select);
    for (size_t c = 0; c < width; ++c) {
      f.cols->push_back({nullptr, RepOf(rel.row_type.columns[c].type)});
    }
    return f;
  }
  if (width == 0) {
    // SELECT without FROM: one row of no columns.
    if (rel.rows.size() != 1) {
      return Status::InvalidArgument("VALUES of rows without columns cannot run");
    }
    f.select = std::make_unique<sql::SelectBody>();
    return f;
  }
  // Each column in one encoding, whatever the encodings of its rows.
  const Cols none;
  std::vector<std::vector<Low>> cells;
  for (const auto& row : rel.rows) {
    std::vector<Low> lowered;
    for (const auto& s : row) {
      HOP_ASSIGN_OR_RETURN(Low v, Convert(*s, none));
      lowered.push_back(std::move(v));
    }
    cells.push_back(std::move(lowered));
  }
  std::vector<Rep> reps;
  for (size_t c = 0; c < width; ++c) {
    std::vector<Rep> parts;
    for (const auto& row : cells) parts.push_back(row[c].rep);
    reps.push_back(Unify(parts, rel.row_type.columns[c].type));
  }
  for (auto& row : cells) {
    for (size_t c = 0; c < width; ++c) {
      HOP_ASSIGN_OR_RETURN(row[c], Coerce(std::move(row[c]), reps[c]));
    }
  }
  if (cells.size() == 1) {
    auto select = std::make_unique<sql::SelectBody>();
    for (size_t c = 0; c < width; ++c) {
      select->items.push_back({std::move(cells[0][c].expr), Id(OutName(c))});
      f.body_names.push_back(OutName(c));
    }
    f.body = std::move(select);
  } else {
    auto values = std::make_unique<sql::ValuesBody>();
    for (auto& row : cells) {
      std::vector<ExprPtr> exprs;
      for (auto& v : row) exprs.push_back(std::move(v.expr));
      values->rows.push_back(std::move(exprs));
    }
    // SQLite names the columns of VALUES column1, column2, ...
    for (size_t c = 0; c < width; ++c) f.body_names.push_back(fmt::format("column{}", c + 1));
    f.body = std::move(values);
  }
  for (size_t c = 0; c < width; ++c) f.cols->push_back({nullptr, reps[c]});
  return f;
}

Result<Frame> Lowerer::Filter(const Rel& rel) {
  const Rel& input = *rel.inputs[0];
  if (input.kind == RelKind::kJoin && !input.condition) join_filter_ = rel.condition.get();
  auto visited = Visit(input);
  join_filter_ = nullptr;
  HOP_ASSIGN_OR_RETURN(Frame f, std::move(visited));
  if (f.body || f.level >= Level::kSelect) {
    HOP_ASSIGN_OR_RETURN(f, Wrap(std::move(f)));
  }
  const bool having = f.level == Level::kGroup || f.level == Level::kHaving;
  label = "WHERE";
  HOP_ASSIGN_OR_RETURN(Low cond, Convert(*rel.condition, *f.cols));
  label.clear();
  ExprPtr& clause = having ? f.select->having : f.select->where;
  clause = clause ? Bin(sql::BinaryOp::kAnd, std::move(clause), std::move(cond.expr))
                  : std::move(cond.expr);
  f.level = having ? Level::kHaving : Level::kWhere;
  return f;
}

Result<Frame> Lowerer::Project(const Rel& rel) {
  HOP_ASSIGN_OR_RETURN(Frame f, Visit(*rel.inputs[0]));
  const bool columns_only =
      std::all_of(rel.exprs.begin(), rel.exprs.end(),
                  [](const binder::ScalarPtr& e) { return e->kind == ScalarKind::kInputRef; });
  if (f.level == Level::kOrder && !f.body && columns_only) {
    // Keeps some columns of a sorted SELECT (the binder's way of sorting by columns the select
    // list drops): the ORDER BY stays on the same SELECT.
    Cols kept;
    for (const auto& e : rel.exprs) kept.push_back((*f.cols)[e->index]);
    *f.cols = std::move(kept);
    return f;
  }
  if (f.body || f.level >= Level::kSelect) {
    HOP_ASSIGN_OR_RETURN(f, Wrap(std::move(f)));
  }
  std::shared_ptr<Cols> input = f.cols;
  auto cols = std::make_shared<Cols>();
  for (size_t i = 0; i < rel.exprs.size(); ++i) {
    binder::ScalarPtr e = rel.exprs[i];
    // Converted once now to learn its encoding and catch what cannot run; again when written.
    std::string name = rel.row_type.columns[i].name;
    label = name;
    HOP_ASSIGN_OR_RETURN(Low probe, Convert(*e, *input));
    label.clear();
    cols->push_back({[this, e, input, name]() -> Result<ExprPtr> {
                       label = name;
                       auto v = Convert(*e, *input);
                       label.clear();
                       if (!v.ok()) return v.status();
                       return std::move(v->expr);
                     },
                     probe.rep, HasWindow(e)});
  }
  f.cols = std::move(cols);
  f.level = Level::kSelect;
  return f;
}

Result<Frame> Lowerer::Aggregate(const Rel& rel) {
  HOP_ASSIGN_OR_RETURN(Frame f, Visit(*rel.inputs[0]));
  bool absorbed = false;
  if (!f.body && f.level == Level::kSelect && !f.grouped && f.order_by.empty() && !f.limit &&
      !f.offset && !f.select->having && f.select->group_by.empty() &&
      std::none_of(f.cols->begin(), f.cols->end(), [](const Col& c) { return c.window; })) {
    // The projection below becomes the GROUP BY keys and aggregate arguments.
    f.level = f.select->where ? Level::kWhere : Level::kFrom;
    absorbed = true;
  }
  if (!absorbed && (f.body || f.level >= Level::kGroup)) {
    HOP_ASSIGN_OR_RETURN(f, Wrap(std::move(f)));
  }
  std::shared_ptr<Cols> input = f.cols;
  auto cols = std::make_shared<Cols>();
  for (int g : rel.group) {
    const Col& key = (*input)[g];
    HOP_ASSIGN_OR_RETURN(ExprPtr e, key.make());
    if (e->kind == sql::ExprKind::kLiteral) {
      // A number in GROUP BY would be an ordinal.
      e = StorageCast(std::move(e), e->As<sql::LiteralExpr>().literal == sql::LiteralKind::kString
                                        ? sql::TypeName::kVarchar
                                        : sql::TypeName::kBigInt);
    }
    f.select->group_by.push_back(std::move(e));
    cols->push_back(key);
  }
  for (size_t i = 0; i < rel.aggregates.size(); ++i) {
    binder::AggregateCall call = rel.aggregates[i];
    std::string name = rel.row_type.columns[rel.group.size() + i].name;
    label = name;
    HOP_ASSIGN_OR_RETURN(Low probe, ConvertAggregate(call, *input));
    label.clear();
    cols->push_back({[this, call, input]() -> Result<ExprPtr> {
                       auto v = ConvertAggregate(call, *input);
                       if (!v.ok()) return v.status();
                       return std::move(v->expr);
                     },
                     probe.rep});
  }
  f.cols = std::move(cols);
  f.level = Level::kGroup;
  f.grouped = true;
  return f;
}

Result<Frame> Lowerer::Sort(const Rel& rel) {
  HOP_ASSIGN_OR_RETURN(Frame f, Visit(*rel.inputs[0]));
  const bool only_limit = rel.keys.empty();
  const bool stack_limit = only_limit && f.level == Level::kOrder && !f.limit && !f.offset;
  if (f.body || (f.level == Level::kOrder && !stack_limit)) {
    HOP_ASSIGN_OR_RETURN(f, Wrap(std::move(f)));
  }
  for (const auto& k : rel.keys) {
    HOP_ASSIGN_OR_RETURN(ExprPtr e, (*f.cols)[k.column].make());
    // Sorting by a constant changes nothing, and a number there would be an ordinal.
    if (e->kind == sql::ExprKind::kLiteral) continue;
    sql::OrderItem item;
    item.expr = std::move(e);
    item.direction = k.direction;
    // Calcite sorts NULL as the highest value: last going up, first going down.
    item.nulls = k.nulls != sql::NullsOrder::kDefault       ? k.nulls
                 : k.direction == sql::SortDirection::kDesc ? sql::NullsOrder::kFirst
                                                            : sql::NullsOrder::kLast;
    f.order_by.push_back(std::move(item));
  }
  auto bound = [&](const binder::ScalarPtr& s) -> Result<ExprPtr> {
    if (s->kind == ScalarKind::kParameter) {
      return Status::InvalidArgument(
          "LIMIT and OFFSET with a parameter cannot run here: give them numbers");
    }
    const Cols none;
    HOP_ASSIGN_OR_RETURN(Low v, Convert(*s, none));
    return std::move(v.expr);
  };
  if (rel.fetch) {
    HOP_ASSIGN_OR_RETURN(f.limit, bound(rel.fetch));
  }
  if (rel.offset) {
    HOP_ASSIGN_OR_RETURN(f.offset, bound(rel.offset));
    if (!f.limit) f.limit = IntLit(-1);  // SQLite's OFFSET needs a LIMIT; -1 is none
  }
  f.level = Level::kOrder;
  return f;
}

namespace {

// Whether `s` reads only input columns in [from, to) (and constants): no subquery, no outer row.
bool ReadsOnly(const Scalar& s, int from, int to) {
  switch (s.kind) {
    case ScalarKind::kInputRef: return s.index >= from && s.index < to;
    case ScalarKind::kSubquery:
    case ScalarKind::kExists:
    case ScalarKind::kInSubquery:
    case ScalarKind::kQuantified:
    case ScalarKind::kOuterRef:
    case ScalarKind::kParameter: return false;
    default: break;
  }
  if (s.kind == ScalarKind::kCall && s.window) return false;
  for (const auto& a : s.args) {
    if (a && !ReadsOnly(*a, from, to)) return false;
  }
  return true;
}

// Whether a conjunct of `cond` (over the left input's `left` columns, then the right input's)
// equates a column of the right input with an expression of the left input's columns, both of
// one encoding (so that the comparison reads the right column as it is stored).
bool EquatesRightColumn(const Scalar& cond, int left) {
  if (cond.kind != ScalarKind::kBinary || cond.args.size() != 2) return false;
  if (cond.binary_op == sql::BinaryOp::kAnd) {
    return EquatesRightColumn(*cond.args[0], left) || EquatesRightColumn(*cond.args[1], left);
  }
  if (cond.binary_op != sql::BinaryOp::kEq) return false;
  for (int side = 0; side < 2; ++side) {
    const Scalar& column = *cond.args[side];
    const Scalar& other = *cond.args[1 - side];
    if (column.kind == ScalarKind::kInputRef && column.index >= left && ReadsOnly(other, 0, left) &&
        SameEncoding(RepOf(column.type), RepOf(other.type))) {
      return true;
    }
  }
  return false;
}

}  // namespace

Result<Frame> Lowerer::Join(const Rel& rel) {
  // A Filter right above a join without a condition (FROM a, b WHERE a.x = b.y) is its
  // condition for choosing how the right input is read.
  const Scalar* filter = join_filter_;
  join_filter_ = nullptr;
  HOP_ASSIGN_OR_RETURN(Frame left, Visit(*rel.inputs[0]));
  if (rel.inputs[1]->kind == RelKind::kUnnest) {
    return Unnest(*rel.inputs[1], &left, rel.join_type, rel.condition.get());
  }
  const Scalar* cond = rel.condition ? rel.condition.get() : filter;
  const bool probed =
      options_.probed_scan && cond && rel.inputs[1]->kind == RelKind::kScan &&
      (rel.join_type == sql::JoinType::kInner || rel.join_type == sql::JoinType::kLeft ||
       (!rel.condition &&
        (rel.join_type == sql::JoinType::kComma || rel.join_type == sql::JoinType::kCross))) &&
      EquatesRightColumn(*cond, static_cast<int>(rel.inputs[0]->row_type.columns.size()));
  Frame right;
  if (probed) {
    HOP_ASSIGN_OR_RETURN(right, Scan(*rel.inputs[1], options_.probed_scan));
  } else {
    HOP_ASSIGN_OR_RETURN(right, Visit(*rel.inputs[1]));
  }
  HOP_ASSIGN_OR_RETURN(sql::TableRefPtr left_ref, FromItem(left, /*allow_join=*/true));
  HOP_ASSIGN_OR_RETURN(sql::TableRefPtr right_ref, FromItem(right, /*allow_join=*/false));
  Frame f;
  f.select = std::make_unique<sql::SelectBody>();
  for (const Col& c : *left.cols) f.cols->push_back(c);
  for (const Col& c : *right.cols) f.cols->push_back(c);
  auto join = std::make_unique<sql::JoinRef>();
  join->type = rel.join_type == sql::JoinType::kComma ? sql::JoinType::kCross : rel.join_type;
  join->left = std::move(left_ref);
  join->right = std::move(right_ref);
  if (rel.condition) {
    HOP_ASSIGN_OR_RETURN(Low cond, Convert(*rel.condition, *f.cols));
    join->on = std::move(cond.expr);
    if (join->type == sql::JoinType::kCross) join->type = sql::JoinType::kInner;
  } else if (join->type != sql::JoinType::kCross) {
    join->on = IntLit(1);
  }
  f.select->from = std::move(join);
  return f;
}

Result<Frame> Lowerer::Unnest(const Rel& rel, Frame* left, sql::JoinType type,
                              const Scalar* condition) {
  if (rel.exprs.size() != 1) {
    return Status::InvalidArgument(
        "UNNEST of several collections at once does not run on the local engine; unnest each "
        "one in its own join");
  }
  const binder::Scalar& arg = *rel.exprs[0];
  const Rep collection = RepOf(arg.type);
  if (collection.kind != RepKind::kJson && collection.kind != RepKind::kNull) {
    return Status::InvalidArgument("UNNEST needs an ARRAY or a MAP");
  }
  // The left input as a FROM item first: a filtered or grouped one is wrapped in a subquery,
  // which its columns then read from.
  sql::TableRefPtr left_ref;
  if (left != nullptr) {
    HOP_ASSIGN_OR_RETURN(left_ref, FromItem(*left, /*allow_join=*/true));
  }
  Frame f;
  f.select = std::make_unique<sql::SelectBody>();
  if (left != nullptr) {
    for (const Col& c : *left->cols) f.cols->push_back(c);
  }
  const Cols context = left != nullptr ? *left->cols : Cols{};
  HOP_ASSIGN_OR_RETURN(Low array, Convert(arg, context));
  // json_each over the collection's JSON: one row per element, `value` and `key` (its index).
  auto each = std::make_unique<sql::BaseTableRef>();
  each->name.parts.push_back(Id("json_each"));
  const std::string alias = NewAlias('u');
  each->alias = sql::TableAlias{Id(alias), {}};
  ExprPtr on = Bin(sql::BinaryOp::kEq, ColumnRef(alias, "json"), std::move(array.expr));
  // The element's parts, as the value encodings of their types.
  auto part = [alias](const sql::DataType& t, int index) -> Col {
    Rep rep = RepOf(t);
    return {[alias, index, rep]() -> Result<ExprPtr> {
              ExprPtr v = ColumnRef(alias, "value");
              if (index >= 0) {
                v = Call("JSON_EXTRACT", Args(std::move(v), StrLit(fmt::format("$[{}]", index))));
              }
              if (rep.kind == RepKind::kBinary) v = Call(fn::kUnhex, Args(std::move(v)));
              return v;
            },
            rep};
  };
  const sql::DataType& t = arg.type;
  if (t.name == sql::TypeName::kMap && t.params.size() == 2) {
    f.cols->push_back(part(t.params[0], 0));
    f.cols->push_back(part(t.params[1], 1));
  } else if (t.name == sql::TypeName::kArray && !t.params.empty() &&
             t.params[0].name == sql::TypeName::kRow) {
    for (size_t i = 0; i < t.params[0].fields.size(); ++i) {
      f.cols->push_back(part(t.params[0].fields[i].type, static_cast<int>(i)));
    }
  } else if (t.name == sql::TypeName::kArray && !t.params.empty()) {
    f.cols->push_back(part(t.params[0], -1));
  } else {
    f.cols->push_back(part(sql::DataType(sql::TypeName::kNull), -1));
  }
  if (rel.with_ordinality) {
    f.cols->push_back({[alias]() -> Result<ExprPtr> {
                         return Bin(sql::BinaryOp::kAdd, ColumnRef(alias, "key"), IntLit(1));
                       },
                       RepOf(sql::DataType(sql::TypeName::kInteger))});
  }
  if (condition != nullptr) {
    HOP_ASSIGN_OR_RETURN(Low cond, Convert(*condition, *f.cols));
    on = Bin(sql::BinaryOp::kAnd, std::move(on), std::move(cond.expr));
  }
  if (left == nullptr) {
    f.select->from = std::move(each);
    f.select->where = std::move(on);
    f.level = Level::kWhere;
    return f;
  }
  auto join = std::make_unique<sql::JoinRef>();
  join->type = type == sql::JoinType::kLeft ? sql::JoinType::kLeft : sql::JoinType::kInner;
  if (type != sql::JoinType::kLeft && type != sql::JoinType::kInner &&
      type != sql::JoinType::kCross && type != sql::JoinType::kComma) {
    return Status::InvalidArgument("UNNEST can be joined with INNER, LEFT or CROSS JOIN only");
  }
  join->left = std::move(left_ref);
  join->right = std::move(each);
  join->on = std::move(on);
  f.select->from = std::move(join);
  return f;
}

Result<std::unique_ptr<sql::SelectBody>> Lowerer::Operand(Frame f, const std::vector<Rep>& reps,
                                                          bool number_rows) {
  if (f.body || !f.order_by.empty() || f.limit || f.offset) {
    HOP_ASSIGN_OR_RETURN(f, Wrap(std::move(f)));
  }
  auto& items = f.select->items;
  items.clear();
  std::vector<ExprPtr> all;
  for (size_t i = 0; i < f.cols->size(); ++i) {
    HOP_ASSIGN_OR_RETURN(ExprPtr e, (*f.cols)[i].make());
    HOP_ASSIGN_OR_RETURN(Low v, Coerce({std::move(e), (*f.cols)[i].rep}, reps[i]));
    if (number_rows) {
      HOP_ASSIGN_OR_RETURN(ExprPtr again, (*f.cols)[i].make());
      HOP_ASSIGN_OR_RETURN(Low w, Coerce({std::move(again), (*f.cols)[i].rep}, reps[i]));
      all.push_back(std::move(w.expr));
    }
    items.push_back({std::move(v.expr), Id(OutName(i))});
  }
  if (number_rows) {
    // The n-th copy of a row is numbered n, so that INTERSECT ALL and EXCEPT ALL become the set
    // operations over (row, n).
    auto rn = std::make_unique<sql::FunctionExpr>();
    rn->name.parts.push_back(Id("ROW_NUMBER"));
    rn->over = std::make_unique<sql::WindowSpec>();
    rn->over->partition_by = std::move(all);
    items.push_back({std::move(rn), Id(OutName(f.cols->size()))});
  }
  return std::move(f.select);
}

Result<Frame> Lowerer::SetOp(const Rel& rel) {
  HOP_ASSIGN_OR_RETURN(Frame left, Visit(*rel.inputs[0]));
  HOP_ASSIGN_OR_RETURN(Frame right, Visit(*rel.inputs[1]));
  std::vector<Rep> reps;
  for (size_t i = 0; i < rel.row_type.columns.size(); ++i) {
    reps.push_back(
        Unify({(*left.cols)[i].rep, (*right.cols)[i].rep}, rel.row_type.columns[i].type));
  }
  const bool number_rows = rel.all && rel.set_op != sql::SetOpKind::kUnion;
  auto op = std::make_unique<sql::SetOperationBody>();
  op->op = rel.set_op;
  op->quantifier = rel.all && !number_rows ? sql::SetQuantifier::kAll : sql::SetQuantifier::kNone;
  HOP_ASSIGN_OR_RETURN(op->left, Operand(std::move(left), reps, number_rows));
  HOP_ASSIGN_OR_RETURN(op->right, Operand(std::move(right), reps, number_rows));
  Frame f;
  f.body = std::move(op);
  for (size_t i = 0; i < reps.size() + (number_rows ? 1 : 0); ++i) {
    f.body_names.push_back(OutName(i));
    f.cols->push_back({nullptr, i < reps.size() ? reps[i] : BigIntRep()});
  }
  if (number_rows) {
    HOP_ASSIGN_OR_RETURN(f, Wrap(std::move(f)));
    f.cols->pop_back();
  }
  return f;
}

}  // namespace internal

Result<LoweredQuery> Lower(const Rel& plan, const LowerOptions& options) {
  internal::Lowerer lowerer(options);
  // What provably yields no rows reads no table (binder/prune_empty.h).
  const binder::RelPtr pruned = binder::PruneEmpty(plan);
  HOP_ASSIGN_OR_RETURN(internal::Frame f, lowerer.Visit(pruned ? *pruned : plan));
  LoweredQuery out;
  for (const auto& c : *f.cols) out.columns.push_back(c.rep);
  HOP_ASSIGN_OR_RETURN(out.query, lowerer.Finish(std::move(f)));
  return out;
}

Result<std::unique_ptr<sql::Statement>> LowerInsert(const binder::BoundInsert& insert,
                                                    const ScanName& target,
                                                    const LowerOptions& options) {
  internal::Lowerer lowerer(options);
  const binder::RelPtr pruned = binder::PruneEmpty(*insert.query);
  HOP_ASSIGN_OR_RETURN(internal::Frame f, lowerer.Visit(pruned ? *pruned : *insert.query));
  // Each value in its column's encoding.
  if (f.body || !f.order_by.empty() || f.limit) {
    HOP_ASSIGN_OR_RETURN(f, lowerer.Wrap(std::move(f)));
  }
  auto cols = std::make_shared<internal::Cols>();
  for (size_t i = 0; i < f.cols->size(); ++i) {
    const catalog::Column& column = insert.target->row_type.columns[insert.target_columns[i]];
    internal::Col c = (*f.cols)[i];
    Rep want = RepOf(column.type);
    std::string name = column.name;
    cols->push_back({[&lowerer, c, want, name]() -> Result<sql::ExprPtr> {
                       HOP_ASSIGN_OR_RETURN(sql::ExprPtr e, c.make());
                       // A value must fit its column: a decimal's precision, an integer's range
                       // (strings are stored as they are, whatever the declared length, as
                       // Flink's sinks store them by default: docs/engine.md).
                       internal::Low v{std::move(e), c.rep};
                       // A CHAR is held without the spaces that pad it (value.h, PadChar).
                       auto unpadded = [&](sql::ExprPtr x) -> sql::ExprPtr {
                         if (want.type.name != sql::TypeName::kChar) return x;
                         return internal::Call("rtrim",
                                               internal::Args(std::move(x), internal::StrLit(" ")));
                       };
                       if (c.rep.kind == RepKind::kText && want.kind == RepKind::kText)
                         return unpadded(std::move(v.expr));
                       // An integer expression is computed in 64 bits whatever its type
                       // (2147483647 + 1 is an INTEGER of 2147483648): a narrower column checks
                       // the value's range, as a cast from BIGINT does.
                       const sql::TypeName w = want.type.name;
                       if (c.rep.kind == RepKind::kInteger && want.kind == RepKind::kInteger &&
                           (w == sql::TypeName::kTinyInt || w == sql::TypeName::kSmallInt ||
                            w == sql::TypeName::kInteger)) {
                         v.rep.type = sql::DataType(sql::TypeName::kBigInt);
                       }
                       HOP_ASSIGN_OR_RETURN(v, lowerer.Cast(std::move(v), want, false, name));
                       // A REAL holds a float's range, which a double (held alike) may exceed.
                       if (w == sql::TypeName::kReal) {
                         return internal::Call(
                             fn::kFits,
                             internal::Args(std::move(v.expr), internal::StrLit(TypeCode(v.rep)),
                                            internal::StrLit(TypeCode(want)),
                                            internal::StrLit(name)));
                       }
                       return unpadded(std::move(v.expr));
                     },
                     want});
  }
  f.cols = std::move(cols);
  auto stmt = std::make_unique<sql::InsertStatement>();
  for (const auto& p : target.name) stmt->target.parts.push_back(internal::Id(p));
  for (int c : insert.target_columns) stmt->columns.push_back(internal::Id(target.columns[c]));
  HOP_ASSIGN_OR_RETURN(stmt->query, lowerer.Finish(std::move(f)));
  return std::unique_ptr<sql::Statement>(std::move(stmt));
}

}  // namespace hop::engine
