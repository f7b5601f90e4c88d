// The SQL writer's entry points, dialect names and quoting; the Writer that prints is declared in
// unparser_impl.h and split by concern across the unparser_*.cc files.
#include "sql/unparser.h"

#include "common/strings.h"
#include "sql/unparser_impl.h"

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
  std::string out;
  out.reserve(name.size() + 2);
  internal::AppendQuoted(out, name, internal::IdentifierQuote(dialect));
  return out;
}

std::string QuoteString(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  internal::AppendQuoted(out, text, '\'');
  return out;
}

namespace internal {

void AppendQuoted(std::string& out, std::string_view text, char quote) {
  out.push_back(quote);
  // Runs between quotes are appended whole; each quote inside is doubled.
  for (size_t at = text.find(quote); at != std::string_view::npos; at = text.find(quote)) {
    out.append(text.data(), at + 1);
    out.push_back(quote);
    text.remove_prefix(at + 1);
  }
  out.append(text);
  out.push_back(quote);
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

}  // namespace internal

using internal::Writer;

Result<std::string> PrintStatement(const Statement& stmt, const PrintOptions& options) {
  Writer w(options);
  if (options.explain_query_plan && options.dialect == Dialect::kSqlite)
    w.Raw("EXPLAIN QUERY PLAN ");
  w.Statement(stmt);
  return w.Finish();
}

Result<std::string> PrintScript(const std::vector<StatementPtr>& statements,
                                const PrintOptions& options) {
  Writer w(options);
  w.Reserve(statements.size() * 128);  // a pipeline script's statements are about this long
  for (size_t i = 0; i < statements.size(); ++i) {
    if (i > 0) w.Raw("\n");
    w.Statement(*statements[i]);
    w.Raw(";");
  }
  return w.Finish();
}

Result<std::string> PrintQuery(const Query& query, const PrintOptions& options) {
  Writer w(options);
  if (options.explain_query_plan && options.dialect == Dialect::kSqlite)
    w.Raw("EXPLAIN QUERY PLAN ");
  w.Query(query);
  return w.Finish();
}

Result<std::string> PrintRenamedQuery(const Query& query, const std::vector<Identifier>& columns,
                                      const PrintOptions& options) {
  Writer w(options);
  if (columns.empty()) {
    w.Query(query);
  } else {
    TableAlias alias{Identifier("_"), columns};
    w.RenamedQuery(query, alias);
  }
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

std::string TypeString(const DataType& type, bool with_nullability) {
  const PrintOptions options{Dialect::kAnsi};
  Writer w(options);
  w.set_type_spelling(with_nullability ? internal::TypeSpelling::kMessageWithNullability
                                       : internal::TypeSpelling::kMessage);
  w.Type(type);
  // Messages name every type: the spelling refuses nothing.
  return std::move(w.Finish()).value();
}

}  // namespace hop::sql
