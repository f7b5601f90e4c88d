#include "common/table_format.h"

#include <algorithm>

namespace hop {

namespace {

// Display width: one per UTF-8 character.
size_t Width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

std::string FormatTable(const std::vector<std::string>& header,
                        const std::vector<std::vector<TableCell>>& rows) {
  static const std::string kNull = "null";
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
