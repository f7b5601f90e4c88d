// `CREATE [OR REPLACE] TABLE [IF NOT EXISTS] name ( LIKE source [options]
//  | [(elements)] [WITH (options)] [AS query] )`.
#pragma once

#include <optional>

#include "sql/ast/data_type.h"
#include "sql/ast/options.h"
#include "sql/ast/query.h"
#include "sql/ast/statement.h"

namespace hop::sql {

enum class ColumnValueKind : uint8_t { kNone, kDefault, kGenerated };
enum class GeneratedStorage : uint8_t { kDefault, kVirtual, kStored };

struct ColumnDef {
  Identifier name;
  std::optional<DataType> type;  // absent for a bare name (column list of CREATE TABLE AS)
  ColumnValueKind value_kind = ColumnValueKind::kNone;
  ExprPtr value;                  // DEFAULT expr, or the generation expression
  bool generated_always = false;  // `GENERATED ALWAYS AS (...)` rather than `AS (...)`
  GeneratedStorage storage = GeneratedStorage::kDefault;
  bool primary_key = false;   // inline `PRIMARY KEY`
  bool not_enforced = false;  // `NOT ENFORCED` after an inline PRIMARY KEY
};

enum class ConstraintKind : uint8_t { kPrimaryKey, kUnique, kCheck };

struct TableConstraint {
  std::optional<Identifier> name;  // CONSTRAINT name
  ConstraintKind kind = ConstraintKind::kPrimaryKey;
  std::vector<Identifier> columns;  // PRIMARY KEY and UNIQUE
  ExprPtr check;                    // CHECK
  bool not_enforced = false;
};

enum class LikeOptionKind : uint8_t { kAll, kDefaults, kGenerated };

struct LikeOption {
  bool including = true;  // INCLUDING or EXCLUDING
  LikeOptionKind kind = LikeOptionKind::kAll;
  friend bool operator==(const LikeOption&, const LikeOption&) = default;
};

struct LikeClause {
  QualifiedName source;
  std::vector<LikeOption> options;
};

struct CreateTableStatement : Statement {
  CreateTableStatement() : Statement(StatementKind::kCreateTable) {}
  bool or_replace = false;
  bool if_not_exists = false;
  bool temporary = false;  // `CREATE TEMPORARY TABLE`: never parsed; PostgreSQL and SQLite only
  QualifiedName name;
  std::vector<ColumnDef> columns;
  std::vector<TableConstraint> constraints;
  OptionList options;
  std::optional<LikeClause> like;
  std::unique_ptr<Query> as_query;
};

}  // namespace hop::sql
