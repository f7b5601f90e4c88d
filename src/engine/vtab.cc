// The virtual table module over TableSources (vtab.h).
#include "engine/vtab.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <charconv>
#include <cmath>
#include <optional>
#include <unordered_map>

#include "engine/functions_impl.h"
#include "sql/ast/create_table_statement.h"
#include "sql/unparser.h"

namespace hop::engine {
namespace {

struct Table {
  sqlite3_vtab base;  // first: SQLite's view of the table
  const VirtualTable* table;
};

struct Cursor {
  sqlite3_vtab_cursor base;  // first
  std::unique_ptr<catalog::RowCursor> rows;
  catalog::Row row;
  std::vector<int> read;  // the columns the scan reads
  bool eof = true;
  int64_t index = 0;  // 1-based row number, for messages
  // The copies of each row's values this scan has produced, and the current row's rowid once
  // asked (RowIdentities).
  std::unordered_map<std::string, size_t> copies;
  std::optional<sqlite3_int64> rowid;
};

std::vector<int> ParseList(std::string_view s) {
  std::vector<int> out;
  size_t begin = 0;
  while (begin < s.size()) {
    size_t end = s.find(',', begin);
    if (end == std::string_view::npos) end = s.size();
    int v = 0;
    std::from_chars(s.data() + begin, s.data() + end, v);
    out.push_back(v);
    begin = end + 1;
  }
  return out;
}

std::string JoinList(const std::vector<int>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
  return out;
}

void SetVtabError(sqlite3_vtab* vtab, std::string_view message) {
  sqlite3_free(vtab->zErrMsg);
  vtab->zErrMsg = sqlite3_mprintf("%.*s", static_cast<int>(message.size()), message.data());
}

int Connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char** err) {
  const auto* table = static_cast<const VirtualTable*>(aux);
  // The declared schema: the catalog's column names, printed by the SQL writer.
  sql::CreateTableStatement ddl;
  ddl.name.parts.push_back(sql::Identifier("x"));
  for (const auto& c : table->columns) {
    sql::ColumnDef def;
    def.name = sql::Identifier(c);
    ddl.columns.push_back(std::move(def));
  }
  auto text = sql::PrintStatement(ddl, {sql::Dialect::kSqlite});
  if (!text.ok()) {
    *err = sqlite3_mprintf("%s", text.status().message().c_str());
    return SQLITE_ERROR;
  }
  int rc = sqlite3_declare_vtab(db, text->c_str());
  if (rc != SQLITE_OK) return rc;
  auto* t = static_cast<Table*>(sqlite3_malloc(sizeof(Table)));
  if (!t) return SQLITE_NOMEM;
  std::memset(t, 0, sizeof(Table));
  t->table = table;
  *out = &t->base;
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* vtab) {
  sqlite3_free(vtab);
  return SQLITE_OK;
}

// Columns whose equality constraints can be handed to a source in the column's text form:
// strings as they are, integers and booleans (`true`, `false`) when SQLite has an integer.
bool Pushable(RepKind kind) {
  return kind == RepKind::kText || kind == RepKind::kInteger || kind == RepKind::kBoolean;
}

// The text form of a constraint's value on a column of `kind`, or nullopt when it has none (a
// REAL compared with an integer column): the constraint is then not pushed, and SQLite's own
// check of every row applies it.
std::optional<std::string> ConstraintText(RepKind kind, sqlite3_value* v) {
  if (kind == RepKind::kText) return std::string(internal::ArgText(v));
  if (sqlite3_value_type(v) != SQLITE_INTEGER) return std::nullopt;
  const sqlite3_int64 i = sqlite3_value_int64(v);
  if (kind == RepKind::kBoolean) {
    if (i != 0 && i != 1) return std::nullopt;
    return std::string(i ? "true" : "false");
  }
  return std::to_string(i);
}

// A constraint in idxStr is `column * kOps + op`.
constexpr int kOps = 8;

std::optional<catalog::ScanOp> OpOf(unsigned char op) {
  switch (op) {
    case SQLITE_INDEX_CONSTRAINT_EQ: return catalog::ScanOp::kEq;
    case SQLITE_INDEX_CONSTRAINT_LT: return catalog::ScanOp::kLt;
    case SQLITE_INDEX_CONSTRAINT_LE: return catalog::ScanOp::kLe;
    case SQLITE_INDEX_CONSTRAINT_GT: return catalog::ScanOp::kGt;
    case SQLITE_INDEX_CONSTRAINT_GE: return catalog::ScanOp::kGe;
    default: return std::nullopt;
  }
}

const char* OpText(int op) {
  static const char* const kText[] = {"=", "<", "<=", ">", ">="};
  return op >= 0 && op < 5 ? kText[op] : "?";
}

int BestIndex(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  const VirtualTable& table = *reinterpret_cast<Table*>(vtab)->table;
  std::vector<int> constrained;
  int argv_index = 0;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable || c.iColumn < 0 || c.iColumn >= static_cast<int>(table.reps.size())) continue;
    const RepKind kind = table.reps[static_cast<size_t>(c.iColumn)].kind;
    const std::optional<catalog::ScanOp> op = OpOf(c.op);
    if (!op) continue;
    if (*op == catalog::ScanOp::kEq
            ? !Pushable(kind) || !table.source->Narrows(c.iColumn)
            : kind != RepKind::kInteger || !table.source->NarrowsRange(c.iColumn)) {
      continue;
    }
    info->aConstraintUsage[i].argvIndex = ++argv_index;
    info->aConstraintUsage[i].omit = 0;  // SQLite checks the rows again
    constrained.push_back(c.iColumn * kOps + static_cast<int>(*op));
  }
  std::vector<int> used;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const bool read = i >= 63 ? (info->colUsed >> 63) & 1 : (info->colUsed >> i) & 1;
    if (read) used.push_back(static_cast<int>(i));
  }
  const std::string idx = JoinList(constrained) + "/" + JoinList(used);
  info->idxNum = table.slot;  // EXPLAIN QUERY PLAN shows it: which table this is
  info->idxStr = sqlite3_mprintf("%s", idx.c_str());
  info->needToFreeIdxStr = 1;
  double rows = std::max(1.0, table.source->EstimatedRows());
  for (size_t i = 0; i < constrained.size(); ++i) rows = std::max(1.0, rows / 10);
  info->estimatedRows = static_cast<sqlite3_int64>(rows);
  info->estimatedCost = rows;
  return SQLITE_OK;
}

int Open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
  auto* c = new Cursor();
  *out = &c->base;
  return SQLITE_OK;
}

int Close(sqlite3_vtab_cursor* cur) {
  delete reinterpret_cast<Cursor*>(cur);
  return SQLITE_OK;
}

int Next(sqlite3_vtab_cursor* cur) {
  auto* c = reinterpret_cast<Cursor*>(cur);
  const VirtualTable& table = *reinterpret_cast<Table*>(cur->pVtab)->table;
  auto more = c->rows->Next(c->row);
  if (!more.ok()) {
    SetVtabError(cur->pVtab, fmt::format("reading {}: {}", table.name, more.status().message()));
    return SQLITE_ERROR;
  }
  c->eof = !*more;
  ++c->index;
  c->rowid.reset();
  return SQLITE_OK;
}

int Filter(sqlite3_vtab_cursor* cur, int, const char* idx, int argc, sqlite3_value** argv) {
  auto* c = reinterpret_cast<Cursor*>(cur);
  const VirtualTable& table = *reinterpret_cast<Table*>(cur->pVtab)->table;
  const std::string_view plan = idx ? idx : "/";
  const size_t slash = plan.find('/');
  const std::vector<int> constrained = ParseList(plan.substr(0, slash));
  catalog::ScanRequest request;
  request.columns.assign(table.columns.size(), false);
  c->read.clear();
  for (int col : ParseList(plan.substr(slash + 1))) {
    if (col >= 0 && col < static_cast<int>(request.columns.size())) {
      request.columns[col] = true;
      c->read.push_back(col);
    }
  }
  c->copies.clear();
  c->rowid.reset();
  for (int i = 0; i < argc && i < static_cast<int>(constrained.size()); ++i) {
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) {
      // `column = NULL` holds for no row.
      c->eof = true;
      return SQLITE_OK;
    }
    const int col = constrained[i] / kOps;
    const int op = constrained[i] % kOps;
    if (col < 0 || static_cast<size_t>(col) >= table.reps.size() || op > 4) continue;
    auto text = ConstraintText(table.reps[static_cast<size_t>(col)].kind, argv[i]);
    if (text) {
      request.constraints.push_back({col, std::move(*text), static_cast<catalog::ScanOp>(op)});
    }
  }
  auto rows = table.source->Open(request);
  if (!rows.ok()) {
    SetVtabError(cur->pVtab, fmt::format("reading {}: {}", table.name, rows.status().message()));
    return SQLITE_ERROR;
  }
  c->rows = std::move(rows).value();
  c->index = 0;
  return Next(cur);
}

int Eof(sqlite3_vtab_cursor* cur) { return reinterpret_cast<Cursor*>(cur)->eof ? 1 : 0; }

int Column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int i) {
  auto* c = reinterpret_cast<Cursor*>(cur);
  const VirtualTable& table = *reinterpret_cast<Table*>(cur->pVtab)->table;
  if (i < 0 || static_cast<size_t>(i) >= c->row.size() || !c->row[static_cast<size_t>(i)]) {
    sqlite3_result_null(ctx);
    return SQLITE_OK;
  }
  const Rep& rep = table.reps[static_cast<size_t>(i)];
  if (rep.kind == RepKind::kText) {
    internal::SetText(ctx, *c->row[static_cast<size_t>(i)]);
    return SQLITE_OK;
  }
  auto v = ParseValue(*c->row[static_cast<size_t>(i)], rep);
  if (v.ok() && v->kind == Value::Kind::kReal && std::isnan(v->d)) {
    // SQLite has no NaN: it would hold the value as NULL, and the query would count, compare
    // and copy a NULL that the table does not hold.
    v = Status::InvalidArgument(
        "NaN cannot be read by the local engine, which has no NaN (it would read as NULL)");
  }
  if (!v.ok()) {
    internal::SetError(
        ctx, fmt::format("{}, column {}, row {}: {}", table.name,
                         table.columns[static_cast<size_t>(i)], c->index, v.status().message()));
    return SQLITE_OK;
  }
  internal::SetResult(ctx, *v);
  return SQLITE_OK;
}

// The current row's values in the columns read, each told apart from the next by its length.
std::string IdentityKey(const Cursor& c) {
  std::string key;
  for (int col : c.read) {
    const auto& cell = static_cast<size_t>(col) < c.row.size() ? c.row[static_cast<size_t>(col)]
                                                               : std::optional<std::string>();
    if (!cell) {
      key += 'n';
      continue;
    }
    key += std::to_string(cell->size());
    key += ':';
    key += *cell;
  }
  return key;
}

int Rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* rowid) {
  auto* c = reinterpret_cast<Cursor*>(cur);
  if (!c->rowid) {
    const VirtualTable& table = *reinterpret_cast<Table*>(cur->pVtab)->table;
    std::string key = IdentityKey(*c);
    const size_t copy = c->copies[key]++;
    c->rowid = table.identities->Of(std::move(key), copy);
  }
  *rowid = *c->rowid;
  return SQLITE_OK;
}

sqlite3_module MakeModule() {
  sqlite3_module m;
  std::memset(&m, 0, sizeof m);
  m.iVersion = 0;
  m.xCreate = nullptr;  // eponymous only: used by its name, never CREATE VIRTUAL TABLE
  m.xConnect = Connect;
  m.xBestIndex = BestIndex;
  m.xDisconnect = Disconnect;
  m.xDestroy = Disconnect;
  m.xOpen = Open;
  m.xClose = Close;
  m.xFilter = Filter;
  m.xNext = Next;
  m.xEof = Eof;
  m.xColumn = Column;
  m.xRowid = Rowid;
  return m;
}

const sqlite3_module& Module() {
  static const sqlite3_module m = MakeModule();
  return m;
}

}  // namespace

int64_t RowIdentities::Of(std::string values, size_t copy) {
  auto [it, added] = ids_.try_emplace(std::move(values));
  std::vector<int64_t>& copies = it->second;
  int64_t bytes = 0;
  // The values are held twice: here, and as a key of the scan's count of copies.
  if (added) bytes += 2 * (static_cast<int64_t>(it->first.size()) + kOverhead);
  while (copies.size() <= copy) {
    copies.push_back(++last_);
    bytes += sizeof(int64_t);
  }
  Hold(bytes);
  return copies[copy];
}

void RowIdentities::Clear() {
  ids_.clear();
  last_ = 0;
  Hold(-held_);
}

void RowIdentities::Hold(int64_t bytes) {
  held_ += bytes;
  if (state_) state_->held_bytes += bytes;
}

void VirtualTables::Reset() {
  for (size_t i = 0; i < used_ && i < tables_.size(); ++i) tables_[i]->identities->Clear();
  used_ = 0;
}

Result<std::string> VirtualTables::Add(VirtualTable table) {
  const std::string name = fmt::format("hop_vt_{}", used_);
  // SQLite owns the table from here: a module registered again under the same name releases
  // the one before it (and its eponymous table) once nothing uses it.
  table.slot = static_cast<int>(used_);
  table.identities = std::make_shared<RowIdentities>(state_);
  auto* owned = new VirtualTable(std::move(table));
  if (sqlite3_create_module_v2(db_, name.c_str(), &Module(), owned, [](void* p) {
        delete static_cast<VirtualTable*>(p);
      }) != SQLITE_OK) {
    return Status::Internal(fmt::format("cannot register {}: {}", name, sqlite3_errmsg(db_)));
  }
  if (tables_.size() <= used_) tables_.resize(used_ + 1);
  tables_[used_] = owned;
  ++used_;
  return name;
}

const VirtualTable* VirtualTables::Find(std::string_view name) const {
  for (size_t i = 0; i < used_ && i < tables_.size(); ++i) {
    if (name == fmt::format("hop_vt_{}", i)) return tables_[i];
  }
  return nullptr;
}

std::string VirtualTables::DescribePlan(const VirtualTable& table, std::string_view idx) {
  const size_t slash = idx.find('/');
  if (slash == std::string_view::npos) return std::string(idx);
  std::string out = "reads ";
  const auto used = ParseList(idx.substr(slash + 1));
  if (used.empty()) out += "no column";
  for (size_t i = 0; i < used.size(); ++i) {
    if (i > 0) out += ", ";
    if (used[i] >= 0 && static_cast<size_t>(used[i]) < table.columns.size())
      out += table.columns[used[i]];
  }
  const auto constrained = ParseList(idx.substr(0, slash));
  out += "; pushed down: ";
  if (constrained.empty()) out += "nothing";
  catalog::ScanRequest request;
  request.columns.assign(table.columns.size(), false);
  for (int c : used) {
    if (c >= 0 && static_cast<size_t>(c) < table.columns.size()) request.columns[c] = true;
  }
  for (size_t i = 0; i < constrained.size(); ++i) {
    if (i > 0) out += " AND ";
    const int col = constrained[i] / kOps, op = constrained[i] % kOps;
    if (col >= 0 && static_cast<size_t>(col) < table.columns.size() && op <= 4) {
      out += fmt::format("{} {} ?", table.columns[static_cast<size_t>(col)], OpText(op));
      request.constraints.push_back({col, "?", static_cast<catalog::ScanOp>(op)});
    }
  }
  // What the source sends to its system for this scan (PostgreSQL's query).
  if (std::string scan = table.source->DescribeScan(request); !scan.empty()) {
    out += "; query: " + scan;
  }
  return out;
}

}  // namespace hop::engine
