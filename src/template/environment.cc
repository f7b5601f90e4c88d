// Environment: bindings kept in first-bound order with a hash index for lookups.
#include "template/environment.h"

#include <fmt/format.h>

namespace hop::tmpl {

Environment& Environment::Bind(std::string key, std::variant<Null, Value, Supplier> target) {
  auto it = index_.find(std::string_view(key));
  if (it != index_.end()) {
    bindings_[it->second].target = std::move(target);
    return *this;
  }
  index_.emplace(key, bindings_.size());
  bindings_.push_back(Binding{std::move(key), std::move(target)});
  return *this;
}

Environment& Environment::Set(std::string key, std::string value) {
  return Bind(std::move(key), Value::String(std::move(value)));
}

Environment& Environment::Set(std::string key, Value value) {
  return Bind(std::move(key), std::move(value));
}

Environment& Environment::SetMap(std::string key, Entries entries) {
  return Bind(std::move(key), Value::Map(std::move(entries)));
}

Environment& Environment::SetProperties(std::string key, Entries entries) {
  return Bind(std::move(key), Value::Properties(std::move(entries)));
}

Environment& Environment::SetAll(const Entries& entries) {
  for (const auto& [key, value] : entries) Set(key, value);
  return *this;
}

Environment& Environment::SetNull(std::string key) { return Bind(std::move(key), Null{}); }

Environment& Environment::SetLazy(std::string key, Supplier supplier) {
  return Bind(std::move(key), std::move(supplier));
}

Environment& Environment::Merge(const Environment& later) {
  if (&later == this) return *this;
  for (const Binding& b : later.bindings_) Bind(b.key, b.target);
  return *this;
}

Environment& Environment::Remove(std::string_view key) {
  auto it = index_.find(key);
  if (it == index_.end()) return *this;
  const size_t slot = it->second;
  index_.erase(it);
  bindings_.erase(bindings_.begin() + static_cast<std::ptrdiff_t>(slot));
  for (auto& [k, i] : index_) {
    if (i > slot) --i;
  }
  return *this;
}

bool Environment::Has(std::string_view key) const { return Find(key) != nullptr; }

std::vector<std::string> Environment::Keys() const {
  std::vector<std::string> keys;
  keys.reserve(bindings_.size());
  for (const Binding& b : bindings_) keys.push_back(b.key);
  return keys;
}

const Environment::Binding* Environment::Find(std::string_view key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &bindings_[it->second];
}

Result<std::optional<Value>> Environment::Resolve(std::string_view key) const {
  const Binding* b = Find(key);
  if (b == nullptr || std::holds_alternative<Null>(b->target)) {
    return std::optional<Value>();
  }
  if (const Value* v = std::get_if<Value>(&b->target)) return std::optional<Value>(*v);
  const Supplier& supplier = std::get<Supplier>(b->target);
  if (!supplier) {
    return Status::InvalidArgument(
        fmt::format("template variable '{}' is bound to an empty supplier", key));
  }
  return supplier();
}

}  // namespace hop::tmpl
