#include "catalog/catalog.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "catalog/demodb.h"
#include "resource/yaml.h"
#include "store/sqlite_store.h"

namespace hop::catalog {
namespace {

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hop-catalog-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    store::SqliteStoreOptions opts;
    opts.durable = false;
    store_ = std::move(store::SqliteStore::Open(dir_, opts)).value();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Apply(const std::string& yaml) {
    auto docs = ParseYamlDocuments(yaml, "test");
    ASSERT_TRUE(docs.ok()) << docs.status().ToString();
    for (auto& d : *docs) {
      auto r = resource::Resource::FromJson(d, "test");
      ASSERT_TRUE(r.ok());
      ASSERT_TRUE(store_->Create(*r).ok());
    }
  }
  Catalog Load(const std::string& ns = "default") {
    auto c = Catalog::Load(*store_, ns);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return std::move(c).value();
  }
  std::string dir_;
  std::unique_ptr<store::SqliteStore> store_;
};

constexpr const char* kDatabases = R"(
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: ads-database}
spec: {schema: ADS, url: 'jdbc:demodb://names=ads'}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: profile-database}
spec: {schema: PROFILE, url: 'jdbc:demodb://profile'}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: ads-catalog-database}
spec: {catalog: ads_catalog, schema: ADS, url: 'jdbc:demodb://names=ads'}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: kafka-database}
spec: {schema: KAFKA, url: 'jdbc:kafka://bootstrap.servers=one:9092'}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: broken}
spec: {url: 'jdbc:nosuchsystem://x'}
)";

TEST_F(CatalogTest, DemoDatabasesHaveTheReferenceTables) {
  Apply(kDatabases);
  Catalog c = Load();
  auto members = c.Resolve({"PROFILE", "MEMBERS"});
  ASSERT_TRUE(members.ok()) << members.status().ToString();
  const Table& t = **members;
  EXPECT_EQ(t.database, "profile-database");
  EXPECT_EQ(t.path, (std::vector<std::string>{"PROFILE", "MEMBERS"}));
  ASSERT_EQ(t.row_type.columns.size(), 4u);
  EXPECT_EQ(t.row_type.columns[2].name, "MEMBER_URN");
  EXPECT_EQ(t.row_type.columns[2].type.name, sql::TypeName::kVarchar);
  ASSERT_EQ(t.rows->size(), 3u);
  EXPECT_EQ(*(*t.rows)[2][0], "Charlie");

  auto clicks = c.Resolve({"ADS_CATALOG", "ADS", "AD_CLICKS"});
  ASSERT_TRUE(clicks.ok()) << clicks.status().ToString();
  EXPECT_EQ((*clicks)->path, (std::vector<std::string>{"ADS_CATALOG", "ADS", "AD_CLICKS"}));
  EXPECT_EQ((*clicks)->database, "ads-catalog-database");
  EXPECT_EQ(c.SchemaOfDatabase("kafka-database")->adapter, Adapter::kDeclared);
  EXPECT_TRUE(c.Resolve({"UTIL", "PRINT"}).ok());
}

TEST_F(CatalogTest, ResolutionErrorsUseHoptimatorsMessages) {
  Apply(kDatabases);
  Catalog c = Load();
  struct Case {
    std::vector<std::string> name;
    const char* error;
  };
  const Case kCases[] = {
      {{"NOPE", "T"}, "Catalog Error: Schema for NOPE.T not found."},
      {{"NOCAT", "ADS", "T"}, "Catalog Error: Catalog for NOCAT.ADS.T not found."},
      {{"ADS_CATALOG", "NOPE", "T"}, "Catalog Error: Schema for ADS_CATALOG.NOPE.T not found."},
      {{"ADS", "NOPE"}, "Catalog Error: Object 'NOPE' not found within 'ADS'"},
      {{"PAGE_VIEWS"}, "Catalog Error: Object 'PAGE_VIEWS' not found within 'DEFAULT'"},
      {{"BROKEN", "T"},
       "Invalid Argument: Database broken: unknown URL 'jdbc:nosuchsystem://x' (hop knows "
       "jdbc:demodb://, and the systems whose tables are declared with CREATE TABLE: "
       "jdbc:kafka://, jdbc:venice://, jdbc:mysql-hoptimator://, jdbc:logical://, ...)"},
  };
  for (const auto& c2 : kCases) {
    auto r = c.Resolve(c2.name);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().ToString(), c2.error);
  }
}

TEST_F(CatalogTest, DeclaredTablesAndViewsComeFromTheStore) {
  Apply(kDatabases);
  Apply(R"(
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Table
metadata: {name: kafka-database-existing-topic-1}
spec:
  database: kafka-database
  schema: KAFKA
  table: existing-topic-1
  columns:
  - {name: KEY, type: VARCHAR}
  - {name: VALUE, type: BINARY, nullable: false}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: View
metadata: {name: ads-audience}
spec: {view: AUDIENCE, schema: ADS, sql: 'SELECT 1', materialized: true}
)");
  Catalog c = Load();
  auto topic = c.Resolve({"KAFKA", "existing-topic-1"});
  ASSERT_TRUE(topic.ok()) << topic.status().ToString();
  EXPECT_EQ((*topic)->database, "kafka-database");
  ASSERT_EQ((*topic)->row_type.columns.size(), 2u);
  EXPECT_EQ((*topic)->row_type.columns[1].type.name, sql::TypeName::kBinary);
  EXPECT_EQ((*topic)->row_type.columns[1].type.nullability, sql::Nullability::kNotNull);
  auto view = c.Resolve({"ADS", "AUDIENCE"});
  ASSERT_TRUE(view.ok());
  EXPECT_EQ((*view)->kind, ObjectKind::kMaterializedView);
  EXPECT_EQ((*view)->sql, "SELECT 1");
  // Another namespace sees none of it.
  Catalog other = Load("other");
  EXPECT_FALSE(other.Resolve({"ADS", "PAGE_VIEWS"}).ok());
}

TEST(DemoDbTest, SchemaNamesFromUrls) {
  EXPECT_EQ(DemoSchemaNames("jdbc:demodb://names=ads,profile"),
            (std::vector<std::string>{"ADS", "PROFILE"}));
  EXPECT_EQ(DemoSchemaNames("jdbc:demodb://ads"), std::vector<std::string>{"ADS"});
  EXPECT_EQ(DemoSchemaNames("jdbc:demodb://"), (std::vector<std::string>{"ADS", "PROFILE"}));
  EXPECT_EQ(DemoSchemaNames("jdbc:demodb://names="), (std::vector<std::string>{"ADS", "PROFILE"}));
}

}  // namespace
}  // namespace hop::catalog
