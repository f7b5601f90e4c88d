// Parser core: token handling, error reporting, names, literals, WITH options, data types, and
// the public entry points.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "common/source_error.h"
#include "common/strings.h"
#include "sql/lexer.h"
#include "sql/parser_impl.h"

namespace hop::sql {
namespace internal {

std::string DepthGuard::fmt_limit() {
  return fmt::format("nesting is too deep (more than {} levels)", kMaxParseDepth);
}

// ---------------------------------------------------------------------------------------------
// Tokens and errors

namespace {

// One token buffer per thread saves an allocation per statement; buffers grown by an unusually
// large statement are released afterwards.
constexpr size_t kKeptTokenCapacity = 1 << 16;

std::vector<Token>& ThreadTokenBuffer() {
  thread_local std::vector<Token> buffer;
  return buffer;
}

}  // namespace

Parser::Parser(std::string_view text, const ParseOptions& options)
    : text_(text),
      start_(options.start),
      line_prefix_(options.line_prefix),
      tokens_(ThreadTokenBuffer()) {
  tokens_.clear();
}

Parser::~Parser() {
  if (tokens_.capacity() > kKeptTokenCapacity) {
    std::vector<Token>().swap(tokens_);
  } else {
    tokens_.clear();
  }
}

Status Parser::Tokenize() { return sql::Tokenize(text_, start_, &tokens_, line_prefix_); }

void Parser::Fail(const Token& at, std::string what) {
  if (fatal_) return;
  fatal_ = Status::ParseError(
      FormatSourceError(text_, at.offset, what, {start_.line, start_.column, line_prefix_}));
}

namespace {

std::string ExpectedName(size_t item) {
  if (item < static_cast<size_t>(kKeywordCount)) {
    return std::string(KeywordText(static_cast<Keyword>(item)));
  }
  item -= kKeywordCount;
  if (item < static_cast<size_t>(TokenType::kCount)) {
    return std::string(TokenTypeName(static_cast<TokenType>(item)));
  }
  item -= static_cast<size_t>(TokenType::kCount);
  switch (static_cast<ExpectCategory>(item)) {
    case ExpectCategory::kExpression: return "expression";
    case ExpectCategory::kDataType: return "data type";
    case ExpectCategory::kLiteral: return "literal";
    case ExpectCategory::kEndOfStatement: return "end of statement";
    case ExpectCategory::kTimeUnit: return "date/time unit";
    case ExpectCategory::kCount: break;
  }
  return "?";
}

// Orders expectations for messages: punctuation and categories first, then keywords.
int ExpectedRank(const std::string& name) {
  if (name.front() == '\'') return 0;
  if (std::islower(static_cast<unsigned char>(name.front()))) return 1;
  return 2;
}

}  // namespace

Status Parser::FinishError() {
  if (fatal_) return *fatal_;
  std::vector<std::string> names;
  for (size_t i = 0; i < kExpectCount; ++i) {
    if (expected_.test(i)) names.push_back(ExpectedName(i));
  }
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    int ra = ExpectedRank(a), rb = ExpectedRank(b);
    return ra != rb ? ra < rb : a < b;
  });
  names.erase(std::unique(names.begin(), names.end()), names.end());

  const size_t at = std::min(furthest_, tokens_.size() - 1);
  const Token& tok = tokens_[at];
  std::string found;
  if (tok.type == TokenType::kEnd) {
    found = "end of input";
  } else {
    std::string_view raw = TokenText(tok);
    const bool quoted =
        tok.type == TokenType::kString || tok.type == TokenType::kQuotedIdentifier ||
        tok.type == TokenType::kDollarString || tok.type == TokenType::kBinaryString ||
        tok.type == TokenType::kEscapeString;
    found = quoted ? "" : "'";
    found.append(raw.substr(0, 40));
    if (raw.size() > 40) found += "...";
    if (!quoted) found += "'";
  }
  std::string what;
  constexpr size_t kMaxListed = 16;
  if (names.empty()) {
    what = fmt::format("unexpected {}", found);
  } else if (names.size() == 1) {
    what = fmt::format("expected {}, found {}", names[0], found);
  } else {
    std::string list;
    for (size_t i = 0; i < names.size() && i < kMaxListed; ++i) {
      if (i > 0) list += ", ";
      list += names[i];
    }
    if (names.size() > kMaxListed)
      list += fmt::format(", ... ({} more)", names.size() - kMaxListed);
    what = fmt::format("expected one of: {}; found {}", list, found);
  }
  return Status::ParseError(
      FormatSourceError(text_, tok.offset, what, {start_.line, start_.column, line_prefix_}));
}

bool Parser::AtStatementEnd() {
  while (PeekType(TokenType::kSemicolon)) ++pos_;
  if (PeekType(TokenType::kEnd)) return true;
  NoteExpectedCategory(ExpectCategory::kEndOfStatement);
  return false;
}

// ---------------------------------------------------------------------------------------------
// Names

bool Parser::PeekIdentifier(size_t ahead) const {
  const Token& t = Peek(ahead);
  if (t.type == TokenType::kQuotedIdentifier) return true;
  return t.type == TokenType::kWord && (t.keyword == Keyword::kNone || !IsReserved(t.keyword));
}

Identifier Parser::MakeIdentifier(const Token& t) const {
  Identifier id;
  const std::string_view raw = TokenText(t);
  id.written.assign(raw);
  id.loc = t.loc;
  if (t.type == TokenType::kQuotedIdentifier) {
    id.quoted = true;
    id.name = UnquoteToken(text_, t);
  } else {
    id.name.resize(raw.size());
    bool ascii = true;
    for (size_t i = 0; i < raw.size(); ++i) {
      id.name[i] = AsciiUpper(raw[i]);
      ascii &= static_cast<unsigned char>(raw[i]) < 0x80;
    }
    if (!ascii) id.name = Utf8ToUpper(raw);  // fold letters of every script, as Calcite does
  }
  return id;
}

std::optional<Identifier> Parser::ParseIdentifier() {
  if (!PeekIdentifier()) {
    NoteExpectedType(TokenType::kWord);
    return std::nullopt;
  }
  const Token& t = Peek();
  if (t.type == TokenType::kQuotedIdentifier && t.length <= 2) {
    Fail(t, "a quoted identifier must not be empty");
    return std::nullopt;
  }
  ++pos_;
  return MakeIdentifier(t);
}

size_t Parser::CountNameParts() const {
  size_t parts = 1;
  while (PeekType(TokenType::kDot, 2 * parts - 1) && PeekIdentifier(2 * parts)) ++parts;
  return parts;
}

bool Parser::ParseQualifiedName(QualifiedName* out) {
  out->parts.reserve(CountNameParts());
  auto first = ParseIdentifier();
  if (!first) return false;
  out->parts.push_back(std::move(*first));
  while (PeekType(TokenType::kDot) && PeekIdentifier(1)) {
    ++pos_;
    auto part = ParseIdentifier();
    if (!part) return false;
    out->parts.push_back(std::move(*part));
  }
  return true;
}

bool Parser::ParseIdentifierList(std::vector<Identifier>* out) {
  if (!ExpectType(TokenType::kLParen)) return false;
  do {
    auto id = ParseIdentifier();
    if (!id) return false;
    out->push_back(std::move(*id));
  } while (AcceptType(TokenType::kComma));
  return ExpectType(TokenType::kRParen);
}

// ---------------------------------------------------------------------------------------------
// Literals and options

std::optional<std::string> Parser::ParseStringLiteral() {
  if (!PeekString()) {
    NoteExpectedType(TokenType::kString);
    return std::nullopt;
  }
  return UnquoteToken(text_, tokens_[pos_++]);
}

std::optional<int> Parser::ParseSmallInteger(std::string_view what) {
  if (!PeekType(TokenType::kInteger)) {
    NoteExpectedType(TokenType::kInteger);
    return std::nullopt;
  }
  const Token& t = tokens_[pos_];
  std::string_view digits = TokenText(t);
  int value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) {
    Fail(t, fmt::format("{} {} is out of range", what, digits));
    return std::nullopt;
  }
  ++pos_;
  return value;
}

bool Parser::ParseOptionList(OptionList* out) {
  out->present = true;
  if (!ExpectType(TokenType::kLParen)) return false;
  if (AcceptType(TokenType::kRParen)) return true;
  do {
    Option opt;
    opt.loc = Peek().loc;
    if (PeekString()) {
      opt.key = *ParseStringLiteral();
    } else {
      // A compound identifier; parts may be any word, reserved or not (`table.name`), since a key
      // is never mistaken for anything else here.
      bool first = true;
      do {
        const Token& t = Peek();
        if (t.type != TokenType::kWord && t.type != TokenType::kQuotedIdentifier) {
          if (first) NoteExpectedType(TokenType::kString);
          NoteExpectedType(TokenType::kWord);
          return false;
        }
        if (t.type == TokenType::kQuotedIdentifier && t.length <= 2) {
          Fail(t, "a quoted identifier must not be empty");
          return false;
        }
        ++pos_;
        if (!first) opt.key.push_back('.');
        opt.key += MakeIdentifier(t).name;
        first = false;
      } while (AcceptType(TokenType::kDot));
    }
    AcceptType(TokenType::kEq);  // `key 'v'` (Hoptimator) and `'key' = 'v'` (Flink) both read
    bool negative = false;
    if (PeekType(TokenType::kMinus) || PeekType(TokenType::kPlus)) {
      negative = PeekType(TokenType::kMinus);
      ++pos_;
      if (!PeekType(TokenType::kInteger) && !PeekType(TokenType::kDecimal) &&
          !PeekType(TokenType::kFloat)) {
        NoteExpectedType(TokenType::kInteger);
        return false;
      }
    }
    const Token& v = Peek();
    switch (v.type) {
      case TokenType::kString:
      case TokenType::kEscapeString:
      case TokenType::kDollarString:
        opt.value = UnquoteToken(text_, v);
        opt.kind = OptionValueKind::kString;
        break;
      case TokenType::kInteger:
      case TokenType::kDecimal:
      case TokenType::kFloat:
        opt.value = negative ? "-" : "";
        opt.value += TokenText(v);
        opt.kind = OptionValueKind::kNumber;
        break;
      case TokenType::kWord:
        if (v.keyword == Keyword::kTRUE || v.keyword == Keyword::kFALSE) {
          opt.value = std::string(KeywordText(v.keyword));
          opt.kind = OptionValueKind::kBoolean;
          break;
        }
        if (v.keyword == Keyword::kNULL) {
          opt.kind = OptionValueKind::kNull;
          break;
        }
        [[fallthrough]];
      default: NoteExpectedCategory(ExpectCategory::kLiteral); return false;
    }
    ++pos_;
    out->items.push_back(std::move(opt));
  } while (AcceptType(TokenType::kComma));
  return ExpectType(TokenType::kRParen);
}

// ---------------------------------------------------------------------------------------------
// Data types

namespace {

enum class TypeWord {
  kNone,
  kBoolean,
  kTinyInt,
  kSmallInt,
  kInteger,
  kBigInt,
  kFloat,
  kReal,
  kDouble,
  kDecimal,
  kChar,
  kVarchar,
  kString,
  kBinary,
  kVarbinary,
  kBytes,
  kDate,
  kTime,
  kTimestamp,
  kTimestampLtz,
  kTimestampTz,
  kArray,
  kMultiset,
  kMap,
  kRow,
};

TypeWord LookupTypeWord(std::string_view word) {
  static constexpr std::pair<std::string_view, TypeWord> kWords[] = {
      {"BOOLEAN", TypeWord::kBoolean},
      {"BOOL", TypeWord::kBoolean},
      {"TINYINT", TypeWord::kTinyInt},
      {"SMALLINT", TypeWord::kSmallInt},
      {"INT", TypeWord::kInteger},
      {"INTEGER", TypeWord::kInteger},
      {"BIGINT", TypeWord::kBigInt},
      {"FLOAT", TypeWord::kFloat},
      {"REAL", TypeWord::kReal},
      {"DOUBLE", TypeWord::kDouble},
      {"DECIMAL", TypeWord::kDecimal},
      {"DEC", TypeWord::kDecimal},
      {"NUMERIC", TypeWord::kDecimal},
      {"CHAR", TypeWord::kChar},
      {"CHARACTER", TypeWord::kChar},
      {"VARCHAR", TypeWord::kVarchar},
      {"STRING", TypeWord::kString},
      {"TEXT", TypeWord::kString},
      {"BINARY", TypeWord::kBinary},
      {"VARBINARY", TypeWord::kVarbinary},
      {"BYTES", TypeWord::kBytes},
      {"BYTEA", TypeWord::kBytes},
      {"BLOB", TypeWord::kBytes},
      {"DATE", TypeWord::kDate},
      {"TIME", TypeWord::kTime},
      {"TIMESTAMP", TypeWord::kTimestamp},
      {"TIMESTAMP_LTZ", TypeWord::kTimestampLtz},
      {"TIMESTAMPTZ", TypeWord::kTimestampTz},
      {"ARRAY", TypeWord::kArray},
      {"MULTISET", TypeWord::kMultiset},
      {"MAP", TypeWord::kMap},
      {"ROW", TypeWord::kRow},
  };
  if (word.size() > 16) return TypeWord::kNone;
  for (const auto& [w, t] : kWords) {
    if (EqualsIgnoreCase(w, word)) return t;
  }
  return TypeWord::kNone;
}

}  // namespace

bool Parser::ParseRowFields(TokenType close, std::vector<RowField>* fields) {
  do {
    auto name = ParseIdentifier();
    if (!name) return false;
    auto type = ParseType();
    if (!type) return false;
    fields->push_back(RowField{std::move(*name), std::move(*type)});
  } while (AcceptType(TokenType::kComma));
  return ExpectType(close);
}

bool Parser::ExpectAngle() {
  // The lexer reads `<>` as one token; in `ARRAY<>` it is an opening bracket with nothing inside.
  if (PeekType(TokenType::kNe) && TokenText(Peek()) == "<>") {
    Fail(Peek(), "expected data type between '<' and '>'");
    return false;
  }
  return ExpectType(TokenType::kLt);
}

std::optional<DataType> Parser::ParseType() {
  DepthGuard guard(this);
  if (!guard.ok()) return std::nullopt;
  const Token& t = Peek();
  TypeWord word = t.type == TokenType::kWord ? LookupTypeWord(TokenText(t)) : TypeWord::kNone;
  if (word == TypeWord::kNone) {
    NoteExpectedCategory(ExpectCategory::kDataType);
    return std::nullopt;
  }
  ++pos_;
  DataType type;
  auto length = [&](std::string_view what) -> bool {
    if (!PeekType(TokenType::kLParen)) return true;
    ++pos_;
    auto n = ParseSmallInteger(what);
    if (!n) return false;
    type.precision = *n;
    return ExpectType(TokenType::kRParen);
  };
  auto time_zone = [&]() -> bool {
    // [WITH [LOCAL] TIME ZONE | WITHOUT TIME ZONE]
    if (PeekKeyword(Keyword::kWITH) &&
        (PeekKeyword(Keyword::kTIME, 1) || PeekKeyword(Keyword::kLOCAL, 1))) {
      ++pos_;
      type.time_zone =
          AcceptKeyword(Keyword::kLOCAL) ? TimeZone::kWithLocalTimeZone : TimeZone::kWithTimeZone;
      return ExpectKeyword(Keyword::kTIME) && ExpectKeyword(Keyword::kZONE);
    }
    if (PeekKeyword(Keyword::kWITH)) {  // `WITH ZONE` and the like: say what WITH needs
      NoteExpectedKeywordNext(Keyword::kTIME);
      NoteExpectedKeywordNext(Keyword::kLOCAL);
    }
    if (AcceptKeyword(Keyword::kWITHOUT)) {
      return ExpectKeyword(Keyword::kTIME) && ExpectKeyword(Keyword::kZONE);
    }
    return true;
  };
  switch (word) {
    case TypeWord::kNone: return std::nullopt;
    case TypeWord::kBoolean: type.name = TypeName::kBoolean; break;
    case TypeWord::kTinyInt: type.name = TypeName::kTinyInt; break;
    case TypeWord::kSmallInt: type.name = TypeName::kSmallInt; break;
    case TypeWord::kInteger: type.name = TypeName::kInteger; break;
    case TypeWord::kBigInt: type.name = TypeName::kBigInt; break;
    case TypeWord::kFloat:
      type.name = TypeName::kFloat;
      if (!length("precision")) return std::nullopt;
      break;
    case TypeWord::kReal: type.name = TypeName::kReal; break;
    case TypeWord::kDouble:
      type.name = TypeName::kDouble;
      if (PeekType(TokenType::kWord) && EqualsIgnoreCase(TokenText(Peek()), "PRECISION")) ++pos_;
      break;
    case TypeWord::kDecimal:
      type.name = TypeName::kDecimal;
      if (AcceptType(TokenType::kLParen)) {
        auto p = ParseSmallInteger("precision");
        if (!p) return std::nullopt;
        type.precision = *p;
        if (AcceptType(TokenType::kComma)) {
          auto s = ParseSmallInteger("scale");
          if (!s) return std::nullopt;
          type.scale = *s;
        }
        if (!ExpectType(TokenType::kRParen)) return std::nullopt;
      }
      break;
    case TypeWord::kChar:
      type.name = TypeName::kChar;
      if (PeekType(TokenType::kWord) && EqualsIgnoreCase(TokenText(Peek()), "VARYING")) {
        ++pos_;
        type.name = TypeName::kVarchar;
      }
      if (!length("length")) return std::nullopt;
      break;
    case TypeWord::kVarchar:
      type.name = TypeName::kVarchar;
      if (!length("length")) return std::nullopt;
      break;
    case TypeWord::kString: type.name = TypeName::kVarchar; break;
    case TypeWord::kBinary:
      type.name = TypeName::kBinary;
      if (!length("length")) return std::nullopt;
      break;
    case TypeWord::kVarbinary:
      type.name = TypeName::kVarbinary;
      if (!length("length")) return std::nullopt;
      break;
    case TypeWord::kBytes: type.name = TypeName::kBytes; break;
    case TypeWord::kDate: type.name = TypeName::kDate; break;
    case TypeWord::kTime:
      type.name = TypeName::kTime;
      if (!length("precision") || !time_zone()) return std::nullopt;
      break;
    case TypeWord::kTimestamp:
      type.name = TypeName::kTimestamp;
      if (!length("precision") || !time_zone()) return std::nullopt;
      break;
    case TypeWord::kTimestampLtz:
      type.name = TypeName::kTimestamp;
      type.time_zone = TimeZone::kWithLocalTimeZone;
      if (!length("precision")) return std::nullopt;
      break;
    case TypeWord::kTimestampTz:
      type.name = TypeName::kTimestamp;
      type.time_zone = TimeZone::kWithTimeZone;
      if (!length("precision")) return std::nullopt;
      break;
    case TypeWord::kArray:
    case TypeWord::kMultiset: {
      type.name = word == TypeWord::kArray ? TypeName::kArray : TypeName::kMultiset;
      if (!ExpectAngle()) return std::nullopt;
      auto element = ParseType();
      if (!element) return std::nullopt;
      type.params.push_back(std::move(*element));
      if (!ExpectType(TokenType::kGt)) return std::nullopt;
      break;
    }
    case TypeWord::kMap: {
      type.name = TypeName::kMap;
      if (!ExpectAngle()) return std::nullopt;
      auto key = ParseType();
      if (!key || !ExpectType(TokenType::kComma)) return std::nullopt;
      auto value = ParseType();
      if (!value || !ExpectType(TokenType::kGt)) return std::nullopt;
      type.params.push_back(std::move(*key));
      type.params.push_back(std::move(*value));
      break;
    }
    case TypeWord::kRow: {
      type.name = TypeName::kRow;
      if (AcceptType(TokenType::kLParen)) {
        if (!ParseRowFields(TokenType::kRParen, &type.fields)) return std::nullopt;
      } else if (PeekType(TokenType::kLt) || PeekType(TokenType::kNe)) {
        if (!ExpectAngle() || !ParseRowFields(TokenType::kGt, &type.fields)) return std::nullopt;
      } else {
        NoteExpectedType(TokenType::kLParen);
        return std::nullopt;
      }
      break;
    }
  }
  // Postfix collection constructors: `INTEGER ARRAY`, `INTEGER[]`, `INTEGER MULTISET`. An
  // element's nullability may come before them, as Flink writes it: `INTEGER NOT NULL ARRAY`.
  while (true) {
    ParseCollectionSuffixes(type, guard);
    if (failed_hard()) return std::nullopt;
    const bool nullability = PeekKeyword(Keyword::kNULL) ||
                             (PeekKeyword(Keyword::kNOT) && PeekKeyword(Keyword::kNULL, 1));
    if (PeekKeyword(Keyword::kNOT) && PeekKeyword(Keyword::kNULL, 1)) {
      pos_ += 2;
      type.nullability = Nullability::kNotNull;
    } else if (AcceptKeyword(Keyword::kNULL)) {
      type.nullability = Nullability::kNull;
    } else if (PeekKeyword(Keyword::kNOT)) {
      NoteExpectedKeywordNext(Keyword::kNULL);  // `INT NOT` (unless NOT starts a predicate)
    }
    // Only a collection suffix continues the type; it is not listed as expected here, so that
    // messages after `INT NOT NULL` name what follows a column.
    if (!nullability || !PeekCollectionSuffix()) break;
  }
  return type;
}

bool Parser::PeekCollectionSuffix() const {
  return PeekKeyword(Keyword::kARRAY) ||
         (PeekType(TokenType::kLBracket) && PeekType(TokenType::kRBracket, 1)) ||
         (PeekType(TokenType::kWord) && EqualsIgnoreCase(TokenText(Peek()), "MULTISET"));
}

void Parser::ParseCollectionSuffixes(DataType& type, DepthGuard& guard) {
  while (true) {
    TypeName collection = TypeName::kArray;
    if (PeekKeyword(Keyword::kARRAY)) {
      ++pos_;
    } else if (PeekType(TokenType::kLBracket) && PeekType(TokenType::kRBracket, 1)) {
      pos_ += 2;
    } else if (PeekType(TokenType::kWord) && EqualsIgnoreCase(TokenText(Peek()), "MULTISET")) {
      ++pos_;
      collection = TypeName::kMultiset;
    } else {
      if (PeekType(TokenType::kLBracket)) NoteExpectedTypeNext(TokenType::kRBracket);
      NoteExpectedKeyword(Keyword::kARRAY);
      return;
    }
    if (!guard.Deepen()) return;
    DataType array(collection);
    array.params.push_back(std::move(type));
    type = std::move(array);
  }
}

// ---------------------------------------------------------------------------------------------
// Entry points

Result<StatementPtr> Parser::RunStatement() {
  HOP_RETURN_IF_ERROR(Tokenize());
  const size_t first = 0;
  StatementPtr stmt = ParseStatementBody();
  // A hard error may have been recorded inside a construct that still parsed; it always wins.
  if (!stmt || failed_hard() || !AtStatementEnd()) return FinishError();
  SetSource(*stmt, first, pos_);
  return stmt;
}

void Parser::SetSource(Statement& stmt, size_t first, size_t end) {
  // The statement's source: from its first token to the end of its last token before any ';'.
  size_t last = end;
  while (last > first && (tokens_[last - 1].type == TokenType::kSemicolon ||
                          tokens_[last - 1].type == TokenType::kEnd)) {
    --last;
  }
  if (last <= first) return;
  const Token& b = tokens_[first];
  const Token& e = tokens_[last - 1];
  stmt.source.assign(text_.substr(b.offset, e.offset + e.length - b.offset));
  stmt.loc = b.loc;
  // What precedes the statement on its first line, for messages that show that line.
  std::string_view before = text_.substr(0, b.offset);
  size_t newline = before.rfind('\n');
  if (newline == std::string_view::npos) {
    stmt.line_prefix.assign(line_prefix_);
    stmt.line_prefix.append(before);
  } else {
    stmt.line_prefix.assign(before.substr(newline + 1));
  }
}

Result<ExprPtr> Parser::RunExpression() {
  HOP_RETURN_IF_ERROR(Tokenize());
  ExprPtr e = ParseExpr();
  if (!e || failed_hard() || !AtStatementEnd()) return FinishError();
  return e;
}

Result<DataType> Parser::RunDataType() {
  HOP_RETURN_IF_ERROR(Tokenize());
  auto t = ParseType();
  if (!t || failed_hard() || !AtStatementEnd()) return FinishError();
  return std::move(*t);
}

}  // namespace internal

Result<StatementPtr> ParseStatement(std::string_view text, const ParseOptions& options) {
  return internal::Parser(text, options).RunStatement();
}

Result<ExprPtr> ParseExpression(std::string_view text, const ParseOptions& options) {
  return internal::Parser(text, options).RunExpression();
}

Result<DataType> ParseDataType(std::string_view text, const ParseOptions& options) {
  return internal::Parser(text, options).RunDataType();
}

}  // namespace hop::sql
