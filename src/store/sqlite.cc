// SQLite wrapper implementation.
#include "store/sqlite.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/files.h"

namespace hop::store::sqlite {

// Prepared statements not in use, by their SQL text. Preparing costs more than running most of
// hop's statements, so each text is prepared once per connection.
// It also keeps what Database::TakeNoSpaceLeft reports, for the statements that go back to it.
struct StatementCache {
  static constexpr size_t kMaxIdlePerText = 4;
  std::mutex mu;
  std::unordered_map<std::string, std::vector<sqlite3_stmt*>> idle;
  std::atomic<bool> no_space_left{false};
};

namespace {

// The file of `db`'s main database; "" when there is none.
std::string FileOf(sqlite3* db) {
  const char* file = db ? sqlite3_db_filename(db, "main") : nullptr;
  return file != nullptr ? std::string(file) : std::string();
}

// For an error that says the file itself is damaged or not a database: the file, not hop, is at
// fault, so the message names it and what to do. Empty for any other error.
std::string DamagedFileAdvice(sqlite3* db, int code) {
  const int primary = code & 0xff;
  if (primary != SQLITE_CORRUPT && primary != SQLITE_NOTADB) return "";
  const std::string file = FileOf(db);
  return fmt::format(
      ": {} is damaged or is not a hop store. Move it aside to start a new, empty store, or "
      "restore it from a backup",
      !file.empty() ? file : "the database file");
}

// ---- the VFS: SQLite's own, with the WAL's directory entry made durable once ----
//
// SQLite's unix VFS fsyncs a WAL's directory at the first sync of every connection that opened
// the WAL with SQLITE_OPEN_CREATE, as every connection does, so that a WAL it may have just
// created cannot lose its directory entry to a crash. For a WAL that already existed and whose
// entry was made durable before, that is one needless fsync per process that writes (a `hop -e`
// pays it on every statement). hop's VFS opens such a WAL without SQLITE_OPEN_CREATE, which
// skips that fsync. A WAL's entry is known to be durable when the marker file beside it names
// the WAL's identity (device, inode and birth time): the store writes the marker at its first
// sync of the WAL, after an fsync of the directory (docs/store.md, "The WAL's directory entry").

struct FileIdentity {
  uint64_t dev = 0;
  uint64_t ino = 0;
  int64_t born_sec = 0;
  uint32_t born_nsec = 0;
  std::string Text() const {
    return fmt::format("{} {} {}.{:09}\n", dev, ino, born_sec, born_nsec);
  }
};

// The file's identity, or nullopt when it does not exist or its birth time is unknown (a file
// system that does not keep it: without it a new file could not be told from an old one of the
// same inode number).
std::optional<FileIdentity> IdentityOf(const char* path) {
  struct statx sx {};
  if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_BTIME, &sx) != 0) {
    return std::nullopt;
  }
  if ((sx.stx_mask & STATX_BTIME) == 0 || (sx.stx_mask & STATX_INO) == 0) return std::nullopt;
  FileIdentity id;
  id.dev = (static_cast<uint64_t>(sx.stx_dev_major) << 32) | sx.stx_dev_minor;
  id.ino = sx.stx_ino;
  id.born_sec = sx.stx_btime.tv_sec;
  id.born_nsec = sx.stx_btime.tv_nsec;
  return id;
}

std::string MarkerPathOf(std::string_view wal_path) { return std::string(wal_path) + "-durable"; }

// What the marker holds; "" when it cannot be read.
std::string ReadMarker(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return "";
  char buf[128];
  const ssize_t n = ::read(fd, buf, sizeof(buf));
  ::close(fd);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

sqlite3_vfs* g_base_vfs = nullptr;  // the default VFS, which hop's wraps
sqlite3_vfs g_hop_vfs;
constexpr const char* kHopVfsName = "hop";

int HopOpen(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  if (name != nullptr && (flags & SQLITE_OPEN_WAL) && (flags & SQLITE_OPEN_CREATE)) {
    const std::optional<FileIdentity> before = IdentityOf(name);
    if (before && ReadMarker(MarkerPathOf(name)) == before->Text()) {
      const int rc =
          g_base_vfs->xOpen(g_base_vfs, name, file, flags & ~SQLITE_OPEN_CREATE, out_flags);
      if (rc == SQLITE_OK) {
        // The file opened is the one checked unless the name was given to another file in
        // between (its last user deleted it and someone made a new one): then it is opened
        // again the usual way.
        const std::optional<FileIdentity> after = IdentityOf(name);
        if (after && after->Text() == before->Text()) return SQLITE_OK;
        if (file->pMethods != nullptr) file->pMethods->xClose(file);
        file->pMethods = nullptr;
      }
    }
  }
  return g_base_vfs->xOpen(g_base_vfs, name, file, flags, out_flags);
}

// hop's VFS, registered (not as the default) at the first open.
const char* HopVfs() {
  static std::once_flag once;
  static const char* name = nullptr;
  std::call_once(once, [] {
    g_base_vfs = sqlite3_vfs_find(nullptr);
    if (g_base_vfs == nullptr) return;
    g_hop_vfs = *g_base_vfs;
    g_hop_vfs.pNext = nullptr;
    g_hop_vfs.zName = kHopVfsName;
    g_hop_vfs.xOpen = HopOpen;
    if (sqlite3_vfs_register(&g_hop_vfs, 0) == SQLITE_OK) name = kHopVfsName;
  });
  return name;
}

}  // namespace

void MarkWalDurable(const std::string& wal_path) {
  const std::optional<FileIdentity> id = IdentityOf(wal_path.c_str());
  if (!id) return;
  const std::string marker = MarkerPathOf(wal_path);
  const std::string text = id->Text();
  if (ReadMarker(marker) == text) return;
  // A marker cut short by a crash names no file: the next connection then does the fsync.
  const int fd = OpenPrivateFile(marker, O_WRONLY | O_TRUNC);
  if (fd < 0) return;
  [[maybe_unused]] ssize_t n = ::write(fd, text.data(), text.size());
  ::close(fd);
}

bool WalMarkedDurable(const std::string& wal_path) {
  const std::optional<FileIdentity> id = IdentityOf(wal_path.c_str());
  return id && ReadMarker(MarkerPathOf(wal_path)) == id->Text();
}

bool NoSpaceLeft(int code, int system_errno) {
  const int primary = code & 0xff;
  const bool io = primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN;
  return primary == SQLITE_FULL || (io && (system_errno == ENOSPC || system_errno == EDQUOT));
}

std::string StorageProblem(int code, int system_errno, const StoragePlace& place) {
  const int primary = code & 0xff;
  const std::string& dir = place.directory;
  const std::string or_elsewhere = place.elsewhere.empty() ? "" : ", or " + place.elsewhere;
  const bool io = primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN;
  if (NoSpaceLeft(code, system_errno)) {
    return fmt::format(
        "{} has no space left ({}): hop cannot write {} there. Free some space on its file "
        "system{}",
        dir, system_errno == EDQUOT ? "the disk quota is used up" : "the disk is full", place.what,
        or_elsewhere);
  }
  if ((io || primary == SQLITE_READONLY) && system_errno == EROFS) {
    return fmt::format(
        "{} is on a read-only file system: hop cannot write {} there. Mount it read-write{}", dir,
        place.what, or_elsewhere);
  }
  if (primary == SQLITE_READONLY || (io && (system_errno == EACCES || system_errno == EPERM))) {
    return fmt::format(
        "{} is read-only to this user: hop cannot write {} there. Make the directory and the "
        "files in it writable by this user{}",
        dir, place.what, or_elsewhere);
  }
  if (io && system_errno == EIO) {
    return fmt::format(
        "the device of {} failed to read or write {} (an I/O error): the disk may be failing. "
        "Check it{}",
        dir, place.what, place.damaged.empty() ? "" : ", and " + place.damaged);
  }
  return "";
}

std::string StorageProblem(int code, int system_errno, std::string_view file) {
  StoragePlace place;
  place.directory = file.empty() ? std::string("the state directory")
                                 : fmt::format("the state directory {}",
                                               std::filesystem::path(file).parent_path().string());
  place.what = "its store";
  place.elsewhere = "use another state directory";
  place.damaged = "restore the store from a backup if its data is damaged";
  return StorageProblem(code, system_errno, place);
}

int StorageErrno(int code, int system_errno, const std::string& dir) {
  const int primary = code & 0xff;
  if (primary != SQLITE_CANTOPEN && primary != SQLITE_READONLY) return system_errno;
  if (system_errno == EROFS || system_errno == EACCES || system_errno == EPERM ||
      system_errno == ENOSPC || system_errno == EDQUOT) {
    return system_errno;
  }
  if (dir.empty()) return system_errno;
  if (::access(dir.c_str(), W_OK) != 0 && (errno == EROFS || errno == EACCES)) return errno;
  return system_errno;
}

namespace {

// StorageErrno for the store's file, `db`'s main database: its directory is the one asked.
int StorageErrno(sqlite3* db, int code) {
  const std::string file = FileOf(db);
  return sqlite::StorageErrno(
      code, db ? sqlite3_system_errno(db) : 0,
      file.empty() ? std::string() : std::filesystem::path(file).parent_path().string());
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
  if (std::string problem = StorageProblem(code, StorageErrno(db, code), FileOf(db));
      !problem.empty()) {
    return Status::Unavailable(fmt::format("{} ({})", problem, text));
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
  if (sqlite3_open_v2(path.c_str(), &db, flags, HopVfs()) != SQLITE_OK) {
    Status s = ErrorStatus(db, "cannot open " + path);
    sqlite3_close_v2(db);
    return Status::Unavailable(s.message());
  }
  sqlite3_extended_result_codes(db, 1);
  return Database(db);
}

namespace {

// SQLite's own busy handler (sqlite3_busy_timeout) sleeps a millisecond at first and up to 100 ms
// later. A commit holds the write lock for far less than that (its fdatasync runs after the lock
// is released: docs/store.md, "Group commit"), so a writer that finds another process's commit
// under way waits in short steps first: 50 µs, doubling up to a millisecond, then a millisecond
// at a time.
int WaitBriefly(void* limit_ms, int count) {
  constexpr int kShortSteps = 5;  // 50, 100, 200, 400 and 800 µs
  const int64_t limit_us = static_cast<int64_t>(reinterpret_cast<intptr_t>(limit_ms)) * 1000;
  const int short_steps = std::min(count, kShortSteps);
  const int64_t waited_us =
      50 * ((int64_t{1} << short_steps) - 1) + int64_t{1000} * std::max(0, count - kShortSteps);
  if (waited_us >= limit_us) return 0;
  const int64_t step_us = count < kShortSteps ? int64_t{50} << count : 1000;
  std::this_thread::sleep_for(std::chrono::microseconds(step_us));
  return 1;
}

}  // namespace

void Database::WaitWhenBusy(std::chrono::milliseconds limit) {
  sqlite3_busy_handler(db_, WaitBriefly,
                       reinterpret_cast<void*>(static_cast<intptr_t>(limit.count())));
}

Status Database::Exec(std::string_view sql) {
  std::string text(sql);
  char* err = nullptr;
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    Status s = ErrorStatus(db_, "exec");
    const int code = sqlite3_extended_errcode(db_);
    NoteFailure(code);
    std::string failed = fmt::format("{} in: {}", msg, text.substr(0, 80));
    if (std::string problem = StorageProblem(code, StorageErrno(db_, code), FileOf(db_));
        !problem.empty()) {
      return Status::Unavailable(fmt::format("{} ({}; sqlite error {})", problem, failed, code));
    }
    return Status(s.code(), failed + DamagedFileAdvice(db_, code));
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
    NoteFailure(sqlite3_extended_errcode(db_));
    return ErrorStatus(db_, fmt::format("prepare '{}'", sql.substr(0, 60)));
  }
  return Statement(stmt, db_, cache_.get(), key);
}

int64_t Database::Changes() const { return sqlite3_changes64(db_); }

void Database::NoteFailure(int code) {
  if (cache_ && NoSpaceLeft(code, sqlite3_system_errno(db_))) cache_->no_space_left = true;
}

bool Database::TakeNoSpaceLeft() { return cache_ && cache_->no_space_left.exchange(false); }

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
  const int code = sqlite3_extended_errcode(db_);
  if (cache_ != nullptr && NoSpaceLeft(code, sqlite3_system_errno(db_))) {
    cache_->no_space_left = true;
  }
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
