// Expression parsing: a Pratt loop over binary, predicate and postfix operators (binding strengths
// in parser_impl.h), and the primary forms: literals, names, calls, CASE, CAST, subqueries,
// constructors and the special syntaxes of EXTRACT, INTERVAL and JSON_OBJECT.
#include <fmt/format.h>

#include <charconv>

#include "common/strings.h"
#include "sql/lexer.h"
#include "sql/parser_impl.h"

namespace hop::sql::internal {
namespace {

template <typename T>
std::unique_ptr<T> Make(const Token& at) {
  auto node = std::make_unique<T>();
  node->loc = at.loc;
  return node;
}

// The binary operator a token spells, if any, with its binding strength.
bool BinaryOperator(const Token& t, BinaryOp* op, int* prec) {
  switch (t.type) {
    case TokenType::kEq:
      *op = BinaryOp::kEq;
      *prec = kPrecComparison;
      return true;
    case TokenType::kNe:
      *op = BinaryOp::kNe;
      *prec = kPrecComparison;
      return true;
    case TokenType::kLt:
      *op = BinaryOp::kLt;
      *prec = kPrecComparison;
      return true;
    case TokenType::kLe:
      *op = BinaryOp::kLe;
      *prec = kPrecComparison;
      return true;
    case TokenType::kGt:
      *op = BinaryOp::kGt;
      *prec = kPrecComparison;
      return true;
    case TokenType::kGe:
      *op = BinaryOp::kGe;
      *prec = kPrecComparison;
      return true;
    case TokenType::kTilde:
      *op = BinaryOp::kRegexMatch;
      *prec = kPrecPredicate;
      return true;
    case TokenType::kTildeStar:
      *op = BinaryOp::kRegexMatchIgnoreCase;
      *prec = kPrecPredicate;
      return true;
    case TokenType::kNotTilde:
      *op = BinaryOp::kRegexNoMatch;
      *prec = kPrecPredicate;
      return true;
    case TokenType::kNotTildeStar:
      *op = BinaryOp::kRegexNoMatchIgnoreCase;
      *prec = kPrecPredicate;
      return true;
    case TokenType::kConcat:
      *op = BinaryOp::kConcat;
      *prec = kPrecMultiplicative;
      return true;
    case TokenType::kPlus:
      *op = BinaryOp::kAdd;
      *prec = kPrecAdditive;
      return true;
    case TokenType::kMinus:
      *op = BinaryOp::kSubtract;
      *prec = kPrecAdditive;
      return true;
    case TokenType::kStar:
      *op = BinaryOp::kMultiply;
      *prec = kPrecMultiplicative;
      return true;
    case TokenType::kSlash:
      *op = BinaryOp::kDivide;
      *prec = kPrecMultiplicative;
      return true;
    case TokenType::kPercent:
      *op = BinaryOp::kModulo;
      *prec = kPrecMultiplicative;
      return true;
    case TokenType::kWord:
      if (t.keyword == Keyword::kOR) {
        *op = BinaryOp::kOr;
        *prec = kPrecOr;
        return true;
      }
      if (t.keyword == Keyword::kAND) {
        *op = BinaryOp::kAnd;
        *prec = kPrecAnd;
        return true;
      }
      return false;
    default: return false;
  }
}

bool IntervalUnitFor(Keyword kw, IntervalUnit* unit) {
  switch (kw) {
    case Keyword::kYEAR: *unit = IntervalUnit::kYear; return true;
    case Keyword::kQUARTER: *unit = IntervalUnit::kQuarter; return true;
    case Keyword::kMONTH: *unit = IntervalUnit::kMonth; return true;
    case Keyword::kWEEK: *unit = IntervalUnit::kWeek; return true;
    case Keyword::kDAY: *unit = IntervalUnit::kDay; return true;
    case Keyword::kHOUR: *unit = IntervalUnit::kHour; return true;
    case Keyword::kMINUTE: *unit = IntervalUnit::kMinute; return true;
    case Keyword::kSECOND: *unit = IntervalUnit::kSecond; return true;
    default: return false;
  }
}

// The units EXTRACT accepts (Calcite's time units).
bool IsTimeUnit(std::string_view word) {
  static constexpr std::string_view kUnits[] = {
      "YEAR",    "QUARTER",     "MONTH",       "WEEK",       "DAY",       "HOUR", "MINUTE",
      "SECOND",  "MILLISECOND", "MICROSECOND", "NANOSECOND", "DOW",       "DOY",  "ISODOW",
      "ISOYEAR", "EPOCH",       "DECADE",      "CENTURY",    "MILLENNIUM"};
  for (std::string_view u : kUnits) {
    if (EqualsIgnoreCase(u, word)) return true;
  }
  return false;
}

bool IsComparison(BinaryOp op) {
  return op == BinaryOp::kEq || op == BinaryOp::kNe || op == BinaryOp::kLt ||
         op == BinaryOp::kLe || op == BinaryOp::kGt || op == BinaryOp::kGe;
}

constexpr Keyword kIntervalUnitKeywords[] = {Keyword::kYEAR,   Keyword::kQUARTER, Keyword::kMONTH,
                                             Keyword::kWEEK,   Keyword::kDAY,     Keyword::kHOUR,
                                             Keyword::kMINUTE, Keyword::kSECOND};

}  // namespace

bool Parser::PeekQueryStart(size_t ahead) const {
  return PeekKeyword(Keyword::kSELECT, ahead) || PeekKeyword(Keyword::kWITH, ahead) ||
         PeekKeyword(Keyword::kVALUES, ahead);
}

ExprPtr Parser::ParseExpr(int min_prec) {
  DepthGuard guard(this);
  if (!guard.ok()) return nullptr;
  ExprPtr left = ParsePrefix();
  if (!left) return nullptr;
  while (true) {
    const Token& t = Peek();
    BinaryOp op;
    int prec;
    // `OPERATOR(pg_catalog.~)`: PostgreSQL's spelling of a binary operator by its name.
    const bool named = t.type == TokenType::kWord && t.keyword == Keyword::kOPERATOR &&
                       PeekType(TokenType::kLParen, 1);
    if (named || BinaryOperator(t, &op, &prec)) {
      if (named && !ParseOperatorName(&op, &prec)) return nullptr;
      if (prec < min_prec) break;
      if (!guard.Deepen()) return nullptr;
      if (named) {
        pos_ = operator_end_;
      } else {
        ++pos_;
      }
      if (IsComparison(op) &&
          (PeekKeyword(Keyword::kANY) || PeekKeyword(Keyword::kSOME) ||
           PeekKeyword(Keyword::kALL)) &&
          PeekType(TokenType::kLParen, 1)) {
        auto node = ParseQuantified(op, std::move(left), t);
        if (!node) return nullptr;
        left = std::move(node);
        continue;
      }
      ExprPtr right = ParseExpr(prec + 1);
      if (!right) return nullptr;
      auto node = Make<BinaryExpr>(t);
      node->op = op;
      node->left = std::move(left);
      node->right = std::move(right);
      left = std::move(node);
      continue;
    }
    if (t.type == TokenType::kWord && t.keyword == Keyword::kIS) {
      // IS [NOT] DISTINCT FROM is a comparison and binds like `=`; IS NULL and friends bind
      // looser than comparisons.
      const bool distinct = PeekKeyword(Keyword::kDISTINCT, PeekKeyword(Keyword::kNOT, 1) ? 2 : 1);
      if ((distinct ? kPrecComparison : kPrecIs) < min_prec) break;
      if (!guard.Deepen()) return nullptr;
      ++pos_;
      bool negated = AcceptKeyword(Keyword::kNOT);
      if (distinct) {
        pos_ += 1;  // DISTINCT
        if (!ExpectKeyword(Keyword::kFROM)) return nullptr;
        ExprPtr right = ParseExpr(kPrecComparison + 1);
        if (!right) return nullptr;
        auto node = Make<BinaryExpr>(t);
        node->op = negated ? BinaryOp::kIsNotDistinctFrom : BinaryOp::kIsDistinctFrom;
        node->left = std::move(left);
        node->right = std::move(right);
        left = std::move(node);
        continue;
      }
      auto node = Make<IsExpr>(t);
      node->negated = negated;
      if (AcceptKeyword(Keyword::kNULL)) {
        node->test = IsTest::kNull;
      } else if (AcceptKeyword(Keyword::kTRUE)) {
        node->test = IsTest::kTrue;
      } else if (AcceptKeyword(Keyword::kFALSE)) {
        node->test = IsTest::kFalse;
      } else if (AcceptKeyword(Keyword::kUNKNOWN)) {
        node->test = IsTest::kUnknown;
      } else {
        if (!negated) NoteExpectedKeyword(Keyword::kNOT);
        NoteExpectedKeyword(Keyword::kDISTINCT);
        NoteExpectedKeyword(Keyword::kNULL);
        NoteExpectedKeyword(Keyword::kTRUE);
        NoteExpectedKeyword(Keyword::kFALSE);
        NoteExpectedKeyword(Keyword::kUNKNOWN);
        return nullptr;
      }
      node->operand = std::move(left);
      left = std::move(node);
      continue;
    }
    // [NOT] BETWEEN | IN | LIKE
    bool negated = false;
    size_t k = 0;
    if (t.type == TokenType::kWord && t.keyword == Keyword::kNOT) {
      negated = true;
      k = 1;
    }
    const Token& p = Peek(k);
    const bool predicate =
        p.type == TokenType::kWord && (p.keyword == Keyword::kBETWEEN ||
                                       p.keyword == Keyword::kIN || p.keyword == Keyword::kLIKE);
    if (predicate) {
      if (kPrecPredicate < min_prec) break;
      if (!guard.Deepen()) return nullptr;
      pos_ += k + 1;
      if (p.keyword == Keyword::kBETWEEN) {
        auto node = Make<BetweenExpr>(p);
        node->negated = negated;
        node->operand = std::move(left);
        // SYMMETRIC or ASYMMETRIC, unless the word is a column (`BETWEEN symmetric AND b`).
        for (Keyword kw : {Keyword::kSYMMETRIC, Keyword::kASYMMETRIC}) {
          if (PeekKeyword(kw) && !PeekKeyword(Keyword::kAND, 1) && !PeekType(TokenType::kDot, 1)) {
            ++pos_;
            node->symmetric = kw == Keyword::kSYMMETRIC;
            break;
          }
        }
        node->low = ParseExpr(kPrecPredicate + 1);
        if (!node->low || !ExpectKeyword(Keyword::kAND)) return nullptr;
        node->high = ParseExpr(kPrecPredicate + 1);
        if (!node->high) return nullptr;
        left = std::move(node);
      } else if (p.keyword == Keyword::kLIKE) {
        auto node = Make<LikeExpr>(p);
        node->negated = negated;
        node->operand = std::move(left);
        node->pattern = ParseExpr(kPrecPredicate + 1);
        if (!node->pattern) return nullptr;
        if (AcceptKeyword(Keyword::kESCAPE)) {
          node->escape = ParseExpr(kPrecPredicate + 1);
          if (!node->escape) return nullptr;
        }
        left = std::move(node);
      } else {
        if (!ExpectType(TokenType::kLParen)) return nullptr;
        if (auto q = TryParseParenthesizedQuery()) {
          ++pos_;  // )
          auto node = Make<InSubqueryExpr>(p);
          node->negated = negated;
          node->operand = std::move(left);
          node->query = std::move(q);
          left = std::move(node);
        } else {
          if (failed_hard()) return nullptr;
          auto node = Make<InListExpr>(p);
          node->negated = negated;
          node->operand = std::move(left);
          if (!ParseExprList(TokenType::kRParen, &node->list, /*allow_empty=*/false)) {
            return nullptr;
          }
          left = std::move(node);
        }
      }
      continue;
    }
    if (negated) {
      // A NOT that starts no predicate ends the expression; note what could have followed it.
      if (kPrecPredicate >= min_prec) {
        ++pos_;
        NoteExpectedKeyword(Keyword::kBETWEEN);
        NoteExpectedKeyword(Keyword::kIN);
        NoteExpectedKeyword(Keyword::kLIKE);
        --pos_;
      }
      break;
    }
    // `COLLATE pg_catalog.default`: accepted, with no effect (hop compares strings by code
    // point, which is the default collation); any other collation is refused.
    if (t.type == TokenType::kWord && t.keyword == Keyword::kCOLLATE) {
      if (kPrecPostfix < min_prec) break;
      ++pos_;
      if (!ParseDefaultCollation()) return nullptr;
      continue;
    }
    // Postfix: subscript and PostgreSQL-style cast.
    if (t.type == TokenType::kLBracket || t.type == TokenType::kDoubleColon) {
      if (kPrecPostfix < min_prec) break;
      if (!guard.Deepen()) return nullptr;
      ++pos_;
      if (t.type == TokenType::kLBracket) {
        auto node = Make<SubscriptExpr>(t);
        node->base = std::move(left);
        node->index = ParseExpr();
        if (!node->index || !ExpectType(TokenType::kRBracket)) return nullptr;
        left = std::move(node);
      } else {
        auto node = Make<CastExpr>(t);
        node->operand = std::move(left);
        if (!ParseCastTarget(node.get())) return nullptr;
        left = std::move(node);
      }
      continue;
    }
    break;
  }
  return left;
}

ExprPtr Parser::ParsePrefix() {
  const Token& t = Peek();
  if (t.type == TokenType::kWord && t.keyword == Keyword::kNOT) {
    ++pos_;
    auto node = Make<UnaryExpr>(t);
    node->op = UnaryOp::kNot;
    node->operand = ParseExpr(kPrecNot);
    if (!node->operand) return nullptr;
    return node;
  }
  if (t.type == TokenType::kMinus || t.type == TokenType::kPlus) {
    ++pos_;
    auto node = Make<UnaryExpr>(t);
    node->op = t.type == TokenType::kMinus ? UnaryOp::kNegate : UnaryOp::kPlus;
    node->operand = ParseExpr(kPrecUnary);
    if (!node->operand) return nullptr;
    return node;
  }
  return ParsePrimary();
}

bool Parser::ParseExprList(TokenType close, std::vector<ExprPtr>* out, bool allow_empty) {
  if (allow_empty && AcceptType(close)) return true;
  do {
    ExprPtr e = ParseExpr();
    if (!e) return false;
    out->push_back(std::move(e));
  } while (AcceptType(TokenType::kComma));
  return ExpectType(close);
}

ExprPtr Parser::ParsePrimary() {
  const Token& t = Peek();
  switch (t.type) {
    case TokenType::kInteger:
    case TokenType::kDecimal:
    case TokenType::kFloat: {
      ++pos_;
      auto node = Make<LiteralExpr>(t);
      node->literal = t.type == TokenType::kInteger   ? LiteralKind::kInteger
                      : t.type == TokenType::kDecimal ? LiteralKind::kDecimal
                                                      : LiteralKind::kFloat;
      node->value.assign(TokenText(t));
      return node;
    }
    case TokenType::kString:
    case TokenType::kEscapeString:
    case TokenType::kDollarString:
    case TokenType::kBinaryString: {
      ++pos_;
      auto node = Make<LiteralExpr>(t);
      node->literal =
          t.type == TokenType::kBinaryString ? LiteralKind::kBinary : LiteralKind::kString;
      node->value = UnquoteToken(text_, t);
      return node;
    }
    case TokenType::kParameter: {
      ++pos_;
      auto node = Make<ParameterExpr>(t);
      std::string_view raw = TokenText(t);
      if (raw == "?") {
        if (numbered_parameters_) {
          Fail(t, "cannot mix ? with numbered parameters ($1, ?1)");
          return nullptr;
        }
        positional_parameters_ = true;
        node->index = ++parameter_count_;
      } else {
        if (positional_parameters_) {
          Fail(t, "cannot mix numbered parameters ($1, ?1) with ?");
          return nullptr;
        }
        numbered_parameters_ = true;
        node->numbered = true;
        auto [ptr, ec] = std::from_chars(raw.data() + 1, raw.data() + raw.size(), node->index);
        if (ec != std::errc() || node->index < 1) {
          Fail(t, fmt::format("parameter {} is out of range", raw));
          return nullptr;
        }
      }
      return node;
    }
    case TokenType::kLParen: return ParseFieldSelections(ParseParenthesized());
    case TokenType::kQuotedIdentifier: return ParseNameOrCall();
    case TokenType::kWord: break;
    default: NoteExpectedCategory(ExpectCategory::kExpression); return nullptr;
  }

  switch (t.keyword) {
    case Keyword::kNULL:
    case Keyword::kTRUE:
    case Keyword::kFALSE: {
      ++pos_;
      auto node = Make<LiteralExpr>(t);
      if (t.keyword == Keyword::kNULL) {
        node->literal = LiteralKind::kNull;
      } else {
        node->literal = LiteralKind::kBoolean;
        node->value = t.keyword == Keyword::kTRUE ? "TRUE" : "FALSE";
      }
      return node;
    }
    case Keyword::kDATE:
    case Keyword::kTIME:
    case Keyword::kTIMESTAMP:
      if (PeekType(TokenType::kString, 1)) {
        pos_ += 2;
        auto node = Make<LiteralExpr>(t);
        node->literal = t.keyword == Keyword::kDATE   ? LiteralKind::kDate
                        : t.keyword == Keyword::kTIME ? LiteralKind::kTime
                                                      : LiteralKind::kTimestamp;
        node->value = UnquoteToken(text_, tokens_[pos_ - 1]);
        return node;
      }
      return ParseNameOrCall();
    case Keyword::kINTERVAL: return ParseInterval();
    case Keyword::kCASE: return ParseCase();
    case Keyword::kCAST: return ParseCast(false);
    case Keyword::kTRY_CAST:
      if (PeekType(TokenType::kLParen, 1)) return ParseCast(true);
      return ParseNameOrCall();
    case Keyword::kEXTRACT:
      if (PeekType(TokenType::kLParen, 1)) return ParseExtract();
      return ParseNameOrCall();
    case Keyword::kLEFT:
    case Keyword::kRIGHT:
      // LEFT(s, n) and RIGHT(s, n): calls, though the words are reserved (joins).
      if (PeekType(TokenType::kLParen, 1)) {
        QualifiedName name;
        name.parts.emplace_back(AsciiToUpper(TokenText(t)));
        name.parts.back().loc = t.loc;
        ++pos_;
        return ParseFunctionCall(std::move(name), t);
      }
      break;
    case Keyword::kJSON_OBJECT:
      if (PeekType(TokenType::kLParen, 1)) return ParseJsonObject();
      return ParseNameOrCall();
    case Keyword::kEXISTS: {
      ++pos_;
      auto node = Make<ExistsExpr>(t);
      if (!ExpectType(TokenType::kLParen)) return nullptr;
      node->query = ParseQuery();
      if (!node->query || !ExpectType(TokenType::kRParen)) return nullptr;
      return node;
    }
    case Keyword::kARRAY: {
      if (PeekType(TokenType::kLParen, 1)) return ParseArraySubquery();
      ++pos_;
      auto node = Make<ArrayExpr>(t);
      if (!ExpectType(TokenType::kLBracket)) return nullptr;
      if (!ParseExprList(TokenType::kRBracket, &node->elements, /*allow_empty=*/true)) {
        return nullptr;
      }
      return node;
    }
    case Keyword::kMAP:
      if (PeekType(TokenType::kLBracket, 1)) {
        pos_ += 2;
        auto node = Make<MapExpr>(t);
        if (!ParseExprList(TokenType::kRBracket, &node->elements, /*allow_empty=*/true)) {
          return nullptr;
        }
        if (node->elements.size() % 2 != 0) {
          Fail(t, "MAP[...] needs an even number of elements (key, value, ...)");
          return nullptr;
        }
        return node;
      }
      return ParseNameOrCall();
    case Keyword::kROW: {
      ++pos_;
      auto node = Make<RowExpr>(t);
      if (!ExpectType(TokenType::kLParen)) return nullptr;
      if (!ParseExprList(TokenType::kRParen, &node->elements, /*allow_empty=*/true)) {
        return nullptr;
      }
      return node;
    }
    case Keyword::kCURRENT_DATE:
    case Keyword::kCURRENT_TIME:
    case Keyword::kCURRENT_TIMESTAMP:
    case Keyword::kLOCALTIME:
    case Keyword::kLOCALTIMESTAMP: {
      ++pos_;
      auto node = Make<FunctionExpr>(t);
      node->name.parts.emplace_back(std::string(KeywordText(t.keyword)));
      node->name.parts.back().loc = t.loc;
      node->niladic = true;
      return node;
    }
    default: break;
  }
  // CURRENT_USER, SESSION_USER, CURRENT_ROLE and USER, written bare as PostgreSQL has them (its
  // reserved words): the session's user. Not keywords of hop's, so a call or a qualified name
  // of the same spelling (`user.id`) is still a name.
  if (t.keyword == Keyword::kNone && !PeekType(TokenType::kLParen, 1) &&
      !PeekType(TokenType::kDot, 1)) {
    const std::string word = AsciiToUpper(TokenText(t));
    if (word == "CURRENT_USER" || word == "SESSION_USER" || word == "CURRENT_ROLE" ||
        word == "USER") {
      ++pos_;
      auto node = Make<FunctionExpr>(t);
      node->name.parts.emplace_back(word);
      node->name.parts.back().loc = t.loc;
      node->niladic = true;
      return node;
    }
  }
  if (!PeekIdentifier()) {
    NoteExpectedCategory(ExpectCategory::kExpression);
    return nullptr;
  }
  return ParseNameOrCall();
}

std::unique_ptr<Query> Parser::TryParseParenthesizedQuery() {
  // After '(': a query starts here if, past any further '(', a query keyword follows. Such text
  // can still be an expression (`((SELECT 1) + 1)`), so on failure the caller backtracks; the
  // furthest failure of both attempts is what an error reports.
  size_t k = 0;
  while (PeekType(TokenType::kLParen, k)) ++k;
  if (!PeekQueryStart(k)) return nullptr;
  const Snapshot save = Save();
  std::unique_ptr<Query> q = ParseQuery();
  if (q && PeekType(TokenType::kRParen)) return q;
  NoteExpectedType(TokenType::kRParen);
  if (!failed_hard()) Restore(save);
  return nullptr;
}

ExprPtr Parser::ParseParenthesized() {
  const Token& open = Peek();
  ++pos_;
  if (auto q = TryParseParenthesizedQuery()) {
    ++pos_;  // )
    auto node = Make<SubqueryExpr>(open);
    node->query = std::move(q);
    return node;
  }
  if (failed_hard()) return nullptr;
  ExprPtr first = ParseExpr();
  if (!first) return nullptr;
  if (AcceptType(TokenType::kRParen)) return first;
  if (!PeekType(TokenType::kComma)) {
    NoteExpectedType(TokenType::kComma);
    return nullptr;
  }
  auto row = Make<RowExpr>(open);
  row->elements.push_back(std::move(first));
  while (AcceptType(TokenType::kComma)) {
    ExprPtr e = ParseExpr();
    if (!e) return nullptr;
    row->elements.push_back(std::move(e));
  }
  if (!ExpectType(TokenType::kRParen)) return nullptr;
  return row;
}

ExprPtr Parser::ParseFieldSelections(ExprPtr base) {
  if (!base) return nullptr;
  DepthGuard guard(this);
  while (PeekType(TokenType::kDot)) {
    if (!guard.Deepen()) return nullptr;
    const Token& dot = Peek();
    ++pos_;
    auto field = ParseIdentifier();
    if (!field) return nullptr;
    auto node = Make<FieldExpr>(dot);
    node->base = std::move(base);
    node->field = std::move(*field);
    base = std::move(node);
  }
  return base;
}

ExprPtr Parser::ParseTrim(QualifiedName name, const Token& start) {
  const Snapshot save = Save();
  ++pos_;  // (
  std::string side;
  if (PeekType(TokenType::kWord) && !PeekType(TokenType::kRParen, 1) &&
      !PeekType(TokenType::kComma, 1)) {
    const std::string word = AsciiToLower(TokenText(Peek()));
    if (word == "leading" || word == "trailing" || word == "both") {
      side = word;
      ++pos_;
    }
  }
  ExprPtr chars;
  if (!PeekKeyword(Keyword::kFROM)) {
    chars = ParseExpr();
    if (!chars) return nullptr;
  }
  if (!PeekKeyword(Keyword::kFROM)) {
    if (side.empty() && !failed_hard()) {
      // TRIM(s) or TRIM(s, chars): a call.
      Restore(save);
      return ParseFunctionCall(std::move(name), start);
    }
    NoteExpectedKeyword(Keyword::kFROM);
    return nullptr;
  }
  ++pos_;  // FROM
  ExprPtr operand = ParseExpr();
  if (!operand || !ExpectType(TokenType::kRParen)) return nullptr;
  auto fn = Make<FunctionExpr>(start);
  std::string_view target = side == "leading" ? "LTRIM" : side == "trailing" ? "RTRIM" : "TRIM";
  fn->name.parts.emplace_back(std::string(target));
  fn->name.parts.back().loc = start.loc;
  fn->args.push_back(std::move(operand));
  if (chars) {
    fn->args.push_back(std::move(chars));
  } else {
    auto space = Make<LiteralExpr>(start);
    space->literal = LiteralKind::kString;
    space->value = " ";
    fn->args.push_back(std::move(space));
  }
  return fn;
}

ExprPtr Parser::ParseStandardForm(QualifiedName name, const Token& start, bool position) {
  const Snapshot save = Save();
  ++pos_;  // (
  // POSITION's needle stops before IN, which would otherwise start an IN predicate.
  ExprPtr first = position ? ParseExpr(kPrecPredicate + 1) : ParseExpr();
  if (!first || !PeekKeyword(position ? Keyword::kIN : Keyword::kFROM)) {
    if (failed_hard()) return nullptr;
    // SUBSTRING(s, start, length), POSITION(needle, haystack): calls.
    Restore(save);
    return ParseFunctionCall(std::move(name), start);
  }
  ++pos_;  // IN or FROM
  auto fn = Make<FunctionExpr>(start);
  fn->name = std::move(name);
  fn->args.push_back(std::move(first));
  ExprPtr second = ParseExpr();
  if (!second) return nullptr;
  fn->args.push_back(std::move(second));
  if (!position) return ParseForLengthAndClose(std::move(fn));
  if (!ExpectType(TokenType::kRParen)) return nullptr;
  return fn;
}

ExprPtr Parser::ParseForLengthAndClose(std::unique_ptr<FunctionExpr> fn) {
  if (PeekType(TokenType::kWord) && AsciiToLower(TokenText(Peek())) == "for") {
    ++pos_;
    ExprPtr length = ParseExpr();
    if (!length) return nullptr;
    fn->args.push_back(std::move(length));
  }
  if (!ExpectType(TokenType::kRParen)) return nullptr;
  return fn;
}

ExprPtr Parser::ParseOverlay(QualifiedName name, const Token& start) {
  const Snapshot save = Save();
  ++pos_;  // (
  ExprPtr first = ParseExpr();
  if (!first || !PeekType(TokenType::kWord) || AsciiToLower(TokenText(Peek())) != "placing") {
    if (failed_hard()) return nullptr;
    Restore(save);
    return ParseFunctionCall(std::move(name), start);
  }
  ++pos_;  // PLACING
  auto fn = Make<FunctionExpr>(start);
  fn->name = std::move(name);
  fn->args.push_back(std::move(first));
  ExprPtr replacement = ParseExpr();
  if (!replacement || !ExpectKeyword(Keyword::kFROM)) return nullptr;
  fn->args.push_back(std::move(replacement));
  ExprPtr from = ParseExpr();
  if (!from) return nullptr;
  fn->args.push_back(std::move(from));
  return ParseForLengthAndClose(std::move(fn));
}

ExprPtr Parser::ParseArraySubquery() {
  const Token& start = Peek();
  pos_ += 2;  // ARRAY (
  auto node = Make<ArraySubqueryExpr>(start);
  if (!PeekQueryStart()) {
    NoteExpectedKeyword(Keyword::kSELECT);
    return nullptr;
  }
  node->query = ParseQuery();
  if (!node->query || !ExpectType(TokenType::kRParen)) return nullptr;
  return node;
}

ExprPtr Parser::ParseNameOrCall() {
  const Token& start = Peek();
  QualifiedName name;
  name.parts.reserve(CountNameParts());
  auto first = ParseIdentifier();
  if (!first) return nullptr;
  name.parts.push_back(std::move(*first));
  while (PeekType(TokenType::kDot)) {
    if (PeekType(TokenType::kStar, 1)) {
      pos_ += 2;
      auto star = Make<StarExpr>(start);
      star->qualifier = std::move(name);
      return star;
    }
    ++pos_;
    auto part = ParseIdentifier();
    if (!part) {
      NoteExpectedType(TokenType::kStar);
      return nullptr;
    }
    name.parts.push_back(std::move(*part));
  }
  if (PeekType(TokenType::kLParen)) {
    if (name.size() == 1 && !name.parts[0].quoted) {
      const std::string& n = name.parts[0].name;
      if (n == "TRIM") return ParseTrim(std::move(name), start);
      if (n == "SUBSTRING" || n == "POSITION") {
        return ParseStandardForm(std::move(name), start, n == "POSITION");
      }
      if (n == "OVERLAY") return ParseOverlay(std::move(name), start);
    }
    return ParseFunctionCall(std::move(name), start);
  }
  auto ref = Make<ColumnRefExpr>(start);
  ref->name = std::move(name);
  return ref;
}

ExprPtr Parser::ParseFunctionCall(QualifiedName name, const Token& start) {
  DepthGuard guard(this);
  if (!guard.ok()) return nullptr;
  ++pos_;  // (
  auto fn = Make<FunctionExpr>(start);
  fn->name = std::move(name);
  if (PeekType(TokenType::kStar) && PeekType(TokenType::kRParen, 1)) {
    pos_ += 2;
    fn->star = true;
  } else {
    if (AcceptKeyword(Keyword::kDISTINCT)) {
      fn->quantifier = SetQuantifier::kDistinct;
    } else if (AcceptKeyword(Keyword::kALL)) {
      fn->quantifier = SetQuantifier::kAll;
    }
    const bool allow_empty = fn->quantifier == SetQuantifier::kNone;
    if (!allow_empty || !AcceptType(TokenType::kRParen)) {
      do {
        ExprPtr e = ParseExpr();
        if (!e) return nullptr;
        fn->args.push_back(std::move(e));
      } while (AcceptType(TokenType::kComma));
      // An aggregate's ORDER BY among its arguments: `STRING_AGG(x, ',' ORDER BY y)`.
      if (PeekKeyword(Keyword::kORDER) && PeekKeyword(Keyword::kBY, 1)) {
        pos_ += 2;
        if (!ParseOrderItems(&fn->order_by)) return nullptr;
      }
      if (!ExpectType(TokenType::kRParen)) return nullptr;
    }
  }
  if (PeekKeyword(Keyword::kWITHIN) && PeekKeyword(Keyword::kGROUP, 1)) {
    pos_ += 2;
    if (!ExpectType(TokenType::kLParen) || !ExpectKeyword(Keyword::kORDER) ||
        !ExpectKeyword(Keyword::kBY) || !ParseOrderItems(&fn->within_group) ||
        !ExpectType(TokenType::kRParen)) {
      return nullptr;
    }
  }
  if (PeekKeyword(Keyword::kFILTER) && PeekType(TokenType::kLParen, 1)) {
    pos_ += 2;
    if (!ExpectKeyword(Keyword::kWHERE)) return nullptr;
    fn->filter = ParseExpr();
    if (!fn->filter || !ExpectType(TokenType::kRParen)) return nullptr;
  }
  if (AcceptKeyword(Keyword::kOVER)) {
    fn->over = ParseWindowSpec();
    if (!fn->over) return nullptr;
  }
  return fn;
}

bool Parser::ParseOrderItems(std::vector<OrderItem>* out) {
  do {
    OrderItem item;
    item.expr = ParseExpr();
    if (!item.expr) return false;
    if (AcceptKeyword(Keyword::kASC)) {
      item.direction = SortDirection::kAsc;
    } else if (AcceptKeyword(Keyword::kDESC)) {
      item.direction = SortDirection::kDesc;
    }
    if (AcceptKeyword(Keyword::kNULLS)) {
      if (AcceptKeyword(Keyword::kFIRST)) {
        item.nulls = NullsOrder::kFirst;
      } else if (AcceptKeyword(Keyword::kLAST)) {
        item.nulls = NullsOrder::kLast;
      } else {
        return false;
      }
    }
    out->push_back(std::move(item));
  } while (AcceptType(TokenType::kComma));
  return true;
}

bool Parser::ParseFrameBound(FrameBound* out) {
  if (AcceptKeyword(Keyword::kUNBOUNDED)) {
    if (AcceptKeyword(Keyword::kPRECEDING)) {
      out->kind = FrameBoundKind::kUnboundedPreceding;
      return true;
    }
    if (ExpectKeyword(Keyword::kFOLLOWING)) {
      out->kind = FrameBoundKind::kUnboundedFollowing;
      return true;
    }
    return false;
  }
  if (AcceptKeyword(Keyword::kCURRENT)) {
    if (!ExpectKeyword(Keyword::kROW)) return false;
    out->kind = FrameBoundKind::kCurrentRow;
    return true;
  }
  NoteExpectedKeyword(Keyword::kUNBOUNDED);
  NoteExpectedKeyword(Keyword::kCURRENT);
  out->offset = ParseExpr(kPrecAdditive);
  if (!out->offset) return false;
  if (AcceptKeyword(Keyword::kPRECEDING)) {
    out->kind = FrameBoundKind::kPreceding;
    return true;
  }
  if (ExpectKeyword(Keyword::kFOLLOWING)) {
    out->kind = FrameBoundKind::kFollowing;
    return true;
  }
  return false;
}

std::unique_ptr<WindowSpec> Parser::ParseWindowSpec() {
  if (!ExpectType(TokenType::kLParen)) return nullptr;
  auto w = std::make_unique<WindowSpec>();
  if (AcceptKeyword(Keyword::kPARTITION)) {
    if (!ExpectKeyword(Keyword::kBY)) return nullptr;
    do {
      ExprPtr e = ParseExpr();
      if (!e) return nullptr;
      w->partition_by.push_back(std::move(e));
    } while (AcceptType(TokenType::kComma));
  }
  if (AcceptKeyword(Keyword::kORDER)) {
    if (!ExpectKeyword(Keyword::kBY) || !ParseOrderItems(&w->order_by)) return nullptr;
  }
  if (AcceptKeyword(Keyword::kROWS)) {
    w->frame_unit = FrameUnit::kRows;
  } else if (AcceptKeyword(Keyword::kRANGE)) {
    w->frame_unit = FrameUnit::kRange;
  }
  if (w->frame_unit != FrameUnit::kNone) {
    if (AcceptKeyword(Keyword::kBETWEEN)) {
      if (!ParseFrameBound(&w->frame_start) || !ExpectKeyword(Keyword::kAND)) return nullptr;
      w->frame_end.emplace();
      if (!ParseFrameBound(&*w->frame_end)) return nullptr;
    } else if (!ParseFrameBound(&w->frame_start)) {
      return nullptr;
    }
  }
  if (!ExpectType(TokenType::kRParen)) return nullptr;
  return w;
}

ExprPtr Parser::ParseCase() {
  const Token& t = Peek();
  ++pos_;
  auto node = Make<CaseExpr>(t);
  if (!PeekKeyword(Keyword::kWHEN)) {
    node->operand = ParseExpr();
    if (!node->operand) return nullptr;
  }
  if (!PeekKeyword(Keyword::kWHEN)) {
    NoteExpectedKeyword(Keyword::kWHEN);
    return nullptr;
  }
  while (AcceptKeyword(Keyword::kWHEN)) {
    WhenClause w;
    w.condition = ParseExpr();
    if (!w.condition || !ExpectKeyword(Keyword::kTHEN)) return nullptr;
    w.result = ParseExpr();
    if (!w.result) return nullptr;
    node->whens.push_back(std::move(w));
  }
  if (AcceptKeyword(Keyword::kELSE)) {
    node->else_result = ParseExpr();
    if (!node->else_result) return nullptr;
  }
  if (!ExpectKeyword(Keyword::kEND)) return nullptr;
  return node;
}

ExprPtr Parser::ParseCast(bool try_cast) {
  const Token& t = Peek();
  pos_ += 1;
  if (!ExpectType(TokenType::kLParen)) return nullptr;
  auto node = Make<CastExpr>(t);
  node->try_cast = try_cast;
  node->operand = ParseExpr();
  if (!node->operand || !ExpectKeyword(Keyword::kAS)) return nullptr;
  if (!ParseCastTarget(node.get()) || !ExpectType(TokenType::kRParen)) return nullptr;
  if (try_cast && node->object_id != ObjectIdType::kNone) {
    Fail(t, "TRY_CAST cannot cast to an object identifier type");
    return nullptr;
  }
  return node;
}

namespace {

// PostgreSQL's object identifier types a cast can name.
ObjectIdType ObjectIdTypeOf(std::string_view word) {
  static constexpr std::pair<std::string_view, ObjectIdType> kTypes[] = {
      {"REGCLASS", ObjectIdType::kRegclass},
      {"REGTYPE", ObjectIdType::kRegtype},
      {"REGNAMESPACE", ObjectIdType::kRegnamespace},
      {"REGPROC", ObjectIdType::kRegproc},
      {"REGROLE", ObjectIdType::kRegrole},
  };
  for (const auto& [w, t] : kTypes) {
    if (EqualsIgnoreCase(w, word)) return t;
  }
  return ObjectIdType::kNone;
}

// PostgreSQL's names of types a client's casts use that hop's types cover: OIDs are BIGINT
// (they are unsigned 32-bit), `name` and `bpchar` are VARCHAR; `"char"` (quoted) is CHAR(1).
std::optional<DataType> PostgresTypeAlias(std::string_view word) {
  static constexpr std::pair<std::string_view, TypeName> kAliases[] = {
      {"OID", TypeName::kBigInt},     {"NAME", TypeName::kVarchar},   {"INT2", TypeName::kSmallInt},
      {"INT4", TypeName::kInteger},   {"INT8", TypeName::kBigInt},    {"FLOAT4", TypeName::kReal},
      {"FLOAT8", TypeName::kDouble},  {"BPCHAR", TypeName::kVarchar},
  };
  for (const auto& [w, t] : kAliases) {
    if (EqualsIgnoreCase(w, word)) return DataType(t);
  }
  return std::nullopt;
}

}  // namespace

bool Parser::ParseCastTarget(CastExpr* node) {
  // A `pg_catalog.` qualifier names PostgreSQL's built-in type: `x::pg_catalog.text`.
  if (PeekType(TokenType::kWord) && EqualsIgnoreCase(TokenText(Peek()), "PG_CATALOG") &&
      PeekType(TokenType::kDot, 1)) {
    pos_ += 2;
  }
  const Token& t = Peek();
  if (t.type == TokenType::kWord) {
    node->object_id = ObjectIdTypeOf(TokenText(t));
    if (node->object_id != ObjectIdType::kNone) {
      ++pos_;
      return true;
    }
  }
  // `"char"` quoted is PostgreSQL's one-byte type; OID, NAME, INT4 and the like only in casts.
  const bool quoted_char = t.type == TokenType::kQuotedIdentifier && TokenText(t) == "\"char\"";
  if (quoted_char || t.type == TokenType::kWord) {
    std::optional<DataType> alias = PostgresTypeAlias(TokenText(t));
    if (quoted_char) {
      alias.emplace(TypeName::kChar);
      alias->precision = 1;
    }
    if (alias) {
      ++pos_;
      DepthGuard guard(this);
      if (!guard.ok()) return false;
      ParseCollectionSuffixes(*alias, guard);
      if (failed_hard()) return false;
      node->type = std::move(*alias);
      return true;
    }
  }
  auto type = ParseType();
  if (!type) return false;
  node->type = std::move(*type);
  return true;
}

bool Parser::ParseOperatorName(BinaryOp* op, int* prec) {
  // OPERATOR ( [pg_catalog .] op ): operator_end_ is where the expression continues.
  size_t k = 2;
  if (PeekType(TokenType::kWord, k) && EqualsIgnoreCase(TokenText(Peek(k)), "PG_CATALOG") &&
      PeekType(TokenType::kDot, k + 1)) {
    k += 2;
  }
  const Token& o = Peek(k);
  if (!BinaryOperator(o, op, prec) || o.type == TokenType::kWord) {
    pos_ += k;
    Fail(o, "OPERATOR() names one of: = <> < <= > >= ~ ~* !~ !~* + - * / % ||");
    return false;
  }
  if (!PeekType(TokenType::kRParen, k + 1)) {
    pos_ += k + 1;
    NoteExpectedType(TokenType::kRParen);
    return false;
  }
  operator_end_ = pos_ + k + 2;
  return true;
}

ExprPtr Parser::ParseQuantified(BinaryOp op, ExprPtr left, const Token& at) {
  auto node = Make<QuantifiedExpr>(at);
  node->all = PeekKeyword(Keyword::kALL);
  pos_ += 2;  // ANY (
  node->op = op;
  node->operand = std::move(left);
  if (PeekQueryStart()) {
    node->query = ParseQuery();
    if (!node->query || !ExpectType(TokenType::kRParen)) return nullptr;
    return node;
  }
  node->array = ParseExpr();
  if (!node->array || !ExpectType(TokenType::kRParen)) return nullptr;
  return node;
}

bool Parser::ParseDefaultCollation() {
  if (PeekType(TokenType::kWord) && EqualsIgnoreCase(TokenText(Peek()), "PG_CATALOG") &&
      PeekType(TokenType::kDot, 1)) {
    pos_ += 2;
  }
  const Token& c = Peek();
  const bool is_default = (c.type == TokenType::kWord && c.keyword == Keyword::kDEFAULT) ||
                          (c.type == TokenType::kQuotedIdentifier && TokenText(c) == "\"default\"");
  if (!is_default) {
    Fail(c, "hop has only the default collation: COLLATE pg_catalog.default");
    return false;
  }
  ++pos_;
  return true;
}

ExprPtr Parser::ParseInterval() {
  const Token& t = Peek();
  ++pos_;
  auto node = Make<LiteralExpr>(t);
  node->literal = LiteralKind::kInterval;
  auto value = ParseStringLiteral();
  if (!value) return nullptr;
  node->value = std::move(*value);
  auto unit = [&](IntervalUnit* out) -> bool {
    const Token& u = Peek();
    if (u.type == TokenType::kWord && IntervalUnitFor(u.keyword, out)) {
      ++pos_;
      return true;
    }
    for (Keyword kw : kIntervalUnitKeywords) NoteExpectedKeyword(kw);
    return false;
  };
  if (!unit(&node->from_unit)) return nullptr;
  if (PeekType(TokenType::kLParen)) {
    ++pos_;
    auto p = ParseSmallInteger("interval precision");
    if (!p || !ExpectType(TokenType::kRParen)) return nullptr;
    node->from_precision = *p;
  }
  if (AcceptKeyword(Keyword::kTO)) {
    if (!unit(&node->to_unit)) return nullptr;
    if (node->to_unit == IntervalUnit::kSecond && PeekType(TokenType::kLParen)) {
      ++pos_;
      auto p = ParseSmallInteger("interval precision");
      if (!p || !ExpectType(TokenType::kRParen)) return nullptr;
      node->to_precision = *p;
    }
  }
  return node;
}

ExprPtr Parser::ParseExtract() {
  const Token& t = Peek();
  pos_ += 2;  // EXTRACT (
  auto node = Make<ExtractExpr>(t);
  const Token& u = Peek();
  if (u.type != TokenType::kWord || !IsTimeUnit(TokenText(u))) {
    NoteExpectedCategory(ExpectCategory::kTimeUnit);
    return nullptr;
  }
  ++pos_;
  node->unit = AsciiToUpper(TokenText(u));
  if (!ExpectKeyword(Keyword::kFROM)) return nullptr;
  node->operand = ParseExpr();
  if (!node->operand || !ExpectType(TokenType::kRParen)) return nullptr;
  return node;
}

ExprPtr Parser::ParseJsonObject() {
  const Token& t = Peek();
  pos_ += 2;  // JSON_OBJECT (
  auto node = Make<JsonObjectExpr>(t);
  auto null_clause = [&]() -> bool {
    // NULL ON NULL | ABSENT ON NULL
    if (PeekKeyword(Keyword::kNULL) && PeekKeyword(Keyword::kON, 1)) {
      pos_ += 2;
      node->absent_on_null = false;
    } else if (PeekKeyword(Keyword::kABSENT) && PeekKeyword(Keyword::kON, 1)) {
      pos_ += 2;
      node->absent_on_null = true;
    } else {
      if (!node->entries.empty()) {
        NoteExpectedKeyword(Keyword::kNULL);
        NoteExpectedKeyword(Keyword::kABSENT);
        if (PeekKeyword(Keyword::kNULL) || PeekKeyword(Keyword::kABSENT)) {
          NoteExpectedKeywordNext(Keyword::kON);
        }
      }
      return true;
    }
    node->null_clause_written = true;
    return ExpectKeyword(Keyword::kNULL);
  };
  if (AcceptType(TokenType::kRParen)) return node;
  if (!null_clause()) return nullptr;
  if (!node->null_clause_written) {
    do {
      // `KEY k VALUE v`: KEY is the keyword unless it is itself the key (`key VALUE v`).
      if (PeekKeyword(Keyword::kKEY) && !PeekKeyword(Keyword::kVALUE, 1) &&
          !PeekType(TokenType::kColon, 1) && !PeekType(TokenType::kComma, 1)) {
        ++pos_;
      }
      ExprPtr key = ParseExpr();
      if (!key) return nullptr;
      if (!AcceptType(TokenType::kColon) && !ExpectKeyword(Keyword::kVALUE)) return nullptr;
      ExprPtr value = ParseExpr();
      if (!value) return nullptr;
      node->entries.emplace_back(std::move(key), std::move(value));
    } while (AcceptType(TokenType::kComma));
    if (!null_clause()) return nullptr;
  }
  if (!ExpectType(TokenType::kRParen)) return nullptr;
  return node;
}

}  // namespace hop::sql::internal
