// The hashed scan module (hashed_scan.h).
#include "engine/hashed_scan.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <charconv>
#include <cstring>
#include <limits>

#include "engine/lower_impl.h"
#include "sql/ast/create_table_statement.h"
#include "sql/unparser.h"

namespace hop::engine {

// What a module registration owns: the table and where the cursors count their memory.
struct HashedScans::Entry {
  HashedTable table;
  FunctionState* state;
};

namespace {

// idxNum of a hashed scan: this base plus its slot (catalog virtual tables use the slot alone).
constexpr int kIndexBase = 1 << 20;

struct Table {
  sqlite3_vtab base;  // first: SQLite's view of the table
  const HashedScans::Entry* entry;
  sqlite3* db;
};

// A value of the hash table: its SQLite type and its bits, or where its bytes are in the arena.
struct Cell {
  uint64_t bits = 0;
  uint32_t size = 0;
  uint8_t type = SQLITE_NULL;
};

struct Cursor {
  sqlite3_vtab_cursor base;  // first
  sqlite3_stmt* scan = nullptr;
  // Columns read, by table column: the position in a stored row (or the scan's result), or -1.
  std::vector<int> position;
  bool keyed = false;
  bool eof = true;
  int64_t row = 0;  // streamed: rows read so far
  // The hash table, built on the first lookup.
  bool built = false;
  size_t width = 0;
  std::vector<Cell> cells;       // row-major, `width` per row
  std::string arena;             // text and blob bytes
  std::vector<uint64_t> hashes;  // of each row's key
  std::vector<uint32_t> next;    // the chain: the next row of the bucket, plus one (0: none)
  std::vector<uint32_t> heads;   // first row of each bucket, plus one
  uint32_t current = 0;          // the row a lookup is on, plus one
  uint64_t probe = 0;
  std::vector<int> keys;  // the constrained columns, in argv order
  int64_t held = 0;
  FunctionState* state = nullptr;

  ~Cursor() {
    if (scan) sqlite3_finalize(scan);
    if (state) state->held_bytes -= held;
  }
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

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t HashBytes(const unsigned char* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

// The hash of one key value such that values SQLite finds equal (with BINARY collation) hash
// alike: numbers by their value as a double (1 = 1.0), text and blobs by their bytes.
uint64_t HashNumber(double d) {
  if (d == 0) d = 0;  // -0.0 = 0.0
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return Mix(bits ^ 0x11);
}

uint64_t Combine(uint64_t h, uint64_t v) { return Mix(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6))); }

int Connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char** err) {
  const auto* entry = static_cast<const HashedScans::Entry*>(aux);
  // Declared with the local table's column types, so that comparisons apply the same affinities
  // as they would on the table itself.
  sql::CreateTableStatement ddl;
  ddl.name.parts.push_back(sql::Identifier("x"));
  for (size_t i = 0; i < entry->table.columns.size(); ++i) {
    sql::ColumnDef def;
    def.name = sql::Identifier(entry->table.columns[i]);
    if (i < entry->table.types.size()) def.type = sql::DataType(entry->table.types[i]);
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
  t->entry = entry;
  t->db = db;
  *out = &t->base;
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* vtab) {
  sqlite3_free(vtab);
  return SQLITE_OK;
}

int BestIndex(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  const HashedTable& table = reinterpret_cast<Table*>(vtab)->entry->table;
  std::vector<int> keys;
  int argv_index = 0;
  for (int i = 0; i < info->nConstraint && keys.size() < 8; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable || c.op != SQLITE_INDEX_CONSTRAINT_EQ || c.iColumn < 0 ||
        c.iColumn >= static_cast<int>(table.columns.size())) {
      continue;
    }
    // Bytes hash alike only when they compare alike.
    const char* collation = sqlite3_vtab_collation(info, i);
    if (collation != nullptr && sqlite3_stricmp(collation, "BINARY") != 0) continue;
    bool seen = false;
    for (int k : keys) seen = seen || k == c.iColumn;
    if (seen) continue;
    info->aConstraintUsage[i].argvIndex = ++argv_index;
    info->aConstraintUsage[i].omit = 0;  // SQLite checks the rows again
    keys.push_back(c.iColumn);
  }
  std::vector<int> used;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const bool read = i >= 63 ? (info->colUsed >> 63) & 1 : (info->colUsed >> i) & 1;
    if (read) used.push_back(static_cast<int>(i));
  }
  const std::string idx = JoinList(keys) + "/" + JoinList(used);
  info->idxNum = kIndexBase + table.slot;
  info->idxStr = sqlite3_mprintf("%s", idx.c_str());
  info->needToFreeIdxStr = 1;
  if (keys.empty()) {
    // A full scan per outer row: the last plan SQLite should pick.
    info->estimatedRows = 1000000;
    info->estimatedCost = 1e12;
  } else {
    info->estimatedRows = 10;
    info->estimatedCost = 10;
  }
  return SQLITE_OK;
}

int Open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) {
  auto* c = new Cursor();
  c->state = reinterpret_cast<Table*>(vtab)->entry->state;
  *out = &c->base;
  return SQLITE_OK;
}

int Close(sqlite3_vtab_cursor* cur) {
  delete reinterpret_cast<Cursor*>(cur);
  return SQLITE_OK;
}

// The query reading the table's `used` columns, natively.
Result<std::string> ScanQuery(const HashedTable& table, const std::vector<int>& used) {
  auto select = std::make_unique<sql::SelectBody>();
  for (int col : used) {
    select->items.push_back({internal::ColumnRef("", table.columns[static_cast<size_t>(col)]), {}});
  }
  if (select->items.empty()) select->items.push_back({internal::NullLit(), {}});
  auto from = std::make_unique<sql::BaseTableRef>();
  for (const auto& part : table.table) from->name.parts.push_back(sql::Identifier(part));
  select->from = std::move(from);
  sql::Query query;
  query.body = std::move(select);
  return sql::PrintQuery(query, {sql::Dialect::kSqlite});
}

// Steps the scan; a failure is the vtab's error (an interrupt keeps its code: the engine names
// the budget or the cancel).
int StepScan(Cursor* c, sqlite3_vtab* vtab, const HashedTable& table, bool* row) {
  const int rc = sqlite3_step(c->scan);
  if (rc == SQLITE_ROW) {
    *row = true;
    return SQLITE_OK;
  }
  *row = false;
  if (rc == SQLITE_DONE) return SQLITE_OK;
  const int code = sqlite3_reset(c->scan);
  if ((code & 0xff) == SQLITE_INTERRUPT) return SQLITE_INTERRUPT;
  SetVtabError(vtab, fmt::format("reading {}: {}", table.name,
                                 sqlite3_errmsg(reinterpret_cast<Table*>(vtab)->db)));
  return code == SQLITE_OK ? SQLITE_ERROR : code;
}

void Hold(Cursor* c, int64_t now) {
  c->state->held_bytes += now - c->held;
  c->held = now;
}

int64_t Footprint(const Cursor* c) {
  return static_cast<int64_t>(c->cells.capacity() * sizeof(Cell) + c->arena.capacity() +
                              c->hashes.capacity() * sizeof(uint64_t) +
                              (c->next.capacity() + c->heads.capacity()) * sizeof(uint32_t));
}

// The hash of the key of the row being read by the scan, or of a lookup's values; false when
// a key value is NULL (which equals nothing).
bool KeyHash(sqlite3_value** values, size_t n, uint64_t* hash) {
  uint64_t h = 0;
  for (size_t i = 0; i < n; ++i) {
    sqlite3_value* v = values[i];
    switch (sqlite3_value_type(v)) {
      case SQLITE_NULL: return false;
      case SQLITE_INTEGER:
        h = Combine(h, HashNumber(static_cast<double>(sqlite3_value_int64(v))));
        break;
      case SQLITE_FLOAT: h = Combine(h, HashNumber(sqlite3_value_double(v))); break;
      case SQLITE_TEXT: {
        const auto* p = sqlite3_value_text(v);
        h = Combine(h, HashBytes(p, static_cast<size_t>(sqlite3_value_bytes(v))) ^ 0x22);
        break;
      }
      default: {
        const auto* p = static_cast<const unsigned char*>(sqlite3_value_blob(v));
        h = Combine(h, HashBytes(p, static_cast<size_t>(sqlite3_value_bytes(v))) ^ 0x33);
        break;
      }
    }
  }
  *hash = h;
  return true;
}

// Reads the whole table into the cursor's hash table, keyed by `c->keys`.
int Build(Cursor* c, sqlite3_vtab* vtab, const HashedTable& table, const std::vector<int>& used) {
  c->width = used.size();
  std::vector<int> key_positions;
  for (int k : c->keys) key_positions.push_back(c->position[static_cast<size_t>(k)]);
  std::vector<sqlite3_value*> key_values(key_positions.size());
  constexpr uint32_t kMaxRows = std::numeric_limits<uint32_t>::max() - 1;
  for (;;) {
    bool row = false;
    if (int rc = StepScan(c, vtab, table, &row); rc != SQLITE_OK) return rc;
    if (!row) break;
    if (c->hashes.size() >= kMaxRows) {
      SetVtabError(vtab, fmt::format("{} has too many rows to hash for a join", table.name));
      return SQLITE_ERROR;
    }
    for (size_t i = 0; i < key_positions.size(); ++i) {
      key_values[i] = sqlite3_column_value(c->scan, key_positions[i]);
    }
    uint64_t h = 0;
    // A row with a NULL key matches no lookup: it is not kept.
    if (!KeyHash(key_values.data(), key_values.size(), &h)) continue;
    for (size_t i = 0; i < c->width; ++i) {
      const int col = static_cast<int>(i);
      Cell cell;
      cell.type = static_cast<uint8_t>(sqlite3_column_type(c->scan, col));
      switch (cell.type) {
        case SQLITE_INTEGER: {
          const int64_t v = sqlite3_column_int64(c->scan, col);
          std::memcpy(&cell.bits, &v, sizeof v);
          break;
        }
        case SQLITE_FLOAT: {
          const double v = sqlite3_column_double(c->scan, col);
          std::memcpy(&cell.bits, &v, sizeof v);
          break;
        }
        case SQLITE_TEXT:
        case SQLITE_BLOB: {
          const void* p = cell.type == SQLITE_TEXT
                              ? static_cast<const void*>(sqlite3_column_text(c->scan, col))
                              : sqlite3_column_blob(c->scan, col);
          const size_t n = static_cast<size_t>(sqlite3_column_bytes(c->scan, col));
          cell.bits = c->arena.size();
          cell.size = static_cast<uint32_t>(n);
          if (n > 0) c->arena.append(static_cast<const char*>(p), n);
          break;
        }
        default: break;
      }
      c->cells.push_back(cell);
    }
    c->hashes.push_back(h);
    // The memory budget sees the table grow (the progress handler runs within the scan).
    if ((c->hashes.size() & 4095) == 0) Hold(c, Footprint(c));
  }
  sqlite3_reset(c->scan);
  const size_t n = c->hashes.size();
  size_t buckets = 16;
  while (buckets < 2 * n) buckets *= 2;
  c->heads.assign(buckets, 0);
  c->next.assign(n, 0);
  for (size_t r = 0; r < n; ++r) {
    const size_t b = c->hashes[r] & (buckets - 1);
    c->next[r] = c->heads[b];
    c->heads[b] = static_cast<uint32_t>(r + 1);
  }
  Hold(c, Footprint(c));
  c->built = true;
  return SQLITE_OK;
}

// Moves `current` along the chain to the next row whose hash is the probe's (0: none).
void Seek(Cursor* c, uint32_t from) {
  uint32_t r = from;
  while (r != 0 && c->hashes[r - 1] != c->probe) r = c->next[r - 1];
  c->current = r;
  c->eof = r == 0;
}

int Filter(sqlite3_vtab_cursor* cur, int, const char* idx, int argc, sqlite3_value** argv) {
  auto* c = reinterpret_cast<Cursor*>(cur);
  const auto* t = reinterpret_cast<Table*>(cur->pVtab);
  const HashedTable& table = t->entry->table;
  const std::string_view plan = idx ? idx : "/";
  const size_t slash = plan.find('/');
  if (!c->scan) {
    // First use: the plan is fixed for the cursor's life.
    c->keys = ParseList(plan.substr(0, slash));
    const std::vector<int> used = ParseList(plan.substr(slash + 1));
    c->position.assign(table.columns.size(), -1);
    for (size_t i = 0; i < used.size(); ++i) {
      if (used[i] >= 0 && static_cast<size_t>(used[i]) < table.columns.size()) {
        c->position[static_cast<size_t>(used[i])] = static_cast<int>(i);
      }
    }
    for (int k : c->keys) {
      if (k < 0 || static_cast<size_t>(k) >= table.columns.size() ||
          c->position[static_cast<size_t>(k)] < 0) {
        SetVtabError(cur->pVtab, fmt::format("hashed scan of {}: a bad plan", table.name));
        return SQLITE_ERROR;
      }
    }
    auto text = ScanQuery(table, used);
    if (!text.ok()) {
      SetVtabError(cur->pVtab, text.status().message());
      return SQLITE_ERROR;
    }
    if (sqlite3_prepare_v2(t->db, text->c_str(), -1, &c->scan, nullptr) != SQLITE_OK) {
      SetVtabError(cur->pVtab, fmt::format("reading {}: {}", table.name, sqlite3_errmsg(t->db)));
      return SQLITE_ERROR;
    }
    c->keyed = !c->keys.empty();
  }
  if (!c->keyed) {
    // Streamed: the table as the scan reads it.
    sqlite3_reset(c->scan);
    bool row = false;
    if (int rc = StepScan(c, cur->pVtab, table, &row); rc != SQLITE_OK) return rc;
    c->eof = !row;
    c->row = row ? 1 : 0;
    return SQLITE_OK;
  }
  if (!c->built) {
    if (int rc = Build(c, cur->pVtab, table, ParseList(plan.substr(slash + 1))); rc != SQLITE_OK) {
      return rc;
    }
  }
  if (argc != static_cast<int>(c->keys.size()) || !KeyHash(argv, c->keys.size(), &c->probe)) {
    c->current = 0;
    c->eof = true;
    return SQLITE_OK;
  }
  Seek(c, c->heads[c->probe & (c->heads.size() - 1)]);
  return SQLITE_OK;
}

int Next(sqlite3_vtab_cursor* cur) {
  auto* c = reinterpret_cast<Cursor*>(cur);
  if (c->keyed) {
    if (c->current != 0) Seek(c, c->next[c->current - 1]);
    return SQLITE_OK;
  }
  bool row = false;
  const HashedTable& table = reinterpret_cast<Table*>(cur->pVtab)->entry->table;
  if (int rc = StepScan(c, cur->pVtab, table, &row); rc != SQLITE_OK) return rc;
  c->eof = !row;
  if (row) ++c->row;
  return SQLITE_OK;
}

int Eof(sqlite3_vtab_cursor* cur) { return reinterpret_cast<Cursor*>(cur)->eof ? 1 : 0; }

int Column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int i) {
  auto* c = reinterpret_cast<Cursor*>(cur);
  if (i < 0 || static_cast<size_t>(i) >= c->position.size() ||
      c->position[static_cast<size_t>(i)] < 0) {
    sqlite3_result_null(ctx);
    return SQLITE_OK;
  }
  const int p = c->position[static_cast<size_t>(i)];
  if (!c->keyed) {
    sqlite3_result_value(ctx, sqlite3_column_value(c->scan, p));
    return SQLITE_OK;
  }
  const Cell& cell =
      c->cells[static_cast<size_t>(c->current - 1) * c->width + static_cast<size_t>(p)];
  switch (cell.type) {
    case SQLITE_INTEGER: {
      int64_t v;
      std::memcpy(&v, &cell.bits, sizeof v);
      sqlite3_result_int64(ctx, v);
      break;
    }
    case SQLITE_FLOAT: {
      double v;
      std::memcpy(&v, &cell.bits, sizeof v);
      sqlite3_result_double(ctx, v);
      break;
    }
    case SQLITE_TEXT:
      sqlite3_result_text(ctx, c->arena.data() + cell.bits, static_cast<int>(cell.size),
                          SQLITE_TRANSIENT);
      break;
    case SQLITE_BLOB:
      sqlite3_result_blob(ctx, c->arena.data() + cell.bits, static_cast<int>(cell.size),
                          SQLITE_TRANSIENT);
      break;
    default: sqlite3_result_null(ctx); break;
  }
  return SQLITE_OK;
}

int Rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* rowid) {
  auto* c = reinterpret_cast<Cursor*>(cur);
  *rowid = c->keyed ? c->current : c->row;
  return SQLITE_OK;
}

sqlite3_module MakeModule() {
  sqlite3_module m;
  std::memset(&m, 0, sizeof m);
  m.iVersion = 0;
  m.xCreate = nullptr;  // eponymous only
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

std::string ModuleName(size_t slot) { return fmt::format("hop_hx_{}", slot); }

}  // namespace

Result<std::string> HashedScans::Add(HashedTable table) {
  const std::string name = ModuleName(used_);
  table.slot = static_cast<int>(used_);
  auto* owned = new Entry{std::move(table), state_};
  if (sqlite3_create_module_v2(db_, name.c_str(), &Module(), owned,
                               [](void* p) { delete static_cast<Entry*>(p); }) != SQLITE_OK) {
    return Status::Internal(fmt::format("cannot register {}: {}", name, sqlite3_errmsg(db_)));
  }
  if (entries_.size() <= used_) entries_.resize(used_ + 1);
  entries_[used_] = owned;
  ++used_;
  return name;
}

bool HashedScans::IsHashedIndex(int idx_num) { return idx_num >= kIndexBase; }

const HashedTable* HashedScans::FindByIndex(int idx_num) const {
  if (!IsHashedIndex(idx_num)) return nullptr;
  const size_t slot = static_cast<size_t>(idx_num - kIndexBase);
  if (slot >= used_ || slot >= entries_.size()) return nullptr;
  return &entries_[slot]->table;
}

std::string HashedScans::DescribePlan(const HashedTable& table, std::string_view idx) {
  const size_t slash = idx.find('/');
  if (slash == std::string_view::npos) return std::string(idx);
  auto name = [&](int col) {
    return col >= 0 && static_cast<size_t>(col) < table.columns.size() ? table.columns[col]
                                                                       : std::string("?");
  };
  const auto keys = ParseList(idx.substr(0, slash));
  std::string out;
  if (keys.empty()) {
    out = "streamed, no lookup";
  } else {
    out = "hashed by ";
    for (size_t i = 0; i < keys.size(); ++i) out += (i ? ", " : "") + name(keys[i]);
    out += ", looked up by ";
    for (size_t i = 0; i < keys.size(); ++i) out += (i ? " AND " : "") + name(keys[i]) + " = ?";
  }
  out += "; reads ";
  const auto used = ParseList(idx.substr(slash + 1));
  if (used.empty()) out += "no column";
  for (size_t i = 0; i < used.size(); ++i) out += (i ? ", " : "") + name(used[i]);
  return out;
}

}  // namespace hop::engine
