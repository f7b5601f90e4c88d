// Validation of a custom resource against a CustomResourceDefinition's structural
// `openAPIV3Schema`, as the Kubernetes API server does it (docs/kubernetes-api.md "Custom
// resources"): types, properties, required, items, enum, additionalProperties, nullable,
// x-kubernetes-preserve-unknown-fields, x-kubernetes-int-or-string, formats, bounds and patterns;
// fields the schema does not declare or preserve are pruned.
#pragma once

#include <string>
#include <vector>

#include "resource/json.h"

namespace hop::resource {

// Checks `value` (at field path `path`, "" for the document's root) against `schema`, removing
// from `value` every object field the schema neither declares nor preserves. Each problem is
// appended to `errors` in Kubernetes' field-error shape
// (`spec.job.parallelism: Invalid value: "string": spec.job.parallelism in body must be of type
// integer: "string"`). At the root, apiVersion, kind and metadata are left to the caller.
void ValidateOpenApi(const Json& schema, Json& value, const std::string& path,
                     std::vector<std::string>* errors);

}  // namespace hop::resource
