// Tests of local databases: which URLs name which files, and the provisioner's create, exists and
// drop on a real file in a temporary state directory.
#include "catalog/local.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

namespace hop::catalog {
namespace {

TEST(LocalTest, URLsNameFilesNeverPaths) {
  struct Case {
    const char* url;
    const char* file;  // null: refused
  };
  const Case kCases[] = {
      {"jdbc:local:", "default"},          {"jdbc:local:sales", "sales"},
      {"jdbc:local:a-b_c9", "a-b_c9"},     {"jdbc:local:../x", nullptr},
      {"jdbc:local:/etc/passwd", nullptr}, {"jdbc:local:Sales", nullptr},
      {"jdbc:local:-x", nullptr},          {"jdbc:local:a b", nullptr},
      {"jdbc:local:x.db", nullptr},        {"jdbc:demodb://", nullptr},
  };
  for (const Case& c : kCases) {
    auto name = LocalFileName(c.url);
    if (c.file == nullptr) {
      EXPECT_FALSE(name.ok()) << c.url;
    } else {
      ASSERT_TRUE(name.ok()) << c.url << ": " << name.status().ToString();
      EXPECT_EQ(*name, c.file) << c.url;
    }
  }
  EXPECT_FALSE(LocalFileName("jdbc:local:" + std::string(64, 'a')).ok());
  EXPECT_EQ(LocalFilePath("/state", "sales"), "/state/local/sales.db");
}

TEST(LocalTest, StorageTypes) {
  struct Case {
    const char* type;
    sql::TypeName storage;
  };
  using T = sql::TypeName;
  const Case kCases[] = {{"BOOLEAN", T::kBigInt},        {"INTEGER", T::kBigInt},
                         {"DECIMAL(18, 4)", T::kBigInt}, {"DOUBLE", T::kDouble},
                         {"VARCHAR(10)", T::kVarchar},   {"TIMESTAMP(6)", T::kBigInt},
                         {"DATE", T::kBigInt},           {"VARBINARY", T::kBytes},
                         {"INTEGER ARRAY", T::kVarchar}, {"ROW(a INTEGER)", T::kVarchar}};
  for (const Case& c : kCases) {
    auto t = ParseColumnType(c.type);
    ASSERT_TRUE(t.ok()) << c.type;
    auto storage = LocalStorageType(*t);
    ASSERT_TRUE(storage.ok()) << c.type;
    EXPECT_EQ(*storage, c.storage) << c.type;
  }
  EXPECT_FALSE(LocalStorageType(*ParseColumnType("DECIMAL(19, 2)")).ok());
}

class LocalProvisionerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hop-local-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    schema_.name = "LOCAL";
    schema_.database = "localdb";
    schema_.adapter = Adapter::kLocal;
    schema_.local_file = "default";
    table_.database = "localdb";
    table_.path = {"LOCAL", "T"};
    table_.row_type.columns = {{"ID", *ParseColumnType("BIGINT NOT NULL")},
                               {"NAME", *ParseColumnType("VARCHAR")}};
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string dir_;
  Schema schema_;
  TableDefinition table_;
};

TEST_F(LocalProvisionerTest, CreatesChecksAndDropsTables) {
  LocalProvisioner p(dir_);
  EXPECT_FALSE(*p.Exists(schema_, table_));
  ASSERT_TRUE(p.Create(schema_, table_).ok());
  EXPECT_TRUE(*p.Exists(schema_, table_));
  // The file is private to the user.
  struct stat st;
  ASSERT_EQ(stat(LocalFilePath(dir_, "default").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  // A table of that name with other columns is not the table this definition wants.
  TableDefinition other = table_;
  other.row_type.columns.push_back({"EXTRA", *ParseColumnType("INTEGER")});
  auto exists = p.Exists(schema_, other);
  ASSERT_FALSE(exists.ok());
  EXPECT_NE(exists.status().message().find("already has a table T with other columns (ID BIGINT "
                                           "NOT NULL, NAME VARCHAR)"),
            std::string::npos)
      << exists.status().ToString();

  ASSERT_TRUE(p.Drop(schema_, table_).ok());
  EXPECT_FALSE(*p.Exists(schema_, table_));
  EXPECT_TRUE(p.Drop(schema_, table_).ok());  // nothing to drop is nothing to do
}

TEST_F(LocalProvisionerTest, RefusesWhatALocalTableCannotHold) {
  LocalProvisioner p(dir_);
  TableDefinition wide = table_;
  wide.row_type.columns.push_back({"D", *ParseColumnType("DECIMAL(30, 2)")});
  EXPECT_FALSE(p.Create(schema_, wide).ok());
  // Nothing was created.
  EXPECT_FALSE(std::filesystem::exists(LocalFilePath(dir_, "default")));
  // Column names SQLite would take for one.
  TableDefinition cased = table_;
  cased.row_type.columns.push_back({"id", *ParseColumnType("INTEGER")});
  auto st = p.Create(schema_, cased);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("cannot have both columns ID and id"), std::string::npos);
}

// A table that another statement made meanwhile is the statement's error (AlreadyExists), not
// the file's being unavailable.
TEST_F(LocalProvisionerTest, ATableMadeMeanwhileAlreadyExists) {
  LocalProvisioner p(dir_);
  ASSERT_TRUE(p.Create(schema_, table_).ok());
  auto st = p.Create(schema_, table_);
  EXPECT_EQ(st.code(), StatusCode::kAlreadyExists) << st.ToString();
  EXPECT_NE(st.message().find("table \"T\" already exists"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace hop::catalog
