// The differential test of the local engine: the data of test/differential/data.sql is loaded
// into local tables (through a session, as `hop` does) and into a real PostgreSQL server that the
// test starts in a temporary directory; every query of test/differential/corpus.sql and of the
// generated corpus below runs on both, and the results must match, value for value.
//
// PostgreSQL is the reference because it agrees with Calcite where SQLite does not (integer
// division, case-sensitive LIKE, NULL ordering, casts, exact decimals). Where Calcite itself
// differs from PostgreSQL (docs/engine.md lists each difference), the corpus avoids the case
// here and test/sql/semantics.test checks hop's answer instead.
//
// Corpus markers, on comment lines before a query:
//   -- postgres: <sql>   the query as PostgreSQL spells it (a function of another name)
//   -- sqlstate: <code> <why>  the query fails on both sides, and hop's SQLSTATE is <code>
//                        rather than PostgreSQL's, because hop fails for another cause (<why>)
//   -- refused: <text>   hop must refuse the query before running it, with a message holding
//                        <text>; PostgreSQL does not run it
// A query whose results differ, or that fails on one side only, or on both with SQLSTATEs that
// differ (hop's as its wire server gives it), fails the test; so does a missing PostgreSQL (it
// never skips).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "binder/binder.h"
#include "catalog/catalog.h"
#include "catalog/demodb.h"
#include "catalog/local.h"
#include "cli/resource_commands.h"
#include "common/strings.h"
#include "engine/engine.h"
#include "server/pg_protocol.h"
#include "session/session.h"
#include "sql/ast/query_statement.h"
#include "sql/parser.h"
#include "sql/script.h"
#include "sql/unparser.h"
#include "store/sqlite_store.h"
#include "test/lib/datadriven.h"
#include "test/lib/postgres_server.h"

namespace hop {
namespace {

namespace fs = std::filesystem;

// ---- comparing values ------------------------------------------------------------------------

// PostgreSQL's type OIDs the comparison cares about.
constexpr Oid kBool = 16, kInt8 = 20, kInt2 = 21, kInt4 = 23, kFloat4 = 700, kFloat8 = 701,
              kNumeric = 1700, kDate = 1082, kTime = 1083, kTimestamp = 1114, kTimestampTz = 1184;

// A decimal text rounded half away from zero to `scale` digits.
std::string RoundText(const std::string& text, int scale) {
  auto v = engine::ParseDecimal(text, scale);
  if (!v) return text;
  std::string out;
  engine::AppendDecimal(*v, scale, out);
  return out;
}

// Whether hop's value `h` (of encoding `rep`, shown as text) equals PostgreSQL's `p` (of type
// `oid`, in PostgreSQL's text form).
bool SameValue(const std::string& h, const engine::Rep& rep, const std::string& p, Oid oid) {
  using engine::RepKind;
  switch (rep.kind) {
    case RepKind::kBoolean: return (h == "true" && p == "t") || (h == "false" && p == "f");
    case RepKind::kInteger: {
      if (oid != kNumeric && oid != kFloat8 && oid != kFloat4) return h == p;
      // A PostgreSQL numeric (EXTRACT's) equals an integer only without a fraction.
      auto v = engine::ParseDecimal(p, 6);
      return v && *v % 1000000 == 0 && std::to_string(*v / 1000000) == h;
    }
    case RepKind::kDecimal: {
      if (oid == kFloat8 || oid == kFloat4) {
        return std::fabs(std::stod(h) - std::stod(p)) <=
               1e-9 * std::max(1.0, std::fabs(std::stod(p)));
      }
      // PostgreSQL's numerics carry more digits (a quotient, an average): hop's scale decides.
      return RoundText(p, rep.scale) == h;
    }
    case RepKind::kDouble: {
      const double a = std::stod(h == "Infinity" ? "inf" : h == "-Infinity" ? "-inf" : h);
      const double b = std::stod(p);
      if (std::isinf(a) || std::isinf(b)) return a == b;
      return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
    }
    case RepKind::kDate:
    case RepKind::kTime:
    case RepKind::kTimestamp:
    case RepKind::kTimestampLtz: {
      // PostgreSQL drops a fraction's trailing zeros: compare as values of hop's type.
      std::string_view text = p;
      if (oid == kTimestampTz && text.size() > 3 && text.substr(text.size() - 3) == "+00") {
        text.remove_suffix(3);
      }
      // PostgreSQL's DATE + INTERVAL is a timestamp at midnight; Calcite's a DATE.
      if (rep.kind == RepKind::kDate && oid == kTimestamp && text.size() > 9 &&
          text.substr(text.size() - 9) == " 00:00:00") {
        text.remove_suffix(9);
      }
      auto v = engine::ParseValue(text, rep);
      if (!v.ok()) return false;
      std::string shown;
      engine::FormatValue(*v, rep, shown);
      return shown == h;
    }
    default: return h == p;
  }
}

struct Outcome {
  bool refused = false;  // before running
  Status error;          // while running (or refused)
  std::vector<engine::Rep> reps;
  std::vector<std::vector<std::optional<std::string>>> rows;
};

std::string RowText(const std::vector<std::optional<std::string>>& row) {
  std::string out = "(";
  for (size_t i = 0; i < row.size(); ++i) {
    if (i > 0) out += ", ";
    out += row[i] ? *row[i] : "NULL";
  }
  return out + ")";
}

// ---- the corpus ------------------------------------------------------------------------------

struct Query {
  std::string hop;
  std::string postgres;  // empty: hop's query printed in PostgreSQL's dialect
  std::string refused;   // non-empty: hop must refuse it with this text
  std::string where;     // for messages
  std::string sqlstate;  // non-empty: hop's SQLSTATE when both fail, for a cause of its own
};

std::vector<Query> ReadCorpus(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string script = text.str();
  std::vector<Query> out;
  size_t from = 0;  // where the text before the next item starts (its comment lines)
  for (const sql::ScriptItem& item : sql::SplitScript(script)) {
    Query q;
    std::string body;
    const size_t at = static_cast<size_t>(item.text.data() - script.data());
    // The comment lines between the previous item and this one, then the item.
    std::string before;
    std::istringstream gap{script.substr(from, at - from)};
    for (std::string line; std::getline(gap, line);) {
      if (TrimWhitespace(line).rfind("--", 0) == 0) before += line + "\n";
    }
    std::istringstream lines{before + std::string(item.text)};
    from = at + item.text.size();
    std::string line;
    while (std::getline(lines, line)) {
      std::string_view l = TrimWhitespace(line);
      if (l.rfind("-- postgres:", 0) == 0) {
        q.postgres = std::string(TrimWhitespace(l.substr(12)));
      } else if (l.rfind("-- refused:", 0) == 0) {
        q.refused = std::string(TrimWhitespace(l.substr(11)));
      } else if (l.rfind("-- sqlstate:", 0) == 0) {
        std::string_view rest = TrimWhitespace(l.substr(12));
        q.sqlstate = std::string(rest.substr(0, rest.find(' ')));
      } else if (l.rfind("--", 0) == 0 || l.empty()) {
        continue;
      } else {
        body += line + "\n";
      }
    }
    if (TrimWhitespace(body).empty()) continue;
    q.hop = std::string(TrimWhitespace(body));
    q.where = fmt::format("{}:{}", path.substr(path.rfind('/') + 1), item.loc.line);
    out.push_back(std::move(q));
  }
  return out;
}

// Generated queries: every operator and function over the typed columns of the data, so that
// each semantic rule meets NULLs, negatives, zeros and every type.
std::vector<Query> GeneratedCorpus() {
  std::vector<Query> out;
  auto add = [&](std::string sql) { out.push_back({std::move(sql), "", "", "generated"}); };
  const char* kNumeric[] = {"n", "b", "d", "x"};
  const char* kArith[] = {"+", "-", "*"};
  for (const char* a : kNumeric) {
    for (const char* b : kNumeric) {
      for (const char* op : kArith) {
        add(fmt::format("SELECT id, {0} {1} {2} AS r FROM local.nums ORDER BY id", a, op, b));
      }
      // Division and modulo by non-zero values (PostgreSQL fails on any zero divisor).
      if (std::string(b) != "x") {
        add(fmt::format("SELECT id, {0} / NULLIF({1}, 0) AS q FROM local.nums ORDER BY id", a, b));
      }
      for (const char* cmp : {"=", "<", ">="}) {
        add(fmt::format("SELECT id FROM local.nums WHERE {0} {1} {2} ORDER BY id", a, cmp, b));
      }
    }
    for (const char* lit : {"0", "2", "-1.5", "100.25", "1e3"}) {
      add(
          fmt::format("SELECT id, {0} + {1} AS r, {0} * {1} AS p FROM local.nums WHERE {0} <> {1} "
                      "ORDER BY id",
                      a, lit));
    }
    for (const char* agg : {"COUNT", "SUM", "MIN", "MAX"}) {
      add(fmt::format("SELECT {0}({1}) AS v FROM local.nums", agg, a));
      add(fmt::format("SELECT {0}(DISTINCT {1}) AS v FROM local.nums", agg, a));
      add(
          fmt::format("SELECT n > 0 AS pos, {0}({1}) AS v FROM local.nums GROUP BY n > 0 ORDER BY "
                      "pos NULLS LAST",
                      agg, a));
    }
    add(fmt::format("SELECT id, ABS({0}) AS a, -{0} AS neg FROM local.nums ORDER BY id", a));
    add(fmt::format("SELECT id, {0} FROM local.nums ORDER BY {0} DESC, id", a));
    add(fmt::format("SELECT id, {0} FROM local.nums ORDER BY {0} NULLS FIRST, id LIMIT 5", a));
    add(fmt::format(
        "SELECT id, CASE WHEN {0} > 1 THEN {0} ELSE 0 END AS c FROM local.nums ORDER BY id", a));
    add(fmt::format("SELECT id, COALESCE({0}, 42) AS c FROM local.nums ORDER BY id", a));
    add(fmt::format("SELECT id FROM local.nums WHERE {0} BETWEEN -2 AND 10 ORDER BY id", a));
    add(fmt::format("SELECT id FROM local.nums WHERE {0} IN (0, 1, 2, 42) ORDER BY id", a));
    add(fmt::format("SELECT id FROM local.nums WHERE {0} IS NULL ORDER BY id", a));
  }
  for (const char* exact : {"n", "b", "d"}) {
    for (const char* divisor : {"3", "7", "2.5", "-4"}) {
      add(fmt::format("SELECT id, {0} / {1} AS q, MOD({0}, 3) AS m FROM local.nums ORDER BY id",
                      exact, divisor));
    }
    add(fmt::format("SELECT id, CAST({0} AS DECIMAL(12, 4)) AS c FROM local.nums ORDER BY id",
                    exact));
    add(fmt::format("SELECT id, CAST({0} AS VARCHAR) AS c FROM local.nums ORDER BY id", exact));
    add(fmt::format("SELECT id, CAST({0} AS DOUBLE) AS c FROM local.nums ORDER BY id", exact));
  }
  // Strings.
  const char* kPatterns[] = {"a%", "%a%", "A%", "%e", "_pple", "%b%c", "", "%", "a_c%"};
  for (const char* p : kPatterns) {
    add(fmt::format("SELECT id, w FROM local.words WHERE w LIKE '{}' ORDER BY id", p));
    add(fmt::format("SELECT id, w FROM local.words WHERE w NOT LIKE '{}' ORDER BY id", p));
  }
  add("SELECT id FROM local.words WHERE w LIKE 'a!%%' ESCAPE '!' ORDER BY id");
  for (const char* f : {"UPPER(w)",
                        "LOWER(w)",
                        "CHAR_LENGTH(w)",
                        "TRIM(w)",
                        "LTRIM(w)",
                        "RTRIM(w)",
                        "w || '!'",
                        "w || k",
                        "SUBSTRING(w, 2)",
                        "SUBSTRING(w, 2, 3)",
                        "SUBSTRING(w, 0, 2)",
                        "REPLACE(w, 'a', 'A')",
                        "OCTET_LENGTH(w)",
                        "REVERSE(w)",
                        "LPAD(w, 8, '*')",
                        "RPAD(w, 3)",
                        "INITCAP(w)",
                        "REPEAT(w, 2)",
                        "TRANSLATE(w, 'ap', 'AP')",
                        "MD5(w)"}) {
    add(fmt::format("SELECT id, {} AS r FROM local.words ORDER BY id", f));
  }
  for (const char* w : {"'apple'", "'Apple'", "'b'", "''", "'APPLE'"}) {
    for (const char* cmp : {"=", "<", ">", "<>"}) {
      add(fmt::format("SELECT id FROM local.words WHERE w {} {} ORDER BY id", cmp, w));
    }
  }
  // Dates and times.
  for (const char* e :
       {"EXTRACT(YEAR FROM at)", "EXTRACT(MONTH FROM at)", "EXTRACT(DAY FROM day)",
        "EXTRACT(HOUR FROM at)", "EXTRACT(MINUTE FROM at)", "EXTRACT(QUARTER FROM day)",
        "EXTRACT(DOY FROM day)", "EXTRACT(WEEK FROM day)", "at + INTERVAL '1' DAY",
        "at - INTERVAL '90' MINUTE", "at + INTERVAL '1' MONTH", "day + INTERVAL '1' YEAR",
        "day - INTERVAL '1' MONTH", "at + INTERVAL '1:30' HOUR TO MINUTE", "CAST(at AS DATE)",
        "CAST(day AS TIMESTAMP)", "CAST(day AS VARCHAR)"}) {
    add(fmt::format("SELECT id, {} AS r FROM local.events ORDER BY id", e));
  }
  for (const char* cmp : {"<", ">=", "="}) {
    add(fmt::format(
        "SELECT id FROM local.events WHERE at {} TIMESTAMP '2025-12-31 00:00:00' ORDER BY id",
        cmp));
    add(fmt::format("SELECT id FROM local.events WHERE day {} DATE '2024-02-29' ORDER BY id", cmp));
    add(fmt::format("SELECT id FROM local.events WHERE day {} at ORDER BY id", cmp));
  }
  return out;
}

// ---- the test --------------------------------------------------------------------------------

class DifferentialTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hop-diff-XXXXXX";
    dir_ = mkdtemp(tmpl);
    store::SqliteStoreOptions opts;
    opts.durable = false;
    store_ = std::move(store::SqliteStore::Open(dir_, opts)).value();
    local_ = std::make_unique<catalog::LocalProvisioner>(dir_);
    provisioners_.Register("local", local_.get());
  }
  void TearDown() override {
    engine_.reset();
    store_.reset();
    fs::remove_all(dir_);
  }

  // Loads data.sql into hop (a session) and PostgreSQL (the statements in its dialect), and the
  // demo databases' tables into PostgreSQL.
  void Load(testing::PostgresServer& pg) {
    std::ifstream env_file(hop::testing::SourcePath("test/sql/env/samples.yaml"));
    cli::ApplyOptions apply;
    apply.file = hop::testing::SourcePath("test/sql/env/samples.yaml");
    std::ostringstream o, e;
    ASSERT_EQ(cli::RunApply(apply, *store_, o, e), 0) << e.str();
    session::Properties props;
    props.state_dir = dir_;
    props.provisioners = &provisioners_;
    session::Session session(*store_, props);
    std::ifstream in(hop::testing::SourcePath("test/differential/data.sql"));
    std::stringstream text;
    text << in.rdbuf();
    const std::string script = text.str();
    ASSERT_TRUE(pg.Exec("CREATE SCHEMA \"LOCAL\"").ok());
    for (const sql::ScriptItem& item : sql::SplitScript(script)) {
      std::string out;
      Status st = session.Execute(item.text, false, out);
      ASSERT_TRUE(st.ok()) << item.text << ": " << st.ToString();
      auto stmt = sql::ParseStatement(item.text);
      ASSERT_TRUE(stmt.ok());
      if ((*stmt)->kind == sql::StatementKind::kCreateDatabase) continue;
      auto printed = sql::PrintStatement(**stmt, {sql::Dialect::kPostgres});
      ASSERT_TRUE(printed.ok()) << item.text << ": " << printed.status().ToString();
      auto r = pg.Exec(*printed);
      ASSERT_TRUE(r.ok()) << *printed << ": " << r.status().ToString();
    }
    // The demo tables, in PostgreSQL too.
    for (const char* schema : {"ADS", "PROFILE"}) {
      ASSERT_TRUE(pg.Exec(fmt::format("CREATE SCHEMA \"{}\"", schema)).ok());
      for (const catalog::Table& t : catalog::DemoTables(schema, {schema}, "")) {
        std::string ddl = fmt::format("CREATE TABLE \"{}\".\"{}\" (", schema, t.name);
        for (size_t i = 0; i < t.row_type.columns.size(); ++i) {
          ddl += fmt::format("{}\"{}\" VARCHAR", i ? ", " : "", t.row_type.columns[i].name);
        }
        ASSERT_TRUE(pg.Exec(ddl + ")").ok());
        for (const auto& row : *t.rows) {
          std::string insert = fmt::format("INSERT INTO \"{}\".\"{}\" VALUES (", schema, t.name);
          for (size_t i = 0; i < row.size(); ++i) {
            insert += (i ? ", " : "") + sql::QuoteString(*row[i]);
          }
          ASSERT_TRUE(pg.Exec(insert + ")").ok());
        }
      }
    }
    catalog_ = std::move(catalog::Catalog::Load(*store_, "default")).value();
    engine_ = std::move(engine::Engine::Open({dir_})).value();
  }

  Outcome RunHop(const std::string& text) {
    Outcome o;
    auto stmt = sql::ParseStatement(text);
    if (!stmt.ok() || (*stmt)->kind != sql::StatementKind::kQuery) {
      o.refused = true;
      o.error = stmt.ok() ? Status::InvalidArgument("not a query") : stmt.status();
      return o;
    }
    binder::Binder binder(*catalog_);
    binder.SetStatement(stmt->get());
    auto plan = binder.BindQuery(*(*stmt)->As<sql::QueryStatement>().query);
    if (!plan.ok()) {
      o.refused = true;
      o.error = plan.status();
      return o;
    }
    auto cursor = engine_->Query(*catalog_, **plan, {});
    if (!cursor.ok()) {
      o.refused = true;
      o.error = cursor.status();
      return o;
    }
    o.reps = (*cursor)->reps();
    for (;;) {
      auto more = (*cursor)->Next();
      if (!more.ok()) {
        o.error = more.status();
        return o;
      }
      if (!*more) break;
      std::vector<std::optional<std::string>> row;
      for (size_t i = 0; i < o.reps.size(); ++i) {
        if ((*cursor)->IsNull(static_cast<int>(i))) {
          row.emplace_back();
        } else {
          std::string v;
          (*cursor)->AppendText(static_cast<int>(i), v);
          row.emplace_back(std::move(v));
        }
      }
      o.rows.push_back(std::move(row));
    }
    return o;
  }

  // "" when the query gives the same on both, else what differs.
  std::string Compare(testing::PostgresServer& pg, const Query& q) {
    Outcome h = RunHop(q.hop);
    if (!q.refused.empty()) {
      if (!h.refused) return "hop ran a query it should refuse";
      if (h.error.message().find(q.refused) == std::string::npos) {
        return "hop refused it otherwise: " + h.error.ToString();
      }
      ++refused_;
      return "";
    }
    if (h.refused) return "hop refused it: " + h.error.ToString();
    std::string pg_text = q.postgres;
    if (pg_text.empty()) {
      auto stmt = sql::ParseStatement(q.hop);
      auto printed = sql::PrintStatement(**stmt, {sql::Dialect::kPostgres});
      if (!printed.ok()) return "cannot print it for PostgreSQL: " + printed.status().ToString();
      pg_text = *printed;
    }
    auto p = pg.Exec(pg_text);
    if (!h.error.ok() || !p.ok()) {
      if (!h.error.ok() && !p.ok()) {
        ++both_failed_;
        // Both refuse the data (a division by zero, an overflow): a client over the wire
        // protocol is told the same SQLSTATE by both.
        const std::string state = server::ErrorOf(h.error).sqlstate;
        const std::string expected = q.sqlstate.empty() ? pg.last_sqlstate() : q.sqlstate;
        if (state != expected) {
          return fmt::format(
              "both failed, hop with SQLSTATE {} ({}), expected {}; PostgreSQL's {} ({})", state,
              h.error.ToString(), expected, pg.last_sqlstate(), p.status().message());
        }
        return "";
      }
      return fmt::format("hop: {}; PostgreSQL: {}", h.error.ok() ? "ran" : h.error.ToString(),
                         p.ok() ? "ran" : p.status().ToString());
    }
    auto& pr = p->rows;
    if (pr.size() != h.rows.size()) {
      return fmt::format("hop returned {} rows, PostgreSQL {} (PostgreSQL: {})", h.rows.size(),
                         pr.size(), pg_text);
    }
    if (!pr.empty() && pr[0].size() != h.reps.size()) return "different numbers of columns";
    // Without a top-level ORDER BY the rows compare as a multiset.
    const std::string upper = Utf8ToUpper(q.hop);
    const bool ordered =
        upper.find("ORDER BY") != std::string::npos && upper.rfind("ORDER BY") > upper.rfind(")");
    std::vector<size_t> order_h(h.rows.size()), order_p(pr.size());
    for (size_t i = 0; i < order_h.size(); ++i) order_h[i] = order_p[i] = i;
    auto key = [&](const std::vector<std::optional<std::string>>& row) { return RowText(row); };
    if (!ordered) {
      // Sort both by hop's rendering: PostgreSQL's rows are first rendered as hop would show them.
      std::sort(order_h.begin(), order_h.end(),
                [&](size_t a, size_t b) { return key(h.rows[a]) < key(h.rows[b]); });
      std::vector<std::string> shown;
      for (const auto& row : pr) {
        std::string s = "(";
        for (size_t c = 0; c < row.size(); ++c) {
          if (c) s += ", ";
          s += row[c] ? *row[c] : "NULL";
        }
        shown.push_back(s);
      }
      // Match each hop row with an equal PostgreSQL row.
      std::vector<bool> used(pr.size(), false);
      for (size_t i : order_h) {
        bool found = false;
        for (size_t j = 0; j < pr.size() && !found; ++j) {
          if (used[j]) continue;
          bool same = true;
          for (size_t c = 0; c < h.reps.size() && same; ++c) {
            const auto& a = h.rows[i][c];
            const auto& b = pr[j][c];
            same = (!a && !b) || (a && b && SameValue(*a, h.reps[c], *b, p->types[c]));
          }
          if (same) {
            used[j] = found = true;
          }
        }
        if (!found) {
          return fmt::format("hop's row {} is not among PostgreSQL's ({})", key(h.rows[i]),
                             fmt::join(shown, " "));
        }
      }
      return "";
    }
    for (size_t i = 0; i < h.rows.size(); ++i) {
      for (size_t c = 0; c < h.reps.size(); ++c) {
        const auto& a = h.rows[i][c];
        const auto& b = pr[i][c];
        if ((!a && !b) || (a && b && SameValue(*a, h.reps[c], *b, p->types[c]))) continue;
        return fmt::format("row {}: hop {} but PostgreSQL {} (PostgreSQL: {})", i + 1,
                           key(h.rows[i]), key(pr[i]), pg_text);
      }
    }
    return "";
  }

  std::string dir_;
  std::unique_ptr<store::SqliteStore> store_;
  std::unique_ptr<catalog::LocalProvisioner> local_;
  catalog::Provisioners provisioners_;
  std::optional<catalog::Catalog> catalog_;
  std::unique_ptr<engine::Engine> engine_;
  int refused_ = 0;
  int both_failed_ = 0;
};

TEST_F(DifferentialTest, ResultsMatchPostgreSQL) {
  testing::PostgresServer pg;
  Status started = pg.Start();
  ASSERT_TRUE(started.ok()) << started.ToString();
  Load(pg);
  if (HasFatalFailure()) return;
  std::vector<Query> corpus = ReadCorpus(hop::testing::SourcePath("test/differential/corpus.sql"));
  const size_t written = corpus.size();
  for (Query& q : GeneratedCorpus()) corpus.push_back(std::move(q));
  EXPECT_GE(corpus.size(), 300u);
  int mismatches = 0;
  for (const Query& q : corpus) {
    const std::string diff = Compare(pg, q);
    if (diff.empty()) continue;
    ++mismatches;
    ADD_FAILURE() << q.where << ": " << q.hop << "\n  " << diff;
  }
  std::printf(
      "differential corpus: %zu queries (%zu written, %zu generated), %d refused as "
      "expected, %d failing on both sides, %d mismatches\n",
      corpus.size(), written, corpus.size() - written, refused_, both_failed_, mismatches);
}

}  // namespace
}  // namespace hop
