// Refreshes of materialized views that hop writes itself (a local database's table;
// docs/operator.md, "Refreshes"): when one is due, the View reconciler starts a batch/v1 Job
// that runs `hop refresh` (runtime/refresh.h), one at a time per view, and records what it did
// in the view's `status.refresh`. The decision is a pure function, PlanRefresh, tested on its
// own; the View reconciler does the I/O around it.
//
// A refresh is due, unless the view is paused (spec.paused) or a refresh runs already, when
//   - REFRESH MATERIALIZED VIEW recorded a request (status.timestamp) later than the one the
//     latest refresh took;
//   - its schedule (REFRESHED '<cron>', spec.schedule) has ticked since the latest tick
//     accounted for (missed ticks are one refresh);
//   - with WITH ('refresh' 'on-source-change'), an input's watermark is not the one it had when
//     the latest refresh started (an input that has none causes nothing).
// status.refresh:
//   job           the running refresh's Job (absent when none runs)
//   started       when the latest refresh's Job was created
//   runs          how many refreshes were started
//   lastRequest   the REFRESH request the latest refresh took
//   lastSchedule  the latest cron tick accounted for
//   inputs        each input's watermark when the latest refresh started
//   lastJob       the latest finished refresh's Job, kept for its logs (the one before it is
//                 deleted when it finishes)
//   lastOutcome   Succeeded or Failed: how the latest finished refresh ended
//   finished      when it ended
//   message       why it failed, or why no refresh can start
// The new watermark is the refresh's to write (`hop refresh` sets status.watermark on success):
// the one its inputs allow (EarnWatermark), read by RefreshInputs, which also tells the
// reconciler of the inputs' advances.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/time.h"
#include "operator/controller.h"
#include "resource/json.h"
#include "resource/resource.h"
#include "store/store.h"

namespace hop::binder {
struct Rel;
}
namespace hop::catalog {
class Catalog;
}

namespace hop::op {

// The label a refresh's Job carries: the View's name.
inline constexpr std::string_view kRefreshLabel = "refresh";

// How this control plane starts refreshes.
struct RefreshJobs {
  // The command of `hop` with its state directory, e.g. {"/usr/bin/hop", "--state", "/srv/x"}:
  // a refresh's Job runs it with `refresh -n NAMESPACE view/NAME`. Empty: this control plane
  // starts no refresh (status.refresh.message says so).
  std::vector<std::string> command;
  int64_t backoff_limit = 2;  // the Job's attempts beyond the first
  // On a cluster (docs/kubernetes.md): the image of the Job's container (hop's), and the service
  // account its pod runs as, whose token reaches the API. Empty: none is set (the local runtime
  // runs the command on this machine).
  std::string image;
  std::string service_account;
  // Told of each refresh or fill Job a commit deletes: the one before the last, which no status
  // names any more (the last stays, as status.refresh.lastJob). The local runtime removes its log
  // (docs/runtime.md, "Logs"). Called after the commit; may be empty.
  std::function<void(const store::ObjectRef& job)> job_deleted;
};

// A view's inputs and their watermarks now, by the input's SQL name ("LOCAL.SRC"); an input
// without one is absent.
using InputWatermarks = std::map<std::string, std::string>;

// An input of a refresh: a table or materialized view its query reads (through plain views,
// which the binder inlines), by SQL name ("LOCAL.SRC"), with the watermark its Table or View
// resource holds, as written ("" when it has none, or no resource keeps one: a demo table).
struct RefreshInput {
  std::string name;
  std::string watermark;
  // A materialized view hop refreshes that has never been refreshed: its table holds none of its
  // query's rows, so nothing computed from it can be refreshed (runtime.md, "Refreshes").
  bool never_refreshed = false;
  // A table made by CREATE TABLE ... AS whose fill of its query has not succeeded, why
  // (deploy::UnfilledTable: "its fill failed (...)"), and its Table's name; its rows are not
  // its query's either. "" otherwise.
  std::string unfilled;
  std::string resource;
};

// The inputs of `query`, bound against `cat` (the catalog of `namespace_name`), each once, in
// the order of their names, with their watermarks as `store` holds them now. Errors: the
// store's.
hop::Result<std::vector<RefreshInput>> RefreshInputs(store::Store& store,
                                                     const catalog::Catalog& cat,
                                                     const binder::Rel& query,
                                                     const std::string& namespace_name);

// The watermark a refresh earns (docs/runtime.md, "Refreshes"): its rows are complete up to the
// earliest of what its inputs are complete up to. An input with a watermark is complete up to
// it; one without (never advanced, or a table no resource keeps a watermark for; a watermark
// that is not a time counts as none) claims nothing beyond its rows, which the refresh read as
// they stood at its `snapshot`: it counts as complete up to the snapshot. So the earliest of the
// inputs' watermarks and, when any input has none (or there is no input), the snapshot.
// Watermarks are compared as given, never corrected by the snapshot: an input complete up to a
// time after the snapshot gives that time.
struct EarnedWatermark {
  SystemTime at{};
  // The input whose watermark it is ("LOCAL.SRC"); "" when it is the snapshot.
  std::string input;
};
EarnedWatermark EarnWatermark(const std::vector<RefreshInput>& inputs, SystemTime snapshot);

struct RefreshPlan {
  Json status;                               // the view's whole status, as it should be
  std::optional<resource::Resource> create;  // the Job to create
  std::optional<store::ObjectRef> remove;    // a finished refresh's Job no longer kept
  std::optional<Duration> requeue_after;     // when the schedule ticks next
  std::string event;                         // what happened, for the log; empty: nothing
};

// Decides, for a materialized view hop refreshes, from the Job of its running refresh (nullopt
// when none runs or its Job is gone), its inputs' watermarks and the time. Errors: the schedule
// is not a cron expression (retrying cannot mend it).
hop::Result<RefreshPlan> PlanRefresh(const resource::Resource& view,
                                     const std::optional<resource::Resource>& current_job,
                                     const InputWatermarks& inputs, SystemTime now,
                                     const RefreshJobs& jobs);

// The fill of a table made by CREATE TABLE ... AS query (its resource::kFillAnnotation): one
// refresh Job (`hop refresh table/NAME`), started once for each query the annotation holds,
// recorded in `status.fill` (job, started, query, lastJob, lastOutcome, finished, message) as a
// view's refreshes are in status.refresh. A fill that failed is not started again by itself:
// `hop refresh table/NAME` runs it by hand. While the table's rows are not its query's
// (deploy::UnfilledTable: replaced with another query, or never filled), the status it plans has
// no watermark and no queued advances: one its earlier query's rows earned is withdrawn.
// Errors: none but the Job's making.
hop::Result<RefreshPlan> PlanFill(const resource::Resource& table,
                                  const std::optional<resource::Resource>& current_job,
                                  SystemTime now, const RefreshJobs& jobs);

// What is still to do for a table's fill, in words ("its fill waits to start" before its Job is
// made, then "its fill " and the Job's deploy::JobProgress: "its fill x waits to start", "its
// fill x runs", ...); nullopt when nothing. `job` is the running fill's Job (RunningJob(table,
// "fill")) as stored, nullopt when there is none or it is gone.
std::optional<std::string> PendingFill(const resource::Resource& table,
                                       const std::optional<resource::Resource>& job);

// Writes a plan of PlanRefresh or PlanFill for `object` (the Job to create, the one to delete,
// the new status) in one commit, logs its event, and tells `jobs.job_deleted` of the Job it
// deleted. Errors: the store's.
Status CommitRefreshPlan(store::Store& store, const resource::Resource& object, RefreshPlan plan,
                         const ReconcileContext& context, const RefreshJobs& jobs);

// The Job of a running refresh (status.refresh) or fill (status.fill), by reference; nullopt
// when none runs.
std::optional<store::ObjectRef> RunningJob(const resource::Resource& object, const char* key);

// The Job of the view's running refresh, by reference; nullopt when none runs.
std::optional<store::ObjectRef> RunningRefreshJob(const resource::Resource& view);

// What is still to do for the view's refreshes, in words ("the refresh requested at ... waits
// to start" before its Job is made, then "refresh job " and the Job's deploy::JobProgress:
// "refresh job x waits to start", "refresh job x runs", ...); nullopt when nothing (a paused
// view's requests wait for RESUME and are not work). `job` is the running refresh's Job
// (RunningRefreshJob) as stored, nullopt when there is none or it is gone.
std::optional<std::string> PendingRefresh(const resource::Resource& view,
                                          const std::optional<resource::Resource>& job);

}  // namespace hop::op
