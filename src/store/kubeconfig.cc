#include "store/kubeconfig.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "common/strings.h"
#include "resource/yaml.h"

namespace hop::store {

namespace {

// Kubeconfigs and the files they name are small; a larger one is not what it claims to be.
constexpr std::uintmax_t kMaxFileBytes = 4 << 20;

Result<std::string> ReadSmallFile(const std::filesystem::path& path, std::string_view what) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    return Status::InvalidArgument(
        fmt::format("cannot read {} {}: {}", what, path.string(), ec.message()));
  }
  if (size > kMaxFileBytes) {
    return Status::InvalidArgument(
        fmt::format("{} {} is larger than {} bytes", what, path.string(), kMaxFileBytes));
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) {
    return Status::InvalidArgument(fmt::format("cannot read {} {}", what, path.string()));
  }
  return text.str();
}

std::string StringField(const Json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// One kubeconfig's named entries, merged across files: the first file naming an entry wins.
struct Merged {
  std::map<std::string, std::pair<Json, std::filesystem::path>> clusters, users, contexts;
  std::string current_context;
};

Status MergeEntries(const Json& doc, const char* list, const char* inner,
                    const std::filesystem::path& dir, const std::string& file,
                    std::map<std::string, std::pair<Json, std::filesystem::path>>* into) {
  auto it = doc.find(list);
  if (it == doc.end() || it->is_null()) return Status::OK();
  if (!it->is_array()) {
    return Status::InvalidArgument(fmt::format("kubeconfig {}: {} is not a list", file, list));
  }
  for (const Json& entry : *it) {
    const std::string name = StringField(entry, "name");
    if (name.empty()) {
      return Status::InvalidArgument(
          fmt::format("kubeconfig {}: an entry of {} has no name", file, list));
    }
    auto body = entry.find(inner);
    if (body == entry.end() || !body->is_object()) {
      return Status::InvalidArgument(
          fmt::format("kubeconfig {}: {} '{}' has no {}", file, list, name, inner));
    }
    into->emplace(name, std::make_pair(*body, dir));
  }
  return Status::OK();
}

// The PEM of a `<key>-data` field (base64) or of the file `<key>` names, relative to `dir`.
Result<std::string> PemOf(const Json& object, const std::string& key,
                          const std::filesystem::path& dir, std::string_view what) {
  const std::string data = StringField(object, (key + "-data").c_str());
  if (!data.empty()) {
    std::optional<std::string> decoded = Base64Decode(TrimWhitespace(data));
    if (!decoded) {
      return Status::InvalidArgument(fmt::format("{}: {}-data is not base64", what, key));
    }
    return *decoded;
  }
  const std::string file = StringField(object, key.c_str());
  if (file.empty()) return std::string();
  std::filesystem::path path(file);
  if (path.is_relative()) path = dir / path;
  return ReadSmallFile(path, what);
}

std::string Unslashed(std::string server) {
  while (!server.empty() && server.back() == '/') server.pop_back();
  return server;
}

}  // namespace

std::string DefaultKubeconfigPaths() {
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') return env;
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return (std::filesystem::path(home) / ".kube" / "config").string();
  }
  return "";
}

Result<KubeConfig> LoadKubeconfig(const std::string& paths, const std::string& context) {
  if (paths.empty())
    return Status::InvalidArgument("no kubeconfig given, and no $KUBECONFIG or $HOME");
  Merged merged;
  int read = 0;
  std::vector<std::string> files;
  for (size_t start = 0; start <= paths.size();) {
    const size_t end = std::min(paths.find(':', start), paths.size());
    if (end > start) files.push_back(paths.substr(start, end - start));
    start = end + 1;
  }
  for (const std::string& file : files) {
    const std::filesystem::path path(file);
    HOP_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(path, "kubeconfig"));
    HOP_ASSIGN_OR_RETURN(std::vector<Json> docs, ParseYamlDocuments(text, "kubeconfig " + file));
    ++read;
    if (docs.empty() || docs.front().is_null()) continue;
    const Json& doc = docs.front();
    if (!doc.is_object()) {
      return Status::InvalidArgument(fmt::format("kubeconfig {} is not a mapping", file));
    }
    const std::filesystem::path dir = std::filesystem::absolute(path).parent_path();
    HOP_RETURN_IF_ERROR(MergeEntries(doc, "clusters", "cluster", dir, file, &merged.clusters));
    HOP_RETURN_IF_ERROR(MergeEntries(doc, "users", "user", dir, file, &merged.users));
    HOP_RETURN_IF_ERROR(MergeEntries(doc, "contexts", "context", dir, file, &merged.contexts));
    if (merged.current_context.empty())
      merged.current_context = StringField(doc, "current-context");
  }
  if (read == 0) return Status::InvalidArgument("no kubeconfig given");

  KubeConfig config;
  config.context = context.empty() ? merged.current_context : context;
  if (config.context.empty()) {
    return Status::InvalidArgument(
        fmt::format("kubeconfig {}: no current-context, and no --context given", paths));
  }
  auto ctx = merged.contexts.find(config.context);
  if (ctx == merged.contexts.end()) {
    return Status::InvalidArgument(
        fmt::format("kubeconfig {}: no context named '{}'", paths, config.context));
  }
  const Json& c = ctx->second.first;
  config.namespace_name = StringField(c, "namespace");
  const std::string cluster_name = StringField(c, "cluster");
  auto cluster = merged.clusters.find(cluster_name);
  if (cluster == merged.clusters.end()) {
    return Status::InvalidArgument(
        fmt::format("kubeconfig {}: context '{}' names cluster '{}', "
                    "which it does not define",
                    paths, config.context, cluster_name));
  }
  const Json& cl = cluster->second.first;
  const std::string where = fmt::format("kubeconfig {}: cluster '{}'", paths, cluster_name);
  config.server = Unslashed(StringField(cl, "server"));
  if (config.server.rfind("https://", 0) != 0 && config.server.rfind("http://", 0) != 0) {
    return Status::InvalidArgument(
        fmt::format("{}: server '{}' is not an http:// or https:// URL", where, config.server));
  }
  HOP_ASSIGN_OR_RETURN(config.ca_pem, PemOf(cl, "certificate-authority", cluster->second.second,
                                            where + ": certificate-authority"));
  if (auto it = cl.find("insecure-skip-tls-verify"); it != cl.end() && it->is_boolean()) {
    config.insecure_skip_tls_verify = it->get<bool>();
  }
  config.tls_server_name = StringField(cl, "tls-server-name");
  if (!StringField(cl, "proxy-url").empty()) {
    return Status::InvalidArgument(fmt::format("{}: proxy-url is not supported", where));
  }

  const std::string user_name = StringField(c, "user");
  if (user_name.empty()) return config;  // no credentials: anonymous
  auto user = merged.users.find(user_name);
  if (user == merged.users.end()) {
    return Status::InvalidArgument(
        fmt::format("kubeconfig {}: context '{}' names user '{}', which it does not define", paths,
                    config.context, user_name));
  }
  const Json& u = user->second.first;
  const std::string uwhere = fmt::format("kubeconfig {}: user '{}'", paths, user_name);
  if (u.contains("exec") || u.contains("auth-provider")) {
    return Status::InvalidArgument(fmt::format(
        "{} authenticates through {}, which hop does not run: give it a token, a token file or a "
        "client certificate",
        uwhere, u.contains("exec") ? "an exec credential plugin" : "an auth provider"));
  }
  HOP_ASSIGN_OR_RETURN(config.client_cert_pem, PemOf(u, "client-certificate", user->second.second,
                                                     uwhere + ": client-certificate"));
  HOP_ASSIGN_OR_RETURN(config.client_key_pem,
                       PemOf(u, "client-key", user->second.second, uwhere + ": client-key"));
  if (config.client_cert_pem.empty() != config.client_key_pem.empty()) {
    return Status::InvalidArgument(
        fmt::format("{}: a client certificate needs its key, and a key its certificate", uwhere));
  }
  config.token = StringField(u, "token");
  if (std::string file = StringField(u, "tokenFile"); !file.empty()) {
    std::filesystem::path path(file);
    if (path.is_relative()) path = user->second.second / path;
    config.token_file = path.string();
  }
  config.username = StringField(u, "username");
  config.password = StringField(u, "password");
  return config;
}

Result<KubeConfig> InClusterConfig() {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || *host == '\0' || port == nullptr || *port == '\0') {
    return Status::InvalidArgument(
        "not running in a Kubernetes pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are "
        "not set");
  }
  const char* dir_env = std::getenv("HOP_SERVICE_ACCOUNT_DIR");
  const std::filesystem::path dir = dir_env != nullptr && *dir_env != '\0'
                                        ? std::filesystem::path(dir_env)
                                        : "/var/run/secrets/kubernetes.io/serviceaccount";
  KubeConfig config;
  config.context = "in-cluster";
  const std::string h = host;
  // An IPv6 address goes in brackets.
  config.server =
      fmt::format("https://{}:{}", h.find(':') != std::string::npos ? "[" + h + "]" : h, port);
  config.token_file = (dir / "token").string();
  if (std::error_code ec; !std::filesystem::exists(config.token_file, ec)) {
    return Status::InvalidArgument(
        fmt::format("not running as a service account: {} does not exist", config.token_file));
  }
  HOP_ASSIGN_OR_RETURN(config.ca_pem, ReadSmallFile(dir / "ca.crt", "the service account's CA"));
  auto ns = ReadSmallFile(dir / "namespace", "the service account's namespace");
  if (ns.ok()) config.namespace_name = std::string(TrimWhitespace(*ns));
  return config;
}

}  // namespace hop::store
