#include "resource/secrets.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/redact.h"

namespace hop::resource {

void RedactSecretsIn(Json& doc) {
  if (doc.is_string()) {
    const std::string& text = doc.get_ref<const std::string&>();
    std::string shown = RedactSecrets(text);
    if (shown != text) doc = std::move(shown);
  } else if (doc.is_object() || doc.is_array()) {
    for (auto& v : doc) RedactSecretsIn(v);
  }
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
