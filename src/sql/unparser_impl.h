// The SQL writer's implementation, shared by the unparser*.cc files and internal to src/sql. One
// Writer walks an AST appending to a string; a construct the dialect cannot express records the
// first such error and printing continues, so a single pass both prints and checks. Its methods
// are split by concern, as the parser's are:
//
//   unparser.cc            dialect names, quoting, the entry points (PrintStatement, ...)
//   unparser_type.cc       data types
//   unparser_expression.cc expressions: precedence and the groupings dialects read differently
//   unparser_query.cc      queries: WITH, set operations, SELECT, VALUES, FROM, ORDER BY, LIMIT
//   unparser_statement.cc  statements: DDL with its options, INSERT, SET / RESET / SHOW, ...
#pragma once

#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sql/ast/statements.h"
#include "sql/parser_impl.h"
#include "sql/unparser.h"

namespace hop::sql::internal {

// Operator families whose relative binding differs between dialects: `||` against arithmetic
// (Calcite: like `*`; PostgreSQL: below `+`; SQLite: above `*`), and comparisons, predicates and
// IS against each other (SQLite ranks `<` above `=` and puts `=`, IN and LIKE on one level;
// PostgreSQL does not chain comparisons). Where two such families meet, the printer always writes
// parentheses, so every dialect reads the same grouping.
enum class Family { kOther, kConcat, kArithmetic, kComparison, kPredicate, kIs };

// How the writer spells a data type: as the dialect's SQL; as Hoptimator's pipeline scripts
// declare columns (PrintOptions::pipeline_ddl); or as Calcite names types in messages (not SQL:
// `(VARCHAR, INTEGER) MAP`, `RecordType(VARCHAR A)`), with or without NOT NULL.
enum class TypeSpelling : uint8_t { kSql, kPipelineDdl, kMessage, kMessageWithNullability };

// Appends `text` to `out` between two `quote`s, with every `quote` in it doubled.
void AppendQuoted(std::string& out, std::string_view text, char quote);
// The quote of a dialect's identifiers: '`' for Flink, '"' otherwise.
inline char IdentifierQuote(Dialect d) { return d == Dialect::kFlink ? '`' : '"'; }

// Whether `s` is a word that needs no quotes to read back as itself: a letter or '_', then
// letters, digits, '_' and '$'.
bool IsSimpleWord(std::string_view s);

class Writer {
 public:
  explicit Writer(const PrintOptions& options) : opts_(options), d_(options.dialect) {}

  Result<std::string> Finish() {
    if (!error_.ok()) return error_;
    return std::move(out_);
  }

  // ---- basics ----
  void Raw(std::string_view s) { out_ += s; }
  void Reserve(size_t n) { out_.reserve(n); }
  void Ident(const Identifier& id) { AppendQuoted(out_, id.name, IdentifierQuote(d_)); }
  // A string literal: 'text' with '' doubled.
  void String(std::string_view text) { AppendQuoted(out_, text, '\''); }
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
  // Whether DDL is written as pipeline scripts write it (PrintOptions::pipeline_ddl).
  bool pipeline_ddl() const { return opts_.pipeline_ddl && flink(); }

  // ---- types ----
  void Type(const DataType& t);
  void set_type_spelling(TypeSpelling spelling) { type_spelling_ = spelling; }

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
  // `SELECT * FROM (q) AS alias (columns)` (PrintRenamedQuery).
  void RenamedQuery(const sql::Query& q, const TableAlias& alias);

  // ---- statements ----
  void Statement(const sql::Statement& s);
  void CreateCatalog(const CreateCatalogStatement& s);
  void Options(const OptionList& options);
  void CreateTable(const CreateTableStatement& s);
  void SettingName(const std::string& name);

 private:
  const PrintOptions& opts_;
  Dialect d_;
  TypeSpelling type_spelling_ = TypeSpelling::kSql;
  std::string out_;
  Status error_;
};

}  // namespace hop::sql::internal
