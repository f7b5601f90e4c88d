// Queries: a query expression is an optional WITH list, a body (SELECT, set operation, VALUES or
// a parenthesised query) and optional ORDER BY / LIMIT / OFFSET. FROM clauses are trees of table
// references; comma-separated FROM items are joins of kind kComma, as in Calcite.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "sql/ast/expression.h"
#include "sql/ast/identifier.h"

namespace hop::sql {

struct Query;

// `AS name [(c1, c2)]` on a table reference or derived table.
struct TableAlias {
  Identifier name;
  std::vector<Identifier> columns;
  friend bool operator==(const TableAlias& a, const TableAlias& b) {
    return a.name == b.name && a.columns == b.columns;
  }
};

enum class TableRefKind : uint8_t { kTable, kSubquery, kJoin, kUnnest, kFunction };

struct TableRef : PooledNode {
  explicit TableRef(TableRefKind k) : kind(k) {}
  virtual ~TableRef() = default;
  TableRef(const TableRef&) = delete;
  TableRef& operator=(const TableRef&) = delete;
  template <typename T>
  const T& As() const {
    return CheckedCast<T>(*this);
  }
  template <typename T>
  T& As() {
    return CheckedCast<T>(*this);
  }
  const TableRefKind kind;
  Location loc;
};

using TableRefPtr = std::unique_ptr<TableRef>;

struct BaseTableRef : TableRef {
  BaseTableRef() : TableRef(TableRefKind::kTable) {}
  QualifiedName name;
  std::optional<TableAlias> alias;
};

// `(query) [AS] alias`, optionally LATERAL. VALUES in FROM is a subquery with a VALUES body.
struct SubqueryRef : TableRef {
  SubqueryRef();
  ~SubqueryRef() override;
  std::unique_ptr<Query> query;
  bool lateral = false;
  std::optional<TableAlias> alias;
};

enum class JoinType : uint8_t { kInner, kLeft, kRight, kFull, kCross, kComma };

struct JoinRef : TableRef {
  JoinRef() : TableRef(TableRefKind::kJoin) {}
  JoinType type = JoinType::kInner;
  bool natural = false;
  TableRefPtr left;
  TableRefPtr right;
  ExprPtr on;                          // ON condition, or null
  std::vector<Identifier> using_cols;  // USING (...) columns
};

// `UNNEST(expr, ...) [WITH ORDINALITY] [AS alias]`. `UNNEST(SELECT ...)` holds a SubqueryExpr.
struct UnnestRef : TableRef {
  UnnestRef() : TableRef(TableRefKind::kUnnest) {}
  std::vector<ExprPtr> args;
  bool with_ordinality = false;
  std::optional<TableAlias> alias;
};

// `f(args) [AS] alias [(c1, ...)]`: a function in FROM, as PostgreSQL writes its set-returning
// functions (`generate_series(1, 3) AS s(r)`, `pg_catalog.unnest(a) x`).
struct FunctionRef : TableRef {
  FunctionRef() : TableRef(TableRefKind::kFunction) {}
  QualifiedName name;
  std::vector<ExprPtr> args;
  std::optional<TableAlias> alias;
};

enum class QueryBodyKind : uint8_t { kSelect, kSetOperation, kValues, kQuery };

struct QueryBody : PooledNode {
  explicit QueryBody(QueryBodyKind k) : kind(k) {}
  virtual ~QueryBody() = default;
  QueryBody(const QueryBody&) = delete;
  QueryBody& operator=(const QueryBody&) = delete;
  template <typename T>
  const T& As() const {
    return CheckedCast<T>(*this);
  }
  template <typename T>
  T& As() {
    return CheckedCast<T>(*this);
  }
  const QueryBodyKind kind;
  Location loc;
};

using QueryBodyPtr = std::unique_ptr<QueryBody>;

struct SelectItem {
  ExprPtr expr;
  std::optional<Identifier> alias;
};

struct SelectBody : QueryBody {
  SelectBody() : QueryBody(QueryBodyKind::kSelect) {}
  SetQuantifier quantifier = SetQuantifier::kNone;  // SELECT ALL / SELECT DISTINCT
  std::vector<SelectItem> items;
  TableRefPtr from;  // null without FROM
  ExprPtr where;
  std::vector<ExprPtr> group_by;
  ExprPtr having;
};

enum class SetOpKind : uint8_t { kUnion, kIntersect, kExcept };

struct SetOperationBody : QueryBody {
  SetOperationBody() : QueryBody(QueryBodyKind::kSetOperation) {}
  SetOpKind op = SetOpKind::kUnion;
  SetQuantifier quantifier = SetQuantifier::kNone;  // ALL, DISTINCT or neither
  QueryBodyPtr left;
  QueryBodyPtr right;
};

struct ValuesBody : QueryBody {
  ValuesBody() : QueryBody(QueryBodyKind::kValues) {}
  std::vector<std::vector<ExprPtr>> rows;
};

// A parenthesised query used as a body, e.g. an operand of UNION that has its own ORDER BY.
struct NestedQueryBody : QueryBody {
  NestedQueryBody();
  ~NestedQueryBody() override;
  std::unique_ptr<Query> query;
};

struct CommonTableExpr {
  Identifier name;
  std::vector<Identifier> columns;
  std::unique_ptr<Query> query;
  CommonTableExpr();
  ~CommonTableExpr();
  CommonTableExpr(CommonTableExpr&&) noexcept;
  CommonTableExpr& operator=(CommonTableExpr&&) noexcept;
};

struct Query {
  std::vector<CommonTableExpr> with;
  bool recursive = false;
  QueryBodyPtr body;
  std::vector<OrderItem> order_by;
  ExprPtr limit;   // LIMIT n or FETCH FIRST n ROWS ONLY
  ExprPtr offset;  // OFFSET n [ROWS]
  Location loc;
};

bool Equals(const Query& a, const Query& b);
bool Equals(const QueryBody& a, const QueryBody& b);
bool Equals(const TableRef& a, const TableRef& b);

}  // namespace hop::sql
