// The script splitter: a small state machine over quotes ('...', "...", `...`, $tag$...$tag$)
// and comments (--, /* */), tracking lines and columns as it goes.
#include "sql/script.h"

#include <cctype>
#include <cstdint>
#include <cstring>

namespace hop::sql {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

bool IsWordByte(char ch) {
  const auto c = static_cast<unsigned char>(ch);
  return std::isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

// Whether `text` holds anything besides whitespace and comments.
bool HasContent(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (IsBlank(c) || c == '\n') {
      ++i;
    } else if (c == '-' && i + 1 < text.size() && text[i + 1] == '-') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      size_t end = text.find("*/", i + 2);
      if (end == std::string_view::npos) return true;  // let the parser report it
      i = end + 2;
    } else {
      return true;
    }
  }
  return false;
}

struct SpecialChars {
  bool table[256] = {};
  constexpr SpecialChars() {
    for (char c : {';', '\'', '"', '`', '-', '/', '$', '\n'})
      table[static_cast<unsigned char>(c)] = true;
  }
  constexpr bool operator[](unsigned char c) const { return table[c]; }
};
constexpr SpecialChars kSpecial;

// Whether any of 16 bytes is special, with the compiler's portable vector extensions.
bool HasSpecial16(const char* p) {
  typedef unsigned char V __attribute__((vector_size(16)));
  V v;
  std::memcpy(&v, p, 16);
  const auto hit = (v == ';') | (v == '\'') | (v == '"') | (v == '`') | (v == '-') | (v == '/') |
                   (v == '$') | (v == '\n');
  uint64_t halves[2];
  std::memcpy(halves, &hit, 16);
  return (halves[0] | halves[1]) != 0;
}

class Splitter {
 public:
  explicit Splitter(std::string_view s) : s_(s) {}

  std::vector<ScriptItem> Run() {
    while (pos_ < s_.size()) {
      SkipBlankLines();
      if (pos_ >= s_.size()) break;
      if (s_[pos_] == '!' && AtLineStart()) {
        Command();
      } else {
        Statement();
      }
    }
    return std::move(items_);
  }

 private:
  Location Here() const { return {line_, static_cast<uint32_t>(pos_ - line_begin_ + 1)}; }

  std::string_view LinePrefix() const { return s_.substr(line_begin_, pos_ - line_begin_); }

  // Whether only blanks precede the current position on its line.
  bool AtLineStart() const {
    for (size_t i = line_begin_; i < pos_; ++i) {
      if (!IsBlank(s_[i])) return false;
    }
    return true;
  }

  void Advance() {
    if (s_[pos_] == '\n') {
      ++line_;
      line_begin_ = pos_ + 1;
    }
    ++pos_;
  }

  // Skips whitespace and comments, so that a statement's location is its first token and a
  // `!` command after a comment line is still recognised.
  void SkipBlankLines() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (IsBlank(c) || c == '\n') {
        Advance();
      } else if (c == '-' && Next() == '-') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else if (c == '/' && Next() == '*') {
        size_t end = s_.find("*/", pos_ + 2);
        if (end == std::string_view::npos) return;  // the statement reports it
        while (pos_ < end + 2) Advance();
      } else {
        return;
      }
    }
  }

  void Command() {
    Location loc = Here();
    ++pos_;  // '!'
    ++loc.column;
    const std::string_view prefix = LinePrefix();
    size_t begin = pos_;
    while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
    std::string_view text = s_.substr(begin, pos_ - begin);
    while (!text.empty() && (IsBlank(text.back()) || text.back() == ';')) text.remove_suffix(1);
    items_.push_back({ScriptItem::Kind::kCommand, text, loc, prefix});
  }

  void Statement() {
    const Location loc = Here();
    const std::string_view prefix = LinePrefix();
    const size_t begin = pos_;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (!kSpecial[static_cast<unsigned char>(c)]) {
        // The common case: nothing that quotes, comments, ends lines or statements. Skip such
        // text 16 bytes at a time.
        ++pos_;
        while (pos_ + 16 <= s_.size() && !HasSpecial16(s_.data() + pos_)) pos_ += 16;
        continue;
      }
      if (c == ';') break;
      if (c == '\'' || c == '"' || c == '`') {
        // E'...' (PostgreSQL's escape string): a backslash escapes the next character.
        const bool escapes = c == '\'' && pos_ > begin && (s_[pos_ - 1] == 'E' || s_[pos_ - 1] == 'e') &&
                             (pos_ - 1 == begin || !IsWordByte(s_[pos_ - 2]));
        Quoted(c, escapes);
      } else if (c == '-' && Next() == '-') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else if (c == '/' && Next() == '*') {
        Advance();
        Advance();
        while (pos_ < s_.size() && !(s_[pos_] == '*' && Next() == '/')) Advance();
        if (pos_ < s_.size()) {
          Advance();
          Advance();
        }
      } else if (c == '$') {
        // Inside a name (`PAGE_VIEWS$v2$x`) a `$` quotes nothing, as in the lexer.
        if (pos_ > begin && IsWordByte(s_[pos_ - 1])) {
          Advance();
        } else {
          Dollar();
        }
      } else {
        Advance();
      }
    }
    std::string_view text = s_.substr(begin, pos_ - begin);
    if (pos_ < s_.size()) ++pos_;  // ';'
    while (!text.empty() && (IsBlank(text.back()) || text.back() == '\n')) text.remove_suffix(1);
    if (HasContent(text)) items_.push_back({ScriptItem::Kind::kStatement, text, loc, prefix});
  }

  char Next() const { return pos_ + 1 < s_.size() ? s_[pos_ + 1] : '\0'; }

  void Quoted(char q, bool escapes = false) {
    ++pos_;
    const size_t n = s_.size();
    while (pos_ < n) {
      const char c = s_[pos_];
      if (escapes && c == '\\' && pos_ + 1 < n && s_[pos_ + 1] != '\n') {
        pos_ += 2;
        continue;
      }
      if (c == q) {
        ++pos_;
        if (pos_ < n && s_[pos_] == q) {
          ++pos_;
          continue;
        }
        return;
      }
      if (c == '\n') {
        ++line_;
        line_begin_ = pos_ + 1;
      }
      ++pos_;
    }
  }

  // $tag$ ... $tag$; a `$` that opens no tag (`$1`) is an ordinary character.
  void Dollar() {
    size_t k = pos_ + 1;
    while (k < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[k])) || s_[k] == '_' ||
                             static_cast<unsigned char>(s_[k]) >= 0x80)) {
      ++k;
    }
    if (k >= s_.size() || s_[k] != '$' ||
        (k > pos_ + 1 && std::isdigit(static_cast<unsigned char>(s_[pos_ + 1])))) {
      Advance();
      return;
    }
    std::string_view tag = s_.substr(pos_, k + 1 - pos_);
    size_t close = s_.find(tag, k + 1);
    size_t end = close == std::string_view::npos ? s_.size() : close + tag.size();
    while (pos_ < end) Advance();
  }

  std::string_view s_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  size_t line_begin_ = 0;
  std::vector<ScriptItem> items_;
};

}  // namespace

std::vector<ScriptItem> SplitScript(std::string_view script) { return Splitter(script).Run(); }

}  // namespace hop::sql
