// The limits in force and their environment variables.
#include "common/limits.h"

#include <fmt/format.h>

#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <utility>

namespace hop {
namespace {

// The limits in force. Each field is read and written on its own: a reader sees either the old
// or the new value of a field, never a torn one.
struct AtomicLimits {
  std::atomic<size_t> request{Limits{}.max_request_bytes};
  std::atomic<size_t> expanded{Limits{}.max_expanded_bytes};
  std::atomic<size_t> object{Limits{}.max_object_bytes};
  std::atomic<size_t> rendered{Limits{}.max_rendered_bytes};
};

AtomicLimits& Current() {
  static AtomicLimits limits;
  return limits;
}

}  // namespace

Limits CurrentLimits() {
  AtomicLimits& c = Current();
  Limits limits;
  limits.max_request_bytes = c.request.load(std::memory_order_relaxed);
  limits.max_expanded_bytes = c.expanded.load(std::memory_order_relaxed);
  limits.max_object_bytes = c.object.load(std::memory_order_relaxed);
  limits.max_rendered_bytes = c.rendered.load(std::memory_order_relaxed);
  return limits;
}

void SetLimits(const Limits& limits) {
  AtomicLimits& c = Current();
  c.request.store(limits.max_request_bytes, std::memory_order_relaxed);
  c.expanded.store(limits.max_expanded_bytes, std::memory_order_relaxed);
  c.object.store(limits.max_object_bytes, std::memory_order_relaxed);
  c.rendered.store(limits.max_rendered_bytes, std::memory_order_relaxed);
}

bool ParseByteSize(std::string_view text, size_t* bytes) {
  size_t unit = 1;
  for (const auto& [suffix, scale] : {std::pair<std::string_view, size_t>{"Ki", size_t{1} << 10},
                                      {"Mi", size_t{1} << 20},
                                      {"Gi", size_t{1} << 30}}) {
    if (text.ends_with(suffix)) {
      unit = scale;
      text.remove_suffix(suffix.size());
      break;
    }
  }
  size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value == 0) {
    return false;
  }
  if (value > SIZE_MAX / unit) return false;
  *bytes = value * unit;
  return true;
}

Status LoadLimitsFromEnvironment() {
  Limits limits = CurrentLimits();
  const std::pair<const char*, size_t*> kVariables[] = {
      {"HOP_MAX_REQUEST_BYTES", &limits.max_request_bytes},
      {"HOP_MAX_EXPANDED_BYTES", &limits.max_expanded_bytes},
      {"HOP_MAX_OBJECT_BYTES", &limits.max_object_bytes},
      {"HOP_MAX_RENDERED_BYTES", &limits.max_rendered_bytes},
  };
  for (const auto& [name, field] : kVariables) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    if (!ParseByteSize(value, field)) {
      return Status::InvalidArgument(fmt::format(
          "{}={}: expected a positive number of bytes, optionally with Ki, Mi or Gi", name,
          value));
    }
  }
  SetLimits(limits);
  return Status::OK();
}

std::string FormatByteSize(size_t bytes) {
  constexpr std::pair<size_t, const char*> kUnits[] = {
      {size_t{1} << 30, "GiB"}, {size_t{1} << 20, "MiB"}, {size_t{1} << 10, "KiB"}};
  for (const auto& [scale, name] : kUnits) {
    if (bytes >= scale && bytes % (scale / 2) == 0) {
      return bytes % scale == 0 ? fmt::format("{} {}", bytes / scale, name)
                                : fmt::format("{}.5 {}", bytes / scale, name);
    }
  }
  return fmt::format("{} bytes", bytes);
}

}  // namespace hop
