// Structural schemas of CustomResourceDefinitions: the checks a CRD's schema must pass, and the
// pruning, defaulting and validation of custom resources with it (openapi_validation.h).
#include "resource/openapi_validation.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "common/time.h"

namespace hop::resource {

namespace {

// The largest integer a JSON number carries exactly as a double (2^53 - 1): Kubernetes takes a
// number with a fraction or an exponent as an integer only up to it.
constexpr double kMaxJsonInteger = 9007199254740991.0;

// Whether `v` is an integer as Kubernetes decodes JSON: a whole number that fits in int64, or a
// number written with a fraction or exponent whose value is whole and within kMaxJsonInteger.
bool IsInteger(const Json& v) {
  if (v.is_number_unsigned()) {
    return v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  }
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return std::isfinite(d) && std::fabs(d) <= kMaxJsonInteger && std::trunc(d) == d;
}

// The type name Kubernetes reports for a JSON value.
std::string TypeOf(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer() && IsInteger(v)) return "integer";
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
  if (want == "integer") return IsInteger(v);
  if (want == "number") return v.is_number();
  if (want == "boolean") return v.is_boolean();
  return true;
}

void Invalid(std::vector<std::string>* errors, const std::string& path, const Json& v,
             const std::string& detail) {
  errors->push_back(fmt::format("{}: Invalid value: {}: {}", path, Shown(v), detail));
}

// A number keyword's value, as Kubernetes prints it in messages (1, not 1.0).
std::string NumberText(const Json& n) {
  if (n.is_number_float() && IsInteger(n)) {
    return std::to_string(static_cast<int64_t>(n.get<double>()));
  }
  return n.dump();
}

// --- structural checks ---

constexpr std::string_view kTypes[] = {"array", "boolean", "integer", "number", "object", "string"};

// Where a schema node sits, for the rules and messages that depend on it.
enum class Place { kRoot, kProperty, kItems, kValueValidation };

struct Checker {
  std::vector<std::string>* errors;

  void Forbidden(const std::string& path, const std::string& detail) {
    errors->push_back(fmt::format("{}: Forbidden: {}", path, detail));
  }

  // `keyword` of `s`, when present, must satisfy `ok`; otherwise an Invalid value naming `want`.
  template <typename Pred>
  void KeywordType(const Json& s, const std::string& path, const char* keyword, Pred ok,
                   const char* want) {
    if (const Json* v = Member(s, keyword); v != nullptr && !ok(*v)) {
      Invalid(errors, Child(path, keyword), *v, fmt::format("must be {}", want));
    }
  }

  // Whether `any_of` is the one shape a value validation may give types in: the anyOf of
  // x-kubernetes-int-or-string, [{type: integer}, {type: string}].
  static bool IntOrStringAnyOf(const Json& any_of) {
    if (!any_of.is_array() || any_of.size() != 2) return false;
    auto typed = [](const Json& s, const char* type) {
      return s.is_object() && s.size() == 1 && s.value("type", Json()) == type;
    };
    return typed(any_of[0], "integer") && typed(any_of[1], "string");
  }

  void Node(const Json& s, const std::string& path, Place place, bool typed_ok = false) {
    if (!s.is_object()) {
      Invalid(errors, path, s, "must be a schema object");
      return;
    }
    for (const char* keyword : {"$ref", "$schema", "definitions", "dependencies", "id",
                                "patternProperties", "additionalItems"}) {
      if (s.contains(keyword))
        Forbidden(Child(path, keyword), fmt::format("{} is not supported", keyword));
    }
    if (Flag(s, "uniqueItems")) {
      Forbidden(Child(path, "uniqueItems"),
                "uniqueItems cannot be set to true since the runtime complexity becomes quadratic");
    }
    const bool in_validation = place == Place::kValueValidation;
    const bool int_or_string = Flag(s, "x-kubernetes-int-or-string");
    const bool preserve = Flag(s, "x-kubernetes-preserve-unknown-fields");
    for (const char* flag : {"x-kubernetes-preserve-unknown-fields", "x-kubernetes-int-or-string",
                             "x-kubernetes-embedded-resource"}) {
      if (const Json* f = Member(s, flag); f != nullptr && !f->is_boolean()) {
        Invalid(errors, Child(path, flag), *f, "must be a boolean");
      }
    }
    if (const Json* f = Member(s, "x-kubernetes-preserve-unknown-fields");
        f != nullptr && f->is_boolean() && !f->get<bool>()) {
      Invalid(errors, Child(path, "x-kubernetes-preserve-unknown-fields"), *f,
              "must be true or undefined");
    }

    // type
    const Json* type = Member(s, "type");
    std::string type_name;
    if (type != nullptr) {
      const bool known =
          type->is_string() && std::find(std::begin(kTypes), std::end(kTypes),
                                         type->get<std::string>()) != std::end(kTypes);
      if (!known) {
        errors->push_back(fmt::format(
            "{}: Unsupported value: {}: supported values: \"array\", \"boolean\", \"integer\", "
            "\"number\", \"object\", \"string\"",
            Child(path, "type"), Shown(*type)));
      } else {
        type_name = type->get<std::string>();
      }
    }
    if (in_validation) {
      if (type != nullptr && !typed_ok) {
        Forbidden(Child(path, "type"), "must be empty to be structural");
      }
      for (const char* keyword :
           {"additionalProperties", "default", "nullable", "x-kubernetes-preserve-unknown-fields",
            "x-kubernetes-int-or-string", "x-kubernetes-embedded-resource"}) {
        if (s.contains(keyword)) Forbidden(Child(path, keyword), "must be empty to be structural");
      }
    } else if (int_or_string) {
      if (type != nullptr) {
        Invalid(errors, Child(path, "type"), *type,
                "must be empty if x-kubernetes-int-or-string is true");
      }
    } else if (type == nullptr && !preserve) {
      const char* detail = place == Place::kRoot ? "must not be empty at the root"
                           : place == Place::kItems
                               ? "must not be empty for specified array items"
                               : "must not be empty for specified object fields";
      errors->push_back(fmt::format("{}: Required value: {}", Child(path, "type"), detail));
    }
    if (place == Place::kRoot && !type_name.empty() && type_name != "object") {
      Invalid(errors, Child(path, "type"), *type, "must be object at the root");
    }
    if (preserve && !type_name.empty() && type_name != "object") {
      Invalid(errors, Child(path, "type"), *type,
              "must be object if x-kubernetes-preserve-unknown-fields is true");
    }

    // keywords of a fixed JSON type
    auto is_string = [](const Json& v) { return v.is_string(); };
    auto is_bool = [](const Json& v) { return v.is_boolean(); };
    auto is_number = [](const Json& v) { return v.is_number(); };
    auto is_count = [](const Json& v) { return IsInteger(v) && v.get<double>() >= 0; };
    auto is_strings = [](const Json& v) {
      return v.is_array() &&
             std::all_of(v.begin(), v.end(), [](const Json& e) { return e.is_string(); });
    };
    KeywordType(s, path, "format", is_string, "a string");
    KeywordType(s, path, "description", is_string, "a string");
    KeywordType(s, path, "title", is_string, "a string");
    KeywordType(s, path, "pattern", is_string, "a string");
    KeywordType(s, path, "nullable", is_bool, "a boolean");
    KeywordType(s, path, "exclusiveMinimum", is_bool, "a boolean");
    KeywordType(s, path, "exclusiveMaximum", is_bool, "a boolean");
    for (const char* keyword : {"minimum", "maximum", "multipleOf"}) {
      KeywordType(s, path, keyword, is_number, "a number");
    }
    for (const char* keyword :
         {"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}) {
      KeywordType(s, path, keyword, is_count, "a non-negative integer");
    }
    KeywordType(s, path, "required", is_strings, "a list of strings");
    KeywordType(
        s, path, "enum", [](const Json& v) { return v.is_array(); }, "a list");
    KeywordType(s, path, "x-kubernetes-list-map-keys", is_strings, "a list of strings");
    if (const Json* lt = Member(s, "x-kubernetes-list-type"); lt != nullptr) {
      const bool ok = lt->is_string() && (*lt == "atomic" || *lt == "set" || *lt == "map");
      if (!ok) {
        errors->push_back(
            fmt::format("{}: Unsupported value: {}: supported values: \"atomic\", \"set\", \"map\"",
                        Child(path, "x-kubernetes-list-type"), Shown(*lt)));
      } else if (*lt == "map" && !s.contains("x-kubernetes-list-map-keys")) {
        errors->push_back(
            fmt::format("{}: Required value: must not be empty if x-kubernetes-list-type is map",
                        Child(path, "x-kubernetes-list-map-keys")));
      }
    }
    if (const Json* p = Member(s, "pattern"); p != nullptr && p->is_string()) {
      RE2 re(p->get<std::string>(), RE2::Quiet);
      if (!re.ok()) {
        Invalid(errors, Child(path, "pattern"), *p,
                fmt::format("must be a valid regular expression, but isn't: {}", re.error()));
      }
    }

    // children
    const Json* properties = Member(s, "properties");
    const Json* additional = Member(s, "additionalProperties");
    if (properties != nullptr) {
      if (!properties->is_object()) {
        Invalid(errors, Child(path, "properties"), *properties, "must be a map of schemas");
      } else {
        if (!type_name.empty() && type_name != "object") {
          Forbidden(Child(path, "properties"), "must be empty for types other than object");
        }
        for (const auto& [name, child] : properties->items()) {
          const std::string child_path = fmt::format("{}.properties[{}]", path, name);
          if (place == Place::kRoot && name == "metadata") {
            Metadata(child, child_path);
            continue;
          }
          Node(child, child_path, in_validation ? Place::kValueValidation : Place::kProperty);
        }
      }
    }
    if (additional != nullptr) {
      if (additional->is_boolean()) {
        if (!additional->get<bool>()) {
          Forbidden(Child(path, "additionalProperties"),
                    "additionalProperties cannot be set to false");
        }
      } else if (additional->is_object()) {
        Node(*additional, Child(path, "additionalProperties"),
             in_validation ? Place::kValueValidation : Place::kProperty);
      } else {
        Invalid(errors, Child(path, "additionalProperties"), *additional,
                "must be a schema or a boolean");
      }
      if (properties != nullptr && !(additional->is_boolean() && !additional->get<bool>())) {
        Forbidden(Child(path, "additionalProperties"),
                  "additionalProperties and properties are mutual exclusive");
      }
    }
    if (const Json* items = Member(s, "items"); items != nullptr) {
      if (items->is_array()) {
        Forbidden(Child(path, "items"), "items must be a schema object and not an array");
      } else {
        Node(*items, Child(path, "items"), in_validation ? Place::kValueValidation : Place::kItems);
      }
    } else if (type_name == "array" && !in_validation) {
      errors->push_back(fmt::format("{}: Required value: must be specified", Child(path, "items")));
    }
    for (const char* keyword : {"allOf", "anyOf", "oneOf"}) {
      const Json* list = Member(s, keyword);
      if (list == nullptr) continue;
      if (!list->is_array()) {
        Invalid(errors, Child(path, keyword), *list, "must be a list of schemas");
        continue;
      }
      const bool typed =
          int_or_string && std::string_view(keyword) == "anyOf" && IntOrStringAnyOf(*list);
      for (size_t i = 0; i < list->size(); ++i) {
        Node((*list)[i], fmt::format("{}.{}[{}]", path, keyword, i), Place::kValueValidation,
             typed);
      }
    }
    if (const Json* n = Member(s, "not"); n != nullptr) {
      Node(*n, Child(path, "not"), Place::kValueValidation);
    }
  }

  // The root's metadata may only restrict name and generateName, as strings.
  void Metadata(const Json& s, const std::string& path) {
    bool ok = s.is_object();
    if (ok) {
      for (const auto& [key, value] : s.items()) {
        if (key == "type") {
          ok = ok && value == "object";
        } else if (key == "properties" && value.is_object()) {
          for (const auto& [name, child] : value.items()) {
            ok = ok && (name == "name" || name == "generateName") && child.is_object() &&
                 child.value("type", Json("string")) == "string";
            if (ok) Node(child, fmt::format("{}.properties[{}]", path, name), Place::kProperty);
          }
        } else if (key != "description") {
          ok = false;
        }
      }
    }
    if (!ok) {
      Forbidden(path,
                "must not specify anything other than name and generateName, but metadata is "
                "implicitly specified");
    }
  }
};

// Calls `visit` with every schema node under `s` (itself included) and its pattern keyword.
template <typename Visit>
void EachNode(const Json& s, const Visit& visit) {
  if (!s.is_object()) return;
  visit(s);
  if (const Json* p = Member(s, "properties"); p != nullptr && p->is_object()) {
    for (const auto& [name, child] : p->items()) EachNode(child, visit);
  }
  for (const char* keyword : {"additionalProperties", "items", "not"}) {
    if (const Json* child = Member(s, keyword)) EachNode(*child, visit);
  }
  for (const char* keyword : {"allOf", "anyOf", "oneOf"}) {
    if (const Json* list = Member(s, keyword); list != nullptr && list->is_array()) {
      for (const Json& child : *list) EachNode(child, visit);
    }
  }
}

}  // namespace

std::string JoinFieldErrors(const std::vector<std::string>& errors) {
  if (errors.empty()) return "";
  if (errors.size() == 1) return errors.front();
  std::string out = "[";
  for (size_t i = 0; i < errors.size(); ++i) out += (i > 0 ? ", " : "") + errors[i];
  return out + "]";
}

void CheckStructuralSchema(const Json& schema, const std::string& path,
                           std::vector<std::string>* errors) {
  Checker{errors}.Node(schema, path, Place::kRoot);
}

// --- validation ---

class StructuralSchema::Walker {
 public:
  Walker(const StructuralSchema& schema, std::vector<std::string>* errors,
         std::vector<std::string>* pruned)
      : schema_(schema), errors_(errors), pruned_(pruned) {}

  // Removes the fields `s` neither declares nor preserves, and nulls it does not allow.
  void Prune(const Json& s, Json& v, const std::string& path, bool root) {
    if (!s.is_object()) return;
    if (v.is_array()) {
      if (const Json* items = Member(s, "items"); items != nullptr && items->is_object()) {
        for (size_t i = 0; i < v.size(); ++i)
          Prune(*items, v[i], fmt::format("{}[{}]", path, i), false);
      }
      return;
    }
    if (!v.is_object()) return;
    const bool preserve = Flag(s, "x-kubernetes-preserve-unknown-fields");
    const bool embedded = Flag(s, "x-kubernetes-embedded-resource");
    const Json* properties = Member(s, "properties");
    const Json* additional = Member(s, "additionalProperties");
    std::vector<std::string> gone;
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string& key = it.key();
      // The API server keeps apiVersion, kind and metadata of the object itself and of embedded
      // objects; the caller checks them (docs/kubernetes-api.md "Custom resources").
      if ((root || embedded) && (key == "apiVersion" || key == "kind" || key == "metadata")) {
        continue;
      }
      const Json* child = nullptr;
      if (properties != nullptr && properties->is_object()) {
        if (auto p = properties->find(key); p != properties->end()) child = &*p;
      }
      if (child == nullptr && additional != nullptr && additional->is_object()) child = additional;
      if (child == nullptr) {
        const bool kept = preserve || (additional != nullptr && additional->is_boolean() &&
                                       additional->get<bool>());
        if (!kept) {
          gone.push_back(key);
          if (pruned_ != nullptr) pruned_->push_back(Child(path, key));
        }
        continue;
      }
      if (it->is_null() && child->is_object() && !Flag(*child, "nullable") &&
          !child->contains("default")) {
        gone.push_back(key);  // a null the field does not allow: dropped, not refused
        continue;
      }
      Prune(*child, *it, Child(path, key), false);
    }
    for (const std::string& key : gone) v.erase(key);
  }

  // Sets the defaults of absent fields and of nulls the field does not allow.
  void Default(const Json& s, Json& v) {
    if (!s.is_object()) return;
    auto needs_default = [](const Json* value, const Json& child) {
      return child.is_object() && child.contains("default") &&
             (value == nullptr || (value->is_null() && !Flag(child, "nullable")));
    };
    if (v.is_object()) {
      if (const Json* properties = Member(s, "properties");
          properties != nullptr && properties->is_object()) {
        for (const auto& [key, child] : properties->items()) {
          auto it = v.find(key);
          const Json* value = it == v.end() ? nullptr : &*it;
          if (needs_default(value, child)) v[key] = child["default"];
          if (auto now = v.find(key); now != v.end()) Default(child, *now);
        }
      }
      if (const Json* additional = Member(s, "additionalProperties");
          additional != nullptr && additional->is_object()) {
        for (auto it = v.begin(); it != v.end(); ++it) {
          if (needs_default(&*it, *additional)) *it = (*additional)["default"];
          Default(*additional, *it);
        }
      }
    } else if (v.is_array()) {
      if (const Json* items = Member(s, "items"); items != nullptr && items->is_object()) {
        for (Json& e : v) {
          if (needs_default(&e, *items)) e = (*items)["default"];
          Default(*items, e);
        }
      }
    }
  }

  void Check(const Json& s, const Json& v, const std::string& path) {
    if (!s.is_object()) return;
    const std::string where = path.empty() ? "body" : path;
    const bool int_or_string = Flag(s, "x-kubernetes-int-or-string");
    const Json* type = Member(s, "type");
    if (v.is_null()) {
      // A null is accepted only where the schema says nullable (Prune dropped the others that
      // are fields of an object).
      if (!Flag(s, "nullable") && ((type != nullptr && type->is_string()) || int_or_string)) {
        Invalid(errors_, where, v,
                fmt::format("{} in body must be of type {}: \"null\"", where,
                            int_or_string ? "integer,string" : type->get<std::string>()));
      }
      return;
    }
    if (int_or_string) {
      if (!v.is_string() && !IsInteger(v)) {
        Invalid(errors_, where, v,
                fmt::format("{} in body must be of type integer,string: \"{}\"", where, TypeOf(v)));
        return;
      }
    } else if (type != nullptr && type->is_string()) {
      if (!TypeMatches(type->get<std::string>(), v)) {
        Invalid(errors_, where, v,
                fmt::format("{} in body must be of type {}: \"{}\"", where,
                            type->get<std::string>(), TypeOf(v)));
        return;
      }
    }
    if (const Json* e = Member(s, "enum"); e != nullptr && e->is_array()) {
      if (std::find(e->begin(), e->end(), v) == e->end()) {
        std::string list;
        for (const Json& allowed : *e) list += (list.empty() ? "" : ", ") + Shown(allowed);
        errors_->push_back(
            fmt::format("{}: Unsupported value: {}: supported values: {}", where, Shown(v), list));
      }
    }
    const Json* format = Member(s, "format");
    const std::string format_name =
        format != nullptr && format->is_string() ? format->get<std::string>() : "";
    if (v.is_string()) CheckString(s, v, where, format_name, int_or_string);
    if (v.is_number()) CheckNumber(s, v, where, format_name);
    if (v.is_array()) CheckArray(s, v, path, where);
    if (v.is_object()) CheckObject(s, v, path, where);
    CheckValueValidations(s, v, path, where);
  }

 private:
  void CheckString(const Json& s, const Json& v, const std::string& where,
                   const std::string& format, bool int_or_string) {
    const std::string& text = v.get_ref<const std::string&>();
    if (const Json* m = Member(s, "maxLength");
        m != nullptr && IsInteger(*m) && text.size() > m->get<size_t>()) {
      errors_->push_back(
          fmt::format("{}: Too long: may not be more than {} bytes", where, m->get<size_t>()));
    }
    if (const Json* m = Member(s, "minLength");
        m != nullptr && IsInteger(*m) && text.size() < m->get<size_t>()) {
      Invalid(errors_, where, v,
              fmt::format("{} in body should be at least {} chars long", where, m->get<size_t>()));
    }
    if (auto it = schema_.patterns_.find(&s); it != schema_.patterns_.end()) {
      if (!RE2::PartialMatch(text, *it->second)) {
        Invalid(errors_, where, v,
                fmt::format("{} in body should match '{}'", where, it->second->pattern()));
      }
    }
    if (format == "date-time" && !int_or_string && !ParseRfc3339(text)) {
      Invalid(errors_, where, v,
              fmt::format("{} in body must be of type date-time: {}", where, Shown(v)));
    }
  }

  void CheckNumber(const Json& s, const Json& v, const std::string& where,
                   const std::string& format) {
    const double d = v.get<double>();
    if (format == "int32" && (!IsInteger(v) || d < std::numeric_limits<int32_t>::min() ||
                              d > std::numeric_limits<int32_t>::max())) {
      Invalid(errors_, where, v, fmt::format("{} in body must be of type int32", where));
    }
    if (format == "int64" && !IsInteger(v)) {
      Invalid(errors_, where, v, fmt::format("{} in body must be of type int64", where));
    }
    if (const Json* m = Member(s, "minimum"); m != nullptr && m->is_number()) {
      const bool exclusive = Flag(s, "exclusiveMinimum");
      if (exclusive ? d <= m->get<double>() : d < m->get<double>()) {
        Invalid(errors_, where, v,
                fmt::format("{} in body should be greater than {}{}", where,
                            exclusive ? "" : "or equal to ", NumberText(*m)));
      }
    }
    if (const Json* m = Member(s, "maximum"); m != nullptr && m->is_number()) {
      const bool exclusive = Flag(s, "exclusiveMaximum");
      if (exclusive ? d >= m->get<double>() : d > m->get<double>()) {
        Invalid(errors_, where, v,
                fmt::format("{} in body should be less than {}{}", where,
                            exclusive ? "" : "or equal to ", NumberText(*m)));
      }
    }
    if (const Json* m = Member(s, "multipleOf");
        m != nullptr && m->is_number() && m->get<double>() > 0) {
      const double q = d / m->get<double>();
      if (!std::isfinite(q) || std::trunc(q) != q) {
        Invalid(errors_, where, v,
                fmt::format("{} in body should be a multiple of {}", where, NumberText(*m)));
      }
    }
  }

  void CheckArray(const Json& s, const Json& v, const std::string& path, const std::string& where) {
    if (const Json* m = Member(s, "maxItems");
        m != nullptr && IsInteger(*m) && v.size() > m->get<size_t>()) {
      errors_->push_back(fmt::format("{}: Too many: {}: must have at most {} items", where,
                                     v.size(), m->get<size_t>()));
    }
    if (const Json* m = Member(s, "minItems");
        m != nullptr && IsInteger(*m) && v.size() < m->get<size_t>()) {
      Invalid(errors_, where, v,
              fmt::format("{} in body should have at least {} items", where, m->get<size_t>()));
    }
    const Json* items = Member(s, "items");
    if (items != nullptr && items->is_object()) {
      for (size_t i = 0; i < v.size(); ++i) Check(*items, v[i], fmt::format("{}[{}]", path, i));
    }
    // x-kubernetes-list-type: a set holds each value once, a map each key once.
    const Json* list_type = Member(s, "x-kubernetes-list-type");
    if (list_type == nullptr || !list_type->is_string()) return;
    std::set<std::string> seen;
    for (size_t i = 0; i < v.size(); ++i) {
      std::string key;
      if (*list_type == "set") {
        key = v[i].dump();
      } else if (*list_type == "map" && v[i].is_object()) {
        Json keys = Json::object();
        if (const Json* names = Member(s, "x-kubernetes-list-map-keys");
            names != nullptr && names->is_array()) {
          for (const Json& name : *names) {
            if (name.is_string() && v[i].contains(name.get<std::string>())) {
              keys[name.get<std::string>()] = v[i][name.get<std::string>()];
            }
          }
        }
        key = keys.dump();
      } else {
        continue;
      }
      if (!seen.insert(key).second) {
        errors_->push_back(fmt::format("{}[{}]: Duplicate value: {}", path, i, key));
      }
    }
  }

  void CheckObject(const Json& s, const Json& v, const std::string& path,
                   const std::string& where) {
    if (const Json* required = Member(s, "required"); required != nullptr && required->is_array()) {
      for (const Json& name : *required) {
        if (name.is_string() && !v.contains(name.get<std::string>())) {
          errors_->push_back(
              fmt::format("{}: Required value", Child(path, name.get<std::string>())));
        }
      }
    }
    if (const Json* m = Member(s, "maxProperties");
        m != nullptr && IsInteger(*m) && v.size() > m->get<size_t>()) {
      errors_->push_back(fmt::format("{}: Too many: {}: must have at most {} items", where,
                                     v.size(), m->get<size_t>()));
    }
    if (const Json* m = Member(s, "minProperties");
        m != nullptr && IsInteger(*m) && v.size() < m->get<size_t>()) {
      Invalid(
          errors_, where, v,
          fmt::format("{} in body should have at least {} properties", where, m->get<size_t>()));
    }
    const Json* properties = Member(s, "properties");
    const Json* additional = Member(s, "additionalProperties");
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string& key = it.key();
      if (path.empty() && (key == "apiVersion" || key == "kind" || key == "metadata")) continue;
      if (properties != nullptr && properties->is_object()) {
        if (auto p = properties->find(key); p != properties->end()) {
          Check(*p, *it, Child(path, key));
          continue;
        }
      }
      if (additional != nullptr && additional->is_object())
        Check(*additional, *it, Child(path, key));
    }
  }

  // allOf, anyOf, oneOf and not: checks of the value that add no structure.
  void CheckValueValidations(const Json& s, const Json& v, const std::string& path,
                             const std::string& where) {
    auto passes = [&](const Json& sub) {
      std::vector<std::string> sub_errors;
      Walker(schema_, &sub_errors, nullptr).Check(sub, v, path);
      return sub_errors.empty();
    };
    if (const Json* all = Member(s, "allOf"); all != nullptr && all->is_array()) {
      for (const Json& sub : *all) Check(sub, v, path);
    }
    if (const Json* any = Member(s, "anyOf"); any != nullptr && any->is_array() && !any->empty()) {
      if (std::none_of(any->begin(), any->end(), passes)) {
        Invalid(errors_, where, v, "must validate at least one schema (anyOf)");
      }
    }
    if (const Json* one = Member(s, "oneOf"); one != nullptr && one->is_array() && !one->empty()) {
      const auto valid = std::count_if(one->begin(), one->end(), passes);
      if (valid != 1) {
        Invalid(errors_, where, v,
                valid == 0 ? "must validate one and only one schema (oneOf). Found none valid"
                           : "must validate one and only one schema (oneOf). Found more than "
                             "one valid");
      }
    }
    if (const Json* n = Member(s, "not"); n != nullptr && n->is_object() && passes(*n)) {
      Invalid(errors_, where, v, "must not validate the schema (not)");
    }
  }

  const StructuralSchema& schema_;
  std::vector<std::string>* errors_;
  std::vector<std::string>* pruned_;
};

StructuralSchema::StructuralSchema(Json schema)
    : schema_(std::make_unique<const Json>(std::move(schema))) {}
StructuralSchema::~StructuralSchema() = default;

Result<std::shared_ptr<const StructuralSchema>> StructuralSchema::Compile(Json schema,
                                                                          const std::string& path) {
  std::vector<std::string> errors;
  CheckStructuralSchema(schema, path, &errors);
  if (!errors.empty()) return Status::ValidationError(JoinFieldErrors(errors));
  // The patterns are compiled once the schema is where it stays: its nodes' addresses key them.
  std::shared_ptr<StructuralSchema> compiled(new StructuralSchema(std::move(schema)));
  EachNode(*compiled->schema_, [&](const Json& node) {
    if (const Json* p = Member(node, "pattern"); p != nullptr && p->is_string()) {
      auto re = std::make_unique<RE2>(p->get<std::string>(), RE2::Quiet);
      // CheckStructuralSchema compiled it once already.
      if (re->ok()) compiled->patterns_.emplace(&node, std::move(re));
    }
  });
  return std::shared_ptr<const StructuralSchema>(std::move(compiled));
}

void StructuralSchema::Validate(Json& value, const std::string& path,
                                std::vector<std::string>* errors,
                                std::vector<std::string>* pruned) const {
  Walker walker(*this, errors, pruned);
  walker.Prune(*schema_, value, path, path.empty());
  walker.Default(*schema_, value);
  walker.Check(*schema_, value, path);
}

void ValidateOpenApi(const Json& schema, Json& value, const std::string& path,
                     std::vector<std::string>* errors) {
  std::vector<std::string> problems;
  CheckStructuralSchema(schema, "openAPIV3Schema", &problems);
  if (!problems.empty()) {
    errors->insert(errors->end(), problems.begin(), problems.end());
    return;
  }
  auto compiled = StructuralSchema::Compile(schema);
  if (compiled.ok()) (*compiled)->Validate(value, path, errors);
}

}  // namespace hop::resource
