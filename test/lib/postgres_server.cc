// The PostgreSQL server of a test or benchmark (postgres_server.h).
#include "test/lib/postgres_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace hop::testing {
namespace {

namespace fs = std::filesystem;

// What a command printed, without its trailing newlines and spaces.
std::string Output(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace

// A TCP port on 127.0.0.1 that nothing listens on now.
static int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

Status PostgresServer::Start(bool tcp) {
  std::string bin = Output("pg_config --bindir 2>/dev/null");
  if (bin.empty() || !fs::exists(bin + "/initdb")) {
    for (const auto& dir : {"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin"}) {
      if (fs::exists(std::string(dir) + "/initdb")) bin = dir;
    }
  }
  if (bin.empty() || !fs::exists(bin + "/initdb") || !fs::exists(bin + "/pg_ctl")) {
    return Status::Unavailable(
        "PostgreSQL's server is not installed (initdb and pg_ctl): run ./scripts/setup");
  }
  bin_ = bin;
  char tmpl[] = "/tmp/hop-pg-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return Status::Unavailable("cannot make a temporary directory");
  dir_ = tmpl;
  // initdb refuses to run as root: the server then runs as the postgres user.
  if (geteuid() == 0) {
    if (Output("id -u postgres 2>/dev/null").empty()) {
      return Status::Unavailable("running as root needs a postgres user to run the server");
    }
    as_ = "runuser -u postgres -- ";
    chmod(dir_.c_str(), 0755);
    if (std::system(("chown postgres: " + dir_).c_str()) != 0) {
      return Status::Unavailable("cannot give the server's directory to postgres");
    }
  }
  const std::string data = dir_ + "/data";
  if (std::system((as_ + bin_ + "/initdb -D " + data +
                   " -A trust -U postgres -E UTF8 --locale=C.UTF-8 --no-sync >" + dir_ +
                   "/initdb.log 2>&1")
                      .c_str()) != 0) {
    return Status::Unavailable("initdb failed: " + Output("cat " + dir_ + "/initdb.log"));
  }
  if (tcp) {
    port_ = FreePort();
    if (port_ == 0) return Status::Unavailable("no free TCP port on 127.0.0.1");
  }
  const std::string listen =
      tcp ? "-p " + std::to_string(port_) + " -c listen_addresses=127.0.0.1"
          : std::string("-c listen_addresses=''");
  options_ = listen + " -k " + dir_ +
             " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c TimeZone=UTC";
  tcp_ = tcp;
  return Launch();
}

Status PostgresServer::Launch() {
  if (std::system((as_ + bin_ + "/pg_ctl -D " + dir_ + "/data -l " + dir_ +
                   "/server.log -w -t 30 -o \"" + options_ + "\" start >/dev/null 2>&1")
                      .c_str()) != 0) {
    return Status::Unavailable("the server did not start: " +
                               Output("cat " + dir_ + "/server.log"));
  }
  started_ = true;
  conn_ = PQconnectdb(("host=" + dir_ + " user=postgres dbname=postgres" +
                       (tcp_ ? " port=" + std::to_string(port_) : std::string()))
                          .c_str());
  if (PQstatus(conn_) != CONNECTION_OK) {
    return Status::Unavailable(std::string("cannot connect: ") + PQerrorMessage(conn_));
  }
  return Exec("SET TimeZone = 'UTC'").status();
}

Status PostgresServer::Stop() {
  if (!started_) return Status::InvalidArgument("the server is not running");
  if (conn_) PQfinish(conn_);
  conn_ = nullptr;
  started_ = false;
  if (std::system(
          (as_ + bin_ + "/pg_ctl -D " + dir_ + "/data -m fast -w stop >/dev/null 2>&1").c_str()) !=
      0) {
    return Status::Unavailable("pg_ctl stop failed: " + Output("cat " + dir_ + "/server.log"));
  }
  return Status::OK();
}

Status PostgresServer::Restart() {
  if (started_ || options_.empty()) {
    return Status::InvalidArgument("only a server that was started and stopped restarts");
  }
  return Launch();
}

PostgresServer::~PostgresServer() {
  if (conn_) PQfinish(conn_);
  if (started_) {
    // Stopped by its own tool, which signals the postmaster's PID and waits for it.
    std::system(
        (as_ + bin_ + "/pg_ctl -D " + dir_ + "/data -m fast -w stop >/dev/null 2>&1").c_str());
  }
  if (!dir_.empty()) fs::remove_all(dir_);
}

Result<PostgresServer::Rows> PostgresServer::Exec(const std::string& sql) {
  PGresult* r = PQexec(conn_, sql.c_str());
  const ExecStatusType st = PQresultStatus(r);
  if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
    std::string message = PQresultErrorMessage(r);
    const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    last_sqlstate_ = state ? state : "";
    PQclear(r);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return Status::ExecutionError(message);
  }
  Rows out;
  for (int c = 0; c < PQnfields(r); ++c) out.types.push_back(PQftype(r, c));
  for (int i = 0; i < PQntuples(r); ++i) {
    std::vector<std::optional<std::string>> row;
    for (int c = 0; c < PQnfields(r); ++c) {
      if (PQgetisnull(r, i, c)) {
        row.emplace_back();
      } else {
        row.emplace_back(PQgetvalue(r, i, c));
      }
    }
    out.rows.push_back(std::move(row));
  }
  PQclear(r);
  return out;
}

}  // namespace hop::testing
