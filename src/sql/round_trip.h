// The printer's contract as a check: in every dialect that can print a statement (and in Flink's
// with PrintOptions::pipeline_ddl), the text parses back to an equal statement and prints
// identically again. The golden tests, the fuzzer and the fuzzer's regression corpus all check it
// through this one function.
#pragma once

#include <string_view>

#include "common/status.h"
#include "sql/ast/statement.h"

namespace hop::sql {

// OK, or an Internal error naming the dialect, the printed text and what went wrong.
Status VerifyRoundTrip(const Statement& stmt);

// Splits and parses `script`, and verifies the round trip of every statement that parses. Parse
// errors are expected input and pass, but each must carry its position. Returns the first
// violation.
Status VerifyScript(std::string_view script);

}  // namespace hop::sql
