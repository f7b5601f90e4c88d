#include "sql/unparser.h"

#include <gtest/gtest.h>

#include "sql/ast/statements.h"
#include "sql/parser.h"

namespace hop::sql {
namespace {

std::string Print(std::string_view sql, Dialect d) {
  auto stmt = ParseStatement(sql);
  if (!stmt.ok()) return stmt.status().ToString();
  auto out = PrintStatement(**stmt, PrintOptions{d, false});
  return out.ok() ? *out : out.status().ToString();
}

TEST(UnparserTest, QuotingPerDialect) {
  EXPECT_EQ(QuoteIdentifier("a\"b", Dialect::kAnsi), "\"a\"\"b\"");
  EXPECT_EQ(QuoteIdentifier("a`b", Dialect::kFlink), "`a``b`");
  EXPECT_EQ(QuoteIdentifier("a`b", Dialect::kPostgres), "\"a`b\"");
  EXPECT_EQ(QuoteString("it's"), "'it''s'");
}

TEST(UnparserTest, DialectNames) {
  Dialect d;
  EXPECT_TRUE(ParseDialect("Calcite", &d));
  EXPECT_EQ(d, Dialect::kAnsi);
  EXPECT_TRUE(ParseDialect("postgresql", &d));
  EXPECT_EQ(d, Dialect::kPostgres);
  EXPECT_FALSE(ParseDialect("oracle", &d));
  for (Dialect each : kAllDialects) {
    Dialect back;
    ASSERT_TRUE(ParseDialect(DialectName(each), &back));
    EXPECT_EQ(back, each);
  }
}

TEST(UnparserTest, PipelineStyleFlinkOutput) {
  // The shape of compatibility.md §4.1: back-quoted names, explicit INNER JOIN, single spaces.
  EXPECT_EQ(Print("INSERT INTO ads.audience (first_name, last_name) SELECT members.first_name, "
                  "members.last_name FROM ads.page_views INNER JOIN profile.members ON "
                  "page_views.member_urn = members.member_urn",
                  Dialect::kFlink),
            "INSERT INTO `ADS`.`AUDIENCE` (`FIRST_NAME`, `LAST_NAME`) SELECT "
            "`MEMBERS`.`FIRST_NAME`, `MEMBERS`.`LAST_NAME` FROM `ADS`.`PAGE_VIEWS` INNER JOIN "
            "`PROFILE`.`MEMBERS` ON `PAGE_VIEWS`.`MEMBER_URN` = `MEMBERS`.`MEMBER_URN`");
  EXPECT_EQ(Print("CREATE TABLE IF NOT EXISTS ads.t (a VARCHAR, b BYTES) WITH ('connector' "
                  "'datagen', 'number-of-rows' '10')",
                  Dialect::kFlink),
            "CREATE TABLE IF NOT EXISTS `ADS`.`T` (`A` VARCHAR, `B` BYTES) WITH ('connector' = "
            "'datagen', 'number-of-rows' = '10')");
}

TEST(UnparserTest, RenamedQueryIsOneQueryThatReadsBackRenamed) {
  struct Case {
    const char* query;
    std::vector<const char*> columns;
    Dialect dialect;
    const char* printed;
  };
  const Case cases[] = {
      {"SELECT first_name, last_name FROM ads.visitors",
       {"GIVEN", "FAMILY"},
       Dialect::kAnsi,
       "SELECT * FROM (SELECT \"FIRST_NAME\", \"LAST_NAME\" FROM \"ADS\".\"VISITORS\") AS \"_\" "
       "(\"GIVEN\", \"FAMILY\")"},
      {"SELECT 1 UNION ALL SELECT 2 ORDER BY 1 LIMIT 1",
       {"say \"x\""},
       Dialect::kAnsi,
       "SELECT * FROM (SELECT 1 UNION ALL SELECT 2 ORDER BY 1 FETCH NEXT 1 ROWS ONLY) AS \"_\" "
       "(\"say \"\"x\"\"\")"},
      {"WITH t AS (SELECT a FROM u) SELECT a FROM t",
       {"B"},
       Dialect::kFlink,
       "SELECT * FROM (WITH `T` AS (SELECT `A` FROM `U`) SELECT `A` FROM `T`) AS `_` (`B`)"},
      {"SELECT a FROM u", {}, Dialect::kAnsi, "SELECT \"A\" FROM \"U\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.query);
    auto query = ParseStatement(c.query);
    ASSERT_TRUE(query.ok()) << query.status().ToString();
    const Query& q = *(*query)->As<QueryStatement>().query;
    std::vector<Identifier> columns;
    for (const char* name : c.columns) columns.emplace_back(name);
    auto printed = PrintRenamedQuery(q, columns, PrintOptions{c.dialect});
    ASSERT_TRUE(printed.ok()) << printed.status().ToString();
    EXPECT_EQ(*printed, c.printed);
    // It reads back as the query under an alias with the column list.
    auto back = ParseStatement(*printed);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    const Query& outer = *(*back)->As<QueryStatement>().query;
    if (columns.empty()) {
      EXPECT_TRUE(Equals(outer, q));
      continue;
    }
    const auto& select = outer.body->As<SelectBody>();
    ASSERT_EQ(select.items.size(), 1u);
    EXPECT_EQ(select.items[0].expr->kind, ExprKind::kStar);
    const auto& from = select.from->As<SubqueryRef>();
    EXPECT_TRUE(Equals(*from.query, q));
    ASSERT_TRUE(from.alias.has_value());
    EXPECT_EQ(from.alias->name.name, "_");
    EXPECT_EQ(from.alias->columns, columns);
  }
}

TEST(UnparserTest, TypeStringIsCalcitesSpelling) {
  struct Case {
    const char* type;  // parsed; "NULL" and "INTERVAL" are built below
    const char* plain;
    const char* with_nullability;
  };
  const Case kCases[] = {
      {"VARCHAR", "VARCHAR", "VARCHAR"},
      {"CHAR(3) NOT NULL", "CHAR(3)", "CHAR(3) NOT NULL"},
      {"VARCHAR NULL", "VARCHAR", "VARCHAR"},
      {"FLOAT(7)", "FLOAT", "FLOAT"},
      {"DOUBLE", "DOUBLE", "DOUBLE"},
      {"DECIMAL", "DECIMAL", "DECIMAL"},
      {"DECIMAL(10)", "DECIMAL(10, 0)", "DECIMAL(10, 0)"},
      {"DECIMAL(10, 2) NOT NULL", "DECIMAL(10, 2)", "DECIMAL(10, 2) NOT NULL"},
      {"BYTES", "BYTES", "BYTES"},
      {"TIMESTAMP_LTZ(3)", "TIMESTAMP(3) WITH LOCAL TIME ZONE",
       "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
      {"TIME WITH TIME ZONE", "TIME WITH TIME ZONE", "TIME WITH TIME ZONE"},
      {"ARRAY<INT NOT NULL> NOT NULL", "INTEGER ARRAY", "INTEGER NOT NULL ARRAY NOT NULL"},
      {"MULTISET<VARCHAR(2) NOT NULL>", "VARCHAR(2) MULTISET", "VARCHAR(2) NOT NULL MULTISET"},
      {"MAP<VARCHAR, INT NOT NULL>", "(VARCHAR, INTEGER) MAP", "(VARCHAR, INTEGER NOT NULL) MAP"},
      {"ROW(\"a b\" INT NOT NULL, c VARCHAR)", "RecordType(INTEGER a b, VARCHAR C)",
       "RecordType(INTEGER NOT NULL a b, VARCHAR C)"},
  };
  for (const auto& c : kCases) {
    auto t = ParseDataType(c.type);
    ASSERT_TRUE(t.ok()) << c.type << ": " << t.status().ToString();
    EXPECT_EQ(TypeString(*t), c.plain) << c.type;
    EXPECT_EQ(TypeString(*t, /*with_nullability=*/true), c.with_nullability) << c.type;
  }
  // Types no SQL declares still have a name in messages.
  DataType null_type(TypeName::kNull);
  EXPECT_EQ(TypeString(null_type), "NULL");
  DataType interval(TypeName::kInterval);
  interval.nullability = Nullability::kNotNull;
  EXPECT_EQ(TypeString(interval, true), "INTERVAL NOT NULL");
}

TEST(UnparserTest, LimitAndOffsetPerDialect) {
  const char* sql = "SELECT a FROM t ORDER BY a LIMIT 5 OFFSET 10";
  EXPECT_EQ(Print(sql, Dialect::kAnsi),
            "SELECT \"A\" FROM \"T\" ORDER BY \"A\" OFFSET 10 ROWS FETCH NEXT 5 ROWS ONLY");
  EXPECT_EQ(Print(sql, Dialect::kPostgres),
            "SELECT \"A\" FROM \"T\" ORDER BY \"A\" LIMIT 5 OFFSET 10");
  EXPECT_EQ(Print("SELECT a FROM t OFFSET 3", Dialect::kSqlite),
            "Invalid Argument: OFFSET without LIMIT cannot be expressed in the sqlite dialect");
}

TEST(UnparserTest, InexpressibleConstructsFailByName) {
  struct Case {
    const char* sql;
    Dialect dialect;
    const char* error;
  };
  const Case kCases[] = {
      {"CREATE TABLE t (a TINYINT)", Dialect::kPostgres, "TINYINT"},
      {"CREATE TABLE t (a MAP<INT, INT>)", Dialect::kPostgres, "the MAP type"},
      {"CREATE TABLE t (a INT ARRAY)", Dialect::kSqlite, "the ARRAY type"},
      {"SELECT DATE '2024-01-01'", Dialect::kSqlite, "a typed literal"},
      {"SELECT x[1] FROM t", Dialect::kSqlite, "a subscript"},
      {"CREATE TRIGGER t ON a.b AS 'j'", Dialect::kFlink, "CREATE TRIGGER"},
      {"FIRE TRIGGER t", Dialect::kPostgres, "FIRE"},
      {"CREATE TABLE t (a INT) WITH (k 'v')", Dialect::kPostgres, "a WITH (...) option list"},
      {"SELECT TRY_CAST(a AS INT)", Dialect::kPostgres, "TRY_CAST"},
      {"SELECT LISTAGG(a) WITHIN GROUP (ORDER BY a) FROM t", Dialect::kFlink, "WITHIN GROUP"},
  };
  for (const auto& c : kCases) {
    std::string expected = std::string("Invalid Argument: ") + c.error +
                           " cannot be expressed in the " + std::string(DialectName(c.dialect)) +
                           " dialect";
    EXPECT_EQ(Print(c.sql, c.dialect), expected) << c.sql;
  }
}

TEST(UnparserTest, ParenthesesOnlyWherePrecedenceNeedsThem) {
  struct Case {
    const char* in;
    const char* out;
  };
  const Case kCases[] = {
      {"SELECT (a + b) * c", "SELECT (\"A\" + \"B\") * \"C\""},
      {"SELECT a + (b * c)", "SELECT \"A\" + \"B\" * \"C\""},
      {"SELECT a - (b - c)", "SELECT \"A\" - (\"B\" - \"C\")"},
      {"SELECT (a - b) - c", "SELECT \"A\" - \"B\" - \"C\""},
      {"SELECT - (- a)", "SELECT -(-\"A\")"},
      {"SELECT NOT (a AND b)", "SELECT NOT (\"A\" AND \"B\")"},
      {"SELECT (NOT a) = b", "SELECT (NOT \"A\") = \"B\""},
      {"SELECT (a = b) IS NULL", "SELECT (\"A\" = \"B\") IS NULL"},
      {"SELECT a || b + c", "SELECT (\"A\" || \"B\") + \"C\""},
      {"SELECT a = b = c", "SELECT (\"A\" = \"B\") = \"C\""},
      {"SELECT (a OR b) IS NULL", "SELECT (\"A\" OR \"B\") IS NULL"},
      {"SELECT a BETWEEN (b AND c) AND d", "SELECT \"A\" BETWEEN (\"B\" AND \"C\") AND \"D\""},
      {"SELECT (a || b)[1]", "SELECT (\"A\" || \"B\")[1]"},
      {"SELECT (SELECT 1 UNION SELECT 2) ", "SELECT (SELECT 1 UNION SELECT 2)"},
      {"SELECT 1 UNION (SELECT 2 UNION SELECT 3)", "SELECT 1 UNION (SELECT 2 UNION SELECT 3)"},
      {"SELECT 1 UNION SELECT 2 INTERSECT SELECT 3", "SELECT 1 UNION SELECT 2 INTERSECT SELECT 3"},
      {"(SELECT 1 UNION SELECT 2) INTERSECT SELECT 3",
       "(SELECT 1 UNION SELECT 2) INTERSECT SELECT 3"},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(Print(c.in, Dialect::kAnsi), c.out) << c.in;
  }
}

// Statements hop writes but never parses: DELETE FROM (every dialect) and COPY ... FROM STDIN
// (PostgreSQL only), with names quoted in the dialect's style.
TEST(UnparserTest, StatementsHopWritesOnly) {
  DeleteStatement del;
  del.target.parts = {Identifier("s"), Identifier("My \"T\"")};
  CopyFromStdinStatement copy;
  copy.target.parts = {Identifier("public"), Identifier("t")};
  copy.columns = {Identifier("id"), Identifier("Name")};
  CopyFromStdinStatement all_columns;
  all_columns.target.parts = {Identifier("t")};
  struct Case {
    const Statement* stmt;
    Dialect dialect;
    const char* out;
  };
  const Case kCases[] = {
      {&del, Dialect::kPostgres, "DELETE FROM \"s\".\"My \"\"T\"\"\""},
      {&del, Dialect::kSqlite, "DELETE FROM \"s\".\"My \"\"T\"\"\""},
      {&del, Dialect::kAnsi, "DELETE FROM \"s\".\"My \"\"T\"\"\""},
      {&copy, Dialect::kPostgres, "COPY \"public\".\"t\" (\"id\", \"Name\") FROM STDIN"},
      {&all_columns, Dialect::kPostgres, "COPY \"t\" FROM STDIN"},
      {&copy, Dialect::kAnsi,
       "Invalid Argument: COPY ... FROM STDIN cannot be expressed in the ansi dialect"},
      {&copy, Dialect::kSqlite,
       "Invalid Argument: COPY ... FROM STDIN cannot be expressed in the sqlite dialect"},
      {&copy, Dialect::kFlink,
       "Invalid Argument: COPY ... FROM STDIN cannot be expressed in the flink dialect"},
  };
  for (const auto& c : kCases) {
    auto out = PrintStatement(*c.stmt, PrintOptions{c.dialect, false});
    EXPECT_EQ(out.ok() ? *out : out.status().ToString(), c.out) << DialectName(c.dialect);
  }
  EXPECT_EQ(StatementTitle(copy), "COPY public.t");
  CopyFromStdinStatement same;
  same.target.parts = {Identifier("public"), Identifier("t")};
  EXPECT_FALSE(Equals(copy, same));
  same.columns = copy.columns;
  EXPECT_TRUE(Equals(copy, same));
}

// PostgreSQL's upsert and temporary tables, which refreshes write (runtime/refresh.h).
TEST(UnparserTest, UpsertsAndTemporaryTablesHopWritesOnly) {
  auto select_from = [](const char* table) {
    auto q = std::make_unique<Query>();
    auto body = std::make_unique<SelectBody>();
    body->items.push_back(SelectItem{std::make_unique<StarExpr>(), std::nullopt});
    auto from = std::make_unique<BaseTableRef>();
    from->name.parts = {Identifier(table)};
    body->from = std::move(from);
    q->body = std::move(body);
    return q;
  };
  InsertStatement upsert;
  upsert.target.parts = {Identifier("public"), Identifier("t")};
  upsert.columns = {Identifier("id"), Identifier("name"), Identifier("n")};
  upsert.conflict_columns = {Identifier("id")};
  upsert.query = select_from("tmp");
  InsertStatement keys_only;
  keys_only.target.parts = {Identifier("t")};
  keys_only.columns = {Identifier("id")};
  keys_only.conflict_columns = {Identifier("id")};
  keys_only.query = select_from("tmp");
  CreateTableStatement temp;
  temp.temporary = true;
  temp.name.parts = {Identifier("tmp")};
  ColumnDef id;
  id.name = Identifier("id");
  id.type = DataType(TypeName::kBigInt);
  temp.columns.push_back(std::move(id));
  struct Case {
    const Statement* stmt;
    Dialect dialect;
    const char* out;
  };
  const Case kCases[] = {
      {&upsert, Dialect::kPostgres,
       "INSERT INTO \"public\".\"t\" (\"id\", \"name\", \"n\") SELECT * FROM \"tmp\" ON CONFLICT "
       "(\"id\") DO UPDATE SET \"name\" = EXCLUDED.\"name\", \"n\" = EXCLUDED.\"n\""},
      {&keys_only, Dialect::kPostgres,
       "INSERT INTO \"t\" (\"id\") SELECT * FROM \"tmp\" ON CONFLICT (\"id\") DO NOTHING"},
      {&upsert, Dialect::kSqlite,
       "Invalid Argument: INSERT ... ON CONFLICT cannot be expressed in the sqlite dialect"},
      {&temp, Dialect::kPostgres, "CREATE TEMPORARY TABLE \"tmp\" (\"id\" BIGINT)"},
      {&temp, Dialect::kFlink,
       "Invalid Argument: CREATE TEMPORARY TABLE cannot be expressed in the flink dialect"},
  };
  for (const auto& c : kCases) {
    auto out = PrintStatement(*c.stmt, PrintOptions{c.dialect, false});
    EXPECT_EQ(out.ok() ? *out : out.status().ToString(), c.out) << DialectName(c.dialect);
  }
}

// An aggregate's ORDER BY among its arguments, which hop writes for PostgreSQL only.
TEST(UnparserTest, FunctionArgumentOrderBy) {
  FunctionExpr f;
  f.name.parts = {Identifier("JSON_AGG")};
  auto e = std::make_unique<ColumnRefExpr>();
  e->name.parts = {Identifier("e")};
  f.args.push_back(std::move(e));
  auto n = std::make_unique<ColumnRefExpr>();
  n->name.parts = {Identifier("n")};
  f.order_by.push_back(OrderItem{std::move(n), SortDirection::kDesc, NullsOrder::kDefault});
  // PostgreSQL's and Calcite's form; Flink has none, nor SQLite before 3.44.
  for (Dialect d : {Dialect::kPostgres, Dialect::kAnsi}) {
    auto out = PrintExpr(f, PrintOptions{d, false});
    EXPECT_EQ(out.ok() ? *out : out.status().ToString(), "JSON_AGG(\"e\" ORDER BY \"n\" DESC)");
  }
  for (Dialect d : {Dialect::kFlink, Dialect::kSqlite}) {
    auto out = PrintExpr(f, PrintOptions{d, false});
    EXPECT_EQ(out.status().ToString(),
              "Invalid Argument: an ORDER BY among a function's arguments cannot be expressed in "
              "the " +
                  std::string(DialectName(d)) + " dialect");
  }
  FunctionExpr unordered;
  unordered.name.parts = {Identifier("JSON_AGG")};
  auto e2 = std::make_unique<ColumnRefExpr>();
  e2->name.parts = {Identifier("e")};
  unordered.args.push_back(std::move(e2));
  EXPECT_FALSE(Equals(f, unordered));
}

}  // namespace
}  // namespace hop::sql
