// The spdlog-backed sink behind log.h: one stderr sink, written through a text logger (spdlog's
// pattern) or a JSON one (lines made here, written as they are), created on first use.
#include "common/log.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>

#include "common/json_text.h"
#include "common/redact.h"
#include "common/strings.h"

namespace hop::log {
namespace {

std::atomic<Level> g_level{Level::kWarn};
std::atomic<Format> g_format{Format::kText};

// The reconcile running on this thread (ReconcileScope).
thread_local std::string t_reconcile_id;
thread_local std::string t_reconcile_object;

std::shared_ptr<spdlog::sinks::stderr_sink_mt> Sink() {
  static auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  return sink;
}

spdlog::logger& Logger() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto l = std::make_shared<spdlog::logger>("hop", Sink());
    l->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %v", spdlog::pattern_time_type::utc);
    l->set_level(spdlog::level::trace);  // filtering happens in Enabled()
    return l;
  }();
  return *logger;
}

// Writes whole lines made by JsonLine; sharing the sink keeps them from interleaving with text
// lines written meanwhile.
spdlog::logger& JsonLogger() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto l = std::make_shared<spdlog::logger>("hop-json", Sink());
    l->set_pattern("%v");
    l->set_level(spdlog::level::trace);
    return l;
  }();
  return *logger;
}

std::string_view LevelName(Level level) {
  switch (level) {
    case Level::kTrace: return "trace";
    case Level::kDebug: return "debug";
    case Level::kInfo: return "info";
    case Level::kWarn: return "warn";
    case Level::kError: return "error";
    case Level::kOff: return "off";
  }
  return "info";
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
  if (g_format.load(std::memory_order_relaxed) == Format::kJson) {
    const std::string line = JsonLine(level, RedactSecrets(message), SystemClock().Now());
    JsonLogger().log(ToSpd(level), "{}", line);
    return;
  }
  Logger().log(ToSpd(level), RedactSecrets(message));
}

void SetFormat(Format format) { g_format.store(format, std::memory_order_relaxed); }
Format GetFormat() { return g_format.load(std::memory_order_relaxed); }

bool ParseFormat(std::string_view name, Format* format) {
  if (name == "text") {
    *format = Format::kText;
  } else if (name == "json") {
    *format = Format::kJson;
  } else {
    return false;
  }
  return true;
}

ReconcileScope::ReconcileScope(std::string id, std::string object)
    : previous_id_(std::exchange(t_reconcile_id, std::move(id))),
      previous_object_(std::exchange(t_reconcile_object, std::move(object))) {}

ReconcileScope::~ReconcileScope() {
  t_reconcile_id = std::move(previous_id_);
  t_reconcile_object = std::move(previous_object_);
}

const std::string& CurrentReconcileId() { return t_reconcile_id; }

std::string JsonLine(Level level, std::string_view message, SystemTime at) {
  std::string out = "{\"ts\":\"";
  out += FormatRfc3339(at, 3);
  out += "\",\"level\":\"";
  out += LevelName(level);
  out += "\",\"msg\":";
  AppendJsonStringOfAnyBytes(message, out);
  if (!t_reconcile_id.empty()) {
    out += ",\"reconcile_id\":";
    AppendJsonStringOfAnyBytes(t_reconcile_id, out);
    out += ",\"object\":";
    AppendJsonStringOfAnyBytes(t_reconcile_object, out);
  }
  out += '}';
  return out;
}

}  // namespace hop::log
