#include "tagwarden/model/timestamp.h"

#include "tagwarden/util/text.h"

#include <algorithm>
#include <cstdio>

namespace tw {
namespace {

// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

}  // namespace

std::optional<Timestamp> parse_timestamp(std::string_view s, BeyondNanos beyond) {
  int year, month, day, hour, minute, second;
  if (!read_digits(s, 0, 4, year) || s.size() < 20 || s[4] != '-' || !read_digits(s, 5, 2, month) || s[7] != '-' ||
      !read_digits(s, 8, 2, day) || (s[10] != 'T' && s[10] != 't') || !read_digits(s, 11, 2, hour) || s[13] != ':' ||
      !read_digits(s, 14, 2, minute) || s[16] != ':' || !read_digits(s, 17, 2, second)) {
    return std::nullopt;
  }
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return std::nullopt;
  if (day > kDays[month - 1] + (month == 2 && leap(year) ? 1 : 0)) return std::nullopt;
  std::size_t pos = 19;
  std::int32_t nanos = 0;
  bool finer_than_nanos = false;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    const std::size_t start = pos;
    std::int32_t scale = 100'000'000;
    for (; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos) {
      if (scale > 0) {
        nanos += (s[pos] - '0') * scale;
        scale /= 10;
      } else if (s[pos] != '0') {
        finer_than_nanos = true;
      }
    }
    if (pos == start) return std::nullopt;
  }
  std::int64_t offset = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    if (!read_digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !read_digits(s, pos + 4, 2, om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset = (s[pos] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    pos += 6;
  } else {
    return std::nullopt;  // a time without a zone is ambiguous: refuse it
  }
  if (pos != s.size()) return std::nullopt;
  const std::int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  // A local time near either end of the range can fall outside it in UTC (9999-12-31T23:59:59-05:00
  // is in year 10000): held at that end, so that every time formats as RFC 3339 and reads back
  // (a daemon's stored valid_until did not, and a restart withdrew a valid artifact). No clock
  // reaches either end, so no decision changes.
  static const std::int64_t first = days_from_civil(0, 1, 1) * 86400,
                            last = days_from_civil(9999, 12, 31) * 86400 + 86399;
  std::int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset;
  if (finer_than_nanos && beyond == BeyondNanos::round_up && ++nanos == 1'000'000'000) {
    nanos = 0;
    ++seconds;
  }
  if (seconds < first) return Timestamp{first, 0};
  if (seconds > last) return Timestamp{last, 0};
  return Timestamp{seconds, nanos};
}

std::string format_timestamp(Timestamp t) {
  std::int64_t days = t.seconds / 86400;
  std::int64_t rem = t.seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  // civil_from_days (Howard Hinnant)
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld", static_cast<long long>(y), m, d,
                static_cast<long long>(rem / 3600), static_cast<long long>(rem / 60 % 60),
                static_cast<long long>(rem % 60));
  std::string text = buf;
  if (t.nanos > 0) {
    std::snprintf(buf, sizeof buf, ".%09d", static_cast<int>(t.nanos));
    text += buf;
    text.erase(text.find_last_not_of('0') + 1);
  }
  return text + "Z";
}

}  // namespace tw
