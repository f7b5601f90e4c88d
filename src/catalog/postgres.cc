// The PostgreSQL adapter (postgres.h): URLs and credentials, names and types, the connection
// pool, discovery, scans and the provisioner.
#include "catalog/postgres.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>

#include "catalog/libpq.h"
#include "common/redact.h"
#include "common/strings.h"
#include "sql/ast/statements.h"
#include "sql/unparser.h"

namespace hop::catalog {

namespace {

constexpr std::string_view kJdbcPrefix = "jdbc:postgresql:";

// ---- URLs ----

Result<std::string> PercentDecode(std::string_view s, std::string_view what) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) {
      return Status::InvalidArgument(fmt::format("{}: an incomplete %-escape", what));
    }
    const int a = HexDigitValue(s[i + 1]), b = HexDigitValue(s[i + 2]);
    if (a < 0 || b < 0) return Status::InvalidArgument(fmt::format("{}: a bad %-escape", what));
    const char c = static_cast<char>(a * 16 + b);
    if (c == '\0') return Status::InvalidArgument(fmt::format("{}: holds a NUL byte", what));
    out += c;
    i += 2;
  }
  return out;
}

// JDBC parameters and the libpq keywords they become.
constexpr std::pair<std::string_view, std::string_view> kJdbcParameters[] = {
    {"user", "user"},
    {"password", "password"},
    {"sslmode", "sslmode"},
    {"sslcert", "sslcert"},
    {"sslkey", "sslkey"},
    {"sslrootcert", "sslrootcert"},
    {"connectTimeout", "connect_timeout"},
    {"ApplicationName", "application_name"},
    {"options", "options"},
};

void SetParam(PostgresConfig& c, std::string_view key, std::string value) {
  for (auto& [k, v] : c.params) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  c.params.emplace_back(std::string(key), std::move(value));
}

bool HasParam(const PostgresConfig& c, std::string_view key) {
  for (const auto& [k, v] : c.params) {
    if (k == key) return true;
  }
  return false;
}

// `${env:NAME}`: NAME, or nullopt when `value` is not such a reference.
std::optional<std::string> EnvReference(std::string_view value) {
  if (value.size() < 8 || value.substr(0, 6) != "${env:" || value.back() != '}') {
    return std::nullopt;
  }
  std::string_view name = value.substr(6, value.size() - 7);
  if (name.empty()) return std::nullopt;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                    (i > 0 && c >= '0' && c <= '9');
    if (!ok) return std::nullopt;
  }
  return std::string(name);
}

Status SetPassword(PostgresConfig& c, std::string value) {
  if (auto env = EnvReference(value)) {
    c.password_env = *env;
    return Status::OK();
  }
  if (value.rfind("${", 0) == 0) {
    return Status::InvalidArgument(
        "the password is a reference hop does not know: write password=${env:NAME} to take it "
        "from environment variable NAME, or passwordFile=PATH");
  }
  SetParam(c, "password", std::move(value));
  return Status::OK();
}

// ---- libpq handles ----

struct ResultCloser {
  void operator()(PGresult* r) const { Pq().PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ResultCloser>;
struct ConnCloser {
  void operator()(PGconn* c) const { Pq().PQfinish(c); }
};
using PgConn = std::unique_ptr<PGconn, ConnCloser>;

// libpq's multi-line message on one line.
std::string OneLine(const char* text) {
  std::string out;
  bool blank = false;
  for (const char* p = text ? text : ""; *p; ++p) {
    const bool space = *p == '\n' || *p == '\t' || *p == ' ';
    if (space) {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out += ' ';
    blank = false;
    out += *p;
  }
  return out;
}

// The server's message of a failed result: its primary message, and its detail when it has one.
std::string ServerMessage(const PGresult* r, PGconn* conn) {
  const char* primary = r ? Pq().PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  if (primary == nullptr) return OneLine(conn ? Pq().PQerrorMessage(conn) : "no answer");
  std::string out = primary;
  if (const char* detail = Pq().PQresultErrorField(r, PG_DIAG_MESSAGE_DETAIL)) {
    out += fmt::format(" ({})", detail);
  }
  return out;
}

// Where a schema's tables are: the Database, its URL as messages show it, and its config.
struct Endpoint {
  std::string database;
  std::string url;  // redacted
  PostgresConfig config;
  std::string key;  // the pool's key: the config, secrets by reference

  // `Database <name>`, for messages.
  std::string Name() const { return fmt::format("Database {}", database); }
};

std::shared_ptr<const Endpoint> MakeEndpoint(const Schema& schema, PostgresConfig config) {
  auto e = std::make_shared<Endpoint>();
  e->database = schema.database;
  e->url = RedactSecrets(schema.url);
  for (const auto& [k, v] : config.params) e->key += k + '\0' + v + '\0';
  e->key += "env\0" + config.password_env + '\0' + "file\0" + config.password_file;
  e->config = std::move(config);
  return e;
}

// The process's connections, idle ones kept by endpoint key (at most kIdlePerKey each).
class Pool {
 public:
  static Pool& Get() {
    static Pool* pool = new Pool();  // lives as long as the process: connections close at exit
    return *pool;
  }

  // A connection to the endpoint: an idle one, or a new one. `reused` says which.
  Result<PgConn> Acquire(const Endpoint& e, bool& reused) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = idle_.find(e.key);
      while (it != idle_.end() && !it->second.empty()) {
        PgConn c = std::move(it->second.back());
        it->second.pop_back();
        // What the server sent while the connection sat idle (it ends a connection it
        // terminates with a message, then closes it): such a connection is not handed out.
        if (Pq().PQconsumeInput(c.get()) == 1 && Pq().PQstatus(c.get()) == CONNECTION_OK &&
            !Pq().PQisBusy(c.get())) {
          reused = true;
          return c;
        }
        --open_;
      }
    }
    reused = false;
    auto resolved = ResolveCredentials(e.config);
    if (!resolved.ok()) {
      return Status(resolved.status().code(),
                    fmt::format("{}: {}", e.Name(), resolved.status().message()));
    }
    auto params = std::move(resolved).value();
    if (!std::any_of(params.begin(), params.end(),
                     [](const auto& p) { return p.first == "connect_timeout"; })) {
      params.emplace_back("connect_timeout", "10");
    }
    if (!std::any_of(params.begin(), params.end(),
                     [](const auto& p) { return p.first == "application_name"; })) {
      params.emplace_back("application_name", "hop");
    }
    params.emplace_back("client_encoding", "UTF8");
    std::vector<const char*> keys, values;
    std::string password;
    for (const auto& [k, v] : params) {
      keys.push_back(k.c_str());
      values.push_back(v.c_str());
      if (k == "password") password = v;
    }
    keys.push_back(nullptr);
    values.push_back(nullptr);
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++attempts_;
    }
    HOP_RETURN_IF_ERROR(LoadLibPq().status());
    PgConn c(Pq().PQconnectdbParams(keys.data(), values.data(), 0));
    if (c == nullptr) return Status::Unavailable(fmt::format("{}: out of memory", e.Name()));
    if (Pq().PQstatus(c.get()) != CONNECTION_OK) {
      std::string message = RedactSecrets(OneLine(Pq().PQerrorMessage(c.get())));
      // The server's message never holds the password; make sure of it.
      if (!password.empty()) {
        for (size_t at = message.find(password); at != std::string::npos;
             at = message.find(password, at)) {
          message.replace(at, password.size(), kRedacted);
        }
      }
      return Status::Unavailable(
          fmt::format("{} ({}): cannot connect to PostgreSQL: {}", e.Name(), e.url, message));
    }
    // The server's notices (`table ... does not exist, skipping`) are not hop's output.
    Pq().PQsetNoticeProcessor(
        c.get(), [](void*, const char*) {}, nullptr);
    std::lock_guard<std::mutex> lock(mu_);
    ++open_;
    return c;
  }

  // Takes a connection back: kept idle when it is healthy and outside a transaction.
  void Release(const std::string& key, PgConn c) {
    if (!c) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (Pq().PQstatus(c.get()) != CONNECTION_OK || Pq().PQtransactionStatus(c.get()) != PQTRANS_IDLE ||
        idle_[key].size() >= kIdlePerKey) {
      --open_;
      c.reset();
      return;
    }
    idle_[key].push_back(std::move(c));
  }

  // A connection that will not come back.
  void Forget(PgConn c) {
    if (!c) return;
    std::lock_guard<std::mutex> lock(mu_);
    --open_;
  }

  int open() {
    std::lock_guard<std::mutex> lock(mu_);
    return open_;
  }
  int attempts() {
    std::lock_guard<std::mutex> lock(mu_);
    return attempts_;
  }

 private:
  static constexpr size_t kIdlePerKey = 4;
  std::mutex mu_;
  std::map<std::string, std::vector<PgConn>> idle_;
  int open_ = 0;
  int attempts_ = 0;
};

// A connection in use, returned to the pool when it goes.
class Lease {
 public:
  Lease() = default;
  Lease(std::string key, PgConn conn) : key_(std::move(key)), conn_(std::move(conn)) {}
  Lease(Lease&&) = default;
  Lease& operator=(Lease&& o) noexcept {
    Return();
    key_ = std::move(o.key_);
    conn_ = std::move(o.conn_);
    return *this;
  }
  ~Lease() { Return(); }
  PGconn* get() const { return conn_.get(); }
  // The connection is not to be reused (a scan stopped half way that could not be drained).
  void Discard() { Pool::Get().Forget(std::move(conn_)); }

 private:
  void Return() {
    if (conn_) Pool::Get().Release(key_, std::move(conn_));
  }
  std::string key_;
  PgConn conn_;
};

// Whether a statement failed because the server had ended the connection (a restart, a
// terminated backend): libpq may not have seen the close yet, but the server said why.
bool Dropped(PGconn* conn, const PGresult* r) {
  if (Pq().PQstatus(conn) == CONNECTION_BAD) return true;
  if (r == nullptr || Pq().PQresultStatus(r) != PGRES_FATAL_ERROR) return false;
  const char* state = Pq().PQresultErrorField(r, PG_DIAG_SQLSTATE);
  if (state == nullptr) return false;
  const std::string_view code = state;
  return code.rfind("57P", 0) == 0 || code.rfind("08", 0) == 0;  // shutdown, connection
}

// Runs one statement with text parameters on a pooled connection; a reused connection that the
// server dropped meanwhile (a restart) is replaced once.
// One statement with text parameters on `conn`; the result, failed or not.
PgResult ExecParams(PGconn* conn, const std::string& sql, const std::vector<std::string>& params) {
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p.c_str());
  return PgResult(Pq().PQexecParams(conn, sql.c_str(), static_cast<int>(values.size()), nullptr,
                               values.data(), nullptr, nullptr, 0));
}

bool Succeeded(const PgResult& r) {
  const ExecStatusType st = r ? Pq().PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  return st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK || st == PGRES_COPY_IN;
}

Result<PgResult> Run(const Endpoint& e, const std::string& sql,
                     const std::vector<std::string>& params) {
  for (int attempt = 0;; ++attempt) {
    bool reused = false;
    HOP_ASSIGN_OR_RETURN(PgConn conn, Pool::Get().Acquire(e, reused));
    Lease lease(e.key, std::move(conn));
    PgResult r = ExecParams(lease.get(), sql, params);
    if (Succeeded(r)) return r;
    if (reused && attempt == 0 && Dropped(lease.get(), r.get())) {
      lease.Discard();
      continue;
    }
    return Status::ExecutionError(
        fmt::format("{}: PostgreSQL: {}", e.Name(), ServerMessage(r.get(), lease.get())));
  }
}

std::optional<std::string> Cell(const PGresult* r, int row, int col) {
  if (Pq().PQgetisnull(r, row, col)) return std::nullopt;
  return std::string(Pq().PQgetvalue(r, row, col), static_cast<size_t>(Pq().PQgetlength(r, row, col)));
}

// ---- SQL as statement ASTs, printed in the PostgreSQL dialect ----

// `name1.name2...`, each part kept exactly (the writer quotes every part).
sql::QualifiedName Names(std::initializer_list<std::string_view> parts) {
  sql::QualifiedName q;
  for (std::string_view p : parts) q.parts.emplace_back(std::string(p));
  return q;
}

sql::ExprPtr ColumnOf(std::string_view name) {
  auto e = std::make_unique<sql::ColumnRefExpr>();
  e->name = Names({name});
  return e;
}

sql::ExprPtr LiteralOf(sql::LiteralKind kind, std::string value) {
  auto e = std::make_unique<sql::LiteralExpr>();
  e->literal = kind;
  e->value = std::move(value);
  return e;
}

// `name(args)`; the name is upper case, so the writer prints it bare and PostgreSQL folds it.
sql::ExprPtr Call(std::string_view name, std::vector<sql::ExprPtr> args) {
  auto f = std::make_unique<sql::FunctionExpr>();
  f->name = Names({name});
  f->args = std::move(args);
  return f;
}

template <typename... E>
std::vector<sql::ExprPtr> Args(E... e) {
  std::vector<sql::ExprPtr> out;
  (out.push_back(std::move(e)), ...);
  return out;
}

sql::ExprPtr CastTo(sql::ExprPtr operand, sql::TypeName type) {
  auto c = std::make_unique<sql::CastExpr>();
  c->operand = std::move(operand);
  c->type = sql::DataType(type);
  return c;
}

sql::ExprPtr BinaryOf(sql::BinaryOp op, sql::ExprPtr left, sql::ExprPtr right) {
  auto b = std::make_unique<sql::BinaryExpr>();
  b->op = op;
  b->left = std::move(left);
  b->right = std::move(right);
  return b;
}

Result<std::string> Print(const sql::Statement& statement) {
  return sql::PrintStatement(statement, {sql::Dialect::kPostgres});
}

// ---- scans ----

// How a column is read: the expression that gives its text form, and what a filter on it may be.
enum class Narrow : uint8_t { kNone, kText, kInteger, kBoolean };

struct ScanColumn {
  std::string name;        // PostgreSQL's
  sql::DataType type;      // Calcite's
  bool text_like = false;  // PostgreSQL compares it as text
  bool boolean = false;    // `t`/`f` becomes `true`/`false`
  Narrow narrow = Narrow::kNone;
};

// The expression giving the engine's JSON encoding of one array element `e` of type `t`
// (engine/value.h: numbers for exact numbers, dates and times; hex strings for binary).
Result<sql::ExprPtr> ElementExpression(const sql::DataType& t) {
  using sql::TypeName;
  switch (t.name) {
    case TypeName::kBoolean:
    case TypeName::kTinyInt:
    case TypeName::kSmallInt:
    case TypeName::kInteger:
    case TypeName::kBigInt:
    case TypeName::kReal:
    case TypeName::kFloat:
    case TypeName::kDouble: return ColumnOf("e");
    case TypeName::kChar:  // without its padding, as a bpchar column (ReadExpression)
    case TypeName::kVarchar:
      return CastTo(ColumnOf("e"), TypeName::kVarchar);  // json and uuid elements as text
    case TypeName::kDecimal:
      return CastTo(
          BinaryOf(sql::BinaryOp::kMultiply, ColumnOf("e"),
                   LiteralOf(sql::LiteralKind::kInteger,
                             "1" + std::string(static_cast<size_t>(t.scale.value_or(0)), '0'))),
          TypeName::kBigInt);
    case TypeName::kDate:
      return BinaryOf(sql::BinaryOp::kSubtract, ColumnOf("e"),
                      LiteralOf(sql::LiteralKind::kDate, "1970-01-01"));
    case TypeName::kTime:
    case TypeName::kTimestamp: {
      auto epoch = std::make_unique<sql::ExtractExpr>();
      epoch->unit = "EPOCH";
      epoch->operand = ColumnOf("e");
      return CastTo(BinaryOf(sql::BinaryOp::kMultiply, std::move(epoch),
                             LiteralOf(sql::LiteralKind::kInteger, "1000000")),
                    TypeName::kBigInt);
    }
    case TypeName::kBinary:
    case TypeName::kVarbinary:
    case TypeName::kBytes:
      return Call("ENCODE", Args(ColumnOf("e"), LiteralOf(sql::LiteralKind::kString, "hex")));
    default: break;
  }
  auto printed = sql::PrintType(t);
  return Status::InvalidArgument(fmt::format("hop does not read arrays of {} from PostgreSQL",
                                             printed.ok() ? *printed : std::string("this type")));
}

// The expression in the SELECT list that reads column `c`.
Result<sql::ExprPtr> ReadExpression(const ScanColumn& c) {
  using sql::TypeName;
  const sql::DataType& t = c.type;
  switch (t.name) {
    case TypeName::kChar:
      // A bpchar without the spaces that pad it: the engine's CHAR (docs/engine.md, "Strings
      // and LIKE"), as PostgreSQL's cast to varchar drops them.
      return CastTo(ColumnOf(c.name), TypeName::kVarchar);
    case TypeName::kVarchar:
      if (!c.text_like) return CastTo(ColumnOf(c.name), TypeName::kVarchar);  // json, uuid
      break;
    case TypeName::kBinary:
    case TypeName::kVarbinary:
    case TypeName::kBytes:
      return Call("ENCODE", Args(ColumnOf(c.name), LiteralOf(sql::LiteralKind::kString, "hex")));
    case TypeName::kTimestamp:
      // timezone(zone, t) is PostgreSQL's `t AT TIME ZONE zone`: the instant in UTC.
      if (t.time_zone != sql::TimeZone::kNone) {
        return Call("TIMEZONE",
                    Args(LiteralOf(sql::LiteralKind::kString, "UTC"), ColumnOf(c.name)));
      }
      break;
    case TypeName::kArray: {
      // CASE WHEN a IS NULL THEN NULL ELSE COALESCE((SELECT JSON_AGG(element ORDER BY n) FROM
      // UNNEST(a) WITH ORDINALITY AS u (e, n)), '[]') END: the elements in order, [] when none.
      if (t.params.empty()) return Status::InvalidArgument("an ARRAY without an element type");
      HOP_ASSIGN_OR_RETURN(sql::ExprPtr element, ElementExpression(t.params[0]));
      auto agg = std::make_unique<sql::FunctionExpr>();
      agg->name = Names({"JSON_AGG"});
      agg->args.push_back(std::move(element));
      agg->order_by.push_back(sql::OrderItem{ColumnOf("n")});
      auto unnest = std::make_unique<sql::UnnestRef>();
      unnest->args.push_back(ColumnOf(c.name));
      unnest->with_ordinality = true;
      unnest->alias =
          sql::TableAlias{sql::Identifier("u"), {sql::Identifier("e"), sql::Identifier("n")}};
      auto select = std::make_unique<sql::SelectBody>();
      select->items.push_back(sql::SelectItem{std::move(agg), std::nullopt});
      select->from = std::move(unnest);
      auto sub = std::make_unique<sql::SubqueryExpr>();
      sub->query = std::make_unique<sql::Query>();
      sub->query->body = std::move(select);
      auto is_null = std::make_unique<sql::IsExpr>();
      is_null->operand = ColumnOf(c.name);
      is_null->test = sql::IsTest::kNull;
      auto when = std::make_unique<sql::CaseExpr>();
      when->whens.push_back(
          sql::WhenClause{std::move(is_null), LiteralOf(sql::LiteralKind::kNull, "")});
      when->else_result =
          Call("COALESCE", Args(std::move(sub), LiteralOf(sql::LiteralKind::kString, "[]")));
      return when;
    }
    default: break;
  }
  return ColumnOf(c.name);
}

// How the column `pg_name` of Calcite type `t` is read; `text_like` when PostgreSQL compares it
// as text (text, varchar, char: not json or uuid, which hop also reads as VARCHAR).
Result<ScanColumn> MakeScanColumn(const std::string& pg_name, const sql::DataType& t,
                                  bool text_like) {
  using sql::TypeName;
  ScanColumn c;
  c.name = pg_name;
  c.type = t;
  c.text_like = text_like;
  switch (t.name) {
    case TypeName::kBoolean:
      c.boolean = true;
      c.narrow = Narrow::kBoolean;
      break;
    case TypeName::kTinyInt:
    case TypeName::kSmallInt:
    case TypeName::kInteger:
    case TypeName::kBigInt: c.narrow = Narrow::kInteger; break;
    case TypeName::kChar:
    case TypeName::kVarchar:
      if (text_like) c.narrow = Narrow::kText;
      break;
    default: break;
  }
  HOP_RETURN_IF_ERROR(ReadExpression(c).status());  // a column hop cannot read says so here
  return c;
}

class PgRowCursor : public RowCursor {
 public:
  PgRowCursor(std::shared_ptr<const Endpoint> e, Lease lease, PgResult first,
              std::vector<int> slots, std::vector<bool> booleans, size_t width)
      : endpoint_(std::move(e)),
        lease_(std::move(lease)),
        first_(std::move(first)),
        slots_(std::move(slots)),
        booleans_(std::move(booleans)),
        width_(width) {}

  ~PgRowCursor() override {
    if (done_) return;
    // Stopped early (LIMIT, an error above): cancel the query and read what is left, so that
    // the connection can serve another; if that fails it is not reused.
    PGconn* conn = lease_.get();
    if (PGcancel* cancel = Pq().PQgetCancel(conn)) {
      char buf[256];
      Pq().PQcancel(cancel, buf, sizeof buf);
      Pq().PQfreeCancel(cancel);
    }
    while (PGresult* r = Pq().PQgetResult(conn)) Pq().PQclear(r);
    if (Pq().PQstatus(conn) != CONNECTION_OK || Pq().PQtransactionStatus(conn) != PQTRANS_IDLE) {
      lease_.Discard();
    }
  }

  Result<bool> Next(Row& row) override {
    if (done_) return false;
    PgResult r = first_ ? std::move(first_) : PgResult(Pq().PQgetResult(lease_.get()));
    const ExecStatusType st = r ? Pq().PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (st == PGRES_SINGLE_TUPLE) {
      row.assign(width_, std::nullopt);
      for (size_t i = 0; i < slots_.size(); ++i) {
        auto v = Cell(r.get(), 0, static_cast<int>(i));
        if (v && booleans_[i]) *v = *v == "t" ? "true" : "false";
        row[static_cast<size_t>(slots_[i])] = std::move(v);
      }
      return true;
    }
    done_ = true;
    std::string message = st == PGRES_TUPLES_OK ? "" : ServerMessage(r.get(), lease_.get());
    while (PGresult* rest = Pq().PQgetResult(lease_.get())) Pq().PQclear(rest);
    if (st == PGRES_TUPLES_OK) return false;
    return Status::ExecutionError(fmt::format("{}: PostgreSQL: {}", endpoint_->Name(), message));
  }

 private:
  std::shared_ptr<const Endpoint> endpoint_;
  Lease lease_;
  PgResult first_;              // the first result, read by Open
  std::vector<int> slots_;      // per result column: the table column it fills
  std::vector<bool> booleans_;  // per result column
  size_t width_;
  bool done_ = false;
};

class PgSource : public TableSource {
 public:
  PgSource(std::shared_ptr<const Endpoint> e, std::string schema, std::string table,
           std::vector<ScanColumn> columns, double rows)
      : endpoint_(std::move(e)),
        schema_(std::move(schema)),
        table_(std::move(table)),
        columns_(std::move(columns)),
        rows_(rows) {}

  std::string Describe() const override {
    return fmt::format("PostgreSQL {}.{} of database {}", schema_, table_, endpoint_->database);
  }
  bool Narrows(int column) const override {
    return column >= 0 && static_cast<size_t>(column) < columns_.size() &&
           columns_[static_cast<size_t>(column)].narrow != Narrow::kNone;
  }
  // Integers compare alike in PostgreSQL and in the engine; strings may not (collations).
  bool NarrowsRange(int column) const override {
    return Narrows(column) && columns_[static_cast<size_t>(column)].narrow == Narrow::kInteger;
  }
  double EstimatedRows() const override { return rows_; }
  // The PostgreSQL schema and table it reads, and its database's URL.
  std::vector<std::string> RemotePath() const { return {schema_, table_}; }
  const Endpoint& endpoint() const { return *endpoint_; }

  std::string DescribeScan(const ScanRequest& request) const override {
    std::vector<std::string> params;
    auto query = Query(request, params, /*for_explain=*/true);
    return query.ok() ? *query : query.status().ToString();
  }

  Result<std::unique_ptr<RowCursor>> Open(const ScanRequest& request) const override {
    std::vector<std::string> params;
    HOP_ASSIGN_OR_RETURN(const std::string sql, Query(request, params, false));
    std::vector<const char*> values;
    for (const auto& p : params) values.push_back(p.c_str());
    std::vector<int> slots;
    std::vector<bool> booleans;
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (i < request.columns.size() && request.columns[i]) {
        slots.push_back(static_cast<int>(i));
        booleans.push_back(columns_[i].boolean);
      }
    }
    for (int attempt = 0;; ++attempt) {
      bool reused = false;
      HOP_ASSIGN_OR_RETURN(PgConn conn, Pool::Get().Acquire(*endpoint_, reused));
      Lease lease(endpoint_->key, std::move(conn));
      if (Pq().PQsendQueryParams(lease.get(), sql.c_str(), static_cast<int>(values.size()), nullptr,
                            values.data(), nullptr, nullptr, 0) == 1) {
        // Rows stream one at a time, never all held at once.
        Pq().PQsetSingleRowMode(lease.get());
        PgResult first(Pq().PQgetResult(lease.get()));
        if (reused && attempt == 0 && Dropped(lease.get(), first.get())) {
          // The server had ended the connection (a restart) while it sat in the pool.
          first.reset();
          while (PGresult* rest = Pq().PQgetResult(lease.get())) Pq().PQclear(rest);
          lease.Discard();
          continue;
        }
        return std::unique_ptr<RowCursor>(
            std::make_unique<PgRowCursor>(endpoint_, std::move(lease), std::move(first),
                                          std::move(slots), std::move(booleans), columns_.size()));
      }
      if (Pq().PQstatus(lease.get()) == CONNECTION_BAD && reused && attempt == 0) continue;
      return Status::ExecutionError(fmt::format("{}: PostgreSQL: {}", endpoint_->Name(),
                                                OneLine(Pq().PQerrorMessage(lease.get()))));
    }
  }

 private:
  // The query of a scan: the columns read, and the constraints it can apply as parameters
  // (`params`); EXPLAIN's text shows every pushed constraint as a parameter.
  Result<std::string> Query(const ScanRequest& request, std::vector<std::string>& params,
                            bool for_explain) const {
    auto select = std::make_unique<sql::SelectBody>();
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (i < request.columns.size() && request.columns[i]) {
        HOP_ASSIGN_OR_RETURN(sql::ExprPtr e, ReadExpression(columns_[i]));
        select->items.push_back(sql::SelectItem{std::move(e), std::nullopt});
      }
    }
    if (select->items.empty()) {
      select->items.push_back(
          sql::SelectItem{LiteralOf(sql::LiteralKind::kInteger, "1"), std::nullopt});
    }
    auto from = std::make_unique<sql::BaseTableRef>();
    from->name = Names({schema_, table_});
    select->from = std::move(from);
    for (const ScanConstraint& c : request.constraints) {
      if (!Narrows(c.column) || (c.op != ScanOp::kEq && !NarrowsRange(c.column))) continue;
      const ScanColumn& col = columns_[static_cast<size_t>(c.column)];
      std::string value = c.value;
      if (!for_explain) {
        // A value a filter cannot state as the column's type is not pushed: the engine checks
        // every row anyway.
        if (col.narrow == Narrow::kInteger) {
          std::string_view v = value;
          if (!v.empty() && v[0] == '-') v.remove_prefix(1);
          if (v.empty() || v.size() > 18 ||
              !std::all_of(v.begin(), v.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
            continue;
          }
        } else if (col.narrow == Narrow::kBoolean) {
          if (value != "true" && value != "false") continue;
        }
      }
      params.push_back(std::move(value));
      auto param = std::make_unique<sql::ParameterExpr>();
      param->index = static_cast<int>(params.size());
      param->numbered = true;
      sql::ExprPtr bound = std::move(param);
      if (col.narrow == Narrow::kInteger) bound = CastTo(std::move(bound), sql::TypeName::kBigInt);
      static const sql::BinaryOp kOps[] = {sql::BinaryOp::kEq, sql::BinaryOp::kLt,
                                           sql::BinaryOp::kLe, sql::BinaryOp::kGt,
                                           sql::BinaryOp::kGe};
      sql::ExprPtr test =
          BinaryOf(kOps[static_cast<int>(c.op)], ColumnOf(col.name), std::move(bound));
      select->where = select->where
                          ? BinaryOf(sql::BinaryOp::kAnd, std::move(select->where), std::move(test))
                          : std::move(test);
    }
    sql::Query query;
    query.body = std::move(select);
    return sql::PrintQuery(query, {sql::Dialect::kPostgres});
  }

  std::shared_ptr<const Endpoint> endpoint_;
  std::string schema_, table_;
  std::vector<ScanColumn> columns_;
  double rows_;
};

// ---- discovery ----

constexpr const char* kColumnsQuery =
    "SELECT c.relname, a.attname, a.atttypid::int8, a.atttypmod, "
    "CASE WHEN t.typcategory = 'A' THEN t.typelem ELSE 0 END::int8, "
    "format_type(a.atttypid, a.atttypmod), a.attnotnull, c.reltuples::float8, "
    "array_position(pk.indkey::int2[], a.attnum) - array_lower(pk.indkey::int2[], 1) + 1, "
    "pkc.relname "
    "FROM pg_catalog.pg_class c "
    "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
    "JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT "
    "a.attisdropped "
    "JOIN pg_catalog.pg_type t ON t.oid = a.atttypid "
    "LEFT JOIN pg_catalog.pg_index pk ON pk.indrelid = c.oid AND pk.indisprimary "
    "LEFT JOIN pg_catalog.pg_class pkc ON pkc.oid = pk.indexrelid "
    "WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')";

struct FoundColumn {
  std::string name;
  PostgresType type;
  bool not_null = false;
  int key_position = 0;  // 1-based in the primary key, 0 when not in it
};
struct FoundTable {
  std::string name;
  double rows = -1;
  std::vector<FoundColumn> columns;
  std::string key_name;  // the primary key's index, "" when the table has none
};

// `names` as one PostgreSQL array value (a parameter, never SQL): every element double-quoted,
// with `"` and `\` escaped by a backslash.
std::string ArrayValue(const std::vector<std::string>& names) {
  std::string out = "{";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out.push_back(',');
    out.push_back('"');
    for (char ch : names[i]) {
      if (ch == '"' || ch == '\\') out.push_back('\\');
      out.push_back(ch);
    }
    out.push_back('"');
  }
  out.push_back('}');
  return out;
}

// The tables (and their columns) of `schema` in the server; `names` narrows them when not empty.
Result<std::vector<FoundTable>> ReadTables(const Endpoint& e, const std::string& schema,
                                           const std::vector<std::string>& names) {
  static const std::string kAll = std::string(kColumnsQuery) + " ORDER BY c.relname, a.attnum";
  static const std::string kNamed =
      std::string(kColumnsQuery) + " AND c.relname = ANY($2::name[]) ORDER BY c.relname, a.attnum";
  const std::string& sql = names.empty() ? kAll : kNamed;
  std::vector<std::string> params = {schema};
  if (!names.empty()) params.push_back(ArrayValue(names));
  HOP_ASSIGN_OR_RETURN(PgResult r, Run(e, sql, params));
  std::vector<FoundTable> out;
  for (int i = 0; i < Pq().PQntuples(r.get()); ++i) {
    const std::string table = Pq().PQgetvalue(r.get(), i, 0);
    if (out.empty() || out.back().name != table) {
      out.push_back({table, std::atof(Pq().PQgetvalue(r.get(), i, 7)), {}});
    }
    FoundColumn c;
    c.name = Pq().PQgetvalue(r.get(), i, 1);
    c.type.oid = static_cast<uint32_t>(std::strtoul(Pq().PQgetvalue(r.get(), i, 2), nullptr, 10));
    c.type.typmod = static_cast<int32_t>(std::strtol(Pq().PQgetvalue(r.get(), i, 3), nullptr, 10));
    c.type.element_oid =
        static_cast<uint32_t>(std::strtoul(Pq().PQgetvalue(r.get(), i, 4), nullptr, 10));
    c.type.spelled = Pq().PQgetvalue(r.get(), i, 5);
    c.not_null = std::string_view(Pq().PQgetvalue(r.get(), i, 6)) == "t";
    if (!Pq().PQgetisnull(r.get(), i, 8)) c.key_position = std::atoi(Pq().PQgetvalue(r.get(), i, 8));
    if (!Pq().PQgetisnull(r.get(), i, 9)) out.back().key_name = Pq().PQgetvalue(r.get(), i, 9);
    out.back().columns.push_back(std::move(c));
  }
  return out;
}

constexpr uint32_t kTextOids[] = {25, 1042, 1043};  // text, bpchar, varchar

// The catalog's table for a table found in the server. Errors name the column that cannot map.
Result<Table> MakeTable(const std::shared_ptr<const Endpoint>& e, const Schema& schema,
                        const FoundTable& found, std::string hop_name) {
  Table t;
  t.name = std::move(hop_name);
  t.path = schema.Path();
  t.path.push_back(t.name);
  t.database = schema.database;
  std::vector<ScanColumn> columns;
  for (const FoundColumn& c : found.columns) {
    auto type = CalciteType(c.type);
    if (!type.ok()) {
      return Status(type.status().code(),
                    fmt::format("{}: table {}.{}, column {}: {}", e->Name(), schema.remote_schema,
                                found.name, c.name, type.status().message()));
    }
    if (c.not_null) type->nullability = sql::Nullability::kNotNull;
    const uint32_t scalar = c.type.element_oid ? c.type.element_oid : c.type.oid;
    const bool text_like =
        std::find(std::begin(kTextOids), std::end(kTextOids), scalar) != std::end(kTextOids);
    HOP_ASSIGN_OR_RETURN(ScanColumn sc, MakeScanColumn(c.name, *type, text_like));
    columns.push_back(std::move(sc));
    t.row_type.columns.push_back({HopName(c.name), std::move(*type)});
  }
  std::vector<std::pair<int, std::string>> key;
  for (const FoundColumn& c : found.columns) {
    if (c.key_position > 0) key.emplace_back(c.key_position, HopName(c.name));
  }
  std::sort(key.begin(), key.end());
  for (auto& [position, name] : key) t.primary_key.push_back(std::move(name));
  if (!t.primary_key.empty()) t.primary_key_name = found.key_name;
  t.source = std::make_shared<PgSource>(e, schema.remote_schema, found.name, std::move(columns),
                                        found.rows < 0 ? 1000.0 : std::max(1.0, found.rows));
  return t;
}

class PgTables : public TableDiscovery {
 public:
  PgTables(std::shared_ptr<const Endpoint> e, Schema schema)
      : endpoint_(std::move(e)), schema_(std::move(schema)) {
    schema_.tables.clear();
    schema_.discovery.reset();
  }

  Result<const Table*> Find(std::string_view name) const override {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = found_.find(std::string(name)); it != found_.end()) return it->second.get();
    // The name as spelled, or, for a name hop folded, PostgreSQL's folding of it.
    std::vector<std::string> candidates = {std::string(name)};
    const std::string lowered = PostgresName(name);
    if (lowered != name) candidates.push_back(lowered);
    HOP_ASSIGN_OR_RETURN(std::vector<FoundTable> tables,
                         ReadTables(*endpoint_, schema_.remote_schema, candidates));
    const FoundTable* match = nullptr;
    for (const std::string& want : candidates) {
      for (const FoundTable& t : tables) {
        if (!match && t.name == want) match = &t;
      }
    }
    if (!match) return nullptr;
    HOP_ASSIGN_OR_RETURN(Table t, MakeTable(endpoint_, schema_, *match, std::string(name)));
    auto& slot = found_[std::string(name)];
    slot = std::make_unique<Table>(std::move(t));
    return slot.get();
  }

  Result<std::vector<const Table*>> List() const override {
    std::lock_guard<std::mutex> lock(mu_);
    HOP_ASSIGN_OR_RETURN(std::vector<FoundTable> tables,
                         ReadTables(*endpoint_, schema_.remote_schema, {}));
    std::vector<const Table*> out;
    for (const FoundTable& f : tables) {
      const std::string name = HopName(f.name);
      auto it = found_.find(name);
      if (it == found_.end()) {
        auto t = MakeTable(endpoint_, schema_, f, name);
        if (!t.ok()) continue;  // resolving it names what cannot map
        it = found_.emplace(name, std::make_unique<Table>(std::move(*t))).first;
      }
      out.push_back(it->second.get());
    }
    return out;
  }

 private:
  std::shared_ptr<const Endpoint> endpoint_;
  Schema schema_;  // names and paths only
  mutable std::mutex mu_;
  mutable std::map<std::string, std::unique_ptr<Table>> found_;  // by hop name
};

class PgSchemas : public SchemaDiscovery {
 public:
  PgSchemas(std::shared_ptr<const Endpoint> e, Schema base)
      : endpoint_(std::move(e)), base_(std::move(base)) {
    base_.tables.clear();
  }

  Result<std::optional<Schema>> Find(std::string_view name) const override {
    HOP_ASSIGN_OR_RETURN(std::vector<std::string> remote, Remote());
    std::optional<std::string> match;
    for (const std::string& want : {std::string(name), PostgresName(name)}) {
      for (const std::string& r : remote) {
        if (!match && r == want) match = r;
      }
    }
    if (!match) return std::optional<Schema>();
    Schema s = base_;
    s.name = std::string(name);
    s.remote_schema = *match;
    s.discovery = std::make_shared<PgTables>(endpoint_, s);
    return std::optional<Schema>(std::move(s));
  }

  Result<std::vector<std::string>> Names() const override {
    HOP_ASSIGN_OR_RETURN(std::vector<std::string> remote, Remote());
    std::vector<std::string> out;
    for (const std::string& r : remote) out.push_back(HopName(r));
    return out;
  }

 private:
  Result<std::vector<std::string>> Remote() const {
    std::lock_guard<std::mutex> lock(mu_);
    if (remote_) return *remote_;
    HOP_ASSIGN_OR_RETURN(PgResult r,
                         Run(*endpoint_,
                             "SELECT nspname FROM pg_catalog.pg_namespace WHERE nspname NOT LIKE "
                             "'pg\\_%' AND nspname <> 'information_schema' ORDER BY nspname",
                             {}));
    std::vector<std::string> names;
    for (int i = 0; i < Pq().PQntuples(r.get()); ++i) names.push_back(Pq().PQgetvalue(r.get(), i, 0));
    remote_ = names;
    return names;
  }

  std::shared_ptr<const Endpoint> endpoint_;
  Schema base_;
  mutable std::mutex mu_;
  mutable std::optional<std::vector<std::string>> remote_;
};

Result<std::shared_ptr<const Endpoint>> EndpointOf(const Schema& schema) {
  auto config = ParsePostgresUrl(schema.url);
  if (!config.ok()) {
    return Status(config.status().code(),
                  fmt::format("Database {}: {}", schema.database, config.status().message()));
  }
  return MakeEndpoint(schema, std::move(*config));
}

// The PostgreSQL columns of a table hop declares, as format_type() spells their types.
struct WantedColumn {
  std::string name;
  std::string type;
  bool not_null = false;
};

Result<std::vector<WantedColumn>> Wanted(const TableDefinition& table) {
  std::vector<WantedColumn> out;
  for (const Column& c : table.row_type.columns) {
    auto type = PostgresTypeOf(c.type);
    if (!type.ok()) return type.status().WithContext(fmt::format("column {}: ", c.name));
    out.push_back({PostgresName(c.name), *type, c.type.nullability == sql::Nullability::kNotNull});
  }
  return out;
}

}  // namespace

// ---- URLs and credentials ----

bool IsPostgresUri(std::string_view url) {
  return url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0;
}

Result<PostgresConfig> ParsePostgresUrl(std::string_view url) {
  PostgresConfig c;
  bool jdbc = false;
  std::string_view rest;
  if (url.rfind("jdbc:postgresql://", 0) == 0) {
    jdbc = true;
    rest = url.substr(std::string_view("jdbc:postgresql://").size());
  } else if (url.rfind("postgresql://", 0) == 0) {
    rest = url.substr(std::string_view("postgresql://").size());
  } else if (url.rfind("postgres://", 0) == 0) {
    rest = url.substr(std::string_view("postgres://").size());
  } else if (url.rfind(kJdbcPrefix, 0) == 0) {
    return Status::InvalidArgument(
        "a PostgreSQL URL names its server: jdbc:postgresql://host[:port]/database");
  } else {
    return Status::InvalidArgument("not a PostgreSQL URL (jdbc:postgresql:// or postgresql://)");
  }
  std::string_view query;
  if (size_t q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  std::string_view authority = rest, path;
  if (size_t slash = rest.find('/'); slash != std::string_view::npos) {
    authority = rest.substr(0, slash);
    path = rest.substr(slash + 1);
  }
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) {
    std::string_view userinfo = authority.substr(0, at);
    authority = authority.substr(at + 1);
    std::string_view user = userinfo, password;
    bool has_password = false;
    if (size_t colon = userinfo.find(':'); colon != std::string_view::npos) {
      user = userinfo.substr(0, colon);
      password = userinfo.substr(colon + 1);
      has_password = true;
    }
    HOP_ASSIGN_OR_RETURN(std::string u, PercentDecode(user, "the user"));
    if (!u.empty()) SetParam(c, "user", std::move(u));
    if (has_password) {
      HOP_ASSIGN_OR_RETURN(std::string p, PercentDecode(password, "the password"));
      HOP_RETURN_IF_ERROR(SetPassword(c, std::move(p)));
    }
  }
  // host[:port][,host[:port]...], a host maybe [v6].
  std::string hosts, ports;
  bool any_port = false;
  size_t begin = 0;
  while (!authority.empty() && begin <= authority.size()) {
    size_t end = authority.find(',', begin);
    if (end == std::string_view::npos) end = authority.size();
    std::string_view spec = authority.substr(begin, end - begin);
    std::string_view host = spec, port;
    if (!spec.empty() && spec[0] == '[') {
      size_t close = spec.find(']');
      if (close == std::string_view::npos) {
        return Status::InvalidArgument("an IPv6 host without its closing ']'");
      }
      host = spec.substr(1, close - 1);
      if (close + 1 < spec.size()) {
        if (spec[close + 1] != ':') return Status::InvalidArgument("a bad host:port");
        port = spec.substr(close + 2);
      }
    } else if (size_t colon = spec.rfind(':'); colon != std::string_view::npos) {
      host = spec.substr(0, colon);
      port = spec.substr(colon + 1);
    }
    if (!port.empty()) {
      if (port.size() > 5 ||
          !std::all_of(port.begin(), port.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
        return Status::InvalidArgument(fmt::format("the port '{}' is not a number", port));
      }
      any_port = true;
    }
    HOP_ASSIGN_OR_RETURN(std::string h, PercentDecode(host, "the host"));
    if (h.empty() && jdbc) h = "localhost";
    hosts += (begin ? "," : "") + h;
    ports += (begin ? "," : "") + std::string(port);
    begin = end + 1;
  }
  if (authority.empty() && jdbc) hosts = "localhost";
  if (!hosts.empty() && hosts.find_first_not_of(',') != std::string::npos) {
    SetParam(c, "host", hosts);
  }
  if (any_port) SetParam(c, "port", ports);
  if (!path.empty()) {
    HOP_ASSIGN_OR_RETURN(std::string db, PercentDecode(path, "the database name"));
    SetParam(c, "dbname", std::move(db));
  }
  begin = 0;
  bool ssl = false;
  while (begin < query.size()) {
    size_t end = query.find('&', begin);
    if (end == std::string_view::npos) end = query.size();
    std::string_view item = query.substr(begin, end - begin);
    begin = end + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    HOP_ASSIGN_OR_RETURN(std::string key, PercentDecode(item.substr(0, eq), "a parameter's name"));
    HOP_ASSIGN_OR_RETURN(
        std::string value,
        PercentDecode(eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1),
                      fmt::format("parameter {}", key)));
    if (key == "currentSchema") {
      // A search path: its first schema is the one mapped.
      c.schema = value.substr(0, value.find(','));
      if (c.schema.empty()) return Status::InvalidArgument("currentSchema is empty");
      continue;
    }
    if (key == "passwordFile") {
      c.password_file = std::move(value);
      continue;
    }
    if (key == "password") {
      HOP_RETURN_IF_ERROR(SetPassword(c, std::move(value)));
      continue;
    }
    if (!jdbc) {
      SetParam(c, key, std::move(value));  // libpq checks its own keywords
      continue;
    }
    if (key == "ssl") {
      ssl = value.empty() || value == "true";
      continue;
    }
    for (const auto& [name, keyword] : kJdbcParameters) {
      if (key == name) SetParam(c, keyword, value);
    }
  }
  if (ssl && !HasParam(c, "sslmode")) SetParam(c, "sslmode", "require");
  return c;
}

Result<std::vector<std::pair<std::string, std::string>>> ResolveCredentials(
    const PostgresConfig& config) {
  auto params = config.params;
  if (!config.password_env.empty()) {
    const char* value = std::getenv(config.password_env.c_str());
    if (value == nullptr) {
      return Status::Unavailable(
          fmt::format("the password's environment variable {} is not set", config.password_env));
    }
    params.emplace_back("password", value);
  } else if (!config.password_file.empty()) {
    const int fd = ::open(config.password_file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      return Status::Unavailable(fmt::format("cannot read the password file {}: {}",
                                             config.password_file, std::strerror(errno)));
    }
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_mode & 077) != 0) {
      ::close(fd);
      return Status::Unavailable(fmt::format(
          "the password file {} must be a regular file that only its owner can read (chmod 600)",
          config.password_file));
    }
    std::string text;
    char buf[1024];
    ssize_t n;
    while (text.size() < 4096 && (n = ::read(fd, buf, sizeof buf)) > 0) {
      text.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    text = text.substr(0, text.find('\n'));
    if (!text.empty() && text.back() == '\r') text.pop_back();
    params.emplace_back("password", std::move(text));
  }
  return params;
}

// ---- names and types ----

std::string PostgresName(std::string_view hop_name) {
  for (char c : hop_name) {
    if (c >= 'a' && c <= 'z') return std::string(hop_name);
  }
  return AsciiToLower(hop_name);
}

std::string HopName(std::string_view postgres_name) {
  for (char c : postgres_name) {
    if (c >= 'A' && c <= 'Z') return std::string(postgres_name);
  }
  return AsciiToUpper(postgres_name);
}

Result<sql::DataType> CalciteType(const PostgresType& type) {
  using sql::DataType;
  using sql::TypeName;
  auto refuse = [&](std::string_view why) {
    return Status::InvalidArgument(fmt::format("PostgreSQL type {} {}", type.spelled, why));
  };
  if (type.element_oid != 0) {
    PostgresType element{type.element_oid, type.typmod, 0, type.spelled};
    auto e = CalciteType(element);
    if (!e.ok()) return e.status();
    DataType t(TypeName::kArray);
    t.params.push_back(std::move(*e));
    return t;
  }
  const int32_t mod = type.typmod;
  switch (type.oid) {
    case 16: return DataType(TypeName::kBoolean);
    case 17: return DataType(TypeName::kVarbinary);
    case 20: return DataType(TypeName::kBigInt);
    case 21: return DataType(TypeName::kSmallInt);
    case 23: return DataType(TypeName::kInteger);
    case 25:    // text
    case 114:   // json
    case 2950:  // uuid
    case 3802:  // jsonb
      return DataType(TypeName::kVarchar);
    case 700: return DataType(TypeName::kReal);
    case 701: return DataType(TypeName::kDouble);
    case 1042:
    case 1043: {
      DataType t(type.oid == 1042 ? TypeName::kChar : TypeName::kVarchar);
      if (mod >= 4) t.precision = mod - 4;
      return t;
    }
    case 1082: return DataType(TypeName::kDate);
    case 1083:
    case 1114:
    case 1184: {
      DataType t(type.oid == 1083 ? TypeName::kTime : TypeName::kTimestamp);
      t.precision = mod >= 0 ? mod : 6;
      if (type.oid == 1184) t.time_zone = sql::TimeZone::kWithLocalTimeZone;
      return t;
    }
    case 1700: {
      if (mod < 4) {
        return refuse(
            "has no precision, and hop's DECIMAL needs one: declare the column numeric(p, s)");
      }
      const int precision = ((mod - 4) >> 16) & 0xffff;
      const int scale = (mod - 4) & 0xffff;
      if (precision > 18 || scale > precision) {
        return refuse("does not fit hop's DECIMAL, which holds at most 18 digits");
      }
      DataType t(TypeName::kDecimal);
      t.precision = precision;
      t.scale = scale;
      return t;
    }
    default: break;
  }
  return refuse("has no Calcite type in hop");
}

Result<sql::DataType> PostgresColumnType(const sql::DataType& t) {
  using sql::DataType;
  using sql::TypeName;
  auto refuse = [&]() {
    auto printed = sql::PrintType(t);
    return Status::InvalidArgument(
        fmt::format("a PostgreSQL table hop creates cannot have a column of type {}",
                    printed.ok() ? *printed : std::string("this type")));
  };
  auto with_precision = [](TypeName name, std::optional<int> precision) {
    DataType out(name);
    out.precision = precision;
    return out;
  };
  switch (t.name) {
    case TypeName::kBoolean:
    case TypeName::kSmallInt:
    case TypeName::kInteger:
    case TypeName::kBigInt:
    case TypeName::kReal:
    case TypeName::kDate: return DataType(t.name);
    case TypeName::kTinyInt: return DataType(TypeName::kSmallInt);
    case TypeName::kDecimal: {
      const int p = t.precision.value_or(19), s = t.scale.value_or(0);
      if (p > 18 || s > p) {
        return Status::InvalidArgument(fmt::format(
            "DECIMAL({}, {}) cannot be a PostgreSQL column hop reads: it holds decimals of at "
            "most 18 digits",
            p, s));
      }
      DataType out = with_precision(TypeName::kDecimal, p);
      out.scale = s;
      return out;
    }
    case TypeName::kFloat:
    case TypeName::kDouble: return DataType(TypeName::kDouble);
    case TypeName::kChar: return with_precision(TypeName::kChar, t.precision.value_or(1));
    case TypeName::kVarchar: return with_precision(TypeName::kVarchar, t.precision);
    case TypeName::kBinary:
    case TypeName::kVarbinary:
    case TypeName::kBytes: return DataType(TypeName::kBytes);
    case TypeName::kTime:
      if (t.time_zone != sql::TimeZone::kNone) return refuse();
      // Calcite's TIME is TIME(0); PostgreSQL's would be time(6).
      return with_precision(TypeName::kTime, std::clamp(t.precision.value_or(0), 0, 6));
    case TypeName::kTimestamp: {
      if (t.time_zone == sql::TimeZone::kWithTimeZone) return refuse();
      DataType out =
          with_precision(TypeName::kTimestamp, std::clamp(t.precision.value_or(0), 0, 6));
      // An instant (Calcite's WITH LOCAL TIME ZONE) is PostgreSQL's timestamp with time zone.
      if (t.time_zone == sql::TimeZone::kWithLocalTimeZone) {
        out.time_zone = sql::TimeZone::kWithTimeZone;
      }
      return out;
    }
    case TypeName::kArray: {
      if (t.params.empty() || t.params[0].name == TypeName::kArray) return refuse();
      auto element = PostgresColumnType(t.params[0]);
      if (!element.ok()) return refuse();
      DataType out(TypeName::kArray);
      out.params.push_back(std::move(*element));
      return out;
    }
    default: break;
  }
  return refuse();
}

Result<std::string> PostgresTypeOf(const sql::DataType& type) {
  using sql::TypeName;
  HOP_ASSIGN_OR_RETURN(sql::DataType t, PostgresColumnType(type));
  switch (t.name) {
    case TypeName::kBoolean: return std::string("boolean");
    case TypeName::kSmallInt: return std::string("smallint");
    case TypeName::kInteger: return std::string("integer");
    case TypeName::kBigInt: return std::string("bigint");
    case TypeName::kDecimal: return fmt::format("numeric({},{})", *t.precision, *t.scale);
    case TypeName::kReal: return std::string("real");
    case TypeName::kDouble: return std::string("double precision");
    case TypeName::kChar: return fmt::format("character({})", *t.precision);
    case TypeName::kVarchar:
      if (t.precision) return fmt::format("character varying({})", *t.precision);
      return std::string("text");
    case TypeName::kBytes: return std::string("bytea");
    case TypeName::kDate: return std::string("date");
    case TypeName::kTime: return fmt::format("time({}) without time zone", *t.precision);
    case TypeName::kTimestamp:
      return fmt::format("timestamp({}) {} time zone", *t.precision,
                         t.time_zone == sql::TimeZone::kNone ? "without" : "with");
    case TypeName::kArray: {
      HOP_ASSIGN_OR_RETURN(std::string element, PostgresTypeOf(t.params[0]));
      return element + "[]";
    }
    default: break;
  }
  return Status::Internal("PostgresColumnType made a type PostgresTypeOf does not spell");
}

// ---- the adapter ----

Status ConfigurePostgresSchema(Schema& schema) {
  HOP_ASSIGN_OR_RETURN(auto config, ParsePostgresUrl(schema.url));
  schema.remote_schema = config.schema;
  schema.discovery = PostgresTables(schema);
  return Status::OK();
}

std::shared_ptr<const TableDiscovery> PostgresTables(const Schema& schema) {
  auto endpoint = EndpointOf(schema);
  if (!endpoint.ok()) return nullptr;
  return std::make_shared<PgTables>(*endpoint, schema);
}

std::shared_ptr<const SchemaDiscovery> PostgresSchemas(const Schema& base) {
  auto endpoint = EndpointOf(base);
  if (!endpoint.ok()) return nullptr;
  return std::make_shared<PgSchemas>(*endpoint, base);
}

std::shared_ptr<const TableSource> PostgresSource(const Schema& schema, const Table& table) {
  auto endpoint = EndpointOf(schema);
  if (!endpoint.ok()) return nullptr;
  std::vector<ScanColumn> columns;
  for (const Column& c : table.row_type.columns) {
    if (!PostgresTypeOf(c.type).ok()) return nullptr;  // no such column hop could have made
    auto sc = MakeScanColumn(PostgresName(c.name), c.type, /*text_like=*/true);
    if (!sc.ok()) return nullptr;  // the engine then says it cannot read the table
    columns.push_back(std::move(*sc));
  }
  return std::make_shared<PgSource>(*endpoint, schema.remote_schema, PostgresName(table.name),
                                    std::move(columns), 1000.0);
}

Result<bool> PostgresProvisioner::Exists(const Schema& schema, const TableDefinition& table) {
  HOP_ASSIGN_OR_RETURN(auto endpoint, EndpointOf(schema));
  const std::string name = PostgresName(table.path.back());
  HOP_ASSIGN_OR_RETURN(std::vector<FoundTable> found,
                       ReadTables(*endpoint, schema.remote_schema, {name}));
  if (found.empty()) return false;
  HOP_ASSIGN_OR_RETURN(std::vector<WantedColumn> want, Wanted(table));
  const auto& have = found.front().columns;
  bool same = have.size() == want.size();
  for (size_t i = 0; same && i < have.size(); ++i) {
    // Types compare as hop would create them (`timestamptz` is `timestamp(6) with time zone`).
    auto calcite = CalciteType(have[i].type);
    auto spelled = calcite.ok() ? PostgresTypeOf(*calcite) : Result<std::string>(calcite.status());
    same = have[i].name == want[i].name && spelled.ok() && *spelled == want[i].type &&
           have[i].not_null == want[i].not_null;
  }
  if (same) return true;
  std::string columns;
  for (const auto& c : have) {
    columns += (columns.empty() ? "" : ", ") + c.name + " " + c.type.spelled +
               (c.not_null ? " NOT NULL" : "");
  }
  return Status::AlreadyExists(fmt::format(
      "PostgreSQL already has a table {}.{} with other columns ({}); drop it there, or declare "
      "those columns",
      schema.remote_schema, name, columns));
}

namespace {

// The CREATE TABLE of a table hop provisions, into `ddl`. Errors: a column whose type has no
// PostgreSQL form.
Status BuildCreate(const Schema& schema, const TableDefinition& table,
                   sql::CreateTableStatement& ddl) {
  ddl.name = Names({schema.remote_schema, PostgresName(table.path.back())});
  for (const Column& c : table.row_type.columns) {
    sql::ColumnDef def;
    def.name = sql::Identifier(PostgresName(c.name));
    auto type = PostgresColumnType(c.type);
    if (!type.ok()) return type.status().WithContext(fmt::format("column {}: ", c.name));
    if (c.type.nullability == sql::Nullability::kNotNull) {
      type->nullability = sql::Nullability::kNotNull;
    }
    def.type = std::move(*type);
    ddl.columns.push_back(std::move(def));
  }
  return Status::OK();
}

}  // namespace

Status PostgresProvisioner::Check(const Schema& schema, const TableDefinition& table) {
  HOP_RETURN_IF_ERROR(EndpointOf(schema).status());
  sql::CreateTableStatement ddl;
  return BuildCreate(schema, table, ddl);
}

Status PostgresProvisioner::Drop(const Schema& schema, const TableDefinition& table) {
  HOP_ASSIGN_OR_RETURN(auto endpoint, EndpointOf(schema));
  sql::DropStatement drop;
  drop.object = sql::ObjectKind::kTable;
  drop.if_exists = true;
  drop.name = Names({schema.remote_schema, PostgresName(table.path.back())});
  HOP_ASSIGN_OR_RETURN(std::string text, Print(drop));
  return Run(*endpoint, text, {}).status();
}

namespace {

// SQLSTATE undefined_table: LOCK TABLE of a table that is not there (or was dropped while the
// lock was awaited).
constexpr std::string_view kUndefinedTable = "42P01";

// `"schema"."table"`: the table a provisioner makes for `table`, quoted for a statement that
// has no syntax tree in sql/ (LOCK TABLE).
std::string QuotedTable(const Schema& schema, const TableDefinition& table) {
  return sql::QuoteIdentifier(schema.remote_schema, sql::Dialect::kPostgres) + "." +
         sql::QuoteIdentifier(PostgresName(table.path.back()), sql::Dialect::kPostgres);
}

// One transaction on a pooled connection, rolled back when it goes uncommitted.
class PgTransaction {
 public:
  explicit PgTransaction(const Endpoint& endpoint) : endpoint_(endpoint) {}
  ~PgTransaction() {
    if (open_) Pq().PQclear(Pq().PQexec(lease_.get(), "ROLLBACK"));
  }
  PgTransaction(const PgTransaction&) = delete;
  PgTransaction& operator=(const PgTransaction&) = delete;

  // BEGIN; a reused connection the server dropped meanwhile (a restart) is replaced once.
  Status Begin() {
    for (int attempt = 0;; ++attempt) {
      bool reused = false;
      HOP_ASSIGN_OR_RETURN(PgConn conn, Pool::Get().Acquire(endpoint_, reused));
      lease_ = Lease(endpoint_.key, std::move(conn));
      PgResult r(Pq().PQexec(lease_.get(), "BEGIN"));
      if (Succeeded(r)) {
        open_ = true;
        return Status::OK();
      }
      if (reused && attempt == 0 && Dropped(lease_.get(), r.get())) {
        lease_.Discard();
        continue;
      }
      return Error(r);
    }
  }
  // Runs one statement. Errors: the server's message; `*sqlstate`, when not null, is then the
  // error's SQLSTATE.
  Status Exec(const std::string& sql, std::string* sqlstate = nullptr) {
    PgResult r = ExecParams(lease_.get(), sql, {});
    if (Succeeded(r)) return Status::OK();
    if (sqlstate != nullptr) {
      const char* state = r ? Pq().PQresultErrorField(r.get(), PG_DIAG_SQLSTATE) : nullptr;
      *sqlstate = state == nullptr ? "" : state;
    }
    return Error(r);
  }
  Status Commit() {
    open_ = false;
    return Exec("COMMIT");
  }

 private:
  Status Error(const PgResult& r) const {
    return Status::ExecutionError(
        fmt::format("{}: PostgreSQL: {}", endpoint_.Name(), ServerMessage(r.get(), lease_.get())));
  }

  const Endpoint& endpoint_;
  Lease lease_;
  bool open_ = false;
};

}  // namespace

Status PostgresProvisioner::DropUnlessInUse(const Schema& schema, const TableDefinition& table,
                                            const std::function<Result<bool>()>& in_use) {
  HOP_ASSIGN_OR_RETURN(auto endpoint, EndpointOf(schema));
  const std::string name = QuotedTable(schema, table);
  PgTransaction txn(*endpoint);
  HOP_RETURN_IF_ERROR(txn.Begin());
  // From the lock to the commit no EnsureExists of the table runs: a statement that commits
  // objects relying on the table after in_use() looked makes sure of it once the drop is done.
  std::string state;
  Status locked = txn.Exec(fmt::format("LOCK TABLE {} IN ACCESS EXCLUSIVE MODE", name), &state);
  if (state == kUndefinedTable) return Status::OK();  // gone already: nothing to drop
  HOP_RETURN_IF_ERROR(locked);
  HOP_ASSIGN_OR_RETURN(bool used, in_use());
  if (used) return Status::OK();  // kept; the transaction is rolled back
  HOP_RETURN_IF_ERROR(txn.Exec("DROP TABLE " + name));
  return txn.Commit();
}

Result<bool> PostgresProvisioner::EnsureExists(const Schema& schema, const TableDefinition& table) {
  HOP_ASSIGN_OR_RETURN(auto endpoint, EndpointOf(schema));
  {
    PgTransaction txn(*endpoint);
    HOP_RETURN_IF_ERROR(txn.Begin());
    // Waits for an undo that holds the table's lock; PostgreSQL looks the name up again once it
    // has the lock, so a table the undo dropped is undefined_table here.
    std::string state;
    Status locked = txn.Exec(
        fmt::format("LOCK TABLE {} IN ACCESS SHARE MODE", QuotedTable(schema, table)), &state);
    if (locked.ok()) {
      HOP_RETURN_IF_ERROR(txn.Commit());
      return false;
    }
    if (state != kUndefinedTable) return locked;
  }
  // Dropped (by an undo that found nothing relying on it yet, or by hand). A table another
  // writer creates meanwhile is as good as this one.
  Status created = Create(schema, table);
  if (created.ok()) return true;
  auto exists = Exists(schema, table);
  if (exists.ok() && *exists) return false;
  return created;
}

Status PostgresProvisioner::Create(const Schema& schema, const TableDefinition& table) {
  HOP_ASSIGN_OR_RETURN(auto endpoint, EndpointOf(schema));
  sql::CreateTableStatement ddl;
  HOP_RETURN_IF_ERROR(BuildCreate(schema, table, ddl));
  HOP_ASSIGN_OR_RETURN(std::string text, Print(ddl));
  // The table and its mark in one transaction: no table of hop's is ever without it.
  PgTransaction txn(*endpoint);
  HOP_RETURN_IF_ERROR(txn.Begin());
  HOP_RETURN_IF_ERROR(txn.Exec(text));
  HOP_RETURN_IF_ERROR(txn.Exec(fmt::format("COMMENT ON TABLE {} IS {}", QuotedTable(schema, table),
                                           sql::QuoteString(kMadeByHopComment))));
  return txn.Commit();
}

Result<bool> PostgresProvisioner::MadeByHop(const Schema& schema, const TableDefinition& table) {
  HOP_ASSIGN_OR_RETURN(auto endpoint, EndpointOf(schema));
  HOP_ASSIGN_OR_RETURN(
      PgResult r,
      Run(*endpoint,
          "SELECT obj_description(c.oid, 'pg_class') FROM pg_class c JOIN pg_namespace n ON "
          "n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2",
          {schema.remote_schema, PostgresName(table.path.back())}));
  if (Pq().PQntuples(r.get()) < 1) return false;
  const std::optional<std::string> comment = Cell(r.get(), 0, 0);
  return comment && *comment == kMadeByHopComment;
}

// ---- writing rows ----

struct PostgresTableWriter::State {
  std::shared_ptr<const Endpoint> endpoint;
  Lease lease;
  std::string remote_schema;
  std::string table;  // PostgreSQL's name
  RowType columns;    // hop's names and types, in the order rows give them
  std::vector<std::string> key;
  bool copying = false;
  bool committed = false;
  int64_t rows = 0;

  PGconn* conn() const { return lease.get(); }

  // The server's `message` about this write, as an error.
  Status Error(const std::string& message) const {
    return Status::ExecutionError(fmt::format("{}: PostgreSQL: {} (writing {}.{})",
                                              endpoint->Name(), message, remote_schema, table));
  }
  Result<PgResult> Exec(const std::string& sql, const std::vector<std::string>& params = {}) {
    PgResult r = ExecParams(conn(), sql, params);
    if (Succeeded(r)) return r;
    return Error(ServerMessage(r.get(), conn()));
  }
  Status Exec(const sql::Statement& statement) {
    HOP_ASSIGN_OR_RETURN(std::string text, Print(statement));
    return Exec(text).status();
  }

  // Where the rows go first: the table itself, or, for an upsert, a temporary table merged into
  // it at the end.
  sql::QualifiedName Target() const {
    return key.empty() ? Names({remote_schema, table}) : Names({"hop_refresh_rows"});
  }
  std::vector<sql::Identifier> ColumnNames() const {
    std::vector<sql::Identifier> out;
    for (const Column& c : columns.columns) out.emplace_back(PostgresName(c.name));
    return out;
  }

  // Clears the table (replacing) or makes the temporary table (upserting).
  Status Prepare() {
    if (key.empty()) {
      sql::DeleteStatement clear;
      clear.target = Names({remote_schema, table});
      return Exec(clear);
    }
    sql::CreateTableStatement temp;
    temp.temporary = true;
    temp.name = Target();
    for (const Column& c : columns.columns) {
      sql::ColumnDef def;
      def.name = sql::Identifier(PostgresName(c.name));
      auto type = PostgresColumnType(c.type);
      if (!type.ok()) return type.status().WithContext(fmt::format("column {}: ", c.name));
      def.type = std::move(*type);
      temp.columns.push_back(std::move(def));
    }
    return Exec(temp);
  }

  // The upsert's merge of the temporary table into the table.
  Result<int64_t> Merge() {
    sql::InsertStatement merge;
    merge.target = Names({remote_schema, table});
    merge.columns = ColumnNames();
    for (const std::string& k : key) merge.conflict_columns.emplace_back(k);
    auto body = std::make_unique<sql::SelectBody>();
    for (const auto& c : merge.columns) body->items.push_back({ColumnOf(c.name), std::nullopt});
    auto from = std::make_unique<sql::BaseTableRef>();
    from->name = Target();
    body->from = std::move(from);
    merge.query = std::make_unique<sql::Query>();
    merge.query->body = std::move(body);
    HOP_ASSIGN_OR_RETURN(std::string text, Print(merge));
    HOP_ASSIGN_OR_RETURN(PgResult r, Exec(text));
    const int64_t merged = std::strtoll(Pq().PQcmdTuples(r.get()), nullptr, 10);
    sql::DropStatement drop;
    drop.object = sql::ObjectKind::kTable;
    drop.name = Target();
    HOP_RETURN_IF_ERROR(Exec(drop));
    return merged;
  }
};

PostgresTableWriter::PostgresTableWriter(std::unique_ptr<State> state)
    : state_(std::move(state)) {}

PostgresTableWriter::~PostgresTableWriter() {
  if (!state_ || state_->committed || state_->conn() == nullptr) return;
  PGconn* conn = state_->conn();
  if (state_->copying) {
    Pq().PQputCopyEnd(conn, "the refresh stopped");
    while (PGresult* r = Pq().PQgetResult(conn)) Pq().PQclear(r);
  }
  Pq().PQclear(Pq().PQexec(conn, "ROLLBACK"));  // the pool keeps the connection only if this worked
}

Result<std::unique_ptr<PostgresTableWriter>> PostgresTableWriter::Begin(const Schema& schema,
                                                                         std::string_view table,
                                                                         const RowType& columns) {
  auto state = std::make_unique<State>();
  HOP_ASSIGN_OR_RETURN(state->endpoint, EndpointOf(schema));
  state->remote_schema = schema.remote_schema;
  state->table = PostgresName(table);
  state->columns = columns;
  for (int attempt = 0;; ++attempt) {
    bool reused = false;
    HOP_ASSIGN_OR_RETURN(PgConn conn, Pool::Get().Acquire(*state->endpoint, reused));
    state->lease = Lease(state->endpoint->key, std::move(conn));
    PgResult r(Pq().PQexec(state->conn(), "BEGIN"));
    if (r && Pq().PQresultStatus(r.get()) == PGRES_COMMAND_OK) break;
    if (reused && attempt == 0 && Dropped(state->conn(), r.get())) {
      state->lease.Discard();
      continue;  // a connection the server ended while it was idle
    }
    return Status::ExecutionError(fmt::format("{}: PostgreSQL: {}", state->endpoint->Name(),
                                              ServerMessage(r.get(), state->conn())));
  }
  HOP_ASSIGN_OR_RETURN(
      PgResult found,
      state->Exec("SELECT c.oid FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON "
                  "n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2 AND "
                  "c.relkind IN ('r', 'p')",
                  {state->remote_schema, state->table}));
  if (Pq().PQntuples(found.get()) == 0) {
    return Status::NotFound(fmt::format("{}: PostgreSQL has no table {}.{} to write rows into",
                                        state->endpoint->Name(), state->remote_schema,
                                        state->table));
  }
  const std::string oid = Pq().PQgetvalue(found.get(), 0, 0);
  HOP_ASSIGN_OR_RETURN(
      PgResult key,
      state->Exec("SELECT a.attname FROM pg_catalog.pg_index i JOIN pg_catalog.pg_attribute a ON "
                  "a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = "
                  "$1::oid AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)",
                  {oid}));
  for (int i = 0; i < Pq().PQntuples(key.get()); ++i) state->key.push_back(Pq().PQgetvalue(key.get(), i, 0));
  for (const std::string& k : state->key) {
    const auto names = state->ColumnNames();
    if (std::none_of(names.begin(), names.end(), [&](const auto& n) { return n.name == k; })) {
      return Status::InvalidArgument(fmt::format(
          "{}: the rows written into {}.{} have no column {}, which is its primary key",
          state->endpoint->Name(), state->remote_schema, state->table, k));
    }
  }
  // One writer at a time: a second refresh waits here, and then sees the first one's rows.
  const std::string lock = fmt::format(
      "LOCK TABLE {}.{} IN SHARE ROW EXCLUSIVE MODE",
      sql::QuoteIdentifier(state->remote_schema, sql::Dialect::kPostgres),
      sql::QuoteIdentifier(state->table, sql::Dialect::kPostgres));
  HOP_RETURN_IF_ERROR(state->Exec(lock).status());
  return std::unique_ptr<PostgresTableWriter>(new PostgresTableWriter(std::move(state)));
}

const std::vector<std::string>& PostgresTableWriter::key() const { return state_->key; }

std::string PostgresTableWriter::Name() const {
  return state_->remote_schema + "." + state_->table;
}

std::optional<std::vector<std::string>> PostgresTablePath(const Table& table) {
  auto* pg = dynamic_cast<const PgSource*>(table.source.get());
  if (pg == nullptr) return std::nullopt;
  return pg->RemotePath();
}

bool PostgresTableIn(const Table& table, const Schema& schema) {
  auto* pg = dynamic_cast<const PgSource*>(table.source.get());
  if (pg == nullptr || schema.adapter != Adapter::kPostgres) return false;
  auto endpoint = EndpointOf(schema);
  return endpoint.ok() && (*endpoint)->key == pg->endpoint().key;
}

Status PostgresTableWriter::CheckColumns(const Table& table) {
  State& s = *state_;
  std::string remote_schema = s.remote_schema;
  std::string remote_table = PostgresName(table.name);
  if (auto path = PostgresTablePath(table)) {
    remote_schema = (*path)[0];
    remote_table = (*path)[1];
  }
  static const std::string kOne = std::string(kColumnsQuery) + " AND c.relname = $2";
  HOP_ASSIGN_OR_RETURN(PgResult r, s.Exec(kOne, {remote_schema, remote_table}));
  std::map<std::string, std::string> have;  // PostgreSQL's name: the type as hop would spell it
  for (int i = 0; i < Pq().PQntuples(r.get()); ++i) {
    PostgresType type;
    type.oid = static_cast<uint32_t>(std::strtoul(Pq().PQgetvalue(r.get(), i, 2), nullptr, 10));
    type.typmod = static_cast<int32_t>(std::strtol(Pq().PQgetvalue(r.get(), i, 3), nullptr, 10));
    type.element_oid =
        static_cast<uint32_t>(std::strtoul(Pq().PQgetvalue(r.get(), i, 4), nullptr, 10));
    type.spelled = Pq().PQgetvalue(r.get(), i, 5);
    auto calcite = CalciteType(type);
    auto spelled = calcite.ok() ? PostgresTypeOf(*calcite) : Result<std::string>(type.spelled);
    have[Pq().PQgetvalue(r.get(), i, 1)] = spelled.ok() ? *spelled : type.spelled;
  }
  const std::string where =
      fmt::format("{}: table {}.{}", s.endpoint->Name(), remote_schema, remote_table);
  if (have.empty()) return Status::ExecutionError(where + " is not in PostgreSQL any more");
  for (const Column& c : table.row_type.columns) {
    const std::string name = PostgresName(c.name);
    HOP_ASSIGN_OR_RETURN(std::string want, PostgresTypeOf(c.type));
    auto found = have.find(name);
    if (found == have.end()) {
      return Status::ExecutionError(fmt::format(
          "{} has no column {} any more, which hop's table {} declares ({}); the refresh writes "
          "nothing until they agree again",
          where, name, table.QualifiedName(), want));
    }
    if (found->second != want) {
      return Status::ExecutionError(fmt::format(
          "{}, column {}, is {} in PostgreSQL and {} in hop's table {}: it was changed in "
          "PostgreSQL, and the rows would be converted without a word; the refresh writes "
          "nothing until they agree again (make the column {} again, or drop and create the "
          "table in hop)",
          where, name, found->second, want, table.QualifiedName(), want));
    }
  }
  return Status::OK();
}

Status PostgresTableWriter::StartCopy() {
  HOP_RETURN_IF_ERROR(state_->Prepare());
  sql::CopyFromStdinStatement copy;
  copy.target = state_->Target();
  copy.columns = state_->ColumnNames();
  HOP_ASSIGN_OR_RETURN(std::string text, Print(copy));
  HOP_RETURN_IF_ERROR(state_->Exec(text).status());
  state_->copying = true;
  return Status::OK();
}

Status PostgresTableWriter::Write(std::string_view rows) {
  if (!state_->copying) return Status::Internal("PostgresTableWriter::Write before StartCopy");
  if (Pq().PQputCopyData(state_->conn(), rows.data(), static_cast<int>(rows.size())) != 1) {
    return state_->Error(OneLine(Pq().PQerrorMessage(state_->conn())));
  }
  return Status::OK();
}

Status PostgresTableWriter::InsertQuery(std::unique_ptr<sql::Query> query) {
  State& s = *state_;
  // A query the server refuses leaves the transaction as it was, for the rows to come by COPY.
  HOP_RETURN_IF_ERROR(s.Exec("SAVEPOINT hop_insert").status());
  sql::InsertStatement insert;
  insert.target = Names({s.remote_schema, s.table});
  insert.columns = s.ColumnNames();
  for (const std::string& k : s.key) insert.conflict_columns.emplace_back(k);
  insert.query = std::move(query);
  PgResult done;
  Status st = s.key.empty() ? s.Prepare() : Status::OK();
  if (st.ok()) {
    auto text = Print(insert);
    auto r = text.ok() ? s.Exec(*text) : Result<PgResult>(text.status());
    st = r.status();
    if (r.ok()) done = std::move(r).value();
  }
  if (!st.ok()) {
    HOP_RETURN_IF_ERROR(s.Exec("ROLLBACK TO SAVEPOINT hop_insert").status());
    return st;
  }
  s.rows = std::strtoll(Pq().PQcmdTuples(done.get()), nullptr, 10);
  return s.Exec("RELEASE SAVEPOINT hop_insert").status();
}

Result<int64_t> PostgresTableWriter::Commit() {
  State& s = *state_;
  if (s.copying) {
    s.copying = false;
    if (Pq().PQputCopyEnd(s.conn(), nullptr) != 1) return s.Error(OneLine(Pq().PQerrorMessage(s.conn())));
    PgResult r(Pq().PQgetResult(s.conn()));
    while (PGresult* more = Pq().PQgetResult(s.conn())) Pq().PQclear(more);
    if (!r || Pq().PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
      return s.Error(ServerMessage(r.get(), s.conn()));
    }
    s.rows = std::strtoll(Pq().PQcmdTuples(r.get()), nullptr, 10);
    if (!s.key.empty()) {
      HOP_ASSIGN_OR_RETURN(s.rows, s.Merge());
    }
  }
  HOP_RETURN_IF_ERROR(s.Exec("COMMIT").status());
  s.committed = true;
  return s.rows;
}

int PostgresOpenConnections() { return Pool::Get().open(); }
int PostgresConnectionAttempts() { return Pool::Get().attempts(); }

}  // namespace hop::catalog
