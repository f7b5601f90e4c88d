// SQLite wrapper implementation.
#include "store/sqlite.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace hop::store::sqlite {

// Prepared statements not in use, by their SQL text. Preparing costs more than running most of
// hop's statements, so each text is prepared once per connection.
struct StatementCache {
  static constexpr size_t kMaxIdlePerText = 4;
  std::mutex mu;
  std::unordered_map<std::string, std::vector<sqlite3_stmt*>> idle;
};

namespace {

// For an error that says the file itself is damaged or not a database: the file, not hop, is at
// fault, so the message names it and what to do. Empty for any other error.
std::string DamagedFileAdvice(sqlite3* db, int code) {
  const int primary = code & 0xff;
  if (primary != SQLITE_CORRUPT && primary != SQLITE_NOTADB) return "";
  const char* file = db ? sqlite3_db_filename(db, "main") : nullptr;
  return fmt::format(
      ": {} is damaged or is not a hop store. Move it aside to start a new, empty store, or "
      "restore it from a backup",
      file != nullptr && *file != '\0' ? file : "the database file");
}

}  // namespace

Status ErrorStatus(sqlite3* db, std::string_view what) {
  const int code = db ? sqlite3_extended_errcode(db) : SQLITE_ERROR;
  const char* msg = db ? sqlite3_errmsg(db) : "no database";
  std::string text = fmt::format("{}: {} (sqlite error {})", what, msg, code);
  const int primary = code & 0xff;
  if (std::string advice = DamagedFileAdvice(db, code); !advice.empty()) {
    return Status::Unavailable(text + advice);
  }
  // A busy or locked database, or a full disk, may clear up; anything else is a fault.
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED || primary == SQLITE_FULL ||
      primary == SQLITE_IOERR) {
    return Status::Unavailable(std::move(text));
  }
  return Status::Internal(std::move(text));
}

Database::Database() = default;
Database::Database(sqlite3* db) : db_(db), cache_(std::make_unique<StatementCache>()) {}

void Database::Close() {
  if (cache_) {
    for (auto& [text, stmts] : cache_->idle) {
      for (sqlite3_stmt* stmt : stmts) sqlite3_finalize(stmt);
    }
    cache_->idle.clear();
  }
  if (db_) sqlite3_close_v2(db_);
  db_ = nullptr;
}

Database::~Database() { Close(); }

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), cache_(std::move(other.cache_)) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    Close();
    db_ = std::exchange(other.db_, nullptr);
    cache_ = std::move(other.cache_);
  }
  return *this;
}

Result<Database> Database::Open(const std::string& path) {
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    Status s = ErrorStatus(db, "cannot open " + path);
    sqlite3_close_v2(db);
    return Status::Unavailable(s.message());
  }
  sqlite3_extended_result_codes(db, 1);
  return Database(db);
}

Status Database::Exec(std::string_view sql) {
  std::string text(sql);
  char* err = nullptr;
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    Status s = ErrorStatus(db_, "exec");
    return Status(s.code(), fmt::format("{} in: {}{}", msg, text.substr(0, 80),
                                        DamagedFileAdvice(db_, sqlite3_extended_errcode(db_))));
  }
  return Status::OK();
}

Result<Statement> Database::Prepare(std::string_view sql) {
  const std::string* key = nullptr;
  if (cache_) {
    std::lock_guard<std::mutex> lock(cache_->mu);
    auto it = cache_->idle.try_emplace(std::string(sql)).first;
    key = &it->first;
    if (!it->second.empty()) {
      sqlite3_stmt* stmt = it->second.back();
      it->second.pop_back();
      return Statement(stmt, db_, cache_.get(), key);
    }
  }
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                         &stmt, nullptr) != SQLITE_OK) {
    return ErrorStatus(db_, fmt::format("prepare '{}'", sql.substr(0, 60)));
  }
  return Statement(stmt, db_, cache_.get(), key);
}

int64_t Database::Changes() const { return sqlite3_changes64(db_); }

void Statement::Release() {
  if (!stmt_) return;
  sqlite3_stmt* stmt = std::exchange(stmt_, nullptr);
  if (cache_ && key_) {
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    std::lock_guard<std::mutex> lock(cache_->mu);
    auto& idle = cache_->idle[*key_];
    if (idle.size() < StatementCache::kMaxIdlePerText) {
      idle.push_back(stmt);
      return;
    }
  }
  sqlite3_finalize(stmt);
}

Statement::~Statement() { Release(); }

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)),
      db_(other.db_),
      cache_(other.cache_),
      key_(other.key_) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    Release();
    stmt_ = std::exchange(other.stmt_, nullptr);
    db_ = other.db_;
    cache_ = other.cache_;
    key_ = other.key_;
  }
  return *this;
}

Statement& Statement::Bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Statement& Statement::Bind(int index, std::string_view value) {
  sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  return *this;
}

Result<bool> Statement::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return ErrorStatus(db_, "step");
}

Status Statement::Run() {
  auto r = Step();
  if (!r.ok()) return r.status();
  return Status::OK();
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Statement::ColumnInt(int index) const { return sqlite3_column_int64(stmt_, index); }

std::string_view Statement::ColumnText(int index) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, index));
  const int n = sqlite3_column_bytes(stmt_, index);
  return p ? std::string_view(p, static_cast<size_t>(n)) : std::string_view();
}

bool Statement::ColumnIsNull(int index) const {
  return sqlite3_column_type(stmt_, index) == SQLITE_NULL;
}

}  // namespace hop::store::sqlite
