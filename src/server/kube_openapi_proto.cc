// The protobuf form of the Swagger 2.0 document (kube_openapi.h): gnostic's openapi.v2.Document,
// which is the only form older kubectl (1.20) fetches /openapi/v2 in. A small writer of the
// protobuf wire format (varints and length-delimited fields) encodes the JSON document message by
// message; the field numbers are those of gnostic's OpenAPIv2.proto, named in the enums below.
#include <nlohmann/json.hpp>

#include "server/kube_openapi.h"

namespace hop::server {

namespace {

// Appends protobuf fields. Only the two wire types the document needs: varints (bools) and
// length-delimited (strings and nested messages).
class ProtoWriter {
 public:
  void String(int field, std::string_view value) {
    if (value.empty()) return;  // proto3 leaves default values out
    Bytes(field, value);
  }
  // A repeated string keeps empty elements, which String would drop.
  void RepeatedString(int field, std::string_view value) { Bytes(field, value); }
  void Bool(int field, bool value) {
    if (!value) return;
    Key(field, 0);
    Varint(1);
  }
  void Message(int field, const ProtoWriter& message) { Bytes(field, message.out_); }
  const std::string& bytes() const { return out_; }

 private:
  void Key(int field, int wire_type) { Varint((static_cast<uint64_t>(field) << 3) | wire_type); }
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_ += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    out_ += static_cast<char>(v);
  }
  void Bytes(int field, std::string_view value) {
    Key(field, 2);
    Varint(value.size());
    out_.append(value);
  }

  std::string out_;
};

// Field numbers of the openapi.v2 messages used here, one namespace per message.
namespace pb {
namespace document {
enum : int { kSwagger = 1, kInfo = 2, kPaths = 8, kDefinitions = 9, kVendorExtension = 16 };
}
namespace info {
enum : int { kTitle = 1, kVersion = 2, kDescription = 3, kVendorExtension = 7 };
}
namespace named {  // NamedAny, NamedSchema, NamedPathItem, NamedResponseValue: name, value
enum : int { kName = 1, kValue = 2 };
}
namespace any {
enum : int { kYaml = 2 };
}
namespace paths {
enum : int { kVendorExtension = 1, kPath = 2 };
}
namespace path_item {
enum : int {
  kRef = 1,
  kGet = 2,
  kPut = 3,
  kPost = 4,
  kDelete = 5,
  kOptions = 6,
  kHead = 7,
  kPatch = 8,
  kParameters = 9,
  kVendorExtension = 10
};
}
namespace operation {
enum : int {
  kTags = 1,
  kSummary = 2,
  kDescription = 3,
  kOperationId = 5,
  kProduces = 6,
  kConsumes = 7,
  kParameters = 8,
  kResponses = 9,
  kSchemes = 10,
  kDeprecated = 11,
  kVendorExtension = 13
};
}
namespace parameters_item {
enum : int { kParameter = 1, kJsonReference = 2 };
}
namespace json_reference {
enum : int { kRef = 1 };
}
namespace parameter {
enum : int { kBody = 1, kNonBody = 2 };
}
namespace non_body {
enum : int { kHeader = 1, kFormData = 2, kQuery = 3, kPath = 4 };
}
namespace body_parameter {
enum : int { kDescription = 1, kName = 2, kIn = 3, kRequired = 4, kSchema = 5 };
}
// PathParameterSubSchema and HeaderParameterSubSchema. The query and form-data ones have
// allow_empty_value at 5, and so every field from type on one number higher.
namespace sub_schema {
enum : int {
  kRequired = 1,
  kIn = 2,
  kDescription = 3,
  kName = 4,
  kType = 5,
  kFormat = 6,
  kUniqueItems = 19,
  kEnum = 20,
  kVendorExtension = 22
};
}
namespace query_sub_schema {
enum : int { kAllowEmptyValue = 5, kShift = 1 };
}
namespace responses {
enum : int { kResponseCode = 1 };
}
namespace response_value {
enum : int { kResponse = 1 };
}
namespace response {
enum : int { kDescription = 1, kSchema = 2 };
}
namespace schema_item {
enum : int { kSchema = 1 };
}
namespace schema {
enum : int {
  kRef = 1,
  kFormat = 2,
  kTitle = 3,
  kDescription = 4,
  kDefault = 5,
  kPattern = 13,
  kUniqueItems = 16,
  kRequired = 19,
  kEnum = 20,
  kAdditionalProperties = 21,
  kType = 22,
  kItems = 23,
  kAllOf = 24,
  kProperties = 25,
  kReadOnly = 27,
  kExample = 30,
  kVendorExtension = 31
};
}
namespace additional_properties {
enum : int { kSchema = 1, kBoolean = 2 };
}
namespace repeated_value {  // TypeItem, ItemsItem, Properties, Definitions: one repeated field
enum : int { kValue = 1 };
}
}  // namespace pb

std::string Text(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool Flag(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

void Strings(ProtoWriter& w, int field, const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return;
  for (const auto& s : *it) {
    if (s.is_string()) w.RepeatedString(field, s.get_ref<const std::string&>());
  }
}

// An openapi.v2.Any holds a value as YAML text; JSON text is YAML, which is how kubectl reads it.
ProtoWriter AnyValue(const Json& value) {
  ProtoWriter w;
  w.RepeatedString(pb::any::kYaml, value.dump());
  return w;
}

// The x- keys of an object, as repeated NamedAny at `field`.
void VendorExtensions(ProtoWriter& w, int field, const Json& j) {
  for (const auto& [key, value] : j.items()) {
    if (!key.starts_with("x-")) continue;
    ProtoWriter named;
    named.String(pb::named::kName, key);
    named.Message(pb::named::kValue, AnyValue(value));
    w.Message(field, named);
  }
}

ProtoWriter SchemaMessage(const Json& s);

// A message of one repeated NamedSchema (Properties, Definitions).
ProtoWriter NamedSchemas(const Json& object) {
  ProtoWriter w;
  for (const auto& [name, value] : object.items()) {
    ProtoWriter named;
    named.String(pb::named::kName, name);
    named.Message(pb::named::kValue, SchemaMessage(value));
    w.Message(pb::repeated_value::kValue, named);
  }
  return w;
}

ProtoWriter SchemaMessage(const Json& s) {
  ProtoWriter w;
  if (!s.is_object()) return w;
  w.String(pb::schema::kRef, Text(s, "$ref"));
  w.String(pb::schema::kFormat, Text(s, "format"));
  w.String(pb::schema::kTitle, Text(s, "title"));
  w.String(pb::schema::kDescription, Text(s, "description"));
  if (s.contains("default")) w.Message(pb::schema::kDefault, AnyValue(s.at("default")));
  w.String(pb::schema::kPattern, Text(s, "pattern"));
  w.Bool(pb::schema::kUniqueItems, Flag(s, "uniqueItems"));
  Strings(w, pb::schema::kRequired, s, "required");
  if (s.contains("enum") && s.at("enum").is_array()) {
    for (const auto& e : s.at("enum")) w.Message(pb::schema::kEnum, AnyValue(e));
  }
  if (s.contains("additionalProperties")) {
    const Json& ap = s.at("additionalProperties");
    ProtoWriter item;
    if (ap.is_boolean()) {
      // proto3 cannot tell `false` from absent in a oneof's bool; a map that allows nothing is
      // not something these documents declare.
      item.Bool(pb::additional_properties::kBoolean, ap.get<bool>());
    } else {
      item.Message(pb::additional_properties::kSchema, SchemaMessage(ap));
    }
    w.Message(pb::schema::kAdditionalProperties, item);
  }
  if (s.contains("type")) {
    ProtoWriter type;
    const Json& t = s.at("type");
    if (t.is_string())
      type.RepeatedString(pb::repeated_value::kValue, t.get_ref<const std::string&>());
    Strings(type, pb::repeated_value::kValue, s, "type");
    w.Message(pb::schema::kType, type);
  }
  if (s.contains("items")) {
    ProtoWriter items;
    const Json& i = s.at("items");
    if (i.is_array()) {
      for (const auto& one : i) items.Message(pb::repeated_value::kValue, SchemaMessage(one));
    } else {
      items.Message(pb::repeated_value::kValue, SchemaMessage(i));
    }
    w.Message(pb::schema::kItems, items);
  }
  if (s.contains("allOf") && s.at("allOf").is_array()) {
    for (const auto& one : s.at("allOf")) w.Message(pb::schema::kAllOf, SchemaMessage(one));
  }
  if (s.contains("properties") && s.at("properties").is_object()) {
    w.Message(pb::schema::kProperties, NamedSchemas(s.at("properties")));
  }
  w.Bool(pb::schema::kReadOnly, Flag(s, "readOnly"));
  if (s.contains("example")) w.Message(pb::schema::kExample, AnyValue(s.at("example")));
  VendorExtensions(w, pb::schema::kVendorExtension, s);
  return w;
}

ProtoWriter ParameterItem(const Json& p) {
  ProtoWriter item;
  if (p.contains("$ref")) {
    ProtoWriter ref;
    ref.String(pb::json_reference::kRef, Text(p, "$ref"));
    item.Message(pb::parameters_item::kJsonReference, ref);
    return item;
  }
  ProtoWriter param;
  const std::string in = Text(p, "in");
  if (in == "body") {
    ProtoWriter body;
    body.String(pb::body_parameter::kDescription, Text(p, "description"));
    body.String(pb::body_parameter::kName, Text(p, "name"));
    body.String(pb::body_parameter::kIn, in);
    body.Bool(pb::body_parameter::kRequired, Flag(p, "required"));
    if (p.contains("schema"))
      body.Message(pb::body_parameter::kSchema, SchemaMessage(p.at("schema")));
    param.Message(pb::parameter::kBody, body);
  } else {
    const bool query_like = in == "query" || in == "formData";
    const int shift = query_like ? pb::query_sub_schema::kShift : 0;
    ProtoWriter sub;
    sub.Bool(pb::sub_schema::kRequired, Flag(p, "required"));
    sub.String(pb::sub_schema::kIn, in);
    sub.String(pb::sub_schema::kDescription, Text(p, "description"));
    sub.String(pb::sub_schema::kName, Text(p, "name"));
    if (query_like) sub.Bool(pb::query_sub_schema::kAllowEmptyValue, Flag(p, "allowEmptyValue"));
    sub.String(pb::sub_schema::kType + shift, Text(p, "type"));
    sub.String(pb::sub_schema::kFormat + shift, Text(p, "format"));
    sub.Bool(pb::sub_schema::kUniqueItems + shift, Flag(p, "uniqueItems"));
    if (p.contains("enum") && p.at("enum").is_array()) {
      for (const auto& e : p.at("enum")) sub.Message(pb::sub_schema::kEnum + shift, AnyValue(e));
    }
    VendorExtensions(sub, pb::sub_schema::kVendorExtension + shift, p);
    int which = pb::non_body::kQuery;
    if (in == "path") which = pb::non_body::kPath;
    if (in == "header") which = pb::non_body::kHeader;
    if (in == "formData") which = pb::non_body::kFormData;
    ProtoWriter non_body;
    non_body.Message(which, sub);
    param.Message(pb::parameter::kNonBody, non_body);
  }
  item.Message(pb::parameters_item::kParameter, param);
  return item;
}

void Parameters(ProtoWriter& w, int field, const Json& j) {
  auto it = j.find("parameters");
  if (it == j.end() || !it->is_array()) return;
  for (const auto& p : *it) w.Message(field, ParameterItem(p));
}

ProtoWriter OperationMessage(const Json& op) {
  ProtoWriter w;
  Strings(w, pb::operation::kTags, op, "tags");
  w.String(pb::operation::kSummary, Text(op, "summary"));
  w.String(pb::operation::kDescription, Text(op, "description"));
  w.String(pb::operation::kOperationId, Text(op, "operationId"));
  Strings(w, pb::operation::kProduces, op, "produces");
  Strings(w, pb::operation::kConsumes, op, "consumes");
  Parameters(w, pb::operation::kParameters, op);
  if (op.contains("responses")) {
    ProtoWriter codes;
    for (const auto& [code, r] : op.at("responses").items()) {
      ProtoWriter resp;
      resp.String(pb::response::kDescription, Text(r, "description"));
      if (r.contains("schema")) {
        ProtoWriter item;
        item.Message(pb::schema_item::kSchema, SchemaMessage(r.at("schema")));
        resp.Message(pb::response::kSchema, item);
      }
      ProtoWriter value;
      value.Message(pb::response_value::kResponse, resp);
      ProtoWriter named;
      named.String(pb::named::kName, code);
      named.Message(pb::named::kValue, value);
      codes.Message(pb::responses::kResponseCode, named);
    }
    w.Message(pb::operation::kResponses, codes);
  }
  Strings(w, pb::operation::kSchemes, op, "schemes");
  w.Bool(pb::operation::kDeprecated, Flag(op, "deprecated"));
  VendorExtensions(w, pb::operation::kVendorExtension, op);
  return w;
}

ProtoWriter PathItemMessage(const Json& item) {
  ProtoWriter w;
  w.String(pb::path_item::kRef, Text(item, "$ref"));
  constexpr std::pair<const char*, int> kMethods[] = {
      {"get", pb::path_item::kGet},         {"put", pb::path_item::kPut},
      {"post", pb::path_item::kPost},       {"delete", pb::path_item::kDelete},
      {"options", pb::path_item::kOptions}, {"head", pb::path_item::kHead},
      {"patch", pb::path_item::kPatch}};
  for (const auto& [method, field] : kMethods) {
    if (item.contains(method)) w.Message(field, OperationMessage(item.at(method)));
  }
  Parameters(w, pb::path_item::kParameters, item);
  VendorExtensions(w, pb::path_item::kVendorExtension, item);
  return w;
}

}  // namespace

std::string OpenApiV2Protobuf(const Json& swagger) {
  ProtoWriter doc;
  doc.String(pb::document::kSwagger, Text(swagger, "swagger"));
  if (swagger.contains("info")) {
    const Json& i = swagger.at("info");
    ProtoWriter info;
    info.String(pb::info::kTitle, Text(i, "title"));
    info.String(pb::info::kVersion, Text(i, "version"));
    info.String(pb::info::kDescription, Text(i, "description"));
    VendorExtensions(info, pb::info::kVendorExtension, i);
    doc.Message(pb::document::kInfo, info);
  }
  if (swagger.contains("paths")) {
    ProtoWriter paths;
    const Json& p = swagger.at("paths");
    VendorExtensions(paths, pb::paths::kVendorExtension, p);
    for (const auto& [path, item] : p.items()) {
      if (path.starts_with("x-")) continue;
      ProtoWriter named;
      named.String(pb::named::kName, path);
      named.Message(pb::named::kValue, PathItemMessage(item));
      paths.Message(pb::paths::kPath, named);
    }
    doc.Message(pb::document::kPaths, paths);
  }
  if (swagger.contains("definitions")) {
    doc.Message(pb::document::kDefinitions, NamedSchemas(swagger.at("definitions")));
  }
  VendorExtensions(doc, pb::document::kVendorExtension, swagger);
  return doc.bytes();
}

}  // namespace hop::server
