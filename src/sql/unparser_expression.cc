// Printing expressions: operators with the parentheses their precedence needs, and always where
// dialects would group two operator families differently; literals, parameters in each dialect's
// style, function calls (bare names only where they read back as the same call), windows.
#include "common/strings.h"
#include "sql/keywords.h"
#include "sql/unparser_impl.h"

namespace hop::sql::internal {

namespace {

int BinaryPrecedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr: return kPrecOr;
    case BinaryOp::kAnd: return kPrecAnd;
    case BinaryOp::kIsDistinctFrom:
    case BinaryOp::kIsNotDistinctFrom:
    case BinaryOp::kEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe: return kPrecComparison;
    case BinaryOp::kAdd:
    case BinaryOp::kSubtract: return kPrecAdditive;
    case BinaryOp::kConcat:
    case BinaryOp::kMultiply:
    case BinaryOp::kDivide:
    case BinaryOp::kModulo: return kPrecMultiplicative;
    case BinaryOp::kRegexMatch:
    case BinaryOp::kRegexMatchIgnoreCase:
    case BinaryOp::kRegexNoMatch:
    case BinaryOp::kRegexNoMatchIgnoreCase: return kPrecPredicate;
  }
  return kPrecAtom;
}

Family FamilyOf(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kBinary:
      switch (e.As<BinaryExpr>().op) {
        case BinaryOp::kConcat: return Family::kConcat;
        case BinaryOp::kAdd:
        case BinaryOp::kSubtract:
        case BinaryOp::kMultiply:
        case BinaryOp::kDivide:
        case BinaryOp::kModulo: return Family::kArithmetic;
        case BinaryOp::kOr:
        case BinaryOp::kAnd: return Family::kOther;
        case BinaryOp::kRegexMatch:
        case BinaryOp::kRegexMatchIgnoreCase:
        case BinaryOp::kRegexNoMatch:
        case BinaryOp::kRegexNoMatchIgnoreCase: return Family::kPredicate;
        default: return Family::kComparison;
      }
    case ExprKind::kQuantified: return Family::kComparison;
    case ExprKind::kBetween:
    case ExprKind::kInList:
    case ExprKind::kInSubquery:
    case ExprKind::kLike: return Family::kPredicate;
    case ExprKind::kIs: return Family::kIs;
    default: return Family::kOther;
  }
}

bool FamiliesClash(Family parent, Family child) {
  switch (parent) {
    case Family::kConcat: return child == Family::kArithmetic;
    case Family::kArithmetic: return child == Family::kConcat;
    case Family::kComparison:
    case Family::kPredicate:
    case Family::kIs:
      return child == Family::kComparison || child == Family::kPredicate || child == Family::kIs;
    case Family::kOther: return false;
  }
  return false;
}

std::string_view BinaryText(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr: return "OR";
    case BinaryOp::kAnd: return "AND";
    case BinaryOp::kEq: return "=";
    case BinaryOp::kNe: return "<>";
    case BinaryOp::kLt: return "<";
    case BinaryOp::kLe: return "<=";
    case BinaryOp::kGt: return ">";
    case BinaryOp::kGe: return ">=";
    case BinaryOp::kIsDistinctFrom: return "IS DISTINCT FROM";
    case BinaryOp::kIsNotDistinctFrom: return "IS NOT DISTINCT FROM";
    case BinaryOp::kConcat: return "||";
    case BinaryOp::kAdd: return "+";
    case BinaryOp::kSubtract: return "-";
    case BinaryOp::kMultiply: return "*";
    case BinaryOp::kDivide: return "/";
    case BinaryOp::kModulo: return "%";
    case BinaryOp::kRegexMatch: return "~";
    case BinaryOp::kRegexMatchIgnoreCase: return "~*";
    case BinaryOp::kRegexNoMatch: return "!~";
    case BinaryOp::kRegexNoMatchIgnoreCase: return "!~*";
  }
  return "?";
}

int PrecedenceOf(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kUnary: return e.As<UnaryExpr>().op == UnaryOp::kNot ? kPrecNot : kPrecUnary;
    case ExprKind::kBinary: return BinaryPrecedence(e.As<BinaryExpr>().op);
    case ExprKind::kIs: return kPrecIs;
    case ExprKind::kBetween:
    case ExprKind::kInList:
    case ExprKind::kInSubquery:
    case ExprKind::kLike: return kPrecPredicate;
    case ExprKind::kSubscript: return kPrecPostfix;
    case ExprKind::kQuantified: return kPrecComparison;
    default: return kPrecAtom;
  }
}

std::string_view ObjectIdTypeText(ObjectIdType t) {
  switch (t) {
    case ObjectIdType::kNone: return "";
    case ObjectIdType::kRegclass: return "REGCLASS";
    case ObjectIdType::kRegtype: return "REGTYPE";
    case ObjectIdType::kRegnamespace: return "REGNAMESPACE";
    case ObjectIdType::kRegproc: return "REGPROC";
    case ObjectIdType::kRegrole: return "REGROLE";
  }
  return "";
}

std::string_view IntervalUnitText(IntervalUnit u) {
  switch (u) {
    case IntervalUnit::kNone: return "";
    case IntervalUnit::kYear: return "YEAR";
    case IntervalUnit::kQuarter: return "QUARTER";
    case IntervalUnit::kMonth: return "MONTH";
    case IntervalUnit::kWeek: return "WEEK";
    case IntervalUnit::kDay: return "DAY";
    case IntervalUnit::kHour: return "HOUR";
    case IntervalUnit::kMinute: return "MINUTE";
    case IntervalUnit::kSecond: return "SECOND";
  }
  return "";
}

// Whether a function name can be written bare: an upper-case word that reads back as the same
// function call (not a reserved word, not a keyword with a syntax of its own).
bool BareFunctionName(std::string_view name) {
  if (!IsSimpleWord(name)) return false;
  for (char c : name) {
    if (c >= 'a' && c <= 'z') return false;
  }
  Keyword kw = LookupKeyword(name);
  if (kw == Keyword::kNone) return true;
  if (IsReserved(kw)) return false;
  // ANY and SOME after a comparison are `op ANY (array)`, not calls.
  return kw != Keyword::kTRY_CAST && kw != Keyword::kEXTRACT && kw != Keyword::kJSON_OBJECT &&
         kw != Keyword::kANY && kw != Keyword::kSOME;
}

}  // namespace

void Writer::Literal(const LiteralExpr& e) {
  switch (e.literal) {
    case LiteralKind::kNull: Raw("NULL"); return;
    case LiteralKind::kBoolean:
    case LiteralKind::kInteger:
    case LiteralKind::kDecimal:
    case LiteralKind::kFloat: Raw(e.value); return;
    case LiteralKind::kString: String(e.value); return;
    case LiteralKind::kBinary:
      if (postgres()) Unsupported("a binary string literal");  // X'..' is a bit string there
      Raw("X");
      String(e.value);
      return;
    case LiteralKind::kDate:
    case LiteralKind::kTime:
    case LiteralKind::kTimestamp:
      if (sqlite()) Unsupported("a typed literal");
      Raw(e.literal == LiteralKind::kDate   ? "DATE "
          : e.literal == LiteralKind::kTime ? "TIME "
                                            : "TIMESTAMP ");
      String(e.value);
      return;
    case LiteralKind::kInterval:
      if (sqlite()) Unsupported("an INTERVAL literal");
      if (postgres() &&
          (e.from_unit == IntervalUnit::kQuarter || e.from_unit == IntervalUnit::kWeek ||
           e.to_unit == IntervalUnit::kQuarter || e.to_unit == IntervalUnit::kWeek)) {
        Unsupported("an INTERVAL in QUARTER or WEEK units");
      }
      Raw("INTERVAL ");
      String(e.value);
      Raw(" ");
      Raw(IntervalUnitText(e.from_unit));
      if (e.from_precision) out_ += fmt::format("({})", *e.from_precision);
      if (e.to_unit != IntervalUnit::kNone) {
        Raw(" TO ");
        Raw(IntervalUnitText(e.to_unit));
        if (e.to_precision) out_ += fmt::format("({})", *e.to_precision);
      }
      return;
  }
}

void Writer::OrderItems(const std::vector<OrderItem>& items) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) Raw(", ");
    Expr(*items[i].expr);
    if (items[i].direction == SortDirection::kAsc) Raw(" ASC");
    if (items[i].direction == SortDirection::kDesc) Raw(" DESC");
    if (items[i].nulls == NullsOrder::kFirst) Raw(" NULLS FIRST");
    if (items[i].nulls == NullsOrder::kLast) Raw(" NULLS LAST");
  }
}

void Writer::Bound(const FrameBound& b) {
  switch (b.kind) {
    case FrameBoundKind::kUnboundedPreceding: Raw("UNBOUNDED PRECEDING"); break;
    case FrameBoundKind::kPreceding:
      Expr(*b.offset, kPrecAdditive);
      Raw(" PRECEDING");
      break;
    case FrameBoundKind::kCurrentRow: Raw("CURRENT ROW"); break;
    case FrameBoundKind::kFollowing:
      Expr(*b.offset, kPrecAdditive);
      Raw(" FOLLOWING");
      break;
    case FrameBoundKind::kUnboundedFollowing: Raw("UNBOUNDED FOLLOWING"); break;
  }
}

void Writer::Window(const WindowSpec& w) {
  Raw("(");
  bool space = false;
  if (!w.partition_by.empty()) {
    Raw("PARTITION BY ");
    ExprList(w.partition_by);
    space = true;
  }
  if (!w.order_by.empty()) {
    if (space) Raw(" ");
    Raw("ORDER BY ");
    OrderItems(w.order_by);
    space = true;
  }
  if (w.frame_unit != FrameUnit::kNone) {
    if (space) Raw(" ");
    Raw(w.frame_unit == FrameUnit::kRows ? "ROWS " : "RANGE ");
    if (w.frame_end) {
      Raw("BETWEEN ");
      Bound(w.frame_start);
      Raw(" AND ");
      Bound(*w.frame_end);
    } else {
      Bound(w.frame_start);
    }
  }
  Raw(")");
}

void Writer::Expr(const sql::Expr& e, int min_prec, Family parent) {
  const int prec = PrecedenceOf(e);
  const Family family = FamilyOf(e);
  const bool parens = prec < min_prec || (opts_.parenthesize_all && prec < kPrecAtom) ||
                      FamiliesClash(parent, family);
  if (parens) Raw("(");
  switch (e.kind) {
    case ExprKind::kLiteral: Literal(e.As<LiteralExpr>()); break;
    case ExprKind::kColumnRef: Name(e.As<ColumnRefExpr>().name); break;
    case ExprKind::kStar: {
      const auto& s = e.As<StarExpr>();
      if (!s.qualifier.empty()) {
        Name(s.qualifier);
        Raw(".");
      }
      Raw("*");
      break;
    }
    case ExprKind::kParameter: {
      const auto& p = e.As<ParameterExpr>();
      if (postgres()) {
        out_ += fmt::format("${}", p.index);
      } else if (sqlite()) {
        out_ += fmt::format("?{}", p.index);
      } else if (p.numbered) {
        out_ += fmt::format("${}", p.index);
      } else {
        Raw("?");
      }
      break;
    }
    case ExprKind::kUnary: {
      const auto& u = e.As<UnaryExpr>();
      if (u.op == UnaryOp::kNot) {
        Raw("NOT ");
        Expr(*u.operand, kPrecNot);
      } else {
        Raw(u.op == UnaryOp::kNegate ? "-" : "+");
        // `- -x` must not print as the comment `--x`.
        const bool nested_sign =
            u.operand->kind == ExprKind::kUnary && u.operand->As<UnaryExpr>().op != UnaryOp::kNot;
        Expr(*u.operand, nested_sign ? kPrecAtom : kPrecUnary);
      }
      break;
    }
    case ExprKind::kBinary: {
      const auto& b = e.As<BinaryExpr>();
      const bool regex = b.op == BinaryOp::kRegexMatch ||
                         b.op == BinaryOp::kRegexMatchIgnoreCase ||
                         b.op == BinaryOp::kRegexNoMatch ||
                         b.op == BinaryOp::kRegexNoMatchIgnoreCase;
      if (regex && (flink() || sqlite())) Unsupported("a regular-expression match (~)");
      Expr(*b.left, prec, family);
      Raw(" ");
      Raw(BinaryText(b.op));
      Raw(" ");
      Expr(*b.right, prec + 1, family);
      break;
    }
    case ExprKind::kIs: {
      const auto& is = e.As<IsExpr>();
      Expr(*is.operand, kPrecIs, family);
      if (sqlite() && is.test == IsTest::kUnknown) Unsupported("IS UNKNOWN");
      Raw(is.negated ? " IS NOT " : " IS ");
      switch (is.test) {
        case IsTest::kNull: Raw("NULL"); break;
        case IsTest::kTrue: Raw("TRUE"); break;
        case IsTest::kFalse: Raw("FALSE"); break;
        case IsTest::kUnknown: Raw("UNKNOWN"); break;
      }
      break;
    }
    case ExprKind::kBetween: {
      const auto& b = e.As<BetweenExpr>();
      Expr(*b.operand, kPrecPredicate, family);
      // SQLite has no SYMMETRIC; the local engine writes it out as two BETWEENs itself.
      if (b.symmetric && sqlite()) Unsupported("BETWEEN SYMMETRIC");
      Raw(b.negated ? " NOT BETWEEN " : " BETWEEN ");
      if (b.symmetric) Raw("SYMMETRIC ");
      Expr(*b.low, kPrecPredicate + 1, family);
      Raw(" AND ");
      Expr(*b.high, kPrecPredicate + 1, family);
      break;
    }
    case ExprKind::kInList: {
      const auto& in = e.As<InListExpr>();
      if (sqlite() && in.operand->kind == ExprKind::kRow) Unsupported("a row value IN a list");
      Expr(*in.operand, kPrecPredicate, family);
      Raw(in.negated ? " NOT IN (" : " IN (");
      ExprList(in.list);
      Raw(")");
      break;
    }
    case ExprKind::kInSubquery: {
      const auto& in = e.As<InSubqueryExpr>();
      Expr(*in.operand, kPrecPredicate, family);
      Raw(in.negated ? " NOT IN (" : " IN (");
      Query(*in.query);
      Raw(")");
      break;
    }
    case ExprKind::kLike: {
      const auto& l = e.As<LikeExpr>();
      Expr(*l.operand, kPrecPredicate, family);
      Raw(l.negated ? " NOT LIKE " : " LIKE ");
      Expr(*l.pattern, kPrecPredicate + 1, family);
      if (l.escape) {
        Raw(" ESCAPE ");
        Expr(*l.escape, kPrecPredicate + 1, family);
      }
      break;
    }
    case ExprKind::kExists:
      Raw("EXISTS (");
      Query(*e.As<ExistsExpr>().query);
      Raw(")");
      break;
    case ExprKind::kSubquery:
      Raw("(");
      Query(*e.As<SubqueryExpr>().query);
      Raw(")");
      break;
    case ExprKind::kCase: {
      const auto& c = e.As<CaseExpr>();
      Raw("CASE");
      if (c.operand) {
        Raw(" ");
        Expr(*c.operand);
      }
      for (const auto& w : c.whens) {
        Raw(" WHEN ");
        Expr(*w.condition);
        Raw(" THEN ");
        Expr(*w.result);
      }
      if (c.else_result) {
        Raw(" ELSE ");
        Expr(*c.else_result);
      }
      Raw(" END");
      break;
    }
    case ExprKind::kCast: {
      const auto& c = e.As<CastExpr>();
      if (c.try_cast && (postgres() || sqlite())) Unsupported("TRY_CAST");
      if (c.object_id != ObjectIdType::kNone && (flink() || sqlite())) {
        Unsupported("a cast to an object identifier type");
      }
      Raw(c.try_cast ? "TRY_CAST(" : "CAST(");
      Expr(*c.operand);
      Raw(" AS ");
      if (c.object_id != ObjectIdType::kNone) {
        Raw(ObjectIdTypeText(c.object_id));
      } else {
        Type(c.type);
      }
      Raw(")");
      break;
    }
    case ExprKind::kQuantified: {
      const auto& q = e.As<QuantifiedExpr>();
      // SQLite has no quantified comparisons; the local engine writes them out itself.
      if (sqlite()) Unsupported(q.query ? "op ANY | ALL (query)" : "op ANY (array)");
      if (flink() && !q.query) Unsupported("op ANY (array)");
      Expr(*q.operand, prec + 1, family);
      Raw(" ");
      Raw(BinaryText(q.op));
      Raw(q.all ? " ALL (" : " ANY (");
      if (q.query) {
        Query(*q.query);
      } else {
        Expr(*q.array);
      }
      Raw(")");
      break;
    }
    case ExprKind::kFunction: {
      const auto& f = e.As<FunctionExpr>();
      if (f.niladic) {
        if (sqlite() && f.name.back().name.rfind("LOCAL", 0) == 0) {
          Unsupported(f.name.back().name);
        }
        Raw(f.name.back().name);
        break;
      }
      if (!sqlite() && f.name.size() == 1 && !f.name.parts[0].quoted &&
          EqualsIgnoreCase(f.name.parts[0].name, "POSITION") && f.args.size() == 2 && !f.star &&
          f.quantifier == SetQuantifier::kNone && !f.filter && !f.over) {
        // The standard's form, which PostgreSQL knows and the comma form it does not; a needle
        // that is not a name, a literal or a call is in parentheses, so that its own IN or
        // comparison cannot take the IN.
        const ExprKind k = f.args[0]->kind;
        const bool plain = k == ExprKind::kColumnRef || k == ExprKind::kLiteral ||
                           k == ExprKind::kFunction || k == ExprKind::kParameter;
        Raw("POSITION(");
        if (!plain) Raw("(");
        Expr(*f.args[0]);
        if (!plain) Raw(")");
        Raw(" IN ");
        Expr(*f.args[1]);
        Raw(")");
        break;
      }
      if (!sqlite() && f.name.size() == 1 && !f.name.parts[0].quoted &&
          EqualsIgnoreCase(f.name.parts[0].name, "OVERLAY") &&
          (f.args.size() == 3 || f.args.size() == 4) && !f.star &&
          f.quantifier == SetQuantifier::kNone && f.order_by.empty() && f.within_group.empty() &&
          !f.filter && !f.over) {
        // The standard's form, the only one Calcite and Flink read; SQLite's is a call.
        Raw("OVERLAY(");
        Expr(*f.args[0]);
        Raw(" PLACING ");
        Expr(*f.args[1]);
        Raw(" FROM ");
        Expr(*f.args[2]);
        if (f.args.size() == 4) {
          Raw(" FOR ");
          Expr(*f.args[3]);
        }
        Raw(")");
        break;
      }
      for (size_t i = 0; i + 1 < f.name.parts.size(); ++i) {
        Ident(f.name.parts[i]);
        Raw(".");
      }
      const std::string& leaf = f.name.back().name;
      if (BareFunctionName(leaf)) {
        Raw(leaf);
      } else {
        Ident(f.name.back());
      }
      Raw("(");
      if (f.star) {
        Raw("*");
      } else {
        if (f.quantifier == SetQuantifier::kDistinct) Raw("DISTINCT ");
        if (f.quantifier == SetQuantifier::kAll) Raw("ALL ");
        ExprList(f.args);
      }
      if (!f.order_by.empty()) {
        // SQLite reads one from 3.44 on; hop links an older one.
        if (flink() || sqlite()) Unsupported("an ORDER BY among a function's arguments");
        Raw(" ORDER BY ");
        OrderItems(f.order_by);
      }
      Raw(")");
      if (!f.within_group.empty()) {
        if (sqlite() || flink()) Unsupported("WITHIN GROUP");
        Raw(" WITHIN GROUP (ORDER BY ");
        OrderItems(f.within_group);
        Raw(")");
      }
      if (f.filter) {
        Raw(" FILTER (WHERE ");
        Expr(*f.filter);
        Raw(")");
      }
      if (f.over) {
        Raw(" OVER ");
        Window(*f.over);
      }
      break;
    }
    case ExprKind::kExtract: {
      const auto& x = e.As<ExtractExpr>();
      if (sqlite()) Unsupported("EXTRACT");
      Raw("EXTRACT(");
      Raw(x.unit);
      Raw(" FROM ");
      Expr(*x.operand);
      Raw(")");
      break;
    }
    case ExprKind::kJsonObject: {
      const auto& j = e.As<JsonObjectExpr>();
      if (sqlite() || postgres()) Unsupported("JSON_OBJECT");
      Raw("JSON_OBJECT(");
      for (size_t i = 0; i < j.entries.size(); ++i) {
        if (i > 0) Raw(", ");
        Raw("KEY ");
        Expr(*j.entries[i].first);
        Raw(" VALUE ");
        Expr(*j.entries[i].second);
      }
      if (j.absent_on_null) Raw(j.entries.empty() ? "ABSENT ON NULL" : " ABSENT ON NULL");
      Raw(")");
      break;
    }
    case ExprKind::kArray:
      if (sqlite()) Unsupported("ARRAY[...]");
      Raw("ARRAY[");
      ExprList(e.As<ArrayExpr>().elements);
      Raw("]");
      break;
    case ExprKind::kMap:
      if (sqlite() || postgres()) Unsupported("MAP[...]");
      Raw("MAP[");
      ExprList(e.As<MapExpr>().elements);
      Raw("]");
      break;
    case ExprKind::kRow: {
      const auto& r = e.As<RowExpr>();
      if (sqlite()) {
        if (r.elements.size() < 2) Unsupported("a row of fewer than two values");
        Raw("(");
      } else {
        Raw("ROW(");
      }
      ExprList(r.elements);
      Raw(")");
      break;
    }
    case ExprKind::kSubscript: {
      const auto& s = e.As<SubscriptExpr>();
      if (sqlite()) Unsupported("a subscript");
      // PostgreSQL subscripts only a name or a parenthesised expression: (ARRAY[1, 2])[1].
      const bool wrap = postgres() && s.base->kind != ExprKind::kColumnRef &&
                        s.base->kind != ExprKind::kSubscript;
      if (wrap) Raw("(");
      Expr(*s.base, wrap ? kPrecLowest : kPrecPostfix);
      if (wrap) Raw(")");
      Raw("[");
      Expr(*s.index);
      Raw("]");
      break;
    }
    case ExprKind::kArraySubquery:
      if (sqlite()) Unsupported("ARRAY(query)");
      Raw("ARRAY(");
      Query(*e.As<ArraySubqueryExpr>().query);
      Raw(")");
      break;
    case ExprKind::kField: {
      // Always parenthesised: without them `t.c.f` would read back as a column path.
      const auto& f = e.As<FieldExpr>();
      if (sqlite()) Unsupported("a field of a composite value");
      Raw("(");
      Expr(*f.base, kPrecLowest);
      Raw(").");
      Ident(f.field);
      break;
    }
  }
  if (parens) Raw(")");
}

}  // namespace hop::sql::internal
