// Structural schemas of resource kinds: the single definition from which hop validates objects,
// generates CustomResourceDefinitions and builds its typed views (kinds.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/issues.h"
#include "resource/json.h"

namespace hop::resource {

struct SchemaProperty;

// A subset of OpenAPI v3 as Kubernetes structural schemas use it.
struct Schema {
  enum class Type { kObject, kString, kInteger, kNumber, kBoolean, kArray };

  Type type = Type::kObject;
  std::string description;
  std::string format;                    // "date-time", "int64"
  std::vector<std::string> enum_values;  // strings only
  std::string default_value;             // strings only; empty = none
  std::vector<SchemaProperty> properties;  // objects, in declaration order
  std::vector<std::string> required;
  std::shared_ptr<const Schema> items;       // arrays
  std::shared_ptr<const Schema> additional;  // objects used as maps
  bool preserve_unknown_fields = false;      // free-form objects

  // Builders.
  static Schema String(std::string description = {});
  static Schema DateTime(std::string description = {});
  static Schema Enum(std::vector<std::string> values, std::string description = {});
  static Schema Boolean(std::string description = {});
  static Schema Integer(std::string description = {});  // int64
  static Schema ArrayOf(Schema items, std::string description = {});
  static Schema MapOf(Schema values, std::string description = {});
  static Schema Object(std::string description = {});
  static Schema FreeForm(std::string description = {});
  Schema& Property(std::string name, Schema schema, bool required = false);
  Schema& Default(std::string value);

  const Schema* FindProperty(std::string_view name) const;

  // Defined in schema.cc, where SchemaProperty is complete.
  Schema();
  ~Schema();
  Schema(const Schema&);
  Schema(Schema&&) noexcept;
  Schema& operator=(const Schema&);
  Schema& operator=(Schema&&) noexcept;
};

struct SchemaProperty {
  std::string name;
  Schema schema;
};

// The schema as an OpenAPI v3 JSON object, as it appears in a CRD.
Json ToOpenApi(const Schema& schema);

// What validation does with a field a schema does not declare.
enum class UnknownFields {
  kAllow,   // keep it: hop keeps fields it does not know
  kWarn,    // keep it, and record a warning naming it
  kReject,  // record an error naming it (kubectl's strict field validation)
};

// Records in `issues` every way `value` (at `path`, e.g. "spec") breaks `schema`: wrong types,
// missing required properties, values outside an enum, and, as `unknown` says, properties the
// schema does not declare (named with their path and the fields the schema knows there);
// free-form objects and maps take any keys. With `formats`, also integers outside the range
// of their format (int32, int64) and strings of format date-time that are not RFC 3339
// timestamps, as Kubernetes checks its own kinds' fields; hop's kinds leave formats unchecked.
void ValidateAgainst(const Json& value, const Schema& schema, const std::string& path,
                     Issues* issues, UnknownFields unknown = UnknownFields::kAllow,
                     bool formats = false);

}  // namespace hop::resource
