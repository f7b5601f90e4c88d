// The demo data: every column VARCHAR, the rows of Hoptimator's demo databases.
#include "catalog/demodb.h"

#include "catalog/source.h"
#include "common/strings.h"

namespace hop::catalog {
namespace {

struct DemoTable {
  const char* name;
  std::vector<const char*> columns;
  std::vector<std::vector<const char*>> rows;
};

const std::vector<DemoTable>& Ads() {
  static const std::vector<DemoTable> tables = {
      {"PAGE_VIEWS",
       {"PAGE_URN", "MEMBER_URN"},
       {{"urn:li:page:10000", "urn:li:member:123"}, {"urn:li:page:10001", "urn:li:member:456"}}},
      {"AD_CLICKS",
       {"CAMPAIGN_URN", "MEMBER_URN"},
       {{"urn:li:campaign:100", "urn:li:member:456"},
        {"urn:li:campaign:101", "urn:li:member:789"}}},
      {"CAMPAIGNS",
       {"CAMPAIGN_URN", "COMPANY_URN"},
       {{"urn:li:campaign:100", "urn:li:company:microsoft"},
        {"urn:li:campaign:101", "urn:li:company:microsoft"}}},
  };
  return tables;
}

const std::vector<DemoTable>& Profile() {
  static const std::vector<DemoTable> tables = {
      {"MEMBERS",
       {"FIRST_NAME", "LAST_NAME", "MEMBER_URN", "COMPANY_URN"},
       {{"Alice", "Addison", "urn:li:member:123", "urn:li:company:linkedin"},
        {"Bob", "Baker", "urn:li:member:456", "urn:li:company:linkedin"},
        {"Charlie", "Chapman", "urn:li:member:789", "urn:li:company:microsoft"}}},
      {"COMPANIES",
       {"COMPANY_NAME", "COMPANY_URN"},
       {{"LinkedIn", "urn:li:company:linkedin"}, {"Microsoft", "urn:li:company:microsoft"}}},
  };
  return tables;
}

}  // namespace

std::vector<std::string> DemoSchemaNames(std::string_view url) {
  constexpr std::string_view kPrefix = "jdbc:demodb://";
  std::string_view rest = url.substr(url.rfind(kPrefix, 0) == 0 ? kPrefix.size() : 0);
  if (size_t p = rest.find("names="); p != std::string_view::npos) {
    rest = rest.substr(p + 6);
    rest = rest.substr(0, rest.find(';'));
  }
  std::vector<std::string> names;
  size_t begin = 0;
  while (begin <= rest.size()) {
    size_t comma = rest.find(',', begin);
    std::string_view part = TrimWhitespace(
        rest.substr(begin, comma == std::string_view::npos ? rest.npos : comma - begin));
    if (!part.empty()) names.push_back(AsciiToUpper(part));
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  if (names.empty()) names = {"ADS", "PROFILE"};
  return names;
}

std::vector<Table> DemoTables(std::string_view name, const std::vector<std::string>& path,
                              std::string_view database) {
  const std::vector<DemoTable>* demo = nullptr;
  if (name == "ADS") demo = &Ads();
  if (name == "PROFILE") demo = &Profile();
  std::vector<Table> out;
  if (!demo) return out;
  for (const auto& d : *demo) {
    Table t;
    t.name = d.name;
    t.path = path;
    t.path.push_back(d.name);
    t.database = std::string(database);
    for (const char* c : d.columns) {
      t.row_type.columns.push_back({c, sql::DataType(sql::TypeName::kVarchar)});
    }
    auto rows = std::make_shared<std::vector<Row>>();
    for (const auto& r : d.rows) {
      Row row;
      for (const char* v : r) row.emplace_back(v);
      rows->push_back(std::move(row));
    }
    t.source = RowsSource(rows, "demodb: rows built into hop");
    t.rows = std::move(rows);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace hop::catalog
