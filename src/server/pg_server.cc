// The PostgreSQL wire server: listener, connections, and the protocol's state machine
// (pg_server.h, docs/pgwire.md).
#include "server/pg_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "binder/pg_catalog.h"
#include "catalog/pg_types.h"
#include "common/digest.h"
#include "common/log.h"
#include "common/redact.h"
#include "common/strings.h"
#include "common/tls.h"
#include "engine/postgres_text.h"
#include "server/listen.h"
#include "server/pg_protocol.h"
#include "server/pg_values.h"
#include "sql/ast/set_statement.h"
#include "sql/lexer.h"
#include "sql/parser.h"
#include "sql/script.h"

namespace hop::server {

namespace {

constexpr uint32_t kMaxStartupBytes = 10000;
constexpr size_t kSendChunk = 64 * 1024;
constexpr size_t kReceiveChunk = 16 * 1024;

// Why a connection ends: the client went away, broke the protocol, timed out, or the server
// stops.
enum class Stop { kNone, kClosed, kTimeout, kShutdown };

std::string ServerVersion() { return "15.0 (hop)"; }

// PostgreSQL's words (with SQLSTATE 57P01 admin_shutdown) for the end of a session the server's
// stop ended, whether it was waiting for the client or running a statement.
constexpr std::string_view kAdminShutdown =
    "terminating connection due to administrator command (hop serve stops)";

constexpr std::string_view kAborted =
    "current transaction is aborted, commands ignored until end of transaction block";

// PostgreSQL's words for a savepoint that is not there (3B001), and for a savepoint statement
// outside a block (25P01).
constexpr std::string_view kNoSavepoint = "savepoint";
constexpr std::string_view kNotInBlock = "can only be used in transaction blocks";

// PostgreSQL's words (and SQLSTATE 0A000) for a prepared statement whose result columns changed.
// What hop answers the statements of two-phase commit (PREPARE TRANSACTION, COMMIT PREPARED,
// ROLLBACK PREPARED), as feature_not_supported (0A000): it keeps no transaction to prepare.
constexpr std::string_view kNoTwoPhase = "hop does not support two-phase commit";

constexpr std::string_view kPlanChanged = "cached plan must not change result type";

// What hop answers a COPY statement (any form: FROM STDIN, TO STDOUT, a file, a program) and a
// FunctionCall message, as feature_not_supported (0A000).
constexpr std::string_view kNoCopy = "COPY is not supported by hop";
constexpr std::string_view kNoFunctionCall = "the function call protocol is not supported by hop";

Status PlanChanged(std::string_view statement, size_t columns) {
  return Status::InvalidArgument(fmt::format(
      "{}: prepared statement \"{}\" gave {} columns of other types when first described or "
      "run; what it reads has changed since (prepare it again)",
      kPlanChanged, statement, columns));
}

}  // namespace

bool IsLoopbackAddress(std::string_view address) {
  if (address == "localhost") return true;
  const std::string a(address);
  in_addr v4{};
  if (inet_pton(AF_INET, a.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, a.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

class Connection;

class PgServer::Impl {
 public:
  Impl(store::Store& store, PgServerOptions options)
      : store_(store), options_(std::move(options)) {}
  ~Impl() {
    Stop();
  }
  Status LoadTls();

  Status Listen();
  void Stop();
  int port() const { return port_; }

  // The connection's side of the registry.
  void Cancel(int32_t pid, int32_t key);
  void Finished(Connection* c);

  store::Store& store_;
  PgServerOptions options_;
  std::optional<PgUsers> users_;
  std::shared_ptr<const tls::ServerContext> tls_;  // null without --pg-cert
  int listen_fd_ = -1;
  int port_ = 0;
  // Readable once the server stops: every thread polls it beside its socket.
  int stop_pipe_[2] = {-1, -1};
  std::thread acceptor_;
  std::atomic<bool> stopping_{false};
  std::atomic<int32_t> next_pid_{1000};

  std::mutex mu_;
  std::map<int32_t, Connection*> connections_;                // guarded by mu_
  std::vector<std::thread> finished_;                         // threads to join; guarded by mu_
  std::map<Connection*, std::thread> threads_;                // guarded by mu_
  std::map<Connection*, std::unique_ptr<Connection>> owned_;  // guarded by mu_

 private:
  void Accept();
  void Reap();
};

namespace {

// One statement's results as the protocol reads them: its columns, then its rows from a cursor
// or a table, read in as many Executes as the client asks for, then its tag.
struct Pending {
  bool has_rows = false;
  std::vector<session::ResultColumn> columns;
  std::unique_ptr<engine::Cursor> cursor;
  std::vector<std::vector<TableCell>> table;
  size_t next_row = 0;
  std::vector<std::pair<std::string, std::string>> notices;  // severity, text
  std::string tag;
  int64_t sent = 0;
  bool done = false;  // every row sent
};

class CaptureSink : public session::ResultSink {
 public:
  explicit CaptureSink(Pending& p) : p_(p) {}
  Status Rows(std::unique_ptr<engine::Cursor> cursor) override {
    p_.has_rows = true;
    p_.columns.clear();
    for (size_t i = 0; i < cursor->names().size(); ++i) {
      p_.columns.push_back({cursor->names()[i], cursor->reps()[i].type});
    }
    p_.cursor = std::move(cursor);
    return Status::OK();
  }
  Status Table(const std::vector<session::ResultColumn>& columns,
               const std::vector<std::vector<TableCell>>& rows) override {
    p_.has_rows = true;
    p_.columns = columns;
    p_.table = rows;
    return Status::OK();
  }
  void Text(std::string_view text) override {
    std::string_view t = text;
    while (!t.empty() && t.back() == '\n') t.remove_suffix(1);
    if (!t.empty()) p_.notices.emplace_back("INFO", std::string(t));
  }
  void Warnings(std::string_view warnings) override {
    std::string_view t = warnings;
    while (!t.empty() && t.back() == '\n') t.remove_suffix(1);
    if (!t.empty()) p_.notices.emplace_back("WARNING", std::string(t));
  }
  void Complete(std::string_view tag) override { p_.tag = std::string(tag); }

 private:
  Pending& p_;
};

struct Prepared {
  std::string query;
  std::vector<uint32_t> param_types;
  int params = 0;
  uint64_t id = 0;  // tells this statement from a later one of the same name
  // The type OIDs of its result columns, as a Describe of the statement told the client: a run
  // whose rows go out without a Describe of their own, and whose columns differ (a table dropped
  // and made anew in between), fails as PostgreSQL's cached plan does, rather than send rows that
  // do not match what the client was told.
  std::optional<std::vector<uint32_t>> result_types;
};

struct Portal {
  std::string statement;  // the prepared statement it was bound from, and that statement's id
  uint64_t statement_id = 0;
  bool described = false;  // a Describe of the portal sent its columns
  std::string query;  // with its parameters substituted
  std::vector<int16_t> result_formats;
  std::optional<Pending> pending;  // once it ran
  bool closed = false;             // its rows were dropped for another statement
};

// PostgreSQL settings clients send at connect: accepted when hop behaves as they ask.
struct ClientSetting {
  std::string_view name;
  // Whether `value` (lower case, unquoted) is what hop does; null: any value.
  bool (*accepts)(std::string_view value);
  // What hop does, for the refusal and SHOW; for a setting that takes any value, PostgreSQL's
  // default, which SHOW gives until the connection sets another (the timeouts, which are acted
  // on, show the connection's value: Connection::TimeoutSetting).
  std::string_view does;
};

bool AcceptsUtf8(std::string_view v) { return v == "utf8" || v == "utf-8" || v == "unicode"; }
// DateStyle: ISO output with the month-day-year order, in any of PostgreSQL's spellings of
// those ("ISO", "ISO, MDY", "US", ...). Another order (DMY, YMD, European) would decide how a
// date that is not year-month-day reads; hop reads dates only as year-month-day, so it refuses
// them rather than take them and read no date their way.
bool AcceptsIsoMdy(std::string_view v) {
  bool any = false;
  while (!v.empty()) {
    const size_t end = v.find_first_of(", ");
    const std::string_view word = v.substr(0, end);
    v = end == std::string_view::npos ? std::string_view() : v.substr(end + 1);
    if (word.empty()) continue;
    if (word != "iso" && word != "mdy" && word != "us" && word != "noneuro" &&
        word != "noneuropean") {
      return false;
    }
    any = true;
  }
  return any;
}
// The name PostgreSQL 15 gives (SHOW, ParameterStatus) a spelling, in lower case, of a time
// zone that is UTC; nullopt for any other zone, which hop does not do (its times are UTC).
std::optional<std::string_view> UtcZoneName(std::string_view v) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"utc", "UTC"},      {"gmt", "GMT"},     {"etc/utc", "Etc/UTC"}, {"etc/gmt", "Etc/GMT"},
      {"uct", "UCT"},      {"z", "Etc/UTC"},   {"zulu", "Zulu"},       {"0", "<+00>-00"},
      {"+00", "<+00>-00"}, {"00:00", "00:00"}, {"+00:00", "+00:00"},
  };
  for (const auto& [spelling, name] : kNames) {
    if (v == spelling) return name;
  }
  return std::nullopt;
}
bool AcceptsUtc(std::string_view v) { return UtcZoneName(v).has_value(); }
bool AcceptsOn(std::string_view v) { return v == "on" || v == "true" || v == "1"; }
bool AcceptsPostgres(std::string_view v) { return v == "postgres"; }

constexpr ClientSetting kClientSettings[] = {
    {"application_name", nullptr, ""},
    {"extra_float_digits", nullptr, "1"},
    {"client_min_messages", nullptr, "notice"},
    {"statement_timeout", nullptr, "0"},
    {"lock_timeout", nullptr, "0"},
    {"idle_in_transaction_session_timeout", nullptr, "0"},
    {"search_path", nullptr, "\"$user\", public"},
    {"client_encoding", AcceptsUtf8, "UTF8"},
    {"datestyle", AcceptsIsoMdy, "ISO, MDY"},
    {"timezone", AcceptsUtc, "UTC"},
    {"standard_conforming_strings", AcceptsOn, "on"},
    {"intervalstyle", AcceptsPostgres, "postgres"},
};

const ClientSetting* FindClientSetting(std::string_view name) {
  for (const ClientSetting& s : kClientSettings) {
    if (EqualsIgnoreCase(s.name, name)) return &s;
  }
  return nullptr;
}

// Whether `name` is one of hop's own settings (session::CopySetting knows it), which a startup
// packet may set as PostgreSQL's may set any of its settings.
bool IsHopSetting(std::string_view name) {
  if (name.empty() || EqualsIgnoreCase(name, "all")) return false;
  session::Properties scratch;
  return session::CopySetting(name, session::Properties{}, scratch);
}

// The PostgreSQL settings a connection keeps itself (hop's own are its session's).
struct PgSettings {
  std::string application_name;
  // TimeZone as PostgreSQL names the UTC spelling the client gave (UtcZoneName).
  std::string timezone = "UTC";
  // The values the client gave the settings that take any value (by ClientSetting::name), which
  // SHOW gives back; application_name is above.
  std::map<std::string_view, std::string> client_values;
  // statement_timeout and idle_in_transaction_session_timeout (docs/pgwire.md, "Settings");
  // 0: none.
  std::chrono::milliseconds statement_timeout{0};
  std::chrono::milliseconds idle_in_transaction_timeout{0};
};

// Every setting of a connection at one moment.
struct Settings {
  session::Properties hop;
  PgSettings pg;
};

// Copies the setting `name` of `from` into `to`: a PostgreSQL setting by its name (those hop
// only accepts one value of have nothing to copy), else one of hop's (session::CopySetting).
// False when `name` is no setting.
bool CopySettingValue(std::string_view name, const Settings& from, Settings& to) {
  if (EqualsIgnoreCase(name, "all") || name.empty()) {
    session::CopySetting("all", from.hop, to.hop);
    to.pg = from.pg;
    return true;
  }
  if (const ClientSetting* s = FindClientSetting(name)) {
    if (EqualsIgnoreCase(s->name, "application_name")) {
      to.pg.application_name = from.pg.application_name;
    } else if (EqualsIgnoreCase(s->name, "timezone")) {
      to.pg.timezone = from.pg.timezone;
    } else if (EqualsIgnoreCase(s->name, "statement_timeout")) {
      to.pg.statement_timeout = from.pg.statement_timeout;
    } else if (EqualsIgnoreCase(s->name, "idle_in_transaction_session_timeout")) {
      to.pg.idle_in_transaction_timeout = from.pg.idle_in_transaction_timeout;
    } else if (s->accepts == nullptr) {
      if (auto it = from.pg.client_values.find(s->name); it != from.pg.client_values.end()) {
        to.pg.client_values[s->name] = it->second;
      } else {
        to.pg.client_values.erase(s->name);
      }
    }
    return true;
  }
  return session::CopySetting(name, from.hop, to.hop);
}

// The settings of a transaction (a block, or the implicit one of a simple Query or of the
// extended protocol's messages up to Sync), from the first statement in it that changed a
// setting: as they were before (what a ROLLBACK puts back), and what a COMMIT keeps (the values
// SET without LOCAL; a SET LOCAL changes only those in effect).
struct SettingsScope {
  Settings begin;
  Settings kept;
};

struct Savepoint {
  std::string name;
  int64_t writes = 0;  // block_writes_ when it was made
  // The settings in effect and kept when it was made; nullopt when nothing in the transaction
  // had changed a setting yet (the scope's start is then the savepoint's).
  std::optional<SettingsScope> settings;
};

}  // namespace

class Connection {
 public:
  Connection(PgServer::Impl& server, int fd) : server_(server), fd_(fd), pid_(server.next_pid_++) {
    pg_.idle_in_transaction_timeout = server.options_.idle_in_transaction_timeout;
    const std::string key = RandomBytes(4);
    std::memcpy(&secret_, key.data(), 4);
  }
  ~Connection() {
    if (timer_.joinable()) {
      {
        std::lock_guard<std::mutex> lock(timer_mu_);
        timer_stop_ = true;
      }
      timer_cv_.notify_all();
      timer_.join();
    }
    close(fd_);
  }

  void Run();
  int32_t pid() const { return pid_; }
  int32_t secret() const { return secret_; }
  // Asks the running statement to stop (a CancelRequest); idle: nothing.
  void Cancel() {
    if (running_.load()) cancel_.store(true);
  }
  // The server stops: a receive waiting on the socket returns (its writing side stays open for
  // the goodbye).
  void WakeToStop() {
    Cancel();
    shutdown(fd_, SHUT_RD);
  }

 private:
  // ---- bytes ----
  // Reads exactly `n` bytes; `timeout` 0: wait as long as it takes.
  Stop ReadExact(char* buf, size_t n, std::chrono::milliseconds timeout);
  // Appends what the client has sent to in_ (one receive: often several messages); `deadline`
  // null: wait as long as it takes.
  Stop Receive(const std::chrono::steady_clock::time_point* deadline);
  // The socket's receive timeout (SO_RCVTIMEO) for a wait of `wait` (0: no end).
  void SetReceiveTimeout(std::chrono::milliseconds wait);
  Stop Flush();
  void Fatal(std::string_view sqlstate, std::string_view message) {
    ErrorFields f;
    f.severity = "FATAL";
    f.sqlstate = std::string(sqlstate);
    f.message = std::string(message);
    WriteError(out_, f);
    Flush();
  }
  // A client that began a message and did not send the rest within the message timeout: not
  // idle, and not known to break the protocol either; the connection is given up as failed
  // (docs/pgwire.md, "Connections").
  void MessageTimedOut() {
    Fatal("08006", fmt::format("terminating connection: the client began a message and did not "
                               "send the rest of it within {} s",
                               server_.options_.message_timeout.count() / 1000.0));
  }
  void FlushIfFull() {
    if (out_.size() >= kSendChunk) Flush();
  }

  // ---- phases ----
  bool Startup();
  bool Authenticate(const std::string& user);
  // Reads one authentication message ('p').
  Result<std::string> ReadPasswordMessage();
  void ReadyForQuery();

  // ---- statements ----
  void SimpleQuery(const std::string& query);
  // Runs one statement into `p`; a transaction control statement or a client setting is
  // answered here. Errors are the statement's.
  Status Run(std::string_view text, Pending& p, const SourceOrigin& origin);
  std::optional<Status> TransactionControl(std::string_view text, Pending& p);
  // `apply` false: only what it would give (Describe).
  std::optional<Status> ClientSettingStatement(std::string_view text, Pending& p,
                                               bool apply = true);
  // Whether `text` is BEGIN, COMMIT, ROLLBACK or one of their synonyms.
  static bool IsTransactionControl(std::string_view text);
  // A portal whose rows go out under the columns a Describe of its statement gave, and not one
  // of its own: fails (PlanChanged) when its columns are not those (docs/pgwire.md).
  Status CheckDescribedColumns(Portal& portal);
  // DEALLOCATE [PREPARE] name | ALL: forgets named prepared statements (docs/pgwire.md,
  // "Statements"). Nullopt when `text` is not one.
  std::optional<Status> Deallocate(std::string_view text, Pending& p, bool apply = true);
  void SendRowDescription(const std::vector<session::ResultColumn>& columns,
                          const std::vector<int16_t>& formats);
  // Sends up to `max_rows` rows (0: all); false when rows remain.
  Result<bool> SendRows(Pending& p, const std::vector<int16_t>& formats, int32_t max_rows);
  void SendNotices(Pending& p);
  void SendComplete(const Pending& p);
  void SendError(const Status& st, std::string_view query = {}, size_t offset = 0);
  // Drops every portal's cursor: the session is about to run another statement.
  void DropCursors();

  // While a statement runs or its rows are read, a CancelRequest stops it.
  class Running {
   public:
    explicit Running(Connection& c) : c_(c) {
      c_.cancel_.store(false);
      c_.timed_out_.store(false);
      c_.running_.store(true);
      c_.ArmTimer();
    }
    ~Running() {
      c_.DisarmTimer();
      c_.running_.store(false);
    }

   private:
    Connection& c_;
  };

  // ---- extended protocol ----
  Status ParseMsg(std::string_view body);
  Status BindMsg(std::string_view body);
  Status DescribeMsg(std::string_view body);
  Status ExecuteMsg(std::string_view body);
  Status CloseMsg(std::string_view body);
  Status StartPortal(Portal& portal);

  // The TLS handshake after an SSLRequest answered 'S'; false when it failed.
  bool StartTls();

  // ---- statement_timeout and idle_in_transaction_session_timeout ----
  // The connection's value of the timeout setting `name`, or null when `name` is not one.
  std::chrono::milliseconds* TimeoutSetting(std::string_view name);
  // Sets the timeout setting `name` from a value of the startup packet (DEFAULT: its default);
  // errors are PostgreSQL's.
  Status SetTimeoutSetting(std::string_view name, std::string_view value);
  // Whether the client, waiting now, is idle in a transaction: inside a transaction block, or
  // holding a portal whose rows it has not all read (its cursor keeps a read of the local
  // tables' files open).
  bool IdleInTransaction() const;
  // With a statement_timeout, starts the timer for the statement that starts now (the timer's
  // thread is started by the first); without one, nothing.
  void ArmTimer();
  void DisarmTimer();
  // The timer's thread: at the deadline of the armed statement, cancels it as a CancelRequest
  // does, marking it timed out so that its error is PostgreSQL's 57014.
  void TimerLoop();

  // ---- settings and the end of a transaction (docs/pgwire.md, "Settings") ----
  Settings CurrentSettings() const { return {session_->properties(), pg_}; }
  // Puts `settings` in effect.
  void ApplySettings(const Settings& settings);
  // The settings of the transaction under way, noted now unless they were.
  SettingsScope& OpenSettingsScope();
  // SET [SESSION | LOCAL] and RESET of any setting, hop's or PostgreSQL's: applied, with what a
  // COMMIT keeps noted. Nullopt when `text` is neither. `apply` false: only what it would give
  // (Describe).
  std::optional<Status> SettingStatement(std::string_view text, Pending& p,
                                         const SourceOrigin& origin, bool apply = true);
  // The transaction ends: a COMMIT keeps the values SET without LOCAL, a ROLLBACK puts back
  // those before it.
  void EndSettingsScope(bool commit);
  // A statement failed: in a block, the settings go back to those of its innermost savepoint,
  // or of its start, as PostgreSQL's abort of the (sub)transaction puts them back; outside one
  // the implicit transaction ends as by a ROLLBACK.
  void SettingsAfterError();
  // The settings go back to those of `savepoint`, or of the transaction's start (null).
  void SettingsBackTo(const Savepoint* savepoint);

  PgServer::Impl& server_;
  int fd_;
  std::unique_ptr<tls::Session> ssl_;  // once TLS is on
  int32_t pid_;
  int32_t secret_ = 0;
  std::string out_;
  std::string in_;     // received, from in_at_ on not read yet
  size_t in_at_ = 0;
  std::chrono::milliseconds receive_timeout_{0};  // the socket's SO_RCVTIMEO
  std::string user_;
  std::string database_;
  // The PostgreSQL settings in effect; hop's own are the session's.
  PgSettings pg_;
  // Those the connection started with (its startup packet's, else the defaults): what RESET and
  // SET ... TO DEFAULT go back to, as in PostgreSQL.
  PgSettings startup_pg_;
  // hop's own settings the startup packet gave (in `options` or as parameters), in order; and
  // the session's settings once they are applied: what RESET of hop's settings goes back to.
  std::vector<std::pair<std::string, std::string>> startup_hop_settings_;
  session::Properties startup_hop_;
  // The application_name and TimeZone the client was last told of (ParameterStatus).
  std::string reported_application_name_;
  std::string reported_timezone_;
  // The settings of the transaction under way, from its first change of a setting to its end
  // (docs/pgwire.md, "Settings").
  std::optional<SettingsScope> settings_scope_;
  // While the statements of a simple Query of several run outside a block: PostgreSQL runs them
  // in one implicit transaction block, in which SET LOCAL is in place.
  bool implicit_block_ = false;
  std::unique_ptr<session::Session> session_;
  std::atomic<bool> cancel_{false};
  std::atomic<bool> running_{false};
  // Set by the timer when it cancelled the running statement.
  std::atomic<bool> timed_out_{false};
  std::mutex timer_mu_;
  std::condition_variable timer_cv_;
  // The running statement's deadline; max: none armed.
  std::chrono::steady_clock::time_point timer_deadline_ =
      std::chrono::steady_clock::time_point::max();  // guarded by timer_mu_
  bool timer_stop_ = false;                          // guarded by timer_mu_
  std::thread timer_;
  char transaction_ = 'I';  // I idle, T in a block, E in a failed block
  bool block_wrote_ = false;
  int64_t block_writes_ = 0;  // statements of the block that may have written
  // The block's savepoints, oldest first.
  std::vector<Savepoint> savepoints_;
  std::map<std::string, Prepared> statements_;
  uint64_t statement_ids_ = 0;
  std::map<std::string, Portal> portals_;
  bool skip_to_sync_ = false;  // after an error in the extended protocol
  // The server's stop ended the session with the error of its running statement (SendError).
  bool terminated_ = false;
};

Stop Connection::ReadExact(char* buf, size_t n, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (in_.size() - in_at_ < n) {
    const Stop s = Receive(timeout.count() > 0 ? &deadline : nullptr);
    if (s != Stop::kNone) return s;
  }
  std::memcpy(buf, in_.data() + in_at_, n);
  in_at_ += n;
  if (in_at_ == in_.size()) {
    in_.clear();
    in_at_ = 0;
  }
  return Stop::kNone;
}

Stop Connection::Receive(const std::chrono::steady_clock::time_point* deadline) {
  if (in_at_ > 0) {  // what was read goes before more comes
    in_.erase(0, in_at_);
    in_at_ = 0;
  }
  char chunk[kReceiveChunk];
  for (;;) {
    // One blocking receive per round trip, no poll: the socket's receive timeout keeps the
    // deadline, and a stopping server shuts the socket's reading side (WakeToStop).
    if (server_.stopping_.load()) return Stop::kShutdown;
    if (ssl_ == nullptr || ssl_->Pending() == 0) {
      std::chrono::milliseconds wait{0};
      if (deadline != nullptr) {
        wait = std::chrono::duration_cast<std::chrono::milliseconds>(
            *deadline - std::chrono::steady_clock::now());
        if (wait.count() <= 0) return Stop::kTimeout;
      }
      SetReceiveTimeout(wait);
    }
    ssize_t k;
    if (ssl_ != nullptr) {
      const tls::IoResult r = ssl_->Read(chunk, sizeof chunk);
      // A record not whole yet when the receive timeout came: the deadline is looked at again.
      if (r.io == tls::Io::kRetry) continue;
      if (r.io == tls::Io::kClosed) {
        return server_.stopping_.load() ? Stop::kShutdown : Stop::kClosed;
      }
      k = static_cast<ssize_t>(r.bytes);
    } else {
      k = recv(fd_, chunk, sizeof chunk, 0);
      if (k < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (k <= 0) return server_.stopping_.load() ? Stop::kShutdown : Stop::kClosed;
    }
    in_.append(chunk, static_cast<size_t>(k));
    return Stop::kNone;
  }
}

void Connection::SetReceiveTimeout(std::chrono::milliseconds wait) {
  // A timeout a little shorter than the wait only wakes the loop above once more: it is kept,
  // which spares a system call per message.
  const auto now = receive_timeout_;
  if (now == wait ||
      (wait.count() > 0 && now.count() > 0 && now <= wait && now * 2 >= wait)) {
    return;
  }
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(wait.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((wait.count() % 1000) * 1000);
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  receive_timeout_ = wait;
}

Stop Connection::Flush() {
  size_t sent = 0;
  while (ssl_ != nullptr && sent < out_.size()) {
    const tls::IoResult r = ssl_->Write(out_.data() + sent, out_.size() - sent);
    if (r.io == tls::Io::kRetry) {
      if (server_.stopping_.load()) break;
      continue;
    }
    if (r.io == tls::Io::kClosed) {
      out_.clear();
      return Stop::kClosed;
    }
    sent += r.bytes;
  }
  while (ssl_ == nullptr && sent < out_.size()) {
    const ssize_t k = send(fd_, out_.data() + sent, out_.size() - sent, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && errno == EAGAIN) {
      pollfd fds[2] = {{fd_, POLLOUT, 0}, {server_.stop_pipe_[0], POLLIN, 0}};
      poll(fds, 2, -1);
      if (fds[1].revents != 0) {
        out_.clear();
        return Stop::kShutdown;
      }
      continue;
    }
    if (k <= 0) {
      out_.clear();
      return Stop::kClosed;
    }
    sent += static_cast<size_t>(k);
  }
  out_.clear();
  return Stop::kNone;
}

bool Connection::Startup() {
  const auto timeout = server_.options_.message_timeout;
  for (int round = 0; round < 3; ++round) {
    char head[4];
    if (ReadExact(head, 4, timeout) != Stop::kNone) return false;
    auto length = StartupLength(std::string_view(head, 4), kMaxStartupBytes);
    if (!length.ok()) {
      Fatal("08P01", length.status().message());
      return false;
    }
    std::string body(*length - 4, '\0');
    if (ReadExact(body.data(), body.size(), timeout) != Stop::kNone) return false;
    auto packet = DecodeStartup(body);
    if (!packet.ok()) {
      Fatal(packet.status().message().rfind("unsupported", 0) == 0 ? "0A000" : "08P01",
            packet.status().message());
      return false;
    }
    switch (packet->kind) {
      case StartupPacket::Kind::kSsl:
        if (server_.tls_ != nullptr && ssl_ == nullptr) {
          if (in_at_ < in_.size()) {
            // Bytes sent in the clear before the handshake must not pass for encrypted ones.
            Fatal("08P01", "protocol violation: data after the SSLRequest before the TLS handshake");
            return false;
          }
          out_ += 'S';
          if (Flush() != Stop::kNone || !StartTls()) return false;
          continue;
        }
        if (ssl_ != nullptr) {
          Fatal("08P01", "protocol violation: SSLRequest inside TLS");
          return false;
        }
        out_ += 'N';  // no certificate: the client goes on in the clear or gives up
        if (Flush() != Stop::kNone) return false;
        continue;
      case StartupPacket::Kind::kGssEnc:
        out_ += 'N';  // no Kerberos
        if (Flush() != Stop::kNone) return false;
        continue;
      case StartupPacket::Kind::kCancel:
        server_.Cancel(packet->process_id, packet->secret_key);
        return false;  // a cancel gets no answer: the connection just closes
      case StartupPacket::Kind::kStartup: break;
    }
    user_ = packet->Parameter("user");
    database_ = packet->Parameter("database");
    if (database_.empty()) database_ = user_;
    if (user_.empty()) {
      Fatal("28000", "no PostgreSQL user name specified in startup packet");
      return false;
    }
    // `options` (-c name=value) may carry client settings; those hop does not do are refused.
    const std::string options = packet->Parameter("options");
    for (const auto& [name, setting] : StartupOptionSettings(options)) {
      const ClientSetting* s = FindClientSetting(name);
      const std::string value = AsciiToLower(setting);
      if (s == nullptr && IsHopSetting(name)) {
        startup_hop_settings_.emplace_back(name, setting);
        continue;
      }
      if (s == nullptr) {
        Fatal("42704", fmt::format("unrecognized configuration parameter \"{}\" in options "
                                   "(hop accepts the settings docs/pgwire.md lists)",
                                   name));
        return false;
      }
      if (s->accepts != nullptr && !s->accepts(value)) {
        Fatal("22023", fmt::format("hop only does {} = {}", s->name, s->does));
        return false;
      }
      if (EqualsIgnoreCase(s->name, "application_name")) {
        pg_.application_name = setting;
      } else if (EqualsIgnoreCase(s->name, "timezone")) {
        pg_.timezone = std::string(*UtcZoneName(value));
      } else if (TimeoutSetting(s->name) != nullptr) {
        if (Status set = SetTimeoutSetting(s->name, setting); !set.ok()) {
          Fatal("22023", set.message());
          return false;
        }
      } else if (s->accepts == nullptr) {
        pg_.client_values[s->name] = setting;
      }
    }
    // The packet's own parameters come after `options`, and win over them, as in PostgreSQL.
    for (const auto& [k, v] : packet->parameters) {
      const ClientSetting* s = FindClientSetting(k);
      if (s == nullptr && IsHopSetting(k)) startup_hop_settings_.emplace_back(k, v);
      if (s != nullptr && s->accepts != nullptr && !s->accepts(AsciiToLower(v))) {
        Fatal("22023", fmt::format("hop only does {} = {}", s->name, s->does));
        return false;
      }
      if (s != nullptr && EqualsIgnoreCase(s->name, "application_name")) {
        pg_.application_name = v;
      } else if (s != nullptr && EqualsIgnoreCase(s->name, "timezone")) {
        pg_.timezone = std::string(*UtcZoneName(AsciiToLower(v)));
      } else if (s != nullptr && TimeoutSetting(s->name) != nullptr) {
        if (Status set = SetTimeoutSetting(s->name, v); !set.ok()) {
          Fatal("22023", set.message());
          return false;
        }
      } else if (s != nullptr && s->accepts == nullptr && s->name != "application_name") {
        pg_.client_values[s->name] = v;
      }
    }
    return true;
  }
  Fatal("08P01", "too many SSL or GSSENC requests");
  return false;
}

bool Connection::StartTls() {
  // Reads and writes time out after a second, so that a TLS record that is not whole yet
  // returns to the loops that watch the message timeout and the server's stop.
  timeval tv{1, 0};
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  receive_timeout_ = std::chrono::seconds(1);
  auto session = tls::Session::Over(server_.tls_, fd_);
  if (!session.ok()) return false;
  ssl_ = std::move(*session);
  const auto deadline = std::chrono::steady_clock::now() + server_.options_.message_timeout;
  for (;;) {
    const tls::Io r = ssl_->Accept();
    if (r == tls::Io::kOk) return true;
    if (r == tls::Io::kClosed || std::chrono::steady_clock::now() > deadline ||
        server_.stopping_.load()) {
      return false;  // nothing can be said to a client whose handshake failed
    }
  }
}

Result<std::string> Connection::ReadPasswordMessage() {
  const auto timeout = server_.options_.message_timeout;
  char head[5];
  if (ReadExact(head, 5, timeout) != Stop::kNone) {
    return Status::Unavailable("the client went away during authentication");
  }
  if (head[0] != 'p') {
    return Status::InvalidArgument(
        fmt::format("protocol violation: expected a password message, got '{}'", head[0]));
  }
  HOP_ASSIGN_OR_RETURN(uint32_t n, MessageBodyLength(std::string_view(head + 1, 4), 65536));
  std::string body(n, '\0');
  if (ReadExact(body.data(), n, timeout) != Stop::kNone) {
    return Status::Unavailable("the client went away during authentication");
  }
  return body;
}

bool Connection::Authenticate(const std::string& user) {
  const AuthMethod method = server_.options_.auth;
  Writer w(out_);
  if (method == AuthMethod::kTrust) {
    // Trust is for loopback only, and loopback is open to every user of the machine: only the
    // one hop serve runs as gets in without a password (docs/pgwire.md).
    const uid_t local_user = server_.options_.loopback_user.value_or(geteuid());
    const auto owner = LoopbackPeerUid(fd_);
    if (!owner.ok() || *owner != local_user) {
      Fatal("28000",
            fmt::format("trust authentication admits only the user hop serve runs as (uid {}), "
                        "and {}; for other users, hop serve needs --pg-auth scram-sha-256 and "
                        "--pg-users",
                        local_user,
                        owner.ok() ? "this connection is not theirs"
                                   : "hop serve cannot tell whose connection this is (" +
                                         owner.status().message() + ")"));
      return false;
    }
    w.Begin('R').Int32(0).End();
    return true;
  }
  const PgUser* known = server_.users_ ? server_.users_->Find(user) : nullptr;
  const std::string failed = fmt::format("password authentication failed for user \"{}\"", user);
  auto fail = [&](const Status& st) {
    if (st.code() == StatusCode::kUnavailable) return false;
    Fatal(st.message().rfind("protocol violation", 0) == 0 ? "08P01" : "28P01",
          st.message().rfind("protocol violation", 0) == 0 ? st.message() : failed);
    return false;
  };
  if (method == AuthMethod::kPassword) {
    w.Begin('R').Int32(3).End();
    if (Flush() != Stop::kNone) return false;
    auto body = ReadPasswordMessage();
    if (!body.ok()) return fail(body.status());
    auto password = DecodePassword(*body);
    if (!password.ok()) return fail(password.status());
    bool ok = false;
    if (known != nullptr && known->scram) ok = known->scram->Matches(*password);
    if (!ok && known != nullptr && !known->md5.empty()) {
      ok = digest::ConstantTimeEqual(Md5Hash(*password, user), known->md5);
    }
    if (!ok) return fail(Status::InvalidArgument(failed));
  } else if (method == AuthMethod::kMd5) {
    const std::string salt = RandomBytes(4);
    w.Begin('R').Int32(5).Bytes(salt).End();
    if (Flush() != Stop::kNone) return false;
    auto body = ReadPasswordMessage();
    if (!body.ok()) return fail(body.status());
    auto response = DecodePassword(*body);
    if (!response.ok()) return fail(response.status());
    if (known == nullptr || known->md5.empty() ||
        !digest::ConstantTimeEqual(Md5Response(known->md5, salt), *response)) {
      return fail(Status::InvalidArgument(failed));
    }
  } else {
    w.Begin('R').Int32(10).CString("SCRAM-SHA-256").Int8(0).End();
    if (Flush() != Stop::kNone) return false;
    ScramExchange scram(known != nullptr && known->scram ? &*known->scram : nullptr);
    auto body = ReadPasswordMessage();
    if (!body.ok()) return fail(body.status());
    auto initial = DecodeSaslInitial(*body);
    if (!initial.ok()) return fail(initial.status());
    if (initial->first != "SCRAM-SHA-256") {
      Fatal("28000", fmt::format("SASL mechanism {} is not offered", initial->first));
      return false;
    }
    auto server_first = scram.First(initial->second);
    if (!server_first.ok()) {
      Fatal("08P01", server_first.status().message());
      return false;
    }
    w.Begin('R').Int32(11).Bytes(*server_first).End();
    if (Flush() != Stop::kNone) return false;
    auto final_body = ReadPasswordMessage();
    if (!final_body.ok()) return fail(final_body.status());
    auto server_final = scram.Final(*final_body);
    if (!server_final.ok()) return fail(Status::InvalidArgument(failed));
    w.Begin('R').Int32(12).Bytes(*server_final).End();
  }
  w.Begin('R').Int32(0).End();
  return true;
}

void Connection::ReadyForQuery() {
  // PostgreSQL tells of a reported setting whose value changed (by SET, or back at a
  // transaction's end) before ReadyForQuery.
  if (pg_.application_name != reported_application_name_) {
    Writer(out_).Begin('S').CString("application_name").CString(pg_.application_name).End();
    reported_application_name_ = pg_.application_name;
  }
  if (pg_.timezone != reported_timezone_) {
    Writer(out_).Begin('S').CString("TimeZone").CString(pg_.timezone).End();
    reported_timezone_ = pg_.timezone;
  }
  Writer(out_).Begin('Z').Int8(static_cast<uint8_t>(transaction_)).End();
}

void Connection::ApplySettings(const Settings& settings) {
  session_->RestoreSettings(settings.hop);
  pg_ = settings.pg;
}

SettingsScope& Connection::OpenSettingsScope() {
  if (!settings_scope_) {
    Settings now = CurrentSettings();
    settings_scope_ = SettingsScope{now, now};
  }
  return *settings_scope_;
}

void Connection::EndSettingsScope(bool commit) {
  if (!settings_scope_) return;
  ApplySettings(commit ? settings_scope_->kept : settings_scope_->begin);
  settings_scope_.reset();
}

void Connection::SettingsAfterError() {
  if (transaction_ == 'I') {
    EndSettingsScope(/*commit=*/false);
    return;
  }
  SettingsBackTo(savepoints_.empty() ? nullptr : &savepoints_.back());
}

void Connection::SettingsBackTo(const Savepoint* savepoint) {
  if (!settings_scope_) return;  // nothing was set in the transaction
  if (savepoint != nullptr && savepoint->settings) {
    ApplySettings(savepoint->settings->begin);
    settings_scope_->kept = savepoint->settings->kept;
  } else {
    // Its start (a savepoint made before any setting changed is at the start too).
    ApplySettings(settings_scope_->begin);
    settings_scope_->kept = settings_scope_->begin;
  }
}

void Connection::Run() {
  if (!Startup()) return;
  if (!Authenticate(user_)) return;
  session::Properties props = server_.options_.properties;
  props.budget.cancel = &cancel_;
  props.user = user_;  // CURRENT_USER: the startup packet's user, as PostgreSQL's session user
  session_ = std::make_unique<session::Session>(server_.store_, std::move(props));
  // hop's own settings from the startup packet, as SET would give them; they are the
  // connection's starting values, which RESET goes back to.
  for (const auto& [name, value] : startup_hop_settings_) {
    if (Status set = session_->Set(name, value); !set.ok()) {
      Fatal("22023", set.message());
      return;
    }
  }
  startup_hop_ = session_->properties();
  Writer w(out_);
  const std::pair<std::string_view, std::string> params[] = {
      {"server_version", ServerVersion()},
      {"server_encoding", "UTF8"},
      {"client_encoding", "UTF8"},
      {"DateStyle", "ISO, MDY"},
      {"TimeZone", pg_.timezone},
      {"IntervalStyle", "postgres"},
      {"integer_datetimes", "on"},
      {"standard_conforming_strings", "on"},
      {"is_superuser", "off"},
      {"session_authorization", user_},
      {"application_name", pg_.application_name},
  };
  reported_application_name_ = pg_.application_name;
  reported_timezone_ = pg_.timezone;
  startup_pg_ = pg_;
  for (const auto& [k, v] : params) w.Begin('S').CString(k).CString(v).End();
  w.Begin('K').Int32(pid_).Int32(secret_).End();
  ReadyForQuery();
  if (Flush() != Stop::kNone) return;

  const PgServerOptions& o = server_.options_;
  std::string body;
  for (;;) {
    char head[5];
    // Waiting for a message is idle time, and in a transaction idle_in_transaction_session_timeout
    // applies beside --pg-idle-timeout (the sooner ends it); the rest of a message must come
    // promptly.
    const std::chrono::milliseconds in_transaction =
        IdleInTransaction() ? pg_.idle_in_transaction_timeout : std::chrono::milliseconds(0);
    std::chrono::milliseconds idle = o.idle_timeout;
    if (in_transaction.count() > 0 && (idle.count() == 0 || in_transaction < idle)) {
      idle = in_transaction;
    }
    Stop s = ReadExact(head, 1, idle);
    if (s == Stop::kTimeout && in_transaction.count() > 0 && idle == in_transaction) {
      // Its portals' cursors, and with them its read of the local tables' files, go before it
      // is told (the session goes with the connection).
      portals_.clear();
      Fatal("25P03", "terminating connection due to idle-in-transaction timeout");
      return;
    }
    if (s == Stop::kTimeout) {
      Fatal("57P05", "terminating connection due to idle-session timeout");
      return;
    }
    if (s == Stop::kNone) s = ReadExact(head + 1, 4, o.message_timeout);
    if (s == Stop::kTimeout) {
      MessageTimedOut();
      return;
    }
    if (s == Stop::kShutdown) {
      Fatal("57P01", kAdminShutdown);
      return;
    }
    if (s != Stop::kNone) return;
    auto length = MessageBodyLength(std::string_view(head + 1, 4), o.max_message_bytes);
    if (!length.ok()) {
      Fatal("08P01", length.status().message());
      return;
    }
    body.assign(*length, '\0');
    s = ReadExact(body.data(), body.size(), o.message_timeout);
    if (s == Stop::kTimeout) MessageTimedOut();
    if (s == Stop::kShutdown) Fatal("57P01", kAdminShutdown);
    if (s != Stop::kNone) return;
    const char type = head[0];
    if (type == 'X') return;  // Terminate
    if (skip_to_sync_ && type != 'S') continue;
    Status st;
    switch (type) {
      case 'Q': {
        auto query = DecodeQuery(body);
        if (!query.ok()) {
          Fatal("08P01", query.status().message());
          return;
        }
        SimpleQuery(*query);
        if (terminated_) {
          Flush();
          return;
        }
        // A Query outside a block is a transaction of its own.
        if (transaction_ == 'I') EndSettingsScope(/*commit=*/true);
        ReadyForQuery();
        break;
      }
      case 'P': st = ParseMsg(body); break;
      case 'B': st = BindMsg(body); break;
      case 'D': st = DescribeMsg(body); break;
      case 'E': st = ExecuteMsg(body); break;
      case 'C': st = CloseMsg(body); break;
      case 'H': break;  // Flush: the writes below send what there is
      case 'S':
        skip_to_sync_ = false;
        // Outside a transaction block a Sync ends the implicit one: unnamed portals go, and what
        // SET LOCAL set.
        if (transaction_ == 'I') {
          EndSettingsScope(/*commit=*/true);
          DropCursors();
          portals_.clear();
        }
        ReadyForQuery();
        break;
      case 'd':
      case 'c':
      case 'f':
        // CopyData, CopyDone, CopyFail: hop never starts a COPY (the statement is refused), so
        // these come only from a client still sending a refused COPY's data, and PostgreSQL
        // ignores them outside a COPY (docs/pgwire.md).
        break;
      case 'F':
        // FunctionCall is a message of the simple protocol: PostgreSQL answers it at once, with
        // no Sync, and so does hop, with its refusal and ReadyForQuery.
        SendError(Status::InvalidArgument(fmt::format(
            "{} (FunctionCall message); call the function in a query instead (SELECT f(...))",
            kNoFunctionCall)));
        if (terminated_) {
          Flush();
          return;
        }
        SettingsAfterError();
        if (transaction_ == 'T') transaction_ = 'E';
        if (transaction_ == 'I') {
          EndSettingsScope(/*commit=*/true);
          DropCursors();
          portals_.clear();
        }
        ReadyForQuery();
        break;
      default:
        Fatal("08P01", fmt::format("protocol violation: unknown message type '{}' (0x{:02x})",
                                   std::isprint(static_cast<unsigned char>(type)) ? type : '?',
                                   static_cast<unsigned char>(type)));
        return;
    }
    if (!st.ok()) {
      if (st.message().rfind("protocol violation", 0) == 0) {
        Fatal("08P01", st.message());
        return;
      }
      SendError(st);
      if (terminated_) {
        Flush();
        return;
      }
      skip_to_sync_ = true;
      SettingsAfterError();
      if (transaction_ == 'T') transaction_ = 'E';
    }
    // The extended protocol's replies wait for Sync or Flush, as PostgreSQL's do: one write per
    // round trip.
    const bool reply =
        type == 'Q' || type == 'S' || type == 'H' || type == 'F' || out_.size() >= kSendChunk;
    if (reply && Flush() != Stop::kNone) return;
  }
}

void Connection::ArmTimer() {
  if (pg_.statement_timeout.count() == 0) return;
  {
    std::lock_guard<std::mutex> lock(timer_mu_);
    timer_deadline_ = std::chrono::steady_clock::now() + pg_.statement_timeout;
  }
  if (!timer_.joinable()) {
    timer_ = std::thread([this] { TimerLoop(); });
  } else {
    timer_cv_.notify_all();
  }
}

void Connection::DisarmTimer() {
  if (!timer_.joinable()) return;
  std::lock_guard<std::mutex> lock(timer_mu_);
  timer_deadline_ = std::chrono::steady_clock::time_point::max();
}

void Connection::TimerLoop() {
  std::unique_lock<std::mutex> lock(timer_mu_);
  while (!timer_stop_) {
    if (timer_deadline_ == std::chrono::steady_clock::time_point::max()) {
      timer_cv_.wait(lock);
    } else if (std::chrono::steady_clock::now() >= timer_deadline_) {
      timed_out_.store(true);
      cancel_.store(true);
      timer_deadline_ = std::chrono::steady_clock::time_point::max();
    } else {
      timer_cv_.wait_until(lock, timer_deadline_);
    }
  }
}

std::chrono::milliseconds* Connection::TimeoutSetting(std::string_view name) {
  if (EqualsIgnoreCase(name, "statement_timeout")) return &pg_.statement_timeout;
  if (EqualsIgnoreCase(name, "idle_in_transaction_session_timeout")) {
    return &pg_.idle_in_transaction_timeout;
  }
  return nullptr;
}

Status Connection::SetTimeoutSetting(std::string_view name, std::string_view value) {
  std::chrono::milliseconds* setting = TimeoutSetting(name);
  if (EqualsIgnoreCase(value, "DEFAULT")) {
    *setting = setting == &pg_.statement_timeout ? std::chrono::milliseconds(0)
                                                 : server_.options_.idle_in_transaction_timeout;
    return Status::OK();
  }
  HOP_ASSIGN_OR_RETURN(*setting, ParseTimeoutSetting(name, value));
  return Status::OK();
}

bool Connection::IdleInTransaction() const {
  if (transaction_ != 'I') return true;
  for (const auto& [name, portal] : portals_) {
    if (portal.pending && portal.pending->cursor) return true;
  }
  return false;
}

void Connection::SendError(const Status& st, std::string_view query, size_t offset) {
  ErrorFields f = ErrorOf(st, query, offset);
  const bool cancelled = cancel_.load() && st.code() == StatusCode::kExecution &&
                         st.message().find("was cancelled") != std::string::npos;
  if (cancelled && server_.stopping_.load()) {
    // The server's stop cancelled it: as in PostgreSQL, the statement's error is the end of the
    // session, FATAL 57P01, and nothing follows it.
    f = ErrorFields{};
    f.severity = "FATAL";
    f.sqlstate = "57P01";
    f.message = std::string(kAdminShutdown);
    terminated_ = true;
  } else if (cancelled) {
    // A CancelRequest or the statement_timeout timer stopped it: PostgreSQL's query_canceled,
    // with its words for which.
    f.sqlstate = "57014";
    f.message = timed_out_.load() ? "canceling statement due to statement timeout"
                                  : "canceling statement due to user request";
    f.detail.clear();
  }
  if (st.message().rfind(kAborted, 0) == 0) f.sqlstate = "25P02";  // in_failed_sql_transaction
  if (st.message().rfind(kNoSavepoint, 0) == 0) f.sqlstate = "3B001";  // invalid_savepoint_name
  if (st.message().find(kNotInBlock) != std::string::npos) {
    f.sqlstate = "25P01";  // no_active_sql_transaction
  }
  if (st.message().rfind(kPlanChanged, 0) == 0) f.sqlstate = "0A000";  // feature_not_supported
  if (st.message().find(kNoTwoPhase) != std::string::npos) f.sqlstate = "0A000";
  if (st.message().rfind(kNoCopy, 0) == 0) f.sqlstate = "0A000";
  if (st.message().rfind(kNoFunctionCall, 0) == 0) f.sqlstate = "0A000";
  WriteError(out_, f);
}

void Connection::DropCursors() {
  for (auto& [name, portal] : portals_) {
    if (portal.pending && portal.pending->cursor) {
      portal.pending->cursor.reset();
      portal.closed = true;
    }
  }
}

namespace {

// The words of `text` in upper case when it holds words only; empty otherwise.
std::vector<std::string> UpperWords(std::string_view text) {
  std::vector<sql::Token> tokens;
  std::vector<std::string> words;
  if (!sql::Tokenize(text, {}, &tokens).ok()) return {};
  for (const sql::Token& t : tokens) {
    if (t.type == sql::TokenType::kEnd) break;
    if (t.type != sql::TokenType::kWord) return {};
    words.push_back(AsciiToUpper(text.substr(t.offset, t.length)));
  }
  return words;
}

enum class TxWord { kNone, kBegin, kCommit, kRollback, kSavepoint, kRelease, kRollbackTo };

struct TxStatement {
  TxWord word = TxWord::kNone;
  std::string savepoint;  // of SAVEPOINT, RELEASE and ROLLBACK TO
  bool chain = false;     // COMMIT or ROLLBACK ... AND CHAIN: a new block begins at once
};

// The transaction control statement `text` is, if it is one: BEGIN, START TRANSACTION, COMMIT,
// END, ROLLBACK, ABORT, SAVEPOINT name, RELEASE [SAVEPOINT] name, ROLLBACK [WORK | TRANSACTION]
// TO [SAVEPOINT] name. A savepoint's name is a word (folded to lower case, as PostgreSQL folds
// it) or a quoted identifier.
TxStatement TransactionStatement(std::string_view text) {
  std::vector<sql::Token> tokens;
  if (!sql::Tokenize(text, {}, &tokens).ok()) return {};
  std::vector<std::string> words;  // upper case; "" for a quoted identifier
  std::vector<std::string> names;  // as a savepoint's name
  for (const sql::Token& t : tokens) {
    if (t.type == sql::TokenType::kEnd) break;
    if (t.type == sql::TokenType::kWord) {
      words.push_back(AsciiToUpper(text.substr(t.offset, t.length)));
      names.push_back(AsciiToLower(text.substr(t.offset, t.length)));
    } else if (t.type == sql::TokenType::kQuotedIdentifier) {
      words.emplace_back();
      names.push_back(sql::UnquoteToken(text, t));
    } else {
      return {};
    }
  }
  if (words.empty()) return {};
  const std::string& w = words[0];
  // The savepoint named by the last word, after `first` words (and an optional SAVEPOINT).
  auto named = [&](TxWord word, size_t first) -> TxStatement {
    if (first < words.size() && words[first] == "SAVEPOINT") ++first;
    if (first + 1 != words.size()) return {};
    return {word, names[first]};
  };
  if (w == "BEGIN" || (w == "START" && words.size() > 1 && words[1] == "TRANSACTION")) {
    return {TxWord::kBegin, {}};
  }
  // ... AND CHAIN (not AND NO CHAIN) at the end of a COMMIT or ROLLBACK.
  const bool chain =
      words.size() >= 3 && words[words.size() - 2] == "AND" && words.back() == "CHAIN";
  if (w == "COMMIT" || w == "END") return {TxWord::kCommit, {}, chain};
  if (w == "SAVEPOINT")
    return words.size() == 2 ? TxStatement{TxWord::kSavepoint, names[1]} : TxStatement{};
  if (w == "RELEASE") return named(TxWord::kRelease, 1);
  if (w == "ROLLBACK") {
    size_t i = 1;
    if (i < words.size() && (words[i] == "WORK" || words[i] == "TRANSACTION")) ++i;
    if (i < words.size() && words[i] == "TO") return named(TxWord::kRollbackTo, i + 1);
    return {TxWord::kRollback, {}, chain};
  }
  if (w == "ABORT") return {TxWord::kRollback, {}, chain};
  return {};
}

}  // namespace

namespace {

// PREPARE TRANSACTION, COMMIT PREPARED or ROLLBACK PREPARED (what follows is not read): the
// statement's first two words, else empty.
std::string TwoPhaseStatement(std::string_view text) {
  std::vector<sql::Token> tokens;
  if (!sql::Tokenize(text, {}, &tokens).ok() || tokens.size() < 2) return {};
  if (tokens[0].type != sql::TokenType::kWord || tokens[1].type != sql::TokenType::kWord) {
    return {};
  }
  const std::string first = AsciiToUpper(text.substr(tokens[0].offset, tokens[0].length));
  const std::string second = AsciiToUpper(text.substr(tokens[1].offset, tokens[1].length));
  if ((first == "PREPARE" && second == "TRANSACTION") ||
      ((first == "COMMIT" || first == "ROLLBACK") && second == "PREPARED")) {
    return first + " " + second;
  }
  return {};
}

// A COPY statement (whatever follows COPY: hop supports none of its forms) refused: 0A000 with
// what to use instead; OK for any other statement.
Status RefuseCopy(std::string_view text) {
  std::vector<sql::Token> tokens;
  if (!sql::Tokenize(text, {}, &tokens).ok() || tokens.empty()) return Status::OK();
  if (tokens[0].type != sql::TokenType::kWord ||
      AsciiToUpper(text.substr(tokens[0].offset, tokens[0].length)) != "COPY") {
    return Status::OK();
  }
  return Status::InvalidArgument(fmt::format(
      "{} (neither FROM STDIN nor TO STDOUT, nor a file or a program); add rows with INSERT "
      "INTO ... VALUES or INSERT INTO ... SELECT, and read them with SELECT",
      kNoCopy));
}

}  // namespace

bool Connection::IsTransactionControl(std::string_view text) {
  return TransactionStatement(text).word != TxWord::kNone;
}

std::optional<Status> Connection::TransactionControl(std::string_view text, Pending& p) {
  const TxStatement statement = TransactionStatement(text);
  const TxWord word = statement.word;
  if (word == TxWord::kNone) return std::nullopt;
  // Words after the first (WORK, TRANSACTION, ISOLATION LEVEL ..., READ ONLY) change nothing
  // here: every statement of hop commits by itself as it runs.
  if (word == TxWord::kBegin) {
    if (transaction_ != 'I') {
      p.notices.emplace_back("WARNING", "there is already a transaction in progress");
    }
    transaction_ = 'T';
    block_wrote_ = false;
    block_writes_ = 0;
    savepoints_.clear();
    p.tag = "BEGIN";
    return Status::OK();
  }
  if (word == TxWord::kSavepoint || word == TxWord::kRelease || word == TxWord::kRollbackTo) {
    const char* what = word == TxWord::kSavepoint ? "SAVEPOINT"
                       : word == TxWord::kRelease ? "RELEASE SAVEPOINT"
                                                  : "ROLLBACK TO SAVEPOINT";
    if (transaction_ == 'I') {
      return Status::InvalidArgument(fmt::format("{} {}", what, kNotInBlock));
    }
    if (transaction_ == 'E' && word != TxWord::kRollbackTo) {
      return Status::InvalidArgument(std::string(kAborted));
    }
    if (word == TxWord::kSavepoint) {
      std::optional<SettingsScope> settings;
      if (settings_scope_) settings = SettingsScope{CurrentSettings(), settings_scope_->kept};
      savepoints_.push_back({statement.savepoint, block_writes_, std::move(settings)});
      p.tag = "SAVEPOINT";
      return Status::OK();
    }
    auto it = std::find_if(savepoints_.rbegin(), savepoints_.rend(),
                           [&](const Savepoint& s) { return s.name == statement.savepoint; });
    if (it == savepoints_.rend()) {
      return Status::InvalidArgument(
          fmt::format("{} \"{}\" does not exist", kNoSavepoint, statement.savepoint));
    }
    if (word == TxWord::kRelease) {
      savepoints_.erase(std::next(it).base(), savepoints_.end());
      p.tag = "RELEASE";
      return Status::OK();
    }
    // ROLLBACK TO: the block goes on (out of its failed state), with this savepoint kept.
    if (block_writes_ > it->writes) {
      p.notices.emplace_back("WARNING",
                             "hop's statements took effect as each one ran: ROLLBACK TO "
                             "SAVEPOINT undid nothing (docs/pgwire.md)");
    }
    // What was SET since the savepoint is undone, as in PostgreSQL.
    SettingsBackTo(&*it);
    savepoints_.erase(it.base(), savepoints_.end());
    transaction_ = 'T';
    p.tag = "ROLLBACK";
    return Status::OK();
  }
  const bool commit = word == TxWord::kCommit;
  if (statement.chain && transaction_ == 'I') {
    return Status::InvalidArgument(
        fmt::format("{} AND CHAIN {}", commit ? "COMMIT" : "ROLLBACK", kNotInBlock));
  }
  // A COMMIT of a failed block is a ROLLBACK, which undoes nothing either.
  if ((!commit || transaction_ == 'E') && block_wrote_) {
    p.notices.emplace_back(
        "WARNING",
        "hop's statements took effect as each one ran: ROLLBACK undid nothing (docs/pgwire.md)");
  }
  if (transaction_ == 'I') {
    p.notices.emplace_back("WARNING", "there is no transaction in progress");
  }
  p.tag = commit && transaction_ != 'E' ? "COMMIT" : "ROLLBACK";
  // SET LOCAL's values end with the transaction; a ROLLBACK undoes its SETs too (docs/pgwire.md,
  // "Settings").
  EndSettingsScope(commit && transaction_ != 'E');
  transaction_ = 'I';
  savepoints_.clear();
  if (statement.chain) {  // as BEGIN, with the settings as the ended block left them
    transaction_ = 'T';
    block_wrote_ = false;
    block_writes_ = 0;
  }
  return Status::OK();
}

std::optional<Status> Connection::Deallocate(std::string_view text, Pending& p, bool apply) {
  std::vector<sql::Token> tokens;
  if (!sql::Tokenize(text, {}, &tokens).ok() || tokens.empty()) return std::nullopt;
  auto word = [&](size_t i, std::string_view w) {
    return i < tokens.size() && tokens[i].type == sql::TokenType::kWord &&
           EqualsIgnoreCase(text.substr(tokens[i].offset, tokens[i].length), w);
  };
  if (!word(0, "DEALLOCATE")) return std::nullopt;
  size_t i = word(1, "PREPARE") ? 2 : 1;
  const sql::Token& target = tokens[std::min(i, tokens.size() - 1)];
  if (i + 1 >= tokens.size() || tokens[i + 1].type != sql::TokenType::kEnd ||
      (target.type != sql::TokenType::kWord && target.type != sql::TokenType::kQuotedIdentifier)) {
    return Status::ParseError("DEALLOCATE takes one prepared statement's name, or ALL");
  }
  if (word(i, "ALL")) {
    if (apply) std::erase_if(statements_, [](const auto& s) { return !s.first.empty(); });
    p.tag = "DEALLOCATE ALL";
    return Status::OK();
  }
  // An unquoted name folds to lower case, as PostgreSQL folds it.
  const std::string name = target.type == sql::TokenType::kWord
                               ? AsciiToLower(text.substr(target.offset, target.length))
                               : sql::UnquoteToken(text, target);
  auto it = name.empty() ? statements_.end() : statements_.find(name);
  if (it == statements_.end()) {
    return Status::NotFound(fmt::format("prepared statement \"{}\" does not exist", name));
  }
  if (apply) statements_.erase(it);
  p.tag = "DEALLOCATE";
  return Status::OK();
}

std::optional<Status> Connection::ClientSettingStatement(std::string_view text, Pending& p,
                                                         bool apply) {
  std::vector<sql::Token> tokens;
  if (!sql::Tokenize(text, {}, &tokens).ok()) return std::nullopt;
  std::vector<std::string_view> words;
  std::vector<const sql::Token*> toks;
  for (const sql::Token& t : tokens) {
    if (t.type == sql::TokenType::kEnd) break;
    toks.push_back(&t);
    words.push_back(text.substr(t.offset, t.length));
  }
  if (words.size() < 2) return std::nullopt;
  const bool set = EqualsIgnoreCase(words[0], "SET");
  const bool show = EqualsIgnoreCase(words[0], "SHOW");
  if (!set && !show) return std::nullopt;
  size_t i = 1;
  if (set && i < words.size() &&
      (EqualsIgnoreCase(words[i], "SESSION") || EqualsIgnoreCase(words[i], "LOCAL"))) {
    ++i;
  }
  if (i >= words.size()) return std::nullopt;
  std::string name(words[i]);
  // SET TIME ZONE x is SET TimeZone = x, and SET TIME ZONE LOCAL (the word, not a string) is
  // SET TimeZone TO DEFAULT, as in PostgreSQL.
  bool time_zone = false;
  if (set && EqualsIgnoreCase(name, "TIME") && i + 1 < words.size() &&
      EqualsIgnoreCase(words[i + 1], "ZONE")) {
    name = "timezone";
    time_zone = true;
    ++i;
  }
  const ClientSetting* s = FindClientSetting(name);
  if (s == nullptr) {
    if (show && EqualsIgnoreCase(name, "server_version")) {
      p.has_rows = true;
      p.columns = {{"server_version", session::TextColumnType()}};
      p.table = {{ServerVersion()}};
      p.tag = "SHOW";
      return Status::OK();
    }
    return std::nullopt;  // hop's own settings, or an error from the session
  }
  if (show) {
    std::string value(s->does);
    if (EqualsIgnoreCase(s->name, "application_name")) {
      value = pg_.application_name;
    } else if (EqualsIgnoreCase(s->name, "timezone")) {
      value = pg_.timezone;
    } else if (const std::chrono::milliseconds* timeout = TimeoutSetting(s->name)) {
      value = FormatTimeoutSetting(*timeout);
    } else if (auto given = pg_.client_values.find(s->name); given != pg_.client_values.end()) {
      value = given->second;
    }
    p.has_rows = true;
    p.columns = {{std::string(s->name), session::TextColumnType()}};
    p.table = {{value}};
    p.tag = "SHOW";
    return Status::OK();
  }
  ++i;
  if (i < words.size() && (words[i] == "=" || EqualsIgnoreCase(words[i], "TO"))) ++i;
  if (i + 1 == words.size() && toks[i]->type == sql::TokenType::kWord &&
      (EqualsIgnoreCase(words[i], "DEFAULT") ||
       (time_zone && EqualsIgnoreCase(words[i], "LOCAL")))) {
    // Back to the value the connection started with, as PostgreSQL's RESET.
    if (apply) {
      Settings now = CurrentSettings();
      CopySettingValue(s->name, Settings{now.hop, startup_pg_}, now);
      pg_ = std::move(now.pg);
    }
    p.tag = "SET";
    return Status::OK();
  }
  std::string value;
  for (; i < words.size(); ++i) {
    std::string part = toks[i]->type == sql::TokenType::kString ? sql::UnquoteToken(text, *toks[i])
                                                                : std::string(words[i]);
    value += (value.empty() ? "" : " ") + part;
  }
  if (s->accepts != nullptr && !s->accepts(AsciiToLower(value))) {
    return Status::InvalidArgument(fmt::format(
        "hop only does {} = {}: '{}' would not be true of its results", s->name, s->does, value));
  }
  if (TimeoutSetting(s->name) != nullptr) {
    // Acted on: a statement running longer is cancelled (ArmTimer), a client idle in a
    // transaction longer is disconnected (Run).
    HOP_ASSIGN_OR_RETURN(std::chrono::milliseconds timeout, ParseTimeoutSetting(s->name, value));
    if (apply) *TimeoutSetting(s->name) = timeout;
  } else if (EqualsIgnoreCase(s->name, "application_name")) {
    // Reported to the client (ParameterStatus) before the next ReadyForQuery.
    if (apply) pg_.application_name = value;
  } else if (EqualsIgnoreCase(s->name, "timezone")) {
    // Named as PostgreSQL names it, and reported as application_name is.
    if (apply) pg_.timezone = std::string(*UtcZoneName(AsciiToLower(value)));
  } else if (s->accepts == nullptr && apply) {
    pg_.client_values[s->name] = value;
  }
  p.tag = "SET";
  return Status::OK();
}

std::optional<Status> Connection::SettingStatement(std::string_view text, Pending& p,
                                                   const SourceOrigin& origin, bool apply) {
  std::vector<sql::Token> tokens;
  if (!sql::Tokenize(text, {}, &tokens).ok()) return std::nullopt;
  while (!tokens.empty() && tokens.back().type == sql::TokenType::kEnd) tokens.pop_back();
  auto word = [&](size_t i, std::string_view w) {
    return i < tokens.size() && tokens[i].type == sql::TokenType::kWord &&
           EqualsIgnoreCase(text.substr(tokens[i].offset, tokens[i].length), w);
  };
  const bool set = word(0, "SET");
  if (!set && !word(0, "RESET")) return std::nullopt;
  // SET LOCAL and SET SESSION name a setting after the word, which hop's own SET does not
  // parse: it is blanked out, keeping the positions of errors.
  const bool scoped = set && tokens.size() > 2 && (word(1, "LOCAL") || word(1, "SESSION"));
  const bool local = scoped && word(1, "LOCAL");
  std::string plain(text);
  if (scoped) plain.replace(tokens[1].offset, tokens[1].length, tokens[1].length, ' ');
  // The setting's name: a PostgreSQL one the connection keeps, else hop's (as its parser reads
  // it); "all" for RESET ALL.
  const size_t at = scoped ? 2 : 1;
  std::string name;
  bool reset = false;  // RESET, or SET ... TO DEFAULT, of one of hop's settings
  const ClientSetting* client = nullptr;
  if (word(at, "TIME") && word(at + 1, "ZONE")) {
    client = FindClientSetting("timezone");
  } else if (at < tokens.size() && tokens[at].type == sql::TokenType::kWord) {
    client = FindClientSetting(text.substr(tokens[at].offset, tokens[at].length));
  }
  if (client != nullptr) {
    name = std::string(client->name);
  } else if (auto parsed = sql::ParseStatement(plain); parsed.ok()) {
    const sql::Statement& stmt = **parsed;
    if (stmt.kind == sql::StatementKind::kSet) {
      const auto& set_stmt = stmt.As<sql::SetStatement>();
      name = set_stmt.name;
      reset = set_stmt.value_kind == sql::SettingValueKind::kDefault;
    }
    if (stmt.kind == sql::StatementKind::kReset) {
      name = stmt.As<sql::ResetStatement>().name;
      if (name.empty()) name = "all";
      reset = true;
    }
  }
  if (!apply) {  // Describe: no rows; a value is judged when the statement runs
    if (client != nullptr && set) return ClientSettingStatement(text, p, /*apply=*/false);
    p.tag = set ? "SET" : "RESET";
    return Status::OK();
  }
  // PostgreSQL warns of a SET LOCAL outside a transaction block, where it lasts only until the
  // statement's implicit transaction ends (the Query message, or the extended protocol's Sync).
  if (local && transaction_ == 'I' && !implicit_block_) {
    p.notices.emplace_back("WARNING", fmt::format("SET LOCAL {}", kNotInBlock));
  }
  SettingsScope& scope = OpenSettingsScope();
  Status st;
  if (client != nullptr && set) {
    st = *ClientSettingStatement(text, p);
  } else if (client != nullptr) {
    // RESET of a PostgreSQL setting: back to the value the connection started with.
    Settings now = CurrentSettings();
    CopySettingValue(name, Settings{now.hop, startup_pg_}, now);
    pg_ = std::move(now.pg);
    p.tag = "RESET";
  } else {
    DropCursors();
    CaptureSink sink(p);
    st = session_->Execute(plain, /*is_command=*/false, sink, origin);
    if (st.ok() && reset) {
      // The session's RESET gave the built-in default: the connection's starting value (its
      // startup packet's) is the default here, as in PostgreSQL. RESET ALL resets
      // PostgreSQL's settings too.
      session::Properties now = session_->properties();
      session::CopySetting(name, startup_hop_, now);
      session_->RestoreSettings(now);
      if (name == "all") pg_ = startup_pg_;
    }
  }
  // A SET without LOCAL (and RESET) is what the transaction's COMMIT keeps.
  if (st.ok() && !local && !name.empty()) {
    CopySettingValue(name, CurrentSettings(), scope.kept);
  }
  return st;
}

Status Connection::Run(std::string_view text, Pending& p, const SourceOrigin& origin) {
  if (std::string two_phase = TwoPhaseStatement(text); !two_phase.empty()) {
    return Status::InvalidArgument(
        fmt::format("{} is not supported: {} (prepared transactions); each statement commits "
                    "by itself as it runs (docs/pgwire.md, \"Transactions\")",
                    two_phase, kNoTwoPhase));
  }
  if (auto handled = TransactionControl(text, p)) return *handled;
  if (transaction_ == 'E') {
    return Status::InvalidArgument(std::string(kAborted));
  }
  HOP_RETURN_IF_ERROR(RefuseCopy(text));
  if (auto handled = SettingStatement(text, p, origin)) return *handled;
  if (auto handled = ClientSettingStatement(text, p)) return *handled;
  if (auto handled = Deallocate(text, p)) return *handled;
  DropCursors();
  CaptureSink sink(p);
  Status st = session_->Execute(text, /*is_command=*/false, sink, origin);
  if (st.ok() && transaction_ == 'T' && !p.has_rows) {
    block_wrote_ = true;
    ++block_writes_;
  }
  return st;
}

void Connection::SendRowDescription(const std::vector<session::ResultColumn>& columns,
                                    const std::vector<int16_t>& formats) {
  Writer w(out_);
  w.Begin('T').Int16(static_cast<int16_t>(columns.size()));
  for (size_t i = 0; i < columns.size(); ++i) {
    const catalog::PgType t = catalog::PgTypeOf(columns[i].type);
    const int16_t format = formats.empty() ? 0 : formats.size() == 1 ? formats[0] : formats[i];
    // Named as pg_catalog names them (pg_catalog.md, "Names"): hop's `ID` is `id`, as a client
    // that wrote `SELECT id` expects of PostgreSQL.
    w.CString(binder::PgName(columns[i].name)).Int32(0).Int16(0);
    w.Int32(static_cast<int32_t>(t.oid));
    w.Int16(t.length).Int32(t.modifier).Int16(format);
  }
  w.End();
}

void Connection::SendNotices(Pending& p) {
  for (const auto& [severity, text] : p.notices) {
    ErrorFields f;
    f.severity = severity;
    f.sqlstate = severity == "WARNING" ? "01000" : "00000";
    // PostgreSQL's code for a statement that needs a transaction block outside one.
    if (text.find(kNotInBlock) != std::string::npos) f.sqlstate = "25P01";
    f.message = text;
    WriteError(out_, f, /*notice=*/true);
  }
  p.notices.clear();
}

Result<bool> Connection::SendRows(Pending& p, const std::vector<int16_t>& formats,
                                  int32_t max_rows) {
  const size_t n = p.columns.size();
  if (formats.size() > 1 && formats.size() != n) {
    return Status::InvalidArgument(
        fmt::format("Bind asked for {} result formats of {} columns", formats.size(), n));
  }
  std::vector<uint32_t> oids(n);
  std::vector<int16_t> fmt_of(n, 0);
  for (size_t i = 0; i < n; ++i) {
    oids[i] = catalog::PgTypeOf(p.columns[i].type).oid;
    fmt_of[i] = formats.empty() ? 0 : formats.size() == 1 ? formats[0] : formats[i];
    // A column hop cannot send in binary fails the statement before its first row.
    if (fmt_of[i] == 1 && p.cursor) HOP_RETURN_IF_ERROR(CheckPgBinary(oids[i]));
  }
  std::string cell;
  int32_t sent_now = 0;
  while (max_rows == 0 || sent_now < max_rows) {
    // A value that cannot be written takes its row's unfinished DataRow out of the stream, so
    // that the ErrorResponse follows whole messages.
    const size_t row_start = out_.size();
    auto row_failed = [&](Status st) {
      out_.resize(row_start);
      return st;
    };
    Writer w(out_);
    if (p.cursor) {
      HOP_ASSIGN_OR_RETURN(bool more, p.cursor->Next());
      if (!more) break;
      w.Begin('D').Int16(static_cast<int16_t>(n));
      for (size_t i = 0; i < n; ++i) {
        const int col = static_cast<int>(i);
        if (p.cursor->IsNull(col)) {
          w.Int32(-1);
          continue;
        }
        const engine::Value v = p.cursor->GetValue(col);
        const engine::Rep& rep = p.cursor->reps()[i];
        cell.clear();
        if (fmt_of[i] == 1) {
          if (Status st = AppendPgBinary(v, rep, oids[i], cell); !st.ok()) return row_failed(st);
        } else {
          engine::AppendPostgresText(v, rep, cell);
        }
        // What leaves the process never shows a secret (ARCHITECTURE.md §4.16).
        if (rep.kind == engine::RepKind::kText || rep.kind == engine::RepKind::kJson) {
          cell = RedactSecrets(cell);
        }
        w.Int32(static_cast<int32_t>(cell.size())).Bytes(cell);
      }
      w.End();
    } else {
      if (p.next_row >= p.table.size()) break;
      const auto& row = p.table[p.next_row++];
      w.Begin('D').Int16(static_cast<int16_t>(n));
      for (size_t i = 0; i < n; ++i) {
        if (i >= row.size() || !row[i]) {
          w.Int32(-1);
          continue;
        }
        cell.clear();
        if (fmt_of[i] == 1) {
          if (Status st = AppendPgBinaryText(*row[i], oids[i], cell); !st.ok()) {
            return row_failed(st);
          }
        } else {
          cell = *row[i];
        }
        w.Int32(static_cast<int32_t>(cell.size())).Bytes(cell);
      }
      w.End();
    }
    ++sent_now;
    ++p.sent;
    if (out_.size() >= kSendChunk && Flush() != Stop::kNone) {
      return Status::Unavailable("the client went away");
    }
  }
  if (max_rows != 0 && sent_now == max_rows) {
    // Rows may remain: the next one tells, but reading it would lose it, so a portal that
    // ends exactly at its limit says so on its next Execute.
    if (p.cursor || p.next_row < p.table.size()) return false;
  }
  p.done = true;
  p.cursor.reset();
  return true;
}

void Connection::SendComplete(const Pending& p) {
  std::string tag = p.tag;
  if (tag == "SELECT" || (p.has_rows && tag != "SHOW" && tag.rfind("INSERT", 0) != 0)) {
    tag = fmt::format("SELECT {}", p.sent);
  }
  Writer(out_).Begin('C').CString(tag).End();
}

void Connection::SimpleQuery(const std::string& query) {
  const std::vector<sql::ScriptItem> items = sql::SplitScript(query);
  // A query of only blanks, comments and semicolons.
  if (items.empty()) {
    Writer(out_).Begin('I').End();
    return;
  }
  // Several statements outside a block run as one implicit block, as in PostgreSQL.
  implicit_block_ = items.size() > 1;
  struct EndImplicit {
    bool& on;
    ~EndImplicit() { on = false; }
  } end_implicit{implicit_block_};
  for (const sql::ScriptItem& item : items) {
    Running running(*this);
    Pending p;
    const SourceOrigin origin{item.loc.line, item.loc.column, item.line_prefix};
    Status st;
    if (item.kind == sql::ScriptItem::Kind::kCommand) {
      // `!` commands, as in the shell (docs/pgwire.md).
      DropCursors();
      CaptureSink sink(p);
      st = session_->Execute(item.text, /*is_command=*/true, sink, origin);
    } else {
      st = Run(item.text, p, origin);
    }
    SendNotices(p);
    if (st.ok() && p.has_rows) {
      SendRowDescription(p.columns, {});
      auto rows = SendRows(p, {}, 0);
      if (!rows.ok()) st = rows.status();
    }
    if (!st.ok()) {
      if (st.code() == StatusCode::kUnavailable && st.message() == "the client went away") return;
      SendError(st, query, 0);
      SettingsAfterError();
      if (transaction_ == 'T') transaction_ = 'E';
      return;  // the rest of the message is not run, as PostgreSQL does
    }
    SendComplete(p);
    FlushIfFull();
  }
}

Status Connection::ParseMsg(std::string_view body) {
  HOP_ASSIGN_OR_RETURN(ParseMessage m, DecodeParse(body));
  Prepared prepared;
  HOP_ASSIGN_OR_RETURN(prepared.params, CountParameters(m.query));
  if (prepared.params > 65535) return Status::InvalidArgument("more than 65535 parameters");
  prepared.param_types = m.param_types;
  prepared.param_types.resize(
      static_cast<size_t>(std::max<int>(prepared.params, static_cast<int>(m.param_types.size()))),
      0);
  // A statement of several is refused, as PostgreSQL does in the extended protocol.
  const auto items = sql::SplitScript(m.query);
  if (items.size() > 1) {
    return Status::ParseError("cannot insert multiple commands into a prepared statement");
  }
  prepared.query = items.empty() ? std::string() : std::string(items[0].text);
  HOP_RETURN_IF_ERROR(RefuseCopy(prepared.query));
  if (!m.statement.empty() && statements_.count(m.statement) != 0) {
    return Status::AlreadyExists(
        fmt::format("prepared statement \"{}\" already exists", m.statement));
  }
  prepared.id = ++statement_ids_;
  statements_[m.statement] = std::move(prepared);
  Writer(out_).Begin('1').End();
  return Status::OK();
}

Status Connection::BindMsg(std::string_view body) {
  HOP_ASSIGN_OR_RETURN(BindMessage m, DecodeBind(body));
  auto it = statements_.find(m.statement);
  if (it == statements_.end()) {
    return Status::NotFound(fmt::format("prepared statement \"{}\" does not exist", m.statement));
  }
  const Prepared& prepared = it->second;
  if (m.params.size() != static_cast<size_t>(prepared.params)) {
    return Status::InvalidArgument(
        fmt::format("bind message supplies {} parameters, but prepared statement \"{}\" "
                    "requires {}",
                    m.params.size(), m.statement, prepared.params));
  }
  std::vector<BoundParameter> params(m.params.size());
  for (size_t i = 0; i < m.params.size(); ++i) {
    params[i].oid = prepared.param_types[i];
    params[i].format = m.param_formats.empty()       ? 0
                       : m.param_formats.size() == 1 ? m.param_formats[0]
                                                     : m.param_formats[i];
    params[i].value = std::move(m.params[i]);
  }
  Portal portal;
  portal.statement = m.statement;
  portal.statement_id = prepared.id;
  HOP_ASSIGN_OR_RETURN(portal.query, SubstituteParameters(prepared.query, params));
  portal.result_formats = std::move(m.result_formats);
  if (!m.portal.empty() && portals_.count(m.portal) != 0) {
    return Status::AlreadyExists(fmt::format("portal \"{}\" already exists", m.portal));
  }
  auto old = portals_.find(m.portal);
  if (old != portals_.end()) portals_.erase(old);
  portals_[m.portal] = std::move(portal);
  Writer(out_).Begin('2').End();
  return Status::OK();
}

namespace {

std::vector<uint32_t> TypesOf(const std::vector<session::ResultColumn>& columns) {
  std::vector<uint32_t> oids;
  oids.reserve(columns.size());
  for (const auto& c : columns) oids.push_back(catalog::PgTypeOf(c.type).oid);
  return oids;
}

}  // namespace

Status Connection::StartPortal(Portal& portal) {
  if (portal.pending) return Status::OK();
  portal.pending.emplace();
  if (portal.query.empty()) return Status::OK();
  Status st = Run(portal.query, *portal.pending, {});
  // What it warned of before it failed goes out before its error, as PostgreSQL sends a
  // notice when it is raised (SET LOCAL's outside a block, then the value's error).
  if (!st.ok()) SendNotices(*portal.pending);
  return st;
}

Status Connection::CheckDescribedColumns(Portal& portal) {
  auto statement = statements_.find(portal.statement);
  if (portal.described || !portal.pending || !portal.pending->has_rows ||
      statement == statements_.end() || statement->second.id != portal.statement_id ||
      !statement->second.result_types) {
    return Status::OK();
  }
  const std::vector<uint32_t>& told = *statement->second.result_types;
  const std::vector<uint32_t> types = TypesOf(portal.pending->columns);
  // A parameter is a literal of the statement hop runs, so a string's column may be CHAR at a
  // run where the Describe (of NULL parameters) said VARCHAR or unknown: alike as text.
  auto text = [](uint32_t oid) { return oid == 25 || oid == 1043 || oid == 1042 || oid == 705; };
  bool same = told.size() == types.size();
  for (size_t i = 0; same && i < types.size(); ++i) {
    same = told[i] == types[i] || (text(told[i]) && text(types[i])) || told[i] == 705;
  }
  if (same) return Status::OK();
  portal.pending->cursor.reset();
  portal.closed = true;
  return PlanChanged(portal.statement, told.size());
}

Status Connection::DescribeMsg(std::string_view body) {
  HOP_ASSIGN_OR_RETURN(TargetMessage m, DecodeTarget(body, "Describe"));
  if (m.target == 'S') {
    auto it = statements_.find(m.name);
    if (it == statements_.end()) {
      return Status::NotFound(fmt::format("prepared statement \"{}\" does not exist", m.name));
    }
    Prepared& prepared = it->second;
    Writer w(out_);
    w.Begin('t').Int16(static_cast<int16_t>(prepared.param_types.size()));
    // A parameter whose type the client left open is described as text: its value is taken
    // as a quoted literal.
    for (uint32_t oid : prepared.param_types) w.Int32(static_cast<int32_t>(oid == 0 ? 25 : oid));
    w.End();
    // The columns come from binding the statement with NULLs of its parameters' types.
    std::vector<BoundParameter> nulls(prepared.param_types.size());
    for (size_t i = 0; i < nulls.size(); ++i) nulls[i].oid = prepared.param_types[i];
    HOP_ASSIGN_OR_RETURN(std::string text, SubstituteParameters(prepared.query, nulls));
    std::optional<std::vector<session::ResultColumn>> columns;
    if (!text.empty() && !IsTransactionControl(text)) {
      Pending probe;
      if (!SettingStatement(text, probe, {}, /*apply=*/false) &&
          !ClientSettingStatement(text, probe, /*apply=*/false) &&
          !Deallocate(text, probe, /*apply=*/false)) {
        DropCursors();
        HOP_ASSIGN_OR_RETURN(columns, session_->ResultColumns(text));
      } else if (probe.has_rows) {
        columns = probe.columns;
      }
    }
    if (columns) {
      prepared.result_types = TypesOf(*columns);
      SendRowDescription(*columns, {});
    } else {
      Writer(out_).Begin('n').End();
    }
    return Status::OK();
  }
  auto it = portals_.find(m.name);
  if (it == portals_.end()) {
    return Status::NotFound(fmt::format("portal \"{}\" does not exist", m.name));
  }
  // A portal's statement runs when it is first described or executed: what it gives is then
  // known exactly.
  Running running(*this);
  HOP_RETURN_IF_ERROR(StartPortal(it->second));
  it->second.described = true;
  Pending& p = *it->second.pending;
  if (p.has_rows) {
    SendRowDescription(p.columns, it->second.result_formats);
  } else {
    Writer(out_).Begin('n').End();
  }
  return Status::OK();
}

Status Connection::ExecuteMsg(std::string_view body) {
  HOP_ASSIGN_OR_RETURN(ExecuteMessage m, DecodeExecute(body));
  auto it = portals_.find(m.portal);
  if (it == portals_.end()) {
    return Status::NotFound(fmt::format("portal \"{}\" does not exist", m.portal));
  }
  Portal& portal = it->second;
  if (portal.closed) {
    return Status::InvalidArgument(
        fmt::format("portal \"{}\" cannot be resumed: another statement ran since, and hop "
                    "keeps the pending rows of one portal at a time",
                    m.portal));
  }
  if (portal.query.empty()) {
    Writer(out_).Begin('I').End();
    return Status::OK();
  }
  Running running(*this);
  HOP_RETURN_IF_ERROR(StartPortal(portal));
  Pending& p = *portal.pending;
  SendNotices(p);
  HOP_RETURN_IF_ERROR(CheckDescribedColumns(portal));
  if (p.has_rows && !p.done) {
    HOP_ASSIGN_OR_RETURN(bool finished, SendRows(p, portal.result_formats, m.max_rows));
    if (!finished) {
      Writer(out_).Begin('s').End();
      return Status::OK();
    }
  }
  SendComplete(p);
  return Status::OK();
}

Status Connection::CloseMsg(std::string_view body) {
  HOP_ASSIGN_OR_RETURN(TargetMessage m, DecodeTarget(body, "Close"));
  if (m.target == 'S') {
    statements_.erase(m.name);
  } else {
    portals_.erase(m.name);
  }
  Writer(out_).Begin('3').End();
  return Status::OK();
}

// ---- the server ----

Status PgServer::Impl::Listen() {
  if (options_.auth == AuthMethod::kTrust && !IsLoopbackAddress(options_.listen)) {
    return Status::InvalidArgument(fmt::format(
        "--pg-listen {} is not a loopback address: trust authentication lets anyone who can "
        "connect in, so it is for loopback only; give --pg-auth and --pg-users",
        options_.listen));
  }
  if (options_.auth != AuthMethod::kTrust) {
    if (options_.users_file.empty()) {
      return Status::InvalidArgument(
          fmt::format("--pg-auth {} needs --pg-users FILE", AuthMethodName(options_.auth)));
    }
    HOP_ASSIGN_OR_RETURN(PgUsers users, PgUsers::Load(options_.users_file));
    users_ = std::move(users);
  }
  HOP_RETURN_IF_ERROR(LoadTls());
  if (options_.max_connections < 1) {
    return Status::InvalidArgument("--pg-max-connections must be at least 1");
  }
  HOP_ASSIGN_OR_RETURN(Listening listening,
                       ListenTcp({options_.listen, options_.port, "--pg-listen", "--pg-port", "",
                                  256, /*dual_stack=*/false}));
  listen_fd_ = listening.fd;
  port_ = listening.port;
  if (pipe2(stop_pipe_, O_CLOEXEC) != 0) return Status::Unavailable("cannot create a pipe");
  acceptor_ = std::thread([this] { Accept(); });
  return Status::OK();
}

Status PgServer::Impl::LoadTls() {
  if (options_.tls_cert.empty() && options_.tls_key.empty()) return Status::OK();
  if (options_.tls_cert.empty() || options_.tls_key.empty()) {
    return Status::InvalidArgument("TLS needs both --pg-cert and --pg-key");
  }
  HOP_ASSIGN_OR_RETURN(tls_, tls::ServerContext::Load(options_.tls_cert, options_.tls_key));
  return Status::OK();
}

void PgServer::Impl::Accept() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    const int r = poll(fds, 2, 1000);
    if (r < 0 && errno != EINTR) return;
    if (fds[1].revents != 0) return;
    Reap();
    if (r <= 0 || (fds[0].revents & POLLIN) == 0) continue;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::lock_guard<std::mutex> lock(mu_);
    if (static_cast<int>(connections_.size()) >= options_.max_connections) {
      // Told why, in the protocol's words, before the connection closes.
      std::string out;
      ErrorFields f;
      f.severity = "FATAL";
      f.sqlstate = "53300";
      f.message = fmt::format("sorry, too many clients already (hop serve --pg-max-connections {})",
                              options_.max_connections);
      WriteError(out, f);
      (void)!send(fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      close(fd);
      continue;
    }
    auto owned = std::make_unique<Connection>(*this, fd);
    Connection* c = owned.get();
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
    connections_[c->pid()] = c;
    owned_[c] = std::move(owned);
  }
}

void PgServer::Impl::Finished(Connection* c) {
  std::unique_ptr<Connection> done;
  std::lock_guard<std::mutex> lock(mu_);
  connections_.erase(c->pid());
  auto it = threads_.find(c);
  if (it != threads_.end()) {
    finished_.push_back(std::move(it->second));
    threads_.erase(it);
  }
  auto owned = owned_.find(c);
  if (owned != owned_.end()) {
    done = std::move(owned->second);
    owned_.erase(owned);
  }
}

void PgServer::Impl::Reap() {
  std::vector<std::thread> done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    done.swap(finished_);
  }
  for (auto& t : done) t.join();
}

void PgServer::Impl::Cancel(int32_t pid, int32_t key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = connections_.find(pid);
  if (it == connections_.end()) return;
  const int32_t secret = it->second->secret();
  if (digest::ConstantTimeEqual(std::string_view(reinterpret_cast<const char*>(&secret), 4),
                         std::string_view(reinterpret_cast<const char*>(&key), 4))) {
    it->second->Cancel();
  }
}

void PgServer::Impl::Stop() {
  if (stopping_.exchange(true)) return;
  if (stop_pipe_[1] >= 0) {
    // Every connection stops its running statement and its wait for the client.
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [pid, c] : connections_) c->WakeToStop();
    }
    (void)!write(stop_pipe_[1], "x", 1);
  }
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

PgServer::PgServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PgServer::~PgServer() { Stop(); }

Result<std::unique_ptr<PgServer>> PgServer::Start(store::Store& store, PgServerOptions options) {
  auto impl = std::make_unique<Impl>(store, std::move(options));
  HOP_RETURN_IF_ERROR(impl->Listen());
  return std::unique_ptr<PgServer>(new PgServer(std::move(impl)));
}

int PgServer::port() const { return impl_->port(); }
void PgServer::Stop() { impl_->Stop(); }

}  // namespace hop::server
