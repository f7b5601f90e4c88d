// Results as text tables in the layout of the MySQL client (and of Hoptimator's scripts):
//
//   +------------+-----------+
//   | FIRST_NAME | LAST_NAME |
//   +------------+-----------+
//   | Alice      | Addison   |
//   +------------+-----------+
//   (1 row)
//
// Cells are left-aligned and padded to the widest value of their column, counted in characters;
// NULL is written `null`. Control characters in cells are escaped (EscapeForTerminal).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace hop {

using TableCell = std::optional<std::string>;

std::string FormatTable(const std::vector<std::string>& header,
                        const std::vector<std::vector<TableCell>>& rows);

}  // namespace hop
