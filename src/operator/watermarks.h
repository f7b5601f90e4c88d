// Derived watermarks (docs/operator.md, "Derived watermarks"): a plain view created WITH
// ('watermark' 'all' | 'any') takes its watermark from those of its inputs, the Tables and Views
// its query names itself (deploy::kWatermarkInputsAnnotation). The rule is a pure function,
// DeriveWatermark; DerivedWatermarkOf reads the inputs from the store; DerivedViewsOf maps an
// event on a Table or View to the derived views that read it, so that the View reconciler looks
// at them again.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/time.h"
#include "operator/controller.h"
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

// An EventMapper for events on Tables and Views: the derived views of the object's namespace
// that list it among their inputs. `store` is not owned and must outlive the mapper. A failed
// list maps to nothing (the periodic resync looks at every view again).
EventMapper DerivedViewsOf(store::Store& store);

}  // namespace hop::op
