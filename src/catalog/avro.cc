// Row type to Avro, following Hoptimator's AvroConverter.avro(namespace, name, type):
//  * A struct becomes a record named sanitize(name) in namespace "<namespace>.<name>" (the name
//    unsanitized there), with doc = Calcite's toString() of the struct ("RecordType(VARCHAR A)").
//    Each field is converted with that namespace and its own name; it is named sanitize(name),
//    has doc "<name> <Calcite full type string>" ("A VARCHAR", "B INTEGER NOT NULL") and, when
//    its schema is a union containing null, "default": null.
//  * A nullable type T becomes the union ["null", T]; NOT NULL leaves T alone.
//  * TINYINT, SMALLINT, INTEGER: int. BIGINT: long. CHAR, VARCHAR: string. FLOAT: float.
//    DOUBLE: double. BOOLEAN: boolean. DATE: int with logicalType date. TIMESTAMP(p) (no time
//    zone): long with logicalType timestamp-micros if p > 3, else timestamp-millis.
//  * BINARY and VARBINARY with a length n become fixed, named sanitize(name) in namespace
//    "<namespace>.<name>", size n, doc the type string; BINARY's default length is 1, so plain
//    BINARY is fixed(1). VARBINARY without a length (and BYTES) is bytes.
//  * ARRAY: {"type": "array", "items": element converted as "<sanitize(name)>ArrayElement"}.
//    MAP: {"type": "map", "values": value converted as "<sanitize(name)>MapElement"}; Avro map
//    keys are strings, so the key type is dropped.
//  * NULL: the union ["null"], whatever its nullability.
//  * hop converts, where Hoptimator throws (docs/pipelines.md, departures): DECIMAL(p, s) as bytes
//    with logicalType decimal, precision p and scale s (DECIMAL alone is DECIMAL(19, 0), as in
//    Calcite); REAL as float; TIME(p) as int with logicalType time-millis if p <= 3, else long
//    with time-micros; TIMESTAMP(p) WITH LOCAL TIME ZONE, an instant, as TIMESTAMP(p) is.
//  * Anything else (TIME or TIMESTAMP WITH TIME ZONE, INTERVAL, ...) is rejected with "No support
//    yet for <Calcite type name>", the message Hoptimator throws.
// sanitize(name) prefixes "_" unless the name starts with an ASCII letter or '_', then drops every
// character but ASCII letters, digits and '_'.
//
// Calcite's type strings: toString() is the type name with its precision when one is set (CHAR
// and BINARY default to 1, TIME and TIMESTAMP to 0, VARCHAR and VARBINARY to none), "E ARRAY",
// "(K, V) MAP", "RecordType(T1 F1, T2 F2)"; the full type string spells the parts in full too and
// appends " NOT NULL" to a type that is not nullable.
//
// Avro's printer omits a named schema's namespace when it equals the enclosing record's; with
// Hoptimator's naming every nested namespace is longer than its parent's, so each is printed.
#include "catalog/avro.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "common/strings.h"
#include "sql/unparser.h"

namespace hop::catalog {
namespace {

using sql::DataType;
using sql::TypeName;

bool IsNullable(const DataType& t) { return t.nullability != sql::Nullability::kNotNull; }

// A field of a struct, whether a table column or a ROW field.
struct FieldRef {
  const std::string& name;
  const DataType& type;
};

std::vector<FieldRef> FieldsOf(const RowType& row) {
  std::vector<FieldRef> fields;
  for (const Column& c : row.columns) fields.push_back({c.name, c.type});
  return fields;
}

std::vector<FieldRef> FieldsOf(const DataType& row) {
  std::vector<FieldRef> fields;
  for (const sql::RowField& f : row.fields) fields.push_back({f.name.name, f.type});
  return fields;
}

// Calcite's SqlTypeName of a scalar type, as its messages spell it.
std::string CalciteTypeName(const DataType& t) {
  auto zoned = [&](std::string_view base, std::string_view tz) {
    switch (t.time_zone) {
      case sql::TimeZone::kNone: return std::string(base);
      case sql::TimeZone::kWithLocalTimeZone: return std::string(base) + "_WITH_LOCAL_TIME_ZONE";
      case sql::TimeZone::kWithTimeZone: return std::string(tz);
    }
    return std::string(base);
  };
  switch (t.name) {
    case TypeName::kBoolean: return "BOOLEAN";
    case TypeName::kTinyInt: return "TINYINT";
    case TypeName::kSmallInt: return "SMALLINT";
    case TypeName::kInteger: return "INTEGER";
    case TypeName::kBigInt: return "BIGINT";
    case TypeName::kFloat: return "FLOAT";
    case TypeName::kReal: return "REAL";
    case TypeName::kDouble: return "DOUBLE";
    case TypeName::kDecimal: return "DECIMAL";
    case TypeName::kChar: return "CHAR";
    case TypeName::kVarchar: return "VARCHAR";
    case TypeName::kBinary: return "BINARY";
    case TypeName::kVarbinary:
    case TypeName::kBytes: return "VARBINARY";
    case TypeName::kDate: return "DATE";
    case TypeName::kTime: return zoned("TIME", "TIME_TZ");
    case TypeName::kTimestamp: return zoned("TIMESTAMP", "TIMESTAMP_TZ");
    case TypeName::kArray: return "ARRAY";
    case TypeName::kMultiset: return "MULTISET";
    case TypeName::kMap: return "MAP";
    case TypeName::kRow: return "ROW";
    case TypeName::kNull: return "NULL";
    default: {
      // A type added to the AST after this file: name it as hop prints it.
      auto printed = sql::PrintType(t);
      return printed.ok() ? AsciiToUpper(*printed) : "UNKNOWN";
    }
  }
}

// The length or precision Calcite gives a type written without one, or nullopt for none.
std::optional<int> DefaultPrecision(TypeName name) {
  switch (name) {
    case TypeName::kChar:
    case TypeName::kBinary: return 1;
    case TypeName::kTime:
    case TypeName::kTimestamp: return 0;
    default: return std::nullopt;
  }
}

// The precision Calcite keeps for `t`: written, or defaulted; nullopt where it keeps none.
std::optional<int> CalcitePrecision(const DataType& t) {
  switch (t.name) {
    case TypeName::kChar:
    case TypeName::kVarchar:
    case TypeName::kBinary:
    case TypeName::kVarbinary:
    case TypeName::kTime:
    case TypeName::kTimestamp: return t.precision ? t.precision : DefaultPrecision(t.name);
    default: return std::nullopt;  // BYTES is VARBINARY without a length
  }
}

std::string CalciteType(const DataType& t, bool full);

std::string CalciteRecordType(const std::vector<FieldRef>& fields, bool full) {
  std::string out = "RecordType(";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ", ";
    out += CalciteType(fields[i].type, full);
    out += ' ';
    out += fields[i].name;
  }
  out += ')';
  return out;
}

// Calcite's RelDataType.toString() (full = false) or getFullTypeString() (full = true).
std::string CalciteType(const DataType& t, bool full) {
  std::string out;
  switch (t.name) {
    case TypeName::kArray: out = CalciteType(t.params.at(0), full) + " ARRAY"; break;
    case TypeName::kMultiset: out = CalciteType(t.params.at(0), full) + " MULTISET"; break;
    case TypeName::kMap:
      out = fmt::format("({}, {}) MAP", CalciteType(t.params.at(0), full),
                        CalciteType(t.params.at(1), full));
      break;
    case TypeName::kRow: out = CalciteRecordType(FieldsOf(t), full); break;
    case TypeName::kDecimal:
      out = fmt::format("DECIMAL({}, {})", t.precision.value_or(19), t.scale.value_or(0));
      break;
    default:
      out = CalciteTypeName(t);
      if (auto p = CalcitePrecision(t)) out += fmt::format("({})", *p);
      break;
  }
  if (full && !IsNullable(t)) out += " NOT NULL";
  return out;
}

// The spelling of a table column's type in the docs.
std::string ColumnType(const DataType& t, bool full, AvroTypeSpelling spelling) {
  if (spelling == AvroTypeSpelling::kJava &&
      (t.name == TypeName::kChar || t.name == TypeName::kVarchar)) {
    std::string out = "JavaType(class java.lang.String)";
    if (full && !IsNullable(t)) out += " NOT NULL";
    return out;
  }
  return CalciteType(t, full);
}

std::string Sanitize(std::string_view name) {
  std::string out;
  auto is_letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  if (!name.empty() && !is_letter(name.front()) && name.front() != '_') out += '_';
  for (char c : name) {
    if (is_letter(c) || (c >= '0' && c <= '9') || c == '_') out += c;
  }
  return out;
}

Json Nullable(Json schema, bool nullable) {
  if (!nullable) return schema;
  return Json::array({"null", std::move(schema)});
}

// Whether `schema` is a union with a null branch: the fields Hoptimator gives "default": null.
bool IsNullableUnion(const Json& schema) {
  if (!schema.is_array()) return false;
  for (const Json& branch : schema) {
    if (branch.is_string() && branch.get<std::string>() == "null") return true;
  }
  return false;
}

// Starts a named schema (record or fixed): type, name and, unless it is the enclosing record's,
// namespace.
Json Named(std::string_view type, std::string_view name, const std::string& space,
           const std::string* enclosing) {
  Json out = Json::object();
  out["type"] = type;
  out["name"] = Sanitize(name);
  if (!enclosing || *enclosing != space) out["namespace"] = space;
  return out;
}

struct Converter {
  AvroTypeSpelling spelling;

  // A record of `fields`: the table itself (top = true) or a ROW.
  Result<Json> Record(const std::string& space, std::string_view name,
                      const std::vector<FieldRef>& fields, const std::string& doc,
                      const std::string* enclosing, bool top) {
    const std::string inner_space = space + "." + std::string(name);
    Json avro_fields = Json::array();
    for (const FieldRef& f : fields) {
      HOP_ASSIGN_OR_RETURN(Json type, Convert(inner_space, f.name, f.type, &inner_space));
      Json field = Json::object();
      field["name"] = Sanitize(f.name);
      const bool nullable = IsNullableUnion(type);
      field["type"] = std::move(type);
      field["doc"] =
          f.name + " " +
          (top ? ColumnType(f.type, /*full=*/true, spelling) : CalciteType(f.type, /*full=*/true));
      if (nullable) field["default"] = nullptr;
      avro_fields.push_back(std::move(field));
    }
    Json record = Named("record", name, inner_space, enclosing);
    record["doc"] = doc;
    record["fields"] = std::move(avro_fields);
    return record;
  }

  // The schema of a value of type `t` called `name`, inside namespace `space`; `enclosing` is
  // the namespace of the record being printed around it.
  Result<Json> Convert(const std::string& space, std::string_view name, const DataType& t,
                       const std::string* enclosing) {
    const bool nullable = IsNullable(t);
    auto logical = [&](std::string_view base, std::string_view logical_type) {
      Json out = Json::object();
      out["type"] = base;
      out["logicalType"] = logical_type;
      return Nullable(std::move(out), nullable);
    };
    switch (t.name) {
      case TypeName::kTinyInt:
      case TypeName::kSmallInt:
      case TypeName::kInteger: return Nullable("int", nullable);
      case TypeName::kBigInt: return Nullable("long", nullable);
      case TypeName::kChar:
      case TypeName::kVarchar: return Nullable("string", nullable);
      case TypeName::kFloat: return Nullable("float", nullable);
      case TypeName::kDouble: return Nullable("double", nullable);
      case TypeName::kBoolean: return Nullable("boolean", nullable);
      case TypeName::kBinary:
      case TypeName::kVarbinary:
      case TypeName::kBytes: {
        const std::optional<int> length = CalcitePrecision(t);
        if (!length) return Nullable("bytes", nullable);
        const std::string fixed_space = space + "." + std::string(name);
        Json fixed = Named("fixed", name, fixed_space, enclosing);
        fixed["doc"] = CalciteType(t, /*full=*/false);
        fixed["size"] = *length;
        return Nullable(std::move(fixed), nullable);
      }
      case TypeName::kReal: return Nullable("float", nullable);
      case TypeName::kDecimal: {
        Json out = Json::object();
        out["type"] = "bytes";
        out["logicalType"] = "decimal";
        out["precision"] = t.precision.value_or(19);
        out["scale"] = t.scale.value_or(0);
        return Nullable(std::move(out), nullable);
      }
      case TypeName::kDate: return logical("int", "date");
      case TypeName::kTime:
        if (t.time_zone != sql::TimeZone::kNone) break;
        if (CalcitePrecision(t).value_or(0) > 3) return logical("long", "time-micros");
        return logical("int", "time-millis");
      case TypeName::kTimestamp:
        if (t.time_zone == sql::TimeZone::kWithTimeZone) break;
        return logical(
            "long", CalcitePrecision(t).value_or(0) > 3 ? "timestamp-micros" : "timestamp-millis");
      case TypeName::kArray: {
        const std::string inner_space = space + "." + std::string(name);
        HOP_ASSIGN_OR_RETURN(Json items, Convert(inner_space, Sanitize(name) + "ArrayElement",
                                                 t.params.at(0), enclosing));
        Json array = Json::object();
        array["type"] = "array";
        array["items"] = std::move(items);
        return Nullable(std::move(array), nullable);
      }
      case TypeName::kMap: {
        const std::string inner_space = space + "." + std::string(name);
        HOP_ASSIGN_OR_RETURN(Json values, Convert(inner_space, Sanitize(name) + "MapElement",
                                                  t.params.at(1), enclosing));
        Json map = Json::object();
        map["type"] = "map";
        map["values"] = std::move(values);
        return Nullable(std::move(map), nullable);
      }
      case TypeName::kRow: {
        HOP_ASSIGN_OR_RETURN(
            Json record, Record(space, name, FieldsOf(t), CalciteType(t, /*full=*/false), enclosing,
                                /*top=*/false));
        return Nullable(std::move(record), nullable);
      }
      case TypeName::kNull:
        // A union cannot hold null twice, so nullability is ignored.
        return Json::array({"null"});
      default: break;  // INTERVAL, and types added to the AST later
    }
    return Status::InvalidArgument("No support yet for " + CalciteTypeName(t));
  }
};

void AppendQuoted(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out->push_back('"');
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\b': *out += "\\b"; break;
      case '\t': *out += "\\t"; break;
      case '\n': *out += "\\n"; break;
      case '\f': *out += "\\f"; break;
      case '\r': *out += "\\r"; break;
      default:
        if (u < 0x20) {
          *out += "\\u00";
          out->push_back(kHex[u >> 4]);
          out->push_back(kHex[u & 0xF]);
        } else {
          out->push_back(c);  // UTF-8 is written as it is
        }
    }
  }
  out->push_back('"');
}

void AppendIndent(int nesting, std::string* out) {
  out->push_back('\n');
  out->append(static_cast<size_t>(nesting) * 2, ' ');
}

// Jackson's DefaultPrettyPrinter: objects indent a level per nesting, arrays stay on one line
// (their elements' objects still indent from the array's level).
void AppendPretty(const Json& v, int nesting, std::string* out) {
  if (v.is_object()) {
    if (v.empty()) {
      *out += "{ }";
      return;
    }
    out->push_back('{');
    bool first = true;
    for (const auto& [key, value] : v.items()) {
      if (!first) out->push_back(',');
      first = false;
      AppendIndent(nesting + 1, out);
      AppendQuoted(key, out);
      *out += " : ";
      AppendPretty(value, nesting + 1, out);
    }
    AppendIndent(nesting, out);
    out->push_back('}');
  } else if (v.is_array()) {
    if (v.empty()) {
      *out += "[ ]";
      return;
    }
    *out += "[ ";
    bool first = true;
    for (const Json& element : v) {
      if (!first) *out += ", ";
      first = false;
      AppendPretty(element, nesting, out);
    }
    *out += " ]";
  } else if (v.is_string()) {
    AppendQuoted(v.get_ref<const std::string&>(), out);
  } else {
    *out += v.dump();  // null, booleans and numbers read the same in both
  }
}

}  // namespace

AvroName AvroNameOfTable(const std::vector<std::string>& path) {
  AvroName out;
  out.namespace_name = "com.linkedin.";
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    if (i > 0) out.namespace_name += '.';
    out.namespace_name += Utf8ToLower(path[i]);
  }
  if (!path.empty()) out.name = Utf8ToLower(path.back());
  return out;
}

Result<Json> AvroSchema(const RowType& row, std::string_view namespace_name,
                        std::string_view record_name, AvroTypeSpelling spelling) {
  Converter converter{spelling};
  const std::vector<FieldRef> fields = FieldsOf(row);
  std::string doc = "RecordType(";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) doc += ", ";
    doc += ColumnType(fields[i].type, /*full=*/false, spelling) + " " + fields[i].name;
  }
  doc += ')';
  return converter.Record(std::string(namespace_name), record_name, fields, doc,
                          /*enclosing=*/nullptr, /*top=*/true);
}

std::string PrettyAvro(const Json& schema) {
  std::string out;
  AppendPretty(schema, 0, &out);
  return out;
}

}  // namespace hop::catalog
