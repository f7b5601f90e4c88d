#include "binder/prune_empty.h"

#include <string>
#include <unordered_map>

#include "common/strings.h"

namespace hop::binder {

namespace {

// ---- constant conditions ---------------------------------------------------------------------

Truth Not(Truth t) {
  switch (t) {
    case Truth::kTrue: return Truth::kFalse;
    case Truth::kFalse: return Truth::kTrue;
    default: return t;
  }
}

Truth And(Truth a, Truth b) {
  if (a == Truth::kFalse || b == Truth::kFalse) return Truth::kFalse;
  if (a == Truth::kUnknown || b == Truth::kUnknown) return Truth::kUnknown;
  if (a == Truth::kNull || b == Truth::kNull) return Truth::kNull;
  return Truth::kTrue;
}

Truth Or(Truth a, Truth b) {
  if (a == Truth::kTrue || b == Truth::kTrue) return Truth::kTrue;
  if (a == Truth::kUnknown || b == Truth::kUnknown) return Truth::kUnknown;
  if (a == Truth::kNull || b == Truth::kNull) return Truth::kNull;
  return Truth::kFalse;
}

Truth Of(bool b) { return b ? Truth::kTrue : Truth::kFalse; }

bool IsNullLiteral(const Scalar& s) {
  if (s.kind == ScalarKind::kLiteral) return s.literal == sql::LiteralKind::kNull;
  // CAST(NULL AS T) is NULL whatever T is.
  return s.kind == ScalarKind::kCast && s.args.size() == 1 && s.args[0] &&
         IsNullLiteral(*s.args[0]);
}

// An exact number: its sign, integer digits without leading zeros, fraction digits without
// trailing zeros (zero is "", "", not negative).
struct Exact {
  bool negative = false;
  std::string integer;
  std::string fraction;
};

std::optional<Exact> ExactOf(const Scalar& s) {
  if (s.kind == ScalarKind::kUnary && s.args.size() == 1 && s.args[0] &&
      (s.unary_op == sql::UnaryOp::kNegate || s.unary_op == sql::UnaryOp::kPlus)) {
    auto inner = ExactOf(*s.args[0]);
    if (inner && s.unary_op == sql::UnaryOp::kNegate &&
        !(inner->integer.empty() && inner->fraction.empty())) {
      inner->negative = !inner->negative;
    }
    return inner;
  }
  if (s.kind != ScalarKind::kLiteral ||
      (s.literal != sql::LiteralKind::kInteger && s.literal != sql::LiteralKind::kDecimal)) {
    return std::nullopt;
  }
  std::string_view text = s.text;
  Exact out;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    out.negative = text[0] == '-';
    text.remove_prefix(1);
  }
  const size_t point = text.find('.');
  std::string_view integer = text.substr(0, point);
  std::string_view fraction = point == std::string_view::npos ? "" : text.substr(point + 1);
  if (integer.empty() && fraction.empty()) return std::nullopt;
  for (std::string_view part : {integer, fraction}) {
    for (char c : part) {
      if (c < '0' || c > '9') return std::nullopt;
    }
  }
  while (!integer.empty() && integer.front() == '0') integer.remove_prefix(1);
  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  out.integer = std::string(integer);
  out.fraction = std::string(fraction);
  if (out.integer.empty() && out.fraction.empty()) out.negative = false;
  return out;
}

// <0, 0, >0 as a is less than, equal to or greater than b.
int Compare(const Exact& a, const Exact& b) {
  if (a.negative != b.negative) return a.negative ? -1 : 1;
  int magnitude = 0;
  if (a.integer.size() != b.integer.size()) {
    magnitude = a.integer.size() < b.integer.size() ? -1 : 1;
  } else if (int c = a.integer.compare(b.integer); c != 0) {
    magnitude = c < 0 ? -1 : 1;
  } else if (int f = a.fraction.compare(b.fraction); f != 0) {
    // Without trailing zeros, fractions compare as strings: "5" > "45", "45" > "4".
    magnitude = f < 0 ? -1 : 1;
  }
  return a.negative ? -magnitude : magnitude;
}

Truth Comparison(sql::BinaryOp op, const Scalar& left, const Scalar& right) {
  if (IsNullLiteral(left) || IsNullLiteral(right)) return Truth::kNull;
  auto a = ExactOf(left);
  auto b = ExactOf(right);
  if (a && b) {
    const int c = Compare(*a, *b);
    switch (op) {
      case sql::BinaryOp::kEq: return Of(c == 0);
      case sql::BinaryOp::kNe: return Of(c != 0);
      case sql::BinaryOp::kLt: return Of(c < 0);
      case sql::BinaryOp::kLe: return Of(c <= 0);
      case sql::BinaryOp::kGt: return Of(c > 0);
      case sql::BinaryOp::kGe: return Of(c >= 0);
      default: return Truth::kUnknown;
    }
  }
  if (left.kind == ScalarKind::kLiteral && right.kind == ScalarKind::kLiteral &&
      left.literal == sql::LiteralKind::kString && right.literal == sql::LiteralKind::kString &&
      (op == sql::BinaryOp::kEq || op == sql::BinaryOp::kNe)) {
    // Calcite's string literals are CHAR(n): the shorter is padded with spaces before they
    // compare. Strings that differ and end in no space differ padded too.
    bool equal = left.text == right.text;
    if (!equal && ((!left.text.empty() && left.text.back() == ' ') ||
                   (!right.text.empty() && right.text.back() == ' '))) {
      return Truth::kUnknown;
    }
    return Of(op == sql::BinaryOp::kEq ? equal : !equal);
  }
  return Truth::kUnknown;
}

bool IsComparison(sql::BinaryOp op) {
  switch (op) {
    case sql::BinaryOp::kEq:
    case sql::BinaryOp::kNe:
    case sql::BinaryOp::kLt:
    case sql::BinaryOp::kLe:
    case sql::BinaryOp::kGt:
    case sql::BinaryOp::kGe: return true;
    default: return false;
  }
}

// ---- the reduction ---------------------------------------------------------------------------

bool NeverTrue(const ScalarPtr& condition) {
  if (!condition) return false;
  const Truth t = ConstantTruth(*condition);
  return t == Truth::kFalse || t == Truth::kNull;
}

bool IsEmpty(const RelPtr& rel) { return rel->kind == RelKind::kValues && rel->rows.empty(); }

bool FetchesNothing(const ScalarPtr& fetch) {
  if (!fetch) return false;
  auto n = ExactOf(*fetch);
  return n && !n->negative && n->integer.empty() && n->fraction.empty();
}

// Whether `rel`, over its (reduced) inputs, yields no rows.
bool YieldsNothing(const Rel& rel) {
  const auto& in = rel.inputs;
  switch (rel.kind) {
    case RelKind::kValues: return rel.rows.empty();
    case RelKind::kFilter: return IsEmpty(in[0]) || NeverTrue(rel.condition);
    case RelKind::kProject: return IsEmpty(in[0]);
    case RelKind::kSort: return IsEmpty(in[0]) || FetchesNothing(rel.fetch);
    case RelKind::kAggregate: return !rel.group.empty() && IsEmpty(in[0]);
    case RelKind::kJoin:
      switch (rel.join_type) {
        case sql::JoinType::kInner:
        case sql::JoinType::kCross:
        case sql::JoinType::kComma:
          return IsEmpty(in[0]) || IsEmpty(in[1]) || NeverTrue(rel.condition);
        case sql::JoinType::kLeft: return IsEmpty(in[0]);
        case sql::JoinType::kRight: return IsEmpty(in[1]);
        case sql::JoinType::kFull: return IsEmpty(in[0]) && IsEmpty(in[1]);
      }
      return false;
    case RelKind::kSetOp:
      switch (rel.set_op) {
        case sql::SetOpKind::kUnion: return IsEmpty(in[0]) && IsEmpty(in[1]);
        case sql::SetOpKind::kIntersect: return IsEmpty(in[0]) || IsEmpty(in[1]);
        case sql::SetOpKind::kExcept: return IsEmpty(in[0]);
      }
      return false;
    case RelKind::kScan:
    case RelKind::kUnnest: return false;
  }
  return false;
}

class Pruner {
 public:
  // The reduced node, or null when it is unchanged.
  RelPtr Node(const Rel& rel) {
    if (rel.kind == RelKind::kValues && rel.rows.empty()) return nullptr;  // empty already
    bool changed = false;
    std::vector<RelPtr> inputs;
    inputs.reserve(rel.inputs.size());
    for (const RelPtr& input : rel.inputs) {
      inputs.push_back(Shared(input));
      changed |= inputs.back() != input;
    }
    std::vector<ScalarPtr> exprs = Scalars(rel.exprs, changed);
    ScalarPtr condition = Expr(rel.condition, changed);
    std::vector<std::vector<ScalarPtr>> rows;
    rows.reserve(rel.rows.size());
    for (const auto& row : rel.rows) rows.push_back(Scalars(row, changed));
    std::shared_ptr<Rel> out;
    if (changed) {
      out = std::make_shared<Rel>(rel);
      out->inputs = std::move(inputs);
      out->exprs = std::move(exprs);
      out->condition = std::move(condition);
      out->rows = std::move(rows);
    }
    if (YieldsNothing(out ? *out : rel)) {
      auto empty = std::make_shared<Rel>();
      empty->kind = RelKind::kValues;
      empty->row_type = rel.row_type;
      return empty;
    }
    return out;
  }

 private:
  // A shared node reduced once, however often the plan reads it (a view, a CTE).
  RelPtr Shared(const RelPtr& rel) {
    if (!rel) return rel;
    auto it = done_.find(rel.get());
    if (it != done_.end()) return it->second;
    RelPtr reduced = Node(*rel);
    RelPtr out = reduced ? reduced : rel;
    done_.emplace(rel.get(), out);
    return out;
  }

  ScalarPtr Expr(const ScalarPtr& s, bool& changed) {
    if (!s) return s;
    bool mine = false;
    std::vector<ScalarPtr> args = Scalars(s->args, mine);
    ScalarPtr filter = Expr(s->filter, mine);
    RelPtr query = Shared(s->query);
    mine |= query != s->query;
    if (!mine) return s;
    changed = true;
    auto out = std::make_shared<Scalar>(*s);
    out->args = std::move(args);
    out->filter = std::move(filter);
    out->query = std::move(query);
    return out;
  }

  std::vector<ScalarPtr> Scalars(const std::vector<ScalarPtr>& in, bool& changed) {
    std::vector<ScalarPtr> out;
    out.reserve(in.size());
    for (const ScalarPtr& s : in) out.push_back(Expr(s, changed));
    return out;
  }

  std::unordered_map<const Rel*, RelPtr> done_;
};

}  // namespace

Truth ConstantTruth(const Scalar& s) {
  switch (s.kind) {
    case ScalarKind::kLiteral:
      if (s.literal == sql::LiteralKind::kNull) return Truth::kNull;
      if (s.literal == sql::LiteralKind::kBoolean) {
        if (EqualsIgnoreCase(s.text, "TRUE")) return Truth::kTrue;
        if (EqualsIgnoreCase(s.text, "FALSE")) return Truth::kFalse;
      }
      return Truth::kUnknown;
    case ScalarKind::kUnary:
      if (s.unary_op == sql::UnaryOp::kNot && s.args.size() == 1 && s.args[0]) {
        return Not(ConstantTruth(*s.args[0]));
      }
      return Truth::kUnknown;
    case ScalarKind::kBinary: {
      if (s.args.size() != 2 || !s.args[0] || !s.args[1]) return Truth::kUnknown;
      if (s.binary_op == sql::BinaryOp::kAnd) {
        return And(ConstantTruth(*s.args[0]), ConstantTruth(*s.args[1]));
      }
      if (s.binary_op == sql::BinaryOp::kOr) {
        return Or(ConstantTruth(*s.args[0]), ConstantTruth(*s.args[1]));
      }
      if (IsComparison(s.binary_op)) return Comparison(s.binary_op, *s.args[0], *s.args[1]);
      return Truth::kUnknown;
    }
    case ScalarKind::kIs: {
      if (s.args.size() != 1 || !s.args[0]) return Truth::kUnknown;
      const Scalar& operand = *s.args[0];
      Truth value = ConstantTruth(operand);
      if (s.is_test == sql::IsTest::kNull && value == Truth::kUnknown) {
        // A literal of any type is NULL or not.
        if (IsNullLiteral(operand)) {
          value = Truth::kNull;
        } else if (operand.kind == ScalarKind::kLiteral) {
          value = Truth::kTrue;  // stands for "not NULL"
        }
      }
      if (value == Truth::kUnknown) return Truth::kUnknown;
      bool holds = false;
      switch (s.is_test) {
        case sql::IsTest::kNull:
        case sql::IsTest::kUnknown: holds = value == Truth::kNull; break;
        case sql::IsTest::kTrue: holds = value == Truth::kTrue; break;
        case sql::IsTest::kFalse: holds = value == Truth::kFalse; break;
      }
      return Of(s.negated ? !holds : holds);
    }
    case ScalarKind::kExists:
      // EXISTS over nothing: FALSE.
      return s.query && s.query->kind == RelKind::kValues && s.query->rows.empty()
                 ? Truth::kFalse
                 : Truth::kUnknown;
    case ScalarKind::kInSubquery:
      // x IN (nothing) is FALSE, and x NOT IN (nothing) TRUE, even for a NULL x.
      if (s.query && s.query->kind == RelKind::kValues && s.query->rows.empty()) {
        return s.negated ? Truth::kTrue : Truth::kFalse;
      }
      return Truth::kUnknown;
    case ScalarKind::kQuantified:
      // Likewise x op ANY (nothing) is FALSE and x op ALL (nothing) TRUE.
      if (s.query && s.query->kind == RelKind::kValues && s.query->rows.empty()) {
        return s.all ? Truth::kTrue : Truth::kFalse;
      }
      return Truth::kUnknown;
    case ScalarKind::kCast:
      if (IsNullLiteral(s)) return Truth::kNull;
      if (s.type.name == sql::TypeName::kBoolean && s.args.size() == 1 && s.args[0]) {
        return ConstantTruth(*s.args[0]);
      }
      return Truth::kUnknown;
    default: return Truth::kUnknown;
  }
}

RelPtr PruneEmpty(const Rel& plan) {
  Pruner pruner;
  return pruner.Node(plan);
}

}  // namespace hop::binder
