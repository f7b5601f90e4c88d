#include "catalog/pg_types.h"

#include <array>

namespace hop::catalog {
namespace {

using sql::TypeName;

// The scalar types, with the OID of their array type (0: none here).
struct Scalar {
  PgType type;
  uint32_t array_oid;
  std::string_view array_name;
};

constexpr std::array<Scalar, 16> kScalars = {{
    {{16, "bool", 1}, 1000, "_bool"},
    {{17, "bytea", -1}, 1001, "_bytea"},
    {{20, "int8", 8}, 1016, "_int8"},
    {{21, "int2", 2}, 1005, "_int2"},
    {{23, "int4", 4}, 1007, "_int4"},
    {{25, "text", -1}, 1009, "_text"},
    {{114, "json", -1}, 199, "_json"},
    {{700, "float4", 4}, 1021, "_float4"},
    {{701, "float8", 8}, 1022, "_float8"},
    {{705, "unknown", -2}, 0, ""},
    {{1042, "bpchar", -1}, 1014, "_bpchar"},
    {{1043, "varchar", -1}, 1015, "_varchar"},
    {{1082, "date", 4}, 1182, "_date"},
    {{1083, "time", 8}, 1183, "_time"},
    {{1114, "timestamp", 8}, 1115, "_timestamp"},
    {{1184, "timestamptz", 8}, 1185, "_timestamptz"},
}};
constexpr Scalar kNumeric = {{1700, "numeric", -1}, 1231, "_numeric"};
constexpr Scalar kInterval = {{1186, "interval", 16}, 1187, "_interval"};

const Scalar& Find(uint32_t oid) {
  if (oid == kNumeric.type.oid) return kNumeric;
  if (oid == kInterval.type.oid) return kInterval;
  for (const Scalar& s : kScalars) {
    if (s.type.oid == oid) return s;
  }
  return kScalars[9];  // unknown
}

// The scalar OID of a non-collection type.
uint32_t ScalarOid(const sql::DataType& type) {
  switch (type.name) {
    case TypeName::kBoolean: return 16;
    case TypeName::kTinyInt:
    case TypeName::kSmallInt: return 21;
    case TypeName::kInteger: return 23;
    case TypeName::kBigInt: return 20;
    case TypeName::kFloat:
    case TypeName::kReal: return 700;
    case TypeName::kDouble: return 701;
    case TypeName::kDecimal: return 1700;
    case TypeName::kChar: return 1042;
    case TypeName::kVarchar: return type.precision ? 1043 : 25;
    case TypeName::kBinary:
    case TypeName::kVarbinary:
    case TypeName::kBytes: return 17;
    case TypeName::kDate: return 1082;
    case TypeName::kTime: return 1083;
    case TypeName::kTimestamp: return type.time_zone == sql::TimeZone::kNone ? 1114 : 1184;
    case TypeName::kInterval: return 1186;
    case TypeName::kNull: return 705;
    case TypeName::kArray:
    case TypeName::kMap:
    case TypeName::kRow:
    case TypeName::kMultiset: return 114;
  }
  return 705;
}

int32_t Modifier(const sql::DataType& type) {
  switch (type.name) {
    case TypeName::kChar:
    case TypeName::kVarchar: return type.precision ? *type.precision + 4 : -1;
    case TypeName::kDecimal:
      return type.precision ? ((*type.precision << 16) | type.scale.value_or(0)) + 4 : -1;
    default: return -1;
  }
}

}  // namespace

PgType PgTypeOf(const sql::DataType& type) {
  const bool collection = type.name == TypeName::kArray || type.name == TypeName::kMultiset;
  if (collection && !type.params.empty()) {
    const sql::DataType& element = type.params.front();
    const uint32_t oid = ScalarOid(element);
    const Scalar& s = Find(oid);
    if (s.array_oid != 0 && element.name != TypeName::kArray && element.name != TypeName::kMap &&
        element.name != TypeName::kRow && element.name != TypeName::kMultiset) {
      return PgType{s.array_oid, s.array_name, -1, Modifier(element)};
    }
    return Find(114).type;
  }
  PgType t = Find(ScalarOid(type)).type;
  t.modifier = Modifier(type);
  return t;
}

const PgType* PgTypeByOid(uint32_t oid) {
  const Scalar& s = Find(oid);
  if (s.type.oid != oid) return nullptr;
  return &s.type;
}

}  // namespace hop::catalog
