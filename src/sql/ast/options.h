// `WITH (key value, ...)` option lists. Keys are compound identifiers (joined with '.', folded if
// unquoted) or single-quoted strings (kept as written); values are literals read as strings.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sql/location.h"

namespace hop::sql {

enum class OptionValueKind : uint8_t { kString, kNumber, kBoolean, kNull };

struct Option {
  std::string key;    // folded form, e.g. `MY.CUSTOM.KEY` or `job.properties.x`
  std::string value;  // the literal's value as a string (`5`, `true`, `abc`)
  OptionValueKind kind = OptionValueKind::kString;  // how the value was written
  Location loc;

  // The value's spelling (quoted or not) is not part of its meaning; NULL is not a string.
  friend bool operator==(const Option& a, const Option& b) {
    return a.key == b.key && a.value == b.value &&
           (a.kind == OptionValueKind::kNull) == (b.kind == OptionValueKind::kNull);
  }
};

// Options in the order written. Duplicated keys are kept here; ToMap applies "later wins".
struct OptionList {
  std::vector<Option> items;
  bool present = false;  // a WITH clause was written, even if empty

  bool empty() const { return items.empty(); }
  std::map<std::string, std::string> ToMap() const;

  friend bool operator==(const OptionList& a, const OptionList& b) {
    return a.items == b.items && a.present == b.present;
  }
};

}  // namespace hop::sql
