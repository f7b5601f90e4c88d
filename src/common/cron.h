// Cron schedules: the five-field expressions of Vixie cron (`*/15 9-17 * * MON-FRI`) and its
// @nicknames, parsed once and then asked for the next or previous time they fire. Scheduled
// triggers and refreshed materialized views carry such expressions; docs/cron.md is the reference.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "common/time.h"

namespace hop {

// A parsed cron expression. Every time is UTC and a whole minute. The value is immutable after
// Parse, so one schedule may be shared by any number of threads.
class CronSchedule {
 public:
  // Parses five fields separated by spaces or tabs (minute 0-59, hour 0-23, day-of-month 1-31,
  // month 1-12 or JAN-DEC, day-of-week 0-7 or SUN-SAT, where 0 and 7 are both Sunday), each a
  // comma-separated list of `*`, `n`, `a-b`, any of them followed by a step `/s`, and `n/s`
  // meaning `n-<max>/s`. Names are case-insensitive; nicknames @yearly @annually @monthly
  // @weekly @daily @midnight @hourly stand for whole expressions. Whitespace around the
  // expression is ignored.
  // Day semantics are Vixie cron's: when both day fields are restricted (neither starts with
  // `*`), a day matches if either field matches; otherwise it must match both.
  // Errors: InvalidArgument "Invalid cron expression '<text>': <what> at column <n>", where the
  // message names the field and <n> is the 1-based byte column in `text` as given.
  static Result<CronSchedule> Parse(std::string_view text);

  // The first schedule time strictly after `after`. nullopt when the schedule never fires (such as
  // `0 0 30 2 *`), which is decided by searching 28 years ahead: any expression that can fire
  // does so at least once in every 12 years. Also nullopt when the answer is past the end of
  // SystemTime (year 2262).
  std::optional<SystemTime> Next(SystemTime after) const;
  // The latest schedule time at or before `at_or_before`; nullopt as for Next, searching back.
  std::optional<SystemTime> Previous(SystemTime at_or_before) const;
  // Whether the minute holding `t` is a schedule time.
  bool Matches(SystemTime t) const;

  // A short English description of common shapes ("every 15 minutes", "every day at 00:00",
  // "at 09:30 on Monday through Friday"); otherwise "cron " and the fields as written, separated
  // by single spaces.
  std::string Describe() const;

  // The expression as written, without surrounding whitespace.
  const std::string& text() const { return text_; }

 private:
  CronSchedule() = default;

  // Searches, in minutes since the epoch; both sides may lie outside SystemTime's range.
  std::optional<int64_t> FirstAtOrAfter(int64_t minute) const;
  std::optional<int64_t> LastAtOrBefore(int64_t minute) const;
  // Bit d (1-31) set when day d of `month` in `year` matches both day fields as the day
  // semantics combine them.
  uint64_t MatchingDays(int year, unsigned month) const;

  std::string text_;
  std::string fields_;  // the five fields joined by single spaces; a nickname's expansion
  // One bit per allowed value: bit 5 of hours_ is 05:00. Day-of-week 7 is stored as 0.
  uint64_t minutes_ = 0;
  uint64_t hours_ = 0;
  uint64_t days_of_month_ = 0;
  uint64_t months_ = 0;
  uint64_t days_of_week_ = 0;
  bool day_of_month_star_ = false;  // the field starts with `*`
  bool day_of_week_star_ = false;
  // days_of_week_ laid over a month: entry w has bit d set when day d of a month whose first
  // day is weekday w (0 = Sunday) falls on an allowed day of the week.
  std::array<uint64_t, 7> week_days_by_first_{};
};

}  // namespace hop
