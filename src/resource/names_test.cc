// Tests for names.h: Hoptimator's canonical names and dependency labels against examples taken
// from Hoptimator, and the Kubernetes name rules against tables of valid and invalid values.
#include "resource/names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hop::resource {
namespace {

TEST(NamesTest, CanonicalizeJoinsCanonicalParts) {
  struct Case {
    std::vector<std::string> parts;
    const char* want;
  };
  // The examples Hoptimator's own tests and deployments use.
  const Case kCases[] = {
      {{"ADS", "AUDIENCE"}, "ads-audience"},
      {{"ads-database", "PAGE_VIEWS$forward-field-order"},
       "ads-database-pageviews-forward-field-order"},
      {{"PROFILE", "COMPANIES$graph-test"}, "profile-companies-graph-test"},
      {{"MYSQL", "testdb", "users$partial"}, "mysql-testdb-users-partial"},
      {{"cronTrigger"}, "crontrigger"},
      {{"testsimple", "my-app"}, "testsimple-my-app"},
      {{"kafka-database", "existing-topic-1"}, "kafka-database-existing-topic-1"},
      {{"ads-catalog-database", "AD_CLICKS"}, "ads-catalog-database-adclicks"},
      {{"LOGICAL", "testevent"}, "logical-testevent"},
      {{"venice", "logical-testevent-nearline-to-online"},
       "venice-logical-testevent-nearline-to-online"},
      {{}, ""},
      {{"", "A"}, "-a"},  // empty parts are joined like any other
  };
  for (const auto& c : kCases) {
    const std::string label = ::testing::PrintToString(c.parts);
    EXPECT_EQ(Canonicalize(c.parts), c.want) << label;
  }
}

TEST(NamesTest, CanonicalizeOnePart) {
  struct Case {
    const char* in;
    const char* want;
  };
  const Case kCases[] = {
      {"cronTrigger", "crontrigger"},
      {"PAGE_VIEWS$forward-field-order", "pageviews-forward-field-order"},
      {"A_B$C.D", "ab-c.d"},  // dots are kept
      {"__", ""},             // underscores vanish entirely
      {"$$", "--"},           // every '$' becomes '-'
      {"", ""},
      {"a b/c:d", "a b/c:d"},  // other characters are kept, nothing is validated
      {"\xc3\x9c"
       "BER",
       "\xc3\x9c"
       "ber"},  // only ASCII letters are lower-cased
      {"ALREADY-canonical-1", "already-canonical-1"},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(Canonicalize(std::string_view(c.in)), c.want) << c.in;
  }
  // No length check: a long name stays long.
  EXPECT_EQ(Canonicalize(std::string(300, 'X')), std::string(300, 'x'));
}

TEST(NamesTest, DependencyIdentifier) {
  struct Case {
    const char* database;
    std::vector<std::string> path;
    const char* want;
  };
  const Case kCases[] = {
      {"ads-database", {"ADS", "PAGE_VIEWS"}, "ads-database_ADS.PAGE_VIEWS"},
      {"kafka-database", {"existing-topic-1"}, "kafka-database_existing-topic-1"},
      {"MYSQL", {"testdb", "users$partial"}, "MYSQL_testdb.users$partial"},
      {"db", {}, "db_"},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(DependencyIdentifier(c.database, c.path), c.want) << c.want;
  }
}

TEST(NamesTest, DependencyLabelKeyIsPrefixedShortSha256) {
  struct Case {
    std::string identifier;
    const char* hash16;  // from `printf %s '<identifier>' | sha256sum | cut -c1-16`
  };
  const Case kCases[] = {
      {"ads-database_ADS.PAGE_VIEWS", "a6252a77b4d8b370"},
      {"kafka-database_existing-topic-1", "ab4cf1085bcacd6f"},
      {"MYSQL_testdb.users$partial", "de9c7bc9b42d8809"},
      {"venice_logical-testevent-nearline-to-online", "18f66a4c003effe2"},
      {"a", "ca978112ca1bbdca"},
      {"", "e3b0c44298fc1c14"},
      {"\xc3\xa9", "4a99557e4033c353"},  // é: the UTF-8 bytes are hashed
  };
  for (const auto& c : kCases) {
    const std::string key = DependencyLabelKey(c.identifier);
    EXPECT_EQ(key, std::string("hoptimator.linkedin.com/depends-on-") + c.hash16) << c.identifier;
    EXPECT_TRUE(ValidateLabelKey(key).ok()) << c.identifier << ": " << key;
  }
}

TEST(NamesTest, DependencyLabelValueIsTruncatedAndTrimmed) {
  struct Case {
    const char* name;
    std::string identifier;
    std::string want;
  };
  const Case kCases[] = {
      {"typical", "ads-database_ADS.PAGE_VIEWS", "ads-database_ADS.PAGE_VIEWS"},
      {"empty", "", ""},
      {"only separators", "-_.-", ""},
      {"trimmed both ends", "_-db_T.X-_", "db_T.X"},
      {"dollar at the end", "MYSQL_testdb.users$", "MYSQL_testdb.users"},
      {"exactly 63", std::string(63, 'a'), std::string(63, 'a')},
      {"64 cut to 63", std::string(64, 'b'), std::string(63, 'b')},
      {"cut then trimmed", std::string(62, 'c') + "-d", std::string(62, 'c')},
      {"cut keeps inner separators", "x" + std::string(61, '.') + "yz",
       "x" + std::string(61, '.') + "y"},
      {"non-ASCII trimmed", "\xc3\xa9t\xc3\xa9", "t"},
      {"inner dollar kept", "a$b", "a$b"},  // not a valid label value; documented
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(DependencyLabelValue(c.identifier), c.want) << c.name;
  }
}

// A rule case: `problem` is nullptr for a valid input, otherwise a fragment the message must hold.
struct RuleCase {
  const char* name;
  std::string input;
  const char* problem;
};

void CheckRule(const char* rule, Status (*validate)(std::string_view), const RuleCase& c) {
  const Status s = validate(c.input);
  if (c.problem == nullptr) {
    EXPECT_TRUE(s.ok()) << rule << " / " << c.name << ": " << s.ToString();
    return;
  }
  ASSERT_FALSE(s.ok()) << rule << " / " << c.name << ": accepted \"" << c.input << "\"";
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << rule << " / " << c.name;
  EXPECT_NE(s.message().find(c.problem), std::string::npos)
      << rule << " / " << c.name << ": want \"" << c.problem << "\" in: " << s.message();
  // Every message names the value it rejects.
  EXPECT_NE(s.message().find("\"" + c.input + "\""), std::string::npos)
      << rule << " / " << c.name << ": " << s.message();
}

TEST(NamesTest, ValidateObjectName) {
  const RuleCase kCases[] = {
      {"one char", "a", nullptr},
      {"digit", "0", nullptr},
      {"dashes inside", "my-app-1", nullptr},
      {"dotted", "example.com", nullptr},
      {"dotted with dashes", "a-b.c-d.e", nullptr},
      {"starts with digit", "1abc", nullptr},
      {"max length", std::string(253, 'a'), nullptr},
      {"long part is fine", std::string(100, 'a') + "." + std::string(100, 'b'), nullptr},
      {"canonical name", "ads-database-pageviews-forward-field-order", nullptr},
      {"empty", "", "is empty"},
      {"too long", std::string(254, 'a'), "is 254 characters long, more than 253"},
      {"upper case", "myApp", "contains 'A' at position 3"},
      {"underscore", "my_app", "contains '_' at position 3"},
      {"slash", "a/b", "contains '/' at position 2"},
      {"space", "a b", "contains ' ' at position 2"},
      {"dollar", "users$partial", "contains '$' at position 6"},
      {"control byte", "a\nb", "contains byte 0x0a at position 2"},
      {"non-ASCII", "caf\xc3\xa9", "contains byte 0xc3 at position 4"},
      {"leading dash", "-a", "starts with '-'"},
      {"trailing dash", "a-", "ends with '-'"},
      {"leading dot", ".a", "starts with '.'"},
      {"trailing dot", "a.", "ends with '.'"},
      {"double dot", "a..b", "has two dots in a row at position 2"},
      {"dash before dot", "a-.b", "has '-' before the '.' at position 3"},
      {"dash after dot", "a.-b", "has '-' after the '.' at position 2"},
  };
  for (const auto& c : kCases) CheckRule("ValidateObjectName", ValidateObjectName, c);
}

TEST(NamesTest, ValidateObjectNameMessage) {
  EXPECT_EQ(ValidateObjectName("My-App").ToString(),
            "Invalid Argument: invalid object name \"My-App\": contains 'M' at position 1; a "
            "DNS-1123 subdomain is at most 253 lower-case letters, digits, '-' and '.', in "
            "dot-separated parts that start and end with a letter or digit (e.g. 'my-name' or "
            "'example.com')");
}

TEST(NamesTest, ValidateDnsLabel) {
  const RuleCase kCases[] = {
      {"one char", "a", nullptr},
      {"digit only", "9", nullptr},
      {"typical namespace", "kube-system", nullptr},
      {"starts with digit", "1st", nullptr},
      {"max length", std::string(63, 'z'), nullptr},
      {"inner double dash", "a--b", nullptr},
      {"empty", "", "is empty"},
      {"too long", std::string(64, 'z'), "is 64 characters long, more than 63"},
      {"dot", "a.b", "contains '.' at position 2"},
      {"upper case", "Default", "contains 'D' at position 1"},
      {"underscore", "a_b", "contains '_' at position 2"},
      {"leading dash", "-ns", "starts with '-'"},
      {"trailing dash", "ns-", "ends with '-'"},
  };
  for (const auto& c : kCases) CheckRule("ValidateDnsLabel", ValidateDnsLabel, c);
}

TEST(NamesTest, ValidateDataKey) {
  const RuleCase kCases[] = {
      {"one char", "a", nullptr},
      {"every kind of character", "-._aZ09", nullptr},
      {"starts with a dot", ".env", nullptr},
      {"starts and ends with '-' and '_'", "-a_", nullptr},
      {"max length", std::string(253, 'K'), nullptr},
      {"empty", "", "is empty"},
      {"too long", std::string(254, 'k'), "is 254 characters long, more than 253"},
      {"space", "a b", "contains ' ' at position 2"},
      {"slash", "dir/file", "contains '/' at position 4"},
      {"colon", "a:b", "contains ':' at position 2"},
      {"one dot", ".", "is '.'"},
      {"two dots", "..", "is '..'"},
      {"starts with two dots", "..data", "starts with '..'"},
  };
  for (const auto& c : kCases) CheckRule("ValidateDataKey", ValidateDataKey, c);
  EXPECT_EQ(ValidateDataKey("a b").ToString(),
            "Invalid Argument: invalid data key \"a b\": contains ' ' at position 2; a data key is "
            "at most 253 letters, digits, '-', '_' and '.', and neither '.' nor '..' nor starting "
            "with '..' (e.g. 'key.name', 'KEY_NAME' or 'key-name')");
}

TEST(NamesTest, ValidateLabelKey) {
  const RuleCase kCases[] = {
      {"plain", "app", nullptr},
      {"upper case name", "MyKey", nullptr},
      {"name with symbols", "a-b_c.d", nullptr},
      {"one char", "x", nullptr},
      {"prefixed", "app.kubernetes.io/name", nullptr},
      {"hoptimator prefix", "hoptimator.linkedin.com/depends-on-a6252a77b4d8b370", nullptr},
      {"prefix without dots", "example/key", nullptr},
      {"name max length", std::string(63, 'n'), nullptr},
      {"prefix max length", std::string(253, 'p') + "/k", nullptr},
      {"empty", "", "name is empty"},
      {"name too long", std::string(64, 'n'), "name is 64 characters long, more than 63"},
      {"prefixed name too long", "a.io/" + std::string(64, 'n'),
       "name is 64 characters long, more than 63"},
      {"prefix too long", std::string(254, 'p') + "/k",
       "prefix is 254 characters long, more than 253"},
      {"empty prefix", "/a", "prefix before '/' is empty"},
      {"empty name", "a.io/", "name after '/' is empty"},
      {"two slashes", "a/b/c", "has more than one '/' (at positions 2 and 4)"},
      {"upper case prefix", "Example.com/a", "prefix contains 'E' at position 1"},
      {"underscore in prefix", "my_org.io/a", "prefix contains '_' at position 3"},
      {"prefix starts with dash", "-a.io/k", "prefix starts with '-'"},
      {"prefix double dot", "a..io/k", "prefix has two dots in a row at position 2"},
      {"name starts with dash", "-a", "name starts with '-'"},
      {"name ends with dot", "a.", "name ends with '.'"},
      {"name starts with underscore", "a.io/_k", "name starts with '_'"},
      {"name bad char", "a.io/k$v", "name contains '$' at position 7"},
      {"space", "a b", "name contains ' ' at position 2"},
  };
  for (const auto& c : kCases) CheckRule("ValidateLabelKey", ValidateLabelKey, c);
}

TEST(NamesTest, ValidateAnnotationKey) {
  const RuleCase kCases[] = {
      {"plain", "description", nullptr},
      {"prefixed", "hoptimator.linkedin.com/sql", nullptr},
      // Kubernetes checks annotation keys lower-cased, so upper case in the prefix is allowed.
      {"upper case prefix", "Example.COM/Key", nullptr},
      {"empty", "", "name is empty"},
      {"two slashes", "a/b/c", "has more than one '/'"},
      {"empty prefix", "/a", "prefix before '/' is empty"},
      {"prefix underscore", "My_Org.io/a", "prefix contains '_' at position 3"},
      {"name bad char", "A.io/k:v", "name contains ':' at position 7"},
      {"name too long", std::string(64, 'N'), "name is 64 characters long, more than 63"},
  };
  for (const auto& c : kCases) CheckRule("ValidateAnnotationKey", ValidateAnnotationKey, c);
  // The message names the key as written, not lower-cased.
  EXPECT_NE(ValidateAnnotationKey("Bad_Org/x").message().find("\"Bad_Org/x\""), std::string::npos);
}

TEST(NamesTest, ValidateLabelValue) {
  const RuleCase kCases[] = {
      {"empty", "", nullptr},
      {"plain", "prod", nullptr},
      {"mixed", "My_Value-1.2", nullptr},
      {"one char", "X", nullptr},
      {"digits", "0123", nullptr},
      {"max length", std::string(63, 'v'), nullptr},
      {"dependency value", "ads-database_ADS.PAGE_VIEWS", nullptr},
      {"too long", std::string(64, 'v'), "is 64 characters long, more than 63"},
      {"slash", "a/b", "contains '/' at position 2"},
      {"dollar", "users$partial", "contains '$' at position 6"},
      {"space", "a b", "contains ' ' at position 2"},
      {"leading dash", "-a", "starts with '-'"},
      {"leading underscore", "_a", "starts with '_'"},
      {"trailing dot", "a.", "ends with '.'"},
      {"only dash", "-", "starts with '-'"},
  };
  for (const auto& c : kCases) CheckRule("ValidateLabelValue", ValidateLabelValue, c);
}

TEST(NamesTest, ValidateHopNameUsesHoptimatorMessages) {
  struct Case {
    const char* name;
    std::string input;
    std::string want;  // the whole message, or "" when valid
  };
  const Case kCases[] = {
      {"plain", "myview", ""},
      {"canonical", "ads-database-pageviews", ""},
      {"one letter", "a", ""},
      {"ends with digit", "v2", ""},
      {"max length", std::string(63, 'a'), ""},
      {"inner double dash", "a--b", ""},
      {"empty", "", "Name is empty."},
      {"too long", std::string(64, 'a'), "Name is too long: " + std::string(64, 'a')},
      {"upper case", "MyView", "Name contains illegal characters: MyView"},
      {"underscore", "my_view", "Name contains illegal characters: my_view"},
      {"dot", "my.view", "Name contains illegal characters: my.view"},
      {"dollar", "t$x", "Name contains illegal characters: t$x"},
      {"starts with digit", "1view", "Name starts with illegal character: 1view"},
      {"starts with dash", "-view", "Name starts with illegal character: -view"},
      {"ends with dash", "view-", "Name ends with illegal character: view-"},
      // The checks run in Hoptimator's order: length before characters before the ends.
      {"too long and illegal", std::string(64, 'A'), "Name is too long: " + std::string(64, 'A')},
      {"illegal and bad start", "-A", "Name contains illegal characters: -A"},
      {"bad start and bad end", "1-", "Name starts with illegal character: 1-"},
  };
  for (const auto& c : kCases) {
    const Status s = ValidateHopName(c.input);
    if (c.want.empty()) {
      EXPECT_TRUE(s.ok()) << c.name << ": " << s.ToString();
    } else {
      EXPECT_EQ(s, Status::InvalidArgument(c.want)) << c.name << ": " << s.ToString();
    }
  }
}

}  // namespace
}  // namespace hop::resource
