// hop's logging front. Call sites format with fmt; the sink (spdlog) stays inside log.cc so that
// no other translation unit pays for its headers.
#pragma once

#include <fmt/format.h>

#include <string_view>
#include <utility>

namespace hop::log {

enum class Level { kTrace, kDebug, kInfo, kWarn, kError, kOff };

// Sets the minimum level that is written. Thread-safe.
void SetLevel(Level level);
Level GetLevel();
// Parses "trace", "debug", "info", "warn", "error" or "off"; false if `name` is none of them.
bool ParseLevel(std::string_view name, Level* level);
bool Enabled(Level level);
// Writes one line to standard error. Thread-safe.
void Write(Level level, std::string_view message);

template <typename... Args>
void Log(Level level, fmt::format_string<Args...> format, Args&&... args) {
  if (Enabled(level)) Write(level, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void Debug(fmt::format_string<Args...> format, Args&&... args) {
  Log(Level::kDebug, format, std::forward<Args>(args)...);
}
template <typename... Args>
void Info(fmt::format_string<Args...> format, Args&&... args) {
  Log(Level::kInfo, format, std::forward<Args>(args)...);
}
template <typename... Args>
void Warn(fmt::format_string<Args...> format, Args&&... args) {
  Log(Level::kWarn, format, std::forward<Args>(args)...);
}
template <typename... Args>
void Error(fmt::format_string<Args...> format, Args&&... args) {
  Log(Level::kError, format, std::forward<Args>(args)...);
}

}  // namespace hop::log
