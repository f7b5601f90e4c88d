// The Kubernetes API over hop's store (docs/kubernetes-api.md): discovery, OpenAPI, and get,
// list, watch, create, update, patch and delete of every kind hop knows and every kind an
// installed CustomResourceDefinition defines (whose objects it validates against the CRD's
// schema), with the semantics the store already keeps (store/store.h: resourceVersions, the
// status subresource, finalizers, owner-reference garbage collection). Requests come in already
// parsed, so the HTTP front (http_server.h) stays thin and tests can call Handle directly.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "catalog/provisioner.h"
#include "server/kube_watch.h"
#include "store/store.h"

namespace hop::server {

struct KubeRequest {
  std::string method;                        // GET, POST, PUT, PATCH, DELETE
  std::string path;                          // without the query string
  std::map<std::string, std::string> query;  // decoded; a repeated key keeps its last value
  std::string content_type;
  std::string accept;
  std::string body;
  // The request carries `X-Hop-Store-Client: true`: it comes from hop's own KubernetesStore,
  // whose control plane did hop's extra work already, so the API answers it exactly as a
  // Kubernetes API server would (docs/kubernetes-api.md "hop's store client").
  bool store_client = false;
};

struct KubeResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::string> warnings;  // sent as `Warning: 299 - "..."` headers
};

// A watch being served: Run writes its events until the client goes, the request's timeout
// passes or the server stops.
class KubeWatchStream {
 public:
  virtual ~KubeWatchStream() = default;
  virtual std::string content_type() const = 0;
  // `write` sends one chunk and returns false when the client is gone.
  virtual void Run(const std::function<bool(std::string_view)>& write,
                   const std::atomic<bool>& stopping) = 0;
};

struct KubeApiOptions {
  // Systems a deleted Table resource's table is dropped from, as `hop delete` does; not owned.
  const catalog::Provisioners* provisioners = nullptr;
  size_t watch_cache_events = 20000;
  // How often a watch that asked for bookmarks gets one while nothing else is sent.
  std::chrono::milliseconds bookmark_interval{std::chrono::seconds(5)};
  // The longest a watch runs when the client gives no timeoutSeconds.
  std::chrono::seconds max_watch{std::chrono::minutes(30)};
};

class KubeApi {
 public:
  KubeApi(store::Store& store, KubeApiOptions options);
  ~KubeApi();
  KubeApi(const KubeApi&) = delete;
  KubeApi& operator=(const KubeApi&) = delete;

  // Starts the watch cache and reads the installed CustomResourceDefinitions; from then on a CRD
  // written through the API takes effect before the write is answered, and one written around
  // it (hop apply) as soon as the watch cache sees it.
  Status Start();
  void Stop();

  // Answers a request that is not a watch.
  KubeResponse Handle(const KubeRequest& request);
  // Whether `request` asks for a watch (`?watch=true` on a collection).
  static bool IsWatch(const KubeRequest& request);
  // The Kubernetes verb of a request, for metrics: get, list, watch, create, update, patch,
  // delete, or "discovery" and "openapi" for the rest of GET.
  static std::string_view Verb(const KubeRequest& request);
  // Opens the watch `request` asks for, or answers it with an error.
  std::variant<KubeResponse, std::unique_ptr<KubeWatchStream>> OpenWatch(
      const KubeRequest& request);

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// A metav1.Status failure body: `code` the HTTP status, `reason` Kubernetes' reason word.
KubeResponse KubeStatusResponse(int code, std::string_view reason, std::string_view message);

}  // namespace hop::server
