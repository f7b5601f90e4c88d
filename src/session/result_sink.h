// What a statement or command gives back, in structure: a query's rows (a cursor with its
// columns' names and types), a small table of text (SHOW, !tables, !describe), printed text (a
// DDL's summary, !specify's YAML, EXPLAIN), warnings, and the command's tag. Every front end
// consumes it: the shell and `hop -e` through TextSink (the text formats of engine/output.h),
// the PostgreSQL wire server (server/) as RowDescription, DataRow and CommandComplete messages.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/table_format.h"
#include "engine/engine.h"
#include "engine/output.h"
#include "sql/ast/data_type.h"

namespace hop::session {

struct ResultColumn {
  std::string name;
  sql::DataType type;
};

class ResultSink {
 public:
  virtual ~ResultSink() = default;
  // The rows of a query. The sink reads them now, or keeps the cursor to read later (then it
  // must drop it before the session runs another statement: the cursor holds the session's
  // engine and catalog). Errors are the cursor's. Values are as the engine gives them: a sink
  // that shows them outside the process redacts secrets (common/redact.h) itself.
  virtual Status Rows(std::unique_ptr<engine::Cursor> cursor) = 0;
  // A result of a few rows of text (NULL is nullopt), already redacted.
  virtual Status Table(const std::vector<ResultColumn>& columns,
                       const std::vector<std::vector<TableCell>>& rows) = 0;
  // What the statement prints, whole lines, already redacted.
  virtual void Text(std::string_view text) = 0;
  // What the statement warns about (lines without the "Warnings:" heading).
  virtual void Warnings(std::string_view warnings) = 0;
  // The tag of the statement that finished: SELECT 3, INSERT 0 2, CREATE VIEW, SET, SHOW...
  // (SELECT's count is the sink's: it read the rows). Not called when the statement failed.
  virtual void Complete(std::string_view tag) = 0;
};

// The text every terminal front end prints: query rows in an output format (engine/output.h),
// tables as FormatTable lays them out, text as it is, warnings under "Warnings:".
class TextSink : public ResultSink {
 public:
  TextSink(std::string& out, engine::OutputFormat format,
           const std::function<void(std::string&)>* flush)
      : out_(out), format_(format), flush_(flush) {}
  Status Rows(std::unique_ptr<engine::Cursor> cursor) override;
  Status Table(const std::vector<ResultColumn>& columns,
               const std::vector<std::vector<TableCell>>& rows) override;
  void Text(std::string_view text) override { out_ += text; }
  void Warnings(std::string_view warnings) override;
  void Complete(std::string_view) override {}

 private:
  std::string& out_;
  engine::OutputFormat format_;
  const std::function<void(std::string&)>* flush_;
};

// The type of a column of text (SHOW's, !describe's): VARCHAR.
sql::DataType TextColumnType();

}  // namespace hop::session
