// RFC 3339 formatting and parsing with the C++20 calendar types (no time zones needed: UTC and
// numeric offsets only).
#include "common/time.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace hop {
namespace {

class RealClock : public Clock {
 public:
  SystemTime Now() const override { return std::chrono::system_clock::now(); }
};

bool ReadInt(std::string_view s, size_t pos, size_t len, int* out) {
  if (pos + len > s.size()) return false;
  for (size_t i = pos; i < pos + len; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  auto [p, ec] = std::from_chars(s.data() + pos, s.data() + pos + len, *out);
  return ec == std::errc();
}

}  // namespace

const Clock& SystemClock() {
  static const RealClock clock;
  return clock;
}

std::string FormatRfc3339(SystemTime t, int fraction_digits) {
  using namespace std::chrono;
  const auto day = floor<days>(t);
  const year_month_day ymd{day};
  const hh_mm_ss hms{floor<nanoseconds>(t - day)};
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", static_cast<int>(ymd.year()),
                                static_cast<unsigned>(ymd.month()),
                                static_cast<unsigned>(ymd.day()), hms.hours().count(),
                                hms.minutes().count(), hms.seconds().count());
  if (fraction_digits > 0) {
    if (fraction_digits > 9) fraction_digits = 9;
    std::string nanos = fmt::format("{:09}", hms.subseconds().count());
    out += "." + nanos.substr(0, static_cast<size_t>(fraction_digits));
  }
  out += "Z";
  return out;
}

std::optional<SystemTime> ParseRfc3339(std::string_view s) {
  using namespace std::chrono;
  int y, mo, d, h, mi, sec;
  if (!ReadInt(s, 0, 4, &y) || s.size() < 20 || s[4] != '-' || !ReadInt(s, 5, 2, &mo) ||
      s[7] != '-' || !ReadInt(s, 8, 2, &d) ||
      !(s[10] == 'T' || s[10] == 't' || s[10] == ' ') || !ReadInt(s, 11, 2, &h) ||
      s[13] != ':' || !ReadInt(s, 14, 2, &mi) || s[16] != ':' || !ReadInt(s, 17, 2, &sec)) {
    return std::nullopt;
  }
  const year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)},
                           day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  size_t pos = 19;
  nanoseconds fraction{0};
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    size_t begin = pos;
    int64_t value = 0;
    int digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 9) {
        value = value * 10 + (s[pos] - '0');
        ++digits;
      }
      ++pos;
    }
    if (pos == begin) return std::nullopt;
    while (digits < 9) {
      value *= 10;
      ++digits;
    }
    fraction = nanoseconds{value};
  }
  if (pos >= s.size()) return std::nullopt;
  minutes offset{0};
  if (s[pos] == 'Z' || s[pos] == 'z') {
    ++pos;
  } else if (s[pos] == '+' || s[pos] == '-') {
    int oh, om;
    if (!ReadInt(s, pos + 1, 2, &oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !ReadInt(s, pos + 4, 2, &om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset = hours{oh} + minutes{om};
    if (s[pos] == '-') offset = -offset;
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  SystemTime t = sys_days{ymd} + hours{h} + minutes{mi} + seconds{sec};
  return time_point_cast<SystemTime::duration>(t + fraction - offset);
}

std::string HumanDuration(std::chrono::seconds d) {
  const int64_t s = std::max<int64_t>(0, d.count());
  const int64_t m = s / 60, h = s / 3600, days = s / 86400;
  if (s < 120) return std::to_string(s) + "s";
  if (m < 10) return std::to_string(m) + "m" + (s % 60 ? std::to_string(s % 60) + "s" : "");
  if (h < 3) return std::to_string(m) + "m";
  if (h < 8) return std::to_string(h) + "h" + (m % 60 ? std::to_string(m % 60) + "m" : "");
  if (h < 48) return std::to_string(h) + "h";
  if (h < 192) return std::to_string(days) + "d" + (h % 24 ? std::to_string(h % 24) + "h" : "");
  if (days < 730) return std::to_string(days) + "d";
  return std::to_string(days / 365) + "y";
}

}  // namespace hop
