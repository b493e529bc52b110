#include "clock.h"

#include <chrono>
#include <cstdlib>

#include "tagwarden/model/document.h"

namespace tw {

Clock::Clock() {
  if (const char* f = std::getenv("TAGWARDEN_TEST_CLOCK_FILE"); f && *f) file_ = f;
}

Timestamp Clock::now() const {
  if (!file_.empty()) {
    try {
      std::string text = read_file(file_);
      while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) text.pop_back();
      if (auto t = parse_timestamp(text, BeyondNanos::round_up)) return *t;
      return Timestamp{std::stoll(text)};
    } catch (...) {
      // fall through to the real clock when the test file is unreadable
    }
  }
  // To the nanosecond: an expires_at may carry a fraction, and the second it falls in must not
  // count as all before it (or all after it).
  const auto since = std::chrono::system_clock::now().time_since_epoch();
  const auto s = std::chrono::floor<std::chrono::seconds>(since);
  return Timestamp{s.count(), static_cast<std::int32_t>(std::chrono::nanoseconds(since - s).count())};
}

}  // namespace tw
