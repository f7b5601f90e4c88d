// The HTTP side of hop's Kubernetes client: requests to an API server over libcurl (loaded on
// first use, store/curl.h) with the kubeconfig's TLS and credentials, a client-side rate limit,
// retries with capped backoff where a retry cannot do harm, and streamed responses for watches.
// It knows paths and status codes, not kinds: KubernetesStore (kubernetes_store.h) builds on it.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "store/kubeconfig.h"

namespace hop::store {

struct KubeClientOptions {
  // Client-side rate limit on requests (a watch counts once, when it opens): a token bucket of
  // `burst` refilled at `qps` a second, as client-go's. 0 qps: no limit.
  double qps = 100;
  int burst = 200;
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds request_timeout{60000};  // a whole request, not a watch
  // How often a request is tried again when it failed in a way that a retry cannot make worse:
  // a GET that could not connect or got 5xx, any request refused with 429 Too Many Requests or
  // that never reached the server. Waits double from 100 ms, capped at 5 s (or Retry-After).
  int max_retries = 5;
};

struct KubeHttpResponse {
  long status = 0;
  std::string body;
};

class KubeClient {
 public:
  // Checks `config` (an http:// server only on loopback when it carries credentials, which would
  // cross the network in the clear) and loads libcurl. Errors: InvalidArgument for the config,
  // Unavailable when libcurl cannot be loaded.
  static Result<std::unique_ptr<KubeClient>> Create(KubeConfig config,
                                                    KubeClientOptions options = {});
  ~KubeClient();
  KubeClient(const KubeClient&) = delete;
  KubeClient& operator=(const KubeClient&) = delete;

  // Sends one request to `target` (a path with its query string, already escaped) and returns
  // the response, whatever its status. Retries as KubeClientOptions says. Errors: Unavailable
  // when the server cannot be reached (after the retries), with curl's reason. Thread-safe.
  Result<KubeHttpResponse> Request(std::string_view method, const std::string& target,
                                   std::string_view body = {},
                                   std::string_view content_type = "application/json");

  // A GET whose body is read as it comes, line by line (a watch). Cancel() ends it from any
  // thread at once.
  class Stream {
   public:
    virtual ~Stream() = default;
    // Calls `on_line` with each complete line of the body (without its newline) until the
    // server ends the response, `on_line` returns false or Cancel() is called. Returns the HTTP
    // status; the body of a response that is not 200 is passed to `on_line` whole, as one line.
    // Errors: Unavailable when the connection fails or breaks (not retried: the caller resumes).
    virtual Result<long> Run(const std::function<bool(std::string_view line)>& on_line) = 0;
    virtual void Cancel() = 0;  // thread-safe; Run returns as soon as it notices
  };
  std::unique_ptr<Stream> OpenStream(const std::string& target);

  const KubeConfig& config() const;
  // The server's URL.
  const std::string& server() const;

  struct Impl;

 private:
  KubeClient();
  std::unique_ptr<Impl> impl_;
};

// Escapes `text` for a path segment or a query value: everything but letters, digits and
// `-._~` becomes %XX.
std::string UrlEscape(std::string_view text);

}  // namespace hop::store
