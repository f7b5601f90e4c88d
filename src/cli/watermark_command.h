// `hop watermark set table/NAME|view/NAME [TIME] [--force]`: a producer says up to when a table
// or view is complete (docs/operator.md, "Table watermarks"). The object's `status.watermark`
// moves to TIME (RFC 3339; when omitted, now or 1 ms past the watermark if that is later) and is
// queued for its triggers, which the operator
// fires once per advance; a view derived from its inputs' watermarks is refused. Jobs run it too,
// with the environment the local runtime gives them (docs/runtime.md).
#pragma once

#include <ostream>
#include <string>

#include "common/time.h"
#include "store/store.h"

namespace hop::cli {

struct WatermarkSetOptions {
  std::string target;          // table/NAME or view/NAME
  std::string time;            // RFC 3339; empty: now
  std::string namespace_name;  // -n; "default" when empty
  bool force = false;          // --force: move the watermark back
  const Clock* clock = &SystemClock();
};

// Prints `table/x watermark 2026-03-01T02:00:00.000Z` (with `(was ...)` when it had one), or
// `... already at ...` when it is there already. Exit 0; 1 when the object is not found, derives
// its watermark, the time is earlier than its watermark (without force), or the store fails; 2
// for a target or time of the wrong form.
int RunWatermarkSet(const WatermarkSetOptions& options, store::Store& store, std::ostream& out,
                    std::ostream& err);

}  // namespace hop::cli
