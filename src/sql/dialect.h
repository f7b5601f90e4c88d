// The SQL dialects hop prints: ANSI (Calcite's, used for stored view SQL and hop's own DDL),
// Flink (pipeline SQL), PostgreSQL and SQLite (execution).
#pragma once

#include <string_view>

namespace hop::sql {

enum class Dialect : uint8_t { kAnsi, kFlink, kPostgres, kSqlite };

inline constexpr Dialect kAllDialects[] = {Dialect::kAnsi, Dialect::kFlink, Dialect::kPostgres,
                                           Dialect::kSqlite};

// "ansi", "flink", "postgres", "sqlite".
std::string_view DialectName(Dialect d);
// Accepts the names above plus "calcite" and "postgresql", in any case.
bool ParseDialect(std::string_view name, Dialect* out);

}  // namespace hop::sql
