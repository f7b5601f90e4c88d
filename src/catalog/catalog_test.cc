#include "catalog/catalog.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <functional>
#include <nlohmann/json.hpp>

#include "catalog/demodb.h"
#include "catalog/postgres.h"
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
      auto created = store_->Create(*r);
      ASSERT_TRUE(created.ok()) << created.status().ToString();
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
       "jdbc:demodb://, jdbc:local:, and the systems whose tables are declared with CREATE TABLE: "
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

// The names and kinds of a catalog's tables and views, schema by schema.
std::string Describe(const Catalog& c) {
  std::string out;
  for (const Schema* s : c.Schemas()) {
    out += s->catalog.empty() ? s->name : s->catalog + "." + s->name;
    out += ":";
    for (const auto& [name, t] : s->tables) {
      out += " " + name + (t.kind == ObjectKind::kTable ? "" : "(view)");
    }
    out += "\n";
  }
  return out;
}

TEST_F(CatalogTest, TheCacheFollowsEveryChangeAsALoadWould) {
  Apply(kDatabases);
  CatalogCache cache(*store_, "default");
  ASSERT_TRUE(cache.Get().ok());
  auto view = [](const std::string& resource, const std::string& name,
                 const std::string& schema) {
    return "apiVersion: hoptimator.linkedin.com/v1alpha1\nkind: View\nmetadata: {name: " +
           resource + "}\nspec: {view: " + name + ", schema: " + schema + ", sql: SELECT 1}\n";
  };
  // Views come and go, including in a schema of their own; a Table arrives; a Database too
  // (which makes the cache load again). After each change the cache equals a fresh load.
  std::vector<std::function<void()>> changes = {
      [&] { Apply(view("v1", "V1", "ADS")); },
      [&] { Apply(view("v2", "V2", "ELSEWHERE")); },
      [&] {
        Apply(R"(
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: iceberg}
spec: {catalog: ICEBERG, schema: WAREHOUSE, url: 'jdbc:iceberg://catalog=http://localhost'}
)");
      },
      [&] {
        Apply(R"(
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Table
metadata: {name: iceberg-events}
spec: {database: iceberg, table: EVENTS, columns: [{name: ID, type: INTEGER}]}
)");
      },
      [&] { ASSERT_TRUE(store_->Delete({{"hoptimator.linkedin.com", "View"}, "default", "v2"}).ok()); },
      [&] {
        auto v = store_->Get({{"hoptimator.linkedin.com", "View"}, "default", "v1"});
        ASSERT_TRUE(v.ok());
        v->mutable_json()["spec"]["materialized"] = true;
        ASSERT_TRUE(store_->Update(*v).ok());
      },
      [&] { ASSERT_TRUE(store_->Delete({{"hoptimator.linkedin.com", "Table"}, "default", "iceberg-events"}).ok()); },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    changes[i]();
    auto cached = cache.Get();
    ASSERT_TRUE(cached.ok()) << cached.status().ToString();
    EXPECT_EQ(Describe(**cached), Describe(Load())) << "after change " << i;
  }
}

// A store that records the lists it is asked for, over a real one.
class ListRecordingStore : public store::Store {
 public:
  explicit ListRecordingStore(store::Store& inner) : inner_(inner) {}
  Result<resource::Resource> Get(const store::ObjectRef& ref) override { return inner_.Get(ref); }
  Result<store::ListResult> List(const store::ListOptions& options) override {
    const std::string kind = options.kind ? options.kind->kind : "*";
    lists.push_back(options.index_key.empty() ? kind + " (all)" : kind + " " + options.index_key);
    return inner_.List(options);
  }
  Result<std::vector<resource::Resource>> Commit(std::vector<store::Write> writes) override {
    return inner_.Commit(std::move(writes));
  }
  std::unique_ptr<store::Watch> StartWatch(const store::WatchOptions& options) override {
    return inner_.StartWatch(options);
  }
  Result<int64_t> Revision() override { return inner_.Revision(); }

  // The lists of every View and Table since the last call.
  std::vector<std::string> TakeTableLists() {
    std::vector<std::string> out;
    for (const std::string& l : lists) {
      if (l.rfind("View ", 0) == 0 || l.rfind("Table ", 0) == 0) out.push_back(l);
    }
    lists.clear();
    return out;
  }

  std::vector<std::string> lists;

 private:
  store::Store& inner_;
};

// Loading reads no table or view; a name reaches the store once, by its index key, whether or
// not it exists; only listings read them all.
TEST_F(CatalogTest, AStatementReadsOnlyTheTablesAndViewsItNames) {
  Apply(kDatabases);
  std::string views;
  for (int i = 0; i < 40; ++i) {
    views += fmt::format(
        "---\napiVersion: hoptimator.linkedin.com/v1alpha1\nkind: View\nmetadata: {{name: "
        "ads-v{0}}}\nspec: {{view: V{0}, schema: ADS, sql: 'SELECT {0}'}}\n",
        i);
  }
  Apply(views);
  Apply(R"(
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: View
metadata: {name: own}
spec: {view: MINE, schema: ELSEWHERE, sql: 'SELECT 2'}
)");
  ListRecordingStore recording(*store_);
  auto loaded = Catalog::Load(recording, "default");
  ASSERT_TRUE(loaded.ok());
  const Catalog& c = *loaded;
  EXPECT_EQ(recording.TakeTableLists(), std::vector<std::string>{});

  auto v7 = c.Resolve({"ADS", "V7"});
  ASSERT_TRUE(v7.ok()) << v7.status().ToString();
  EXPECT_EQ((*v7)->sql, "SELECT 7");
  std::vector<std::string> lists = recording.TakeTableLists();
  ASSERT_EQ(lists.size(), 2u);  // the database's tables of that name, and the schema's views
  for (const std::string& l : lists) EXPECT_EQ(l.find("(all)"), std::string::npos) << l;
  ASSERT_TRUE(c.Resolve({"ADS", "V7"}).ok());
  EXPECT_EQ(recording.TakeTableLists(), std::vector<std::string>{});  // held now

  auto missing = c.Resolve({"ADS", "NOPE"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "Object 'NOPE' not found within 'ADS'");
  EXPECT_EQ(recording.TakeTableLists().size(), 2u);
  EXPECT_FALSE(c.Resolve({"ADS", "NOPE"}).ok());
  EXPECT_EQ(recording.TakeTableLists(), std::vector<std::string>{});

  // A schema only a view names is found by its key too.
  auto mine = c.Resolve({"ELSEWHERE", "MINE"});
  ASSERT_TRUE(mine.ok()) << mine.status().ToString();
  for (const std::string& l : recording.TakeTableLists()) {
    EXPECT_EQ(l.find("(all)"), std::string::npos) << l;
  }
  EXPECT_EQ(c.Resolve({"NOWHERE", "X"}).status().message(), "Schema for NOWHERE.X not found.");
  recording.TakeTableLists();

  // A listing reads everything, once, and what was handed out before stays valid.
  const Table* before = *v7;
  size_t ads = 0;
  for (const Schema* s : c.Schemas()) {
    if (s->name == "ADS" && s->catalog.empty()) ads = s->tables.size();
  }
  EXPECT_EQ(ads, 40u + 3u);  // the views and the demo tables
  EXPECT_EQ(recording.TakeTableLists(),
            (std::vector<std::string>{"Table (all)", "View (all)"}));
  ASSERT_TRUE(c.Resolve({"ADS", "V30"}).ok());
  EXPECT_EQ(*c.Resolve({"ADS", "V7"}), before);
  EXPECT_EQ(before->sql, "SELECT 7");
  c.Schemas();
  EXPECT_EQ(recording.TakeTableLists(), std::vector<std::string>{});
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

namespace hop::catalog {
namespace {

// A discovery that serves tables from a list, counting how often it is asked.
class FakeDiscovery : public TableDiscovery {
 public:
  explicit FakeDiscovery(std::vector<std::string> names) {
    for (auto& n : names) {
      Table t;
      t.name = n;
      t.path = {"FAKE", n};
      tables_.emplace(n, std::move(t));
    }
  }
  Result<const Table*> Find(std::string_view name) const override {
    ++finds;
    if (down) return Status::Unavailable("Database fake: down");
    auto it = tables_.find(std::string(name));
    return it == tables_.end() ? nullptr : &it->second;
  }
  Result<std::vector<const Table*>> List() const override {
    ++lists;
    if (down) return Status::Unavailable("Database fake: down");
    std::vector<const Table*> out;
    for (const auto& [n, t] : tables_) out.push_back(&t);
    return out;
  }
  mutable int finds = 0, lists = 0;
  bool down = false;

 private:
  std::map<std::string, Table> tables_;
};

// The lazy hook: a schema's discovery is asked only when a name misses the tables the catalog
// holds, and by listings, which put the catalog's own first.
TEST(CatalogDiscoveryTest, AskedOnAMissAndByListingsOnly) {
  Catalog cat;
  auto fake = std::make_shared<FakeDiscovery>(std::vector<std::string>{"FOUND", "SHARED"});
  Schema s;
  s.name = "FAKE";
  s.database = "fake";
  s.discovery = fake;
  Table own;
  own.name = "SHARED";
  own.path = {"FAKE", "SHARED"};
  own.resource = "fake-shared";
  s.tables.emplace("SHARED", own);
  cat.AddSchema(std::move(s));
  EXPECT_EQ(fake->finds + fake->lists, 0);

  auto shared = cat.Resolve({"FAKE", "SHARED"});
  ASSERT_TRUE(shared.ok());
  EXPECT_EQ((*shared)->resource, "fake-shared");
  EXPECT_EQ(fake->finds, 0);

  auto found = cat.Resolve({"FAKE", "FOUND"});
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ((*found)->name, "FOUND");
  EXPECT_EQ(fake->finds, 1);

  auto missing = cat.Resolve({"FAKE", "NONE"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "Object 'NONE' not found within 'FAKE'");

  auto tables = cat.TablesOf(*cat.FindSchema({"FAKE"}));
  ASSERT_TRUE(tables.ok());
  ASSERT_EQ(tables->size(), 2u);
  EXPECT_EQ((*tables)[1]->resource, "fake-shared");  // the catalog's own wins
  EXPECT_EQ(fake->lists, 1);

  fake->down = true;
  auto down = cat.Resolve({"FAKE", "OTHER"});
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.status().message(), "Database fake: down");
  EXPECT_FALSE(cat.TablesOf(*cat.FindSchema({"FAKE"})).ok());
  EXPECT_TRUE(cat.Resolve({"FAKE", "SHARED"}).ok());  // what the catalog holds needs no server
}

// Loading a namespace whose PostgreSQL server is nowhere connects to nothing and fails nothing.
TEST_F(CatalogTest, LoadingConnectsToNoServer) {
  Apply(R"(
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: pg}
spec: {schema: PG, url: 'jdbc:postgresql://192.0.2.1:5432/app?connectTimeout=30'}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: pgcat}
spec: {catalog: whole, url: 'jdbc:postgresql://192.0.2.1:5432/app?connectTimeout=30'}
---
apiVersion: hoptimator.linkedin.com/v1alpha1
kind: Database
metadata: {name: bad}
spec: {schema: BAD, url: 'jdbc:postgresql://db:notaport/app'}
)");
  const int attempts = PostgresConnectionAttempts();
  Catalog cat = Load();
  const Schema* pg = cat.FindSchema({"PG"});
  ASSERT_NE(pg, nullptr);
  EXPECT_EQ(pg->adapter, Adapter::kPostgres);
  EXPECT_EQ(pg->remote_schema, "public");
  EXPECT_TRUE(pg->status.ok());
  const Schema* bad = cat.FindSchema({"BAD"});
  ASSERT_NE(bad, nullptr);
  EXPECT_NE(bad->status.message().find("Database bad"), std::string::npos);
  EXPECT_FALSE(cat.Resolve({"BAD", "T"}).ok());
  // Loading tried no connection (which would wait on the unroutable address).
  EXPECT_EQ(PostgresConnectionAttempts(), attempts);
}

}  // namespace
}  // namespace hop::catalog
