// The HTTP server of `hop serve --http-port` (docs/kubernetes-api.md): the Kubernetes API over
// the store (kube_api.h), `/metrics` in Prometheus' text format, and `/healthz`, `/livez` and
// `/readyz`, over hop's own HTTP/1.1 (http_wire.h) and, with a certificate, TLS (common/tls.h).
// Each connection has its own thread, so a slow client or a long watch holds only its own. On a
// loopback address it needs nothing more; on any other, TLS and a bearer token.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "common/status.h"
#include "server/kube_api.h"
#include "store/store.h"

namespace hop::server {

// What `hop serve` is doing, for /readyz.
enum class ServeRole { kStarting, kLeading, kStandingBy, kStopping };

struct HttpServerOptions {
  std::string listen = "127.0.0.1";  // an IP address, or localhost
  int port = 0;                      // 0: any free port (tests), see HttpServer::port()
  // TLS: a PEM certificate (chain) and its key; both or neither.
  std::string tls_cert;
  std::string tls_key;
  // A file holding the bearer token every request but the health checks must carry; required,
  // with TLS, on an address that is not loopback.
  std::string token_file;
  // Without a token the API (on loopback) serves only the connections of this user, found by
  // LoopbackPeerUid, and only requests whose Host is a loopback name; unset: the user the
  // process runs as (tests set another to see a stranger turned away).
  std::optional<uid_t> loopback_user;
  size_t max_body_bytes = 3 * 1024 * 1024;  // larger requests get 413
  int max_connections = 2048;               // beyond it a client waits for a free one
  int max_requests_per_connection = 1000;   // the last one's answer says Connection: close
  // A connection with no request under way (a new one, or kept alive after an answer) is
  // closed after this.
  std::chrono::milliseconds idle_timeout{2000};
  // A request's head must arrive whole, a TLS handshake finish, and each read of a body bring
  // something, within this; else 408 (a head or body cut short) and the connection closes.
  std::chrono::milliseconds read_timeout{30000};
  // A write (an answer, a watch's chunk) the client does not take within this ends the
  // connection: a watcher that stops reading is dropped.
  std::chrono::milliseconds write_timeout{10000};
  KubeApiOptions api;
  // Serve the Kubernetes API over the store. False (`hop operator`): only /metrics and the
  // health checks; every other path is 404.
  bool kube_api = true;
};

// The checks of Start that need no file and no socket: TLS options in pairs, and TLS and a
// token on any address that is not loopback. For a command to refuse its options before it
// touches anything.
Status CheckHttpServerOptions(const HttpServerOptions& options);

class HttpServer {
 public:
  // Listens on options.listen:port. Errors (InvalidArgument): a non-loopback address without
  // TLS and a token, a certificate without its key, a certificate or key that does not load, a
  // token file that is missing or empty, a listen address that is not an IP address or
  // localhost; (Unavailable) an address that cannot be bound, or libssl that cannot be loaded
  // for TLS. `role` (not owned, may be null) is what /readyz reports.
  static Result<std::unique_ptr<HttpServer>> Start(store::Store& store, HttpServerOptions options,
                                                   const std::atomic<ServeRole>* role);
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const;
  // "http://127.0.0.1:PORT" or "https://...".
  std::string url() const;
  // A kubeconfig (YAML) whose current context points kubectl at this server: its URL, the
  // certificate as the authority when TLS is on, and the token when there is one.
  std::string Kubeconfig() const;
  // Stops accepting, ends the watches and joins every connection's thread. Idempotent.
  void Stop();

  class Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hop::server
