// The JSON document type of hop's object model. Resources are JSON inside (ordered, so that key
// order survives round trips) and YAML only at the edges. Headers include this forward
// declaration only; the heavy <nlohmann/json.hpp> stays in .cc files.
#pragma once

#include <nlohmann/json_fwd.hpp>

namespace hop {

using Json = nlohmann::ordered_json;

}  // namespace hop
