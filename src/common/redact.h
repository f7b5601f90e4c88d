// Redaction of secrets in text hop prints or logs (ARCHITECTURE.md §4.16): database URLs and
// connection strings carry passwords and tokens, and hop never shows them.
#pragma once

#include <string>
#include <string_view>

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
//     template's `{{password}}`) is not a secret and is kept.
// Text without secrets comes back unchanged.
std::string RedactSecrets(std::string_view text);

// Whether `text` holds a value RedactSecrets wrote (so it must not be stored as the secret).
bool HoldsRedacted(std::string_view text);

}  // namespace hop
