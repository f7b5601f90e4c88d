// The binder's implementation, shared by the bind_*.cc files and internal to src/binder: the scope
// a clause sees, the helpers that build plan nodes, and Binder::Impl, whose methods are split by
// concern:
//
//   binder.cc          the Binder facade, errors with their position, Rename
//   bind_query.cc      queries: WITH, set operations, VALUES, ORDER BY / LIMIT / OFFSET
//   bind_select.cc     SELECT: the select list, `*` and `t.*`, WHERE, ORDER BY of a SELECT
//   bind_aggregate.cc  GROUP BY, HAVING, aggregate calls lifted out of expressions
//   bind_from.cc       FROM: derived tables, joins (NATURAL and USING), UNNEST
//   bind_names.cc      names: tables and CTEs, views inlined (cycles, depth), column references
//   bind_expression.cc expressions, one method per kind, and subqueries in expressions
//   bind_function.cc   function calls: the function library, aggregates, windows
//   bind_insert.cc     INSERT: target columns, assignment casts
//
// Conventions: every method returns a Result whose error already names the position (Error,
// ErrorCode); expressions are bound one kind per method, so that each level of a deeply nested
// expression costs only the frame of the kind it is.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "binder/binder.h"
#include "binder/bound.h"
#include "binder/pg_catalog.h"
#include "binder/types.h"

namespace hop::binder {

using catalog::Column;
using catalog::RowType;
using sql::ExprKind;

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

inline ScalarPtr Make(Scalar s) { return std::make_shared<Scalar>(std::move(s)); }

inline RelPtr MakeRel(Rel r) { return std::make_shared<Rel>(std::move(r)); }

inline ScalarPtr Binary(sql::BinaryOp op, ScalarPtr a, ScalarPtr b, DataType type) {
  Scalar s;
  s.kind = ScalarKind::kBinary;
  s.binary_op = op;
  s.args = {std::move(a), std::move(b)};
  s.type = std::move(type);
  return Make(std::move(s));
}

// Whether an aggregate call appears in `e` outside subqueries and windows.
bool ContainsAggregate(const sql::Expr* e);

// The columns of `row` quoted for messages: `'A', 'B'`.
std::string QuotedList(const RowType& row);

class Binder::Impl {
 public:
  explicit Impl(const catalog::Catalog& catalog) : catalog_(catalog) {}

  void SetStatement(const sql::Statement* s) { statement_ = s; }
  void SetDefinedView(std::vector<std::string> path) { defined_view_ = std::move(path); }
  void SetUser(std::function<std::string()> user) { user_ = std::move(user); }
  const std::vector<const catalog::Table*>& DirectInputs() const { return direct_inputs_; }

  Result<RelPtr> Query(const sql::Query& q, const Scope* outer);
  Result<RelPtr> QueryWithColumns(const sql::Query& q, const std::vector<sql::Identifier>& cols);
  Result<BoundInsert> Insert(const sql::InsertStatement& insert);
  Result<RelPtr> View(const catalog::Table& view);
  // Whether a materialized view is read from its table (catalog::HopWritesTables).
  bool StoresRows(const catalog::Table& view) const;
  // The table a query of such a view reads: its own entry for a local database, the table
  // PostgreSQL has for one there.
  Result<const catalog::Table*> StoredRows(const catalog::Table& view,
                                           const sql::Location& loc) const;

 private:
  // --- errors (binder.cc)
  Status Error(sql::Location loc, std::string_view what) const;
  // A select list or VALUES row may have at most kMaxTargetColumns columns, PostgreSQL's
  // limit (docs/engine.md, "What is refused"): SQLite's own is 2000, and hop's pgwire clients
  // expect PostgreSQL's. `loc`: the first column past the limit.
  static constexpr size_t kMaxTargetColumns = 1664;
  Status CheckTargetWidth(size_t columns, sql::Location loc) const;
  Status ErrorCode(StatusCode code, sql::Location loc, std::string_view what) const;

  // --- queries (bind_query.cc)
  Result<RelPtr> Body(const sql::QueryBody& body, const Scope* outer,
                      const std::vector<sql::OrderItem>* order_by, const sql::Expr* limit,
                      const sql::Expr* offset);
  Result<RelPtr> Values(const sql::ValuesBody& values, const Scope* outer);
  Result<RelPtr> SetOp(const sql::SetOperationBody& op, const Scope* outer);
  Result<RelPtr> OrderAndLimit(RelPtr rel, const std::vector<sql::OrderItem>* order_by,
                               const sql::Expr* limit, const sql::Expr* offset, const Scope* outer);

  // --- FROM (bind_from.cc; tables in bind_names.cc)
  Result<From> FromItem(const sql::TableRef& ref, const Scope* outer, const From* lateral);
  Result<From> Table(const sql::BaseTableRef& ref, const Scope* outer);
  Result<From> Join(const sql::JoinRef& join, const Scope* outer, const From* lateral);
  Result<From> Unnest(const sql::UnnestRef& unnest, const Scope* outer, const From* lateral);
  Result<From> UnnestQuery(const sql::UnnestRef& unnest, const Scope* outer);
  // Applies the alias of an UNNEST to it.
  Result<From> NameUnnest(Rel rel, std::string alias, const sql::UnnestRef& unnest);
  Result<From> Aliased(RelPtr rel, std::string alias, std::vector<std::string> path,
                       const std::optional<sql::TableAlias>& alias_clause, sql::Location loc);

  // --- expressions (bind_expression.cc; columns in bind_names.cc, calls in bind_function.cc)
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
  // `x op ANY | ALL (query)`.
  [[gnu::noinline]] Result<ScalarPtr> BindQuantifiedSubquery(const sql::Expr& e,
                                                             const ExprContext& ctx);
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

  // --- SELECT (bind_select.cc)
  // Expands a select list against a scope: `*`, `t.*`, and the items.
  struct Item {
    const sql::Expr* expr = nullptr;  // null for columns of a star
    int column = -1;                  // star columns: FROM row index
    ScalarPtr bound;                  // star columns: the scalar (merged columns may coalesce)
    std::string name;
    sql::Location loc;
  };
  Result<std::vector<Item>> Items(const sql::SelectBody& select, const Scope& scope);
  Result<RelPtr> Select(const sql::SelectBody& select, const Scope* outer,
                        const std::vector<sql::OrderItem>* order_by);
  // The select list as it is bound: the items' expressions and names, then the ORDER BY
  // expressions that are not among them (hidden columns, trimmed after the sort).
  struct SelectList {
    std::vector<ScalarPtr> exprs;
    std::vector<std::string> names;
    std::vector<SortKey> sort_keys;
    size_t visible = 0;  // how many of exprs are the items'
  };
  struct Aggregation;
  // The sort keys of a SELECT's ORDER BY: an ordinal, an alias of a computed item, or an
  // expression bound in `ctx` (and lifted through `agg` when the SELECT aggregates).
  Status OrderBy(const sql::SelectBody& select, const std::vector<sql::OrderItem>* order_by,
                 const std::vector<Item>& items, const ExprContext& ctx, Aggregation* agg,
                 SelectList& list);

  // --- aggregation (bind_aggregate.cc)
  struct Aggregation {
    std::vector<ScalarPtr> groups;  // over the FROM row
    std::vector<ScalarPtr> pre;     // pre-projection: groups, then aggregate arguments
    std::vector<AggregateCall> calls;
    std::vector<ScalarPtr> call_exprs;  // the bound calls, to find repeats
  };
  // The Aggregate (and HAVING filter) of a SELECT over `rel` that groups or aggregates; fills
  // `list` with the items lifted over it.
  Result<RelPtr> Aggregate(const sql::SelectBody& select,
                           const std::vector<sql::OrderItem>* order_by,
                           const std::vector<Item>& items, const ExprContext& ctx, RelPtr rel,
                           SelectList& list);
  Result<ScalarPtr> Lift(const ScalarPtr& s, Aggregation& agg, const RowType& from_row,
                         sql::Location loc);
  int PreColumn(Aggregation& agg, const ScalarPtr& s);

  // --- PostgreSQL's catalog and functions (bind_pg.cc, pg_catalog.h)
  // The snapshot of the catalog as PostgreSQL's, built on first use.
  const PgCatalog& Pg();
  // The PG_CATALOG or INFORMATION_SCHEMA table `path` names (also an unqualified pg_catalog
  // name the catalog has no table for), or null.
  std::shared_ptr<const catalog::Table> PgTable(const std::vector<std::string>& path);
  [[gnu::noinline]] Result<ScalarPtr> BindQuantified(const sql::Expr& e, const ExprContext& ctx);
  Result<ScalarPtr> BindObjectIdCast(const sql::CastExpr& c, ScalarPtr operand);
  // A call of one of PostgreSQL's catalog functions the binder answers from the snapshot
  // (current_schemas, pg_table_is_visible, ...), or null when `name` is none of them.
  Result<ScalarPtr> PgFunction(const sql::FunctionExpr& f, std::string_view name,
                               std::vector<ScalarPtr>& args);
  Result<ScalarPtr> StringLiteral(std::string value);
  Result<ScalarPtr> IntegerLiteral(int64_t value);
  // CASE oid WHEN k THEN text ... [ELSE otherwise] END, a VARCHAR (nullable when `nullable` or
  // when there is no ELSE): how pg_catalog's functions and casts turn an OID into a text.
  Result<ScalarPtr> TextOfOid(const ScalarPtr& oid,
                              const std::vector<std::pair<uint32_t, std::string>>& texts,
                              ScalarPtr otherwise, bool nullable);
  // PostgreSQL's forms of collections: ARRAY(query), `(row).field`, an array compared with its
  // text form (`a = '{0}'`: the literal becomes an ARRAY of the array's element type).
  [[gnu::noinline]] Result<ScalarPtr> BindArraySubquery(const sql::Expr& e, const ExprContext& ctx);
  [[gnu::noinline]] Result<ScalarPtr> BindField(const sql::Expr& e, const ExprContext& ctx);
  Status PgArrayOperands(const sql::BinaryExpr& b, ScalarPtr& left, ScalarPtr& right);
  Result<ScalarPtr> PgArrayText(const ScalarPtr& literal, const DataType& array, sql::Location loc);
  // A function in FROM: generate_series, unnest, information_schema._pg_expandarray.
  Result<From> TableFunction(const sql::FunctionRef& ref, const Scope* outer, const From* lateral);
  Result<Rel> Series(const sql::FunctionRef& ref, const ExprContext& ctx);
  // _pg_expandarray(array): an UNNEST WITH ORDINALITY whose columns are X and N.
  Result<Rel> ExpandArray(const std::vector<sql::ExprPtr>& args, sql::Location loc,
                          const ExprContext& ctx);
  // _pg_expandarray in a select list: `rel` joined with the UNNEST of its array (its columns
  // added to `scope`, hidden), each call then bound to the ROW (x, n) of that join's row.
  Result<RelPtr> ExpandSetReturning(const sql::SelectBody& select, Scope& scope, RelPtr rel);
  Result<ScalarPtr> SetReturningCall(const sql::FunctionExpr& f);

  const catalog::Catalog& catalog_;
  const sql::Statement* statement_ = nullptr;
  // Common table expressions visible now, innermost last.
  std::vector<std::pair<std::string, RelPtr>> ctes_;
  std::unordered_map<const catalog::Table*, RelPtr> views_;
  std::vector<const catalog::Table*> view_stack_;
  std::optional<std::vector<std::string>> defined_view_;  // see Binder::SetDefinedView
  std::function<std::string()> user_;                     // see Binder::SetUser
  std::vector<const catalog::Table*> direct_inputs_;      // see Binder::DirectInputs
  int subquery_aliases_ = 0;
  int outer_refs_ = 0;  // correlated references made so far
  int expr_depth_ = 0;  // nesting of the expression being bound
  std::unique_ptr<PgCatalog> pg_;
  // The select-list calls of set-returning functions, bound (ExpandSetReturning).
  std::map<const sql::FunctionExpr*, ScalarPtr> set_returning_;
};

}  // namespace hop::binder
