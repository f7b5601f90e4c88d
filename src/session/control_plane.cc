#include "session/control_plane.h"

#include <fmt/format.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/log.h"
#include "deploy/trigger_fires.h"
#include "operator/controller.h"
#include "operator/leader_election.h"
#include "operator/lease.h"
#include "operator/pipeline_reconciler.h"
#include "operator/provision_reconciler.h"
#include "operator/subscription_reconciler.h"
#include "operator/table_reconciler.h"
#include "operator/trigger_reconciler.h"
#include "operator/trigger_runs.h"
#include "operator/view_reconciler.h"
#include "operator/view_refresh.h"
#include "operator/watermarks.h"
#include "resource/kinds.h"
#include "resource/names.h"
#include "runtime/job_model.h"
#include "runtime/job_reconciler.h"
#include "runtime/job_runner.h"

namespace hop::session {

namespace {

const store::GroupKind kJob{"batch", "Job"};

}  // namespace

struct ControlPlane::Impl {
  std::unique_ptr<op::Lease> lease;
  // The Kubernetes mode's: the elector and the thread that renews its Lease while leading.
  op::LeaderElector* elector = nullptr;
  std::function<void()> on_lost;
  std::thread renewer;
  std::mutex renew_mu;
  std::condition_variable renew_cv;
  bool stopping = false;             // guarded by renew_mu
  std::atomic<bool> elected{false};  // holds the Lease and has not lost it

  // Renews the Lease every retry period; when no renewal succeeded within the renew deadline,
  // stops reconciling and says so.
  void Renew();
  // What Create was given; Build makes the reconcilers, the runner and the manager from it, once
  // they are needed: by Run when it leads, or by Converged.
  ControlPlaneOptions options;
  void Build();
  std::string state_dir;
  bool ran = false;      // Run was called
  bool stopped = false;  // Stop was called
  std::string leader;
  std::unique_ptr<runtime::JobRunner> runner;
  std::unique_ptr<op::TriggerReconciler> triggers;
  std::unique_ptr<op::ViewReconciler> views;
  std::unique_ptr<op::TableReconciler> tables;
  op::PipelineRules pipeline_rules;  // read by `pipelines`; fixed once the manager starts
  std::unique_ptr<op::PipelineReconciler> pipelines;
  std::unique_ptr<op::ProvisionReconciler> provisions;
  std::unique_ptr<op::SubscriptionReconciler> subscriptions;
  std::unique_ptr<runtime::JobReconciler> jobs;
  std::unique_ptr<op::Manager> manager;
  store::Store* store = nullptr;
};

ControlPlane::ControlPlane() : impl_(std::make_unique<Impl>()) {}
ControlPlane::~ControlPlane() { Stop(); }

void ControlPlane::Impl::Renew() {
  const op::LeaderElectionOptions& o = elector->options();
  auto last_renewed = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(renew_mu);
  for (;;) {
    if (renew_cv.wait_for(lock, o.retry_period, [this] { return stopping; })) return;
    lock.unlock();
    auto renewed = elector->TryAcquireOrRenew();
    const auto now = std::chrono::steady_clock::now();
    if (renewed.ok() && *renewed) {
      last_renewed = now;
    } else if (!renewed.ok()) {
      log::Warn("leader election: cannot renew the lease: {}", renewed.status().ToString());
    }
    // Another holder, or no renewal for the deadline: this process stops leading now, before
    // any stand-by may take over (the lease's duration is longer than the deadline).
    const bool taken = renewed.ok() && !*renewed;
    if (taken || now - last_renewed >= o.renew_deadline) {
      elected = false;
      log::Warn("leader election: lost the lease ({}); reconciling stops",
                taken ? "held by " + elector->Holder() : "not renewed in time");
      if (manager) manager->Stop();
      if (runner) runner->Stop();
      if (on_lost) on_lost();
      return;
    }
    lock.lock();
  }
}

std::unique_ptr<ControlPlane> ControlPlane::Create(store::Store& store,
                                                   ControlPlaneOptions options) {
  std::unique_ptr<ControlPlane> cp(new ControlPlane());
  Impl& impl = *cp->impl_;
  impl.store = &store;
  impl.state_dir = options.state_dir;
  impl.elector = options.elector;
  impl.on_lost = std::move(options.on_lost);
  impl.options = std::move(options);
  return cp;
}

void ControlPlane::Impl::Build() {
  if (manager) return;
  ControlPlaneOptions& options = this->options;
  Impl& impl = *this;
  store::Store& store = *this->store;
  const bool cluster = options.elector != nullptr;
  // The cluster runs Jobs; nothing is kept on this machine.
  if (cluster) options.local_jobs = false;

  runtime::JobRunnerOptions runner_options;
  runner_options.state_dir = options.state_dir;
  runner_options.max_running = options.max_running_jobs;
  runner_options.enabled = options.local_jobs;
  runner_options.clock = options.clock;
  impl.runner = std::make_unique<runtime::JobRunner>(store, runner_options);

  op::ManagerOptions manager_options;
  manager_options.workers = options.workers;
  manager_options.namespace_name = options.namespace_name;
  manager_options.clock = options.clock;
  // A converged state directory costs the next leader nothing (docs/operator.md, "Resuming").
  if (!options.state_dir.empty()) {
    manager_options.checkpoint_path =
        (std::filesystem::path(options.state_dir) / "operator.checkpoint").string();
  }
  impl.manager = std::make_unique<op::Manager>(store, manager_options);
  impl.jobs = std::make_unique<runtime::JobReconciler>(*impl.runner);
  if (!options.reconcile) {
    if (options.local_jobs) impl.manager->Register(kJob, impl.jobs.get(), {});
    return;
  }
  // A trigger run's log stays after its Job is deleted, for `hop logs tabletrigger/...`, until
  // the trigger's status no longer lists the run; a refresh's, until the next refresh ends
  // (docs/runtime.md, "Logs").
  std::function<void(const store::ObjectRef&)> remove_log;
  if (options.local_jobs && !options.state_dir.empty()) {
    remove_log = [runner = impl.runner.get()](const store::ObjectRef& job) {
      if (Status removed = runner->RemoveLog(job); !removed.ok()) {
        log::Warn("Job {}/{}: cannot remove the log of a Job no status names: {}",
                  job.namespace_name, job.name, removed.ToString());
      }
    };
  }
  impl.triggers = std::make_unique<op::TriggerReconciler>(store, remove_log);
  op::RefreshJobs refresh_jobs;
  refresh_jobs.command = options.refresh_command;
  refresh_jobs.image = options.job_image;
  refresh_jobs.service_account = options.job_service_account;
  refresh_jobs.job_deleted = remove_log;
  impl.views = std::make_unique<op::ViewReconciler>(store, refresh_jobs);
  impl.tables = std::make_unique<op::TableReconciler>(store, refresh_jobs);
  impl.pipelines = std::make_unique<op::PipelineReconciler>(store, impl.pipeline_rules);
  impl.provisions = std::make_unique<op::ProvisionReconciler>(store, options.provisioners);
  impl.subscriptions = std::make_unique<op::SubscriptionReconciler>(store);

  // A pipeline looks at its elements again when one of the kinds pipelines are usually made of
  // changes (each watched kind is a watch: the list is kept short), and every minute while an
  // element this control plane acts on is not ready.
  const store::GroupKind kFlinkSessionJob{"flink.apache.org", "FlinkSessionJob"};
  const store::GroupKind kFlinkDeployment{"flink.apache.org", "FlinkDeployment"};
  const store::GroupKind kKafkaTopic{"kafka.strimzi.io", "KafkaTopic"};
  std::vector<std::pair<store::GroupKind, op::EventMapper>> elements;
  for (const store::GroupKind& kind :
       {kJob, kFlinkSessionJob, kFlinkDeployment, kKafkaTopic,
        resource::SqlJobKind::Info().group_kind(), resource::TableTriggerKind::Info().group_kind(),
        resource::TableProvisionJobKind::Info().group_kind()}) {
    elements.emplace_back(kind, &op::PipelineReconciler::ElementEvent);
  }
  // On a cluster, these kinds have controllers of their own that write their status (Kubernetes'
  // Job controller, the Flink Kubernetes operator, Strimzi's topic operator): the Pipeline rules
  // count them as reported on (docs/kubernetes.md, "Readiness").
  if (cluster) {
    for (const store::GroupKind& kind : {kJob, kFlinkSessionJob, kFlinkDeployment, kKafkaTopic}) {
      impl.pipeline_rules.controlled.push_back({kind, op::ControlledKind::Reports::kStatus});
    }
  }
  elements.emplace_back(resource::ViewKind::Info().group_kind(),
                        &op::PipelineReconciler::ViewEvent);
  // What this control plane acts on, one controller a kind. The Pipeline reconciler reads this
  // same list: an element of a kind not in it is pending, whatever it looks like, until
  // something reports on it (docs/operator.md, "Pipeline"). Jobs are ours only when this machine
  // runs them.
  using Reports = op::ControlledKind::Reports;
  struct Controller {
    store::GroupKind kind;
    op::Reconciler* reconciler;
    Reports reports;
    std::vector<std::pair<store::GroupKind, op::EventMapper>> watches;
  };
  std::vector<Controller> controllers;
  controllers.push_back({resource::TableTriggerKind::Info().group_kind(),
                         impl.triggers.get(),
                         Reports::kStanding,
                         {{kJob, &op::TriggerReconciler::JobEvent}}});
  // A view hears of its refresh Jobs; one that derives its watermark, or is refreshed on its
  // inputs' change, looks again when one of its inputs changes.
  op::EventMapper inputs = op::ViewReconciler::InputEvent(store);
  controllers.push_back(
      {resource::ViewKind::Info().group_kind(),
       impl.views.get(),
       Reports::kStanding,
       {{kJob, &op::ViewReconciler::JobEvent},
        {resource::TableTriggerKind::Info().group_kind(), &op::ViewReconciler::TriggerEvent},
        {resource::TableKind::Info().group_kind(), op::DerivedViewsOf(store)},
        {resource::ViewKind::Info().group_kind(), op::DerivedViewsOf(store)},
        {resource::TableKind::Info().group_kind(), inputs},
        {resource::ViewKind::Info().group_kind(), inputs}}});
  controllers.push_back({resource::PipelineKind::Info().group_kind(), impl.pipelines.get(),
                         Reports::kStatus, std::move(elements)});
  controllers.push_back({resource::TableProvisionJobKind::Info().group_kind(),
                         impl.provisions.get(),
                         Reports::kStatus,
                         {}});
  if (options.local_jobs) controllers.push_back({kJob, impl.jobs.get(), Reports::kStatus, {}});
  controllers.push_back({resource::SubscriptionKind::Info().group_kind(),
                         impl.subscriptions.get(),
                         Reports::kStatus,
                         {}});
  for (Controller& c : controllers) {
    impl.pipeline_rules.controlled.push_back({c.kind, c.reports});
    impl.manager->Register(c.kind, c.reconciler, std::move(c.watches));
  }
  // Tables' watermarks fire their triggers. Not in the Pipeline rules' list: this reconciler
  // says nothing of whether a table is ready.
  // A table made with CREATE TABLE ... AS hears of its fill Job.
  impl.manager->Register(resource::TableKind::Info().group_kind(), impl.tables.get(),
                         {{kJob, &op::TableReconciler::JobEvent},
                          {resource::TableTriggerKind::Info().group_kind(),
                           op::TableReconciler::TriggerEvent(store)}});
}

Result<std::unique_ptr<ControlPlane>> ControlPlane::Start(store::Store& store,
                                                          ControlPlaneOptions options) {
  std::unique_ptr<ControlPlane> cp = Create(store, std::move(options));
  HOP_RETURN_IF_ERROR(cp->Run());
  return cp;
}

Status ControlPlane::Run() {
  Impl& impl = *impl_;
  if (impl.ran) return Status::OK();
  impl.ran = true;
  if (impl.elector != nullptr) {
    HOP_ASSIGN_OR_RETURN(const bool held, impl.elector->TryAcquireOrRenew());
    if (!held) {
      impl.leader = impl.elector->Holder();
      return Status::OK();
    }
    impl.elected = true;
  } else {
    HOP_ASSIGN_OR_RETURN(impl.lease, op::Lease::TryAcquire(impl.state_dir));
    if (!impl.lease) {
      impl.leader = op::Lease::Holder(impl.state_dir).value_or("another process");
      return Status::OK();
    }
  }
  return StartLeading();
}

Status ControlPlane::TryToLead() {
  Impl& impl = *impl_;
  if (!impl.ran || leading() || impl.elector != nullptr || impl.stopped) return Status::OK();
  HOP_ASSIGN_OR_RETURN(impl.lease, op::Lease::TryAcquire(impl.state_dir));
  if (!impl.lease) {
    impl.leader = op::Lease::Holder(impl.state_dir).value_or("another process");
    return Status::OK();
  }
  log::Info("the lease of {} is free again: taking over from {}", impl.state_dir, impl.leader);
  return StartLeading();
}

Status ControlPlane::StartLeading() {
  Impl& impl = *impl_;
  impl.Build();
  HOP_RETURN_IF_ERROR(impl.runner->Start());
  HOP_RETURN_IF_ERROR(impl.manager->Start());
  if (impl.elector != nullptr) {
    impl.renewer = std::thread([&impl] { impl.Renew(); });
    log::Info("control plane started, leading as {}", impl.elector->options().identity);
  } else if (!impl.options.reconcile) {
    log::Info("local runtime started on {} without the operator ({})", impl.state_dir, leader());
  } else {
    log::Info("control plane started on {} ({})", impl.state_dir, impl.lease->holder());
  }
  return Status::OK();
}

bool ControlPlane::ran() const { return impl_->ran; }

Result<bool> ControlPlane::Converged() {
  if (impl_->ran) return Status::InvalidArgument("control plane: Converged after Run");
  impl_->Build();
  HOP_ASSIGN_OR_RETURN(const bool converged, impl_->manager->Converged());
  if (!converged) return false;
  return impl_->state_dir.empty() || !runtime::JobRunner::AttemptMarkersIn(impl_->state_dir);
}

bool ControlPlane::leading() const { return impl_->lease != nullptr || impl_->elected; }
const std::string& ControlPlane::state_dir() const { return impl_->state_dir; }

std::string ControlPlane::leader() const {
  if (impl_->lease) return impl_->lease->holder();
  if (impl_->elected) return impl_->elector->options().identity;
  return impl_->leader;
}

bool ControlPlane::LocalIdle() const {
  if (!leading()) return true;
  return impl_->manager->Idle() && impl_->runner->Running() == 0;
}

bool ControlPlane::WaitIdle(std::chrono::milliseconds timeout) {
  if (!leading()) return false;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // Idle means: the queue and the workers are idle, no Job process runs, and that stays so
  // across a short look (a Job that just exited writes its status, which queues work again).
  int quiet = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto revision = impl_->store->Revision();
    const bool idle = impl_->manager->Idle() && impl_->runner->Running() == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const bool still = idle && impl_->manager->Idle() && impl_->runner->Running() == 0 &&
                       revision.ok() && impl_->store->Revision().ok() &&
                       *impl_->store->Revision() == *revision;
    quiet = still ? quiet + 1 : 0;
    if (quiet >= 3) return true;
  }
  return false;
}

std::vector<std::pair<std::string, std::string>> ControlPlane::Metrics() const {
  std::vector<std::pair<std::string, std::string>> rows;
  if (!leading()) return rows;
  const op::Metrics m = impl_->manager->metrics();
  const runtime::JobRunner::Stats r = impl_->runner->stats();
  auto add = [&](const char* name, auto value) {
    rows.emplace_back(name, fmt::format("{}", value));
  };
  add("reconciles", m.reconciles);
  add("reconcile_errors", m.errors);
  add("queue_depth", m.queue_depth);
  add("in_flight", m.in_flight);
  add("delayed", m.delayed);
  add("jobs_running", r.running);
  add("trigger_runs_started", r.started_runs);
  rows.emplace_back("fire_to_start_p50_ms", fmt::format("{:.1f}", r.fire_to_start_p50_ms));
  rows.emplace_back("fire_to_start_p99_ms", fmt::format("{:.1f}", r.fire_to_start_p99_ms));
  return rows;
}

void ControlPlane::Stop() {
  impl_->stopped = true;
  if (impl_->renewer.joinable()) {
    {
      std::lock_guard<std::mutex> lock(impl_->renew_mu);
      impl_->stopping = true;
    }
    impl_->renew_cv.notify_all();
    impl_->renewer.join();
  }
  if (impl_->manager) impl_->manager->Stop();
  if (impl_->runner) impl_->runner->Stop();
  impl_->manager.reset();
  impl_->runner.reset();
  impl_->lease.reset();
  if (impl_->elected.exchange(false)) {
    // A stand-by takes over at once rather than after the lease's duration.
    if (Status released = impl_->elector->Release(); !released.ok()) {
      log::Warn("leader election: cannot release the lease: {}", released.ToString());
    }
  }
}

store::SqliteStoreOptions ControlPlane::StoreOptions() {
  store::SqliteStoreOptions options;
  options.poll_interval = std::chrono::milliseconds(100);
  return options;
}

Result<std::vector<std::string>> BusyWork(store::Store& store, SystemTime now) {
  std::vector<std::string> busy;
  HOP_ASSIGN_OR_RETURN(store::ListResult triggers,
                       store.List({resource::TableTriggerKind::Info().group_kind(), "", {}}));
  // The latest fire of each trigger, by namespace and the view label it carries.
  std::map<std::pair<std::string, std::string>, std::vector<const resource::Resource*>> on_view;
  for (const resource::Resource& trigger : triggers.items) {
    const std::string key = trigger.namespace_name() + "/" + trigger.name();
    if (auto work = op::PendingWork(trigger, now))
      busy.push_back("TableTrigger " + key + ": " + *work);
    const std::map<std::string, std::string> labels = trigger.labels();
    auto label = labels.find("view");
    if (label != labels.end()) {
      on_view[{trigger.namespace_name(), label->second}].push_back(&trigger);
    }
  }
  // Only views and tables with a status, a watermark policy or a fill can have work pending
  // (their index key says which: resource::kMayBeBusyKey); plain declarations are not read.
  HOP_ASSIGN_OR_RETURN(
      store::ListResult views,
      store.List(
          {resource::ViewKind::Info().group_kind(), "", {}, std::string(resource::kMayBeBusyKey)}));
  for (const resource::Resource& view : views.items) {
    const std::string key = view.namespace_name() + "/" + view.name();
    std::optional<resource::Resource> refresh_job;
    if (auto ref = op::RunningRefreshJob(view)) {
      HOP_ASSIGN_OR_RETURN(refresh_job, store.Find(*ref));
    }
    if (auto refresh = op::PendingRefresh(view, refresh_job)) {
      busy.push_back("View " + key + ": " + *refresh);
    }
    Json status = view.status() && view.status()->is_object() ? *view.status() : Json::object();
    deploy::ViewFires fires(status);
    if (fires.HasPending()) {
      busy.push_back("View " + key + ": watermarks wait to be given to its triggers");
      continue;
    }
    if (status.contains("inputFires")) {
      busy.push_back("View " + key + ": its inputs' advances wait to be derived");
      continue;
    }
    HOP_ASSIGN_OR_RETURN(std::optional<SystemTime> derived, op::DerivedWatermarkOf(store, view));
    if (auto current = fires.Watermark(); derived && (!current || *derived > *current)) {
      busy.push_back(fmt::format("View {}: its inputs' watermarks give {}, not taken yet", key,
                                 deploy::TriggerFires::Stamp(*derived)));
      continue;
    }
    const std::vector<SystemTime> watermark = fires.Undelivered();
    if (watermark.empty()) continue;
    auto listening =
        on_view.find({view.namespace_name(), resource::DependencyLabelValue(view.name())});
    if (listening == on_view.end()) continue;
    for (const resource::Resource* trigger : listening->second) {
      auto latest = ParseRfc3339(resource::TableTriggerKind::kTimestamp.Get(*trigger).value_or(""));
      if (!latest || *latest < watermark.back()) {
        busy.push_back(fmt::format("View {}: its watermark {} has not reached trigger {} yet", key,
                                   deploy::TriggerFires::Stamp(watermark.back()), trigger->name()));
      }
    }
  }
  HOP_ASSIGN_OR_RETURN(store::ListResult tables,
                       store.List({resource::TableKind::Info().group_kind(),
                                   "",
                                   {},
                                   std::string(resource::kMayBeBusyKey)}));
  for (const resource::Resource& table : tables.items) {
    std::optional<resource::Resource> fill_job;
    if (auto ref = op::RunningJob(table, "fill")) {
      HOP_ASSIGN_OR_RETURN(fill_job, store.Find(*ref));
    }
    if (auto fill = op::PendingFill(table, fill_job)) {
      busy.push_back("Table " + table.namespace_name() + "/" + table.name() + ": " + *fill);
    }
    Json status = table.status() && table.status()->is_object() ? *table.status() : Json::object();
    if (deploy::ViewFires(status).HasPending()) {
      busy.push_back("Table " + table.namespace_name() + "/" + table.name() +
                     ": watermarks wait to be given to its triggers");
    }
  }
  HOP_ASSIGN_OR_RETURN(store::ListResult provisions,
                       store.List({resource::TableProvisionJobKind::Info().group_kind(), "", {}}));
  for (const resource::Resource& job : provisions.items) {
    using resource::TableProvisionJobKind;
    const std::string key = job.namespace_name() + "/" + job.name();
    if (TableProvisionJobKind::kObservedGeneration.Get(job).value_or(0) != job.generation()) {
      busy.push_back("TableProvisionJob " + key + " has not been reconciled yet");
    } else if (TableProvisionJobKind::kRetrying.Get(job).value_or(false)) {
      busy.push_back("TableProvisionJob " + key +
                     " is retried: " + TableProvisionJobKind::kMessage.Get(job).value_or(""));
    }
  }
  HOP_ASSIGN_OR_RETURN(store::ListResult jobs,
                       store.List({kJob, "", {}, std::string(resource::kUnfinishedJobKey)}));
  for (const resource::Resource& job : jobs.items) {
    if (runtime::JobFinished(job)) continue;
    const Json* spec = job.spec();
    if (spec != nullptr && spec->is_object() && spec->value("suspend", false) == true) continue;
    const std::string key = job.namespace_name() + "/" + job.name();
    if (job.deletion_timestamp()) {
      busy.push_back("Job " + key + " is being deleted");
    } else if (auto attempt = runtime::RecordedAttempt(job)) {
      busy.push_back(fmt::format("Job {}: attempt {} is running", key, attempt->attempt));
    } else if (const int64_t failed = runtime::FailedOf(job); failed > 0) {
      busy.push_back(fmt::format("Job {}: a retry waits, after {} failed attempt{}", key, failed,
                                 failed == 1 ? "" : "s"));
    } else {
      busy.push_back("Job " + key + " has not started");
    }
  }
  return busy;
}

Status WaitUntilIdle(store::Store& store, const WaitOptions& options) {
  using std::chrono::milliseconds;
  using std::chrono::steady_clock;
  constexpr milliseconds kPoll{20};
  constexpr milliseconds kLeaseLook{250};
  const auto deadline = steady_clock::now() + options.timeout;
  auto next_lease_look = steady_clock::now();
  std::optional<int64_t> looked_at;  // the revision `busy` was read at
  std::vector<std::string> busy;
  // A look lists every trigger, view and Job: on a busy directory with many of them, looks are
  // spaced so that waiting takes at most a fifth of a core from the work it waits for.
  auto next_look = steady_clock::now();
  for (;;) {
    HOP_ASSIGN_OR_RETURN(const int64_t revision, store.Revision());
    if (revision != looked_at && steady_clock::now() >= next_look) {
      const auto started = steady_clock::now();
      HOP_ASSIGN_OR_RETURN(busy, BusyWork(store, options.clock->Now()));
      bool started_now = false;
      if (ControlPlane* cp = options.control_plane;
          cp != nullptr && !cp->ran() && options.timeout > milliseconds(0)) {
        // This process's control plane runs once there is work for it; on a converged state
        // directory it stays as it is, with no thread started. A wait of 0, which looks once and
        // cannot wait for anything, starts nothing.
        HOP_ASSIGN_OR_RETURN(const bool converged, cp->Converged());
        if (!busy.empty() || !converged) {
          HOP_RETURN_IF_ERROR(cp->Run().WithContext("the operator does not run: "));
          started_now = cp->leading();
        }
      }
      // Several lists are one look only if nothing was written in between. A control plane
      // that started leading during the look has not been given its work yet: the next look
      // counts.
      HOP_ASSIGN_OR_RETURN(const int64_t after, store.Revision());
      looked_at =
          after == revision && !started_now ? std::optional<int64_t>(revision) : std::nullopt;
      const auto took = steady_clock::now() - started;
      next_look =
          steady_clock::now() + std::min<steady_clock::duration>(4 * took, std::chrono::seconds(1));
    }
    // Work waits and another process held the lease: if it stopped or died meanwhile, this one
    // takes over rather than wait for a process that is gone (looked at every quarter second).
    if (ControlPlane* cp = options.control_plane; cp != nullptr && cp->ran() && !cp->leading() &&
                                                  !busy.empty() &&
                                                  steady_clock::now() >= next_lease_look) {
      next_lease_look = steady_clock::now() + kLeaseLook;
      HOP_RETURN_IF_ERROR(cp->TryToLead().WithContext("the operator does not run: "));
      if (cp->leading()) looked_at.reset();  // its work is given to it: look again
    }
    const bool local = options.control_plane == nullptr || options.control_plane->LocalIdle();
    if (looked_at && busy.empty() && local) return Status::OK();
    if (options.cancel != nullptr && options.cancel->load()) {
      return Status::ExecutionError("the wait was cancelled");
    }
    if (steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(kPoll);
  }
  std::string what;
  constexpr size_t kShown = 3;
  for (size_t i = 0; i < busy.size() && i < kShown; ++i) what += (i ? "; " : "") + busy[i];
  if (busy.size() > kShown) what += fmt::format("; and {} more", busy.size() - kShown);
  if (busy.empty()) what = "this process's reconciles or Job processes are still busy";
  std::string dir = options.state_dir;
  if (dir.empty() && options.control_plane != nullptr) dir = options.control_plane->state_dir();
  std::string who;
  if (options.control_plane != nullptr && options.control_plane->leading()) {
    who = "this process reconciles the state directory";
  } else if (dir.empty()) {
    who = "no operator runs in this process";
  } else if (auto holder = op::Lease::Holder(dir)) {
    who = *holder + " reconciles the state directory";
  } else {
    who = "no process reconciles the state directory: hop serve would";
  }
  const double seconds = std::chrono::duration<double>(options.timeout).count();
  return Status::Unavailable(fmt::format("still busy after {} s: {} ({})", seconds, what, who));
}

std::string ControlPlane::JobLogPath(const std::string& state_dir,
                                     const std::string& namespace_name, const std::string& name) {
  return runtime::JobRunner::LogPathIn(state_dir, {kJob, namespace_name, name});
}

}  // namespace hop::session
