// Binding what PostgreSQL clients ask of a server's catalog (docs/pg_catalog.md): the tables of
// PG_CATALOG and INFORMATION_SCHEMA, `op ANY (array)`, casts to the object identifier types, and
// the catalog functions the binder answers from the snapshot (pg_catalog.h), folded into
// constants, IN lists and CASE expressions so that the engine needs no catalog of its own.
#include <fmt/format.h>

#include <algorithm>

#include "binder/binder_impl.h"
#include "binder/functions.h"
#include "catalog/pg_types.h"
#include "common/strings.h"
#include "sql/unparser.h"

namespace hop::binder {

namespace {

constexpr std::string_view kVersion = "PostgreSQL 15.0 (hop: PostgreSQL's catalog of a hop namespace)";

DataType Varchar(bool nullable) { return WithNullable(DataType(TypeName::kVarchar), nullable); }

std::string_view ObjectIdTypeName(sql::ObjectIdType t) {
  switch (t) {
    case sql::ObjectIdType::kRegclass: return "regclass";
    case sql::ObjectIdType::kRegtype: return "regtype";
    case sql::ObjectIdType::kRegnamespace: return "regnamespace";
    case sql::ObjectIdType::kRegproc: return "regproc";
    case sql::ObjectIdType::kRegrole: return "regrole";
    case sql::ObjectIdType::kNone: break;
  }
  return "";
}

}  // namespace

const PgCatalog& Binder::Impl::Pg() {
  if (!pg_) {
    pg_ = PgCatalog::Build(catalog_, [this](const catalog::Table& view) -> Result<RowType> {
      HOP_ASSIGN_OR_RETURN(RelPtr rel, View(view));
      return rel->row_type;
    });
  }
  return *pg_;
}

std::shared_ptr<const catalog::Table> Binder::Impl::PgTable(const std::vector<std::string>& path) {
  if (path.size() == 1) return Pg().Table(kPgCatalogSchema, path[0]);
  if (path.size() == 2) return Pg().Table(path[0], path[1]);
  return nullptr;
}

Result<ScalarPtr> Binder::Impl::StringLiteral(std::string value) {
  sql::LiteralExpr lit;
  lit.literal = sql::LiteralKind::kString;
  lit.value = std::move(value);
  return Literal(lit);
}

Result<ScalarPtr> Binder::Impl::IntegerLiteral(int64_t value) {
  Scalar s;
  s.kind = ScalarKind::kLiteral;
  s.literal = sql::LiteralKind::kInteger;
  s.text = std::to_string(value);
  s.type = NotNull(TypeName::kBigInt);
  return Make(std::move(s));
}

namespace {

ScalarPtr NullOf(DataType type) {
  Scalar null;
  null.kind = ScalarKind::kLiteral;
  null.literal = sql::LiteralKind::kNull;
  null.type = DataType(TypeName::kNull);
  Scalar cast;
  cast.kind = ScalarKind::kCast;
  cast.type = WithNullable(std::move(type), true);
  cast.args = {Make(std::move(null))};
  return Make(std::move(cast));
}

ScalarPtr CastTo(ScalarPtr operand, DataType type) {
  Scalar cast;
  cast.kind = ScalarKind::kCast;
  cast.type = WithNullable(std::move(type), IsNullable(operand->type));
  cast.args = {std::move(operand)};
  return Make(std::move(cast));
}

}  // namespace

Result<ScalarPtr> Binder::Impl::BindQuantified(const sql::Expr& e, const ExprContext& ctx) {
  const auto& q = e.As<sql::QuantifiedExpr>();
  HOP_ASSIGN_OR_RETURN(ScalarPtr operand, Expr(*q.operand, ctx));
  HOP_ASSIGN_OR_RETURN(ScalarPtr array, Expr(*q.array, ctx));
  if (q.op != sql::BinaryOp::kEq) {
    return Error(e.loc, fmt::format("{} ANY (array) is not supported: only = ANY (array) is",
                                    BinaryOpText(q.op)));
  }
  if (array->type.name != TypeName::kArray && !IsNull(array->type)) {
    return Error(e.loc, fmt::format("= ANY (...) needs an array, not {}",
                                    sql::TypeString(array->type)));
  }
  if (IsNull(array->type)) return NullOf(DataType(TypeName::kBoolean));
  HOP_RETURN_IF_ERROR(CheckComparable(operand, InputRef(0, array->type.params[0]), "= ANY", e.loc));
  const binder::Function* contains = FindFunction("ARRAY_CONTAINS");
  Scalar s;
  s.kind = ScalarKind::kCall;
  s.function = contains;
  s.text = "ARRAY_CONTAINS";
  s.type = WithNullable(DataType(TypeName::kBoolean), true);
  s.args = {std::move(array), std::move(operand)};
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::BindObjectIdCast(const sql::CastExpr& c, ScalarPtr operand) {
  const std::string_view type = ObjectIdTypeName(c.object_id);
  const DataType& from = operand->type;
  if (operand->kind == ScalarKind::kLiteral && IsCharacter(from)) {
    // A name: its OID, looked up now.
    const std::string& name = operand->text;
    std::optional<uint32_t> oid;
    std::string_view what;
    switch (c.object_id) {
      case sql::ObjectIdType::kRegclass:
        if (const PgRelation* r = Pg().FindRelation(name)) oid = r->oid;
        what = "relation";
        break;
      case sql::ObjectIdType::kRegnamespace:
        if (const PgNamespace* n = Pg().FindNamespace(name)) oid = n->oid;
        what = "schema";
        break;
      case sql::ObjectIdType::kRegtype:
        oid = catalog::PgTypeOidByName(name);
        what = "type";
        break;
      case sql::ObjectIdType::kRegproc:
        oid = PgProcOid(name);
        what = "function";
        break;
      case sql::ObjectIdType::kRegrole:
        if (name == kHopRole) oid = kHopRoleOid;
        what = "role";
        break;
      case sql::ObjectIdType::kNone: break;
    }
    if (!oid) return Error(c.loc, fmt::format("{} \"{}\" does not exist", what, name));
    return IntegerLiteral(*oid);
  }
  if (IsCharacter(from) || IsNull(from)) {
    if (c.object_id == sql::ObjectIdType::kRegtype) {
      // A parameter or a column: to_regtype's lookup when the query runs.
      Scalar s;
      s.kind = ScalarKind::kCall;
      s.function = FindFunction("TO_REGTYPE");
      s.text = "TO_REGTYPE";
      s.type = WithNullable(DataType(TypeName::kBigInt), true);
      s.args = {CastTo(std::move(operand), DataType(TypeName::kVarchar))};
      return Make(std::move(s));
    }
    return Error(c.loc, fmt::format("a cast of text to {} needs a literal name here ('name'::{})",
                                    type, type));
  }
  const bool integer = from.name == TypeName::kTinyInt || from.name == TypeName::kSmallInt ||
                       from.name == TypeName::kInteger || from.name == TypeName::kBigInt;
  if (!integer) {
    return Error(c.loc, fmt::format("Cast function cannot convert value of type {} to {}",
                                    sql::TypeString(from, true), type));
  }
  // An OID: the object's name, as PostgreSQL prints it; an OID of no object prints as itself.
  std::vector<std::pair<uint32_t, std::string>> names;
  switch (c.object_id) {
    case sql::ObjectIdType::kRegclass:
      for (const PgRelation& r : Pg().relations()) {
        names.emplace_back(r.oid, Pg().RelationDisplayName(r));
      }
      break;
    case sql::ObjectIdType::kRegnamespace:
      for (const PgNamespace& n : Pg().namespaces()) names.emplace_back(n.oid, n.name);
      break;
    case sql::ObjectIdType::kRegtype:
      for (const catalog::PgScalarType& s : catalog::PgScalarTypes()) {
        names.emplace_back(s.type.oid, catalog::FormatPgType(s.type.oid, -1));
        if (s.array_oid != 0) {
          names.emplace_back(s.array_oid, catalog::FormatPgType(s.array_oid, -1));
        }
      }
      break;
    case sql::ObjectIdType::kRegproc:
      names.emplace_back(750, "array_in");
      for (const catalog::PgScalarType& s : catalog::PgScalarTypes()) {
        names.emplace_back(s.input_oid, std::string(s.input));
      }
      break;
    case sql::ObjectIdType::kRegrole: names.emplace_back(kHopRoleOid, kHopRole); break;
    case sql::ObjectIdType::kNone: break;
  }
  Scalar s;
  s.kind = ScalarKind::kCase;
  for (const auto& [oid, name] : names) {
    HOP_ASSIGN_OR_RETURN(ScalarPtr key, IntegerLiteral(oid));
    HOP_ASSIGN_OR_RETURN(ScalarPtr value, StringLiteral(name));
    s.args.push_back(Binary(sql::BinaryOp::kEq, operand, std::move(key),
                            WithNullable(DataType(TypeName::kBoolean), IsNullable(from))));
    s.args.push_back(CastTo(std::move(value), DataType(TypeName::kVarchar)));
  }
  s.args.push_back(CastTo(operand, DataType(TypeName::kVarchar)));
  s.has_else = true;
  s.type = Varchar(IsNullable(from));
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::PgFunction(const sql::FunctionExpr& f, std::string_view name,
                                           std::vector<ScalarPtr>& args) {
  auto arity = [&](size_t n) -> Status {
    if (args.size() == n) return Status::OK();
    return Error(f.loc,
                 fmt::format("Invalid number of arguments to function '{}'. Was expecting {} "
                             "arguments",
                             name, n));
  };
  if (name == "VERSION") {
    HOP_RETURN_IF_ERROR(arity(0));
    return StringLiteral(std::string(kVersion));
  }
  if (name == "CURRENT_DATABASE") {
    HOP_RETURN_IF_ERROR(arity(0));
    return StringLiteral(Pg().database());
  }
  if (name == "CURRENT_SCHEMA") {
    HOP_RETURN_IF_ERROR(arity(0));
    return StringLiteral(Pg().SearchPath(false).front());
  }
  if (name == "CURRENT_SCHEMAS") {
    HOP_RETURN_IF_ERROR(arity(1));
    const Scalar& a = *args[0];
    if (a.kind != ScalarKind::kLiteral || a.literal != sql::LiteralKind::kBoolean) {
      return Error(f.loc, "current_schemas takes TRUE or FALSE");
    }
    Scalar s;
    s.kind = ScalarKind::kArray;
    for (const std::string& schema : Pg().SearchPath(a.text == "TRUE")) {
      HOP_ASSIGN_OR_RETURN(ScalarPtr e, StringLiteral(schema));
      s.args.push_back(CastTo(std::move(e), DataType(TypeName::kVarchar)));
    }
    s.type = NotNull(TypeName::kArray);
    s.type.params.push_back(NotNull(TypeName::kVarchar));
    return Make(std::move(s));
  }
  if (name == "PG_TABLE_IS_VISIBLE") {
    HOP_RETURN_IF_ERROR(arity(1));
    if (!IsExactNumeric(args[0]->type) && !IsNull(args[0]->type)) {
      return Error(f.loc, "pg_table_is_visible takes an OID");
    }
    Scalar s;
    s.kind = ScalarKind::kInList;
    s.args.push_back(args[0]);
    for (uint32_t oid : Pg().VisibleRelations()) {
      HOP_ASSIGN_OR_RETURN(ScalarPtr e, IntegerLiteral(oid));
      s.args.push_back(std::move(e));
    }
    s.type = WithNullable(DataType(TypeName::kBoolean), IsNullable(args[0]->type));
    return Make(std::move(s));
  }
  if (name == "PG_GET_USERBYID" || name == "PG_ENCODING_TO_CHAR") {
    // The one role, and the one encoding (UTF8, PostgreSQL's number 6).
    HOP_RETURN_IF_ERROR(arity(1));
    const bool user = name == "PG_GET_USERBYID";
    HOP_ASSIGN_OR_RETURN(ScalarPtr key, IntegerLiteral(user ? kHopRoleOid : 6));
    HOP_ASSIGN_OR_RETURN(ScalarPtr value, StringLiteral(user ? std::string(kHopRole) : "UTF8"));
    HOP_ASSIGN_OR_RETURN(ScalarPtr other, StringLiteral(""));
    Scalar s;
    s.kind = ScalarKind::kCase;
    s.args.push_back(Binary(sql::BinaryOp::kEq, args[0], std::move(key),
                            WithNullable(DataType(TypeName::kBoolean), true)));
    s.args.push_back(CastTo(std::move(value), DataType(TypeName::kVarchar)));
    if (user) {
      // PostgreSQL's text for an OID of no role.
      Scalar concat;
      concat.kind = ScalarKind::kBinary;
      HOP_ASSIGN_OR_RETURN(ScalarPtr open, StringLiteral("unknown (OID="));
      HOP_ASSIGN_OR_RETURN(ScalarPtr close, StringLiteral(")"));
      ScalarPtr left = Binary(sql::BinaryOp::kConcat, CastTo(std::move(open), Varchar(false)),
                              CastTo(args[0], DataType(TypeName::kVarchar)), Varchar(true));
      s.args.push_back(Binary(sql::BinaryOp::kConcat, std::move(left),
                              CastTo(std::move(close), Varchar(false)), Varchar(true)));
    } else {
      s.args.push_back(CastTo(std::move(other), DataType(TypeName::kVarchar)));
    }
    s.has_else = true;
    s.type = Varchar(IsNullable(args[0]->type));
    return Make(std::move(s));
  }
  if (name == "OBJ_DESCRIPTION" || name == "COL_DESCRIPTION" || name == "SHOBJ_DESCRIPTION") {
    // hop keeps no comments on objects.
    if (args.empty() || args.size() > 2) HOP_RETURN_IF_ERROR(arity(2));
    return NullOf(DataType(TypeName::kVarchar));
  }
  return ScalarPtr();
}

}  // namespace hop::binder
