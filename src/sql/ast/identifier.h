// Names in the AST. An identifier keeps the text as written and its folded form: unquoted names
// fold to upper case once, here, and every later stage compares folded forms only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sql/location.h"

namespace hop::sql {

struct Identifier {
  std::string name;     // folded: upper-cased if unquoted, exactly the quoted text otherwise
  std::string written;  // as in the source, quotes included; empty for synthesised names
  bool quoted = false;
  Location loc;

  Identifier() = default;
  // A name that is already folded (synthesised by hop, or read from a resource).
  explicit Identifier(std::string folded) : name(std::move(folded)) {}

  // Identifiers are equal when their folded names are; spelling and position do not matter.
  friend bool operator==(const Identifier& a, const Identifier& b) { return a.name == b.name; }
};

// A dotted name of one or more parts: `t`, `schema.t`, `catalog.schema.t`.
struct QualifiedName {
  std::vector<Identifier> parts;

  bool empty() const { return parts.empty(); }
  size_t size() const { return parts.size(); }
  const Identifier& back() const { return parts.back(); }
  Location loc() const { return parts.empty() ? Location{} : parts.front().loc; }
  // Folded parts joined with '.', e.g. `ADS.PAGE_VIEWS` (no quoting; for messages).
  std::string ToString() const;
  // The folded parts, e.g. {"ADS", "PAGE_VIEWS"}: a path in the catalog.
  std::vector<std::string> Names() const;

  friend bool operator==(const QualifiedName& a, const QualifiedName& b) {
    return a.parts == b.parts;
  }
};

}  // namespace hop::sql
