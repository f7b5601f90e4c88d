// Sources over rows held in memory.
#include "catalog/source.h"

namespace hop::catalog {
namespace {

class RowsCursor : public RowCursor {
 public:
  RowsCursor(std::shared_ptr<const std::vector<Row>> rows, std::vector<ScanConstraint> constraints)
      : rows_(std::move(rows)), constraints_(std::move(constraints)) {}

  Result<bool> Next(Row& row) override {
    while (next_ < rows_->size()) {
      const Row& candidate = (*rows_)[next_++];
      bool match = true;
      for (const ScanConstraint& c : constraints_) {
        const auto& cell = c.column < static_cast<int>(candidate.size())
                               ? candidate[c.column]
                               : std::optional<std::string>();
        if (!cell || *cell != c.value) match = false;
      }
      if (!match) continue;
      row = candidate;
      return true;
    }
    return false;
  }

 private:
  std::shared_ptr<const std::vector<Row>> rows_;
  std::vector<ScanConstraint> constraints_;
  size_t next_ = 0;
};

class RowsTableSource : public TableSource {
 public:
  RowsTableSource(std::shared_ptr<const std::vector<Row>> rows, std::string description)
      : rows_(std::move(rows)), description_(std::move(description)) {}

  std::string Describe() const override { return description_; }
  bool Narrows(int) const override { return true; }
  double EstimatedRows() const override { return static_cast<double>(rows_->size()); }
  Result<std::unique_ptr<RowCursor>> Open(const ScanRequest& request) const override {
    return std::unique_ptr<RowCursor>(std::make_unique<RowsCursor>(rows_, request.constraints));
  }

 private:
  std::shared_ptr<const std::vector<Row>> rows_;
  std::string description_;
};

}  // namespace

std::shared_ptr<const TableSource> RowsSource(std::shared_ptr<const std::vector<Row>> rows,
                                              std::string description) {
  return std::make_shared<RowsTableSource>(std::move(rows), std::move(description));
}

}  // namespace hop::catalog
