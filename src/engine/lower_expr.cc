// Lowering of expressions: Calcite's semantics on hop's value encoding. Operands meet in a common
// encoding before SQLite compares or computes them; integer division, LIKE, casts, decimal
// division, date arithmetic and the rest of the function library call the functions of
// functions.h where SQLite's own would differ (docs/engine.md).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "binder/functions.h"
#include "binder/types.h"
#include "common/strings.h"
#include "engine/functions.h"
#include "engine/lower_impl.h"

namespace hop::engine::internal {

using binder::Scalar;
using binder::ScalarKind;
using sql::BinaryOp;
using sql::DataType;
using sql::ExprPtr;
using sql::TypeName;

namespace {

constexpr int kMaxExprDepth = 1200;

Status Refuse(std::string_view what) {
  return Status::InvalidArgument(fmt::format("{} does not run on the local engine", what));
}

ExprPtr Code(const Rep& rep) { return StrLit(TypeCode(rep)); }

bool IsIntegerLiteral(const Scalar& s, int64_t* value) {
  if (s.kind != ScalarKind::kLiteral || s.literal != sql::LiteralKind::kInteger) return false;
  try {
    *value = std::stoll(s.text);
  } catch (...) {
    return false;
  }
  return true;
}

int IntegerWidth(TypeName n) {
  switch (n) {
    case TypeName::kTinyInt: return 1;
    case TypeName::kSmallInt: return 2;
    case TypeName::kInteger: return 4;
    default: return 8;
  }
}

// INTERVAL 'text' units, as months or microseconds.
Result<int64_t> IntervalValue(std::string_view text, const binder::IntervalUnits& u, bool* months) {
  using sql::IntervalUnit;
  std::string_view s = TrimWhitespace(text);
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  auto bad = [&] {
    return Status::InvalidArgument(fmt::format("Illegal interval literal '{}'", text));
  };
  // The numbers of the text, split at ' ', '-', ':' (a fraction stays on the last).
  std::vector<std::string> parts;
  std::string current;
  for (char c : s) {
    if (c == ' ' || c == '-' || c == ':') {
      if (current.empty()) return bad();
      parts.push_back(current);
      current.clear();
    } else if ((c >= '0' && c <= '9') || c == '.') {
      current += c;
    } else {
      return bad();
    }
  }
  if (current.empty()) return bad();
  parts.push_back(current);
  const IntervalUnit from = u.from;
  const IntervalUnit to = u.to == IntervalUnit::kNone ? u.from : u.to;
  *months =
      from == IntervalUnit::kYear || from == IntervalUnit::kQuarter || from == IntervalUnit::kMonth;
  // The units the parts stand for, from `from` to `to`.
  static constexpr IntervalUnit kOrder[] = {IntervalUnit::kYear,   IntervalUnit::kMonth,
                                            IntervalUnit::kDay,    IntervalUnit::kHour,
                                            IntervalUnit::kMinute, IntervalUnit::kSecond};
  std::vector<IntervalUnit> units;
  if (from == IntervalUnit::kQuarter || from == IntervalUnit::kWeek) {
    units = {from};
  } else {
    bool on = false;
    for (IntervalUnit x : kOrder) {
      if (x == from) on = true;
      if (on) units.push_back(x);
      if (x == to) break;
    }
  }
  if (units.empty() || units.size() != parts.size()) return bad();
  int64_t total = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const bool last = i + 1 == parts.size();
    if (!last || units[i] != IntervalUnit::kSecond) {
      if (parts[i].find('.') != std::string::npos) return bad();
    }
    if (units[i] == IntervalUnit::kSecond) {
      auto micros = ParseDecimal(parts[i], 6);
      if (!micros) return bad();
      total += *micros;
      continue;
    }
    int64_t n = 0;
    try {
      n = std::stoll(parts[i]);
    } catch (...) {
      return bad();
    }
    switch (units[i]) {
      case IntervalUnit::kYear: total += n * 12; break;
      case IntervalUnit::kQuarter: total += n * 3; break;
      case IntervalUnit::kMonth: total += n; break;
      case IntervalUnit::kWeek: total += n * 7 * kMicrosPerDay; break;
      case IntervalUnit::kDay: total += n * kMicrosPerDay; break;
      case IntervalUnit::kHour: total += n * 3600 * kMicrosPerSecond; break;
      case IntervalUnit::kMinute: total += n * 60 * kMicrosPerSecond; break;
      default: return bad();
    }
  }
  return negative ? -total : total;
}

Result<Low> Literal(const Scalar& s) {
  using sql::LiteralKind;
  Rep rep = RepOf(s.type);
  auto illegal = [&](std::string_view kind) {
    return Status::InvalidArgument(fmt::format("Illegal {} literal '{}'", kind, s.text));
  };
  switch (s.literal) {
    case LiteralKind::kNull: return Low{NullLit(), rep};
    case LiteralKind::kBoolean: return Low{IntLit(EqualsIgnoreCase(s.text, "TRUE") ? 1 : 0), rep};
    case LiteralKind::kInteger: {
      if (rep.kind != RepKind::kInteger) {
        return Status::InvalidArgument(fmt::format(
            "the integer {} is too large for the local engine (at most 9223372036854775807)",
            s.text));
      }
      int64_t v = 0;
      if (!IsIntegerLiteral(s, &v)) return illegal("integer");
      return Low{IntLit(v), rep};
    }
    case LiteralKind::kDecimal: {
      auto v = ParseDecimal(s.text, rep.scale);
      if (!v) {
        return Status::InvalidArgument(fmt::format(
            "the decimal {} has more than 18 digits, which the local engine does not hold",
            s.text));
      }
      return Low{IntLit(*v), rep};
    }
    case LiteralKind::kFloat: {
      try {
        return Low{RealLit(std::stod(s.text)), rep};
      } catch (...) {
        return illegal("floating-point");
      }
    }
    case LiteralKind::kString: return Low{StrLit(s.text), rep};
    case LiteralKind::kBinary: {
      auto lit = std::make_unique<sql::LiteralExpr>();
      lit->literal = LiteralKind::kBinary;
      lit->value = s.text;
      return Low{std::move(lit), rep};
    }
    case LiteralKind::kDate: {
      auto d = ParseDate(s.text);
      if (!d) return illegal("DATE");
      return Low{IntLit(*d), rep};
    }
    case LiteralKind::kTime: {
      auto t = ParseTime(s.text);
      if (!t) return illegal("TIME");
      return Low{IntLit(*t), rep};
    }
    case LiteralKind::kTimestamp: {
      auto t = ParseTimestamp(s.text);
      if (!t) return illegal("TIMESTAMP");
      return Low{IntLit(*t), rep};
    }
    case LiteralKind::kInterval: {
      bool months = false;
      HOP_ASSIGN_OR_RETURN(int64_t v, IntervalValue(s.text, s.interval, &months));
      return Low{IntLit(v), IntervalRep(months)};
    }
  }
  return illegal("unknown");
}

// Whether collections of types `a` and `b` hold their elements in the same encoding (a CHAR(1)
// ARRAY and a VARCHAR ARRAY do), so that one is the other without a conversion.
bool SameElements(const DataType& a, const DataType& b) {
  if (a.name != b.name) return SameEncoding(RepOf(a), RepOf(b)) && RepOf(a).kind != RepKind::kJson;
  if (a.params.size() != b.params.size() || a.fields.size() != b.fields.size()) return false;
  for (size_t i = 0; i < a.params.size(); ++i) {
    if (!SameElements(a.params[i], b.params[i])) return false;
  }
  for (size_t i = 0; i < a.fields.size(); ++i) {
    if (!SameElements(a.fields[i].type, b.fields[i].type)) return false;
  }
  if (a.name == TypeName::kArray || a.name == TypeName::kMap || a.name == TypeName::kRow) {
    return true;
  }
  return SameEncoding(RepOf(a), RepOf(b));
}

// Decimal scale of a numeric encoding (integers: 0).
int ScaleOf(const Rep& r) { return r.kind == RepKind::kDecimal ? r.scale : 0; }

Rep WithScale(Rep r, int scale) {
  r.scale = scale;
  r.type.scale = scale;
  if (!r.type.precision || *r.type.precision < scale) r.type.precision = std::max(19, scale);
  return r;
}

}  // namespace

// ---- encodings -------------------------------------------------------------------------------

Result<Rep> Lowerer::Common(const Rep& a, const Rep& b) {
  if (a.kind == RepKind::kNull) return b;
  if (b.kind == RepKind::kNull) return a;
  if (a.numeric() && b.numeric()) {
    if (a.kind == RepKind::kDouble) return a;
    if (b.kind == RepKind::kDouble) return b;
    if (a.kind == RepKind::kDecimal || b.kind == RepKind::kDecimal) {
      return DecimalRep(19, std::max(ScaleOf(a), ScaleOf(b)));
    }
    return IntegerWidth(a.type.name) >= IntegerWidth(b.type.name) ? a : b;
  }
  if (a.kind == b.kind) return a;
  if (a.kind == RepKind::kText) return b;  // the string is read as the other's type
  if (b.kind == RepKind::kText) return a;
  auto is_time = [](const Rep& r) {
    return r.kind == RepKind::kTimestamp || r.kind == RepKind::kTimestampLtz;
  };
  if ((a.kind == RepKind::kDate && is_time(b)) || (is_time(a) && is_time(b))) return b;
  if (is_time(a) && b.kind == RepKind::kDate) return a;
  return Status::InvalidArgument(
      fmt::format("values of types {} and {} cannot be compared", RepTypeName(a), RepTypeName(b)));
}

Rep Lowerer::Unify(const std::vector<Rep>& reps, const DataType& type) {
  Rep r = RepOf(type);
  if (r.kind == RepKind::kDecimal) {
    int scale = -1;
    for (const Rep& p : reps) {
      if (p.kind == RepKind::kDecimal || p.kind == RepKind::kInteger) {
        scale = std::max(scale, ScaleOf(p));
      }
    }
    if (scale >= 0) r = WithScale(r, scale);
  } else if (r.kind == RepKind::kMicros || r.kind == RepKind::kNull) {
    for (const Rep& p : reps) {
      if (p.kind != RepKind::kNull) {
        if (r.kind == RepKind::kNull || p.interval()) r = p;
        break;
      }
    }
  } else if (r.kind == RepKind::kJson) {
    // Collections keep their parts' encodings (a decimal element's scale).
    for (const Rep& p : reps) {
      if (p.kind == RepKind::kJson) {
        DataType t = p.type;
        t.nullability = type.nullability;
        r.type = t;
        break;
      }
    }
  }
  return r;
}

Result<Low> Lowerer::ToText(Low v) {
  if (v.rep.kind == RepKind::kText) return v;
  if (v.rep.kind == RepKind::kNull) return Low{std::move(v.expr), TextRep()};
  if (v.rep.kind == RepKind::kInteger) {
    return Low{StorageCast(std::move(v.expr), TypeName::kVarchar), TextRep()};
  }
  return Low{Call(fn::kCast, Args(std::move(v.expr), Code(v.rep), Code(TextRep()), StrLit(label))),
             TextRep()};
}

Result<Low> Lowerer::Coerce(Low v, const Rep& to, std::string_view label_text) {
  const Rep& from = v.rep;
  if (from.kind == RepKind::kNull || to.kind == RepKind::kNull) return Low{std::move(v.expr), to};
  if (SameEncoding(from, to)) {
    if (from.kind == RepKind::kInteger &&
        IntegerWidth(to.type.name) < IntegerWidth(from.type.name)) {
      return Cast(std::move(v), to, false, label_text);
    }
    return Low{std::move(v.expr), to};
  }
  if (from.kind == RepKind::kInteger && to.kind == RepKind::kDecimal) {
    if (to.scale == 0) return Low{std::move(v.expr), to};
    return Low{Bin(BinaryOp::kMultiply, std::move(v.expr), IntLit(Pow10(to.scale))), to};
  }
  if (from.kind == RepKind::kDecimal && to.kind == RepKind::kDecimal && to.scale > from.scale) {
    return Low{Bin(BinaryOp::kMultiply, std::move(v.expr), IntLit(Pow10(to.scale - from.scale))),
               to};
  }
  if (from.kind == RepKind::kInteger && to.kind == RepKind::kDouble) {
    return Low{std::move(v.expr), to};  // SQLite computes integers with reals as reals
  }
  if (from.kind == RepKind::kDecimal && to.kind == RepKind::kDouble) {
    return Low{
        Bin(BinaryOp::kDivide, std::move(v.expr), RealLit(static_cast<double>(Pow10(from.scale)))),
        to};
  }
  if (from.kind == RepKind::kDate &&
      (to.kind == RepKind::kTimestamp || to.kind == RepKind::kTimestampLtz)) {
    return Low{Bin(BinaryOp::kMultiply, std::move(v.expr), IntLit(kMicrosPerDay)), to};
  }
  if ((from.kind == RepKind::kTimestamp && to.kind == RepKind::kTimestampLtz) ||
      (from.kind == RepKind::kTimestampLtz && to.kind == RepKind::kTimestamp)) {
    return Low{std::move(v.expr), to};
  }
  return Cast(std::move(v), to, false, label_text);
}

Result<Low> Lowerer::Cast(Low v, const Rep& to, bool try_cast, std::string_view label_text) {
  const Rep from = v.rep;
  if (from.kind == RepKind::kNull) return Low{NullLit(), to};
  if (to.kind == RepKind::kJson || from.kind == RepKind::kJson) {
    if (from.kind == to.kind && SameElements(from.type, to.type)) return Low{std::move(v.expr), to};
    if (from.kind == to.kind) {
      return Refuse(fmt::format("CAST from {} to {}", RepTypeName(from), RepTypeName(to)));
    }
  }
  auto generic = [&]() -> Result<Low> {
    if (try_cast) return Low{Call(fn::kTryCast, Args(std::move(v.expr), Code(from), Code(to))), to};
    return Low{Call(fn::kCast,
                    Args(std::move(v.expr), Code(from), Code(to), StrLit(std::string(label_text)))),
               to};
  };
  if (try_cast) return generic();
  if (SameEncoding(from, to)) {
    switch (from.kind) {
      case RepKind::kText:
        // CHAR(n) pads and VARCHAR(n) cuts.
        if (to.type.name == TypeName::kChar ||
            (to.type.precision && to.type.precision != from.type.precision)) {
          return generic();
        }
        return Low{std::move(v.expr), to};
      case RepKind::kInteger:
        if (IntegerWidth(to.type.name) < IntegerWidth(from.type.name)) return generic();
        return Low{std::move(v.expr), to};
      case RepKind::kTime:
      case RepKind::kTimestamp:
      case RepKind::kTimestampLtz:
        if (TimePrecision(to.type) < TimePrecision(from.type)) return generic();
        return Low{std::move(v.expr), to};
      case RepKind::kDecimal: {
        const int precision = to.type.precision.value_or(19);
        const int from_precision = from.type.precision.value_or(19);
        if (precision < from_precision) return generic();  // the range is checked
        return Low{std::move(v.expr), to};
      }
      default: return Low{std::move(v.expr), to};
    }
  }
  if (from.kind == RepKind::kInteger && to.kind == RepKind::kDecimal &&
      to.type.precision.value_or(19) >= 19) {
    return Coerce(std::move(v), to);
  }
  if (from.kind == RepKind::kDecimal && to.kind == RepKind::kDecimal && to.scale > from.scale &&
      to.type.precision.value_or(19) >= 19) {
    return Coerce(std::move(v), to);
  }
  if (from.kind == RepKind::kDecimal && to.kind == RepKind::kDecimal) {
    return generic();  // rounds, and checks the range
  }
  if (from.kind == RepKind::kDecimal && to.kind == RepKind::kInteger &&
      to.type.name == TypeName::kBigInt) {
    // Calcite truncates toward zero, as SQLite's integer division does.
    return Low{Bin(BinaryOp::kDivide, std::move(v.expr), IntLit(Pow10(from.scale))), to};
  }
  if (from.kind == RepKind::kInteger && to.kind == RepKind::kDouble) {
    return Low{StorageCast(std::move(v.expr), TypeName::kDouble), to};
  }
  if (from.kind == RepKind::kDecimal && to.kind == RepKind::kDouble)
    return Coerce(std::move(v), to);
  // (DOUBLE to BIGINT is the generic cast: SQLite's own saturates at the range's ends, where a
  // value out of range is an error.)
  if (from.kind == RepKind::kInteger && to.kind == RepKind::kText && !to.type.precision &&
      to.type.name == TypeName::kVarchar) {
    return Low{StorageCast(std::move(v.expr), TypeName::kVarchar), to};
  }
  if (from.kind == RepKind::kDate &&
      (to.kind == RepKind::kTimestamp || to.kind == RepKind::kTimestampLtz)) {
    return Coerce(std::move(v), to);
  }
  return generic();
}

// ---- expressions ----------------------------------------------------------------------------

namespace {

// a + b, a - b or a * b of 64-bit integers, failing on overflow (fn::kIntAdd ...).
ExprPtr Checked(BinaryOp op, ExprPtr a, ExprPtr b) {
  const std::string_view name = op == BinaryOp::kAdd        ? fn::kIntAdd
                                : op == BinaryOp::kSubtract ? fn::kIntSubtract
                                                            : fn::kIntMultiply;
  return Call(name, Args(std::move(a), std::move(b)));
}

Result<Low> Arithmetic(Lowerer& l, BinaryOp op, Low a, Low b, const DataType& type) {
  const Rep ra = a.rep, rb = b.rep;
  const bool additive = op == BinaryOp::kAdd || op == BinaryOp::kSubtract;
  // Date-times and intervals.
  if (additive && ((ra.temporal() && rb.interval()) || (rb.temporal() && ra.interval()))) {
    const bool left_time = ra.temporal();
    Low dt = left_time ? std::move(a) : std::move(b);
    Low iv = left_time ? std::move(b) : std::move(a);
    if (op == BinaryOp::kSubtract) {
      auto neg = std::make_unique<sql::UnaryExpr>();
      neg->op = sql::UnaryOp::kNegate;
      neg->operand = std::move(iv.expr);
      iv.expr = std::move(neg);
    }
    const Rep rep = dt.rep;
    if (iv.rep.kind == RepKind::kMonths) {
      return Low{Call(fn::kAddMonths, Args(std::move(dt.expr), std::move(iv.expr), Code(rep))),
                 rep};
    }
    switch (rep.kind) {
      case RepKind::kDate:
        // Whole days of the interval.
        return Low{Bin(BinaryOp::kAdd, std::move(dt.expr),
                       Bin(BinaryOp::kDivide, std::move(iv.expr), IntLit(kMicrosPerDay))),
                   rep};
      case RepKind::kTime:
        return Low{Call(fn::kAddTime, Args(std::move(dt.expr), std::move(iv.expr))), rep};
      default: return Low{Bin(BinaryOp::kAdd, std::move(dt.expr), std::move(iv.expr)), rep};
    }
  }
  if (ra.interval() && rb.interval()) {
    if (ra.kind != rb.kind) {
      return Status::InvalidArgument(
          "year-month and day-time intervals cannot be added or subtracted");
    }
    return Low{Bin(op, std::move(a.expr), std::move(b.expr)), ra};
  }
  Rep target = RepOf(type);
  if (ra.kind == RepKind::kNull || rb.kind == RepKind::kNull || target.kind == RepKind::kNull) {
    return Low{NullLit(), target.kind == RepKind::kNull ? ra : target};
  }
  // A string operand is read as a number of the other operand's type (Calcite's coercion).
  if (ra.kind == RepKind::kText) {
    HOP_ASSIGN_OR_RETURN(a, l.Cast(std::move(a), rb.numeric() ? rb : target, false, l.label));
  }
  if (rb.kind == RepKind::kText) {
    HOP_ASSIGN_OR_RETURN(b, l.Cast(std::move(b), a.rep.numeric() ? a.rep : target, false, l.label));
  }
  switch (target.kind) {
    case RepKind::kDouble: {
      HOP_ASSIGN_OR_RETURN(a, l.Coerce(std::move(a), target));
      HOP_ASSIGN_OR_RETURN(b, l.Coerce(std::move(b), target));
      if (op == BinaryOp::kDivide)
        return Low{Call(fn::kRealDivide, Args(std::move(a.expr), std::move(b.expr))), target};
      if (op == BinaryOp::kModulo)
        return Low{Call(fn::kRealModulo, Args(std::move(a.expr), std::move(b.expr))), target};
      return Low{Bin(op, std::move(a.expr), std::move(b.expr)), target};
    }
    case RepKind::kInteger: {
      if (op == BinaryOp::kModulo) {
        // In the wider operand's type: the result is smaller than the divisor, whose type MOD has.
        HOP_ASSIGN_OR_RETURN(Rep wide, l.Common(a.rep, b.rep));
        HOP_ASSIGN_OR_RETURN(a, l.Coerce(std::move(a), wide));
        HOP_ASSIGN_OR_RETURN(b, l.Coerce(std::move(b), wide));
        return Low{Call(fn::kIntModulo, Args(std::move(a.expr), std::move(b.expr))), target};
      }
      HOP_ASSIGN_OR_RETURN(a, l.Coerce(std::move(a), target));
      HOP_ASSIGN_OR_RETURN(b, l.Coerce(std::move(b), target));
      if (op == BinaryOp::kDivide)
        return Low{Call(fn::kIntDivide, Args(std::move(a.expr), std::move(b.expr))), target};
      return Low{Checked(op, std::move(a.expr), std::move(b.expr)), target};
    }
    case RepKind::kDecimal: {
      const int sa = ScaleOf(a.rep), sb = ScaleOf(b.rep);
      if (!a.rep.numeric() || !b.rep.numeric() || a.rep.kind == RepKind::kDouble ||
          b.rep.kind == RepKind::kDouble) {
        return Status::Internal("decimal arithmetic on non-decimal operands");
      }
      const int precision = target.type.precision.value_or(19);
      if (op == BinaryOp::kMultiply) {
        const int s = sa + sb;
        if (s <= 18) {
          return Low{Checked(op, std::move(a.expr), std::move(b.expr)), WithScale(target, s)};
        }
        return Low{
            Call(fn::kDecimalMultiply, Args(std::move(a.expr), std::move(b.expr), IntLit(s - 18))),
            WithScale(target, 18)};
      }
      if (op == BinaryOp::kDivide) {
        const int s = std::clamp(target.scale, 0, 18);
        return Low{Call(fn::kDecimalDivide, Args(std::move(a.expr), IntLit(sa), std::move(b.expr),
                                                 IntLit(sb), IntLit(s))),
                   WithScale(target, s)};
      }
      const int s = std::max(sa, sb);
      const Rep at = DecimalRep(precision, s);
      HOP_ASSIGN_OR_RETURN(a, l.Coerce(std::move(a), at));
      HOP_ASSIGN_OR_RETURN(b, l.Coerce(std::move(b), at));
      if (op == BinaryOp::kModulo) {
        return Low{Call(fn::kIntModulo, Args(std::move(a.expr), std::move(b.expr))),
                   WithScale(target, s)};
      }
      return Low{Checked(op, std::move(a.expr), std::move(b.expr)), WithScale(target, s)};
    }
    default:
      return Status::InvalidArgument(fmt::format("{} {} {} does not run on the local engine",
                                                 RepTypeName(ra), binder::BinaryOpText(op),
                                                 RepTypeName(rb)));
  }
}

bool IsChar(const Rep& r) { return r.kind == RepKind::kText && r.type.name == TypeName::kChar; }

sql::LiteralExpr* StringLiteral(const ExprPtr& e) {
  if (e->kind != sql::ExprKind::kLiteral) return nullptr;
  auto& lit = static_cast<sql::LiteralExpr&>(*e);
  return lit.literal == sql::LiteralKind::kString ? &lit : nullptr;
}

// A CHAR compares without its trailing spaces, as PostgreSQL's bpchar does (docs/engine.md,
// "Strings and LIKE"). Where an operand is a CHAR other than a literal, the string literals among
// the operands lose their trailing spaces (PostgreSQL reads them as bpchar), a CHAR column is
// taken as it is held (unpadded; so push-down and hashed scans still see the column), another
// CHAR or a VARCHAR(n) is compared without its trailing spaces (PostgreSQL compares varchar with
// bpchar as bpchar), and a VARCHAR without a length, PostgreSQL's text, as it is.
void UnpadCharOperands(const std::vector<Low*>& ops) {
  bool any = false;
  for (const Low* o : ops) any = any || (IsChar(o->rep) && !StringLiteral(o->expr));
  if (!any) return;
  for (Low* o : ops) {
    if (o->rep.kind != RepKind::kText) continue;
    if (sql::LiteralExpr* lit = StringLiteral(o->expr)) {
      while (!lit->value.empty() && lit->value.back() == ' ') lit->value.pop_back();
      continue;
    }
    if (IsChar(o->rep) && o->expr->kind == sql::ExprKind::kColumnRef) continue;
    if (IsChar(o->rep) || o->rep.type.precision) {
      o->expr = Call("rtrim", Args(std::move(o->expr), StrLit(" ")));
    }
  }
}

Result<Low> Compare(Lowerer& l, BinaryOp op, Low a, Low b) {
  UnpadCharOperands({&a, &b});
  HOP_ASSIGN_OR_RETURN(Rep c, l.Common(a.rep, b.rep));
  if (c.kind == RepKind::kJson && op != BinaryOp::kEq && op != BinaryOp::kNe &&
      op != BinaryOp::kIsDistinctFrom && op != BinaryOp::kIsNotDistinctFrom) {
    return Refuse("ordering ARRAY, MAP or ROW values with <, <=, > or >=");
  }
  HOP_ASSIGN_OR_RETURN(a, l.Coerce(std::move(a), c));
  HOP_ASSIGN_OR_RETURN(b, l.Coerce(std::move(b), c));
  return Low{Bin(op, std::move(a.expr), std::move(b.expr)), BooleanRep()};
}

}  // namespace

Result<Low> ConvertOuter(Lowerer& l, const Scalar& s) {
  if (l.outer_.empty()) return Status::Internal("correlated reference outside a subquery");
  const Cols* outer = l.outer_.back();
  if (s.index < 0 || s.index >= static_cast<int>(outer->size())) {
    return Status::Internal("correlated reference out of range");
  }
  l.outer_.pop_back();
  auto e = (*outer)[s.index].make();
  l.outer_.push_back(outer);
  if (!e.ok()) return e.status();
  return Low{std::move(e).value(), (*outer)[s.index].rep};
}

Result<Low> ConvertSubquery(Lowerer& l, const Scalar& s, const Cols& cols) {
  Low operand;
  if (s.kind == ScalarKind::kInSubquery) {
    HOP_ASSIGN_OR_RETURN(operand, l.Convert(*s.args[0], cols));
  }
  l.outer_.push_back(&cols);
  auto built = [&]() -> Result<Low> {
    HOP_ASSIGN_OR_RETURN(Frame f, l.Visit(*s.query));
    if (s.kind == ScalarKind::kExists) {
      auto e = std::make_unique<sql::ExistsExpr>();
      HOP_ASSIGN_OR_RETURN(e->query, l.Finish(std::move(f)));
      return Low{std::move(e), BooleanRep()};
    }
    if (f.body) {
      HOP_ASSIGN_OR_RETURN(f, l.Wrap(std::move(f)));
    }
    Col& first = f.cols->front();
    if (s.kind == ScalarKind::kSubquery) {
      const Rep rep = first.rep;
      if (!OneRow(*s.query)) {
        // At most one row: HOP_SINGLE fails on a second.
        HOP_ASSIGN_OR_RETURN(f, l.Wrap(std::move(f)));
        Col value = f.cols->front();
        f.cols->assign(1, Col{[value]() -> Result<ExprPtr> {
                                HOP_ASSIGN_OR_RETURN(ExprPtr e, value.make());
                                return Call(fn::kSingle, Args(std::move(e)));
                              },
                              rep});
        f.level = Level::kGroup;
      } else {
        f.cols->resize(1);
      }
      auto e = std::make_unique<sql::SubqueryExpr>();
      HOP_ASSIGN_OR_RETURN(e->query, l.Finish(std::move(f)));
      return Low{std::move(e), rep};
    }
    // IN: the operand and the subquery's column in one encoding.
    HOP_ASSIGN_OR_RETURN(Rep c, l.Common(operand.rep, first.rep));
    Col value = first;
    f.cols->assign(1, Col{[&l, value, c]() -> Result<ExprPtr> {
                            HOP_ASSIGN_OR_RETURN(ExprPtr e, value.make());
                            HOP_ASSIGN_OR_RETURN(Low v, l.Coerce({std::move(e), value.rep}, c));
                            return std::move(v.expr);
                          },
                          c});
    auto e = std::make_unique<sql::InSubqueryExpr>();
    e->negated = s.negated;
    HOP_ASSIGN_OR_RETURN(e->query, l.Finish(std::move(f)));
    HOP_ASSIGN_OR_RETURN(Low op, l.Coerce(std::move(operand), c));
    e->operand = std::move(op.expr);
    return Low{std::move(e), BooleanRep()};
  }();
  l.outer_.pop_back();
  return built;
}

namespace {

// The comparison that fails exactly where `op` holds: `x op ALL (q)` is `NOT (x op' ANY (q))`.
BinaryOp Complement(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEq: return BinaryOp::kNe;
    case BinaryOp::kNe: return BinaryOp::kEq;
    case BinaryOp::kLt: return BinaryOp::kGe;
    case BinaryOp::kLe: return BinaryOp::kGt;
    case BinaryOp::kGt: return BinaryOp::kLe;
    case BinaryOp::kGe: return BinaryOp::kLt;
    default: return op;
  }
}

ExprPtr CountStar() {
  auto e = std::make_unique<sql::FunctionExpr>();
  e->name.parts.push_back(Id("COUNT"));
  e->star = true;
  return e;
}

}  // namespace

// `x op ANY | ALL (query)`, which SQLite lacks. `= ANY` is IN and `<> ALL` NOT IN; ALL is the
// negation of ANY over the complementary comparison. Otherwise x is compared with the query's
// MIN or MAX (`x > ANY` holds when x exceeds the least value), and when no value makes it true
// the query's shape decides, as the standard says: no rows FALSE, a NULL among them (or a NULL
// x) NULL, else FALSE.
Result<Low> ConvertQuantified(Lowerer& l, const Scalar& s, const Cols& cols) {
  const BinaryOp op = s.all ? Complement(s.binary_op) : s.binary_op;
  if (op == BinaryOp::kEq) {
    Scalar in = s;
    in.kind = ScalarKind::kInSubquery;
    in.negated = s.all;
    return ConvertSubquery(l, in, cols);
  }
  if (s.query->row_type.columns.empty()) return Status::Internal("a quantified query of no column");
  // `(SELECT agg FROM (query))`, `agg(value)` written over the query's one column coerced to
  // `rep`.
  using Aggregate = std::function<ExprPtr(ExprPtr value)>;
  auto QueryAggregate = [](Lowerer& l, const Scalar& s, const Cols& cols, const Rep& rep,
                           const Aggregate& agg, const Rep& out) -> Result<Low> {
    l.outer_.push_back(&cols);
    auto built = [&]() -> Result<Low> {
      HOP_ASSIGN_OR_RETURN(Frame f, l.Visit(*s.query));
      HOP_ASSIGN_OR_RETURN(f, l.Wrap(std::move(f)));
      Col value = f.cols->front();
      f.cols->assign(1, Col{[&l, value, rep, agg]() -> Result<ExprPtr> {
                              HOP_ASSIGN_OR_RETURN(ExprPtr e, value.make());
                              HOP_ASSIGN_OR_RETURN(Low v, l.Coerce({std::move(e), value.rep}, rep));
                              return agg(std::move(v.expr));
                            },
                            out});
      f.level = Level::kGroup;
      auto e = std::make_unique<sql::SubqueryExpr>();
      HOP_ASSIGN_OR_RETURN(e->query, l.Finish(std::move(f)));
      return Low{std::move(e), out};
    }();
    l.outer_.pop_back();
    return built;
  };
  HOP_ASSIGN_OR_RETURN(Low x, l.Convert(*s.args[0], cols));
  const Rep column = RepOf(s.query->row_type.columns[0].type);
  HOP_ASSIGN_OR_RETURN(Rep c, l.Common(x.rep, column));
  auto extreme = [&](bool max) {
    return QueryAggregate(
        l, s, cols, c, [max](ExprPtr v) { return Call(max ? "MAX" : "MIN", Args(std::move(v))); },
        c);
  };
  // Where some value makes the comparison true.
  ExprPtr holds;
  if (op == BinaryOp::kNe) {
    HOP_ASSIGN_OR_RETURN(Low lo, extreme(false));
    HOP_ASSIGN_OR_RETURN(Low hi, extreme(true));
    HOP_ASSIGN_OR_RETURN(Low x2, l.Convert(*s.args[0], cols));
    HOP_ASSIGN_OR_RETURN(Low a, Compare(l, BinaryOp::kNe, std::move(x), std::move(lo)));
    HOP_ASSIGN_OR_RETURN(Low b, Compare(l, BinaryOp::kNe, std::move(x2), std::move(hi)));
    holds = Bin(BinaryOp::kOr, std::move(a.expr), std::move(b.expr));
  } else {
    // x > ANY and x >= ANY against the least value; x < ANY and x <= ANY the greatest.
    HOP_ASSIGN_OR_RETURN(Low m, extreme(op == BinaryOp::kLt || op == BinaryOp::kLe));
    HOP_ASSIGN_OR_RETURN(Low cmp, Compare(l, op, std::move(x), std::move(m)));
    holds = std::move(cmp.expr);
  }
  // The query's shape: 0 no rows, 1 rows without a NULL, 2 rows with one.
  HOP_ASSIGN_OR_RETURN(
      Low shape,
      QueryAggregate(
          l, s, cols, c,
          [](ExprPtr v) -> ExprPtr {
            auto k = std::make_unique<sql::CaseExpr>();
            k->whens.push_back({Bin(BinaryOp::kEq, CountStar(), IntLit(0)), IntLit(0)});
            k->whens.push_back(
                {Bin(BinaryOp::kLt, Call("COUNT", Args(std::move(v))), CountStar()), IntLit(2)});
            k->else_result = IntLit(1);
            return k;
          },
          BigIntRep()));
  HOP_ASSIGN_OR_RETURN(Low x3, l.Convert(*s.args[0], cols));
  auto unknown_x = std::make_unique<sql::CaseExpr>();
  unknown_x->whens.push_back({IsNull(std::move(x3.expr), false), NullLit()});
  unknown_x->else_result = IntLit(0);
  auto otherwise = std::make_unique<sql::CaseExpr>();
  otherwise->operand = std::move(shape.expr);
  otherwise->whens.push_back({IntLit(0), IntLit(0)});
  otherwise->whens.push_back({IntLit(1), std::move(unknown_x)});
  auto any = std::make_unique<sql::CaseExpr>();
  any->whens.push_back({std::move(holds), IntLit(1)});
  any->else_result = std::move(otherwise);
  ExprPtr out = std::move(any);
  if (s.all) out = Not(std::move(out));
  return Low{std::move(out), BooleanRep()};
}

namespace {

Result<std::vector<Low>> ConvertArgs(Lowerer& l, const Scalar& s, const Cols& cols) {
  std::vector<Low> out;
  for (const auto& a : s.args) {
    HOP_ASSIGN_OR_RETURN(Low v, l.Convert(*a, cols));
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<ExprPtr> Exprs(std::vector<Low>& lows) {
  std::vector<ExprPtr> out;
  for (auto& v : lows) out.push_back(std::move(v.expr));
  return out;
}

Result<Low> AsInteger(Lowerer& l, Low v) { return l.Coerce(std::move(v), BigIntRep()); }

Result<Low> AsDouble(Lowerer& l, Low v) {
  if (v.rep.kind == RepKind::kText) return l.Cast(std::move(v), DoubleRep(), false, l.label);
  return l.Coerce(std::move(v), DoubleRep());
}

Result<std::string> TypeCodes(const std::vector<Low>& values, size_t from, size_t step) {
  std::string codes;
  for (size_t i = from; i < values.size(); i += step) {
    if (!codes.empty()) codes += ';';
    codes += TypeCode(values[i].rep);
  }
  return codes;
}

// The element encoding of a collection type, with the scale its elements were given.
Rep ElementRep(const Rep& collection, size_t i) {
  const DataType& t = collection.type;
  if (t.name == TypeName::kArray && !t.params.empty()) return RepOf(t.params[0]);
  if (t.name == TypeName::kMap && t.params.size() == 2) return RepOf(t.params[i]);
  if (t.name == TypeName::kRow && i < t.fields.size()) return RepOf(t.fields[i].type);
  return Rep{};
}

// Window functions: OVER (PARTITION BY ... ORDER BY ... frame).
Result<std::unique_ptr<sql::WindowSpec>> WindowOf(Lowerer& l, const binder::Window& w,
                                                  const Cols& cols) {
  auto spec = std::make_unique<sql::WindowSpec>();
  for (const auto& p : w.partition_by) {
    HOP_ASSIGN_OR_RETURN(Low v, l.Convert(*p, cols));
    spec->partition_by.push_back(std::move(v.expr));
  }
  for (const auto& k : w.order_by) {
    HOP_ASSIGN_OR_RETURN(Low v, l.Convert(*k.expr, cols));
    sql::OrderItem item;
    item.expr = std::move(v.expr);
    item.direction = k.direction;
    item.nulls = k.nulls != sql::NullsOrder::kDefault       ? k.nulls
                 : k.direction == sql::SortDirection::kDesc ? sql::NullsOrder::kFirst
                                                            : sql::NullsOrder::kLast;
    spec->order_by.push_back(std::move(item));
  }
  spec->frame_unit = w.frame_unit;
  spec->frame_start.kind = w.start;
  const Cols none;
  if (w.start_offset) {
    HOP_ASSIGN_OR_RETURN(Low v, l.Convert(*w.start_offset, none));
    spec->frame_start.offset = std::move(v.expr);
  }
  if (w.end) {
    sql::FrameBound end;
    end.kind = *w.end;
    if (w.end_offset) {
      HOP_ASSIGN_OR_RETURN(Low v, l.Convert(*w.end_offset, none));
      end.offset = std::move(v.expr);
    }
    spec->frame_end = std::move(end);
  }
  return spec;
}

ExprPtr Windowed(std::string_view name, std::vector<ExprPtr> args,
                 std::unique_ptr<sql::WindowSpec> over) {
  auto f = std::make_unique<sql::FunctionExpr>();
  f->name.parts.push_back(Id(std::string(name)));
  f->args = std::move(args);
  f->over = std::move(over);
  return f;
}

Result<Low> ConvertWindow(Lowerer& l, const Scalar& s, const Cols& cols) {
  const std::string& name = s.text;
  if (s.distinct) return Refuse(fmt::format("{}(DISTINCT ...) OVER (...)", name));
  HOP_ASSIGN_OR_RETURN(std::vector<Low> args, ConvertArgs(l, s, cols));
  auto over = [&]() { return WindowOf(l, *s.window, cols); };
  const Rep rep = RepOf(s.type);
  auto native = [&](std::string_view sqlite_name, Rep r) -> Result<Low> {
    HOP_ASSIGN_OR_RETURN(auto w, over());
    return Low{Windowed(sqlite_name, Exprs(args), std::move(w)), r};
  };
  if (name == "ROW_NUMBER" || name == "RANK" || name == "DENSE_RANK" || name == "PERCENT_RANK" ||
      name == "CUME_DIST") {
    return native(name, rep);
  }
  if (name == "NTILE") {
    HOP_ASSIGN_OR_RETURN(args[0], AsInteger(l, std::move(args[0])));
    return native("NTILE", rep);
  }
  if (name == "LAG" || name == "LEAD") {
    const Rep value = args[0].rep;
    if (args.size() > 1) {
      HOP_ASSIGN_OR_RETURN(args[1], AsInteger(l, std::move(args[1])));
    }
    if (args.size() > 2) {
      HOP_ASSIGN_OR_RETURN(Rep c, l.Common(value, args[2].rep));
      HOP_ASSIGN_OR_RETURN(args[0], l.Coerce(std::move(args[0]), c));
      HOP_ASSIGN_OR_RETURN(args[2], l.Coerce(std::move(args[2]), c));
      return native(name, c);
    }
    return native(name, value);
  }
  if (name == "FIRST_VALUE" || name == "LAST_VALUE") {
    return native(name, args[0].rep);
  }
  if (name == "NTH_VALUE") {
    HOP_ASSIGN_OR_RETURN(args[1], AsInteger(l, std::move(args[1])));
    return native("NTH_VALUE", args[0].rep);
  }
  if (name == "COUNT") {
    if (s.star || args.empty()) {
      HOP_ASSIGN_OR_RETURN(auto w, over());
      auto f = std::make_unique<sql::FunctionExpr>();
      f->name.parts.push_back(Id("COUNT"));
      f->star = true;
      f->over = std::move(w);
      return Low{std::move(f), rep};
    }
    if (args.size() > 1) return Refuse("COUNT of several values over a window");
    return native("COUNT", rep);
  }
  if (name == "MIN" || name == "MAX" || name == "SUM") {
    return native(name, args[0].rep);
  }
  if (name == "SUM0") {
    const Rep value = args[0].rep;
    HOP_ASSIGN_OR_RETURN(auto w, over());
    return Low{Call("COALESCE", Args(Windowed("SUM", Exprs(args), std::move(w)), IntLit(0))),
               value};
  }
  if (name == "AVG") {
    const Rep value = args[0].rep;
    if (value.kind == RepKind::kDouble) return native("AVG", value);
    HOP_ASSIGN_OR_RETURN(auto w1, over());
    HOP_ASSIGN_OR_RETURN(auto w2, over());
    HOP_ASSIGN_OR_RETURN(Low again, l.Convert(*s.args[0], cols));
    ExprPtr sum = Windowed("SUM", Exprs(args), std::move(w1));
    std::vector<ExprPtr> count_args;
    count_args.push_back(std::move(again.expr));
    ExprPtr count = Windowed("COUNT", std::move(count_args), std::move(w2));
    if (value.kind == RepKind::kDecimal) {
      return Low{Call(fn::kDecimalDivide, Args(std::move(sum), IntLit(value.scale),
                                               std::move(count), IntLit(0), IntLit(value.scale))),
                 value};
    }
    return Low{Bin(BinaryOp::kDivide, std::move(sum), std::move(count)), value};
  }
  return Refuse(fmt::format("{} as a window function", name));
}

}  // namespace

Result<Low> ConvertCall(Lowerer& l, const Scalar& s, const Cols& cols);

Result<Low> Lowerer::Convert(const Scalar& s, const Cols& cols) {
  if (depth_ >= kMaxExprDepth) {
    return Status::InvalidArgument(
        fmt::format("an expression is nested more than {} levels deep to run", kMaxExprDepth));
  }
  ++depth_;
  auto out = [&]() -> Result<Low> {
    switch (s.kind) {
      case ScalarKind::kInputRef: {
        if (s.index < 0 || s.index >= static_cast<int>(cols.size())) {
          return Status::Internal(
              fmt::format("plan refers to column {} of a {}-column input", s.index, cols.size()));
        }
        HOP_ASSIGN_OR_RETURN(ExprPtr e, cols[s.index].make());
        return Low{std::move(e), cols[s.index].rep};
      }
      case ScalarKind::kLiteral: return Literal(s);
      case ScalarKind::kOuterRef: return ConvertOuter(*this, s);
      case ScalarKind::kParameter:
        return Status::InvalidArgument(fmt::format(
            "parameter ${} has no value: the local engine runs queries without parameters",
            s.index));
      case ScalarKind::kUnary: {
        HOP_ASSIGN_OR_RETURN(Low v, Convert(*s.args[0], cols));
        if (s.unary_op == sql::UnaryOp::kNot) return Low{Not(std::move(v.expr)), BooleanRep()};
        if (v.rep.kind == RepKind::kText) {
          HOP_ASSIGN_OR_RETURN(v, Cast(std::move(v), RepOf(s.type), false, label));
        }
        auto neg = std::make_unique<sql::UnaryExpr>();
        neg->op = sql::UnaryOp::kNegate;
        neg->operand = std::move(v.expr);
        return Low{std::move(neg), v.rep};
      }
      case ScalarKind::kBinary: {
        HOP_ASSIGN_OR_RETURN(Low a, Convert(*s.args[0], cols));
        HOP_ASSIGN_OR_RETURN(Low b, Convert(*s.args[1], cols));
        switch (s.binary_op) {
          case BinaryOp::kAnd:
          case BinaryOp::kOr:
            return Low{Bin(s.binary_op, std::move(a.expr), std::move(b.expr)), BooleanRep()};
          case BinaryOp::kEq:
          case BinaryOp::kNe:
          case BinaryOp::kLt:
          case BinaryOp::kLe:
          case BinaryOp::kGt:
          case BinaryOp::kGe:
          case BinaryOp::kIsDistinctFrom:
          case BinaryOp::kIsNotDistinctFrom:
            return Compare(*this, s.binary_op, std::move(a), std::move(b));
          case BinaryOp::kRegexMatch:
          case BinaryOp::kRegexMatchIgnoreCase:
          case BinaryOp::kRegexNoMatch:
          case BinaryOp::kRegexNoMatchIgnoreCase: {
            // PostgreSQL's regular expressions (engine/pg_regex.h).
            const bool ignore_case = s.binary_op == BinaryOp::kRegexMatchIgnoreCase ||
                                     s.binary_op == BinaryOp::kRegexNoMatchIgnoreCase;
            const bool negate = s.binary_op == BinaryOp::kRegexNoMatch ||
                                s.binary_op == BinaryOp::kRegexNoMatchIgnoreCase;
            HOP_ASSIGN_OR_RETURN(a, ToText(std::move(a)));
            HOP_ASSIGN_OR_RETURN(b, ToText(std::move(b)));
            ExprPtr match = Call(fn::kPgRegex, Args(std::move(a.expr), std::move(b.expr),
                                                   IntLit(ignore_case ? 1 : 0)));
            if (negate) match = Not(std::move(match));
            return Low{std::move(match), BooleanRep()};
          }
          case BinaryOp::kConcat: {
            const Rep rep = RepOf(s.type);
            if (rep.kind == RepKind::kJson) {
              return Low{Call(fn::kArrayConcat, Args(std::move(a.expr), std::move(b.expr))),
                         Unify({a.rep, b.rep}, s.type)};
            }
            if (rep.kind == RepKind::kBinary) {
              return Low{Call(fn::kBlobConcat, Args(std::move(a.expr), std::move(b.expr))), rep};
            }
            HOP_ASSIGN_OR_RETURN(a, ToText(std::move(a)));
            HOP_ASSIGN_OR_RETURN(b, ToText(std::move(b)));
            // A CHAR operand brings no padding (PostgreSQL's bpchar becomes text), so neither
            // does the result, which Calcite types CHAR: it is held and shown as a VARCHAR.
            Rep result = rep;
            if (IsChar(result)) result.type.name = TypeName::kVarchar;
            return Low{Bin(BinaryOp::kConcat, std::move(a.expr), std::move(b.expr)), result};
          }
          default: return Arithmetic(*this, s.binary_op, std::move(a), std::move(b), s.type);
        }
      }
      case ScalarKind::kIs: {
        HOP_ASSIGN_OR_RETURN(Low v, Convert(*s.args[0], cols));
        auto is = std::make_unique<sql::IsExpr>();
        is->operand = std::move(v.expr);
        is->negated = s.negated;
        is->test = s.is_test == sql::IsTest::kUnknown ? sql::IsTest::kNull : s.is_test;
        return Low{std::move(is), BooleanRep()};
      }
      case ScalarKind::kBetween: {
        HOP_ASSIGN_OR_RETURN(std::vector<Low> v, ConvertArgs(*this, s, cols));
        UnpadCharOperands({&v[0], &v[1], &v[2]});
        HOP_ASSIGN_OR_RETURN(Rep c, Common(v[0].rep, v[1].rep));
        HOP_ASSIGN_OR_RETURN(c, Common(c, v[2].rep));
        // `operand BETWEEN low AND high`, each coerced to the common rep.
        auto between = [this, &c](Low operand, Low low,
                                  Low high) -> Result<std::unique_ptr<sql::BetweenExpr>> {
          auto b = std::make_unique<sql::BetweenExpr>();
          HOP_ASSIGN_OR_RETURN(Low x, Coerce(std::move(operand), c));
          HOP_ASSIGN_OR_RETURN(Low lo, Coerce(std::move(low), c));
          HOP_ASSIGN_OR_RETURN(Low hi, Coerce(std::move(high), c));
          b->operand = std::move(x.expr);
          b->low = std::move(lo.expr);
          b->high = std::move(hi.expr);
          return b;
        };
        HOP_ASSIGN_OR_RETURN(std::unique_ptr<sql::BetweenExpr> b,
                             between(std::move(v[0]), std::move(v[1]), std::move(v[2])));
        if (!s.symmetric) {
          b->negated = s.negated;
          return Low{std::move(b), BooleanRep()};
        }
        // SYMMETRIC, which SQLite lacks, as the standard defines it: `x BETWEEN a AND b OR x
        // BETWEEN b AND a` (not `x BETWEEN MIN(a, b) AND MAX(a, b)`, which PostgreSQL's LEAST and
        // GREATEST would answer otherwise for a NULL bound). The second BETWEEN converts the
        // arguments again.
        HOP_ASSIGN_OR_RETURN(std::vector<Low> w, ConvertArgs(*this, s, cols));
        HOP_ASSIGN_OR_RETURN(std::unique_ptr<sql::BetweenExpr> swapped,
                             between(std::move(w[0]), std::move(w[2]), std::move(w[1])));
        ExprPtr either = Bin(BinaryOp::kOr, std::move(b), std::move(swapped));
        if (s.negated) either = Not(std::move(either));
        return Low{std::move(either), BooleanRep()};
      }
      case ScalarKind::kInList: {
        HOP_ASSIGN_OR_RETURN(std::vector<Low> v, ConvertArgs(*this, s, cols));
        std::vector<Low*> operands;
        for (Low& x : v) operands.push_back(&x);
        UnpadCharOperands(operands);
        Rep c = v[0].rep;
        for (size_t i = 1; i < v.size(); ++i) {
          HOP_ASSIGN_OR_RETURN(c, Common(c, v[i].rep));
        }
        auto in = std::make_unique<sql::InListExpr>();
        in->negated = s.negated;
        for (size_t i = 0; i < v.size(); ++i) {
          HOP_ASSIGN_OR_RETURN(Low x, Coerce(std::move(v[i]), c));
          if (i == 0) {
            in->operand = std::move(x.expr);
          } else {
            in->list.push_back(std::move(x.expr));
          }
        }
        return Low{std::move(in), BooleanRep()};
      }
      case ScalarKind::kLike: {
        HOP_ASSIGN_OR_RETURN(std::vector<Low> v, ConvertArgs(*this, s, cols));
        // PostgreSQL matches a bpchar with its padding (c LIKE 'ab' is false for 'ab   '): a
        // CHAR(n) operand is padded as CAST pads it.
        if (IsChar(v[0].rep) && v[0].rep.type.precision && !StringLiteral(v[0].expr)) {
          const Rep rep = v[0].rep;
          v[0].expr = Call(fn::kCast, Args(std::move(v[0].expr), Code(rep), Code(rep), StrLit("")));
        }
        std::vector<ExprPtr> args;
        for (auto& x : v) {
          HOP_ASSIGN_OR_RETURN(Low t, ToText(std::move(x)));
          args.push_back(std::move(t.expr));
        }
        ExprPtr like = Call(fn::kLike, std::move(args));
        return Low{s.negated ? Not(std::move(like)) : std::move(like), BooleanRep()};
      }
      case ScalarKind::kCase: {
        auto c = std::make_unique<sql::CaseExpr>();
        const size_t pairs = (s.args.size() - (s.has_else ? 1 : 0)) / 2;
        std::vector<Low> results;
        std::vector<Rep> reps;
        for (size_t i = 0; i < pairs; ++i) {
          HOP_ASSIGN_OR_RETURN(Low cond, Convert(*s.args[2 * i], cols));
          c->whens.push_back({std::move(cond.expr), nullptr});
          HOP_ASSIGN_OR_RETURN(Low r, Convert(*s.args[2 * i + 1], cols));
          reps.push_back(r.rep);
          results.push_back(std::move(r));
        }
        if (s.has_else) {
          HOP_ASSIGN_OR_RETURN(Low r, Convert(*s.args.back(), cols));
          reps.push_back(r.rep);
          results.push_back(std::move(r));
        }
        const Rep rep = Unify(reps, s.type);
        for (size_t i = 0; i < results.size(); ++i) {
          HOP_ASSIGN_OR_RETURN(Low r, Coerce(std::move(results[i]), rep));
          if (i < pairs) {
            c->whens[i].result = std::move(r.expr);
          } else {
            c->else_result = std::move(r.expr);
          }
        }
        return Low{std::move(c), rep};
      }
      case ScalarKind::kCast: {
        HOP_ASSIGN_OR_RETURN(Low v, Convert(*s.args[0], cols));
        return Cast(std::move(v), RepOf(s.type), s.negated, label);
      }
      case ScalarKind::kCall: return ConvertCall(*this, s, cols);
      case ScalarKind::kExtract: {
        HOP_ASSIGN_OR_RETURN(Low v, Convert(*s.args[0], cols));
        const Rep from = v.rep;
        return Low{Call(fn::kExtract, Args(StrLit(s.text), std::move(v.expr), Code(from))),
                   RepOf(s.type)};
      }
      case ScalarKind::kJsonObject: {
        HOP_ASSIGN_OR_RETURN(std::vector<Low> v, ConvertArgs(*this, s, cols));
        std::vector<ExprPtr> args;
        HOP_ASSIGN_OR_RETURN(std::string codes, TypeCodes(v, 1, 2));
        args.push_back(StrLit(codes));
        args.push_back(IntLit(s.absent_on_null ? 1 : 0));
        for (size_t i = 0; i < v.size(); ++i) {
          if (i % 2 == 0) {
            HOP_ASSIGN_OR_RETURN(v[i], ToText(std::move(v[i])));
          }
          args.push_back(std::move(v[i].expr));
        }
        return Low{Call(fn::kJsonObject, std::move(args)), RepOf(s.type)};
      }
      case ScalarKind::kArray:
      case ScalarKind::kMap:
      case ScalarKind::kRow: {
        HOP_ASSIGN_OR_RETURN(std::vector<Low> v, ConvertArgs(*this, s, cols));
        Rep rep = RepOf(s.type);
        std::vector<ExprPtr> args;
        if (s.kind == ScalarKind::kArray) {
          std::vector<Rep> parts;
          for (const auto& x : v) parts.push_back(x.rep);
          const Rep element = Unify(parts, s.type.params[0]);
          for (auto& x : v) {
            HOP_ASSIGN_OR_RETURN(x, Coerce(std::move(x), element));
          }
          rep.type.params[0] = element.type;
          args.push_back(Code(element));
          for (auto& x : v) args.push_back(std::move(x.expr));
          return Low{Call(fn::kArray, std::move(args)), rep};
        }
        if (s.kind == ScalarKind::kMap) {
          std::vector<Rep> keys, values;
          for (size_t i = 0; i < v.size(); ++i) (i % 2 == 0 ? keys : values).push_back(v[i].rep);
          const Rep key = Unify(keys, s.type.params[0]);
          const Rep value = Unify(values, s.type.params[1]);
          for (size_t i = 0; i < v.size(); ++i) {
            HOP_ASSIGN_OR_RETURN(v[i], Coerce(std::move(v[i]), i % 2 == 0 ? key : value));
          }
          rep.type.params = {key.type, value.type};
          args.push_back(StrLit(TypeCode(key) + ";" + TypeCode(value)));
          for (auto& x : v) args.push_back(std::move(x.expr));
          return Low{Call(fn::kMap, std::move(args)), rep};
        }
        HOP_ASSIGN_OR_RETURN(std::string codes, TypeCodes(v, 0, 1));
        for (size_t i = 0; i < v.size() && i < rep.type.fields.size(); ++i) {
          rep.type.fields[i].type = v[i].rep.type;
        }
        args.push_back(StrLit(codes));
        for (auto& x : v) args.push_back(std::move(x.expr));
        return Low{Call(fn::kRow, std::move(args)), rep};
      }
      case ScalarKind::kItem: {
        HOP_ASSIGN_OR_RETURN(Low base, Convert(*s.args[0], cols));
        HOP_ASSIGN_OR_RETURN(Low index, Convert(*s.args[1], cols));
        const TypeName n = base.rep.type.name;
        if (n == TypeName::kArray) {
          const Rep element = ElementRep(base.rep, 0);
          HOP_ASSIGN_OR_RETURN(index, AsInteger(*this, std::move(index)));
          return Low{
              Call(fn::kItem, Args(std::move(base.expr), std::move(index.expr), Code(element))),
              element};
        }
        if (n == TypeName::kMap) {
          const Rep key = ElementRep(base.rep, 0), value = ElementRep(base.rep, 1);
          HOP_ASSIGN_OR_RETURN(index, Coerce(std::move(index), key));
          return Low{Call(fn::kMapGet, Args(std::move(base.expr), std::move(index.expr), Code(key),
                                            Code(value))),
                     value};
        }
        if (n == TypeName::kRow) {
          const auto& fields = base.rep.type.fields;
          for (size_t i = 0; i < fields.size(); ++i) {
            if (fields[i].name.name == s.args[1]->text) {
              const Rep field = ElementRep(base.rep, i);
              return Low{Call(fn::kField, Args(std::move(base.expr),
                                               IntLit(static_cast<int64_t>(i)), Code(field))),
                         field};
            }
          }
        }
        return Refuse("this subscript");
      }
      case ScalarKind::kField: {
        HOP_ASSIGN_OR_RETURN(Low base, Convert(*s.args[0], cols));
        const Rep field = ElementRep(base.rep, static_cast<size_t>(s.index));
        return Low{Call(fn::kField, Args(std::move(base.expr), IntLit(s.index), Code(field))),
                   field};
      }
      case ScalarKind::kSubquery:
      case ScalarKind::kExists:
      case ScalarKind::kInSubquery: return ConvertSubquery(*this, s, cols);
      case ScalarKind::kQuantified: return ConvertQuantified(*this, s, cols);
    }
    return Status::Internal("unknown expression kind");
  }();
  --depth_;
  return out;
}

// ---- scalar functions ------------------------------------------------------------------------

Result<Low> ConvertCall(Lowerer& l, const Scalar& s, const Cols& cols) {
  if (s.window) return ConvertWindow(l, s, cols);
  const std::string& name = s.text;
  if (s.function && s.function->kind != binder::FunctionKind::kScalar) {
    return Status::Internal(fmt::format("aggregate {} outside an aggregation", name));
  }
  HOP_ASSIGN_OR_RETURN(std::vector<Low> args, ConvertArgs(l, s, cols));
  const Rep rep = RepOf(s.type);
  const size_t n = args.size();
  auto text_args = [&]() -> Status {
    for (auto& a : args) {
      if (a.rep.kind == RepKind::kText || a.rep.kind == RepKind::kNull) continue;
      if (a.rep.kind == RepKind::kInteger || a.rep.kind == RepKind::kDecimal ||
          a.rep.kind == RepKind::kDouble || a.rep.kind == RepKind::kBoolean || a.rep.temporal() ||
          a.rep.kind == RepKind::kBinary || a.rep.kind == RepKind::kJson) {
        HOP_ASSIGN_OR_RETURN(a, l.ToText(std::move(a)));
      }
    }
    return Status::OK();
  };
  auto hop = [&](std::string_view f, Rep r) -> Result<Low> { return Low{Call(f, Exprs(args)), r}; };
  auto integer_arg = [&](size_t i) -> Status {
    if (i < args.size()) {
      HOP_ASSIGN_OR_RETURN(args[i], AsInteger(l, std::move(args[i])));
    }
    return Status::OK();
  };
  // Strings.
  if (name == "UPPER" || name == "LOWER" || name == "INITCAP" || name == "REVERSE" ||
      name == "ASCII" || name == "SPACE" || name == "TO_BASE64" || name == "FROM_BASE64") {
    if (name != "SPACE") HOP_RETURN_IF_ERROR(text_args());
    if (name == "SPACE") HOP_RETURN_IF_ERROR(integer_arg(0));
    static const std::pair<std::string_view, std::string_view> kNames[] = {
        {"UPPER", fn::kUpper},        {"LOWER", fn::kLower},           {"INITCAP", fn::kInitcap},
        {"REVERSE", fn::kReverse},    {"ASCII", fn::kAscii},           {"SPACE", fn::kSpace},
        {"TO_BASE64", fn::kToBase64}, {"FROM_BASE64", fn::kFromBase64}};
    for (const auto& [k, f] : kNames) {
      if (k == name) return hop(f, rep);
    }
  }
  if (name == "LTRIM" || name == "RTRIM" || name == "TRIM") {
    HOP_RETURN_IF_ERROR(text_args());
    return hop(name, rep);
  }
  if (name == "CHAR_LENGTH" || name == "CHARACTER_LENGTH" || name == "LENGTH") {
    HOP_RETURN_IF_ERROR(text_args());
    return hop("LENGTH", rep);
  }
  if (name == "OCTET_LENGTH") {
    if (args[0].rep.kind == RepKind::kBinary) return hop("LENGTH", rep);
    HOP_RETURN_IF_ERROR(text_args());
    return Low{Call("LENGTH", Args(StorageCast(std::move(args[0].expr), TypeName::kBytes))), rep};
  }
  if (name == "SUBSTRING" || name == "SUBSTR" || name == "LEFT" || name == "RIGHT" ||
      name == "REPEAT" || name == "LPAD" || name == "RPAD" || name == "OVERLAY") {
    HOP_RETURN_IF_ERROR(text_args());
    for (size_t i = 1; i < n; ++i) {
      const bool integer = name == "LPAD" || name == "RPAD" ? i == 1
                           : name == "OVERLAY"              ? i >= 2
                                                            : true;
      if (integer) HOP_RETURN_IF_ERROR(integer_arg(i));
    }
    static const std::pair<std::string_view, std::string_view> kNames[] = {
        {"SUBSTRING", fn::kSubstring}, {"OVERLAY", fn::kOverlay}, {"SUBSTR", fn::kSubstr},
        {"LEFT", fn::kLeft},           {"RIGHT", fn::kRight},     {"REPEAT", fn::kRepeat},
        {"LPAD", fn::kLpad},           {"RPAD", fn::kRpad}};
    for (const auto& [k, f] : kNames) {
      if (k == name) return hop(f, rep);
    }
  }
  if (name == "REPLACE") {
    HOP_RETURN_IF_ERROR(text_args());
    return hop("REPLACE", rep);
  }
  if (name == "TRANSLATE") {
    HOP_RETURN_IF_ERROR(text_args());
    return hop(fn::kTranslate, rep);
  }
  if (name == "CONCAT") {
    // MySQL's CONCAT: NULL when any argument is.
    HOP_RETURN_IF_ERROR(text_args());
    ExprPtr out = std::move(args[0].expr);
    for (size_t i = 1; i < n; ++i)
      out = Bin(BinaryOp::kConcat, std::move(out), std::move(args[i].expr));
    return Low{std::move(out), rep};
  }
  if (name == "CONCAT_WS") {
    HOP_RETURN_IF_ERROR(text_args());
    return hop(fn::kConcatWs, rep);
  }
  if (name == "REGEXP_REPLACE" || name == "REGEXP_EXTRACT" || name == "REGEXP_SUBSTR" ||
      name == "REGEXP_CONTAINS" || name == "REGEXP_LIKE" || name == "SPLIT_INDEX" ||
      name == "SPLIT") {
    for (size_t i = 0; i < n; ++i) {
      const bool integer = (name == "REGEXP_REPLACE" && (i == 3 || i == 4)) ||
                           (name == "REGEXP_EXTRACT" && i == 2) ||
                           (name == "REGEXP_SUBSTR" && i >= 2) || (name == "SPLIT_INDEX" && i == 2);
      if (integer) {
        HOP_RETURN_IF_ERROR(integer_arg(i));
      } else {
        HOP_ASSIGN_OR_RETURN(args[i], l.ToText(std::move(args[i])));
      }
    }
    static const std::pair<std::string_view, std::string_view> kNames[] = {
        {"REGEXP_REPLACE", fn::kRegexpReplace},
        {"REGEXP_EXTRACT", fn::kRegexpExtract},
        {"REGEXP_SUBSTR", fn::kRegexpSubstr},
        {"REGEXP_CONTAINS", fn::kRegexpContains},
        {"REGEXP_LIKE", fn::kRegexpLike},
        {"SPLIT_INDEX", fn::kSplitIndex},
        {"SPLIT", fn::kSplit}};
    for (const auto& [k, f] : kNames) {
      if (k == name) return hop(f, rep);
    }
  }
  if (name == "POSITION" || name == "LOCATE" || name == "INSTR" || name == "STRPOS") {
    for (size_t i = 0; i < n; ++i) {
      if (i == 2) {
        HOP_RETURN_IF_ERROR(integer_arg(i));
      } else {
        HOP_ASSIGN_OR_RETURN(args[i], l.ToText(std::move(args[i])));
      }
    }
    if (name == "INSTR" || name == "STRPOS") {
      // (string, substring) in both; LOCATE takes (substring, string).
      std::swap(args[0], args[1]);
    }
    return hop(fn::kLocate, rep);
  }
  if (name == "MD5" || name == "SHA1" || name == "SHA256") {
    if (args[0].rep.kind != RepKind::kBinary) HOP_RETURN_IF_ERROR(text_args());
    return Low{Call(fn::kDigest, Args(StrLit(AsciiToLower(name)), std::move(args[0].expr))), rep};
  }
  if (name == "CHR") {
    HOP_RETURN_IF_ERROR(integer_arg(0));
    return hop("CHAR", rep);
  }
  if (name == "HEX") {
    const Rep from = args[0].rep;
    return Low{Call(fn::kHex, Args(std::move(args[0].expr), Code(from))), rep};
  }
  // Numbers.
  if (name == "ABS") {
    if (args[0].rep.kind == RepKind::kText) {
      HOP_ASSIGN_OR_RETURN(args[0], l.Cast(std::move(args[0]), rep, false, l.label));
    }
    const Rep r = args[0].rep;
    return hop("ABS", r);
  }
  if (name == "CEIL" || name == "CEILING" || name == "FLOOR") {
    const bool ceil = name != "FLOOR";
    if (args[0].rep.kind == RepKind::kText) {
      HOP_ASSIGN_OR_RETURN(args[0], AsDouble(l, std::move(args[0])));
    }
    const Rep r = args[0].rep;
    if (r.kind == RepKind::kInteger) return std::move(args[0]);
    if (r.kind == RepKind::kDecimal) {
      return Low{
          Call(ceil ? fn::kCeil : fn::kFloor, Args(std::move(args[0].expr), IntLit(r.scale))),
          WithScale(r, 0)};
    }
    return hop(ceil ? "CEIL" : "FLOOR", DoubleRep());
  }
  if (name == "SIGN") {
    if (args[0].rep.kind == RepKind::kText) {
      HOP_ASSIGN_OR_RETURN(args[0], AsDouble(l, std::move(args[0])));
    }
    const Rep r = args[0].rep;
    HOP_ASSIGN_OR_RETURN(Low again, l.Convert(*s.args[0], cols));
    if (again.rep.kind == RepKind::kText) {
      HOP_ASSIGN_OR_RETURN(again, AsDouble(l, std::move(again)));
    }
    ExprPtr sign = Bin(BinaryOp::kSubtract, Bin(BinaryOp::kGt, std::move(args[0].expr), IntLit(0)),
                       Bin(BinaryOp::kLt, std::move(again.expr), IntLit(0)));
    if (r.kind == RepKind::kDecimal) {
      sign = Bin(BinaryOp::kMultiply, std::move(sign), IntLit(Pow10(r.scale)));
    } else if (r.kind == RepKind::kDouble) {
      sign = StorageCast(std::move(sign), TypeName::kDouble);
    }
    return Low{std::move(sign), r};
  }
  if (name == "ROUND" || name == "TRUNCATE") {
    if (args[0].rep.kind == RepKind::kText) {
      HOP_ASSIGN_OR_RETURN(args[0], AsDouble(l, std::move(args[0])));
    }
    const Rep r = args[0].rep;
    int64_t digits = 0;
    const bool literal_digits = n < 2 || IsIntegerLiteral(*s.args[1], &digits);
    if (n > 1) {
      HOP_RETURN_IF_ERROR(integer_arg(1));
    } else {
      args.push_back({IntLit(0), BigIntRep()});
    }
    Rep out = r;
    if (r.kind == RepKind::kDecimal) {
      // ROUND(1.2345, 2) is 1.23: the digits kept, as Calcite shows them.
      if (literal_digits)
        out = WithScale(r, static_cast<int>(std::clamp<int64_t>(digits, 0, r.scale)));
    } else if (r.kind == RepKind::kInteger && literal_digits && digits >= 0) {
      return std::move(args[0]);
    }
    std::vector<ExprPtr> call;
    call.push_back(std::move(args[0].expr));
    call.push_back(std::move(args[1].expr));
    call.push_back(Code(r));
    call.push_back(IntLit(out.scale));
    return Low{Call(name == "ROUND" ? fn::kRound : fn::kTruncate, std::move(call)), out};
  }
  if (name == "MOD") {
    return Arithmetic(l, BinaryOp::kModulo, std::move(args[0]), std::move(args[1]), s.type);
  }
  if (name == "SQRT" || name == "EXP" || name == "LN" || name == "LOG10" || name == "LOG2" ||
      name == "SIN" || name == "COS" || name == "TAN" || name == "ASIN" || name == "ACOS" ||
      name == "ATAN" || name == "COT" || name == "DEGREES" || name == "RADIANS" || name == "CBRT" ||
      name == "LOG" || name == "POWER" || name == "POW" || name == "ATAN2") {
    std::vector<ExprPtr> call;
    call.push_back(StrLit(AsciiToLower(name == "POW" ? std::string("POWER") : name)));
    for (auto& a : args) {
      HOP_ASSIGN_OR_RETURN(Low d, AsDouble(l, std::move(a)));
      call.push_back(std::move(d.expr));
    }
    return Low{Call(fn::kMath, std::move(call)), rep};
  }
  if (name == "RAND") {
    HOP_RETURN_IF_ERROR(integer_arg(0));
    return hop(fn::kRand, rep);
  }
  if (name == "RAND_INTEGER") {
    HOP_RETURN_IF_ERROR(integer_arg(0));
    HOP_RETURN_IF_ERROR(integer_arg(1));
    return hop(fn::kRandInteger, rep);
  }
  if (name == "PI") return Low{RealLit(M_PI), rep};
  // Conditionals.
  if (name == "COALESCE" || name == "IFNULL" || name == "NVL" || name == "GREATEST" ||
      name == "LEAST") {
    std::vector<Rep> reps;
    for (const auto& a : args) reps.push_back(a.rep);
    Rep r = l.Unify(reps, s.type);
    if (r.kind == RepKind::kNull) {
      for (const auto& a : args) {
        HOP_ASSIGN_OR_RETURN(r, l.Common(r, a.rep));
      }
    }
    for (auto& a : args) {
      HOP_ASSIGN_OR_RETURN(a, l.Coerce(std::move(a), r));
    }
    if (n == 1) return std::move(args[0]);
    const bool coalesce = name != "GREATEST" && name != "LEAST";
    return hop(coalesce ? "COALESCE" : name == "GREATEST" ? "MAX" : "MIN", r);
  }
  if (name == "NULLIF") {
    HOP_ASSIGN_OR_RETURN(Low again, l.Convert(*s.args[0], cols));
    const Rep r = args[0].rep;
    HOP_ASSIGN_OR_RETURN(Low eq, Compare(l, BinaryOp::kEq, std::move(args[0]), std::move(args[1])));
    auto c = std::make_unique<sql::CaseExpr>();
    c->whens.push_back({std::move(eq.expr), NullLit()});
    c->else_result = std::move(again.expr);
    return Low{std::move(c), r};
  }
  if (name == "IF") {
    const Rep r = l.Unify({args[1].rep, args[2].rep}, s.type);
    HOP_ASSIGN_OR_RETURN(Low a, l.Coerce(std::move(args[1]), r));
    HOP_ASSIGN_OR_RETURN(Low b, l.Coerce(std::move(args[2]), r));
    auto c = std::make_unique<sql::CaseExpr>();
    c->whens.push_back({std::move(args[0].expr), std::move(a.expr)});
    c->else_result = std::move(b.expr);
    return Low{std::move(c), r};
  }
  // Dates and times: the query's one "now".
  const int64_t now = l.now_micros();
  if (name == "CURRENT_TIMESTAMP" || name == "NOW" || name == "CURRENT_ROW_TIMESTAMP" ||
      name == "LOCALTIMESTAMP") {
    return Low{IntLit(TruncateMicros(now, TimePrecision(s.type))), rep};
  }
  if (name == "CURRENT_DATE") return Low{IntLit(FloorDiv(now, kMicrosPerDay)), rep};
  if (name == "CURRENT_TIME" || name == "LOCALTIME") {
    return Low{IntLit(TruncateMicros(FloorMod(now, kMicrosPerDay), TimePrecision(s.type))), rep};
  }
  if (name == "DATE_FORMAT") {
    const Rep from = args[0].rep;
    HOP_ASSIGN_OR_RETURN(args[1], l.ToText(std::move(args[1])));
    return Low{
        Call(fn::kDateFormat, Args(std::move(args[0].expr), std::move(args[1].expr), Code(from))),
        rep};
  }
  if (name == "TO_TIMESTAMP" || name == "TO_DATE") {
    HOP_RETURN_IF_ERROR(text_args());
    ExprPtr format = n > 1 ? std::move(args[1].expr) : NullLit();
    return Low{
        Call(fn::kParseDateTime, Args(std::move(args[0].expr), std::move(format), Code(rep))), rep};
  }
  if (name == "TO_TIMESTAMP_LTZ") {
    int64_t precision = 3;
    if (n > 1 && !IsIntegerLiteral(*s.args[1], &precision)) {
      return Refuse("TO_TIMESTAMP_LTZ with a precision that is not a number");
    }
    if (precision != 0 && precision != 3) {
      return Status::InvalidArgument(
          "TO_TIMESTAMP_LTZ takes precision 0 (seconds) or 3 (milliseconds)");
    }
    const int64_t factor = precision == 0 ? kMicrosPerSecond : 1000;
    HOP_ASSIGN_OR_RETURN(Low v, AsDouble(l, std::move(args[0])));
    return Low{
        StorageCast(Bin(BinaryOp::kMultiply, std::move(v.expr), IntLit(factor)), TypeName::kBigInt),
        rep};
  }
  if (name == "UNIX_TIMESTAMP") {
    if (n == 0) return Low{IntLit(FloorDiv(now, kMicrosPerSecond)), rep};
    HOP_RETURN_IF_ERROR(text_args());
    return hop(fn::kUnixTimestamp, rep);
  }
  if (name == "FROM_UNIXTIME") {
    HOP_RETURN_IF_ERROR(integer_arg(0));
    if (n > 1) {
      HOP_ASSIGN_OR_RETURN(args[1], l.ToText(std::move(args[1])));
    }
    return hop(fn::kFromUnixtime, rep);
  }
  if (name == "DATE_ADD" || name == "DATE_SUB" || name == "DATEDIFF") {
    const Rep date = RepOf(DataType(TypeName::kDate));
    HOP_ASSIGN_OR_RETURN(Low a, l.Cast(std::move(args[0]), date, false, l.label));
    if (name == "DATEDIFF") {
      HOP_ASSIGN_OR_RETURN(Low b, l.Cast(std::move(args[1]), date, false, l.label));
      return Low{Bin(BinaryOp::kSubtract, std::move(a.expr), std::move(b.expr)), rep};
    }
    HOP_ASSIGN_OR_RETURN(Low days, AsInteger(l, std::move(args[1])));
    return Low{Bin(name == "DATE_ADD" ? BinaryOp::kAdd : BinaryOp::kSubtract, std::move(a.expr),
                   std::move(days.expr)),
               rep};
  }
  if (name == "YEAR" || name == "QUARTER" || name == "MONTH" || name == "WEEK" ||
      name == "DAYOFYEAR" || name == "DAYOFMONTH" || name == "DAYOFWEEK" || name == "HOUR" ||
      name == "MINUTE" || name == "SECOND") {
    const std::string unit = name == "DAYOFYEAR"    ? "DOY"
                             : name == "DAYOFMONTH" ? "DAY"
                             : name == "DAYOFWEEK"  ? "DOW"
                                                    : name;
    if (args[0].rep.kind == RepKind::kText) {
      HOP_ASSIGN_OR_RETURN(args[0], l.Cast(std::move(args[0]),
                                           RepOf(DataType(TypeName::kTimestamp)), false, l.label));
    }
    const Rep from = args[0].rep;
    return Low{Call(fn::kExtract, Args(StrLit(unit), std::move(args[0].expr), Code(from))), rep};
  }
  // JSON.
  if (name == "JSON_VALUE" || name == "JSON_QUERY" || name == "JSON_EXISTS") {
    HOP_RETURN_IF_ERROR(text_args());
    return hop(name == "JSON_VALUE"   ? fn::kJsonValue
               : name == "JSON_QUERY" ? fn::kJsonQuery
                                      : fn::kJsonExists,
               rep);
  }
  if (name == "JSON_ARRAY") {
    HOP_ASSIGN_OR_RETURN(std::string codes, TypeCodes(args, 0, 1));
    std::vector<ExprPtr> call;
    call.push_back(StrLit(codes));
    for (auto& a : args) call.push_back(std::move(a.expr));
    return Low{Call(fn::kJsonArray, std::move(call)), rep};
  }
  if (name == "JSON_STRING") {
    const Rep from = args[0].rep;
    return Low{Call(fn::kJsonString, Args(std::move(args[0].expr), Code(from))), rep};
  }
  // Collections.
  if (name == "CARDINALITY" || name == "ARRAY_LENGTH") return hop("JSON_ARRAY_LENGTH", rep);
  if (name == "ELEMENT") {
    const Rep element = ElementRep(args[0].rep, 0);
    return Low{Call(fn::kElement, Args(std::move(args[0].expr), Code(element))), element};
  }
  if (name == "ARRAY_CONTAINS") {
    const Rep element = ElementRep(args[0].rep, 0);
    HOP_ASSIGN_OR_RETURN(Low x, l.Coerce(std::move(args[1]), element));
    return Low{
        Call(fn::kArrayContains, Args(std::move(args[0].expr), std::move(x.expr), Code(element))),
        rep};
  }
  if (name == "ARRAY_DISTINCT") {
    const Rep r = args[0].rep;
    return hop(fn::kArrayDistinct, r);
  }
  if (name == "ARRAY_CONCAT") {
    std::vector<Rep> reps;
    for (const auto& a : args) reps.push_back(a.rep);
    return hop(fn::kArrayConcat, l.Unify(reps, s.type));
  }
  if (name == "FORMAT_TYPE") {
    HOP_RETURN_IF_ERROR(integer_arg(0));
    HOP_RETURN_IF_ERROR(integer_arg(1));
    return hop(fn::kPgFormatType, rep);
  }
  if (name == "TO_REGTYPE") {
    HOP_RETURN_IF_ERROR(text_args());
    return hop(fn::kPgToRegtype, rep);
  }
  if (name == "GENERATE_SERIES") {
    // Made by the binder for generate_series in FROM (start, stop, step), never called by name.
    for (size_t i = 0; i < n; ++i) HOP_RETURN_IF_ERROR(integer_arg(i));
    return hop(fn::kPgSeries, rep);
  }
  if (name == "ARRAY_UPPER") {
    // PostgreSQL's upper bound of dimension 1 (hop's arrays have one): NULL when empty.
    HOP_RETURN_IF_ERROR(integer_arg(1));
    ExprPtr length = Call("JSON_ARRAY_LENGTH", Args(std::move(args[0].expr)));
    ExprPtr first = Bin(BinaryOp::kEq, std::move(args[1].expr), IntLit(1));
    return Low{Call("IIF", Args(std::move(first),
                                Call("NULLIF", Args(std::move(length), IntLit(0))), NullLit())),
               rep};
  }
  if (name == "PG_GET_EXPR") {
    // hop keeps expressions (defaults, partition bounds) as SQL text already.
    HOP_ASSIGN_OR_RETURN(Low text, l.ToText(std::move(args[0])));
    return Low{std::move(text.expr), rep};
  }
  if (name == "ARRAY_JOIN" || name == "ARRAY_TO_STRING") {
    const Rep element = ElementRep(args[0].rep, 0);
    HOP_ASSIGN_OR_RETURN(args[1], l.ToText(std::move(args[1])));
    ExprPtr null_text = NullLit();
    if (n > 2) {
      HOP_ASSIGN_OR_RETURN(Low t, l.ToText(std::move(args[2])));
      null_text = std::move(t.expr);
    }
    return Low{Call(fn::kArrayJoin, Args(std::move(args[0].expr), std::move(args[1].expr),
                                         std::move(null_text), Code(element))),
               rep};
  }
  if (name == "MAP_KEYS" || name == "MAP_VALUES") {
    return hop(name == "MAP_KEYS" ? fn::kMapKeys : fn::kMapValues, rep);
  }
  return Refuse(fmt::format("the function {}", name));
}

// ---- aggregates ------------------------------------------------------------------------------

Result<Low> Lowerer::ConvertAggregate(const binder::AggregateCall& call, const Cols& input) {
  const std::string& name = call.name.empty() ? std::string(call.function->name) : call.name;
  const std::string upper = Utf8ToUpper(name);
  std::vector<Low> args;
  for (int a : call.args) {
    HOP_ASSIGN_OR_RETURN(ExprPtr e, input[a].make());
    args.push_back({std::move(e), input[a].rep});
  }
  const Cols none;
  std::vector<Low> literals;
  for (const auto& lit : call.literal_args) {
    HOP_ASSIGN_OR_RETURN(Low v, Convert(*lit, none));
    literals.push_back(std::move(v));
  }
  const Rep rep = RepOf(call.type);
  auto filter = [&]() -> Result<ExprPtr> {
    if (call.filter < 0) return ExprPtr();
    return input[call.filter].make();
  };
  auto agg = [&](std::string_view f, std::vector<ExprPtr> a, bool distinct) -> Result<ExprPtr> {
    auto e = std::make_unique<sql::FunctionExpr>();
    e->name.parts.push_back(Id(std::string(f)));
    e->args = std::move(a);
    if (distinct) e->quantifier = sql::SetQuantifier::kDistinct;
    HOP_ASSIGN_OR_RETURN(e->filter, filter());
    return ExprPtr(std::move(e));
  };
  auto one = [&]() {
    std::vector<ExprPtr> v;
    v.push_back(std::move(args[0].expr));
    return v;
  };
  // The WITHIN GROUP keys, as (key, descending) argument pairs.
  auto keys = [&](std::vector<ExprPtr>& out) -> Status {
    for (const auto& k : call.within_group) {
      HOP_ASSIGN_OR_RETURN(ExprPtr e, input[k.column].make());
      out.push_back(std::move(e));
      int flags = k.direction == sql::SortDirection::kDesc ? 1 : 0;
      const bool nulls_first = k.nulls == sql::NullsOrder::kFirst ||
                               (k.nulls == sql::NullsOrder::kDefault && flags == 1);
      if (nulls_first) flags |= 2;
      out.push_back(IntLit(flags));
    }
    return Status::OK();
  };
  if (upper == "COUNT") {
    if (call.star || args.empty()) {
      auto e = std::make_unique<sql::FunctionExpr>();
      e->name.parts.push_back(Id("COUNT"));
      e->star = true;
      HOP_ASSIGN_OR_RETURN(e->filter, filter());
      return Low{std::move(e), rep};
    }
    if (args.size() == 1) {
      HOP_ASSIGN_OR_RETURN(ExprPtr e, agg("COUNT", one(), call.distinct));
      return Low{std::move(e), rep};
    }
    if (call.distinct) return Refuse("COUNT(DISTINCT ...) of several values");
    // Rows where every value is set.
    auto c = std::make_unique<sql::CaseExpr>();
    ExprPtr all;
    for (auto& a : args) {
      ExprPtr set = IsNull(std::move(a.expr), true);
      all = all ? Bin(BinaryOp::kAnd, std::move(all), std::move(set)) : std::move(set);
    }
    c->whens.push_back({std::move(all), IntLit(1)});
    std::vector<ExprPtr> v;
    v.push_back(std::move(c));
    HOP_ASSIGN_OR_RETURN(ExprPtr e, agg("COUNT", std::move(v), false));
    return Low{std::move(e), rep};
  }
  if (args.empty()) return Refuse(fmt::format("{} without arguments", upper));
  const Rep value = args[0].rep;
  if (upper == "SUM" || upper == "SUM0") {
    if (!value.numeric() && value.kind != RepKind::kNull) {
      HOP_ASSIGN_OR_RETURN(args[0], Cast(std::move(args[0]), rep, false, label));
    }
    const Rep r = args[0].rep;
    HOP_ASSIGN_OR_RETURN(ExprPtr e, agg("SUM", one(), call.distinct));
    if (upper == "SUM0") e = Call("COALESCE", Args(std::move(e), IntLit(0)));
    return Low{std::move(e), r};
  }
  if (upper == "AVG") {
    if (value.kind == RepKind::kDouble || value.kind == RepKind::kText) {
      if (value.kind == RepKind::kText) {
        HOP_ASSIGN_OR_RETURN(args[0], AsDouble(*this, std::move(args[0])));
      }
      HOP_ASSIGN_OR_RETURN(ExprPtr e, agg("AVG", one(), call.distinct));
      return Low{std::move(e), DoubleRep()};
    }
    // SUM / COUNT in the argument's type: integer division for integers (Calcite's AVG of an
    // INTEGER is an INTEGER), a decimal at the argument's scale for decimals.
    HOP_ASSIGN_OR_RETURN(ExprPtr again, input[call.args[0]].make());
    HOP_ASSIGN_OR_RETURN(ExprPtr sum, agg("SUM", one(), call.distinct));
    std::vector<ExprPtr> v;
    v.push_back(std::move(again));
    HOP_ASSIGN_OR_RETURN(ExprPtr count, agg("COUNT", std::move(v), call.distinct));
    if (value.kind == RepKind::kDecimal) {
      return Low{Call(fn::kDecimalDivide, Args(std::move(sum), IntLit(value.scale),
                                               std::move(count), IntLit(0), IntLit(value.scale))),
                 value};
    }
    return Low{Bin(BinaryOp::kDivide, std::move(sum), std::move(count)), value};
  }
  if (upper == "MIN" || upper == "MAX" || upper == "ANY_VALUE" || upper == "BOOL_AND" ||
      upper == "EVERY" || upper == "BOOL_OR") {
    if (value.kind == RepKind::kJson && upper != "ANY_VALUE") {
      return Refuse(fmt::format("{} of ARRAY, MAP or ROW values", upper));
    }
    const bool max = upper == "MAX" || upper == "BOOL_OR";
    HOP_ASSIGN_OR_RETURN(ExprPtr e, agg(max ? "MAX" : "MIN", one(), call.distinct));
    return Low{std::move(e), value};
  }
  if (upper == "LISTAGG" || upper == "STRING_AGG" || upper == "GROUP_CONCAT") {
    HOP_ASSIGN_OR_RETURN(args[0], ToText(std::move(args[0])));
    ExprPtr separator = StrLit(",");
    if (!literals.empty()) {
      HOP_ASSIGN_OR_RETURN(Low sep, ToText(std::move(literals[0])));
      separator = std::move(sep.expr);
    } else if (args.size() > 1) {
      HOP_ASSIGN_OR_RETURN(Low sep, ToText(std::move(args[1])));
      separator = std::move(sep.expr);
    }
    // PostgreSQL's STRING_AGG joins with nothing where the separator is NULL.
    if (upper == "STRING_AGG") separator = Call("COALESCE", Args(std::move(separator), StrLit("")));
    std::vector<ExprPtr> v;
    v.push_back(std::move(args[0].expr));
    v.push_back(std::move(separator));
    if (!call.within_group.empty()) {
      if (call.distinct) return Refuse("LISTAGG(DISTINCT ...) WITHIN GROUP (...)");
      HOP_RETURN_IF_ERROR(keys(v));
      HOP_ASSIGN_OR_RETURN(ExprPtr e, agg(fn::kListaggOrdered, std::move(v), false));
      return Low{std::move(e), rep};
    }
    HOP_ASSIGN_OR_RETURN(
        ExprPtr e, agg(call.distinct ? fn::kListaggDistinct : "GROUP_CONCAT", std::move(v), false));
    return Low{std::move(e), rep};
  }
  if (upper == "ARRAY_AGG" || upper == "COLLECT") {
    if (call.distinct) return Refuse(fmt::format("{}(DISTINCT ...)", upper));
    Rep r = rep;
    if (!r.type.params.empty()) r.type.params[0] = value.type;
    std::vector<ExprPtr> v;
    v.push_back(std::move(args[0].expr));
    v.push_back(Code(value));
    HOP_RETURN_IF_ERROR(keys(v));
    HOP_ASSIGN_OR_RETURN(ExprPtr e, agg(fn::kArrayAgg, std::move(v), false));
    return Low{std::move(e), r};
  }
  if (upper == "STDDEV" || upper == "STDDEV_POP" || upper == "STDDEV_SAMP" || upper == "VARIANCE" ||
      upper == "VAR_POP" || upper == "VAR_SAMP") {
    if (call.distinct) return Refuse(fmt::format("{}(DISTINCT ...)", upper));
    HOP_ASSIGN_OR_RETURN(Low d, AsDouble(*this, std::move(args[0])));
    const std::string kind = upper == "STDDEV"     ? "stddev_samp"
                             : upper == "VARIANCE" ? "var_samp"
                                                   : AsciiToLower(upper);
    std::vector<ExprPtr> v;
    v.push_back(std::move(d.expr));
    v.push_back(StrLit(kind));
    HOP_ASSIGN_OR_RETURN(ExprPtr e, agg(fn::kVariance, std::move(v), false));
    // Calcite's result has the argument's type: an INTEGER's deviation is an INTEGER.
    return Cast({std::move(e), DoubleRep()}, value.kind == RepKind::kNull ? DoubleRep() : value,
                false, label);
  }
  if (upper == "PERCENTILE_CONT" || upper == "PERCENTILE_DISC") {
    if (call.within_group.size() != 1) return Refuse(fmt::format("{} without one key", upper));
    const auto& k = call.within_group[0];
    HOP_ASSIGN_OR_RETURN(ExprPtr key, input[k.column].make());
    Low key_value{std::move(key), input[k.column].rep};
    const Rep key_rep = key_value.rep;
    HOP_ASSIGN_OR_RETURN(Low fraction, AsDouble(*this, std::move(args[0])));
    std::vector<ExprPtr> v;
    v.push_back(std::move(fraction.expr));
    if (upper == "PERCENTILE_CONT") {
      HOP_ASSIGN_OR_RETURN(key_value, AsDouble(*this, std::move(key_value)));
    }
    v.push_back(std::move(key_value.expr));
    v.push_back(IntLit(k.direction == sql::SortDirection::kDesc ? 1 : 0));
    HOP_ASSIGN_OR_RETURN(ExprPtr e,
                         agg(upper == "PERCENTILE_CONT" ? fn::kPercentileCont : fn::kPercentileDisc,
                             std::move(v), false));
    return Low{std::move(e), upper == "PERCENTILE_CONT" ? DoubleRep() : key_rep};
  }
  if (upper == "FIRST_VALUE" || upper == "LAST_VALUE") {
    HOP_ASSIGN_OR_RETURN(ExprPtr e,
                         agg(upper == "FIRST_VALUE" ? fn::kFirst : fn::kLast, one(), false));
    return Low{std::move(e), value};
  }
  return Refuse(fmt::format("the aggregate function {}", upper));
}

}  // namespace hop::engine::internal
