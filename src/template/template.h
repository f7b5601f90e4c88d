// hop's template language: `{{...}}` placeholders in YAML or properties text, filled from an
// Environment. It is the engine behind TableTemplates, JobTemplates and trigger Jobs, with the
// semantics of Hoptimator's engine except that a missing or null variable never renders as text
// and an unknown transform word is an error. docs/templates.md describes the language.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "template/environment.h"

namespace hop::tmpl {

// Why Render skipped a template: the first placeholder, left to right, that could not be used.
struct SkipReason {
  enum class Cause {
    kMissing,      // {{key}}, {{key==v}} or {{key!=v}} whose key is unbound, null or unavailable
    kGuardFailed,  // {{key==v}} or {{key!=v}} whose comparison does not hold
  };
  Cause cause = Cause::kMissing;
  std::string key;
  std::string placeholder;  // as written, from `{{` to `}}`
  uint32_t line = 0;        // of the `{{`, 1-based
  uint32_t column = 0;      // of the `{{`, 1-based, in characters

  // E.g. "variable 'fieldMap' is missing at line 9, column 11".
  std::string ToString() const;
};

// Renders `text` against `env`.
//
// Returns the rendered text; std::nullopt when the template is skipped (a placeholder without a
// default names a missing variable, or a guard does not hold), with the reason in `*why` if
// `why` is not null; a ParseError for an unknown transform word, whatever `env` holds (checked
// before any supplier is called); or the error of a supplier reached by a placeholder without a
// default. Placeholders are resolved left to right and the first one that skips or fails
// decides: suppliers of later placeholders are not called. Each supplier is called at most once
// per call of Render. Text that does not form a placeholder, an unterminated `{{` included, is
// copied as is. Thread-safe for concurrent calls if env's suppliers are.
Result<std::optional<std::string>> Render(std::string_view text, const Environment& env,
                                          SkipReason* why = nullptr);

// Renders `text`, Java properties text such as a TableTemplate's `connector`, as Render does,
// except that each value (after its transforms) is written so that a properties reader
// (common/properties.h) reads it back as it is, as one key or one value: its `\`, `=`, `:`,
// blanks, `#` and `!` escaped with a `\`; its line breaks take the prefix as in Render
// (docs/templates.md, "Values in properties text").
// Returns and fails as Render does.
Result<std::optional<std::string>> RenderProperties(std::string_view text, const Environment& env,
                                                    SkipReason* why = nullptr);

// A placeholder RenderPartial left in place for a later render.
struct Deferred {
  std::string key;
  bool has_default = false;  // {{key:default}}: a later render can do without the key
  uint32_t line = 0;         // of the `{{`, 1-based
  uint32_t column = 0;
};

// Renders what `env` can: like Render, except that a placeholder whose key `env` does not bind
// at all (Environment::Has is false) is copied as written, its prefix included, and listed in
// `*deferred`, so that rendering the result later with those keys bound gives what rendering
// `text` with every key would. Keys bound to null or to an unavailable supplier skip the
// template as in Render.
Result<std::optional<std::string>> RenderPartial(std::string_view text, const Environment& env,
                                                 std::vector<Deferred>* deferred,
                                                 SkipReason* why = nullptr);

// The distinct variable names `text` refers to, in order of first use (guards and placeholders
// with defaults included). Fails exactly when Render fails with a ParseError.
Result<std::vector<std::string>> Placeholders(std::string_view text);

// Checks `text` as a template author would want: the ParseErrors Render reports, and also every
// `{{` that is closed by a `}}` (before any other `{{`) without forming a valid placeholder, such
// as `{{ name! }}` or `{{a:b:c}}`, which Render would copy as literal text. An unterminated `{{`
// is literal text and not an error. OK means that Render reports no syntax error for `text`
// (its suppliers may still fail).
Status CheckSyntax(std::string_view text);

}  // namespace hop::tmpl
