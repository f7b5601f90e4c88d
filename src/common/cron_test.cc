#include "common/cron.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace hop {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

// Times in the tables are RFC 3339 text; "" stands for nullopt.
SystemTime At(std::string_view text) {
  const auto t = ParseRfc3339(text);
  EXPECT_TRUE(t.has_value()) << "bad time in test table: " << text;
  return t.value_or(SystemTime{});
}

std::string Show(const std::optional<SystemTime>& t) { return t ? FormatRfc3339(*t, 3) : ""; }

std::string ShowWant(std::string_view want) { return want.empty() ? "" : Show(At(want)); }

CronSchedule MustParse(std::string_view text) {
  auto schedule = CronSchedule::Parse(text);
  EXPECT_TRUE(schedule.ok()) << text << ": " << schedule.status().ToString();
  if (!schedule.ok()) return *CronSchedule::Parse("* * * * *");
  return *std::move(schedule);
}

struct TimeCase {
  const char* expression;
  const char* from;
  const char* want;  // "" when there is no such time
};

// 2026-03-18 is a Wednesday.
constexpr char kRef[] = "2026-03-18T10:20:30Z";

TEST(CronTest, Next) {
  const TimeCase kCases[] = {
      // Nicknames.
      {"@yearly", kRef, "2027-01-01T00:00:00Z"},
      {"@annually", kRef, "2027-01-01T00:00:00Z"},
      {"@monthly", kRef, "2026-04-01T00:00:00Z"},
      {"@weekly", kRef, "2026-03-22T00:00:00Z"},
      {"@daily", kRef, "2026-03-19T00:00:00Z"},
      {"@midnight", kRef, "2026-03-19T00:00:00Z"},
      {"@hourly", kRef, "2026-03-18T11:00:00Z"},
      {"@DAILY", kRef, "2026-03-19T00:00:00Z"},
      {" \t@hourly\n", kRef, "2026-03-18T11:00:00Z"},
      // Stars, steps, ranges, lists.
      {"* * * * *", kRef, "2026-03-18T10:21:00Z"},
      {"*/15 * * * *", kRef, "2026-03-18T10:30:00Z"},
      {"10-50/15 * * * *", kRef, "2026-03-18T10:25:00Z"},
      {"5/20 * * * *", kRef, "2026-03-18T10:25:00Z"},
      {"50/20 * * * *", kRef, "2026-03-18T10:50:00Z"},
      {"0,45 * * * *", kRef, "2026-03-18T10:45:00Z"},
      {"0 9-17/4 * * *", kRef, "2026-03-18T13:00:00Z"},
      {"0 1,2,23 * * *", kRef, "2026-03-18T23:00:00Z"},
      {"0 0 1,15 * *", kRef, "2026-04-01T00:00:00Z"},
      {"0 12 18 3 *", kRef, "2026-03-18T12:00:00Z"},
      {"15 10 18 3 *", kRef, "2027-03-18T10:15:00Z"},
      {"0 0 * */5 *", kRef, "2026-06-01T00:00:00Z"},
      // Names, in any case and in ranges.
      {"0 0 * JUN-AUG *", kRef, "2026-06-01T00:00:00Z"},
      {"0 0 * jun *", kRef, "2026-06-01T00:00:00Z"},
      {"0 0 1 Feb,oct *", kRef, "2026-10-01T00:00:00Z"},
      {"0 0 * * MON-FRI", kRef, "2026-03-19T00:00:00Z"},
      {"0 0 * * sat,Sun", kRef, "2026-03-21T00:00:00Z"},
      {"0 0 * * 1-FRI", kRef, "2026-03-19T00:00:00Z"},
      {"30 9 * * 1-5", kRef, "2026-03-19T09:30:00Z"},
      // Sunday is both 0 and 7.
      {"0 0 * * 0", kRef, "2026-03-22T00:00:00Z"},
      {"0 0 * * 7", kRef, "2026-03-22T00:00:00Z"},
      {"0 0 * * SUN", kRef, "2026-03-22T00:00:00Z"},
      {"0 0 * * 6-7", kRef, "2026-03-21T00:00:00Z"},
      {"0 0 * * */2", kRef, "2026-03-19T00:00:00Z"},  // Sun, Tue, Thu, Sat
      // Month ends: the 31st fires only in months that have one.
      {"0 0 31 * *", kRef, "2026-03-31T00:00:00Z"},
      {"0 0 31 * *", "2026-04-01T00:00:00Z", "2026-05-31T00:00:00Z"},
      {"0 0 31 * *", "2026-01-31T00:00:00Z", "2026-03-31T00:00:00Z"},
      {"0 0 30 * *", "2026-01-30T00:00:00Z", "2026-03-30T00:00:00Z"},
      // Leap days, including a century year that is not a leap year.
      {"0 0 29 2 *", "2026-01-01T00:00:00Z", "2028-02-29T00:00:00Z"},
      {"0 0 29 2 *", "2096-03-01T00:00:00Z", "2104-02-29T00:00:00Z"},
      {"0 0 29 2 *", "2000-01-01T00:00:00Z", "2000-02-29T00:00:00Z"},
      // Both day fields restricted: either matches. A `*` in one: both must.
      {"0 0 13 * 5", kRef, "2026-03-20T00:00:00Z"},                    // a Friday
      {"0 0 13 * 5", "2026-04-11T00:00:00Z", "2026-04-13T00:00:00Z"},  // a Monday the 13th
      {"0 0 13 * *", kRef, "2026-04-13T00:00:00Z"},
      {"0 0 */2 * 5", kRef, "2026-03-27T00:00:00Z"},  // an odd-numbered Friday
      {"0 0 1-31 * 5", kRef, "2026-03-19T00:00:00Z"},
      {"0 0 30 2 MON", kRef, "2027-02-01T00:00:00Z"},
      // Strictly after, at and around exact boundaries.
      {"0 12 * * *", "2026-03-18T12:00:00Z", "2026-03-19T12:00:00Z"},
      {"0 12 * * *", "2026-03-18T11:59:59.999Z", "2026-03-18T12:00:00Z"},
      {"0 12 * * *", "2026-03-18T12:00:00.5Z", "2026-03-19T12:00:00Z"},
      {"* * * * *", "2026-03-18T10:20:00Z", "2026-03-18T10:21:00Z"},
      {"59 23 * * *", "2026-03-31T23:59:00Z", "2026-04-01T23:59:00Z"},
      // Year rollover.
      {"0 0 1 1 *", "2026-12-31T23:59:59Z", "2027-01-01T00:00:00Z"},
      {"59 23 31 12 *", "2026-12-31T23:59:00Z", "2027-12-31T23:59:00Z"},
      {"* * * * *", "2026-12-31T23:59:00Z", "2027-01-01T00:00:00Z"},
      {"0 0 * * *", "1969-12-31T12:00:00Z", "1970-01-01T00:00:00Z"},
      // Never fires.
      {"0 0 30 2 *", kRef, ""},
      {"0 0 31 2,4,6,9,11 *", kRef, ""},
      // Whitespace.
      {"  \t0 0 * * *\r\n", kRef, "2026-03-19T00:00:00Z"},
      {"0  \t 0 *\t\t*   *", kRef, "2026-03-19T00:00:00Z"},
  };
  for (const auto& c : kCases) {
    const CronSchedule schedule = MustParse(c.expression);
    EXPECT_EQ(Show(schedule.Next(At(c.from))), ShowWant(c.want))
        << "'" << c.expression << "' after " << c.from;
  }
}

TEST(CronTest, Previous) {
  const TimeCase kCases[] = {
      {"* * * * *", kRef, "2026-03-18T10:20:00Z"},
      {"*/15 * * * *", kRef, "2026-03-18T10:15:00Z"},
      {"0 9-17/4 * * *", kRef, "2026-03-18T09:00:00Z"},
      {"@hourly", kRef, "2026-03-18T10:00:00Z"},
      {"@daily", kRef, "2026-03-18T00:00:00Z"},
      {"@weekly", kRef, "2026-03-15T00:00:00Z"},
      {"@monthly", kRef, "2026-03-01T00:00:00Z"},
      {"@yearly", kRef, "2026-01-01T00:00:00Z"},
      {"0 0 * * 7", kRef, "2026-03-15T00:00:00Z"},
      {"0 0 * * MON-FRI", kRef, "2026-03-18T00:00:00Z"},
      {"0 0 * * sat", kRef, "2026-03-14T00:00:00Z"},
      // At or before: a schedule time is its own answer.
      {"0 12 * * *", "2026-03-18T12:00:00Z", "2026-03-18T12:00:00Z"},
      {"0 12 * * *", "2026-03-18T12:00:59.999Z", "2026-03-18T12:00:00Z"},
      {"0 12 * * *", "2026-03-18T11:59:59.999Z", "2026-03-17T12:00:00Z"},
      {"@yearly", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"},
      // Year rollover, month ends, leap days.
      {"0 0 1 1 *", "2025-12-31T23:59:00Z", "2025-01-01T00:00:00Z"},
      {"59 23 31 12 *", "2027-01-01T00:00:00Z", "2026-12-31T23:59:00Z"},
      {"0 0 31 * *", "2026-05-30T00:00:00Z", "2026-03-31T00:00:00Z"},
      {"0 0 29 2 *", kRef, "2024-02-29T00:00:00Z"},
      {"0 0 29 2 *", "2104-02-28T00:00:00Z", "2096-02-29T00:00:00Z"},
      // Either day field when both are restricted.
      {"0 0 13 * 5", "2026-04-16T00:00:00Z", "2026-04-13T00:00:00Z"},
      {"0 0 13 * 5", "2026-03-26T00:00:00Z", "2026-03-20T00:00:00Z"},
      {"0 0 */2 * 5", kRef, "2026-03-13T00:00:00Z"},
      // Never fires.
      {"0 0 30 2 *", kRef, ""},
  };
  for (const auto& c : kCases) {
    const CronSchedule schedule = MustParse(c.expression);
    EXPECT_EQ(Show(schedule.Previous(At(c.from))), ShowWant(c.want))
        << "'" << c.expression << "' at or before " << c.from;
  }
}

TEST(CronTest, EndsOfSystemTime) {
  const CronSchedule schedule = MustParse("* * * * *");
  EXPECT_EQ(schedule.Next(SystemTime::max()), std::nullopt);
  EXPECT_EQ(schedule.Previous(SystemTime::min()), std::nullopt);
  const auto first = schedule.Next(SystemTime::min());
  ASSERT_TRUE(first.has_value());
  EXPECT_GT(*first, SystemTime::min());
  EXPECT_LE(*first, SystemTime::min() + minutes{1});
  const auto last = schedule.Previous(SystemTime::max());
  ASSERT_TRUE(last.has_value());
  EXPECT_LE(*last, SystemTime::max());
  EXPECT_GT(*last, SystemTime::max() - minutes{1});
  // A yearly schedule near the end of SystemTime (2262-04-11) has no next time it can express.
  EXPECT_EQ(MustParse("@yearly").Next(At("2262-01-02T00:00:00Z")), std::nullopt);
}

// Messages are "Invalid cron expression '<text>': <what> at column <n>"; the table holds <what>
// and the column.
TEST(CronTest, Errors) {
  struct Case {
    const char* text;
    const char* what;
  };
  const Case kCases[] = {
      // Field count.
      {"", "expected 5 fields but found 0: the minute field is missing at column 1"},
      {"0 0 * *", "expected 5 fields but found 4: the day-of-week field is missing at column 8"},
      {"0 0 * * * *", "expected 5 fields but found 6 at column 11"},
      // Out of range, with the column in the text as given.
      {"0 25 * * *", "hour 25 out of range 0-23 at column 3"},
      {"  0 25 * * *", "hour 25 out of range 0-23 at column 5"},
      {"60 * * * *", "minute 60 out of range 0-59 at column 1"},
      {"0 0 0 * *", "day-of-month 0 out of range 1-31 at column 5"},
      {"0 0 * 1-13 *", "month 13 out of range 1-12 at column 9"},
      {"0 0 * * 8", "day-of-week 8 out of range 0-7 at column 9"},
      {"99999999999999999999999 * * * *",
       "minute 99999999999999999999999 out of range 0-59 at column 1"},
      // Empty items.
      {"1,,2 * * * *", "minute has an empty list item at column 3"},
      {"0 1, * * *", "hour has an empty list item at column 5"},
      {",1 * * * *", "minute has an empty list item at column 1"},
      // Bad numbers.
      {"a * * * *", "minute expects a number, found 'a' at column 1"},
      {"0 0 JAN * *", "day-of-month expects a number, found 'JAN' at column 5"},
      {"0 1- * * *", "hour expects a number after '-', found the end of the item at column 5"},
      {"0 -1 * * *", "hour expects a number, found '-' at column 3"},
      {"0 0 * ? *", "month expects a number or a name, found '?' at column 7"},
      // Reversed ranges.
      {"5-1 * * * *", "minute range 5-1 is reversed at column 1"},
      {"0 0 * * FRI-MON", "day-of-week range FRI-MON is reversed at column 9"},
      // Steps.
      {"*/0 * * * *", "minute step 0 out of range 1-59 at column 3"},
      {"0 */24 * * *", "hour step 24 out of range 1-23 at column 5"},
      {"*/99999999999999999999 * * * *",
       "minute step 99999999999999999999 out of range 1-59 at column 3"},
      {"*/ * * * *",
       "minute expects a step number after '/', found the end of the item at column 3"},
      {"*/x * * * *", "minute expects a step number after '/', found 'x' at column 3"},
      // Unknown names and nicknames.
      {"0 0 * FOO *", "unknown month name 'FOO' at column 7"},
      {"0 0 * * Monday", "unknown day-of-week name 'Monday' at column 9"},
      {"@reboot", "unknown nickname '@reboot' at column 1"},
      {" @", "unknown nickname '@' at column 2"},
      {"@daily 5", "unexpected '5' after '@daily' at column 8"},
      // Trailing garbage inside a field.
      {"5x * * * *", "unexpected 'x' in the minute field at column 2"},
      {"*5 * * * *", "unexpected '5' in the minute field at column 2"},
      {"1-5-7 * * * *", "unexpected '-' in the minute field at column 4"},
      {"0 0 * * MON1", "unexpected '1' in the day-of-week field at column 12"},
  };
  for (const auto& c : kCases) {
    const auto got = CronSchedule::Parse(c.text);
    ASSERT_FALSE(got.ok()) << c.text;
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument) << c.text;
    EXPECT_EQ(got.status().message(),
              std::string("Invalid cron expression '") + c.text + "': " + c.what)
        << c.text;
  }
}

// Bytes outside printable ASCII are shown escaped; columns still count bytes of the text as given.
TEST(CronTest, ErrorsEscapeControlCharacters) {
  struct Case {
    std::string text;
    const char* message;
  };
  const Case kCases[] = {
      {std::string("0 0 * * *\0", 10),
       "Invalid cron expression '0 0 * * *\\x00': unexpected '\\x00' in the day-of-week field "
       "at column 10"},
      {"0 0 * * 1\n2",
       "Invalid cron expression '0 0 * * 1\\x0a2': unexpected '\\x0a' in the day-of-week field "
       "at column 10"},
  };
  for (const auto& c : kCases) {
    const auto got = CronSchedule::Parse(c.text);
    ASSERT_FALSE(got.ok()) << c.message;
    EXPECT_EQ(got.status().message(), c.message);
  }
}

TEST(CronTest, LongTextIsCutShortInMessages) {
  const std::string text = "0 0 * * " + std::string(500, 'x');
  const auto got = CronSchedule::Parse(text);
  ASSERT_FALSE(got.ok());
  EXPECT_LT(got.status().message().size(), 300u) << got.status().message();
  EXPECT_NE(got.status().message().find("...': "), std::string::npos) << got.status().message();
}

TEST(CronTest, Describe) {
  struct Case {
    const char* expression;
    const char* want;
  };
  const Case kCases[] = {
      {"* * * * *", "every minute"},
      {"*/1 * * * *", "every minute"},
      {"*/15 * * * *", "every 15 minutes"},
      {"0/20 * * * *", "every 20 minutes"},
      {"*/7 * * * *", "every 7 minutes"},
      {"0 * * * *", "every hour"},
      {"@hourly", "every hour"},
      {"30 * * * *", "every hour at minute 30"},
      {"0 0 * * *", "every day at 00:00"},
      {"@midnight", "every day at 00:00"},
      {"45 17 * * *", "every day at 17:45"},
      {"0 0 1-31 * 1", "every day at 00:00"},  // either day field: every day
      {"30 9 * * 1-5", "at 09:30 on Monday through Friday"},
      {"30 9 * * MON-FRI", "at 09:30 on Monday through Friday"},
      {"@weekly", "at 00:00 on Sunday"},
      {"0 0 * * 7", "at 00:00 on Sunday"},
      {"0 18 * * sat,sun", "at 18:00 on Sunday and Saturday"},
      {"0 8 * * 1,3,5", "at 08:00 on Monday, Wednesday and Friday"},
      {"@monthly", "at 00:00 on day 1 of every month"},
      {"0 6 15 * *", "at 06:00 on day 15 of every month"},
      {"@yearly", "at 00:00 on January 1"},
      {"0 12 25 DEC *", "at 12:00 on December 25"},
      // Everything else is shown as written.
      {"5/15 * * * *", "cron 5/15 * * * *"},
      {"0 0 13 * 5", "cron 0 0 13 * 5"},
      {"  5,10  1\t* *   * ", "cron 5,10 1 * * *"},
      {"0 9-17 * * 1-5", "cron 0 9-17 * * 1-5"},
      {"*/15 * * * 1-5", "cron */15 * * * 1-5"},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(MustParse(c.expression).Describe(), c.want) << c.expression;
  }
}

TEST(CronTest, TextIsTrimmedAsWritten) {
  EXPECT_EQ(MustParse("  */5  *\t* * MON \n").text(), "*/5  *\t* * MON");
  EXPECT_EQ(MustParse("@Daily").text(), "@Daily");
}

// The jumping search against a plain scan, minute by minute, of a window around each start: the
// times Next chains through must be exactly the minutes Matches accepts, and so for Previous.
TEST(CronTest, SearchAgreesWithMinuteScan) {
  const char* kExpressions[] = {"* * * * *",     "*/7 * * * *",  "5/13 */5 * * *",
                                "0 0 * * *",     "59 23 * * *",  "0 0 31 * *",
                                "0 0 29 2 *",    "0 0 13 * 5",   "0 0 */2 * 5",
                                "0 0 1-31 * 5",  "30 9 * * 1-5", "0 12 1,15 * *",
                                "0 0 * * 0",     "0 0 * * 7",    "15 3 * JAN,MAR,DEC *",
                                "0 0 28-31 * *", "0 22 * * 6,0", "*/20 1-3 10-20 * 2-4",
                                "0 0 1 * 1",     "0 0 30 2 *",   "@weekly"};
  const char* kStarts[] = {"2026-03-18T10:20:30Z", "2027-12-20T23:59:59Z", "2028-02-01T00:00:00Z"};
  constexpr int kWindowDays = 32;
  for (const char* expression : kExpressions) {
    const CronSchedule schedule = MustParse(expression);
    for (const char* start_text : kStarts) {
      const SystemTime start = At(start_text);
      const SystemTime first = std::chrono::floor<minutes>(start) + minutes{1};
      const SystemTime end = first + std::chrono::days{kWindowDays};
      std::vector<SystemTime> scanned;
      for (SystemTime t = first; t < end; t += minutes{1}) {
        if (schedule.Matches(t)) scanned.push_back(t);
      }
      std::vector<SystemTime> chained;
      for (auto t = schedule.Next(start); t && *t < end; t = schedule.Next(*t)) {
        chained.push_back(*t);
      }
      EXPECT_EQ(chained, scanned) << expression << " from " << start_text;

      std::vector<SystemTime> backwards;
      for (auto t = schedule.Previous(end - seconds{1}); t && *t >= first;
           t = schedule.Previous(*t - seconds{1})) {
        backwards.insert(backwards.begin(), *t);
      }
      EXPECT_EQ(backwards, scanned) << expression << " back from " << start_text;
    }
  }
}

// The sparsest schedules that fire at all: the 1st of one month on one weekday (a `*` day field
// makes both day fields count), and 29 February. Each fires at least every 12 years, so the
// 28-year search never gives up on them, over all the years SystemTime holds.
TEST(CronTest, SparseSchedulesFireWithinTheSearchWindow) {
  std::vector<std::string> expressions = {"0 0 29 2 *"};
  for (int month = 1; month <= 12; ++month) {
    for (int weekday = 0; weekday <= 6; ++weekday) {
      expressions.push_back("0 0 */31 " + std::to_string(month) + " " + std::to_string(weekday));
    }
  }
  const SystemTime begin = At("1700-01-01T00:00:00Z");
  const SystemTime end = At("2250-01-01T00:00:00Z");
  constexpr auto kLongestGap = std::chrono::years{12};
  for (const std::string& expression : expressions) {
    const CronSchedule schedule = MustParse(expression);
    SystemTime t = begin;
    while (t < end) {
      const auto next = schedule.Next(t);
      ASSERT_TRUE(next.has_value()) << expression << " after " << FormatRfc3339(t);
      EXPECT_LE(*next - t, kLongestGap) << expression << " after " << FormatRfc3339(t);
      EXPECT_EQ(schedule.Previous(*next - seconds{1}), t == begin ? schedule.Previous(t) : t)
          << expression << " before " << FormatRfc3339(*next);
      t = *next;
    }
  }
}

// Parse must fail cleanly or succeed on any input, and what it accepts must answer Next and
// Previous consistently.
TEST(CronTest, SurvivesRandomInput) {
  std::mt19937 random(20260318);
  const std::string kAlphabet = "0123456789*/-, ,\t@JANMONsunxyz\n";
  const SystemTime ref = At(kRef);
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const int length = std::uniform_int_distribution<int>(0, 24)(random);
    for (int j = 0; j < length; ++j) {
      const int pick = std::uniform_int_distribution<int>(0, 40)(random);
      text += pick < static_cast<int>(kAlphabet.size())
                  ? kAlphabet[static_cast<size_t>(pick)]
                  : static_cast<char>(std::uniform_int_distribution<int>(0, 255)(random));
    }
    const auto schedule = CronSchedule::Parse(text);
    if (!schedule.ok()) {
      EXPECT_EQ(schedule.status().code(), StatusCode::kInvalidArgument);
      EXPECT_NE(schedule.status().message().find(" at column "), std::string::npos)
          << schedule.status().message();
      continue;
    }
    ++accepted;
    const auto next = schedule->Next(ref);
    if (next) {
      EXPECT_GT(*next, ref) << text;
      EXPECT_TRUE(schedule->Matches(*next)) << text;
      EXPECT_EQ(schedule->Previous(*next), next) << text;
    }
    EXPECT_FALSE(schedule->Describe().empty());
  }
  // Random text rarely forms five fields, but mutating valid expressions does.
  const std::string kSeeds[] = {"*/15 9-17 * * MON-FRI", "0 0 29 2 *", "5,10 1 13 * 5"};
  for (const std::string& seed : kSeeds) {
    for (int i = 0; i < 2000; ++i) {
      std::string text = seed;
      text[std::uniform_int_distribution<size_t>(0, text.size() - 1)(random)] =
          kAlphabet[std::uniform_int_distribution<size_t>(0, kAlphabet.size() - 1)(random)];
      const auto schedule = CronSchedule::Parse(text);
      if (!schedule.ok()) continue;
      ++accepted;
      const auto previous = schedule->Previous(ref);
      if (previous) {
        EXPECT_LE(*previous, ref) << text;
        EXPECT_TRUE(schedule->Matches(*previous)) << text;
        EXPECT_GT(schedule->Next(*previous), ref) << text;
      }
    }
  }
  EXPECT_GT(accepted, 100);
}

}  // namespace
}  // namespace hop
