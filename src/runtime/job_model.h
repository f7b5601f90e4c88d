// A batch/v1 Job as the local runner reads and writes it, in pure functions: the first
// container's command line and environment (Kubernetes' `$(VAR)` references expanded), the retry
// and deadline policy, the conditions Kubernetes' Job controller sets, and hop's own bookkeeping
// of the running attempt under `status.hop`. The runner (job_runner.cc) does the I/O around them.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "common/time.h"
#include "resource/json.h"
#include "resource/resource.h"

namespace hop::runtime {

// Kubernetes' default spec.backoffLimit.
inline constexpr int64_t kDefaultBackoffLimit = 6;

// Condition types and reasons, as Kubernetes' Job controller writes them (InvalidJobSpec is
// hop's: a Job the local runner cannot run).
inline constexpr std::string_view kComplete = "Complete";
inline constexpr std::string_view kFailed = "Failed";
inline constexpr std::string_view kReasonCompleted = "CompletionsReached";
inline constexpr std::string_view kReasonBackoffLimit = "BackoffLimitExceeded";
inline constexpr std::string_view kReasonDeadline = "DeadlineExceeded";
inline constexpr std::string_view kReasonInvalid = "InvalidJobSpec";

// What the runner runs for a Job.
struct JobSpec {
  std::vector<std::string> argv;  // the first container's command + args, or args alone
  // argv as the Job writes it, before `$(VAR)` expansion: what log lines show, since env values
  // may be secrets.
  std::vector<std::string> written_argv;
  // Its env entries with a literal value, in order, `$(VAR)` references expanded.
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::string> unresolved_env;  // names of entries with valueFrom: not set locally
  int64_t backoff_limit = kDefaultBackoffLimit;
  std::optional<int64_t> active_deadline_seconds;
  std::optional<int64_t> termination_grace_seconds;  // spec.template.spec
  bool suspend = false;
};

// Reads `job`'s spec. InvalidArgument (with a message fit for the Job's Failed condition) when
// the runner cannot run it: no container, no command and no args, parallelism or completions
// other than 1, or fields of the wrong type.
Result<JobSpec> ParseJobSpec(const resource::Resource& job);

// Kubernetes' expansion of `$(NAME)` in command, args and env values: a defined NAME is
// replaced, an undefined one is left as written, and `$$` is a literal `$`; a `$(` that no `)`
// closes is kept and the text after it is read on (its `$$` are still `$`), as the kubelet does,
// so that a value the shellQuote template transform wrote reads back the same under both.
std::string ExpandVars(std::string_view text, const std::map<std::string, std::string>& vars);

// spec.backoffLimit, or the default when absent or not a non-negative integer.
int64_t BackoffLimitOf(const resource::Resource& job);
// status.startTime + spec.activeDeadlineSeconds, or nullopt when either is absent.
std::optional<SystemTime> DeadlineOf(const resource::Resource& job);

// Whether status.conditions has `type` with status "True".
bool ConditionTrue(const resource::Resource& job, std::string_view type);
// Complete or Failed: nothing more will run.
bool JobFinished(const resource::Resource& job);
// Sets condition `type` to "True" in `status` (an object); lastTransitionTime changes only when
// the condition's status does.
void SetCondition(Json& status, std::string_view type, std::string_view reason,
                  std::string_view message, SystemTime now);

// The attempt recorded as running in a Job's status (status.hop), which a restarted runner adopts.
struct AttemptRecord {
  int64_t attempt = 0;      // 1 for the first
  pid_t pid = 0;            // the attempt's process, the leader of its own process group
  int64_t start_ticks = 0;  // /proc/<pid>/stat starttime, to tell a reused pid
  std::string boot_id;      // the boot it started in
  std::string exit_file;    // where the spawner writes the attempt's exit code (spawner.h)
};
std::optional<AttemptRecord> RecordedAttempt(const resource::Resource& job);
// Number of attempts started so far (status.hop.attempts).
int64_t AttemptsOf(const resource::Resource& job);
int64_t FailedOf(const resource::Resource& job);

// Records in `status` that `record` started at `now`: active 1, startTime (if not yet set),
// status.hop.
void MarkStarted(Json& status, const AttemptRecord& record, SystemTime now);

// How an attempt ended.
struct AttemptEnd {
  int64_t attempt = 0;
  std::optional<int> exit_code;  // nullopt: unknown (the process vanished)
  std::string description;       // "exited with code 3", "vanished without an exit status"
};
// Records in `status` that the running attempt ended: success completes the Job; a failure
// counts in status.failed and fails the Job once failed > backoff_limit.
void MarkEnded(Json& status, const AttemptEnd& end, int64_t backoff_limit, SystemTime now);
// Records in `status` that attempt `end.attempt` could not be started at all (the system refused
// to start its process: an argument list too long, no memory, ...): it counts as a failed
// attempt, as an ended one does (MarkEnded), and startTime is set if it was not.
void MarkNotStarted(Json& status, const AttemptEnd& end, int64_t backoff_limit, SystemTime now);
// Records in `status` that the running attempt `attempt` never ran its command (its runner
// stopped before letting it start, job_runner.cc's start gate): the attempt is taken back, as if
// it had not been made, so that the next one has its number and nothing counts as failed.
void MarkNeverRan(Json& status, int64_t attempt);
// Fails the Job with `reason` (a running attempt, already killed, counts as failed).
void MarkFailed(Json& status, std::string_view reason, std::string_view message, SystemTime now);

// The delay before attempt failed+1 after `failed` failures: base, doubled for each failure
// after the first, capped. Zero before any failure.
std::chrono::milliseconds RetryDelay(int64_t failed, std::chrono::milliseconds base,
                                     std::chrono::milliseconds cap);
// When the last attempt ended (status.hop.lastExitTime), if recorded.
std::optional<SystemTime> LastExitTime(const resource::Resource& job);

}  // namespace hop::runtime
