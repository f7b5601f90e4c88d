// Shared parts of the function library's files (functions.cc: arithmetic, casts, LIKE, strings,
// regular expressions; functions_time.cc; functions_json.cc: JSON and collections;
// functions_aggregate.cc): reading SQLite arguments as values, writing results, registration.
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>

#include "engine/functions.h"
#include "engine/value.h"

namespace hop::engine::internal {

// An argument as a Value (text and blobs copied).
Value ArgValue(sqlite3_value* v);
std::string_view ArgText(sqlite3_value* v);
void SetResult(sqlite3_context* ctx, const Value& v);
void SetError(sqlite3_context* ctx, std::string_view message);
void SetText(sqlite3_context* ctx, std::string_view text);
// The type code of argument `i` (a constant string), parsed once per statement.
const Rep* ArgRep(sqlite3_context* ctx, sqlite3_value** argv, int i);

using ScalarFn = void (*)(sqlite3_context*, int, sqlite3_value**);

// Registers a deterministic scalar function of `nargs` arguments (-1: any); `deterministic`
// false for RAND.
Status AddScalar(sqlite3* db, std::string_view name, int nargs, ScalarFn f, void* data = nullptr,
                 bool deterministic = true);

// A cast of `v` (encoded as `from`) to `to`, with Calcite's rules; errors say why.
Result<Value> CastValue(const Value& v, const Rep& from, const Rep& to);
// The text CAST(v AS VARCHAR) gives.
std::string CastText(const Value& v, const Rep& from);

// UTF-8 helpers: the byte offset of code point `n` (0-based) in `s`, or s.size().
size_t Utf8Offset(std::string_view s, int64_t n);
int64_t Utf8Count(std::string_view s);

Status RegisterTimeFunctions(sqlite3* db);
Status RegisterJsonFunctions(sqlite3* db);
Status RegisterAggregateFunctions(sqlite3* db, FunctionState* state);

// A value of type `rep` as a JSON text fragment (functions_json.cc), for JSON_OBJECT and the
// collections' encoding.
std::string JsonFragment(sqlite3_value* v, const Rep& rep);
// A value as Calcite writes it in JSON: numbers and booleans bare, the rest quoted, collections
// as JSON arrays and objects (JSON_OBJECT's values, and the json output format).
void AppendJson(const Value& v, const Rep& rep, std::string& out);

}  // namespace hop::engine::internal
