// Values in PostgreSQL's text forms: what a PostgreSQL server accepts as the text of a value of
// the matching type (docs/postgres.md, "Types"), for writing rows into PostgreSQL with
// `COPY ... FROM STDIN` (a materialized view's refresh, runtime/refresh.h).
//
//   BOOLEAN      t, f
//   numbers      digits; decimals at their scale; doubles in shortest round-trip form, with
//                Infinity, -Infinity and NaN spelled as PostgreSQL does
//   binary       \x and hex digits
//   DATE, TIME   2026-01-01, 12:00:00.123
//   TIMESTAMP    2026-01-01 12:00:00.123 (a local date-time); WITH LOCAL TIME ZONE with +00,
//                the instant in UTC
//   ARRAY        {1,2,NULL}, elements quoted when they must be ("a b", "x\"y")
// MAP and ROW (which hop never creates in PostgreSQL) are their JSON encoding.
#pragma once

#include <string>

#include "engine/value.h"

namespace hop::engine {

// Appends `v` (not NULL) of encoding `rep` in PostgreSQL's text form.
void AppendPostgresText(const Value& v, const Rep& rep, std::string& out);

// Appends one field of a COPY text-format row: `\N` for NULL, else the PostgreSQL text form
// with backslash, tab, newline and carriage return escaped.
void AppendCopyField(const Value& v, const Rep& rep, std::string& out);

}  // namespace hop::engine
