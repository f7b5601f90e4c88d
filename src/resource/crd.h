// CustomResourceDefinitions both ways: those hop prints for its own kinds, generated from the
// same definitions that validate objects and serve as typed views (kinds.h), so a kind cannot
// drift between hop and its CRD; and those a user installs, read and checked as the Kubernetes
// API server reads them, so that the Kubernetes API (docs/kubernetes-api.md "Custom resources")
// serves their kinds and validates their objects.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "resource/json.h"
#include "resource/kinds.h"
#include "resource/openapi_validation.h"

namespace hop::resource {

// An apiextensions.k8s.io/v1 CustomResourceDefinition for `kind`: names and short names, scope,
// the OpenAPI v3 schema with required fields and enums, the status subresource and printer
// columns.
Json CustomResourceDefinition(const KindInfo& kind);

// CRDs for every kind in HopKinds(), in that order.
std::vector<Json> AllCustomResourceDefinitions();

// One version of an installed CRD.
struct CustomResourceVersion {
  std::string name;
  bool served = false;
  bool storage = false;
  bool status_subresource = false;
  std::vector<PrinterColumn> columns;
  // Its openAPIV3Schema, compiled; and the same as JSON for the OpenAPI documents.
  std::shared_ptr<const StructuralSchema> schema;
  std::shared_ptr<const Json> schema_json;
};

// A CustomResourceDefinition as the API serves its kind.
struct InstalledCrd {
  std::string name;  // metadata.name: PLURAL.GROUP
  std::string group;
  std::string kind;
  std::string list_kind;
  std::string plural;
  std::string singular;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  bool namespaced = true;
  std::vector<CustomResourceVersion> versions;
  // Whether a schema holds x-kubernetes-validations: CEL rules, which hop does not evaluate.
  bool has_cel_rules = false;

  // The version that is served and marked storage: the one hop serves; null when the storage
  // version is not served.
  const CustomResourceVersion* ServedStorageVersion() const;
  // The served version called `name`, or null.
  const CustomResourceVersion* ServedVersion(std::string_view name) const;
  // The kind of `version` as the API serves it: the CRD's names, scope, categories, status
  // subresource and printer columns; spec and status free-form (the schema validates them).
  KindInfo ServedKind(const CustomResourceVersion& version) const;
};

// Every way `crd` (an apiextensions.k8s.io/v1 CustomResourceDefinition object) breaks the rules
// the Kubernetes API server checks when one is written, in Kubernetes' field-error shape:
// metadata.name is PLURAL.GROUP; the group has a dot; plural, singular, short names and
// categories are lowercase DNS labels, kind and listKind start with a letter; the scope is
// Namespaced or Cluster; versions have unique DNS-1035 names, exactly one is the storage version,
// and each has a structural openAPIV3Schema (CheckStructuralSchema) and well-formed
// subresources and printer columns. Empty when it is valid.
std::vector<std::string> CheckCustomResourceDefinition(const Json& crd);

// Reads a valid CRD (CheckCustomResourceDefinition finds nothing), compiling each version's
// schema; a Validation error joining the field errors (JoinFieldErrors) otherwise. singular and
// listKind default as on Kubernetes (the kind in lower case, KIND + "List").
Result<InstalledCrd> ReadCustomResourceDefinition(const Json& crd);

// The status the API server gives a CRD: the NamesAccepted and Established conditions (True
// when `conflict` is empty, else False with it as the message), acceptedNames and
// storedVersions. A condition's lastTransitionTime is kept from `previous` (the stored status)
// while its status is unchanged, else `now`.
Json CustomResourceDefinitionStatus(const InstalledCrd& crd, const std::string& conflict,
                                    const Json& previous, const std::string& now);

}  // namespace hop::resource
