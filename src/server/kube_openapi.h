// The OpenAPI documents of hop's Kubernetes API (docs/kubernetes-api.md): Swagger 2.0 for
// /openapi/v2 and OpenAPI 3.0 per group-version for /openapi/v3, built from the kinds' schemas.
// kubectl reads them to validate and `apply` objects, to `explain` kinds and to learn that the
// server validates fields itself; they are pure functions so the server only serves what they
// return.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "resource/json.h"
#include "resource/kinds.h"

namespace hop::server {

// The definition (v2) or component (v3) name of a kind, as kube-apiserver names it: the group
// reversed, then version and kind (`com.linkedin.hoptimator.v1alpha1.View`); Kubernetes' own groups
// are `io.k8s.api.GROUP.VERSION.KIND` (`io.k8s.api.core.v1.ConfigMap`, `io.k8s.api.batch.v1.Job`),
// and CustomResourceDefinition is `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1...`.
std::string OpenApiDefinitionName(const resource::KindInfo& kind);

// The Swagger 2.0 document of /openapi/v2 for `kinds`: a definition per kind and per list kind,
// the metav1 types they refer to (ObjectMeta, ListMeta, Status, DeleteOptions, ...), and the
// collection, item and (for kinds with status_subresource) status paths with their operations.
// Patches are declared as JSON patch, JSON merge patch and apply patch only, never strategic
// merge patch, as kube-apiserver declares custom resources. Kinds whose spec and status are
// free-form (x-kubernetes-preserve-unknown-fields) get exactly that; kinds with top-level fields
// (KindInfo::top_level) get those instead of spec and status; a kind with an installed CRD's
// schema (KindInfo::open_api_schema) gets that schema; duplicates are skipped.
Json OpenApiV2(const std::vector<const resource::KindInfo*>& kinds);

// The document of /openapi/v3: every group-version of `kinds` (`api/v1` for the core group,
// `apis/GROUP/VERSION` otherwise) with the URL of its document, carrying OpenApiV3Hash of it.
Json OpenApiV3Index(const std::vector<const resource::KindInfo*>& kinds);

// The OpenAPI 3.0.0 document of one group-version (/openapi/v3/apis/GROUP/VERSION; the core
// group is group "" and version "v1", served at /openapi/v3/api/v1): the same schemas as
// OpenApiV2 under components.schemas, and the paths of the kinds of that group-version.
// NotFound when no kind in `kinds` has that group-version.
Result<Json> OpenApiV3(std::string_view group, std::string_view version,
                       const std::vector<const resource::KindInfo*>& kinds);

// The stable hash of a document that the index puts in `?hash=`: the SHA-512 of its compact
// JSON text, as upper-case hex. Equal documents hash equally across runs and processes.
std::string OpenApiV3Hash(const Json& doc);

// The Swagger 2.0 document `swagger` (as OpenApiV2 returns it) in protobuf, as gnostic's
// openapi.v2.Document: what /openapi/v2 answers to
// `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`, the only form older
// kubectl (1.20) reads. Values the message keeps as openapi.v2.Any (vendor extensions, defaults,
// enums) are stored as their JSON text in its `yaml` field. Keys of the document that the
// message has no field for, and that are not vendor extensions (x-...), are left out.
std::string OpenApiV2Protobuf(const Json& swagger);

}  // namespace hop::server
