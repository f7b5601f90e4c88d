// The demo databases (jdbc:demodb://): Hoptimator's ADS and PROFILE schemas, with their tables,
// columns and rows built into hop so that the whole loop runs with no system to connect to.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"

namespace hop::catalog {

// The demo schemas a URL names: `jdbc:demodb://names=ads,profile` or `jdbc:demodb://ads`
// (upper-cased; none named means both).
std::vector<std::string> DemoSchemaNames(std::string_view url);

// The tables of demo schema `name` (ADS or PROFILE), with rows; empty for other names. `path`
// prefixes their paths (the Database's catalog and schema).
std::vector<Table> DemoTables(std::string_view name, const std::vector<std::string>& path,
                              std::string_view database);

}  // namespace hop::catalog
