#pragma once
// UTC instants with one-second resolution, parsed from and printed as RFC 3339.
// Hand-written because gcc 12's <chrono> lacks std::chrono::parse.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tw {

struct Timestamp {
  std::int64_t seconds = 0;  ///< since 1970-01-01T00:00:00Z
  auto operator<=>(const Timestamp&) const = default;
};

/// Accepts YYYY-MM-DDTHH:MM:SS[.frac](Z|+hh:mm|-hh:mm); nullopt when malformed.
std::optional<Timestamp> parse_timestamp(std::string_view text);
/// Always YYYY-MM-DDTHH:MM:SSZ.
std::string format_timestamp(Timestamp t);

}  // namespace tw
