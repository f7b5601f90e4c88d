// The binder: turns a parsed query into a plan over the catalog. It resolves table and column
// names with the folding rules, expands `*` and `t.*`, turns NATURAL JOIN and USING into explicit
// ON conditions, types every expression, checks calls against the function library, inlines
// views and common table expressions, and applies column lists.
//
// Errors name what is wrong and where: the catalog's own messages for missing schemas and tables
// (`Object 'X' not found within 'ADS'`), Calcite's wording for the rest (`Column 'X' not found in
// any table`), each followed by the position in the statement.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "binder/bound.h"
#include "catalog/catalog.h"
#include "common/status.h"
#include "sql/ast/insert_statement.h"
#include "sql/ast/query.h"
#include "sql/ast/statement.h"

namespace hop::binder {

// An INSERT: the target table, and the query reshaped to the target's columns.
struct BoundInsert {
  const catalog::Table* target = nullptr;
  // The query; its column i fills target column target_columns[i]. Named after the target
  // columns, with assignment casts where the types differ.
  RelPtr query;
  std::vector<int> target_columns;
};

class Binder {
 public:
  explicit Binder(const catalog::Catalog& catalog);
  ~Binder();
  Binder(const Binder&) = delete;
  Binder& operator=(const Binder&) = delete;

  // The statement whose text positions in messages refer to (its source and start). Optional:
  // without it messages still name line and column, without the source line.
  void SetStatement(const sql::Statement* statement);

  // The view (its catalog path, e.g. {"ADS", "V2"}) that the bound query will define, for CREATE
  // [OR REPLACE] [MATERIALIZED] VIEW: a query that reaches the view's current definition through
  // other views fails with "View ADS.V2 would depend on itself: ADS.V2 -> ADS.V1 -> ADS.V2", and
  // the view counts towards the nesting bound, so that what can be defined can be queried.
  void SetDefinedView(std::vector<std::string> path);
  // The user CURRENT_USER, SESSION_USER, CURRENT_ROLE and USER name (a session's), asked for
  // only when a statement names one of them (finding the operating system's user reads files).
  // Unset, those fail to bind with an error saying the statement has no user (a view's pipeline,
  // which runs elsewhere, has none).
  void SetUser(std::function<std::string()> user);

  Result<RelPtr> BindQuery(const sql::Query& query);

  // A query whose output columns are renamed by `columns` (the column list of a VIEW or
  // MATERIALIZED VIEW). Errors when the counts differ:
  // `List of column aliases must have same degree as table; table has 2 columns ('A', 'B'),
  // whereas alias list has 1 columns`.
  Result<RelPtr> BindQuery(const sql::Query& query, const std::vector<sql::Identifier>& columns);

  Result<BoundInsert> BindInsert(const sql::InsertStatement& insert);

  // The plan of a view of the catalog (bound once per Binder).
  Result<RelPtr> BindView(const catalog::Table& view);

  // The catalog tables and views the queries bound so far name themselves (not those the views
  // they read name), each once, in the order first named: what a view's watermark is derived
  // from (docs/operator.md). Owned by the catalog.
  const std::vector<const catalog::Table*>& DirectInputs() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Renames the output columns of `rel` (a Project on top, or the renamed Project itself).
RelPtr Rename(const RelPtr& rel, const std::vector<std::string>& names);

}  // namespace hop::binder
