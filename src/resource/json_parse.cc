#include "resource/json_parse.h"

#include <charconv>
#include <nlohmann/json.hpp>

#include "common/strings.h"

namespace hop::resource {

namespace {

// Recursive descent over [p, end). Every method returns false where Json::parse would fail or
// where this parser declines (depth, integer range), and the caller falls back.
class Parser {
 public:
  explicit Parser(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  bool Document(Json& out) {
    SkipSpace();
    if (!Value(out, 0)) return false;
    SkipSpace();
    return p_ == end_;
  }

 private:
  void SkipSpace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  bool Literal(std::string_view word) {
    if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) {
      return false;
    }
    p_ += word.size();
    return true;
  }

  bool Value(Json& out, int depth) {
    if (p_ == end_) return false;
    switch (*p_) {
      case '{': return Object(out, depth + 1);
      case '[': return Array(out, depth + 1);
      case '"': {
        std::string s;
        if (!String(s)) return false;
        out = std::move(s);
        return true;
      }
      case 't':
        out = true;
        return Literal("true");
      case 'f':
        out = false;
        return Literal("false");
      case 'n':
        out = nullptr;
        return Literal("null");
      default: return Number(out);
    }
  }

  bool Object(Json& out, int depth) {
    if (depth > kFastDepth) return false;
    ++p_;  // '{'
    out = Json::object();
    auto& members = out.get_ref<Json::object_t&>();
    SkipSpace();
    if (p_ < end_ && *p_ == '}') {
      ++p_;
      return true;
    }
    for (;;) {
      SkipSpace();
      if (p_ == end_ || *p_ != '"') return false;
      std::string key;
      if (!String(key)) return false;
      SkipSpace();
      if (p_ == end_ || *p_ != ':') return false;
      ++p_;
      SkipSpace();
      Json value;
      if (!Value(value, depth)) return false;
      // A repeated key keeps its first place and takes the last value, as Json::parse does.
      auto it = members.find(key);
      if (it != members.end()) {
        it->second = std::move(value);
      } else {
        static_cast<Json::object_t::Container&>(members).emplace_back(std::move(key),
                                                                      std::move(value));
      }
      SkipSpace();
      if (p_ == end_) return false;
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ != '}') return false;
      ++p_;
      return true;
    }
  }

  bool Array(Json& out, int depth) {
    if (depth > kFastDepth) return false;
    ++p_;  // '['
    out = Json::array();
    auto& items = out.get_ref<Json::array_t&>();
    SkipSpace();
    if (p_ < end_ && *p_ == ']') {
      ++p_;
      return true;
    }
    for (;;) {
      SkipSpace();
      items.emplace_back();
      if (!Value(items.back(), depth)) return false;
      SkipSpace();
      if (p_ == end_) return false;
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ != ']') return false;
      ++p_;
      return true;
    }
  }

  bool Hex4(uint32_t& out) {
    if (end_ - p_ < 4) return false;
    out = 0;
    for (int i = 0; i < 4; ++i) {
      const int d = HexDigitValue(p_[i]);
      if (d < 0) return false;
      out = out << 4 | static_cast<uint32_t>(d);
    }
    p_ += 4;
    return true;
  }

  bool String(std::string& out) {
    ++p_;  // '"'
    bool wide = false;  // bytes of 0x80 and above: checked as UTF-8 at the end
    for (;;) {
      const char* run = p_;
      while (p_ < end_ && *p_ != '"' && *p_ != '\\' && static_cast<unsigned char>(*p_) >= 0x20) {
        wide |= static_cast<unsigned char>(*p_) >= 0x80;
        ++p_;
      }
      out.append(run, p_);
      if (p_ == end_ || static_cast<unsigned char>(*p_) < 0x20) return false;
      if (*p_ == '"') {
        ++p_;
        return !wide || FindInvalidUtf8(out) == std::string_view::npos;
      }
      ++p_;  // '\\'
      if (p_ == end_) return false;
      const char e = *p_++;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp;
          if (!Hex4(cp)) return false;
          if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // a low surrogate alone
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low;
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
            p_ += 2;
            if (!Hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          AppendUtf8(static_cast<char32_t>(cp), &out);
          break;
        }
        default: return false;
      }
    }
  }

  bool Number(Json& out) {
    // JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    const char* start = p_;
    auto digits = [&] {
      const char* from = p_;
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
      return p_ > from;
    };
    const bool negative = p_ < end_ && *p_ == '-';
    if (negative) ++p_;
    if (p_ < end_ && *p_ == '0') {
      ++p_;
    } else if (!digits()) {
      return false;
    }
    bool integer = true;
    if (p_ < end_ && *p_ == '.') {
      ++p_;
      integer = false;
      if (!digits()) return false;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      integer = false;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (!digits()) return false;
    }
    // As Json::parse types them: unsigned without a sign, signed with one, else a double.
    if (integer && !negative) {
      uint64_t v;
      const auto r = std::from_chars(start, p_, v);
      if (r.ec != std::errc() || r.ptr != p_) return false;  // past 64 bits: Json::parse's call
      out = v;
      return true;
    }
    if (integer) {
      int64_t v;
      const auto r = std::from_chars(start, p_, v);
      if (r.ec != std::errc() || r.ptr != p_) return false;
      out = v;
      return true;
    }
    double v;
    const auto r = std::from_chars(start, p_, v);
    if (r.ec != std::errc() || r.ptr != p_) return false;
    out = v;
    return true;
  }

  const char* p_;
  const char* end_;
};

}  // namespace

std::optional<Json> FastParseJson(std::string_view text) {
  Json out;
  if (!Parser(text).Document(out)) return std::nullopt;
  return out;
}

Json ParseJsonOrDiscarded(std::string_view text) {
  if (std::optional<Json> fast = FastParseJson(text)) return std::move(*fast);
  return Json::parse(text, nullptr, /*allow_exceptions=*/false);
}

}  // namespace hop::resource
