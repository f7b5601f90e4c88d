#include "resource/secrets.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "common/redact.h"

namespace hop::resource {

namespace {

// The text of a scalar a map's entry may hold as a secret (a string, or a number YAML read from
// an unquoted PIN), or nullopt for other values (objects, lists, booleans, null).
std::optional<std::string> ScalarText(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return v.dump();
  return std::nullopt;
}

// Whether the entry `key: v` of an object is itself a secret (common/redact.h's
// RedactsAsSecret): `options: {password: x}`, `data: {db.password: x}`.
bool SecretEntry(const std::string& key, const Json& v) {
  const std::optional<std::string> text = ScalarText(v);
  return text && RedactsAsSecret(key, *text);
}

}  // namespace

void RedactSecretsIn(Json& doc) {
  if (doc.is_string()) {
    const std::string& text = doc.get_ref<const std::string&>();
    std::string shown = RedactSecrets(text);
    if (shown != text) doc = std::move(shown);
  } else if (doc.is_object()) {
    for (auto& [key, v] : doc.items()) {
      if (SecretEntry(key, v)) {
        v = std::string(kRedacted);
      } else {
        RedactSecretsIn(v);
      }
    }
  } else if (doc.is_array()) {
    for (auto& v : doc) RedactSecretsIn(v);
  }
}

bool HoldsSecrets(const Json& doc) {
  if (doc.is_string()) {
    const std::string& text = doc.get_ref<const std::string&>();
    return RedactSecrets(text) != text;
  }
  if (doc.is_object()) {
    for (const auto& [key, v] : doc.items()) {
      if (SecretEntry(key, v) || HoldsSecrets(v)) return true;
    }
  } else if (doc.is_array()) {
    for (const Json& v : doc) {
      if (HoldsSecrets(v)) return true;
    }
  }
  return false;
}

void RefuseRedacted(const Json& doc, const std::string& path, Issues& issues) {
  if (doc.is_string()) {
    if (HoldsRedacted(doc.get_ref<const std::string&>())) {
      issues.Error(
          fmt::format("{}: holds {} where a secret was: give the secret itself "
                      "(`hop get --show-secrets` prints it)",
                      path.empty() ? "." : path, kRedacted));
    }
  } else if (doc.is_object()) {
    for (const auto& [k, v] : doc.items()) {
      RefuseRedacted(v, path.empty() ? k : path + "." + k, issues);
    }
  } else if (doc.is_array()) {
    for (size_t i = 0; i < doc.size(); ++i) {
      RefuseRedacted(doc[i], fmt::format("{}[{}]", path, i), issues);
    }
  }
}

}  // namespace hop::resource
