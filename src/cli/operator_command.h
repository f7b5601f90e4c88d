// `hop operator`: the control plane's reconcilers against a Kubernetes cluster
// (docs/kubernetes.md), with leader election on a coordination.k8s.io Lease so that replicas stand
// by, Jobs run by the cluster, and /metrics and the health checks on --http-port for the
// Deployment's probes.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "catalog/provisioner.h"
#include "operator/leader_election.h"
#include "server/http_server.h"
#include "store/store.h"

namespace hop::cli {

struct OperatorOptions {
  op::LeaderElectionOptions election;
  std::string watch_namespace;  // "" for every namespace
  int workers = 2;
  // How a materialized view's refresh Job runs `hop` on the cluster (ControlPlaneOptions).
  std::vector<std::string> refresh_command;
  std::string job_image;
  std::string job_service_account;
  const catalog::Provisioners* provisioners = nullptr;  // not owned
  std::optional<server::HttpServerOptions> http;        // health and metrics only
};

// Runs until SIGTERM or SIGINT (block them first with BlockStopSignals): stands by while another
// replica leads, reconciles while this one does, and goes back to standing by when its lease
// is lost. 0 after a clean stop (the lease is released); 1 when it cannot start (the HTTP port).
int RunOperator(const OperatorOptions& options, store::Store& store, std::ostream& out,
                std::ostream& err);

}  // namespace hop::cli
