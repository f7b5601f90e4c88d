// The text front ends' consumer of results (result_sink.h).
#include "session/result_sink.h"

namespace hop::session {

Status TextSink::Rows(std::unique_ptr<engine::Cursor> cursor) {
  static const std::function<void(std::string&)> kNoFlush;
  return engine::WriteResult(*cursor, format_, out_, flush_ ? *flush_ : kNoFlush).status();
}

Status TextSink::Table(const std::vector<ResultColumn>& columns,
                       const std::vector<std::vector<TableCell>>& rows) {
  std::vector<std::string> header;
  header.reserve(columns.size());
  for (const ResultColumn& c : columns) header.push_back(c.name);
  out_ += FormatTable(header, rows);
  return Status::OK();
}

void TextSink::Warnings(std::string_view warnings) {
  out_ += "Warnings:\n";
  out_ += warnings;
  out_ += '\n';
}

sql::DataType TextColumnType() { return sql::DataType(sql::TypeName::kVarchar); }

}  // namespace hop::session
