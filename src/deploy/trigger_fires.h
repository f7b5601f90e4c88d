// The fires a TableTrigger has recorded, in its status: `timestamp` (the latest fire), `watermark`
// (the latest a successful run covered), for firePolicy Each `pending` (every fire not run yet,
// oldest first), and `retry` (a failed window asked to run again). FIRE statements, the View
// reconciler, cron ticks and the TableTrigger reconciler all record and consume fires through
// this one class, so they agree on the rules. ViewFires keeps, in a View's or a Table's status,
// the watermarks its triggers have not been given yet.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/time.h"
#include "resource/json.h"
#include "resource/kinds.h"
#include "resource/resource.h"
#include "store/store.h"

namespace hop::deploy {

// The variables hop gives a trigger's job: at CREATE TRIGGER (`name`, `job`, `schedule`, `path`
// and the target's names) and when it fires (the target's names, `trigger`, and the window,
// `watermark` to `timestamp`). No option or job property can set one of them, in any letter
// case: they say what the run is, and templates rely on their form (docs/ddl.md).
inline constexpr std::string_view kTriggerVariables[] = {
    "name",    "trigger", "job",   "schedule",  "path",
    "catalog", "schema",  "table", "timestamp", "watermark"};

// OK, or why `key` (a WITH option of CREATE or FIRE TRIGGER, or a job property) cannot be used:
// it names, or sets the job property of, one of kTriggerVariables.
Status CheckTriggerOption(std::string_view key);

// The job property an option sets, if it is one: `job.properties.x` sets `x`. The prefix is
// matched as written, as Hoptimator matches it (compatibility.md §5.5): an unquoted key folds to
// `JOB.PROPERTIES.X`, which is no job property but an option of that name.
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

// A plain view whose watermark derives from its inputs' (CREATE VIEW ... WITH ('watermark' 'all'))
// is labelled kWatermarkPolicyLabel=all|any and lists its inputs (`table/NAME,view/NAME`, Table
// and View resources of its namespace) in the annotation kWatermarkInputsAnnotation
// (docs/operator.md, "Derived watermarks").
inline constexpr std::string_view kWatermarkPolicyLabel = resource::kWatermarkPolicyLabel;
inline constexpr std::string_view kWatermarkInputsAnnotation = "hop.dev/watermark-inputs";
// What a trigger's Job materialises (`table/NAME,view/NAME`): its watermark advances to the end
// of the run's window when the Job succeeds. On the Job, from the trigger's spec.outputs or the
// Job's own YAML (a JobTemplate's annotation).
inline constexpr std::string_view kOutputsAnnotation = "hop.dev/outputs";

// Whether `trigger` listens to the table at `path` ([catalog,] schema, table): its spec names it.
bool TriggerOnTable(const resource::Resource& trigger, const std::vector<std::string>& path);

// The objects whose watermarks a list names: `table/NAME` and `view/NAME` (a Table or View
// resource of `ns`), separated by commas, blanks around them ignored. InvalidArgument, naming
// `where`, for an entry of another form or an invalid object name; an empty list is none.
Result<std::vector<store::ObjectRef>> ParseWatermarkTargets(std::string_view list,
                                                            const std::string& ns,
                                                            std::string_view where);
// `table/NAME` or `view/NAME` for a Table or View reference.
std::string WatermarkTargetText(const store::ObjectRef& ref);

// Whose word an object's watermark is (docs/runtime.md, "The watermark a refresh earns"): a
// producer's (FIRE, `hop watermark set`, a Job's declared output) or hop's own refresh or fill's,
// which no producer may overstate.
//
// Why no producer may set the watermark of `table` (a Table resource) yet: it was made by CREATE
// TABLE ... AS, and its fill of its current query has not succeeded (it waits to start, runs, or
// failed), so it holds none of that query's rows, and a watermark set now would outlive the fill
// (docs/ddl.md, FIRE). Said as "its fill waits to start" (no Job yet), "its fill " and the
// JobProgress of its Job ("its fill JOB waits to start", "its fill JOB runs", ...), "its fill
// failed (...)"; nullopt when a producer may: a table without a fill, or filled (by its Job or
// `hop refresh table/NAME`), after which it is a table its writers keep. `fill_job` is the Job
// status.fill.job names, as stored (nullopt when it names none or the Job is gone).
std::optional<std::string> UnfilledTable(const resource::Resource& table,
                                         const std::optional<resource::Resource>& fill_job);
// The same, the fill Job read from `store`. Errors: the store's.
Result<std::optional<std::string>> UnfilledTable(store::Store& store,
                                                 const resource::Resource& table);

// How the batch/v1 Job `name` of a fill or a refresh stands, from `job` as stored (nullopt: it is
// gone), in words that follow its name: "NAME waits to start" (created, and no attempt started
// yet: it waits for a free slot, or for a runner), "NAME runs", "NAME waits to retry after 2
// failed attempts", "NAME succeeded", "NAME failed (REASON: MESSAGE)", "NAME was deleted before
// it finished".
std::string JobProgress(const std::string& name, const std::optional<resource::Resource>& job);
// Whether `view` (a View resource) is a materialized view hop refreshes (its table is in a
// local or PostgreSQL database), whose watermark only its refreshes set. Errors: the catalog's.
Result<bool> HopRefreshesView(store::Store& store, const resource::Resource& view);

// The watermarks of a View or a Table that its triggers have not been given yet, in its status
// (`pendingFires`, oldest first). The View and Table reconcilers only see an object's latest
// state, so one advanced twice between two of its reconciles would give a firePolicy Each
// trigger one run instead of two; whoever advances a watermark (FIRE, `hop watermark set`, a Job
// that declares its outputs) therefore also queues the new watermark here, and the reconciler
// records every queued one on the object's triggers and empties the queue in the same commit
// (docs/operator.md).
class ViewFires {
 public:
  // How many watermarks an object queues at most: beyond that no operator is taking them.
  static constexpr size_t kMaxPending = 1000;

  // Over `status` (a View's or Table's status object, created if it is not one); `kind` ("View",
  // "Table") names the object in messages.
  explicit ViewFires(Json& status, std::string_view kind = "View");
  // Moves the watermark to `t` and queues it. Unavailable when kMaxPending wait already (the
  // message names `view`).
  Status Advance(SystemTime t, std::string_view view);
  // What a producer does (FIRE ... WATERMARK, `hop watermark set`, a Job's declared output):
  // moves the watermark to `t` (cut to milliseconds) through Advance. True when it moved; false
  // when it is at `t` already. A `t` earlier than the watermark is InvalidArgument (a watermark
  // moves forward), unless `force`, which moves it back; `name` names the object in messages.
  Result<bool> Set(SystemTime t, bool force, std::string_view name);
  // status.watermark, when it is a timestamp.
  std::optional<SystemTime> Watermark() const;
  // The watermarks to give the view's triggers: the queued ones, then the watermark (when it is
  // a timestamp and later), oldest first.
  std::vector<SystemTime> Undelivered() const;
  // Whether watermarks are queued.
  bool HasPending() const;
  // The queued watermarks, oldest first.
  std::vector<SystemTime> Queued() const;
  // The queued watermarks were given to the triggers: the queue empties.
  void Delivered();

 private:
  Json& status_;
  std::string kind_;
};

}  // namespace hop::deploy
