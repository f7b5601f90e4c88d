// Tests for selector.h: parsing valid and invalid selectors (with exact positions), the matching
// truth table against a fixed set of label maps, and the canonical-text round trip.
#include "resource/selector.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace hop::resource {
namespace {

using Op = LabelSelector::Requirement::Op;

TEST(SelectorTest, ParsesValidSelectorsToCanonicalText) {
  struct Case {
    const char* name;
    std::string text;
    const char* canonical;
  };
  const Case kCases[] = {
      {"empty", "", ""},
      {"only whitespace", " \t\n ", ""},
      {"equals", "a=b", "a=b"},
      {"double equals", "a==b", "a=b"},
      {"not equals", "a!=b", "a!=b"},
      {"spaces around tokens", "  a  =  b  ", "a=b"},
      {"tabs and newlines", "a\t==\nb", "a=b"},
      {"empty value", "a=", "a="},
      {"empty value with double equals", "a==", "a="},
      {"empty not-equals value", "a!=", "a!="},
      {"empty value before comma", "a= ,b", "a=,b"},
      {"exists", "a", "a"},
      {"does not exist", "!a", "!a"},
      {"space after bang", "! a", "!a"},
      {"in", "a in (x,y)", "a in (x,y)"},
      {"in sorts and dedupes", "a in (y,x,y)", "a in (x,y)"},
      {"notin", "a notin (x)", "a notin (x)"},
      {"in without space before paren", "a in(x)", "a in (x)"},
      {"spaces in set", "a  notin  ( x , y )", "a notin (x,y)"},
      {"empty set is the empty value", "a in ()", "a in ()"},
      {"leading empty value", "a in (,x)", "a in (,x)"},
      {"trailing empty value", "a in (x,)", "a in (,x)"},
      {"inner empty value", "a in (x,,y)", "a in (,x,y)"},
      {"sorted by key", "b=1,a=2", "a=2,b=1"},
      {"mixed operators sorted", "x=y,!z,w", "w,x=y,!z"},
      {"same key sorted by operator", "a notin (1),a=1,a", "a=1,a notin (1),a"},
      {"exact duplicate removed", "a=1, a==1", "a=1"},
      {"conflicting kept", "a=1,a=2", "a=1,a=2"},
      {"keywords as key and value", "in=notin", "in=notin"},
      {"keyword key with in", "in in (in,notin)", "in in (in,notin)"},
      {"prefixed key", "example.com/app=web", "example.com/app=web"},
      {"prefixed key in set", "app.kubernetes.io/name in (hop, hoptimator)",
       "app.kubernetes.io/name in (hop,hoptimator)"},
      {"upper case key name and value", "My_Key=Some.Value-1", "My_Key=Some.Value-1"},
      {"dependency label",
       "hoptimator.linkedin.com/depends-on-a6252a77b4d8b370=ads-database_ADS.PAGE_VIEWS",
       "hoptimator.linkedin.com/depends-on-a6252a77b4d8b370=ads-database_ADS.PAGE_VIEWS"},
      {"longest value", "a=" + std::string(63, 'v'), nullptr},
  };
  for (const auto& c : kCases) {
    const Result<LabelSelector> parsed = LabelSelector::Parse(c.text);
    ASSERT_TRUE(parsed.ok()) << c.name << ": " << parsed.status().ToString();
    const std::string want = c.canonical != nullptr ? c.canonical : c.text;
    EXPECT_EQ(parsed->ToString(), want) << c.name;
    EXPECT_EQ(parsed->empty(), want.empty()) << c.name;
  }
}

TEST(SelectorTest, ExposesRequirementsInCanonicalOrder) {
  const Result<LabelSelector> parsed = LabelSelector::Parse("b in (y,x), a!=1, !c, d, e==");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const std::vector<LabelSelector::Requirement> want = {
      {"a", Op::kNotEquals, {"1"}}, {"b", Op::kIn, {"x", "y"}}, {"c", Op::kDoesNotExist, {}},
      {"d", Op::kExists, {}},       {"e", Op::kEquals, {""}},
  };
  ASSERT_EQ(parsed->requirements().size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(parsed->requirements()[i], want[i])
        << "requirement " << i << ": got " << parsed->requirements()[i].ToString() << ", want "
        << want[i].ToString();
  }
  EXPECT_TRUE(LabelSelector().empty());
  EXPECT_EQ(LabelSelector().ToString(), "");
}

TEST(SelectorTest, RejectsInvalidSelectors) {
  struct Case {
    const char* name;
    std::string text;
    const char* what;  // the message after `label selector "<text>": `
  };
  const Case kCases[] = {
      {"lone comma", ",", "expected a label key, found ',' at position 1"},
      {"trailing comma", "a=b,", "expected a label key, found end of input at position 5"},
      {"double comma", "a=b,,c", "expected a label key, found ',' at position 5"},
      {"missing key", "=b", "expected a label key, found '=' at position 1"},
      {"lone bang", "!", "expected a label key after '!', found end of input at position 2"},
      {"bang then paren", "!(a)", "expected a label key after '!', found '(' at position 2"},
      {"not-equals without key", "!=a", "expected a label key, found '!=' at position 1"},
      {"bang with operator", "!a=b", "expected ',' or end of input, found '=' at position 3"},
      {"two words", "a b",
       "expected one of '=', '==', '!=', 'in', 'notin', ',' or end of input, found 'b' at "
       "position 3"},
      {"key then paren", "a (b)",
       "expected one of '=', '==', '!=', 'in', 'notin', ',' or end of input, found '(' at "
       "position 3"},
      {"space in value", "a=b c", "expected ',' or end of input, found 'c' at position 5"},
      {"chained equals", "a=b=c", "expected ',' or end of input, found '=' at position 4"},
      {"triple equals", "a===b",
       "expected a label value, ',' or end of input, found '=' at position 4"},
      {"not double equals", "a!==b",
       "expected a label value, ',' or end of input, found '=' at position 4"},
      {"set after equals", "a=(b)",
       "expected a label value, ',' or end of input, found '(' at position 3"},
      {"in without paren", "a in b", "expected '(' after 'in', found 'b' at position 6"},
      {"notin at end", "a notin", "expected '(' after 'notin', found end of input at position 8"},
      {"unclosed set", "a in (b", "expected ',' or ')', found end of input at position 8"},
      {"unclosed empty set", "a in (",
       "expected a label value, ',' or ')', found end of input at position 7"},
      {"space in set value", "a in (b c)", "expected ',' or ')', found 'c' at position 9"},
      {"nested set", "a in (b,(c))", "expected a label value, ',' or ')', found '(' at position 9"},
      {"extra paren", "a in (b))", "expected ',' or end of input, found ')' at position 9"},
      {"greater than", "a>1",
       "operator '>' is not supported; use one of '=', '==', '!=', 'in', 'notin' at position 2"},
      {"less than", "a < 1",
       "operator '<' is not supported; use one of '=', '==', '!=', 'in', 'notin' at position 3"},
      {"bad key char", "a$=b", "invalid label key \"a$\": name contains '$' at position 2"},
      {"key starts with dash", "x=1, -a", "invalid label key \"-a\": name starts with '-'"},
      {"key with two slashes", "a/b/c", "invalid label key \"a/b/c\": has more than one '/'"},
      {"upper case key prefix", "Example.com/a=b",
       "invalid label key \"Example.com/a\": prefix contains 'E' at position 1"},
      {"bad value", "a=b$", "invalid label value \"b$\": contains '$' at position 2"},
      {"bad value in set", "a in (ok,-x)", "invalid label value \"-x\": starts with '-'"},
      {"value too long", "a=" + std::string(64, 'v'), "is 64 characters long, more than 63"},
  };
  for (const auto& c : kCases) {
    const Result<LabelSelector> parsed = LabelSelector::Parse(c.text);
    ASSERT_FALSE(parsed.ok()) << c.name << ": accepted as " << parsed->ToString();
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument) << c.name;
    const std::string prefix = "label selector \"" + c.text + "\": ";
    const std::string& msg = parsed.status().message();
    EXPECT_EQ(msg.rfind(prefix, 0), 0u) << c.name << ": " << msg;
    EXPECT_NE(msg.find(c.what), std::string::npos)
        << c.name << ": want \"" << c.what << "\" in: " << msg;
  }
}

TEST(SelectorTest, ErrorMessagesExactly) {
  struct Case {
    const char* text;
    const char* want;
  };
  const Case kCases[] = {
      {"a=b,",
       "Invalid Argument: label selector \"a=b,\": expected a label key, found end of input at "
       "position 5"},
      {"a in (b c)",
       "Invalid Argument: label selector \"a in (b c)\": expected ',' or ')', found 'c' at "
       "position 9"},
      {"x, y=1 z",
       "Invalid Argument: label selector \"x, y=1 z\": expected ',' or end of input, found 'z' "
       "at position 8"},
      {"k=v$",
       "Invalid Argument: label selector \"k=v$\": invalid label value \"v$\": contains '$' at "
       "position 2; a label value is empty or at most 63 letters, digits, '-', '_' and '.', "
       "starting and ending with a letter or digit (e.g. 'my_value.1') at position 3"},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(LabelSelector::Parse(c.text).status().ToString(), c.want) << c.text;
  }
}

TEST(SelectorTest, MatchingTruthTable) {
  // The label maps every selector is tried against; `want[i]` is '1' when label map i matches.
  const std::map<std::string, std::string> kLabels[] = {
      {},                        // 0: no labels
      {{"a", "1"}},              // 1
      {{"a", "2"}},              // 2
      {{"a", ""}},               // 3: a present with the empty value
      {{"a", "1"}, {"b", "x"}},  // 4
      {{"b", "x"}},              // 5: a absent, b present
  };
  struct Case {
    const char* selector;
    const char* want;
    const char* why;
  };
  const Case kCases[] = {
      {"", "111111", "the empty selector matches everything"},
      {"a", "011110", "exists, whatever the value, even empty"},
      {"!a", "100001", "does not exist"},
      {"a=1", "010010", "equals needs the key present"},
      {"a==1", "010010", "== is ="},
      {"a!=1", "101101", "absent keys satisfy !="},
      {"a=", "000100", "the empty value is a value"},
      {"a!=", "111011", "absent keys and other values satisfy != the empty value"},
      {"a in (1,2)", "011010", "in needs the key present"},
      {"a notin (1,2)", "100101", "absent keys satisfy notin"},
      {"a in ()", "000100", "() holds the empty value"},
      {"a notin ()", "111011", "() holds the empty value"},
      {"a in (1,)", "010110", "a set with the empty value and 1"},
      {"b notin (x)", "111100", "absent keys satisfy notin"},
      {"a=1,b=x", "000010", "all requirements must hold"},
      {"a=1,!b", "010000", "all requirements must hold"},
      {"a,b", "000010", "both keys present"},
      {"a=1,a=2", "000000", "contradictory requirements match nothing"},
      {"a!=1,b", "000001", "!= is satisfied by absence, exists is not"},
      {"c", "000000", "no map has c"},
      {"!c", "111111", "no map has c"},
      {"a=1,c!=z", "010010", "absent c satisfies !="},
  };
  for (const auto& c : kCases) {
    const Result<LabelSelector> parsed = LabelSelector::Parse(c.selector);
    ASSERT_TRUE(parsed.ok()) << c.selector << ": " << parsed.status().ToString();
    std::string got;
    for (const auto& labels : kLabels) got += parsed->Matches(labels) ? '1' : '0';
    EXPECT_EQ(got, c.want) << "selector \"" << c.selector << "\": " << c.why;
  }
}

TEST(SelectorTest, CanonicalTextRoundTrips) {
  // Each group lists spellings of one selector; all parse to equal selectors, and the canonical
  // text of each parses back to the same selector and prints the same text.
  const std::vector<std::vector<std::string>> kGroups = {
      {"", "  "},
      {"a=1", "a==1", " a = 1 ", "a=1,a==1"},
      {"b in (y,x),a!=1", "a != 1, b in ( x , y , x )", "b in(x,y),a!=1"},
      {"x notin (),!y", "!y, x notin ()"},
      {"k in (,v)", "k in (v,)", "k in (v,,)", "k in (,v,)"},
      {"e=,f", "f, e =", "f,e=="},
      {"in in (notin),notin", "notin,in in(notin)"},
      {"example.com/a,!example.com/b,example.com/c notin (p,q)",
       "example.com/c notin (q,p),!example.com/b,example.com/a"},
  };
  for (const auto& group : kGroups) {
    const Result<LabelSelector> first = LabelSelector::Parse(group.front());
    ASSERT_TRUE(first.ok()) << group.front() << ": " << first.status().ToString();
    for (const auto& text : group) {
      const Result<LabelSelector> parsed = LabelSelector::Parse(text);
      ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status().ToString();
      EXPECT_EQ(*parsed, *first) << "\"" << text << "\" vs \"" << group.front() << "\"";
      const std::string canonical = parsed->ToString();
      const Result<LabelSelector> reparsed = LabelSelector::Parse(canonical);
      ASSERT_TRUE(reparsed.ok()) << text << " -> " << canonical << ": "
                                 << reparsed.status().ToString();
      EXPECT_EQ(*reparsed, *parsed) << text << " -> " << canonical;
      EXPECT_EQ(reparsed->ToString(), canonical) << text;
    }
  }
  // Equality is structural: `a in (1)` selects what `a=1` does but is a different selector.
  EXPECT_FALSE(*LabelSelector::Parse("a=1") == *LabelSelector::Parse("a!=1"));
  EXPECT_FALSE(*LabelSelector::Parse("a in (1)") == *LabelSelector::Parse("a=1"));
}

}  // namespace
}  // namespace hop::resource
