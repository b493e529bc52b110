// RFC 3339 parsing and formatting (model/timestamp.h).

#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "tagwarden/model/timestamp.h"

using tw::format_timestamp;
using tw::parse_timestamp;
using tw::Timestamp;

namespace {

std::int64_t secs(const std::string& text) {
  auto t = parse_timestamp(text);
  INFO(text);
  REQUIRE(t.has_value());
  return t->seconds;
}

}  // namespace

TEST_CASE("known instants parse to their epoch seconds", "[timestamp]") {
  CHECK(secs("1970-01-01T00:00:00Z") == 0);
  CHECK(secs("2026-11-30T12:00:00Z") == 1796040000);
  CHECK(secs("2026-12-01T00:00:00Z") == 1796083200);
  CHECK(secs("2000-02-29T12:34:56Z") == 951827696);
  CHECK(secs("1969-12-31T23:59:59Z") == -1);
  CHECK(secs("2026-11-30t12:00:00z") == 1796040000);  // RFC 3339 allows lower-case T and Z
}

TEST_CASE("format then parse round-trips, and parse then format normalises to Z", "[timestamp]") {
  for (std::int64_t s : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{1796040000}, std::int64_t{951827696},
                         std::int64_t{4102444799}, std::int64_t{-2208988800}}) {
    const std::string text = format_timestamp(Timestamp{s});
    INFO(text);
    CHECK(secs(text) == s);
  }
  CHECK(format_timestamp(Timestamp{0}) == "1970-01-01T00:00:00Z");
  CHECK(format_timestamp(Timestamp{-1}) == "1969-12-31T23:59:59Z");
  CHECK(format_timestamp(Timestamp{1796040000}) == "2026-11-30T12:00:00Z");
  CHECK(format_timestamp(Timestamp{4102444799}) == "2099-12-31T23:59:59Z");
  CHECK(format_timestamp(Timestamp{-2208988800}) == "1900-01-01T00:00:00Z");
  for (const char* text : {"2026-11-30T12:00:00Z", "2024-02-29T23:59:59Z", "1999-12-31T00:00:01Z"}) {
    CHECK(format_timestamp(*parse_timestamp(text)) == text);
  }
}

TEST_CASE("offsets are applied", "[timestamp]") {
  CHECK(secs("2026-11-30T13:00:00+01:00") == secs("2026-11-30T12:00:00Z"));
  CHECK(secs("2026-11-30T04:00:00-08:00") == secs("2026-11-30T12:00:00Z"));
  CHECK(secs("2026-11-30T17:30:00+05:30") == secs("2026-11-30T12:00:00Z"));
  CHECK(secs("2026-11-30T12:00:00+00:00") == secs("2026-11-30T12:00:00Z"));
  CHECK(secs("2026-11-30T12:00:00-00:00") == secs("2026-11-30T12:00:00Z"));
  // Crossing a day, a month and a year boundary.
  CHECK(format_timestamp(*parse_timestamp("2026-01-01T00:30:00+01:00")) == "2025-12-31T23:30:00Z");
  CHECK(format_timestamp(*parse_timestamp("2024-02-28T23:00:00-02:00")) == "2024-02-29T01:00:00Z");
  CHECK(format_timestamp(*parse_timestamp("2026-03-01T00:00:00+23:59")) == "2026-02-28T00:01:00Z");
}

TEST_CASE("fractional seconds are kept to the nanosecond", "[timestamp]") {
  const auto half = parse_timestamp("2026-11-30T12:00:00.5Z");
  REQUIRE(half);
  CHECK(half->seconds == 1796040000);
  CHECK(half->nanos == 500'000'000);
  CHECK(parse_timestamp("2026-11-30T12:00:00.999999999Z")->nanos == 999'999'999);
  CHECK(parse_timestamp("2026-11-30T13:00:00.123+01:00") == Timestamp{1796040000, 123'000'000});
  CHECK(parse_timestamp("2026-11-30T12:00:00.000Z") == Timestamp{1796040000, 0});
  // Ordered by the fraction within a second: an expiry at .5 is after a now at .0 and before .7.
  CHECK(*parse_timestamp("2026-11-30T12:00:00Z") < *half);
  CHECK(*half < *parse_timestamp("2026-11-30T12:00:00.7Z"));
  CHECK(*parse_timestamp("2026-11-30T11:59:59.999Z") < *parse_timestamp("2026-11-30T12:00:00Z"));
  // Printed back with the fraction, trailing zeros dropped; whole seconds print as before.
  CHECK(format_timestamp(*parse_timestamp("2026-11-30T12:00:00.750Z")) == "2026-11-30T12:00:00.75Z");
  CHECK(format_timestamp(*parse_timestamp("2026-11-30T12:00:00.000000001Z")) == "2026-11-30T12:00:00.000000001Z");
  CHECK(format_timestamp(Timestamp{-1, 500'000'000}) == "1969-12-31T23:59:59.5Z");
  for (const char* text : {"2026-11-30T12:00:00.5Z", "2026-11-30T12:00:00.000000001Z", "1969-12-31T23:59:59.25Z"}) {
    CHECK(format_timestamp(*parse_timestamp(text)) == text);
  }
  CHECK_FALSE(parse_timestamp("2026-11-30T12:00:00.Z"));
  CHECK_FALSE(parse_timestamp("2026-11-30T12:00:00,5Z"));
}

TEST_CASE("a fraction finer than a nanosecond rounds an expiry down and a now up", "[timestamp]") {
  const char* text = "2026-11-30T12:00:00.0000000001Z";
  CHECK(parse_timestamp(text) == Timestamp{1796040000, 0});
  CHECK(parse_timestamp(text, tw::BeyondNanos::round_up) == Timestamp{1796040000, 1});
  CHECK(parse_timestamp("2026-11-30T12:00:00.9999999990Z", tw::BeyondNanos::round_up) ==
        Timestamp{1796040000, 999'999'999});
  CHECK(parse_timestamp("2026-11-30T12:00:00.9999999999Z", tw::BeyondNanos::round_up) == Timestamp{1796040001, 0});
  CHECK(parse_timestamp("2026-11-30T12:00:00.9999999999Z") == Timestamp{1796040000, 999'999'999});
}

TEST_CASE("leap years follow the Gregorian rules", "[timestamp]") {
  CHECK(parse_timestamp("2024-02-29T00:00:00Z"));
  CHECK(secs("2024-02-29T00:00:00Z") == 1709164800);
  CHECK(parse_timestamp("2000-02-29T00:00:00Z"));  // divisible by 400
  CHECK_FALSE(parse_timestamp("2023-02-29T00:00:00Z"));
  CHECK_FALSE(parse_timestamp("1900-02-29T00:00:00Z"));  // divisible by 100, not by 400
  CHECK_FALSE(parse_timestamp("2100-02-29T00:00:00Z"));
  CHECK_FALSE(parse_timestamp("2024-02-30T00:00:00Z"));
  CHECK(secs("2024-03-01T00:00:00Z") - secs("2024-02-28T00:00:00Z") == 2 * 86400);
  CHECK(secs("2023-03-01T00:00:00Z") - secs("2023-02-28T00:00:00Z") == 1 * 86400);
  CHECK(secs("2025-01-01T00:00:00Z") - secs("2024-01-01T00:00:00Z") == 366 * 86400);
  CHECK(format_timestamp(Timestamp{secs("2024-02-28T00:00:00Z") + 86400}) == "2024-02-29T00:00:00Z");
}

TEST_CASE("malformed or zoneless times are refused", "[timestamp]") {
  for (const char* bad : {"",
                          "2026-11-30",
                          "2026-11-30T12:00:00",
                          "2026-11-30 12:00:00Z",
                          "2026-11-30T12:00Z",
                          "2026-13-01T00:00:00Z",
                          "2026-00-10T00:00:00Z",
                          "2026-04-31T00:00:00Z",
                          "2026-11-00T00:00:00Z",
                          "2026-11-30T24:00:00Z",
                          "2026-11-30T12:60:00Z",
                          "2026-11-30T12:00:60Z",
                          "2026-11-30T12:00:00+0100",
                          "2026-11-30T12:00:00+24:00",
                          "2026-11-30T12:00:00+01:60",
                          "2026-11-30T12:00:00+01",
                          "2026-11-30T12:00:00ZZ",
                          "2026-11-30T12:00:00Z ",
                          " 2026-11-30T12:00:00Z",
                          "26-11-30T12:00:00Z",
                          "2026-1-30T12:00:00Z",
                          "2026-11-30T12:00:00UTC",
                          "+2026-11-30T12:00:00Z"}) {
    INFO('"' << bad << '"');
    CHECK_FALSE(parse_timestamp(bad).has_value());
  }
}

TEST_CASE("timestamps order by instant", "[timestamp]") {
  CHECK(*parse_timestamp("2026-11-30T12:00:00+01:00") < *parse_timestamp("2026-11-30T12:00:00Z"));
  CHECK(*parse_timestamp("2026-11-30T12:00:00-01:00") > *parse_timestamp("2026-11-30T12:00:00Z"));
}

TEST_CASE("a time whose UTC falls outside years 0000-9999 is held at that end, and reads back", "[timestamp]") {
  const auto late = tw::parse_timestamp("9999-12-31T23:59:59-05:00");
  REQUIRE(late);
  CHECK(tw::format_timestamp(*late) == "9999-12-31T23:59:59Z");
  CHECK(tw::parse_timestamp(tw::format_timestamp(*late)) == late);
  const auto early = tw::parse_timestamp("0000-01-01T00:30:00+01:00");
  REQUIRE(early);
  CHECK(tw::format_timestamp(*early) == "0000-01-01T00:00:00Z");
  CHECK(tw::parse_timestamp(tw::format_timestamp(*early)) == early);
  // Inside the range nothing moves.
  CHECK(tw::format_timestamp(*tw::parse_timestamp("9999-12-31T18:59:59-05:00")) == "9999-12-31T23:59:59Z");
}
