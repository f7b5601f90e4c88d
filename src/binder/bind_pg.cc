// Binding what PostgreSQL clients ask of a server's catalog (docs/pg_catalog.md): the tables of
// PG_CATALOG and INFORMATION_SCHEMA, `op ANY (array)`, casts to the object identifier types, and
// the catalog functions the binder answers from the snapshot (pg_catalog.h), folded into
// constants, IN lists and CASE expressions so that the engine needs no catalog of its own. Also
// PostgreSQL's forms of hop's collections: ARRAY(query), `(row).field`, array literals written
// as text ('{0}'), functions in FROM (generate_series, unnest, _pg_expandarray) and
// _pg_expandarray in a select list, each bound to hop's ARRAY_AGG, ROW fields and UNNEST.
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

// A name as PostgreSQL's definitions print it: bare when it is lower-case letters, digits and
// underscores (not starting with a digit), double-quoted otherwise.
std::string PgIdent(std::string_view name) {
  bool bare = !name.empty() && !(name[0] >= '0' && name[0] <= '9');
  for (char c : name) {
    bare = bare && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  }
  return bare ? std::string(name) : sql::QuoteIdentifier(name, sql::Dialect::kPostgres);
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
  if (q.query) return BindQuantifiedSubquery(e, ctx);
  if (q.all) {
    return Error(e.loc, fmt::format("{} ALL (array) is not supported: only = ANY (array) is",
                                    BinaryOpText(q.op)));
  }
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
  return TextOfOid(operand, names, CastTo(operand, DataType(TypeName::kVarchar)),
                   IsNullable(from));
}

Result<ScalarPtr> Binder::Impl::TextOfOid(
    const ScalarPtr& oid, const std::vector<std::pair<uint32_t, std::string>>& texts,
    ScalarPtr otherwise, bool nullable) {
  if (!otherwise) nullable = true;
  if (texts.empty()) return otherwise ? otherwise : NullOf(DataType(TypeName::kVarchar));
  Scalar s;
  s.kind = ScalarKind::kCase;
  for (const auto& [key, text] : texts) {
    HOP_ASSIGN_OR_RETURN(ScalarPtr k, IntegerLiteral(key));
    HOP_ASSIGN_OR_RETURN(ScalarPtr value, StringLiteral(text));
    s.args.push_back(Binary(sql::BinaryOp::kEq, oid, std::move(k),
                            WithNullable(DataType(TypeName::kBoolean), nullable)));
    s.args.push_back(CastTo(std::move(value), DataType(TypeName::kVarchar)));
  }
  if (otherwise) {
    s.args.push_back(std::move(otherwise));
    s.has_else = true;
  }
  s.type = Varchar(nullable);
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
  if (f.niladic && (name == "CURRENT_USER" || name == "SESSION_USER" || name == "CURRENT_ROLE" ||
                    name == "USER")) {
    if (!user_) {
      return Error(f.loc, fmt::format("{} has no value here: only a session's statements have a "
                                      "user (a materialized view's pipeline has none)",
                                      name));
    }
    return StringLiteral(user_());
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
  if (name == "PG_TYPE_IS_VISIBLE") {
    // Every type is pg_catalog's, first on the search path: visible when it is one of them.
    HOP_RETURN_IF_ERROR(arity(1));
    if (!IsExactNumeric(args[0]->type) && !IsNull(args[0]->type)) {
      return Error(f.loc, "pg_type_is_visible takes an OID");
    }
    Scalar s;
    s.kind = ScalarKind::kInList;
    s.args.push_back(args[0]);
    for (const catalog::PgScalarType& t : catalog::PgScalarTypes()) {
      HOP_ASSIGN_OR_RETURN(ScalarPtr e, IntegerLiteral(t.type.oid));
      s.args.push_back(std::move(e));
      if (t.array_oid != 0) {
        HOP_ASSIGN_OR_RETURN(ScalarPtr a, IntegerLiteral(t.array_oid));
        s.args.push_back(std::move(a));
      }
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
  if (name == "PG_GET_VIEWDEF") {
    // A view's query as hop keeps it (hop's SQL, not PostgreSQL's rewrite of it); NULL for an
    // OID of no view.
    if (args.empty() || args.size() > 2) HOP_RETURN_IF_ERROR(arity(2));
    if (!IsExactNumeric(args[0]->type) && !IsNull(args[0]->type)) {
      return Error(f.loc, "pg_get_viewdef takes the view's OID");
    }
    std::vector<std::pair<uint32_t, std::string>> definitions;
    for (const PgRelation& r : Pg().relations()) {
      if (r.kind != 'r') definitions.emplace_back(r.oid, r.definition);
    }
    return TextOfOid(args[0], definitions, nullptr, true);
  }
  if (name == "PG_GET_INDEXDEF" || name == "PG_GET_CONSTRAINTDEF") {
    // The definitions of the primary keys the catalog knows (PostgreSQL tables'): an index's
    // CREATE INDEX, a constraint's PRIMARY KEY (columns); NULL for an OID of neither.
    const bool index = name == "PG_GET_INDEXDEF";
    if (args.empty() || args.size() > (index ? 3u : 2u)) HOP_RETURN_IF_ERROR(arity(index ? 3 : 2));
    if (!IsExactNumeric(args[0]->type) && !IsNull(args[0]->type)) {
      return Error(f.loc, fmt::format("{} takes an OID", AsciiToLower(name)));
    }
    if (index && args.size() >= 2 &&
        !(args[1]->kind == ScalarKind::kLiteral && args[1]->text == "0")) {
      return Error(f.loc,
                   "pg_get_indexdef's column must be 0 here: hop answers for the whole "
                   "index only");
    }
    std::vector<std::pair<uint32_t, std::string>> definitions;
    for (const PgRelation& r : Pg().relations()) {
      if (r.kind != 'i') continue;
      std::vector<std::string> columns;
      for (const catalog::Column& c : r.columns.columns) {
        columns.push_back(PgIdent(PgName(c.name)));
      }
      std::string def;
      if (index) {
        const PgRelation* table = nullptr;
        for (const PgRelation& t : Pg().relations()) {
          if (t.oid == r.table_oid) table = &t;
        }
        const PgNamespace* ns = Pg().FindNamespaceByOid(r.namespace_oid);
        def = fmt::format("CREATE UNIQUE INDEX {} ON {}.{} USING btree ({})", PgIdent(r.name),
                          PgIdent(ns ? ns->name : ""), PgIdent(table ? table->name : ""),
                          hop::Join(columns, ", "));
      } else {
        def = fmt::format("PRIMARY KEY ({})", hop::Join(columns, ", "));
      }
      definitions.emplace_back(index ? r.oid : PgConstraintOid(r), std::move(def));
    }
    return TextOfOid(args[0], definitions, nullptr, true);
  }
  if (name == "PG_GET_RULEDEF") {
    // hop has no rewrite rules (pg_rewrite has no rows).
    if (args.empty() || args.size() > 2) HOP_RETURN_IF_ERROR(arity(2));
    return NullOf(DataType(TypeName::kVarchar));
  }
  if (name == "PG_GET_STATISTICSOBJDEF_COLUMNS") {
    // hop has no extended statistics (pg_statistic_ext has no rows).
    HOP_RETURN_IF_ERROR(arity(1));
    return NullOf(DataType(TypeName::kVarchar));
  }
  if (name == "PG_RELATION_IS_PUBLISHABLE") {
    // hop has no logical replication: nothing can be published (pg_publication has no rows).
    HOP_RETURN_IF_ERROR(arity(1));
    Scalar s;
    s.kind = ScalarKind::kLiteral;
    s.literal = sql::LiteralKind::kBoolean;
    s.text = "FALSE";
    s.type = NotNull(TypeName::kBoolean);
    return Make(std::move(s));
  }
  if (name == "OBJ_DESCRIPTION" || name == "COL_DESCRIPTION" || name == "SHOBJ_DESCRIPTION") {
    // hop keeps no comments on objects.
    if (args.empty() || args.size() > 2) HOP_RETURN_IF_ERROR(arity(2));
    return NullOf(DataType(TypeName::kVarchar));
  }
  return ScalarPtr();
}

namespace {

// A call of information_schema._pg_expandarray, PostgreSQL's set-returning function of an array's
// elements (x) and their 1-based positions (n).
bool IsExpandArray(const sql::QualifiedName& name) {
  if (name.back().name != "_PG_EXPANDARRAY") return false;
  return name.size() == 1 || (name.size() == 2 && name.parts[0].name == kInformationSchema);
}

// The calls of _pg_expandarray a select item is, possibly under `(...).field`.
void CollectExpandArray(const sql::Expr* e, std::vector<const sql::FunctionExpr*>& out) {
  while (e->kind == ExprKind::kField) e = e->As<sql::FieldExpr>().base.get();
  if (e->kind == ExprKind::kFunction && IsExpandArray(e->As<sql::FunctionExpr>().name)) {
    out.push_back(&e->As<sql::FunctionExpr>());
  }
}

DataType ArrayOf(DataType element, bool nullable) {
  DataType t = WithNullable(DataType(TypeName::kArray), nullable);
  t.params.push_back(std::move(element));
  return t;
}

// The elements of PostgreSQL's text form of a one-dimensional array, `{a,"b c",NULL}`; nullopt
// for text that is not one. A NULL element is nullopt.
std::optional<std::vector<std::optional<std::string>>> ParsePgArrayText(std::string_view text) {
  size_t i = 0;
  auto blanks = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n')) ++i;
  };
  blanks();
  if (i >= text.size() || text[i] != '{') return std::nullopt;
  ++i;
  std::vector<std::optional<std::string>> out;
  blanks();
  if (i < text.size() && text[i] == '}') {
    ++i;
  } else {
    for (;;) {
      blanks();
      std::string element;
      bool quoted = false;
      if (i < text.size() && text[i] == '"') {
        quoted = true;
        for (++i;; ++i) {
          if (i >= text.size()) return std::nullopt;
          if (text[i] == '\\' && i + 1 < text.size()) {
            element += text[++i];
          } else if (text[i] == '"') {
            ++i;
            break;
          } else {
            element += text[i];
          }
        }
      } else {
        while (i < text.size() && text[i] != ',' && text[i] != '}') {
          if (text[i] == '{' || text[i] == '"') return std::nullopt;  // nested, or a stray quote
          if (text[i] == '\\' && i + 1 < text.size()) ++i;
          element += text[i++];
        }
        while (!element.empty() && element.back() == ' ') element.pop_back();
        if (element.empty()) return std::nullopt;
      }
      blanks();
      if (!quoted && AsciiToLower(element) == "null") {
        out.emplace_back(std::nullopt);
      } else {
        out.emplace_back(std::move(element));
      }
      if (i < text.size() && text[i] == ',') {
        ++i;
        continue;
      }
      if (i < text.size() && text[i] == '}') {
        ++i;
        break;
      }
      return std::nullopt;
    }
  }
  blanks();
  if (i != text.size()) return std::nullopt;
  return out;
}

}  // namespace

Result<ScalarPtr> Binder::Impl::PgArrayText(const ScalarPtr& literal, const DataType& array,
                                            sql::Location loc) {
  auto elements = ParsePgArrayText(literal->text);
  if (!elements) {
    return Error(loc, fmt::format("malformed array literal: \"{}\"", literal->text));
  }
  const DataType& element = array.params[0];
  Scalar s;
  s.kind = ScalarKind::kArray;
  for (const auto& e : *elements) {
    if (!e) {
      s.args.push_back(NullOf(element));
      continue;
    }
    HOP_ASSIGN_OR_RETURN(ScalarPtr text, StringLiteral(*e));
    s.args.push_back(CastTo(std::move(text), element));
  }
  s.type = ArrayOf(WithNullable(element, true), false);
  return Make(std::move(s));
}

Status Binder::Impl::PgArrayOperands(const sql::BinaryExpr& b, ScalarPtr& left, ScalarPtr& right) {
  const bool comparison =
      b.op == sql::BinaryOp::kEq || b.op == sql::BinaryOp::kNe || b.op == sql::BinaryOp::kLt ||
      b.op == sql::BinaryOp::kLe || b.op == sql::BinaryOp::kGt || b.op == sql::BinaryOp::kGe ||
      b.op == sql::BinaryOp::kIsDistinctFrom || b.op == sql::BinaryOp::kIsNotDistinctFrom;
  if (!comparison) return Status::OK();
  auto is_text_literal = [](const ScalarPtr& s) {
    return s->kind == ScalarKind::kLiteral && s->literal == sql::LiteralKind::kString;
  };
  if (left->type.name == TypeName::kArray && is_text_literal(right)) {
    HOP_ASSIGN_OR_RETURN(right, PgArrayText(right, left->type, b.right->loc));
  } else if (right->type.name == TypeName::kArray && is_text_literal(left)) {
    HOP_ASSIGN_OR_RETURN(left, PgArrayText(left, right->type, b.left->loc));
  }
  return Status::OK();
}

Result<ScalarPtr> Binder::Impl::BindArraySubquery(const sql::Expr& e, const ExprContext& ctx) {
  bool correlated = false;
  HOP_ASSIGN_OR_RETURN(RelPtr q,
                       Subquery(*e.As<sql::ArraySubqueryExpr>().query, *ctx.scope, &correlated));
  HOP_RETURN_IF_ERROR(CheckCorrelation(correlated, ctx, e.loc));
  if (q->row_type.columns.size() != 1) {
    return Error(e.loc, fmt::format("ARRAY(query) needs a query of one column, not {}",
                                    q->row_type.columns.size()));
  }
  const DataType element = q->row_type.columns[0].type;
  // ARRAY_AGG of the query's rows, in the query's order; an empty array when it has none.
  AggregateCall call;
  call.function = FindFunction("ARRAY_AGG");
  call.name = "ARRAY_AGG";
  call.args = {0};
  call.type = ArrayOf(element, true);
  if (q->kind == RelKind::kSort) {
    for (const SortKey& k : q->keys) call.within_group.push_back({k.column, k.direction, k.nulls});
  }
  Rel agg;
  agg.kind = RelKind::kAggregate;
  agg.row_type.columns.push_back({"EXPR$0", call.type});
  agg.aggregates.push_back(std::move(call));
  agg.inputs = {q};
  Scalar sub;
  sub.kind = ScalarKind::kSubquery;
  sub.correlated = correlated;
  sub.type = ArrayOf(element, true);
  sub.query = MakeRel(std::move(agg));
  Scalar empty;
  empty.kind = ScalarKind::kArray;
  empty.type = ArrayOf(element, false);
  Scalar s;
  s.kind = ScalarKind::kCall;
  s.function = FindFunction("COALESCE");
  s.text = "COALESCE";
  s.type = ArrayOf(element, false);
  s.args = {Make(std::move(sub)), Make(std::move(empty))};
  return Make(std::move(s));
}

Result<ScalarPtr> Binder::Impl::BindField(const sql::Expr& e, const ExprContext& ctx) {
  const auto& f = e.As<sql::FieldExpr>();
  HOP_ASSIGN_OR_RETURN(ScalarPtr base, Expr(*f.base, ctx));
  const DataType& t = base->type;
  if (t.name != TypeName::kRow) {
    return Error(f.loc, fmt::format("{} has no field '{}': only a ROW has fields",
                                    sql::TypeString(t), f.field.name));
  }
  int field = -1;
  for (size_t i = 0; i < t.fields.size(); ++i) {
    if (t.fields[i].name.name == f.field.name) field = static_cast<int>(i);
  }
  if (field < 0) return Error(f.field.loc, fmt::format("Unknown field '{}'", f.field.name));
  // A field of a row built here is that value itself.
  if (base->kind == ScalarKind::kRow) return base->args[field];
  Scalar access;
  access.kind = ScalarKind::kField;
  access.index = field;
  access.text = f.field.name;
  access.type =
      WithNullable(t.fields[field].type, IsNullable(t.fields[field].type) || IsNullable(t));
  access.args = {std::move(base)};
  return Make(std::move(access));
}

Result<Rel> Binder::Impl::ExpandArray(const std::vector<sql::ExprPtr>& args, sql::Location loc,
                                      const ExprContext& ctx) {
  if (args.size() != 1) return Error(loc, "information_schema._pg_expandarray takes one array");
  HOP_ASSIGN_OR_RETURN(ScalarPtr array, Expr(*args[0], ctx));
  if (array->type.name != TypeName::kArray) {
    return Error(args[0]->loc, fmt::format("information_schema._pg_expandarray needs an array, "
                                           "not {}",
                                           sql::TypeString(array->type)));
  }
  Rel rel;
  rel.kind = RelKind::kUnnest;
  rel.with_ordinality = true;
  rel.row_type.columns.push_back({"X", array->type.params[0]});
  rel.row_type.columns.push_back({"N", NotNull(TypeName::kInteger)});
  rel.exprs.push_back(std::move(array));
  return rel;
}

Result<RelPtr> Binder::Impl::ExpandSetReturning(const sql::SelectBody& select, Scope& scope,
                                                RelPtr rel) {
  std::vector<const sql::FunctionExpr*> calls;
  for (const sql::SelectItem& item : select.items) CollectExpandArray(item.expr.get(), calls);
  if (calls.empty()) return rel;
  // PostgreSQL runs the set-returning functions of a select list in step, one row per element:
  // the same call everywhere is one lateral UNNEST of its array, joined to the FROM row.
  for (const sql::FunctionExpr* c : calls) {
    if (!sql::Equals(*c, *calls[0])) {
      return Error(c->loc,
                   "different set-returning functions in one select list are not "
                   "supported: hop runs one, _pg_expandarray of one array");
    }
  }
  const bool aggregate = !select.group_by.empty() || select.having ||
                         std::any_of(select.items.begin(), select.items.end(),
                                     [](const auto& i) { return ContainsAggregate(i.expr.get()); });
  if (aggregate) {
    return Error(calls[0]->loc,
                 "a set-returning function in a select list with aggregation is "
                 "not supported");
  }
  ExprContext ctx;
  ctx.scope = &scope;
  HOP_ASSIGN_OR_RETURN(Rel unnest, ExpandArray(calls[0]->args, calls[0]->loc, ctx));
  const int width = static_cast<int>(scope.row.columns.size());
  Rel join;
  join.kind = RelKind::kJoin;
  join.join_type = sql::JoinType::kCross;
  join.row_type = scope.row;
  for (const catalog::Column& c : unnest.row_type.columns) {
    join.row_type.columns.push_back(c);
    scope.row.columns.push_back(c);
    scope.hidden.insert(static_cast<int>(scope.row.columns.size()) - 1);
  }
  Scalar row;
  row.kind = ScalarKind::kRow;
  row.type = NotNull(TypeName::kRow);
  for (int i = 0; i < 2; ++i) {
    const catalog::Column& c = unnest.row_type.columns[i];
    row.args.push_back(InputRef(width + i, c.type));
    row.type.fields.push_back({sql::Identifier(c.name), c.type});
  }
  ScalarPtr bound = Make(std::move(row));
  for (const sql::FunctionExpr* c : calls) set_returning_[c] = bound;
  join.inputs = {std::move(rel), MakeRel(std::move(unnest))};
  return MakeRel(std::move(join));
}

Result<ScalarPtr> Binder::Impl::SetReturningCall(const sql::FunctionExpr& f) {
  if (auto it = set_returning_.find(&f); it != set_returning_.end()) return it->second;
  return Error(f.loc,
               "information_schema._pg_expandarray returns a set: it is supported in FROM "
               "and as a select item (or (...).field of one)");
}

Result<From> Binder::Impl::TableFunction(const sql::FunctionRef& ref, const Scope* outer,
                                         const From* lateral) {
  const std::string& name = ref.name.back().name;
  const bool pg =
      ref.name.size() == 1 || (ref.name.size() == 2 && ref.name.parts[0].name == kPgCatalogSchema);
  Scope scope;
  if (lateral) scope = lateral->scope;
  scope.outer = outer;
  ExprContext ctx;
  ctx.scope = &scope;
  Rel rel;
  if (IsExpandArray(ref.name)) {
    HOP_ASSIGN_OR_RETURN(rel, ExpandArray(ref.args, ref.loc, ctx));
  } else if (pg && name == "GENERATE_SERIES") {
    HOP_ASSIGN_OR_RETURN(rel, Series(ref, ctx));
  } else if (pg && name == "UNNEST") {
    if (ref.args.size() != 1) return Error(ref.loc, "unnest in FROM takes one array");
    HOP_ASSIGN_OR_RETURN(ScalarPtr array, Expr(*ref.args[0], ctx));
    if (array->type.name != TypeName::kArray && !IsNull(array->type)) {
      return Error(ref.args[0]->loc,
                   fmt::format("unnest needs an array, not {}", sql::TypeString(array->type)));
    }
    rel.kind = RelKind::kUnnest;
    const DataType element =
        IsNull(array->type) ? DataType(TypeName::kNull) : array->type.params[0];
    rel.row_type.columns.push_back({"UNNEST", element});
    rel.exprs.push_back(std::move(array));
  } else {
    return Error(ref.loc, fmt::format("function {} in FROM is not supported: hop has "
                                      "generate_series, unnest and "
                                      "information_schema._pg_expandarray there",
                                      ref.name.ToString()));
  }
  sql::UnnestRef naming;
  naming.loc = ref.loc;
  naming.alias = ref.alias;
  std::string alias = fmt::format("EXPR${}", subquery_aliases_++);
  return NameUnnest(std::move(rel), alias, naming);
}

Result<Rel> Binder::Impl::Series(const sql::FunctionRef& ref, const ExprContext& ctx) {
  if (ref.args.size() != 2 && ref.args.size() != 3) {
    return Error(ref.loc, "generate_series takes integers (start, stop [, step])");
  }
  Scalar call;
  call.kind = ScalarKind::kCall;
  call.text = "GENERATE_SERIES";  // the engine's; not a function of hop's SQL
  bool big = false, nullable = false;
  for (const auto& a : ref.args) {
    HOP_ASSIGN_OR_RETURN(ScalarPtr v, Expr(*a, ctx));
    if (!IsExactNumeric(v->type) && !IsNull(v->type)) {
      return Error(a->loc,
                   fmt::format("generate_series takes integers, not {}", sql::TypeString(v->type)));
    }
    if (IsExactNumeric(v->type) && v->type.name != TypeName::kBigInt &&
        v->type.name != TypeName::kInteger && v->type.name != TypeName::kSmallInt &&
        v->type.name != TypeName::kTinyInt) {
      return Error(a->loc,
                   fmt::format("generate_series takes integers, not {}", sql::TypeString(v->type)));
    }
    big = big || v->type.name == TypeName::kBigInt;
    nullable = nullable || IsNullable(v->type);
    call.args.push_back(std::move(v));
  }
  if (call.args.size() == 2) {
    HOP_ASSIGN_OR_RETURN(ScalarPtr one, IntegerLiteral(1));
    call.args.push_back(std::move(one));
  }
  const DataType element = NotNull(big ? TypeName::kBigInt : TypeName::kInteger);
  call.type = ArrayOf(element, nullable);
  Rel rel;
  rel.kind = RelKind::kUnnest;
  rel.row_type.columns.push_back({"GENERATE_SERIES", element});
  rel.exprs.push_back(Make(std::move(call)));
  return rel;
}

}  // namespace hop::binder
