// Redaction of secrets in text hop prints or logs (ARCHITECTURE.md §4.16): database URLs and
// connection strings carry passwords and tokens, and hop never shows them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hop {

// What a redacted secret reads as.
inline constexpr std::string_view kRedacted = "<redacted>";

// `text` with every secret it spells out replaced by kRedacted:
//   - the password of a URL's user information: `postgresql://app:s3cret@db/x` becomes
//     `postgresql://app:<redacted>@db/x`;
//   - the value of a `key=value`, `key = value` or `key: value` entry, the key and value plain
//     or quoted (`'password'='x'`, `"token": "x"`), whose key (its last dotted, dashed or
//     underscored word, in any case) names a secret — password, passwd, pwd, secret, token,
//     apikey, credentials and the like: `...;user=app;password=s3cret` becomes
//     `...;user=app;password=<redacted>`. A plain value ends at `;`, `&`, `,`, blanks, quotes or
//     a closing bracket. A reference to a value kept elsewhere (`$(PGPASSWORD)`, `${TOKEN}`, a
//     template's `{{password}}`) is not a secret and is kept;
//   - the value of an option of a SQL statement whose key names a secret, the key quoted or
//     plain and the value a SQL string: `WITH ('url' 'x', 'password' 's3cret')` becomes
//     `WITH ('url' 'x', 'password' '<redacted>')`.
//   - the value of an env entry whose name names a secret, a Kubernetes container's
//     `{name: PGPASSWORD, value: x}` written as YAML (block or flow) or JSON, the `value` key
//     right after the `name` key or right before it, in the same mapping:
//     `- name: PGPASSWORD\n  value: <redacted>`;
//   - the value of a command-line option whose name names a secret (IsSecretOption) given as
//     the next word: `--password x` on a command line, `["--password", "x"]` in JSON or flow
//     YAML, `- --password\n- x` in a YAML block list (`--password=x` is an entry above).
// Keys are read with their percent escapes decoded, as a URL's query is (`pass%77ord=x`).
// Text without secrets comes back unchanged. With `position` (a byte offset of `text`), moves it
// to the same character of the result, or to the start of kRedacted when it was inside a secret:
// a caret under a redacted line stays under what it pointed at.
std::string RedactSecrets(std::string_view text, size_t* position = nullptr);

// Whether `word`, one argument of a command line, is an option whose name names a secret and
// whose value is the argument after it: one or two dashes and a name NamesSecret accepts, with
// no `=` (`--password`, `-token`, `--db-password`; not `--password=x`, which holds its value,
// not `--password-file`, not `--no-password`, which takes no value, and not `--auth` or
// `--pg-auth`, which name a method).
bool IsSecretOption(std::string_view word);

// `argv` with its secrets redacted: each argument as RedactSecrets redacts it, and the argument
// after a secret option (IsSecretOption) replaced by kRedacted unless it is empty, a reference to
// a value kept elsewhere or redacted already.
std::vector<std::string> RedactArguments(const std::vector<std::string>& argv);

// Whether `key` names a secret (the rule above: its last word, or the whole key without
// separators, is one of the secret words; percent escapes decoded).
bool NamesSecret(std::string_view key);

// Whether `value`, the value of an entry keyed `key` (a map's entry in a resource), is a secret
// to redact: the key names one, and the value is neither empty, nor a reference to a value kept
// elsewhere, nor redacted already.
bool RedactsAsSecret(std::string_view key, std::string_view value);

// Whether `value` is one to redact when something else says it is a secret (its key, an env
// entry's name, the option before it): it is neither empty, nor a reference to a value kept
// elsewhere (`$(PGPASSWORD)`, `${TOKEN}`, `{{password}}`), nor redacted already.
bool RedactsAsSecretValue(std::string_view value);

// Whether `text` holds a value RedactSecrets wrote (so it must not be stored as the secret).
bool HoldsRedacted(std::string_view text);

}  // namespace hop
