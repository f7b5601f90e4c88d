// From a bound plan to the SQLite query that runs it: every operator of the binder's plan
// (binder/bound.h) becomes clauses of a query AST, printed by the SQL writer in the SQLite
// dialect. Expressions are rewritten so that SQLite computes Calcite's results on hop's value
// encoding (value.h): operands are brought to a common encoding, and where SQLite's own operator
// or function differs from Calcite's the query calls one of the functions hop registers on the
// connection (functions.h). What the engine cannot run with Calcite's semantics is refused here,
// before anything executes, with a message naming it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "binder/binder.h"
#include "binder/bound.h"
#include "common/status.h"
#include "engine/value.h"
#include "sql/ast/query.h"
#include "sql/ast/statement.h"

namespace hop::engine {

// How the query names a scanned table: its SQLite name (`"local_default"."ORDERS"`, or a
// virtual table's) and the SQLite names of its columns, in the catalog's column order.
struct ScanName {
  std::vector<std::string> name;
  std::vector<std::string> columns;
};

struct LowerOptions {
  // The name of a Scan's table; called once per Scan of the plan. Errors stop the lowering
  // (a table the engine cannot read).
  std::function<Result<ScanName>(const binder::Rel& scan)> scan;
  // The name of a Scan on the inner (right) side of an inner or left join whose condition
  // equates one of its columns with the left side's: a table it can read by lookups of those
  // columns (a hashed scan). Null: `scan`.
  std::function<Result<ScanName>(const binder::Rel& scan)> probed_scan;
  // What CURRENT_TIMESTAMP and friends are for this query: microseconds since the epoch, UTC.
  int64_t now_micros = 0;
};

struct LoweredQuery {
  std::unique_ptr<sql::Query> query;
  std::vector<Rep> columns;  // the encoding of each result column
};

// The SQLite query for `plan`. Errors: InvalidArgument for what the local engine does not run
// (`the local engine does not run REGEXP_EXTRACT with a group ...`).
Result<LoweredQuery> Lower(const binder::Rel& plan, const LowerOptions& options);

// The INSERT of `insert` (whose target the caller resolved to `target`), with each value brought
// to the encoding of its column.
Result<std::unique_ptr<sql::Statement>> LowerInsert(const binder::BoundInsert& insert,
                                                    const ScanName& target,
                                                    const LowerOptions& options);

}  // namespace hop::engine
