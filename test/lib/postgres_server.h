// A PostgreSQL server of a test's or a benchmark's own (the differential test, engine_bench):
// started by its own tools (initdb, pg_ctl) in a new temporary directory, listening on a Unix
// socket there (no TCP port to collide on), with durability off; as the postgres user when run
// as root (initdb refuses root). Stopped and removed when the object goes.
#pragma once

#include <libpq-fe.h>

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace hop::testing {

class PostgresServer {
 public:
  PostgresServer() = default;
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // Starts the server and connects to it; with `tcp`, it also listens on 127.0.0.1 at a free
  // port (port()). Errors (Unavailable) say what is missing: the server's binaries
  // (./scripts/setup installs them), a postgres user when run as root.
  Status Start(bool tcp = false);

  struct Rows {
    std::vector<Oid> types;
    std::vector<std::vector<std::optional<std::string>>> rows;
  };
  // Stops the server (pg_ctl stop, waiting for it), keeping its data, socket directory and port.
  Status Stop();
  // Starts a stopped server again, as it was, and connects to it.
  Status Restart();

  // Runs one statement on the connection. Errors (Execution) hold PostgreSQL's message.
  Result<Rows> Exec(const std::string& sql);
  // The SQLSTATE of the last Exec that failed ("" before any).
  const std::string& last_sqlstate() const { return last_sqlstate_; }

  // The directory of the server's socket: `psql -h <socket_dir> -U postgres`.
  const std::string& socket_dir() const { return dir_; }
  // The TCP port on 127.0.0.1 (Start(true)), else 0.
  int port() const { return port_; }

 private:
  std::string last_sqlstate_;
  Status Launch();  // pg_ctl start with options_, then connect

  std::string bin_, dir_, as_;
  std::string options_;  // the server's options (port, socket directory, durability off)
  bool tcp_ = false;
  bool started_ = false;
  int port_ = 0;
  PGconn* conn_ = nullptr;
};

}  // namespace hop::testing
