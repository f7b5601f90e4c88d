// The spdlog-backed sink behind log.h. One stderr logger, created on first use.
#include "common/log.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>

#include "common/redact.h"

namespace hop::log {
namespace {

std::atomic<Level> g_level{Level::kWarn};

spdlog::logger& Logger() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto l =
        std::make_shared<spdlog::logger>("hop", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    l->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %v", spdlog::pattern_time_type::utc);
    l->set_level(spdlog::level::trace);  // filtering happens in Enabled()
    return l;
  }();
  return *logger;
}

spdlog::level::level_enum ToSpd(Level level) {
  switch (level) {
    case Level::kTrace: return spdlog::level::trace;
    case Level::kDebug: return spdlog::level::debug;
    case Level::kInfo: return spdlog::level::info;
    case Level::kWarn: return spdlog::level::warn;
    case Level::kError: return spdlog::level::err;
    case Level::kOff: return spdlog::level::off;
  }
  return spdlog::level::info;
}

}  // namespace

void SetLevel(Level level) { g_level.store(level, std::memory_order_relaxed); }
Level GetLevel() { return g_level.load(std::memory_order_relaxed); }

bool ParseLevel(std::string_view name, Level* level) {
  static constexpr std::pair<std::string_view, Level> kNames[] = {
      {"trace", Level::kTrace}, {"debug", Level::kDebug}, {"info", Level::kInfo},
      {"warn", Level::kWarn},   {"error", Level::kError}, {"off", Level::kOff},
  };
  for (const auto& [n, l] : kNames) {
    if (n == name) {
      *level = l;
      return true;
    }
  }
  return false;
}

bool Enabled(Level level) {
  return level != Level::kOff && level >= g_level.load(std::memory_order_relaxed);
}

// Log lines never carry a secret (ARCHITECTURE.md §4.16).
void Write(Level level, std::string_view message) {
  Logger().log(ToSpd(level), RedactSecrets(message));
}

}  // namespace hop::log
