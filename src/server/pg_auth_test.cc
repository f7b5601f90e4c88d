#include "server/pg_auth.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "common/strings.h"
#include "test/lib/fixtures.h"

namespace hop::server {
namespace {

TEST(PgAuthTest, VerifiersRoundTripAndCheckPasswords) {
  auto v = ScramVerifier::Make("s3cret", 4096);
  ASSERT_TRUE(v.ok());
  auto parsed = ScramVerifier::Parse(v->ToString());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_TRUE(parsed->Matches("s3cret"));
  EXPECT_FALSE(parsed->Matches("s3cret "));
  EXPECT_EQ(v->ToString().find("s3cret"), std::string::npos);
  EXPECT_FALSE(ScramVerifier::Parse("SCRAM-SHA-256$x:abc$def:ghi").ok());
}

TEST(PgAuthTest, Md5IsPostgresqls) {
  // PostgreSQL's pg_authid for user "u", password "p": md5 of "pu".
  EXPECT_EQ(Md5Hash("p", "u"), "md5534b9a3588bdd87bf7c3b9d650e43e46");
}

TEST(PgAuthTest, UsersFileHoldsNoPasswordsAndMustBePrivate) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/users";
  ASSERT_TRUE(AddPgUser(path, "alice", "#pw1").ok());
  ASSERT_TRUE(AddPgUser(path, "bob", "#pw2").ok());
  ASSERT_TRUE(AddPgUser(path, "alice", "#pw3").ok());  // replaces
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find("#pw"), std::string::npos);  // no base64 or hex holds a #
  auto users = PgUsers::Load(path);
  ASSERT_TRUE(users.ok()) << users.status().ToString();
  ASSERT_NE(users->Find("alice"), nullptr);
  EXPECT_TRUE(users->Find("alice")->scram->Matches("#pw3"));
  EXPECT_EQ(users->Find("bob")->md5, Md5Hash("#pw2", "bob"));
  EXPECT_EQ(users->Find("carol"), nullptr);
  chmod(path.c_str(), 0644);
  EXPECT_FALSE(PgUsers::Load(path).ok());
  EXPECT_EQ(PgUsers::Parse("alice hunter2\n", "f").status().message(),
            "f, line 1: a verifier is SCRAM-SHA-256$... or md5 and 32 hex digits (never a "
            "password)");
  EXPECT_FALSE(AddPgUser(path, "a b", "x").ok());
  const Status empty = AddPgUser(path, "", "x");
  EXPECT_EQ(empty.message(), "a user name cannot be empty");
}

// Users added at once all land (each add reads and replaces the file under its directory's lock),
// and a users file that cannot be read is an error, not a file written anew without its users.
TEST(PgAuthTest, UsersAddedAtOnceAreAllKept) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/users";
  std::vector<std::thread> adders;
  std::atomic<int> failed{0};
  for (int i = 0; i < 12; ++i) {
    adders.emplace_back([&, i] {
      if (!AddPgUser(path, "user" + std::to_string(i), "pw" + std::to_string(i)).ok()) ++failed;
    });
  }
  for (auto& t : adders) t.join();
  EXPECT_EQ(failed, 0);
  auto users = PgUsers::Load(path);
  ASSERT_TRUE(users.ok()) << users.status().ToString();
  for (int i = 0; i < 12; ++i) {
    const PgUser* u = users->Find("user" + std::to_string(i));
    ASSERT_NE(u, nullptr) << i;
    EXPECT_EQ(u->md5, Md5Hash("pw" + std::to_string(i), "user" + std::to_string(i)));
  }
  const std::string unreadable = dir.path() + "/a-directory";
  std::filesystem::create_directory(unreadable);
  EXPECT_FALSE(AddPgUser(unreadable, "alice", "pw").ok());
  EXPECT_TRUE(std::filesystem::is_directory(unreadable));
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
  }
}

TEST(PgAuthTest, ScramRefusesAWrongProof) {
  auto v = ScramVerifier::Make("right");
  ScramExchange ex(&*v);
  auto first = ex.First("n,,n=,r=abc");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  const std::string nonce = first->substr(2, first->find(',') - 2);
  auto final = ex.Final("c=biws,r=" + nonce + ",p=" + Base64Encode(std::string(32, 'x')));
  EXPECT_FALSE(final.ok());
  ScramExchange bad(&*v);
  EXPECT_FALSE(bad.First("p=tls-server-end-point,,n=,r=abc").ok());
  EXPECT_FALSE(bad.First("garbage").ok());
}

}  // namespace
}  // namespace hop::server
