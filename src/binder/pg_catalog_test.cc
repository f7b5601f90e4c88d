#include "binder/pg_catalog.h"

#include <gtest/gtest.h>

#include <set>

#include "sql/parser.h"

namespace hop::binder {
namespace {

TEST(PgCatalogTest, NamesAsPostgresClientsWriteThem) {
  struct Case {
    std::string_view hop;
    std::string_view shown;
  };
  constexpr Case kCases[] = {
      {"ORDERS", "orders"}, {"PG_CATALOG", "pg_catalog"}, {"k8s", "k8s"},
      {"MixedCase", "MixedCase"}, {"A1_$", "a1_$"}, {"CAFÉ", "café"}, {"", ""},
  };
  for (const Case& c : kCases) EXPECT_EQ(PgName(c.hop), c.shown) << c.hop;
}

TEST(PgCatalogTest, OidsAreStableAndInTheUserRange) {
  // Fixed values: an OID a client kept must name the same object in the next process.
  EXPECT_EQ(PgOid("relation", "LOCAL.ORDERS"), 2104466589u);
  EXPECT_NE(PgOid("relation", "LOCAL.ORDERS"), PgOid("namespace", "LOCAL.ORDERS"));
  std::set<uint32_t> seen;
  for (int i = 0; i < 2000; ++i) {
    const uint32_t oid = PgOid("relation", "S.T" + std::to_string(i));
    EXPECT_GE(oid, 16384u);
    EXPECT_LT(oid, 2147483648u);
    seen.insert(oid);
  }
  EXPECT_EQ(seen.size(), 2000u);
}

TEST(PgCatalogTest, FindsRelationsOnTheSearchPath) {
  catalog::Catalog cat;
  catalog::Schema ads;
  ads.name = "ADS";
  catalog::Table t;
  t.name = "ORDERS";
  t.path = {"ADS", "ORDERS"};
  t.row_type.columns.push_back({"ID", *sql::ParseDataType("INTEGER NOT NULL")});
  ads.tables.emplace("ORDERS", t);
  cat.AddSchema(ads);
  auto pg = PgCatalog::Build(cat, [](const catalog::Table&) -> Result<catalog::RowType> {
    return Status::Internal("no views here");
  });
  const PgRelation* orders = pg->FindRelation("orders");
  ASSERT_NE(orders, nullptr);
  EXPECT_EQ(orders->oid, PgOid("relation", "ADS.ORDERS"));
  EXPECT_EQ(pg->FindRelation("ads.orders"), orders);
  EXPECT_EQ(pg->FindRelation("\"ADS\".\"ORDERS\""), orders);
  EXPECT_EQ(pg->FindRelation("\"orders\""), nullptr);
  EXPECT_EQ(pg->FindRelation("other.orders"), nullptr);
  EXPECT_EQ(pg->FindRelation(""), nullptr);
  EXPECT_EQ(pg->FindRelation("...\"\"."), nullptr);
  ASSERT_NE(pg->FindRelation("pg_class"), nullptr);
  EXPECT_EQ(pg->RelationDisplayName(*orders), "orders");
  const auto path = pg->SearchPath(true);
  ASSERT_GE(path.size(), 3u);
  EXPECT_EQ(path[0], "pg_catalog");
  EXPECT_EQ(path[1], "default");
  auto attributes = pg->Table("PG_CATALOG", "PG_ATTRIBUTE");
  ASSERT_NE(attributes, nullptr);
  ASSERT_NE(attributes->rows, nullptr);
  bool found = false;
  for (const catalog::Row& r : *attributes->rows) {
    if (r[0] == std::to_string(orders->oid)) {
      found = true;
      EXPECT_EQ(r[1], "id");
      EXPECT_EQ(r[2], "23");
      EXPECT_EQ(r[7], "true");  // attnotnull
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(pg->Table("PG_CATALOG", "PG_NOSUCH"), nullptr);
}

}  // namespace
}  // namespace hop::binder
