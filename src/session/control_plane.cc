#include "session/control_plane.h"

#include <fmt/format.h>

#include <thread>

#include "common/log.h"
#include "operator/controller.h"
#include "operator/lease.h"
#include "operator/subscription_reconciler.h"
#include "operator/trigger_reconciler.h"
#include "operator/view_reconciler.h"
#include "resource/kinds.h"
#include "runtime/job_runner.h"

namespace hop::session {

namespace {

const store::GroupKind kJob{"batch", "Job"};

// The runtime's Job runner as a reconciler of Jobs.
class JobReconciler : public op::Reconciler {
 public:
  explicit JobReconciler(runtime::JobRunner& runner) : runner_(runner) {}
  hop::Result<op::ReconcileResult> Reconcile(const op::Request& request,
                                             const op::ReconcileContext&) override {
    HOP_ASSIGN_OR_RETURN(std::optional<std::chrono::milliseconds> after, runner_.Sync(request.ref));
    return op::ReconcileResult{after};
  }

 private:
  runtime::JobRunner& runner_;
};

}  // namespace

struct ControlPlane::Impl {
  std::unique_ptr<op::Lease> lease;
  std::string leader;
  std::unique_ptr<runtime::JobRunner> runner;
  std::unique_ptr<op::TriggerReconciler> triggers;
  std::unique_ptr<op::ViewReconciler> views;
  std::unique_ptr<op::PipelineReconciler> pipelines;
  std::unique_ptr<op::ProvisionReconciler> provisions;
  std::unique_ptr<op::SubscriptionReconciler> subscriptions;
  std::unique_ptr<JobReconciler> jobs;
  std::unique_ptr<op::Manager> manager;
  store::Store* store = nullptr;
};

ControlPlane::ControlPlane() : impl_(std::make_unique<Impl>()) {}
ControlPlane::~ControlPlane() { Stop(); }

Result<std::unique_ptr<ControlPlane>> ControlPlane::Start(store::Store& store,
                                                          ControlPlaneOptions options) {
  std::unique_ptr<ControlPlane> cp(new ControlPlane());
  Impl& impl = *cp->impl_;
  impl.store = &store;
  HOP_ASSIGN_OR_RETURN(impl.lease, op::Lease::TryAcquire(options.state_dir));
  if (!impl.lease) {
    impl.leader = op::Lease::Holder(options.state_dir).value_or("another process");
    return cp;
  }

  runtime::JobRunnerOptions runner_options;
  runner_options.state_dir = options.state_dir;
  runner_options.max_running = options.max_running_jobs;
  runner_options.enabled = options.local_jobs;
  runner_options.clock = options.clock;
  impl.runner = std::make_unique<runtime::JobRunner>(store, runner_options);

  op::ManagerOptions manager_options;
  manager_options.workers = options.workers;
  manager_options.clock = options.clock;
  impl.manager = std::make_unique<op::Manager>(store, manager_options);
  impl.triggers = std::make_unique<op::TriggerReconciler>(store);
  impl.views = std::make_unique<op::ViewReconciler>(store);
  impl.pipelines = std::make_unique<op::PipelineReconciler>(store);
  impl.provisions = std::make_unique<op::ProvisionReconciler>(store, options.provisioners);
  impl.jobs = std::make_unique<JobReconciler>(*impl.runner);
  impl.subscriptions = std::make_unique<op::SubscriptionReconciler>(store);

  impl.manager->Register(resource::TableTriggerKind::Info().group_kind(), impl.triggers.get(),
                         {{kJob, &op::TriggerReconciler::JobEvent}});
  impl.manager->Register(resource::ViewKind::Info().group_kind(), impl.views.get());
  // A pipeline looks at its elements again when one of the kinds pipelines are usually made of
  // changes (each watched kind is a watch: the list is kept short), and every minute until ready.
  std::vector<std::pair<store::GroupKind, op::EventMapper>> elements;
  for (const store::GroupKind& kind :
       {kJob, store::GroupKind{"flink.apache.org", "FlinkSessionJob"},
        store::GroupKind{"flink.apache.org", "FlinkDeployment"},
        store::GroupKind{"kafka.strimzi.io", "KafkaTopic"},
        resource::SqlJobKind::Info().group_kind(), resource::TableTriggerKind::Info().group_kind(),
        resource::TableProvisionJobKind::Info().group_kind()}) {
    elements.emplace_back(kind, &op::PipelineReconciler::ElementEvent);
  }
  impl.manager->Register(resource::PipelineKind::Info().group_kind(), impl.pipelines.get(),
                         std::move(elements));
  impl.manager->Register(resource::TableProvisionJobKind::Info().group_kind(),
                         impl.provisions.get());
  impl.manager->Register(kJob, impl.jobs.get());
  impl.manager->Register(resource::SubscriptionKind::Info().group_kind(), impl.subscriptions.get());

  HOP_RETURN_IF_ERROR(impl.runner->Start());
  HOP_RETURN_IF_ERROR(impl.manager->Start());
  log::Info("control plane started on {} ({})", options.state_dir, impl.lease->holder());
  return cp;
}

bool ControlPlane::leading() const { return impl_->lease != nullptr; }

std::string ControlPlane::leader() const {
  return impl_->lease ? impl_->lease->holder() : impl_->leader;
}

bool ControlPlane::WaitIdle(std::chrono::milliseconds timeout) {
  if (!impl_->manager) return false;
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
  if (!impl_->manager) return rows;
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
  if (impl_->manager) impl_->manager->Stop();
  if (impl_->runner) impl_->runner->Stop();
  impl_->manager.reset();
  impl_->runner.reset();
  impl_->lease.reset();
}

store::SqliteStoreOptions ControlPlane::StoreOptions() {
  store::SqliteStoreOptions options;
  options.poll_interval = std::chrono::milliseconds(100);
  return options;
}

std::string ControlPlane::JobLogPath(const std::string& state_dir,
                                     const std::string& namespace_name, const std::string& name) {
  return runtime::JobRunner::LogPathIn(state_dir, {kJob, namespace_name, name});
}

}  // namespace hop::session
