#include "common/redact.h"

#include <algorithm>
#include <array>

#include "common/strings.h"

namespace hop {
namespace {

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

// Where a value ends.
bool EndsValue(char c) {
  return c == ';' || c == '&' || c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
         c == '"' || c == '\'' || c == ')' || c == ']' || c == '}';
}

// Whether a key names a secret: its last word (after the last '.', '_' or '-'), or the key
// with those removed, is one of the secret words.
bool SecretKey(std::string_view key) {
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

// A value kept elsewhere: an environment variable, or a template placeholder.
bool IsReference(std::string_view value) {
  return value.substr(0, 2) == "$(" || value.substr(0, 2) == "${" || value.substr(0, 2) == "{{";
}

}  // namespace

std::string RedactSecrets(std::string_view text) {
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
    if (!SecretKey(text.substr(key_begin, key_end - key_begin))) continue;
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

bool HoldsRedacted(std::string_view text) { return text.find(kRedacted) != std::string_view::npos; }

}  // namespace hop
