// Who may connect to the PostgreSQL wire server and how they prove it (docs/pgwire.md,
// "Authentication"): the users file (one user a line with the verifiers of its password, never
// the password), SCRAM-SHA-256 (RFC 5802 and RFC 7677, as PostgreSQL speaks it), md5 and
// cleartext password checks, and the verifier `hop pg-user add` writes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace hop::server {

enum class AuthMethod { kTrust, kPassword, kMd5, kScramSha256 };

// Accepts trust, password, md5, scram-sha-256 (any case).
Result<AuthMethod> ParseAuthMethod(std::string_view name);
std::string_view AuthMethodName(AuthMethod method);

// A SCRAM-SHA-256 verifier, as PostgreSQL stores one:
// SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey> (base64 fields).
struct ScramVerifier {
  int iterations = 4096;
  std::string salt;        // raw bytes
  std::string stored_key;  // raw, 32 bytes
  std::string server_key;  // raw, 32 bytes

  static Result<ScramVerifier> Parse(std::string_view text);
  std::string ToString() const;
  // A verifier of `password` with a fresh random salt.
  static Result<ScramVerifier> Make(std::string_view password, int iterations = 4096);
  // Whether `password` is the one this verifier was made from.
  bool Matches(std::string_view password) const;
};

struct PgUser {
  std::string name;
  std::optional<ScramVerifier> scram;
  std::string md5;  // "md5" + md5(password + name) in hex, or ""
};

// The users file: lines `NAME VERIFIER [VERIFIER]` (a SCRAM verifier and/or an md5 hash),
// blank lines and `#` comments skipped. Errors name the file and line; the file must not be
// readable by others (mode 0600 or stricter), as it holds what an attacker could test guesses
// against.
class PgUsers {
 public:
  static Result<PgUsers> Load(const std::string& path);
  static Result<PgUsers> Parse(std::string_view text, std::string_view name);
  const PgUser* Find(std::string_view name) const;

 private:
  std::map<std::string, PgUser, std::less<>> users_;
};

// Adds or replaces user `name` in the users file `path` (created 0600 when missing) with the
// SCRAM verifier and md5 hash of `password`. Adds at once, from several processes, all land: each
// holds a lock on the file's directory while it reads and replaces the file.
Status AddPgUser(const std::string& path, std::string_view name, std::string_view password);

// The md5 method's hash a users file keeps: "md5" + hex md5(password + user).
std::string Md5Hash(std::string_view password, std::string_view user);
// What the client must send for a stored md5 hash and a 4-byte salt: "md5" + hex md5(hash
// without its "md5" + salt).
std::string Md5Response(std::string_view stored, std::string_view salt);
// `n` random bytes from the kernel (getrandom).
std::string RandomBytes(size_t n);

// The server's side of one SCRAM-SHA-256 exchange, without channel binding.
class ScramExchange {
 public:
  // `verifier` null: the user is unknown; the exchange runs as for a user and fails at the end,
  // so a client cannot tell unknown users from wrong passwords.
  explicit ScramExchange(const ScramVerifier* verifier);
  // The client-first message; returns the server-first message. Errors: malformed, or channel
  // binding asked for.
  Result<std::string> First(std::string_view client_first);
  // The client-final message; returns the server-final message when the proof is right, else
  // an error.
  Result<std::string> Final(std::string_view client_final);

 private:
  ScramVerifier verifier_;
  bool known_ = false;
  std::string client_first_bare_;
  std::string server_first_;
  std::string nonce_;
  std::string gs2_header_;
};

// hop::Base64Decode (common/strings.h) for text a client sent: at most 4096 bytes.
Result<std::string> Base64Decode(std::string_view text);

}  // namespace hop::server
