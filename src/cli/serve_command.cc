#include "cli/serve_command.h"

#include <csignal>
#include <ctime>
#include <memory>
#include <ostream>

#include "common/strings.h"
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
  // A second `hop serve` on one state directory stands by until the first stops.
  sigset_t set = StopSignals();
  bool said = false;
  std::unique_ptr<session::ControlPlane> cp;
  for (;;) {
    auto started = session::ControlPlane::Start(store, cpo);
    if (!started.ok()) {
      err << "hop serve: " << EscapeForTerminal(started.status().ToString()) << "\n";
      return 1;
    }
    cp = std::move(started).value();
    if (cp->leading()) break;
    if (!said) {
      out << "hop serve: " << cp->leader() << " reconciles " << options.state_dir << "; standing by"
          << std::endl;
      said = true;
    }
    cp.reset();
    timespec wait{1, 0};
    const int signal = sigtimedwait(&set, nullptr, &wait);
    if (signal == SIGTERM || signal == SIGINT) return 0;
  }
  out << "hop serve: reconciling " << options.state_dir
      << (options.local_jobs ? "" : " (local Jobs off)") << "; stop with SIGTERM or Ctrl-C"
      << std::endl;
  // The signals are blocked in every thread; this one takes them when they come.
  int signal = 0;
  sigwait(&set, &signal);
  out << "hop serve: stopping (" << (signal == SIGTERM ? "SIGTERM" : "SIGINT") << ")" << std::endl;
  if (pg) pg->Stop();
  cp->Stop();
  return 0;
}

}  // namespace hop::cli
