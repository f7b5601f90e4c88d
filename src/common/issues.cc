// Recording and rendering of validation findings.
#include "common/issues.h"

namespace hop {

void Issues::Error(std::string message) { findings_.push_back({true, std::move(message)}); }
void Issues::Warning(std::string message) { findings_.push_back({false, std::move(message)}); }

Issues& Issues::Child(std::string context) {
  children_.push_back(std::make_unique<Issues>(std::move(context)));
  return *children_.back();
}

bool Issues::HasErrors() const {
  for (const auto& f : findings_) {
    if (f.error) return true;
  }
  for (const auto& c : children_) {
    if (c->HasErrors()) return true;
  }
  return false;
}

bool Issues::HasWarnings() const {
  for (const auto& f : findings_) {
    if (!f.error) return true;
  }
  for (const auto& c : children_) {
    if (c->HasWarnings()) return true;
  }
  return false;
}

bool Issues::HasFindingsBelow() const {
  for (const auto& c : children_) {
    if (!c->empty()) return true;
  }
  return false;
}

void Issues::RenderInto(std::string* out, int depth) const {
  const std::string indent(static_cast<size_t>(depth) * 2, ' ');
  for (const auto& f : findings_) {
    *out += indent;
    *out += f.error ? "- ERROR: " : "- WARNING: ";
    *out += f.message;
    *out += '\n';
  }
  for (const auto& c : children_) {
    if (c->empty()) continue;
    *out += indent;
    *out += c->context_;
    *out += ":\n";
    c->RenderInto(out, depth + 1);
  }
}

std::string Issues::Render() const {
  std::string out;
  RenderInto(&out, 0);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

Status Issues::ToStatus(StatusCode code, std::string_view header) const {
  if (!HasErrors()) return Status::OK();
  std::string message(header);
  message += '\n';
  message += Render();
  return Status(code, std::move(message));
}

}  // namespace hop
