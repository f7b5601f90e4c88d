#include "binder/types.h"

#include <algorithm>

namespace hop::binder {

using sql::Nullability;

DataType WithNullable(DataType t, bool nullable) {
  t.nullability = nullable ? Nullability::kUnspecified : Nullability::kNotNull;
  return t;
}

DataType NotNull(TypeName name) {
  DataType t(name);
  t.nullability = Nullability::kNotNull;
  return t;
}

DataType Nullable(TypeName name) { return DataType(name); }

bool IsCharacter(const DataType& t) {
  return t.name == TypeName::kChar || t.name == TypeName::kVarchar;
}

bool IsBinary(const DataType& t) {
  return t.name == TypeName::kBinary || t.name == TypeName::kVarbinary ||
         t.name == TypeName::kBytes;
}

bool IsExactNumeric(const DataType& t) {
  switch (t.name) {
    case TypeName::kTinyInt:
    case TypeName::kSmallInt:
    case TypeName::kInteger:
    case TypeName::kBigInt:
    case TypeName::kDecimal: return true;
    default: return false;
  }
}

bool IsApproxNumeric(const DataType& t) {
  return t.name == TypeName::kFloat || t.name == TypeName::kReal || t.name == TypeName::kDouble;
}

bool IsDatetime(const DataType& t) {
  return t.name == TypeName::kDate || t.name == TypeName::kTime || t.name == TypeName::kTimestamp;
}

bool Comparable(const DataType& a, const DataType& b) {
  if (IsNull(a) || IsNull(b)) return true;
  if (IsNumeric(a) && IsNumeric(b)) return true;
  if (IsCharacter(a) && IsCharacter(b)) return true;
  if (IsBinary(a) && IsBinary(b)) return true;
  if (IsDatetime(a) && IsDatetime(b)) return a.name == b.name || a.name != TypeName::kTime;
  if (IsCharacter(a) || IsCharacter(b)) {
    const DataType& other = IsCharacter(a) ? b : a;
    return IsNumeric(other) || IsDatetime(other) || IsBoolean(other);
  }
  if (a.name != b.name) return false;
  switch (a.name) {
    case TypeName::kArray:
    case TypeName::kMultiset: return Comparable(a.params[0], b.params[0]);
    case TypeName::kMap:
      return Comparable(a.params[0], b.params[0]) && Comparable(a.params[1], b.params[1]);
    case TypeName::kRow:
      if (a.fields.size() != b.fields.size()) return false;
      for (size_t i = 0; i < a.fields.size(); ++i) {
        if (!Comparable(a.fields[i].type, b.fields[i].type)) return false;
      }
      return true;
    default: return true;
  }
}

namespace {

int IntegerRank(TypeName n) {
  switch (n) {
    case TypeName::kTinyInt: return 1;
    case TypeName::kSmallInt: return 2;
    case TypeName::kInteger: return 3;
    case TypeName::kBigInt: return 4;
    default: return 0;
  }
}

// Digits needed for an integer type, for DECIMAL arithmetic.
int IntegerDigits(TypeName n) {
  switch (n) {
    case TypeName::kTinyInt: return 3;
    case TypeName::kSmallInt: return 5;
    case TypeName::kInteger: return 10;
    default: return 19;
  }
}

DataType WidestNumber(const DataType& a, const DataType& b) {
  if (IsApproxNumeric(a) || IsApproxNumeric(b)) {
    if (a.name == TypeName::kDouble || b.name == TypeName::kDouble || a.name == TypeName::kFloat ||
        b.name == TypeName::kFloat) {
      return DataType(TypeName::kDouble);
    }
    return DataType(TypeName::kReal);
  }
  if (a.name == TypeName::kDecimal || b.name == TypeName::kDecimal) {
    auto digits = [](const DataType& t, int* integer, int* scale) {
      if (t.name == TypeName::kDecimal) {
        *scale = t.scale.value_or(0);
        *integer = t.precision.value_or(19) - *scale;
      } else {
        *scale = 0;
        *integer = IntegerDigits(t.name);
      }
    };
    int ia = 0, sa = 0, ib = 0, sb = 0;
    digits(a, &ia, &sa);
    digits(b, &ib, &sb);
    DataType t(TypeName::kDecimal);
    int scale = std::max(sa, sb);
    t.precision = std::min(19, std::max(ia, ib) + scale);
    t.scale = scale;
    return t;
  }
  return DataType(IntegerRank(a.name) >= IntegerRank(b.name) ? a.name : b.name);
}

}  // namespace

namespace {

constexpr int kMaxDecimalPrecision = 19;

// An exact number's precision and scale as a DECIMAL (INTEGER is DECIMAL(10, 0)); a DECIMAL
// written without them is DECIMAL(19, 0).
std::pair<int, int> DecimalDigits(const DataType& t) {
  if (t.name == TypeName::kDecimal) {
    return {t.precision.value_or(kMaxDecimalPrecision), t.scale.value_or(0)};
  }
  return {IntegerDigits(t.name), 0};
}

DataType Decimal(int precision, int scale) {
  DataType t(TypeName::kDecimal);
  t.precision = std::max(1, std::min(precision, kMaxDecimalPrecision));
  t.scale = std::max(0, std::min(scale, *t.precision));
  return t;
}

}  // namespace

DataType NumericResult(Arithmetic op, const DataType& a, const DataType& b) {
  const bool nullable = IsNullable(a) || IsNullable(b);
  const bool decimal = IsExactNumeric(a) && IsExactNumeric(b) &&
                       (a.name == TypeName::kDecimal || b.name == TypeName::kDecimal);
  if (!decimal) {
    if (op == Arithmetic::kModulo && IsExactNumeric(a) && IsExactNumeric(b)) {
      return WithNullable(DataType(b.name), nullable);
    }
    return WithNullable(WidestNumber(a, b), nullable);
  }
  const auto [p1, s1] = DecimalDigits(a);
  const auto [p2, s2] = DecimalDigits(b);
  DataType t;
  switch (op) {
    case Arithmetic::kAdd:
    case Arithmetic::kSubtract: {
      const int scale = std::max(s1, s2);
      t = Decimal(std::max(p1 - s1, p2 - s2) + scale + 1, scale);
      break;
    }
    case Arithmetic::kMultiply: t = Decimal(p1 + p2, s1 + s2); break;
    case Arithmetic::kDivide: {
      const int integer = std::min(p1 - s1 + s2, kMaxDecimalPrecision);
      int scale = std::max(6, s1 + p2 + 1);
      scale = std::min(scale, kMaxDecimalPrecision - integer);
      t = Decimal(integer + scale, scale);
      break;
    }
    case Arithmetic::kModulo: {
      if (s1 == 0 && s2 == 0) return WithNullable(b, nullable);
      const int scale = std::max(s1, s2);
      t = Decimal(std::min(p1 - s1, p2 - s2) + scale, scale);
      break;
    }
  }
  return WithNullable(t, nullable);
}

DataType ConcatResult(const DataType& a, const DataType& b) {
  const bool binary = IsBinary(a) && IsBinary(b);
  const TypeName fixed = binary ? TypeName::kBinary : TypeName::kChar;
  DataType t(a.name == fixed && b.name == fixed ? fixed
             : binary                           ? TypeName::kVarbinary
                                                : TypeName::kVarchar);
  // CHAR and BINARY are one long unless they say otherwise; VARCHAR, VARBINARY and BYTES without a
  // length have no bound, nor do numbers and dates cast to strings.
  auto length = [](const DataType& x) -> std::optional<int> {
    if (x.name == TypeName::kChar || x.name == TypeName::kBinary) return x.precision.value_or(1);
    if (x.name == TypeName::kVarchar || x.name == TypeName::kVarbinary) return x.precision;
    return std::nullopt;
  };
  if (auto la = length(a), lb = length(b); la && lb) t.precision = *la + *lb;
  return WithNullable(t, IsNullable(a) || IsNullable(b));
}

DataType SumResult(const DataType& t) {
  if (t.name != TypeName::kDecimal) return WithNullable(t, true);
  DataType sum = Decimal(kMaxDecimalPrecision, t.scale.value_or(0));
  return WithNullable(sum, true);
}

std::optional<DataType> LeastRestrictive(std::span<const DataType> types) {
  std::optional<DataType> result;
  bool nullable = false;
  for (const DataType& t : types) {
    if (IsNullable(t)) nullable = true;
    if (IsNull(t)) continue;
    if (!result) {
      result = t;
      continue;
    }
    DataType& r = *result;
    if (IsNumeric(r) && IsNumeric(t)) {
      r = WidestNumber(r, t);
    } else if (IsCharacter(r) && IsCharacter(t)) {
      if (r.name == TypeName::kChar && t.name == TypeName::kChar && r.precision == t.precision) {
        continue;
      }
      // Strings of different lengths meet as VARCHAR of the longer one (Calcite).
      std::optional<int> length;
      if (r.precision && t.precision) length = std::max(*r.precision, *t.precision);
      r = DataType(TypeName::kVarchar);
      r.precision = length;
    } else if (IsBinary(r) && IsBinary(t)) {
      if (r.name != t.name || r.precision != t.precision) r = DataType(TypeName::kVarbinary);
    } else if (r.name != t.name) {
      if (IsCharacter(r) && (IsNumeric(t) || IsDatetime(t))) {
        r = t;
      } else if (IsCharacter(t) && (IsNumeric(r) || IsDatetime(r))) {
        // r stays
      } else if (r.name == TypeName::kTimestamp && t.name == TypeName::kDate) {
        // r stays
      } else if (r.name == TypeName::kDate && t.name == TypeName::kTimestamp) {
        r = t;
      } else {
        return std::nullopt;
      }
    } else if (r.name == TypeName::kArray || r.name == TypeName::kMultiset ||
               r.name == TypeName::kMap) {
      for (size_t i = 0; i < r.params.size(); ++i) {
        DataType pair[] = {r.params[i], t.params[i]};
        auto p = LeastRestrictive(pair);
        if (!p) return std::nullopt;
        r.params[i] = *p;
      }
    } else if (r.name == TypeName::kRow) {
      if (r.fields.size() != t.fields.size()) return std::nullopt;
      for (size_t i = 0; i < r.fields.size(); ++i) {
        DataType pair[] = {r.fields[i].type, t.fields[i].type};
        auto p = LeastRestrictive(pair);
        if (!p) return std::nullopt;
        r.fields[i].type = *p;
      }
    } else if (r.name == TypeName::kTimestamp || r.name == TypeName::kTime) {
      if (t.precision > r.precision) r.precision = t.precision;
    }
  }
  if (!result) return DataType(TypeName::kNull);  // all NULL
  return WithNullable(*result, nullable);
}

bool Assignable(const DataType& from, const DataType& to) {
  if (IsNull(from)) return true;
  if (IsNumeric(from) && IsNumeric(to)) return true;
  if (IsCharacter(from) && IsCharacter(to)) return true;
  if (IsBinary(from) && IsBinary(to)) return true;
  if (from.name == TypeName::kTimestamp && to.name == TypeName::kTimestamp) return true;
  if (from.name != to.name) return false;
  switch (from.name) {
    case TypeName::kArray:
    case TypeName::kMultiset: return Assignable(from.params[0], to.params[0]);
    case TypeName::kMap:
      return Assignable(from.params[0], to.params[0]) && Assignable(from.params[1], to.params[1]);
    case TypeName::kRow:
      if (from.fields.size() != to.fields.size()) return false;
      for (size_t i = 0; i < from.fields.size(); ++i) {
        if (!Assignable(from.fields[i].type, to.fields[i].type)) return false;
      }
      return true;
    default: return true;
  }
}

DataType IntegerLiteralType(std::string_view digits) {
  // A negative literal's magnitude may be one more than a positive one's.
  const bool negative = !digits.empty() && digits.front() == '-';
  if (negative) digits.remove_prefix(1);
  // Compare magnitudes as digit strings: no overflow, any length.
  auto fits = [&](std::string_view limit) {
    if (digits.size() != limit.size()) return digits.size() < limit.size();
    return digits <= limit;
  };
  while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
  if (fits(negative ? "2147483648" : "2147483647")) return NotNull(TypeName::kInteger);
  if (fits(negative ? "9223372036854775808" : "9223372036854775807")) {
    return NotNull(TypeName::kBigInt);
  }
  DataType t = NotNull(TypeName::kDecimal);
  t.precision = static_cast<int>(digits.size());
  t.scale = 0;
  return t;
}

}  // namespace hop::binder
