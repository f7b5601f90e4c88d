// Render, Placeholders and CheckSyntax over the placeholder scanner: one scan of the text, then
// one pass over its placeholders that copies literal text and substitutions into the output.
#include "template/template.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <unordered_set>
#include <utility>

#include "common/limits.h"
#include "common/strings.h"
#include "template/placeholder.h"
#include "template/value.h"

namespace hop::tmpl {
namespace {

// The formatted values of the keys one render has looked up, so that each supplier runs at
// most once per render.
class Resolver {
 public:
  explicit Resolver(const Environment& env) : env_(env) {}

  // The value of `key`, formatted; std::nullopt if missing; or the supplier's error. The
  // reference stays valid for the resolver's lifetime.
  const Result<std::optional<std::string>>& Get(std::string_view key) {
    for (const auto& [k, v] : cache_) {
      if (k == key) return v;
    }
    return cache_.emplace_back(key, Format(env_.Resolve(key))).second;
  }

 private:
  static Result<std::optional<std::string>> Format(Result<std::optional<Value>> r) {
    if (!r.ok()) return r.status();
    if (!r->has_value()) return std::optional<std::string>();
    return std::optional<std::string>((*r)->Format());
  }

  const Environment& env_;
  // Few keys per template: a linear search beats hashing. A deque keeps references stable.
  std::deque<std::pair<std::string_view, Result<std::optional<std::string>>>> cache_;
};

// The length of the line break that starts at value[i], or 0 if none does. A line break is
// whatever a reader of the rendered text may end a line at: "\r\n" (one break), "\n" and "\r"
// (the properties reader of connectors, common/properties.h, and YAML), and U+0085, U+2028 and
// U+2029 (YAML 1.1, which Kubernetes' YAML reader follows). Treating fewer would let a value
// start a new connector option or YAML line behind the prefix (docs/templates.md).
size_t LineBreakAt(std::string_view value, size_t i) {
  switch (value[i]) {
    case '\n': return 1;
    case '\r': return i + 1 < value.size() && value[i + 1] == '\n' ? 2 : 1;
    case '\xC2': return i + 1 < value.size() && value[i + 1] == '\x85' ? 2 : 0;
    case '\xE2':
      return i + 2 < value.size() && value[i + 1] == '\x80' &&
                     (value[i + 2] == '\xA8' || value[i + 2] == '\xA9')
                 ? 3
                 : 0;
    default: return 0;
  }
}

// Calls on_text(run) for each run of `value` between line breaks and on_break() for each break,
// in order.
template <typename OnText, typename OnBreak>
void SplitAtLineBreaks(std::string_view value, OnText on_text, OnBreak on_break) {
  // The first bytes of the line breaks LineBreakAt knows: most values hold none of them.
  constexpr std::string_view kFirstBytes = "\n\r\xC2\xE2";
  size_t from = 0;
  for (size_t i = value.find_first_of(kFirstBytes); i < value.size();
       i = value.find_first_of(kFirstBytes, i)) {
    const size_t n = LineBreakAt(value, i);
    if (n == 0) {
      ++i;
      continue;
    }
    on_text(value.substr(from, i - from));
    on_break(n);
    i += n;
    from = i;
  }
  on_text(value.substr(from));
}

// The size of AppendWithPrefix(prefix, value): a value with many line breaks under a long prefix
// multiplies the prefix, so the size is known before anything is appended.
size_t PrefixedSize(std::string_view prefix, std::string_view value) {
  size_t size = prefix.size();
  SplitAtLineBreaks(
      value, [&](std::string_view run) { size += run.size(); },
      [&](size_t) { size += prefix.size(); });
  return size;
}

// The error for output that would grow past `limit` at the placeholder opening at `open`.
Status TooLarge(std::string_view text, size_t open, size_t limit) {
  const TextPosition pos = PositionOf(text, open);
  return Status::InvalidArgument(
      fmt::format("the template's output would be larger than {} (HOP_MAX_RENDERED_BYTES) at "
                  "line {}, column {}",
                  FormatByteSize(limit), pos.line, pos.column));
}

// Appends prefix + value, with every line break of value (LineBreakAt) replaced by the prefix.
void AppendWithPrefix(std::string_view prefix, std::string_view value, std::string* out) {
  out->append(prefix);
  SplitAtLineBreaks(
      value, [&](std::string_view run) { out->append(run); }, [&](size_t) { out->append(prefix); });
}

// `value` without its line breaks (LineBreakAt): the concat transform.
std::string WithoutLineBreaks(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  SplitAtLineBreaks(
      value, [&](std::string_view run) { out.append(run); }, [](size_t) {});
  return out;
}

// Appends `value` so that rendering `out` again prints it as it is: every `{{` in it becomes
// `{{hop.open}}`, which renders as `{{`, and so does a `{` that starts it after a `{` that ends
// `out` (text and values never end in a placeholder's `}}`, so that `{` is theirs too).
void AppendInert(std::string_view value, std::string* out) {
  if (!out->empty() && out->back() == '{' && value.starts_with('{')) {
    out->pop_back();
    out->append("{{").append(kOpenKey).append("}}");
    value.remove_prefix(1);
  }
  size_t from = 0;
  for (size_t at = value.find("{{"); at != std::string_view::npos; at = value.find("{{", from)) {
    out->append(value.substr(from, at - from));
    out->append("{{").append(kOpenKey).append("}}");
    from = at + 2;
  }
  out->append(value.substr(from));
}

// `text` with each `$` that Kubernetes' expansion of a container's command, args and env values
// would read as the start of `$$` or `$(NAME)` written `$$`. That expansion, the kubelet's and the
// local runner's alike (docs/runtime.md), happens before any shell or program sees the value, and
// would otherwise put another variable's value (a secret among them) where the value stood, or
// turn its `$$` into `$`; it reads `$$` back as the one `$` written here. A `$` before anything
// else is left alone by it, and kept as it is here.
std::string WithoutExpansion(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '$' && i + 1 < text.size() && (text[i + 1] == '$' || text[i + 1] == '(')) {
      out += '$';
    }
  }
  return out;
}

// Applies the (already validated) transform words in order; returns the transformed text in
// `*scratch`.
// `run`, text without line breaks, as one token of Java properties text that a properties
// reader (common/properties.h) reads back as it is, wherever on a line it stands: each `\` is
// doubled (a `\` ending the line would join the next line to it, and one before a letter would
// be read as an escape), and `=`, `:`, blanks, `#` and `!` get a `\` before them (they would end
// a key, be skipped before a value or start a comment). Escaped, each of them reads as itself in
// a key and in a value alike.
std::string PropertiesToken(std::string_view run) {
  std::string out;
  out.reserve(run.size() + run.size() / 8 + 2);
  for (const char c : run) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '=':
      case ':':
      case ' ':
      case '\t':
      case '\f':
      case '#':
      case '!':
        out += '\\';
        out += c;
        break;
      default: out += c;
    }
  }
  return out;
}

// shellQuote and yamlQuote also write the value past Kubernetes' `$(NAME)` expansion
// (WithoutExpansion), once for the chain: the expansion happens once, however many quotings the
// value is nested in (`shellQuote yamlQuote`, a shell word in a YAML scalar).
void ApplyTransforms(std::string_view transforms, std::string_view value, std::string* scratch) {
  scratch->assign(value);
  bool past_expansion = false;
  const auto once_past_expansion = [&] {
    if (!past_expansion) *scratch = WithoutExpansion(*scratch);
    past_expansion = true;
  };
  ForEachWord(transforms, [&](std::string_view word) {
    Transform t;
    if (!ParseTransform(word, &t)) return;  // the scanner rejected unknown words already
    switch (t) {
      case Transform::kToUpperCase: *scratch = Utf8ToUpper(*scratch); break;
      case Transform::kToLowerCase: *scratch = Utf8ToLower(*scratch); break;
      case Transform::kConcat: *scratch = WithoutLineBreaks(*scratch); break;
      case Transform::kShellQuote:
        *scratch = ShellQuote(*scratch);
        once_past_expansion();
        break;
      case Transform::kYamlQuote:
        *scratch = DoubleQuoteYaml(*scratch);
        once_past_expansion();
        break;
    }
  });
}

std::optional<std::string> Skip(std::string_view text, const Placeholder& p,
                                SkipReason::Cause cause, SkipReason* why) {
  if (why != nullptr) {
    const TextPosition pos = PositionOf(text, p.open);
    why->cause = cause;
    why->key = std::string(p.key);
    why->placeholder = std::string(text.substr(p.open, p.end - p.open));
    why->line = pos.line;
    why->column = pos.column;
  }
  return std::nullopt;
}

}  // namespace

std::string SkipReason::ToString() const {
  switch (cause) {
    case Cause::kMissing:
      return fmt::format("variable '{}' is missing at line {}, column {}", key, line, column);
    case Cause::kGuardFailed:
      return fmt::format("guard {} does not hold at line {}, column {}", placeholder, line, column);
  }
  return "";
}

namespace {

// Renders `text`; `deferred` (not null) makes the render partial, and `properties` escapes the
// text of each value between its line breaks for properties text (PropertiesToken).
Result<std::optional<std::string>> RenderImpl(std::string_view text, const Environment& env,
                                              std::vector<Deferred>* deferred, SkipReason* why,
                                              bool properties) {
  HOP_ASSIGN_OR_RETURN(const std::vector<Placeholder> placeholders,
                       ScanTemplate(text, ScanMode::kRender));
  Resolver resolver(env);
  const size_t limit = CurrentLimits().max_rendered_bytes;
  std::string out;
  out.reserve(std::min(limit, text.size() + text.size() / 2));
  std::string scratch;
  size_t copied = 0;  // text before this offset is in `out` or was replaced
  const bool partial = deferred != nullptr;
  // Text between placeholders. In a partial render it is made inert like values, so that a `{{`
  // it holds, or one it forms with a value, is not a placeholder when the result is rendered
  // again (it is not one now).
  const auto append_text = [&](std::string_view literal) {
    if (partial) {
      AppendInert(literal, &out);
    } else {
      out.append(literal);
    }
  };
  for (const Placeholder& p : placeholders) {
    append_text(text.substr(copied, p.begin - copied));
    if (out.size() > limit) return TooLarge(text, p.begin, limit);
    copied = p.end;
    if (p.key == kOpenKey) {
      // Literal braces: kept for the final render, which prints them.
      if (partial) {
        out.append(text.substr(p.begin, p.end - p.begin));
      } else {
        out.append(p.prefix).append("{{");
      }
      continue;
    }
    if (partial && !env.Has(p.key)) {
      out.append(text.substr(p.begin, p.end - p.begin));
      const TextPosition pos = PositionOf(text, p.open);
      deferred->push_back({std::string(p.key), p.op == Operator::kDefault, pos.line, pos.column});
      continue;
    }
    const Result<std::optional<std::string>>& resolved = resolver.Get(p.key);
    std::string_view value;
    if (!resolved.ok()) {
      // A default stands in for a failing supplier, as for a missing value (compatibility.md §3).
      if (p.op != Operator::kDefault) return resolved.status();
      value = p.operand;
    } else if (!resolved->has_value()) {
      if (p.op != Operator::kDefault) return Skip(text, p, SkipReason::Cause::kMissing, why);
      value = p.operand;
    } else {
      value = **resolved;
    }
    if (p.op == Operator::kEquals || p.op == Operator::kNotEquals) {
      // A guard compares the untransformed value and leaves nothing behind, prefix included.
      if ((value == p.operand) != (p.op == Operator::kEquals)) {
        return Skip(text, p, SkipReason::Cause::kGuardFailed, why);
      }
      continue;
    }
    if (!p.transforms.empty()) {
      ApplyTransforms(p.transforms, value, &scratch);
      value = scratch;
    }
    if (properties) {
      // Line breaks take the prefix as anywhere; the text between them is escaped.
      std::string token;
      SplitAtLineBreaks(
          value, [&](std::string_view run) { token += PropertiesToken(run); },
          [&](size_t) { token += '\n'; });
      if (out.size() + PrefixedSize(p.prefix, token) > limit) return TooLarge(text, p.open, limit);
      AppendWithPrefix(p.prefix, token, &out);
      continue;
    }
    // Checked before appending: a value's line breaks under a long prefix multiply it.
    // AppendInert below adds 10 bytes per `{{` of the value, so at most 10 per `{`.
    const size_t inert =
        partial ? 10 * static_cast<size_t>(std::count(value.begin(), value.end(), '{')) : 0;
    if (out.size() + PrefixedSize(p.prefix, value) + inert > limit) {
      return TooLarge(text, p.open, limit);
    }
    if (!partial) {
      AppendWithPrefix(p.prefix, value, &out);
    } else if (value.find('{') == std::string_view::npos) {
      AppendWithPrefix(p.prefix, value, &out);
    } else {
      // The result is rendered again: the value must come out of that render as it is.
      std::string prefixed;
      AppendWithPrefix(p.prefix, value, &prefixed);
      AppendInert(prefixed, &out);
    }
  }
  append_text(text.substr(copied));
  if (out.size() > limit) return TooLarge(text, copied, limit);
  return std::optional<std::string>(std::move(out));
}

}  // namespace

Result<std::optional<std::string>> Render(std::string_view text, const Environment& env,
                                          SkipReason* why) {
  return RenderImpl(text, env, nullptr, why, false);
}

Result<std::optional<std::string>> RenderProperties(std::string_view text, const Environment& env,
                                                    SkipReason* why) {
  return RenderImpl(text, env, nullptr, why, true);
}

Result<std::optional<std::string>> RenderPartial(std::string_view text, const Environment& env,
                                                 std::vector<Deferred>* deferred, SkipReason* why) {
  std::vector<Deferred> local;
  return RenderImpl(text, env, deferred != nullptr ? deferred : &local, why, false);
}

Result<std::vector<std::string>> Placeholders(std::string_view text) {
  HOP_ASSIGN_OR_RETURN(const std::vector<Placeholder> placeholders,
                       ScanTemplate(text, ScanMode::kRender));
  std::vector<std::string> keys;
  std::unordered_set<std::string_view> seen;
  for (const Placeholder& p : placeholders) {
    if (p.key != kOpenKey && seen.insert(p.key).second) keys.emplace_back(p.key);
  }
  return keys;
}

Status CheckSyntax(std::string_view text) { return ScanTemplate(text, ScanMode::kStrict).status(); }

}  // namespace hop::tmpl
