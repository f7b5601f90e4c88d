#include "common/redact.h"

#include <algorithm>
#include <array>

#include "common/strings.h"

namespace hop {
namespace {

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-' || c == '%';
}

// `key` with its percent escapes decoded, as a URL's reader decodes a query's keys (libpq reads
// `pass%77ord` as `password`). A `%` not followed by two hex digits is kept.
std::string PercentDecoded(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (size_t i = 0; i < key.size(); ++i) {
    if (key[i] == '%' && i + 2 < key.size() && HexDigitValue(key[i + 1]) >= 0 &&
        HexDigitValue(key[i + 2]) >= 0) {
      out += static_cast<char>(HexDigitValue(key[i + 1]) * 16 + HexDigitValue(key[i + 2]));
      i += 2;
    } else {
      out += key[i];
    }
  }
  return out;
}

// Where a value ends.
bool EndsValue(char c) {
  return c == ';' || c == '&' || c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
         c == '"' || c == '\'' || c == ')' || c == ']' || c == '}';
}

}  // namespace

// Whether a key names a secret: its last word (after the last '.', '_' or '-'), or the key
// with those removed, is one of the secret words. Percent escapes are decoded first.
bool NamesSecret(std::string_view raw_key) {
  const std::string decoded = PercentDecoded(raw_key);
  const std::string_view key = decoded;
  static constexpr std::array<std::string_view, 14> kWords = {
      "password",  "passwd",    "pwd",        "pass",       "secret",      "token",      "apikey",
      "accesskey", "secretkey", "privatekey", "credential", "credentials", "passphrase", "auth"};
  std::string squashed;
  for (char c : key) {
    if (c != '.' && c != '_' && c != '-') squashed += AsciiLower(c);
  }
  const size_t cut = key.find_last_of("._-");
  const std::string last = AsciiToLower(cut == std::string_view::npos ? key : key.substr(cut + 1));
  for (std::string_view w : kWords) {
    if (last == w) return true;
    if (squashed.size() >= w.size() && w.size() >= 6 &&
        squashed.compare(squashed.size() - w.size(), w.size(), w) == 0) {
      return true;  // "dbpassword", "ssl.truststore.password", "api_key" -> "apikey"
    }
  }
  return false;
}

namespace {

// A value kept elsewhere: an environment variable, or a template placeholder.
bool IsReference(std::string_view value) {
  return value.substr(0, 2) == "$(" || value.substr(0, 2) == "${" || value.substr(0, 2) == "{{";
}

bool IsSqlBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The options of SQL statements, `WITH ('password' 'x', token 'y')`: an entry is a key (quoted
// with ' or ", or a plain word) right after `(` or `,`, blanks, and a quoted value, whose `''`
// stands for a quote. Values of keys that name a secret are redacted.
std::string RedactSqlOptions(std::string_view text) {
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '(' && text[i] != ',') continue;
    size_t k = i + 1;
    while (k < text.size() && IsSqlBlank(text[k])) ++k;
    if (k >= text.size()) break;
    size_t key_begin = k, key_end = k;
    if (text[k] == '\'' || text[k] == '"') {
      key_begin = k + 1;
      key_end = text.find(text[k], key_begin);
      if (key_end == std::string_view::npos) continue;
      k = key_end + 1;
    } else {
      while (k < text.size() && IsKeyChar(text[k])) ++k;
      key_end = k;
    }
    size_t v = k;
    while (v < text.size() && IsSqlBlank(text[v])) ++v;
    if (v == k || v >= text.size() || text[v] != '\'' || key_begin == key_end) continue;
    if (!NamesSecret(text.substr(key_begin, key_end - key_begin))) continue;
    size_t end = v + 1;
    while (end < text.size()) {
      if (text[end] != '\'') {
        ++end;
      } else if (end + 1 < text.size() && text[end + 1] == '\'') {
        end += 2;
      } else {
        break;
      }
    }
    const std::string_view value = text.substr(v + 1, std::min(end, text.size()) - v - 1);
    if (value.empty() || IsReference(value) || value == kRedacted) continue;
    out.append(text.substr(copied, v + 1 - copied));
    out.append(kRedacted);
    copied = std::min(end, text.size());
    i = copied == 0 ? 0 : copied - 1;
  }
  if (copied == 0) return std::string(text);
  out.append(text.substr(copied));
  return out;
}

// RedactSecrets without its SQL options.
std::string RedactEntriesAndUrls(std::string_view text);

}  // namespace

std::string RedactSecrets(std::string_view text) {
  std::string entries = RedactEntriesAndUrls(text);
  return RedactSqlOptions(entries);
}

bool RedactsAsSecret(std::string_view key, std::string_view value) {
  return NamesSecret(key) && !value.empty() && !IsReference(value) && value != kRedacted;
}

namespace {

std::string RedactEntriesAndUrls(std::string_view text) {
  std::string out;
  size_t copied = 0;
  auto replace = [&](size_t from, size_t to) {
    out.append(text.substr(copied, from - copied));
    out.append(kRedacted);
    copied = to;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    // scheme://user:password@host
    if (text.compare(i, 3, "://") == 0) {
      const size_t start = i + 3;
      size_t end = start;
      while (end < text.size() && text[end] != '/' && text[end] != '?' && text[end] != ';' &&
             text[end] != '#' && !EndsValue(text[end])) {
        ++end;
      }
      const size_t at = text.rfind('@', end == 0 ? 0 : end - 1);
      if (at != std::string_view::npos && at >= start && at < end) {
        const size_t colon = text.find(':', start);
        if (colon != std::string_view::npos && colon < at && colon + 1 < at &&
            !IsReference(text.substr(colon + 1, at - colon - 1))) {
          replace(colon + 1, at);
        }
      }
      i = start - 1;
      continue;
    }
    // key=value and key: value, the key plain or quoted ('password'='x', "token": "x").
    if (text[i] != '=' && text[i] != ':') continue;
    if (i == 0) continue;
    size_t key_begin = i, key_end = i;
    const bool quoted_key = text[i - 1] == '\'' || text[i - 1] == '"';
    if (quoted_key) {
      key_end = i - 1;
      const size_t open =
          key_end == 0 ? std::string_view::npos : text.rfind(text[i - 1], key_end - 1);
      if (open == std::string_view::npos) continue;
      key_begin = open + 1;
    } else {
      // `key = value`, as properties files write it.
      while (text[i] == '=' && key_end > 0 && text[key_end - 1] == ' ') --key_end;
      key_begin = key_end;
      while (key_begin > 0 && IsKeyChar(text[key_begin - 1])) --key_begin;
    }
    if (key_begin == key_end || key_begin < copied) continue;
    if (!NamesSecret(text.substr(key_begin, key_end - key_begin))) continue;
    size_t v = i + 1;
    // `a:b` is not an entry; `a: b` and `"a":"b"` are.
    if (text[i] == ':' && !quoted_key && (v >= text.size() || text[v] != ' ')) continue;
    while (v < text.size() && text[v] == ' ') ++v;
    if (v >= text.size()) continue;
    size_t end = v;
    if (text[v] == '\'' || text[v] == '"') {
      const char quote = text[v++];
      end = v;
      while (end < text.size() && text[end] != quote) end += text[end] == '\\' ? 2 : 1;
      end = std::min(end, text.size());
    } else {
      while (end < text.size() && !EndsValue(text[end])) ++end;
    }
    const std::string_view value = text.substr(v, end - v);
    if (value.empty() || IsReference(value) || value == kRedacted) continue;
    replace(v, end);
    i = end == 0 ? 0 : end - 1;
  }
  if (copied == 0) return std::string(text);
  out.append(text.substr(copied));
  return out;
}

}  // namespace

bool HoldsRedacted(std::string_view text) { return text.find(kRedacted) != std::string_view::npos; }

}  // namespace hop
