// A tree of validation findings. Validators record errors and warnings under nested contexts
// ("document 2 (Database/x)" > "spec.url") and the verdict becomes one Status whose message is
// the rendered tree, so a user sees every problem at once rather than the first.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace hop {

class Issues {
 public:
  Issues() = default;
  explicit Issues(std::string context) : context_(std::move(context)) {}
  Issues(Issues&&) noexcept = default;
  Issues& operator=(Issues&&) noexcept = default;

  void Error(std::string message);
  void Warning(std::string message);
  // A nested context; findings recorded there render indented under `context`. The returned
  // reference stays valid for the lifetime of this object.
  Issues& Child(std::string context);

  bool HasErrors() const;
  bool HasWarnings() const;
  bool empty() const { return findings_.empty() && !HasFindingsBelow(); }

  // The tree as indented text: "- ERROR: ..." / "- WARNING: ..." lines under "context:" lines.
  // Contexts without findings are left out.
  std::string Render() const;
  // OK when there are no errors; otherwise a Status of `code` whose message is `header`, a
  // newline and the rendered tree.
  Status ToStatus(StatusCode code, std::string_view header) const;

 private:
  struct Finding {
    bool error;
    std::string message;
  };
  bool HasFindingsBelow() const;
  void RenderInto(std::string* out, int depth) const;

  std::string context_;
  std::vector<Finding> findings_;
  std::vector<std::unique_ptr<Issues>> children_;
};

}  // namespace hop
