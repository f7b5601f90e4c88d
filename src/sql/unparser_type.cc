// Printing data types in each dialect: PostgreSQL's names (DOUBLE PRECISION, BYTEA, T[]),
// SQLite's BLOB, element nullability as ARRAY<T NOT NULL>, and the types a dialect lacks refused.
// The same printer writes a type as Calcite names it in messages (TypeString), so that hop's
// binder errors read as Calcite's.
#include "sql/unparser_impl.h"

namespace hop::sql::internal {

void Writer::Type(const DataType& t) {
  // Messages are written in the ANSI dialect, which refuses nothing but the NULL and INTERVAL
  // types; what they spell differently from SQL is marked `message`.
  const bool message = type_spelling_ == TypeSpelling::kMessage ||
                       type_spelling_ == TypeSpelling::kMessageWithNullability;
  // Pipeline scripts write a collection's element nullability before ARRAY or MULTISET.
  const bool suffix_collections = message || type_spelling_ == TypeSpelling::kPipelineDdl;
  auto precision = [&] {
    if (t.precision) out_ += fmt::format("({})", *t.precision);
  };
  switch (t.name) {
    case TypeName::kBoolean: Raw("BOOLEAN"); break;
    case TypeName::kTinyInt:
      if (postgres()) Unsupported("TINYINT");
      Raw("TINYINT");
      break;
    case TypeName::kSmallInt: Raw("SMALLINT"); break;
    case TypeName::kInteger: Raw("INTEGER"); break;
    case TypeName::kBigInt: Raw("BIGINT"); break;
    case TypeName::kFloat:
      Raw("FLOAT");
      if (!message) precision();  // Calcite names FLOAT without its precision
      break;
    case TypeName::kReal: Raw("REAL"); break;
    case TypeName::kDouble: Raw(postgres() ? "DOUBLE PRECISION" : "DOUBLE"); break;
    case TypeName::kDecimal:
      Raw("DECIMAL");
      if (t.precision) {
        if (t.scale || message) {  // Calcite names a DECIMAL with its scale, 0 when absent
          out_ += fmt::format("({}, {})", *t.precision, t.scale.value_or(0));
        } else {
          precision();
        }
      }
      break;
    case TypeName::kChar:
      Raw("CHAR");
      precision();
      break;
    case TypeName::kVarchar:
      // PostgreSQL's string without a length is TEXT (its VARCHAR without one is another type
      // that compares and converts as TEXT).
      if (postgres() && !t.precision && !message) {
        Raw("TEXT");
        break;
      }
      Raw("VARCHAR");
      precision();
      break;
    case TypeName::kBinary:
      if (postgres()) Unsupported("BINARY");
      Raw("BINARY");
      precision();
      break;
    case TypeName::kVarbinary:
      if (postgres()) Unsupported("VARBINARY");
      Raw("VARBINARY");
      precision();
      break;
    case TypeName::kBytes: Raw(postgres() ? "BYTEA" : sqlite() ? "BLOB" : "BYTES"); break;
    case TypeName::kDate: Raw("DATE"); break;
    case TypeName::kTime:
    case TypeName::kTimestamp:
      if (type_spelling_ == TypeSpelling::kPipelineDdl && t.name == TypeName::kTimestamp &&
          t.time_zone == TimeZone::kWithLocalTimeZone) {
        Raw("TIMESTAMP_LTZ");  // Flink's other name, which pipeline scripts declare columns with
        precision();
        break;
      }
      Raw(t.name == TypeName::kTime ? "TIME" : "TIMESTAMP");
      precision();
      if (flink() && t.name == TypeName::kTime && t.time_zone != TimeZone::kNone) {
        Unsupported("TIME with a time zone");
      }
      if (t.time_zone == TimeZone::kWithTimeZone) {
        if (sqlite() || flink()) Unsupported("WITH TIME ZONE");
        Raw(" WITH TIME ZONE");
      } else if (t.time_zone == TimeZone::kWithLocalTimeZone) {
        if (sqlite() || postgres()) Unsupported("WITH LOCAL TIME ZONE");
        Raw(" WITH LOCAL TIME ZONE");
      }
      break;
    case TypeName::kArray: {
      if (sqlite()) Unsupported("the ARRAY type");
      const DataType& element = t.params.front();
      if (element.nullability != Nullability::kUnspecified && !suffix_collections) {
        if (postgres()) Unsupported("an ARRAY element's nullability");
        Raw("ARRAY<");
        Type(element);
        Raw(">");
      } else {
        Type(element);
        Raw(postgres() ? "[]" : " ARRAY");
      }
      break;
    }
    case TypeName::kMultiset: {
      if (sqlite() || postgres()) Unsupported("the MULTISET type");
      const DataType& element = t.params.front();
      if (element.nullability != Nullability::kUnspecified && !suffix_collections) {
        Raw("MULTISET<");
        Type(element);
        Raw(">");
      } else {
        Type(element);
        Raw(" MULTISET");
      }
      break;
    }
    case TypeName::kMap:
      if (sqlite() || postgres()) Unsupported("the MAP type");
      Raw(message ? "(" : "MAP<");
      Type(t.params[0]);
      Raw(", ");
      Type(t.params[1]);
      Raw(message ? ") MAP" : ">");
      break;
    case TypeName::kRow:
      if (sqlite() || postgres()) Unsupported("the ROW type");
      if (message) {  // `RecordType(VARCHAR A, INTEGER B)`: type first, name as it is
        Raw("RecordType(");
        for (size_t i = 0; i < t.fields.size(); ++i) {
          if (i > 0) Raw(", ");
          Type(t.fields[i].type);
          Raw(" ");
          Raw(t.fields[i].name.name);
        }
        Raw(")");
        break;
      }
      Raw("ROW(");
      for (size_t i = 0; i < t.fields.size(); ++i) {
        if (i > 0) Raw(", ");
        Ident(t.fields[i].name);
        Raw(" ");
        Type(t.fields[i].type);
      }
      Raw(")");
      break;
    case TypeName::kNull:
      if (message) {
        Raw("NULL");
      } else {
        Unsupported("the NULL type");
      }
      break;
    case TypeName::kInterval:
      if (message) {
        Raw("INTERVAL");
      } else {
        Unsupported("an INTERVAL type");
      }
      break;
  }
  if (message) {
    if (type_spelling_ == TypeSpelling::kMessageWithNullability &&
        t.nullability == Nullability::kNotNull) {
      Raw(" NOT NULL");
    }
    return;
  }
  if (t.nullability == Nullability::kNotNull) {
    Raw(" NOT NULL");
  } else if (t.nullability == Nullability::kNull) {
    Raw(" NULL");
  }
}

}  // namespace hop::sql::internal
