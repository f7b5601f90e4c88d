// Out-of-line members of AST types whose definitions need complete types from other headers.
#include "sql/ast/data_type.h"
#include "sql/ast/identifier.h"
#include "sql/ast/options.h"
#include "sql/ast/query.h"
#include "sql/ast/statement.h"

namespace hop::sql {

std::string QualifiedName::ToString() const {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out.push_back('.');
    out += parts[i].name;
  }
  return out;
}

std::vector<std::string> QualifiedName::Names() const {
  std::vector<std::string> out;
  out.reserve(parts.size());
  for (const Identifier& p : parts) out.push_back(p.name);
  return out;
}

std::map<std::string, std::string> OptionList::ToMap() const {
  std::map<std::string, std::string> out;
  for (const auto& o : items) out[o.key] = o.value;
  return out;
}

std::string_view ObjectKindText(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::kTable: return "TABLE";
    case ObjectKind::kView: return "VIEW";
    case ObjectKind::kMaterializedView: return "MATERIALIZED VIEW";
    case ObjectKind::kTrigger: return "TRIGGER";
    case ObjectKind::kFunction: return "FUNCTION";
    case ObjectKind::kDatabase: return "DATABASE";
  }
  return "OBJECT";
}

DataType::DataType() = default;
DataType::DataType(TypeName n) : name(n) {}
DataType::~DataType() = default;
DataType::DataType(const DataType&) = default;
DataType::DataType(DataType&&) noexcept = default;
DataType& DataType::operator=(const DataType&) = default;
DataType& DataType::operator=(DataType&&) noexcept = default;

InSubqueryExpr::InSubqueryExpr() : Expr(ExprKind::kInSubquery) {}
InSubqueryExpr::~InSubqueryExpr() = default;
QuantifiedExpr::QuantifiedExpr() : Expr(ExprKind::kQuantified) {}
QuantifiedExpr::~QuantifiedExpr() = default;
ExistsExpr::ExistsExpr() : Expr(ExprKind::kExists) {}
ExistsExpr::~ExistsExpr() = default;
SubqueryExpr::SubqueryExpr() : Expr(ExprKind::kSubquery) {}
SubqueryExpr::~SubqueryExpr() = default;
ArraySubqueryExpr::ArraySubqueryExpr() : Expr(ExprKind::kArraySubquery) {}
ArraySubqueryExpr::~ArraySubqueryExpr() = default;

SubqueryRef::SubqueryRef() : TableRef(TableRefKind::kSubquery) {}
SubqueryRef::~SubqueryRef() = default;
NestedQueryBody::NestedQueryBody() : QueryBody(QueryBodyKind::kQuery) {}
NestedQueryBody::~NestedQueryBody() = default;
CommonTableExpr::CommonTableExpr() = default;
CommonTableExpr::~CommonTableExpr() = default;
CommonTableExpr::CommonTableExpr(CommonTableExpr&&) noexcept = default;
CommonTableExpr& CommonTableExpr::operator=(CommonTableExpr&&) noexcept = default;

}  // namespace hop::sql
