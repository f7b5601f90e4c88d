#include "binder/to_sql.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "binder/functions.h"
#include "binder/types.h"
#include "sql/ast/expression.h"

namespace hop::binder {

// ---------------------------------------------------------------------------------------------
// Simplify

namespace {

// Expressions that cannot move onto another input: windows (merging would repeat them) and
// correlated subqueries (their references to the enclosing row would dangle).
bool Unmovable(const std::vector<ScalarPtr>& exprs) {
  std::function<bool(const ScalarPtr&)> has = [&](const ScalarPtr& s) {
    if (!s) return false;
    if (s->window || s->correlated) return true;
    return std::any_of(s->args.begin(), s->args.end(), has);
  };
  return std::any_of(exprs.begin(), exprs.end(), has);
}

bool IsIdentity(const Rel& project) {
  const Rel& input = *project.inputs[0];
  if (project.exprs.size() != input.row_type.columns.size()) return false;
  for (size_t i = 0; i < project.exprs.size(); ++i) {
    const Scalar& e = *project.exprs[i];
    if (e.kind != ScalarKind::kInputRef || e.index != static_cast<int>(i) ||
        project.row_type.columns[i].name != input.row_type.columns[i].name) {
      return false;
    }
  }
  return true;
}

RelPtr SimplifyNode(const RelPtr& rel, bool top) {
  Rel r = *rel;
  bool changed = false;
  for (auto& input : r.inputs) {
    RelPtr s = SimplifyNode(input, false);
    if (s != input) {
      input = s;
      changed = true;
    }
  }
  if (r.kind == RelKind::kFilter && r.inputs[0]->kind == RelKind::kProject &&
      !Unmovable(r.inputs[0]->exprs) && !Unmovable({r.condition})) {
    // Filter(Project(x)) -> Project(Filter(x)).
    const Rel& project = *r.inputs[0];
    Rel filter;
    filter.kind = RelKind::kFilter;
    filter.row_type = project.inputs[0]->row_type;
    filter.condition = SubstituteInputs(r.condition, project.exprs);
    filter.inputs = project.inputs;
    Rel moved = project;
    moved.inputs = {std::make_shared<Rel>(std::move(filter))};
    return SimplifyNode(std::make_shared<Rel>(std::move(moved)), top);
  }
  if (r.kind == RelKind::kProject && r.inputs[0]->kind == RelKind::kProject &&
      !Unmovable(r.inputs[0]->exprs) && !Unmovable(r.exprs)) {
    const Rel& inner = *r.inputs[0];
    for (auto& e : r.exprs) e = SubstituteInputs(e, inner.exprs);
    r.inputs = inner.inputs;
    return SimplifyNode(std::make_shared<Rel>(std::move(r)), top);
  }
  if (!top && r.kind == RelKind::kProject && IsIdentity(r)) return r.inputs[0];
  if (!changed) return rel;
  return std::make_shared<Rel>(std::move(r));
}

}  // namespace

RelPtr Simplify(const RelPtr& rel) { return SimplifyNode(rel, true); }

// ---------------------------------------------------------------------------------------------
// ToSql

namespace {

// Plans and expressions nest at most this deep when written (the parser's limit, with room).
constexpr int kMaxWriteDepth = 1100;

// Clauses of a SELECT in the order SQL evaluates them; a plan node that needs a clause at or
// below one already set starts a new SELECT over the old one.
enum class Clause { kFrom, kWhere, kGroupBy, kHaving, kSelect, kOrderBy, kFetch, kSetOp };

struct Col {
  std::string qualifier;
  std::string name;
  // For columns that are expressions of the current SELECT (projections, aggregates): makes
  // the expression. Null for plain columns of the FROM clause.
  std::function<Result<sql::ExprPtr>()> expr;
};

struct Built {
  std::unique_ptr<sql::SelectBody> select;  // FROM set; items set once a SELECT clause is
  std::unique_ptr<sql::QueryBody> body;     // VALUES or a set operation, when not a SELECT
  std::vector<sql::OrderItem> order_by;
  sql::ExprPtr limit;
  sql::ExprPtr offset;
  Clause level = Clause::kFrom;
  bool qualified = false;            // the FROM clause has several tables
  bool bare_table = false;           // FROM one table, nothing else: usable directly in a join
  bool select_from_project = false;  // the SELECT list is a Project's (an Aggregate may absorb it)
  std::vector<Col> cols;
  std::vector<std::string> names;  // output names (the plan's row type)
};

sql::Identifier Id(std::string name) { return sql::Identifier(std::move(name)); }

// A Project that keeps the leading columns of a Sort over a Project: the binder's way of
// sorting by expressions the select list does not show.
bool IsSortTrim(const Rel& project) {
  const Rel& sort = *project.inputs[0];
  if (sort.kind != RelKind::kSort || sort.inputs[0]->kind != RelKind::kProject) return false;
  if (project.exprs.size() >= sort.row_type.columns.size()) return false;
  for (size_t i = 0; i < project.exprs.size(); ++i) {
    const Scalar& e = *project.exprs[i];
    if (e.kind != ScalarKind::kInputRef || e.index != static_cast<int>(i) ||
        project.row_type.columns[i].name != sort.row_type.columns[i].name) {
      return false;
    }
  }
  return true;
}

sql::ExprPtr ColumnExpr(const Col& c, bool qualified) {
  auto ref = std::make_unique<sql::ColumnRefExpr>();
  if (qualified && !c.qualifier.empty()) ref->name.parts.push_back(Id(c.qualifier));
  ref->name.parts.push_back(Id(c.name));
  return ref;
}

class Writer {
 public:
  explicit Writer(const ToSqlOptions& options) : options_(options) {}

  Result<Built> Visit(const Rel& rel);
  Result<std::unique_ptr<sql::Query>> Finish(Built b);

 private:
  Result<sql::ExprPtr> Column(const Built& b, int i) {
    if (i < 0 || i >= static_cast<int>(b.cols.size())) {
      return Status::Internal(
          fmt::format("plan refers to column {} of a {}-column input", i, b.cols.size()));
    }
    const Col& c = b.cols[i];
    if (c.expr) return c.expr();
    return ColumnExpr(c, b.qualified);
  }
  Result<sql::ExprPtr> Convert(const Scalar& s, const Built& b);
  Result<sql::ExprPtr> ConvertOfKind(const Scalar& s, const Built& b);
  Result<Built> VisitOfKind(const Rel& rel);
  // One function per kind, kept out of Convert and Visit so that each level of a deep plan or
  // expression costs only the frame of the kind it is.
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertLiteral(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertOuterRef(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertParameter(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertUnary(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertBinary(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertIs(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertBetween(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertInList(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertLike(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertCase(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertCast(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertCall(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertExtract(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertJsonObject(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertArray(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertMap(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertRow(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertItem(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertField(const Scalar& s, const Built& b);
  [[gnu::noinline]] Result<sql::ExprPtr> ConvertSubquery(const Scalar& s, const Built& b);
  // ARRAY(query), as the binder builds it (bind_pg.cc), written back as ARRAY(query).
  Result<sql::ExprPtr> ConvertArrayQuery(const RelPtr& query, const Built& b);
  // An UNNEST of generate_series (bind_pg.cc), written back as the function in FROM.
  Result<sql::TableRefPtr> SeriesRef(const Scalar& call, const Built& ctx, sql::TableAlias alias);
  [[gnu::noinline]] Result<Built> VisitScan(const Rel& rel, std::vector<std::string> names);
  [[gnu::noinline]] Result<Built> VisitValues(const Rel& rel, std::vector<std::string> names);
  [[gnu::noinline]] Result<Built> VisitFilter(const Rel& rel, std::vector<std::string> names);
  [[gnu::noinline]] Result<Built> VisitProject(const Rel& rel, std::vector<std::string> names);
  [[gnu::noinline]] Result<Built> VisitAggregate(const Rel& rel, std::vector<std::string> names);
  [[gnu::noinline]] Result<Built> VisitJoin(const Rel& rel, std::vector<std::string> names);
  [[gnu::noinline]] Result<Built> VisitUnnest(const Rel& rel, std::vector<std::string> names);
  [[gnu::noinline]] Result<Built> VisitSort(const Rel& rel, std::vector<std::string> names);
  [[gnu::noinline]] Result<Built> VisitSetOp(const Rel& rel, std::vector<std::string> names);
  Result<std::vector<sql::ExprPtr>> ConvertAll(const std::vector<ScalarPtr>& list, const Built& b);
  // Starts a new SELECT over `b` when `clause` cannot be added to it.
  Result<Built> Need(Built b, Clause clause);
  Result<Built> Wrap(Built b);
  // The table reference `b` stands for as a FROM item (wrapping it when it is more than a table).
  Result<std::pair<sql::TableRefPtr, Built>> AsFromItem(Built b);
  std::string TableAlias(const std::string& leaf);
  std::string SubqueryAlias();
  Status SelectList(Built& b);  // writes the columns out as the SELECT list

  static Status TooDeep() {
    return Status::InvalidArgument(fmt::format(
        "the query is nested more than {} levels deep to be written as SQL", kMaxWriteDepth));
  }

  const ToSqlOptions& options_;
  int depth_ = 0;  // nesting of the plan nodes and expressions being written
  // The rows that correlated subqueries being written refer to, innermost last.
  std::vector<const Built*> outer_;
  std::set<std::string> aliases_;
  int subqueries_ = 0;
};

std::string Writer::TableAlias(const std::string& leaf) {
  if (aliases_.insert(leaf).second) return leaf;
  for (int i = 0;; ++i) {
    std::string a = leaf + std::to_string(i);
    if (aliases_.insert(a).second) return a;
  }
}

std::string Writer::SubqueryAlias() {
  for (;;) {
    std::string a = subqueries_ == 0 ? "t" : fmt::format("t{}", subqueries_ - 1);
    ++subqueries_;
    if (aliases_.insert(a).second) return a;
  }
}

Status Writer::SelectList(Built& b) {
  auto& items = b.select->items;
  items.clear();
  for (size_t i = 0; i < b.cols.size(); ++i) {
    HOP_ASSIGN_OR_RETURN(sql::ExprPtr e, Column(b, static_cast<int>(i)));
    sql::SelectItem item;
    bool same_name = e->kind == sql::ExprKind::kColumnRef &&
                     e->As<sql::ColumnRefExpr>().name.back().name == b.names[i];
    if (!same_name) item.alias = Id(b.names[i]);
    item.expr = std::move(e);
    items.push_back(std::move(item));
  }
  return Status::OK();
}

Result<std::unique_ptr<sql::Query>> Writer::Finish(Built b) {
  auto q = std::make_unique<sql::Query>();
  if (b.body) {
    q->body = std::move(b.body);
  } else {
    if (b.select->items.empty()) HOP_RETURN_IF_ERROR(SelectList(b));
    q->body = std::move(b.select);
  }
  q->order_by = std::move(b.order_by);
  q->limit = std::move(b.limit);
  q->offset = std::move(b.offset);
  return q;
}

Result<Built> Writer::Wrap(Built b) {
  std::vector<std::string> names = b.names;
  // Columns of a derived table need distinct names (a join's row may repeat one).
  std::set<std::string> used;
  for (auto& n : b.names) {
    if (used.insert(n).second) continue;
    for (int i = 0;; ++i) {
      std::string candidate = n + std::to_string(i);
      if (used.insert(candidate).second) {
        n = std::move(candidate);
        break;
      }
    }
  }
  std::vector<std::string> inner_names = b.names;
  HOP_ASSIGN_OR_RETURN(auto query, Finish(std::move(b)));
  auto sub = std::make_unique<sql::SubqueryRef>();
  sub->query = std::move(query);
  std::string alias = SubqueryAlias();
  sub->alias = sql::TableAlias{Id(alias), {}};
  Built out;
  out.select = std::make_unique<sql::SelectBody>();
  out.select->from = std::move(sub);
  out.names = names;
  for (const auto& n : inner_names) out.cols.push_back({alias, n, nullptr});
  return out;
}

Result<Built> Writer::Need(Built b, Clause clause) {
  bool fresh = b.body != nullptr || b.level >= clause;
  // An aggregate's SELECT list is rewritten by a Project above it; a HAVING may follow GROUP BY.
  if (b.level == Clause::kGroupBy && (clause == Clause::kSelect || clause == Clause::kHaving)) {
    fresh = false;
  }
  if (clause == Clause::kWhere && b.level == Clause::kGroupBy) fresh = true;
  if (!fresh) return b;
  return Wrap(std::move(b));
}

Result<std::pair<sql::TableRefPtr, Built>> Writer::AsFromItem(Built b) {
  if (!b.bare_table && !(b.level == Clause::kFrom && b.body == nullptr && b.select &&
                         b.select->from && b.select->from->kind == sql::TableRefKind::kJoin)) {
    HOP_ASSIGN_OR_RETURN(b, Wrap(std::move(b)));
  }
  sql::TableRefPtr from = std::move(b.select->from);
  return std::make_pair(std::move(from), std::move(b));
}

Result<std::vector<sql::ExprPtr>> Writer::ConvertAll(const std::vector<ScalarPtr>& list,
                                                     const Built& b) {
  std::vector<sql::ExprPtr> out;
  for (const auto& s : list) {
    HOP_ASSIGN_OR_RETURN(sql::ExprPtr e, Convert(*s, b));
    out.push_back(std::move(e));
  }
  return out;
}

sql::DataType CastTarget(sql::DataType t) {
  t.nullability = sql::Nullability::kUnspecified;
  return t;
}

Result<sql::ExprPtr> Writer::ConvertLiteral(const Scalar& s, const Built&) {
  auto lit = std::make_unique<sql::LiteralExpr>();
  lit->literal = s.literal;
  lit->value = s.text;
  lit->from_unit = s.interval.from;
  lit->from_precision = s.interval.from_precision;
  lit->to_unit = s.interval.to;
  lit->to_precision = s.interval.to_precision;
  return sql::ExprPtr(std::move(lit));
}

Result<sql::ExprPtr> Writer::ConvertOuterRef(const Scalar& s, const Built&) {
  if (outer_.empty()) return Status::Internal("correlated reference outside a subquery");
  const Built& o = *outer_.back();
  if (s.index < 0 || s.index >= static_cast<int>(o.cols.size())) {
    return Status::Internal("correlated reference out of range");
  }
  const Col& c = o.cols[s.index];
  if (c.expr) return c.expr();
  // Always qualified, so that the subquery's own columns cannot capture the name.
  return ColumnExpr(c, true);
}

Result<sql::ExprPtr> Writer::ConvertParameter(const Scalar& s, const Built&) {
  auto p = std::make_unique<sql::ParameterExpr>();
  p->index = s.index;
  p->numbered = true;
  return sql::ExprPtr(std::move(p));
}

Result<sql::ExprPtr> Writer::ConvertUnary(const Scalar& s, const Built& b) {
  auto u = std::make_unique<sql::UnaryExpr>();
  u->op = s.unary_op;
  HOP_ASSIGN_OR_RETURN(u->operand, Convert(*s.args[0], b));
  return sql::ExprPtr(std::move(u));
}

Result<sql::ExprPtr> Writer::ConvertBinary(const Scalar& s, const Built& b) {
  auto e = std::make_unique<sql::BinaryExpr>();
  e->op = s.binary_op;
  HOP_ASSIGN_OR_RETURN(e->left, Convert(*s.args[0], b));
  HOP_ASSIGN_OR_RETURN(e->right, Convert(*s.args[1], b));
  return sql::ExprPtr(std::move(e));
}

Result<sql::ExprPtr> Writer::ConvertIs(const Scalar& s, const Built& b) {
  auto e = std::make_unique<sql::IsExpr>();
  e->test = s.is_test;
  e->negated = s.negated;
  HOP_ASSIGN_OR_RETURN(e->operand, Convert(*s.args[0], b));
  return sql::ExprPtr(std::move(e));
}

Result<sql::ExprPtr> Writer::ConvertBetween(const Scalar& s, const Built& b) {
  auto e = std::make_unique<sql::BetweenExpr>();
  e->negated = s.negated;
  e->symmetric = s.symmetric;
  HOP_ASSIGN_OR_RETURN(e->operand, Convert(*s.args[0], b));
  HOP_ASSIGN_OR_RETURN(e->low, Convert(*s.args[1], b));
  HOP_ASSIGN_OR_RETURN(e->high, Convert(*s.args[2], b));
  return sql::ExprPtr(std::move(e));
}

Result<sql::ExprPtr> Writer::ConvertInList(const Scalar& s, const Built& b) {
  auto e = std::make_unique<sql::InListExpr>();
  e->negated = s.negated;
  HOP_ASSIGN_OR_RETURN(e->operand, Convert(*s.args[0], b));
  for (size_t i = 1; i < s.args.size(); ++i) {
    HOP_ASSIGN_OR_RETURN(sql::ExprPtr x, Convert(*s.args[i], b));
    e->list.push_back(std::move(x));
  }
  return sql::ExprPtr(std::move(e));
}

Result<sql::ExprPtr> Writer::ConvertLike(const Scalar& s, const Built& b) {
  auto e = std::make_unique<sql::LikeExpr>();
  e->negated = s.negated;
  HOP_ASSIGN_OR_RETURN(e->operand, Convert(*s.args[0], b));
  HOP_ASSIGN_OR_RETURN(e->pattern, Convert(*s.args[1], b));
  if (s.args.size() > 2) {
    HOP_ASSIGN_OR_RETURN(e->escape, Convert(*s.args[2], b));
  }
  return sql::ExprPtr(std::move(e));
}

Result<sql::ExprPtr> Writer::ConvertCase(const Scalar& s, const Built& b) {
  auto e = std::make_unique<sql::CaseExpr>();
  size_t pairs = (s.args.size() - (s.has_else ? 1 : 0)) / 2;
  for (size_t i = 0; i < pairs; ++i) {
    sql::WhenClause w;
    HOP_ASSIGN_OR_RETURN(w.condition, Convert(*s.args[2 * i], b));
    HOP_ASSIGN_OR_RETURN(w.result, Convert(*s.args[2 * i + 1], b));
    e->whens.push_back(std::move(w));
  }
  if (s.has_else) {
    HOP_ASSIGN_OR_RETURN(e->else_result, Convert(*s.args.back(), b));
  }
  return sql::ExprPtr(std::move(e));
}

Result<sql::ExprPtr> Writer::ConvertCast(const Scalar& s, const Built& b) {
  auto e = std::make_unique<sql::CastExpr>();
  e->type = CastTarget(s.type);
  e->try_cast = s.negated;
  HOP_ASSIGN_OR_RETURN(e->operand, Convert(*s.args[0], b));
  return sql::ExprPtr(std::move(e));
}

namespace {

// The query of an ARRAY(query) the binder built: COALESCE((SELECT ARRAY_AGG(c) FROM query),
// ARRAY[]), whose empty ARRAY[] no statement can write; null for any other call.
RelPtr ArrayQueryOf(const Scalar& s) {
  if (s.kind != ScalarKind::kCall || s.text != "COALESCE" || s.args.size() != 2) return nullptr;
  const Scalar& sub = *s.args[0];
  const Scalar& empty = *s.args[1];
  if (empty.kind != ScalarKind::kArray || !empty.args.empty() ||
      sub.kind != ScalarKind::kSubquery) {
    return nullptr;
  }
  const Rel& agg = *sub.query;
  if (agg.kind != RelKind::kAggregate || !agg.group.empty() || agg.aggregates.size() != 1 ||
      agg.aggregates[0].name != "ARRAY_AGG") {
    return nullptr;
  }
  return agg.inputs[0];
}

// The generate_series call an UNNEST of the binder's unnests, or null.
const Scalar* SeriesCallOf(const Rel& unnest) {
  if (unnest.exprs.size() != 1) return nullptr;
  const Scalar& e = *unnest.exprs[0];
  if (e.kind != ScalarKind::kCall || e.function != nullptr || e.text != "GENERATE_SERIES") {
    return nullptr;
  }
  return &e;
}

}  // namespace

Result<sql::ExprPtr> Writer::ConvertArrayQuery(const RelPtr& query, const Built& b) {
  outer_.push_back(&b);
  auto visited = Visit(*Simplify(query));
  if (!visited.ok()) {
    outer_.pop_back();
    return visited.status();
  }
  auto finished = Finish(std::move(visited).value());
  outer_.pop_back();
  HOP_ASSIGN_OR_RETURN(auto q, std::move(finished));
  auto e = std::make_unique<sql::ArraySubqueryExpr>();
  e->query = std::move(q);
  return sql::ExprPtr(std::move(e));
}

Result<sql::TableRefPtr> Writer::SeriesRef(const Scalar& call, const Built& ctx,
                                           sql::TableAlias alias) {
  auto f = std::make_unique<sql::FunctionRef>();
  f->name.parts.push_back(Id("GENERATE_SERIES"));
  HOP_ASSIGN_OR_RETURN(f->args, ConvertAll(call.args, ctx));
  f->alias = std::move(alias);
  return sql::TableRefPtr(std::move(f));
}

Result<sql::ExprPtr> Writer::ConvertCall(const Scalar& s, const Built& b) {
  if (RelPtr query = ArrayQueryOf(s)) return ConvertArrayQuery(query, b);
  auto f = std::make_unique<sql::FunctionExpr>();
  f->name.parts.push_back(Id(s.text));
  f->star = s.star;
  f->niladic = s.function && s.function->niladic && s.args.empty();
  if (s.distinct) f->quantifier = sql::SetQuantifier::kDistinct;
  HOP_ASSIGN_OR_RETURN(f->args, ConvertAll(s.args, b));
  if (s.window) {
    const Window& w = *s.window;
    auto spec = std::make_unique<sql::WindowSpec>();
    HOP_ASSIGN_OR_RETURN(spec->partition_by, ConvertAll(w.partition_by, b));
    for (const auto& k : w.order_by) {
      sql::OrderItem item;
      HOP_ASSIGN_OR_RETURN(item.expr, Convert(*k.expr, b));
      item.direction = k.direction;
      item.nulls = k.nulls;
      spec->order_by.push_back(std::move(item));
    }
    spec->frame_unit = w.frame_unit;
    spec->frame_start.kind = w.start;
    if (w.start_offset) {
      HOP_ASSIGN_OR_RETURN(spec->frame_start.offset, Convert(*w.start_offset, b));
    }
    if (w.end) {
      sql::FrameBound end;
      end.kind = *w.end;
      if (w.end_offset) {
        HOP_ASSIGN_OR_RETURN(end.offset, Convert(*w.end_offset, b));
      }
      spec->frame_end = std::move(end);
    }
    f->over = std::move(spec);
  }
  return sql::ExprPtr(std::move(f));
}

Result<sql::ExprPtr> Writer::ConvertExtract(const Scalar& s, const Built& b) {
  auto e = std::make_unique<sql::ExtractExpr>();
  e->unit = s.text;
  HOP_ASSIGN_OR_RETURN(e->operand, Convert(*s.args[0], b));
  return sql::ExprPtr(std::move(e));
}

Result<sql::ExprPtr> Writer::ConvertJsonObject(const Scalar& s, const Built& b) {
  auto e = std::make_unique<sql::JsonObjectExpr>();
  e->absent_on_null = s.absent_on_null;
  e->null_clause_written = s.absent_on_null;
  for (size_t i = 0; i + 1 < s.args.size(); i += 2) {
    HOP_ASSIGN_OR_RETURN(sql::ExprPtr k, Convert(*s.args[i], b));
    HOP_ASSIGN_OR_RETURN(sql::ExprPtr v, Convert(*s.args[i + 1], b));
    e->entries.emplace_back(std::move(k), std::move(v));
  }
  return sql::ExprPtr(std::move(e));
}

Result<sql::ExprPtr> Writer::ConvertArray(const Scalar& s, const Built& b) {
  auto e = std::make_unique<sql::ArrayExpr>();
  HOP_ASSIGN_OR_RETURN(e->elements, ConvertAll(s.args, b));
  return sql::ExprPtr(std::move(e));
}

Result<sql::ExprPtr> Writer::ConvertMap(const Scalar& s, const Built& b) {
  auto e = std::make_unique<sql::MapExpr>();
  HOP_ASSIGN_OR_RETURN(e->elements, ConvertAll(s.args, b));
  return sql::ExprPtr(std::move(e));
}

Result<sql::ExprPtr> Writer::ConvertRow(const Scalar& s, const Built& b) {
  auto e = std::make_unique<sql::RowExpr>();
  HOP_ASSIGN_OR_RETURN(e->elements, ConvertAll(s.args, b));
  return sql::ExprPtr(std::move(e));
}

Result<sql::ExprPtr> Writer::ConvertItem(const Scalar& s, const Built& b) {
  auto e = std::make_unique<sql::SubscriptExpr>();
  HOP_ASSIGN_OR_RETURN(e->base, Convert(*s.args[0], b));
  HOP_ASSIGN_OR_RETURN(e->index, Convert(*s.args[1], b));
  return sql::ExprPtr(std::move(e));
}

Result<sql::ExprPtr> Writer::ConvertField(const Scalar& s, const Built& b) {
  HOP_ASSIGN_OR_RETURN(sql::ExprPtr base, Convert(*s.args[0], b));
  if (base->kind == sql::ExprKind::kColumnRef) {
    base->As<sql::ColumnRefExpr>().name.parts.push_back(Id(s.text));
    return base;
  }
  auto e = std::make_unique<sql::SubscriptExpr>();
  e->base = std::move(base);
  auto key = std::make_unique<sql::LiteralExpr>();
  key->literal = sql::LiteralKind::kString;
  key->value = s.text;
  e->index = std::move(key);
  return sql::ExprPtr(std::move(e));
}

Result<sql::ExprPtr> Writer::ConvertSubquery(const Scalar& s, const Built& b) {
  outer_.push_back(&b);
  auto visited = Visit(*Simplify(s.query));
  if (!visited.ok()) {
    outer_.pop_back();
    return visited.status();
  }
  auto finished = Finish(std::move(visited).value());
  outer_.pop_back();
  HOP_ASSIGN_OR_RETURN(auto query, std::move(finished));
  if (s.kind == ScalarKind::kSubquery) {
    auto e = std::make_unique<sql::SubqueryExpr>();
    e->query = std::move(query);
    return sql::ExprPtr(std::move(e));
  }
  if (s.kind == ScalarKind::kExists) {
    auto e = std::make_unique<sql::ExistsExpr>();
    e->query = std::move(query);
    return sql::ExprPtr(std::move(e));
  }
  if (s.kind == ScalarKind::kQuantified) {
    auto e = std::make_unique<sql::QuantifiedExpr>();
    e->op = s.binary_op;
    e->all = s.all;
    HOP_ASSIGN_OR_RETURN(e->operand, Convert(*s.args[0], b));
    e->query = std::move(query);
    return sql::ExprPtr(std::move(e));
  }
  auto e = std::make_unique<sql::InSubqueryExpr>();
  e->negated = s.negated;
  HOP_ASSIGN_OR_RETURN(e->operand, Convert(*s.args[0], b));
  e->query = std::move(query);
  return sql::ExprPtr(std::move(e));
}

Result<sql::ExprPtr> Writer::Convert(const Scalar& s, const Built& b) {
  if (depth_ >= kMaxWriteDepth) return TooDeep();
  ++depth_;
  auto out = ConvertOfKind(s, b);
  --depth_;
  return out;
}

Result<sql::ExprPtr> Writer::ConvertOfKind(const Scalar& s, const Built& b) {
  switch (s.kind) {
    case ScalarKind::kInputRef: return Column(b, s.index);
    case ScalarKind::kLiteral: return ConvertLiteral(s, b);
    case ScalarKind::kOuterRef: return ConvertOuterRef(s, b);
    case ScalarKind::kParameter: return ConvertParameter(s, b);
    case ScalarKind::kUnary: return ConvertUnary(s, b);
    case ScalarKind::kBinary: return ConvertBinary(s, b);
    case ScalarKind::kIs: return ConvertIs(s, b);
    case ScalarKind::kBetween: return ConvertBetween(s, b);
    case ScalarKind::kInList: return ConvertInList(s, b);
    case ScalarKind::kLike: return ConvertLike(s, b);
    case ScalarKind::kCase: return ConvertCase(s, b);
    case ScalarKind::kCast: return ConvertCast(s, b);
    case ScalarKind::kCall: return ConvertCall(s, b);
    case ScalarKind::kExtract: return ConvertExtract(s, b);
    case ScalarKind::kJsonObject: return ConvertJsonObject(s, b);
    case ScalarKind::kArray: return ConvertArray(s, b);
    case ScalarKind::kMap: return ConvertMap(s, b);
    case ScalarKind::kRow: return ConvertRow(s, b);
    case ScalarKind::kItem: return ConvertItem(s, b);
    case ScalarKind::kField: return ConvertField(s, b);
    case ScalarKind::kSubquery:
    case ScalarKind::kExists:
    case ScalarKind::kInSubquery:
    case ScalarKind::kQuantified: return ConvertSubquery(s, b);
  }
  return Status::Internal("unknown scalar kind");
}

Result<Built> Writer::VisitScan(const Rel& rel, std::vector<std::string> names) {
  std::vector<std::string> path = options_.table_path ? options_.table_path(rel) : rel.path;
  if (options_.column_name) {
    for (auto& n : names) n = options_.column_name(rel, n);
  }
  auto ref = std::make_unique<sql::BaseTableRef>();
  for (const auto& p : path) ref->name.parts.push_back(Id(p));
  std::string alias = TableAlias(path.back());
  if (alias != path.back()) ref->alias = sql::TableAlias{Id(alias), {}};
  Built b;
  b.select = std::make_unique<sql::SelectBody>();
  b.select->from = std::move(ref);
  b.bare_table = true;
  b.names = names;
  for (const auto& n : names) b.cols.push_back({alias, n, nullptr});
  return b;
}

Result<Built> Writer::VisitValues(const Rel& rel, std::vector<std::string> names) {
  Built b;
  b.names = names;
  if (rel.row_type.columns.empty()) {
    // SELECT without FROM.
    b.select = std::make_unique<sql::SelectBody>();
    return b;
  }
  auto values = std::make_unique<sql::ValuesBody>();
  Built empty;
  for (const auto& row : rel.rows) {
    HOP_ASSIGN_OR_RETURN(auto converted, ConvertAll(row, empty));
    values->rows.push_back(std::move(converted));
  }
  // As a FROM item: (VALUES ...) AS t (names).
  auto q = std::make_unique<sql::Query>();
  q->body = std::move(values);
  auto sub = std::make_unique<sql::SubqueryRef>();
  sub->query = std::move(q);
  std::string alias = SubqueryAlias();
  sql::TableAlias ta{Id(alias), {}};
  for (const auto& n : names) ta.columns.push_back(Id(n));
  sub->alias = std::move(ta);
  b.select = std::make_unique<sql::SelectBody>();
  b.select->from = std::move(sub);
  for (const auto& n : names) b.cols.push_back({alias, n, nullptr});
  return b;
}

Result<Built> Writer::VisitFilter(const Rel& rel, std::vector<std::string>) {
  HOP_ASSIGN_OR_RETURN(Built b, Visit(*rel.inputs[0]));
  Clause clause = b.level == Clause::kGroupBy ? Clause::kHaving : Clause::kWhere;
  HOP_ASSIGN_OR_RETURN(b, Need(std::move(b), clause));
  HOP_ASSIGN_OR_RETURN(sql::ExprPtr cond, Convert(*rel.condition, b));
  if (clause == Clause::kHaving) {
    b.select->having = std::move(cond);
  } else {
    b.select->where = std::move(cond);
  }
  b.level = clause;
  b.bare_table = false;
  return b;
}

Result<Built> Writer::VisitProject(const Rel& rel, std::vector<std::string> names) {
  if (IsSortTrim(rel)) {
    // SELECT a FROM t ORDER BY b: the sort keys need not be selected.
    HOP_ASSIGN_OR_RETURN(Built b, Visit(*rel.inputs[0]));
    if (!b.body && b.select && b.select->items.size() == b.cols.size()) {
      b.select->items.resize(rel.exprs.size());
      b.cols.resize(rel.exprs.size());
      b.names = names;
      return b;
    }
    HOP_ASSIGN_OR_RETURN(b, Wrap(std::move(b)));
    b.cols.resize(rel.exprs.size());
    b.names = names;
    return b;
  }
  HOP_ASSIGN_OR_RETURN(Built b, Visit(*rel.inputs[0]));
  HOP_ASSIGN_OR_RETURN(b, Need(std::move(b), Clause::kSelect));
  // Each output column is its expression over the input's columns.
  auto input = std::make_shared<Built>(std::move(b));
  Built out;
  out.select = std::move(input->select);
  out.qualified = input->qualified;
  out.level = Clause::kSelect;
  out.select_from_project = true;
  out.names = names;
  // Column generators read the input's columns, which stay in `input`.
  input->select.reset();
  for (size_t i = 0; i < rel.exprs.size(); ++i) {
    ScalarPtr e = rel.exprs[i];
    out.cols.push_back({"", names[i], [this, e, input]() { return Convert(*e, *input); }});
  }
  out.select->items.clear();
  HOP_RETURN_IF_ERROR(SelectList(out));
  return out;
}

Result<Built> Writer::VisitAggregate(const Rel& rel, std::vector<std::string> names) {
  HOP_ASSIGN_OR_RETURN(Built b, Visit(*rel.inputs[0]));
  if (b.level == Clause::kSelect && b.select_from_project && b.order_by.empty() && !b.limit &&
      !b.offset) {
    // Absorb the projection: its expressions become the GROUP BY keys and arguments.
    b.select->items.clear();
    b.level = b.select->where ? Clause::kWhere : Clause::kFrom;
    if (b.select->having || !b.select->group_by.empty()) {
      b.select->items.clear();
      HOP_RETURN_IF_ERROR(SelectList(b));
      b.level = Clause::kSelect;
      HOP_ASSIGN_OR_RETURN(b, Wrap(std::move(b)));
    }
  } else {
    HOP_ASSIGN_OR_RETURN(b, Need(std::move(b), Clause::kGroupBy));
  }
  auto input = std::make_shared<Built>(std::move(b));
  Built out;
  out.select = std::move(input->select);
  input->select.reset();
  out.qualified = input->qualified;
  out.names = names;
  for (int g : rel.group) {
    HOP_ASSIGN_OR_RETURN(sql::ExprPtr key, Column(*input, g));
    if (key->kind == sql::ExprKind::kLiteral) {
      // A number in GROUP BY would read as an ordinal: a constant key is written as a CAST.
      auto cast = std::make_unique<sql::CastExpr>();
      const sql::DataType& t = rel.inputs[0]->row_type.columns[g].type;
      cast->type =
          t.name == sql::TypeName::kNull ? sql::DataType(sql::TypeName::kVarchar) : CastTarget(t);
      cast->operand = std::move(key);
      key = std::move(cast);
    }
    out.select->group_by.push_back(std::move(key));
  }
  for (size_t i = 0; i < rel.group.size(); ++i) {
    int g = rel.group[i];
    out.cols.push_back({"", names[i], [this, g, input]() { return Column(*input, g); }});
  }
  for (size_t i = 0; i < rel.aggregates.size(); ++i) {
    AggregateCall call = rel.aggregates[i];
    out.cols.push_back(
        {"", names[rel.group.size() + i], [this, call, input]() -> Result<sql::ExprPtr> {
           auto f = std::make_unique<sql::FunctionExpr>();
           f->name.parts.push_back(Id(call.name));
           f->star = call.star;
           if (call.distinct) f->quantifier = sql::SetQuantifier::kDistinct;
           for (int a : call.args) {
             HOP_ASSIGN_OR_RETURN(sql::ExprPtr x, Column(*input, a));
             f->args.push_back(std::move(x));
           }
           for (const auto& lit : call.literal_args) {
             HOP_ASSIGN_OR_RETURN(sql::ExprPtr x, Convert(*lit, *input));
             f->args.push_back(std::move(x));
           }
           if (call.filter >= 0) {
             HOP_ASSIGN_OR_RETURN(f->filter, Column(*input, call.filter));
           }
           for (const auto& k : call.within_group) {
             sql::OrderItem item;
             HOP_ASSIGN_OR_RETURN(item.expr, Column(*input, k.column));
             item.direction = k.direction;
             item.nulls = k.nulls;
             (call.order_in_call ? f->order_by : f->within_group).push_back(std::move(item));
           }
           return sql::ExprPtr(std::move(f));
         }});
  }
  HOP_RETURN_IF_ERROR(SelectList(out));
  out.level = Clause::kGroupBy;
  return out;
}

Result<Built> Writer::VisitJoin(const Rel& rel, std::vector<std::string> names) {
  HOP_ASSIGN_OR_RETURN(Built left, Visit(*rel.inputs[0]));
  HOP_ASSIGN_OR_RETURN(auto l, AsFromItem(std::move(left)));
  Built out;
  out.select = std::make_unique<sql::SelectBody>();
  out.qualified = true;
  out.names = names;
  out.cols = l.second.cols;
  sql::TableRefPtr right_ref;
  if (rel.inputs[1]->kind == RelKind::kUnnest) {
    // UNNEST reads the left side's columns.
    const Rel& u = *rel.inputs[1];
    Built ctx;
    ctx.cols = l.second.cols;
    ctx.qualified = true;
    std::string alias = SubqueryAlias();
    sql::TableAlias ta{Id(alias), {}};
    for (const auto& c : u.row_type.columns) {
      ta.columns.push_back(Id(c.name));
      out.cols.push_back({alias, c.name, nullptr});
    }
    if (const Scalar* series = SeriesCallOf(u)) {
      HOP_ASSIGN_OR_RETURN(right_ref, SeriesRef(*series, ctx, std::move(ta)));
    } else {
      auto unnest = std::make_unique<sql::UnnestRef>();
      HOP_ASSIGN_OR_RETURN(unnest->args, ConvertAll(u.exprs, ctx));
      unnest->with_ordinality = u.with_ordinality;
      unnest->alias = std::move(ta);
      right_ref = std::move(unnest);
    }
  } else {
    HOP_ASSIGN_OR_RETURN(Built right, Visit(*rel.inputs[1]));
    HOP_ASSIGN_OR_RETURN(auto r, AsFromItem(std::move(right)));
    for (const auto& c : r.second.cols) out.cols.push_back(c);
    right_ref = std::move(r.first);
  }
  auto join = std::make_unique<sql::JoinRef>();
  join->type = rel.join_type;
  join->left = std::move(l.first);
  join->right = std::move(right_ref);
  if (rel.condition) {
    HOP_ASSIGN_OR_RETURN(join->on, Convert(*rel.condition, out));
  } else if (rel.join_type != sql::JoinType::kCross) {
    auto t = std::make_unique<sql::LiteralExpr>();
    t->literal = sql::LiteralKind::kBoolean;
    t->value = "TRUE";
    join->on = std::move(t);
  }
  out.select->from = std::move(join);
  return out;
}

Result<Built> Writer::VisitUnnest(const Rel& rel, std::vector<std::string> names) {
  Built empty;
  std::string alias = SubqueryAlias();
  sql::TableAlias ta{Id(alias), {}};
  for (const auto& n : names) ta.columns.push_back(Id(n));
  Built b;
  b.select = std::make_unique<sql::SelectBody>();
  if (const Scalar* series = SeriesCallOf(rel)) {
    HOP_ASSIGN_OR_RETURN(b.select->from, SeriesRef(*series, empty, std::move(ta)));
  } else {
    auto unnest = std::make_unique<sql::UnnestRef>();
    HOP_ASSIGN_OR_RETURN(unnest->args, ConvertAll(rel.exprs, empty));
    unnest->with_ordinality = rel.with_ordinality;
    unnest->alias = std::move(ta);
    b.select->from = std::move(unnest);
  }
  b.names = names;
  for (const auto& n : names) b.cols.push_back({alias, n, nullptr});
  return b;
}

Result<Built> Writer::VisitSort(const Rel& rel, std::vector<std::string>) {
  HOP_ASSIGN_OR_RETURN(Built b, Visit(*rel.inputs[0]));
  Clause clause = rel.keys.empty() ? Clause::kFetch : Clause::kOrderBy;
  if (b.level >= clause || (b.body && !rel.keys.empty() && !b.order_by.empty())) {
    HOP_ASSIGN_OR_RETURN(b, Wrap(std::move(b)));
  }
  if (b.level < Clause::kSelect && !b.body && b.level != Clause::kGroupBy &&
      b.level != Clause::kHaving) {
    HOP_RETURN_IF_ERROR(SelectList(b));
    b.level = Clause::kSelect;
  }
  for (const auto& k : rel.keys) {
    sql::OrderItem item;
    if (b.body) {
      auto ref = std::make_unique<sql::ColumnRefExpr>();
      ref->name.parts.push_back(Id(b.names[k.column]));
      item.expr = std::move(ref);
    } else {
      HOP_ASSIGN_OR_RETURN(item.expr, Column(b, k.column));
      // Sorting by a constant changes nothing, and a number there would read as an ordinal.
      if (item.expr->kind == sql::ExprKind::kLiteral) continue;
    }
    item.direction = k.direction;
    item.nulls = k.nulls;
    b.order_by.push_back(std::move(item));
  }
  Built empty;
  if (rel.fetch) {
    HOP_ASSIGN_OR_RETURN(b.limit, Convert(*rel.fetch, empty));
  }
  if (rel.offset) {
    HOP_ASSIGN_OR_RETURN(b.offset, Convert(*rel.offset, empty));
  }
  b.level = std::max(b.level, clause);
  b.bare_table = false;
  return b;
}

Result<Built> Writer::VisitSetOp(const Rel& rel, std::vector<std::string> names) {
  auto side = [&](const Rel& input) -> Result<sql::QueryBodyPtr> {
    HOP_ASSIGN_OR_RETURN(Built b, Visit(input));
    HOP_ASSIGN_OR_RETURN(auto q, Finish(std::move(b)));
    if (q->order_by.empty() && !q->limit && !q->offset && q->with.empty()) {
      return std::move(q->body);
    }
    auto nested = std::make_unique<sql::NestedQueryBody>();
    nested->query = std::move(q);
    return sql::QueryBodyPtr(std::move(nested));
  };
  auto op = std::make_unique<sql::SetOperationBody>();
  op->op = rel.set_op;
  op->quantifier = rel.all ? sql::SetQuantifier::kAll : sql::SetQuantifier::kNone;
  HOP_ASSIGN_OR_RETURN(op->left, side(*rel.inputs[0]));
  HOP_ASSIGN_OR_RETURN(op->right, side(*rel.inputs[1]));
  Built b;
  b.body = std::move(op);
  b.level = Clause::kSetOp;
  b.names = names;
  return b;
}

Result<Built> Writer::Visit(const Rel& rel) {
  if (depth_ >= kMaxWriteDepth) return TooDeep();
  ++depth_;
  auto out = VisitOfKind(rel);
  --depth_;
  return out;
}

Result<Built> Writer::VisitOfKind(const Rel& rel) {
  std::vector<std::string> names;
  for (const auto& c : rel.row_type.columns) names.push_back(c.name);
  switch (rel.kind) {
    case RelKind::kScan: return VisitScan(rel, std::move(names));
    case RelKind::kValues: return VisitValues(rel, std::move(names));
    case RelKind::kFilter: return VisitFilter(rel, std::move(names));
    case RelKind::kProject: return VisitProject(rel, std::move(names));
    case RelKind::kAggregate: return VisitAggregate(rel, std::move(names));
    case RelKind::kJoin: return VisitJoin(rel, std::move(names));
    case RelKind::kUnnest: return VisitUnnest(rel, std::move(names));
    case RelKind::kSort: return VisitSort(rel, std::move(names));
    case RelKind::kSetOp: return VisitSetOp(rel, std::move(names));
  }
  return Status::Internal("unknown plan node");
}

}  // namespace

Result<std::unique_ptr<sql::Query>> ToSql(const Rel& rel, const ToSqlOptions& options) {
  Writer writer(options);
  HOP_ASSIGN_OR_RETURN(Built b, writer.Visit(rel));
  return writer.Finish(std::move(b));
}

}  // namespace hop::binder
