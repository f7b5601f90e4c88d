// Schema builders, OpenAPI rendering and validation.
#include "resource/schema.h"

#include <fmt/format.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "common/time.h"

namespace hop::resource {

Schema::Schema() = default;
Schema::~Schema() = default;
Schema::Schema(const Schema&) = default;
Schema::Schema(Schema&&) noexcept = default;
Schema& Schema::operator=(const Schema&) = default;
Schema& Schema::operator=(Schema&&) noexcept = default;

Schema Schema::String(std::string description) {
  Schema s;
  s.type = Type::kString;
  s.description = std::move(description);
  return s;
}

Schema Schema::DateTime(std::string description) {
  Schema s = String(std::move(description));
  s.format = "date-time";
  return s;
}

Schema Schema::Enum(std::vector<std::string> values, std::string description) {
  Schema s = String(std::move(description));
  s.enum_values = std::move(values);
  return s;
}

Schema Schema::Boolean(std::string description) {
  Schema s;
  s.type = Type::kBoolean;
  s.description = std::move(description);
  return s;
}

Schema Schema::Integer(std::string description) {
  Schema s;
  s.type = Type::kInteger;
  s.format = "int64";
  s.description = std::move(description);
  return s;
}

Schema Schema::ArrayOf(Schema items, std::string description) {
  Schema s;
  s.type = Type::kArray;
  s.items = std::make_shared<const Schema>(std::move(items));
  s.description = std::move(description);
  return s;
}

Schema Schema::MapOf(Schema values, std::string description) {
  Schema s;
  s.type = Type::kObject;
  s.additional = std::make_shared<const Schema>(std::move(values));
  s.description = std::move(description);
  return s;
}

Schema Schema::Object(std::string description) {
  Schema s;
  s.type = Type::kObject;
  s.description = std::move(description);
  return s;
}

Schema Schema::FreeForm(std::string description) {
  Schema s = Object(std::move(description));
  s.preserve_unknown_fields = true;
  return s;
}

Schema& Schema::Property(std::string name, Schema schema, bool is_required) {
  if (is_required) required.push_back(name);
  properties.push_back({std::move(name), std::move(schema)});
  return *this;
}

Schema& Schema::Default(std::string value) {
  default_value = std::move(value);
  return *this;
}

const Schema* Schema::FindProperty(std::string_view name) const {
  for (const auto& [n, s] : properties) {
    if (n == name) return &s;
  }
  return nullptr;
}

namespace {

std::string_view TypeName(Schema::Type t) {
  switch (t) {
    case Schema::Type::kObject: return "object";
    case Schema::Type::kString: return "string";
    case Schema::Type::kInteger: return "integer";
    case Schema::Type::kNumber: return "number";
    case Schema::Type::kBoolean: return "boolean";
    case Schema::Type::kArray: return "array";
  }
  return "object";
}

std::string_view JsonTypeName(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "mapping";
}

bool HasType(const Json& v, Schema::Type t) {
  switch (t) {
    case Schema::Type::kObject: return v.is_object();
    case Schema::Type::kString: return v.is_string();
    case Schema::Type::kInteger: return v.is_number_integer();
    case Schema::Type::kNumber: return v.is_number();
    case Schema::Type::kBoolean: return v.is_boolean();
    case Schema::Type::kArray: return v.is_array();
  }
  return false;
}

std::string Join(const std::vector<std::string>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += values[i];
  }
  return out;
}

}  // namespace

Json ToOpenApi(const Schema& s) {
  Json out = Json::object();
  if (!s.description.empty()) out["description"] = s.description;
  out["type"] = std::string(TypeName(s.type));
  if (!s.format.empty()) out["format"] = s.format;
  if (!s.enum_values.empty()) out["enum"] = s.enum_values;
  if (!s.default_value.empty()) out["default"] = s.default_value;
  if (!s.properties.empty()) {
    Json props = Json::object();
    for (const auto& [name, child] : s.properties) props[name] = ToOpenApi(child);
    out["properties"] = std::move(props);
  }
  if (!s.required.empty()) out["required"] = s.required;
  if (s.items) out["items"] = ToOpenApi(*s.items);
  if (s.additional) out["additionalProperties"] = ToOpenApi(*s.additional);
  if (s.preserve_unknown_fields) out["x-kubernetes-preserve-unknown-fields"] = true;
  return out;
}

void ValidateAgainst(const Json& value, const Schema& schema, const std::string& path,
                     Issues* issues, UnknownFields unknown, bool formats) {
  if (!HasType(value, schema.type)) {
    issues->Error(fmt::format("{}: must be {} {}, not {}", path,
                              schema.type == Schema::Type::kArray ||
                                      schema.type == Schema::Type::kInteger
                                  ? "an"
                                  : "a",
                              schema.type == Schema::Type::kObject ? "mapping"
                                                                   : TypeName(schema.type),
                              JsonTypeName(value)));
    return;
  }
  if (schema.type == Schema::Type::kString && schema.format == "byte") {
    // base64, as Go's JSON decoding of []byte reads it: padded, line breaks skipped.
    std::string text = value.get<std::string>();
    std::erase_if(text, [](char c) { return c == '\r' || c == '\n'; });
    if (!Base64Decode(text)) issues->Error(fmt::format("{}: must be base64", path));
  }
  // The formats Kubernetes checks of its own kinds' fields (a Lease's int32 durations and
  // date-time renewals, docs/kubernetes-api.md "Kinds and discovery").
  if (formats && schema.type == Schema::Type::kString && schema.format == "date-time" &&
      !ParseRfc3339(value.get_ref<const std::string&>())) {
    issues->Error(fmt::format("{}: must be a date-time (RFC 3339, as 2006-01-02T15:04:05Z), not {}",
                              path, value.dump()));
  }
  if (formats && schema.type == Schema::Type::kInteger) {
    const bool int32 = schema.format == "int32";
    const bool fits =
        value.is_number_unsigned()
            ? value.get<uint64_t>() <=
                  static_cast<uint64_t>(int32 ? std::numeric_limits<int32_t>::max()
                                              : std::numeric_limits<int64_t>::max())
            : !int32 || (value.get<int64_t>() >= std::numeric_limits<int32_t>::min() &&
                         value.get<int64_t>() <= std::numeric_limits<int32_t>::max());
    if (!fits) {
      issues->Error(fmt::format("{}: must be an {} integer, not {}", path,
                                int32 ? "int32" : "int64", value.dump()));
    }
  }
  if (!schema.enum_values.empty()) {
    const std::string& v = value.get_ref<const std::string&>();
    bool found = false;
    for (const auto& e : schema.enum_values) found |= e == v;
    if (!found) {
      issues->Error(fmt::format("{}: \"{}\" is not one of {}", path, v, Join(schema.enum_values)));
    }
  }
  if (schema.type == Schema::Type::kArray && schema.items) {
    for (size_t i = 0; i < value.size(); ++i) {
      ValidateAgainst(value[i], *schema.items, fmt::format("{}[{}]", path, i), issues, unknown,
                      formats);
    }
  }
  if (schema.type == Schema::Type::kObject) {
    for (const auto& r : schema.required) {
      auto it = value.find(r);
      if (it == value.end() || it->is_null()) {
        issues->Error(fmt::format("{}.{}: required field is missing", path, r));
      }
    }
    for (const auto& [name, child] : value.items()) {
      const std::string child_path = fmt::format("{}.{}", path, name);
      if (const Schema* declared = schema.FindProperty(name)) {
        if (child.is_null()) continue;  // an explicit null is an absent optional field
        ValidateAgainst(child, *declared, child_path, issues, unknown, formats);
      } else if (schema.additional) {
        ValidateAgainst(child, *schema.additional, child_path, issues, unknown, formats);
      } else if (unknown != UnknownFields::kAllow && !schema.preserve_unknown_fields) {
        std::vector<std::string> known;
        for (const SchemaProperty& p : schema.properties) known.push_back(p.name);
        std::string message = fmt::format("{}: unknown field (known fields: {})", child_path,
                                          known.empty() ? "none" : Join(known));
        if (unknown == UnknownFields::kReject) {
          issues->Error(std::move(message));
        } else {
          issues->Warning(std::move(message));
        }
      }
    }
  }
}

}  // namespace hop::resource
