// libFuzzer target over the template engine: any text renders against a small environment to
// text, a skip or an error (a ParseError for bad syntax, the size bound's InvalidArgument, or
// the failing supplier's error), never a crash or a hang. What renders respects the rendered size
// bound (HOP_MAX_RENDERED_BYTES, set small here so that the bound is reached), and text that
// CheckSyntax accepts never fails to render with a ParseError. RenderPartial without some keys,
// then Render with them, gives what Render gives at once (docs/templates.md).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/limits.h"
#include "template/template.h"

namespace {

constexpr size_t kRenderedLimit = 64 * 1024;

using hop::tmpl::Environment;

// Keys whose values stress the engine: many line breaks (the prefix rule multiplies them), a
// value holding placeholders, quotes for the transforms, a null, a failing and an unavailable
// supplier.
Environment Base() {
  Environment env;
  env.Set("name", "page-views")
      .Set("lines", std::string(64, '\n') + "x")
      .Set("braces", "{{name}} {{hop.open}} }}{{")
      .Set("quotes", "it's \"q\" \\ $x `y`")
      .Set("empty", "")
      .SetNull("nothing")
      .SetMap("map", {{"k", "v"}, {"k2", "two\nlines"}})
      .SetProperties("props", {{"a.b", "1"}, {"c", "x=y"}})
      .SetLazy("failing",
               [] { return hop::Result<std::optional<hop::tmpl::Value>>(hop::Status::Unavailable("down")); })
      .SetLazy("unavailable", [] { return hop::Result<std::optional<hop::tmpl::Value>>(std::nullopt); });
  return env;
}

// The keys the partial render lacks and the full one binds.
Environment Late() {
  Environment env;
  env.Set("late", "L\nL").Set("later", "{{name}}");
  return env;
}

void Fail(const char* what, std::string_view text, const std::string& detail) {
  std::fprintf(stderr, "%s\n--- template (%zu bytes)\n%.*s\n--- detail\n%s\n", what, text.size(),
               static_cast<int>(std::min<size_t>(text.size(), 2000)), text.data(), detail.c_str());
  std::abort();
}

bool Expected(const hop::Status& s) {
  return s.code() == hop::StatusCode::kParse || s.code() == hop::StatusCode::kInvalidArgument ||
         s.code() == hop::StatusCode::kUnavailable;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  hop::Limits limits = hop::CurrentLimits();
  limits.max_rendered_bytes = kRenderedLimit;
  hop::SetLimits(limits);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const Environment partial_env = Base();
  static const Environment full_env = Environment(Base()).Merge(Late());

  const hop::Status syntax = hop::tmpl::CheckSyntax(text);
  auto full = hop::tmpl::Render(text, full_env);
  if (!full.ok()) {
    if (!Expected(full.status())) Fail("unexpected error", text, full.status().ToString());
    if (syntax.ok() && full.status().code() == hop::StatusCode::kParse) {
      Fail("CheckSyntax accepted what Render rejects", text, full.status().ToString());
    }
  } else if (full->has_value() && (*full)->size() > kRenderedLimit) {
    Fail("rendered past the size bound", text, std::to_string((*full)->size()) + " bytes");
  }

  std::vector<hop::tmpl::Deferred> deferred;
  auto partial = hop::tmpl::RenderPartial(text, partial_env, &deferred);
  if (!partial.ok()) {
    if (!Expected(partial.status())) Fail("unexpected error", text, partial.status().ToString());
    return 0;
  }
  if (!partial->has_value()) return 0;
  if ((*partial)->size() > kRenderedLimit) {
    Fail("partial render past the size bound", text, std::to_string((*partial)->size()));
  }
  // The two-step render must agree with the one-step render when neither hit the size bound
  // (the intermediate text can be larger or smaller than the final one) or a supplier error.
  if (!full.ok()) return 0;
  auto second = hop::tmpl::Render(**partial, full_env);
  if (!second.ok()) {
    if (second.status().code() == hop::StatusCode::kInvalidArgument) return 0;
    Fail("rendering a partial render failed", text, second.status().ToString());
  }
  if (second->has_value() != full->has_value() ||
      (second->has_value() && **second != **full)) {
    Fail("partial then full render differs from a full render", text,
         "partial:\n" + **partial + "\n--- two steps:\n" +
             (second->has_value() ? **second : std::string("<skipped>")) + "\n--- one step:\n" +
             (full->has_value() ? **full : std::string("<skipped>")));
  }
  return 0;
}
