#include "server/http_server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <openssl/crypto.h>
#include <sys/socket.h>

#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "common/log.h"
#include "common/metrics.h"
#include "common/strings.h"
#include "server/pg_auth.h"
#include "server/pg_server.h"

namespace hop::server {

namespace {

// One thread per connection, up to a limit; past it the accepting thread waits for a free one.
// A watch holds its connection for minutes, so a fixed pool would let a few watchers starve
// every other request.
class ThreadPerConnection : public httplib::TaskQueue {
 public:
  explicit ThreadPerConnection(int limit) : limit_(limit) {}

  void enqueue(std::function<void()> fn) override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return running_ < limit_ || shutdown_; });
    if (shutdown_) return;
    ++running_;
    std::thread([this, fn = std::move(fn)] {
      fn();
      std::lock_guard<std::mutex> lock(mu_);
      --running_;
      cv_.notify_all();
    }).detach();
  }

  void shutdown() override {
    std::unique_lock<std::mutex> lock(mu_);
    shutdown_ = true;
    cv_.notify_all();
    cv_.wait(lock, [&] { return running_ == 0; });
  }

 private:
  const int limit_;
  std::mutex mu_;
  std::condition_variable cv_;
  int running_ = 0;
  bool shutdown_ = false;
};

Result<std::string> ReadSmallFile(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument(fmt::format("cannot read the {} {}", what, path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A YAML scalar in double quotes (kubeconfig values are URLs, base64 and tokens).
std::string Quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

class HttpServer::Impl {
 public:
  Impl(store::Store& store, HttpServerOptions options, const std::atomic<ServeRole>* role)
      : options_(std::move(options)), store_(store), api_(store, options_.api), role_(role) {}

  Status Start();
  void Stop();
  int port() const { return port_; }
  std::string url() const {
    const bool v6 = options_.listen.find(':') != std::string::npos;
    return fmt::format("{}://{}{}{}:{}", tls_ ? "https" : "http", v6 ? "[" : "",
                       options_.listen == "localhost" ? "127.0.0.1" : options_.listen,
                       v6 ? "]" : "", port_);
  }
  std::string Kubeconfig() const;

 private:
  void Route(const httplib::Request& req, httplib::Response& res);
  bool Authorized(const httplib::Request& req) const;
  void Health(const httplib::Request& req, httplib::Response& res);
  void Metrics(httplib::Response& res);
  void Count(std::string_view verb, int code, std::chrono::steady_clock::duration took);

  HttpServerOptions options_;
  store::Store& store_;
  KubeApi api_;
  const std::atomic<ServeRole>* role_;
  std::unique_ptr<httplib::Server> server_;
  std::thread listener_;
  std::atomic<bool> stopping_{false};
  std::string token_;
  std::string ca_pem_;
  bool tls_ = false;
  int port_ = 0;
  bool stopped_ = false;

  metrics::CounterFamily& requests_ = metrics::Registry::Default().Counter(
      "hop_http_requests_total",
      "HTTP requests answered, by Kubernetes verb (get, list, watch, create, update, patch, "
      "delete, discovery, openapi, health, metrics) and status code",
      {"verb", "code"});
  metrics::HistogramFamily& durations_ = metrics::Registry::Default().Histogram(
      "hop_http_request_duration_seconds",
      "Time from a request's arrival to its answer (for a watch: to its end), by verb", {"verb"},
      {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60});
  metrics::Gauge& watches_ = metrics::Registry::Default()
                                 .Gauge("hop_http_watches", "Watches being served")
                                 .With();
  metrics::Gauge& store_revision_ = metrics::Registry::Default()
                                        .Gauge("hop_store_revision", "The store's revision")
                                        .With();
  metrics::Gauge& store_objects_ = metrics::Registry::Default()
                                       .Gauge("hop_store_objects", "Objects in the store")
                                       .With();
  metrics::Gauge& store_bytes_ =
      metrics::Registry::Default()
          .Gauge("hop_store_bytes", "Bytes the store's database takes (-1: unknown)")
          .With();
};

Status CheckHttpServerOptions(const HttpServerOptions& options) {
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    return Status::InvalidArgument("--http-tls-cert and --http-tls-key go together");
  }
  if (!IsLoopbackAddress(options.listen) &&
      (options.tls_cert.empty() || options.token_file.empty())) {
    return Status::InvalidArgument(fmt::format(
        "the Kubernetes API listens on {}, which is not a loopback address: that needs TLS "
        "(--http-tls-cert, --http-tls-key) and a bearer token (--http-token-file)",
        options.listen));
  }
  return Status::OK();
}

Status HttpServer::Impl::Start() {
  HOP_RETURN_IF_ERROR(CheckHttpServerOptions(options_));
  tls_ = !options_.tls_cert.empty();
  if (!options_.token_file.empty()) {
    HOP_ASSIGN_OR_RETURN(std::string token, ReadSmallFile(options_.token_file, "token file"));
    token_ = std::string(TrimWhitespace(token));
    if (token_.empty() || token_.find_first_of(" \t\r\n") != std::string::npos) {
      return Status::InvalidArgument(
          fmt::format("the token file {} must hold one token, without blanks", options_.token_file));
    }
  }
  if (tls_) {
    HOP_ASSIGN_OR_RETURN(ca_pem_, ReadSmallFile(options_.tls_cert, "certificate"));
    auto ssl = std::make_unique<httplib::SSLServer>(options_.tls_cert.c_str(),
                                                    options_.tls_key.c_str());
    if (!ssl->is_valid()) {
      return Status::InvalidArgument(fmt::format(
          "OpenSSL cannot load the certificate {} with the key {}", options_.tls_cert,
          options_.tls_key));
    }
    server_ = std::move(ssl);
  } else {
    server_ = std::make_unique<httplib::Server>();
  }
  HOP_RETURN_IF_ERROR(api_.Start());
  const int limit = options_.max_connections;
  server_->new_task_queue = [limit] { return new ThreadPerConnection(limit); };
  // Small responses on a kept-alive connection would otherwise wait for the client's delayed
  // ACK (about 40 ms each).
  server_->set_tcp_nodelay(true);
  server_->set_payload_max_length(options_.max_body_bytes);
  server_->set_keep_alive_max_count(1000);
  server_->set_keep_alive_timeout(2);
  server_->set_read_timeout(30);
  // A client that stops reading a watch is dropped after this, freeing its thread.
  server_->set_write_timeout(10);
  auto route = [this](const httplib::Request& req, httplib::Response& res) { Route(req, res); };
  server_->Get(".*", route);
  server_->Post(".*", route);
  server_->Put(".*", route);
  server_->Patch(".*", route);
  server_->Delete(".*", route);
  server_->set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    // What the HTTP library answers by itself: no route for the method, a body over the limit,
    // a request it could not parse.
    const KubeResponse r =
        res.status == 413   ? KubeStatusResponse(413, "RequestEntityTooLarge",
                                                 "the request is larger than the server accepts")
        : res.status == 404 ? KubeStatusResponse(404, "NotFound",
                                                 "the server could not find the requested resource")
        : res.status == 405 ? KubeStatusResponse(405, "MethodNotAllowed", "the method is not allowed")
                            : KubeStatusResponse(res.status, "BadRequest", "the request is malformed");
    res.set_content(r.body, r.content_type.c_str());
  });
  // cpp-httplib listens with a backlog of 5, compiled into the library: a burst of clients (many
  // watchers connecting at once) overflows it and waits a second or more for SYN retransmits.
  // The hook sees the listening socket before it binds; a second listen() widens the backlog.
  int listen_fd = -1;
  server_->set_socket_options([&listen_fd](socket_t sock) {
    httplib::default_socket_options(sock);
    listen_fd = sock;
  });
  const std::string host = options_.listen == "localhost" ? "127.0.0.1" : options_.listen;
  if (options_.port == 0) {
    port_ = server_->bind_to_any_port(host);
    if (port_ < 0) port_ = 0;
  } else if (server_->bind_to_port(host, options_.port)) {
    port_ = options_.port;
  }
  if (port_ <= 0) {
    api_.Stop();
    return Status::Unavailable(
        fmt::format("cannot listen on {}:{} for the Kubernetes API", options_.listen, options_.port));
  }
  if (listen_fd >= 0) ::listen(listen_fd, SOMAXCONN);
  listener_ = std::thread([this] { server_->listen_after_bind(); });
  return Status::OK();
}

void HttpServer::Impl::Stop() {
  if (stopped_) return;
  stopped_ = true;
  stopping_ = true;
  api_.Stop();
  if (server_) server_->stop();
  if (listener_.joinable()) listener_.join();
}

bool HttpServer::Impl::Authorized(const httplib::Request& req) const {
  if (token_.empty()) return true;
  const std::string header = req.get_header_value("Authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (header.size() != kBearer.size() + token_.size() || !header.starts_with(kBearer)) return false;
  return CRYPTO_memcmp(header.data() + kBearer.size(), token_.data(), token_.size()) == 0;
}

void HttpServer::Impl::Health(const httplib::Request& req, httplib::Response& res) {
  const ServeRole role = role_ ? role_->load() : ServeRole::kLeading;
  const bool ready = role == ServeRole::kLeading || role == ServeRole::kStandingBy;
  const bool live = role != ServeRole::kStopping;
  const bool ok = req.path == "/livez" ? live : ready;
  const char* state = role == ServeRole::kLeading      ? "leading"
                      : role == ServeRole::kStandingBy ? "standing by"
                      : role == ServeRole::kStarting   ? "starting"
                                                       : "stopping";
  std::string body;
  if (req.has_param("verbose")) {
    body = fmt::format("[{}]ping ok\n[{}]control-plane {}\n{} check {}\n", live ? "+" : "-",
                       ready ? "+" : "-", state, req.path.substr(1), ok ? "passed" : "failed");
  } else {
    body = ok ? "ok" : fmt::format("not ready: {}", state);
  }
  res.status = ok ? 200 : 503;
  res.set_content(body, "text/plain; charset=utf-8");
}

void HttpServer::Impl::Count(std::string_view verb, int code,
                             std::chrono::steady_clock::duration took) {
  const std::string v(verb);
  requests_.With({v, std::to_string(code)}).Inc();
  durations_.With({v}).Observe(std::chrono::duration<double>(took).count());
}

void HttpServer::Impl::Metrics(httplib::Response& res) {
  // The store's figures are read when scraped: one short transaction.
  if (auto stats = store_.ReadStats(); stats.ok()) {
    store_revision_.Set(static_cast<double>(stats->revision));
    store_objects_.Set(static_cast<double>(stats->objects));
    store_bytes_.Set(static_cast<double>(stats->bytes));
  }
  res.status = 200;
  res.set_content(metrics::Registry::Default().Render(),
                  std::string(metrics::Registry::kContentType).c_str());
}

void HttpServer::Impl::Route(const httplib::Request& req, httplib::Response& res) {
  const auto start = std::chrono::steady_clock::now();
  if (req.method == "GET" &&
      (req.path == "/healthz" || req.path == "/livez" || req.path == "/readyz")) {
    Health(req, res);
    Count("health", res.status, std::chrono::steady_clock::now() - start);
    return;
  }
  if (!Authorized(req)) {
    const KubeResponse r = KubeStatusResponse(401, "Unauthorized", "Unauthorized");
    res.status = r.status;
    res.set_content(r.body, r.content_type.c_str());
    Count("unauthorized", r.status, std::chrono::steady_clock::now() - start);
    return;
  }
  if (req.method == "GET" && req.path == "/metrics") {
    Metrics(res);
    Count("metrics", res.status, std::chrono::steady_clock::now() - start);
    return;
  }
  KubeRequest kr;
  kr.method = req.method;
  kr.path = req.path;
  for (const auto& [k, v] : req.params) kr.query[k] = v;
  kr.content_type = req.get_header_value("Content-Type");
  kr.accept = req.get_header_value("Accept");
  kr.body = req.body;
  if (KubeApi::IsWatch(kr)) {
    auto opened = api_.OpenWatch(kr);
    if (auto* r = std::get_if<KubeResponse>(&opened)) {
      res.status = r->status;
      res.set_content(r->body, r->content_type.c_str());
      Count("watch", r->status, std::chrono::steady_clock::now() - start);
      return;
    }
    std::shared_ptr<KubeWatchStream> stream =
        std::move(std::get<std::unique_ptr<KubeWatchStream>>(opened));
    res.status = 200;
    res.set_chunked_content_provider(
        stream->content_type(), [this, stream, start](size_t, httplib::DataSink& sink) {
          watches_.Add(1);
          stream->Run(
              [&](std::string_view chunk) {
                return sink.is_writable() && sink.write(chunk.data(), chunk.size());
              },
              stopping_);
          watches_.Add(-1);
          Count("watch", 200, std::chrono::steady_clock::now() - start);
          sink.done();
          return true;
        });
    return;
  }
  const KubeResponse r = api_.Handle(kr);
  Count(KubeApi::Verb(kr), r.status, std::chrono::steady_clock::now() - start);
  res.status = r.status;
  for (const std::string& w : r.warnings) {
    std::string text = w;
    for (char& c : text) {
      if (c == '"' || c == '\n' || c == '\r') c = '\'';
    }
    res.set_header("Warning", fmt::format("299 - \"{}\"", text));
  }
  res.set_content(r.body, r.content_type.c_str());
}

std::string HttpServer::Impl::Kubeconfig() const {
  std::string cluster = "    server: " + Quoted(url()) + "\n";
  if (tls_) cluster += "    certificate-authority-data: " + Quoted(Base64Encode(ca_pem_)) + "\n";
  std::string user = token_.empty() ? "  user: {}\n" : "  user:\n    token: " + Quoted(token_) + "\n";
  return "apiVersion: v1\n"
         "kind: Config\n"
         "clusters:\n"
         "- name: hop\n"
         "  cluster:\n" +
         cluster +
         "users:\n"
         "- name: hop\n" +
         user +
         "contexts:\n"
         "- name: hop\n"
         "  context:\n"
         "    cluster: hop\n"
         "    user: hop\n"
         "    namespace: default\n"
         "current-context: hop\n";
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() { Stop(); }

Result<std::unique_ptr<HttpServer>> HttpServer::Start(store::Store& store,
                                                      HttpServerOptions options,
                                                      const std::atomic<ServeRole>* role) {
  auto impl = std::make_unique<Impl>(store, std::move(options), role);
  HOP_RETURN_IF_ERROR(impl->Start());
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

int HttpServer::port() const { return impl_->port(); }
std::string HttpServer::url() const { return impl_->url(); }
std::string HttpServer::Kubeconfig() const { return impl_->Kubeconfig(); }
void HttpServer::Stop() { impl_->Stop(); }

}  // namespace hop::server
