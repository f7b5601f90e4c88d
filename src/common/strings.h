// Small string helpers shared by every folder: ASCII case mapping and case-insensitive compare.
// SQL folding is ASCII-only on purpose: non-ASCII letters in unquoted names keep their case.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hop {

inline char AsciiUpper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c; }
// The value of a hex digit (0-9, a-f, A-F), or -1.
inline int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
inline char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

std::string AsciiToUpper(std::string_view s);
// Upper-cases letters of any script (UTF-8 in and out), as SQL folds unquoted names: `café` is
// `CAFÉ`. Bytes that are not valid UTF-8 are kept as they are.
std::string Utf8ToUpper(std::string_view s);
// Lower-cases letters of any script, likewise.
std::string Utf8ToLower(std::string_view s);
std::string AsciiToLower(std::string_view s);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// Appends the UTF-8 encoding of code point `cp` (at most U+10FFFF) to `out`.
void AppendUtf8(char32_t cp, std::string* out);

// The offset of the first byte of `s` that does not start a valid UTF-8 sequence (overlong
// forms, surrogates and values past U+10FFFF are invalid), or std::string_view::npos.
size_t FindInvalidUtf8(std::string_view s);

// `text` made safe to print on a terminal, for every printer of text that a user or a stored
// object supplied (errors, tables, headers): C0 controls other than tab and line feed, DEL and
// the C1 controls become `\xNN` (`\u00NN` for C1), the bidirectional overrides and isolates
// (U+202A..U+202E, U+2066..U+2069) become `\uNNNN`, and a byte that is not UTF-8 becomes
// `\xNN`. Everything else, a backslash included, is kept; text with nothing to escape comes back
// unchanged.
std::string EscapeForTerminal(std::string_view text);

// `text` as one word of a POSIX shell: single-quoted, with each `'` written `'\''` (`it's`
// becomes `'it'\''s'`). Nothing inside single quotes is expanded.
std::string ShellQuote(std::string_view text);

// `parts` joined by `separator`: Join({"ADS", "PAGE_VIEWS"}, ".") is "ADS.PAGE_VIEWS".
std::string Join(const std::vector<std::string>& parts, std::string_view separator);

// `s` without leading and trailing ASCII whitespace.
std::string_view TrimWhitespace(std::string_view s);

// Removes the UTF-8 byte-order mark that some editors (Windows' Notepad) put at the start of a
// file, if `text` starts with one: it is not text.
void DropByteOrderMark(std::string& text);

// Base64 with the standard alphabet and `=` padding (RFC 4648, section 4).
std::string Base64Encode(std::string_view bytes);
// The bytes of padded base64 text; nullopt for anything else (a length not a multiple of 4, a
// character outside the alphabet, padding anywhere but at the end). No whitespace is skipped.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace hop
