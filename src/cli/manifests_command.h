// `hop manifests`: what a Kubernetes cluster needs to run hop's operator, as YAML documents for
// `kubectl apply -f -` (docs/kubernetes.md "Manifests"): hop's CRDs, a Namespace, the operator's
// ServiceAccount and RBAC, its Deployment and the Service of its metrics port. The RBAC rules
// come from one table, OperatorRbacRules, so that they can be checked against what the
// operator's client calls.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"
#include "resource/json.h"

namespace hop::cli {

// The verbs the operator uses on one resource of one API group.
struct RbacRule {
  std::string api_group;  // "" for the core group
  std::string resource;   // a plural, or a plural and its subresource ("views/status")
  std::vector<std::string> verbs;
  // Granted only in the operator's own namespace (its leader-election Lease), whatever the
  // namespaces it watches.
  bool operator_namespace_only = false;
};

// Every resource the operator reads or writes, with the verbs it uses, in a fixed order: hop's
// kinds and the status of those that have a status subresource, batch/v1 Jobs, the Flink and
// Strimzi kinds it renders, ConfigMaps and Secrets it reads, and its Lease.
std::vector<RbacRule> OperatorRbacRules();

// What the Jobs that refresh materialized views and fill tables (`hop --in-cluster refresh`,
// run as the operator's --job-service-account in the view's namespace) read and write.
std::vector<RbacRule> RefreshRbacRules();

// The label every object of the manifests carries, and its value.
inline constexpr const char* kAppLabel = "app.kubernetes.io/name";
inline constexpr const char* kAppName = "hop";

struct ManifestsOptions {
  std::string namespace_name = "hop-system";  // --namespace: where the operator runs
  // --watch-namespace: the one namespace the operator may act in (a Role and RoleBinding
  // there); empty: every namespace (a ClusterRole and ClusterRoleBinding).
  std::string watch_namespace;
  std::string image;    // --image; empty: "hop:<version>"
  std::string version;  // this binary's version, for the default image
};

// The documents, in the order `kubectl apply` needs them: the CRDs (resource::
// AllCustomResourceDefinitions, labelled), the Namespace, the ServiceAccount, the operator's
// ClusterRole and ClusterRoleBinding (or Role and RoleBinding in the watched namespace), the
// leader-election Role and RoleBinding, the Deployment and the Service. Errors: InvalidArgument
// for a namespace that is not a DNS label or an image that is empty or holds blanks or control
// characters.
Result<std::vector<Json>> Manifests(const ManifestsOptions& options);

// Prints Manifests as YAML documents on `out`. Exit 0, or 2 on a bad option (the error on `err`).
int RunManifests(const ManifestsOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hop::cli
