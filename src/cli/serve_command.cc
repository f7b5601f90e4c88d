#include "cli/serve_command.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <memory>
#include <ostream>

#include "common/files.h"
#include "common/strings.h"
#include "server/http_server.h"
#include "server/pg_server.h"
#include "session/control_plane.h"

namespace hop::cli {

namespace {

sigset_t StopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

// Writes `text` to `path` whole or not at all (a temporary file renamed over it), readable by
// the owner only.
Status WritePrivateFile(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  const int fd = OpenPrivateFile(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return Status::Unavailable(fmt::format("cannot write {}: {}", tmp, strerror(errno)));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(fd);
      unlink(tmp.c_str());
      return Status::Unavailable(fmt::format("cannot write {}: {}", tmp, strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    unlink(tmp.c_str());
    return Status::Unavailable(fmt::format("cannot write {}: {}", path, strerror(errno)));
  }
  return Status::OK();
}

// How often hop serve asks its store whether it can still keep what it is given
// (Store::Health), and how long, once it cannot, /readyz goes on saying so before the process
// exits: long enough for whoever polls it to read the reason (docs/cli.md, "When the store
// fails").
constexpr std::chrono::seconds kHealthCheckInterval{1};
constexpr time_t kFailedStoreDrainSeconds = 2;

// Waits for SIGTERM or SIGINT (blocked in every thread: this one takes them), for ever or, when
// `once`, for one kHealthCheckInterval, asking the store at every interval whether it is still
// healthy. The signal; 0 when `once` and the interval passed; -1 when the store failed, with
// `*failure` saying why.
int AwaitStop(const sigset_t& set, store::Store& store, bool once, Status* failure) {
  for (;;) {
    const auto end = std::chrono::steady_clock::now() + kHealthCheckInterval;
    for (auto now = std::chrono::steady_clock::now(); now < end;
         now = std::chrono::steady_clock::now()) {
      const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(end - now);
      timespec wait{static_cast<time_t>(left.count() / 1000000000),
                    static_cast<long>(left.count() % 1000000000)};
      const int signal = sigtimedwait(&set, nullptr, &wait);
      if (signal == SIGTERM || signal == SIGINT) return signal;
    }
    if (Status health = store.Health(); !health.ok()) {
      *failure = std::move(health);
      return -1;
    }
    if (once) return 0;
  }
}

}  // namespace

void BlockStopSignals() {
  sigset_t set = StopSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int RunServe(const ServeOptions& options, store::Store& store, std::ostream& out,
             std::ostream& err) {
  session::ControlPlaneOptions cpo;
  cpo.state_dir = options.state_dir;
  cpo.local_jobs = options.local_jobs;
  cpo.reconcile = options.reconcile;
  cpo.workers = options.workers;
  cpo.max_running_jobs = options.max_running_jobs;
  cpo.refresh_command = options.refresh_command;
  cpo.provisioners = options.provisioners;
  // Clients may connect at once, also while this process stands by: what they write to the
  // store is reconciled by whichever process leads.
  std::unique_ptr<server::PgServer> pg;
  if (options.pg) {
    server::PgServerOptions pgo = *options.pg;
    pgo.properties.state_dir = options.state_dir;
    pgo.properties.provisioners = options.provisioners;
    auto started = server::PgServer::Start(store, std::move(pgo));
    if (!started.ok()) {
      err << "hop serve: " << EscapeForTerminal(started.status().ToString()) << "\n";
      return 1;
    }
    pg = std::move(started).value();
    out << "hop serve: PostgreSQL protocol on " << options.pg->listen << ":" << pg->port() << " ("
        << server::AuthMethodName(options.pg->auth) << ")" << std::endl;
  }
  // The Kubernetes API serves the store in a stand-by too; /readyz says which this process is.
  std::atomic<server::ServeRole> role{server::ServeRole::kStarting};
  std::unique_ptr<server::HttpServer> http;
  if (options.http) {
    auto started = server::HttpServer::Start(store, *options.http, &role);
    if (!started.ok()) {
      err << "hop serve: " << EscapeForTerminal(started.status().ToString()) << "\n";
      return 1;
    }
    http = std::move(started).value();
    // The kubeconfig is written before the API is announced, so that whoever waits for that line
    // (a script, a test) finds the file there.
    if (!options.kubeconfig_out.empty()) {
      Status written = WritePrivateFile(options.kubeconfig_out, http->Kubeconfig());
      if (!written.ok()) {
        err << "hop serve: " << EscapeForTerminal(written.ToString()) << "\n";
        return 1;
      }
    }
    out << "hop serve: Kubernetes API on " << http->url() << std::endl;
    if (!options.kubeconfig_out.empty()) {
      out << "hop serve: kubeconfig written to " << EscapeForTerminal(options.kubeconfig_out)
          << std::endl;
      // kubectl sends a bearer token only over HTTPS (docs/kubernetes-api.md): with the token
      // and no TLS, every request it makes would be refused.
      if (!options.http->token_file.empty() && options.http->tls_cert.empty()) {
        err << "hop serve: warning: kubectl does not send the token of this kubeconfig over plain "
               "HTTP, so its requests will get 401; give --http-tls-cert and --http-tls-key too "
               "for kubectl (curl and client libraries send it as it is)\n";
      }
    }
  }
  sigset_t set = StopSignals();
  // A store that can no longer keep what it is given (its file gone, a failed fsync: Store::
  // Health) cannot be trusted with more: the process takes no more work, says why, lets /readyz
  // say it for a moment, and exits with 1 (docs/cli.md, "When the store fails").
  std::unique_ptr<session::ControlPlane> cp;
  const auto store_failed = [&](const Status& failure) {
    err << "hop serve: stopping: the store cannot keep what it is given: "
        << EscapeForTerminal(failure.message()) << "\n";
    if (pg) pg->Stop();
    if (cp) cp->Stop();
    if (http) {
      // (SIGTERM or Ctrl-C ends the wait early)
      timespec drain{kFailedStoreDrainSeconds, 0};
      (void)sigtimedwait(&set, nullptr, &drain);
      role = server::ServeRole::kStopping;
      http->Stop();
    }
    return 1;
  };
  Status failure;
  if (options.cluster) {
    role = server::ServeRole::kLeading;
    out << "hop serve: serving the cluster's resources (hop operator reconciles them); stop with "
           "SIGTERM or Ctrl-C"
        << std::endl;
    if (AwaitStop(set, store, /*once=*/false, &failure) < 0) return store_failed(failure);
    role = server::ServeRole::kStopping;
    if (http) http->Stop();
    if (pg) pg->Stop();
    return 0;
  }
  // A second `hop serve` on one state directory stands by until the first stops.
  bool said = false;
  for (;;) {
    auto started = session::ControlPlane::Start(store, cpo);
    if (!started.ok()) {
      err << "hop serve: " << EscapeForTerminal(started.status().ToString()) << "\n";
      return 1;
    }
    cp = std::move(started).value();
    if (cp->leading()) break;
    role = server::ServeRole::kStandingBy;
    if (!said) {
      out << "hop serve: " << cp->leader() << " reconciles " << options.state_dir << "; standing by"
          << std::endl;
      said = true;
    }
    cp.reset();
    const int signal = AwaitStop(set, store, /*once=*/true, &failure);
    if (signal < 0) return store_failed(failure);
    if (signal == SIGTERM || signal == SIGINT) {
      role = server::ServeRole::kStopping;
      if (http) http->Stop();
      if (pg) pg->Stop();
      return 0;
    }
  }
  role = server::ServeRole::kLeading;
  out << "hop serve: " << (options.reconcile ? "reconciling " : "running the Jobs of ")
      << options.state_dir << (options.local_jobs ? "" : " (local Jobs off)")
      << (options.reconcile ? "" : " (operator off)") << "; stop with SIGTERM or Ctrl-C"
      << std::endl;
  const int signal = AwaitStop(set, store, /*once=*/false, &failure);
  if (signal < 0) return store_failed(failure);
  out << "hop serve: stopping (" << (signal == SIGTERM ? "SIGTERM" : "SIGINT") << ")" << std::endl;
  role = server::ServeRole::kStopping;
  if (http) http->Stop();
  if (pg) pg->Stop();
  cp->Stop();
  return 0;
}

}  // namespace hop::cli
