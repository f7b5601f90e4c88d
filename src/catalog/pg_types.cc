#include "catalog/pg_types.h"

#include <array>

namespace hop::catalog {
namespace {

using sql::TypeName;

using Scalar = PgScalarType;

// The scalar types: their array types, input functions (PostgreSQL 15's OIDs), categories.
constexpr std::array<Scalar, 18> kScalars = {{
    {{16, "bool", 1}, 1000, "_bool", "boolin", 1242, 'B', false},
    {{17, "bytea", -1}, 1001, "_bytea", "byteain", 1244, 'U', false},
    {{20, "int8", 8}, 1016, "_int8", "int8in", 460, 'N', false},
    {{21, "int2", 2}, 1005, "_int2", "int2in", 38, 'N', false},
    {{23, "int4", 4}, 1007, "_int4", "int4in", 42, 'N', false},
    {{25, "text", -1}, 1009, "_text", "textin", 46, 'S', true},
    {{114, "json", -1}, 199, "_json", "json_in", 321, 'U', false},
    {{700, "float4", 4}, 1021, "_float4", "float4in", 200, 'N', false},
    {{701, "float8", 8}, 1022, "_float8", "float8in", 214, 'N', false},
    {{705, "unknown", -2}, 0, "", "unknownin", 109, 'X', false},
    {{1042, "bpchar", -1}, 1014, "_bpchar", "bpcharin", 1044, 'S', true},
    {{1043, "varchar", -1}, 1015, "_varchar", "varcharin", 1046, 'S', true},
    {{1082, "date", 4}, 1182, "_date", "date_in", 1084, 'D', false},
    {{1083, "time", 8}, 1183, "_time", "time_in", 1143, 'D', false},
    {{1114, "timestamp", 8}, 1115, "_timestamp", "timestamp_in", 1312, 'D', false},
    {{1184, "timestamptz", 8}, 1185, "_timestamptz", "timestamptz_in", 1150, 'D', false},
    {{1186, "interval", 16}, 1187, "_interval", "interval_in", 1160, 'T', false},
    {{1700, "numeric", -1}, 1231, "_numeric", "numeric_in", 1701, 'N', false},
}};
constexpr size_t kUnknown = 9;

const Scalar& Find(uint32_t oid) {
  for (const Scalar& s : kScalars) {
    if (s.type.oid == oid) return s;
  }
  return kScalars[kUnknown];
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

std::span<const PgScalarType> PgScalarTypes() { return kScalars; }

std::optional<uint32_t> PgTypeOidByName(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  std::string name;
  for (char c : text) name += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  if (name.rfind("pg_catalog.", 0) == 0) name.erase(0, 11);
  bool array = false;
  if (name.size() > 2 && name.compare(name.size() - 2, 2, "[]") == 0) {
    array = true;
    name.resize(name.size() - 2);
  }
  static constexpr std::pair<std::string_view, uint32_t> kAliases[] = {
      {"int", 23},          {"bool", 16},          {"float", 701},
      {"decimal", 1700},    {"char", 1042},        {"character", 1042},
      {"timestamptz", 1184}};
  for (const auto& [alias, oid] : kAliases) {
    if (name == alias) name = std::string(Find(oid).type.name);
  }
  for (const Scalar& s : kScalars) {
    if (!array && !s.array_name.empty() && name == s.array_name) return s.array_oid;
    if (name == s.type.name || name == FormatPgType(s.type.oid, -1)) {
      if (!array) return s.type.oid;
      if (s.array_oid == 0) return std::nullopt;
      return s.array_oid;
    }
  }
  return std::nullopt;
}

std::string FormatPgType(uint32_t oid, int32_t modifier) {
  for (const Scalar& s : kScalars) {
    if (s.array_oid == oid && oid != 0) return FormatPgType(s.type.oid, modifier) + "[]";
  }
  const bool has_mod = modifier >= 4;
  switch (oid) {
    case 16: return "boolean";
    case 17: return "bytea";
    case 20: return "bigint";
    case 21: return "smallint";
    case 23: return "integer";
    case 25: return "text";
    case 114: return "json";
    case 700: return "real";
    case 701: return "double precision";
    case 705: return "unknown";
    case 1042: return has_mod ? "character(" + std::to_string(modifier - 4) + ")" : "bpchar";
    case 1043:
      return has_mod ? "character varying(" + std::to_string(modifier - 4) + ")"
                     : "character varying";
    case 1082: return "date";
    case 1083: return "time without time zone";
    case 1114: return "timestamp without time zone";
    case 1184: return "timestamp with time zone";
    case 1186: return "interval";
    case 1700:
      if (!has_mod) return "numeric";
      return "numeric(" + std::to_string((modifier - 4) >> 16) + "," +
             std::to_string((modifier - 4) & 0xFFFF) + ")";
    default: return "???";
  }
}

const PgType* PgTypeByOid(uint32_t oid) {
  const Scalar& s = Find(oid);
  if (s.type.oid != oid) return nullptr;
  return &s.type;
}

}  // namespace hop::catalog
