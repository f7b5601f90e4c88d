// Validation of resources before they are stored: the document's shape, Kubernetes' rules for
// names, namespaces, label and annotation keys and values, and, for hop's kinds, the kind's
// schema (required fields, types, enums). Findings name the field path and the rule.
#pragma once

#include "common/issues.h"
#include "resource/resource.h"
#include "resource/schema.h"

namespace hop::resource {

struct ValidationOptions {
  // What to do with fields that are not declared: at the top level and in the spec of hop's
  // kinds, and in any object's metadata (kubectl's field validation). Other kinds' fields,
  // free-form fields and status are not checked for them.
  UnknownFields unknown_fields = UnknownFields::kAllow;
};

// Records every problem of `r` in `issues` (a context already naming the document).
void ValidateResource(const Resource& r, Issues* issues, const ValidationOptions& options = {});

}  // namespace hop::resource
