#include "common/redact.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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
      // A quoted value goes on as one word: a doubled quote (SQL, YAML), a shell's `'\''`, plain
      // text right after the closing quote, backslash escapes in a plain value.
      {"password='it''s secret' user=x", "password='<redacted>' user=x"},
      {"export PGPASSWORD='it'\\''s secret'; psql", "export PGPASSWORD='<redacted>'; psql"},
      {"token='a b'cd e", "token=<redacted> e"},
      {"token=abc\\ def x", "token=<redacted> x"},
      {"\"password='x'\", \"y\"", "\"password='<redacted>'\", \"y\""},
      {"'password' = 'quoted key' x", "'password' = '<redacted>' x"},
      {"secret=$'x\\'y' z", "secret=$'<redacted>' z"},
      {"{\"cmd\": \"export PGPASSWORD='s3cr'\\\\''et' && psql\", \"x\": 1}",
       "{\"cmd\": \"export PGPASSWORD=<redacted>' && psql\", \"x\": 1}"},
      // The user information of a URL reaches its last `@` before the path, whatever it holds;
      // in a quoted string, blanks and doubled quotes too.
      {"postgresql://u:p;q&r(s)#t?v@h:1/x", "postgresql://u:<redacted>@h:1/x"},
      {"url 'jdbc:postgresql://u:p''q r\"s@h/x', schema 'X'",
       "url 'jdbc:postgresql://u:<redacted>@h/x', schema 'X'"},
      {"{\"url\":\"pg://h:5432\",\"user\":\"me@x\"}",
       "{\"url\":\"pg://h:5432\",\"user\":\"me@x\"}"},
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
      // Env entries whose name names a secret, as a container lists them: YAML block and flow,
      // JSON, the value after or before the name.
      {"env:\n- name: PGPASSWORD\n  value: hunter2\n- name: USER\n  value: app\n",
       "env:\n- name: PGPASSWORD\n  value: <redacted>\n- name: USER\n  value: app\n"},
      {"    - name: DB_TOKEN\n      value: \"hunter 2\" # c\n",
       "    - name: DB_TOKEN\n      value: \"<redacted>\" # c\n"},
      {"- value: 'it''s'\n  name: api_key", "- value: '<redacted>'\n  name: api_key"},
      {"env: [{name: GITHUB_TOKEN, value: hunter 2}, {name: X, value: y}]",
       "env: [{name: GITHUB_TOKEN, value: <redacted>}, {name: X, value: y}]"},
      {"[{\"name\":\"PASSWORD\",\"value\":\"hunter2\"}]",
       "[{\"name\":\"PASSWORD\",\"value\":\"<redacted>\"}]"},
      {"{\n  \"name\": \"AWS_SECRET_ACCESS_KEY\",\n  \"value\": \"hunter2\"\n}",
       "{\n  \"name\": \"AWS_SECRET_ACCESS_KEY\",\n  \"value\": \"<redacted>\"\n}"},
      // Not secrets: a path to one, a reference, valueFrom, a value in another mapping.
      {"- name: PASSWORD_FILE\n  value: /run/secrets/pw",
       "- name: PASSWORD_FILE\n  value: /run/secrets/pw"},
      {"- name: TOKEN_PATH\n  value: /t", "- name: TOKEN_PATH\n  value: /t"},
      {"- name: PGPASSWORD\n  value: $(PW)", "- name: PGPASSWORD\n  value: $(PW)"},
      {"- name: PGPASSWORD\n  valueFrom:\n    secretKeyRef: {name: pg, key: password}",
       "- name: PGPASSWORD\n  valueFrom:\n    secretKeyRef: {name: pg, key: password}"},
      {"- name: PGPASSWORD\n  other:\n    value: x", "- name: PGPASSWORD\n  other:\n    value: x"},
      {"name: token value: x", "name: token value: x"},
      // Options whose value is the next word: a command line, JSON, flow and block YAML lists.
      {"psql --password hunter2 -h db", "psql --password <redacted> -h db"},
      {"run -token 'a b' --db-password=x", "run -token '<redacted>' --db-password=<redacted>"},
      {"psql --password 'it'\\''s' -v", "psql --password '<redacted>' -v"},
      {"args: [\"--password\", \"hunter2\", \"-v\"]",
       "args: [\"--password\", \"<redacted>\", \"-v\"]"},
      {"args: [--api-key, hunter2]", "args: [--api-key, <redacted>]"},
      {"args:\n- --password\n- hunter 2\n- -v\n", "args:\n- --password\n- <redacted>\n- -v\n"},
      {"args:\n  - \"--secret\"\n  - \"s\"", "args:\n  - \"--secret\"\n  - \"<redacted>\""},
      // Not secrets: a file's path, a negation, a reference, a word on the next line, a comment.
      {"--password-file /run/pw --no-password x --token $(T)",
       "--password-file /run/pw --no-password x --token $(T)"},
      {"give --password\nthen run", "give --password\nthen run"},
      {"-- password reset by x", "-- password reset by x"},
      {"a-token b", "a-token b"},
      {"hop serve needs --pg-auth scram-sha-256", "hop serve needs --pg-auth scram-sha-256"},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(RedactSecrets(c.in), c.out) << c.in;
    EXPECT_EQ(RedactSecrets(RedactSecrets(c.in)), c.out) << c.in;  // idempotent
  }
  EXPECT_TRUE(HoldsRedacted(RedactSecrets("password=x")));
  EXPECT_FALSE(HoldsRedacted("password=x"));
}

// A position in the text moves with redaction to the same character of the result (the start of
// the redacted value when it was inside one), through each kind of secret and several at once:
// a caret under a redacted line stays under what it pointed at.
TEST(RedactTest, APositionMovesToTheSameCharacter) {
  struct Case {
    std::string in;
    std::string at;  // the text the position starts, in `in` and in the result
  };
  const Case kCases[] = {
      {"SELECT 'password=hunter2' AS x FROM t WHERE ((", "(("},
      {"SELECT 'password=hunter2' AS x FROM t WHERE ((", "AS x"},
      {"SELECT 'password=hunter2' AS x FROM t WHERE ((", "SELECT"},
      {"postgresql://app:s3cret@db/x and token=abc then", "then"},
      {"WITH ('password' 's3cret', 'url' 'u') AND more", "AND"},
      {"run --password hunter2 --token x2 now", "now"},
      {"env: {name: PGPASSWORD, value: pw} end", "end"},
  };
  for (const Case& c : kCases) {
    size_t position = c.in.find(c.at);
    const std::string out = RedactSecrets(c.in, &position);
    EXPECT_EQ(out.find("hunter2"), std::string::npos) << out;
    EXPECT_EQ(out.compare(position, c.at.size(), c.at), 0)
        << c.in << " -> " << out << " at " << position;
  }
  // Inside a secret: the start of what replaced it.
  const std::string text = "user=app;password=hunter2;x=1";
  size_t inside = text.find("nter");
  EXPECT_EQ(RedactSecrets(text, &inside), "user=app;password=<redacted>;x=1");
  EXPECT_EQ(inside, text.find("hunter2"));
  // The end of the text stays its end.
  size_t end = text.size();
  const std::string out = RedactSecrets(text, &end);
  EXPECT_EQ(end, out.size());
}

// A command line's arguments: the one after a secret option is redacted whatever it holds, and
// each is redacted as text.
TEST(RedactTest, ArgumentsAfterSecretOptionsAreRedacted) {
  struct Case {
    std::vector<std::string> in;
    std::vector<std::string> out;
  };
  const Case kCases[] = {
      {{"psql", "--password", "hunter 2", "-h", "db"},
       {"psql", "--password", "<redacted>", "-h", "db"}},
      {{"x", "-token", "-starts-with-dash"}, {"x", "-token", "<redacted>"}},
      {{"x", "--password=hunter2", "--PGPASSWORD", "y"},
       {"x", "--password=<redacted>", "--PGPASSWORD", "<redacted>"}},
      {{"x", "--password", "$(PW)", "--password-file", "/p", "--no-password", "z"},
       {"x", "--password", "$(PW)", "--password-file", "/p", "--no-password", "z"}},
      {{"--password"}, {"--password"}},
      {{"sh", "-c", "psql --password hunter2"}, {"sh", "-c", "psql --password <redacted>"}},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(RedactArguments(c.in), c.out) << c.in.back();
  }
  struct OptionCase {
    const char* word;
    bool secret;
  };
  const OptionCase kOptions[] = {
      {"--password", true},     {"-token", true},        {"--db-password", true},
      {"--API_KEY", true},      {"--password=x", false}, {"--password-file", false},
      {"--no-password", false}, {"password", false},     {"--", false},
      {"---password", false},   {"--user", false},       {"-p", false},
      {"--pg-auth", false},     {"--auth", false},       {"--auth-token", true},
  };
  for (const OptionCase& c : kOptions) EXPECT_EQ(IsSecretOption(c.word), c.secret) << c.word;
}

}  // namespace
}  // namespace hop
