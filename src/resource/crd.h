// CustomResourceDefinitions for hop's kinds, generated from the same definitions that validate
// objects and serve as typed views (kinds.h), so a kind cannot drift between hop and its CRD.
#pragma once

#include <vector>

#include "resource/json.h"
#include "resource/kinds.h"

namespace hop::resource {

// An apiextensions.k8s.io/v1 CustomResourceDefinition for `kind`: names and short names, scope,
// the OpenAPI v3 schema with required fields and enums, the status subresource and printer
// columns.
Json CustomResourceDefinition(const KindInfo& kind);

// CRDs for every kind in HopKinds(), in that order.
std::vector<Json> AllCustomResourceDefinitions();

}  // namespace hop::resource
