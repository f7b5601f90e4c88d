#include "common/tls.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <climits>
#include <csignal>

#include "common/shared_library.h"

// The header gives the types and the functions' signatures; the functions themselves come from
// libssl through dlsym, so the binary has no link to libssl (docs/architecture.md, "Start-up").
static_assert(OPENSSL_VERSION_MAJOR == 3, "the soname below is OpenSSL 3's");

namespace hop::tls {

namespace {

// The libssl (and, through it, libcrypto) functions hop calls, looked up once.
struct Ssl {
  decltype(&::TLS_server_method) TLS_server_method;
  decltype(&::SSL_CTX_new) SSL_CTX_new;
  decltype(&::SSL_CTX_free) SSL_CTX_free;
  decltype(&::SSL_CTX_ctrl) SSL_CTX_ctrl;
  decltype(&::SSL_CTX_use_certificate_chain_file) SSL_CTX_use_certificate_chain_file;
  decltype(&::SSL_CTX_use_PrivateKey_file) SSL_CTX_use_PrivateKey_file;
  decltype(&::SSL_CTX_check_private_key) SSL_CTX_check_private_key;
  decltype(&::SSL_new) SSL_new;
  decltype(&::SSL_free) SSL_free;
  decltype(&::SSL_set_fd) SSL_set_fd;
  decltype(&::SSL_accept) SSL_accept;
  decltype(&::SSL_read) SSL_read;
  decltype(&::SSL_write) SSL_write;
  decltype(&::SSL_pending) SSL_pending;
  decltype(&::SSL_shutdown) SSL_shutdown;
  decltype(&::SSL_get_error) SSL_get_error;
  decltype(&::ERR_clear_error) ERR_clear_error;
};

Result<Ssl> Bind() {
  HOP_ASSIGN_OR_RETURN(SharedLibrary lib, SharedLibrary::Open("libssl.so.3", "TLS"));
  Ssl ssl;
  lib.Bind(ssl.TLS_server_method, "TLS_server_method");
  lib.Bind(ssl.SSL_CTX_new, "SSL_CTX_new");
  lib.Bind(ssl.SSL_CTX_free, "SSL_CTX_free");
  lib.Bind(ssl.SSL_CTX_ctrl, "SSL_CTX_ctrl");
  lib.Bind(ssl.SSL_CTX_use_certificate_chain_file, "SSL_CTX_use_certificate_chain_file");
  lib.Bind(ssl.SSL_CTX_use_PrivateKey_file, "SSL_CTX_use_PrivateKey_file");
  lib.Bind(ssl.SSL_CTX_check_private_key, "SSL_CTX_check_private_key");
  lib.Bind(ssl.SSL_new, "SSL_new");
  lib.Bind(ssl.SSL_free, "SSL_free");
  lib.Bind(ssl.SSL_set_fd, "SSL_set_fd");
  lib.Bind(ssl.SSL_accept, "SSL_accept");
  lib.Bind(ssl.SSL_read, "SSL_read");
  lib.Bind(ssl.SSL_write, "SSL_write");
  lib.Bind(ssl.SSL_pending, "SSL_pending");
  lib.Bind(ssl.SSL_shutdown, "SSL_shutdown");
  lib.Bind(ssl.SSL_get_error, "SSL_get_error");
  lib.Bind(ssl.ERR_clear_error, "ERR_clear_error");  // libcrypto's, found through libssl
  HOP_RETURN_IF_ERROR(lib.status());
  return ssl;
}

// Loads libssl on the first call, once for the process.
const Result<Ssl>& LoadSsl() {
  static const Result<Ssl> ssl = Bind();
  return ssl;
}

// Loaded already: a context or session exists only after LoadSsl succeeded.
const Ssl& Api() { return *LoadSsl(); }

SSL_CTX* Ctx(void* p) { return static_cast<SSL_CTX*>(p); }

// libssl writes to its socket with write(2), so a write to a peer that has gone raises SIGPIPE,
// which would end the process. Around each call that may write, SIGPIPE is blocked in this
// thread, and one the call raised is taken off the pending set before it is unblocked.
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    was_pending_ = Pending();
    pthread_sigmask(SIG_BLOCK, &pipe_, &previous_);
  }
  ~SigpipeBlocked() {
    if (!was_pending_ && Pending()) {
      const timespec none{0, 0};
      sigtimedwait(&pipe_, nullptr, &none);
    }
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;

 private:
  static bool Pending() {
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    return sigismember(&pending, SIGPIPE) == 1;
  }
  sigset_t pipe_;
  sigset_t previous_;
  bool was_pending_ = false;
};
SSL* Conn(void* p) { return static_cast<SSL*>(p); }

}  // namespace

Result<std::shared_ptr<ServerContext>> ServerContext::Load(const std::string& cert_chain_path,
                                                           const std::string& key_path) {
  const Result<Ssl>& loaded = LoadSsl();
  if (!loaded.ok()) return loaded.status();
  const Ssl* ssl = &*loaded;
  SSL_CTX* ctx = ssl->SSL_CTX_new(ssl->TLS_server_method());
  if (ctx == nullptr) return Status::Internal("OpenSSL cannot make a TLS context");
  std::shared_ptr<ServerContext> context(new ServerContext(ctx));
  // SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl.
  ssl->SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, nullptr);
  if (ssl->SSL_CTX_use_certificate_chain_file(ctx, cert_chain_path.c_str()) != 1) {
    ssl->ERR_clear_error();
    return Status::InvalidArgument(
        fmt::format("cannot load the certificate {} (PEM)", cert_chain_path));
  }
  if (ssl->SSL_CTX_use_PrivateKey_file(ctx, key_path.c_str(), SSL_FILETYPE_PEM) != 1 ||
      ssl->SSL_CTX_check_private_key(ctx) != 1) {
    ssl->ERR_clear_error();
    return Status::InvalidArgument(
        fmt::format("cannot load the private key {}, or it is not the certificate's", key_path));
  }
  return context;
}

ServerContext::~ServerContext() { Api().SSL_CTX_free(Ctx(ctx_)); }

Result<std::unique_ptr<Session>> Session::Over(std::shared_ptr<const ServerContext> context,
                                               int fd) {
  const Ssl& ssl = Api();
  SSL* conn = ssl.SSL_new(Ctx(context->ctx_));
  if (conn == nullptr) return Status::Internal("OpenSSL cannot make a TLS connection");
  std::unique_ptr<Session> session(new Session(std::move(context), conn));
  if (ssl.SSL_set_fd(conn, fd) != 1) {
    ssl.ERR_clear_error();
    return Status::Internal("OpenSSL cannot attach a TLS connection to its socket");
  }
  return session;
}

Session::~Session() { Api().SSL_free(Conn(ssl_)); }

namespace {

// What an SSL_* call's failure means for a blocking socket with timeouts.
Io Failure(const Ssl& ssl, SSL* conn, int r) {
  const int e = ssl.SSL_get_error(conn, r);
  if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return Io::kRetry;
  ssl.ERR_clear_error();  // errors stay queued per thread otherwise, and confuse the next call
  return Io::kClosed;
}

}  // namespace

Io Session::Accept() {
  const Ssl& ssl = Api();
  SigpipeBlocked blocked;
  const int r = ssl.SSL_accept(Conn(ssl_));
  return r == 1 ? Io::kOk : Failure(ssl, Conn(ssl_), r);
}

IoResult Session::Read(void* buf, size_t n) {
  const Ssl& ssl = Api();
  SigpipeBlocked blocked;  // a read may write (an alert, a key update)
  const int r = ssl.SSL_read(Conn(ssl_), buf, static_cast<int>(std::min<size_t>(n, INT_MAX)));
  if (r > 0) return {Io::kOk, static_cast<size_t>(r)};
  return {Failure(ssl, Conn(ssl_), r), 0};
}

IoResult Session::Write(const void* buf, size_t n) {
  const Ssl& ssl = Api();
  SigpipeBlocked blocked;
  const int r = ssl.SSL_write(Conn(ssl_), buf, static_cast<int>(std::min<size_t>(n, 1 << 30)));
  if (r > 0) return {Io::kOk, static_cast<size_t>(r)};
  return {Failure(ssl, Conn(ssl_), r), 0};
}

size_t Session::Pending() const { return static_cast<size_t>(Api().SSL_pending(Conn(ssl_))); }

void Session::Shutdown() {
  const Ssl& ssl = Api();
  SigpipeBlocked blocked;
  if (ssl.SSL_shutdown(Conn(ssl_)) < 0) ssl.ERR_clear_error();
}

}  // namespace hop::tls
