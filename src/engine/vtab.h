// Catalog tables an adapter serves (demo and system tables) as SQLite virtual tables: each table a
// query scans gets an eponymous virtual table module, `hop_vt_N`, whose rows its TableSource
// produces. SQLite's planner offers the query's equality constraints (xBestIndex): those on
// columns the source narrows by are pushed down to it, and only the columns the query reads are
// asked for. SQLite still checks every constraint on the rows it gets back.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/source.h"
#include "common/status.h"
#include "engine/value.h"

struct sqlite3;

namespace hop::engine {

// One table as its virtual table reads it.
struct VirtualTable {
  std::shared_ptr<const catalog::TableSource> source;
  std::vector<std::string> columns;  // catalog names, in order
  std::vector<Rep> reps;             // the encoding of each column
  std::string name;                  // for messages and EXPLAIN: `ADS.PAGE_VIEWS`
  int slot = 0;                      // module hop_vt_<slot>; set by VirtualTables::Add
};

// The virtual tables of one connection. Not thread-safe; one statement at a time uses them.
class VirtualTables {
 public:
  explicit VirtualTables(sqlite3* db) : db_(db) {}

  // Starts a statement: the tables of the previous one are forgotten (their names are reused).
  void Reset() { used_ = 0; }
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
  // Slot i: the table of module hop_vt_i, owned by the module's registration in SQLite.
  std::vector<const VirtualTable*> tables_;
  size_t used_ = 0;
};

}  // namespace hop::engine
