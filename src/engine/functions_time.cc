// Date and time functions: EXTRACT and the parts functions (YEAR, DAYOFWEEK, ...), month
// arithmetic, formatting (DATE_FORMAT with MySQL's specifiers; FROM_UNIXTIME with Java's
// pattern letters) and parsing (TO_TIMESTAMP, TO_DATE, UNIX_TIMESTAMP). Times are UTC: the
// session has no time zone of its own.
#include <fmt/format.h>

#include <cmath>

#include "common/strings.h"
#include "engine/functions_impl.h"

namespace hop::engine::internal {
namespace {

struct Parts {
  int64_t year = 1970;
  unsigned month = 1, day = 1;
  int64_t hour = 0, minute = 0, second = 0, micros = 0;
  int64_t days = 0;  // since the epoch
};

Parts Split(int64_t value, const Rep& rep) {
  Parts p;
  int64_t time = 0;
  switch (rep.kind) {
    case RepKind::kDate: p.days = value; break;
    case RepKind::kTime: time = FloorMod(value, kMicrosPerDay); break;
    default: p.days = FloorDiv(value, kMicrosPerDay); time = FloorMod(value, kMicrosPerDay);
  }
  if (rep.kind != RepKind::kTime) CivilFromDays(p.days, &p.year, &p.month, &p.day);
  p.hour = time / (3600 * kMicrosPerSecond);
  p.minute = time / (60 * kMicrosPerSecond) % 60;
  p.second = time / kMicrosPerSecond % 60;
  p.micros = time % kMicrosPerSecond;
  return p;
}

// ISO 8601 week number and week-year.
void IsoWeek(int64_t days, int64_t* week, int64_t* year) {
  const int64_t dow = FloorMod(days + 3, 7) + 1;  // 1 = Monday (1970-01-01 was a Thursday)
  const int64_t thursday = days - dow + 4;
  int64_t y;
  unsigned m, d;
  CivilFromDays(thursday, &y, &m, &d);
  *year = y;
  *week = (thursday - DaysFromCivil(y, 1, 1)) / 7 + 1;
}

void ExtractFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[1]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  const Rep* rep = ArgRep(ctx, argv, 2);
  if (!rep) return;
  const std::string_view unit = ArgText(argv[0]);
  const int64_t v = sqlite3_value_int64(argv[1]);
  if (rep->kind == RepKind::kMonths) {
    if (unit == "YEAR") return sqlite3_result_int64(ctx, v / 12);
    if (unit == "MONTH") return sqlite3_result_int64(ctx, v % 12);
    if (unit == "QUARTER") return sqlite3_result_int64(ctx, v % 12 / 3 + 1);
    return SetError(ctx,
                    fmt::format("EXTRACT({} FROM a year-month interval) is not defined", unit));
  }
  if (rep->kind == RepKind::kMicros) {
    const int64_t secs = v / kMicrosPerSecond;
    if (unit == "DAY") return sqlite3_result_int64(ctx, secs / 86400);
    if (unit == "HOUR") return sqlite3_result_int64(ctx, secs / 3600 % 24);
    if (unit == "MINUTE") return sqlite3_result_int64(ctx, secs / 60 % 60);
    if (unit == "SECOND") return sqlite3_result_int64(ctx, secs % 60);
    if (unit == "MILLISECOND") return sqlite3_result_int64(ctx, v / 1000 % 60000);
    if (unit == "MICROSECOND") return sqlite3_result_int64(ctx, v % 60000000);
    if (unit == "EPOCH") return sqlite3_result_int64(ctx, secs);
    return SetError(ctx, fmt::format("EXTRACT({} FROM a day-time interval) is not defined", unit));
  }
  if (!rep->temporal()) return SetError(ctx, "EXTRACT needs a date, time or timestamp");
  const Parts p = Split(v, *rep);
  const bool has_date = rep->kind != RepKind::kTime;
  const bool has_time = rep->kind != RepKind::kDate;
  auto out = [&](int64_t x) { sqlite3_result_int64(ctx, x); };
  if (has_date) {
    if (unit == "YEAR") return out(p.year);
    if (unit == "QUARTER") return out((p.month - 1) / 3 + 1);
    if (unit == "MONTH") return out(p.month);
    if (unit == "DAY") return out(p.day);
    if (unit == "DOY") return out(p.days - DaysFromCivil(p.year, 1, 1) + 1);
    if (unit == "DOW") return out(FloorMod(p.days + 4, 7) + 1);     // 1 = Sunday
    if (unit == "ISODOW") return out(FloorMod(p.days + 3, 7) + 1);  // 1 = Monday
    if (unit == "WEEK" || unit == "ISOYEAR") {
      int64_t week = 0, year = 0;
      IsoWeek(p.days, &week, &year);
      return out(unit == "WEEK" ? week : year);
    }
    if (unit == "DECADE") return out(FloorDiv(p.year, 10));
    if (unit == "CENTURY") return out(p.year > 0 ? (p.year + 99) / 100 : -((-p.year + 99) / 100));
    if (unit == "MILLENNIUM") {
      return out(p.year > 0 ? (p.year + 999) / 1000 : -((-p.year + 999) / 1000));
    }
    if (unit == "EPOCH") {
      return out(rep->kind == RepKind::kDate ? v * 86400 : FloorDiv(v, kMicrosPerSecond));
    }
  }
  if (has_time) {
    if (unit == "HOUR") return out(p.hour);
    if (unit == "MINUTE") return out(p.minute);
    if (unit == "SECOND") return out(p.second);
    if (unit == "MILLISECOND") return out(p.second * 1000 + p.micros / 1000);
    if (unit == "MICROSECOND") return out(p.second * kMicrosPerSecond + p.micros);
    if (unit == "EPOCH") return out(FloorDiv(v, kMicrosPerSecond));
  }
  if (!has_time && (unit == "HOUR" || unit == "MINUTE" || unit == "SECOND")) return out(0);
  SetError(ctx, fmt::format("EXTRACT({} FROM {}) is not supported", unit, RepTypeName(*rep)));
}

void AddMonthsFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
    return sqlite3_result_null(ctx);
  }
  const Rep* rep = ArgRep(ctx, argv, 2);
  if (!rep) return;
  const int64_t v = sqlite3_value_int64(argv[0]), months = sqlite3_value_int64(argv[1]);
  if (rep->kind == RepKind::kDate) return sqlite3_result_int64(ctx, AddMonthsToDate(v, months));
  if (rep->kind == RepKind::kTime) return sqlite3_result_int64(ctx, v);
  const int64_t days = FloorDiv(v, kMicrosPerDay);
  sqlite3_result_int64(ctx,
                       AddMonthsToDate(days, months) * kMicrosPerDay + FloorMod(v, kMicrosPerDay));
}

void AddTimeFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
    return sqlite3_result_null(ctx);
  }
  sqlite3_result_int64(
      ctx, FloorMod(sqlite3_value_int64(argv[0]) + sqlite3_value_int64(argv[1]), kMicrosPerDay));
}

constexpr const char* kMonthNames[] = {"January",   "February", "March",    "April",
                                       "May",       "June",     "July",     "August",
                                       "September", "October",  "November", "December"};
constexpr const char* kDayNames[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                     "Thursday", "Friday", "Saturday"};

// MySQL's DATE_FORMAT specifiers.
std::string FormatMysql(const Parts& p, std::string_view format) {
  std::string out;
  const int64_t dow = FloorMod(p.days + 4, 7);  // 0 = Sunday
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%' || i + 1 == format.size()) {
      out += format[i];
      continue;
    }
    const char c = format[++i];
    const int64_t h12 = p.hour % 12 == 0 ? 12 : p.hour % 12;
    switch (c) {
      case 'Y': out += fmt::format("{:04}", p.year); break;
      case 'y': out += fmt::format("{:02}", FloorMod(p.year, 100)); break;
      case 'm': out += fmt::format("{:02}", p.month); break;
      case 'c': out += fmt::format("{}", p.month); break;
      case 'M': out += kMonthNames[p.month - 1]; break;
      case 'b': out += std::string_view(kMonthNames[p.month - 1]).substr(0, 3); break;
      case 'd': out += fmt::format("{:02}", p.day); break;
      case 'e': out += fmt::format("{}", p.day); break;
      case 'j': out += fmt::format("{:03}", p.days - DaysFromCivil(p.year, 1, 1) + 1); break;
      case 'H': out += fmt::format("{:02}", p.hour); break;
      case 'k': out += fmt::format("{}", p.hour); break;
      case 'h':
      case 'I': out += fmt::format("{:02}", h12); break;
      case 'l': out += fmt::format("{}", h12); break;
      case 'i': out += fmt::format("{:02}", p.minute); break;
      case 's':
      case 'S': out += fmt::format("{:02}", p.second); break;
      case 'f': out += fmt::format("{:06}", p.micros); break;
      case 'p': out += p.hour < 12 ? "AM" : "PM"; break;
      case 'W': out += kDayNames[dow]; break;
      case 'a': out += std::string_view(kDayNames[dow]).substr(0, 3); break;
      case 'w': out += fmt::format("{}", dow); break;
      case 'T': out += fmt::format("{:02}:{:02}:{:02}", p.hour, p.minute, p.second); break;
      default: out += c;
    }
  }
  return out;
}

// Java's date pattern letters (SimpleDateFormat): yyyy, yy, MM, M, dd, d, HH, H, hh, mm, ss, SSS,
// a, EEE; text in single quotes is literal.
std::string FormatJava(const Parts& p, std::string_view pattern) {
  std::string out;
  for (size_t i = 0; i < pattern.size();) {
    const char c = pattern[i];
    if (c == '\'') {
      size_t end = pattern.find('\'', i + 1);
      if (end == i + 1) {
        out += '\'';
        i += 2;
        continue;
      }
      out += pattern.substr(i + 1, end == std::string_view::npos ? end : end - i - 1);
      i = end == std::string_view::npos ? pattern.size() : end + 1;
      continue;
    }
    size_t n = 1;
    while (i + n < pattern.size() && pattern[i + n] == c) ++n;
    const int w = static_cast<int>(n);
    switch (c) {
      case 'y':
        out +=
            n == 2 ? fmt::format("{:02}", FloorMod(p.year, 100)) : fmt::format("{:0{}}", p.year, w);
        break;
      case 'M':
        if (n >= 4) {
          out += kMonthNames[p.month - 1];
        } else if (n == 3) {
          out += std::string_view(kMonthNames[p.month - 1]).substr(0, 3);
        } else {
          out += fmt::format("{:0{}}", p.month, w);
        }
        break;
      case 'd': out += fmt::format("{:0{}}", p.day, w); break;
      case 'H': out += fmt::format("{:0{}}", p.hour, w); break;
      case 'h': out += fmt::format("{:0{}}", p.hour % 12 == 0 ? 12 : p.hour % 12, w); break;
      case 'm': out += fmt::format("{:0{}}", p.minute, w); break;
      case 's': out += fmt::format("{:0{}}", p.second, w); break;
      case 'S': out += fmt::format("{:06}", p.micros).substr(0, std::min<size_t>(n, 6)); break;
      case 'a': out += p.hour < 12 ? "AM" : "PM"; break;
      case 'E': {
        const char* day = kDayNames[FloorMod(p.days + 4, 7)];
        out += n >= 4 ? std::string_view(day) : std::string_view(day).substr(0, 3);
        break;
      }
      default: out.append(n, c);
    }
    i += n;
  }
  return out;
}

// Parses `text` with a Java pattern; microseconds since the epoch, or nullopt.
std::optional<int64_t> ParseJava(std::string_view text, std::string_view pattern) {
  int64_t year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0, micros = 0;
  bool pm = false, twelve = false;
  size_t t = 0;
  for (size_t i = 0; i < pattern.size();) {
    const char c = pattern[i];
    if (c == '\'') {
      size_t end = pattern.find('\'', i + 1);
      std::string_view literal =
          pattern.substr(i + 1, end == std::string_view::npos ? end : end - i - 1);
      if (text.substr(t, literal.size()) != literal) return std::nullopt;
      t += literal.size();
      i = end == std::string_view::npos ? pattern.size() : end + 1;
      continue;
    }
    size_t n = 1;
    while (i + n < pattern.size() && pattern[i + n] == c) ++n;
    i += n;
    auto number = [&](size_t min, size_t max, int64_t* out) {
      size_t b = t;
      int64_t v = 0;
      while (t < text.size() && t - b < max && text[t] >= '0' && text[t] <= '9') {
        v = v * 10 + (text[t++] - '0');
      }
      if (t - b < min) return false;
      *out = v;
      return true;
    };
    const size_t width = n == 1 ? 10 : n;
    switch (c) {
      case 'y':
        if (!number(1, n == 2 ? 2 : 9, &year)) return std::nullopt;
        if (n == 2) year += 2000;
        break;
      case 'M':
        if (!number(1, width, &month)) return std::nullopt;
        break;
      case 'd':
        if (!number(1, width, &day)) return std::nullopt;
        break;
      case 'H':
        if (!number(1, width, &hour)) return std::nullopt;
        break;
      case 'h':
        twelve = true;
        if (!number(1, width, &hour)) return std::nullopt;
        break;
      case 'm':
        if (!number(1, width, &minute)) return std::nullopt;
        break;
      case 's':
        if (!number(1, width, &second)) return std::nullopt;
        break;
      case 'S': {
        size_t b = t;
        int64_t v = 0;
        if (!number(1, n, &v)) return std::nullopt;
        int digits = static_cast<int>(t - b);
        while (digits < 6) {
          v *= 10;
          ++digits;
        }
        while (digits > 6) {
          v /= 10;
          --digits;
        }
        micros = v;
        break;
      }
      case 'a':
        if (text.substr(t, 2) == "PM" || text.substr(t, 2) == "pm") pm = true;
        t += 2;
        break;
      default:
        for (size_t k = 0; k < n; ++k) {
          if (t >= text.size() || text[t] != c) return std::nullopt;
          ++t;
        }
    }
  }
  if (t != text.size()) return std::nullopt;
  if (twelve) hour = hour % 12 + (pm ? 12 : 0);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) {
    return std::nullopt;
  }
  const int64_t days =
      DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  if (d != day) return std::nullopt;  // February 30th
  return days * kMicrosPerDay + ((hour * 60 + minute) * 60 + second) * kMicrosPerSecond + micros;
}

void DateFormatFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
    return sqlite3_result_null(ctx);
  }
  const Rep* rep = ArgRep(ctx, argv, 2);
  if (!rep) return;
  int64_t v = 0;
  Rep r = *rep;
  if (rep->kind == RepKind::kText) {
    auto t = ParseTimestamp(ArgText(argv[0]));
    if (!t) return sqlite3_result_null(ctx);
    v = *t;
    r = RepOf(sql::DataType(sql::TypeName::kTimestamp));
  } else if (rep->temporal()) {
    v = sqlite3_value_int64(argv[0]);
  } else {
    return SetError(ctx, "DATE_FORMAT needs a date, time or timestamp");
  }
  SetText(ctx, FormatMysql(Split(v, r), ArgText(argv[1])));
}

void ParseDateTimeFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  const Rep* rep = ArgRep(ctx, argv, 2);
  if (!rep) return;
  const std::string_view text = TrimWhitespace(ArgText(argv[0]));
  std::optional<int64_t> micros;
  if (sqlite3_value_type(argv[1]) == SQLITE_NULL) {
    micros = ParseTimestamp(text);
  } else {
    micros = ParseJava(text, ArgText(argv[1]));
  }
  if (!micros) return sqlite3_result_null(ctx);
  if (rep->kind == RepKind::kDate)
    return sqlite3_result_int64(ctx, FloorDiv(*micros, kMicrosPerDay));
  sqlite3_result_int64(ctx, TruncateMicros(*micros, TimePrecision(rep->type)));
}

void FromUnixtimeFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  const int64_t secs = sqlite3_value_int64(argv[0]);
  const std::string_view pattern = argc > 1 && sqlite3_value_type(argv[1]) != SQLITE_NULL
                                       ? ArgText(argv[1])
                                       : "yyyy-MM-dd HH:mm:ss";
  SetText(ctx, FormatJava(
                   Split(secs * kMicrosPerSecond, RepOf(sql::DataType(sql::TypeName::kTimestamp))),
                   pattern));
}

void UnixTimestampFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  const std::string_view pattern = argc > 1 && sqlite3_value_type(argv[1]) != SQLITE_NULL
                                       ? ArgText(argv[1])
                                       : "yyyy-MM-dd HH:mm:ss";
  auto micros = ParseJava(TrimWhitespace(ArgText(argv[0])), pattern);
  if (!micros) return sqlite3_result_null(ctx);
  sqlite3_result_int64(ctx, FloorDiv(*micros, kMicrosPerSecond));
}

}  // namespace

Status RegisterTimeFunctions(sqlite3* db) {
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kExtract, 3, ExtractFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kAddMonths, 3, AddMonthsFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kAddTime, 2, AddTimeFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kDateFormat, 3, DateFormatFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kParseDateTime, 3, ParseDateTimeFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kFromUnixtime, 1, FromUnixtimeFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kFromUnixtime, 2, FromUnixtimeFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kUnixTimestamp, 1, UnixTimestampFn));
  HOP_RETURN_IF_ERROR(AddScalar(db, fn::kUnixTimestamp, 2, UnixTimestampFn));
  return Status::OK();
}

}  // namespace hop::engine::internal
