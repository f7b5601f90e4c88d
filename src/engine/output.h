// Query results as text, streamed: rows are written as the cursor yields them and handed to a
// flush callback in chunks, so a result of any size needs bounded memory. Formats:
//
//   table  aligned columns under a header, then `(3 rows)` (the default):
//            FIRST_NAME | LAST_NAME
//           ------------+-----------
//            Alice      | Addison
//   mysql  the MySQL client's boxed table with `+---+` borders, as Hoptimator shows results
//   csv    RFC 4180: a header line, fields quoted when they hold a comma, quote or line break
//   tsv    tab-separated, with \t, \n, \r and \\ escaped
//   json   a JSON array with one object per row (numbers and booleans bare)
//
// The aligned formats size their columns by the first 1,000 rows; a wider value further down
// widens only its own line. NULL is `null` in the aligned formats and JSON, empty in csv and tsv.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "engine/engine.h"

namespace hop::engine {

enum class OutputFormat { kTable, kMysql, kCsv, kTsv, kJson };

// Accepts the names above, in any case.
bool ParseOutputFormat(std::string_view name, OutputFormat* out);
std::string_view OutputFormatName(OutputFormat format);

// Writes every row of `cursor` to `out` in `format`, calling `flush(out)` (which empties it)
// whenever it holds about 64 KB. Returns the number of rows; errors are the cursor's, after
// the rows before the failure were written.
Result<int64_t> WriteResult(Cursor& cursor, OutputFormat format, std::string& out,
                            const std::function<void(std::string&)>& flush);

}  // namespace hop::engine
