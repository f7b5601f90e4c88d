#include "common/redact.h"

#include <gtest/gtest.h>

namespace hop {
namespace {

TEST(RedactTest, SecretsInUrlsAndConnectionStringsAreRedacted) {
  struct Case {
    const char* in;
    const char* out;
  };
  const Case kCases[] = {
      // Nothing secret: unchanged.
      {"jdbc:demodb://names=ads", "jdbc:demodb://names=ads"},
      {"jdbc:postgresql://db:5432/app?user=hop", "jdbc:postgresql://db:5432/app?user=hop"},
      {"", ""},
      {"password", "password"},
      {"a:b", "a:b"},
      // User information.
      {"postgresql://app:s3cret@db:5432/x", "postgresql://app:<redacted>@db:5432/x"},
      {"jdbc:mysql://root:p@ss@host/db", "jdbc:mysql://root:<redacted>@host/db"},
      {"https://user@host/x", "https://user@host/x"},
      // key=value entries, any case, any separator.
      {"jdbc:postgresql://db/app?user=hop&password=s3cret&ssl=true",
       "jdbc:postgresql://db/app?user=hop&password=<redacted>&ssl=true"},
      {"jdbc:mysql-hoptimator://url=jdbc:mysql://h/d;user=u;PASSWORD=x;y=1",
       "jdbc:mysql-hoptimator://url=jdbc:mysql://h/d;user=u;PASSWORD=<redacted>;y=1"},
      {"ssl.truststore.password=abc other=1", "ssl.truststore.password=<redacted> other=1"},
      {"api_key=k1,token=t2", "api_key=<redacted>,token=<redacted>"},
      {"db_password: hunter2\nuser: me", "db_password: <redacted>\nuser: me"},
      {"url 'x://u:pw@h' and \"password=q\"",
       "url 'x://u:<redacted>@h' and \"password=<redacted>\""},
      // References to a secret kept elsewhere are kept.
      {"password=$(PGPASSWORD)", "password=$(PGPASSWORD)"},
      {"postgresql://app:${PW}@db/x", "postgresql://app:${PW}@db/x"},
      // Already redacted: unchanged.
      {"password=<redacted>", "password=<redacted>"},
      // Quoted keys and values: Flink's WITH options, JSON.
      {"WITH ('connector'='mysql', 'password'='hoptimatorpassword', 'port'='3306')",
       "WITH ('connector'='mysql', 'password'='<redacted>', 'port'='3306')"},
      {"{\"token\":\"abc\\\"d\",\"user\": \"x\"}", "{\"token\":\"<redacted>\",\"user\": \"x\"}"},
      {"password = 'a b c'", "password = '<redacted>'"},
      {"connector = mysql\npassword = hunter2\nport = 1",
       "connector = mysql\npassword = <redacted>\nport = 1"},
      {"password = {{mysql.password}}", "password = {{mysql.password}}"},
      // Not a secret word.
      {"compass=north bypass=1 passenger=3", "compass=north bypass=1 passenger=3"},
      // A key is read with its percent escapes decoded, as libpq reads a URL's query.
      {"jdbc:postgresql://h/db?pass%77ord=ENC4&user=u",
       "jdbc:postgresql://h/db?pass%77ord=<redacted>&user=u"},
      {"x?%70%61%73%73%77%6F%72%64=q&a%zz=1", "x?%70%61%73%73%77%6F%72%64=<redacted>&a%zz=1"},
      // Options of SQL statements: the key quoted or plain, the value a SQL string.
      {"CREATE DATABASE x WITH ('url' 'postgresql://u:pw@h/x', 'password' 'it''s', 'a' 'b')",
       "CREATE DATABASE x WITH ('url' 'postgresql://u:<redacted>@h/x', 'password' '<redacted>', "
       "'a' 'b')"},
      {"WITH (url 'jdbc:local:', DB.Token\n  'tok', \"secret\" 's')",
       "WITH (url 'jdbc:local:', DB.Token\n  '<redacted>', \"secret\" '<redacted>')"},
      {"WITH ('password' '$(PW)', 'token' '')", "WITH ('password' '$(PW)', 'token' '')"},
      {"SELECT 'password' FROM t, token WHERE a = 'x'",
       "SELECT 'password' FROM t, token WHERE a = 'x'"},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(RedactSecrets(c.in), c.out) << c.in;
    EXPECT_EQ(RedactSecrets(RedactSecrets(c.in)), c.out) << c.in;  // idempotent
  }
  EXPECT_TRUE(HoldsRedacted(RedactSecrets("password=x")));
  EXPECT_FALSE(HoldsRedacted("password=x"));
}

}  // namespace
}  // namespace hop
