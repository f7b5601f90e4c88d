// Scalar expressions. Each node kind is a struct deriving from Expr with a kind tag; code that
// walks expressions switches on the tag. Parentheses are not nodes: the printer adds them where
// precedence needs them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sql/ast/data_type.h"
#include "sql/ast/identifier.h"
#include "sql/ast/node_allocator.h"
#include "sql/location.h"

namespace hop::sql {

struct Query;

enum class ExprKind : uint8_t {
  kLiteral,
  kColumnRef,
  kStar,
  kParameter,
  kUnary,
  kBinary,
  kIs,
  kBetween,
  kInList,
  kInSubquery,
  kLike,
  kExists,
  kSubquery,
  kCase,
  kCast,
  kFunction,
  kExtract,
  kJsonObject,
  kArray,
  kMap,
  kRow,
  kSubscript,
  kQuantified,
  kArraySubquery,
  kField,
};

struct Expr : PooledNode {
  explicit Expr(ExprKind k) : kind(k) {}
  virtual ~Expr() = default;
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;

  template <typename T>
  const T& As() const {
    return CheckedCast<T>(*this);
  }
  template <typename T>
  T& As() {
    return CheckedCast<T>(*this);
  }

  const ExprKind kind;
  Location loc;
};

using ExprPtr = std::unique_ptr<Expr>;

enum class LiteralKind : uint8_t {
  kNull,
  kBoolean,    // value "TRUE" or "FALSE"
  kInteger,    // exact digits
  kDecimal,    // exact, with a point
  kFloat,      // approximate, with an exponent
  kString,     // value without quotes
  kBinary,     // hex digits of X'..'
  kDate,       // DATE 'value'
  kTime,       // TIME 'value'
  kTimestamp,  // TIMESTAMP 'value'
  kInterval,   // INTERVAL 'value' unit [TO unit]
};

enum class IntervalUnit : uint8_t {
  kNone,
  kYear,
  kQuarter,
  kMonth,
  kWeek,
  kDay,
  kHour,
  kMinute,
  kSecond
};

struct LiteralExpr : Expr {
  LiteralExpr() : Expr(ExprKind::kLiteral) {}
  LiteralKind literal = LiteralKind::kNull;
  std::string value;  // numbers as written, strings unescaped
  // INTERVAL only.
  IntervalUnit from_unit = IntervalUnit::kNone;
  std::optional<int> from_precision;
  IntervalUnit to_unit = IntervalUnit::kNone;
  std::optional<int> to_precision;  // `... TO SECOND(3)`
};

// A reference to a column, possibly qualified: `a`, `t.a`, `s.t.a`. Also a ROW field path.
struct ColumnRefExpr : Expr {
  ColumnRefExpr() : Expr(ExprKind::kColumnRef) {}
  QualifiedName name;
};

// `*` or `t.*` in a select list.
struct StarExpr : Expr {
  StarExpr() : Expr(ExprKind::kStar) {}
  QualifiedName qualifier;  // empty for a bare `*`
};

// `?` (numbered by position), or explicitly numbered `$n` / `?n`.
struct ParameterExpr : Expr {
  ParameterExpr() : Expr(ExprKind::kParameter) {}
  int index = 0;          // 1-based
  bool numbered = false;  // written with its number
};

enum class UnaryOp : uint8_t { kNot, kNegate, kPlus };

struct UnaryExpr : Expr {
  UnaryExpr() : Expr(ExprKind::kUnary) {}
  UnaryOp op = UnaryOp::kNot;
  ExprPtr operand;
};

enum class BinaryOp : uint8_t {
  kOr,
  kAnd,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kIsDistinctFrom,
  kIsNotDistinctFrom,
  kConcat,
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kModulo,
  // PostgreSQL's regular-expression matches: `~`, `~*` (ignoring case), `!~`, `!~*`.
  kRegexMatch,
  kRegexMatchIgnoreCase,
  kRegexNoMatch,
  kRegexNoMatchIgnoreCase,
};

struct BinaryExpr : Expr {
  BinaryExpr() : Expr(ExprKind::kBinary) {}
  BinaryOp op = BinaryOp::kEq;
  ExprPtr left;
  ExprPtr right;
};

enum class IsTest : uint8_t { kNull, kTrue, kFalse, kUnknown };

// `x IS [NOT] NULL | TRUE | FALSE | UNKNOWN`.
struct IsExpr : Expr {
  IsExpr() : Expr(ExprKind::kIs) {}
  ExprPtr operand;
  IsTest test = IsTest::kNull;
  bool negated = false;
};

// `operand [NOT] BETWEEN [SYMMETRIC | ASYMMETRIC] low AND high`; ASYMMETRIC is the default and
// is not kept. SYMMETRIC means either bound may be the lower one (`x BETWEEN a AND b OR x BETWEEN
// b AND a`, as the standard defines it).
struct BetweenExpr : Expr {
  BetweenExpr() : Expr(ExprKind::kBetween) {}
  ExprPtr operand;
  ExprPtr low;
  ExprPtr high;
  bool negated = false;
  bool symmetric = false;
};

struct InListExpr : Expr {
  InListExpr() : Expr(ExprKind::kInList) {}
  ExprPtr operand;
  std::vector<ExprPtr> list;
  bool negated = false;
};

struct InSubqueryExpr : Expr {
  InSubqueryExpr();  // special members in ast.cc, where Query is complete
  ~InSubqueryExpr() override;
  ExprPtr operand;
  std::unique_ptr<Query> query;
  bool negated = false;
};

struct LikeExpr : Expr {
  LikeExpr() : Expr(ExprKind::kLike) {}
  ExprPtr operand;
  ExprPtr pattern;
  ExprPtr escape;  // may be null
  bool negated = false;
};

struct ExistsExpr : Expr {
  ExistsExpr();  // special members in ast.cc, where Query is complete
  ~ExistsExpr() override;
  std::unique_ptr<Query> query;
};

// A scalar subquery `(SELECT ...)`.
struct SubqueryExpr : Expr {
  SubqueryExpr();  // special members in ast.cc, where Query is complete
  ~SubqueryExpr() override;
  std::unique_ptr<Query> query;
};

struct WhenClause {
  ExprPtr condition;  // or the value compared with the operand of a simple CASE
  ExprPtr result;
};

struct CaseExpr : Expr {
  CaseExpr() : Expr(ExprKind::kCase) {}
  ExprPtr operand;  // null for a searched CASE
  std::vector<WhenClause> whens;
  ExprPtr else_result;  // may be null
};

// PostgreSQL's object identifier types, which a cast to them names: a name cast to one is the
// object's OID, an OID cast to one is the object's name (docs/pg_catalog.md).
enum class ObjectIdType : uint8_t { kNone, kRegclass, kRegtype, kRegnamespace, kRegproc, kRegrole };

struct CastExpr : Expr {
  CastExpr() : Expr(ExprKind::kCast) {}
  ExprPtr operand;
  DataType type;          // unused when object_id is set
  bool try_cast = false;  // TRY_CAST
  ObjectIdType object_id = ObjectIdType::kNone;  // `x::regclass`, `CAST(x AS REGCLASS)`
};

enum class SortDirection : uint8_t { kDefault, kAsc, kDesc };
enum class NullsOrder : uint8_t { kDefault, kFirst, kLast };

// One `ORDER BY` key.
struct OrderItem {
  ExprPtr expr;
  SortDirection direction = SortDirection::kDefault;
  NullsOrder nulls = NullsOrder::kDefault;
};

enum class FrameUnit : uint8_t { kNone, kRows, kRange };
enum class FrameBoundKind : uint8_t {
  kUnboundedPreceding,
  kPreceding,
  kCurrentRow,
  kFollowing,
  kUnboundedFollowing,
};

struct FrameBound {
  FrameBoundKind kind = FrameBoundKind::kCurrentRow;
  ExprPtr offset;  // kPreceding and kFollowing
};

// `OVER (PARTITION BY ... ORDER BY ... [ROWS | RANGE frame])`.
struct WindowSpec {
  std::vector<ExprPtr> partition_by;
  std::vector<OrderItem> order_by;
  FrameUnit frame_unit = FrameUnit::kNone;
  FrameBound frame_start;
  std::optional<FrameBound> frame_end;  // set when written `BETWEEN start AND end`
};

enum class SetQuantifier : uint8_t { kNone, kAll, kDistinct };

// A function call: `f(a, b)`, `COUNT(*)`, `COUNT(DISTINCT x)`, `CURRENT_TIMESTAMP`, with optional
// `WITHIN GROUP (ORDER BY ...)`, `FILTER (WHERE ...)` and `OVER (...)`.
struct FunctionExpr : Expr {
  FunctionExpr() : Expr(ExprKind::kFunction) {}
  QualifiedName name;
  std::vector<ExprPtr> args;
  SetQuantifier quantifier = SetQuantifier::kNone;
  bool star = false;     // COUNT(*)
  bool niladic = false;  // CURRENT_TIMESTAMP and friends, written without parentheses
  std::vector<OrderItem> within_group;
  // An aggregate's ORDER BY among its arguments, `STRING_AGG(x, ',' ORDER BY n)`: it orders what
  // the aggregate collects, as WITHIN GROUP does (PostgreSQL's form; SQLite before 3.44 and Flink
  // have none).
  std::vector<OrderItem> order_by;
  ExprPtr filter;
  std::unique_ptr<WindowSpec> over;
};

// `EXTRACT(unit FROM operand)`; the unit is kept as an upper-case word (YEAR, DOW, EPOCH, ...).
struct ExtractExpr : Expr {
  ExtractExpr() : Expr(ExprKind::kExtract) {}
  std::string unit;
  ExprPtr operand;
};

// `JSON_OBJECT(KEY k VALUE v, ...)`, also written `k VALUE v` or `k : v`.
struct JsonObjectExpr : Expr {
  JsonObjectExpr() : Expr(ExprKind::kJsonObject) {}
  std::vector<std::pair<ExprPtr, ExprPtr>> entries;
  bool absent_on_null = false;  // ABSENT ON NULL; the default is NULL ON NULL
  bool null_clause_written = false;
};

// `ARRAY[a, b]`.
struct ArrayExpr : Expr {
  ArrayExpr() : Expr(ExprKind::kArray) {}
  std::vector<ExprPtr> elements;
};

// `MAP[k1, v1, k2, v2]`.
struct MapExpr : Expr {
  MapExpr() : Expr(ExprKind::kMap) {}
  std::vector<ExprPtr> elements;  // alternating keys and values
};

// `ROW(a, b)` or `(a, b)`.
struct RowExpr : Expr {
  RowExpr() : Expr(ExprKind::kRow) {}
  std::vector<ExprPtr> elements;
};

// `base[index]`: array element or map value.
struct SubscriptExpr : Expr {
  SubscriptExpr() : Expr(ExprKind::kSubscript) {}
  ExprPtr base;
  ExprPtr index;
};

// `operand op ANY | SOME | ALL (array | query)`, a quantified comparison: with ANY (SOME is the
// same), true when the comparison holds for some element or row; with ALL, for every one. Exactly
// one of `array` and `query` is set.
struct QuantifiedExpr : Expr {
  QuantifiedExpr();  // special members in ast.cc, where Query is complete
  ~QuantifiedExpr() override;
  BinaryOp op = BinaryOp::kEq;  // a comparison
  bool all = false;             // ALL; otherwise ANY
  ExprPtr operand;
  ExprPtr array;
  std::unique_ptr<Query> query;
};

// `ARRAY(SELECT ...)`, PostgreSQL's array of a one-column query's values, in the query's order
// (an empty array when it has no rows).
struct ArraySubqueryExpr : Expr {
  ArraySubqueryExpr();  // special members in ast.cc, where Query is complete
  ~ArraySubqueryExpr() override;
  std::unique_ptr<Query> query;
};

// `(base).field`: a field of a composite value, PostgreSQL's form for a ROW or a function's
// record (`(information_schema._pg_expandarray(a)).n`). Without the parentheses, `t.c.f` is a
// ColumnRefExpr path.
struct FieldExpr : Expr {
  FieldExpr() : Expr(ExprKind::kField) {}
  ExprPtr base;
  Identifier field;
};

// Structural equality: same kinds, same folded names, same values; locations are ignored.
bool Equals(const Expr& a, const Expr& b);
bool Equals(const ExprPtr& a, const ExprPtr& b);  // both null, or both set and equal

}  // namespace hop::sql
