// Binding expressions: one method per expression kind (literals, operators, predicates, CASE,
// CAST, EXTRACT, JSON_OBJECT, collections, subscripts), each typed by Calcite's rules
// (binder/types.h), and subqueries in expressions with their correlation.
#include <fmt/format.h>

#include <algorithm>

#include "binder/binder_impl.h"
#include "sql/parser.h"
#include "sql/unparser.h"

namespace hop::binder {

namespace {

// Expressions nest at most this deep (the parser's own limit, with room for subqueries).
constexpr int kMaxExprDepth = sql::kMaxParseDepth + 24;

size_t Utf8Length(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

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
                                op, sql::TypeString(a->type), sql::TypeString(b->type)));
}

Result<ScalarPtr> Binder::Impl::BinaryExpr(const sql::BinaryExpr& b, const ExprContext& ctx) {
  HOP_ASSIGN_OR_RETURN(ScalarPtr left, Expr(*b.left, ctx));
  HOP_ASSIGN_OR_RETURN(ScalarPtr right, Expr(*b.right, ctx));
  HOP_RETURN_IF_ERROR(PgArrayOperands(b, left, right));
  const DataType& lt = left->type;
  const DataType& rt = right->type;
  const bool nullable = IsNullable(lt) || IsNullable(rt);
  std::string_view op = BinaryOpText(b.op);
  auto mismatch = [&](std::string_view supported) {
    return Error(b.loc, fmt::format("Cannot apply '{0}' to arguments of type '<{1}> {0} <{2}>'. "
                                    "Supported form(s): {3}",
                                    op, sql::TypeString(lt), sql::TypeString(rt), supported));
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
    case sql::BinaryOp::kRegexMatch:
    case sql::BinaryOp::kRegexMatchIgnoreCase:
    case sql::BinaryOp::kRegexNoMatch:
    case sql::BinaryOp::kRegexNoMatchIgnoreCase:
      if ((!IsCharacter(lt) && !IsNull(lt)) || (!IsCharacter(rt) && !IsNull(rt))) {
        return mismatch(fmt::format("'<STRING> {0} <STRING>'", op));
      }
      type = WithNullable(DataType(TypeName::kBoolean), nullable);
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
                                      sql::TypeString(t)));
    }
  } else if (!IsNumeric(t) && !IsNull(t) && t.name != TypeName::kInterval) {
    return Error(e.loc, fmt::format("Cannot apply '-' to arguments of type '-<{}>'. "
                                    "Supported form(s): '-<NUMERIC>'",
                                    sql::TypeString(t)));
  }
  if (u.op == sql::UnaryOp::kPlus) return operand;
  if (u.op == sql::UnaryOp::kNegate && operand->kind == ScalarKind::kLiteral &&
      operand->literal == sql::LiteralKind::kInteger && !operand->text.starts_with('-')) {
    // A negated integer literal is a negative literal, typed by its value as Calcite and
    // PostgreSQL type it: -2147483648 is an INTEGER, -9223372036854775808 a BIGINT (their
    // magnitudes alone would be a BIGINT and a DECIMAL).
    Scalar s = *operand;
    s.text = "-" + s.text;
    s.type = IntegerLiteralType(s.text);
    return Make(std::move(s));
  }
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
  s.symmetric = b.symmetric;
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

Result<ScalarPtr> Binder::Impl::BindQuantifiedSubquery(const sql::Expr& e, const ExprContext& ctx) {
  const auto& qe = e.As<sql::QuantifiedExpr>();
  HOP_ASSIGN_OR_RETURN(ScalarPtr operand, Expr(*qe.operand, ctx));
  bool correlated = false;
  HOP_ASSIGN_OR_RETURN(RelPtr q, Subquery(*qe.query, *ctx.scope, &correlated));
  const std::string op = fmt::format("{} {}", BinaryOpText(qe.op), qe.all ? "ALL" : "ANY");
  if (q->row_type.columns.size() != 1) {
    return Error(e.loc, fmt::format("The query of {} must return one column, not {}", op,
                                    q->row_type.columns.size()));
  }
  HOP_RETURN_IF_ERROR(CheckCorrelation(correlated, ctx, e.loc));
  HOP_RETURN_IF_ERROR(
      CheckComparable(operand, InputRef(0, q->row_type.columns[0].type), op, e.loc));
  Scalar s;
  s.kind = ScalarKind::kQuantified;
  s.correlated = correlated;
  s.binary_op = qe.op;
  s.all = qe.all;
  s.args = {std::move(operand)};
  s.query = std::move(q);
  s.type = DataType(TypeName::kBoolean);  // NULL when no row decides and one compares as NULL
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
                                       sql::TypeString(a->type)));
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
  if (c.object_id != sql::ObjectIdType::kNone) return BindObjectIdCast(c, std::move(operand));
  const DataType& from = operand->type;
  auto is_structured = [](const DataType& t) {
    return t.name == TypeName::kArray || t.name == TypeName::kMultiset ||
           t.name == TypeName::kMap || t.name == TypeName::kRow;
  };
  bool structured = is_structured(from);
  bool to_structured = is_structured(c.type);
  if (!IsNull(from) && structured != to_structured) {
    return Error(e.loc, fmt::format("Cast function cannot convert value of type {} to type {}",
                                    sql::TypeString(from, true), sql::TypeString(c.type, true)));
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
                                    sql::TypeString(operand->type)));
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
                                    sql::TypeString(bt), sql::TypeString(index->type)));
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
    case ExprKind::kQuantified: return BindQuantified(e, ctx);
    case ExprKind::kArraySubquery: return BindArraySubquery(e, ctx);
    case ExprKind::kField: return BindField(e, ctx);
  }
  return Status::Internal("unknown expression kind");
}

}  // namespace hop::binder
