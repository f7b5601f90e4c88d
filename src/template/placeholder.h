// The scanner of the template language: finds the `{{...}}` placeholders of a template in one
// left-to-right pass and splits each into prefix, key, operator, operand and transform words.
// Render, Placeholders and CheckSyntax (template.h) share it; the grammar is in docs/templates.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace hop::tmpl {

// Character classes of the grammar.
inline bool IsWordChar(char c) {  // transform words: [A-Za-z0-9_]
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
inline bool IsKeyChar(char c) { return IsWordChar(c) || c == '.' || c == '-'; }
inline bool IsSpace(char c) {  // what a regex's \s matches
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
inline bool IsPrefixChar(char c) { return IsSpace(c) || c == '-' || c == '#'; }

enum class Operator {
  kNone,       // {{key}}
  kDefault,    // {{key:default}}
  kEquals,     // {{key==value}}
  kNotEquals,  // {{key!=value}}
};

enum class Transform {
  kToUpperCase,
  kToLowerCase,
  kConcat,
  kShellQuote,  // one POSIX shell word: single-quoted, `'` written as `'\''`
  kYamlQuote,   // one YAML (and JSON) double-quoted scalar, with escapes
  // Both also write `$` before `$` or `(` as `$$` (Kubernetes' `$(NAME)` expansion), once for a
  // chain of them.
};

// The transform words, as the error for an unknown one lists them.
inline constexpr std::string_view kTransformWords =
    "toUpperCase, toLowerCase, concat, shellQuote, yamlQuote";

// The placeholder `{{hop.open}}` renders as `{{`. RenderPartial writes it for every `{{` in a
// value it inserts, so that a later render prints the value as it was instead of expanding it.
inline constexpr std::string_view kOpenKey = "hop.open";

// One placeholder. The string_views point into the scanned text.
struct Placeholder {
  size_t begin = 0;         // offset of the prefix's first byte (== open when the prefix is empty)
  size_t open = 0;          // offset of `{{`
  size_t end = 0;           // one past `}}`
  std::string_view prefix;  // whitespace, '-' and '#' right before `{{`
  std::string_view key;
  Operator op = Operator::kNone;
  std::string_view operand;     // the default or compared value; empty when op is kNone
  std::string_view transforms;  // the transform words as written ("toUpperCase concat"), or empty
};

enum class ScanMode {
  // As Render reads a template: text that does not form a placeholder is literal text.
  kRender,
  // As CheckSyntax reads it: in addition, a `{{` closed by a `}}` (before any other `{{`) that
  // does not form a placeholder is an error.
  kStrict,
};

// The placeholders of `text`, in order. Fails with a ParseError naming the line and column of
// the first unknown transform word (or, in kStrict mode, of the first malformed placeholder).
Result<std::vector<Placeholder>> ScanTemplate(std::string_view text, ScanMode mode);

// Parses one transform word; false if it is not one.
bool ParseTransform(std::string_view word, Transform* out);

// Calls fn(word) for each transform word of `transforms` (a Placeholder::transforms span).
template <typename Fn>
void ForEachWord(std::string_view transforms, Fn&& fn) {
  size_t i = 0;
  while (i < transforms.size()) {
    while (i < transforms.size() && !IsWordChar(transforms[i])) ++i;
    const size_t start = i;
    while (i < transforms.size() && IsWordChar(transforms[i])) ++i;
    if (i > start) fn(transforms.substr(start, i - start));
  }
}

// 1-based line and column (in characters, UTF-8 aware) of byte `offset` of `text`.
struct TextPosition {
  uint32_t line = 1;
  uint32_t column = 1;
};
TextPosition PositionOf(std::string_view text, size_t offset);


}  // namespace hop::tmpl
