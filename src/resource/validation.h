// Validation of resources before they are stored: the document's shape, Kubernetes' rules for
// names, namespaces, label and annotation keys and values, and, for hop's kinds, the kind's
// schema (required fields, types, enums). Findings name the field path and the rule.
#pragma once

#include "common/issues.h"
#include "resource/resource.h"

namespace hop::resource {

// Records every problem of `r` in `issues` (a context already naming the document).
void ValidateResource(const Resource& r, Issues* issues);

}  // namespace hop::resource
