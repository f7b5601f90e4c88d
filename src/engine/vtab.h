// Catalog tables an adapter serves (demo and system tables) as SQLite virtual tables: each table a
// query scans gets an eponymous virtual table module, `hop_vt_N`, whose rows its TableSource
// produces. SQLite's planner offers the query's equality constraints (xBestIndex): those on
// columns the source narrows by are pushed down to it, and only the columns the query reads are
// asked for. SQLite still checks every constraint on the rows it gets back.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/source.h"
#include "common/status.h"
#include "engine/functions.h"
#include "engine/value.h"

struct sqlite3;

namespace hop::engine {

// The rowids of one table's rows (xRowid). SQLite asks for them only in a MULTI-INDEX OR plan:
// one scan per branch of an OR (each through a cursor of its own), each branch's rows checked
// against the rowids the earlier branches produced, so that a row meeting two branches comes
// once. A rowid must therefore name the same row in every scan; the sources have no identity
// for their rows (PostgreSQL's have none between two queries), and a row's number within its
// scan would make the second branch's first row look like the first branch's. A row is named
// by its values in the columns read and by which copy of those values it is in its scan: equal
// rows meet every condition alike, so a scan yields every copy of a row or none, and copy k of a
// row has the same rowid in each scan. Held until the next statement, counted in the budget.
class RowIdentities {
 public:
  explicit RowIdentities(FunctionState* state) : state_(state) {}
  ~RowIdentities() { Clear(); }
  RowIdentities(const RowIdentities&) = delete;
  RowIdentities& operator=(const RowIdentities&) = delete;

  // The rowid of copy `copy` (from 0) of the row whose values are `values`.
  int64_t Of(std::string values, size_t copy);
  void Clear();

 private:
  // What a row's identity costs besides its values (a node of the map), for the budget.
  static constexpr int64_t kOverhead = 64;
  void Hold(int64_t bytes);

  FunctionState* state_;
  std::unordered_map<std::string, std::vector<int64_t>> ids_;  // values -> rowid of each copy
  int64_t last_ = 0;
  int64_t held_ = 0;
};

// One table as its virtual table reads it.
struct VirtualTable {
  std::shared_ptr<const catalog::TableSource> source;
  std::vector<std::string> columns;  // catalog names, in order
  std::vector<Rep> reps;             // the encoding of each column
  std::string name;                  // for messages and EXPLAIN: `ADS.PAGE_VIEWS`
  int slot = 0;                      // module hop_vt_<slot>; set by VirtualTables::Add
  std::shared_ptr<RowIdentities> identities;  // its rows' rowids; set by VirtualTables::Add
};

// The virtual tables of one connection. Not thread-safe; one statement at a time uses them.
class VirtualTables {
 public:
  // `state` counts the memory the tables' cursors hold; it outlives them.
  VirtualTables(sqlite3* db, FunctionState* state) : db_(db), state_(state) {}

  // Starts a statement: the tables of the previous one are forgotten (their names are reused).
  void Reset();
  // How many the statement since Reset reads.
  size_t used() const { return used_; }
  // The module name that reads `table` in this statement.
  Result<std::string> Add(VirtualTable table);
  // The table behind module `name`, or null.
  const VirtualTable* Find(std::string_view name) const;

  // idxStr (what xBestIndex chose, as shown by EXPLAIN QUERY PLAN: `<constrained columns>/<read
  // columns>`) in words: `reads PAGE_URN, MEMBER_URN; pushed down: MEMBER_URN = ?`.
  static std::string DescribePlan(const VirtualTable& table, std::string_view idx);

 private:
  sqlite3* db_;
  FunctionState* state_;
  // Slot i: the table of module hop_vt_i, owned by the module's registration in SQLite.
  std::vector<const VirtualTable*> tables_;
  size_t used_ = 0;
};

}  // namespace hop::engine
