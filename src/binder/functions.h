// The function library: every function a query may call, with its argument counts, the families
// its arguments must belong to, and its return type. It holds the standard SQL functions, the
// MySQL-flavoured ones Hoptimator's CLI enables (`fun=mysql`: CONCAT, REGEXP_REPLACE, JSON_VALUE,
// LISTAGG, ...), aggregates and window functions. Names are upper case.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sql/ast/data_type.h"

namespace hop::binder {

enum class FunctionKind : uint8_t {
  kScalar,
  kAggregate,  // also usable with OVER
  kWindow,     // only with OVER (ROW_NUMBER, RANK, LAG, ...)
};

// What an argument must be. kAny accepts every type.
enum class Family : uint8_t {
  kAny,
  kString,  // CHAR, VARCHAR
  kNumeric,
  kInteger,  // exact numbers with scale 0
  kDatetime,
  kBoolean,
  kArray,
  kMap,
  kCollection,  // ARRAY or MAP
  kStringOrBinary,
  kComparable,  // anything but ARRAY, MAP and ROW
};

struct Function {
  std::string_view name;
  FunctionKind kind = FunctionKind::kScalar;
  int min_args = 0;
  int max_args = 0;  // -1: any number
  // Families of the arguments; the last one repeats for further arguments. Empty: any.
  std::vector<Family> families;
  // The return type for arguments of these types (already checked against `families`).
  sql::DataType (*return_type)(std::span<const sql::DataType> args) = nullptr;
  // Printed without parentheses when called without arguments (CURRENT_TIMESTAMP).
  bool niladic = false;
};

// The function called `upper_name`, or null.
const Function* FindFunction(std::string_view upper_name);

// Checks argument count and families. Errors (Bind) are Calcite's messages:
// `Invalid number of arguments to function 'UPPER'. Was expecting 1 arguments` and
// `Cannot apply 'UPPER' to arguments of type 'UPPER(<INTEGER>)'. Supported form(s): ...`.
Status CheckArguments(const Function& f, std::span<const sql::DataType> args);

// `No match found for function signature FOO(<CHARACTER>, <NUMERIC>)`.
std::string NoMatchMessage(std::string_view name, std::span<const sql::DataType> args);

// All functions, by name (for `!functions` and docs).
std::vector<const Function*> AllFunctions();

}  // namespace hop::binder
