// Custom resources checked against a CustomResourceDefinition's structural `openAPIV3Schema`, as
// the Kubernetes API server checks them (docs/kubernetes-api.md "Custom resources"): the schema
// itself first (CheckStructuralSchema: what a CRD may hold), then each object: fields the schema
// neither declares nor preserves are pruned, nulls the schema does not allow are dropped,
// defaults are set, and the rest is validated (types, properties, required, items, enum,
// additionalProperties, nullable, x-kubernetes-preserve-unknown-fields,
// x-kubernetes-int-or-string, x-kubernetes-list-type, formats, bounds, patterns, allOf, anyOf,
// oneOf and not).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "resource/json.h"

namespace re2 {
class RE2;
}

namespace hop::resource {

// Field errors joined as the Kubernetes API server joins them in a message: one error alone,
// several in brackets, separated by ", " (`[spec.a: Required value, spec.b: Invalid value: ...]`).
std::string JoinFieldErrors(const std::vector<std::string>& errors);

// Records in `errors` every way `schema`, found at field path `path` of a CRD
// (`spec.versions[0].schema.openAPIV3Schema`), is not a structural schema the Kubernetes API
// server accepts: a `type` missing where one is required, not a string or not one of the six
// types; keywords of the wrong JSON type; properties beside additionalProperties; `items` that
// is not one schema; what value validations (allOf, anyOf, oneOf, not) may not set; metadata
// restricted beyond name and generateName; forbidden keywords ($ref, definitions,
// patternProperties, ...); a `pattern` RE2 cannot compile. Errors are in Kubernetes' field-error
// shape (`...properties[spec].type: Required value: must not be empty for specified object
// fields`).
void CheckStructuralSchema(const Json& schema, const std::string& path,
                           std::vector<std::string>* errors);

// A structural schema ready to check objects: its patterns compiled once. Immutable and
// thread-safe once compiled.
class StructuralSchema {
 public:
  // Compiles `schema`; a Validation error joining what CheckStructuralSchema finds (with `path`
  // as the schema's field path) when it is not structural.
  static Result<std::shared_ptr<const StructuralSchema>> Compile(
      Json schema, const std::string& path = "openAPIV3Schema");
  ~StructuralSchema();
  StructuralSchema(const StructuralSchema&) = delete;
  StructuralSchema& operator=(const StructuralSchema&) = delete;

  const Json& json() const { return *schema_; }

  // Checks `value` (at field path `path`, "" for an object's root) as the API server does on a
  // write: removes every object field the schema neither declares nor preserves (their paths go
  // to `pruned` when it is not null) and the nulls of fields that are not nullable, sets the
  // defaults of absent fields, then appends each problem to `errors` in Kubernetes' field-error
  // shape (`spec.replicas: Invalid value: "x": spec.replicas in body must be of type integer:
  // "string"`). At the root, apiVersion, kind and metadata are left to the caller.
  void Validate(Json& value, const std::string& path, std::vector<std::string>* errors,
                std::vector<std::string>* pruned = nullptr) const;

 private:
  class Walker;
  explicit StructuralSchema(Json schema);

  std::unique_ptr<const Json> schema_;
  // The compiled `pattern` of each schema node that has one, by the node's address in schema_.
  std::unordered_map<const Json*, std::unique_ptr<re2::RE2>> patterns_;
};

// Compiles `schema` and validates `value` with it (StructuralSchema::Validate); a schema that does
// not compile adds its problems to `errors` instead.
void ValidateOpenApi(const Json& schema, Json& value, const std::string& path,
                     std::vector<std::string>* errors);

}  // namespace hop::resource
