// The result formats (output.h).
#include "engine/output.h"

#include <algorithm>
#include <vector>

#include "common/json_text.h"
#include "common/strings.h"
#include "engine/functions_impl.h"

namespace hop::engine {

namespace {

constexpr size_t kFlushBytes = 64 * 1024;
constexpr size_t kSizingRows = 1000;

size_t Width(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

void Pad(std::string& out, size_t n) { out.append(n, ' '); }

struct Row {
  std::vector<std::string> cells;
};

class Aligned {
 public:
  Aligned(const Cursor& cursor, bool boxed) : cursor_(cursor), boxed_(boxed) {
    for (const auto& n : cursor.names()) widths_.push_back(Width(n));
    for (const auto& r : cursor.reps()) right_.push_back(r.numeric());
  }

  // A row: held while the columns are being sized, written once they are.
  void Add(const std::vector<std::string>& cells) {
    if (!started_) {
      for (size_t i = 0; i < cells.size() && i < widths_.size(); ++i) {
        widths_[i] = std::max(widths_[i], Width(cells[i]));
      }
      held_.push_back({cells});
      return;
    }
    Line(cells, false);
  }
  bool sizing() const { return !started_ && held_.size() < kSizingRows; }
  // Writes the header and the rows held so far; later rows are written as they come.
  void Start() {
    if (started_) return;
    started_ = true;
    if (boxed_) out_ += Rule();
    Line(cursor_.names(), true);
    out_ += Rule();
    for (auto& r : held_) Line(r.cells, false);
    held_.clear();
  }
  void End(int64_t rows) {
    Start();
    if (boxed_) out_ += Rule();
    out_ += rows == 1 ? "(1 row)\n" : "(" + std::to_string(rows) + " rows)\n";
  }
  std::string& out() { return out_; }

 private:
  std::string Rule() const {
    std::string r = boxed_ ? "+" : "";
    for (size_t i = 0; i < widths_.size(); ++i) {
      r.append(widths_[i] + 2, '-');
      r += boxed_ || i + 1 < widths_.size() ? "+" : "";
    }
    return r + "\n";
  }
  void Line(const std::vector<std::string>& cells, bool header) {
    if (boxed_) out_ += '|';
    for (size_t i = 0; i < widths_.size(); ++i) {
      const std::string_view text =
          i < cells.size() ? std::string_view(cells[i]) : std::string_view();
      const size_t w = Width(text);
      const size_t pad = widths_[i] > w ? widths_[i] - w : 0;
      out_ += ' ';
      if (right_[i] && !header) {
        Pad(out_, pad);
        out_ += text;
      } else {
        out_ += text;
        if (boxed_ || i + 1 < widths_.size()) Pad(out_, pad);
      }
      if (boxed_) {
        out_ += " |";
      } else if (i + 1 < widths_.size()) {
        out_ += " |";
      }
    }
    out_ += '\n';
  }

  const Cursor& cursor_;
  bool boxed_;
  std::vector<size_t> widths_;
  std::vector<bool> right_;
  std::vector<Row> held_;
  bool started_ = false;
  std::string out_;
};

void Csv(std::string_view text, std::string& out) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += text;
    return;
  }
  out += '"';
  for (char c : text) {
    out += c;
    if (c == '"') out += '"';
  }
  out += '"';
}

void Tsv(std::string_view text, std::string& out) {
  for (char c : text) {
    switch (c) {
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      default: out += c;
    }
  }
}

}  // namespace

bool ParseOutputFormat(std::string_view name, OutputFormat* out) {
  static constexpr std::pair<std::string_view, OutputFormat> kNames[] = {
      {"table", OutputFormat::kTable},
      {"mysql", OutputFormat::kMysql},
      {"csv", OutputFormat::kCsv},
      {"tsv", OutputFormat::kTsv},
      {"json", OutputFormat::kJson}};
  for (const auto& [n, f] : kNames) {
    if (EqualsIgnoreCase(n, name)) {
      *out = f;
      return true;
    }
  }
  return false;
}

std::string_view OutputFormatName(OutputFormat format) {
  switch (format) {
    case OutputFormat::kTable: return "table";
    case OutputFormat::kMysql: return "mysql";
    case OutputFormat::kCsv: return "csv";
    case OutputFormat::kTsv: return "tsv";
    case OutputFormat::kJson: return "json";
  }
  return "table";
}

Result<int64_t> WriteResult(Cursor& cursor, OutputFormat format, std::string& out,
                            const std::function<void(std::string&)>& flush) {
  const size_t n = cursor.names().size();
  auto maybe_flush = [&](std::string& buffer) {
    if (buffer.size() >= kFlushBytes && flush) flush(buffer);
  };
  if (format == OutputFormat::kTable || format == OutputFormat::kMysql) {
    Aligned table(cursor, format == OutputFormat::kMysql);
    std::vector<std::string> cells(n);  // the current row's, reused
    Status failed;
    for (;;) {
      auto more = cursor.Next();
      if (!more.ok()) {
        failed = more.status();
        break;
      }
      if (!*more) break;
      for (size_t i = 0; i < n; ++i) {
        cells[i].clear();
        cursor.AppendText(static_cast<int>(i), cells[i]);
      }
      table.Add(cells);
      if (!table.sizing()) table.Start();
      if (table.out().size() >= kFlushBytes) {
        out += table.out();
        table.out().clear();
        maybe_flush(out);
      }
    }
    if (failed.ok()) {
      table.End(cursor.rows());
    } else if (cursor.rows() > 0) {
      table.Start();  // the rows before the failure
    }
    out += table.out();
    if (!failed.ok()) return failed;
    return cursor.rows();
  }
  if (format == OutputFormat::kCsv || format == OutputFormat::kTsv) {
    const bool csv = format == OutputFormat::kCsv;
    for (size_t i = 0; i < n; ++i) {
      if (i > 0) out += csv ? ',' : '\t';
      csv ? Csv(cursor.names()[i], out) : Tsv(cursor.names()[i], out);
    }
    out += '\n';
    std::string cell;
    for (;;) {
      HOP_ASSIGN_OR_RETURN(bool more, cursor.Next());
      if (!more) break;
      for (size_t i = 0; i < n; ++i) {
        if (i > 0) out += csv ? ',' : '\t';
        if (cursor.IsNull(static_cast<int>(i))) continue;
        cell.clear();
        cursor.AppendText(static_cast<int>(i), cell);
        csv ? Csv(cell, out) : Tsv(cell, out);
      }
      out += '\n';
      maybe_flush(out);
    }
    return cursor.rows();
  }
  // JSON.
  out += "[";
  for (;;) {
    HOP_ASSIGN_OR_RETURN(bool more, cursor.Next());
    if (!more) break;
    out += cursor.rows() == 1 ? "\n{" : ",\n{";
    for (size_t i = 0; i < n; ++i) {
      if (i > 0) out += ',';
      AppendJsonString(cursor.names()[i], out);
      out += ':';
      internal::AppendJson(cursor.GetValue(static_cast<int>(i)), cursor.reps()[i], out);
    }
    out += '}';
    maybe_flush(out);
  }
  out += cursor.rows() == 0 ? "]\n" : "\n]\n";
  return cursor.rows();
}

}  // namespace hop::engine
