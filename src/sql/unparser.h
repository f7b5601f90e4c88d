// The printer (unparser): writes an AST back as SQL text in one dialect, on one line with single
// spaces, keywords in upper case and every identifier quoted in the dialect's style. Printing is
// faithful or fails: a construct the dialect cannot express yields InvalidArgument naming it,
// never an approximation, so that parse(print(ast)) == ast whenever printing succeeds.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sql/ast/data_type.h"
#include "sql/ast/expression.h"
#include "sql/ast/query.h"
#include "sql/ast/statement.h"
#include "sql/dialect.h"

namespace hop::sql {

struct PrintOptions {
  Dialect dialect = Dialect::kAnsi;
  // Wrap every compound expression in parentheses, to show how the parser grouped it.
  bool parenthesize_all = false;
  // SQLite only: ask for SQLite's plan of the query (`EXPLAIN QUERY PLAN ...`), for hop's
  // EXPLAIN. What it prints is for SQLite, not to be parsed again.
  bool explain_query_plan = false;
  // Flink only: DDL as Hoptimator's pipeline scripts write it (docs/pipelines.md) where Flink
  // SQL has two spellings: options as 'k'='v', and column types with TIMESTAMP_LTZ(p) and an
  // element's nullability before ARRAY or MULTISET (`INTEGER NOT NULL ARRAY`). Queries, and the
  // types of their CASTs, are printed as the dialect prints them. It parses back the same.
  bool pipeline_ddl = false;
};

Result<std::string> PrintStatement(const Statement& stmt, const PrintOptions& options = {});
// A script: every statement followed by ';', one per line, without a line break after the last.
Result<std::string> PrintScript(const std::vector<StatementPtr>& statements,
                                const PrintOptions& options = {});
Result<std::string> PrintQuery(const Query& query, const PrintOptions& options = {});
// A query whose columns a column list renames, as one query: `SELECT * FROM (query) AS "_"
// (columns)`; the query alone when `columns` is empty. What a View resource keeps for
// `CREATE VIEW v (a, b) AS query` (docs/ddl.md).
Result<std::string> PrintRenamedQuery(const Query& query, const std::vector<Identifier>& columns,
                                      const PrintOptions& options = {});
Result<std::string> PrintExpr(const Expr& expr, const PrintOptions& options = {});
Result<std::string> PrintType(const DataType& type, const PrintOptions& options = {});

// A type as Calcite names it in messages, which is not SQL: `VARCHAR`, `CHAR(3)`, `FLOAT`,
// `DECIMAL(10, 0)`, `TIMESTAMP(3) WITH LOCAL TIME ZONE`, `VARCHAR ARRAY`, `(VARCHAR, INTEGER) MAP`,
// `RecordType(VARCHAR A)`, `NULL`, `INTERVAL`; with `with_nullability`, `NOT NULL` after every
// non-nullable type, elements and fields included (`INTEGER NOT NULL ARRAY NOT NULL`).
std::string TypeString(const DataType& type, bool with_nullability = false);

// `name` quoted for the dialect: "name" with "" doubled, or `name` for Flink.
std::string QuoteIdentifier(std::string_view name, Dialect dialect);
// 'text' with '' doubled.
std::string QuoteString(std::string_view text);

}  // namespace hop::sql
