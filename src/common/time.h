// Time helpers: RFC 3339 timestamps in UTC, the form Kubernetes uses in metadata and status, and
// an injectable clock so that code that depends on time can be tested without sleeping.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace hop {

using SystemTime = std::chrono::system_clock::time_point;

// "2026-11-30T04:11:12Z" (whole seconds), or with `fraction_digits` (1-9) sub-second digits.
std::string FormatRfc3339(SystemTime t, int fraction_digits = 0);
// Parses "YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)" (also 't', 'z' and a space for 'T');
// nullopt when `text` is not such a timestamp.
std::optional<SystemTime> ParseRfc3339(std::string_view text);

// An age as kubectl prints it: "42s", "5m3s", "47m", "5h3m", "20h", "3d4h", "45d", "2y".
// Negative durations print as "0s".
std::string HumanDuration(std::chrono::seconds d);

// A source of the current time. Production code uses SystemClock(); tests inject a fake.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual SystemTime Now() const = 0;
};

const Clock& SystemClock();

}  // namespace hop
