#include "binder/binder.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <unordered_map>

#include "binder/functions.h"
#include "binder/types.h"
#include "common/source_error.h"
#include "common/strings.h"
#include "sql/ast/query_statement.h"
#include "sql/parser.h"

namespace hop::binder {

using catalog::Column;
using catalog::RowType;
using sql::DataType;
using sql::ExprKind;
using sql::TypeName;

namespace {

// Views may refer to views; this bounds the chain, counting the view being defined, so that
// whatever can be created can be queried. Cycles are found separately, with their path.
constexpr size_t kMaxViewDepth = 64;

// A catalog path as messages name it: "ADS.V1".
std::string Dotted(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& part : path) out += (out.empty() ? "" : ".") + part;
  return out;
}

// Expressions nest at most this deep (the parser's own limit, with room for subqueries).
constexpr int kMaxExprDepth = sql::kMaxParseDepth + 24;

// A relation visible in a FROM clause.
struct ScopeTable {
  std::string alias;              // the name columns are qualified with
  std::vector<std::string> path;  // the table's full path, for `schema.table.column`
  RowType row_type;
  int offset = 0;  // where its columns start in the FROM row
};

// The names a clause can see: the tables of its FROM clause, their concatenated row, and the
// columns NATURAL JOIN and USING merged.
struct Scope {
  std::vector<ScopeTable> tables;
  RowType row;
  // Merged columns, by name: the FROM row index unqualified references mean.
  std::map<std::string, int> merged;
  // FROM row columns that `*` skips (the second copy of each merged column).
  std::set<int> hidden;
  const Scope* outer = nullptr;  // the enclosing query's scope, for subqueries
};

// What a Rel plus its scope is while a FROM clause is bound.
struct From {
  RelPtr rel;
  Scope scope;
};

ScalarPtr Make(Scalar s) { return std::make_shared<Scalar>(std::move(s)); }

RelPtr MakeRel(Rel r) { return std::make_shared<Rel>(std::move(r)); }

ScalarPtr Binary(sql::BinaryOp op, ScalarPtr a, ScalarPtr b, DataType type) {
  Scalar s;
  s.kind = ScalarKind::kBinary;
  s.binary_op = op;
  s.args = {std::move(a), std::move(b)};
  s.type = std::move(type);
  return Make(std::move(s));
}

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

size_t Utf8Length(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool IsAggregateCall(const sql::Expr& e) {
  if (e.kind != ExprKind::kFunction) return false;
  const auto& f = e.As<sql::FunctionExpr>();
  if (f.over || f.name.size() != 1) return false;
  const Function* fn = FindFunction(f.name.back().name);
  return fn && fn->kind == FunctionKind::kAggregate;
}

// Whether an aggregate call appears in `e` outside subqueries and windows.
bool ContainsAggregate(const sql::Expr* e);

bool AnyAggregate(const std::vector<sql::ExprPtr>& list) {
  return std::any_of(list.begin(), list.end(),
                     [](const auto& x) { return ContainsAggregate(x.get()); });
}

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
    default: return false;
  }
}

// The name Calcite gives a select item without an alias: a column's own name, else EXPR$i.
std::string DerivedName(const sql::Expr& e, size_t ordinal) {
  if (e.kind == ExprKind::kColumnRef) return e.As<sql::ColumnRefExpr>().name.back().name;
  return fmt::format("EXPR${}", ordinal);
}

std::string QuotedList(const RowType& row) {
  std::string out;
  for (size_t i = 0; i < row.columns.size(); ++i) {
    if (i > 0) out += ", ";
    out += "'" + row.columns[i].name + "'";
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

class Binder::Impl {
 public:
  explicit Impl(const catalog::Catalog& catalog) : catalog_(catalog) {}

  void SetStatement(const sql::Statement* s) { statement_ = s; }
  void SetDefinedView(std::vector<std::string> path) { defined_view_ = std::move(path); }

  Result<RelPtr> Query(const sql::Query& q, const Scope* outer);
  Result<RelPtr> QueryWithColumns(const sql::Query& q, const std::vector<sql::Identifier>& cols);
  Result<BoundInsert> Insert(const sql::InsertStatement& insert);
  Result<RelPtr> View(const catalog::Table& view);

 private:
  // --- errors
  Status Error(sql::Location loc, std::string_view what) const;
  Status ErrorCode(StatusCode code, sql::Location loc, std::string_view what) const;

  // --- queries
  Result<RelPtr> Body(const sql::QueryBody& body, const Scope* outer,
                      const std::vector<sql::OrderItem>* order_by, const sql::Expr* limit,
                      const sql::Expr* offset);
  Result<RelPtr> Select(const sql::SelectBody& select, const Scope* outer,
                        const std::vector<sql::OrderItem>* order_by);
  Result<RelPtr> Values(const sql::ValuesBody& values, const Scope* outer);
  Result<RelPtr> SetOp(const sql::SetOperationBody& op, const Scope* outer);
  Result<RelPtr> OrderAndLimit(RelPtr rel, const std::vector<sql::OrderItem>* order_by,
                               const sql::Expr* limit, const sql::Expr* offset, const Scope* outer);

  // --- FROM
  Result<From> FromItem(const sql::TableRef& ref, const Scope* outer, const From* lateral);
  Result<From> Table(const sql::BaseTableRef& ref, const Scope* outer);
  Result<From> Join(const sql::JoinRef& join, const Scope* outer, const From* lateral);
  Result<From> Unnest(const sql::UnnestRef& unnest, const Scope* outer, const From* lateral);
  Result<From> UnnestQuery(const sql::UnnestRef& unnest, const Scope* outer);
  // Applies the alias of an UNNEST to it.
  Result<From> NameUnnest(Rel rel, std::string alias, const sql::UnnestRef& unnest);
  Result<From> Aliased(RelPtr rel, std::string alias, std::vector<std::string> path,
                       const std::optional<sql::TableAlias>& alias_clause, sql::Location loc);

  // --- expressions
  struct ExprContext {
    const Scope* scope = nullptr;
    bool allow_aggregates = false;  // bind aggregate calls as kCall (lifted later)
    bool allow_windows = false;
    bool in_join_condition = false;
  };
  Result<ScalarPtr> Expr(const sql::Expr& e, const ExprContext& ctx);
  Result<ScalarPtr> ExprOfKind(const sql::Expr& e, const ExprContext& ctx);
  // One function per expression kind, kept out of Expr so that each level of a deeply nested
  // expression costs only the frame of the kind it is.
  [[gnu::noinline]] Result<ScalarPtr> BindParameter(const sql::Expr& e, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> BindUnary(const sql::Expr& e, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> BindIs(const sql::Expr& e, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> BindBetween(const sql::Expr& e, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> BindInList(const sql::Expr& e, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> BindInSubquery(const sql::Expr& e, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> BindLike(const sql::Expr& e, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> BindExists(const sql::Expr& e, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> BindSubquery(const sql::Expr& e, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> BindCase(const sql::Expr& e, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> BindCast(const sql::Expr& e, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> BindExtract(const sql::Expr& e, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> BindJsonObject(const sql::Expr& e, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> BindCollection(const sql::Expr& e, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> BindSubscript(const sql::Expr& e, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> Column(const sql::ColumnRefExpr& ref, const Scope& scope);
  [[gnu::noinline]] Result<ScalarPtr> Function(const sql::FunctionExpr& f, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> BinaryExpr(const sql::BinaryExpr& b, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> Literal(const sql::LiteralExpr& lit);
  Result<std::vector<ScalarPtr>> ExprList(const std::vector<sql::ExprPtr>& list,
                                          const ExprContext& ctx);
  // Binds a subquery of an expression; `correlated` says whether it reads the enclosing row.
  Result<RelPtr> Subquery(const sql::Query& q, const Scope& scope, bool* correlated);
  // Correlated subqueries read the FROM row, which aggregation and joins do not keep.
  Status CheckCorrelation(bool correlated, const ExprContext& ctx, sql::Location loc) const {
    if (correlated && (ctx.allow_aggregates || ctx.in_join_condition)) {
      return Error(loc,
                   "correlated subqueries are supported in the select list and WHERE "
                   "clause of a query without aggregation");
    }
    return Status::OK();
  }
  Status CheckComparable(const ScalarPtr& a, const ScalarPtr& b, std::string_view op,
                         sql::Location loc) const;

  // --- aggregation
  struct Aggregation {
    std::vector<ScalarPtr> groups;  // over the FROM row
    std::vector<ScalarPtr> pre;     // pre-projection: groups, then aggregate arguments
    std::vector<AggregateCall> calls;
    std::vector<ScalarPtr> call_exprs;  // the bound calls, to find repeats
  };
  Result<ScalarPtr> Lift(const ScalarPtr& s, Aggregation& agg, const RowType& from_row,
                         sql::Location loc);
  int PreColumn(Aggregation& agg, const ScalarPtr& s);

  // Expands a select list against a scope: `*`, `t.*`, and the items.
  struct Item {
    const sql::Expr* expr = nullptr;  // null for columns of a star
    int column = -1;                  // star columns: FROM row index
    ScalarPtr bound;                  // star columns: the scalar (merged columns may coalesce)
    std::string name;
    sql::Location loc;
  };
  Result<std::vector<Item>> Items(const sql::SelectBody& select, const Scope& scope);

  const catalog::Catalog& catalog_;
  const sql::Statement* statement_ = nullptr;
  // Common table expressions visible now, innermost last.
  std::vector<std::pair<std::string, RelPtr>> ctes_;
  std::unordered_map<const catalog::Table*, RelPtr> views_;
  std::vector<const catalog::Table*> view_stack_;
  std::optional<std::vector<std::string>> defined_view_;  // see Binder::SetDefinedView
  int subquery_aliases_ = 0;
  int outer_refs_ = 0;  // correlated references made so far
  int expr_depth_ = 0;  // nesting of the expression being bound
};

Binder::Binder(const catalog::Catalog& catalog) : impl_(std::make_unique<Impl>(catalog)) {}
Binder::~Binder() = default;
void Binder::SetStatement(const sql::Statement* statement) { impl_->SetStatement(statement); }
void Binder::SetDefinedView(std::vector<std::string> path) {
  impl_->SetDefinedView(std::move(path));
}
Result<RelPtr> Binder::BindQuery(const sql::Query& query) { return impl_->Query(query, nullptr); }
Result<RelPtr> Binder::BindQuery(const sql::Query& query,
                                 const std::vector<sql::Identifier>& columns) {
  return impl_->QueryWithColumns(query, columns);
}
Result<BoundInsert> Binder::BindInsert(const sql::InsertStatement& insert) {
  return impl_->Insert(insert);
}
Result<RelPtr> Binder::BindView(const catalog::Table& view) { return impl_->View(view); }

// ---------------------------------------------------------------------------------------------
// Errors

Status Binder::Impl::ErrorCode(StatusCode code, sql::Location loc, std::string_view what) const {
  if (!statement_ || view_stack_.size() > 0) {
    if (!view_stack_.empty()) {
      return Status(code,
                    fmt::format("{} (in view {})", what, view_stack_.back()->QualifiedName()));
    }
    return Status(code, fmt::format("{} at line {}, column {}", what, loc.line, loc.column));
  }
  // Find the byte offset of `loc` in the statement's text, which starts at statement_->loc.
  const std::string& text = statement_->source;
  uint32_t line = statement_->loc.line;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size() && line < loc.line; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  uint32_t first_column = loc.line == statement_->loc.line ? statement_->loc.column : 1;
  size_t offset = line_start + (loc.column >= first_column ? loc.column - first_column : 0);
  return Status(code, FormatSourceError(
                          text, offset, what,
                          {statement_->loc.line, statement_->loc.column, statement_->line_prefix}));
}

Status Binder::Impl::Error(sql::Location loc, std::string_view what) const {
  return ErrorCode(StatusCode::kBind, loc, what);
}

// ---------------------------------------------------------------------------------------------
// Queries

Result<RelPtr> Binder::Impl::Query(const sql::Query& q, const Scope* outer) {
  const size_t ctes_before = ctes_.size();
  for (const auto& cte : q.with) {
    auto bound =
        cte.columns.empty() ? Query(*cte.query, outer) : QueryWithColumns(*cte.query, cte.columns);
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

// ---------------------------------------------------------------------------------------------
// SELECT

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

  HOP_ASSIGN_OR_RETURN(std::vector<Item> items, Items(select, scope));
  bool aggregate = !select.group_by.empty() || select.having ||
                   std::any_of(select.items.begin(), select.items.end(),
                               [](const auto& i) { return ContainsAggregate(i.expr.get()); });

  std::vector<ScalarPtr> exprs;
  std::vector<std::string> names;
  // ORDER BY expressions not in the select list become hidden columns, trimmed after the sort.
  std::vector<SortKey> sort_keys;
  size_t visible = items.size();

  auto bind_order = [&](auto&& bind_expr) -> Status {
    if (!order_by) return Status::OK();
    for (const auto& o : *order_by) {
      const sql::Expr& e = *o.expr;
      int column = -1;
      if (e.kind == ExprKind::kLiteral &&
          e.As<sql::LiteralExpr>().literal == sql::LiteralKind::kInteger) {
        column = std::atoi(e.As<sql::LiteralExpr>().value.c_str()) - 1;
        if (column < 0 || column >= static_cast<int>(visible)) {
          return Error(e.loc, fmt::format("Ordinal out of range"));
        }
      } else if (e.kind == ExprKind::kColumnRef && e.As<sql::ColumnRefExpr>().name.size() == 1) {
        const std::string& n = e.As<sql::ColumnRefExpr>().name.back().name;
        for (size_t i = 0; i < visible; ++i) {
          if (names[i] == n && items[i].expr && items[i].expr->kind != ExprKind::kColumnRef) {
            column = static_cast<int>(i);  // an alias of a computed column
            break;
          }
        }
      }
      if (column < 0) {
        HOP_ASSIGN_OR_RETURN(ScalarPtr s, bind_expr(e));
        for (size_t i = 0; i < exprs.size(); ++i) {
          if (SameScalar(*exprs[i], *s)) {
            column = static_cast<int>(i);
            break;
          }
        }
        if (column < 0) {
          if (select.quantifier == sql::SetQuantifier::kDistinct) {
            return Error(e.loc, "Expression is not in the select list of SELECT DISTINCT");
          }
          column = static_cast<int>(exprs.size());
          exprs.push_back(s);
          names.push_back(fmt::format("EXPR${}", exprs.size() - 1));
        }
      }
      sort_keys.push_back({column, o.direction, o.nulls});
    }
    return Status::OK();
  };

  if (!aggregate) {
    ctx.allow_windows = true;
    for (auto& item : items) {
      if (item.expr) {
        HOP_ASSIGN_OR_RETURN(item.bound, Expr(*item.expr, ctx));
      }
      exprs.push_back(item.bound);
      names.push_back(item.name);
    }
    ExprContext order_ctx = ctx;
    HOP_RETURN_IF_ERROR(bind_order([&](const sql::Expr& e) { return Expr(e, order_ctx); }));
  } else {
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
    for (auto& item : items) {
      ScalarPtr s = item.bound;
      if (item.expr) {
        HOP_ASSIGN_OR_RETURN(s, Expr(*item.expr, actx));
      }
      HOP_ASSIGN_OR_RETURN(ScalarPtr lifted, Lift(s, agg, scope.row, item.loc));
      exprs.push_back(lifted);
      names.push_back(item.name);
    }
    ScalarPtr having;
    if (select.having) {
      HOP_ASSIGN_OR_RETURN(ScalarPtr h, Expr(*select.having, actx));
      HOP_ASSIGN_OR_RETURN(having, Lift(h, agg, scope.row, select.having->loc));
      if (!IsBoolean(having->type)) {
        return Error(select.having->loc, "HAVING clause must be a condition");
      }
    }
    HOP_RETURN_IF_ERROR(bind_order([&](const sql::Expr& e) -> Result<ScalarPtr> {
      HOP_ASSIGN_OR_RETURN(ScalarPtr s, Expr(e, actx));
      return Lift(s, agg, scope.row, e.loc);
    }));

    // Pre-projection (only when some key or argument is not a plain column).
    bool trivial = std::all_of(agg.pre.begin(), agg.pre.end(),
                               [](const ScalarPtr& s) { return s->kind == ScalarKind::kInputRef; });
    Rel aggregate_rel;
    aggregate_rel.kind = RelKind::kAggregate;
    if (trivial) {
      for (size_t i = 0; i < agg.groups.size(); ++i)
        aggregate_rel.group.push_back(agg.pre[i]->index);
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
    for (int g : aggregate_rel.group)
      aggregate_rel.row_type.columns.push_back(agg_input.columns[g]);
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
  }

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

// ---------------------------------------------------------------------------------------------
// FROM

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
  }
  return Status::Internal("unknown table reference");
}

Result<From> Binder::Impl::Table(const sql::BaseTableRef& ref, const Scope* outer) {
  (void)outer;
  const auto& parts = ref.name.parts;
  if (parts.size() == 1) {
    for (auto it = ctes_.rbegin(); it != ctes_.rend(); ++it) {
      if (it->first == parts[0].name) {
        return Aliased(it->second, parts[0].name, {parts[0].name}, ref.alias, ref.loc);
      }
    }
  }
  std::vector<std::string> path;
  for (const auto& p : parts) path.push_back(p.name);
  auto resolved = catalog_.Resolve(path);
  if (!resolved.ok()) {
    return ErrorCode(resolved.status().code(), ref.loc, resolved.status().message());
  }
  const catalog::Table* table = *resolved;
  RelPtr rel;
  if (defined_view_ && table->kind != catalog::ObjectKind::kTable && table->path == *defined_view_) {
    // The catalog still has the view's old definition: reaching it means the new one would
    // read itself.
    std::string cycle = Dotted(*defined_view_);
    for (const catalog::Table* v : view_stack_) cycle += " -> " + v->QualifiedName();
    cycle += " -> " + Dotted(*defined_view_);
    return ErrorCode(StatusCode::kBind, ref.loc,
                     fmt::format("View {} would depend on itself: {}", Dotted(*defined_view_),
                                 cycle));
  }
  if (table->kind != catalog::ObjectKind::kTable && !table->sql.empty()) {
    HOP_ASSIGN_OR_RETURN(rel, View(*table));
  } else {
    Rel scan;
    scan.kind = RelKind::kScan;
    scan.table = table;
    scan.path = table->path;
    scan.row_type = table->row_type;
    rel = MakeRel(std::move(scan));
  }
  return Aliased(std::move(rel), table->name, table->path, ref.alias, ref.loc);
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
        defined_view_ ? Dotted(*defined_view_) : view_stack_.front()->QualifiedName();
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
                                         name, TypeText(lt), TypeText(rt)));
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
                                         TypeText(t)));
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
                               query->row_type.columns[i].name, TypeText(t)));
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

// ---------------------------------------------------------------------------------------------
// INSERT

Result<BoundInsert> Binder::Impl::Insert(const sql::InsertStatement& insert) {
  std::vector<std::string> path;
  for (const auto& p : insert.target.parts) path.push_back(p.name);
  auto resolved = catalog_.Resolve(path);
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
                               target_col.name, TypeText(target_col.type, true), qcols[i].name,
                               TypeText(qcols[i].type, true)));
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

// ---------------------------------------------------------------------------------------------
// Expressions

Result<std::vector<ScalarPtr>> Binder::Impl::ExprList(const std::vector<sql::ExprPtr>& list,
                                                      const ExprContext& ctx) {
  std::vector<ScalarPtr> out;
  out.reserve(list.size());
  for (const auto& e : list) {
    HOP_ASSIGN_OR_RETURN(ScalarPtr s, Expr(*e, ctx));
    out.push_back(std::move(s));
  }
  return out;
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

Result<ScalarPtr> Binder::Impl::Literal(const sql::LiteralExpr& lit) {
  Scalar s;
  s.kind = ScalarKind::kLiteral;
  s.literal = lit.literal;
  s.text = lit.value;
  switch (lit.literal) {
    case sql::LiteralKind::kNull: s.type = DataType(TypeName::kNull); break;
    case sql::LiteralKind::kBoolean: s.type = NotNull(TypeName::kBoolean); break;
    case sql::LiteralKind::kInteger: s.type = IntegerLiteralType(lit.value); break;
    case sql::LiteralKind::kDecimal: {
      s.type = NotNull(TypeName::kDecimal);
      size_t dot = lit.value.find('.');
      int digits = 0;
      for (char c : lit.value) digits += c >= '0' && c <= '9';
      s.type.scale = dot == std::string::npos ? 0 : static_cast<int>(lit.value.size() - dot - 1);
      s.type.precision = std::max(digits, *s.type.scale);
      break;
    }
    case sql::LiteralKind::kFloat: s.type = NotNull(TypeName::kDouble); break;
    case sql::LiteralKind::kString:
      s.type = NotNull(TypeName::kChar);
      s.type.precision = static_cast<int>(Utf8Length(lit.value));
      break;
    case sql::LiteralKind::kBinary:
      s.type = NotNull(TypeName::kBinary);
      s.type.precision = static_cast<int>(lit.value.size() / 2);
      break;
    case sql::LiteralKind::kDate: s.type = NotNull(TypeName::kDate); break;
    case sql::LiteralKind::kTime:
    case sql::LiteralKind::kTimestamp: {
      s.type =
          NotNull(lit.literal == sql::LiteralKind::kTime ? TypeName::kTime : TypeName::kTimestamp);
      size_t dot = lit.value.find('.');
      s.type.precision =
          dot == std::string::npos ? 0 : static_cast<int>(lit.value.size() - dot - 1);
      break;
    }
    case sql::LiteralKind::kInterval:
      s.type = NotNull(TypeName::kInterval);
      s.interval = {lit.from_unit, lit.from_precision, lit.to_unit, lit.to_precision};
      break;
  }
  return Make(std::move(s));
}

Status Binder::Impl::CheckComparable(const ScalarPtr& a, const ScalarPtr& b, std::string_view op,
                                     sql::Location loc) const {
  if (Comparable(a->type, b->type)) return Status::OK();
  return Error(loc, fmt::format("Cannot apply '{0}' to arguments of type '<{1}> {0} <{2}>'. "
                                "Supported form(s): '<COMPARABLE_TYPE> {0} <COMPARABLE_TYPE>'",
                                op, TypeText(a->type), TypeText(b->type)));
}

Result<ScalarPtr> Binder::Impl::BinaryExpr(const sql::BinaryExpr& b, const ExprContext& ctx) {
  HOP_ASSIGN_OR_RETURN(ScalarPtr left, Expr(*b.left, ctx));
  HOP_ASSIGN_OR_RETURN(ScalarPtr right, Expr(*b.right, ctx));
  const DataType& lt = left->type;
  const DataType& rt = right->type;
  const bool nullable = IsNullable(lt) || IsNullable(rt);
  std::string_view op = BinaryOpText(b.op);
  auto mismatch = [&](std::string_view supported) {
    return Error(b.loc, fmt::format("Cannot apply '{0}' to arguments of type '<{1}> {0} <{2}>'. "
                                    "Supported form(s): {3}",
                                    op, TypeText(lt), TypeText(rt), supported));
  };
  DataType type;
  switch (b.op) {
    case sql::BinaryOp::kAnd:
    case sql::BinaryOp::kOr:
      if ((!IsBoolean(lt) && !IsNull(lt)) || (!IsBoolean(rt) && !IsNull(rt))) {
        return mismatch(fmt::format("'<BOOLEAN> {0} <BOOLEAN>'", op));
      }
      type = WithNullable(DataType(TypeName::kBoolean), nullable);
      break;
    case sql::BinaryOp::kEq:
    case sql::BinaryOp::kNe:
    case sql::BinaryOp::kLt:
    case sql::BinaryOp::kLe:
    case sql::BinaryOp::kGt:
    case sql::BinaryOp::kGe:
      HOP_RETURN_IF_ERROR(CheckComparable(left, right, op, b.loc));
      type = WithNullable(DataType(TypeName::kBoolean), nullable);
      break;
    case sql::BinaryOp::kIsDistinctFrom:
    case sql::BinaryOp::kIsNotDistinctFrom:
      HOP_RETURN_IF_ERROR(CheckComparable(left, right, op, b.loc));
      type = NotNull(TypeName::kBoolean);
      break;
    case sql::BinaryOp::kConcat:
      if ((lt.name == TypeName::kArray || IsNull(lt)) &&
          (rt.name == TypeName::kArray || IsNull(rt)) &&
          (lt.name == TypeName::kArray || rt.name == TypeName::kArray)) {
        DataType pair[] = {lt, rt};
        auto t = LeastRestrictive(pair);
        if (!t) return mismatch("'<ARRAY> || <ARRAY>'");
        type = *t;
      } else if (IsBinary(lt) && IsBinary(rt)) {
        type = WithNullable(ConcatResult(lt, rt), nullable);
      } else if ((IsCharacter(lt) || IsNull(lt) || IsNumeric(lt) || IsDatetime(lt)) &&
                 (IsCharacter(rt) || IsNull(rt) || IsNumeric(rt) || IsDatetime(rt)) &&
                 (IsCharacter(lt) || IsCharacter(rt))) {
        type = WithNullable(ConcatResult(lt, rt), nullable);
      } else {
        return mismatch("'<STRING> || <STRING>'");
      }
      break;
    case sql::BinaryOp::kAdd:
    case sql::BinaryOp::kSubtract:
    case sql::BinaryOp::kMultiply:
    case sql::BinaryOp::kDivide:
    case sql::BinaryOp::kModulo: {
      bool additive = b.op == sql::BinaryOp::kAdd || b.op == sql::BinaryOp::kSubtract;
      auto numeric_like = [](const DataType& t) {
        return IsNumeric(t) || IsNull(t) || IsCharacter(t);
      };
      if (additive && IsDatetime(lt) && rt.name == TypeName::kInterval) {
        type = WithNullable(lt, nullable);
      } else if (b.op == sql::BinaryOp::kAdd && lt.name == TypeName::kInterval && IsDatetime(rt)) {
        type = WithNullable(rt, nullable);
      } else if (additive && lt.name == TypeName::kInterval && rt.name == TypeName::kInterval) {
        type = WithNullable(lt, nullable);
      } else if (numeric_like(lt) && numeric_like(rt) && (IsNumeric(lt) || IsNumeric(rt))) {
        const DataType& a = IsNumeric(lt) ? lt : rt;
        const DataType& c = IsNumeric(rt) ? rt : lt;
        const Arithmetic arithmetic = b.op == sql::BinaryOp::kAdd        ? Arithmetic::kAdd
                                      : b.op == sql::BinaryOp::kSubtract ? Arithmetic::kSubtract
                                      : b.op == sql::BinaryOp::kMultiply ? Arithmetic::kMultiply
                                      : b.op == sql::BinaryOp::kDivide   ? Arithmetic::kDivide
                                                                         : Arithmetic::kModulo;
        type = WithNullable(NumericResult(arithmetic, a, c), nullable);
      } else if (IsNull(lt) && IsNull(rt)) {
        type = DataType(TypeName::kNull);
      } else {
        return mismatch(fmt::format("'<NUMERIC> {0} <NUMERIC>'", op));
      }
      break;
    }
  }
  return Binary(b.op, std::move(left), std::move(right), std::move(type));
}

Result<RelPtr> Binder::Impl::Subquery(const sql::Query& q, const Scope& scope, bool* correlated) {
  const int before = outer_refs_;
  auto rel = Query(q, &scope);
  *correlated = outer_refs_ != before;
  return rel;
}

Result<ScalarPtr> Binder::Impl::Function(const sql::FunctionExpr& f, const ExprContext& ctx) {
  const std::string& name = f.name.back().name;
  const binder::Function* fn = f.name.size() == 1 ? FindFunction(name) : nullptr;
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
  if (!f.within_group.empty() || f.filter) {
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
    for (const auto& o : f.within_group) {
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

Result<ScalarPtr> Binder::Impl::BindParameter(const sql::Expr& e, const ExprContext&) {
  Scalar s;
  s.kind = ScalarKind::kParameter;
  s.index = e.As<sql::ParameterExpr>().index;
  s.type = DataType(TypeName::kNull);
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::BindUnary(const sql::Expr& e, const ExprContext& ctx) {
  const auto& u = e.As<sql::UnaryExpr>();
  HOP_ASSIGN_OR_RETURN(ScalarPtr operand, Expr(*u.operand, ctx));
  const DataType& t = operand->type;
  if (u.op == sql::UnaryOp::kNot) {
    if (!IsBoolean(t) && !IsNull(t)) {
      return Error(e.loc, fmt::format("Cannot apply 'NOT' to arguments of type 'NOT<{}>'. "
                                      "Supported form(s): 'NOT<BOOLEAN>'",
                                      TypeText(t)));
    }
  } else if (!IsNumeric(t) && !IsNull(t) && t.name != TypeName::kInterval) {
    return Error(e.loc, fmt::format("Cannot apply '-' to arguments of type '-<{}>'. "
                                    "Supported form(s): '-<NUMERIC>'",
                                    TypeText(t)));
  }
  if (u.op == sql::UnaryOp::kPlus) return operand;
  Scalar s;
  s.kind = ScalarKind::kUnary;
  s.unary_op = u.op;
  s.type = IsNull(t) && u.op == sql::UnaryOp::kNot ? DataType(TypeName::kBoolean) : t;
  s.args = {std::move(operand)};
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::BindIs(const sql::Expr& e, const ExprContext& ctx) {
  const auto& is = e.As<sql::IsExpr>();
  HOP_ASSIGN_OR_RETURN(ScalarPtr operand, Expr(*is.operand, ctx));
  if (is.test != sql::IsTest::kNull && !IsBoolean(operand->type) && !IsNull(operand->type)) {
    return Error(e.loc, "IS TRUE, IS FALSE and IS UNKNOWN need a boolean operand");
  }
  Scalar s;
  s.kind = ScalarKind::kIs;
  s.is_test = is.test;
  s.negated = is.negated;
  s.type = NotNull(TypeName::kBoolean);
  s.args = {std::move(operand)};
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::BindBetween(const sql::Expr& e, const ExprContext& ctx) {
  const auto& b = e.As<sql::BetweenExpr>();
  Scalar s;
  s.kind = ScalarKind::kBetween;
  s.negated = b.negated;
  for (const auto* x : {b.operand.get(), b.low.get(), b.high.get()}) {
    HOP_ASSIGN_OR_RETURN(ScalarPtr a, Expr(*x, ctx));
    s.args.push_back(std::move(a));
  }
  HOP_RETURN_IF_ERROR(CheckComparable(s.args[0], s.args[1], "BETWEEN", e.loc));
  HOP_RETURN_IF_ERROR(CheckComparable(s.args[0], s.args[2], "BETWEEN", e.loc));
  bool nullable = std::any_of(s.args.begin(), s.args.end(),
                              [](const ScalarPtr& a) { return IsNullable(a->type); });
  s.type = WithNullable(DataType(TypeName::kBoolean), nullable);
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::BindInList(const sql::Expr& e, const ExprContext& ctx) {
  const auto& in = e.As<sql::InListExpr>();
  Scalar s;
  s.kind = ScalarKind::kInList;
  s.negated = in.negated;
  HOP_ASSIGN_OR_RETURN(ScalarPtr operand, Expr(*in.operand, ctx));
  s.args.push_back(operand);
  bool nullable = IsNullable(operand->type);
  for (const auto& x : in.list) {
    HOP_ASSIGN_OR_RETURN(ScalarPtr a, Expr(*x, ctx));
    HOP_RETURN_IF_ERROR(CheckComparable(operand, a, "IN", x->loc));
    nullable = nullable || IsNullable(a->type);
    s.args.push_back(std::move(a));
  }
  s.type = WithNullable(DataType(TypeName::kBoolean), nullable);
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::BindInSubquery(const sql::Expr& e, const ExprContext& ctx) {
  const auto& in = e.As<sql::InSubqueryExpr>();
  HOP_ASSIGN_OR_RETURN(ScalarPtr operand, Expr(*in.operand, ctx));
  bool correlated = false;
  HOP_ASSIGN_OR_RETURN(RelPtr q, Subquery(*in.query, *ctx.scope, &correlated));
  if (q->row_type.columns.size() != 1) {
    return Error(e.loc, "Values in expression list must have compatible types");
  }
  HOP_RETURN_IF_ERROR(CheckCorrelation(correlated, ctx, e.loc));
  Scalar s;
  s.correlated = correlated;
  s.kind = ScalarKind::kInSubquery;
  s.negated = in.negated;
  s.args = {operand};
  s.query = std::move(q);
  s.type = DataType(TypeName::kBoolean);
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::BindLike(const sql::Expr& e, const ExprContext& ctx) {
  const auto& l = e.As<sql::LikeExpr>();
  Scalar s;
  s.kind = ScalarKind::kLike;
  s.negated = l.negated;
  bool nullable = false;
  for (const auto* x : {l.operand.get(), l.pattern.get(), l.escape.get()}) {
    if (!x) continue;
    HOP_ASSIGN_OR_RETURN(ScalarPtr a, Expr(*x, ctx));
    if (!IsCharacter(a->type) && !IsNull(a->type)) {
      return Error(x->loc, fmt::format("Cannot apply 'LIKE' to arguments of type "
                                       "'LIKE(<{}>)'. Supported form(s): "
                                       "'<STRING> LIKE <STRING>'",
                                       TypeText(a->type)));
    }
    nullable = nullable || IsNullable(a->type);
    s.args.push_back(std::move(a));
  }
  s.type = WithNullable(DataType(TypeName::kBoolean), nullable);
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::BindExists(const sql::Expr& e, const ExprContext& ctx) {
  bool correlated = false;
  HOP_ASSIGN_OR_RETURN(RelPtr q, Subquery(*e.As<sql::ExistsExpr>().query, *ctx.scope, &correlated));
  HOP_RETURN_IF_ERROR(CheckCorrelation(correlated, ctx, e.loc));
  Scalar s;
  s.correlated = correlated;
  s.kind = ScalarKind::kExists;
  s.query = std::move(q);
  s.type = NotNull(TypeName::kBoolean);
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::BindSubquery(const sql::Expr& e, const ExprContext& ctx) {
  bool correlated = false;
  HOP_ASSIGN_OR_RETURN(RelPtr q,
                       Subquery(*e.As<sql::SubqueryExpr>().query, *ctx.scope, &correlated));
  HOP_RETURN_IF_ERROR(CheckCorrelation(correlated, ctx, e.loc));
  if (q->row_type.columns.size() != 1) {
    return Error(e.loc, fmt::format("Scalar subquery must return exactly one column, not {}",
                                    q->row_type.columns.size()));
  }
  Scalar s;
  s.kind = ScalarKind::kSubquery;
  s.correlated = correlated;
  s.type = WithNullable(q->row_type.columns[0].type, true);
  s.query = std::move(q);
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::BindCase(const sql::Expr& e, const ExprContext& ctx) {
  const auto& c = e.As<sql::CaseExpr>();
  Scalar s;
  s.kind = ScalarKind::kCase;
  ScalarPtr operand;
  if (c.operand) {
    HOP_ASSIGN_OR_RETURN(operand, Expr(*c.operand, ctx));
  }
  std::vector<DataType> result_types;
  for (const auto& w : c.whens) {
    HOP_ASSIGN_OR_RETURN(ScalarPtr cond, Expr(*w.condition, ctx));
    if (operand) {
      // Simple CASE: WHEN v means WHEN operand = v.
      HOP_RETURN_IF_ERROR(CheckComparable(operand, cond, "=", w.condition->loc));
      bool nullable = IsNullable(operand->type) || IsNullable(cond->type);
      cond = Binary(sql::BinaryOp::kEq, operand, cond,
                    WithNullable(DataType(TypeName::kBoolean), nullable));
    } else if (!IsBoolean(cond->type) && !IsNull(cond->type)) {
      return Error(w.condition->loc, "CASE WHEN needs a boolean condition");
    }
    HOP_ASSIGN_OR_RETURN(ScalarPtr result, Expr(*w.result, ctx));
    result_types.push_back(result->type);
    s.args.push_back(std::move(cond));
    s.args.push_back(std::move(result));
  }
  if (c.else_result) {
    HOP_ASSIGN_OR_RETURN(ScalarPtr result, Expr(*c.else_result, ctx));
    result_types.push_back(result->type);
    s.args.push_back(std::move(result));
    s.has_else = true;
  }
  auto t = LeastRestrictive(result_types);
  if (!t) return Error(e.loc, "Illegal mixing of types in CASE or COALESCE statement");
  s.type = c.else_result ? *t : WithNullable(*t, true);
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::BindCast(const sql::Expr& e, const ExprContext& ctx) {
  const auto& c = e.As<sql::CastExpr>();
  HOP_ASSIGN_OR_RETURN(ScalarPtr operand, Expr(*c.operand, ctx));
  const DataType& from = operand->type;
  auto is_structured = [](const DataType& t) {
    return t.name == TypeName::kArray || t.name == TypeName::kMultiset ||
           t.name == TypeName::kMap || t.name == TypeName::kRow;
  };
  bool structured = is_structured(from);
  bool to_structured = is_structured(c.type);
  if (!IsNull(from) && structured != to_structured) {
    return Error(e.loc, fmt::format("Cast function cannot convert value of type {} to type {}",
                                    TypeText(from, true), TypeText(c.type, true)));
  }
  DataType to = c.type;
  if (to.nullability == sql::Nullability::kUnspecified) {
    to = WithNullable(to, IsNullable(from) || c.try_cast);
  }
  Scalar s;
  s.kind = ScalarKind::kCast;
  s.type = std::move(to);
  s.negated = c.try_cast;  // TRY_CAST
  s.args = {std::move(operand)};
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::BindExtract(const sql::Expr& e, const ExprContext& ctx) {
  const auto& x = e.As<sql::ExtractExpr>();
  HOP_ASSIGN_OR_RETURN(ScalarPtr operand, Expr(*x.operand, ctx));
  if (!IsDatetime(operand->type) && operand->type.name != TypeName::kInterval &&
      !IsNull(operand->type)) {
    return Error(e.loc, fmt::format("Cannot apply 'EXTRACT' to arguments of type "
                                    "'EXTRACT(<INTERVAL SYMBOL> FROM <{}>)'",
                                    TypeText(operand->type)));
  }
  Scalar s;
  s.kind = ScalarKind::kExtract;
  s.text = x.unit;
  s.type = WithNullable(DataType(TypeName::kBigInt), IsNullable(operand->type));
  s.args = {std::move(operand)};
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::BindJsonObject(const sql::Expr& e, const ExprContext& ctx) {
  const auto& j = e.As<sql::JsonObjectExpr>();
  Scalar s;
  s.kind = ScalarKind::kJsonObject;
  s.absent_on_null = j.absent_on_null;
  for (const auto& [k, v] : j.entries) {
    HOP_ASSIGN_OR_RETURN(ScalarPtr key, Expr(*k, ctx));
    if (!IsCharacter(key->type)) {
      return Error(k->loc, "JSON_OBJECT keys must be strings");
    }
    HOP_ASSIGN_OR_RETURN(ScalarPtr value, Expr(*v, ctx));
    s.args.push_back(std::move(key));
    s.args.push_back(std::move(value));
  }
  s.type = NotNull(TypeName::kVarchar);
  s.type.precision = 2000;
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::BindCollection(const sql::Expr& e, const ExprContext& ctx) {
  const std::vector<sql::ExprPtr>& elements =
      e.kind == ExprKind::kArray ? e.As<sql::ArrayExpr>().elements
      : e.kind == ExprKind::kMap ? e.As<sql::MapExpr>().elements
                                 : e.As<sql::RowExpr>().elements;
  Scalar s;
  s.kind = e.kind == ExprKind::kArray ? ScalarKind::kArray
           : e.kind == ExprKind::kMap ? ScalarKind::kMap
                                      : ScalarKind::kRow;
  HOP_ASSIGN_OR_RETURN(s.args, ExprList(elements, ctx));
  if (s.kind == ScalarKind::kRow) {
    s.type = NotNull(TypeName::kRow);
    for (size_t i = 0; i < s.args.size(); ++i) {
      s.type.fields.push_back({sql::Identifier(fmt::format("EXPR${}", i)), s.args[i]->type});
    }
    return Make(std::move(s));
  }
  if (s.args.empty()) {
    return Error(e.loc, fmt::format("Require at least 1 argument"));
  }
  auto least = [&](size_t from, size_t step) -> std::optional<DataType> {
    std::vector<DataType> types;
    for (size_t i = from; i < s.args.size(); i += step) types.push_back(s.args[i]->type);
    return LeastRestrictive(types);
  };
  if (s.kind == ScalarKind::kArray) {
    auto element = least(0, 1);
    if (!element) {
      return Error(e.loc, "Parameters must be of the same type");
    }
    s.type = NotNull(TypeName::kArray);
    s.type.params = {*element};
  } else {
    if (s.args.size() % 2 != 0) {
      return Error(e.loc, "MAP requires an even number of arguments");
    }
    auto key = least(0, 2);
    auto value = least(1, 2);
    if (!key || !value) return Error(e.loc, "Parameters must be of the same type");
    s.type = NotNull(TypeName::kMap);
    s.type.params = {*key, *value};
  }
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::BindSubscript(const sql::Expr& e, const ExprContext& ctx) {
  const auto& sub = e.As<sql::SubscriptExpr>();
  HOP_ASSIGN_OR_RETURN(ScalarPtr base, Expr(*sub.base, ctx));
  HOP_ASSIGN_OR_RETURN(ScalarPtr index, Expr(*sub.index, ctx));
  const DataType& bt = base->type;
  Scalar s;
  s.kind = ScalarKind::kItem;
  if (bt.name == TypeName::kArray && (IsExactNumeric(index->type) || IsNull(index->type))) {
    s.type = WithNullable(bt.params[0], true);
  } else if (bt.name == TypeName::kMap) {
    s.type = WithNullable(bt.params[1], true);
  } else if (bt.name == TypeName::kRow && index->kind == ScalarKind::kLiteral &&
             index->literal == sql::LiteralKind::kString) {
    int field = -1;
    for (size_t f = 0; f < bt.fields.size(); ++f) {
      if (bt.fields[f].name.name == index->text) field = static_cast<int>(f);
    }
    if (field < 0) return Error(sub.index->loc, fmt::format("Unknown field '{}'", index->text));
    s.type = WithNullable(bt.fields[field].type, true);
  } else {
    return Error(e.loc, fmt::format("Cannot apply 'ITEM' to arguments of type "
                                    "'ITEM(<{}>, <{}>)'. Supported form(s): "
                                    "<ARRAY>[<INTEGER>] <MAP>[<ANY>] <ROW>[<CHARACTER>|"
                                    "<INTEGER>]",
                                    TypeText(bt), TypeText(index->type)));
  }
  s.args = {std::move(base), std::move(index)};
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::Expr(const sql::Expr& e, const ExprContext& ctx) {
  // The parser bounds nesting; this bounds what views and subqueries add on top of it.
  if (expr_depth_ >= kMaxExprDepth) {
    return Error(e.loc, fmt::format("expression nested more than {} levels deep", kMaxExprDepth));
  }
  ++expr_depth_;
  Result<ScalarPtr> out = ExprOfKind(e, ctx);
  --expr_depth_;
  return out;
}

Result<ScalarPtr> Binder::Impl::ExprOfKind(const sql::Expr& e, const ExprContext& ctx) {
  switch (e.kind) {
    case ExprKind::kLiteral: return Literal(e.As<sql::LiteralExpr>());
    case ExprKind::kColumnRef: return Column(e.As<sql::ColumnRefExpr>(), *ctx.scope);
    case ExprKind::kStar: return Error(e.loc, "'*' is only valid in a select list or COUNT(*)");
    case ExprKind::kParameter: return BindParameter(e, ctx);
    case ExprKind::kUnary: return BindUnary(e, ctx);
    case ExprKind::kBinary: return BinaryExpr(e.As<sql::BinaryExpr>(), ctx);
    case ExprKind::kIs: return BindIs(e, ctx);
    case ExprKind::kBetween: return BindBetween(e, ctx);
    case ExprKind::kInList: return BindInList(e, ctx);
    case ExprKind::kInSubquery: return BindInSubquery(e, ctx);
    case ExprKind::kLike: return BindLike(e, ctx);
    case ExprKind::kExists: return BindExists(e, ctx);
    case ExprKind::kSubquery: return BindSubquery(e, ctx);
    case ExprKind::kCase: return BindCase(e, ctx);
    case ExprKind::kCast: return BindCast(e, ctx);
    case ExprKind::kFunction: return Function(e.As<sql::FunctionExpr>(), ctx);
    case ExprKind::kExtract: return BindExtract(e, ctx);
    case ExprKind::kJsonObject: return BindJsonObject(e, ctx);
    case ExprKind::kArray:
    case ExprKind::kMap:
    case ExprKind::kRow: return BindCollection(e, ctx);
    case ExprKind::kSubscript: return BindSubscript(e, ctx);
  }
  return Status::Internal("unknown expression kind");
}

// ---------------------------------------------------------------------------------------------

RelPtr Rename(const RelPtr& rel, const std::vector<std::string>& names) {
  bool same = true;
  for (size_t i = 0; i < names.size(); ++i) {
    if (rel->row_type.columns[i].name != names[i]) same = false;
  }
  if (same) return rel;
  if (rel->kind == RelKind::kProject) {
    Rel renamed = *rel;
    for (size_t i = 0; i < names.size(); ++i) renamed.row_type.columns[i].name = names[i];
    return MakeRel(std::move(renamed));
  }
  Rel project;
  project.kind = RelKind::kProject;
  for (size_t i = 0; i < names.size(); ++i) {
    project.exprs.push_back(InputRef(static_cast<int>(i), rel->row_type.columns[i].type));
    project.row_type.columns.push_back({names[i], rel->row_type.columns[i].type});
  }
  project.inputs = {rel};
  return MakeRel(std::move(project));
}

}  // namespace hop::binder
