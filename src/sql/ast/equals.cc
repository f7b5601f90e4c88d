// Structural equality over the AST, used by the round-trip property parse(print(ast)) == ast.
// Locations, spellings and source text never take part; folded names and values do.
#include "sql/ast/statements.h"

namespace hop::sql {
namespace {

template <typename T>
bool EqualPtr(const std::unique_ptr<T>& a, const std::unique_ptr<T>& b) {
  if (!a || !b) return !a && !b;
  return Equals(*a, *b);
}

bool EqualExprs(const std::vector<ExprPtr>& a, const std::vector<ExprPtr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!EqualPtr(a[i], b[i])) return false;
  }
  return true;
}

bool EqualOrder(const std::vector<OrderItem>& a, const std::vector<OrderItem>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].direction != b[i].direction || a[i].nulls != b[i].nulls ||
        !EqualPtr(a[i].expr, b[i].expr)) {
      return false;
    }
  }
  return true;
}

bool EqualBound(const FrameBound& a, const FrameBound& b) {
  return a.kind == b.kind && EqualPtr(a.offset, b.offset);
}

bool EqualWindow(const WindowSpec& a, const WindowSpec& b) {
  if (!EqualExprs(a.partition_by, b.partition_by) || !EqualOrder(a.order_by, b.order_by) ||
      a.frame_unit != b.frame_unit || a.frame_end.has_value() != b.frame_end.has_value()) {
    return false;
  }
  if (a.frame_unit == FrameUnit::kNone) return true;
  return EqualBound(a.frame_start, b.frame_start) &&
         (!a.frame_end || EqualBound(*a.frame_end, *b.frame_end));
}

bool EqualAlias(const std::optional<TableAlias>& a, const std::optional<TableAlias>& b) {
  return a == b;
}

}  // namespace

bool Equals(const ExprPtr& a, const ExprPtr& b) { return EqualPtr(a, b); }

bool Equals(const Expr& a, const Expr& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case ExprKind::kLiteral: {
      const auto& x = a.As<LiteralExpr>();
      const auto& y = b.As<LiteralExpr>();
      return x.literal == y.literal && x.value == y.value && x.from_unit == y.from_unit &&
             x.from_precision == y.from_precision && x.to_unit == y.to_unit &&
             x.to_precision == y.to_precision;
    }
    case ExprKind::kColumnRef: return a.As<ColumnRefExpr>().name == b.As<ColumnRefExpr>().name;
    case ExprKind::kStar: return a.As<StarExpr>().qualifier == b.As<StarExpr>().qualifier;
    case ExprKind::kParameter: return a.As<ParameterExpr>().index == b.As<ParameterExpr>().index;
    case ExprKind::kUnary: {
      const auto& x = a.As<UnaryExpr>();
      const auto& y = b.As<UnaryExpr>();
      return x.op == y.op && EqualPtr(x.operand, y.operand);
    }
    case ExprKind::kBinary: {
      const auto& x = a.As<BinaryExpr>();
      const auto& y = b.As<BinaryExpr>();
      return x.op == y.op && EqualPtr(x.left, y.left) && EqualPtr(x.right, y.right);
    }
    case ExprKind::kIs: {
      const auto& x = a.As<IsExpr>();
      const auto& y = b.As<IsExpr>();
      return x.test == y.test && x.negated == y.negated && EqualPtr(x.operand, y.operand);
    }
    case ExprKind::kBetween: {
      const auto& x = a.As<BetweenExpr>();
      const auto& y = b.As<BetweenExpr>();
      return x.negated == y.negated && x.symmetric == y.symmetric &&
             EqualPtr(x.operand, y.operand) && EqualPtr(x.low, y.low) && EqualPtr(x.high, y.high);
    }
    case ExprKind::kInList: {
      const auto& x = a.As<InListExpr>();
      const auto& y = b.As<InListExpr>();
      return x.negated == y.negated && EqualPtr(x.operand, y.operand) && EqualExprs(x.list, y.list);
    }
    case ExprKind::kInSubquery: {
      const auto& x = a.As<InSubqueryExpr>();
      const auto& y = b.As<InSubqueryExpr>();
      return x.negated == y.negated && EqualPtr(x.operand, y.operand) && EqualPtr(x.query, y.query);
    }
    case ExprKind::kLike: {
      const auto& x = a.As<LikeExpr>();
      const auto& y = b.As<LikeExpr>();
      return x.negated == y.negated && EqualPtr(x.operand, y.operand) &&
             EqualPtr(x.pattern, y.pattern) && EqualPtr(x.escape, y.escape);
    }
    case ExprKind::kExists: return EqualPtr(a.As<ExistsExpr>().query, b.As<ExistsExpr>().query);
    case ExprKind::kSubquery:
      return EqualPtr(a.As<SubqueryExpr>().query, b.As<SubqueryExpr>().query);
    case ExprKind::kCase: {
      const auto& x = a.As<CaseExpr>();
      const auto& y = b.As<CaseExpr>();
      if (!EqualPtr(x.operand, y.operand) || !EqualPtr(x.else_result, y.else_result) ||
          x.whens.size() != y.whens.size()) {
        return false;
      }
      for (size_t i = 0; i < x.whens.size(); ++i) {
        if (!EqualPtr(x.whens[i].condition, y.whens[i].condition) ||
            !EqualPtr(x.whens[i].result, y.whens[i].result)) {
          return false;
        }
      }
      return true;
    }
    case ExprKind::kCast: {
      const auto& x = a.As<CastExpr>();
      const auto& y = b.As<CastExpr>();
      return x.try_cast == y.try_cast && x.object_id == y.object_id && x.type == y.type &&
             EqualPtr(x.operand, y.operand);
    }
    case ExprKind::kFunction: {
      const auto& x = a.As<FunctionExpr>();
      const auto& y = b.As<FunctionExpr>();
      if (!(x.name == y.name) || x.quantifier != y.quantifier || x.star != y.star ||
          x.niladic != y.niladic || !EqualExprs(x.args, y.args) ||
          !EqualOrder(x.within_group, y.within_group) || !EqualOrder(x.order_by, y.order_by) ||
          !EqualPtr(x.filter, y.filter)) {
        return false;
      }
      if (!x.over || !y.over) return !x.over && !y.over;
      return EqualWindow(*x.over, *y.over);
    }
    case ExprKind::kExtract: {
      const auto& x = a.As<ExtractExpr>();
      const auto& y = b.As<ExtractExpr>();
      return x.unit == y.unit && EqualPtr(x.operand, y.operand);
    }
    case ExprKind::kJsonObject: {
      const auto& x = a.As<JsonObjectExpr>();
      const auto& y = b.As<JsonObjectExpr>();
      if (x.absent_on_null != y.absent_on_null || x.entries.size() != y.entries.size()) {
        return false;
      }
      for (size_t i = 0; i < x.entries.size(); ++i) {
        if (!EqualPtr(x.entries[i].first, y.entries[i].first) ||
            !EqualPtr(x.entries[i].second, y.entries[i].second)) {
          return false;
        }
      }
      return true;
    }
    case ExprKind::kArray:
      return EqualExprs(a.As<ArrayExpr>().elements, b.As<ArrayExpr>().elements);
    case ExprKind::kMap: return EqualExprs(a.As<MapExpr>().elements, b.As<MapExpr>().elements);
    case ExprKind::kRow: return EqualExprs(a.As<RowExpr>().elements, b.As<RowExpr>().elements);
    case ExprKind::kSubscript: {
      const auto& x = a.As<SubscriptExpr>();
      const auto& y = b.As<SubscriptExpr>();
      return EqualPtr(x.base, y.base) && EqualPtr(x.index, y.index);
    }
    case ExprKind::kQuantified: {
      const auto& x = a.As<QuantifiedExpr>();
      const auto& y = b.As<QuantifiedExpr>();
      return x.op == y.op && x.all == y.all && EqualPtr(x.operand, y.operand) &&
             EqualPtr(x.array, y.array) && EqualPtr(x.query, y.query);
    }
    case ExprKind::kArraySubquery:
      return EqualPtr(a.As<ArraySubqueryExpr>().query, b.As<ArraySubqueryExpr>().query);
    case ExprKind::kField: {
      const auto& x = a.As<FieldExpr>();
      const auto& y = b.As<FieldExpr>();
      return x.field == y.field && EqualPtr(x.base, y.base);
    }
  }
  return false;
}

bool Equals(const TableRef& a, const TableRef& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case TableRefKind::kTable: {
      const auto& x = a.As<BaseTableRef>();
      const auto& y = b.As<BaseTableRef>();
      return x.name == y.name && EqualAlias(x.alias, y.alias);
    }
    case TableRefKind::kSubquery: {
      const auto& x = a.As<SubqueryRef>();
      const auto& y = b.As<SubqueryRef>();
      return x.lateral == y.lateral && EqualAlias(x.alias, y.alias) && EqualPtr(x.query, y.query);
    }
    case TableRefKind::kJoin: {
      const auto& x = a.As<JoinRef>();
      const auto& y = b.As<JoinRef>();
      return x.type == y.type && x.natural == y.natural && x.using_cols == y.using_cols &&
             EqualPtr(x.left, y.left) && EqualPtr(x.right, y.right) && EqualPtr(x.on, y.on);
    }
    case TableRefKind::kUnnest: {
      const auto& x = a.As<UnnestRef>();
      const auto& y = b.As<UnnestRef>();
      return x.with_ordinality == y.with_ordinality && EqualAlias(x.alias, y.alias) &&
             EqualExprs(x.args, y.args);
    }
    case TableRefKind::kFunction: {
      const auto& x = a.As<FunctionRef>();
      const auto& y = b.As<FunctionRef>();
      return x.name == y.name && EqualAlias(x.alias, y.alias) && EqualExprs(x.args, y.args);
    }
  }
  return false;
}

bool Equals(const QueryBody& a, const QueryBody& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case QueryBodyKind::kSelect: {
      const auto& x = a.As<SelectBody>();
      const auto& y = b.As<SelectBody>();
      if (x.quantifier != y.quantifier || x.items.size() != y.items.size()) return false;
      for (size_t i = 0; i < x.items.size(); ++i) {
        if (x.items[i].alias != y.items[i].alias || !EqualPtr(x.items[i].expr, y.items[i].expr)) {
          return false;
        }
      }
      return EqualPtr(x.from, y.from) && EqualPtr(x.where, y.where) &&
             EqualExprs(x.group_by, y.group_by) && EqualPtr(x.having, y.having);
    }
    case QueryBodyKind::kSetOperation: {
      const auto& x = a.As<SetOperationBody>();
      const auto& y = b.As<SetOperationBody>();
      return x.op == y.op && x.quantifier == y.quantifier && EqualPtr(x.left, y.left) &&
             EqualPtr(x.right, y.right);
    }
    case QueryBodyKind::kValues: {
      const auto& x = a.As<ValuesBody>();
      const auto& y = b.As<ValuesBody>();
      if (x.rows.size() != y.rows.size()) return false;
      for (size_t i = 0; i < x.rows.size(); ++i) {
        if (!EqualExprs(x.rows[i], y.rows[i])) return false;
      }
      return true;
    }
    case QueryBodyKind::kQuery:
      return EqualPtr(a.As<NestedQueryBody>().query, b.As<NestedQueryBody>().query);
  }
  return false;
}

bool Equals(const Query& a, const Query& b) {
  if (a.recursive != b.recursive || a.with.size() != b.with.size()) return false;
  for (size_t i = 0; i < a.with.size(); ++i) {
    if (!(a.with[i].name == b.with[i].name) || a.with[i].columns != b.with[i].columns ||
        !EqualPtr(a.with[i].query, b.with[i].query)) {
      return false;
    }
  }
  return EqualPtr(a.body, b.body) && EqualOrder(a.order_by, b.order_by) &&
         EqualPtr(a.limit, b.limit) && EqualPtr(a.offset, b.offset);
}

namespace {

bool EqualColumns(const std::vector<ColumnDef>& a, const std::vector<ColumnDef>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto& x = a[i];
    const auto& y = b[i];
    if (!(x.name == y.name) || x.type != y.type || x.value_kind != y.value_kind ||
        x.generated_always != y.generated_always || x.storage != y.storage ||
        x.primary_key != y.primary_key || x.not_enforced != y.not_enforced ||
        !EqualPtr(x.value, y.value)) {
      return false;
    }
  }
  return true;
}

bool EqualConstraints(const std::vector<TableConstraint>& a,
                      const std::vector<TableConstraint>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto& x = a[i];
    const auto& y = b[i];
    if (x.name != y.name || x.kind != y.kind || x.columns != y.columns ||
        x.not_enforced != y.not_enforced || !EqualPtr(x.check, y.check)) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool Equals(const Statement& a, const Statement& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case StatementKind::kQuery:
      return EqualPtr(a.As<QueryStatement>().query, b.As<QueryStatement>().query);
    case StatementKind::kInsert: {
      const auto& x = a.As<InsertStatement>();
      const auto& y = b.As<InsertStatement>();
      return x.target == y.target && x.columns == y.columns && EqualPtr(x.query, y.query) &&
             x.conflict_columns == y.conflict_columns;
    }
    case StatementKind::kCreateTable: {
      const auto& x = a.As<CreateTableStatement>();
      const auto& y = b.As<CreateTableStatement>();
      if (x.like.has_value() != y.like.has_value()) return false;
      if (x.like && (!(x.like->source == y.like->source) || x.like->options != y.like->options)) {
        return false;
      }
      return x.or_replace == y.or_replace && x.if_not_exists == y.if_not_exists &&
             x.temporary == y.temporary && x.name == y.name && EqualColumns(x.columns, y.columns) &&
             EqualConstraints(x.constraints, y.constraints) && x.options == y.options &&
             EqualPtr(x.as_query, y.as_query);
    }
    case StatementKind::kCreateView: {
      const auto& x = a.As<CreateViewStatement>();
      const auto& y = b.As<CreateViewStatement>();
      return x.or_replace == y.or_replace && x.if_not_exists == y.if_not_exists &&
             x.name == y.name && x.columns == y.columns && x.options == y.options &&
             EqualPtr(x.query, y.query);
    }
    case StatementKind::kCreateMaterializedView: {
      const auto& x = a.As<CreateMaterializedViewStatement>();
      const auto& y = b.As<CreateMaterializedViewStatement>();
      return x.or_replace == y.or_replace && x.if_not_exists == y.if_not_exists &&
             x.name == y.name && x.columns == y.columns &&
             x.refresh_schedule == y.refresh_schedule && x.options == y.options &&
             EqualPtr(x.query, y.query);
    }
    case StatementKind::kCreateTrigger: {
      const auto& x = a.As<CreateTriggerStatement>();
      const auto& y = b.As<CreateTriggerStatement>();
      return x.or_replace == y.or_replace && x.if_not_exists == y.if_not_exists &&
             x.name == y.name && x.target == y.target && x.job_template == y.job_template &&
             x.job_namespace == y.job_namespace && x.schedule == y.schedule &&
             x.options == y.options;
    }
    case StatementKind::kCreateDatabase: {
      const auto& x = a.As<CreateDatabaseStatement>();
      const auto& y = b.As<CreateDatabaseStatement>();
      return x.or_replace == y.or_replace && x.if_not_exists == y.if_not_exists &&
             x.name == y.name && x.options == y.options;
    }
    case StatementKind::kCreateCatalog: {
      const auto& x = a.As<CreateCatalogStatement>();
      const auto& y = b.As<CreateCatalogStatement>();
      return x.or_replace == y.or_replace && x.if_not_exists == y.if_not_exists &&
             x.name == y.name && x.options == y.options;
    }
    case StatementKind::kCreateFunction: {
      const auto& x = a.As<CreateFunctionStatement>();
      const auto& y = b.As<CreateFunctionStatement>();
      return x.or_replace == y.or_replace && x.if_not_exists == y.if_not_exists &&
             x.name == y.name && x.returns == y.returns && x.language == y.language &&
             x.definition == y.definition && x.in == y.in && x.resources == y.resources &&
             x.options == y.options;
    }
    case StatementKind::kDrop: {
      const auto& x = a.As<DropStatement>();
      const auto& y = b.As<DropStatement>();
      return x.object == y.object && x.if_exists == y.if_exists && x.name == y.name;
    }
    case StatementKind::kRefresh:
      return a.As<RefreshStatement>().name == b.As<RefreshStatement>().name;
    case StatementKind::kDelete:
      return a.As<DeleteStatement>().target == b.As<DeleteStatement>().target;
    case StatementKind::kCopyFromStdin: {
      const auto& x = a.As<CopyFromStdinStatement>();
      const auto& y = b.As<CopyFromStdinStatement>();
      return x.target == y.target && x.columns == y.columns;
    }
    case StatementKind::kFire: {
      const auto& x = a.As<FireStatement>();
      const auto& y = b.As<FireStatement>();
      return x.object == y.object && x.name == y.name && x.retry == y.retry &&
             x.options == y.options && x.watermark == y.watermark;
    }
    case StatementKind::kPause:
    case StatementKind::kResume: {
      const auto& x = a.As<PauseStatement>();
      const auto& y = b.As<PauseStatement>();
      return x.object == y.object && x.name == y.name;
    }
    case StatementKind::kSet: {
      const auto& x = a.As<SetStatement>();
      const auto& y = b.As<SetStatement>();
      // A setting's value is a string however it was spelled; only DEFAULT is different.
      return x.name == y.name && x.value == y.value &&
             (x.value_kind == SettingValueKind::kDefault) ==
                 (y.value_kind == SettingValueKind::kDefault);
    }
    case StatementKind::kReset: return a.As<ResetStatement>().name == b.As<ResetStatement>().name;
    case StatementKind::kShow: return a.As<ShowStatement>().name == b.As<ShowStatement>().name;
    case StatementKind::kExplain:
    case StatementKind::kSpecify:
    case StatementKind::kPipeline:
      return Equals(*a.As<InspectStatement>().statement, *b.As<InspectStatement>().statement);
    case StatementKind::kDescribe:
    case StatementKind::kResolve:
      return a.As<InspectStatement>().name == b.As<InspectStatement>().name;
    case StatementKind::kGraph: {
      const auto& x = a.As<InspectStatement>();
      const auto& y = b.As<InspectStatement>();
      return x.name == y.name && x.depth == y.depth && x.format == y.format;
    }
  }
  return false;
}

}  // namespace hop::sql
