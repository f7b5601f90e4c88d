// Validation of resources before they are stored: the document's shape, Kubernetes' rules for
// names, namespaces, label and annotation keys and values, and, for hop's kinds, the kind's
// schema (required fields, types, enums). Findings name the field path and the rule.
#pragma once

#include "common/issues.h"
#include "resource/resource.h"
#include "resource/schema.h"

namespace hop::resource {

struct ValidationOptions {
  // What to do with fields that are not declared: at the top level of every kind hop knows
  // (KindInfo::ObjectFields), in the spec of hop's kinds, in the declared fields of other kinds
  // when `external_fields` is set, and in any object's metadata (kubectl's field validation).
  // Free-form fields and status are not checked for them.
  UnknownFields unknown_fields = UnknownFields::kAllow;
  // Also check the fields that kinds hop does not define declare (a Lease's spec, a Role's
  // rules, a ConfigMap's data) against their schemas, as their API server does. The Kubernetes
  // API sets it; the store does not, so that objects hop's templates render are stored as they
  // are.
  bool external_fields = false;
};

// Records every problem of `r` in `issues` (a context already naming the document).
void ValidateResource(const Resource& r, Issues* issues, const ValidationOptions& options = {});

}  // namespace hop::resource
