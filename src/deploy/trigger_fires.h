// The fires a TableTrigger has recorded, in its status: `timestamp` (the latest fire), `watermark`
// (the latest a successful run covered), for firePolicy Each `pending` (every fire not run yet,
// oldest first), and `retry` (a failed window asked to run again). FIRE statements, the View
// reconciler, cron ticks and the TableTrigger reconciler all record and consume fires through
// this one class, so they agree on the rules. ViewFires keeps, in a View's status, the
// watermarks its triggers have not been given yet.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/time.h"
#include "resource/json.h"
#include "resource/resource.h"

namespace hop::deploy {

// The variables hop gives a trigger's job: at CREATE TRIGGER (`name`, `job`, `schedule`, `path`
// and the target's names) and when it fires (the target's names, `trigger`, and the window,
// `watermark` to `timestamp`). No option or job property can set one of them, in any letter
// case: they say what the run is, and templates rely on their form (docs/ddl.md).
inline constexpr std::string_view kTriggerVariables[] = {
    "name", "trigger", "job", "schedule", "path", "catalog",
    "schema", "table", "timestamp", "watermark"};

// OK, or why `key` (a WITH option of CREATE or FIRE TRIGGER, or a job property) cannot be used:
// it names, or sets the job property of, one of kTriggerVariables.
Status CheckTriggerOption(std::string_view key);

// The job property an option sets, if it is one: `job.properties.x` (the prefix in any case, so
// that an unquoted key also counts) sets `x`.
std::optional<std::string> JobProperty(std::string_view key);

class TriggerFires {
 public:
  // Over `status` (a TableTrigger's status object, created if it is not one); `each` when the
  // trigger's firePolicy is Each.
  TriggerFires(Json& status, bool each);
  // Whether a trigger's firePolicy is Each.
  static bool Each(const resource::Resource& trigger);

  std::optional<SystemTime> Latest() const;     // status.timestamp
  std::optional<SystemTime> Watermark() const;  // status.watermark

  // Records a fire at `t` (cut to milliseconds) when it is after the latest fire: the latest
  // fire moves to `t` and, with Each, `t` is queued for a run of its own. A fire not after the
  // latest is already accounted for (recording is idempotent): it arrived late, and the run of
  // the later fire covers its window.
  void Record(SystemTime t);
  // The end of the next run's window: the oldest queued fire (Each), or the latest fire when it
  // is after the watermark (Coalesce); nullopt when nothing waits.
  std::optional<SystemTime> Next() const;
  // The fire the next run takes, if one waits for a run: Next(), unless the newest run failed
  // on it. A failed window runs again only with a later fire (whose window starts at the same
  // watermark, so covers it) or when a retry is asked for.
  std::optional<SystemTime> Waiting() const;
  // Whether a run is going: the newest entry of status.jobs has not finished.
  bool Running() const;
  // The end of the failed window to run again (status.retry), if a retry was asked for.
  std::optional<SystemTime> Retry() const;
  // Asks for the newest run's window to run again (FIRE TRIGGER ... RETRY), `trigger` naming it
  // in messages. Conflict while a run is going or a retry is already asked for; InvalidArgument
  // when there is no run, the newest succeeded, or a fire waits whose run covers the window.
  Status RequestRetry(std::string_view trigger);
  // A run covering every fire up to `to` succeeded: the watermark moves there and the fires it
  // covered leave the queue.
  void Covered(SystemTime to);
  // A run for the fires up to `to` failed: they leave the queue, the watermark stays, and the
  // next run's window covers them again.
  void Abandon(SystemTime to);

  // RFC 3339 with milliseconds, the form fires are stored in.
  static std::string Stamp(SystemTime t);

 private:
  // The newest entry of status.jobs, or null.
  const Json* Newest() const;

  Json& status_;
  bool each_;
};

// The watermarks of a View that its triggers have not been given yet, in its status
// (`pendingFires`, oldest first). The View reconciler only sees a view's latest state, so a view
// advanced twice between two of its reconciles would give a firePolicy Each trigger one run
// instead of two; whoever advances a view (FIRE VIEW) therefore also queues the new watermark
// here, and the reconciler records every queued one on the view's triggers and empties the queue
// in the same commit (docs/operator.md).
class ViewFires {
 public:
  // How many watermarks a view queues at most: beyond that no operator is taking them.
  static constexpr size_t kMaxPending = 1000;

  // Over `status` (a View's status object, created if it is not one).
  explicit ViewFires(Json& status);
  // Moves the watermark to `t` and queues it. Unavailable when kMaxPending wait already (the
  // message names `view`).
  Status Advance(SystemTime t, std::string_view view);
  // The watermarks to give the view's triggers: the queued ones, then the watermark (when it is
  // a timestamp and later), oldest first.
  std::vector<SystemTime> Undelivered() const;
  // Whether watermarks are queued.
  bool HasPending() const;
  // The queued watermarks were given to the triggers: the queue empties.
  void Delivered();

 private:
  Json& status_;
};

}  // namespace hop::deploy
