// YAML and JSON codecs. YAML is read through event parsers (not a node tree) so that typing,
// duplicate keys, aliases and resource bounds are decided here, with positions: libyaml's for the
// streams most YAML is (docs/resources.md, "Reading YAML"), several times faster, and yaml-cpp's
// for the rest and for every error. It is written by hand because yaml-cpp's emitter neither
// follows kubectl's layout nor quotes strings that YAML 1.1 readers would retype.
#include "resource/yaml.h"

#include <yaml.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "common/limits.h"
#include "common/strings.h"

namespace hop {
namespace {

// ---------------------------------------------------------------------------------------------
// Text: positions and UTF-8

// "<source>: line L, column C: " for a 0-based byte offset into `text`.
std::string WhereOffset(std::string_view source, std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const size_t line = 1 + std::count(before.begin(), before.end(), '\n');
  const size_t last_break = before.rfind('\n');
  const size_t line_start = last_break == std::string_view::npos ? 0 : last_break + 1;
  return std::string(source) + ": line " + std::to_string(line) + ", column " +
         std::to_string(offset - line_start + 1) + ": ";
}

// "<source>: line L, column C: " for a yaml-cpp mark (0-based), or "<source>: " without one.
std::string WhereMark(std::string_view source, const YAML::Mark& mark) {
  if (mark.is_null()) return std::string(source) + ": ";
  return std::string(source) + ": line " + std::to_string(mark.line + 1) + ", column " +
         std::to_string(mark.column + 1) + ": ";
}

// Decodes the UTF-8 sequence at s[*i] and advances *i past it. Returns the code point, or -1 for
// a byte that does not start a valid sequence (overlong forms, surrogates and values above
// U+10FFFF are invalid); *i then advances by that one byte.
int32_t NextCodePoint(std::string_view s, size_t* i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(*i);
  int length = 0;
  int32_t code = 0;
  int32_t min = 0;
  if (lead < 0x80) {
    ++*i;
    return lead;
  } else if ((lead & 0xE0) == 0xC0) {
    length = 2, code = lead & 0x1F, min = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, code = lead & 0x0F, min = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, code = lead & 0x07, min = 0x10000;
  } else {
    ++*i;
    return -1;
  }
  if (*i + length > s.size()) {
    ++*i;
    return -1;
  }
  for (int k = 1; k < length; ++k) {
    const unsigned char next = byte(*i + k);
    if ((next & 0xC0) != 0x80) {
      ++*i;
      return -1;
    }
    code = (code << 6) | (next & 0x3F);
  }
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
    ++*i;
    return -1;
  }
  *i += length;
  return code;
}

// yaml-cpp 0.7 decodes the escapes `\N`, `\_` and `\xNN` (NN >= 80) of double-quoted scalars to
// the raw byte instead of the character's UTF-8 encoding. The input was checked to be UTF-8, so a
// byte that starts no valid sequence in a decoded scalar comes from such an escape: it stands for
// the code point U+00NN.
std::string RepairEscapedBytes(const std::string& value) {
  bool valid = true;
  for (size_t i = 0; i < value.size() && valid;) valid = NextCodePoint(value, &i) >= 0;
  if (valid) return value;
  std::string out;
  out.reserve(value.size() + 8);
  for (size_t i = 0; i < value.size();) {
    const size_t start = i;
    if (NextCodePoint(value, &i) >= 0) {
      out.append(value, start, i - start);
    } else {
      const auto byte = static_cast<unsigned char>(value[start]);
      out.push_back(static_cast<char>(0xC0 | (byte >> 6)));
      out.push_back(static_cast<char>(0x80 | (byte & 0x3F)));
    }
  }
  return out;
}

// `value` in upper-case hexadecimal, zero-padded to `digits`.
std::string Hex(uint32_t value, int digits) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%0*X", digits, value);
  return buffer;
}

// YAML streams are Unicode text: rejects invalid UTF-8 and the C0 controls other than tab and
// line breaks (yaml-cpp would misreport a NUL as an escape and pass the others through).
Status CheckYamlText(std::string_view text, std::string_view source) {
  for (size_t i = 0; i < text.size();) {
    const size_t at = i;
    const int32_t code = NextCodePoint(text, &i);
    if (code < 0) {
      return Status::ParseError(WhereOffset(source, text, at) + "invalid UTF-8 byte 0x" +
                                Hex(static_cast<unsigned char>(text[at]), 2));
    }
    if ((code < 0x20 && code != '\t' && code != '\n' && code != '\r') || code == 0x7F) {
      return Status::ParseError(WhereOffset(source, text, at) + "control character U+" +
                                Hex(code, 4) + " is not allowed in YAML");
    }
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Scalar typing: YAML 1.2 core schema

bool IsOneOf(std::string_view s, std::initializer_list<std::string_view> words) {
  for (std::string_view word : words) {
    if (s == word) return true;
  }
  return false;
}

bool IsNullWord(std::string_view s) {
  return s.empty() || IsOneOf(s, {"~", "null", "Null", "NULL"});
}

std::optional<bool> BoolWord(std::string_view s) {
  if (IsOneOf(s, {"true", "True", "TRUE"})) return true;
  if (IsOneOf(s, {"false", "False", "FALSE"})) return false;
  return std::nullopt;
}

// The integer `s` spells in the core schema (`[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`): an
// int64 when it fits, else a uint64, else (too large) the text itself as a string. nullopt when
// `s` is not integer syntax.
std::optional<Json> CoreInt(std::string_view s) {
  int base = 10;
  bool negative = false;
  std::string_view digits = s;
  if (s.starts_with("0o") || s.starts_with("0x")) {
    base = s[1] == 'o' ? 8 : 16;
    digits.remove_prefix(2);
  } else if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) return std::nullopt;
  uint64_t magnitude = 0;
  const char* end = digits.data() + digits.size();
  const auto [stop, error] = std::from_chars(digits.data(), end, magnitude, base);
  if (stop != end) return std::nullopt;
  constexpr uint64_t kInt64Max = std::numeric_limits<int64_t>::max();
  if (error == std::errc::result_out_of_range || (negative && magnitude > kInt64Max + 1)) {
    return Json(std::string(s));
  }
  if (negative) return Json(static_cast<int64_t>(0 - magnitude));  // two's complement wrap
  if (magnitude <= kInt64Max) return Json(static_cast<int64_t>(magnitude));
  return Json(magnitude);
}

// The float `s` spells in the core schema (`[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`,
// `[-+]?.inf`, `.nan` in their three spellings). nullopt when `s` is not float syntax. A number
// beyond double's range is an infinity of its sign, one too small for a double a zero of its
// sign, as strtod rounds them; readers refuse what JSON cannot hold (NotRepresentable).
std::optional<double> CoreFloat(std::string_view s) {
  std::string_view unsigned_part = s;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) unsigned_part.remove_prefix(1);
  if (IsOneOf(unsigned_part, {".inf", ".Inf", ".INF"})) {
    return s[0] == '-' ? -std::numeric_limits<double>::infinity()
                       : std::numeric_limits<double>::infinity();
  }
  if (IsOneOf(s, {".nan", ".NaN", ".NAN"})) return std::numeric_limits<double>::quiet_NaN();

  const auto digits_at = [&](size_t i) {
    size_t j = i;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
    return j - i;
  };
  size_t i = s.size() - unsigned_part.size();
  const size_t whole = digits_at(i);
  i += whole;
  size_t fraction = 0;
  if (i < s.size() && s[i] == '.') {
    fraction = digits_at(++i);
    i += fraction;
  }
  if (whole == 0 && fraction == 0) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    const size_t exponent = digits_at(i);
    if (exponent == 0) return std::nullopt;
    i += exponent;
  }
  if (i != s.size()) return std::nullopt;

  // from_chars takes no leading '+'; it is locale-independent, unlike strtod.
  std::string_view number = s[0] == '+' ? s.substr(1) : s;
  double value = 0;
  const auto [stop, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (stop != number.data() + number.size()) return std::nullopt;
  if (error == std::errc::result_out_of_range) {
    // Beyond double's range either way (from_chars leaves `value` alone): above its largest
    // value when the first significant digit is in the units or higher, below its smallest
    // otherwise, since both bounds are far from 1.
    const bool negative = s[0] == '-';
    const size_t mantissa_start = s.size() - unsigned_part.size();
    const size_t mantissa_end = std::min(s.size(), s.find_first_of("eE", mantissa_start));
    const std::string_view mantissa = s.substr(mantissa_start, mantissa_end - mantissa_start);
    const size_t point = std::min(mantissa.size(), mantissa.find('.'));
    const size_t first = mantissa.find_first_of("123456789");
    if (first == std::string_view::npos) return negative ? -0.0 : 0.0;
    // The power of ten of the first significant digit, without the exponent.
    int64_t magnitude = first < point ? static_cast<int64_t>(point - first) - 1
                                      : -static_cast<int64_t>(first - point);
    int64_t exponent = 0;
    bool exponent_negative = false;
    for (size_t k = mantissa_end + 1; k < s.size(); ++k) {
      if (s[k] == '-') exponent_negative = true;
      // Saturates: any exponent this large decides the side alone.
      if (s[k] >= '0' && s[k] <= '9') {
        exponent = std::min<int64_t>(exponent * 10 + (s[k] - '0'), 1'000'000'000);
      }
    }
    magnitude += exponent_negative ? -exponent : exponent;
    if (magnitude >= 0) {
      return negative ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity();
    }
    return negative ? -0.0 : 0.0;
  }
  if (error != std::errc()) return std::nullopt;
  return value;
}

// Why `value` cannot be a JSON number (an infinity, NaN), or nullopt when it can or is no
// number. The readers refuse such values: JSON, which stores every resource, has no spelling for
// them, and writing one would silently turn it into null.
std::optional<std::string> NotRepresentable(const Json& value, std::string_view text) {
  if (!value.is_number_float()) return std::nullopt;
  const double d = value.get<double>();
  if (std::isnan(d)) {
    return "\"" + std::string(text) + "\" is not a number (NaN), which JSON cannot represent";
  }
  if (std::isinf(d)) {
    const bool spelled = text.find_first_of("iI") != std::string_view::npos;
    return "\"" + std::string(text) + "\" is " +
           (spelled ? std::string(d < 0 ? "negative infinity" : "infinity")
                    : std::string("beyond the range of a double")) +
           ", which JSON cannot represent";
  }
  return std::nullopt;
}

// The value of an untagged plain scalar.
Json ResolvePlain(std::string_view s) {
  if (IsNullWord(s)) return nullptr;
  if (std::optional<bool> b = BoolWord(s)) return *b;
  if (std::optional<Json> i = CoreInt(s)) return *std::move(i);
  if (std::optional<double> d = CoreFloat(s)) return *d;
  return std::string(s);
}

// Tags as yaml-cpp reports them: "?" (or empty) for an untagged plain node, "!" for a quoted or
// block scalar or the non-specific `!`, the full "tag:yaml.org,2002:..." form for `!!...`.
enum class Tag { kPlain, kNonSpecific, kStr, kInt, kFloat, kBool, kNull, kMap, kSeq, kOther };

constexpr std::string_view kCoreTagPrefix = "tag:yaml.org,2002:";

Tag ClassifyTag(std::string_view tag) {
  if (tag.empty() || tag == "?") return Tag::kPlain;
  if (tag == "!") return Tag::kNonSpecific;
  if (!tag.starts_with(kCoreTagPrefix)) return Tag::kOther;
  tag.remove_prefix(kCoreTagPrefix.size());
  if (tag == "str") return Tag::kStr;
  if (tag == "int") return Tag::kInt;
  if (tag == "float") return Tag::kFloat;
  if (tag == "bool") return Tag::kBool;
  if (tag == "null") return Tag::kNull;
  if (tag == "map") return Tag::kMap;
  if (tag == "seq") return Tag::kSeq;
  return Tag::kOther;
}

// The tag as the user wrote it: "!!int" rather than "tag:yaml.org,2002:int".
std::string ShowTag(std::string_view tag) {
  if (tag.starts_with(kCoreTagPrefix)) return "!!" + std::string(tag.substr(kCoreTagPrefix.size()));
  return std::string(tag);
}

// The value of a scalar with its tag, or the message saying why it has none.
Result<Json> ResolveScalar(const std::string& tag, const std::string& text) {
  std::optional<Json> value;
  switch (ClassifyTag(tag)) {
    case Tag::kPlain: return ResolvePlain(text);
    case Tag::kNonSpecific:
    case Tag::kStr: return Json(text);
    case Tag::kInt:
      value = CoreInt(text);
      if (value && !value->is_number()) value.reset();
      break;
    case Tag::kFloat:
      if (std::optional<double> d = CoreFloat(text)) value = *d;
      break;
    case Tag::kBool:
      if (std::optional<bool> b = BoolWord(text)) value = *b;
      break;
    case Tag::kNull:
      if (IsNullWord(text)) value = nullptr;
      break;
    case Tag::kMap:
    case Tag::kSeq:
      return Status::ParseError("tag " + ShowTag(tag) + " does not apply to a scalar");
    case Tag::kOther: return Status::ParseError("unsupported tag " + ShowTag(tag));
  }
  if (!value) return Status::ParseError("\"" + text + "\" is not a valid " + ShowTag(tag));
  return *std::move(value);
}

// ---------------------------------------------------------------------------------------------
// Reading: yaml-cpp events to Json

// Builds the Json of each document from yaml-cpp's parse events. After the first error it ignores
// the rest of the document; the driver reports that error.
class JsonBuilder final : public YAML::EventHandler {
 public:
  explicit JsonBuilder(std::string_view text)
      : text_(text), bom_(text.starts_with("\xEF\xBB\xBF") ? 3 : 0) {}

  struct Error {
    YAML::Mark mark;
    std::string message;
  };
  // The first error in the document being handled.
  const std::optional<Error>& error() const { return error_; }
  // The root of the document just handled; nullopt when the document was empty.
  std::optional<Json> TakeRoot() { return std::exchange(root_, std::nullopt); }

  // Where the document just handled started.
  const YAML::Mark& document_start() const { return document_start_; }
  // The character at `mark`, for messages.
  std::string CharacterAt(const YAML::Mark& mark) const {
    const size_t at = bom_ + static_cast<size_t>(std::max(mark.pos, 0));
    if (at >= text_.size()) return "end of input";
    if (text_[at] <= ' ' || text_[at] > '~') return "character";
    return "'" + std::string(1, text_[at]) + "'";
  }

  void OnDocumentStart(const YAML::Mark& mark) override {
    document_start_ = mark;
    stack_.clear();
    anchors_.clear();
    anchor_names_.clear();
    root_.reset();
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (error_) return;
    std::string text(NullText(mark));
    if (stack_.empty() && text.empty()) return;  // an empty document, not an explicit null
    Add(nullptr, mark, anchor, std::move(text));
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (error_) return;
    const auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {
      return Fail(mark, "alias *" + anchor_names_[anchor] + " refers to a node that contains it");
    }
    const Anchored& anchored = it->second;
    alias_values_ += anchored.values;
    if (alias_values_ > kMaxAliasValues) {
      return Fail(mark,
                  "aliases expand to more than " + std::to_string(kMaxAliasValues) + " values");
    }
    alias_bytes_ += anchored.bytes;
    if (alias_bytes_ > max_alias_bytes_) {
      return Fail(mark, "aliases expand to more than " + FormatByteSize(max_alias_bytes_) +
                            " (HOP_MAX_EXPANDED_BYTES)");
    }
    if (stack_.size() + anchored.depth > static_cast<size_t>(kMaxNestingDepth)) {
      return Fail(mark, "alias *" + anchor_names_[anchor] + " nests deeper than " +
                            std::to_string(kMaxNestingDepth) + " levels");
    }
    // A scalar anchored as a key was not checked as a value.
    if (!ExpectingKey() && anchored.key_text) {
      if (auto why = NotRepresentable(anchored.value, *anchored.key_text)) {
        return FailAt(mark, *why + QuoteHint(*anchored.key_text));
      }
    }
    Add(anchored.value, mark, YAML::NullAnchor, anchored.key_text);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& raw) override {
    if (error_) return;
    if (tag == "!" && !QuoteClosed(mark)) {
      // yaml-cpp ends a quoted scalar that the input leaves open at the end of the input, and
      // folds the line break before it into a space: `"abc` would be read as "abc ".
      return Fail(mark, "unterminated quoted string");
    }
    const std::string value = RepairEscapedBytes(raw);
    Result<Json> resolved = ResolveScalar(tag, value);
    if (!resolved.ok()) return Fail(mark, resolved.status().message());
    // A key is its text, whatever it spells; a value must be one JSON can hold.
    if (!ExpectingKey()) {
      if (auto why = NotRepresentable(*resolved, value)) {
        return FailAt(mark, *why + QuoteHint(value));
      }
    }
    Add(*std::move(resolved), mark, anchor, value);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override {
    Open(Json::array(), mark, tag, anchor, Tag::kSeq, "sequence");
  }
  void OnSequenceEnd() override { Close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override {
    Open(Json::object(), mark, tag, anchor, Tag::kMap, "mapping");
  }
  void OnMapEnd() override { Close(); }

  // yaml-cpp announces an anchor's name just before the node that carries it.
  void OnAnchor(const YAML::Mark& /*mark*/, const std::string& name) override {
    pending_anchor_name_ = name;
  }

 private:
  // A mapping or sequence being built.
  struct Frame {
    Json value;
    YAML::Mark mark;
    YAML::anchor_t anchor = YAML::NullAnchor;
    std::optional<std::string> key;                  // a mapping's key awaiting its value
    std::unordered_map<std::string, int> key_lines;  // a mapping's keys so far, with their lines
  };
  // A completed node with an anchor, as aliases copy it.
  struct Anchored {
    Json value;
    std::optional<std::string> key_text;  // scalars only: their text, used when one is a key
    size_t values = 0;                    // nodes in `value`, for the alias budget
    size_t depth = 0;                     // collection nesting of `value`
    size_t bytes = 0;                     // at least the size of `value` as compact JSON, plus 1
  };

  // Bytes of `s` as a JSON string, quotes included (nlohmann writes a control as 6 at most).
  static size_t JsonStringBytes(std::string_view s) {
    size_t bytes = s.size() + 2;
    for (char c : s) {
      if (c == '"' || c == '\\') {
        bytes += 1;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        bytes += 5;
      }
    }
    return bytes;
  }

  // Adds `value`'s nodes, depth and JSON size (one more byte per node, for the comma or colon
  // that separates it) to `anchored`.
  static void Measure(const Json& value, size_t depth, Anchored* anchored) {
    ++anchored->values;
    ++anchored->bytes;
    switch (value.type()) {
      case Json::value_t::string:
        anchored->bytes += JsonStringBytes(value.get_ref<const std::string&>());
        return;
      case Json::value_t::object:
        for (const auto& [key, child] : value.get_ref<const Json::object_t&>()) {
          anchored->bytes += JsonStringBytes(key);
        }
        break;
      case Json::value_t::array: break;
      case Json::value_t::number_float: anchored->bytes += 24; return;  // "-2.2250738585072014e-308"
      default: anchored->bytes += 20; return;  // integers, true, false, null
    }
    anchored->bytes += 2;
    anchored->depth = std::max(anchored->depth, depth + 1);
    for (const Json& child : value) Measure(child, depth + 1, anchored);
  }

  // Whether the quoted scalar at `mark` ends with its closing quote before the end of the
  // input. Node properties (`&anchor`, `!tag`) before the quote are skipped.
  bool QuoteClosed(const YAML::Mark& mark) const {
    if (mark.pos < 0) return true;
    size_t at = std::min(text_.size(), bom_ + static_cast<size_t>(mark.pos));
    while (at < text_.size() && (text_[at] == '&' || text_[at] == '!')) {
      at = text_.find_first_of(" \t\r\n", at);
      if (at == std::string_view::npos) return true;
      at = text_.find_first_not_of(" \t\r\n", at);
      if (at == std::string_view::npos) return true;
    }
    if (at >= text_.size()) return true;
    const char quote = text_[at];
    if (quote != '"' && quote != '\'') return true;  // a block scalar: nothing to close
    for (size_t i = at + 1; i < text_.size(); ++i) {
      if (quote == '"' && text_[i] == '\\') {
        ++i;
      } else if (text_[i] == quote) {
        if (quote == '\'' && i + 1 < text_.size() && text_[i + 1] == '\'') {
          ++i;
        } else {
          return true;
        }
      }
    }
    return false;
  }

  void Fail(const YAML::Mark& mark, std::string message) {
    if (!error_) error_ = Error{mark, std::move(message)};
  }

  // Fail, naming the field the node at `mark` is the value of (`spec.ratio`, `items[2]`).
  void FailAt(const YAML::Mark& mark, const std::string& message) {
    std::string path;
    for (const Frame& frame : stack_) {
      if (frame.value.is_array()) {
        path += "[" + std::to_string(frame.value.size()) + "]";
      } else if (frame.key) {
        path += (path.empty() ? "" : ".") + *frame.key;
      }
    }
    Fail(mark, (path.empty() ? std::string("the document") : path) + ": " + message);
  }

  // How to keep the text `text` as a string, for messages.
  static std::string QuoteHint(std::string_view text) {
    std::string quoted = "'";
    for (char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    return "; quote it (" + quoted + "') to keep it as text";
  }

  bool ExpectingKey() const {
    return !stack_.empty() && stack_.back().value.is_object() && !stack_.back().key;
  }

  // The text of the plain null scalar at `mark` ("~", "null", "Null" or "NULL"), or "" when the
  // node is empty. yaml-cpp reports both as the same event; the difference matters for keys and
  // for telling an empty document from a `null` one.
  std::string_view NullText(const YAML::Mark& mark) const {
    if (mark.pos < 0) return "";
    // Marks count bytes after a byte order mark, which yaml-cpp skips.
    std::string_view rest = text_.substr(std::min(text_.size(), bom_ + mark.pos));
    while (!rest.empty() && (rest[0] == '&' || rest[0] == '!')) {  // node properties
      rest.remove_prefix(std::min(rest.size(), rest.find_first_of(" \t\r\n")));
      rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t\r\n")));
    }
    for (std::string_view word : {"~", "null", "Null", "NULL"}) {
      if (rest.starts_with(word) &&
          (rest.size() == word.size() ||
           std::string_view(" \t\r\n:,]}#").find(rest[word.size()]) != std::string_view::npos)) {
        return word;
      }
    }
    return "";
  }

  void NameAnchor(YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) anchor_names_.emplace(anchor, pending_anchor_name_);
  }

  void Open(Json value, const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
            Tag kind, const char* kind_name) {
    if (error_) return;
    if (ExpectingKey()) {
      return Fail(mark, std::string("a mapping key must be a scalar, not a ") + kind_name);
    }
    const Tag given = ClassifyTag(tag);
    if (given != Tag::kPlain && given != Tag::kNonSpecific && given != kind) {
      return Fail(mark, given == Tag::kOther
                            ? "unsupported tag " + ShowTag(tag)
                            : "tag " + ShowTag(tag) + " does not apply to a " + kind_name);
    }
    if (stack_.size() >= static_cast<size_t>(kMaxNestingDepth)) {
      return Fail(mark, "nesting deeper than " + std::to_string(kMaxNestingDepth) + " levels");
    }
    NameAnchor(anchor);
    stack_.push_back(Frame{std::move(value), mark, anchor, std::nullopt, {}});
  }

  void Close() {
    if (error_) return;
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    Add(std::move(frame.value), frame.mark, frame.anchor, std::nullopt);
  }

  // Places a completed node: as the document root, a sequence item, a mapping key (`key_text`,
  // which collections lack) or a mapping value.
  void Add(Json value, const YAML::Mark& mark, YAML::anchor_t anchor,
           std::optional<std::string> key_text) {
    if (anchor != YAML::NullAnchor) {
      NameAnchor(anchor);
      Anchored& anchored = anchors_[anchor];
      anchored = Anchored{value, key_text, 0, 0, 0};
      Measure(anchored.value, 0, &anchored);
    }
    if (stack_.empty()) {
      root_ = std::move(value);
      return;
    }
    Frame& top = stack_.back();
    if (top.value.is_array()) {
      top.value.push_back(std::move(value));
    } else if (!top.key) {
      if (!key_text) return Fail(mark, "a mapping key must be a scalar");
      const auto [it, inserted] = top.key_lines.emplace(*key_text, mark.line + 1);
      if (!inserted) {
        return Fail(mark, "duplicate mapping key \"" + *key_text + "\"; first on line " +
                              std::to_string(it->second));
      }
      top.key = std::move(key_text);
    } else {
      // ordered_map::emplace searches the keys linearly; key_lines already rules out duplicates,
      // so append to the underlying vector and keep large mappings linear.
      top.value.get_ref<Json::object_t&>().emplace_back(std::move(*top.key), std::move(value));
      top.key.reset();
    }
  }

  std::string_view text_;
  size_t bom_;
  YAML::Mark document_start_;
  std::optional<Error> error_;
  std::optional<Json> root_;
  std::vector<Frame> stack_;
  std::unordered_map<YAML::anchor_t, Anchored> anchors_;
  std::unordered_map<YAML::anchor_t, std::string> anchor_names_;
  std::string pending_anchor_name_;
  size_t alias_values_ = 0;  // across all documents of the stream
  size_t alias_bytes_ = 0;   // likewise
  size_t max_alias_bytes_ = CurrentLimits().max_expanded_bytes;
};

// ---------------------------------------------------------------------------------------------
// Reading, the common case: libyaml events to Json

// Reads a stream with none of what yaml-cpp's reader above is there to decide: no anchors,
// aliases, tags or directives, scalar keys each once in their mapping, nesting within
// kMaxNestingDepth. The documents are those JsonBuilder gives; anything else, and any syntax
// error, makes Read return nullopt and is left to that reader and its messages.
class PlainYamlReader {
 public:
  explicit PlainYamlReader(std::string_view text) {
    yaml_parser_initialize(&parser_);
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
  }
  ~PlainYamlReader() { yaml_parser_delete(&parser_); }
  PlainYamlReader(const PlainYamlReader&) = delete;
  PlainYamlReader& operator=(const PlainYamlReader&) = delete;

  std::optional<std::vector<Json>> Read() {
    std::vector<Json> docs;
    for (;;) {
      yaml_event_t event;
      if (!yaml_parser_parse(&parser_, &event)) return std::nullopt;
      const bool taken = Take(event, &docs);
      const bool end = event.type == YAML_STREAM_END_EVENT;
      yaml_event_delete(&event);
      if (!taken) return std::nullopt;
      if (end) return docs;
    }
  }

 private:
  // A mapping or sequence being built.
  struct Frame {
    Json value;
    std::optional<std::string> key;  // a mapping's key awaiting its value
    std::unordered_set<std::string> keys;  // a large mapping's keys (kKeysLookedUp and more)
  };
  // Keys a mapping of at most this many looks up in the mapping itself.
  static constexpr size_t kKeysLookedUp = 16;

  // Handles one event; false when the stream is not one this reader takes.
  bool Take(const yaml_event_t& event, std::vector<Json>* docs) {
    // A flow collection over several lines is left to yaml-cpp, which holds its lines to the
    // indentation of the block around it where libyaml does not.
    if (flow_depth_ > 0 &&
        (event.start_mark.line != flow_line_ || event.end_mark.line != flow_line_)) {
      return false;
    }
    switch (event.type) {
      case YAML_STREAM_START_EVENT:
      case YAML_STREAM_END_EVENT:
      case YAML_DOCUMENT_END_EVENT: return true;
      case YAML_DOCUMENT_START_EVENT:
        return event.data.document_start.version_directive == nullptr &&
               event.data.document_start.tag_directives.start ==
                   event.data.document_start.tag_directives.end;
      case YAML_ALIAS_EVENT: return false;
      case YAML_SCALAR_EVENT: {
        const auto& scalar = event.data.scalar;
        if (scalar.anchor != nullptr || scalar.tag != nullptr) return false;
        // yaml-cpp folds the empty lines of a quoted scalar over several lines in its own way.
        const bool quoted = scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                            scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        if (quoted && event.start_mark.line != event.end_mark.line) return false;
        std::string text(reinterpret_cast<const char*>(scalar.value), scalar.length);
        const bool plain = scalar.style == YAML_PLAIN_SCALAR_STYLE;
        // An empty document: only an empty plain node, which is no `null`.
        if (stack_.empty() && plain && text.empty()) return true;
        Json value = plain ? ResolvePlain(text) : Json(text);
        // A value JSON cannot hold is left to yaml-cpp's reader, which refuses it with its
        // position and field.
        if (!ExpectingKey() && NotRepresentable(value, text)) return false;
        return Add(std::move(value), &text, docs);
      }
      case YAML_SEQUENCE_START_EVENT:
        if (event.data.sequence_start.anchor != nullptr ||
            event.data.sequence_start.tag != nullptr) {
          return false;
        }
        if (event.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE) EnterFlow(event);
        return Open(Json::array());
      case YAML_MAPPING_START_EVENT:
        if (event.data.mapping_start.anchor != nullptr || event.data.mapping_start.tag != nullptr) {
          return false;
        }
        if (event.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE) EnterFlow(event);
        return Open(Json::object());
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT: {
        if (flow_depth_ > 0) --flow_depth_;
        Json value = std::move(stack_.back().value);
        stack_.pop_back();
        return Add(std::move(value), nullptr, docs);
      }
      case YAML_NO_EVENT: return false;
    }
    return false;
  }

  bool ExpectingKey() const {
    return !stack_.empty() && stack_.back().value.is_object() && !stack_.back().key;
  }

  void EnterFlow(const yaml_event_t& event) {
    if (flow_depth_++ == 0) flow_line_ = event.start_mark.line;
  }

  bool Open(Json value) {
    if (ExpectingKey() || stack_.size() >= static_cast<size_t>(kMaxNestingDepth)) return false;
    stack_.push_back(Frame{std::move(value), std::nullopt, {}});
    return true;
  }

  // Places a completed node: as a document, a sequence item, a mapping key (`key_text`, the
  // text of a scalar) or a mapping value.
  bool Add(Json value, std::string* key_text, std::vector<Json>* docs) {
    if (stack_.empty()) {
      docs->push_back(std::move(value));
      return true;
    }
    Frame& top = stack_.back();
    if (top.value.is_array()) {
      top.value.push_back(std::move(value));
    } else if (!top.key) {
      if (key_text == nullptr || !NewKey(top, *key_text)) return false;
      top.key = std::move(*key_text);
    } else {
      // Keys were checked as they came: append, as JsonBuilder does.
      top.value.get_ref<Json::object_t&>().emplace_back(std::move(*top.key), std::move(value));
      top.key.reset();
    }
    return true;
  }

  // Whether `key` is not yet in the mapping `frame` builds.
  static bool NewKey(Frame& frame, const std::string& key) {
    const auto& object = frame.value.get_ref<const Json::object_t&>();
    if (object.size() < kKeysLookedUp) return !frame.value.contains(key);
    if (frame.keys.empty()) {
      for (const auto& [k, v] : object) frame.keys.insert(k);
    }
    return frame.keys.insert(key).second;
  }

  yaml_parser_t parser_;
  std::vector<Frame> stack_;
  size_t flow_depth_ = 0;  // flow collections open
  size_t flow_line_ = 0;   // the line the outermost of them started on
};

Status YamlError(std::string_view source, const YAML::Mark& mark, std::string_view message,
                 int document) {
  return Status::ParseError(WhereMark(source, mark) + std::string(message) + " (document " +
                            std::to_string(document) + ")");
}

// ---------------------------------------------------------------------------------------------
// Writing YAML

// Code points written as escapes: C0 and C1 controls, DEL, the Unicode line and paragraph
// separators (line breaks to YAML 1.1), the byte order mark and the noncharacters U+FFFE/U+FFFF.
bool NeedsEscape(int32_t code) {
  return code < 0x20 || code == 0x7F || (code >= 0x80 && code <= 0x9F) || code == 0x2028 ||
         code == 0x2029 || code == 0xFEFF || code == 0xFFFE || code == 0xFFFF;
}

// True when plain `s` reads back as the string `s`, both under the YAML 1.2 core schema and under
// YAML 1.1's types (bools such as `yes`/`off`, `0b`/sexagesimal/underscored numbers, timestamps,
// the merge key `<<`), so that every reader of hop's output agrees.
bool ReadsAsString(std::string_view s) {
  if (!ResolvePlain(s).is_string()) return false;
  for (std::string_view word : {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}) {
    if (EqualsIgnoreCase(s, word)) return false;
  }
  if (s == "<<" || s == "=") return false;
  if (std::string_view("0123456789+.").find(s[0]) == std::string_view::npos) return true;
  // A superset of YAML 1.1's int, float and timestamp syntax.
  static const std::regex kNumberLike(
      "[-+]?(0b[01_]+|0x[0-9a-fA-F_]+|0o[0-7_]+|[0-9][0-9_]*(:[0-5]?[0-9])*(\\.[0-9_.]*)?"
      "([eE][-+]?[0-9]+)?|\\.[0-9_.]*([eE][-+]?[0-9]+)?|\\.(inf|Inf|INF|nan|NaN|NAN))");
  static const std::regex kTimestamp("[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt \t].*)?");
  const std::string text(s);
  return !std::regex_match(text, kNumberLike) && !std::regex_match(text, kTimestamp);
}

constexpr std::string_view kIndicators = "-?:,[]{}#&*!|>'\"%@`";

// True when `s` (one line, no characters needing escapes) can be written as a plain scalar.
bool PlainFits(std::string_view s) {
  if (s.empty() || kIndicators.find(s.front()) != std::string_view::npos) return false;
  if (s.front() == ' ' || s.back() == ' ' || s.back() == ':') return false;
  if (s.find(": ") != std::string_view::npos || s.find(" #") != std::string_view::npos)
    return false;
  if (s.starts_with("...")) return false;  // a document end marker at the start of a line
  return ReadsAsString(s);
}

// True when a literal block scalar holds `s` exactly: it needs a line with content (so chomping
// has something to attach to) and no line may end in a space or tab, which editors and some
// readers drop.
bool LiteralFits(std::string_view s) {
  bool has_content = false;
  for (size_t start = 0; start <= s.size();) {
    size_t end = s.find('\n', start);
    if (end == std::string_view::npos) end = s.size();
    const std::string_view line = s.substr(start, end - start);
    if (!line.empty()) {
      has_content = true;
      if (line.back() == ' ' || line.back() == '\t') return false;
    }
    start = end + 1;
  }
  return has_content;
}

enum class Style { kPlain, kSingleQuoted, kDoubleQuoted, kLiteral };

Style ChooseStyle(std::string_view s, bool is_key) {
  bool newline = false;
  bool tab = false;
  bool escape = false;
  for (size_t i = 0; i < s.size();) {
    const int32_t code = NextCodePoint(s, &i);
    if (code == '\n') {
      newline = true;
    } else if (code == '\t') {
      tab = true;
    } else if (code < 0 || NeedsEscape(code)) {
      escape = true;
    }
  }
  if (newline && !is_key && !escape && LiteralFits(s)) return Style::kLiteral;
  if (newline || tab || escape) return Style::kDoubleQuoted;
  return PlainFits(s) ? Style::kPlain : Style::kSingleQuoted;
}

void WriteSingleQuoted(std::string_view s, std::string* out) {
  *out += '\'';
  for (char c : s) {
    if (c == '\'') *out += '\'';
    *out += c;
  }
  *out += '\'';
}

void WriteDoubleQuoted(std::string_view s, std::string* out) {
  *out += '"';
  for (size_t i = 0; i < s.size();) {
    const size_t start = i;
    const int32_t code = NextCodePoint(s, &i);
    switch (code) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\t': *out += "\\t"; break;
      case '\r': *out += "\\r"; break;
      default:
        if (code < 0) {
          *out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not UTF-8
        } else if (NeedsEscape(code)) {
          *out += code <= 0xFF ? "\\x" + Hex(code, 2) : "\\u" + Hex(code, 4);
        } else {
          out->append(s.substr(start, i - start));
        }
    }
  }
  *out += '"';
}

// Writes `s` as a literal block scalar whose content lines start at column `indent` + 2 (and are
// therefore 2 deeper than the key or dash at `indent`).
void WriteLiteral(std::string_view s, int indent, std::string* out) {
  *out += '|';
  // Content starting with spaces would be taken for indentation: state the indentation.
  if (s[s.find_first_not_of('\n')] == ' ') *out += '2';
  const size_t trailing_newlines = s.size() - (s.find_last_not_of('\n') + 1);
  if (trailing_newlines == 0) *out += '-';
  if (trailing_newlines > 1) *out += '+';
  *out += '\n';
  if (trailing_newlines > 0) s.remove_suffix(1);  // the last line's own break
  for (size_t start = 0; start <= s.size();) {
    size_t end = s.find('\n', start);
    if (end == std::string_view::npos) end = s.size();
    if (end > start) {
      out->append(indent + 2, ' ');
      out->append(s.substr(start, end - start));
    }
    *out += '\n';
    start = end + 1;
  }
}

// Shortest round-trip form, always with a '.' so that YAML 1.1 readers also see a float.
std::string FormatDouble(double value) {
  if (std::isnan(value)) return ".nan";
  if (std::isinf(value)) return value < 0 ? "-.inf" : ".inf";
  std::string text = Json(value).dump();
  if (text.find('.') == std::string::npos) {
    const size_t exponent = text.find_first_of("eE");
    text.insert(exponent == std::string::npos ? text.size() : exponent, ".0");
  }
  return text;
}

constexpr size_t kMaxImplicitKeyBytes = 1000;

// Writes documents in kubectl's block layout. `indent` is always the column of the enclosing
// key or dash.
class YamlWriter {
 public:
  std::string Take() { return std::move(out_); }

  void Document(const Json& doc) {
    if (doc.is_object() && !doc.empty()) {
      Mapping(doc, 0, false);
    } else if (doc.is_array() && !doc.empty()) {
      Sequence(doc, 0, false);
    } else {
      Scalar(doc, 0);
    }
  }

 private:
  // Entries at column `indent`; with `inline_first` the first one continues the current line
  // (after "- ").
  void Mapping(const Json& map, int indent, bool inline_first) {
    bool first = true;
    for (const auto& [key, value] : map.get_ref<const Json::object_t&>()) {
      if (!first || !inline_first) out_.append(indent, ' ');
      first = false;
      const size_t key_start = out_.size();
      Inline(key, ChooseStyle(key, /*is_key=*/true));
      if (out_.size() - key_start > kMaxImplicitKeyBytes) {
        // YAML limits implicit keys to 1024 characters; longer ones need the explicit form.
        out_.insert(key_start, "? ");
        out_ += '\n';
        out_.append(indent, ' ');
      }
      out_ += ':';
      Value(value, indent, /*after_key=*/true);
    }
  }

  void Sequence(const Json& seq, int indent, bool inline_first) {
    bool first = true;
    for (const Json& item : seq) {
      if (!first || !inline_first) out_.append(indent, ' ');
      first = false;
      out_ += '-';
      Value(item, indent, /*after_key=*/false);
    }
  }

  // The value after "key:" or "-" written at column `indent`.
  void Value(const Json& value, int indent, bool after_key) {
    if (value.is_object() && !value.empty()) {
      out_ += after_key ? '\n' : ' ';
      Mapping(value, indent + 2, !after_key);
    } else if (value.is_array() && !value.empty()) {
      // kubectl does not indent a sequence under a key: the dash counts as indentation.
      out_ += after_key ? '\n' : ' ';
      Sequence(value, after_key ? indent : indent + 2, !after_key);
    } else {
      out_ += ' ';
      Scalar(value, indent);
    }
  }

  // A scalar (or empty collection) and the end of its line.
  void Scalar(const Json& value, int indent) {
    switch (value.type()) {
      case Json::value_t::object: out_ += "{}"; break;
      case Json::value_t::array: out_ += "[]"; break;
      case Json::value_t::boolean: out_ += value.get<bool>() ? "true" : "false"; break;
      case Json::value_t::number_integer:
      case Json::value_t::number_unsigned: out_ += value.dump(); break;
      case Json::value_t::number_float: out_ += FormatDouble(value.get<double>()); break;
      case Json::value_t::string: {
        const std::string& s = value.get_ref<const std::string&>();
        const Style style = ChooseStyle(s, /*is_key=*/false);
        if (style == Style::kLiteral) return WriteLiteral(s, indent, &out_);
        Inline(s, style);
        break;
      }
      case Json::value_t::null:
      case Json::value_t::binary:
      case Json::value_t::discarded: out_ += "null"; break;
    }
    out_ += '\n';
  }

  void Inline(std::string_view s, Style style) {
    switch (style) {
      case Style::kPlain: out_ += s; break;
      case Style::kSingleQuoted: WriteSingleQuoted(s, &out_); break;
      case Style::kDoubleQuoted:
      case Style::kLiteral: WriteDoubleQuoted(s, &out_); break;
    }
  }

  std::string out_;
};

// ---------------------------------------------------------------------------------------------
// JSON

// The offset of the first bracket nested deeper than kMaxNestingDepth, or npos. nlohmann's
// parser has no depth bound, and deep documents would overflow the stack of the emitters.
size_t TooDeepAt(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNestingDepth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string_view::npos;
}

}  // namespace

namespace {
Result<std::vector<Json>> ReadWithYamlCpp(std::string_view text, std::string_view source_name);
}  // namespace

Result<std::vector<Json>> ParseYamlDocuments(std::string_view text, std::string_view source_name) {
  HOP_RETURN_IF_ERROR(CheckYamlText(text, source_name));
  if (std::optional<std::vector<Json>> docs = ReadPlainYaml(text)) return *std::move(docs);
  return ReadWithYamlCpp(text, source_name);
}

std::optional<std::vector<Json>> ReadPlainYaml(std::string_view text) {
  // Where the two readers part on line breaks, yaml-cpp's reading is kept: libyaml reads YAML
  // 1.1, where NEL, LS and PS break lines (in YAML 1.2 they are content), and yaml-cpp reads a
  // CR without an LF after it as content where both versions break the line there.
  for (std::string_view break_1_1 : {"\xC2\x85", "\xE2\x80\xA8", "\xE2\x80\xA9"}) {
    if (text.find(break_1_1) != std::string_view::npos) return std::nullopt;
  }
  for (size_t cr = text.find('\r'); cr != std::string_view::npos; cr = text.find('\r', cr + 1)) {
    if (cr + 1 == text.size() || text[cr + 1] != '\n') return std::nullopt;
  }
  // A byte order mark after the start is content to yaml-cpp, and not to libyaml.
  if (text.find("\xEF\xBB\xBF", 1) != std::string_view::npos) return std::nullopt;
  PlainYamlReader reader(text);
  return reader.Read();
}

Result<std::vector<Json>> ParseYamlDocumentsWithYamlCpp(std::string_view text,
                                                        std::string_view source_name) {
  HOP_RETURN_IF_ERROR(CheckYamlText(text, source_name));
  return ReadWithYamlCpp(text, source_name);
}

namespace {

// ParseYamlDocumentsWithYamlCpp of text already checked.
Result<std::vector<Json>> ReadWithYamlCpp(std::string_view text, std::string_view source_name) {
  std::istringstream in{std::string(text)};
  JsonBuilder builder(text);
  std::vector<Json> docs;
  int document = 0;  // 1-based index of the document being parsed, empty ones included
  try {
    YAML::Parser parser(in);
    int previous_start = -1;
    while (true) {
      ++document;
      if (!parser.HandleNextDocument(builder)) break;
      if (const auto& error = builder.error()) {
        return YamlError(source_name, error->mark, error->message, document);
      }
      // yaml-cpp 0.7 loops forever, yielding empty documents, on some stray characters (a
      // top-level ',' for one): a document that starts where the last one did made no progress.
      const YAML::Mark& start = builder.document_start();
      if (start.pos == previous_start) {
        return YamlError(source_name, start, "unexpected " + builder.CharacterAt(start),
                         document - 1);
      }
      previous_start = start.pos;
      if (std::optional<Json> root = builder.TakeRoot()) docs.push_back(*std::move(root));
    }
  } catch (const YAML::DeepRecursion& e) {
    return YamlError(source_name, e.mark, "nesting too deep", document);
  } catch (const YAML::Exception& e) {
    // A syntax error wins over an error the builder found earlier in the same document: yaml-cpp
    // reports events for broken input (unclosed brackets as mapping keys, say) that would
    // otherwise give a misleading message.
    return YamlError(source_name, e.mark, e.msg, document);
  } catch (const std::exception& e) {
    return Status::Internal(std::string(source_name) + ": reading YAML failed: " + e.what());
  }
  return docs;
}

}  // namespace

std::string EmitYaml(const Json& doc) {
  YamlWriter writer;
  writer.Document(doc);
  return writer.Take();
}

std::string EmitYamlDocuments(const std::vector<Json>& docs) {
  std::string out;
  for (size_t i = 0; i < docs.size(); ++i) {
    if (i > 0) out += "---\n";
    out += EmitYaml(docs[i]);
  }
  return out;
}

Result<Json> ParseJson(std::string_view text, std::string_view source_name) {
  if (const size_t at = TooDeepAt(text); at != std::string_view::npos) {
    return Status::ParseError(WhereOffset(source_name, text, at) + "nesting deeper than " +
                              std::to_string(kMaxNestingDepth) + " levels");
  }
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    // e.byte is the 1-based offset of the last byte read; what() repeats nlohmann's own
    // position, which is replaced by ours.
    const std::string what = e.what();
    const size_t detail = what.find(": ", what.find("parse error"));
    const size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    return Status::ParseError(WhereOffset(source_name, text, offset) +
                              (detail == std::string::npos ? what : what.substr(detail + 2)));
  } catch (const std::exception& e) {
    return Status::Internal(std::string(source_name) + ": reading JSON failed: " + e.what());
  }
}

std::string EmitJson(const Json& doc, int indent) {
  return doc.dump(indent < 0 ? -1 : indent, ' ', /*ensure_ascii=*/false,
                  Json::error_handler_t::replace);
}

}  // namespace hop
