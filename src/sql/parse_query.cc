// Query parsing: WITH, set operations (INTERSECT binds tighter than UNION and EXCEPT), SELECT,
// VALUES, FROM with joins, subqueries and UNNEST, ORDER BY, LIMIT / OFFSET / FETCH.
#include "common/strings.h"
#include "sql/parser_impl.h"

namespace hop::sql::internal {
namespace {

template <typename T>
std::unique_ptr<T> Make(const Token& at) {
  auto node = std::make_unique<T>();
  node->loc = at.loc;
  return node;
}

bool SetOperator(const Token& t, SetOpKind* op, int* prec) {
  if (t.type != TokenType::kWord) return false;
  switch (t.keyword) {
    case Keyword::kUNION:
      *op = SetOpKind::kUnion;
      *prec = 1;
      return true;
    case Keyword::kEXCEPT:
      *op = SetOpKind::kExcept;
      *prec = 1;
      return true;
    case Keyword::kINTERSECT:
      *op = SetOpKind::kIntersect;
      *prec = 2;
      return true;
    default: return false;
  }
}

}  // namespace

std::unique_ptr<Query> Parser::ParseQuery() {
  const size_t start = pos_;
  if (start < query_failed_at_.size() && query_failed_at_[start]) {
    NoteExpectedKeyword(Keyword::kSELECT);
    return nullptr;
  }
  std::unique_ptr<Query> q = ParseQueryAt();
  if (!q && !failed_hard()) {
    if (query_failed_at_.empty()) query_failed_at_.resize(tokens_.size());
    query_failed_at_[start] = true;
  }
  return q;
}

std::unique_ptr<Query> Parser::ParseQueryAt() {
  DepthGuard guard(this);
  if (!guard.ok()) return nullptr;
  const Token& start = Peek();
  auto q = std::make_unique<Query>();
  q->loc = start.loc;
  if (AcceptKeyword(Keyword::kWITH)) {
    q->recursive = AcceptKeyword(Keyword::kRECURSIVE);
    do {
      CommonTableExpr cte;
      auto name = ParseIdentifier();
      if (!name) return nullptr;
      cte.name = std::move(*name);
      if (PeekType(TokenType::kLParen) && !ParseIdentifierList(&cte.columns)) return nullptr;
      if (!ExpectKeyword(Keyword::kAS) || !ExpectType(TokenType::kLParen)) return nullptr;
      cte.query = ParseQuery();
      if (!cte.query || !ExpectType(TokenType::kRParen)) return nullptr;
      q->with.push_back(std::move(cte));
    } while (AcceptType(TokenType::kComma));
  }
  q->body = ParseSetOperation(0);
  if (!q->body) return nullptr;
  if (AcceptKeyword(Keyword::kORDER)) {
    if (!ExpectKeyword(Keyword::kBY) || !ParseOrderItems(&q->order_by)) return nullptr;
  }
  if (!ParseLimitOffset(q.get())) return nullptr;
  return q;
}

ExprPtr Parser::ParseRowCount() {
  // Calcite and the SQL standard take a literal or a parameter here, not an expression.
  if (PeekType(TokenType::kInteger) || PeekType(TokenType::kParameter)) return ParsePrimary();
  NoteExpectedType(TokenType::kInteger);
  NoteExpectedType(TokenType::kParameter);
  return nullptr;
}

bool Parser::ParseLimitOffset(Query* q) {
  while (true) {
    if (!q->limit && AcceptKeyword(Keyword::kLIMIT)) {
      q->limit = ParseRowCount();
      if (!q->limit) return false;
      // MySQL's `LIMIT offset, count` is not accepted: it reads differently in every dialect.
      continue;
    }
    if (!q->offset && AcceptKeyword(Keyword::kOFFSET)) {
      q->offset = ParseRowCount();
      if (!q->offset) return false;
      if (!AcceptKeyword(Keyword::kROWS)) AcceptKeyword(Keyword::kROW);
      continue;
    }
    if (!q->limit && AcceptKeyword(Keyword::kFETCH)) {
      if (!AcceptKeyword(Keyword::kFIRST) && !ExpectKeyword(Keyword::kNEXT)) return false;
      if (PeekKeyword(Keyword::kROW) || PeekKeyword(Keyword::kROWS)) {
        auto one = Make<LiteralExpr>(Peek());
        one->literal = LiteralKind::kInteger;
        one->value = "1";
        q->limit = std::move(one);
      } else {
        q->limit = ParseRowCount();
        if (!q->limit) return false;
      }
      if (!AcceptKeyword(Keyword::kROWS) && !ExpectKeyword(Keyword::kROW)) return false;
      if (!ExpectKeyword(Keyword::kONLY)) return false;
      continue;
    }
    return true;
  }
}

QueryBodyPtr Parser::ParseSetOperation(int min_prec) {
  DepthGuard guard(this);
  if (!guard.ok()) return nullptr;
  QueryBodyPtr left = ParseQueryPrimary();
  if (!left) return nullptr;
  while (true) {
    const Token& t = Peek();
    SetOpKind op;
    int prec;
    if (!SetOperator(t, &op, &prec)) {
      NoteExpectedKeyword(Keyword::kUNION);
      NoteExpectedKeyword(Keyword::kINTERSECT);
      NoteExpectedKeyword(Keyword::kEXCEPT);
      break;
    }
    if (prec < min_prec) break;
    if (!guard.Deepen()) return nullptr;
    ++pos_;
    auto node = Make<SetOperationBody>(t);
    node->op = op;
    if (AcceptKeyword(Keyword::kALL)) {
      node->quantifier = SetQuantifier::kAll;
    } else if (AcceptKeyword(Keyword::kDISTINCT)) {
      node->quantifier = SetQuantifier::kDistinct;
    }
    node->left = std::move(left);
    node->right = ParseSetOperation(prec + 1);
    if (!node->right) return nullptr;
    left = std::move(node);
  }
  return left;
}

QueryBodyPtr Parser::ParseQueryPrimary() {
  const Token& t = Peek();
  if (PeekKeyword(Keyword::kSELECT)) return ParseSelect();
  if (PeekKeyword(Keyword::kVALUES)) return ParseValues();
  if (PeekType(TokenType::kLParen)) {
    ++pos_;
    std::unique_ptr<Query> inner = ParseQuery();
    if (!inner || !ExpectType(TokenType::kRParen)) return nullptr;
    // Parentheses around a plain body carry no meaning; keep them only when the inner query has
    // clauses of its own.
    if (inner->with.empty() && inner->order_by.empty() && !inner->limit && !inner->offset) {
      return std::move(inner->body);
    }
    auto nested = Make<NestedQueryBody>(t);
    nested->query = std::move(inner);
    return nested;
  }
  NoteExpectedKeyword(Keyword::kSELECT);
  NoteExpectedKeyword(Keyword::kVALUES);
  NoteExpectedType(TokenType::kLParen);
  return nullptr;
}

QueryBodyPtr Parser::ParseValues() {
  const Token& t = Peek();
  ++pos_;
  auto body = Make<ValuesBody>(t);
  do {
    std::vector<ExprPtr> row;
    if (PeekType(TokenType::kLParen) && !PeekQueryStart(1)) {
      ++pos_;
      if (!ParseExprList(TokenType::kRParen, &row, /*allow_empty=*/false)) return nullptr;
    } else {
      ExprPtr e = ParseExpr();
      if (!e) return nullptr;
      row.push_back(std::move(e));
    }
    body->rows.push_back(std::move(row));
  } while (AcceptType(TokenType::kComma));
  return body;
}

bool Parser::ParseSelectItem(SelectItem* out) {
  const Token& t = Peek();
  if (t.type == TokenType::kStar) {
    ++pos_;
    out->expr = Make<StarExpr>(t);
    return true;
  }
  out->expr = ParseExpr();
  if (!out->expr) return false;
  if (out->expr->kind == ExprKind::kStar) return true;
  if (AcceptKeyword(Keyword::kAS)) {
    auto alias = ParseIdentifier();
    if (!alias) return false;
    out->alias = std::move(alias);
  } else if (PeekIdentifier()) {
    out->alias = ParseIdentifier();
    if (!out->alias) return false;
  } else {
    NoteExpectedType(TokenType::kWord);
  }
  return true;
}

QueryBodyPtr Parser::ParseSelect() {
  const Token& t = Peek();
  ++pos_;
  auto body = Make<SelectBody>(t);
  if (AcceptKeyword(Keyword::kDISTINCT)) {
    body->quantifier = SetQuantifier::kDistinct;
  } else if (AcceptKeyword(Keyword::kALL)) {
    body->quantifier = SetQuantifier::kAll;
  }
  body->items.reserve(4);
  do {
    SelectItem item;
    if (!ParseSelectItem(&item)) return nullptr;
    body->items.push_back(std::move(item));
  } while (AcceptType(TokenType::kComma));
  if (AcceptKeyword(Keyword::kFROM)) {
    body->from = ParseFrom();
    if (!body->from) return nullptr;
  }
  if (AcceptKeyword(Keyword::kWHERE)) {
    body->where = ParseExpr();
    if (!body->where) return nullptr;
  }
  if (AcceptKeyword(Keyword::kGROUP)) {
    if (!ExpectKeyword(Keyword::kBY)) return nullptr;
    do {
      ExprPtr e = ParseExpr();
      if (!e) return nullptr;
      body->group_by.push_back(std::move(e));
    } while (AcceptType(TokenType::kComma));
  }
  if (AcceptKeyword(Keyword::kHAVING)) {
    body->having = ParseExpr();
    if (!body->having) return nullptr;
  }
  return body;
}

bool Parser::ParseTableAlias(std::optional<TableAlias>* out) {
  std::optional<Identifier> name;
  if (AcceptKeyword(Keyword::kAS)) {
    name = ParseIdentifier();
    if (!name) return false;
  } else if (PeekIdentifier()) {
    name = ParseIdentifier();
    if (!name) return false;
  } else {
    NoteExpectedType(TokenType::kWord);
    return true;
  }
  TableAlias alias;
  alias.name = std::move(*name);
  if (PeekType(TokenType::kLParen) && !ParseIdentifierList(&alias.columns)) return false;
  *out = std::move(alias);
  return true;
}

bool Parser::ParseJoinType(JoinType* type, bool* natural) {
  const size_t save = pos_;
  *natural = AcceptKeyword(Keyword::kNATURAL);
  if (!*natural && AcceptKeyword(Keyword::kCROSS)) {
    *type = JoinType::kCross;
    if (ExpectKeyword(Keyword::kJOIN)) return true;
    pos_ = save;
    return false;
  }
  if (AcceptKeyword(Keyword::kINNER)) {
    *type = JoinType::kInner;
  } else if (AcceptKeyword(Keyword::kLEFT)) {
    *type = JoinType::kLeft;
    AcceptKeyword(Keyword::kOUTER);
  } else if (AcceptKeyword(Keyword::kRIGHT)) {
    *type = JoinType::kRight;
    AcceptKeyword(Keyword::kOUTER);
  } else if (AcceptKeyword(Keyword::kFULL)) {
    *type = JoinType::kFull;
    AcceptKeyword(Keyword::kOUTER);
  } else {
    *type = JoinType::kInner;
  }
  if (AcceptKeyword(Keyword::kJOIN)) return true;
  pos_ = save;
  return false;
}

TableRefPtr Parser::ParseFrom() {
  DepthGuard guard(this);
  if (!guard.ok()) return nullptr;
  TableRefPtr left = ParseTablePrimary();
  if (!left) return nullptr;
  while (true) {
    const Token& t = Peek();
    auto join = Make<JoinRef>(t);
    if (AcceptType(TokenType::kComma)) {
      join->type = JoinType::kComma;
    } else if (!ParseJoinType(&join->type, &join->natural)) {
      break;
    }
    if (!guard.Deepen()) return nullptr;
    join->left = std::move(left);
    join->right = ParseTablePrimary();
    if (!join->right) return nullptr;
    const bool needs_condition =
        !join->natural && join->type != JoinType::kCross && join->type != JoinType::kComma;
    if (needs_condition) {
      if (AcceptKeyword(Keyword::kON)) {
        join->on = ParseExpr();
        if (!join->on) return nullptr;
      } else if (AcceptKeyword(Keyword::kUSING)) {
        if (!ParseIdentifierList(&join->using_cols)) return nullptr;
      } else {
        return nullptr;
      }
    }
    left = std::move(join);
  }
  return left;
}

TableRefPtr Parser::ParseTablePrimary() {
  DepthGuard guard(this);
  if (!guard.ok()) return nullptr;
  const Token& t = Peek();
  const bool lateral = AcceptKeyword(Keyword::kLATERAL);
  if (PeekType(TokenType::kLParen)) {
    // A derived table `(query) alias`, or a parenthesised join `(a JOIN b ON ...)`. Look past
    // the opening parentheses to pick the likelier reading first; if it fails, try the other.
    // The furthest failure of either attempt is what an error message reports.
    const Snapshot save = Save();
    size_t k = 0;
    while (PeekType(TokenType::kLParen, k)) ++k;
    if (lateral || PeekQueryStart(k)) {
      ++pos_;
      auto sub = Make<SubqueryRef>(t);
      sub->lateral = lateral;
      sub->query = ParseQuery();
      if (sub->query && AcceptType(TokenType::kRParen)) {
        if (!ParseTableAlias(&sub->alias)) return nullptr;
        return sub;
      }
      if (failed_hard() || lateral) return nullptr;
    }
    Restore(save);
    ++pos_;
    if (lateral) return nullptr;
    TableRefPtr inner = ParseFrom();
    if (!inner || !ExpectType(TokenType::kRParen)) return nullptr;
    if (PeekKeyword(Keyword::kAS) || PeekIdentifier()) {
      // An alias on a parenthesised join is not standard SQL; a derived table needs a query.
      NoteExpectedCategory(ExpectCategory::kEndOfStatement);
      Fail(Peek(), "a parenthesised table reference cannot take an alias");
      return nullptr;
    }
    return inner;
  }
  // PostgreSQL's `pg_catalog.unnest(a)` is UNNEST.
  if (!lateral && PeekType(TokenType::kWord) && PeekType(TokenType::kDot, 1) &&
      PeekKeyword(Keyword::kUNNEST, 2) && AsciiToLower(TokenText(Peek())) == "pg_catalog") {
    pos_ += 2;
  }
  if (!lateral && AcceptKeyword(Keyword::kUNNEST)) {
    auto un = Make<UnnestRef>(t);
    if (!ExpectType(TokenType::kLParen)) return nullptr;
    if (PeekQueryStart()) {
      // UNNEST(SELECT ...): the argument is a query without its own parentheses.
      auto sub = Make<SubqueryExpr>(Peek());
      sub->query = ParseQuery();
      if (!sub->query || !ExpectType(TokenType::kRParen)) return nullptr;
      un->args.push_back(std::move(sub));
    } else if (!ParseExprList(TokenType::kRParen, &un->args, /*allow_empty=*/false)) {
      return nullptr;
    }
    if (AcceptKeyword(Keyword::kWITH)) {
      if (!ExpectKeyword(Keyword::kORDINALITY)) return nullptr;
      un->with_ordinality = true;
    }
    if (!ParseTableAlias(&un->alias)) return nullptr;
    return un;
  }
  if (lateral) {
    NoteExpectedType(TokenType::kLParen);  // LATERAL applies to a derived table
    return nullptr;
  }
  auto table = Make<BaseTableRef>(t);
  if (!ParseQualifiedName(&table->name)) {
    NoteExpectedType(TokenType::kLParen);
    NoteExpectedKeyword(Keyword::kUNNEST);
    NoteExpectedKeyword(Keyword::kLATERAL);
    return nullptr;
  }
  if (PeekType(TokenType::kLParen)) return ParseFunctionRef(std::move(table->name), t);
  if (!ParseTableAlias(&table->alias)) return nullptr;
  return table;
}

TableRefPtr Parser::ParseFunctionRef(QualifiedName name, const Token& start) {
  ++pos_;  // (
  auto fn = Make<FunctionRef>(start);
  fn->name = std::move(name);
  if (!ParseExprList(TokenType::kRParen, &fn->args, /*allow_empty=*/true)) return nullptr;
  if (!ParseTableAlias(&fn->alias)) return nullptr;
  return fn;
}

}  // namespace hop::sql::internal
