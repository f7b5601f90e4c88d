#include "template/environment.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "template/template.h"

namespace hop::tmpl {
namespace {

// A supplier that counts its calls and returns `value` (std::nullopt: "not available").
Supplier Counting(std::shared_ptr<int> calls, std::optional<std::string> value) {
  return [calls, value]() -> Result<std::optional<Value>> {
    ++*calls;
    if (!value) return std::optional<Value>();
    return std::optional<Value>(Value::String(*value));
  };
}

// The formatted value of `key`, "<missing>" or "<error: ...>".
std::string Show(const Environment& env, std::string_view key) {
  auto r = env.Resolve(key);
  if (!r.ok()) return "<error: " + r.status().ToString() + ">";
  if (!r->has_value()) return "<missing>";
  return (*r)->Format();
}

TEST(EnvironmentTest, LaterBindingsWin) {
  struct Case {
    const char* name;
    std::function<void(Environment&)> build;
    const char* key;
    const char* want;
  };
  const Case kCases[] = {
      {"unbound", [](Environment&) {}, "a", "<missing>"},
      {"string", [](Environment& e) { e.Set("a", "1"); }, "a", "1"},
      {"empty string", [](Environment& e) { e.Set("a", ""); }, "a", ""},
      {"set twice", [](Environment& e) { e.Set("a", "1").Set("a", "2"); }, "a", "2"},
      {"null hides a value", [](Environment& e) { e.Set("a", "1").SetNull("a"); }, "a",
       "<missing>"},
      {"value after null", [](Environment& e) { e.SetNull("a").Set("a", "3"); }, "a", "3"},
      {"map",
       [](Environment& e) {
         e.SetMap("a", {{"k", "v"}});
       },
       "a", "{k: v}"},
      {"properties",
       [](Environment& e) {
         e.SetProperties("a", {{"k", "v"}});
       },
       "a", "k: 'v'"},
      {"map replaced by string", [](Environment& e) { e.SetMap("a", {}).Set("a", "s"); }, "a", "s"},
      {"set all, later duplicate wins",
       [](Environment& e) {
         e.SetAll({{"a", "1"}, {"b", "2"}, {"a", "3"}});
       },
       "a", "3"},
      {"lazy", [](Environment& e) { e.SetLazy("a", [] { return Value::String("l"); }); }, "a", "l"},
      {"lazy replaced by value",
       [](Environment& e) { e.SetLazy("a", [] { return Value::String("l"); }).Set("a", "v"); }, "a",
       "v"},
      {"lazy unavailable",
       [](Environment& e) {
         e.SetLazy("a", []() -> Result<std::optional<Value>> { return std::nullopt; });
       },
       "a", "<missing>"},
      {"lazy error",
       [](Environment& e) {
         e.SetLazy("a", []() -> Result<std::optional<Value>> {
           return Status::Unavailable("cluster down");
         });
       },
       "a", "<error: Unavailable: cluster down>"},
      {"empty supplier", [](Environment& e) { e.SetLazy("a", Supplier()); }, "a",
       "<error: Invalid Argument: template variable 'a' is bound to an empty supplier>"},
      {"merge: later wins",
       [](Environment& e) { e.Set("a", "1").Merge(Environment().Set("a", "2")); }, "a", "2"},
      {"merge: earlier kept when later lacks the key",
       [](Environment& e) { e.Set("a", "1").Merge(Environment().Set("b", "2")); }, "a", "1"},
      {"merge: later null hides",
       [](Environment& e) { e.Set("a", "1").Merge(Environment().SetNull("a")); }, "a", "<missing>"},
      {"merge into self", [](Environment& e) { e.Set("a", "1").Merge(e); }, "a", "1"},
      {"remove", [](Environment& e) { e.Set("a", "1").Remove("a"); }, "a", "<missing>"},
      {"remove then set", [](Environment& e) { e.Set("a", "1").Remove("a").Set("a", "2"); }, "a",
       "2"},
      {"remove keeps others",
       [](Environment& e) { e.Set("a", "1").Set("b", "2").Set("c", "3").Remove("a"); }, "c", "3"},
      {"remove unknown", [](Environment& e) { e.Set("a", "1").Remove("zzz"); }, "a", "1"},
  };
  for (const Case& c : kCases) {
    Environment env;
    c.build(env);
    EXPECT_EQ(Show(env, c.key), c.want) << c.name;
  }
}

TEST(EnvironmentTest, KeysKeepFirstBoundOrder) {
  Environment defaults;
  defaults.Set("name", "n").Set("database", "d").Set("table", "t");
  Environment hints;
  hints.Set("pipeline", "p").Set("table", "T").SetNull("database");
  defaults.Merge(hints);
  EXPECT_EQ(defaults.Keys(), (std::vector<std::string>{"name", "database", "table", "pipeline"}));
  EXPECT_EQ(defaults.size(), 4u);
  EXPECT_EQ(Show(defaults, "table"), "T");
  EXPECT_TRUE(defaults.Has("database"));  // bound to null still counts as bound
  defaults.Remove("database");
  EXPECT_FALSE(defaults.Has("database"));
  EXPECT_EQ(defaults.Keys(), (std::vector<std::string>{"name", "table", "pipeline"}));
  EXPECT_EQ(Show(defaults, "pipeline"), "p");  // the index follows the removal
  defaults.Set("database", "again");
  EXPECT_EQ(defaults.Keys().back(), "database");
  EXPECT_FALSE(Environment().Has("x"));
  EXPECT_TRUE(Environment().empty());
}

TEST(EnvironmentTest, BuildingNeverCallsSuppliers) {
  auto calls = std::make_shared<int>(0);
  Environment env;
  env.SetLazy("sql", Counting(calls, "SELECT 1"));
  Environment copy = env;
  Environment merged;
  merged.Merge(env);
  EXPECT_TRUE(env.Has("sql"));
  EXPECT_EQ(env.Keys().size(), 1u);
  EXPECT_EQ(*calls, 0);
  // Resolve itself does not cache; copies share the supplier.
  EXPECT_EQ(Show(env, "sql"), "SELECT 1");
  EXPECT_EQ(Show(copy, "sql"), "SELECT 1");
  EXPECT_EQ(Show(merged, "sql"), "SELECT 1");
  EXPECT_EQ(*calls, 3);
}

TEST(EnvironmentTest, RenderCallsEachSupplierAtMostOnce) {
  struct Case {
    const char* name;
    const char* text;
    int want_sql_calls;
    int want_other_calls;
    const char* want;  // rendered text, or "<skipped>" / "<error>"
  };
  const Case kCases[] = {
      {"used once", "{{sql}}", 1, 0, "SELECT 1"},
      {"used three times", "{{sql}} {{sql concat}} {{sql:x}}", 1, 0, "SELECT 1 SELECT 1 SELECT 1"},
      {"used in a guard and a value", "{{sql!=x}}{{sql}}", 1, 0, "SELECT 1"},
      {"unused", "text only", 0, 0, "text only"},
      {"after a missing variable", "{{nothing}} {{sql}}", 0, 0, "<skipped>"},
      {"after a failed guard", "{{guard==no}}{{sql}}", 0, 0, "<skipped>"},
      {"unavailable, with default twice", "{{other:a}}{{other:b}}", 0, 1, "ab"},
      {"unavailable, skips", "{{sql}} {{other}} {{sql}}", 1, 1, "<skipped>"},
      {"syntax error first", "{{sql}} {{other bad}}", 0, 0, "<error>"},
  };
  for (const Case& c : kCases) {
    auto sql_calls = std::make_shared<int>(0);
    auto other_calls = std::make_shared<int>(0);
    Environment env;
    env.SetLazy("sql", Counting(sql_calls, "SELECT 1"))
        .SetLazy("other", Counting(other_calls, std::nullopt))
        .Set("guard", "yes");
    auto r = Render(c.text, env);
    std::string got = !r.ok() ? "<error>" : !r->has_value() ? "<skipped>" : **r;
    EXPECT_EQ(got, c.want) << c.name;
    EXPECT_EQ(*sql_calls, c.want_sql_calls) << c.name;
    EXPECT_EQ(*other_calls, c.want_other_calls) << c.name;
    // Each render has its own cache.
    (void)Render(c.text, env);
    EXPECT_EQ(*sql_calls, 2 * c.want_sql_calls) << c.name;
  }
}

}  // namespace
}  // namespace hop::tmpl
