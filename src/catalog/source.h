// How the local engine reads a table whose rows an adapter holds or computes (the demo databases,
// the "k8s" system tables): a scan of the columns a query reads, narrowed by the equality
// constraints the adapter can apply itself (push-down). Local tables (jdbc:local:) are not read
// through a source: the engine reads their SQLite files natively.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "common/status.h"

namespace hop::catalog {

// How a constraint compares a column with its value.
enum class ScanOp : uint8_t { kEq, kLt, kLe, kGt, kGe };

// `column <op> value`, the value in the column's text form (a VARCHAR column's characters).
struct ScanConstraint {
  int column = 0;
  std::string value;
  ScanOp op = ScanOp::kEq;  // anything but kEq only on columns the source NarrowsRange by
};

struct ScanRequest {
  // Per column of the table: whether the query reads it. A cell of a column not read may be
  // left null.
  std::vector<bool> columns;
  // Constraints the source said it narrows by (Narrows), all of which hold for the rows wanted.
  // A source may return rows that do not satisfy them: the engine checks every row again.
  std::vector<ScanConstraint> constraints;
};

// The rows of one scan, in the table's column order, values as text (Calcite's literal form:
// `true`, `2026-01-01 00:00:00`, `1.50`), NULL as nullopt.
class RowCursor {
 public:
  virtual ~RowCursor() = default;
  // The next row into `row`; false at the end. Errors name what could not be read.
  virtual Result<bool> Next(Row& row) = 0;
};

class TableSource {
 public:
  virtual ~TableSource() = default;
  // What serves the rows, for EXPLAIN: `demodb rows`, `store: TableTrigger resources`.
  virtual std::string Describe() const = 0;
  // Whether an equality constraint on `column` lets the source read fewer rows.
  virtual bool Narrows(int column) const = 0;
  // Whether range constraints (<, <=, >, >=) on `column`, an integer column, do too.
  virtual bool NarrowsRange(int column) const {
    (void)column;
    return false;
  }
  // About how many rows a scan returns, unconstrained (the engine's planner weighs joins by it).
  virtual double EstimatedRows() const = 0;
  // The query a scan of `request` sends to the system that holds the rows (constraint values
  // as parameters, `$1`), for EXPLAIN; empty when the source sends none.
  virtual std::string DescribeScan(const ScanRequest& request) const {
    (void)request;
    return {};
  }
  // Starts a scan. Thread-compatible: one scan is read by one thread at a time.
  virtual Result<std::unique_ptr<RowCursor>> Open(const ScanRequest& request) const = 0;
};

// A source over rows held in memory (the demo databases): narrows by equality on any column.
std::shared_ptr<const TableSource> RowsSource(std::shared_ptr<const std::vector<Row>> rows,
                                              std::string description);

}  // namespace hop::catalog
