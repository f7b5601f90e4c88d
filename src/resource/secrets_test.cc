#include "resource/secrets.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace hop::resource {
namespace {

// Secrets are redacted in strings (common/redact.h) and as the values of entries whose keys
// name one, at any depth: maps such as a Table's options, a SqlJob's configs or annotations.
TEST(SecretsTest, RedactsEntriesWhoseKeysNameASecret) {
  struct Case {
    const char* name;
    const char* in;
    const char* want;
  };
  const Case kCases[] = {
      {"a plain key", R"({"options":{"password":"x","user":"u"}})",
       R"({"options":{"password":"<redacted>","user":"u"}})"},
      {"the last word of a dotted or dashed key",
       R"({"configs":{"ssl.truststore.password":"x","secret":"y"},"a":{"db-password":"z"}})",
       R"({"configs":{"ssl.truststore.password":"<redacted>","secret":"<redacted>"},"a":{"db-password":"<redacted>"}})"},
      {"a number", R"({"pin":{"apikey":1234}})", R"({"pin":{"apikey":"<redacted>"}})"},
      {"inside a list", R"([{"token":"t"},{"name":"token"}])",
       R"([{"token":"<redacted>"},{"name":"token"}])"},
      {"references, empty values, objects and booleans stay",
       R"j({"password":"$(PW)","token":"","secret":{"name":"s"},"auth":true,"pass":null})j",
       R"j({"password":"$(PW)","token":"","secret":{"name":"s"},"auth":true,"pass":null})j"},
      {"keys that only contain a secret word stay", R"({"secretName":"s","compass":"c"})",
       R"({"secretName":"s","compass":"c"})"},
      {"strings are redacted as text", R"({"url":"postgresql://u:pw@h/x?pass%77ord=q"})",
       R"({"url":"postgresql://u:<redacted>@h/x?pass%77ord=<redacted>"})"},
      {"a container's env entries whose names name a secret",
       R"j({"env":[{"name":"PGPASSWORD","value":"hunter2"},{"name":"API_KEY","value":"k"},
                  {"name":"USER","value":"app"},{"name":"PASSWORD_FILE","value":"/run/pw"},
                  {"name":"TOKEN","value":"$(T)"},{"name":"SECRET","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}}]})j",
       R"j({"env":[{"name":"PGPASSWORD","value":"<redacted>"},{"name":"API_KEY","value":"<redacted>"},
                  {"name":"USER","value":"app"},{"name":"PASSWORD_FILE","value":"/run/pw"},
                  {"name":"TOKEN","value":"$(T)"},{"name":"SECRET","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}}]})j"},
      {"the argument after a secret option, and one that holds its value",
       R"j({"args":["--password","hunter2","--token","--x","-v","--password=p","--password-file","/p"],
            "command":["sh","-c","psql --password hunter2"]})j",
       R"j({"args":["--password","<redacted>","--token","<redacted>","-v","--password=<redacted>","--password-file","/p"],
            "command":["sh","-c","psql --password <redacted>"]})j"},
  };
  for (const Case& c : kCases) {
    Json doc = Json::parse(c.in);
    const Json before = doc;
    EXPECT_EQ(HoldsSecrets(doc), before != Json::parse(c.want)) << c.name;
    RedactSecretsIn(doc);
    EXPECT_EQ(doc.dump(), Json::parse(c.want).dump()) << c.name;
    EXPECT_FALSE(HoldsSecrets(doc)) << c.name;
    Issues issues;
    RefuseRedacted(doc, "", issues);
    EXPECT_EQ(issues.HasErrors(), before != doc) << c.name;
  }
}

}  // namespace
}  // namespace hop::resource
