// How hop's SQL types look to PostgreSQL clients: the type OID, name, length and modifier that
// the wire protocol's RowDescription and the emulated pg_catalog (pg_type, pg_attribute) give
// a column. One mapping, so a client sees the same type whichever way it asks.
//
// Scalars map to their PostgreSQL namesakes (VARCHAR without a length is `text`); TIMESTAMP WITH
// LOCAL TIME ZONE and WITH TIME ZONE are `timestamptz`; TINYINT widens to `int2`; an ARRAY or
// MULTISET of a scalar is that scalar's array type, and of anything else `json`; MAP and ROW are
// `json`, the text form the engine gives them.
#pragma once

#include <cstdint>
#include <string_view>

#include "sql/ast/data_type.h"

namespace hop::catalog {

struct PgType {
  uint32_t oid = 0;
  std::string_view name;  // pg_type.typname: int4, varchar, _int8, ...
  int16_t length = -1;    // pg_type.typlen: bytes of a fixed-size type, -1 for variable size
  int32_t modifier = -1;  // atttypmod: VARCHAR(n) is n + 4, DECIMAL(p, s) is (p << 16 | s) + 4
};

PgType PgTypeOf(const sql::DataType& type);

// The type of a scalar OID (one PgTypeOf can return, or `unknown`'s 705), or nullptr.
const PgType* PgTypeByOid(uint32_t oid);

}  // namespace hop::catalog
