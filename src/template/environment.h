// The variables a template is rendered against: an ordered set of bindings from a key to a value,
// an explicit null, or a lazy supplier that is only asked when a placeholder needs the key.
// Renderers build one environment per template kind in layers (defaults, then options, then
// hints...), where a later binding of a key replaces the earlier one.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "common/status.h"
#include "template/value.h"

namespace hop::tmpl {

// Computes a variable on demand. Returns the value; std::nullopt when the variable is "not
// available" (the template is then skipped unless the placeholder has a default); or an error
// Status, which fails the render unless the placeholder has a default. Render calls a supplier
// at most once per render and only when a placeholder reaches its key.
using Supplier = std::function<Result<std::optional<Value>>()>;

// Copyable value type. Not synchronised: build it on one thread; afterwards any number of threads
// may Render against a const Environment concurrently if its suppliers allow that. Suppliers are
// copied with the environment; whatever they capture must outlive every render that uses them.
class Environment {
 public:
  Environment() = default;

  // Each Set* binds `key`, replacing any earlier binding of it (which keeps its position in
  // Keys()), and returns *this so that calls chain. Keys that are not placeholder names
  // ([A-Za-z0-9_.-]+) are accepted but no template can refer to them.
  Environment& Set(std::string key, std::string value);
  Environment& Set(std::string key, Value value);
  Environment& SetMap(std::string key, Entries entries);
  Environment& SetProperties(std::string key, Entries entries);
  // Binds every entry as a string, in order (later duplicates win).
  Environment& SetAll(const Entries& entries);
  // Binds `key` to null: it resolves as missing, and hides any value an earlier layer gave it.
  Environment& SetNull(std::string key);
  // Binds `key` to a supplier that is called during Render, not now. An empty std::function
  // resolves to an InvalidArgument error.
  Environment& SetLazy(std::string key, Supplier supplier);

  // Applies every binding of `later`, in its order, on top of this environment: later's keys
  // replace this one's, its null bindings included. Merging an environment into itself is a
  // no-op.
  Environment& Merge(const Environment& later);
  // Drops the binding of `key`, if any. Unlike SetNull this leaves no trace: a later Merge
  // into this environment can bind the key again either way.
  Environment& Remove(std::string_view key);

  // Whether `key` has a binding, whatever it is (null and lazy bindings count; suppliers are not
  // called).
  bool Has(std::string_view key) const;
  // The bound keys in the order they were first bound.
  std::vector<std::string> Keys() const;
  size_t size() const { return bindings_.size(); }
  bool empty() const { return bindings_.empty(); }

  // The value of `key` now: std::nullopt if it is unbound, null or its supplier says "not
  // available"; the supplier's error if it fails. Calls the supplier on every call (Render keeps
  // its own per-render cache).
  Result<std::optional<Value>> Resolve(std::string_view key) const;

 private:
  struct Null {};
  struct Binding {
    std::string key;
    std::variant<Null, Value, Supplier> target;
  };
  // Hashing that lets find() take a string_view without building a std::string.
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  Environment& Bind(std::string key, std::variant<Null, Value, Supplier> target);
  const Binding* Find(std::string_view key) const;

  std::vector<Binding> bindings_;  // in first-bound order
  // key -> its slot in bindings_
  std::unordered_map<std::string, size_t, KeyHash, std::equal_to<>> index_;
};

}  // namespace hop::tmpl
