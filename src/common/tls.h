// TLS for hop's servers (pgwire and the Kubernetes API), over OpenSSL's libssl loaded on first
// use: a command that serves no TLS never maps libssl or libcrypto (docs/architecture.md,
// "Start-up"). Sockets stay blocking; a read or write that ends for a socket timeout (SO_RCVTIMEO,
// SO_SNDTIMEO) before a record is whole reports kRetry, so the caller can look at its deadline
// and its server's stop and call again. A write to a peer that has gone is kClosed, never a
// SIGPIPE.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "common/status.h"

namespace hop::tls {

// A server's certificate chain and private key (PEM files), TLS 1.2 or later.
class ServerContext {
 public:
  // Errors: Unavailable when libssl cannot be loaded; InvalidArgument naming the file when the
  // certificate cannot be read, or the key cannot be read or is not the certificate's.
  static Result<std::shared_ptr<ServerContext>> Load(const std::string& cert_chain_path,
                                                     const std::string& key_path);
  ~ServerContext();
  ServerContext(const ServerContext&) = delete;
  ServerContext& operator=(const ServerContext&) = delete;

 private:
  friend class Session;
  explicit ServerContext(void* ctx) : ctx_(ctx) {}
  void* ctx_;  // SSL_CTX*
};

enum class Io {
  kOk,      // done: the handshake finished, or `bytes` were read or written
  kRetry,   // the socket timed out inside a record: call again
  kClosed,  // the peer closed the connection, or it failed: stop using it
};

struct IoResult {
  Io io;
  size_t bytes = 0;
};

// One server-side TLS connection over a connected socket (not owned: the caller closes it).
class Session {
 public:
  static Result<std::unique_ptr<Session>> Over(std::shared_ptr<const ServerContext> context,
                                               int fd);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // One step of the server's handshake (kOk when it is done).
  Io Accept();
  // Up to `n` bytes into `buf`; kOk always has bytes > 0.
  IoResult Read(void* buf, size_t n);
  // Some of `n` bytes (bytes > 0 with kOk); callers loop until all are written.
  IoResult Write(const void* buf, size_t n);
  // Bytes already decrypted and waiting to be read (no system call needed to read them).
  size_t Pending() const;
  // Sends close_notify, best effort.
  void Shutdown();

 private:
  Session(std::shared_ptr<const ServerContext> context, void* ssl)
      : context_(std::move(context)), ssl_(ssl) {}
  std::shared_ptr<const ServerContext> context_;
  void* ssl_;  // SSL*
};

}  // namespace hop::tls
