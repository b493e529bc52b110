#pragma once
// UTC instants with nanosecond resolution, parsed from and printed as RFC 3339.
// Hand-written because gcc 12's <chrono> lacks std::chrono::parse.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tw {

struct Timestamp {
  std::int64_t seconds = 0;  ///< since 1970-01-01T00:00:00Z
  std::int32_t nanos = 0;    ///< within that second, 0..999'999'999
  auto operator<=>(const Timestamp&) const = default;
};

/// What a fraction finer than a nanosecond rounds to. An expiry rounds down and a "now" up, so
/// that an assignment never counts past its expires_at.
enum class BeyondNanos { round_down, round_up };

/// Accepts YYYY-MM-DDTHH:MM:SS[.frac](Z|+hh:mm|-hh:mm); nullopt when malformed.
std::optional<Timestamp> parse_timestamp(std::string_view text, BeyondNanos beyond = BeyondNanos::round_down);
/// YYYY-MM-DDTHH:MM:SSZ, with the fraction (no trailing zeros) before the Z when there is one.
std::string format_timestamp(Timestamp t);

}  // namespace tw
