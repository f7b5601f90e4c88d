// JSON functions (JSON_VALUE, JSON_QUERY, JSON_EXISTS with lax SQL/JSON paths; JSON_OBJECT,
// JSON_ARRAY, JSON_STRING as Calcite writes JSON) and the collections, which are JSON arrays in
// hop's encoding (value.h): constructors, subscripts, ARRAY_CONCAT, ARRAY_CONTAINS, ...
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "common/json_text.h"
#include "common/strings.h"
#include "engine/functions_impl.h"

namespace hop::engine::internal {

using Json = nlohmann::json;

namespace {

std::string Quote(std::string_view s) {
  std::string out;
  AppendJsonString(s, out);
  return out;
}

Rep ElementOf(const Rep& rep, size_t i) {
  const auto& t = rep.type;
  if (t.name == sql::TypeName::kArray && !t.params.empty()) return RepOf(t.params[0]);
  if (t.name == sql::TypeName::kMap && t.params.size() == 2) return RepOf(t.params[i == 0 ? 0 : 1]);
  if (t.name == sql::TypeName::kRow && i < t.fields.size()) return RepOf(t.fields[i].type);
  return Rep{};
}

// A JSON element of hop's encoding as an SQLite value of `rep`'s encoding.
Value FromJson(const Json& j, const Rep& rep) {
  if (j.is_null()) return Value::Null();
  if (j.is_boolean()) return Value::Int(j.get<bool>() ? 1 : 0);
  if (j.is_number_integer()) {
    if (rep.kind == RepKind::kDouble) return Value::Real(static_cast<double>(j.get<int64_t>()));
    return Value::Int(j.get<int64_t>());
  }
  if (j.is_number()) return Value::Real(j.get<double>());
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (rep.kind == RepKind::kBinary) {
      auto v = ParseValue(s, rep);
      return v.ok() ? *v : Value::Null();
    }
    return Value::Text(s);
  }
  return Value::Text(j.dump());
}

std::optional<Json> Parse(sqlite3_value* v) {
  const std::string_view text = ArgText(v);
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

// A value as Calcite writes it in JSON: strings and date-times quoted, numbers in their SQL form
// (a DECIMAL keeps its scale), collections as arrays and objects.
void AppendCalciteJson(const Value& v, const Rep& rep, std::string& out);

void AppendCalciteJsonElement(const Json& j, const Rep& rep, std::string& out) {
  if (rep.kind == RepKind::kJson) {
    if (!j.is_array()) {
      out += "null";
      return;
    }
    if (rep.type.name == sql::TypeName::kMap) {
      out += '{';
      for (size_t i = 0; i < j.size(); ++i) {
        if (i > 0) out += ',';
        std::string key;
        FormatJson(j[i][0].dump(), ElementOf(rep, 0), key);
        if (j[i][0].is_string()) key = j[i][0].get<std::string>();
        out += Quote(key) + ":";
        AppendCalciteJsonElement(j[i][1], ElementOf(rep, 1), out);
      }
      out += '}';
      return;
    }
    out += '[';
    for (size_t i = 0; i < j.size(); ++i) {
      if (i > 0) out += ',';
      AppendCalciteJsonElement(j[i], ElementOf(rep, rep.type.name == sql::TypeName::kRow ? i : 0),
                               out);
    }
    out += ']';
    return;
  }
  AppendCalciteJson(FromJson(j, rep), rep, out);
}

void AppendCalciteJson(const Value& v, const Rep& rep, std::string& out) {
  if (v.kind == Value::Kind::kNull) {
    out += "null";
    return;
  }
  switch (rep.kind) {
    case RepKind::kBoolean: out += v.i != 0 ? "true" : "false"; return;
    case RepKind::kInteger:
    case RepKind::kDecimal: FormatValue(v, rep, out); return;
    case RepKind::kDouble: {
      const double d = v.kind == Value::Kind::kReal ? v.d : static_cast<double>(v.i);
      if (!std::isfinite(d)) {
        out += Quote(FormatDouble(d));
      } else {
        out += FormatDouble(d);
      }
      return;
    }
    case RepKind::kJson: {
      auto j = Json::parse(v.s, nullptr, false);
      if (j.is_discarded()) {
        out += "null";
      } else {
        AppendCalciteJsonElement(j, rep, out);
      }
      return;
    }
    default: {
      std::string text;
      FormatValue(v, rep, text);
      out += Quote(text);
    }
  }
}

// Splits "k1;k2;..." type codes (collection codes contain no ';').
std::vector<std::string_view> Codes(std::string_view codes) {
  std::vector<std::string_view> out;
  size_t begin = 0;
  while (begin <= codes.size()) {
    size_t end = codes.find(';', begin);
    if (end == std::string_view::npos) end = codes.size();
    if (end > begin) out.push_back(codes.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

// The parsed reps of a ';' code list in argument `i`, kept for the statement.
const std::vector<Rep>* ArgReps(sqlite3_context* ctx, sqlite3_value** argv, int i) {
  if (auto* cached = static_cast<const std::vector<Rep>*>(sqlite3_get_auxdata(ctx, i))) {
    return cached;
  }
  auto reps = std::make_unique<std::vector<Rep>>();
  for (std::string_view code : Codes(ArgText(argv[i]))) {
    auto r = ParseTypeCode(code);
    if (!r.ok()) {
      SetError(ctx, r.status().message());
      return nullptr;
    }
    reps->push_back(*r);
  }
  auto* raw = reps.release();
  sqlite3_set_auxdata(ctx, i, raw, [](void* p) { delete static_cast<std::vector<Rep>*>(p); });
  if (auto* kept = static_cast<const std::vector<Rep>*>(sqlite3_get_auxdata(ctx, i))) return kept;
  thread_local std::vector<Rep> row;
  row.clear();
  for (std::string_view code : Codes(ArgText(argv[i]))) row.push_back(*ParseTypeCode(code));
  return &row;
}

// ---- SQL/JSON paths --------------------------------------------------------------------------

struct Step {
  bool index = false;
  int64_t n = 0;
  std::string key;
};

std::optional<std::vector<Step>> ParsePath(std::string_view path, bool* strict) {
  std::string_view p = TrimWhitespace(path);
  *strict = false;
  if (p.rfind("strict", 0) == 0) {
    *strict = true;
    p = TrimWhitespace(p.substr(6));
  } else if (p.rfind("lax", 0) == 0) {
    p = TrimWhitespace(p.substr(3));
  }
  if (p.empty() || p[0] != '$') return std::nullopt;
  std::vector<Step> steps;
  size_t i = 1;
  while (i < p.size()) {
    if (p[i] == '.') {
      ++i;
      Step s;
      if (i < p.size() && p[i] == '"') {
        size_t end = p.find('"', i + 1);
        if (end == std::string_view::npos) return std::nullopt;
        s.key = std::string(p.substr(i + 1, end - i - 1));
        i = end + 1;
      } else {
        size_t b = i;
        while (i < p.size() && p[i] != '.' && p[i] != '[') ++i;
        if (i == b) return std::nullopt;
        s.key = std::string(p.substr(b, i - b));
      }
      steps.push_back(std::move(s));
    } else if (p[i] == '[') {
      size_t end = p.find(']', i);
      if (end == std::string_view::npos) return std::nullopt;
      std::string_view inside = TrimWhitespace(p.substr(i + 1, end - i - 1));
      Step s;
      if (!inside.empty() && (inside[0] == '\'' || inside[0] == '"')) {
        s.key = std::string(inside.substr(1, inside.size() - 2));
      } else {
        s.index = true;
        try {
          s.n = std::stoll(std::string(inside));
        } catch (...) {
          return std::nullopt;
        }
      }
      steps.push_back(std::move(s));
      i = end + 1;
    } else {
      return std::nullopt;
    }
  }
  return steps;
}

// The item the path selects, or null when it selects nothing.
const Json* Select(const Json& root, const std::vector<Step>& steps) {
  const Json* at = &root;
  for (const Step& s : steps) {
    if (s.index) {
      if (!at->is_array() || s.n < 0 || s.n >= static_cast<int64_t>(at->size())) return nullptr;
      at = &(*at)[static_cast<size_t>(s.n)];
    } else {
      if (!at->is_object()) return nullptr;
      auto it = at->find(s.key);
      if (it == at->end()) return nullptr;
      at = &*it;
    }
  }
  return at;
}

// What JSON_VALUE, JSON_QUERY and JSON_EXISTS read: the item, or why there is none.
enum class Found { kItem, kNone, kError };
Found Lookup(sqlite3_context* ctx, sqlite3_value** argv, Json* doc, const Json** item) {
  bool strict = false;
  auto steps = ParsePath(ArgText(argv[1]), &strict);
  if (!steps) {
    SetError(ctx, fmt::format("Illegal jsonpath spec: {}", ArgText(argv[1])));
    return Found::kError;
  }
  auto parsed = Parse(argv[0]);
  if (!parsed) return Found::kNone;  // lax: NULL (or FALSE) ON ERROR
  *doc = std::move(*parsed);
  *item = Select(*doc, *steps);
  if (!*item) {
    if (strict) {
      SetError(ctx, fmt::format("No results for path: {}", ArgText(argv[1])));
      return Found::kError;
    }
    return Found::kNone;
  }
  return Found::kItem;
}

void JsonValueFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
    return sqlite3_result_null(ctx);
  }
  Json doc;
  const Json* item = nullptr;
  if (Lookup(ctx, argv, &doc, &item) != Found::kItem) {
    if (!item) sqlite3_result_null(ctx);
    return;
  }
  if (item->is_string()) return SetText(ctx, item->get_ref<const std::string&>());
  if (item->is_null() || item->is_object() || item->is_array()) return sqlite3_result_null(ctx);
  SetText(ctx, item->dump());
}

void JsonQueryFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
    return sqlite3_result_null(ctx);
  }
  Json doc;
  const Json* item = nullptr;
  if (Lookup(ctx, argv, &doc, &item) != Found::kItem) {
    if (!item) sqlite3_result_null(ctx);
    return;
  }
  if (!item->is_object() && !item->is_array()) return sqlite3_result_null(ctx);
  SetText(ctx, item->dump());
}

void JsonExistsFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
    return sqlite3_result_null(ctx);
  }
  Json doc;
  const Json* item = nullptr;
  const Found found = Lookup(ctx, argv, &doc, &item);
  if (found == Found::kError) return;
  sqlite3_result_int(ctx, found == Found::kItem ? 1 : 0);
}

void JsonObjectFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  const std::vector<Rep>* reps = ArgReps(ctx, argv, 0);
  if (!reps) return;
  const bool absent_on_null = sqlite3_value_int(argv[1]) != 0;
  std::string out = "{";
  bool first = true;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) {
      return SetError(ctx, "JSON_OBJECT keys cannot be NULL");
    }
    const bool null_value = sqlite3_value_type(argv[i + 1]) == SQLITE_NULL;
    if (null_value && absent_on_null) continue;
    if (!first) out += ',';
    first = false;
    out += Quote(ArgText(argv[i]));
    out += ':';
    const size_t r = static_cast<size_t>(i - 2) / 2;
    AppendCalciteJson(ArgValue(argv[i + 1]), r < reps->size() ? (*reps)[r] : Rep{}, out);
  }
  out += '}';
  SetText(ctx, out);
}

void JsonArrayFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  const std::vector<Rep>* reps = ArgReps(ctx, argv, 0);
  if (!reps) return;
  std::string out = "[";
  bool first = true;
  for (int i = 1; i < argc; ++i) {
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) continue;  // ABSENT ON NULL
    if (!first) out += ',';
    first = false;
    const size_t r = static_cast<size_t>(i - 1);
    AppendCalciteJson(ArgValue(argv[i]), r < reps->size() ? (*reps)[r] : Rep{}, out);
  }
  out += ']';
  SetText(ctx, out);
}

void JsonStringFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  const Rep* rep = ArgRep(ctx, argv, 1);
  if (!rep) return;
  std::string out;
  AppendCalciteJson(ArgValue(argv[0]), *rep, out);
  SetText(ctx, out);
}

// ---- collections -----------------------------------------------------------------------------

void ArrayFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  const Rep* element = ArgRep(ctx, argv, 0);
  if (!element) return;
  std::string out = "[";
  for (int i = 1; i < argc; ++i) {
    if (i > 1) out += ',';
    out += JsonFragment(argv[i], *element);
  }
  SetText(ctx, out + "]");
}

void MapFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  const std::vector<Rep>* reps = ArgReps(ctx, argv, 0);
  if (!reps) return;
  if (reps->size() != 2) return SetError(ctx, "malformed MAP type codes");
  // A later entry with the same key replaces an earlier one.
  std::vector<std::pair<std::string, std::string>> entries;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string key = JsonFragment(argv[i], (*reps)[0]);
    std::string value = JsonFragment(argv[i + 1], (*reps)[1]);
    auto it =
        std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == key; });
    if (it != entries.end()) {
      it->second = std::move(value);
    } else {
      entries.emplace_back(std::move(key), std::move(value));
    }
  }
  std::string out = "[";
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0) out += ',';
    out += "[" + entries[i].first + "," + entries[i].second + "]";
  }
  SetText(ctx, out + "]");
}

void RowFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  const std::vector<Rep>* reps = ArgReps(ctx, argv, 0);
  if (!reps) return;
  std::string out = "[";
  for (int i = 1; i < argc; ++i) {
    if (i > 1) out += ',';
    const size_t r = static_cast<size_t>(i - 1);
    out += JsonFragment(argv[i], r < reps->size() ? (*reps)[r] : Rep{});
  }
  SetText(ctx, out + "]");
}

// The element `index` (0-based) of a JSON array argument, as `rep`.
void Element(sqlite3_context* ctx, sqlite3_value* array, int64_t index, const Rep& rep) {
  auto j = Parse(array);
  if (!j || !j->is_array()) return SetError(ctx, "malformed collection value");
  if (index < 0 || index >= static_cast<int64_t>(j->size())) return sqlite3_result_null(ctx);
  SetResult(ctx, FromJson((*j)[static_cast<size_t>(index)], rep));
}

void ItemFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
    return sqlite3_result_null(ctx);
  }
  const Rep* rep = ArgRep(ctx, argv, 2);
  if (!rep) return;
  Element(ctx, argv[0], sqlite3_value_int64(argv[1]) - 1, *rep);  // SQL arrays count from 1
}

void FieldFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  const Rep* rep = ArgRep(ctx, argv, 2);
  if (!rep) return;
  Element(ctx, argv[0], sqlite3_value_int64(argv[1]), *rep);
}

void MapGetFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
    return sqlite3_result_null(ctx);
  }
  const Rep* key_rep = ArgRep(ctx, argv, 2);
  if (!key_rep) return;
  const Rep* value_rep = ArgRep(ctx, argv, 3);
  if (!value_rep) return;
  auto j = Parse(argv[0]);
  if (!j || !j->is_array()) return SetError(ctx, "malformed MAP value");
  const Json key = Json::parse(JsonFragment(argv[1], *key_rep), nullptr, false);
  for (const Json& pair : *j) {
    if (pair.is_array() && pair.size() == 2 && pair[0] == key) {
      return SetResult(ctx, FromJson(pair[1], *value_rep));
    }
  }
  sqlite3_result_null(ctx);
}

void ArrayConcatFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  Json out = Json::array();
  for (int i = 0; i < argc; ++i) {
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return sqlite3_result_null(ctx);
    auto j = Parse(argv[i]);
    if (!j || !j->is_array()) return SetError(ctx, "malformed ARRAY value");
    for (auto& e : *j) out.push_back(std::move(e));
  }
  SetText(ctx, out.dump());
}

void ArrayContainsFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
    return sqlite3_result_null(ctx);
  }
  const Rep* rep = ArgRep(ctx, argv, 2);
  if (!rep) return;
  auto j = Parse(argv[0]);
  if (!j || !j->is_array()) return SetError(ctx, "malformed ARRAY value");
  const Json x = Json::parse(JsonFragment(argv[1], *rep), nullptr, false);
  bool null_seen = false;
  for (const Json& e : *j) {
    if (e.is_null()) null_seen = true;
    if (e == x || (rep->kind == RepKind::kBoolean && e.is_number() && x.is_boolean() &&
                   (e.get<int64_t>() != 0) == x.get<bool>())) {
      return sqlite3_result_int(ctx, 1);
    }
  }
  if (null_seen) return sqlite3_result_null(ctx);
  sqlite3_result_int(ctx, 0);
}

void ArrayDistinctFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  auto j = Parse(argv[0]);
  if (!j || !j->is_array()) return SetError(ctx, "malformed ARRAY value");
  Json out = Json::array();
  std::set<std::string> seen;
  for (const Json& e : *j) {
    if (seen.insert(e.dump()).second) out.push_back(e);
  }
  SetText(ctx, out.dump());
}

void ArrayJoinFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
    return sqlite3_result_null(ctx);
  }
  const Rep* rep = ArgRep(ctx, argv, 3);
  if (!rep) return;
  auto j = Parse(argv[0]);
  if (!j || !j->is_array()) return SetError(ctx, "malformed ARRAY value");
  const std::string_view sep = ArgText(argv[1]);
  const bool replace_nulls = sqlite3_value_type(argv[2]) != SQLITE_NULL;
  std::string out;
  bool first = true;
  for (const Json& e : *j) {
    std::string text;
    if (e.is_null()) {
      if (!replace_nulls) continue;
      text = std::string(ArgText(argv[2]));
    } else if (e.is_string() && rep->kind == RepKind::kText) {
      text = e.get<std::string>();
    } else {
      FormatJson(e.dump(), *rep, text);
    }
    if (!first) out += sep;
    first = false;
    out += text;
  }
  SetText(ctx, out);
}

void ElementFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  const Rep* rep = ArgRep(ctx, argv, 1);
  if (!rep) return;
  auto j = Parse(argv[0]);
  if (!j || !j->is_array()) return SetError(ctx, "malformed ARRAY value");
  if (j->empty()) return sqlite3_result_null(ctx);
  if (j->size() > 1) return SetError(ctx, "ELEMENT of an ARRAY with more than one element");
  SetResult(ctx, FromJson((*j)[0], *rep));
}

template <int kPart>
void MapPartsFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  auto j = Parse(argv[0]);
  if (!j || !j->is_array()) return SetError(ctx, "malformed MAP value");
  Json out = Json::array();
  for (const Json& pair : *j) {
    if (pair.is_array() && pair.size() == 2) out.push_back(pair[kPart]);
  }
  SetText(ctx, out.dump());
}

}  // namespace

void AppendJson(const Value& v, const Rep& rep, std::string& out) {
  AppendCalciteJson(v, rep, out);
}

std::string JsonFragment(sqlite3_value* v, const Rep& rep) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_NULL: return "null";
    case SQLITE_INTEGER: {
      const int64_t i = sqlite3_value_int64(v);
      if (rep.kind == RepKind::kBoolean) return i != 0 ? "true" : "false";
      if (rep.kind == RepKind::kDouble) return FormatDouble(static_cast<double>(i));
      return std::to_string(i);
    }
    case SQLITE_FLOAT: {
      const double d = sqlite3_value_double(v);
      if (!std::isfinite(d)) return "null";
      return FormatDouble(d);
    }
    case SQLITE_BLOB: {
      std::string hex;
      FormatValue(ArgValue(v), RepOf(sql::DataType(sql::TypeName::kVarbinary)), hex);
      return Quote(hex);
    }
    default: {
      const std::string_view text = ArgText(v);
      if (rep.kind == RepKind::kJson) {
        // A nested collection stays nested.
        if (Json::accept(text)) return std::string(text);
      }
      return Quote(text);
    }
  }
}

Status RegisterJsonFunctions(sqlite3* db) {
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kJsonValue, 2, JsonValueFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kJsonQuery, 2, JsonQueryFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kJsonExists, 2, JsonExistsFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kJsonObject, -1, JsonObjectFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kJsonArray, -1, JsonArrayFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kJsonString, 2, JsonStringFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kArray, -1, ArrayFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kMap, -1, MapFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kRow, -1, RowFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kItem, 3, ItemFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kField, 3, FieldFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kMapGet, 4, MapGetFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kArrayConcat, -1, ArrayConcatFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kArrayContains, 3, ArrayContainsFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kArrayDistinct, 1, ArrayDistinctFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kArrayJoin, 4, ArrayJoinFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kElement, 2, ElementFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kMapKeys, 1, MapPartsFn<0>));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kMapValues, 1, MapPartsFn<1>));
  return Status::OK();
}

}  // namespace hop::engine::internal
