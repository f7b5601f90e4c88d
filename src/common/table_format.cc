#include "common/table_format.h"

#include <algorithm>

#include "common/strings.h"

namespace hop {

namespace {

// Display width: one per UTF-8 character.
size_t Width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

std::string FormatTable(const std::vector<std::string>& header_text,
                        const std::vector<std::vector<TableCell>>& row_text) {
  static const std::string kNull = "null";
  // Cells hold data users wrote: control characters are escaped before widths are measured.
  std::vector<std::string> header;
  header.reserve(header_text.size());
  for (const auto& h : header_text) header.push_back(EscapeForTerminal(h));
  std::vector<std::vector<TableCell>> rows;
  rows.reserve(row_text.size());
  for (const auto& source : row_text) {
    auto& row = rows.emplace_back();
    row.reserve(source.size());
    for (const auto& cell : source) {
      row.push_back(cell ? TableCell(EscapeForTerminal(*cell)) : std::nullopt);
    }
  }
  std::vector<size_t> widths;
  for (const auto& h : header) widths.push_back(Width(h));
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], Width(row[i] ? *row[i] : kNull));
    }
  }
  std::string rule = "+";
  for (size_t w : widths) rule += std::string(w + 2, '-') + "+";
  rule += '\n';
  auto line = [&](auto cell_at) {
    std::string out = "|";
    for (size_t i = 0; i < widths.size(); ++i) {
      const std::string& text = cell_at(i);
      out += ' ';
      out += text;
      out += std::string(widths[i] - Width(text) + 1, ' ');
      out += '|';
    }
    return out + '\n';
  };
  std::string out = rule;
  out += line([&](size_t i) -> const std::string& { return header[i]; });
  out += rule;
  for (const auto& row : rows) {
    out += line(
        [&](size_t i) -> const std::string& { return i < row.size() && row[i] ? *row[i] : kNull; });
  }
  out += rule;
  out += rows.size() == 1 ? "(1 row)\n" : "(" + std::to_string(rows.size()) + " rows)\n";
  return out;
}

}  // namespace hop
