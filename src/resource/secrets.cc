#include "resource/secrets.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

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

// Whether `doc` is an env entry whose name names a secret and whose `value` is one to redact:
// `{name: PGPASSWORD, value: x}`, as a container's env lists it.
bool SecretEnvEntry(const Json& doc) {
  if (!doc.is_object()) return false;
  const auto name = doc.find("name");
  const auto value = doc.find("value");
  if (name == doc.end() || value == doc.end() || !name->is_string()) return false;
  const std::optional<std::string> text = ScalarText(*value);
  return text && NamesSecret(name->get_ref<const std::string&>()) && RedactsAsSecretValue(*text);
}

// Whether the element `i` of the list `doc` is the value of a secret option before it:
// `["--password", "x"]`, as a container's command and args list them.
bool SecretArgument(const Json& doc, size_t i) {
  if (i == 0 || !doc[i - 1].is_string()) return false;
  const std::optional<std::string> text = ScalarText(doc[i]);
  return text && IsSecretOption(doc[i - 1].get_ref<const std::string&>()) &&
         RedactsAsSecretValue(*text);
}

}  // namespace

void RedactSecretsIn(Json& doc) {
  if (doc.is_string()) {
    const std::string& text = doc.get_ref<const std::string&>();
    std::string shown = RedactSecrets(text);
    if (shown != text) doc = std::move(shown);
  } else if (doc.is_object()) {
    const bool env_entry = SecretEnvEntry(doc);
    for (auto& [key, v] : doc.items()) {
      if (SecretEntry(key, v) || (env_entry && key == "value")) {
        v = std::string(kRedacted);
      } else {
        RedactSecretsIn(v);
      }
    }
  } else if (doc.is_array()) {
    // Marked first: redacting an element must not change whether the next one is a secret.
    std::vector<bool> arguments(doc.size());
    for (size_t i = 0; i < doc.size(); ++i) arguments[i] = SecretArgument(doc, i);
    for (size_t i = 0; i < doc.size(); ++i) {
      if (arguments[i]) {
        doc[i] = std::string(kRedacted);
      } else {
        RedactSecretsIn(doc[i]);
      }
    }
  }
}

bool HoldsSecrets(const Json& doc) {
  if (doc.is_string()) {
    const std::string& text = doc.get_ref<const std::string&>();
    return RedactSecrets(text) != text;
  }
  if (doc.is_object()) {
    if (SecretEnvEntry(doc)) return true;
    for (const auto& [key, v] : doc.items()) {
      if (SecretEntry(key, v) || HoldsSecrets(v)) return true;
    }
  } else if (doc.is_array()) {
    for (size_t i = 0; i < doc.size(); ++i) {
      if (SecretArgument(doc, i) || HoldsSecrets(doc[i])) return true;
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
