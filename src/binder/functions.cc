#include "binder/functions.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "binder/types.h"
#include "sql/unparser.h"

namespace hop::binder {

using sql::DataType;
using sql::TypeName;

namespace {

bool AnyNullable(std::span<const DataType> args) {
  return std::any_of(args.begin(), args.end(), [](const DataType& t) { return IsNullable(t); });
}

// Return-type rules.
DataType Boolean(std::span<const DataType> a) {
  return WithNullable(DataType(TypeName::kBoolean), AnyNullable(a));
}
DataType Varchar(std::span<const DataType> a) {
  return WithNullable(DataType(TypeName::kVarchar), AnyNullable(a));
}
DataType VarcharNullable(std::span<const DataType>) { return DataType(TypeName::kVarchar); }
DataType Varchar2000Nullable(std::span<const DataType>) {
  DataType t(TypeName::kVarchar);
  t.precision = 2000;
  return t;
}
DataType Integer(std::span<const DataType> a) {
  return WithNullable(DataType(TypeName::kInteger), AnyNullable(a));
}
DataType BigInt(std::span<const DataType> a) {
  return WithNullable(DataType(TypeName::kBigInt), AnyNullable(a));
}
DataType BigIntNotNull(std::span<const DataType>) { return NotNull(TypeName::kBigInt); }
DataType BigIntNullable(std::span<const DataType>) { return DataType(TypeName::kBigInt); }
DataType Double(std::span<const DataType> a) {
  return WithNullable(DataType(TypeName::kDouble), AnyNullable(a));
}
DataType DoubleNotNull(std::span<const DataType>) { return NotNull(TypeName::kDouble); }
DataType DoubleNullableOf(std::span<const DataType>) { return DataType(TypeName::kDouble); }
DataType First(std::span<const DataType> a) { return WithNullable(a[0], AnyNullable(a)); }
DataType FirstNullable(std::span<const DataType> a) { return WithNullable(a[0], true); }
DataType FirstOrVarchar(std::span<const DataType> a) {
  if (IsCharacter(a[0])) return WithNullable(DataType(TypeName::kVarchar), AnyNullable(a));
  return WithNullable(a[0], AnyNullable(a));
}
DataType TimestampNotNull(std::span<const DataType>) {
  DataType t = NotNull(TypeName::kTimestamp);
  t.precision = 0;
  return t;
}
DataType TimestampLtzNotNull(std::span<const DataType>) {
  DataType t = NotNull(TypeName::kTimestamp);
  t.precision = 3;
  t.time_zone = sql::TimeZone::kWithLocalTimeZone;
  return t;
}
DataType DateNotNull(std::span<const DataType>) { return NotNull(TypeName::kDate); }
DataType TimeNotNull(std::span<const DataType>) {
  DataType t = NotNull(TypeName::kTime);
  t.precision = 0;
  return t;
}
DataType Timestamp(std::span<const DataType> a) {
  DataType t(TypeName::kTimestamp);
  t.precision = 3;
  return WithNullable(t, AnyNullable(a));
}
DataType Date(std::span<const DataType> a) {
  return WithNullable(DataType(TypeName::kDate), AnyNullable(a));
}
// COALESCE: the least restrictive type, NOT NULL when any argument is.
DataType Coalesce(std::span<const DataType> a) {
  auto t = LeastRestrictive(a).value_or(a[0]);
  bool nullable = std::all_of(a.begin(), a.end(), [](const DataType& x) { return IsNullable(x); });
  return WithNullable(t, nullable);
}
DataType LeastOfAll(std::span<const DataType> a) { return LeastRestrictive(a).value_or(a[0]); }
// IF(cond, a, b).
DataType IfResult(std::span<const DataType> a) {
  return LeastRestrictive(a.subspan(1)).value_or(a[1]);
}
DataType Sum(std::span<const DataType> a) { return SumResult(a[0]); }
DataType Avg(std::span<const DataType> a) { return WithNullable(a[0], true); }
DataType ArrayOfFirst(std::span<const DataType> a) {
  DataType t(TypeName::kArray);
  t.params.push_back(a[0]);
  return t;
}
DataType ElementOfFirst(std::span<const DataType> a) {
  if (a[0].name == TypeName::kArray) return WithNullable(a[0].params[0], true);
  return DataType(TypeName::kVarchar);
}
DataType Round(std::span<const DataType> a) { return WithNullable(a[0], AnyNullable(a)); }
DataType Md5(std::span<const DataType> a) {
  DataType t(TypeName::kChar);
  t.precision = 32;
  return WithNullable(t, AnyNullable(a));
}

struct Table {
  std::map<std::string_view, Function> by_name;

  void Add(std::string_view name, FunctionKind kind, int min_args, int max_args,
           std::vector<Family> families, DataType (*ret)(std::span<const DataType>),
           bool niladic = false) {
    by_name.emplace(name,
                    Function{name, kind, min_args, max_args, std::move(families), ret, niladic});
  }
  void Scalar(std::string_view name, int min_args, int max_args, std::vector<Family> families,
              DataType (*ret)(std::span<const DataType>)) {
    Add(name, FunctionKind::kScalar, min_args, max_args, std::move(families), ret);
  }

  Table() {
    using F = Family;
    // Strings.
    for (auto n : {"UPPER", "LOWER", "INITCAP", "REVERSE"}) {
      Scalar(n, 1, 1, {F::kString}, FirstOrVarchar);
    }
    // With PostgreSQL's second argument, the characters to remove (TRIM(TRAILING c FROM s) is
    // RTRIM(s, c)).
    for (auto n : {"LTRIM", "RTRIM", "TRIM"}) {
      Scalar(n, 1, 2, {F::kString, F::kString}, FirstOrVarchar);
    }
    for (auto n : {"CHAR_LENGTH", "CHARACTER_LENGTH", "LENGTH", "ASCII"}) {
      Scalar(n, 1, 1, {F::kString}, Integer);
    }
    Scalar("OCTET_LENGTH", 1, 1, {F::kStringOrBinary}, Integer);
    Scalar("SUBSTRING", 2, 3, {F::kString, F::kInteger, F::kInteger}, Varchar);
    Scalar("OVERLAY", 3, 4, {F::kString, F::kString, F::kInteger, F::kInteger}, Varchar);
    Scalar("SUBSTR", 2, 3, {F::kString, F::kInteger, F::kInteger}, Varchar);
    Scalar("LEFT", 2, 2, {F::kString, F::kInteger}, Varchar);
    Scalar("RIGHT", 2, 2, {F::kString, F::kInteger}, Varchar);
    Scalar("LPAD", 2, 3, {F::kString, F::kInteger, F::kString}, Varchar);
    Scalar("RPAD", 2, 3, {F::kString, F::kInteger, F::kString}, Varchar);
    Scalar("REPEAT", 2, 2, {F::kString, F::kInteger}, Varchar);
    Scalar("REPLACE", 3, 3, {F::kString}, Varchar);
    Scalar("TRANSLATE", 3, 3, {F::kString}, Varchar);
    Scalar("CONCAT", 1, -1, {F::kAny}, Varchar);
    Scalar("CONCAT_WS", 2, -1, {F::kString, F::kAny}, Varchar);
    Scalar("REGEXP_REPLACE", 3, 6,
           {F::kString, F::kString, F::kString, F::kInteger, F::kInteger, F::kString}, Varchar);
    Scalar("REGEXP_EXTRACT", 2, 3, {F::kString, F::kString, F::kInteger}, VarcharNullable);
    Scalar("REGEXP_SUBSTR", 2, 4, {F::kString, F::kString, F::kInteger, F::kInteger},
           VarcharNullable);
    Scalar("REGEXP_CONTAINS", 2, 2, {F::kString}, Boolean);
    Scalar("REGEXP_LIKE", 2, 3, {F::kString}, Boolean);
    Scalar("SPLIT_INDEX", 3, 3, {F::kString, F::kString, F::kInteger}, VarcharNullable);
    Scalar("POSITION", 2, 3, {F::kString, F::kString, F::kInteger}, Integer);
    Scalar("LOCATE", 2, 3, {F::kString, F::kString, F::kInteger}, Integer);
    Scalar("INSTR", 2, 2, {F::kString}, Integer);
    Scalar("MD5", 1, 1, {F::kStringOrBinary}, Md5);
    Scalar("SHA1", 1, 1, {F::kStringOrBinary}, Varchar);
    Scalar("SHA256", 1, 1, {F::kStringOrBinary}, Varchar);
    Scalar("TO_BASE64", 1, 1, {F::kStringOrBinary}, Varchar);
    Scalar("FROM_BASE64", 1, 1, {F::kString}, Varchar);
    Scalar("CHR", 1, 1, {F::kInteger}, Varchar);
    Scalar("SPACE", 1, 1, {F::kInteger}, Varchar);
    Scalar("STRPOS", 2, 2, {F::kString}, Integer);
    Scalar("SPLIT", 2, 2, {F::kString}, [](std::span<const DataType> a) {
      DataType t(TypeName::kArray);
      t.params.push_back(DataType(TypeName::kVarchar));
      return WithNullable(t, AnyNullable(a));
    });
    // Numbers.
    for (auto n : {"ABS", "CEIL", "CEILING", "FLOOR", "SIGN"}) {
      Scalar(n, 1, 1, {F::kNumeric}, First);
    }
    Scalar("ROUND", 1, 2, {F::kNumeric, F::kInteger}, Round);
    Scalar("TRUNCATE", 1, 2, {F::kNumeric, F::kInteger}, Round);
    // MOD types as `%` does (binder/types.h: the divisor's type for integers, Calcite's
    // DECIMAL_MOD with a decimal).
    Scalar("MOD", 2, 2, {F::kNumeric}, [](std::span<const DataType> a) {
      return NumericResult(Arithmetic::kModulo, a[0], a[1]);
    });
    for (auto n : {"SQRT", "EXP", "LN", "LOG10", "LOG2", "SIN", "COS", "TAN", "ASIN", "ACOS",
                   "ATAN", "COT", "DEGREES", "RADIANS", "CBRT"}) {
      Scalar(n, 1, 1, {F::kNumeric}, Double);
    }
    Scalar("LOG", 1, 2, {F::kNumeric}, Double);
    Scalar("POWER", 2, 2, {F::kNumeric}, Double);
    Scalar("POW", 2, 2, {F::kNumeric}, Double);
    Scalar("ATAN2", 2, 2, {F::kNumeric}, Double);
    Scalar("RAND", 0, 1, {F::kInteger}, DoubleNotNull);
    Scalar("RAND_INTEGER", 1, 2, {F::kInteger},
           [](std::span<const DataType>) { return NotNull(TypeName::kInteger); });
    Scalar("PI", 0, 0, {}, DoubleNotNull);
    Scalar("HEX", 1, 1, {F::kAny}, Varchar);
    // Conditionals.
    Scalar("COALESCE", 1, -1, {F::kAny}, Coalesce);
    Scalar("IFNULL", 2, 2, {F::kAny}, Coalesce);
    Scalar("NVL", 2, 2, {F::kAny}, Coalesce);
    Scalar("NULLIF", 2, 2, {F::kAny}, FirstNullable);
    Scalar("GREATEST", 1, -1, {F::kComparable}, LeastOfAll);
    Scalar("LEAST", 1, -1, {F::kComparable}, LeastOfAll);
    Scalar("IF", 3, 3, {F::kBoolean, F::kAny}, IfResult);
    // Date and time.
    Add("CURRENT_TIMESTAMP", FunctionKind::kScalar, 0, 0, {}, TimestampLtzNotNull, true);
    Add("LOCALTIMESTAMP", FunctionKind::kScalar, 0, 0, {}, TimestampNotNull, true);
    Add("CURRENT_DATE", FunctionKind::kScalar, 0, 0, {}, DateNotNull, true);
    Add("CURRENT_TIME", FunctionKind::kScalar, 0, 0, {}, TimeNotNull, true);
    Add("LOCALTIME", FunctionKind::kScalar, 0, 0, {}, TimeNotNull, true);
    Scalar("NOW", 0, 0, {}, TimestampLtzNotNull);
    Scalar("CURRENT_ROW_TIMESTAMP", 0, 0, {}, TimestampLtzNotNull);
    Scalar("DATE_FORMAT", 2, 2, {F::kAny, F::kString}, Varchar);
    Scalar("TO_TIMESTAMP", 1, 2, {F::kString}, Timestamp);
    Scalar("TO_TIMESTAMP_LTZ", 1, 2, {F::kNumeric, F::kInteger}, Timestamp);
    Scalar("TO_DATE", 1, 2, {F::kString}, Date);
    Scalar("UNIX_TIMESTAMP", 0, 2, {F::kString}, BigInt);
    Scalar("FROM_UNIXTIME", 1, 2, {F::kNumeric, F::kString}, Varchar);
    Scalar("DATE_ADD", 2, 2, {F::kDatetime, F::kInteger}, Date);
    Scalar("DATE_SUB", 2, 2, {F::kDatetime, F::kInteger}, Date);
    Scalar("DATEDIFF", 2, 2, {F::kDatetime}, Integer);
    for (auto n : {"YEAR", "QUARTER", "MONTH", "WEEK", "DAYOFYEAR", "DAYOFMONTH", "DAYOFWEEK",
                   "HOUR", "MINUTE", "SECOND"}) {
      Scalar(n, 1, 1, {F::kDatetime}, BigInt);
    }
    // JSON (JSON_OBJECT has its own syntax and node).
    Scalar("JSON_VALUE", 2, 2, {F::kString}, Varchar2000Nullable);
    Scalar("JSON_QUERY", 2, 2, {F::kString}, Varchar2000Nullable);
    Scalar("JSON_EXISTS", 2, 2, {F::kString}, Boolean);
    Scalar("JSON_ARRAY", 0, -1, {F::kAny}, [](std::span<const DataType>) {
      DataType t = NotNull(TypeName::kVarchar);
      t.precision = 2000;
      return t;
    });
    Scalar("JSON_STRING", 1, 1, {F::kAny}, VarcharNullable);
    // Collections.
    Scalar("CARDINALITY", 1, 1, {F::kCollection}, Integer);
    Scalar("ELEMENT", 1, 1, {F::kArray}, ElementOfFirst);
    Scalar("ARRAY_CONTAINS", 2, 2, {F::kArray, F::kAny}, Boolean);
    Scalar("ARRAY_DISTINCT", 1, 1, {F::kArray}, First);
    Scalar("ARRAY_CONCAT", 1, -1, {F::kArray}, LeastOfAll);
    Scalar("ARRAY_JOIN", 2, 3, {F::kArray, F::kString}, Varchar);
    // PostgreSQL's, for what its clients ask of the catalog (docs/pg_catalog.md); the binder
    // answers version(), current_schemas(), pg_table_is_visible() and the like itself.
    Scalar("ARRAY_TO_STRING", 2, 3, {F::kArray, F::kString}, Varchar);
    Scalar("FORMAT_TYPE", 2, 2, {F::kInteger}, VarcharNullable);
    Scalar("TO_REGTYPE", 1, 1, {F::kString}, BigIntNullable);
    Scalar("PG_GET_EXPR", 2, 3, {F::kString, F::kInteger, F::kBoolean}, VarcharNullable);
    Scalar("ARRAY_LENGTH", 1, 1, {F::kArray}, Integer);
    // array_upper(a, 1): NULL for an empty array and for any other dimension.
    Scalar("ARRAY_UPPER", 2, 2, {F::kArray, F::kInteger},
           [](std::span<const DataType>) { return DataType(TypeName::kInteger); });
    Scalar("MAP_KEYS", 1, 1, {F::kMap}, [](std::span<const DataType> a) {
      DataType t(TypeName::kArray);
      t.params.push_back(a[0].params[0]);
      return WithNullable(t, AnyNullable(a));
    });
    Scalar("MAP_VALUES", 1, 1, {F::kMap}, [](std::span<const DataType> a) {
      DataType t(TypeName::kArray);
      t.params.push_back(a[0].params[1]);
      return WithNullable(t, AnyNullable(a));
    });
    // Aggregates.
    Add("COUNT", FunctionKind::kAggregate, 0, -1, {F::kAny}, BigIntNotNull);
    Add("SUM", FunctionKind::kAggregate, 1, 1, {F::kNumeric}, Sum);
    Add("SUM0", FunctionKind::kAggregate, 1, 1, {F::kNumeric}, First);
    Add("AVG", FunctionKind::kAggregate, 1, 1, {F::kNumeric}, Avg);
    Add("MIN", FunctionKind::kAggregate, 1, 1, {F::kComparable}, FirstNullable);
    Add("MAX", FunctionKind::kAggregate, 1, 1, {F::kComparable}, FirstNullable);
    Add("ANY_VALUE", FunctionKind::kAggregate, 1, 1, {F::kAny}, FirstNullable);
    Add("FIRST_VALUE", FunctionKind::kAggregate, 1, 1, {F::kAny}, FirstNullable);
    Add("LAST_VALUE", FunctionKind::kAggregate, 1, 1, {F::kAny}, FirstNullable);
    Add("LISTAGG", FunctionKind::kAggregate, 1, 2, {F::kString, F::kString}, VarcharNullable);
    Add("STRING_AGG", FunctionKind::kAggregate, 1, 2, {F::kString, F::kString}, VarcharNullable);
    Add("GROUP_CONCAT", FunctionKind::kAggregate, 1, 2, {F::kString, F::kString}, VarcharNullable);
    Add("ARRAY_AGG", FunctionKind::kAggregate, 1, 1, {F::kAny}, ArrayOfFirst);
    Add("COLLECT", FunctionKind::kAggregate, 1, 1, {F::kAny}, [](std::span<const DataType> a) {
      DataType t = NotNull(TypeName::kMultiset);
      t.params.push_back(a[0]);
      return t;
    });
    for (auto n : {"STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP"}) {
      Add(n, FunctionKind::kAggregate, 1, 1, {F::kNumeric}, FirstNullable);
    }
    Add("PERCENTILE_CONT", FunctionKind::kAggregate, 1, 1, {F::kNumeric}, DoubleNullableOf);
    Add("PERCENTILE_DISC", FunctionKind::kAggregate, 1, 1, {F::kNumeric}, DoubleNullableOf);
    Add("BOOL_AND", FunctionKind::kAggregate, 1, 1, {F::kBoolean}, FirstNullable);
    Add("BOOL_OR", FunctionKind::kAggregate, 1, 1, {F::kBoolean}, FirstNullable);
    Add("EVERY", FunctionKind::kAggregate, 1, 1, {F::kBoolean}, FirstNullable);
    // Window-only functions.
    for (auto n : {"ROW_NUMBER", "RANK", "DENSE_RANK"}) {
      Add(n, FunctionKind::kWindow, 0, 0, {}, BigIntNotNull);
    }
    Add("PERCENT_RANK", FunctionKind::kWindow, 0, 0, {}, DoubleNotNull);
    Add("CUME_DIST", FunctionKind::kWindow, 0, 0, {}, DoubleNotNull);
    Add("NTILE", FunctionKind::kWindow, 1, 1, {F::kInteger}, BigIntNullable);
    Add("LAG", FunctionKind::kWindow, 1, 3, {F::kAny, F::kInteger, F::kAny}, FirstNullable);
    Add("LEAD", FunctionKind::kWindow, 1, 3, {F::kAny, F::kInteger, F::kAny}, FirstNullable);
    Add("NTH_VALUE", FunctionKind::kWindow, 2, 2, {F::kAny, F::kInteger}, FirstNullable);
  }
};

const Table& Library() {
  static const Table table;
  return table;
}

bool InFamily(const DataType& t, Family f) {
  if (IsNull(t)) return true;
  switch (f) {
    case Family::kAny: return true;
    // Strings accept numbers and dates too, as Calcite's implicit coercion does.
    case Family::kString: return IsCharacter(t) || IsNumeric(t) || IsDatetime(t) || IsBoolean(t);
    case Family::kNumeric: return IsNumeric(t) || IsCharacter(t);
    case Family::kInteger: return IsExactNumeric(t) || IsCharacter(t);
    case Family::kDatetime: return IsDatetime(t) || IsCharacter(t);
    case Family::kBoolean: return IsBoolean(t);
    case Family::kArray: return t.name == TypeName::kArray;
    case Family::kMap: return t.name == TypeName::kMap;
    case Family::kCollection:
      return t.name == TypeName::kArray || t.name == TypeName::kMultiset ||
             t.name == TypeName::kMap;
    case Family::kStringOrBinary: return IsCharacter(t) || IsBinary(t);
    case Family::kComparable:
      return t.name != TypeName::kArray && t.name != TypeName::kMultiset &&
             t.name != TypeName::kMap && t.name != TypeName::kRow;
  }
  return false;
}

std::string_view FamilyText(Family f) {
  switch (f) {
    case Family::kAny: return "<ANY>";
    case Family::kString: return "<STRING>";
    case Family::kNumeric: return "<NUMERIC>";
    case Family::kInteger: return "<INTEGER>";
    case Family::kDatetime: return "<DATETIME>";
    case Family::kBoolean: return "<BOOLEAN>";
    case Family::kArray: return "<ARRAY>";
    case Family::kMap: return "<MAP>";
    case Family::kCollection: return "<ARRAY>|<MAP>";
    case Family::kStringOrBinary: return "<STRING>|<BINARY>";
    case Family::kComparable: return "<COMPARABLE_TYPE>";
  }
  return "<ANY>";
}

// Calcite's family names in `No match found` messages.
std::string_view SignatureFamily(const DataType& t) {
  if (IsCharacter(t)) return "<CHARACTER>";
  if (IsNumeric(t)) return "<NUMERIC>";
  if (IsBinary(t)) return "<BINARY>";
  if (IsBoolean(t)) return "<BOOLEAN>";
  if (t.name == TypeName::kDate) return "<DATE>";
  if (t.name == TypeName::kTime) return "<TIME>";
  if (t.name == TypeName::kTimestamp) return "<TIMESTAMP>";
  if (t.name == TypeName::kArray) return "<ARRAY>";
  if (t.name == TypeName::kMultiset) return "<MULTISET>";
  if (t.name == TypeName::kMap) return "<MAP>";
  if (t.name == TypeName::kRow) return "<ROW>";
  return "<NULL>";
}

}  // namespace

const Function* FindFunction(std::string_view upper_name) {
  const auto& table = Library().by_name;
  auto it = table.find(upper_name);
  return it == table.end() ? nullptr : &it->second;
}

Status CheckArguments(const Function& f, std::span<const DataType> args) {
  const int n = static_cast<int>(args.size());
  if (n < f.min_args || (f.max_args >= 0 && n > f.max_args)) {
    std::string expecting;
    if (f.max_args == f.min_args) {
      expecting = fmt::format("{}", f.min_args);
    } else if (f.max_args < 0) {
      expecting = fmt::format("at least {}", f.min_args);
    } else {
      expecting = fmt::format("{} to {}", f.min_args, f.max_args);
    }
    return Status::BindError(
        fmt::format("Invalid number of arguments to function '{}'. Was expecting {} arguments",
                    f.name, expecting));
  }
  for (int i = 0; i < n && !f.families.empty(); ++i) {
    Family family = f.families[std::min<size_t>(i, f.families.size() - 1)];
    if (InFamily(args[i], family)) continue;
    std::string actual, supported;
    for (int j = 0; j < n; ++j) {
      if (j > 0) actual += ", ";
      actual += fmt::format("<{}>", sql::TypeString(args[j]));
    }
    for (int j = 0; j < std::max(n, f.min_args); ++j) {
      if (j > 0) supported += ", ";
      supported += FamilyText(f.families[std::min<size_t>(j, f.families.size() - 1)]);
    }
    return Status::BindError(fmt::format(
        "Cannot apply '{0}' to arguments of type '{0}({1})'. Supported form(s): '{0}({2})'", f.name,
        actual, supported));
  }
  return Status::OK();
}

std::string NoMatchMessage(std::string_view name, std::span<const DataType> args) {
  std::string out = fmt::format("No match found for function signature {}(", name);
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) out += ", ";
    out += SignatureFamily(args[i]);
  }
  out += ')';
  return out;
}

std::vector<const Function*> AllFunctions() {
  std::vector<const Function*> out;
  for (const auto& [name, f] : Library().by_name) out.push_back(&f);
  return out;
}

}  // namespace hop::binder
