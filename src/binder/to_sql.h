// From plans back to SQL: Simplify tidies a bound plan the way Calcite's planner does before
// Hoptimator prints it (merging stacked projections, pushing filters under them), and ToSql turns
// a plan into a query AST that the unparser prints in any dialect. The shape follows Calcite's
// RelToSql: one SELECT per plan until a clause would repeat, columns qualified with their table
// only when a FROM clause joins several, renames always written (`CAMPAIGN_URN AS PAGE_URN`), and
// derived tables named `t`, `t0`, `t1`, ...
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "binder/bound.h"
#include "common/status.h"
#include "sql/ast/query.h"

namespace hop::binder {

// Merges Project over Project, drops identity projections below the top, and pushes filters
// below projections. The top Project (the query's select list) is kept, so every output column
// is written out.
RelPtr Simplify(const RelPtr& rel);

struct ToSqlOptions {
  // The path a scanned table is written with; default: the table's path.
  std::function<std::vector<std::string>(const Rel& scan)> table_path;
  // The name a scanned table's column is written with; default: its name in the catalog.
  std::function<std::string(const Rel& scan, const std::string& column)> column_name;
};

Result<std::unique_ptr<sql::Query>> ToSql(const Rel& rel, const ToSqlOptions& options = {});

}  // namespace hop::binder
