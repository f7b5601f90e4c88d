// Derived watermarks (docs/operator.md, "Derived watermarks"): a plain view created WITH
// ('watermark' 'all' | 'any') takes its watermark from those of its inputs, the Tables and Views
// its query names itself (deploy::kWatermarkInputsAnnotation). The rule is a pure function,
// DeriveWatermark. So that no advance of an input is lost however fast they come, the reconciler
// that delivers an input's queued advances to its triggers also queues them on the derived views
// that read it (QueueOnDerivedViews, into their `status.inputFires`, in the same commit), and the
// View reconciler replays them in order (DeriveAdvances), one derived advance per step that moves
// it; the inputs' stored watermarks, as `status.inputWatermarks` records them, cover what was
// written without a queue. DerivedViewsOf maps an event on a Table or View to the derived views
// that read it, so that the View reconciler looks at them again.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/time.h"
#include "operator/controller.h"
#include "operator/reconciler_util.h"
#include "resource/resource.h"
#include "store/store.h"

namespace hop::op {

// The watermark of a view under `policy` from its inputs' watermarks (nullopt: an input that
// never advanced, or is gone). `all`: the oldest, and none while one input has none; `any`: the
// newest of those there are, none when no input has one. An unknown policy derives none.
std::optional<SystemTime> DeriveWatermark(std::string_view policy,
                                          const std::vector<std::optional<SystemTime>>& inputs);

// The policy of a derived view (its kWatermarkPolicyLabel), "" for any other object.
std::string WatermarkPolicy(const resource::Resource& view);

// The watermark `view` derives now from its inputs as stored; nullopt when it derives none (or
// is no derived view). Errors: the store's.
hop::Result<std::optional<SystemTime>> DerivedWatermarkOf(store::Store& store,
                                                          const resource::Resource& view);

// How many input advances a derived view queues at most; beyond that the oldest go (and the
// view's advances between them coalesce).
inline constexpr size_t kMaxInputFires = 1000;

// Adds to `batch` the queueing of `advances` (oldest first) of `input` (a Table or View) on
// every derived view of its namespace that lists it: `status.inputFires` gains `{input, at}`
// entries. The batch then fails if one of those views changed since it was listed here.
Status QueueOnDerivedViews(store::Store& store, Batch& batch, const store::ObjectRef& input,
                           const std::vector<SystemTime>& advances);

// The advances of a derived view's watermark, oldest first, each later than the one before and
// than its watermark in `status` (the view's status, which it updates: the queue of input
// advances replayed and emptied, `inputWatermarks` set to what each input was last seen at).
// Each queued input advance is applied in order and the watermark derived after it; then each
// input whose advances have all been queued (its `pendingFires` is empty) is taken as stored
// (none when it is gone), and the watermark derived once more. Nothing for a view that is not
// derived. Errors: the store's.
hop::Result<std::vector<SystemTime>> DeriveAdvances(store::Store& store,
                                                    const resource::Resource& view, Json& status);

// An EventMapper for events on Tables and Views: the derived views of the object's namespace
// that list it among their inputs. `store` is not owned and must outlive the mapper. A failed
// list maps to nothing (the periodic resync looks at every view again).
EventMapper DerivedViewsOf(store::Store& store);

}  // namespace hop::op
