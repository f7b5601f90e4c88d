#include "common/redact.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

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

// A value that starts with a quote at `pos`, read as one word, as SQL, YAML and a shell read
// it: pieces quoted with that quote (a backslash escaping the next character, and a piece
// ending at a line end if it is not closed) and plain characters (a backslash escaping the next
// one) follow each other until a character that ends a value stands outside quotes, so that
// `'it''s'`, `'it'\''s'` and `'a'b` are each one value. The other quote ends it: `"x='a'"` is
// a value inside a string, not a word going on. The range inside the first opening quote and
// the last closing one when the word ends with one, else the whole word; `*after` is past it.
std::pair<size_t, size_t> QuotedWord(std::string_view text, size_t pos, size_t* after) {
  const char quote = text[pos];
  size_t at = pos;
  bool closed = false;  // the last piece was a quoted one, closed
  while (at < text.size()) {
    const char c = text[at];
    if (c == quote) {
      size_t end = at + 1;
      while (end < text.size() && text[end] != c && text[end] != '\n' && text[end] != '\r') {
        end += text[end] == '\\' ? 2 : 1;
      }
      end = std::min(end, text.size());
      // A later piece whose quote does not close is not the word's (a shell's `'\''` written
      // inside a JSON string has its backslash doubled): the word ends before it. Only a first
      // piece that does not close runs to the line's end.
      if ((end >= text.size() || text[end] != c) && at > pos) break;
      closed = end < text.size() && text[end] == c;
      at = closed ? end + 1 : end;
      if (!closed) break;
      continue;
    }
    if (EndsValue(c) || c == '\n' || c == '\r') break;
    at += c == '\\' && at + 1 < text.size() && text[at + 1] != '\n' ? 2 : 1;
    closed = false;
  }
  at = std::min(at, text.size());
  *after = at;
  return closed ? std::pair{pos + 1, at - 1} : std::pair{pos, at};
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

// The [begin, end) ranges of a text one step of RedactSecrets replaced by kRedacted, in order.
using Ranges = std::vector<std::pair<size_t, size_t>>;

// Where byte `pos` of a text is after `ranges` of it were replaced by kRedacted: the same
// character, or the start of kRedacted when it was inside a replaced range.
size_t Moved(size_t pos, const Ranges& ranges) {
  size_t removed = 0, added = 0;
  for (const auto& [begin, end] : ranges) {
    if (pos < begin) break;
    if (pos < end) return begin + added - removed;
    removed += end - begin;
    added += kRedacted.size();
  }
  return pos + added - removed;
}

// The options of SQL statements, `WITH ('password' 'x', token 'y')`: an entry is a key (quoted
// with ' or ", or a plain word) right after `(` or `,`, blanks, and a quoted value, whose `''`
// stands for a quote. Values of keys that name a secret are redacted.
std::string RedactSqlOptions(std::string_view text, Ranges& replaced) {
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
    replaced.emplace_back(v + 1, copied);
    i = copied == 0 ? 0 : copied - 1;
  }
  if (copied == 0) return std::string(text);
  out.append(text.substr(copied));
  return out;
}

// RedactSecrets without its SQL options.
std::string RedactEntriesAndUrls(std::string_view text, Ranges& replaced);

// `text` with the given [begin, end) ranges, sorted and not overlapping, replaced by kRedacted.
std::string Replaced(std::string_view text, const Ranges& ranges) {
  if (ranges.empty()) return std::string(text);
  std::string out;
  size_t copied = 0;
  for (const auto& [begin, end] : ranges) {
    out.append(text.substr(copied, begin - copied));
    out.append(kRedacted);
    copied = end;
  }
  out.append(text.substr(copied));
  return out;
}

bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsLineEnd(char c) { return c == '\n' || c == '\r'; }

// The scalar that starts at or after `pos` (after blanks): quoted with `"` (backslash escapes,
// as JSON and YAML write them) or `'` (`''` standing for a quote, as YAML writes it), the range
// inside the quotes; or plain, ending at a line end, at `,` `}` `]` when `flow` (a JSON or YAML
// flow collection) or at a blank when `word` (a command line), before a ` #` comment, without
// trailing blanks. `*after` is where the scalar's text ends (past a closing quote).
std::pair<size_t, size_t> ScalarAt(std::string_view text, size_t pos, bool flow, bool word,
                                   size_t* after) {
  while (pos < text.size() && IsBlank(text[pos])) ++pos;
  // A command line's word goes on past its closing quote (`'it'\''s'`).
  if (word && pos < text.size() && (text[pos] == '"' || text[pos] == '\'')) {
    return QuotedWord(text, pos, after);
  }
  if (pos < text.size() && (text[pos] == '"' || text[pos] == '\'')) {
    const char quote = text[pos];
    size_t end = pos + 1;
    while (end < text.size()) {
      if (quote == '"' && text[end] == '\\') {
        end += 2;
      } else if (text[end] == quote && quote == '\'' && end + 1 < text.size() &&
                 text[end + 1] == '\'') {
        end += 2;
      } else if (text[end] == quote || IsLineEnd(text[end])) {
        break;
      } else {
        ++end;
      }
    }
    end = std::min(end, text.size());
    *after = end < text.size() && text[end] == quote ? end + 1 : end;
    return {pos + 1, end};
  }
  size_t end = pos;
  while (end < text.size() && !IsLineEnd(text[end])) {
    const char c = text[end];
    if (flow && (c == ',' || c == '}' || c == ']')) break;
    if (word && (IsBlank(c) || c == ',' || c == ']' || c == ')')) break;
    if (c == '#' && end > pos && IsBlank(text[end - 1])) break;
    ++end;
  }
  *after = end;
  while (end > pos && IsBlank(text[end - 1])) --end;
  return {pos, end};
}

// Where the next entry of a mapping starts after `pos`, the end of an entry whose key stands at
// `column`: past blanks and one `,`, and past line ends and the next line's indentation when
// that line's key stands at `column` too. npos when there is none.
size_t NextEntry(std::string_view text, size_t pos, size_t column) {
  while (pos < text.size() && IsBlank(text[pos])) ++pos;
  if (pos < text.size() && text[pos] == ',') {
    ++pos;
    while (pos < text.size() && IsBlank(text[pos])) ++pos;
  }
  if (pos < text.size() && IsLineEnd(text[pos])) {
    while (pos < text.size() && IsLineEnd(text[pos])) ++pos;
    const size_t line = pos;
    while (pos < text.size() && IsBlank(text[pos])) ++pos;
    if (pos - line != column) return std::string_view::npos;
  }
  return pos < text.size() ? pos : std::string_view::npos;
}

// An entry `key: scalar` of a YAML or JSON mapping, the key plain or quoted.
struct MapEntry {
  std::string_view key;
  size_t value_begin = 0, value_end = 0;  // the scalar's text, inside its quotes
  size_t end = 0;                         // past the scalar
};

// The entry whose key starts at `pos` (its quote, if quoted), if one does and its key is `name`
// or `value`; `flow` says whether it is in a JSON or flow collection.
std::optional<MapEntry> NameOrValueEntryAt(std::string_view text, size_t pos, bool flow) {
  size_t k = pos;
  char quote = 0;
  if (text[k] == '"' || text[k] == '\'') quote = text[k++];
  const std::string_view key = text.compare(k, 4, "name") == 0    ? text.substr(k, 4)
                               : text.compare(k, 5, "value") == 0 ? text.substr(k, 5)
                                                                  : std::string_view();
  if (key.empty()) return std::nullopt;
  size_t c = k + key.size();
  if (quote != 0) {
    if (c >= text.size() || text[c] != quote) return std::nullopt;
    ++c;
  }
  while (c < text.size() && IsBlank(text[c])) ++c;
  if (c >= text.size() || text[c] != ':') return std::nullopt;
  ++c;
  // A plain YAML key needs a blank after its colon; JSON's quoted keys do not.
  if (quote == 0 && (c >= text.size() || !IsBlank(text[c]))) return std::nullopt;
  MapEntry e;
  e.key = key;
  const auto [b, v] = ScalarAt(text, c, flow || quote != 0, false, &e.end);
  e.value_begin = b;
  e.value_end = v;
  return e;
}

// Env entries whose name names a secret: `{name: PGPASSWORD, value: x}` in YAML or JSON text,
// the `value` entry next to the `name` entry, before or after it. Adds the ranges of their
// values to `ranges`.
void FindSecretEnvValues(std::string_view text, std::vector<std::pair<size_t, size_t>>& ranges) {
  size_t line_start = 0;  // of the line `i` is on, kept as `i` moves so no search is needed
  for (size_t i = 0; i < text.size(); ++i) {
    if (i > 0 && IsLineEnd(text[i - 1])) line_start = i;
    const char c = text[i];
    if (c != 'n' && c != 'v' && c != '"' && c != '\'') continue;
    // A key starts a line (after indentation or a list's `- `), or follows `{` or `,`.
    size_t before = i;
    while (before > 0 && IsBlank(text[before - 1])) --before;
    const char prev = before == 0 ? '\n' : text[before - 1];
    const bool after_dash = prev == '-' && before < i;
    if (!IsLineEnd(prev) && prev != '{' && prev != ',' && !after_dash) continue;
    const bool flow = prev == '{' || prev == ',';
    std::optional<MapEntry> first = NameOrValueEntryAt(text, i, flow);
    if (!first) continue;
    const size_t next = NextEntry(text, first->end, i - line_start);
    if (next == std::string_view::npos) continue;
    std::optional<MapEntry> second = NameOrValueEntryAt(text, next, flow);
    if (!second || second->key == first->key) continue;
    const MapEntry& name = first->key == "name" ? *first : *second;
    const MapEntry& value = first->key == "name" ? *second : *first;
    const std::string_view shown =
        text.substr(value.value_begin, value.value_end - value.value_begin);
    if (!NamesSecret(text.substr(name.value_begin, name.value_end - name.value_begin)) ||
        !RedactsAsSecretValue(shown)) {
      continue;
    }
    if (!ranges.empty() && ranges.back().second > value.value_begin) continue;
    ranges.emplace_back(value.value_begin, value.value_end);
    const size_t last = std::max(first->end, second->end) - 1;
    for (; i < last; ++i) {
      if (IsLineEnd(text[i])) line_start = i + 1;
    }
  }
}

// Words after a secret option (IsSecretOption): `--password x` on a command line,
// `["--password", "x"]` in JSON or flow YAML, `- --password\n- x` in a YAML block list. Adds the
// ranges of the values to `ranges`.
void FindSecretOptionValues(std::string_view text, std::vector<std::pair<size_t, size_t>>& ranges) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '-') continue;
    const char prev = i == 0 ? ' ' : text[i - 1];
    if (!IsBlank(prev) && !IsLineEnd(prev) && prev != '"' && prev != '\'' && prev != '[' &&
        prev != ',' && prev != '(') {
      continue;
    }
    size_t end = i;
    while (end < text.size() && IsKeyChar(text[end])) ++end;
    const std::string_view option = text.substr(i, end - i);
    if (!IsSecretOption(option)) {
      i = end == i ? i : end - 1;
      continue;
    }
    size_t k = end;
    if (prev == '"' || prev == '\'') {
      if (k >= text.size() || text[k] != prev) continue;
      ++k;
    }
    if (k < text.size() && !IsBlank(text[k]) && !IsLineEnd(text[k]) && text[k] != ',') continue;
    while (k < text.size() && IsBlank(text[k])) ++k;
    bool flow = false, item = false;
    if (k < text.size() && text[k] == ',') {  // the next element of a list
      flow = true;
      ++k;
      while (k < text.size() && (IsBlank(text[k]) || IsLineEnd(text[k]))) ++k;
    } else if (k < text.size() && IsLineEnd(text[k])) {  // the next item of a YAML block list
      while (k < text.size() && (IsBlank(text[k]) || IsLineEnd(text[k]))) ++k;
      if (k + 1 >= text.size() || text[k] != '-' || !IsBlank(text[k + 1])) continue;
      item = true;
      k += 2;
    }
    if (k >= text.size()) continue;
    size_t after = k;
    const auto [b, e] = ScalarAt(text, k, flow, !flow && !item, &after);
    if (!RedactsAsSecretValue(text.substr(b, e - b))) continue;
    if (!ranges.empty() && ranges.back().second > b) continue;
    ranges.emplace_back(b, e);
    i = after - 1;
  }
}

// RedactSecrets' env entries and option words; `*position` moves as RedactSecrets says.
std::string RedactEnvAndOptions(std::string_view text, size_t* position) {
  Ranges ranges;
  FindSecretEnvValues(text, ranges);
  std::string env = Replaced(text, ranges);
  if (position != nullptr) *position = Moved(*position, ranges);
  ranges.clear();
  FindSecretOptionValues(env, ranges);
  if (position != nullptr) *position = Moved(*position, ranges);
  return Replaced(env, ranges);
}

}  // namespace

std::string RedactSecrets(std::string_view text, size_t* position) {
  Ranges replaced;
  std::string entries = RedactEntriesAndUrls(text, replaced);
  if (position != nullptr) *position = Moved(std::min(*position, text.size()), replaced);
  std::string env = RedactEnvAndOptions(entries, position);
  replaced.clear();
  std::string out = RedactSqlOptions(env, replaced);
  if (position != nullptr) *position = Moved(*position, replaced);
  return out;
}

bool RedactsAsSecretValue(std::string_view value) {
  return !value.empty() && !IsReference(value) && value != kRedacted;
}

bool RedactsAsSecret(std::string_view key, std::string_view value) {
  return NamesSecret(key) && RedactsAsSecretValue(value);
}

bool IsSecretOption(std::string_view word) {
  size_t dashes = 0;
  while (dashes < word.size() && dashes < 2 && word[dashes] == '-') ++dashes;
  if (dashes == 0) return false;
  const std::string_view name = word.substr(dashes);
  if (name.empty() || name[0] == '-' ||
      !std::all_of(name.begin(), name.end(), [](char c) { return IsKeyChar(c); })) {
    return false;
  }
  const std::string lower = AsciiToLower(name);
  if (lower.starts_with("no-") || lower.starts_with("no_")) return false;
  // An option named auth takes a method (`--pg-auth scram-sha-256`), not a credential.
  if (lower == "auth" || lower.ends_with("-auth") || lower.ends_with("_auth")) return false;
  return NamesSecret(name);
}

std::vector<std::string> RedactArguments(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  for (size_t i = 0; i < argv.size(); ++i) {
    if (i > 0 && IsSecretOption(argv[i - 1]) && RedactsAsSecretValue(argv[i])) {
      out.emplace_back(kRedacted);
    } else {
      out.push_back(RedactSecrets(argv[i]));
    }
  }
  return out;
}

namespace {

std::string RedactEntriesAndUrls(std::string_view text, Ranges& replaced) {
  std::string out;
  size_t copied = 0;
  auto replace = [&](size_t from, size_t to) {
    out.append(text.substr(copied, from - copied));
    out.append(kRedacted);
    copied = to;
    replaced.emplace_back(from, to);
  };
  for (size_t i = 0; i < text.size(); ++i) {
    // scheme://user:password@host
    if (text.compare(i, 3, "://") == 0) {
      // The user information ends at the last `@` before the path: a password may hold any
      // other character (`;`, `&`, `'`, `(`, `#`, `?` ...). A URL in a quoted string ends at its
      // closing quote (a doubled one stands for a quote) and may hold blanks; elsewhere a blank
      // ends it.
      size_t scheme = i;
      while (scheme > 0 && (std::isalnum(static_cast<unsigned char>(text[scheme - 1])) ||
                            text[scheme - 1] == '+' || text[scheme - 1] == '-' ||
                            text[scheme - 1] == '.' || text[scheme - 1] == ':')) {
        --scheme;
      }
      const char quote = scheme > 0 && (text[scheme - 1] == '\'' || text[scheme - 1] == '"')
                             ? text[scheme - 1]
                             : 0;
      const size_t start = i + 3;
      size_t end = start;
      while (end < text.size()) {
        const char c = text[end];
        if (c == '/' || IsLineEnd(c) || (quote == 0 && IsBlank(c))) break;
        if (quote != 0 && c == quote) {
          if (end + 1 < text.size() && text[end + 1] == quote) {
            end += 2;
            continue;
          }
          break;
        }
        ++end;
      }
      end = std::min(end, text.size());
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
    // `key = value`, as properties files write it, the key plain or quoted.
    while (text[i] == '=' && key_end > 0 && text[key_end - 1] == ' ') --key_end;
    const bool quoted_key = key_end > 0 && (text[key_end - 1] == '\'' || text[key_end - 1] == '"');
    if (quoted_key) {
      const char quote = text[key_end - 1];
      --key_end;
      const size_t open = key_end == 0 ? std::string_view::npos : text.rfind(quote, key_end - 1);
      if (open == std::string_view::npos) continue;
      key_begin = open + 1;
    } else {
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
    // A shell's `$'...'` and `$"..."` are quoted values too.
    if (text[v] == '$' && v + 1 < text.size() && (text[v + 1] == '\'' || text[v + 1] == '"')) ++v;
    if (text[v] == '\'' || text[v] == '"') {
      size_t after = v;
      std::tie(v, end) = QuotedWord(text, v, &after);
    } else {
      // A backslash escapes the next character, as a shell reads `a\ b`.
      while (end < text.size() && !EndsValue(text[end])) {
        end += text[end] == '\\' && end + 1 < text.size() && text[end + 1] != '\n' ? 2 : 1;
      }
      end = std::min(end, text.size());
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
