#include "resource/openapi_validation.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/time.h"

namespace hop::resource {

namespace {

// The type name Kubernetes reports for a JSON value.
std::string TypeOf(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

// A value as Kubernetes quotes it in `Invalid value: ...`: strings quoted, objects and arrays
// summarised.
std::string Shown(const Json& v) {
  if (v.is_object()) return "\"object\"";
  if (v.is_array()) return "\"array\"";
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string Child(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

bool Flag(const Json& schema, const char* key) {
  auto it = schema.find(key);
  return it != schema.end() && it->is_boolean() && it->get<bool>();
}

const Json* Member(const Json& schema, const char* key) {
  auto it = schema.find(key);
  return it == schema.end() ? nullptr : &*it;
}

bool TypeMatches(const std::string& want, const Json& v) {
  if (want == "object") return v.is_object();
  if (want == "array") return v.is_array();
  if (want == "string") return v.is_string();
  if (want == "integer") {
    // A float with no fraction (1.0) is an integer; the check must not cast a huge double to an
    // integer type (undefined behaviour for 1e300).
    return v.is_number_integer() || (v.is_number_float() && std::isfinite(v.get<double>()) &&
                                     std::trunc(v.get<double>()) == v.get<double>());
  }
  if (want == "number") return v.is_number();
  if (want == "boolean") return v.is_boolean();
  return true;
}

void Invalid(std::vector<std::string>* errors, const std::string& path, const Json& v,
             const std::string& detail) {
  errors->push_back(fmt::format("{}: Invalid value: {}: {}", path, Shown(v), detail));
}

}  // namespace

void ValidateOpenApi(const Json& schema, Json& value, const std::string& path,
                     std::vector<std::string>* errors) {
  if (!schema.is_object()) return;
  const std::string where = path.empty() ? "body" : path;
  if (value.is_null()) {
    // A null is accepted only where the schema says nullable (the API server drops other nulls
    // only under defaulting, which hop does not model).
    const Json* type = Member(schema, "type");
    if (!Flag(schema, "nullable") && type && type->is_string()) {
      Invalid(
          errors, where, value,
          fmt::format("{} in body must be of type {}: \"null\"", where, type->get<std::string>()));
    }
    return;
  }
  const bool int_or_string = Flag(schema, "x-kubernetes-int-or-string");
  if (int_or_string) {
    if (!value.is_string() && !TypeMatches("integer", value)) {
      Invalid(errors, where, value,
              fmt::format("{} in body must be of type integer,string: \"{}\"", where,
                          TypeOf(value)));
      return;
    }
  } else if (const Json* type = Member(schema, "type"); type && type->is_string()) {
    if (!TypeMatches(type->get<std::string>(), value)) {
      Invalid(errors, where, value,
              fmt::format("{} in body must be of type {}: \"{}\"", where,
                          type->get<std::string>(), TypeOf(value)));
      return;
    }
  }
  if (const Json* e = Member(schema, "enum"); e && e->is_array()) {
    bool found = false;
    for (const Json& allowed : *e) found = found || allowed == value;
    if (!found) {
      std::string list;
      for (const Json& allowed : *e) {
        list += (list.empty() ? "" : ", ") + Shown(allowed);
      }
      errors->push_back(
          fmt::format("{}: Unsupported value: {}: supported values: {}", where, Shown(value), list));
    }
  }
  if (value.is_string()) {
    const std::string s = value.get<std::string>();
    if (const Json* m = Member(schema, "maxLength"); m && m->is_number() &&
                                                      s.size() > m->get<size_t>()) {
      errors->push_back(fmt::format("{}: Too long: may not be more than {} bytes", where,
                                    m->get<size_t>()));
    }
    if (const Json* m = Member(schema, "minLength"); m && m->is_number() &&
                                                      s.size() < m->get<size_t>()) {
      Invalid(errors, where, value,
              fmt::format("{} in body should be at least {} chars long", where, m->get<size_t>()));
    }
    if (const Json* p = Member(schema, "pattern"); p && p->is_string()) {
      RE2 re(p->get<std::string>(), RE2::Quiet);
      if (re.ok() && !RE2::PartialMatch(s, re)) {
        Invalid(errors, where, value,
                fmt::format("{} in body should match '{}'", where, p->get<std::string>()));
      }
    }
    if (const Json* f = Member(schema, "format"); f && f->is_string() && !int_or_string &&
                                                   f->get<std::string>() == "date-time" &&
                                                   !ParseRfc3339(s)) {
      Invalid(errors, where, value,
              fmt::format("{} in body must be of type date-time: {}", where, Shown(value)));
    }
  }
  if (value.is_number()) {
    const double d = value.get<double>();
    if (const Json* f = Member(schema, "format"); f && f->is_string()) {
      const std::string format = f->get<std::string>();
      if (format == "int32" && (d < std::numeric_limits<int32_t>::min() ||
                                d > std::numeric_limits<int32_t>::max())) {
        Invalid(errors, where, value, fmt::format("{} in body must be of type int32", where));
      }
    }
    if (const Json* m = Member(schema, "minimum"); m && m->is_number() && d < m->get<double>()) {
      Invalid(errors, where, value,
              fmt::format("{} in body should be greater than or equal to {}", where, m->dump()));
    }
    if (const Json* m = Member(schema, "maximum"); m && m->is_number() && d > m->get<double>()) {
      Invalid(errors, where, value,
              fmt::format("{} in body should be less than or equal to {}", where, m->dump()));
    }
  }
  if (value.is_array()) {
    if (const Json* m = Member(schema, "maxItems"); m && m->is_number() &&
                                                     value.size() > m->get<size_t>()) {
      errors->push_back(fmt::format("{}: Too many: {}: must have at most {} items", where,
                                    value.size(), m->get<size_t>()));
    }
    if (const Json* m = Member(schema, "minItems"); m && m->is_number() &&
                                                     value.size() < m->get<size_t>()) {
      Invalid(errors, where, value,
              fmt::format("{} in body should have at least {} items", where, m->get<size_t>()));
    }
    if (const Json* items = Member(schema, "items"); items && items->is_object()) {
      for (size_t i = 0; i < value.size(); ++i) {
        ValidateOpenApi(*items, value[i], fmt::format("{}[{}]", path, i), errors);
      }
    }
  }
  if (value.is_object()) {
    const bool preserve = Flag(schema, "x-kubernetes-preserve-unknown-fields");
    const Json* properties = Member(schema, "properties");
    const Json* additional = Member(schema, "additionalProperties");
    if (const Json* required = Member(schema, "required"); required && required->is_array()) {
      for (const Json& name : *required) {
        if (name.is_string() && !value.contains(name.get<std::string>())) {
          errors->push_back(fmt::format("{}: Required value", Child(path, name.get<std::string>())));
        }
      }
    }
    std::vector<std::string> pruned;
    for (auto it = value.begin(); it != value.end(); ++it) {
      const std::string key = it.key();
      // The API server checks apiVersion, kind and metadata itself (docs/kubernetes-api.md).
      if (path.empty() && (key == "apiVersion" || key == "kind" || key == "metadata")) continue;
      if (properties && properties->is_object() && properties->contains(key)) {
        ValidateOpenApi((*properties)[key], it.value(), Child(path, key), errors);
      } else if (additional && additional->is_object()) {
        ValidateOpenApi(*additional, it.value(), Child(path, key), errors);
      } else if (!preserve && !(additional && additional->is_boolean() && additional->get<bool>())) {
        pruned.push_back(key);
      }
    }
    for (const std::string& key : pruned) value.erase(key);
  }
}

}  // namespace hop::resource
