// The statement base: a kind tag, the statement's source text and where it starts. Each statement
// kind has its own header in this folder; code that handles statements switches on the tag.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "sql/ast/node_allocator.h"
#include "sql/location.h"

namespace hop::sql {

enum class StatementKind : uint8_t {
  kQuery,
  kInsert,
  kCreateTable,
  kCreateView,
  kCreateMaterializedView,
  kCreateTrigger,
  kCreateDatabase,
  kCreateCatalog,
  kCreateFunction,
  kDrop,
  kRefresh,
  kFire,
  kPause,
  kResume,
  kSet,
  kReset,
  kShow,
  kExplain,   // the inspecting statements (inspect_statement.h)
  kSpecify,
  kPipeline,
  kDescribe,
  kResolve,
  kGraph,
  kDelete,         // written by hop, never parsed (delete_statement.h)
  kCopyFromStdin,  // written by hop for PostgreSQL, never parsed (copy_statement.h)
};

// The kinds of named objects that DDL statements create, drop, fire, pause or resume.
enum class ObjectKind : uint8_t {
  kTable,
  kView,
  kMaterializedView,
  kTrigger,
  kFunction,
  kDatabase
};

// "TABLE", "MATERIALIZED VIEW", ...
std::string_view ObjectKindText(ObjectKind kind);

struct Statement;

// How summaries and messages name a statement: `CREATE MATERIALIZED VIEW ADS.AUDIENCE`, `SET`.
std::string StatementTitle(const Statement& statement);

struct Statement : PooledNode {
  explicit Statement(StatementKind k) : kind(k) {}
  virtual ~Statement() = default;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  template <typename T>
  const T& As() const {
    return CheckedCast<T>(*this);
  }
  template <typename T>
  T& As() {
    return CheckedCast<T>(*this);
  }

  const StatementKind kind;
  Location loc;             // where the statement starts in its file
  std::string source;       // the statement's text as parsed (without the closing ';')
  std::string line_prefix;  // the file's text before the statement on its first line
};

using StatementPtr = std::unique_ptr<Statement>;

// Structural equality of two statements (kind, names, expressions, options); source text and
// locations are ignored.
bool Equals(const Statement& a, const Statement& b);

}  // namespace hop::sql
