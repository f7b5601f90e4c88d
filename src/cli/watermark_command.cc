#include "cli/watermark_command.h"

#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "deploy/trigger_fires.h"
#include "resource/kinds.h"

namespace hop::cli {

namespace {

// How often a write that lost a race with another writer (the operator emptying the queue) is
// tried again on the new state.
constexpr int kAttempts = 10;

}  // namespace

int RunWatermarkSet(const WatermarkSetOptions& options, store::Store& store, std::ostream& out,
                    std::ostream& err) {
  const std::string ns = options.namespace_name.empty() ? "default" : options.namespace_name;
  auto targets = deploy::ParseWatermarkTargets(options.target, ns, "target");
  if (!targets.ok() || targets->size() != 1) {
    err << "hop watermark set: "
        << EscapeForTerminal(targets.ok() ? "name one table/NAME or view/NAME"
                                          : targets.status().message())
        << "\n";
    return 2;
  }
  const store::ObjectRef ref = targets->front();
  const std::string what = deploy::WatermarkTargetText(ref);
  std::optional<SystemTime> given;
  if (!options.time.empty()) {
    auto parsed = ParseRfc3339(options.time);
    if (!parsed) {
      err << "hop watermark set: '" << EscapeForTerminal(options.time)
          << "' is not an RFC 3339 time (2026-03-01T02:00:00Z)\n";
      return 2;
    }
    given = *parsed;
  }
  const bool table = ref.kind == resource::TableKind::Info().group_kind();
  for (int attempt = 0;; ++attempt) {
    auto found = store.Find(ref);
    if (!found.ok()) {
      err << "hop watermark set: " << EscapeForTerminal(found.status().ToString()) << "\n";
      return 1;
    }
    if (!*found) {
      err << "hop watermark set: " << what << " not found in namespace " << ns << "\n";
      return 1;
    }
    resource::Resource object = std::move(**found);
    const auto labels = object.labels();
    if (auto policy = labels.find(std::string(deploy::kWatermarkPolicyLabel));
        policy != labels.end()) {
      err << "hop watermark set: " << what
          << " derives its watermark from its inputs' ('watermark' '"
          << EscapeForTerminal(policy->second) << "'): set theirs instead\n";
      return 1;
    }
    // A table CREATE TABLE ... AS has not filled yet holds none of its query's rows, and what
    // is set now would stay when its fill succeeds (docs/ddl.md, FIRE): not even --force.
    std::optional<std::string> unfilled;
    if (table) {
      auto found = deploy::UnfilledTable(store, object);
      if (!found.ok()) {
        err << "hop watermark set: " << EscapeForTerminal(found.status().ToString()) << "\n";
        return 1;
      }
      unfilled = std::move(found).value();
    }
    if (unfilled) {
      err << "hop watermark set: " << what << " is filled by CREATE TABLE ... AS, and "
          << EscapeForTerminal(*unfilled)
          << ": it holds none of its query's rows yet, so no watermark can be claimed for them; "
             "its watermark becomes the one its fill earns when the fill succeeds (hop refresh "
          << what << " runs it), and is its writers' to set after that\n";
      return 1;
    }
    if (!table && attempt == 0) {
      auto refreshed = deploy::HopRefreshesView(store, object);
      if (!refreshed.ok()) {
        err << "hop watermark set: " << EscapeForTerminal(refreshed.status().ToString()) << "\n";
        return 1;
      }
      if (*refreshed) {
        err << "hop watermark set: " << what
            << " is a materialized view hop refreshes: its watermark is the one its refreshes "
               "earn from what they read (docs/runtime.md, \"Refreshes\"); set its inputs' "
               "watermarks, and REFRESH MATERIALIZED VIEW refreshes it\n";
        return 1;
      }
    }
    Json status =
        object.status() && object.status()->is_object() ? *object.status() : Json::object();
    deploy::ViewFires fires(status, table ? "Table" : "View");
    const std::optional<SystemTime> before = fires.Watermark();
    // Without a time: now, or just after the watermark when that is later (as FIRE stamps), so
    // that producers saying "complete up to now" at once all advance it.
    SystemTime at = std::chrono::floor<std::chrono::milliseconds>(options.clock->Now());
    if (given) {
      at = *given;
    } else if (before && at <= *before) {
      at = *before + std::chrono::milliseconds(1);
    }
    auto moved = fires.Set(at, options.force, ref.name);
    if (!moved.ok()) {
      err << "hop watermark set: " << EscapeForTerminal(moved.status().message()) << "\n";
      return 1;
    }
    if (!*moved) {
      out << what << " watermark already at " << deploy::TriggerFires::Stamp(*before) << "\n";
      return 0;
    }
    object.set_status(std::move(status));
    // Written only over the version read: a concurrent advance or delivery is not overwritten.
    auto written = store.UpdateStatus(object);
    if (written.ok()) {
      out << what << " watermark " << deploy::TriggerFires::Stamp(at);
      if (before) out << " (was " << deploy::TriggerFires::Stamp(*before) << ")";
      out << "\n";
      return 0;
    }
    if (written.status().code() != StatusCode::kConflict || attempt + 1 >= kAttempts) {
      err << "hop watermark set: " << EscapeForTerminal(written.status().ToString()) << "\n";
      return 1;
    }
  }
}

}  // namespace hop::cli
