#include "binder/bound.h"

#include <fmt/format.h>

#include "binder/functions.h"
#include "binder/types.h"
#include "sql/unparser.h"

namespace hop::binder {

bool SameScalar(const Scalar& a, const Scalar& b) {
  if (&a == &b) return true;
  if (a.kind != b.kind || a.index != b.index || a.text != b.text || a.literal != b.literal ||
      a.unary_op != b.unary_op || a.binary_op != b.binary_op || a.is_test != b.is_test ||
      a.negated != b.negated || a.symmetric != b.symmetric || a.all != b.all ||
      a.order_in_call != b.order_in_call || a.has_else != b.has_else || a.distinct != b.distinct ||
      a.star != b.star || a.function != b.function || a.query != b.query || a.window != b.window ||
      a.args.size() != b.args.size() || !(a.type == b.type)) {
    return false;
  }
  if (a.kind == ScalarKind::kLiteral &&
      (a.interval.from != b.interval.from || a.interval.to != b.interval.to ||
       a.interval.from_precision != b.interval.from_precision ||
       a.interval.to_precision != b.interval.to_precision)) {
    return false;
  }
  if ((a.filter == nullptr) != (b.filter == nullptr) ||
      (a.filter && !SameScalar(*a.filter, *b.filter)) ||
      a.within_group.size() != b.within_group.size()) {
    return false;
  }
  for (size_t i = 0; i < a.within_group.size(); ++i) {
    if (a.within_group[i].direction != b.within_group[i].direction ||
        a.within_group[i].nulls != b.within_group[i].nulls ||
        !SameScalar(*a.within_group[i].expr, *b.within_group[i].expr)) {
      return false;
    }
  }
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (!a.args[i] || !b.args[i]) {
      if (a.args[i] != b.args[i]) return false;
      continue;
    }
    if (!SameScalar(*a.args[i], *b.args[i])) return false;
  }
  return true;
}

std::string_view BinaryOpText(sql::BinaryOp op) {
  switch (op) {
    case sql::BinaryOp::kOr: return "OR";
    case sql::BinaryOp::kAnd: return "AND";
    case sql::BinaryOp::kEq: return "=";
    case sql::BinaryOp::kNe: return "<>";
    case sql::BinaryOp::kLt: return "<";
    case sql::BinaryOp::kLe: return "<=";
    case sql::BinaryOp::kGt: return ">";
    case sql::BinaryOp::kGe: return ">=";
    case sql::BinaryOp::kIsDistinctFrom: return "IS DISTINCT FROM";
    case sql::BinaryOp::kIsNotDistinctFrom: return "IS NOT DISTINCT FROM";
    case sql::BinaryOp::kConcat: return "||";
    case sql::BinaryOp::kAdd: return "+";
    case sql::BinaryOp::kSubtract: return "-";
    case sql::BinaryOp::kMultiply: return "*";
    case sql::BinaryOp::kDivide: return "/";
    case sql::BinaryOp::kModulo: return "%";
    case sql::BinaryOp::kRegexMatch: return "~";
    case sql::BinaryOp::kRegexMatchIgnoreCase: return "~*";
    case sql::BinaryOp::kRegexNoMatch: return "!~";
    case sql::BinaryOp::kRegexNoMatchIgnoreCase: return "!~*";
  }
  return "?";
}

ScalarPtr SubstituteInputs(const ScalarPtr& s, const std::vector<ScalarPtr>& exprs) {
  if (!s) return s;
  if (s->kind == ScalarKind::kInputRef) return exprs[s->index];
  if (s->args.empty() && !s->window && !s->filter && s->within_group.empty()) return s;
  Scalar copy = *s;
  for (auto& a : copy.args) a = SubstituteInputs(a, exprs);
  copy.filter = SubstituteInputs(s->filter, exprs);
  for (auto& k : copy.within_group) k.expr = SubstituteInputs(k.expr, exprs);
  if (s->window) {
    auto w = std::make_shared<Window>(*s->window);
    for (auto& p : w->partition_by) p = SubstituteInputs(p, exprs);
    for (auto& k : w->order_by) k.expr = SubstituteInputs(k.expr, exprs);
    copy.window = std::move(w);
  }
  return std::make_shared<Scalar>(std::move(copy));
}

ScalarPtr InputRef(int index, sql::DataType type) {
  auto s = std::make_shared<Scalar>();
  s->kind = ScalarKind::kInputRef;
  s->index = index;
  s->type = std::move(type);
  return s;
}

namespace {

std::string Args(const Scalar& s, size_t from = 0) {
  std::string out;
  for (size_t i = from; i < s.args.size(); ++i) {
    if (i > from) out += ", ";
    out += s.args[i] ? ExplainScalar(*s.args[i]) : "?";
  }
  return out;
}

void ExplainInto(const Rel& rel, int depth, std::string& out) {
  out.append(static_cast<size_t>(depth) * 2, ' ');
  auto names = [&](const std::vector<ScalarPtr>& exprs) {
    std::string s;
    for (size_t i = 0; i < exprs.size(); ++i) {
      if (i > 0) s += ", ";
      s += rel.row_type.columns[i].name + "=" + ExplainScalar(*exprs[i]);
    }
    return s;
  };
  switch (rel.kind) {
    case RelKind::kScan: {
      std::string path;
      for (size_t i = 0; i < rel.path.size(); ++i) path += (i ? "." : "") + rel.path[i];
      out += fmt::format("Scan({})", path);
      break;
    }
    case RelKind::kValues: out += fmt::format("Values({} rows)", rel.rows.size()); break;
    case RelKind::kFilter: out += "Filter(" + ExplainScalar(*rel.condition) + ")"; break;
    case RelKind::kProject: out += "Project(" + names(rel.exprs) + ")"; break;
    case RelKind::kJoin: {
      static constexpr std::string_view kTypes[] = {"INNER", "LEFT",  "RIGHT",
                                                    "FULL",  "CROSS", "COMMA"};
      out += fmt::format("Join({}{})", kTypes[static_cast<int>(rel.join_type)],
                         rel.condition ? ", " + ExplainScalar(*rel.condition) : "");
      break;
    }
    case RelKind::kAggregate: {
      std::string s = "Aggregate(group={";
      for (size_t i = 0; i < rel.group.size(); ++i)
        s += fmt::format("{}${}", i ? ", " : "", rel.group[i]);
      s += "}";
      for (const auto& a : rel.aggregates) {
        s += fmt::format(", {}({}", a.name, a.distinct ? "DISTINCT " : "");
        if (a.star) s += "*";
        for (size_t i = 0; i < a.args.size(); ++i)
          s += fmt::format("{}${}", i ? ", " : "", a.args[i]);
        s += ")";
      }
      out += s + ")";
      break;
    }
    case RelKind::kSort: {
      std::string s = "Sort(";
      for (size_t i = 0; i < rel.keys.size(); ++i) {
        s += fmt::format("{}${}{}", i ? ", " : "", rel.keys[i].column,
                         rel.keys[i].direction == sql::SortDirection::kDesc ? " DESC" : "");
      }
      if (rel.offset) s += " offset=" + ExplainScalar(*rel.offset);
      if (rel.fetch) s += " fetch=" + ExplainScalar(*rel.fetch);
      out += s + ")";
      break;
    }
    case RelKind::kSetOp: {
      static constexpr std::string_view kOps[] = {"UNION", "INTERSECT", "EXCEPT"};
      out += fmt::format("{}{}", kOps[static_cast<int>(rel.set_op)], rel.all ? " ALL" : "");
      break;
    }
    case RelKind::kUnnest:
      out += "Unnest(" + names(rel.exprs) + (rel.with_ordinality ? ", ORDINALITY)" : ")");
      break;
  }
  out += '\n';
  for (const auto& input : rel.inputs) ExplainInto(*input, depth + 1, out);
}

void ScansInto(const Rel& rel, std::vector<const Rel*>& out);

// Tables read by subqueries inside expressions.
void ScalarScansInto(const ScalarPtr& s, std::vector<const Rel*>& out) {
  if (!s) return;
  if (s->query) ScansInto(*s->query, out);
  for (const auto& a : s->args) ScalarScansInto(a, out);
}

void ScansInto(const Rel& rel, std::vector<const Rel*>& out) {
  if (rel.kind == RelKind::kScan) out.push_back(&rel);
  // Left to right as SQL reads: the FROM inputs, then expressions of this node.
  for (const auto& input : rel.inputs) ScansInto(*input, out);
  ScalarScansInto(rel.condition, out);
  for (const auto& e : rel.exprs) ScalarScansInto(e, out);
}

}  // namespace

std::string ExplainScalar(const Scalar& s) {
  switch (s.kind) {
    case ScalarKind::kInputRef: return fmt::format("${}", s.index);
    case ScalarKind::kLiteral:
      if (s.literal == sql::LiteralKind::kNull) return "NULL";
      if (s.literal == sql::LiteralKind::kString) return "'" + s.text + "'";
      return s.text;
    case ScalarKind::kUnary:
      return fmt::format("{}({})", s.unary_op == sql::UnaryOp::kNot ? "NOT" : "-", Args(s));
    case ScalarKind::kBinary:
      return fmt::format("{} {} {}", ExplainScalar(*s.args[0]), BinaryOpText(s.binary_op),
                         ExplainScalar(*s.args[1]));
    case ScalarKind::kIs: {
      static constexpr std::string_view kTests[] = {"NULL", "TRUE", "FALSE", "UNKNOWN"};
      return fmt::format("{} IS {}{}", ExplainScalar(*s.args[0]), s.negated ? "NOT " : "",
                         kTests[static_cast<int>(s.is_test)]);
    }
    case ScalarKind::kBetween:
      return fmt::format("BETWEEN{}({})", s.symmetric ? " SYMMETRIC" : "", Args(s));
    case ScalarKind::kInList:
      return fmt::format("{} {}IN ({})", ExplainScalar(*s.args[0]), s.negated ? "NOT " : "",
                         Args(s, 1));
    case ScalarKind::kLike: return fmt::format("{}LIKE({})", s.negated ? "NOT " : "", Args(s));
    case ScalarKind::kCase: return fmt::format("CASE({})", Args(s));
    case ScalarKind::kCast:
      return fmt::format("CAST({} AS {})", ExplainScalar(*s.args[0]), sql::TypeString(s.type));
    case ScalarKind::kCall: return fmt::format("{}({}{})", s.text, s.star ? "*" : "", Args(s));
    case ScalarKind::kExtract:
      return fmt::format("EXTRACT({} FROM {})", s.text, ExplainScalar(*s.args[0]));
    case ScalarKind::kJsonObject: return fmt::format("JSON_OBJECT({})", Args(s));
    case ScalarKind::kArray: return fmt::format("ARRAY[{}]", Args(s));
    case ScalarKind::kMap: return fmt::format("MAP[{}]", Args(s));
    case ScalarKind::kRow: return fmt::format("ROW({})", Args(s));
    case ScalarKind::kItem:
      return fmt::format("{}[{}]", ExplainScalar(*s.args[0]), ExplainScalar(*s.args[1]));
    case ScalarKind::kField: return fmt::format("{}.{}", ExplainScalar(*s.args[0]), s.text);
    case ScalarKind::kSubquery: return "$SCALAR_QUERY";  // the plan of the query is not shown
    case ScalarKind::kExists: return "EXISTS($QUERY)";
    case ScalarKind::kInSubquery:
      return fmt::format("{} {}IN ($QUERY)", ExplainScalar(*s.args[0]), s.negated ? "NOT " : "");
    case ScalarKind::kQuantified:
      return fmt::format("{} {} {}($QUERY)", ExplainScalar(*s.args[0]), BinaryOpText(s.binary_op),
                         s.all ? "ALL" : "ANY");
    case ScalarKind::kParameter: return fmt::format("?{}", s.index);
    case ScalarKind::kOuterRef: return fmt::format("$outer.{}", s.index);
  }
  return "?";
}

std::string Explain(const Rel& rel) {
  std::string out;
  ExplainInto(rel, 0, out);
  return out;
}

std::vector<const Rel*> Scans(const Rel& rel) {
  std::vector<const Rel*> out;
  ScansInto(rel, out);
  return out;
}

}  // namespace hop::binder
