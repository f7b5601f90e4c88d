// Where a Kubernetes API server is and how to authenticate to it: read from a kubeconfig file
// (contexts, clusters, users, as kubectl reads them) or from the service account a pod runs as
// (in-cluster configuration). docs/kubernetes.md lists what is supported.
#pragma once

#include <string>

#include "common/status.h"

namespace hop::store {

struct KubeConfig {
  std::string server;  // https://host:port, without a trailing slash
  // The certificate authorities the server's certificate must chain to, PEM; empty: the
  // system's.
  std::string ca_pem;
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;  // the name to verify the certificate for, when not the host's
  std::string client_cert_pem;  // client certificate and key (mutual TLS), PEM
  std::string client_key_pem;
  std::string token;       // a bearer token
  std::string token_file;  // a file holding the bearer token, read again as it changes
  std::string username;    // basic authentication
  std::string password;
  std::string namespace_name;  // the context's namespace; "" when it sets none
  std::string context;         // the context used; "in-cluster" for the service account's
};

// Reads the kubeconfig `paths` (one path, or several joined by ':' as KUBECONFIG holds them,
// merged as kubectl merges them: the first file to name a cluster, user or context wins, and the
// first current-context set wins) and resolves `context` (the current context when empty).
// Files a kubeconfig names (certificate-authority, client-certificate, client-key, tokenFile) are
// relative to the kubeconfig's own directory and are read here, except tokenFile, which is read
// at each request so a rotated token is used. Errors: InvalidArgument naming the file and what is
// wrong (unreadable, not YAML, no such context, a user that authenticates by an exec plugin or
// an auth provider, which hop does not run).
Result<KubeConfig> LoadKubeconfig(const std::string& paths, const std::string& context = "");

// The kubeconfig paths to read when none is given: $KUBECONFIG, else ~/.kube/config.
std::string DefaultKubeconfigPaths();

// The configuration of a pod's service account: the API server from KUBERNETES_SERVICE_HOST and
// KUBERNETES_SERVICE_PORT, the token, CA and namespace from the service account's directory
// (/var/run/secrets/kubernetes.io/serviceaccount, or $HOP_SERVICE_ACCOUNT_DIR where a test or an
// unusual mount puts them). Errors: InvalidArgument when not running in a pod (no such
// variables or files).
Result<KubeConfig> InClusterConfig();

}  // namespace hop::store
