// The fires a TableTrigger has recorded, in its status: `timestamp` (the latest fire), `watermark`
// (the latest a successful run covered) and, for firePolicy Each, `pending` (every fire not run
// yet, oldest first). FIRE statements, the View reconciler, cron ticks and the TableTrigger
// reconciler all record and consume fires through this one class, so they agree on the rules.
#pragma once

#include <optional>
#include <string>
#include <string_view>

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

  // Records a fire at `t`: the latest fire moves to `t` if it is later; with Each, `t` is queued
  // unless it is not after the watermark and every queued fire (recording is idempotent).
  void Record(SystemTime t);
  // The end of the next run's window: the oldest queued fire (Each), or the latest fire when it
  // is after the watermark (Coalesce); nullopt when nothing waits.
  std::optional<SystemTime> Next() const;
  // A run covering every fire up to `to` succeeded: the watermark moves there and the fires it
  // covered leave the queue.
  void Covered(SystemTime to);
  // A run for the fires up to `to` failed: they leave the queue, the watermark stays, and the
  // next run's window covers them again.
  void Abandon(SystemTime to);

  // RFC 3339 with milliseconds, the form fires are stored in.
  static std::string Stamp(SystemTime t);

 private:
  Json& status_;
  bool each_;
};

}  // namespace hop::deploy
