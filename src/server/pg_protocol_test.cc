#include "server/pg_protocol.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cerrno>

#include "store/sqlite.h"

namespace hop::server {
namespace {

std::string Be32(uint32_t v) {
  std::string s;
  for (int shift = 24; shift >= 0; shift -= 8) s += static_cast<char>((v >> shift) & 0xff);
  return s;
}
std::string Be16(uint16_t v) {
  return std::string{static_cast<char>(v >> 8), static_cast<char>(v)};
}

TEST(PgProtocolTest, DecodesStartupPackets) {
  auto p = DecodeStartup(Be32(kProtocolVersion3) + std::string("user\0bob\0database\0db\0\0", 22));
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->kind, StartupPacket::Kind::kStartup);
  EXPECT_EQ(p->Parameter("user"), "bob");
  EXPECT_EQ(p->Parameter("database"), "db");
  EXPECT_EQ(DecodeStartup(Be32(kSslRequestCode))->kind, StartupPacket::Kind::kSsl);
  EXPECT_EQ(DecodeStartup(Be32(kGssEncRequestCode))->kind, StartupPacket::Kind::kGssEnc);
  auto c = DecodeStartup(Be32(kCancelRequestCode) + Be32(7) + Be32(0xdeadbeef));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->process_id, 7);
  EXPECT_EQ(static_cast<uint32_t>(c->secret_key), 0xdeadbeefu);
}

TEST(PgProtocolTest, RefusesMalformedStartupPackets) {
  const std::string kCases[] = {
      "",                                                       // no version
      Be32(kProtocolVersion3) + std::string("user\0bob", 8),    // no NUL at the end
      Be32(kProtocolVersion3) + std::string("user\0bob\0", 9),  // no closing NUL
      Be32(kSslRequestCode) + "x",                              // bytes past the end
      Be32(kCancelRequestCode) + Be32(1),                       // short
      Be32(0x00020000),                                         // protocol 2.0
  };
  for (const std::string& body : kCases) {
    EXPECT_FALSE(DecodeStartup(body).ok()) << ::testing::PrintToString(body);
  }
  EXPECT_EQ(DecodeStartup(Be32(0x00020000)).status().message(),
            "unsupported frontend protocol 2.0: hop serves protocol 3.0");
  EXPECT_FALSE(StartupLength(Be32(4), 10000).ok());
  EXPECT_FALSE(StartupLength(Be32(20000), 10000).ok());
  EXPECT_EQ(*StartupLength(Be32(8), 10000), 8u);
}

TEST(PgProtocolTest, MessageLengthsAreBounded) {
  EXPECT_FALSE(MessageBodyLength(Be32(3), 100).ok());
  EXPECT_FALSE(MessageBodyLength(Be32(0xffffffff), 100).ok());
  EXPECT_EQ(*MessageBodyLength(Be32(104), 100), 100u);
  EXPECT_FALSE(MessageBodyLength(Be32(105), 100).ok());
}

TEST(PgProtocolTest, DecodesExtendedProtocolMessages) {
  auto parse = DecodeParse(std::string("s1\0SELECT $1\0", 13) + Be16(1) + Be32(23));
  ASSERT_TRUE(parse.ok()) << parse.status().ToString();
  EXPECT_EQ(parse->statement, "s1");
  EXPECT_EQ(parse->query, "SELECT $1");
  EXPECT_EQ(parse->param_types, std::vector<uint32_t>{23});

  auto bind = DecodeBind(std::string("p\0s1\0", 5) + Be16(1) + Be16(1) + Be16(2) + Be32(4) +
                         Be32(42) + Be32(0xffffffff) + Be16(0));
  ASSERT_TRUE(bind.ok()) << bind.status().ToString();
  EXPECT_EQ(bind->portal, "p");
  ASSERT_EQ(bind->params.size(), 2u);
  EXPECT_EQ(*bind->params[0], Be32(42));
  EXPECT_FALSE(bind->params[1].has_value());

  EXPECT_EQ(DecodeExecute(std::string("p\0", 2) + Be32(10))->max_rows, 10);
  EXPECT_EQ(DecodeTarget(std::string("Sname\0", 6), "Describe")->name, "name");
  EXPECT_FALSE(DecodeTarget(std::string("Xname\0", 6), "Describe").ok());
}

TEST(PgProtocolTest, RefusesBindsThatDoNotAddUp) {
  const std::string kCases[] = {
      // a parameter longer than the message
      std::string("\0\0", 2) + Be16(0) + Be16(1) + Be32(1000) + "ab",
      // a negative length other than -1
      std::string("\0\0", 2) + Be16(0) + Be16(1) + Be32(0xfffffffe) + Be16(0),
      // two formats for one parameter
      std::string("\0\0", 2) + Be16(2) + Be16(0) + Be16(0) + Be16(1) + Be32(0) + Be16(0),
      // a format code that is neither 0 nor 1
      std::string("\0\0", 2) + Be16(1) + Be16(7) + Be16(0) + Be16(0),
      // a negative count
      std::string("\0\0", 2) + Be16(0xffff),
  };
  for (const std::string& body : kCases) {
    auto r = DecodeBind(body);
    ASSERT_FALSE(r.ok()) << ::testing::PrintToString(body);
    EXPECT_EQ(r.status().message().rfind("protocol violation", 0), 0u) << r.status().ToString();
  }
}

TEST(PgProtocolTest, WritesMessagesWithTheirLengths) {
  std::string out;
  Writer(out).Begin('Z').Int8('I').End();
  EXPECT_EQ(out, std::string("Z\0\0\0\x05I", 6));
}

TEST(PgProtocolTest, MapsEveryCodeToASqlState) {
  EXPECT_EQ(SqlState(StatusCode::kParse), "42601");
  EXPECT_EQ(SqlState(StatusCode::kCatalogNotFound), "42P01");
  EXPECT_EQ(SqlState(StatusCode::kInternal), "XX000");
  ErrorFields f =
      ErrorOf(Status::ParseError("Unexpected 'FROM' at line 1, column 8\nSELECT FROM\n       ^"),
              "SELECT FROM");
  EXPECT_EQ(f.sqlstate, "42601");
  // The message is hop's words without their category, as PostgreSQL's primary message.
  EXPECT_EQ(f.message, "Unexpected 'FROM' at line 1, column 8");
  EXPECT_EQ(f.position, 8);
  EXPECT_EQ(f.detail, "");  // the client draws the line and caret from the position
  // Positions count characters, on the statement's line of the whole query.
  f = ErrorOf(Status::ParseError("x at line 2, column 3"), "SELECT 'é';\nXYZ");
  EXPECT_EQ(f.position, 15);
  // Binder errors: the name errors have PostgreSQL's own codes, and their positions too.
  f = ErrorOf(Status::BindError("Column 'NOPE' not found in any table at line 1, column 8"),
              "SELECT nope FROM t");
  EXPECT_EQ(f.sqlstate, "42703");
  EXPECT_EQ(f.position, 8);
  EXPECT_EQ(ErrorOf(Status::BindError("Column 'ID' is ambiguous")).sqlstate, "42702");
  EXPECT_EQ(ErrorOf(Status::BindError("Column 'X' not found in table 'T'")).sqlstate, "42703");
  EXPECT_EQ(ErrorOf(Status::BindError("Table 'T' not found")).sqlstate, "42P01");
  EXPECT_EQ(ErrorOf(Status::BindError("No match found for function signature F(<NUMERIC>)"))
                .sqlstate,
            "42883");
  EXPECT_EQ(ErrorOf(Status::BindError("Cannot apply '+' to arguments of type")).sqlstate,
            "42804");
}

// A file hop could not write has the SQLSTATE PostgreSQL gives the same failure of a file, from
// StorageProblem's own words (as the store and the engine's local files give them).
TEST(PgProtocolTest, StorageProblemsHavePostgresqlsFileCodes) {
  struct Case {
    int code, system_errno;
    std::string_view sqlstate;
  };
  const Case kCases[] = {
      {SQLITE_FULL, 0, "53100"},              // disk_full
      {SQLITE_IOERR_WRITE, ENOSPC, "53100"},  // disk_full
      {SQLITE_IOERR_WRITE, EDQUOT, "53100"},  // a quota: disk_full too
      {SQLITE_IOERR_WRITE, EIO, "58030"},     // io_error
      {SQLITE_IOERR_WRITE, EROFS, "42501"},   // insufficient_privilege
      {SQLITE_READONLY, 0, "42501"},
  };
  for (const Case& k : kCases) {
    const std::string problem = store::sqlite::StorageProblem(k.code, k.system_errno, "/x/hop.db");
    ASSERT_FALSE(problem.empty()) << k.code << " " << k.system_errno;
    for (StatusCode code : {StatusCode::kExecution, StatusCode::kUnavailable, StatusCode::kInternal,
                            StatusCode::kInvalidArgument}) {
      const ErrorFields f = ErrorOf(Status(code, problem));
      EXPECT_EQ(f.sqlstate, k.sqlstate) << problem;
      EXPECT_EQ(f.message, problem);
    }
  }
  // The engine's errors in values, by cause.
  EXPECT_EQ(ErrorOf(Status::ExecutionError("Division by zero")).sqlstate, "22012");
  EXPECT_EQ(ErrorOf(Status::ExecutionError("Numeric overflow")).sqlstate, "22003");
  EXPECT_EQ(ErrorOf(Status::InvalidArgument("'x' is not a valid INTEGER")).sqlstate, "22P02");
  EXPECT_EQ(ErrorOf(Status::ExecutionError("Cannot cast 'x' to INTEGER (at row 1)")).sqlstate,
            "22P02");
  EXPECT_EQ(ErrorOf(Status::ExecutionError("Cannot cast 'x' to DATE (at row 1)")).sqlstate,
            "22007");
  EXPECT_EQ(ErrorOf(Status::InvalidArgument("'x' is not a valid TIMESTAMP(3)")).sqlstate, "22007");
  EXPECT_EQ(ErrorOf(Status::InvalidArgument("parameter $1 is not a valid int4")).sqlstate, "22023");
  EXPECT_EQ(ErrorOf(Status::ExecutionError("the query was cancelled")).sqlstate, "22000");
}

// statement_timeout values as PostgreSQL 15 reads them (each checked against its SET and SHOW).
TEST(PgProtocolTest, StatementTimeoutValues) {
  struct Case {
    std::string_view value;
    int64_t ms;  // -1: refused
    std::string_view shown;
  };
  constexpr Case kCases[] = {
      {"5s", 5000, "5s"},     {"100ms", 100, "100ms"},
      {"100", 100, "100ms"},  {"1.5s", 1500, "1500ms"},
      {"1.5", 2, "2ms"},      {"1min", 60000, "1min"},
      {"2h", 7200000, "2h"},  {"1d", 86400000, "1d"},
      {"10us", 0, "0"},       {"1500us", 2, "2ms"},
      {"5 s", 5000, "5s"},    {" 7s ", 7000, "7s"},
      {"0", 0, "0"},          {"60000", 60000, "1min"},
      {"-1", -1, ""},         {"5S", -1, ""},
      {"abc", -1, ""},        {"", -1, ""},
      {"2147483648", -1, ""}, {"25d", -1, ""},
      {"nan", -1, ""},
  };
  for (const Case& c : kCases) {
    auto ms = ParseTimeoutSetting("statement_timeout", c.value);
    if (c.ms < 0) {
      EXPECT_FALSE(ms.ok()) << "'" << c.value << "'";
      continue;
    }
    ASSERT_TRUE(ms.ok()) << "'" << c.value << "': " << ms.status().ToString();
    EXPECT_EQ(ms->count(), c.ms) << "'" << c.value << "'";
    EXPECT_EQ(FormatTimeoutSetting(*ms), c.shown) << "'" << c.value << "'";
  }
}

// `options` read as PostgreSQL reads it: blanks split words, a backslash takes the next character.
TEST(PgProtocolTest, ReadsStartupOptionsAsPostgresqlDoes) {
  using Settings = std::vector<std::pair<std::string, std::string>>;
  struct Case {
    const char* options;
    Settings settings;
  };
  const Case kCases[] = {
      {"-c application_name=a\\ b", {{"application_name", "a b"}}},
      {"-c a=x\\\\y\\ z  -cb=2", {{"a", "x\\y z"}, {"b", "2"}}},
      {"--extra-float-digits=3 -c", {{"extra_float_digits", "3"}}},
      {"  -c  a=f\\g -B 100 -c nothing", {{"a", "fg"}}},
      {"-c a=end\\", {{"a", "end\\"}}},
      {"", {}},
  };
  for (const Case& k : kCases) {
    EXPECT_EQ(StartupOptionSettings(k.options), k.settings) << k.options;
  }
}

}  // namespace
}  // namespace hop::server
