#include "cli/operator_command.h"

#include <signal.h>

#include <atomic>
#include <ctime>
#include <memory>

#include "common/strings.h"
#include "session/control_plane.h"

namespace hop::cli {

int RunOperator(const OperatorOptions& options, store::Store& store, std::ostream& out,
                std::ostream& err) {
  std::atomic<server::ServeRole> role{server::ServeRole::kStarting};
  std::unique_ptr<server::HttpServer> http;
  if (options.http) {
    auto started = server::HttpServer::Start(store, *options.http, &role);
    if (!started.ok()) {
      err << "hop operator: " << EscapeForTerminal(started.status().ToString()) << "\n";
      return 1;
    }
    http = std::move(started).value();
    out << "hop operator: metrics and health checks on " << http->url() << std::endl;
  }
  op::LeaderElector elector(store, options.election);
  std::atomic<bool> lost{false};
  session::ControlPlaneOptions cpo;
  cpo.elector = &elector;
  cpo.on_lost = [&lost] { lost = true; };
  cpo.workers = options.workers;
  cpo.namespace_name = options.watch_namespace;
  cpo.refresh_command = options.refresh_command;
  cpo.job_image = options.job_image;
  cpo.job_service_account = options.job_service_account;
  cpo.provisioners = options.provisioners;

  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  const auto period = options.election.retry_period;
  timespec wait{static_cast<time_t>(period.count() / 1000),
                static_cast<long>((period.count() % 1000) * 1000000)};
  timespec tick{0, 200 * 1000 * 1000};
  std::string said;  // the last state printed, so that a stand-by says it once
  auto say = [&](const std::string& text) {
    if (text == said) return;
    said = text;
    out << "hop operator: " << text << std::endl;
  };
  const std::string lease = options.election.namespace_name + "/" + options.election.name;
  for (;;) {
    lost = false;
    auto started = session::ControlPlane::Start(store, cpo);
    std::unique_ptr<session::ControlPlane> cp;
    if (!started.ok()) {
      // The API may be down or refuse: keep trying, as a controller does, and say why.
      role = server::ServeRole::kStandingBy;
      say("cannot take part in the election for lease " + lease + ": " +
          EscapeForTerminal(started.status().ToString()));
    } else {
      cp = std::move(started).value();
    }
    if (cp && cp->leading()) {
      role = server::ServeRole::kLeading;
      say("leading as " + options.election.identity + " (lease " + lease +
          "); stop with SIGTERM or Ctrl-C");
      int signal = 0;
      while (!lost) {
        signal = sigtimedwait(&set, nullptr, &tick);
        if (signal == SIGTERM || signal == SIGINT) break;
      }
      if (!lost) {
        out << "hop operator: stopping (" << (signal == SIGTERM ? "SIGTERM" : "SIGINT")
            << "), releasing the lease" << std::endl;
        role = server::ServeRole::kStopping;
        cp->Stop();
        if (http) http->Stop();
        return 0;
      }
      cp.reset();
      say("lost the lease " + lease + "; standing by");
      continue;
    }
    if (cp) {
      role = server::ServeRole::kStandingBy;
      say(cp->leader() + " leads (lease " + lease + "); standing by");
    }
    cp.reset();
    const int signal = sigtimedwait(&set, nullptr, &wait);
    if (signal == SIGTERM || signal == SIGINT) {
      role = server::ServeRole::kStopping;
      if (http) http->Stop();
      return 0;
    }
  }
}

}  // namespace hop::cli
