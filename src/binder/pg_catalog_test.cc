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

// A table's primary key (a PostgreSQL table's, as discovery reads it) is an index relation, a
// pg_index row with the key's column numbers in key order, and a constraint; a key naming a
// column the table does not have is not shown at all.
TEST(PgCatalogTest, PrimaryKeysAreIndexesAndConstraints) {
  catalog::Catalog cat;
  catalog::Schema pg_schema;
  pg_schema.name = "PG";
  catalog::Table t;
  t.name = "PAIRS";
  t.path = {"PG", "PAIRS"};
  t.row_type.columns.push_back({"B", *sql::ParseDataType("INTEGER NOT NULL")});
  t.row_type.columns.push_back({"A", *sql::ParseDataType("INTEGER NOT NULL")});
  t.primary_key = {"A", "B"};
  t.primary_key_name = "pairs_pkey";
  pg_schema.tables.emplace("PAIRS", t);
  catalog::Table broken = t;
  broken.name = "BROKEN";
  broken.path = {"PG", "BROKEN"};
  broken.primary_key = {"NOSUCH"};
  broken.primary_key_name = "broken_pkey";
  pg_schema.tables.emplace("BROKEN", broken);
  cat.AddSchema(pg_schema);
  auto pg = PgCatalog::Build(cat, [](const catalog::Table&) -> Result<catalog::RowType> {
    return Status::Internal("no views here");
  });
  const PgRelation* pairs = pg->FindRelation("pg.pairs");
  const PgRelation* index = pg->FindRelation("pg.pairs_pkey");
  ASSERT_NE(pairs, nullptr);
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->kind, 'i');
  EXPECT_EQ(index->table_oid, pairs->oid);
  EXPECT_EQ(pairs->index_oid, index->oid);
  EXPECT_EQ(pairs->key, (std::vector<int16_t>{2, 1}));
  EXPECT_EQ(pg->FindRelation("pg.broken_pkey"), nullptr);
  auto indexes = pg->Table("PG_CATALOG", "PG_INDEX");
  ASSERT_NE(indexes, nullptr);
  ASSERT_EQ(indexes->rows->size(), 1u);
  const catalog::Row& row = (*indexes->rows)[0];
  EXPECT_EQ(row[0], std::to_string(index->oid));
  EXPECT_EQ(row[1], std::to_string(pairs->oid));
  EXPECT_EQ(row[4], "true");  // indisprimary
  EXPECT_EQ(row[8], "[2,1]");
  auto constraints = pg->Table("PG_CATALOG", "PG_CONSTRAINT");
  ASSERT_EQ(constraints->rows->size(), 1u);
  EXPECT_EQ((*constraints->rows)[0][1], "pairs_pkey");
  EXPECT_EQ((*constraints->rows)[0][3], "p");
}

}  // namespace
}  // namespace hop::binder
