// Secrets in whole documents (ARCHITECTURE.md §4.16): what `hop get` and the Kubernetes API
// print has every secret its strings spell out redacted (common/redact.h), and a document that
// holds such a redacted value cannot be written back in place of the secret.
#pragma once

#include <string>

#include "common/issues.h"
#include "resource/json.h"

namespace hop::resource {

// `doc` with every secret in its strings redacted, in place (common/redact.h), and the value
// of every object entry whose key names a secret (`options: {password: x}`,
// `configs: {ssl.truststore.password: x}`, an annotation `db-password`) replaced by
// `<redacted>` when it is a string or a number that is not a reference to a value kept
// elsewhere; likewise the `value` of an env entry whose `name` names a secret
// (`{name: PGPASSWORD, value: x}`, as a container's env lists it) and the element of a list
// after a secret option (`["--password", "x"]`, a container's command or args;
// common/redact.h's IsSecretOption).
void RedactSecretsIn(Json& doc);

// Whether RedactSecretsIn would change `doc`.
bool HoldsSecrets(const Json& doc);

// Records an error in `issues` for every string of `doc` that holds a redacted secret, naming
// its path (`path` is the path of `doc` itself, "" for the root).
void RefuseRedacted(const Json& doc, const std::string& path, Issues& issues);

}  // namespace hop::resource
