// The placeholder scanner. It follows the reference engine's regular expression
//   ([\s\-#]*)\{\{\s*([\w.-]+)\s*((:|==|!=)([\w.-]*))?\s*((\w+\s*)*)\s*\}\}
// without a regex library: at each `{{` it matches the body greedily (no backtracking can help
// this grammar), and takes as prefix the run of prefix characters before `{{` that the previous
// placeholder did not consume.
#include "template/placeholder.h"

#include "common/source_error.h"

#include <fmt/format.h>

namespace hop::tmpl {
namespace {

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The outcome of matching a placeholder body at a `{{`.
struct Match {
  bool ok = false;
  Placeholder p;              // when ok; begin and prefix are filled in by the caller
  size_t fail_at = 0;         // when not ok: where the grammar stopped
  std::string_view expected;  // ... and what it wanted there
  size_t operator_end = 0;    // one past the operator, when there is one
};

Match MatchAt(std::string_view text, size_t open) {
  Match m;
  m.p.open = open;
  const size_t n = text.size();
  size_t i = open + 2;
  auto skip_spaces = [&] {
    while (i < n && IsSpace(text[i])) ++i;
  };
  auto fail = [&](std::string_view expected) {
    m.fail_at = i;
    m.expected = expected;
    return m;
  };
  auto at = [&](std::string_view s) { return text.substr(i, s.size()) == s; };

  skip_spaces();
  const size_t key_begin = i;
  while (i < n && IsKeyChar(text[i])) ++i;
  if (i == key_begin) return fail("a variable name");
  m.p.key = text.substr(key_begin, i - key_begin);
  skip_spaces();

  std::string_view expected = "one of: ':', '==', '!=', a transform word, '}}'";
  if (at(":")) {
    m.p.op = Operator::kDefault;
    i += 1;
  } else if (at("==")) {
    m.p.op = Operator::kEquals;
    i += 2;
  } else if (at("!=")) {
    m.p.op = Operator::kNotEquals;
    i += 2;
  }
  if (m.p.op != Operator::kNone) {
    m.operator_end = i;
    const size_t operand_begin = i;
    while (i < n && IsKeyChar(text[i])) ++i;
    m.p.operand = text.substr(operand_begin, i - operand_begin);
    if (!m.p.operand.empty()) {
      expected = "one of: a transform word, '}}'";
    } else if (m.p.op == Operator::kDefault) {
      expected = "one of: a default value, a transform word, '}}'";
    } else {
      expected = "one of: a value to compare with, a transform word, '}}'";
    }
  }
  skip_spaces();

  const size_t words_begin = i;
  size_t words_end = i;
  while (!at("}}")) {
    if (i >= n || !IsWordChar(text[i])) return fail(expected);
    while (i < n && IsWordChar(text[i])) ++i;
    words_end = i;
    skip_spaces();
    expected = "one of: a transform word, '}}'";
  }
  m.p.transforms = text.substr(words_begin, words_end - words_begin);
  m.p.end = i + 2;
  m.ok = true;
  return m;
}

std::string_view OperatorText(Operator op) {
  switch (op) {
    case Operator::kNone: return "";
    case Operator::kDefault: return ":";
    case Operator::kEquals: return "==";
    case Operator::kNotEquals: return "!=";
  }
  return "";
}

// The first unknown transform word of a matched placeholder, as an error.
Status CheckTransforms(std::string_view text, const Match& m) {
  Status status;
  bool first = true;
  ForEachWord(m.p.transforms, [&](std::string_view word) {
    Transform t;
    const bool was_first = first;
    first = false;
    if (!status.ok() || ParseTransform(word, &t)) return;
    const size_t offset = static_cast<size_t>(word.data() - text.data());
    std::string what = fmt::format("unknown template transform '{}'", word);
    // `{{k: v}}` reads as an empty default followed by the transform `v`: say so.
    if (was_first && m.p.op != Operator::kNone && m.p.operand.empty() && offset > m.operator_end) {
      what += fmt::format(" (no space is allowed after '{}')", OperatorText(m.p.op));
    } else {
      what += fmt::format(" (expected one of: {})", kTransformWords);
    }
    status = Status::ParseError(FormatSourceError(text, offset, what));
  });
  return status;
}

std::string DescribeAt(std::string_view text, size_t i) {
  if (i >= text.size()) return "end of input";
  if (text.substr(i, 2) == "}}") return "'}}'";
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x20 || c == 0x7f) return fmt::format("U+{:04X}", c);
  size_t len = 1;
  while (i + len < text.size() && IsContinuationByte(text[i + len])) ++len;
  return fmt::format("'{}'", text.substr(i, len));
}

}  // namespace

bool ParseTransform(std::string_view word, Transform* out) {
  if (word == "toUpperCase") {
    *out = Transform::kToUpperCase;
  } else if (word == "toLowerCase") {
    *out = Transform::kToLowerCase;
  } else if (word == "concat") {
    *out = Transform::kConcat;
  } else if (word == "shellQuote") {
    *out = Transform::kShellQuote;
  } else if (word == "yamlQuote") {
    *out = Transform::kYamlQuote;
  } else {
    return false;
  }
  return true;
}

Result<std::vector<Placeholder>> ScanTemplate(std::string_view text, ScanMode mode) {
  std::vector<Placeholder> out;
  size_t pos = 0;
  size_t last_end = 0;  // the previous placeholder's end: prefixes never reach back past it
  // The next `}}` at or after the `{{` being looked at; npos once there is none left. Cached so
  // that strict scans of text full of `{{` stay linear.
  size_t close = 0;
  bool close_known = false;
  while (true) {
    const size_t open = text.find("{{", pos);
    if (open == std::string_view::npos) break;
    // In a run of braces only the last two can open a placeholder.
    if (open + 2 < text.size() && text[open + 2] == '{') {
      pos = open + 1;
      continue;
    }
    Match m = MatchAt(text, open);
    if (!m.ok) {
      if (mode == ScanMode::kStrict) {
        if (!close_known || (close != std::string_view::npos && close < open + 2)) {
          close = text.find("}}", open + 2);
          close_known = true;
        }
        const size_t next_open = text.find("{{", open + 2);
        if (close != std::string_view::npos && close < next_open) {
          // As hop's SQL errors: "expected X, found Y" or "expected one of: X, Y; found Z".
          const bool list = m.expected.starts_with("one of:");
          return Status::ParseError(FormatSourceError(
              text, m.fail_at,
              fmt::format("malformed template placeholder: expected {}{} found {}", m.expected,
                          list ? ";" : ",", DescribeAt(text, m.fail_at))));
        }
      }
      pos = open + 2;
      continue;
    }
    HOP_RETURN_IF_ERROR(CheckTransforms(text, m));
    size_t begin = open;
    while (begin > last_end && IsPrefixChar(text[begin - 1])) --begin;
    m.p.begin = begin;
    m.p.prefix = text.substr(begin, open - begin);
    out.push_back(m.p);
    pos = last_end = m.p.end;
  }
  return out;
}

TextPosition PositionOf(std::string_view text, size_t offset) {
  TextPosition pos;
  size_t line_begin = 0;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      line_begin = i + 1;
    }
  }
  for (size_t i = line_begin; i < offset && i < text.size(); ++i) {
    if (!IsContinuationByte(text[i])) ++pos.column;
  }
  return pos;
}

}  // namespace hop::tmpl
