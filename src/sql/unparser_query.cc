// Printing queries: WITH, set operations (parenthesised by precedence, or refused where SQLite
// would group them otherwise), SELECT, VALUES, FROM items and joins, ORDER BY, and LIMIT /
// OFFSET (ANSI's OFFSET ... ROWS FETCH NEXT ... ROWS ONLY).
#include "sql/unparser_impl.h"

namespace hop::sql::internal {

namespace {

int SetOpPrecedence(const QueryBody& b) {
  if (b.kind != QueryBodyKind::kSetOperation) return 3;
  return b.As<SetOperationBody>().op == SetOpKind::kIntersect ? 2 : 1;
}

}  // namespace

void Writer::Alias(const std::optional<TableAlias>& alias) {
  if (!alias) return;
  Raw(" AS ");
  Ident(alias->name);
  if (!alias->columns.empty()) {
    if (sqlite()) Unsupported("column names in a table alias");
    Raw(" ");
    IdentList(alias->columns);
  }
}

void Writer::RenamedQuery(const sql::Query& q, const TableAlias& alias) {
  Raw("SELECT * FROM (");
  Query(q);
  Raw(")");
  Alias(alias);
}

void Writer::From(const TableRef& t) {
  switch (t.kind) {
    case TableRefKind::kTable: {
      const auto& b = t.As<BaseTableRef>();
      Name(b.name);
      Alias(b.alias);
      break;
    }
    case TableRefKind::kSubquery: {
      const auto& s = t.As<SubqueryRef>();
      if (s.lateral) {
        if (sqlite()) Unsupported("LATERAL");
        Raw("LATERAL ");
      }
      Raw("(");
      Query(*s.query);
      Raw(")");
      Alias(s.alias);
      break;
    }
    case TableRefKind::kJoin: {
      const auto& j = t.As<JoinRef>();
      // hop joins left to right, as Calcite does; PostgreSQL binds JOIN tighter than a comma, so
      // `a, b JOIN c` would mean `a, (b JOIN c)` there.
      if (postgres() && j.type != JoinType::kComma && j.left->kind == TableRefKind::kJoin &&
          j.left->As<JoinRef>().type == JoinType::kComma) {
        Unsupported("a comma join followed by JOIN");
      }
      From(*j.left);
      if (j.type == JoinType::kComma) {
        Raw(", ");
      } else {
        Raw(" ");
        if (j.natural) Raw("NATURAL ");
        switch (j.type) {
          case JoinType::kInner: Raw(j.natural ? "JOIN " : "INNER JOIN "); break;
          case JoinType::kLeft: Raw("LEFT JOIN "); break;
          case JoinType::kRight: Raw("RIGHT JOIN "); break;
          case JoinType::kFull: Raw("FULL JOIN "); break;
          case JoinType::kCross: Raw("CROSS JOIN "); break;
          case JoinType::kComma: break;
        }
      }
      if (j.right->kind == TableRefKind::kJoin) {
        Raw("(");
        From(*j.right);
        Raw(")");
      } else {
        From(*j.right);
      }
      if (j.on) {
        Raw(" ON ");
        Expr(*j.on);
      } else if (!j.using_cols.empty()) {
        Raw(" USING ");
        IdentList(j.using_cols);
      }
      break;
    }
    case TableRefKind::kUnnest: {
      const auto& u = t.As<UnnestRef>();
      if (sqlite()) Unsupported("UNNEST");
      Raw("UNNEST(");
      ExprList(u.args);
      Raw(")");
      if (u.with_ordinality) Raw(" WITH ORDINALITY");
      Alias(u.alias);
      break;
    }
    case TableRefKind::kFunction: {
      const auto& f = t.As<FunctionRef>();
      if (sqlite() || flink()) Unsupported("a function in FROM");
      Name(f.name);
      Raw("(");
      ExprList(f.args);
      Raw(")");
      Alias(f.alias);
      break;
    }
  }
}

void Writer::SetOperand(const QueryBody& b, int min_prec, bool right) {
  // SQLite gives every set operator one precedence, groups from the left and allows no
  // parenthesised operands: only left-deep chains are expressible.
  if (sqlite()) {
    // The operand must group in SQLite (left to right) as it does in hop (INTERSECT first).
    if (b.kind == QueryBodyKind::kSetOperation && (right || SetOpPrecedence(b) < min_prec)) {
      Unsupported("this nesting of set operations");
    }
    Body(b);
    return;
  }
  if (SetOpPrecedence(b) < min_prec) {
    Raw("(");
    Body(b);
    Raw(")");
  } else {
    Body(b);
  }
}

void Writer::Body(const QueryBody& b) {
  switch (b.kind) {
    case QueryBodyKind::kSelect: {
      const auto& s = b.As<SelectBody>();
      Raw("SELECT ");
      if (s.quantifier == SetQuantifier::kDistinct) Raw("DISTINCT ");
      if (s.quantifier == SetQuantifier::kAll) Raw("ALL ");
      for (size_t i = 0; i < s.items.size(); ++i) {
        if (i > 0) Raw(", ");
        Expr(*s.items[i].expr);
        if (s.items[i].alias) {
          Raw(" AS ");
          Ident(*s.items[i].alias);
        }
      }
      if (s.from) {
        Raw(" FROM ");
        From(*s.from);
      }
      if (s.where) {
        Raw(" WHERE ");
        Expr(*s.where);
      }
      if (!s.group_by.empty()) {
        Raw(" GROUP BY ");
        ExprList(s.group_by);
      }
      if (s.having) {
        Raw(" HAVING ");
        Expr(*s.having);
      }
      break;
    }
    case QueryBodyKind::kSetOperation: {
      const auto& s = b.As<SetOperationBody>();
      const int prec = SetOpPrecedence(b);
      SetOperand(*s.left, prec, /*right=*/false);
      switch (s.op) {
        case SetOpKind::kUnion: Raw(" UNION "); break;
        case SetOpKind::kIntersect: Raw(" INTERSECT "); break;
        case SetOpKind::kExcept: Raw(" EXCEPT "); break;
      }
      if (s.quantifier == SetQuantifier::kAll) Raw("ALL ");
      if (s.quantifier == SetQuantifier::kDistinct) Raw("DISTINCT ");
      SetOperand(*s.right, prec + 1, /*right=*/true);
      break;
    }
    case QueryBodyKind::kValues: {
      const auto& v = b.As<ValuesBody>();
      Raw("VALUES ");
      for (size_t i = 0; i < v.rows.size(); ++i) {
        if (i > 0) Raw(", ");
        Raw("(");
        ExprList(v.rows[i]);
        Raw(")");
      }
      break;
    }
    case QueryBodyKind::kQuery:
      if (sqlite()) Unsupported("a parenthesised query with its own ORDER BY or LIMIT");
      Raw("(");
      Query(*b.As<NestedQueryBody>().query);
      Raw(")");
      break;
  }
}

void Writer::Query(const sql::Query& q) {
  if (!q.with.empty()) {
    Raw(q.recursive ? "WITH RECURSIVE " : "WITH ");
    for (size_t i = 0; i < q.with.size(); ++i) {
      if (i > 0) Raw(", ");
      Ident(q.with[i].name);
      if (!q.with[i].columns.empty()) {
        Raw(" ");
        IdentList(q.with[i].columns);
      }
      Raw(" AS (");
      Query(*q.with[i].query);
      Raw(")");
    }
    Raw(" ");
  }
  Body(*q.body);
  if (!q.order_by.empty()) {
    Raw(" ORDER BY ");
    OrderItems(q.order_by);
  }
  if (ansi()) {
    if (q.offset) {
      Raw(" OFFSET ");
      Expr(*q.offset);
      Raw(" ROWS");
    }
    if (q.limit) {
      Raw(" FETCH NEXT ");
      Expr(*q.limit);
      Raw(" ROWS ONLY");
    }
  } else {
    if (q.limit) {
      Raw(" LIMIT ");
      Expr(*q.limit);
    } else if (q.offset && sqlite()) {
      Unsupported("OFFSET without LIMIT");
    }
    if (q.offset) {
      Raw(" OFFSET ");
      Expr(*q.offset);
    }
  }
}

}  // namespace hop::sql::internal
