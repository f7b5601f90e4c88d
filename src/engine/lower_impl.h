// The lowering's shared parts (lower.cc: operators; lower_expr.cc: expressions, functions and
// aggregates): how a plan node's columns are written, and the Lowerer that walks the plan.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "binder/bound.h"
#include "engine/lower.h"
#include "engine/value.h"
#include "sql/ast/expression.h"
#include "sql/ast/query.h"

namespace hop::engine::internal {

// An expression and the encoding of its value.
struct Low {
  sql::ExprPtr expr;
  Rep rep;
};

// A column of a plan node: how to write it (a fresh AST each time: a column may be read by
// several clauses), and its encoding.
struct Col {
  std::function<Result<sql::ExprPtr>()> make;
  Rep rep;
  bool window = false;  // holds a window function (may not move into GROUP BY or WHERE)
};
using Cols = std::vector<Col>;

// The clauses a SELECT has so far, in the order SQL evaluates them. A node that needs a clause
// at or below the current level starts a new SELECT over this one.
enum class Level { kFrom, kWhere, kGroup, kHaving, kSelect, kOrder };

// A plan node as SQL being built: a SELECT with its clauses so far, or a VALUES or compound
// body, which must be wrapped in a derived table before anything reads its columns.
struct Frame {
  std::unique_ptr<sql::SelectBody> select;
  std::unique_ptr<sql::QueryBody> body;
  std::vector<std::string> body_names;  // the output names of `body`
  std::vector<sql::OrderItem> order_by;
  sql::ExprPtr limit;
  sql::ExprPtr offset;
  Level level = Level::kFrom;
  // The SELECT aggregates (an Aggregate lowered into it, with or without GROUP BY keys): its
  // columns hold aggregate calls even once projected, so another Aggregate must wrap it.
  bool grouped = false;
  // `cols` read the FROM clause's columns (or, at kSelect and later, are the select items).
  std::shared_ptr<Cols> cols = std::make_shared<Cols>();
};

// AST builders.
sql::Identifier Id(std::string name);
sql::ExprPtr ColumnRef(const std::string& table, const std::string& column);
sql::ExprPtr IntLit(int64_t v);
sql::ExprPtr RealLit(double v);
sql::ExprPtr StrLit(std::string s);
sql::ExprPtr NullLit();
sql::ExprPtr Call(std::string_view name, std::vector<sql::ExprPtr> args);
// The arguments of a Call (an initializer list cannot move its elements).
template <typename... T>
std::vector<sql::ExprPtr> Args(T&&... e) {
  std::vector<sql::ExprPtr> v;
  v.reserve(sizeof...(T));
  (v.push_back(std::forward<T>(e)), ...);
  return v;
}
sql::ExprPtr Bin(sql::BinaryOp op, sql::ExprPtr a, sql::ExprPtr b);
sql::ExprPtr Not(sql::ExprPtr e);
sql::ExprPtr IsNull(sql::ExprPtr e, bool negated);
// CAST(e AS INTEGER | DOUBLE | VARCHAR | BLOB): SQLite's own storage-class conversion.
sql::ExprPtr StorageCast(sql::ExprPtr e, sql::TypeName name);

Rep BooleanRep();
Rep TextRep();
Rep BigIntRep();
Rep DoubleRep();

class Lowerer {
 public:
  explicit Lowerer(const LowerOptions& options) : options_(options) {}

  Result<Frame> Visit(const binder::Rel& rel);
  // The query of a frame; its result columns are `cols`, named c0, c1, ...
  Result<std::unique_ptr<sql::Query>> Finish(Frame f);
  Result<Frame> Wrap(Frame f);

  // Expressions over `cols` (lower_expr.cc).
  Result<Low> Convert(const binder::Scalar& s, const Cols& cols);
  Result<Low> ConvertAggregate(const binder::AggregateCall& call, const Cols& input);
  Result<Low> Coerce(Low v, const Rep& to, std::string_view label = {});
  Result<Low> ToText(Low v);
  Result<Low> Cast(Low v, const Rep& to, bool try_cast, std::string_view label);
  // The encoding two compared values meet in.
  Result<Rep> Common(const Rep& a, const Rep& b);
  // The encoding of a value of type `type` made of values encoded as `reps` (CASE branches,
  // UNION columns, VALUES rows): the type's, with the widest decimal scale and the interval
  // unit of the parts.
  Rep Unify(const std::vector<Rep>& reps, const sql::DataType& type);

  std::string NewAlias(char prefix = 't');
  int64_t now_micros() const { return options_.now_micros; }
  // The output column whose expression is being converted, for messages.
  std::string label;

 private:
  Result<Frame> VisitOfKind(const binder::Rel& rel);
  Result<Frame> Scan(const binder::Rel& rel);
  Result<Frame> Scan(const binder::Rel& rel,
                     const std::function<Result<ScanName>(const binder::Rel&)>& named);
  Result<Frame> Values(const binder::Rel& rel);
  Result<Frame> Filter(const binder::Rel& rel);
  Result<Frame> Project(const binder::Rel& rel);
  Result<Frame> Aggregate(const binder::Rel& rel);
  Result<Frame> Sort(const binder::Rel& rel);
  Result<Frame> Join(const binder::Rel& rel);
  Result<Frame> Unnest(const binder::Rel& rel, Frame* left, sql::JoinType type,
                       const binder::Scalar* condition);
  Result<Frame> SetOp(const binder::Rel& rel);
  // The FROM item a frame stands for, wrapping it unless it is only a FROM clause.
  Result<sql::TableRefPtr> FromItem(Frame& f, bool allow_join);
  // A SELECT body (items set) for a set operation's operand, its columns coerced to `reps`.
  Result<std::unique_ptr<sql::SelectBody>> Operand(Frame f, const std::vector<Rep>& reps,
                                                   bool number_rows);

  // Expressions (lower_expr.cc).
  friend class ExprLowerer;

  const LowerOptions& options_;
  int aliases_ = 0;
  int depth_ = 0;
  // The condition of the Filter whose input, a join without a condition, is being lowered.
  const binder::Scalar* join_filter_ = nullptr;
  // The columns correlated references read: the enclosing queries' rows, innermost last.
  std::vector<const Cols*> outer_;
  friend Result<Low> ConvertOuter(Lowerer& l, const binder::Scalar& s);
  friend Result<Low> ConvertSubquery(Lowerer& l, const binder::Scalar& s, const Cols& cols);
  friend Result<Low> ConvertQuantified(Lowerer& l, const binder::Scalar& s, const Cols& cols);
};

// Whether a plan always yields exactly one row (a scalar subquery over it needs no check).
bool OneRow(const binder::Rel& rel);

}  // namespace hop::engine::internal
