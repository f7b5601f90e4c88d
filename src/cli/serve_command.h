// `hop serve`: the long-running control plane of a state directory (the operator's reconcilers
// and the local Job runner) until SIGTERM or SIGINT; with --pg-port the PostgreSQL wire
// protocol server (server/pg_server.h, docs/pgwire.md), with --http-port the Kubernetes API,
// metrics and health checks (server/http_server.h, docs/kubernetes-api.md).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "catalog/provisioner.h"
#include "server/http_server.h"
#include "server/pg_server.h"
#include "store/store.h"

namespace hop::cli {

struct ServeOptions {
  std::string state_dir;
  bool local_jobs = true;
  bool reconcile = true;  // session::ControlPlaneOptions::reconcile (--no-operator: false)
  // The store is a Kubernetes cluster's (--kubeconfig): only the front ends run (the PostgreSQL
  // protocol, health and metrics); `hop operator` reconciles the cluster.
  bool cluster = false;
  int workers = 2;
  int max_running_jobs = 0;                  // 0: runtime::DefaultMaxRunning()
  std::vector<std::string> refresh_command;  // session::ControlPlaneOptions::refresh_command
  // What provisions tables, for the control plane and the sessions of clients (the same as
  // `hop -e` registers); not owned.
  const catalog::Provisioners* provisioners = nullptr;
  // The PostgreSQL server's, when --pg-port is given.
  std::optional<server::PgServerOptions> pg;
  // The HTTP server's (the Kubernetes API, metrics, health), when --http-port is given.
  std::optional<server::HttpServerOptions> http;
  // Where to write a kubeconfig for the HTTP server (mode 0600: it may hold the token).
  std::string kubeconfig_out;
};

// Runs the control plane until SIGTERM or SIGINT (block them first, before any thread starts,
// with BlockStopSignals). While another process holds the state directory's lease it stands by
// and takes over when that process stops. 0 after a clean stop; 1 when the control plane cannot
// start.
int RunServe(const ServeOptions& options, store::Store& store, std::ostream& out,
             std::ostream& err);

// Blocks SIGTERM and SIGINT in the calling thread and in the threads it starts later.
void BlockStopSignals();

}  // namespace hop::cli
