// A thin RAII layer over the SQLite C API: a connection, prepared statements with typed binds
// and column reads, and errors turned into Status. Only src/store uses the connection; the
// engine's local files use StorageProblem's words too.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace hop::store::sqlite {

class Statement;
struct StatementCache;

class Database {
 public:
  Database();
  ~Database();
  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Opens (creating if needed) the database file at `path`.
  static Result<Database> Open(const std::string& path);

  // Runs one or more statements that return no rows.
  Status Exec(std::string_view sql);
  // A prepared statement for `sql`. Statements are kept once prepared: a Statement that goes
  // out of scope is reset and handed to the next Prepare of the same text. Statements must not
  // outlive their Database.
  Result<Statement> Prepare(std::string_view sql);
  int64_t Changes() const;
  sqlite3* handle() const { return db_; }
  // A statement that finds the file locked by another connection (another process's commit)
  // waits for it, retrying for about `limit` in all before it fails busy.
  void WaitWhenBusy(std::chrono::milliseconds limit);
  // Whether a statement of this connection failed since the last call because the file system
  // of a file it writes had no space left (NoSpaceLeft); the answer is cleared.
  bool TakeNoSpaceLeft();

 private:
  void NoteFailure(int code);
  explicit Database(sqlite3* db);
  void Close();
  sqlite3* db_ = nullptr;
  std::unique_ptr<StatementCache> cache_;
};

// A prepared statement. Bind indexes are 1-based, column indexes 0-based.
class Statement {
 public:
  Statement() = default;
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, std::string_view value);
  // Runs to the next row: true when a row is available, false when done.
  Result<bool> Step();
  // Runs a statement that returns no rows.
  Status Run();
  // Resets for another execution with new bindings.
  void Reset();

  int64_t ColumnInt(int index) const;
  std::string_view ColumnText(int index) const;
  bool ColumnIsNull(int index) const;

 private:
  friend class Database;
  Statement(sqlite3_stmt* stmt, sqlite3* db, StatementCache* cache, const std::string* key)
      : stmt_(stmt), db_(db), cache_(cache), key_(key) {}
  void Release();

  sqlite3_stmt* stmt_ = nullptr;
  sqlite3* db_ = nullptr;
  StatementCache* cache_ = nullptr;   // where it goes back to, if anywhere
  const std::string* key_ = nullptr;  // its text, owned by the cache
};

// Records that the directory entry of the WAL at `wal_path` is durable, so that connections
// opened later skip SQLite's directory fsync for it (sqlite.cc, "the VFS"). Call only once that
// entry is durable: after an fsync of the WAL's directory made after the WAL was. Best effort:
// a marker that cannot be written costs later connections one fsync each, nothing else.
void MarkWalDurable(const std::string& wal_path);
// Whether the marker MarkWalDurable writes names the WAL now at `wal_path`.
bool WalMarkedDurable(const std::string& wal_path);

// The SQLite error of `db` as a Status naming `what`.
Status ErrorStatus(sqlite3* db, std::string_view what);

// Where a file SQLite failed to write is kept, in StorageProblem's words.
struct StoragePlace {
  std::string directory;  // as the user is to read it: "the state directory /srv/hop"
  std::string what;       // what hop cannot write there: "its store"
  // The other way out, after "or ": "use another state directory"; "" for none.
  std::string elsewhere;
  // What to do after an I/O error, after "and ": "restore the store from a backup ..."; "" for
  // nothing more than checking the device.
  std::string damaged;
};

// What an error of a file SQLite writes in `place` says about where the file is kept, in words
// that name the directory and what to do: it is read-only (SQLITE_READONLY, or an I/O error or
// open that failed with EROFS, EACCES or EPERM), it has no space left (SQLITE_FULL, or ENOSPC or
// EDQUOT), or the device failed to read or write it (EIO). `code` is SQLite's extended result
// code and `system_errno` the errno of the failed call it reports (sqlite3_system_errno; 0 when
// none). "" for an error that says nothing of the sort.
std::string StorageProblem(int code, int system_errno, const StoragePlace& place);
// The same for the store file `file`, whose directory is the state directory.
std::string StorageProblem(int code, int system_errno, std::string_view file);
// Whether StorageProblem would say that the file's directory has no space left.
bool NoSpaceLeft(int code, int system_errno);

// The errno that tells what is wrong with the directory `dir` where SQLite failed to write or
// open a file, for StorageProblem: SQLite's `system_errno` (sqlite3_system_errno), or, for an
// open that failed or a file SQLite found read-only (`code`), what access(2) says of `dir` when
// SQLite's errno does not tell (it is that of the last call that failed, often not the first).
int StorageErrno(int code, int system_errno, const std::string& dir);

}  // namespace hop::store::sqlite
