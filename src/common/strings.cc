// String helpers: ASCII case mapping, and Unicode upper-casing through the C.UTF-8 locale.
#include "common/strings.h"

#include <locale.h>
#include <cstdint>
#include <wctype.h>

namespace hop {

std::string AsciiToUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiUpper(c);
  return out;
}

namespace {

// The C.UTF-8 locale's case tables, or null where the system has none (then only ASCII letters
// change case).
locale_t Utf8Locale() {
  static const locale_t locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(0));
  return locale;
}

// Decodes one UTF-8 sequence at s[i]; returns its length, or 0 if it is not valid UTF-8.
size_t DecodeUtf8(std::string_view s, size_t i, char32_t* out) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  size_t len;
  char32_t cp;
  if (b0 < 0x80) {
    *out = b0;
    return 1;
  } else if ((b0 & 0xE0) == 0xC0) {
    len = 2;
    cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3;
    cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4;
    cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  // Reject overlong forms, surrogates and values past Unicode.
  static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *out = cp;
  return len;
}

}  // namespace

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

size_t FindInvalidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    char32_t cp;
    const size_t len = DecodeUtf8(s, i, &cp);
    if (len == 0) return i;
    i += len;
  }
  return std::string_view::npos;
}

std::string EscapeForTerminal(std::string_view text) {
  const auto needs_escape = [](char32_t cp) {
    return (cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7F && cp <= 0x9F) ||
           (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
  };
  // Most text has nothing to escape: find the first place that does before copying.
  size_t first = 0;
  while (first < text.size()) {
    const auto b = static_cast<unsigned char>(text[first]);
    if (b >= 0x20 && b < 0x7F) {
      ++first;
      continue;
    }
    char32_t cp;
    const size_t len = b < 0x80 ? 1 : DecodeUtf8(text, first, &cp);
    if (b < 0x80) cp = b;
    if (len == 0 || needs_escape(cp)) break;
    first += len;
  }
  if (first == text.size()) return std::string(text);
  std::string out(text.substr(0, first));
  out.reserve(text.size() + 16);
  static constexpr char kHex[] = "0123456789abcdef";
  for (size_t i = first; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    char32_t cp = b;
    const size_t len = b < 0x80 ? 1 : DecodeUtf8(text, i, &cp);
    if (len == 0) {  // not UTF-8: the byte itself
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 0xF];
      ++i;
      continue;
    }
    if (!needs_escape(cp)) {
      out.append(text.substr(i, len));
    } else if (cp < 0x80) {
      out += "\\x";
      out += kHex[cp >> 4];
      out += kHex[cp & 0xF];
    } else {
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 0xF];
    }
    i += len;
  }
  return out;
}

namespace {

// Maps every letter of `s` through `change` (towupper_l or towlower_l) in the C.UTF-8 locale.
// The locale is loaded on the first letter outside ASCII: most names have none.
std::string Utf8Map(std::string_view s, char (*ascii)(char), wint_t (*change)(wint_t, locale_t)) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out.push_back(ascii(static_cast<char>(c)));
      ++i;
      continue;
    }
    char32_t cp;
    const size_t len = DecodeUtf8(s, i, &cp);
    const locale_t locale = len == 0 ? static_cast<locale_t>(0) : Utf8Locale();
    if (locale == static_cast<locale_t>(0)) {
      out.push_back(s[i]);
      ++i;
      continue;
    }
    AppendUtf8(static_cast<char32_t>(change(static_cast<wint_t>(cp), locale)), &out);
    i += len;
  }
  return out;
}

}  // namespace

std::string Utf8ToUpper(std::string_view s) { return Utf8Map(s, AsciiUpper, towupper_l); }
std::string Utf8ToLower(std::string_view s) { return Utf8Map(s, AsciiLower, towlower_l); }

std::string AsciiToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

std::string_view TrimWhitespace(std::string_view s) {
  auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  };
  size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

std::string ShellQuote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out.append(separator);
    out += parts[i];
  }
  return out;
}

namespace {
constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}
}  // namespace

void DropByteOrderMark(std::string& text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
}

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (uint32_t{static_cast<uint8_t>(bytes[i])} << 16) |
                       (uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8) |
                       static_cast<uint8_t>(bytes[i + 2]);
    out += kBase64Alphabet[v >> 18];
    out += kBase64Alphabet[(v >> 12) & 63];
    out += kBase64Alphabet[(v >> 6) & 63];
    out += kBase64Alphabet[v & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = uint32_t{static_cast<uint8_t>(bytes[i])} << 16;
    if (rest == 2) v |= uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8;
    out += kBase64Alphabet[v >> 18];
    out += kBase64Alphabet[(v >> 12) & 63];
    out += rest == 2 ? kBase64Alphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
    if (pad == 1 && text[i + 2] == '=') return std::nullopt;  // "x=y=" is not padding
    uint32_t v = 0;
    for (int j = 0; j < 4 - pad; ++j) {
      const int d = Base64Value(text[i + j]);
      if (d < 0) return std::nullopt;
      v = (v << 6) | static_cast<uint32_t>(d);
    }
    v <<= 6 * pad;
    out += static_cast<char>(v >> 16);
    if (pad < 2) out += static_cast<char>((v >> 8) & 0xff);
    if (pad < 1) out += static_cast<char>(v & 0xff);
  }
  return out;
}

}  // namespace hop
