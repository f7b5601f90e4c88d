// A materialized view's refresh on the local engine (ARCHITECTURE.md §4.12; docs/runtime.md,
// "Refreshes"): what `hop refresh` runs, inside the batch/v1 Job the View reconciler starts for
// it (operator/view_refresh.h). The view's query runs on the local engine over the catalog as it
// is now, and its rows replace the sink's in one transaction of the sink; then, and only then,
// the view's watermark becomes the one the refresh earns (op::EarnWatermark: the earliest of its
// inputs' watermarks, and the time it began reading for an input without one), which fires the
// triggers on the view. A refresh rewrites every row its query gives, and a fill of a table made
// by CREATE TABLE ... AS every row, its writers' too, so the watermark becomes exactly what was
// earned, moved back from a later one when an input went back. A refresh that fails, or is
// killed, leaves the sink's previous rows and the previous watermark.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/status.h"
#include "common/time.h"
#include "store/store.h"

namespace hop::runtime {

struct RefreshOptions {
  std::string state_dir;       // where local databases keep their files
  std::string namespace_name;  // the view's
  // The View resource's name (`ads-audience`) or the view's SQL name (`ADS.AUDIENCE`); or
  // `table/NAME`, a table made by CREATE TABLE ... AS query, which its query fills.
  std::string view;
  // The refresh or fill Job this runs as (its $HOP_JOB), "" by hand: a fill by hand is
  // recorded in the table's status.fill, a Job's when the Job ends.
  std::string job;
  const Clock* clock = &SystemClock();
};

struct RefreshOutcome {
  std::string view;       // its SQL name, ADS.AUDIENCE
  std::string resource;   // the View resource's name
  int64_t rows = 0;       // rows written (replaced: the rows the sink holds now)
  std::string how;        // how they were written: `replaced inside PostgreSQL (...)`, ...
  SystemTime snapshot{};  // when it began reading
  SystemTime earned{};    // the watermark it earned (op::EarnWatermark)
  std::string earned_from;  // the input whose watermark that is; "" for the snapshot
  SystemTime watermark{};   // the view's (or table's) watermark now: `earned`
  // Its watermark before, when the refresh or fill moved it back to `earned`.
  std::optional<SystemTime> moved_back;
  bool fill = false;  // a table's fill, not a view's refresh
};

// Refreshes the view. Errors: the view is not found or not materialized (NotFound,
// InvalidArgument), hop cannot write its table (InvalidArgument, saying why), its query fails
// (the engine's error), the store fails.
Result<RefreshOutcome> RefreshView(store::Store& store, const RefreshOptions& options);

}  // namespace hop::runtime
