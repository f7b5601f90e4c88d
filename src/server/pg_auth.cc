// Users and password checks of the PostgreSQL wire server (pg_auth.h).
#include "server/pg_auth.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/digest.h"
#include "common/files.h"
#include "common/strings.h"

namespace hop::server {

namespace {

std::string Sha256(std::string_view data) { return digest::Of<digest::Sha256>(data); }

std::string Hmac(std::string_view key, std::string_view data) {
  return digest::HmacSha256(key, data);
}

std::string SaltedPassword(std::string_view password, std::string_view salt, int iterations) {
  return digest::Pbkdf2HmacSha256(password, salt, iterations);
}

std::string Md5Hex(std::string_view data) { return digest::Hex(digest::Of<digest::Md5>(data)); }

std::string Xor(std::string_view a, std::string_view b) {
  std::string out(a);
  for (size_t i = 0; i < out.size() && i < b.size(); ++i) out[i] = static_cast<char>(a[i] ^ b[i]);
  return out;
}

// The value of attribute `key` (`k=value`) among the comma-separated `fields`, or nullopt.
std::optional<std::string_view> Attribute(const std::vector<std::string_view>& fields, char key) {
  for (std::string_view f : fields) {
    if (f.size() >= 2 && f[0] == key && f[1] == '=') return f.substr(2);
  }
  return std::nullopt;
}

std::vector<std::string_view> SplitCommas(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    const size_t comma = s.find(',', start);
    parts.push_back(s.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return parts;
}

Status Malformed(std::string_view what) {
  return Status::InvalidArgument(fmt::format("malformed SCRAM message: {}", what));
}

}  // namespace

Result<AuthMethod> ParseAuthMethod(std::string_view name) {
  if (EqualsIgnoreCase(name, "trust")) return AuthMethod::kTrust;
  if (EqualsIgnoreCase(name, "password")) return AuthMethod::kPassword;
  if (EqualsIgnoreCase(name, "md5")) return AuthMethod::kMd5;
  if (EqualsIgnoreCase(name, "scram-sha-256")) return AuthMethod::kScramSha256;
  return Status::InvalidArgument(fmt::format(
      "authentication method must be trust, password, md5 or scram-sha-256, not '{}'", name));
}

std::string_view AuthMethodName(AuthMethod method) {
  switch (method) {
    case AuthMethod::kTrust: return "trust";
    case AuthMethod::kPassword: return "password";
    case AuthMethod::kMd5: return "md5";
    case AuthMethod::kScramSha256: return "scram-sha-256";
  }
  return "trust";
}

Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() > 4096) return Status::InvalidArgument("not base64: longer than 4096 bytes");
  std::optional<std::string> bytes = hop::Base64Decode(text);
  if (!bytes) return Status::InvalidArgument("not base64");
  return std::move(*bytes);
}

std::string RandomBytes(size_t n) {
  std::string out(n, '\0');
  for (size_t at = 0; at < n;) {
    const ssize_t got = getrandom(out.data() + at, n - at, 0);
    if (got < 0 && errno == EINTR) continue;
    // The kernel's generator failing is not something to carry on without: a nonce or salt
    // that is not random would let an attacker replay an exchange.
    if (got <= 0) std::abort();
    at += static_cast<size_t>(got);
  }
  return out;
}

Result<ScramVerifier> ScramVerifier::Parse(std::string_view text) {
  auto bad = [&] {
    return Status::InvalidArgument(
        "not a SCRAM-SHA-256 verifier (SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>)");
  };
  constexpr std::string_view kPrefix = "SCRAM-SHA-256$";
  if (text.rfind(kPrefix, 0) != 0) return bad();
  text.remove_prefix(kPrefix.size());
  const size_t colon = text.find(':');
  const size_t dollar = text.find('$');
  if (colon == std::string_view::npos || dollar == std::string_view::npos || dollar < colon) {
    return bad();
  }
  const size_t colon2 = text.find(':', dollar);
  if (colon2 == std::string_view::npos) return bad();
  ScramVerifier v;
  const std::string iterations(text.substr(0, colon));
  char* end = nullptr;
  const long n = std::strtol(iterations.c_str(), &end, 10);
  if (iterations.empty() || *end != '\0' || n < 1 || n > 10000000) return bad();
  v.iterations = static_cast<int>(n);
  auto salt = Base64Decode(text.substr(colon + 1, dollar - colon - 1));
  auto stored = Base64Decode(text.substr(dollar + 1, colon2 - dollar - 1));
  auto server = Base64Decode(text.substr(colon2 + 1));
  if (!salt.ok() || !stored.ok() || !server.ok() || salt->empty() || stored->size() != 32 ||
      server->size() != 32) {
    return bad();
  }
  v.salt = *salt;
  v.stored_key = *stored;
  v.server_key = *server;
  return v;
}

std::string ScramVerifier::ToString() const {
  return fmt::format("SCRAM-SHA-256${}:{}${}:{}", iterations, Base64Encode(salt),
                     Base64Encode(stored_key), Base64Encode(server_key));
}

Result<ScramVerifier> ScramVerifier::Make(std::string_view password, int iterations) {
  if (iterations < 1) return Status::InvalidArgument("SCRAM iterations must be positive");
  ScramVerifier v;
  v.iterations = iterations;
  v.salt = RandomBytes(16);
  const std::string salted = SaltedPassword(password, v.salt, iterations);
  v.stored_key = Sha256(Hmac(salted, "Client Key"));
  v.server_key = Hmac(salted, "Server Key");
  return v;
}

bool ScramVerifier::Matches(std::string_view password) const {
  const std::string salted = SaltedPassword(password, salt, iterations);
  return digest::ConstantTimeEqual(Sha256(Hmac(salted, "Client Key")), stored_key) &&
         digest::ConstantTimeEqual(Hmac(salted, "Server Key"), server_key);
}

std::string Md5Hash(std::string_view password, std::string_view user) {
  return "md5" + Md5Hex(std::string(password) + std::string(user));
}

std::string Md5Response(std::string_view stored, std::string_view salt) {
  std::string_view hash = stored;
  if (hash.rfind("md5", 0) == 0) hash.remove_prefix(3);
  return "md5" + Md5Hex(std::string(hash) + std::string(salt));
}

Result<PgUsers> PgUsers::Parse(std::string_view text, std::string_view name) {
  PgUsers users;
  int line_no = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = TrimWhitespace(text.substr(start, end - start));
    start = end + 1;
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string_view> words;
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      const size_t w = i;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
      if (i > w) words.push_back(line.substr(w, i - w));
    }
    auto fail = [&](std::string_view why) {
      return Status::InvalidArgument(fmt::format("{}, line {}: {}", name, line_no, why));
    };
    if (words.size() < 2) return fail("expected a user name and its verifiers");
    PgUser user;
    user.name = std::string(words[0]);
    for (size_t k = 1; k < words.size(); ++k) {
      if (words[k].rfind("SCRAM-SHA-256$", 0) == 0) {
        auto v = ScramVerifier::Parse(words[k]);
        if (!v.ok()) return fail(v.status().message());
        user.scram = *v;
      } else if (words[k].size() == 35 && words[k].rfind("md5", 0) == 0) {
        user.md5 = std::string(words[k]);
      } else {
        return fail("a verifier is SCRAM-SHA-256$... or md5 and 32 hex digits (never a password)");
      }
    }
    const std::string key = user.name;
    users.users_[key] = std::move(user);
  }
  return users;
}

Result<PgUsers> PgUsers::Load(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return Status::InvalidArgument(fmt::format("cannot read the users file {}", path));
  }
  if ((st.st_mode & 077) != 0) {
    return Status::InvalidArgument(
        fmt::format("the users file {} is readable by others: make it private (chmod 600)", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument(fmt::format("cannot read the users file {}", path));
  std::stringstream text;
  text << in.rdbuf();
  return Parse(text.str(), path);
}

const PgUser* PgUsers::Find(std::string_view name) const {
  auto it = users_.find(name);
  return it == users_.end() ? nullptr : &it->second;
}

Status AddPgUser(const std::string& path, std::string_view name, std::string_view password) {
  if (name.empty()) return Status::InvalidArgument("a user name cannot be empty");
  if (name.find_first_of(" \t\r\n#") != std::string_view::npos) {
    return Status::InvalidArgument(
        fmt::format("a user name of the users file has no blanks or '#': '{}'", name));
  }
  const auto cannot = [&](std::string_view what) {
    return Status::InvalidArgument(
        fmt::format("cannot {} the users file {}: {}", what, path, std::strerror(errno)));
  };
  // Two `hop pg-user add` at once would each write the file as it was before the other: each
  // holds its directory's lock from reading the file to replacing it. (The file itself is
  // replaced, so a lock on it would be on the old one.)
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return cannot("open the directory of");
  struct DirLock {
    int fd;
    ~DirLock() { ::close(fd); }  // (closing releases the lock)
  } lock{dir_fd};
  while (::flock(dir_fd, LOCK_EX) != 0) {
    if (errno != EINTR) return cannot("lock the directory of");
  }
  // The users file as it is (none yet: empty). One that cannot be read fails the add, which must
  // not write the file anew without its users.
  std::string old_text;
  if (const int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC); in >= 0) {
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(in, buffer, sizeof buffer)) != 0) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const Status failed = cannot("read");
        ::close(in);
        return failed;
      }
      old_text.append(buffer, static_cast<size_t>(n));
    }
    ::close(in);
  } else if (errno != ENOENT) {
    return cannot("read");
  }
  std::string kept;
  std::istringstream lines(old_text);
  for (std::string line; std::getline(lines, line);) {
    std::string_view t = TrimWhitespace(line);
    const size_t blank = t.find_first_of(" \t");
    if (!t.empty() && t[0] != '#' && t.substr(0, blank) == name) continue;
    kept += line + "\n";
  }
  HOP_ASSIGN_OR_RETURN(ScramVerifier v, ScramVerifier::Make(password));
  kept += fmt::format("{} {} {}\n", name, v.ToString(), Md5Hash(password, name));
  // Written whole and synced before it replaces the file: a crash leaves the old users or the new,
  // never an empty file that locks everyone out.
  const std::string tmp = fmt::format("{}.tmp-{}", path, ::getpid());
  const int fd = OpenPrivateFile(tmp, O_WRONLY | O_TRUNC);
  if (fd < 0) return cannot("write");
  const bool written =
      write(fd, kept.data(), kept.size()) == static_cast<ssize_t>(kept.size()) && ::fsync(fd) == 0;
  const bool closed = close(fd) == 0;
  if (!written || !closed || rename(tmp.c_str(), path.c_str()) != 0) {
    const Status failed = cannot("write");
    unlink(tmp.c_str());
    return failed;
  }
  ::fsync(dir_fd);  // the rename
  return Status::OK();
}

ScramExchange::ScramExchange(const ScramVerifier* verifier) {
  if (verifier != nullptr) {
    verifier_ = *verifier;
    known_ = true;
  } else {
    // A made-up user: a salt no one can predict, keys no proof matches.
    verifier_.salt = RandomBytes(16);
    verifier_.stored_key = RandomBytes(32);
    verifier_.server_key = RandomBytes(32);
  }
}

Result<std::string> ScramExchange::First(std::string_view client_first) {
  // gs2-header: "n,," (no channel binding) or "y,," (client could, thinks the server cannot);
  // "p=..." asks for binding, which hop does not offer.
  if (client_first.rfind("p=", 0) == 0) {
    return Status::InvalidArgument("SCRAM channel binding is not offered by hop");
  }
  if (client_first.rfind("n,", 0) != 0 && client_first.rfind("y,", 0) != 0) {
    return Malformed("client-first has no gs2 header");
  }
  const size_t second = client_first.find(',', 2);
  if (second == std::string_view::npos) return Malformed("client-first has no gs2 header");
  gs2_header_ = std::string(client_first.substr(0, second + 1));
  client_first_bare_ = std::string(client_first.substr(second + 1));
  const auto fields = SplitCommas(client_first_bare_);
  auto nonce = Attribute(fields, 'r');
  if (!nonce || nonce->empty() || fields.empty() || fields[0].rfind("n=", 0) != 0) {
    return Malformed("client-first-bare needs n= and r=");
  }
  if (fields[0].rfind("m=", 0) == 0) return Malformed("mandatory extensions are not supported");
  nonce_ = std::string(*nonce) + Base64Encode(RandomBytes(18));
  server_first_ =
      fmt::format("r={},s={},i={}", nonce_, Base64Encode(verifier_.salt), verifier_.iterations);
  return server_first_;
}

Result<std::string> ScramExchange::Final(std::string_view client_final) {
  if (server_first_.empty()) return Malformed("client-final before client-first");
  const size_t proof_at = client_final.rfind(",p=");
  if (proof_at == std::string_view::npos) return Malformed("client-final has no proof");
  const std::string_view without_proof = client_final.substr(0, proof_at);
  const auto fields = SplitCommas(without_proof);
  auto binding = Attribute(fields, 'c');
  auto nonce = Attribute(fields, 'r');
  if (!binding || !nonce) return Malformed("client-final needs c= and r=");
  if (*binding != Base64Encode(gs2_header_)) return Malformed("channel binding data differs");
  if (*nonce != nonce_) return Malformed("the nonce differs");
  HOP_ASSIGN_OR_RETURN(std::string proof, Base64Decode(client_final.substr(proof_at + 3)));
  const std::string auth_message =
      client_first_bare_ + "," + server_first_ + "," + std::string(without_proof);
  const std::string client_signature = Hmac(verifier_.stored_key, auth_message);
  const std::string client_key = Xor(proof, client_signature);
  if (!known_ || proof.size() != 32 ||
      !digest::ConstantTimeEqual(Sha256(client_key), verifier_.stored_key)) {
    return Status::InvalidArgument("password authentication failed");
  }
  return "v=" + Base64Encode(Hmac(verifier_.server_key, auth_message));
}

}  // namespace hop::server
