// Values between hop's engine and PostgreSQL clients (docs/pgwire.md, "Types"): result values in
// binary forms (their text forms are engine/postgres_text.h's), and the parameters of a Bind
// turned into SQL literals of the statement hop runs (each one validated for its type and quoted, never pasted as it came).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "engine/value.h"

namespace hop::server {

// Appends `v` (not NULL) in the binary form of type `oid`. Errors (InvalidArgument) for a type
// whose binary form hop does not write (numeric, interval, arrays, json): it names the type.
Status AppendPgBinary(const engine::Value& v, const engine::Rep& rep, uint32_t oid,
                      std::string& out);

// Whether AppendPgBinary writes values of type `oid`; else the error it gives (InvalidArgument,
// naming the type), so that a Bind asking for a binary column hop cannot write fails before any
// row is sent.
Status CheckPgBinary(uint32_t oid);

// A value of a text result (SHOW's, !tables') in the binary form of `oid`: text types as they
// are, int2/int4/int8 as integers.
Status AppendPgBinaryText(std::string_view text, uint32_t oid, std::string& out);

// The highest parameter number ($n) in `query`, 0 when it has none; errors are the lexer's.
Result<int> CountParameters(std::string_view query);

// The parameter of one Bind: its type OID (0: unspecified), format (0 text, 1 binary), value.
struct BoundParameter {
  uint32_t oid = 0;
  int16_t format = 0;
  std::optional<std::string> value;  // nullopt: NULL
};

// `query` with every $n replaced by the SQL literal of parameter n (1-based): integers and
// floats validated and written as numbers, booleans TRUE/FALSE, bytea X'..', dates and
// timestamps DATE '..' / TIMESTAMP '..', anything else a quoted string; NULL as CAST(NULL AS
// type) where the type is known. Errors (InvalidArgument): a $n without its parameter, a value
// that is not of its type ("parameter $2 is not a valid int4: 'x'").
Result<std::string> SubstituteParameters(std::string_view query,
                                         const std::vector<BoundParameter>& params);

}  // namespace hop::server
