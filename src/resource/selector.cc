// Label selector parsing and matching. A small lexer splits the text into Kubernetes' selector
// tokens (identifiers and the symbols ! != = == ( ) , < >) and a recursive-descent parser reads
// requirements from them, reporting the first token it cannot use and what it expected there.
#include "resource/selector.h"

#include <algorithm>
#include <tuple>

#include "resource/names.h"

namespace hop::resource {
namespace {

using Op = LabelSelector::Requirement::Op;

enum class TokenKind {
  kIdentifier,    // a run of anything but whitespace and the symbols below
  kBang,          // !
  kNotEquals,     // !=
  kEquals,        // =
  kDoubleEquals,  // ==
  kOpenParen,     // (
  kCloseParen,    // )
  kComma,         // ,
  kLess,          // <  (Kubernetes' lt; not supported by hop)
  kGreater,       // >  (Kubernetes' gt; not supported by hop)
  kEnd,
};

struct Token {
  TokenKind kind;
  std::string_view text;
  size_t pos;  // byte offset in the selector text
};

// Kubernetes' whitespace set for selectors; other control bytes end up inside identifiers and are
// then rejected by the key and value rules.
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool IsSymbol(char c) {
  return c == '!' || c == '=' || c == '(' || c == ')' || c == ',' || c == '<' || c == '>';
}

class SelectorParser {
 public:
  explicit SelectorParser(std::string_view text) : text_(text) {}

  Result<LabelSelector::Requirement> ParseRequirement();
  // Consumes the separator after a requirement. Returns false at the end of the input.
  Result<bool> ParseSeparator();
  bool AtEnd() { return Peek().kind == TokenKind::kEnd; }

 private:
  Token Peek() { return Lex(pos_); }
  Token Next() {
    Token t = Lex(pos_);
    pos_ = t.pos + t.text.size();
    return t;
  }
  Token Lex(size_t from) const;

  Result<std::string> ParseExactValue();
  Result<std::vector<std::string>> ParseValueSet(std::string_view op);

  // `label selector "<text>": <what> at position <pos + 1>`.
  Status Error(size_t pos, std::string_view what) const;
  // "expected <expected>, found <token>" at the token.
  Status Unexpected(const Token& t, std::string_view expected) const;

  std::string_view text_;
  size_t pos_ = 0;
};

Token SelectorParser::Lex(size_t from) const {
  size_t i = from;
  while (i < text_.size() && IsSpace(text_[i])) ++i;
  if (i == text_.size()) return {TokenKind::kEnd, {}, i};
  const auto sym = [&](TokenKind kind, size_t len) { return Token{kind, text_.substr(i, len), i}; };
  const bool eq_next = i + 1 < text_.size() && text_[i + 1] == '=';
  switch (text_[i]) {
    case '!': return eq_next ? sym(TokenKind::kNotEquals, 2) : sym(TokenKind::kBang, 1);
    case '=': return eq_next ? sym(TokenKind::kDoubleEquals, 2) : sym(TokenKind::kEquals, 1);
    case '(': return sym(TokenKind::kOpenParen, 1);
    case ')': return sym(TokenKind::kCloseParen, 1);
    case ',': return sym(TokenKind::kComma, 1);
    case '<': return sym(TokenKind::kLess, 1);
    case '>': return sym(TokenKind::kGreater, 1);
    default: break;
  }
  size_t end = i;
  while (end < text_.size() && !IsSpace(text_[end]) && !IsSymbol(text_[end])) ++end;
  return {TokenKind::kIdentifier, text_.substr(i, end - i), i};
}

Status SelectorParser::Error(size_t pos, std::string_view what) const {
  std::string msg = "label selector \"";
  msg += text_;
  msg += "\": ";
  msg += what;
  msg += " at position ";
  msg += std::to_string(pos + 1);
  return Status::InvalidArgument(std::move(msg));
}

Status SelectorParser::Unexpected(const Token& t, std::string_view expected) const {
  std::string what = "expected ";
  what += expected;
  what += ", found ";
  if (t.kind == TokenKind::kEnd) {
    what += "end of input";
  } else {
    what += '\'';
    what += t.text;
    what += '\'';
  }
  return Error(t.pos, what);
}

Result<LabelSelector::Requirement> SelectorParser::ParseRequirement() {
  LabelSelector::Requirement req;
  Token key = Next();
  const bool negated = key.kind == TokenKind::kBang;
  if (negated) key = Next();
  if (key.kind != TokenKind::kIdentifier) {
    return Unexpected(key, negated ? "a label key after '!'" : "a label key");
  }
  if (Status s = ValidateLabelKey(key.text); !s.ok()) return Error(key.pos, s.message());
  req.key = std::string(key.text);

  const TokenKind after = Peek().kind;
  if (negated || after == TokenKind::kComma || after == TokenKind::kEnd) {
    // `!k` takes nothing more; anything after it is left for ParseSeparator to reject.
    req.op = negated ? Op::kDoesNotExist : Op::kExists;
    return req;
  }

  const Token op = Next();
  switch (op.kind) {
    case TokenKind::kEquals:
    case TokenKind::kDoubleEquals:
    case TokenKind::kNotEquals: {
      req.op = op.kind == TokenKind::kNotEquals ? Op::kNotEquals : Op::kEquals;
      HOP_ASSIGN_OR_RETURN(std::string value, ParseExactValue());
      req.values.push_back(std::move(value));
      return req;
    }
    case TokenKind::kIdentifier:
      if (op.text == "in" || op.text == "notin") {
        req.op = op.text == "in" ? Op::kIn : Op::kNotIn;
        HOP_ASSIGN_OR_RETURN(req.values, ParseValueSet(op.text));
        return req;
      }
      break;
    case TokenKind::kLess:
    case TokenKind::kGreater:
      return Error(op.pos, "operator '" + std::string(op.text) +
                               "' is not supported; use one of '=', '==', '!=', 'in', 'notin'");
    default: break;
  }
  return Unexpected(op, "one of '=', '==', '!=', 'in', 'notin', ',' or end of input");
}

Result<std::string> SelectorParser::ParseExactValue() {
  const Token t = Peek();
  if (t.kind == TokenKind::kComma || t.kind == TokenKind::kEnd) return std::string();  // `k=`
  if (t.kind != TokenKind::kIdentifier) {
    return Unexpected(t, "a label value, ',' or end of input");
  }
  Next();
  if (Status s = ValidateLabelValue(t.text); !s.ok()) return Error(t.pos, s.message());
  return std::string(t.text);
}

Result<std::vector<std::string>> SelectorParser::ParseValueSet(std::string_view op) {
  const Token open = Next();
  if (open.kind != TokenKind::kOpenParen) {
    return Unexpected(open, "'(' after '" + std::string(op) + "'");
  }
  std::vector<std::string> values;
  if (Peek().kind == TokenKind::kCloseParen) {
    // Kubernetes reads "()" as the set holding the empty value, not as an empty set.
    Next();
    values.emplace_back();
  } else {
    while (true) {
      const Token t = Peek();
      if (t.kind == TokenKind::kIdentifier) {
        Next();
        if (Status s = ValidateLabelValue(t.text); !s.ok()) return Error(t.pos, s.message());
        values.emplace_back(t.text);
      } else if (t.kind == TokenKind::kComma || t.kind == TokenKind::kCloseParen) {
        values.emplace_back();  // an empty value, as in `(a,,b)` or `(a,)`
      } else {
        return Unexpected(t, "a label value, ',' or ')'");
      }
      const Token sep = Next();
      if (sep.kind == TokenKind::kCloseParen) break;
      if (sep.kind != TokenKind::kComma) return Unexpected(sep, "',' or ')'");
    }
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

Result<bool> SelectorParser::ParseSeparator() {
  const Token t = Next();
  if (t.kind == TokenKind::kEnd) return false;
  if (t.kind == TokenKind::kComma) return true;
  return Unexpected(t, "',' or end of input");
}

bool RequirementLess(const LabelSelector::Requirement& a, const LabelSelector::Requirement& b) {
  return std::tie(a.key, a.op, a.values) < std::tie(b.key, b.op, b.values);
}

}  // namespace

bool LabelSelector::Requirement::Matches(const std::map<std::string, std::string>& labels) const {
  const auto it = labels.find(key);
  const bool present = it != labels.end();
  const auto has_value = [&] {
    return present && std::binary_search(values.begin(), values.end(), it->second);
  };
  switch (op) {
    case Op::kExists: return present;
    case Op::kDoesNotExist: return !present;
    case Op::kEquals:
    case Op::kIn: return has_value();
    case Op::kNotEquals:
    case Op::kNotIn: return !has_value();
  }
  return false;
}

std::string LabelSelector::Requirement::ToString() const {
  const auto set = [&](std::string_view word) {
    std::string out = key;
    out += word;
    out += '(';
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out += ',';
      out += values[i];
    }
    out += ')';
    return out;
  };
  // A parsed kEquals or kNotEquals holds exactly one value; a hand-built one without any prints
  // as the empty value rather than failing.
  const std::string value = values.empty() ? std::string() : values.front();
  switch (op) {
    case Op::kExists: return key;
    case Op::kDoesNotExist: return "!" + key;
    case Op::kEquals: return key + "=" + value;
    case Op::kNotEquals: return key + "!=" + value;
    case Op::kIn: return set(" in ");
    case Op::kNotIn: return set(" notin ");
  }
  return key;
}

Result<LabelSelector> LabelSelector::Parse(std::string_view text) {
  SelectorParser parser(text);
  std::vector<Requirement> requirements;
  if (!parser.AtEnd()) {
    bool more = true;
    while (more) {
      HOP_ASSIGN_OR_RETURN(Requirement req, parser.ParseRequirement());
      requirements.push_back(std::move(req));
      HOP_ASSIGN_OR_RETURN(more, parser.ParseSeparator());
    }
  }
  std::sort(requirements.begin(), requirements.end(), RequirementLess);
  requirements.erase(std::unique(requirements.begin(), requirements.end()), requirements.end());
  return LabelSelector(std::move(requirements));
}

bool LabelSelector::Matches(const std::map<std::string, std::string>& labels) const {
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const Requirement& r) { return r.Matches(labels); });
}

std::string LabelSelector::ToString() const {
  std::string out;
  for (size_t i = 0; i < requirements_.size(); ++i) {
    if (i > 0) out += ',';
    out += requirements_[i].ToString();
  }
  return out;
}

}  // namespace hop::resource
