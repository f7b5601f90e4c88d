// The Avro schema of a table's row type, derived as Hoptimator derives it (its AvroConverter),
// and the text Avro's Java library prints for it, so that `!resolve` shows what Hoptimator shows.
// The rules, with the Calcite and Avro behaviour they follow, are in avro.cc.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "common/status.h"
#include "resource/json.h"

namespace hop::catalog {

// The namespace and name Hoptimator passes to the converter for a table: "com.linkedin." followed
// by the lower-cased path without the table, and the lower-cased table name. For ADS.PAGE_VIEWS
// that is {"com.linkedin.ads", "page_views"}; the record itself is then named "page_views" in
// namespace "com.linkedin.ads.page_views" (see AvroSchema). A one-part path gives namespace
// "com.linkedin." with its trailing dot, as Hoptimator does.
struct AvroName {
  std::string namespace_name;
  std::string name;
};
AvroName AvroNameOfTable(const std::vector<std::string>& path);

// How the "doc" strings spell the types of a table's columns. The docs are Calcite's type strings.
// Calcite spells a column by its SQL type ("VARCHAR", "INTEGER NOT NULL"), except in tables it
// reads from Java objects, as Hoptimator's demo databases are: there a string column is
// "JavaType(class java.lang.String)". kJava spells CHAR and VARCHAR columns that way (the demo
// tables hold nothing else) and every other column as kSql does.
enum class AvroTypeSpelling { kSql, kJava };

// The Avro schema (a JSON document) of a table's row type, as Hoptimator's
// AvroConverter.avro(namespace_name, record_name, rowType) builds it: a record named
// `record_name` (sanitized) in namespace "<namespace_name>.<record_name>", one field per column.
// Nullable columns (any nullability but NOT NULL) become ["null", T] with "default": null.
// DECIMAL keeps its precision and scale (logicalType decimal), TIME and TIMESTAMP their precision
// (millis or micros), where Hoptimator rejects DECIMAL, REAL, TIME and TIMESTAMP WITH LOCAL TIME
// ZONE. Errors: InvalidArgument "No support yet for <TYPE>" for a type neither converts (TIME or
// TIMESTAMP WITH TIME ZONE, INTERVAL).
Result<Json> AvroSchema(const RowType& row, std::string_view namespace_name,
                        std::string_view record_name,
                        AvroTypeSpelling spelling = AvroTypeSpelling::kSql);

// `schema` in the layout of Avro's Java Schema.toString(true), which is Jackson's default pretty
// printer: objects one entry a line, indented two spaces a level, `"key" : value`; arrays on the
// line they open, `[ a, b ]`; no newline at the end.
std::string PrettyAvro(const Json& schema);

}  // namespace hop::catalog
