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
      if (auto t = parse_timestamp(text)) return *t;
      return Timestamp{std::stoll(text)};
    } catch (...) {
      // fall through to the real clock when the test file is unreadable
    }
  }
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch());
  return Timestamp{s.count()};
}

}  // namespace tw
