// A hand-written single-pass lexer. Hot loop: one switch on the first byte of each token, tight
// loops for words, numbers and quoted text, no allocation besides the token vector.
#include "sql/lexer.h"

#include <fmt/format.h>

#include "common/source_error.h"
#include "common/strings.h"

namespace hop::sql {
namespace {

// Character classes, one table lookup per byte in the hot loops.
enum : uint8_t { kWordStart = 1, kWordChar = 2 };

struct CharClasses {
  uint8_t table[256] = {};
  constexpr CharClasses() {
    for (int c = 0; c < 256; ++c) {
      const bool start = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
      const bool word = start || (c >= '0' && c <= '9') || c == '$';
      table[c] = static_cast<uint8_t>((start ? kWordStart : 0) | (word ? kWordChar : 0));
    }
  }
};
constexpr CharClasses kClasses;

constexpr bool IsWordStart(unsigned char c) { return kClasses.table[c] & kWordStart; }
constexpr bool IsWordChar(unsigned char c) { return kClasses.table[c] & kWordChar; }
constexpr bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }
constexpr bool IsHexDigit(unsigned char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The text of an E'...' string's body: '' is a quote; \b \f \n \r \t, \ooo (octal), \xhh,
// \uXXXX and \UXXXXXXXX escapes; a backslash before any other character is that character
// (PostgreSQL's rules). False, with the offset of the bad escape and why, when the result would
// hold NUL or not be UTF-8, or a \u escape is no code point.
bool DecodeEscapes(std::string_view body, std::string* out, size_t* bad, std::string* why) {
  out->clear();
  out->reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c == '\'') {
      out->push_back('\'');
      ++i;  // the second quote of ''
      continue;
    }
    if (c != '\\' || i + 1 >= body.size()) {
      out->push_back(c);
      continue;
    }
    const size_t at = i;
    const char e = body[++i];
    switch (e) {
      case 'b': out->push_back('\b'); break;
      case 'f': out->push_back('\f'); break;
      case 'n': out->push_back('\n'); break;
      case 'r': out->push_back('\r'); break;
      case 't': out->push_back('\t'); break;
      case 'x': {
        int v = 0, digits = 0;
        while (digits < 2 && i + 1 < body.size() && HexDigitValue(body[i + 1]) >= 0) {
          v = v * 16 + HexDigitValue(body[++i]);
          ++digits;
        }
        if (digits == 0) {
          out->push_back('x');
          break;
        }
        out->push_back(static_cast<char>(v));
        break;
      }
      case 'u':
      case 'U': {
        const int want = e == 'u' ? 4 : 8;
        uint32_t cp = 0;
        for (int k = 0; k < want; ++k) {
          if (i + 1 >= body.size() || HexDigitValue(body[i + 1]) < 0) {
            *bad = at;
            *why = fmt::format("invalid Unicode escape: \\{} needs {} hexadecimal digits", e, want);
            return false;
          }
          cp = cp * 16 + static_cast<uint32_t>(HexDigitValue(body[++i]));
        }
        if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
          *bad = at;
          *why = "invalid Unicode escape value";
          return false;
        }
        hop::AppendUtf8(static_cast<char32_t>(cp), out);
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          int v = e - '0';
          for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7';
               ++k) {
            v = v * 8 + (body[++i] - '0');
          }
          out->push_back(static_cast<char>(v & 0xFF));
        } else {
          out->push_back(e);
        }
    }
    if (!out->empty() && out->back() == '\0') {
      *bad = at;
      *why = "a string literal cannot hold a NUL character";
      return false;
    }
  }
  if (const size_t b = FindInvalidUtf8(*out); b != std::string_view::npos) {
    *bad = 0;
    *why = "the escapes of this string literal do not make UTF-8 text";
    return false;
  }
  return true;
}

class Lexer {
 public:
  Lexer(std::string_view text, Location start, std::vector<Token>* out,
        std::string_view line_prefix)
      : text_(text), start_(start), line_prefix_(line_prefix), out_(out), line_(start.line) {}

  Status Run() {
    // SQL text is UTF-8 without NUL: anything else would be stored with replacement characters
    // or cut short by whoever reads it next.
    if (const size_t nul = text_.find('\0'); nul != std::string_view::npos) {
      if (const size_t bad = FindInvalidUtf8(text_.substr(0, nul)); bad != std::string_view::npos) {
        return InvalidUtf8(bad);
      }
      return Error(nul, "a NUL character is not allowed in SQL text");
    }
    if (const size_t bad = FindInvalidUtf8(text_); bad != std::string_view::npos) {
      return InvalidUtf8(bad);
    }
    if (out_->capacity() < out_->size() + text_.size() / 4 + 1) {
      out_->reserve(out_->size() + text_.size() / 4 + 1);
    }
    const size_t n = text_.size();
    while (true) {
      if (!SkipSpaceAndComments()) return error_;
      if (pos_ >= n) break;
      const size_t begin = pos_;
      const unsigned char c = text_[pos_];
      TokenType type;
      switch (c) {
        case '(':
          type = TokenType::kLParen;
          ++pos_;
          break;
        case ')':
          type = TokenType::kRParen;
          ++pos_;
          break;
        case '[':
          type = TokenType::kLBracket;
          ++pos_;
          break;
        case ']':
          type = TokenType::kRBracket;
          ++pos_;
          break;
        case ',':
          type = TokenType::kComma;
          ++pos_;
          break;
        case ';':
          type = TokenType::kSemicolon;
          ++pos_;
          break;
        case '+':
          type = TokenType::kPlus;
          ++pos_;
          break;
        case '-':
          type = TokenType::kMinus;
          ++pos_;
          break;
        case '*':
          type = TokenType::kStar;
          ++pos_;
          break;
        case '/':
          type = TokenType::kSlash;
          ++pos_;
          break;
        case '%':
          type = TokenType::kPercent;
          ++pos_;
          break;
        case '=':
          type = TokenType::kEq;
          ++pos_;
          break;
        case '?':
          ++pos_;
          while (pos_ < n && IsDigit(text_[pos_])) ++pos_;
          type = TokenType::kParameter;
          break;
        case ':':
          if (Next(1) == ':') {
            type = TokenType::kDoubleColon;
            pos_ += 2;
          } else {
            type = TokenType::kColon;
            ++pos_;
          }
          break;
        case '|':
          if (Next(1) != '|') return Error(begin, "unexpected character '|' (did you mean '||'?)");
          type = TokenType::kConcat;
          pos_ += 2;
          break;
        case '!':
          if (Next(1) == '~') {
            const bool star = Next(2) == '*';
            type = star ? TokenType::kNotTildeStar : TokenType::kNotTilde;
            pos_ += star ? 3 : 2;
            break;
          }
          if (Next(1) != '=') return Error(begin, "unexpected character '!'");
          type = TokenType::kNe;
          pos_ += 2;
          break;
        case '~':
          if (Next(1) == '*') {
            type = TokenType::kTildeStar;
            pos_ += 2;
          } else {
            type = TokenType::kTilde;
            ++pos_;
          }
          break;
        case '<':
          if (Next(1) == '=') {
            type = TokenType::kLe;
            pos_ += 2;
          } else if (Next(1) == '>') {
            type = TokenType::kNe;
            pos_ += 2;
          } else {
            type = TokenType::kLt;
            ++pos_;
          }
          break;
        case '>':
          if (Next(1) == '=') {
            type = TokenType::kGe;
            pos_ += 2;
          } else {
            type = TokenType::kGt;
            ++pos_;
          }
          break;
        case '.':
          if (IsDigit(Next(1))) {
            type = ScanNumber();
            if (pos_ < n && IsWordChar(text_[pos_])) {
              return Error(begin, "malformed number (a number cannot run into a name)");
            }
          } else {
            type = TokenType::kDot;
            ++pos_;
          }
          break;
        case '\'':
          if (!ScanQuoted('\'', "string literal")) return error_;
          type = TokenType::kString;
          break;
        case '"':
          if (!ScanQuoted('"', "quoted identifier")) return error_;
          type = TokenType::kQuotedIdentifier;
          break;
        case '`':
          if (!ScanQuoted('`', "quoted identifier")) return error_;
          type = TokenType::kQuotedIdentifier;
          break;
        case '$':
          if (IsDigit(Next(1))) {
            ++pos_;
            while (pos_ < n && IsDigit(text_[pos_])) ++pos_;
            type = TokenType::kParameter;
          } else {
            if (!ScanDollarString()) return error_;
            type = TokenType::kDollarString;
          }
          break;
        default:
          if (IsDigit(c)) {
            type = ScanNumber();
            if (pos_ < n && IsWordChar(text_[pos_])) {
              return Error(begin, "malformed number (a number cannot run into a name)");
            }
          } else if ((c == 'x' || c == 'X') && Next(1) == '\'') {
            ++pos_;
            if (!ScanQuoted('\'', "binary string literal")) {
              error_ = Error(begin, "unterminated binary string literal");
              return error_;
            }
            for (size_t i = begin + 2; i + 1 < pos_; ++i) {
              if (!IsHexDigit(text_[i])) {
                return Error(i, "binary string literal may only hold hexadecimal digits");
              }
            }
            type = TokenType::kBinaryString;
          } else if ((c == 'e' || c == 'E') && Next(1) == '\'') {
            ++pos_;
            if (!ScanEscapeString(begin)) return error_;
            type = TokenType::kEscapeString;
          } else if (IsWordStart(c)) {
            ++pos_;
            while (pos_ < n && IsWordChar(text_[pos_])) ++pos_;
            type = TokenType::kWord;
          } else {
            return Error(begin, fmt::format("unexpected character '{}'", Printable(c)));
          }
      }
      Token& t = out_->emplace_back();
      t.type = type;
      t.offset = static_cast<uint32_t>(begin);
      t.length = static_cast<uint32_t>(pos_ - begin);
      t.loc = LocationOf(begin, token_line_, token_line_begin_);
      if (type == TokenType::kWord) t.keyword = LookupKeyword(text_.substr(begin, pos_ - begin));
    }
    Token end;
    end.type = TokenType::kEnd;
    end.offset = static_cast<uint32_t>(n);
    end.loc = LocationOf(n, line_, line_begin_);
    out_->push_back(end);
    return Status::OK();
  }

 private:
  unsigned char Next(size_t k) const {
    return pos_ + k < text_.size() ? static_cast<unsigned char>(text_[pos_ + k]) : 0;
  }

  static std::string Printable(unsigned char c) {
    if (c >= 0x20 && c < 0x7f) return std::string(1, static_cast<char>(c));
    return fmt::format("\\x{:02x}", c);
  }

  Location LocationOf(size_t offset, uint32_t line, size_t line_begin) const {
    Location loc;
    loc.line = line;
    loc.column = static_cast<uint32_t>(offset - line_begin) + 1;
    if (line == start_.line) loc.column += start_.column - 1;
    return loc;
  }

  Status InvalidUtf8(size_t offset) const {
    return Error(offset, fmt::format("invalid UTF-8 byte 0x{:02X}",
                                     static_cast<unsigned char>(text_[offset])));
  }

  Status Error(size_t offset, std::string_view what) const {
    return Status::ParseError(
        FormatSourceError(text_, offset, what, {start_.line, start_.column, line_prefix_}));
  }

  void NewLine(size_t newline_offset) {
    ++line_;
    line_begin_ = newline_offset + 1;
  }

  // Records the first error; the scanning helpers return false after calling it.
  bool Fail(size_t offset, std::string_view what) {
    error_ = Error(offset, what);
    return false;
  }

  bool SkipSpaceAndComments() {
    const size_t n = text_.size();
    while (pos_ < n) {
      const char c = text_[pos_];
      if (c == '\n') {
        NewLine(pos_);
        ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '-' && Next(1) == '-') {
        while (pos_ < n && text_[pos_] != '\n') ++pos_;
      } else if (c == '/' && Next(1) == '*') {
        const size_t begin = pos_;
        pos_ += 2;
        while (true) {
          if (pos_ + 1 >= n) return Fail(begin, "unterminated comment");
          if (text_[pos_] == '*' && text_[pos_ + 1] == '/') {
            pos_ += 2;
            break;
          }
          if (text_[pos_] == '\n') NewLine(pos_);
          ++pos_;
        }
      } else {
        break;
      }
    }
    token_line_ = line_;
    token_line_begin_ = line_begin_;
    return true;
  }

  TokenType ScanNumber() {
    const size_t n = text_.size();
    TokenType type = TokenType::kInteger;
    while (pos_ < n && IsDigit(text_[pos_])) ++pos_;
    if (pos_ < n && text_[pos_] == '.') {
      type = TokenType::kDecimal;
      ++pos_;
      while (pos_ < n && IsDigit(text_[pos_])) ++pos_;
    }
    if (pos_ < n && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t k = pos_ + 1;
      if (k < n && (text_[k] == '+' || text_[k] == '-')) ++k;
      if (k < n && IsDigit(text_[k])) {
        type = TokenType::kFloat;
        pos_ = k;
        while (pos_ < n && IsDigit(text_[pos_])) ++pos_;
      }
    }
    return type;
  }

  // Scans text between `quote` characters; a doubled quote stands for one.
  bool ScanQuoted(char quote, std::string_view what) {
    const size_t begin = pos_;
    const size_t n = text_.size();
    ++pos_;
    while (true) {
      if (pos_ >= n) return Fail(begin, fmt::format("unterminated {}", what));
      const char c = text_[pos_];
      if (c == quote) {
        if (pos_ + 1 < n && text_[pos_ + 1] == quote) {
          pos_ += 2;
          continue;
        }
        ++pos_;
        return true;
      }
      if (c == '\n') NewLine(pos_);
      ++pos_;
    }
  }

  // E'...': a backslash escapes the next character (so \' does not end the string), and the
  // escapes must decode to UTF-8 text without NUL (DecodeEscapes).
  bool ScanEscapeString(size_t begin) {
    const size_t n = text_.size();
    const size_t open = pos_;
    ++pos_;
    while (true) {
      if (pos_ >= n) return Fail(begin, "unterminated string literal");
      const char c = text_[pos_];
      if (c == '\\' && pos_ + 1 < n) {
        if (text_[pos_ + 1] == '\n') NewLine(pos_ + 1);
        pos_ += 2;
        continue;
      }
      if (c == '\'') {
        if (pos_ + 1 < n && text_[pos_ + 1] == '\'') {
          pos_ += 2;
          continue;
        }
        break;
      }
      if (c == '\n') NewLine(pos_);
      ++pos_;
    }
    ++pos_;
    std::string decoded;
    size_t bad = 0;
    std::string why;
    if (!DecodeEscapes(text_.substr(open + 1, pos_ - open - 2), &decoded, &bad, &why)) {
      return Fail(open + 1 + bad, why);
    }
    return true;
  }

  // $$...$$ or $tag$...$tag$.
  bool ScanDollarString() {
    const size_t begin = pos_;
    const size_t n = text_.size();
    size_t k = pos_ + 1;
    while (k < n && IsWordChar(text_[k]) && text_[k] != '$') ++k;
    if (k >= n || text_[k] != '$') return Fail(begin, "unexpected character '$'");
    const std::string_view tag = text_.substr(begin, k + 1 - begin);
    size_t close = text_.find(tag, k + 1);
    if (close == std::string_view::npos) return Fail(begin, "unterminated dollar-quoted string");
    for (size_t i = k + 1; i < close; ++i) {
      if (text_[i] == '\n') NewLine(i);
    }
    pos_ = close + tag.size();
    return true;
  }

  std::string_view text_;
  Location start_;
  std::string_view line_prefix_;
  std::vector<Token>* out_;
  size_t pos_ = 0;
  uint32_t line_;
  size_t line_begin_ = 0;
  uint32_t token_line_ = 0;
  size_t token_line_begin_ = 0;
  Status error_;
};

}  // namespace

std::string_view TokenTypeName(TokenType type) {
  switch (type) {
    case TokenType::kEnd: return "end of input";
    case TokenType::kWord: return "identifier";
    case TokenType::kQuotedIdentifier: return "quoted identifier";
    case TokenType::kString: return "string literal";
    case TokenType::kDollarString: return "dollar-quoted string";
    case TokenType::kBinaryString: return "binary string literal";
    case TokenType::kEscapeString: return "string literal";
    case TokenType::kInteger: return "integer";
    case TokenType::kDecimal: return "decimal number";
    case TokenType::kFloat: return "floating-point number";
    case TokenType::kParameter: return "parameter";
    case TokenType::kLParen: return "'('";
    case TokenType::kRParen: return "')'";
    case TokenType::kLBracket: return "'['";
    case TokenType::kRBracket: return "']'";
    case TokenType::kComma: return "','";
    case TokenType::kDot: return "'.'";
    case TokenType::kSemicolon: return "';'";
    case TokenType::kColon: return "':'";
    case TokenType::kDoubleColon: return "'::'";
    case TokenType::kPlus: return "'+'";
    case TokenType::kMinus: return "'-'";
    case TokenType::kStar: return "'*'";
    case TokenType::kSlash: return "'/'";
    case TokenType::kPercent: return "'%'";
    case TokenType::kConcat: return "'||'";
    case TokenType::kEq: return "'='";
    case TokenType::kNe: return "'<>'";
    case TokenType::kLt: return "'<'";
    case TokenType::kLe: return "'<='";
    case TokenType::kGt: return "'>'";
    case TokenType::kGe: return "'>='";
    case TokenType::kTilde: return "'~'";
    case TokenType::kTildeStar: return "'~*'";
    case TokenType::kNotTilde: return "'!~'";
    case TokenType::kNotTildeStar: return "'!~*'";
    case TokenType::kCount: break;
  }
  return "token";
}

Status Tokenize(std::string_view text, Location start, std::vector<Token>* tokens,
                std::string_view line_prefix) {
  if (text.size() >= UINT32_MAX) {
    return Status::ParseError("statement is too long (4 GiB or more)");
  }
  return Lexer(text, start, tokens, line_prefix).Run();
}

std::string UnquoteToken(std::string_view text, const Token& token) {
  std::string_view raw = text.substr(token.offset, token.length);
  switch (token.type) {
    case TokenType::kString:
    case TokenType::kQuotedIdentifier: {
      const char quote = raw.front();
      std::string out;
      out.reserve(raw.size() - 2);
      for (size_t i = 1; i + 1 < raw.size(); ++i) {
        out.push_back(raw[i]);
        if (raw[i] == quote) ++i;  // skip the second quote of a doubled pair
      }
      return out;
    }
    case TokenType::kBinaryString: return std::string(raw.substr(2, raw.size() - 3));
    case TokenType::kEscapeString: {
      std::string out;
      size_t bad = 0;
      std::string why;
      // The lexer checked the escapes when it made the token.
      (void)DecodeEscapes(raw.substr(2, raw.size() - 3), &out, &bad, &why);
      return out;
    }
    case TokenType::kDollarString: {
      size_t tag_end = raw.find('$', 1);
      size_t tag_len = tag_end + 1;
      return std::string(raw.substr(tag_len, raw.size() - 2 * tag_len));
    }
    default: return std::string(raw);
  }
}

}  // namespace hop::sql
