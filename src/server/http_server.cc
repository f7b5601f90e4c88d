// The HTTP server of `hop serve --http-port` (http_server.h, docs/kubernetes-api.md): the
// listener, one thread per connection reading requests with http_wire.h, the routes (health,
// metrics, the Kubernetes API), and watches streamed as chunked responses.
#include "server/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <system_error>
#include <thread>
#include <vector>

#include "common/digest.h"
#include "common/log.h"
#include "common/metrics.h"
#include "common/strings.h"
#include "common/tls.h"
#include "server/http_wire.h"
#include "server/listen.h"
#include "server/pg_server.h"

namespace hop::server {

namespace {

using Clock = std::chrono::steady_clock;

// Sockets stay blocking, with send and receive timeouts of this: a blocked write, or a TLS read
// inside a record, comes back this often to look at its deadline and at the server's stop.
constexpr std::chrono::milliseconds kSocketSlice{200};
constexpr size_t kReceiveChunk = 16 * 1024;
// After an answer that closes the connection while the client may still be sending (a refused
// body, pipelined requests), what it sends is read and dropped for up to this long, so that the
// close does not reset the connection before the client has read the answer.
constexpr std::chrono::milliseconds kLinger{1000};
constexpr std::string_view kAllowedMethods = "GET, HEAD, POST, PUT, PATCH, DELETE";

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

bool KnownMethod(std::string_view m) {
  return m == "GET" || m == "HEAD" || m == "POST" || m == "PUT" || m == "PATCH" || m == "DELETE";
}

// The metav1.Status reason of a status code the HTTP layer answers by itself.
std::string_view ReasonOf(int status) {
  switch (status) {
    case 405: return "MethodNotAllowed";
    case 408: return "Timeout";
    case 413: return "RequestEntityTooLarge";
    default: return "BadRequest";
  }
}

// How a read or a write on a connection ended.
enum class Io { kOk, kClosed, kTimeout, kStopping };

// What a route answers: a body, or a watch to stream.
struct Reply {
  int status = 200;
  std::string content_type;
  std::string body;
  std::vector<std::pair<std::string, std::string>> fields;  // besides Content-Type
  std::shared_ptr<KubeWatchStream> watch;
  Clock::time_point start;  // of the request, for a watch's metrics
};

class Connection;

}  // namespace

class HttpServer::Impl {
 public:
  Impl(store::Store& store, HttpServerOptions options, const std::atomic<ServeRole>* role)
      : options_(std::move(options)), store_(store), api_(store, options_.api), role_(role) {
    limits_.max_body_bytes = options_.max_body_bytes;
  }
  ~Impl() { Stop(); }

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

  // ---- what connections use ----
  // `stranger`: why the connection is not the local user's, when LocalUserOnly and it is not
  // (empty: it is, or anyone is served).
  Reply Route(const http::RequestHead& head, std::string body, std::string_view stranger);
  // Whether only the loopback user's connections are served (no token): LoopbackPeerUid must
  // then give local_user().
  bool LocalUserOnly() const { return local_user_only_; }
  uid_t local_user() const { return local_user_; }
  // Runs a watch, its chunks written by `write`, counting it in the metrics.
  void StreamWatch(const Reply& reply, const std::function<bool(std::string_view)>& write);
  const HttpServerOptions& options() const { return options_; }
  const http::Limits& limits() const { return limits_; }
  const std::shared_ptr<tls::ServerContext>& tls_context() const { return tls_context_; }
  bool stopping() const { return stopping_.load(std::memory_order_relaxed); }
  // Readable once the server stops: every wait polls it beside its socket.
  int stop_fd() const { return stop_pipe_[0]; }

 private:
  Status Listen();
  void Accept();
  // A connection's thread ends: it is joined by the acceptor (or by Stop).
  void Finished(Connection* c);
  void Reap();

  bool Authorized(const http::RequestHead& head) const;
  Reply Health(const http::RequestHead& head);
  Reply Metrics();
  void Count(std::string_view verb, int code, Clock::duration took);

  HttpServerOptions options_;
  http::Limits limits_;
  store::Store& store_;
  KubeApi api_;
  const std::atomic<ServeRole>* role_;
  std::shared_ptr<tls::ServerContext> tls_context_;  // null without TLS
  std::atomic<bool> stopping_{false};
  std::string token_;
  bool local_user_only_ = false;
  uid_t local_user_ = 0;
  std::string ca_pem_;
  bool tls_ = false;
  int port_ = 0;
  bool stopped_ = false;
  int listen_fd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  std::thread acceptor_;

  std::mutex mu_;
  std::condition_variable slot_freed_;  // a connection ended, or the server stops
  std::map<Connection*, std::unique_ptr<Connection>> connections_;  // guarded by mu_
  std::map<Connection*, std::thread> threads_;                      // guarded by mu_
  std::vector<std::thread> finished_;  // threads that ended, to join; guarded by mu_

  metrics::CounterFamily& requests_ = metrics::Registry::Default().Counter(
      "hop_http_requests_total",
      "HTTP requests answered, by Kubernetes verb (get, list, watch, create, update, patch, "
      "delete, discovery, openapi, health, metrics) and status code",
      {"verb", "code"});
  metrics::HistogramFamily& durations_ = metrics::Registry::Default().Histogram(
      "hop_http_request_duration_seconds",
      "Time from a request's arrival to its answer (for a watch: to its end), by verb", {"verb"},
      {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60});
  metrics::Gauge& watches_ =
      metrics::Registry::Default().Gauge("hop_http_watches", "Watches being served").With();
  metrics::Gauge& store_revision_ =
      metrics::Registry::Default().Gauge("hop_store_revision", "The store's revision").With();
  metrics::Gauge& store_objects_ =
      metrics::Registry::Default().Gauge("hop_store_objects", "Objects in the store").With();
  metrics::Gauge& store_bytes_ =
      metrics::Registry::Default()
          .Gauge("hop_store_bytes", "Bytes the store's database takes (-1: unknown)")
          .With();
};

namespace {

// One client connection: its socket (and TLS session), what it has sent and not yet been read,
// and the loop that reads each request and writes its answer.
class Connection {
 public:
  Connection(HttpServer::Impl& server, int fd) : server_(server), fd_(fd) {}
  ~Connection() {
    tls_.reset();  // before the socket it runs over
    if (fd_ >= 0) close(fd_);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void Run();

 private:
  // One receive into in_, waiting until `deadline`.
  Io Receive(Clock::time_point deadline);
  // All of `data`, within the write timeout.
  Io Send(std::string_view data);
  bool Handshake();
  // Reads one request and answers it; false when the connection is to end.
  bool ServeOne(int served);
  // Answers with a metav1.Status for `status` and ends the connection.
  void Refuse(int status, std::string_view message);
  // Answers `reply` (a body, not a watch), HEAD without the body; false when the write failed.
  bool Answer(const Reply& reply, bool head_only, bool keep_alive, int minor_version);
  bool Stream(const Reply& reply, bool keep_alive, int minor_version);
  // Ends the connection; `linger`: after reading what the client still sends, for a while.
  void Close(bool linger);
  std::string_view Unread() const { return std::string_view(in_).substr(in_at_); }

  HttpServer::Impl& server_;
  int fd_;
  // Why the connection is not the loopback user's (HttpServer::Impl::LocalUserOnly); empty: it is.
  std::string stranger_;
  std::unique_ptr<tls::Session> tls_;
  std::string in_;  // received; from in_at_ on not read yet
  size_t in_at_ = 0;
  std::string out_;
  bool closed_ = false;
};

void Connection::Run() {
  // A write to a connection the client has closed fails with EPIPE, here and inside TLS, instead
  // of raising SIGPIPE, which would end the process: the signal is blocked in this thread (it
  // is sent to the thread that writes).
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
  // Small responses on a kept-alive connection would otherwise wait for the client's delayed
  // ACK (about 40 ms each).
  int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  timeval slice{};
  slice.tv_usec = static_cast<suseconds_t>(kSocketSlice.count() * 1000);
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &slice, sizeof slice);
  setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &slice, sizeof slice);
  if (server_.tls_context() != nullptr && !Handshake()) {
    Close(false);
    return;
  }
  if (server_.LocalUserOnly()) {
    const auto owner = LoopbackPeerUid(fd_);
    if (!owner.ok()) {
      stranger_ = fmt::format("hop serve cannot tell whose connection this is ({})",
                              owner.status().message());
    } else if (*owner != server_.local_user()) {
      stranger_ = "this connection is not theirs";
    }
  }
  for (int served = 1; ServeOne(served); ++served) {
  }
  Close(false);
}

bool Connection::Handshake() {
  auto session = tls::Session::Over(server_.tls_context(), fd_);
  if (!session.ok()) {
    log::Warn("kubernetes api: {}", session.status().ToString());
    return false;
  }
  tls_ = std::move(session).value();
  const auto deadline = Clock::now() + server_.options().read_timeout;
  while (!server_.stopping() && Clock::now() < deadline) {
    // Each step blocks at most one socket slice.
    const tls::Io io = tls_->Accept();
    if (io == tls::Io::kOk) return true;
    if (io == tls::Io::kClosed) break;
  }
  tls_.reset();  // no close_notify on a handshake that did not finish
  return false;
}

Io Connection::Receive(Clock::time_point deadline) {
  if (in_at_ > 0) {  // what was read goes before more comes
    in_.erase(0, in_at_);
    in_at_ = 0;
  }
  char chunk[kReceiveChunk];
  for (;;) {
    if (server_.stopping()) return Io::kStopping;
    const auto now = Clock::now();
    if (now >= deadline) return Io::kTimeout;
    if (tls_ == nullptr || tls_->Pending() == 0) {
      pollfd fds[2] = {{fd_, POLLIN, 0}, {server_.stop_fd(), POLLIN, 0}};
      // At most a second at a time: the loop looks at the deadline again.
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
      const int r = poll(fds, 2, static_cast<int>(std::clamp<int64_t>(wait.count(), 1, 1000)));
      if (r < 0 && errno != EINTR) return Io::kClosed;
      if (fds[1].revents != 0) return Io::kStopping;
      if (r <= 0) continue;
    }
    size_t got = 0;
    if (tls_ != nullptr) {
      const tls::IoResult r = tls_->Read(chunk, sizeof chunk);
      if (r.io == tls::Io::kRetry) continue;
      if (r.io == tls::Io::kClosed) return Io::kClosed;
      got = r.bytes;
    } else {
      const ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
      if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (n <= 0) return Io::kClosed;
      got = static_cast<size_t>(n);
    }
    in_.append(chunk, got);
    return Io::kOk;
  }
}

Io Connection::Send(std::string_view data) {
  const auto deadline = Clock::now() + server_.options().write_timeout;
  while (!data.empty()) {
    if (Clock::now() >= deadline) return Io::kTimeout;
    size_t sent = 0;
    if (tls_ != nullptr) {
      const tls::IoResult r = tls_->Write(data.data(), data.size());
      if (r.io == tls::Io::kClosed) return Io::kClosed;
      if (r.io == tls::Io::kRetry) {
        // The client takes nothing: a stopping server does not wait for it.
        if (server_.stopping()) return Io::kStopping;
        continue;
      }
      sent = r.bytes;
    } else {
      const ssize_t n = send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) {
        if (server_.stopping()) return Io::kStopping;
        continue;
      }
      if (n <= 0) return Io::kClosed;
      sent = static_cast<size_t>(n);
    }
    data.remove_prefix(sent);
  }
  return Io::kOk;
}

void Connection::Close(bool linger) {
  if (closed_) return;
  closed_ = true;
  if (tls_ != nullptr) tls_->Shutdown();
  if (!linger || server_.stopping()) return;
  shutdown(fd_, SHUT_WR);
  const auto deadline = Clock::now() + kLinger;
  char chunk[kReceiveChunk];
  while (!server_.stopping()) {
    const auto wait =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (wait.count() <= 0) break;
    pollfd fds[2] = {{fd_, POLLIN, 0}, {server_.stop_fd(), POLLIN, 0}};
    const int r = poll(fds, 2, static_cast<int>(wait.count()));
    if (r < 0 && errno != EINTR) break;
    if (fds[1].revents != 0) break;
    if (r <= 0) continue;
    // Raw bytes, TLS records included: none of it is read as a request.
    const ssize_t n = recv(fd_, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) break;
  }
}

void Connection::Refuse(int status, std::string_view message) {
  const KubeResponse r = KubeStatusResponse(status, ReasonOf(status), message);
  std::vector<std::pair<std::string, std::string>> fields = {{"Content-Type", r.content_type}};
  if (status == 405) fields.emplace_back("Allow", std::string(kAllowedMethods));
  const std::string date = http::HttpDate(std::time(nullptr));
  out_.clear();
  http::ResponseFraming framing;
  framing.content_length = r.body.size();
  framing.close = true;
  framing.date = date;
  http::WriteResponseHead(out_, status, fields, framing);
  out_ += r.body;
  (void)Send(out_);
  Close(true);
}

bool Connection::ServeOne(int served) {
  const HttpServerOptions& o = server_.options();
  http::RequestHead head;
  // The head: its first byte within the idle timeout, then all of it within the read timeout.
  std::optional<Clock::time_point> head_deadline;
  const auto idle_deadline = Clock::now() + o.idle_timeout;
  for (;;) {
    if (!Unread().empty()) {
      const http::HeadParse p = http::ParseRequestHead(Unread(), server_.limits(), &head);
      if (p.outcome == http::HeadParse::Outcome::kHead) {
        in_at_ += p.consumed;
        break;
      }
      if (p.outcome == http::HeadParse::Outcome::kRefused) {
        Refuse(p.refusal.status, p.refusal.message);
        return false;
      }
      if (!head_deadline) head_deadline = Clock::now() + o.read_timeout;
    }
    const Io io = Receive(head_deadline ? *head_deadline : idle_deadline);
    if (io == Io::kTimeout && head_deadline) {
      Refuse(408, "the request's head did not arrive in time");
      return false;
    }
    if (io != Io::kOk) return false;  // idle, gone, or the server stops
  }

  if (!KnownMethod(head.method)) {
    Refuse(405, fmt::format("the method {} is not allowed", head.method));
    return false;
  }

  // The body.
  std::string body;
  if (head.framing != http::Framing::kNone) {
    if (head.expect_continue && Unread().empty()) {
      out_.clear();
      http::WriteContinue(out_);
      if (Send(out_) != Io::kOk) return false;
    }
    http::ChunkedDecoder chunked(server_.limits());
    for (;;) {
      if (head.framing == http::Framing::kLength) {
        if (Unread().size() >= head.content_length) {
          body.assign(Unread().substr(0, head.content_length));
          in_at_ += head.content_length;
          break;
        }
      } else {
        const auto step = chunked.Feed(Unread(), &body);
        in_at_ += step.consumed;
        if (step.outcome == http::ChunkedDecoder::Step::Outcome::kDone) break;
        if (step.outcome == http::ChunkedDecoder::Step::Outcome::kRefused) {
          Refuse(step.refusal.status, step.refusal.message);
          return false;
        }
      }
      const Io io = Receive(Clock::now() + o.read_timeout);
      if (io == Io::kTimeout) {
        Refuse(408, "the request's body did not arrive in time");
        return false;
      }
      if (io != Io::kOk) return false;
    }
  }

  const bool keep_alive =
      head.keep_alive && served < o.max_requests_per_connection && !server_.stopping();
  const bool head_only = head.method == "HEAD";
  Reply reply = server_.Route(head, std::move(body), stranger_);
  if (reply.watch != nullptr) return Stream(reply, keep_alive, head.minor_version) && keep_alive;
  return Answer(reply, head_only, keep_alive, head.minor_version) && keep_alive;
}

bool Connection::Answer(const Reply& reply, bool head_only, bool keep_alive, int minor_version) {
  std::vector<std::pair<std::string, std::string>> fields;
  fields.reserve(reply.fields.size() + 1);
  fields.emplace_back("Content-Type", reply.content_type);
  fields.insert(fields.end(), reply.fields.begin(), reply.fields.end());
  const std::string date = http::HttpDate(std::time(nullptr));
  http::ResponseFraming framing;
  framing.content_length = reply.body.size();
  framing.close = !keep_alive;
  framing.keep_alive_1_0 = keep_alive && minor_version == 0;
  framing.date = date;
  out_.clear();
  http::WriteResponseHead(out_, reply.status, fields, framing);
  if (!head_only) out_ += reply.body;
  return Send(out_) == Io::kOk;
}

bool Connection::Stream(const Reply& reply, bool keep_alive, int minor_version) {
  if (minor_version == 0) {
    // An HTTP/1.0 client cannot read chunks: the stream ends with the connection.
    keep_alive = false;
  }
  const std::string date = http::HttpDate(std::time(nullptr));
  http::ResponseFraming framing;
  framing.chunked = minor_version >= 1;
  framing.close = !keep_alive;
  framing.date = date;
  out_.clear();
  http::WriteResponseHead(out_, 200, {{"Content-Type", reply.content_type}}, framing);
  if (Send(out_) != Io::kOk) return false;
  bool ok = true;
  server_.StreamWatch(reply, [&](std::string_view chunk) {
    if (framing.chunked) {
      out_.clear();
      http::WriteChunk(out_, chunk);
      ok = Send(out_) == Io::kOk;
    } else {
      ok = Send(chunk) == Io::kOk;
    }
    return ok;
  });
  if (!ok || !framing.chunked) return false;
  out_.clear();
  http::WriteLastChunk(out_);
  return Send(out_) == Io::kOk;
}

}  // namespace

Status CheckHttpServerOptions(const HttpServerOptions& options) {
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    return Status::InvalidArgument("--http-tls-cert and --http-tls-key go together");
  }
  // Without the Kubernetes API (hop operator) the port serves only health checks and metrics,
  // which a cluster's probes and Prometheus read over the pod's network.
  if (options.kube_api && !IsLoopbackAddress(options.listen) &&
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
  if (options_.max_connections < 1) {
    return Status::InvalidArgument("the Kubernetes API needs room for at least one connection");
  }
  tls_ = !options_.tls_cert.empty();
  if (!options_.token_file.empty()) {
    HOP_ASSIGN_OR_RETURN(std::string token, ReadSmallFile(options_.token_file, "token file"));
    token_ = std::string(TrimWhitespace(token));
    if (token_.empty() || token_.find_first_of(" \t\r\n") != std::string::npos) {
      return Status::InvalidArgument(fmt::format(
          "the token file {} must hold one token, without blanks", options_.token_file));
    }
  }
  if (tls_) {
    HOP_ASSIGN_OR_RETURN(ca_pem_, ReadSmallFile(options_.tls_cert, "certificate"));
    HOP_ASSIGN_OR_RETURN(tls_context_,
                         tls::ServerContext::Load(options_.tls_cert, options_.tls_key));
  }
  // Loopback is open to every user of the machine: without a token only the one hop runs as is
  // served (CheckHttpServerOptions allows no token elsewhere).
  local_user_only_ = options_.kube_api && token_.empty();
  local_user_ = options_.loopback_user.value_or(geteuid());
  if (options_.kube_api) HOP_RETURN_IF_ERROR(api_.Start());
  Status listening = Listen();
  if (!listening.ok()) {
    api_.Stop();
    return listening;
  }
  acceptor_ = std::thread([this] { Accept(); });
  return Status::OK();
}

Status HttpServer::Impl::Listen() {
  // The widest backlog: a burst of clients (many watchers connecting at once) must not wait for
  // SYN retransmits. `::` serves IPv4 clients too, whatever the system's default.
  HOP_ASSIGN_OR_RETURN(Listening listening,
                       ListenTcp({options_.listen, options_.port, "--http-listen", "--http-port",
                                  " for the Kubernetes API", SOMAXCONN, /*dual_stack=*/true}));
  listen_fd_ = listening.fd;
  port_ = listening.port;
  if (pipe2(stop_pipe_, O_CLOEXEC) != 0) {
    close(listen_fd_);
    listen_fd_ = -1;
    return Status::Unavailable("cannot create a pipe for the Kubernetes API");
  }
  return Status::OK();
}

void HttpServer::Impl::Accept() {
  for (;;) {
    {
      // Past the limit the next client waits in the listen queue until a connection ends: a
      // watch holds its connection for minutes, so refusing would fail clients that a moment's
      // wait serves.
      std::unique_lock<std::mutex> lock(mu_);
      slot_freed_.wait(lock, [&] {
        return stopping() || !finished_.empty() ||
               static_cast<int>(connections_.size()) < options_.max_connections;
      });
      if (stopping()) return;
    }
    Reap();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (static_cast<int>(connections_.size()) >= options_.max_connections) continue;
    }
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    const int r = poll(fds, 2, 1000);
    if (r < 0 && errno != EINTR) return;
    if (fds[1].revents != 0) return;
    if (r <= 0 || (fds[0].revents & POLLIN) == 0) continue;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      // Out of descriptors: the client stays queued; try again in a moment, not in a spin.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      continue;
    }
    auto owned = std::make_unique<Connection>(*this, fd);
    Connection* c = owned.get();
    std::lock_guard<std::mutex> lock(mu_);
    try {
      threads_[c] = std::thread([this, c] {
        c->Run();
        Finished(c);
      });
    } catch (const std::system_error&) {
      // No thread to be had: this client is turned away, the others go on.
      threads_.erase(c);
      continue;  // `owned` closes the socket
    }
    connections_[c] = std::move(owned);
  }
}

void HttpServer::Impl::Finished(Connection* c) {
  std::unique_ptr<Connection> done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto t = threads_.find(c);
    if (t != threads_.end()) {
      finished_.push_back(std::move(t->second));
      threads_.erase(t);
    }
    auto owned = connections_.find(c);
    if (owned != connections_.end()) {
      done = std::move(owned->second);
      connections_.erase(owned);
    }
    slot_freed_.notify_all();
  }
  // `done` closes the socket here, outside the lock.
}

void HttpServer::Impl::Reap() {
  std::vector<std::thread> done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    done.swap(finished_);
  }
  for (auto& t : done) t.join();
}

void HttpServer::Impl::Stop() {
  if (stopped_) return;
  stopped_ = true;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    slot_freed_.notify_all();
  }
  // Watches end (the cache's reads return), and every wait on a socket sees the pipe.
  api_.Stop();
  if (stop_pipe_[1] >= 0) (void)!write(stop_pipe_[1], "x", 1);
  if (acceptor_.joinable()) acceptor_.join();
  for (;;) {
    std::vector<std::thread> running;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [c, t] : threads_) running.push_back(std::move(t));
      threads_.clear();
    }
    if (running.empty()) break;
    for (auto& t : running) t.join();
  }
  Reap();
  if (listen_fd_ >= 0) close(listen_fd_);
  if (stop_pipe_[0] >= 0) close(stop_pipe_[0]);
  if (stop_pipe_[1] >= 0) close(stop_pipe_[1]);
  listen_fd_ = stop_pipe_[0] = stop_pipe_[1] = -1;
}

bool HttpServer::Impl::Authorized(const http::RequestHead& head) const {
  if (token_.empty()) return true;
  const std::string_view header = head.Field("Authorization");
  // The scheme in any case, as the API server takes it; the token exactly, in constant time.
  constexpr std::string_view kBearer = "bearer ";
  if (header.size() != kBearer.size() + token_.size() ||
      !EqualsIgnoreCase(header.substr(0, kBearer.size()), kBearer)) {
    return false;
  }
  return digest::ConstantTimeEqual(header.substr(kBearer.size()), token_);
}

Reply HttpServer::Impl::Health(const http::RequestHead& head) {
  const ServeRole role = role_ ? role_->load() : ServeRole::kLeading;
  const bool live = role != ServeRole::kStopping;
  const bool liveness = head.path == "/livez";
  // Ready means the store can keep what it is given, too: a store that cannot (its file gone, a
  // failed fsync) makes the process not ready, though it lives (docs/kubernetes-api.md, "Health
  // and metrics"). One stat, no query (Store::Health). So does a store whose writes fail for
  // want of space, until they can succeed again (Store::Writable).
  const Status health = liveness ? Status::OK() : store_.Health();
  const Status writable = liveness || !health.ok() ? Status::OK() : store_.Writable();
  const Status& store = health.ok() ? writable : health;
  const bool role_ready = role == ServeRole::kLeading || role == ServeRole::kStandingBy;
  const bool ready = role_ready && store.ok();
  const bool ok = liveness ? live : ready;
  const char* state = role == ServeRole::kLeading      ? "leading"
                      : role == ServeRole::kStandingBy ? "standing by"
                      : role == ServeRole::kStarting   ? "starting"
                                                       : "stopping";
  const std::string store_state = store.ok()     ? std::string("ok")
                                  : !health.ok() ? "failed: " + store.message()
                                                 : "cannot write: " + store.message();
  Reply r;
  if (head.HasQuery("verbose")) {
    r.body = fmt::format("[{}]ping ok\n[{}]control-plane {}\n", live ? "+" : "-",
                         role_ready ? "+" : "-", state);
    if (!liveness) r.body += fmt::format("[{}]store {}\n", store.ok() ? "+" : "-", store_state);
    r.body += fmt::format("{} check {}\n", head.path.substr(1), ok ? "passed" : "failed");
  } else if (ok) {
    r.body = "ok";
  } else {
    r.body = !store.ok() ? fmt::format("not ready: the store {}", store_state)
                         : fmt::format("not ready: {}", state);
  }
  r.status = ok ? 200 : 503;
  r.content_type = "text/plain; charset=utf-8";
  return r;
}

void HttpServer::Impl::Count(std::string_view verb, int code, Clock::duration took) {
  const std::string v(verb);
  requests_.With({v, std::to_string(code)}).Inc();
  durations_.With({v}).Observe(std::chrono::duration<double>(took).count());
}

Reply HttpServer::Impl::Metrics() {
  // The store's figures are read when scraped: one short transaction.
  if (auto stats = store_.ReadStats(); stats.ok()) {
    store_revision_.Set(static_cast<double>(stats->revision));
    if (stats->objects >= 0) store_objects_.Set(static_cast<double>(stats->objects));
    store_bytes_.Set(static_cast<double>(stats->bytes));
  }
  Reply r;
  r.body = metrics::Registry::Default().Render();
  r.content_type = std::string(metrics::Registry::kContentType);
  return r;
}

Reply HttpServer::Impl::Route(const http::RequestHead& head, std::string body,
                              std::string_view stranger) {
  const auto start = Clock::now();
  // HEAD is answered as GET would be, without the body.
  const std::string method = head.method == "HEAD" ? std::string("GET") : head.method;
  if (method == "GET" &&
      (head.path == "/healthz" || head.path == "/livez" || head.path == "/readyz")) {
    Reply r = Health(head);
    Count("health", r.status, Clock::now() - start);
    return r;
  }
  const auto answer = [](const KubeResponse& k) {
    Reply r;
    r.status = k.status;
    r.content_type = k.content_type;
    r.body = k.body;
    return r;
  };
  if (local_user_only_) {
    // Without a token (on loopback): requests a page of another site cannot make by having its
    // name resolve here (DNS rebinding), from the user hop runs as (docs/kubernetes-api.md).
    const std::string_view host = head.Field("Host");
    std::string refused;
    if (!IsLoopbackHost(host)) {
      refused = fmt::format(
          "forbidden: the request's Host, {}, is not a loopback address or localhost; without a "
          "token (hop serve --http-token-file) the API answers only requests addressed to this "
          "machine by such a name",
          EscapeForTerminal(host));
    } else if (!stranger.empty()) {
      refused = fmt::format(
          "forbidden: without a token (hop serve --http-token-file) the API serves only the user "
          "hop serve runs as (uid {}), and {}",
          local_user_, stranger);
    }
    if (!refused.empty()) {
      const KubeResponse k = KubeStatusResponse(403, "Forbidden", refused);
      Count("forbidden", k.status, Clock::now() - start);
      return answer(k);
    }
  }
  if (!Authorized(head)) {
    const KubeResponse k = KubeStatusResponse(401, "Unauthorized", "Unauthorized");
    Count("unauthorized", k.status, Clock::now() - start);
    return answer(k);
  }
  if (method == "GET" && head.path == "/metrics") {
    Reply r = Metrics();
    Count("metrics", r.status, Clock::now() - start);
    return r;
  }
  if (!options_.kube_api) {
    const KubeResponse k = KubeStatusResponse(
        404, "NotFound", "this server serves only /metrics and the health checks");
    Count("other", k.status, Clock::now() - start);
    return answer(k);
  }
  KubeRequest kr;
  kr.method = method;
  kr.path = head.path;
  kr.query = head.query;
  kr.content_type = std::string(head.Field("Content-Type"));
  kr.accept = std::string(head.Field("Accept"));
  kr.store_client = EqualsIgnoreCase(TrimWhitespace(head.Field("X-Hop-Store-Client")), "true");
  kr.body = std::move(body);
  if (KubeApi::IsWatch(kr)) {
    if (head.method == "HEAD") {
      const KubeResponse k =
          KubeStatusResponse(405, "MethodNotAllowed", "a watch is a GET, not a HEAD");
      Count("watch", k.status, Clock::now() - start);
      Reply r = answer(k);
      r.fields.emplace_back("Allow", "GET");
      return r;
    }
    auto opened = api_.OpenWatch(kr);
    if (auto* k = std::get_if<KubeResponse>(&opened)) {
      Count("watch", k->status, Clock::now() - start);
      return answer(*k);
    }
    Reply r;
    r.watch = std::move(std::get<std::unique_ptr<KubeWatchStream>>(opened));
    r.content_type = r.watch->content_type();
    r.start = start;
    return r;
  }
  const KubeResponse k = api_.Handle(kr);
  Count(KubeApi::Verb(kr), k.status, Clock::now() - start);
  Reply r = answer(k);
  for (const std::string& w : k.warnings) {
    std::string text = w;
    for (char& c : text) {
      if (c == '"' || c == '\n' || c == '\r') c = '\'';
    }
    r.fields.emplace_back("Warning", fmt::format("299 - \"{}\"", text));
  }
  return r;
}

void HttpServer::Impl::StreamWatch(const Reply& reply,
                                   const std::function<bool(std::string_view)>& write) {
  watches_.Add(1);
  reply.watch->Run(write, stopping_);
  watches_.Add(-1);
  Count("watch", 200, Clock::now() - reply.start);
}

std::string HttpServer::Impl::Kubeconfig() const {
  std::string cluster = "    server: " + Quoted(url()) + "\n";
  if (tls_) cluster += "    certificate-authority-data: " + Quoted(Base64Encode(ca_pem_)) + "\n";
  std::string user =
      token_.empty() ? "  user: {}\n" : "  user:\n    token: " + Quoted(token_) + "\n";
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
