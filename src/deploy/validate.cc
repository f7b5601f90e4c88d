#include "deploy/validate.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/strings.h"
#include "deploy/objects.h"
#include "resource/kinds.h"
#include "resource/selector.h"
#include "resource/validation.h"
#include "sql/ast/create_table_statement.h"
#include "sql/unparser.h"

namespace hop::deploy {

namespace {

std::string TypeText(const sql::DataType& type) {
  sql::DataType t = type;
  const bool not_null = t.nullability == sql::Nullability::kNotNull;
  t.nullability = sql::Nullability::kUnspecified;
  auto text = sql::PrintType(t, {sql::Dialect::kAnsi});
  return (text.ok() ? *text : std::string("?")) + (not_null ? " NOT NULL" : "");
}

// Key columns by name, with their types: those whose names start with KEY_ (and, for Venice, a
// column named KEY, a primitive key).
std::map<std::string, std::string> Keys(const catalog::RowType& row, bool primitive_key) {
  std::map<std::string, std::string> keys;
  for (const auto& c : row.columns) {
    if (c.name.rfind("KEY_", 0) == 0 || (primitive_key && c.name == "KEY")) {
      keys[c.name] = TypeText(c.type);
    }
  }
  return keys;
}

std::string KeyNames(const std::map<std::string, std::string>& keys) {
  std::string out = "[";
  for (const auto& [name, type] : keys) {
    out += (out.size() > 1 ? ", " : "") + (name == "KEY" ? name : name.substr(4));
  }
  return out + "]";
}

// A column type as MySQL names it, for the messages about MySQL tables: INT for INTEGER, TEXT for
// a VARCHAR without a length; others as hop prints them.
std::string MySqlTypeName(const sql::DataType& type) {
  if (type.name == sql::TypeName::kInteger) return "INT";
  sql::DataType t = type;
  t.nullability = sql::Nullability::kUnspecified;
  auto text = sql::PrintType(t, {sql::Dialect::kAnsi});
  if (!text.ok()) return "?";
  return *text == "VARCHAR" ? "TEXT" : *text;
}

// `type` without its parameters: VARCHAR(20) and VARCHAR(30) are one type here.
std::string WithoutParameters(const std::string& type) {
  return type.substr(0, type.find('('));
}

// Constraints the statement asks for that hop does not enforce.
class StatementChecks : public Validator {
 public:
  void Validate(const Subject& s, const ValidationContext&, Issues& issues) const override {
    if (s.point != ValidationPoint::kStatement ||
        s.statement->kind != sql::StatementKind::kCreateTable) {
      return;
    }
    for (const auto& k : s.statement->As<sql::CreateTableStatement>().constraints) {
      if (k.kind == sql::ConstraintKind::kCheck) continue;  // refused by the executor
      issues.Warning(
          fmt::format("{} constraints are not enforced: the table is declared without one",
                      k.kind == sql::ConstraintKind::kPrimaryKey ? "PRIMARY KEY" : "UNIQUE"));
    }
  }
};

// MySQL tables are keyed by their KEY_ columns, which cannot change once the table exists.
class MySqlKeys : public Validator {
 public:
  void Validate(const Subject& s, const ValidationContext&, Issues& issues) const override {
    if (s.point != ValidationPoint::kTable || !s.created ||
        s.schema->system != "mysql-hoptimator") {
      return;
    }
    const std::string& name = s.table->path.back();
    auto keys = Keys(s.table->row_type, false);
    if (keys.empty()) {
      issues.Error(fmt::format(
          "No KEY_ fields found in table {}. At least one KEY_ field is required.", name));
      return;
    }
    if (s.existing == nullptr) return;
    auto old_keys = Keys(s.existing->row_type, false);
    if (KeyNames(old_keys) != KeyNames(keys)) {
      issues.Error(fmt::format(
          "Cannot modify KEY fields for table {}. Existing keys: {}, New keys: {}. KEY field "
          "changes are not supported.",
          name, KeyNames(old_keys), KeyNames(keys)));
      return;
    }
    for (const catalog::Column& c : s.table->row_type.columns) {
      if (!keys.count(c.name)) continue;
      const int before = s.existing->row_type.Find(c.name);
      if (before < 0) continue;
      const std::string was =
          MySqlTypeName(s.existing->row_type.columns[static_cast<size_t>(before)].type);
      const std::string now = MySqlTypeName(c.type);
      if (WithoutParameters(was) != WithoutParameters(now)) {
        issues.Error(fmt::format(
            "Cannot modify KEY field type for table {}. KEY field '{}' has existing type {} but "
            "attempted to change to {}. KEY field type changes are not supported.",
            name, c.name.substr(4), was, now));
      }
    }
  }
};

// Whether a value of type `from` can be read as `to` (Avro's promotions).
bool Promotes(const std::string& from, const std::string& to) {
  static const std::multimap<std::string, std::string> kPromotions = {
      {"INTEGER", "BIGINT"},    {"INTEGER", "FLOAT"},    {"INTEGER", "DOUBLE"},
      {"BIGINT", "FLOAT"},      {"BIGINT", "DOUBLE"},    {"FLOAT", "DOUBLE"},
      {"VARCHAR", "VARBINARY"}, {"VARBINARY", "VARCHAR"}};
  auto [lo, hi] = kPromotions.equal_range(from);
  for (auto it = lo; it != hi; ++it) {
    if (it->second == to) return true;
  }
  return false;
}

// Venice stores need a key schema, which cannot change, and a value schema that stays backward
// compatible: the new schema must read what the old one wrote.
class VeniceSchemas : public Validator {
 public:
  void Validate(const Subject& s, const ValidationContext&, Issues& issues) const override {
    if (s.point != ValidationPoint::kTable || !s.created || s.schema->system != "venice") return;
    const std::string& store = s.table->path.back();
    auto keys = Keys(s.table->row_type, true);
    if (keys.empty()) {
      issues.Error(fmt::format(
          "Failed to generate key schema for Venice store {}: it needs a KEY column or KEY_ "
          "fields.",
          store));
      return;
    }
    if (keys.size() == s.table->row_type.columns.size()) {
      issues.Error(fmt::format(
          "Failed to generate value schema for Venice store {}: it needs a column besides its "
          "key.",
          store));
      return;
    }
    if (s.existing == nullptr) return;
    if (Keys(s.existing->row_type, true) != keys) {
      issues.Error(fmt::format(
          "Key schema evolution is not supported in Venice. Store {} has existing key schema but "
          "attempted to change it.",
          store));
      return;
    }
    std::map<std::string, std::string> old_values;
    for (const auto& c : s.existing->row_type.columns) {
      if (!keys.count(c.name)) old_values[c.name] = TypeText(c.type);
    }
    for (const auto& c : s.table->row_type.columns) {
      if (keys.count(c.name)) continue;
      const std::string type = TypeText(c.type);
      auto old = old_values.find(c.name);
      const bool not_null = type.size() > 9 && type.ends_with(" NOT NULL");
      std::string reason;
      if (old == old_values.end()) {
        // Old records have no value for it: it needs a default, which only nullable fields get.
        if (not_null) reason = fmt::format("new field {} is NOT NULL and has no default", c.name);
      } else if (old->second != type) {
        const std::string old_base = old->second.substr(0, old->second.find(" NOT NULL"));
        const std::string new_base = type.substr(0, type.find(" NOT NULL"));
        const bool old_not_null = old->second.ends_with(" NOT NULL");
        if (!old_not_null && not_null) {
          reason = fmt::format("field {} became NOT NULL", c.name);
        } else if (old_base != new_base && !Promotes(old_base, new_base)) {
          reason = fmt::format("field {} changed from {} to {}", c.name, old_base, new_base);
        }
      }
      if (!reason.empty()) {
        issues.Error(fmt::format(
            "Value schema is not backward compatible with existing schema for store {}: {}.", store,
            reason));
      }
    }
  }
};

// Every object the statement writes, checked as the store will check it, so that a user sees
// all the problems of all the objects at once.
class ElementSchemas : public Validator {
 public:
  void Validate(const Subject& s, const ValidationContext&, Issues& issues) const override {
    if (s.point != ValidationPoint::kElements) return;
    for (const auto& r : *s.elements) {
      resource::ValidateResource(
          r, &issues.Child(fmt::format("{}/{}", AsciiToLower(r.kind()), r.name())));
    }
  }
};

// compatibility.md §5.8: nothing may be deleted while a pipeline or trigger depends on it.
class DependencyGuard : public Validator {
 public:
  void Validate(const Subject& s, const ValidationContext& ctx, Issues& issues) const override {
    if (s.point != ValidationPoint::kPendingDelete) return;
    std::vector<std::string> dependents;
    if (!s.trigger_selector.empty()) {
      auto selector = resource::LabelSelector::Parse(s.trigger_selector);
      if (!selector.ok()) {
        issues.Error(selector.status().message());
        return;
      }
      auto triggers = ctx.store.List(
          {resource::TableTriggerKind::Info().group_kind(), ctx.namespace_name, *selector});
      if (!triggers.ok()) {
        issues.Error(triggers.status().ToString());
        return;
      }
      for (const auto& t : triggers->items) dependents.push_back("trigger/" + t.name());
    }
    if (!s.identifier.empty()) {
      auto found =
          Dependents(ctx.store, ctx.namespace_name, s.identifier, s.self_kind, s.self_name);
      if (!found.ok()) {
        issues.Error(found.status().ToString());
        return;
      }
      for (auto& d : *found) {
        if (std::find(dependents.begin(), dependents.end(), d) == dependents.end()) {
          dependents.push_back(std::move(d));
        }
      }
    }
    if (dependents.empty()) return;
    std::string list;
    for (size_t i = 0; i < dependents.size(); ++i) list += (i ? ", " : "") + dependents[i];
    const std::string what = s.identifier.empty() ? s.deleted.name : s.identifier;
    issues.Error(fmt::format("Cannot delete {} \u2014 {} active dependent(s): {}", what,
                             dependents.size(), list));
  }
};

}  // namespace

const std::vector<const Validator*>& DefaultValidators() {
  static const StatementChecks statement;
  static const MySqlKeys mysql;
  static const VeniceSchemas venice;
  static const ElementSchemas elements;
  static const DependencyGuard guard;
  static const std::vector<const Validator*> all = {&statement, &mysql, &venice, &elements, &guard};
  return all;
}

void CheckWrittenObject(store::Store& store, const resource::Resource& object, Issues& issues) {
  using resource::ViewKind;
  if (object.group_kind() != ViewKind::Info().group_kind()) return;
  const std::string ns = object.namespace_name().empty() ? std::string(resource::kDefaultNamespace)
                                                         : object.namespace_name();
  auto cat = catalog::Catalog::Load(store, ns);
  if (!cat.ok()) {
    issues.Error(fmt::format("cannot read the catalog to check the view against it: {}",
                             cat.status().ToString()));
    return;
  }
  const std::vector<std::string> path = ViewKind::Path(object);
  // A schema that does not exist is one the view makes for itself: nothing is there to hide.
  auto schema = cat->SchemaFor(path);
  if (!schema.ok() || *schema == nullptr) return;
  cat->Lookup(**schema, path.back());
  if (Status physical = cat->CheckViewName(**schema, path.back()); !physical.ok()) {
    issues.Error(physical.message());
  }
}

std::string SubjectContext(const Subject& s) {
  switch (s.point) {
    case ValidationPoint::kStatement: return "statement";
    case ValidationPoint::kTable: return "table " + Join(s.table->path, ".");
    case ValidationPoint::kObject: return AsciiToLower(s.object->kind()) + "/" + s.object->name();
    case ValidationPoint::kElements: return "resources";
    case ValidationPoint::kPendingDelete:
      return "delete " + AsciiToLower(s.deleted.kind.kind) + "/" + s.deleted.name;
  }
  return "";
}

}  // namespace hop::deploy
