// The binder's output: a tree of relational operators (Rel) whose expressions (Scalar) refer to
// the columns of their input by position and carry their types. Nodes are immutable and shared
// (views and common table expressions are bound once and reused), so rewriting builds new nodes.
//
// Every Rel has a row type. Scalars in a Project, Filter or Join refer to the input row: for a
// Join the left input's columns come first, then the right's. An Unnest on the right of a Join
// evaluates its arguments against the left input (a lateral reference).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "sql/ast/expression.h"
#include "sql/ast/query.h"

namespace hop::binder {

struct Function;  // functions.h
struct Rel;
using RelPtr = std::shared_ptr<const Rel>;

enum class ScalarKind : uint8_t {
  kInputRef,    // column `index` of the input row
  kLiteral,     // `literal` with `text`; interval units in `interval`
  kUnary,       // unary_op args[0]
  kBinary,      // args[0] binary_op args[1]
  kIs,          // args[0] IS [NOT] is_test
  kBetween,     // args[0] [NOT] BETWEEN args[1] AND args[2]
  kInList,      // args[0] [NOT] IN (args[1..])
  kLike,        // args[0] [NOT] LIKE args[1] [ESCAPE args[2]]
  kCase,        // searched: WHEN args[2i] THEN args[2i+1] ... [ELSE args.back() if has_else]
  kCast,        // CAST(args[0] AS type)
  kCall,        // function(args); aggregates only inside Aggregate, windows with `window`
  kExtract,     // EXTRACT(text FROM args[0])
  kJsonObject,  // JSON_OBJECT(KEY args[2i] VALUE args[2i+1], ...)
  kArray,       // ARRAY[args]
  kMap,         // MAP[args] (keys and values alternate)
  kRow,         // ROW(args)
  kItem,        // args[0][args[1]]
  kField,       // args[0].text (a ROW field; index is its position)
  kSubquery,    // (query), a scalar subquery
  kExists,      // EXISTS (query)
  kInSubquery,  // args[0] [NOT] IN (query)
  kQuantified,  // args[0] binary_op ANY | ALL (query), a comparison quantified over its rows
  kParameter,   // ? or $n: index is the 1-based parameter number
  kOuterRef,    // column `index` of the enclosing query's input row (a correlated reference)
};

struct IntervalUnits {
  sql::IntervalUnit from = sql::IntervalUnit::kNone;
  std::optional<int> from_precision;
  sql::IntervalUnit to = sql::IntervalUnit::kNone;
  std::optional<int> to_precision;
};

struct Scalar;
using ScalarPtr = std::shared_ptr<const Scalar>;

// A bound window: `OVER (PARTITION BY ... ORDER BY ... frame)`.
struct Window {
  std::vector<ScalarPtr> partition_by;
  struct Key {
    ScalarPtr expr;
    sql::SortDirection direction = sql::SortDirection::kDefault;
    sql::NullsOrder nulls = sql::NullsOrder::kDefault;
  };
  std::vector<Key> order_by;
  sql::FrameUnit frame_unit = sql::FrameUnit::kNone;
  sql::FrameBoundKind start = sql::FrameBoundKind::kCurrentRow;
  ScalarPtr start_offset;
  std::optional<sql::FrameBoundKind> end;
  ScalarPtr end_offset;
};

struct Scalar {
  ScalarKind kind = ScalarKind::kLiteral;
  sql::DataType type;
  std::vector<ScalarPtr> args;
  int index = -1;    // kInputRef, kField, kParameter
  std::string text;  // kLiteral value, kExtract unit, kField name, kCall name as written
  sql::LiteralKind literal = sql::LiteralKind::kNull;
  IntervalUnits interval;
  sql::UnaryOp unary_op = sql::UnaryOp::kNot;
  sql::BinaryOp binary_op = sql::BinaryOp::kEq;
  sql::IsTest is_test = sql::IsTest::kNull;
  bool negated = false;                  // kIs, kBetween, kInList, kLike, kInSubquery
  bool symmetric = false;                // kBetween: BETWEEN SYMMETRIC
  bool all = false;                      // kQuantified: ALL (else ANY)
  bool has_else = false;                 // kCase
  bool distinct = false;                 // kCall: aggregate DISTINCT
  bool star = false;                     // kCall: COUNT(*)
  bool absent_on_null = false;           // kJsonObject
  bool correlated = false;  // kSubquery, kExists, kInSubquery, kQuantified: `query` has kOuterRefs
  const Function* function = nullptr;    // kCall
  std::shared_ptr<const Window> window;  // kCall with OVER
  // Aggregate kCall: FILTER (WHERE filter) and WITHIN GROUP (ORDER BY within_group), or the same
  // keys written as an ORDER BY among the arguments (order_in_call: `STRING_AGG(x, ',' ORDER BY
  // y)`).
  ScalarPtr filter;
  std::vector<Window::Key> within_group;
  bool order_in_call = false;
  RelPtr query;  // kSubquery, kExists, kInSubquery, kQuantified
};

// Structural equality (kinds, types, values, arguments; subqueries by identity).
bool SameScalar(const Scalar& a, const Scalar& b);

ScalarPtr InputRef(int index, sql::DataType type);

// `s` with every input reference $i replaced by exprs[i] (to move an expression from above a
// Project onto the Project's input). Windows are rewritten too.
ScalarPtr SubstituteInputs(const ScalarPtr& s, const std::vector<ScalarPtr>& exprs);

// The SQL text of a binary operator: "=", "AND", "||", ...
std::string_view BinaryOpText(sql::BinaryOp op);

// An aggregate call of an Aggregate: function over input columns.
struct AggregateCall {
  const Function* function = nullptr;
  std::string name;  // as written, for printing
  std::vector<int> args;
  bool distinct = false;
  bool star = false;
  int filter = -1;  // input column holding the FILTER (WHERE ...) condition, or -1
  sql::DataType type;
  // WITHIN GROUP (ORDER BY ...) keys, as input columns.
  struct Key {
    int column = 0;
    sql::SortDirection direction = sql::SortDirection::kDefault;
    sql::NullsOrder nulls = sql::NullsOrder::kDefault;
  };
  std::vector<Key> within_group;
  bool order_in_call = false;  // the keys were written as ORDER BY among the arguments
  // Extra constant arguments after the column ones (LISTAGG's separator), as literals.
  std::vector<ScalarPtr> literal_args;
};

enum class RelKind : uint8_t {
  kScan,       // a table of the catalog
  kValues,     // literal rows
  kFilter,     // input WHERE condition
  kProject,    // input, computing exprs (names in row_type)
  kJoin,       // inputs[0] join_type inputs[1] ON condition
  kAggregate,  // input GROUP BY group, computing aggregates
  kSort,       // input ORDER BY keys, OFFSET offset, FETCH fetch
  kSetOp,      // inputs[0] set_op [ALL] inputs[1]
  kUnnest,     // UNNEST(exprs) [WITH ORDINALITY]
};

struct SortKey {
  int column = 0;
  sql::SortDirection direction = sql::SortDirection::kDefault;
  sql::NullsOrder nulls = sql::NullsOrder::kDefault;
};

struct Rel {
  RelKind kind = RelKind::kScan;
  catalog::RowType row_type;
  std::vector<RelPtr> inputs;

  // kScan: the table (owned by the catalog, or by owned_table) and its path.
  const catalog::Table* table = nullptr;
  // A table the binder made for this plan (PostgreSQL's catalog tables, pg_catalog.h).
  std::shared_ptr<const catalog::Table> owned_table;
  std::vector<std::string> path;
  // kValues rows; kProject and kUnnest expressions.
  std::vector<std::vector<ScalarPtr>> rows;
  std::vector<ScalarPtr> exprs;
  // kFilter and kJoin.
  ScalarPtr condition;
  sql::JoinType join_type = sql::JoinType::kInner;
  // kAggregate: group keys are input columns; output = keys then aggregates.
  std::vector<int> group;
  std::vector<AggregateCall> aggregates;
  // kSort.
  std::vector<SortKey> keys;
  ScalarPtr offset;
  ScalarPtr fetch;
  // kSetOp.
  sql::SetOpKind set_op = sql::SetOpKind::kUnion;
  bool all = false;
  // kUnnest.
  bool with_ordinality = false;
};

// A readable outline of a plan, one operator per line, for tests and `!explain`:
//   Project(FIRST_NAME=$2, LAST_NAME=$3)
//     Join(INNER, $1 = $4)
//       Scan(ADS.PAGE_VIEWS)
//       Scan(PROFILE.MEMBERS)
std::string Explain(const Rel& rel);
std::string ExplainScalar(const Scalar& s);

// Every table a plan scans, in visit order (left to right, depth first); a table scanned twice
// appears twice.
std::vector<const Rel*> Scans(const Rel& rel);

}  // namespace hop::binder
