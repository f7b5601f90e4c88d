// The size bounds of what hop reads from users and produces from what they wrote, held in one
// place: how much of a file or of standard input is read, how large YAML may grow through its
// aliases, how large one stored object and one rendered template may be. The defaults are
// Kubernetes' (3 MiB per request, 1.5 MiB per object); each can be changed with an environment
// variable, as docs/resources.md describes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/status.h"

namespace hop {

struct Limits {
  // A file or standard input read whole (`hop apply -f`, `hop delete -f`, `hop check`, `hop -f`,
  // a shell line): reading stops one byte past it. HOP_MAX_REQUEST_BYTES.
  size_t max_request_bytes = 3 * 1024 * 1024;
  // The documents of one YAML stream after aliases are expanded, counted as their compact JSON
  // text. HOP_MAX_EXPANDED_BYTES.
  size_t max_expanded_bytes = 3 * 1024 * 1024;
  // One object as the store keeps it (its compact JSON). HOP_MAX_OBJECT_BYTES.
  size_t max_object_bytes = 1536 * 1024;
  // The text one template renders. HOP_MAX_RENDERED_BYTES.
  size_t max_rendered_bytes = 1536 * 1024;
};

// The limits in force: the defaults until SetLimits or LoadLimitsFromEnvironment changes them.
// Thread-safe; each field is read whole (a concurrent SetLimits may be seen field by field).
Limits CurrentLimits();
void SetLimits(const Limits& limits);

// Reads HOP_MAX_REQUEST_BYTES, HOP_MAX_EXPANDED_BYTES, HOP_MAX_OBJECT_BYTES and
// HOP_MAX_RENDERED_BYTES, where set, into the limits in force. A value is a positive number of
// bytes, optionally followed by Ki, Mi or Gi ("1536Ki", "3Mi"). Fails with InvalidArgument naming
// the variable when a value does not parse; the limits are then unchanged.
Status LoadLimitsFromEnvironment();

// Parses one limit value as LoadLimitsFromEnvironment does; false if it does not parse.
bool ParseByteSize(std::string_view text, size_t* bytes);

// `bytes` for messages: "3 MiB", "1.5 MiB", "512 KiB", "100 bytes".
std::string FormatByteSize(size_t bytes);

}  // namespace hop
