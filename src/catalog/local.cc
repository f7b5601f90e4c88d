// Local databases: file names, storage classes, and the provisioner that creates their tables.
#include "catalog/local.h"

#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <memory>

#include "common/strings.h"
#include "sql/ast/create_table_statement.h"
#include "sql/ast/drop_statement.h"
#include "sql/unparser.h"

namespace hop::catalog {

namespace {

constexpr std::string_view kPrefix = "jdbc:local:";

struct Closer {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using Connection = std::unique_ptr<sqlite3, Closer>;

struct Finalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Statement = std::unique_ptr<sqlite3_stmt, Finalizer>;

// SQLite's error as hop's: a statement the file refuses (a name taken by a table another
// statement made meanwhile, say) is that statement's error; only what keeps the file from being
// used (I/O, locks, a full disk, no memory) is Unavailable.
Status Error(sqlite3* db, std::string_view what) {
  std::string message = fmt::format("{}: {}", what, db ? sqlite3_errmsg(db) : "out of memory");
  switch (db != nullptr ? sqlite3_errcode(db) & 0xff : SQLITE_NOMEM) {
    case SQLITE_ERROR:
      if (message.find("already exists") != std::string::npos) {
        return Status::AlreadyExists(std::move(message));
      }
      return Status::ExecutionError(std::move(message));
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_TOOBIG:
    case SQLITE_RANGE: return Status::ExecutionError(std::move(message));
    default: return Status::Unavailable(std::move(message));
  }
}

// Opens (creating if `create`) the file of a local database.
Result<Connection> OpenFile(const std::string& state_dir, const Schema& schema, bool create) {
  if (schema.local_file.empty()) {
    return Status::InvalidArgument(
        fmt::format("Database {} is not a local database", schema.database));
  }
  HOP_RETURN_IF_ERROR(CheckLocalStateDir(state_dir, schema.database));
  const std::string path = LocalFilePath(state_dir, schema.local_file);
  if (create) {
    std::error_code ec;
    const auto dir = std::filesystem::path(path).parent_path();
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      return Status::Unavailable(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
    }
    ::chmod(dir.c_str(), 0700);
  }
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Connection db(raw);
  if (rc != SQLITE_OK) {
    if (!create && rc == SQLITE_CANTOPEN) return Connection();
    return Error(db.get(), fmt::format("cannot open {}", LocalFileDisplay(schema.local_file)));
  }
  ::chmod(path.c_str(), 0600);
  sqlite3_busy_timeout(db.get(), 10000);
  // Readers (queries in other processes) do not block the writer, nor it them.
  if (sqlite3_exec(db.get(), "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr) != SQLITE_OK) {
    return Error(db.get(), fmt::format("cannot use {}", LocalFileDisplay(schema.local_file)));
  }
  return db;
}

struct ColumnInfo {
  std::string name;
  std::string type;
  bool not_null = false;
};

// The columns of `table` in the file, or none when it has no such table.
Result<std::vector<ColumnInfo>> FileColumns(sqlite3* db, const std::string& table) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT name, type, \"notnull\" FROM pragma_table_info(?1)", -1, &raw,
                         nullptr) != SQLITE_OK) {
    return Error(db, "cannot read the table's columns");
  }
  Statement st(raw);
  sqlite3_bind_text(st.get(), 1, table.data(), static_cast<int>(table.size()), SQLITE_TRANSIENT);
  std::vector<ColumnInfo> out;
  for (;;) {
    int rc = sqlite3_step(st.get());
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return Error(db, "cannot read the table's columns");
    ColumnInfo c;
    c.name = reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 0));
    c.type = reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 1));
    c.not_null = sqlite3_column_int(st.get(), 2) != 0;
    out.push_back(std::move(c));
  }
  return out;
}

// The columns the definition declares, as the file would hold them.
Result<std::vector<ColumnInfo>> WantedColumns(const TableDefinition& table) {
  std::vector<ColumnInfo> out;
  for (const Column& c : table.row_type.columns) {
    // SQLite, which keeps the table, does not tell column names apart by (ASCII) case.
    for (const ColumnInfo& earlier : out) {
      if (EqualsIgnoreCase(earlier.name, c.name)) {
        return Status::InvalidArgument(fmt::format(
            "a local table cannot have both columns {} and {}: SQLite, which keeps it, does not "
            "tell names apart by case",
            earlier.name, c.name));
      }
    }
    auto type = LocalStorageType(c.type);
    if (!type.ok()) return type.status().WithContext(fmt::format("column {}: ", c.name));
    auto printed = sql::PrintType(sql::DataType(*type), {sql::Dialect::kSqlite});
    if (!printed.ok()) return printed.status();
    out.push_back({c.name, *printed, c.type.nullability == sql::Nullability::kNotNull});
  }
  return out;
}

}  // namespace

Result<std::string> LocalFileName(std::string_view url) {
  if (url.rfind(kPrefix, 0) != 0) {
    return Status::InvalidArgument(fmt::format("'{}' is not a jdbc:local: URL", url));
  }
  std::string_view name = url.substr(kPrefix.size());
  if (name.empty()) return std::string("default");
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(fmt::format(
        "'{}': the name of a local database file {} (1 to 63 of a-z, 0-9, '_' and '-', starting "
        "with a letter or digit)",
        url, why));
  };
  if (name.size() > 63) return bad("is too long");
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
      return bad(fmt::format("cannot contain '{}'", c));
    }
  }
  if (name[0] == '_' || name[0] == '-') return bad("must start with a letter or digit");
  return std::string(name);
}

Status CheckLocalStateDir(std::string_view state_dir, std::string_view database) {
  if (!state_dir.empty()) return Status::OK();
  return Status::InvalidArgument(fmt::format(
      "Database {} is local (jdbc:local:): its tables are files in one machine's state "
      "directory, and a session on a Kubernetes cluster has none (keep such tables in "
      "PostgreSQL)",
      database));
}

std::string LocalFilePath(std::string_view state_dir, std::string_view name) {
  return (std::filesystem::path(std::string(state_dir)) / "local" / (std::string(name) + ".db"))
      .string();
}

std::string LocalFileDisplay(std::string_view name) { return fmt::format("local/{}.db", name); }

Result<sql::TypeName> LocalStorageType(const sql::DataType& t) {
  using sql::TypeName;
  switch (t.name) {
    case TypeName::kBoolean:
    case TypeName::kTinyInt:
    case TypeName::kSmallInt:
    case TypeName::kInteger:
    case TypeName::kBigInt:
    case TypeName::kDate:
    case TypeName::kTime:
    case TypeName::kTimestamp: return TypeName::kBigInt;
    case TypeName::kDecimal:
      if (t.precision.value_or(19) > 18 || t.scale.value_or(0) > 18) {
        return Status::InvalidArgument(fmt::format(
            "DECIMAL({}, {}) cannot be kept in a local table: it holds decimals of at most 18 "
            "digits",
            t.precision.value_or(19), t.scale.value_or(0)));
      }
      return TypeName::kBigInt;
    case TypeName::kFloat:
    case TypeName::kReal:
    case TypeName::kDouble: return TypeName::kDouble;
    case TypeName::kChar:
    case TypeName::kVarchar:
    case TypeName::kArray:
    case TypeName::kMap:
    case TypeName::kRow: return TypeName::kVarchar;
    case TypeName::kBinary:
    case TypeName::kVarbinary:
    case TypeName::kBytes: return TypeName::kBytes;
    case TypeName::kNull:
    case TypeName::kMultiset:  // no local storage keeps a bag
    case TypeName::kInterval: break;
  }
  auto printed = sql::PrintType(t);
  return Status::InvalidArgument(fmt::format("a local table cannot have a column of type {}",
                                             printed.ok() ? *printed : std::string("this type")));
}

Result<bool> LocalProvisioner::Exists(const Schema& schema, const TableDefinition& table) {
  HOP_ASSIGN_OR_RETURN(Connection db, OpenFile(state_dir_, schema, /*create=*/false));
  if (!db) return false;
  const std::string& name = table.path.back();
  HOP_ASSIGN_OR_RETURN(std::vector<ColumnInfo> have, FileColumns(db.get(), name));
  if (have.empty()) return false;
  HOP_ASSIGN_OR_RETURN(std::vector<ColumnInfo> want, WantedColumns(table));
  bool same = have.size() == want.size();
  for (size_t i = 0; same && i < have.size(); ++i) {
    same = have[i].name == want[i].name && have[i].type == want[i].type &&
           have[i].not_null == want[i].not_null;
  }
  if (same) return true;
  std::string columns;
  for (const auto& c : have) {
    columns +=
        (columns.empty() ? "" : ", ") + c.name + " " + c.type + (c.not_null ? " NOT NULL" : "");
  }
  return Status::AlreadyExists(fmt::format(
      "{} already has a table {} with other columns ({}); drop it before creating it anew",
      LocalFileDisplay(schema.local_file), name, columns));
}

Status LocalProvisioner::Create(const Schema& schema, const TableDefinition& table) {
  HOP_ASSIGN_OR_RETURN(std::vector<ColumnInfo> want, WantedColumns(table));
  sql::CreateTableStatement ddl;
  ddl.name.parts.push_back(sql::Identifier(table.path.back()));
  for (size_t i = 0; i < want.size(); ++i) {
    sql::ColumnDef def;
    def.name = sql::Identifier(want[i].name);
    HOP_ASSIGN_OR_RETURN(sql::TypeName storage, LocalStorageType(table.row_type.columns[i].type));
    sql::DataType type(storage);
    if (want[i].not_null) type.nullability = sql::Nullability::kNotNull;
    def.type = type;
    ddl.columns.push_back(std::move(def));
  }
  HOP_ASSIGN_OR_RETURN(std::string text, sql::PrintStatement(ddl, {sql::Dialect::kSqlite}));
  HOP_ASSIGN_OR_RETURN(Connection db, OpenFile(state_dir_, schema, /*create=*/true));
  if (sqlite3_exec(db.get(), text.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    return Error(db.get(), fmt::format("cannot create table {} in {}", table.path.back(),
                                       LocalFileDisplay(schema.local_file)));
  }
  return Status::OK();
}

Status LocalProvisioner::Drop(const Schema& schema, const TableDefinition& table) {
  HOP_ASSIGN_OR_RETURN(Connection db, OpenFile(state_dir_, schema, /*create=*/false));
  if (!db) return Status::OK();
  sql::DropStatement drop;
  drop.object = sql::ObjectKind::kTable;
  drop.if_exists = true;
  drop.name.parts.push_back(sql::Identifier(table.path.back()));
  HOP_ASSIGN_OR_RETURN(std::string text, sql::PrintStatement(drop, {sql::Dialect::kSqlite}));
  if (sqlite3_exec(db.get(), text.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    return Error(db.get(), fmt::format("cannot drop table {} in {}", table.path.back(),
                                       LocalFileDisplay(schema.local_file)));
  }
  return Status::OK();
}

}  // namespace hop::catalog
