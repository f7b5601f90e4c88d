// The dialect-aware SQL writer. One Writer walks the AST appending to a string; a construct the
// dialect cannot express records the first such error and printing continues, so a single pass
// both prints and checks.
#include "sql/unparser.h"

#include <fmt/format.h>

#include "common/strings.h"
#include "sql/ast/statements.h"
#include "sql/keywords.h"
#include "sql/parser_impl.h"

namespace hop::sql {

std::string_view DialectName(Dialect d) {
  switch (d) {
    case Dialect::kAnsi: return "ansi";
    case Dialect::kFlink: return "flink";
    case Dialect::kPostgres: return "postgres";
    case Dialect::kSqlite: return "sqlite";
  }
  return "ansi";
}

bool ParseDialect(std::string_view name, Dialect* out) {
  struct Entry {
    std::string_view name;
    Dialect dialect;
  };
  static constexpr Entry kNames[] = {
      {"ansi", Dialect::kAnsi},           {"calcite", Dialect::kAnsi},
      {"flink", Dialect::kFlink},         {"postgres", Dialect::kPostgres},
      {"postgresql", Dialect::kPostgres}, {"sqlite", Dialect::kSqlite},
  };
  for (const auto& e : kNames) {
    if (EqualsIgnoreCase(e.name, name)) {
      *out = e.dialect;
      return true;
    }
  }
  return false;
}

std::string QuoteIdentifier(std::string_view name, Dialect dialect) {
  const char q = dialect == Dialect::kFlink ? '`' : '"';
  std::string out;
  out.reserve(name.size() + 2);
  out.push_back(q);
  for (char c : name) {
    out.push_back(c);
    if (c == q) out.push_back(q);
  }
  out.push_back(q);
  return out;
}

std::string QuoteString(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out.push_back('\'');
  for (char c : text) {
    out.push_back(c);
    if (c == '\'') out.push_back('\'');
  }
  out.push_back('\'');
  return out;
}

namespace {

using internal::kPrecAdditive;
using internal::kPrecAnd;
using internal::kPrecAtom;
using internal::kPrecComparison;
using internal::kPrecIs;
using internal::kPrecLowest;
using internal::kPrecMultiplicative;
using internal::kPrecNot;
using internal::kPrecOr;
using internal::kPrecPostfix;
using internal::kPrecPredicate;
using internal::kPrecUnary;

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
  }
  return kPrecAtom;
}

// Operator families whose relative binding differs between dialects: `||` against arithmetic
// (Calcite: like `*`; PostgreSQL: below `+`; SQLite: above `*`), and comparisons, predicates and
// IS against each other (SQLite ranks `<` above `=` and puts `=`, IN and LIKE on one level;
// PostgreSQL does not chain comparisons). Where two such families meet, the printer always writes
// parentheses, so every dialect reads the same grouping.
enum class Family { kOther, kConcat, kArithmetic, kComparison, kPredicate, kIs };

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
        default: return Family::kComparison;
      }
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
  }
  return "?";
}

int Precedence(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kUnary: return e.As<UnaryExpr>().op == UnaryOp::kNot ? kPrecNot : kPrecUnary;
    case ExprKind::kBinary: return BinaryPrecedence(e.As<BinaryExpr>().op);
    case ExprKind::kIs: return kPrecIs;
    case ExprKind::kBetween:
    case ExprKind::kInList:
    case ExprKind::kInSubquery:
    case ExprKind::kLike: return kPrecPredicate;
    case ExprKind::kSubscript: return kPrecPostfix;
    default: return kPrecAtom;
  }
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

bool IsSimpleWord(std::string_view s) {
  if (s.empty()) return false;
  auto first = static_cast<unsigned char>(s[0]);
  if (!((first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z') || first == '_')) {
    return false;
  }
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '$')) {
      return false;
    }
  }
  return true;
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
  return kw != Keyword::kTRY_CAST && kw != Keyword::kEXTRACT && kw != Keyword::kJSON_OBJECT;
}

class Writer {
 public:
  explicit Writer(const PrintOptions& options) : opts_(options), d_(options.dialect) {}

  Result<std::string> Finish() {
    if (!error_.ok()) return error_;
    return std::move(out_);
  }

  // ---- basics ----
  void Raw(std::string_view s) { out_ += s; }
  void Ident(const Identifier& id) { out_ += QuoteIdentifier(id.name, d_); }
  void Name(const QualifiedName& name) {
    for (size_t i = 0; i < name.parts.size(); ++i) {
      if (i > 0) out_.push_back('.');
      Ident(name.parts[i]);
    }
  }
  void IdentList(const std::vector<Identifier>& ids) {
    out_.push_back('(');
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i > 0) out_ += ", ";
      Ident(ids[i]);
    }
    out_.push_back(')');
  }
  void Unsupported(std::string_view what) {
    if (error_.ok()) {
      error_ = Status::InvalidArgument(
          fmt::format("{} cannot be expressed in the {} dialect", what, DialectName(d_)));
    }
  }
  bool ansi() const { return d_ == Dialect::kAnsi; }
  bool flink() const { return d_ == Dialect::kFlink; }
  bool postgres() const { return d_ == Dialect::kPostgres; }
  bool sqlite() const { return d_ == Dialect::kSqlite; }

  // ---- types ----
  void Type(const DataType& t);

  // ---- expressions ----
  // Prints `e` as an operand that needs at least `min_prec`, inside an operator of `parent`.
  void Expr(const sql::Expr& e, int min_prec = kPrecLowest, Family parent = Family::kOther);
  void ExprList(const std::vector<ExprPtr>& list) {
    for (size_t i = 0; i < list.size(); ++i) {
      if (i > 0) out_ += ", ";
      Expr(*list[i]);
    }
  }
  void OrderItems(const std::vector<OrderItem>& items);
  void Window(const WindowSpec& w);
  void Bound(const FrameBound& b);
  void Literal(const LiteralExpr& e);

  // ---- queries ----
  void Query(const sql::Query& q);
  void Body(const QueryBody& b);
  void SetOperand(const QueryBody& b, int min_prec, bool right);
  void From(const TableRef& t);
  void Alias(const std::optional<TableAlias>& alias);

  // ---- statements ----
  void Statement(const sql::Statement& s);
  void Options(const OptionList& options);
  void CreateTable(const CreateTableStatement& s);
  void SettingName(const std::string& name);

 private:
  const PrintOptions& opts_;
  Dialect d_;
  std::string out_;
  Status error_;
};

// ---------------------------------------------------------------------------------------------
// Types

void Writer::Type(const DataType& t) {
  auto precision = [&] {
    if (t.precision) out_ += fmt::format("({})", *t.precision);
  };
  switch (t.name) {
    case TypeName::kBoolean: Raw("BOOLEAN"); break;
    case TypeName::kTinyInt:
      if (postgres()) Unsupported("TINYINT");
      Raw("TINYINT");
      break;
    case TypeName::kSmallInt: Raw("SMALLINT"); break;
    case TypeName::kInteger: Raw("INTEGER"); break;
    case TypeName::kBigInt: Raw("BIGINT"); break;
    case TypeName::kFloat:
      Raw("FLOAT");
      precision();
      break;
    case TypeName::kReal: Raw("REAL"); break;
    case TypeName::kDouble: Raw(postgres() ? "DOUBLE PRECISION" : "DOUBLE"); break;
    case TypeName::kDecimal:
      Raw("DECIMAL");
      if (t.precision) {
        if (t.scale) {
          out_ += fmt::format("({}, {})", *t.precision, *t.scale);
        } else {
          precision();
        }
      }
      break;
    case TypeName::kChar:
      Raw("CHAR");
      precision();
      break;
    case TypeName::kVarchar:
      Raw("VARCHAR");
      precision();
      break;
    case TypeName::kBinary:
      if (postgres()) Unsupported("BINARY");
      Raw("BINARY");
      precision();
      break;
    case TypeName::kVarbinary:
      if (postgres()) Unsupported("VARBINARY");
      Raw("VARBINARY");
      precision();
      break;
    case TypeName::kBytes: Raw(postgres() ? "BYTEA" : sqlite() ? "BLOB" : "BYTES"); break;
    case TypeName::kDate: Raw("DATE"); break;
    case TypeName::kTime:
    case TypeName::kTimestamp:
      Raw(t.name == TypeName::kTime ? "TIME" : "TIMESTAMP");
      precision();
      if (flink() && t.name == TypeName::kTime && t.time_zone != TimeZone::kNone) {
        Unsupported("TIME with a time zone");
      }
      if (t.time_zone == TimeZone::kWithTimeZone) {
        if (sqlite() || flink()) Unsupported("WITH TIME ZONE");
        Raw(" WITH TIME ZONE");
      } else if (t.time_zone == TimeZone::kWithLocalTimeZone) {
        if (sqlite() || postgres()) Unsupported("WITH LOCAL TIME ZONE");
        Raw(" WITH LOCAL TIME ZONE");
      }
      break;
    case TypeName::kArray: {
      if (sqlite()) Unsupported("the ARRAY type");
      const DataType& element = t.params.front();
      if (element.nullability != Nullability::kUnspecified) {
        if (postgres()) Unsupported("an ARRAY element's nullability");
        Raw("ARRAY<");
        Type(element);
        Raw(">");
      } else {
        Type(element);
        Raw(postgres() ? "[]" : " ARRAY");
      }
      break;
    }
    case TypeName::kMultiset: {
      if (sqlite() || postgres()) Unsupported("the MULTISET type");
      const DataType& element = t.params.front();
      if (element.nullability != Nullability::kUnspecified) {
        Raw("MULTISET<");
        Type(element);
        Raw(">");
      } else {
        Type(element);
        Raw(" MULTISET");
      }
      break;
    }
    case TypeName::kMap:
      if (sqlite() || postgres()) Unsupported("the MAP type");
      Raw("MAP<");
      Type(t.params[0]);
      Raw(", ");
      Type(t.params[1]);
      Raw(">");
      break;
    case TypeName::kRow:
      if (sqlite() || postgres()) Unsupported("the ROW type");
      Raw("ROW(");
      for (size_t i = 0; i < t.fields.size(); ++i) {
        if (i > 0) Raw(", ");
        Ident(t.fields[i].name);
        Raw(" ");
        Type(t.fields[i].type);
      }
      Raw(")");
      break;
    case TypeName::kNull: Unsupported("the NULL type"); break;
    case TypeName::kInterval: Unsupported("an INTERVAL type"); break;
  }
  if (t.nullability == Nullability::kNotNull) {
    Raw(" NOT NULL");
  } else if (t.nullability == Nullability::kNull) {
    Raw(" NULL");
  }
}

// ---------------------------------------------------------------------------------------------
// Expressions

void Writer::Literal(const LiteralExpr& e) {
  switch (e.literal) {
    case LiteralKind::kNull: Raw("NULL"); return;
    case LiteralKind::kBoolean:
    case LiteralKind::kInteger:
    case LiteralKind::kDecimal:
    case LiteralKind::kFloat: Raw(e.value); return;
    case LiteralKind::kString: out_ += QuoteString(e.value); return;
    case LiteralKind::kBinary:
      if (postgres()) Unsupported("a binary string literal");  // X'..' is a bit string there
      Raw("X");
      out_ += QuoteString(e.value);
      return;
    case LiteralKind::kDate:
    case LiteralKind::kTime:
    case LiteralKind::kTimestamp:
      if (sqlite()) Unsupported("a typed literal");
      Raw(e.literal == LiteralKind::kDate   ? "DATE "
          : e.literal == LiteralKind::kTime ? "TIME "
                                            : "TIMESTAMP ");
      out_ += QuoteString(e.value);
      return;
    case LiteralKind::kInterval:
      if (sqlite()) Unsupported("an INTERVAL literal");
      if (postgres() &&
          (e.from_unit == IntervalUnit::kQuarter || e.from_unit == IntervalUnit::kWeek ||
           e.to_unit == IntervalUnit::kQuarter || e.to_unit == IntervalUnit::kWeek)) {
        Unsupported("an INTERVAL in QUARTER or WEEK units");
      }
      Raw("INTERVAL ");
      out_ += QuoteString(e.value);
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
  const int prec = Precedence(e);
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
      Raw(b.negated ? " NOT BETWEEN " : " BETWEEN ");
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
      Raw(c.try_cast ? "TRY_CAST(" : "CAST(");
      Expr(*c.operand);
      Raw(" AS ");
      Type(c.type);
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
  }
  if (parens) Raw(")");
}

// ---------------------------------------------------------------------------------------------
// Queries

void Writer::Alias(const std::optional<TableAlias>& alias) {
  if (!alias) return;
  Raw(" AS ");
  Ident(alias->name);
  if (!alias->columns.empty()) {
    if (sqlite()) Unsupported("column names in a table alias");
    Raw(" ");
    IdentList(alias->columns);
  }
}

void Writer::From(const TableRef& t) {
  switch (t.kind) {
    case TableRefKind::kTable: {
      const auto& b = t.As<BaseTableRef>();
      Name(b.name);
      Alias(b.alias);
      break;
    }
    case TableRefKind::kSubquery: {
      const auto& s = t.As<SubqueryRef>();
      if (s.lateral) {
        if (sqlite()) Unsupported("LATERAL");
        Raw("LATERAL ");
      }
      Raw("(");
      Query(*s.query);
      Raw(")");
      Alias(s.alias);
      break;
    }
    case TableRefKind::kJoin: {
      const auto& j = t.As<JoinRef>();
      // hop joins left to right, as Calcite does; PostgreSQL binds JOIN tighter than a comma, so
      // `a, b JOIN c` would mean `a, (b JOIN c)` there.
      if (postgres() && j.type != JoinType::kComma && j.left->kind == TableRefKind::kJoin &&
          j.left->As<JoinRef>().type == JoinType::kComma) {
        Unsupported("a comma join followed by JOIN");
      }
      From(*j.left);
      if (j.type == JoinType::kComma) {
        Raw(", ");
      } else {
        Raw(" ");
        if (j.natural) Raw("NATURAL ");
        switch (j.type) {
          case JoinType::kInner: Raw(j.natural ? "JOIN " : "INNER JOIN "); break;
          case JoinType::kLeft: Raw("LEFT JOIN "); break;
          case JoinType::kRight: Raw("RIGHT JOIN "); break;
          case JoinType::kFull: Raw("FULL JOIN "); break;
          case JoinType::kCross: Raw("CROSS JOIN "); break;
          case JoinType::kComma: break;
        }
      }
      if (j.right->kind == TableRefKind::kJoin) {
        Raw("(");
        From(*j.right);
        Raw(")");
      } else {
        From(*j.right);
      }
      if (j.on) {
        Raw(" ON ");
        Expr(*j.on);
      } else if (!j.using_cols.empty()) {
        Raw(" USING ");
        IdentList(j.using_cols);
      }
      break;
    }
    case TableRefKind::kUnnest: {
      const auto& u = t.As<UnnestRef>();
      if (sqlite()) Unsupported("UNNEST");
      Raw("UNNEST(");
      ExprList(u.args);
      Raw(")");
      if (u.with_ordinality) Raw(" WITH ORDINALITY");
      Alias(u.alias);
      break;
    }
  }
}

int SetOpPrecedence(const QueryBody& b) {
  if (b.kind != QueryBodyKind::kSetOperation) return 3;
  return b.As<SetOperationBody>().op == SetOpKind::kIntersect ? 2 : 1;
}

void Writer::SetOperand(const QueryBody& b, int min_prec, bool right) {
  // SQLite gives every set operator one precedence, groups from the left and allows no
  // parenthesised operands: only left-deep chains are expressible.
  if (sqlite()) {
    // The operand must group in SQLite (left to right) as it does in hop (INTERSECT first).
    if (b.kind == QueryBodyKind::kSetOperation && (right || SetOpPrecedence(b) < min_prec)) {
      Unsupported("this nesting of set operations");
    }
    Body(b);
    return;
  }
  if (SetOpPrecedence(b) < min_prec) {
    Raw("(");
    Body(b);
    Raw(")");
  } else {
    Body(b);
  }
}

void Writer::Body(const QueryBody& b) {
  switch (b.kind) {
    case QueryBodyKind::kSelect: {
      const auto& s = b.As<SelectBody>();
      Raw("SELECT ");
      if (s.quantifier == SetQuantifier::kDistinct) Raw("DISTINCT ");
      if (s.quantifier == SetQuantifier::kAll) Raw("ALL ");
      for (size_t i = 0; i < s.items.size(); ++i) {
        if (i > 0) Raw(", ");
        Expr(*s.items[i].expr);
        if (s.items[i].alias) {
          Raw(" AS ");
          Ident(*s.items[i].alias);
        }
      }
      if (s.from) {
        Raw(" FROM ");
        From(*s.from);
      }
      if (s.where) {
        Raw(" WHERE ");
        Expr(*s.where);
      }
      if (!s.group_by.empty()) {
        Raw(" GROUP BY ");
        ExprList(s.group_by);
      }
      if (s.having) {
        Raw(" HAVING ");
        Expr(*s.having);
      }
      break;
    }
    case QueryBodyKind::kSetOperation: {
      const auto& s = b.As<SetOperationBody>();
      const int prec = SetOpPrecedence(b);
      SetOperand(*s.left, prec, /*right=*/false);
      switch (s.op) {
        case SetOpKind::kUnion: Raw(" UNION "); break;
        case SetOpKind::kIntersect: Raw(" INTERSECT "); break;
        case SetOpKind::kExcept: Raw(" EXCEPT "); break;
      }
      if (s.quantifier == SetQuantifier::kAll) Raw("ALL ");
      if (s.quantifier == SetQuantifier::kDistinct) Raw("DISTINCT ");
      SetOperand(*s.right, prec + 1, /*right=*/true);
      break;
    }
    case QueryBodyKind::kValues: {
      const auto& v = b.As<ValuesBody>();
      Raw("VALUES ");
      for (size_t i = 0; i < v.rows.size(); ++i) {
        if (i > 0) Raw(", ");
        Raw("(");
        ExprList(v.rows[i]);
        Raw(")");
      }
      break;
    }
    case QueryBodyKind::kQuery:
      if (sqlite()) Unsupported("a parenthesised query with its own ORDER BY or LIMIT");
      Raw("(");
      Query(*b.As<NestedQueryBody>().query);
      Raw(")");
      break;
  }
}

void Writer::Query(const sql::Query& q) {
  if (!q.with.empty()) {
    Raw(q.recursive ? "WITH RECURSIVE " : "WITH ");
    for (size_t i = 0; i < q.with.size(); ++i) {
      if (i > 0) Raw(", ");
      Ident(q.with[i].name);
      if (!q.with[i].columns.empty()) {
        Raw(" ");
        IdentList(q.with[i].columns);
      }
      Raw(" AS (");
      Query(*q.with[i].query);
      Raw(")");
    }
    Raw(" ");
  }
  Body(*q.body);
  if (!q.order_by.empty()) {
    Raw(" ORDER BY ");
    OrderItems(q.order_by);
  }
  if (ansi()) {
    if (q.offset) {
      Raw(" OFFSET ");
      Expr(*q.offset);
      Raw(" ROWS");
    }
    if (q.limit) {
      Raw(" FETCH NEXT ");
      Expr(*q.limit);
      Raw(" ROWS ONLY");
    }
  } else {
    if (q.limit) {
      Raw(" LIMIT ");
      Expr(*q.limit);
    } else if (q.offset && sqlite()) {
      Unsupported("OFFSET without LIMIT");
    }
    if (q.offset) {
      Raw(" OFFSET ");
      Expr(*q.offset);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Statements

void Writer::Options(const OptionList& options) {
  if (!options.present) return;
  if (sqlite() || postgres()) Unsupported("a WITH (...) option list");
  Raw(" WITH (");
  for (size_t i = 0; i < options.items.size(); ++i) {
    const Option& o = options.items[i];
    if (i > 0) Raw(", ");
    out_ += QuoteString(o.key);
    Raw(flink() ? " = " : " ");
    if (o.kind == OptionValueKind::kNull) {
      if (flink()) Unsupported("a NULL option value");
      Raw("NULL");
    } else if (flink() || o.kind == OptionValueKind::kString) {
      out_ += QuoteString(o.value);
    } else {
      Raw(o.value);
    }
  }
  Raw(")");
}

void Writer::SettingName(const std::string& name) {
  bool words = !name.empty() && !flink();
  size_t begin = 0;
  while (words) {
    size_t dot = name.find('.', begin);
    std::string_view part = std::string_view(name).substr(begin, dot - begin);
    if (!IsSimpleWord(part)) words = false;
    if (dot == std::string::npos) break;
    begin = dot + 1;
  }
  if (words && !EqualsIgnoreCase(name, "ALL")) {
    Raw(name);
  } else {
    out_ += QuoteString(name);
  }
}

void Writer::CreateTable(const CreateTableStatement& s) {
  if (s.or_replace && (sqlite() || postgres())) Unsupported("CREATE OR REPLACE TABLE");
  if (s.or_replace && flink() && !s.as_query) Unsupported("CREATE OR REPLACE TABLE without AS");
  Raw(s.or_replace ? "CREATE OR REPLACE TABLE " : "CREATE TABLE ");
  if (s.if_not_exists) Raw("IF NOT EXISTS ");
  Name(s.name);
  if (s.like) {
    if (sqlite() || postgres()) Unsupported("CREATE TABLE ... LIKE");
    Raw(" LIKE ");
    Name(s.like->source);
    // Flink writes the options in parentheses and knows no DEFAULTS option.
    if (flink() && !s.like->options.empty()) Raw(" (");
    for (size_t i = 0; i < s.like->options.size(); ++i) {
      const LikeOption& o = s.like->options[i];
      if (flink() && o.kind == LikeOptionKind::kDefaults) Unsupported("LIKE ... DEFAULTS");
      if (i > 0 || !flink()) Raw(" ");
      Raw(o.including ? "INCLUDING " : "EXCLUDING ");
      Raw(o.kind == LikeOptionKind::kAll        ? "ALL"
          : o.kind == LikeOptionKind::kDefaults ? "DEFAULTS"
                                                : "GENERATED");
    }
    if (flink() && !s.like->options.empty()) Raw(")");
    return;
  }
  if (!s.columns.empty() || !s.constraints.empty()) {
    Raw(" (");
    bool first = true;
    for (const auto& c : s.columns) {
      if (!first) Raw(", ");
      first = false;
      Ident(c.name);
      if (!c.type) continue;
      Raw(" ");
      Type(*c.type);
      if (c.value_kind == ColumnValueKind::kDefault) {
        if (flink()) Unsupported("a column DEFAULT");
        Raw(" DEFAULT ");
        Expr(*c.value, kPrecAtom);
      } else if (c.value_kind == ColumnValueKind::kGenerated) {
        if (flink()) Unsupported("a typed generated column");
        if (postgres() && (!c.generated_always || c.storage != GeneratedStorage::kStored)) {
          Unsupported("a generated column other than GENERATED ALWAYS AS (...) STORED");
        }
        Raw(c.generated_always ? " GENERATED ALWAYS AS (" : " AS (");
        Expr(*c.value);
        Raw(")");
        if (c.storage == GeneratedStorage::kVirtual) Raw(" VIRTUAL");
        if (c.storage == GeneratedStorage::kStored) Raw(" STORED");
      }
      if (c.primary_key) {
        Raw(" PRIMARY KEY");
        if (c.not_enforced) {
          if (!flink() && !ansi()) Unsupported("NOT ENFORCED");
          Raw(" NOT ENFORCED");
        }
      }
    }
    for (const auto& c : s.constraints) {
      if (!first) Raw(", ");
      first = false;
      if (c.name) {
        Raw("CONSTRAINT ");
        Ident(*c.name);
        Raw(" ");
      }
      if (flink() && c.kind != ConstraintKind::kPrimaryKey) {
        Unsupported("a CHECK or UNIQUE constraint");
      }
      switch (c.kind) {
        case ConstraintKind::kPrimaryKey:
          Raw("PRIMARY KEY ");
          IdentList(c.columns);
          break;
        case ConstraintKind::kUnique:
          Raw("UNIQUE ");
          IdentList(c.columns);
          break;
        case ConstraintKind::kCheck:
          Raw("CHECK (");
          Expr(*c.check);
          Raw(")");
          break;
      }
      if (c.not_enforced) {
        if (!flink() && !ansi()) Unsupported("NOT ENFORCED");
        Raw(" NOT ENFORCED");
      }
    }
    Raw(")");
  }
  Options(s.options);
  if (s.as_query) {
    Raw(" AS ");
    Query(*s.as_query);
  }
}

void Writer::Statement(const sql::Statement& stmt) {
  auto hop_only = [&](std::string_view what) {
    if (!ansi()) Unsupported(what);
  };
  switch (stmt.kind) {
    case StatementKind::kQuery: Query(*stmt.As<QueryStatement>().query); break;
    case StatementKind::kInsert: {
      const auto& s = stmt.As<InsertStatement>();
      Raw("INSERT INTO ");
      Name(s.target);
      if (!s.columns.empty()) {
        Raw(" ");
        IdentList(s.columns);
      }
      Raw(" ");
      Query(*s.query);
      break;
    }
    case StatementKind::kCreateTable: CreateTable(stmt.As<CreateTableStatement>()); break;
    case StatementKind::kCreateView: {
      const auto& s = stmt.As<CreateViewStatement>();
      if (s.or_replace && (sqlite() || flink())) Unsupported("CREATE OR REPLACE VIEW");
      if (s.if_not_exists && postgres()) Unsupported("CREATE VIEW IF NOT EXISTS");
      Raw(s.or_replace ? "CREATE OR REPLACE VIEW " : "CREATE VIEW ");
      if (s.if_not_exists) Raw("IF NOT EXISTS ");
      Name(s.name);
      if (!s.columns.empty()) {
        Raw(" ");
        IdentList(s.columns);
      }
      Raw(" AS ");
      Query(*s.query);
      break;
    }
    case StatementKind::kCreateMaterializedView: {
      const auto& s = stmt.As<CreateMaterializedViewStatement>();
      if (!ansi() && !postgres()) Unsupported("CREATE MATERIALIZED VIEW");
      if (postgres() && (s.or_replace || s.refresh_schedule || s.options.present)) {
        Unsupported("CREATE OR REPLACE, REFRESHED or WITH on a materialized view");
      }
      Raw(s.or_replace ? "CREATE OR REPLACE MATERIALIZED VIEW " : "CREATE MATERIALIZED VIEW ");
      if (s.if_not_exists) Raw("IF NOT EXISTS ");
      Name(s.name);
      if (!s.columns.empty()) {
        Raw(" ");
        IdentList(s.columns);
      }
      if (s.refresh_schedule) {
        Raw(" REFRESHED ");
        out_ += QuoteString(*s.refresh_schedule);
      }
      Options(s.options);
      Raw(" AS ");
      Query(*s.query);
      break;
    }
    case StatementKind::kCreateTrigger: {
      const auto& s = stmt.As<CreateTriggerStatement>();
      hop_only("CREATE TRIGGER");
      Raw(s.or_replace ? "CREATE OR REPLACE TRIGGER " : "CREATE TRIGGER ");
      if (s.if_not_exists) Raw("IF NOT EXISTS ");
      Name(s.name);
      Raw(" ON ");
      Name(s.target);
      Raw(" AS ");
      out_ += QuoteString(s.job_template);
      if (s.job_namespace) {
        Raw(" IN ");
        out_ += QuoteString(*s.job_namespace);
      }
      if (s.schedule) {
        Raw(" SCHEDULED ");
        out_ += QuoteString(*s.schedule);
      }
      Options(s.options);
      break;
    }
    case StatementKind::kCreateDatabase: {
      const auto& s = stmt.As<CreateDatabaseStatement>();
      if (!ansi() && !flink()) Unsupported("CREATE DATABASE");
      if (s.or_replace && flink()) Unsupported("CREATE OR REPLACE DATABASE");
      Raw(s.or_replace ? "CREATE OR REPLACE DATABASE " : "CREATE DATABASE ");
      if (s.if_not_exists) Raw("IF NOT EXISTS ");
      Name(s.name);
      Options(s.options);
      break;
    }
    case StatementKind::kCreateFunction: {
      const auto& s = stmt.As<CreateFunctionStatement>();
      if (!ansi() && !flink()) Unsupported("CREATE FUNCTION");
      if (flink() && (s.returns || s.in || s.options.present)) {
        Unsupported("CREATE FUNCTION with RETURNS, IN or WITH");
      }
      Raw(s.or_replace ? "CREATE OR REPLACE FUNCTION " : "CREATE FUNCTION ");
      if (s.if_not_exists) Raw("IF NOT EXISTS ");
      Name(s.name);
      if (s.returns) {
        Raw(" RETURNS ");
        Type(*s.returns);
      }
      Raw(" AS ");
      out_ += QuoteString(s.definition);
      if (s.language) {
        // Languages are bare words (JAVA, PYTHON); Flink accepts nothing else.
        Raw(" LANGUAGE ");
        const std::string& lang = s.language->name;
        if (IsSimpleWord(lang) && LookupKeyword(lang) == Keyword::kNone &&
            lang == AsciiToUpper(lang)) {
          Raw(lang);
        } else {
          if (flink()) Unsupported("a quoted function language");
          Ident(*s.language);
        }
      }
      if (s.in) {
        Raw(" IN ");
        out_ += QuoteString(*s.in);
      }
      for (size_t i = 0; i < s.resources.size(); ++i) {
        Raw(i == 0 ? " USING " : ", ");
        switch (s.resources[i].kind) {
          case FunctionResourceKind::kJar: Raw("JAR "); break;
          case FunctionResourceKind::kFile: Raw("FILE "); break;
          case FunctionResourceKind::kArchive: Raw("ARCHIVE "); break;
        }
        out_ += QuoteString(s.resources[i].uri);
      }
      Options(s.options);
      break;
    }
    case StatementKind::kDrop: {
      const auto& s = stmt.As<DropStatement>();
      switch (s.object) {
        case ObjectKind::kTable:
        case ObjectKind::kView: break;
        case ObjectKind::kMaterializedView:
          if (!ansi() && !postgres()) Unsupported("DROP MATERIALIZED VIEW");
          break;
        case ObjectKind::kTrigger: hop_only("DROP TRIGGER"); break;
        case ObjectKind::kFunction:
        case ObjectKind::kDatabase:
          if (sqlite()) Unsupported(fmt::format("DROP {}", ObjectKindText(s.object)));
          break;
      }
      Raw("DROP ");
      Raw(ObjectKindText(s.object));
      Raw(s.if_exists ? " IF EXISTS " : " ");
      Name(s.name);
      break;
    }
    case StatementKind::kRefresh:
      if (!ansi() && !postgres()) Unsupported("REFRESH MATERIALIZED VIEW");
      Raw("REFRESH MATERIALIZED VIEW ");
      Name(stmt.As<RefreshStatement>().name);
      break;
    case StatementKind::kFire: {
      const auto& s = stmt.As<FireStatement>();
      hop_only("FIRE");
      Raw("FIRE ");
      Raw(ObjectKindText(s.object));
      Raw(" ");
      Name(s.name);
      if (s.retry) Raw(" RETRY");
      Options(s.options);
      break;
    }
    case StatementKind::kPause:
    case StatementKind::kResume: {
      const auto& s = stmt.As<PauseStatement>();
      hop_only(stmt.kind == StatementKind::kPause ? "PAUSE" : "RESUME");
      Raw(stmt.kind == StatementKind::kPause ? "PAUSE " : "RESUME ");
      Raw(ObjectKindText(s.object));
      Raw(" ");
      Name(s.name);
      break;
    }
    case StatementKind::kSet: {
      const auto& s = stmt.As<SetStatement>();
      if (sqlite()) Unsupported("SET");
      Raw("SET ");
      SettingName(s.name);
      Raw(" = ");
      if (s.value_kind == SettingValueKind::kDefault) {
        if (flink()) Unsupported("SET ... = DEFAULT");
        Raw("DEFAULT");
      } else if (flink() || s.value_kind == SettingValueKind::kString) {
        out_ += QuoteString(s.value);
      } else {
        Raw(s.value);
      }
      break;
    }
    case StatementKind::kReset: {
      const auto& s = stmt.As<ResetStatement>();
      if (sqlite()) Unsupported("RESET");
      if (s.name.empty()) {
        Raw(flink() ? "RESET" : "RESET ALL");
      } else {
        Raw("RESET ");
        SettingName(s.name);
      }
      break;
    }
    case StatementKind::kShow: {
      const auto& s = stmt.As<ShowStatement>();
      if (sqlite() || flink()) Unsupported("SHOW");
      if (s.name.empty()) {
        Raw("SHOW ALL");
      } else {
        Raw("SHOW ");
        SettingName(s.name);
      }
      break;
    }
  }
}

}  // namespace

Result<std::string> PrintStatement(const Statement& stmt, const PrintOptions& options) {
  Writer w(options);
  if (options.explain_query_plan && options.dialect == Dialect::kSqlite)
    w.Raw("EXPLAIN QUERY PLAN ");
  w.Statement(stmt);
  return w.Finish();
}

Result<std::string> PrintQuery(const Query& query, const PrintOptions& options) {
  Writer w(options);
  if (options.explain_query_plan && options.dialect == Dialect::kSqlite)
    w.Raw("EXPLAIN QUERY PLAN ");
  w.Query(query);
  return w.Finish();
}

Result<std::string> PrintExpr(const Expr& expr, const PrintOptions& options) {
  Writer w(options);
  w.Expr(expr);
  return w.Finish();
}

Result<std::string> PrintType(const DataType& type, const PrintOptions& options) {
  Writer w(options);
  w.Type(type);
  return w.Finish();
}

}  // namespace hop::sql
