// hop's logging front. Call sites format with fmt; the sink (spdlog) stays inside log.cc so that
// no other translation unit pays for its headers. Lines are text (the default) or one JSON
// object each (`hop --log-format json`, docs/metrics.md "Logs"); a line written while a reconcile
// runs on the thread carries that reconcile's id in JSON.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <utility>

#include "common/time.h"

namespace hop::log {

enum class Level { kTrace, kDebug, kInfo, kWarn, kError, kOff };

// Sets the minimum level that is written. Thread-safe.
void SetLevel(Level level);
Level GetLevel();
// Parses "trace", "debug", "info", "warn", "error" or "off"; false if `name` is none of them.
bool ParseLevel(std::string_view name, Level* level);
bool Enabled(Level level);
// Writes one line to standard error, in the format SetFormat chose. Thread-safe.
void Write(Level level, std::string_view message);

enum class Format {
  kText,  // "2026-12-02T04:23:49.123Z warning message"
  kJson,  // {"ts":"2026-12-02T04:23:49.123Z","level":"warn","msg":"message",...}
};
// Sets the format of every line written from now on. Thread-safe.
void SetFormat(Format format);
Format GetFormat();
// Parses "text" or "json"; false if `name` is neither.
bool ParseFormat(std::string_view name, Format* format);

// Marks the lines the current thread writes while it lives as written during one reconcile:
// `id` is the reconcile's id (unique per reconcile), `object` what it reconciles
// ("TableTrigger default/nightly"). JSON lines get them as `reconcile_id` and `object`; text
// lines are unchanged (the controller already starts its own lines with the id). Scopes nest:
// the outer one is back when the inner one ends. Not to be moved to another thread.
class ReconcileScope {
 public:
  ReconcileScope(std::string id, std::string object);
  ~ReconcileScope();
  ReconcileScope(const ReconcileScope&) = delete;
  ReconcileScope& operator=(const ReconcileScope&) = delete;

 private:
  std::string previous_id_;
  std::string previous_object_;
};
// The id of the reconcile running on this thread; "" outside one.
const std::string& CurrentReconcileId();

// The JSON line (without its newline) Write writes in Format::kJson for `message` at `at`, on
// this thread: valid JSON whatever the bytes of `message` (control characters escaped, bytes
// that are not UTF-8 replaced by U+FFFD). Secrets are not redacted here; Write redacts first.
std::string JsonLine(Level level, std::string_view message, SystemTime at);

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
