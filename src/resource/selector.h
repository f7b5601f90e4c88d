// Kubernetes label selectors in their string form, the one `kubectl get -l` takes
// ("app=web,tier in (a,b),!legacy"): parsing with positioned errors, matching against an object's
// labels, and a canonical string form. Stores read the parsed requirements to turn equalities
// into index lookups.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace hop::resource {

class LabelSelector {
 public:
  // One comma-separated part of a selector. Every requirement of a selector must hold.
  struct Requirement {
    enum class Op {
      kEquals,        // `k=v`, `k==v`: the key is present with value v
      kNotEquals,     // `k!=v`: the key is absent, or present with another value
      kIn,            // `k in (a,b)`: the key is present with one of the values
      kNotIn,         // `k notin (a,b)`: the key is absent, or present with none of the values
      kExists,        // `k`: the key is present, with any value
      kDoesNotExist,  // `!k`: the key is absent
    };

    std::string key;
    Op op = Op::kExists;
    // kEquals, kNotEquals: exactly one value (possibly ""). kIn, kNotIn: one or more values,
    // sorted and without duplicates ("()" is the set holding only ""). kExists, kDoesNotExist:
    // none.
    std::vector<std::string> values;

    // Whether `labels` satisfy this requirement, with the semantics noted at each Op.
    bool Matches(const std::map<std::string, std::string>& labels) const;
    // Canonical text: `k=v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`.
    std::string ToString() const;

    friend bool operator==(const Requirement&, const Requirement&) = default;
  };

  // The empty selector, which matches every object.
  LabelSelector() = default;

  // Parses `text`: requirements separated by ',', each one of `k=v`, `k==v`, `k!=v`,
  // `k in (v1,v2)`, `k notin (v1,v2)`, `k` or `!k`. Whitespace may surround every token; values
  // may be empty (`k=`, `k in (a,)`); `in` and `notin` are keywords only in operator position.
  // Keys must pass ValidateLabelKey and values ValidateLabelValue. Empty or all-whitespace text
  // gives the empty selector. The requirements are put in canonical order (by key, then operator,
  // then values) with exact duplicates removed.
  // Errors: InvalidArgument `label selector "<text>": <what is wrong> at position N`, N counting
  // bytes of `text` from 1 (the length plus 1 for the end of input).
  static Result<LabelSelector> Parse(std::string_view text);

  // Whether an object with `labels` is selected: every requirement holds. The empty selector
  // matches everything. Thread-safe (const).
  bool Matches(const std::map<std::string, std::string>& labels) const;

  // True when there are no requirements, i.e. the selector matches every object.
  bool empty() const { return requirements_.empty(); }

  // The canonical text: requirements in canonical order joined with ',' and no spaces; "" for
  // the empty selector. Parse(ToString()) gives back an equal selector.
  std::string ToString() const;

  // The requirements in canonical order.
  const std::vector<Requirement>& requirements() const { return requirements_; }

  friend bool operator==(const LabelSelector&, const LabelSelector&) = default;

 private:
  explicit LabelSelector(std::vector<Requirement> requirements)
      : requirements_(std::move(requirements)) {}

  std::vector<Requirement> requirements_;
};

}  // namespace hop::resource
