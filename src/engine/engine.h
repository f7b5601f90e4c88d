// The local query engine: runs bound queries (binder/bound.h) across the catalog on SQLite with
// Calcite's semantics (docs/engine.md). Tables of local databases are SQLite files of the state
// directory, attached and read natively; tables an adapter serves (demo and "k8s" system tables)
// are virtual tables over their sources (vtab.h); the query itself is lowered to SQLite SQL
// (lower.h) and its rows are read one at a time from a Cursor, never all held at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "binder/binder.h"
#include "binder/bound.h"
#include "catalog/catalog.h"
#include "common/status.h"
#include "engine/value.h"

struct sqlite3;
struct sqlite3_stmt;

namespace hop::engine {

struct EngineOptions {
  std::string state_dir;  // where local databases keep their files (catalog/local.h)
};

// What one statement may use before it is stopped with an error (the session stays usable).
struct Budget {
  std::chrono::milliseconds timeout{0};  // wall-clock time; 0: no limit
  int64_t memory_bytes = 0;              // memory SQLite and the aggregates hold; 0: no limit
  // Set (by another thread) to stop the statement with "cancelled": one connection's cancel
  // (a PostgreSQL CancelRequest), where RequestInterrupt stops every engine. Not owned; null:
  // none. The engine only reads it.
  const std::atomic<bool>* cancel = nullptr;
};

class Engine;

// The rows of a running query. The cursor holds the engine's connection until it is destroyed;
// one cursor at a time per engine.
class Cursor {
 public:
  ~Cursor();
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;

  const std::vector<std::string>& names() const { return names_; }
  const std::vector<Rep>& reps() const { return reps_; }

  // Steps to the next row: true when there is one, false at the end. Errors (Execution) name
  // what failed and at which row: a cast of a bad value, a division by zero, an overflow, the
  // budget spent, a cancel (Engine::RequestInterrupt).
  Result<bool> Next();
  bool IsNull(int column) const;
  // Appends column `column` of the current row as results show it (value.h, FormatValue).
  void AppendText(int column, std::string& out) const;
  // Column `column` of the current row in the engine's encoding.
  Value GetValue(int column) const;
  // Appends column `column` of the current row as a field of PostgreSQL's COPY text format
  // (postgres_text.h).
  void AppendCopyField(int column, std::string& out) const;
  // The rows returned so far.
  int64_t rows() const { return rows_; }

 private:
  friend class Engine;
  // `kept`: the engine keeps `stmt` for the next query of its text (reset, not finalized, here).
  Cursor(Engine* engine, sqlite3_stmt* stmt, std::vector<std::string> names, std::vector<Rep> reps,
         bool kept);
  Status Fail(int rc);

  Engine* engine_;
  sqlite3_stmt* stmt_;
  std::vector<std::string> names_;
  std::vector<Rep> reps_;
  int64_t rows_ = 0;
  bool done_ = false;
  bool kept_;
};

class Engine {
 public:
  // An engine over an in-memory SQLite connection with hop's functions and virtual table module
  // registered. Errors (Internal) if SQLite refuses them.
  static Result<std::unique_ptr<Engine>> Open(EngineOptions options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Starts `plan` (a bound query over `catalog`, which must outlive the cursor). Errors before
  // anything runs: what the engine cannot run (InvalidArgument, naming it), a table it cannot
  // read (the database and why).
  Result<std::unique_ptr<Cursor>> Query(const catalog::Catalog& catalog, const binder::Rel& plan,
                                        const Budget& budget);

  // Runs an INSERT into a local table; the number of rows inserted. All or nothing: a failure
  // at any row inserts none.
  Result<int64_t> Insert(const catalog::Catalog& catalog, const binder::BoundInsert& insert,
                         const Budget& budget);

  // Replaces the rows of a local table with the query's (a materialized view's refresh): the old
  // rows are deleted and the new inserted in one transaction of the table's file, so a failure,
  // or a process killed at any point, leaves the old rows. The number of rows inserted.
  Result<int64_t> Replace(const catalog::Catalog& catalog, const binder::BoundInsert& insert,
                          const Budget& budget);

  // How `plan` would run, as text: the plan, the SQLite query, SQLite's plan for it, and for
  // each table how it is read (natively from a file, or through a virtual table with what was
  // pushed down to it).
  Result<std::string> Explain(const catalog::Catalog& catalog, const binder::Rel& plan);

  // Asks the running statement, in any engine of this process, to stop with "cancelled".
  // Async-signal-safe: the shell calls it from its SIGINT handler.
  static void RequestInterrupt();

  class Impl;

 private:
  friend class Cursor;
  explicit Engine(std::unique_ptr<Impl> impl);
  Result<int64_t> Write(const catalog::Catalog& catalog, const binder::BoundInsert& insert,
                        const Budget& budget, bool replace);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hop::engine
