// Values in PostgreSQL's text forms, as a PostgreSQL server prints them and reads them back: what
// the wire protocol sends clients (server/, docs/pgwire.md) and what a refresh writes into
// PostgreSQL with `COPY ... FROM STDIN` (runtime/refresh.h).
//
//   BOOLEAN      t, f
//   numbers      digits; decimals at their scale; doubles as PostgreSQL prints float8 (shortest
//                exact digits; 1e+15, NaN, Infinity)
//   binary       \x and hex digits
//   DATE, TIME   2026-01-01, 12:00:00.123 (up to 6 fraction digits, trailing zeros dropped)
//   TIMESTAMP    2026-01-01 12:00:00.123 (a local date-time); WITH LOCAL TIME ZONE with +00,
//                the instant in UTC
//   INTERVAL     1 years 2 mons, 3 days 04:05:06.5
//   ARRAY        {1,2,NULL}, elements quoted when they must be ("a b", "x\"y")
// MAP and ROW (which hop never creates in PostgreSQL) are their JSON encoding.
#pragma once

#include <cstdint>
#include <string>

#include "engine/value.h"

namespace hop::engine {

// Appends `v` (not NULL) of encoding `rep` in PostgreSQL's text form.
void AppendPostgresText(const Value& v, const Rep& rep, std::string& out);

// A double as PostgreSQL prints float8 (`single`: float4): 1, 0.5, 1e+15, NaN, Infinity.
std::string PostgresDouble(double d, bool single);

// Microseconds since 1970-01-01 as PostgreSQL prints a timestamp: 2026-01-01 12:00:00.5.
void AppendPostgresTimestamp(int64_t micros, std::string& out);

// Appends one field of a COPY text-format row: `\N` for NULL, else the PostgreSQL text form
// with backslash, tab, newline and carriage return escaped.
void AppendCopyField(const Value& v, const Rep& rep, std::string& out);

}  // namespace hop::engine
