// The Binder facade over Binder::Impl, the errors every bind_*.cc reports (with the statement's
// line and a caret), and Rename. The binder's methods are split by concern: see binder_impl.h.
#include "binder/binder.h"

#include <fmt/format.h>

#include "binder/binder_impl.h"
#include "common/source_error.h"

namespace hop::binder {

std::string QuotedList(const RowType& row) {
  std::string out;
  for (size_t i = 0; i < row.columns.size(); ++i) {
    if (i > 0) out += ", ";
    out += "'" + row.columns[i].name + "'";
  }
  return out;
}

Binder::Binder(const catalog::Catalog& catalog) : impl_(std::make_unique<Impl>(catalog)) {}
Binder::~Binder() = default;
void Binder::SetStatement(const sql::Statement* statement) { impl_->SetStatement(statement); }
const std::vector<const catalog::Table*>& Binder::DirectInputs() const {
  return impl_->DirectInputs();
}
void Binder::SetDefinedView(std::vector<std::string> path) {
  impl_->SetDefinedView(std::move(path));
}
void Binder::SetUser(std::function<std::string()> user) { impl_->SetUser(std::move(user)); }
Result<RelPtr> Binder::BindQuery(const sql::Query& query) { return impl_->Query(query, nullptr); }
Result<RelPtr> Binder::BindQuery(const sql::Query& query,
                                 const std::vector<sql::Identifier>& columns) {
  return impl_->QueryWithColumns(query, columns);
}
Result<BoundInsert> Binder::BindInsert(const sql::InsertStatement& insert) {
  return impl_->Insert(insert);
}
Result<RelPtr> Binder::BindView(const catalog::Table& view) { return impl_->View(view); }

// ---------------------------------------------------------------------------------------------
// Errors

Status Binder::Impl::ErrorCode(StatusCode code, sql::Location loc, std::string_view what) const {
  if (!statement_ || view_stack_.size() > 0) {
    if (!view_stack_.empty()) {
      return Status(code,
                    fmt::format("{} (in view {})", what, view_stack_.back()->QualifiedName()));
    }
    return Status(code, fmt::format("{} at line {}, column {}", what, loc.line, loc.column));
  }
  // Find the byte offset of `loc` in the statement's text, which starts at statement_->loc.
  const std::string& text = statement_->source;
  uint32_t line = statement_->loc.line;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size() && line < loc.line; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  uint32_t first_column = loc.line == statement_->loc.line ? statement_->loc.column : 1;
  size_t offset = line_start + (loc.column >= first_column ? loc.column - first_column : 0);
  return Status(code, FormatSourceError(
                          text, offset, what,
                          {statement_->loc.line, statement_->loc.column, statement_->line_prefix}));
}

Status Binder::Impl::Error(sql::Location loc, std::string_view what) const {
  return ErrorCode(StatusCode::kBind, loc, what);
}

Status Binder::Impl::CheckTargetWidth(size_t columns, sql::Location loc) const {
  if (columns <= kMaxTargetColumns) return Status::OK();
  return Error(loc, fmt::format("target lists can have at most {} entries, and this one has {}",
                                kMaxTargetColumns, columns));
}

// ---------------------------------------------------------------------------------------------

RelPtr Rename(const RelPtr& rel, const std::vector<std::string>& names) {
  bool same = true;
  for (size_t i = 0; i < names.size(); ++i) {
    if (rel->row_type.columns[i].name != names[i]) same = false;
  }
  if (same) return rel;
  if (rel->kind == RelKind::kProject) {
    Rel renamed = *rel;
    for (size_t i = 0; i < names.size(); ++i) renamed.row_type.columns[i].name = names[i];
    return MakeRel(std::move(renamed));
  }
  Rel project;
  project.kind = RelKind::kProject;
  for (size_t i = 0; i < names.size(); ++i) {
    project.exprs.push_back(InputRef(static_cast<int>(i), rel->row_type.columns[i].type));
    project.row_type.columns.push_back({names[i], rel->row_type.columns[i].type});
  }
  project.inputs = {rel};
  return MakeRel(std::move(project));
}

}  // namespace hop::binder
