// Hashed scans: a local table on the inner side of an equi-join, read through a virtual table
// that answers the join's lookups from a hash table. SQLite joins by nested loops; over a table
// without an index it would build an automatic B-tree index of the inner table for each query,
// one random insert per row, which is several times slower than hashing. A hashed scan, `hop_hx_N`,
// is offered the join's equality constraints (xBestIndex); on the first lookup it reads the
// table once, natively (a query on the same connection), keeps the columns the query reads and
// hashes the rows by the constrained columns; each lookup then walks one hash chain. SQLite
// still checks every constraint on the rows it gets back, so a hash collision costs time, never
// a wrong row. Without a usable equality the table is streamed as it is read.
//
// The hash table is held by the virtual table's cursor (freed with it, at the end of the
// statement) and counted in FunctionState::held_bytes, so the memory budget covers it.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "engine/functions.h"
#include "sql/ast/data_type.h"

struct sqlite3;

namespace hop::engine {

// One local table as a hashed scan reads it.
struct HashedTable {
  std::vector<std::string> table;    // its SQLite name: {attached schema, table}
  std::vector<std::string> columns;  // column names, in order
  std::vector<sql::TypeName> types;  // the declared type of each column (its affinity)
  std::string name;                  // for messages and EXPLAIN: `BENCH.B`
  std::string file;                  // for EXPLAIN: `local/bench.db`
  int slot = 0;                      // module hop_hx_<slot>; set by HashedScans::Add
};

// The hashed scans of one connection; like VirtualTables, reset per statement.
class HashedScans {
 public:
  HashedScans(sqlite3* db, FunctionState* state) : db_(db), state_(state) {}

  void Reset() { used_ = 0; }
  // How many the statement since Reset reads.
  size_t used() const { return used_; }
  // The module name that reads `table` in this statement.
  Result<std::string> Add(HashedTable table);
  // The table of a hashed scan by the idxNum EXPLAIN QUERY PLAN shows for it, or null.
  const HashedTable* FindByIndex(int idx_num) const;
  // Whether an idxNum is a hashed scan's.
  static bool IsHashedIndex(int idx_num);

  // idxStr in words: `looked up by ID = ?; reads ID, W`.
  static std::string DescribePlan(const HashedTable& table, std::string_view idx);

  struct Entry;

 private:
  sqlite3* db_;
  FunctionState* state_;
  std::vector<const Entry*> entries_;
  size_t used_ = 0;
};

}  // namespace hop::engine
