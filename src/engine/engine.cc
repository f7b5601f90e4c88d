// The engine: its connection, how scanned tables are reached (attached local files, virtual
// tables), budgets and cancellation (a progress handler), and the cursor over a statement.
#include "engine/engine.h"

#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

#include "binder/prune_empty.h"
#include "catalog/local.h"
#include "catalog/source.h"
#include "engine/functions.h"
#include "engine/functions_impl.h"
#include "engine/hashed_scan.h"
#include "engine/lower.h"
#include "engine/postgres_text.h"
#include "engine/vtab.h"
#include "sql/unparser.h"
#include "store/sqlite.h"

namespace hop::engine {

namespace {

std::atomic<bool> g_interrupt{false};

// How often (in SQLite virtual machine steps) the progress handler looks at the budget.
constexpr int kProgressSteps = 4000;

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Indent(std::string_view text, std::string_view by) {
  std::string out;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    out += by;
    out.append(text.substr(begin, end - begin));
    out += '\n';
    begin = end + 1;
  }
  return out;
}

// The directory SQLite writes its temporary files in, and how it came to be that one.
struct TempDirectory {
  std::string path;
  std::string chosen_by;  // "$TMPDIR", "$SQLITE_TMPDIR" or "SQLite's default"
};

// What is wrong with `dir` as a place for SQLite's temporary files: "" when it is a directory
// this process can write in, as SQLite's unix VFS asks.
std::string UnusableTempDirectory(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    return errno == ENOENT ? "does not exist"
                           : fmt::format("cannot be looked at ({})", std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) return "is not a directory";
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return "is not writable by this user";
  return "";
}

// The directory SQLite's unix VFS puts the connection's temporary database in: $SQLITE_TMPDIR,
// else $TMPDIR, else the first of /var/tmp, /usr/tmp, /tmp and . that this process can write
// in. SQLite passes over a variable naming a directory that is missing or not writable without
// a word, and the rows would go somewhere no one chose; so such a variable is an error that
// names it (docs/runtime.md, "Refreshes").
Result<TempDirectory> SqliteTempDirectory() {
  for (const char* variable : {"SQLITE_TMPDIR", "TMPDIR"}) {
    const char* value = std::getenv(variable);
    if (value == nullptr || *value == '\0') continue;
    const std::string dir = value;
    if (std::string wrong = UnusableTempDirectory(dir); !wrong.empty()) {
      return Status::ExecutionError(fmt::format(
          "${} is {}, which {}: a refresh writes its new rows to a temporary file there first, "
          "and hop does not let SQLite put them in another directory instead. Create the "
          "directory or make it writable, or set ${} to one this user can write in (unset, "
          "SQLite uses /var/tmp or /tmp)",
          variable, dir, wrong, variable));
    }
    return TempDirectory{dir, fmt::format("${}", variable)};
  }
  for (const char* dir : {"/var/tmp", "/usr/tmp", "/tmp", "."}) {
    if (UnusableTempDirectory(dir).empty()) return TempDirectory{dir, "SQLite's default"};
  }
  return Status::ExecutionError(
      "a refresh writes its new rows to a temporary file first, and none of SQLite's temporary "
      "directories (/var/tmp, /usr/tmp, /tmp, the working directory) is writable by this user: "
      "set $TMPDIR to a directory this user can write in");
}

}  // namespace

class Engine::Impl {
 public:
  explicit Impl(EngineOptions options) : options_(std::move(options)) {}
  ~Impl() {
    for (auto& [text, stmt] : cached_) sqlite3_finalize(stmt);
    if (db_) sqlite3_close_v2(db_);
  }

  Status Open() {
    // One thread uses the connection at a time (a cancel only sets a flag the progress handler
    // reads), so SQLite's per-call mutex is not needed.
    if (sqlite3_open_v2(":memory:", &db_,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
      return Status::Internal("cannot open the engine's SQLite connection");
    }
    sqlite3_busy_timeout(db_, 10000);
    sqlite3_extended_result_codes(db_, 1);
    HOP_RETURN_IF_ERROR(RegisterFunctions(db_, &functions_));
    vtabs_ = std::make_unique<VirtualTables>(db_, &functions_);
    hashed_ = std::make_unique<HashedScans>(db_, &functions_);
    sqlite3_progress_handler(db_, kProgressSteps, &Impl::Progress, this);
    return Status::OK();
  }

  // What a statement is allowed, and why it was stopped.
  void Begin(const Budget& budget) {
    g_interrupt.store(false);
    stop_reason_.clear();
    budget_ = budget;
    deadline_ = budget.timeout.count() > 0 ? std::chrono::steady_clock::now() + budget.timeout
                                           : std::chrono::steady_clock::time_point::max();
    memory_base_ = sqlite3_memory_used();
    active_ = true;
  }
  void End() { active_ = false; }

  static int Progress(void* self) {
    auto* impl = static_cast<Impl*>(self);
    if (!impl->active_) return 0;
    if (g_interrupt.load(std::memory_order_relaxed) ||
        (impl->budget_.cancel != nullptr &&
         impl->budget_.cancel->load(std::memory_order_relaxed))) {
      impl->stop_reason_ = "the query was cancelled";
      return 1;
    }
    if (std::chrono::steady_clock::now() > impl->deadline_) {
      impl->stop_reason_ =
          fmt::format("the query ran longer than its time budget of {} (SET query_timeout)",
                      FormatSeconds(impl->budget_.timeout));
      return 1;
    }
    if (impl->budget_.memory_bytes > 0) {
      const int64_t used = sqlite3_memory_used() - impl->memory_base_ +
                           impl->functions_.held_bytes.load(std::memory_order_relaxed);
      if (used > impl->budget_.memory_bytes) {
        impl->stop_reason_ =
            fmt::format("the query used more than its memory budget of {} MB (SET query_memory)",
                        impl->budget_.memory_bytes / (1024 * 1024));
        return 1;
      }
    }
    return 0;
  }

  static std::string FormatSeconds(std::chrono::milliseconds ms) {
    if (ms.count() % 1000 == 0) return fmt::format("{} s", ms.count() / 1000);
    return fmt::format("{} ms", ms.count());
  }

  // The error of a statement that did not finish.
  Status StepError(int rc, int64_t row) {
    NoteFailure();
    if ((rc & 0xff) == SQLITE_INTERRUPT && !stop_reason_.empty()) {
      return Status::ExecutionError(stop_reason_);
    }
    std::string message = sqlite3_errmsg(db_);
    if ((rc & 0xff) == SQLITE_CONSTRAINT && message.rfind("NOT NULL constraint failed: ", 0) == 0) {
      message =
          fmt::format("a NULL value for column {}, which is NOT NULL",
                      message.substr(std::string_view("NOT NULL constraint failed: ").size()));
    }
    if ((rc & 0xff) == SQLITE_NOMEM) message = "out of memory";
    if (row > 0) return Status::ExecutionError(fmt::format("{} (at row {})", message, row));
    return Status::ExecutionError(message);
  }

  // The SQLite name of a scanned table: an attached local file's table, or a virtual table.
  Result<ScanName> Scan(const catalog::Catalog& cat, const binder::Rel& scan) {
    const catalog::Table& table = *scan.table;
    ScanName out;
    // The scan's row type: a materialized view read from its table has the row type of its
    // query, which the catalog's entry does not carry.
    for (const auto& c : scan.row_type.columns) out.columns.push_back(c.name);
    const catalog::Schema* schema = nullptr;
    if (auto s = cat.SchemaFor(table.path); s.ok()) schema = *s;
    if (schema && schema->adapter == catalog::Adapter::kLocal) {
      HOP_ASSIGN_OR_RETURN(std::string alias, Attach(*schema));
      HOP_RETURN_IF_ERROR(CheckTable(*schema, alias, table.name));
      out.name = {alias, table.name};
      locals_.push_back({table.QualifiedName(),
                         catalog::LocalFileDisplay(schema->local_file) + " (state directory)"});
      return out;
    }
    // A table declared in a demo database (CREATE TABLE there) has no rows in the demo system,
    // as Hoptimator's demo driver answers for it: an empty table.
    std::shared_ptr<const catalog::TableSource> source = table.source;
    if (!source && schema && schema->adapter == catalog::Adapter::kDemo) {
      source = catalog::RowsSource(std::make_shared<const std::vector<catalog::Row>>(),
                                   table.QualifiedName() + " (declared in a demo database)");
    }
    if (source) {
      VirtualTable vt;
      vt.source = source;
      vt.columns = out.columns;
      for (const auto& c : scan.row_type.columns) vt.reps.push_back(RepOf(c.type));
      vt.name = table.QualifiedName();
      HOP_ASSIGN_OR_RETURN(std::string module, vtabs_->Add(std::move(vt)));
      out.name = {module};
      return out;
    }
    if (table.path.size() == 2 && table.path[0] == "UTIL" && table.path[1] == "PRINT") {
      return Status::InvalidArgument("UTIL.PRINT is a sink: it has no rows to read");
    }
    if (schema && schema->adapter == catalog::Adapter::kPostgres) {
      // A Table resource whose columns hop cannot read from PostgreSQL (a MAP, a ROW).
      return Status::InvalidArgument(fmt::format(
          "table {} of PostgreSQL database {} cannot be read by the local engine: a column's type "
          "has no PostgreSQL form in hop (docs/postgres.md, \"Types\")",
          table.QualifiedName(), schema->database));
    }
    if (schema && !schema->database.empty()) {
      return Status::InvalidArgument(fmt::format(
          "table {} cannot be read by the local engine: database {} ({}) is a {} system, whose "
          "tables hop only plans pipelines for (!pipeline); local tables (jdbc:local:), the demo "
          "databases and the \"k8s\" system tables can be queried",
          table.QualifiedName(), schema->database, schema->url,
          schema->system.empty() ? std::string("remote") : schema->system));
    }
    return Status::InvalidArgument(
        fmt::format("table {} has no rows the local engine can read", table.QualifiedName()));
  }

  // The SQLite name of a scanned table on the inner side of an equi-join: a local table is read
  // through a hashed scan (hashed_scan.h); any other table as Scan reads it.
  Result<ScanName> ProbedScan(const catalog::Catalog& cat, const binder::Rel& scan) {
    const catalog::Table& table = *scan.table;
    const catalog::Schema* schema = nullptr;
    if (auto s = cat.SchemaFor(table.path); s.ok()) schema = *s;
    if (!schema || schema->adapter != catalog::Adapter::kLocal) return Scan(cat, scan);
    HashedTable hashed;
    for (const auto& c : scan.row_type.columns) {
      auto type = catalog::LocalStorageType(c.type);
      if (!type.ok()) return Scan(cat, scan);
      hashed.columns.push_back(c.name);
      hashed.types.push_back(*type);
    }
    HOP_ASSIGN_OR_RETURN(std::string alias, Attach(*schema));
    HOP_RETURN_IF_ERROR(CheckTable(*schema, alias, table.name));
    hashed.table = {alias, table.name};
    hashed.name = table.QualifiedName();
    hashed.file = catalog::LocalFileDisplay(schema->local_file);
    locals_.push_back(
        {table.QualifiedName(), hashed.file + " (state directory), read once into a hashed scan"});
    ScanName out;
    out.columns = hashed.columns;
    HOP_ASSIGN_OR_RETURN(std::string module, hashed_->Add(std::move(hashed)));
    out.name = {module};
    return out;
  }

  // Whether the attached file of a local database has the table (a Table resource applied by
  // hand, or a file changed outside hop, may say it does when it does not).
  Status CheckTable(const catalog::Schema& schema, const std::string& alias,
                    const std::string& table) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, "SELECT 1 FROM pragma_table_list WHERE schema = ?1 AND name = ?2",
                           -1, &st, nullptr) != SQLITE_OK) {
      return Status::Internal(fmt::format("cannot read {}: {}", alias, sqlite3_errmsg(db_)));
    }
    sqlite3_bind_text(st, 1, alias.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, table.c_str(), -1, SQLITE_TRANSIENT);
    const int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW) return Status::OK();
    return Status::InvalidArgument(fmt::format(
        "Database {} ({}): its file {} has no table {}: it was dropped there or never created "
        "(CREATE TABLE makes it)",
        schema.database, schema.url, catalog::LocalFileDisplay(schema.local_file), table));
  }

  // Attaches the file of a local database (once per connection); its schema name in queries.
  Result<std::string> Attach(const catalog::Schema& schema) {
    const std::string alias = "local_" + schema.local_file;
    if (attached_.count(alias)) return alias;
    HOP_RETURN_IF_ERROR(catalog::CheckLocalStateDir(options_.state_dir, schema.database));
    const std::string path = catalog::LocalFilePath(options_.state_dir, schema.local_file);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      return Status::InvalidArgument(fmt::format(
          "Database {} ({}): its file {} does not exist: no table of it was created here",
          schema.database, schema.url, catalog::LocalFileDisplay(schema.local_file)));
    }
    if (attached_.size() >= 9) {
      return Status::InvalidArgument("a session reads at most 9 local database files");
    }
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, "ATTACH DATABASE ?1 AS ?2", -1, &st, nullptr) != SQLITE_OK) {
      return Status::Internal(fmt::format("cannot attach {}: {}", path, sqlite3_errmsg(db_)));
    }
    sqlite3_bind_text(st, 1, path.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, alias.c_str(), -1, SQLITE_TRANSIENT);
    const int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) NoteFailure();
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
      // Opening a file in WAL mode writes: its WAL and shared-memory files are made then.
      if (std::string problem = LocalFileProblem(schema); !problem.empty()) {
        return Status::Unavailable(fmt::format("{} (cannot open {}: {})", problem,
                                               catalog::LocalFileDisplay(schema.local_file),
                                               sqlite3_errmsg(db_)));
      }
      return Status::Unavailable(fmt::format("Database {}: cannot open {}: {}", schema.database,
                                             catalog::LocalFileDisplay(schema.local_file),
                                             sqlite3_errmsg(db_)));
    }
    attached_.insert(alias);
    struct stat file {};
    if (::stat(path.c_str(), &file) == 0) files_[alias] = {path, file.st_dev, file.st_ino};
    return alias;
  }

  // Before a write: whether the file attached as `alias` is still the one under its name. A file
  // removed (with its state directory, say) or replaced since still takes this connection's
  // writes, but no one opening it again would see them (as for the store: docs/store.md,
  // "Health"), so nothing is written.
  Status CheckStillThere(const catalog::Schema& schema, const std::string& alias) const {
    auto it = files_.find(alias);
    if (it == files_.end()) return Status::OK();
    struct stat st {};
    const bool same = ::stat(it->second.path.c_str(), &st) == 0 && st.st_dev == it->second.dev &&
                      st.st_ino == it->second.ino;
    if (same) return Status::OK();
    return Status::Unavailable(fmt::format(
        "Database {}: its file {} was removed or replaced while this process had it open: what "
        "it wrote there now would be lost, so it writes nothing",
        schema.database, it->second.path));
  }

  // How a statement's scans are read. An INSERT reads local tables only natively (SQLite then
  // sees when it reads the table it writes).
  LowerOptions Options(const catalog::Catalog& cat, bool hashed_joins = true) {
    vtabs_->Reset();
    hashed_->Reset();
    locals_.clear();
    LowerOptions o;
    o.scan = [this, &cat](const binder::Rel& scan) { return Scan(cat, scan); };
    if (hashed_joins) {
      o.probed_scan = [this, &cat](const binder::Rel& scan) { return ProbedScan(cat, scan); };
    }
    o.now_micros = NowMicros();
    return o;
  }

  Result<sqlite3_stmt*> Prepare(const std::string& text) {
    sqlite3_stmt* stmt = nullptr;
    const int rc =
        sqlite3_prepare_v3(db_, text.c_str(), static_cast<int>(text.size()), 0, &stmt, nullptr);
    if (rc != SQLITE_OK) {
      std::string message = sqlite3_errmsg(db_);
      if (message.rfind("no such table: ", 0) == 0) {
        return Status::InvalidArgument(fmt::format(
            "a local table is missing from its file ({}): it was dropped or never created here",
            message.substr(15)));
      }
      return Status::Internal(fmt::format("SQLite cannot prepare the query: {}", message));
    }
    return stmt;
  }

  // Runs statements of fixed text that return no rows; one the budget stopped says why.
  Status Exec(const std::string& text) {
    char* message = nullptr;
    const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message);
    if (rc == SQLITE_OK) return Status::OK();
    std::string said = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    NoteFailure();
    if ((rc & 0xff) == SQLITE_INTERRUPT && !stop_reason_.empty()) {
      return Status::ExecutionError(stop_reason_);
    }
    return Status::ExecutionError(said);
  }

  // Keeps SQLite's code and errno of the statement that just failed, for StorageProblem.
  void NoteFailure() {
    failed_code_ = sqlite3_extended_errcode(db_);
    failed_errno_ = sqlite3_system_errno(db_);
  }

  // Whether the last failure (NoteFailure) was a file that could not be made (a missing or
  // read-only directory) or grown (no space left): for a statement that writes only the staging
  // table, that is its temporary file.
  bool FailedToMakeOrGrowAFile() const {
    return (failed_code_ & 0xff) == SQLITE_CANTOPEN ||
           store::sqlite::NoSpaceLeft(failed_code_, failed_errno_);
  }

  // The words for the last failure (NoteFailure) when it came from where the file of the local
  // database `schema` is kept (sqlite::StorageProblem: full, read-only, an I/O error); "" for
  // any other failure.
  std::string LocalFileProblem(const catalog::Schema& schema) const {
    const std::filesystem::path file =
        catalog::LocalFilePath(options_.state_dir, schema.local_file);
    const std::string dir = file.parent_path().string();
    store::sqlite::StoragePlace place;
    place.directory = fmt::format("the directory {}", dir);
    place.what = fmt::format("{}, the file of its local tables,", file.filename().string());
    place.damaged = fmt::format("restore {} from a backup if its rows are damaged", file.string());
    const std::string problem = store::sqlite::StorageProblem(
        failed_code_, store::sqlite::StorageErrno(failed_code_, failed_errno_, dir), place);
    return problem.empty() ? problem : fmt::format("Database {}: {}", schema.database, problem);
  }

  // The same for SQLite's temporary directory `tmp`, where a refresh writes its new rows first.
  std::string TempFileProblem(const TempDirectory& tmp) const {
    store::sqlite::StoragePlace place;
    place.directory = fmt::format("the temporary directory {} ({})", tmp.path, tmp.chosen_by);
    place.what = "a refresh's new rows";
    place.elsewhere =
        "set $TMPDIR (or $SQLITE_TMPDIR, which SQLite reads first) to another directory";
    return store::sqlite::StorageProblem(
        failed_code_, store::sqlite::StorageErrno(failed_code_, failed_errno_, tmp.path), place);
  }

  // Runs `insert` into the table `into` within `budget`: the rows it wrote. `*step` is SQLite's
  // primary result code of the statement's run (SQLITE_DONE when it ran to its end).
  Result<int64_t> RunInsert(const binder::BoundInsert& insert, const ScanName& into,
                            const LowerOptions& options, const Budget& budget, int* step) {
    *step = SQLITE_OK;
    HOP_ASSIGN_OR_RETURN(auto stmt, LowerInsert(insert, into, options));
    HOP_ASSIGN_OR_RETURN(std::string text, sql::PrintStatement(*stmt, {sql::Dialect::kSqlite}));
    HOP_ASSIGN_OR_RETURN(sqlite3_stmt * prepared, Prepare(text));
    Begin(budget);
    const int rc = sqlite3_step(prepared);
    *step = rc & 0xff;
    const int64_t changed = sqlite3_changes64(db_);
    Status error = rc == SQLITE_DONE ? Status::OK() : StepError(rc, 0);
    sqlite3_finalize(prepared);
    End();
    HOP_RETURN_IF_ERROR(error);
    return changed;
  }

  // A query's statement, prepared once per text: a query that reads no virtual table or hashed
  // scan (whose modules change with each statement) is kept, reset, for the next time its text
  // comes (SELECT 1 in a loop, a client's prepared statement); at most kCachedStatements of
  // texts up to kCachedStatementBytes. `*kept` says which it was.
  Result<sqlite3_stmt*> PrepareQuery(const std::string& text, bool* kept) {
    *kept = vtabs_->used() == 0 && hashed_->used() == 0 && text.size() <= kCachedStatementBytes;
    if (*kept) {
      auto it = cached_.find(text);
      if (it != cached_.end()) return it->second;
    }
    HOP_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, Prepare(text));
    if (*kept) {
      if (cached_.size() >= kCachedStatements) {
        for (auto& [t, st] : cached_) sqlite3_finalize(st);
        cached_.clear();
      }
      cached_.emplace(text, stmt);
    }
    return stmt;
  }
  static constexpr size_t kCachedStatements = 32;
  static constexpr size_t kCachedStatementBytes = 8 * 1024;
  std::unordered_map<std::string, sqlite3_stmt*> cached_;

  EngineOptions options_;
  sqlite3* db_ = nullptr;
  FunctionState functions_;
  std::unique_ptr<VirtualTables> vtabs_;
  std::unique_ptr<HashedScans> hashed_;
  std::set<std::string> attached_;
  // The attached local files, by alias, as they were when attached (CheckStillThere).
  struct AttachedFile {
    std::string path;
    dev_t dev = 0;
    ino_t ino = 0;
  };
  std::map<std::string, AttachedFile> files_;
  // The local tables of the last lowering, and where and how each is read.
  std::vector<std::pair<std::string, std::string>> locals_;
  Budget budget_;
  std::chrono::steady_clock::time_point deadline_;
  int64_t memory_base_ = 0;
  std::string stop_reason_;
  int failed_code_ = SQLITE_OK;  // NoteFailure's
  int failed_errno_ = 0;
  bool active_ = false;
  bool cursor_open_ = false;
};

// ---- Cursor --------------------------------------------------------------------------------

Cursor::Cursor(Engine* engine, sqlite3_stmt* stmt, std::vector<std::string> names,
               std::vector<Rep> reps, bool kept)
    : engine_(engine), stmt_(stmt), names_(std::move(names)), reps_(std::move(reps)), kept_(kept) {}

Cursor::~Cursor() {
  if (kept_) {
    sqlite3_reset(stmt_);  // ends its read of the attached files; the engine keeps it
  } else {
    sqlite3_finalize(stmt_);
  }
  engine_->impl_->End();
  engine_->impl_->cursor_open_ = false;
}

Status Cursor::Fail(int rc) {
  done_ = true;
  return engine_->impl_->StepError(rc, rows_ + 1);
}

Result<bool> Cursor::Next() {
  if (done_) return false;
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_DONE) {
    done_ = true;
    return false;
  }
  if (rc != SQLITE_ROW) return Fail(rc);
  // A column that should hold an integer but holds a real overflowed in SQLite's arithmetic.
  for (size_t i = 0; i < reps_.size(); ++i) {
    const RepKind k = reps_[i].kind;
    if (k != RepKind::kInteger && k != RepKind::kDecimal && k != RepKind::kDate &&
        k != RepKind::kTimestamp && k != RepKind::kTimestampLtz && k != RepKind::kTime &&
        k != RepKind::kMonths && k != RepKind::kMicros) {
      continue;
    }
    if (sqlite3_column_type(stmt_, static_cast<int>(i)) == SQLITE_FLOAT) {
      done_ = true;
      return Status::ExecutionError(fmt::format(
          "numeric overflow: the value of column {} at row {} is out of the range of {}", names_[i],
          rows_ + 1, RepTypeName(reps_[i])));
    }
  }
  ++rows_;
  return true;
}

bool Cursor::IsNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

Value Cursor::GetValue(int column) const {
  switch (sqlite3_column_type(stmt_, column)) {
    case SQLITE_NULL: return Value::Null();
    case SQLITE_INTEGER: return Value::Int(sqlite3_column_int64(stmt_, column));
    case SQLITE_FLOAT: return Value::Real(sqlite3_column_double(stmt_, column));
    case SQLITE_TEXT:
      return Value::Text(
          std::string(reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column)),
                      static_cast<size_t>(sqlite3_column_bytes(stmt_, column))));
    default: {
      const void* p = sqlite3_column_blob(stmt_, column);
      return Value::Blob(std::string(static_cast<const char*>(p),
                                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column))));
    }
  }
}

void Cursor::AppendCopyField(int column, std::string& out) const {
  const Rep& rep = reps_[static_cast<size_t>(column)];
  if (sqlite3_column_type(stmt_, column) == SQLITE_TEXT && rep.kind == RepKind::kText) {
    // The common case, escaped straight from SQLite's buffer.
    const char* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    const char* end = p + sqlite3_column_bytes(stmt_, column);
    for (; p != end; ++p) {
      switch (*p) {
        case '\\': out += "\\\\"; break;
        case '\t': out += "\\t"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        default: out += *p;
      }
    }
    return;
  }
  engine::AppendCopyField(GetValue(column), rep, out);
}

void Cursor::AppendText(int column, std::string& out) const {
  const int type = sqlite3_column_type(stmt_, column);
  const Rep& rep = reps_[static_cast<size_t>(column)];
  if (type == SQLITE_TEXT && rep.kind == RepKind::kText) {
    // The common case, without a copy.
    const size_t from = out.size();
    out.append(reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column)),
               static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
    PadChar(rep, out, from);
    return;
  }
  if (type == SQLITE_INTEGER && rep.kind == RepKind::kInteger) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, sqlite3_column_int64(stmt_, column));
    out.append(buf, r.ptr);
    return;
  }
  FormatValue(GetValue(column), rep, out);
}

// ---- Engine --------------------------------------------------------------------------------

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

Result<std::unique_ptr<Engine>> Engine::Open(EngineOptions options) {
  auto impl = std::make_unique<Impl>(std::move(options));
  HOP_RETURN_IF_ERROR(impl->Open());
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

void Engine::RequestInterrupt() { g_interrupt.store(true); }

Result<std::unique_ptr<Cursor>> Engine::Query(const catalog::Catalog& catalog,
                                              const binder::Rel& plan, const Budget& budget) {
  if (impl_->cursor_open_) return Status::Internal("a query is already running on this engine");
  HOP_ASSIGN_OR_RETURN(LoweredQuery lowered, Lower(plan, impl_->Options(catalog)));
  HOP_ASSIGN_OR_RETURN(std::string text, sql::PrintQuery(*lowered.query, {sql::Dialect::kSqlite}));
  bool kept = false;
  HOP_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, impl_->PrepareQuery(text, &kept));
  std::vector<std::string> names;
  for (const auto& c : plan.row_type.columns) names.push_back(c.name);
  impl_->Begin(budget);
  impl_->cursor_open_ = true;
  return std::unique_ptr<Cursor>(
      new Cursor(this, stmt, std::move(names), std::move(lowered.columns), kept));
}

Result<int64_t> Engine::Insert(const catalog::Catalog& catalog, const binder::BoundInsert& insert,
                               const Budget& budget) {
  return Write(catalog, insert, budget, /*replace=*/false);
}

Result<int64_t> Engine::Replace(const catalog::Catalog& catalog, const binder::BoundInsert& insert,
                                const Budget& budget) {
  return Write(catalog, insert, budget, /*replace=*/true);
}

Result<int64_t> Engine::Write(const catalog::Catalog& catalog, const binder::BoundInsert& insert,
                              const Budget& budget, bool replace) {
  if (impl_->cursor_open_) return Status::Internal("a query is already running on this engine");
  LowerOptions options = impl_->Options(catalog, /*hashed_joins=*/false);
  const catalog::Table& target = *insert.target;
  HOP_ASSIGN_OR_RETURN(const catalog::Schema* schema, catalog.SchemaFor(target.path));
  if (schema->adapter != catalog::Adapter::kLocal) {
    return Status::InvalidArgument(fmt::format("{} is not a local table", target.QualifiedName()));
  }
  HOP_ASSIGN_OR_RETURN(std::string alias, impl_->Attach(*schema));
  HOP_RETURN_IF_ERROR(impl_->CheckTable(*schema, alias, target.name));
  HOP_RETURN_IF_ERROR(impl_->CheckStillThere(*schema, alias));
  ScanName name;
  name.name = {alias, target.name};
  for (const auto& c : target.row_type.columns) name.columns.push_back(c.name);
  static constexpr std::string_view kStaging = "hop_replace_rows";
  int step = SQLITE_OK;
  if (!replace) {
    Result<int64_t> rows = impl_->RunInsert(insert, name, options, budget, &step);
    if (rows.ok() || step == SQLITE_OK) return rows;
    // An INSERT writes the local file (and a temporary file only to sort or spill, rarely).
    if (std::string problem = impl_->LocalFileProblem(*schema); !problem.empty()) {
      return Status::ExecutionError(fmt::format("cannot write the rows of {}: {} ({})",
                                                target.QualifiedName(), problem,
                                                rows.status().message()));
    }
    return rows;
  }
  HOP_ASSIGN_OR_RETURN(TempDirectory tmp, SqliteTempDirectory());
  // A replacement computes the new rows into a table of the connection's own temporary
  // database first, holding no lock on the local file but a read, and then, in one short
  // transaction of the file, deletes the old rows and copies the new ones in: a reader, or a
  // process killed half way, sees the old contents or the new, never a mix, and other writers of
  // the file wait for the copy, not for the query (docs/runtime.md, "Refreshes").
  const std::string table = sql::QuoteIdentifier(alias, sql::Dialect::kSqlite) + "." +
                            sql::QuoteIdentifier(target.name, sql::Dialect::kSqlite);
  const std::string staging = "temp." + sql::QuoteIdentifier(kStaging, sql::Dialect::kSqlite);
  if (Status made = impl_->Exec("DROP TABLE IF EXISTS " + staging + "; CREATE TABLE " + staging +
                                " AS SELECT * FROM " + table + " WHERE 0");
      !made.ok()) {
    if (std::string problem = impl_->FailedToMakeOrGrowAFile() ? impl_->TempFileProblem(tmp) : "";
        !problem.empty()) {
      return Status::ExecutionError(
          fmt::format("cannot make room for the new rows of {} in a "
                      "temporary file: {}; its old rows are kept ({})",
                      target.QualifiedName(), problem, made.message()));
    }
    return Status::ExecutionError(fmt::format("cannot make room for the new rows of {}: {}",
                                              target.QualifiedName(), made.message()));
  }
  name.name = {"temp", std::string(kStaging)};
  Result<int64_t> rows = impl_->RunInsert(insert, name, options, budget, &step);
  if (!rows.ok() && step != SQLITE_OK && impl_->FailedToMakeOrGrowAFile()) {
    // Only the staging table was written: its file is what could not be made or grown.
    if (std::string problem = impl_->TempFileProblem(tmp); !problem.empty()) {
      rows = Status::ExecutionError(
          fmt::format("cannot write the new rows of {} to a temporary "
                      "file: {}; its old rows are kept ({})",
                      target.QualifiedName(), problem, rows.status().message()));
    } else {
      rows = Status::ExecutionError(
          fmt::format("cannot write the new rows of {} to a temporary file in {} ({}): {}",
                      target.QualifiedName(), tmp.path, tmp.chosen_by, rows.status().message()));
    }
  }
  if (rows.ok()) {
    impl_->Begin(budget);
    Status copied = impl_->Exec("BEGIN IMMEDIATE");
    std::string problem;  // where the file is kept, if that is why the copy failed
    if (!copied.ok()) problem = impl_->LocalFileProblem(*schema);
    if (copied.ok()) {
      copied = impl_->Exec("DELETE FROM " + table + "; INSERT INTO " + table + " SELECT * FROM " +
                           staging + "; COMMIT");
      if (!copied.ok()) {
        problem = impl_->LocalFileProblem(*schema);
        (void)impl_->Exec("ROLLBACK");
      }
    }
    impl_->End();
    if (!copied.ok()) {
      rows = !impl_->stop_reason_.empty() ? copied
             : !problem.empty()
                 ? Status::ExecutionError(fmt::format(
                       "cannot write the new rows of {} into its file: {}; its old rows are "
                       "kept ({})",
                       target.QualifiedName(), problem, copied.message()))
                 : Status::ExecutionError(fmt::format("cannot write the new rows of {}: {}",
                                                      target.QualifiedName(), copied.message()));
    }
  }
  (void)impl_->Exec("DROP TABLE IF EXISTS " + staging);
  return rows;
}

Result<std::string> Engine::Explain(const catalog::Catalog& catalog, const binder::Rel& plan) {
  if (impl_->cursor_open_) return Status::Internal("a query is already running on this engine");
  HOP_ASSIGN_OR_RETURN(LoweredQuery lowered, Lower(plan, impl_->Options(catalog)));
  HOP_ASSIGN_OR_RETURN(std::string text, sql::PrintQuery(*lowered.query, {sql::Dialect::kSqlite}));
  sql::PrintOptions eqp{sql::Dialect::kSqlite};
  eqp.explain_query_plan = true;
  HOP_ASSIGN_OR_RETURN(std::string explain, sql::PrintQuery(*lowered.query, eqp));
  HOP_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, impl_->Prepare(explain));
  // The plan as it runs: what provably yields no rows reduced (Lower does the same).
  const binder::RelPtr pruned = binder::PruneEmpty(plan);
  std::string out = "Plan:\n" + Indent(binder::Explain(pruned ? *pruned : plan), "  ");
  out += "SQLite query:\n" + Indent(text, "  ");
  out += "SQLite plan:\n";
  // Rows of (id, parent, -, detail): a tree, indented by depth.
  std::map<int, int> depth;
  std::vector<std::string> virtual_lines;
  for (;;) {
    const int rc = sqlite3_step(stmt);
    if (rc != SQLITE_ROW) break;
    const int id = sqlite3_column_int(stmt, 0);
    const int parent = sqlite3_column_int(stmt, 1);
    std::string detail = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 3));
    const int d = depth.count(parent) ? depth[parent] + 1 : 0;
    depth[id] = d;
    // A virtual table's plan in words: `VIRTUAL TABLE INDEX <slot>:<idx>`.
    const std::string marker = "VIRTUAL TABLE INDEX ";
    if (size_t at = detail.find(marker); at != std::string::npos) {
      const size_t colon = detail.find(':', at);
      const int slot = std::atoi(detail.c_str() + at + marker.size());
      const std::string idx = colon == std::string::npos ? "" : detail.substr(colon + 1);
      if (const HashedTable* ht = impl_->hashed_->FindByIndex(slot)) {
        detail =
            detail.substr(0, at) + fmt::format("VIRTUAL TABLE {} ({}, hashed scan): {}", ht->name,
                                               ht->file, HashedScans::DescribePlan(*ht, idx));
      } else if (const VirtualTable* vt = impl_->vtabs_->Find(fmt::format("hop_vt_{}", slot))) {
        detail = detail.substr(0, at) + fmt::format("VIRTUAL TABLE {} ({}): {}", vt->name,
                                                    vt->source->Describe(),
                                                    VirtualTables::DescribePlan(*vt, idx));
      }
    }
    out += std::string(static_cast<size_t>(2 + 2 * d), ' ') + detail + "\n";
  }
  sqlite3_finalize(stmt);
  if (!impl_->locals_.empty()) {
    out += "Local tables, read natively:\n";
    for (const auto& [table, file] : impl_->locals_) {
      out += "  " + table + " in " + file + "\n";
    }
  }
  return out;
}

}  // namespace hop::engine
