// The recursive-descent parser shared by parse_*.cc. Internal to src/sql.
//
// Conventions: every Parse* function either consumes a complete construct and returns it, or
// returns null/false. Failures are recorded in two ways: "soft" failures note, at the furthest
// token reached, which tokens would have been accepted there (the error message lists them);
// "hard" failures (nesting too deep, a number out of range) set `fatal_` and win.
#pragma once

#include <bitset>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sql/ast/statements.h"
#include "sql/parser.h"
#include "sql/token.h"

namespace hop::sql::internal {

// Things the parser can report as expected: keywords, token types and a few categories.
enum class ExpectCategory : uint8_t {
  kExpression,
  kDataType,
  kLiteral,
  kEndOfStatement,
  kTimeUnit,
  kCount
};

inline constexpr size_t kExpectCount = static_cast<size_t>(kKeywordCount) +
                                       static_cast<size_t>(TokenType::kCount) +
                                       static_cast<size_t>(ExpectCategory::kCount);

// Binding strength of expression operators, loosest first; the printer uses the same table. The
// order is Calcite's: BETWEEN, IN and LIKE bind tighter than comparisons, IS DISTINCT FROM is a
// comparison, and `||` binds like `*`.
enum Precedence : int {
  kPrecLowest = 0,
  kPrecOr = 1,
  kPrecAnd = 2,
  kPrecNot = 3,
  kPrecIs = 4,          // postfix IS [NOT] NULL / TRUE / FALSE / UNKNOWN
  kPrecComparison = 5,  // = <> < <= > >= IS [NOT] DISTINCT FROM
  kPrecPredicate = 6,   // BETWEEN, IN, LIKE
  kPrecAdditive = 7,
  kPrecMultiplicative = 8,  // * / % ||
  kPrecUnary = 9,
  kPrecPostfix = 10,  // subscripts and ::
  kPrecAtom = 11,
};

class DepthGuard;

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options);
  ~Parser();
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  Result<StatementPtr> RunStatement();
  Result<ExprPtr> RunExpression();
  Result<DataType> RunDataType();

 private:
  friend class DepthGuard;

  // ---- tokens ----
  const Token& Peek(size_t ahead = 0) const {
    size_t i = pos_ + ahead;
    return tokens_[i < tokens_.size() ? i : tokens_.size() - 1];
  }
  bool PeekType(TokenType type, size_t ahead = 0) const { return Peek(ahead).type == type; }
  bool PeekKeyword(Keyword kw, size_t ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.type == TokenType::kWord && t.keyword == kw;
  }
  // Accept*: consume the token if it matches; otherwise note it as expected here.
  bool AcceptType(TokenType type) {
    if (Peek().type == type) {
      ++pos_;
      return true;
    }
    NoteExpectedType(type);
    return false;
  }
  bool AcceptKeyword(Keyword kw) {
    if (PeekKeyword(kw)) {
      ++pos_;
      return true;
    }
    NoteExpectedKeyword(kw);
    return false;
  }
  // Notes `kw` as expected at the token after the current one: for a construct already started
  // by the current token (`NOT` of `NOT NULL`) whose error belongs one token further.
  void NoteExpectedKeywordNext(Keyword kw) {
    ++pos_;
    NoteExpectedKeyword(kw);
    --pos_;
  }
  void NoteExpectedTypeNext(TokenType type) {
    ++pos_;
    NoteExpectedType(type);
    --pos_;
  }
  // Expect*: like Accept*, for tokens that must be there; the caller fails if this returns false.
  bool ExpectType(TokenType type) { return AcceptType(type); }
  bool ExpectKeyword(Keyword kw) { return AcceptKeyword(kw); }
  void NoteExpected(size_t item) {
    if (pos_ < furthest_) return;
    if (pos_ > furthest_) {
      furthest_ = pos_;
      expected_.reset();
    }
    expected_.set(item);
  }
  void NoteExpectedType(TokenType type) {
    NoteExpected(static_cast<size_t>(kKeywordCount) + static_cast<size_t>(type));
  }
  void NoteExpectedKeyword(Keyword kw) { NoteExpected(static_cast<size_t>(kw)); }
  void NoteExpectedCategory(ExpectCategory c) {
    NoteExpected(static_cast<size_t>(kKeywordCount) + static_cast<size_t>(TokenType::kCount) +
                 static_cast<size_t>(c));
  }
  std::string_view TokenText(const Token& t) const { return text_.substr(t.offset, t.length); }
  // Records a hard error at `at` (the first one wins).
  void Fail(const Token& at, std::string what);
  bool failed_hard() const { return fatal_.has_value(); }

  Status Tokenize();
  Status FinishError();
  bool AtStatementEnd();

  // ---- names ----
  bool PeekIdentifier(size_t ahead = 0) const;
  std::optional<Identifier> ParseIdentifier();
  bool ParseQualifiedName(QualifiedName* out);
  // How many parts the dotted name at the current token has (`a.b.c` is 3).
  size_t CountNameParts() const;
  bool ParseIdentifierList(std::vector<Identifier>* out);  // '(' a, b ')'
  Identifier MakeIdentifier(const Token& t) const;

  // ---- literals and options ----
  bool PeekString() const {
    return PeekType(TokenType::kString) || PeekType(TokenType::kDollarString) ||
           PeekType(TokenType::kEscapeString);
  }
  std::optional<std::string> ParseStringLiteral();
  bool ParseOptionList(OptionList* out);  // after WITH: '(' key value, ... ')'
  std::optional<int> ParseSmallInteger(std::string_view what);

  // ---- types ----
  std::optional<DataType> ParseType();
  // `ARRAY`, `[]` and `MULTISET` after a type, each wrapping it, under `guard`'s depth bound.
  void ParseCollectionSuffixes(DataType& type, DepthGuard& guard);
  bool PeekCollectionSuffix() const;
  bool ExpectAngle();  // the '<' of ARRAY<T>, MAP<K, V>, ROW<...>
  bool ParseRowFields(TokenType close, std::vector<RowField>* fields);

  // ---- expressions ----
  ExprPtr ParseExpr(int min_prec = kPrecLowest);
  // After `::` or CAST(x AS: a type, with PostgreSQL's names of hop's types (`pg_catalog.text`,
  // `oid`, `int4`, `name[]`) and its object identifier types (`regclass`).
  bool ParseCastTarget(CastExpr* node);
  // At `OPERATOR (`: the operator named; sets operator_end_ past the closing parenthesis.
  bool ParseOperatorName(BinaryOp* op, int* prec);
  // At `ANY (` after `left op`.
  ExprPtr ParseQuantified(BinaryOp op, ExprPtr left, const Token& at);
  // After COLLATE.
  bool ParseDefaultCollation();
  ExprPtr ParsePrefix();
  ExprPtr ParsePrimary();
  ExprPtr ParseNameOrCall();
  ExprPtr ParseFunctionCall(QualifiedName name, const Token& start);
  ExprPtr ParseCase();
  ExprPtr ParseCast(bool try_cast);
  ExprPtr ParseInterval();
  ExprPtr ParseExtract();
  ExprPtr ParseJsonObject();
  ExprPtr ParseParenthesized();
  // After a parenthesised expression: PostgreSQL's `(x).field`, repeated.
  ExprPtr ParseFieldSelections(ExprPtr base);
  // After the name TRIM, at '(': `TRIM([LEADING | TRAILING | BOTH] [chars] FROM s)` as the
  // call LTRIM(s, chars), RTRIM(s, chars) or TRIM(s, chars); any other form is a plain call.
  ExprPtr ParseTrim(QualifiedName name, const Token& start);
  // SUBSTRING(s FROM start [FOR length]) and POSITION(needle IN haystack), the standard's forms,
  // as the calls SUBSTRING(s, start[, length]) and POSITION(needle, haystack); the comma forms
  // are calls as written.
  ExprPtr ParseStandardForm(QualifiedName name, const Token& start, bool position);
  // OVERLAY(s PLACING r FROM start [FOR length]), or the call OVERLAY(s, r, start[, length]).
  ExprPtr ParseOverlay(QualifiedName name, const Token& start);
  // The end of the standard forms of SUBSTRING and OVERLAY, `[FOR length] )`: the length, if
  // any, becomes `fn`'s last argument.
  ExprPtr ParseForLengthAndClose(std::unique_ptr<FunctionExpr> fn);
  // At ARRAY followed by '(': `ARRAY(query)`.
  ExprPtr ParseArraySubquery();
  std::unique_ptr<Query> TryParseParenthesizedQuery();
  bool ParseExprList(TokenType close, std::vector<ExprPtr>* out, bool allow_empty);
  bool ParseOrderItems(std::vector<OrderItem>* out);
  std::unique_ptr<WindowSpec> ParseWindowSpec();
  bool ParseFrameBound(FrameBound* out);
  bool PeekQueryStart(size_t ahead = 0) const;

  // ---- backtracking ----
  // The parser backtracks in two places (a parenthesis that opens a query or an expression, and
  // one that opens a derived table or a parenthesised join). A snapshot restores everything an
  // abandoned attempt may have changed; and since a query that failed to parse at a position
  // fails there again, such failures are remembered, which keeps nested ambiguous parentheses
  // linear instead of exponential.
  struct Snapshot {
    size_t pos;
    int parameter_count;
    bool positional_parameters;
    bool numbered_parameters;
  };
  Snapshot Save() const {
    return {pos_, parameter_count_, positional_parameters_, numbered_parameters_};
  }
  void Restore(const Snapshot& s) {
    pos_ = s.pos;
    parameter_count_ = s.parameter_count;
    positional_parameters_ = s.positional_parameters;
    numbered_parameters_ = s.numbered_parameters;
  }

  // ---- queries ----
  std::unique_ptr<Query> ParseQuery();  // memoises failures by position
  std::unique_ptr<Query> ParseQueryAt();
  QueryBodyPtr ParseSetOperation(int min_prec);
  QueryBodyPtr ParseQueryPrimary();
  QueryBodyPtr ParseSelect();
  QueryBodyPtr ParseValues();
  bool ParseSelectItem(SelectItem* out);
  bool ParseTableAlias(std::optional<TableAlias>* out);
  TableRefPtr ParseFrom();
  TableRefPtr ParseTablePrimary();
  // After a table's name, at '(': a function in FROM, `name(args) [AS] alias [(columns)]`.
  TableRefPtr ParseFunctionRef(QualifiedName name, const Token& start);
  bool ParseJoinType(JoinType* type, bool* natural);
  bool ParseLimitOffset(Query* q);
  ExprPtr ParseRowCount();  // the count of LIMIT, OFFSET or FETCH

  // ---- statements ----
  StatementPtr ParseStatementBody();
  StatementPtr ParseCreate();
  StatementPtr ParseCreateTable(bool or_replace);
  bool ParseTableElement(CreateTableStatement* stmt);
  StatementPtr ParseCreateView(bool or_replace);
  StatementPtr ParseCreateMaterializedView(bool or_replace);
  StatementPtr ParseCreateTrigger(bool or_replace);
  StatementPtr ParseCreateDatabase(bool or_replace);
  StatementPtr ParseCreateCatalog(bool or_replace);
  StatementPtr ParseCreateFunction(bool or_replace);
  bool ParseIfNotExists();
  StatementPtr ParseInsert();
  StatementPtr ParseDrop();
  StatementPtr ParseRefresh();
  StatementPtr ParseFire();
  StatementPtr ParsePauseResume(bool resume);
  StatementPtr ParseSet();
  StatementPtr ParseReset();
  StatementPtr ParseShow();
  // EXPLAIN / SPECIFY / PIPELINE statement; DESCRIBE [TABLE] name; RESOLVE name;
  // GRAPH name [DEPTH n] [FORMAT word].
  StatementPtr ParseInspect();
  // Sets `stmt`'s source, location and line prefix from tokens [first, last) (any ';' at the
  // end left out).
  void SetSource(Statement& stmt, size_t first, size_t last);
  bool ParseSettingName(std::string* out);

  std::string_view text_;
  Location start_;
  std::string_view line_prefix_;
  // The token buffer is reused across parses on a thread (see parser.cc); a parse is never
  // re-entered on the same thread.
  std::vector<Token>& tokens_;
  size_t pos_ = 0;
  size_t operator_end_ = 0;  // ParseOperatorName's result
  int depth_ = 0;
  int parameter_count_ = 0;
  bool positional_parameters_ = false;  // `?` seen
  bool numbered_parameters_ = false;    // `$n` or `?n` seen

  std::vector<bool> query_failed_at_;  // by token index; sized on first failure

  size_t furthest_ = 0;
  std::bitset<kExpectCount> expected_;
  std::optional<Status> fatal_;
};

// Counts one level of nesting for its lifetime; `ok()` is false once the limit is passed, and the
// parser has recorded the hard error.
class DepthGuard {
 public:
  explicit DepthGuard(Parser* p, int levels = 1) : p_(p), levels_(levels) {
    p_->depth_ += levels_;
    if (p_->depth_ > kMaxParseDepth) {
      ok_ = false;
      p_->Fail(p_->Peek(), fmt_limit());
    }
  }
  ~DepthGuard() { p_->depth_ -= levels_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
  bool ok() const { return ok_; }
  // Adds one more level to this guard (for operator chains built in a loop).
  bool Deepen() {
    ++levels_;
    ++p_->depth_;
    if (p_->depth_ > kMaxParseDepth) {
      ok_ = false;
      p_->Fail(p_->Peek(), fmt_limit());
    }
    return ok_;
  }

 private:
  static std::string fmt_limit();
  Parser* p_;
  int levels_;
  bool ok_ = true;
};

}  // namespace hop::sql::internal
