// The values a template variable can hold: a string, a map or a set of properties, and the text
// each one substitutes for a placeholder. Maps become one-line YAML flow mappings and properties
// become `key: 'value'` lines, so that prefix repetition (see template.h) lays them out as YAML.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hop::tmpl {

// Key/value pairs in the order they are rendered. Duplicate keys are rendered as given; callers
// that build maps from user input should drop duplicates first.
using Entries = std::vector<std::pair<std::string, std::string>>;

// Sets `key` to `value`: in place if the key is there (it keeps its position), else at the end.
void SetEntry(Entries& entries, const std::string& key, std::string value);

class Value {
 public:
  enum class Kind { kString, kMap, kProperties };

  static Value String(std::string text);
  // Rendered as a YAML flow mapping on one line: `{k: v, k2: 'a: b'}`; `{}` when empty.
  static Value Map(Entries entries);
  // Rendered as one `key: 'value'` line per entry, joined by '\n'; empty text when empty.
  static Value Properties(Entries entries);

  Kind kind() const { return kind_; }
  // The string of a kString value. Calling it on another kind is a programmer error.
  const std::string& text() const;
  // The entries of a kMap or kProperties value. Calling it on a kString is a programmer error.
  const Entries& entries() const;

  // The text a placeholder substitutes for this value, before transforms.
  std::string Format() const;

  friend bool operator==(const Value& a, const Value& b) {
    return a.kind_ == b.kind_ && a.text_ == b.text_ && a.entries_ == b.entries_;
  }

 private:
  Value(Kind kind, std::string text, Entries entries)
      : kind_(kind), text_(std::move(text)), entries_(std::move(entries)) {}

  Kind kind_;
  std::string text_;  // kString
  Entries entries_;   // kMap, kProperties
};

// `s` as a YAML scalar that reads back as the same string in a flow collection: plain when that
// is unambiguous, otherwise single-quoted (`'` doubled), or double-quoted with escapes when it
// holds line breaks or other control characters. Strings that YAML would read as a number, a
// boolean, null or a date are quoted so that they stay strings.
std::string QuoteYamlScalar(std::string_view s);

// `s` as one double-quoted YAML scalar, whatever it holds: `"` and `\` escaped, line breaks
// (YAML's U+0085, U+2028 and U+2029 included) and other control characters written as escapes,
// so the scalar is one line that reads back as `s`. The escapes are JSON's too, so the text is
// also a JSON string. The `yamlQuote` transform.
std::string DoubleQuoteYaml(std::string_view s);

}  // namespace hop::tmpl
