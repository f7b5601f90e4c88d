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
#include <optional>
#include <span>
#include <string>
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

// A scalar type as the emulated pg_type describes it: its array type (OID 0: none), its input
// function (pg_type.typinput, with PostgreSQL 15's OID), pg_type.typcategory, and whether it is
// collatable (pg_type.typcollation is the default collation, 100).
struct PgScalarType {
  PgType type;
  uint32_t array_oid = 0;
  std::string_view array_name;
  std::string_view input;
  uint32_t input_oid = 0;
  char category = 'U';
  bool collatable = false;
};

// Every scalar type PgTypeOf can return, in OID order.
std::span<const PgScalarType> PgScalarTypes();

// What PostgreSQL's format_type(oid, typmod) prints: `integer`, `character varying(20)`,
// `numeric(10,2)`, `timestamp without time zone`, `integer[]`; `???` for an OID of no type here.
std::string FormatPgType(uint32_t oid, int32_t modifier);

// The OID of the type a client's name (`int4`, `integer`, `pg_catalog.varchar`, `character
// varying`, `text[]`, `_text`) names, as regtype reads it; nullopt when none here.
std::optional<uint32_t> PgTypeOidByName(std::string_view name);

// The type of a scalar OID (one PgTypeOf can return, or `unknown`'s 705), or nullptr.
const PgType* PgTypeByOid(uint32_t oid);

}  // namespace hop::catalog
