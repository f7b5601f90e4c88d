// The PostgreSQL wire protocol server of `hop serve --pg-port` (docs/pgwire.md). One thread
// accepts connections; each connection has its own thread and its own session::Session on the
// shared store, so a slow or idle client holds only its own thread. Statements run through
// Session::Execute with a ResultSink that writes protocol messages: the same execution path as
// the shell's.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/status.h"
#include "server/pg_auth.h"
#include "session/session.h"
#include "store/store.h"

namespace hop::server {

struct PgServerOptions {
  std::string listen = "127.0.0.1";  // an IP address, or localhost
  int port = 5432;                   // 0: any free port (tests), see PgServer::port()
  int max_connections = 100;         // past it a new client gets 53300 too_many_connections
  uint32_t max_message_bytes = 16 * 1024 * 1024;
  // An idle client (no message since its last ReadyForQuery) is disconnected after this;
  // 0: never.
  std::chrono::milliseconds idle_timeout{0};
  // A client idle inside a transaction block, or holding a portal whose rows it has not all
  // read (which holds a read of the local tables' SQLite files open), is disconnected with
  // FATAL 25P03 after this; the default of each connection's idle_in_transaction_session_timeout,
  // which it may SET. 0: never (docs/pgwire.md, "Settings").
  std::chrono::milliseconds idle_in_transaction_timeout{std::chrono::minutes(5)};
  // A client that started a message, or the startup and authentication, must finish it within
  // this.
  std::chrono::milliseconds message_timeout{60000};
  AuthMethod auth = AuthMethod::kTrust;
  // Trust admits only the connections of this user (LoopbackPeerUid); unset: the user the
  // process runs as (tests set another to see a stranger turned away).
  std::optional<uid_t> loopback_user;
  std::string users_file;  // required by every method but trust
  // TLS: a PEM certificate (chain) and its private key; both or neither. With them an
  // SSLRequest is answered 'S' and the connection goes on in TLS 1.2 or later; without, 'N'.
  std::string tls_cert;
  std::string tls_key;
  // What each connection's session starts with (its namespace, provisioners, state directory).
  session::Properties properties;
};

class PgServer {
 public:
  // Listens on options.listen:port. Errors (InvalidArgument): trust on an address that is not
  // loopback, a method without a users file, a users file that does not load, a certificate
  // without its key (or the other way round) or one OpenSSL cannot load; (Unavailable) an
  // address that cannot be bound.
  static Result<std::unique_ptr<PgServer>> Start(store::Store& store, PgServerOptions options);
  ~PgServer();  // Stop()
  PgServer(const PgServer&) = delete;
  PgServer& operator=(const PgServer&) = delete;

  int port() const;
  // Stops accepting, ends every connection (a FATAL 57P01 admin_shutdown to each, after its
  // running statement stops) and joins the threads. Idempotent.
  void Stop();

  class Impl;

 private:
  explicit PgServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Whether `address` (an IP address or "localhost") is a loopback address.
bool IsLoopbackAddress(std::string_view address);

}  // namespace hop::server
