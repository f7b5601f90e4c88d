// Cron expression parsing and schedule search. A parsed expression is five bit sets, one per
// field; Next and Previous walk the calendar a month, a day and an hour at a time, using the bit
// sets to jump straight to the next allowed value, so a call costs a handful of steps rather than
// a scan over minutes.
#include "common/cron.h"

#include <fmt/format.h>

#include <bit>
#include <cassert>
#include <chrono>
#include <span>

#include "common/strings.h"

namespace hop {
namespace {

// Any expression that fires at all fires within every 12 consecutive years: a fixed date fires
// at least every 8 (29 February skips century years), and a day-of-week restriction combined
// with a `*` day-of-month field can always be met on the 1st of an allowed month, which falls on
// each weekday at least every 12 years. 28 years, a full cycle of weekdays over leap years, is
// comfortably more and still only a few hundred steps for an expression that never fires.
constexpr int kSearchYears = 28;

constexpr int64_t kMinutesPerDay = 24 * 60;

// Longest piece of user text that goes into a message, so a huge input makes a short message.
constexpr size_t kMaxQuoted = 64;

constexpr std::string_view kMonthNames[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                            "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr std::string_view kDayNames[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};
constexpr std::string_view kMonthWords[] = {"January",   "February", "March",    "April",
                                            "May",       "June",     "July",     "August",
                                            "September", "October",  "November", "December"};
constexpr std::string_view kDayWords[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                          "Thursday", "Friday", "Saturday"};

struct FieldSpec {
  std::string_view name;  // as messages name the field
  int min;
  int max;
  std::span<const std::string_view> names;  // names[i] stands for min + i; empty: numbers only
};

constexpr FieldSpec kFields[] = {
    {"minute", 0, 59, {}},
    {"hour", 0, 23, {}},
    {"day-of-month", 1, 31, {}},
    {"month", 1, 12, kMonthNames},
    {"day-of-week", 0, 7, kDayNames},
};
constexpr size_t kMinute = 0;
constexpr size_t kHour = 1;
constexpr size_t kDayOfMonth = 2;
constexpr size_t kMonth = 3;
constexpr size_t kDayOfWeek = 4;
constexpr size_t kFieldCount = 5;

struct Nickname {
  std::string_view name;
  std::string_view fields;
};
constexpr Nickname kNicknames[] = {
    {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
    {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
    {"@hourly", "0 * * * *"},
};

// Bits lo..hi set.
constexpr uint64_t BitRange(int lo, int hi) {
  return ((uint64_t{1} << (hi + 1)) - 1) & ~((uint64_t{1} << lo) - 1);
}
constexpr uint64_t kAllMinutes = BitRange(0, 59);
constexpr uint64_t kAllHours = BitRange(0, 23);
constexpr uint64_t kAllDaysOfMonth = BitRange(1, 31);
constexpr uint64_t kAllMonths = BitRange(1, 12);
constexpr uint64_t kAllDaysOfWeek = BitRange(0, 6);

bool Has(uint64_t bits, int64_t value) { return value >= 0 && value < 64 && (bits >> value & 1); }

// The lowest set bit at or above `from`, or -1.
int LowestAtOrAbove(uint64_t bits, int from) {
  if (from >= 64) return -1;
  if (from > 0) bits &= ~uint64_t{0} << from;
  return bits == 0 ? -1 : std::countr_zero(bits);
}

// The highest set bit at or below `to`, or -1.
int HighestAtOrBelow(uint64_t bits, int to) {
  if (to < 0) return -1;
  if (to < 63) bits &= (uint64_t{2} << to) - 1;
  return bits == 0 ? -1 : std::bit_width(bits) - 1;
}

// The only value in `bits`, or -1 when there are none or several.
int SingleValue(uint64_t bits) { return std::popcount(bits) == 1 ? std::countr_zero(bits) : -1; }

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Minutes since the epoch of the minute holding `t`; every SystemTime has one.
int64_t FloorMinutes(SystemTime t) {
  return std::chrono::floor<std::chrono::minutes>(t.time_since_epoch()).count();
}

// The minutes SystemTime can hold (about the years 1677 to 2262).
constexpr int64_t kFirstMinute =
    std::chrono::ceil<std::chrono::minutes>(SystemTime::min().time_since_epoch()).count();
constexpr int64_t kLastMinute =
    std::chrono::floor<std::chrono::minutes>(SystemTime::max().time_since_epoch()).count();

// The SystemTime of `minute`, or nullopt when SystemTime cannot hold it.
std::optional<SystemTime> MinuteToTime(int64_t minute) {
  if (minute < kFirstMinute || minute > kLastMinute) return std::nullopt;
  return SystemTime(std::chrono::minutes{minute});
}

struct CivilMinute {
  int year;
  unsigned month;  // 1-12
  unsigned day;    // 1-31
  int hour;
  int minute;
};

CivilMinute ToCivil(int64_t minute) {
  using namespace std::chrono;
  const int64_t day = FloorDiv(minute, kMinutesPerDay);
  const int64_t of_day = minute - day * kMinutesPerDay;
  const year_month_day ymd{sys_days{days{day}}};
  return {static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
          static_cast<unsigned>(ymd.day()), static_cast<int>(of_day / 60),
          static_cast<int>(of_day % 60)};
}

int64_t FromCivil(const CivilMinute& c) {
  using namespace std::chrono;
  const sys_days day{year{c.year} / month{c.month} / std::chrono::day{c.day}};
  return static_cast<int64_t>(day.time_since_epoch().count()) * kMinutesPerDay + c.hour * 60 +
         c.minute;
}

unsigned DaysInMonth(int y, unsigned m) {
  using namespace std::chrono;
  return static_cast<unsigned>((year{y} / month{m} / last).day());
}

// 0 for Sunday.
unsigned WeekdayOfFirst(int y, unsigned m) {
  using namespace std::chrono;
  return weekday{sys_days{year{y} / month{m} / 1}}.c_encoding();
}

// `text` for a message: quoted, bytes outside printable ASCII as \xNN, cut short when long.
std::string Quote(std::string_view text) {
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < kMaxQuoted; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (text.size() > kMaxQuoted) out += "...";
  out += "'";
  return out;
}

// Text already known to be digits, letters and '-' cut short when long.
std::string Shorten(std::string_view text) {
  if (text.size() <= kMaxQuoted) return std::string(text);
  return std::string(text.substr(0, kMaxQuoted)) + "...";
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLetter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool IsFieldSeparator(char c) { return c == ' ' || c == '\t'; }

// One parsed field.
struct FieldBits {
  uint64_t bits = 0;
  bool star = false;  // the field starts with `*`
};

// Parses the fields of one expression. Positions are byte offsets into the whole text as the
// caller gave it, so that messages can point at columns the user can count.
class ExpressionParser {
 public:
  explicit ExpressionParser(std::string_view text) : text_(text) {}

  // Splits [begin, end) of the text into fields and parses each.
  Result<std::array<FieldBits, kFieldCount>> ParseFields(size_t begin, size_t end) const {
    std::array<size_t, kFieldCount> starts{};
    std::array<size_t, kFieldCount> ends{};
    size_t count = 0;
    size_t extra = 0;  // where the first field past the fifth starts
    size_t pos = begin;
    while (pos < end) {
      while (pos < end && IsFieldSeparator(text_[pos])) ++pos;
      if (pos == end) break;
      const size_t field_begin = pos;
      while (pos < end && !IsFieldSeparator(text_[pos])) ++pos;
      if (count < kFieldCount) {
        starts[count] = field_begin;
        ends[count] = pos;
      } else if (count == kFieldCount) {
        extra = field_begin;
      }
      ++count;
    }
    if (count > kFieldCount) {
      return Error(extra, fmt::format("expected 5 fields but found {}", count));
    }
    if (count < kFieldCount) {
      return Error(end, fmt::format("expected 5 fields but found {}: the {} field is missing",
                                    count, kFields[count].name));
    }
    std::array<FieldBits, kFieldCount> fields;
    for (size_t i = 0; i < kFieldCount; ++i) {
      HOP_ASSIGN_OR_RETURN(fields[i], ParseField(kFields[i], starts[i], ends[i]));
    }
    return fields;
  }

  // "Invalid cron expression '<text>': <what> at column <n>", pointing at text_[pos].
  Status Error(size_t pos, std::string_view what) const {
    return Status::InvalidArgument(
        fmt::format("Invalid cron expression {}: {} at column {}", Quote(text_), what, pos + 1));
  }

 private:
  Result<FieldBits> ParseField(const FieldSpec& field, size_t begin, size_t end) const {
    FieldBits out;
    out.star = text_[begin] == '*';
    size_t item_begin = begin;
    while (true) {
      size_t item_end = item_begin;
      while (item_end < end && text_[item_end] != ',') ++item_end;
      HOP_ASSIGN_OR_RETURN(const uint64_t bits, ParseItem(field, item_begin, item_end));
      out.bits |= bits;
      if (item_end == end) break;
      item_begin = item_end + 1;  // past the comma
    }
    return out;
  }

  // One list item: `*`, `n` or `a-b`, optionally followed by `/step`.
  Result<uint64_t> ParseItem(const FieldSpec& field, size_t begin, size_t end) const {
    if (begin == end) return Error(begin, fmt::format("{} has an empty list item", field.name));
    size_t pos = begin;
    int first = field.min;
    int last = field.max;
    bool single = false;  // a lone value: with a step it runs to the field's maximum
    if (text_[pos] == '*') {
      ++pos;
    } else {
      HOP_ASSIGN_OR_RETURN(first, ParseValue(field, &pos, end, ""));
      last = first;
      single = true;
      if (pos < end && text_[pos] == '-') {
        ++pos;
        HOP_ASSIGN_OR_RETURN(last, ParseValue(field, &pos, end, " after '-'"));
        single = false;
        if (first > last) {
          return Error(begin, fmt::format("{} range {} is reversed", field.name,
                                          Shorten(text_.substr(begin, pos - begin))));
        }
      }
    }
    int step = 1;
    if (pos < end && text_[pos] == '/') {
      ++pos;
      HOP_ASSIGN_OR_RETURN(step, ParseStep(field, &pos, end));
      if (single) last = field.max;
    }
    if (pos < end) {
      return Error(pos, fmt::format("unexpected {} in the {} field", Quote(text_.substr(pos, 1)),
                                    field.name));
    }
    uint64_t bits = 0;
    for (int v = first; v <= last; v += step) bits |= uint64_t{1} << v;
    return bits;
  }

  // A number or, where the field has names, a name; advances *pos past it.
  Result<int> ParseValue(const FieldSpec& field, size_t* pos, size_t end,
                         std::string_view context) const {
    const size_t begin = *pos;
    if (begin < end && IsDigit(text_[begin])) {
      const std::string_view digits = ReadRun(pos, end, IsDigit);
      const int64_t value = SaturatedNumber(digits);
      if (value < field.min || value > field.max) {
        return Error(begin, fmt::format("{} {} out of range {}-{}", field.name, Shorten(digits),
                                        field.min, field.max));
      }
      return static_cast<int>(value);
    }
    if (begin < end && IsLetter(text_[begin]) && !field.names.empty()) {
      const std::string_view word = ReadRun(pos, end, IsLetter);
      for (size_t i = 0; i < field.names.size(); ++i) {
        if (EqualsIgnoreCase(word, field.names[i])) return field.min + static_cast<int>(i);
      }
      return Error(begin, fmt::format("unknown {} name {}", field.name, Quote(word)));
    }
    const std::string_view expected = field.names.empty() ? "a number" : "a number or a name";
    if (begin == end) {
      return Error(begin, fmt::format("{} expects {}{}, found the end of the item", field.name,
                                      expected, context));
    }
    const std::string_view found =
        IsLetter(text_[begin]) ? ReadRun(pos, end, IsLetter) : text_.substr(begin, 1);
    return Error(begin, fmt::format("{} expects {}{}, found {}", field.name, expected, context,
                                    Quote(found)));
  }

  // The number after '/': 1 to the field's maximum.
  Result<int> ParseStep(const FieldSpec& field, size_t* pos, size_t end) const {
    const size_t begin = *pos;
    if (begin == end || !IsDigit(text_[begin])) {
      const std::string found =
          begin == end ? "the end of the item" : Quote(text_.substr(begin, 1));
      return Error(begin,
                   fmt::format("{} expects a step number after '/', found {}", field.name, found));
    }
    const std::string_view digits = ReadRun(pos, end, IsDigit);
    const int64_t step = SaturatedNumber(digits);
    if (step < 1 || step > field.max) {
      return Error(begin, fmt::format("{} step {} out of range 1-{}", field.name, Shorten(digits),
                                      field.max));
    }
    return static_cast<int>(step);
  }

  std::string_view ReadRun(size_t* pos, size_t end, bool (*in_run)(char)) const {
    const size_t begin = *pos;
    while (*pos < end && in_run(text_[*pos])) ++*pos;
    return text_.substr(begin, *pos - begin);
  }

  // The value of a run of digits, capped well above any field's maximum so that it cannot
  // overflow however long the run is.
  static int64_t SaturatedNumber(std::string_view digits) {
    constexpr int64_t kCap = 1'000'000;
    int64_t value = 0;
    for (char c : digits) {
      value = value * 10 + (c - '0');
      if (value > kCap) return kCap;
    }
    return value;
  }

  std::string_view text_;
};

// "Monday through Friday", "Sunday and Saturday", "Monday, Wednesday and Friday".
std::string DescribeDaysOfWeek(uint64_t days) {
  const int first = std::countr_zero(days);
  const int last = std::bit_width(days) - 1;
  if (last - first >= 2 && days == BitRange(first, last)) {
    return fmt::format("{} through {}", kDayWords[first], kDayWords[last]);
  }
  std::string out;
  for (int d = first; d <= last; ++d) {
    if (!Has(days, d)) continue;
    if (!out.empty()) out += d == last ? " and " : ", ";
    out += kDayWords[d];
  }
  return out;
}

// The step s when `minutes` is exactly 0, s, 2s, ... below 60; 0 otherwise.
int EvenMinuteStep(uint64_t minutes) {
  for (int step = 2; step < 60; ++step) {
    uint64_t want = 0;
    for (int m = 0; m < 60; m += step) want |= uint64_t{1} << m;
    if (minutes == want) return step;
  }
  return 0;
}

}  // namespace

Result<CronSchedule> CronSchedule::Parse(std::string_view text) {
  const ExpressionParser parser(text);
  const std::string_view trimmed = TrimWhitespace(text);
  const size_t begin = static_cast<size_t>(trimmed.data() - text.data());
  const size_t end = begin + trimmed.size();

  CronSchedule schedule;
  schedule.text_ = std::string(trimmed);
  std::array<FieldBits, kFieldCount> fields;
  if (!trimmed.empty() && trimmed.front() == '@') {
    size_t name_end = begin;
    while (name_end < end && !IsFieldSeparator(text[name_end])) ++name_end;
    const std::string_view name = text.substr(begin, name_end - begin);
    const Nickname* nickname = nullptr;
    for (const Nickname& n : kNicknames) {
      if (EqualsIgnoreCase(name, n.name)) nickname = &n;
    }
    if (nickname == nullptr) {
      return parser.Error(begin, fmt::format("unknown nickname {}", Quote(name)));
    }
    size_t rest = name_end;
    while (rest < end && IsFieldSeparator(text[rest])) ++rest;
    if (rest < end) {
      return parser.Error(rest, fmt::format("unexpected {} after {}",
                                            Quote(text.substr(rest, end - rest)), Quote(name)));
    }
    auto expanded = ExpressionParser(nickname->fields).ParseFields(0, nickname->fields.size());
    assert(expanded.ok() && "every nickname stands for a valid expression");
    fields = *expanded;
    schedule.fields_ = std::string(nickname->fields);
  } else {
    HOP_ASSIGN_OR_RETURN(fields, parser.ParseFields(begin, end));
    // The fields again, joined by single spaces, for Describe to show.
    for (size_t pos = begin; pos < end;) {
      const size_t field_begin = pos;
      while (pos < end && !IsFieldSeparator(text[pos])) ++pos;
      if (!schedule.fields_.empty()) schedule.fields_ += ' ';
      schedule.fields_ += text.substr(field_begin, pos - field_begin);
      while (pos < end && IsFieldSeparator(text[pos])) ++pos;
    }
  }

  schedule.minutes_ = fields[kMinute].bits;
  schedule.hours_ = fields[kHour].bits;
  schedule.days_of_month_ = fields[kDayOfMonth].bits;
  schedule.months_ = fields[kMonth].bits;
  uint64_t week = fields[kDayOfWeek].bits;
  if (Has(week, 7)) week = (week & ~(uint64_t{1} << 7)) | 1;  // 7 is Sunday, as 0 is
  schedule.days_of_week_ = week;
  schedule.day_of_month_star_ = fields[kDayOfMonth].star;
  schedule.day_of_week_star_ = fields[kDayOfWeek].star;
  for (int first = 0; first < 7; ++first) {
    uint64_t days = 0;
    for (int d = 1; d <= 31; ++d) {
      if (Has(week, (first + d - 1) % 7)) days |= uint64_t{1} << d;
    }
    schedule.week_days_by_first_[static_cast<size_t>(first)] = days;
  }
  return schedule;
}

uint64_t CronSchedule::MatchingDays(int year, unsigned month) const {
  const uint64_t valid = BitRange(1, static_cast<int>(DaysInMonth(year, month)));
  const uint64_t by_month_day = days_of_month_ & valid;
  const uint64_t by_week_day = week_days_by_first_[WeekdayOfFirst(year, month)] & valid;
  if (day_of_month_star_ || day_of_week_star_) return by_month_day & by_week_day;
  return by_month_day | by_week_day;
}

// Each turn of the loop either finds the answer or moves to the start of a later hour, day or
// month, so a search takes a few steps per month it passes.
std::optional<int64_t> CronSchedule::FirstAtOrAfter(int64_t minute) const {
  CivilMinute at = ToCivil(minute);
  const int last_year = at.year + kSearchYears;
  while (at.year <= last_year) {
    if (at.month > 12) {
      ++at.year;
      at.month = 1;
    }
    if (!Has(months_, at.month)) {
      const int month = LowestAtOrAbove(months_, static_cast<int>(at.month));
      if (month < 0) {
        ++at.year;
        at.month = static_cast<unsigned>(std::countr_zero(months_));
      } else {
        at.month = static_cast<unsigned>(month);
      }
      at = {at.year, at.month, 1, 0, 0};
      continue;
    }
    const int day = LowestAtOrAbove(MatchingDays(at.year, at.month), static_cast<int>(at.day));
    if (day < 0) {
      at = {at.year, at.month + 1, 1, 0, 0};
      continue;
    }
    if (static_cast<unsigned>(day) != at.day)
      at = {at.year, at.month, static_cast<unsigned>(day), 0, 0};
    const int hour = LowestAtOrAbove(hours_, at.hour);
    if (hour < 0) {
      at = {at.year, at.month, at.day + 1, 0, 0};
      continue;
    }
    if (hour != at.hour) at = {at.year, at.month, at.day, hour, 0};
    const int found = LowestAtOrAbove(minutes_, at.minute);
    if (found < 0) {
      at = {at.year, at.month, at.day, at.hour + 1, 0};
      continue;
    }
    at.minute = found;
    return FromCivil(at);
  }
  return std::nullopt;
}

// The mirror image of FirstAtOrAfter. Day 31 stands for "the month's last day": MatchingDays
// has no bits past it.
std::optional<int64_t> CronSchedule::LastAtOrBefore(int64_t minute) const {
  CivilMinute at = ToCivil(minute);
  const int first_year = at.year - kSearchYears;
  while (at.year >= first_year) {
    if (at.month < 1) {
      --at.year;
      at.month = 12;
    }
    if (!Has(months_, at.month)) {
      const int month = HighestAtOrBelow(months_, static_cast<int>(at.month));
      if (month < 0) {
        --at.year;
        at.month = static_cast<unsigned>(std::bit_width(months_) - 1);
      } else {
        at.month = static_cast<unsigned>(month);
      }
      at = {at.year, at.month, 31, 23, 59};
      continue;
    }
    const int day = HighestAtOrBelow(MatchingDays(at.year, at.month), static_cast<int>(at.day));
    if (day < 0) {
      at = {at.year, at.month - 1, 31, 23, 59};
      continue;
    }
    if (static_cast<unsigned>(day) != at.day)
      at = {at.year, at.month, static_cast<unsigned>(day), 23, 59};
    const int hour = HighestAtOrBelow(hours_, at.hour);
    if (hour < 0) {
      at = {at.year, at.month, at.day - 1, 23, 59};
      continue;
    }
    if (hour != at.hour) at = {at.year, at.month, at.day, hour, 59};
    const int found = HighestAtOrBelow(minutes_, at.minute);
    if (found < 0) {
      at = {at.year, at.month, at.day, at.hour - 1, 59};
      continue;
    }
    at.minute = found;
    return FromCivil(at);
  }
  return std::nullopt;
}

std::optional<SystemTime> CronSchedule::Next(SystemTime after) const {
  // Schedule times are whole minutes, so the first candidate is the minute after the one
  // holding `after`.
  const auto found = FirstAtOrAfter(FloorMinutes(after) + 1);
  if (!found) return std::nullopt;
  return MinuteToTime(*found);
}

std::optional<SystemTime> CronSchedule::Previous(SystemTime at_or_before) const {
  const auto found = LastAtOrBefore(FloorMinutes(at_or_before));
  if (!found) return std::nullopt;
  return MinuteToTime(*found);
}

// Deliberately direct (no jumps, no precomputed tables): tests check the search against it.
bool CronSchedule::Matches(SystemTime t) const {
  using namespace std::chrono;
  const int64_t minute = FloorMinutes(t);
  const CivilMinute at = ToCivil(minute);
  const unsigned weekday_of_day =
      weekday{sys_days{days{FloorDiv(minute, kMinutesPerDay)}}}.c_encoding();
  const bool by_month_day = Has(days_of_month_, at.day);
  const bool by_week_day = Has(days_of_week_, weekday_of_day);
  const bool day_matches = (day_of_month_star_ || day_of_week_star_) ? by_month_day && by_week_day
                                                                     : by_month_day || by_week_day;
  return day_matches && Has(months_, at.month) && Has(hours_, at.hour) && Has(minutes_, at.minute);
}

std::string CronSchedule::Describe() const {
  const bool every_month = months_ == kAllMonths;
  const bool all_month_days = days_of_month_ == kAllDaysOfMonth;
  const bool all_week_days = days_of_week_ == kAllDaysOfWeek;
  // With a `*` in either day field both must match; otherwise either may.
  const bool both_must_match = day_of_month_star_ || day_of_week_star_;
  const bool every_day =
      (all_month_days && all_week_days) || (!both_must_match && (all_month_days || all_week_days));
  const bool week_days_only = both_must_match && all_month_days && !all_week_days;
  const bool month_days_only = both_must_match && all_week_days && !all_month_days;
  const int minute = SingleValue(minutes_);
  const int hour = SingleValue(hours_);

  if (every_month && every_day && hours_ == kAllHours) {
    if (minutes_ == kAllMinutes) return "every minute";
    if (const int step = EvenMinuteStep(minutes_); step > 0) {
      return fmt::format("every {} minutes", step);
    }
    if (minute == 0) return "every hour";
    if (minute > 0) return fmt::format("every hour at minute {}", minute);
  }
  if (minute >= 0 && hour >= 0) {
    const std::string at = fmt::format("at {:02}:{:02}", hour, minute);
    if (every_month && every_day) return "every day " + at;
    if (every_month && week_days_only) return at + " on " + DescribeDaysOfWeek(days_of_week_);
    const int day = SingleValue(days_of_month_);
    const int month = SingleValue(months_);
    if (month_days_only && day > 0) {
      if (every_month) return fmt::format("{} on day {} of every month", at, day);
      if (month > 0) return fmt::format("{} on {} {}", at, kMonthWords[month - 1], day);
    }
  }
  return "cron " + fields_;
}

}  // namespace hop
