#pragma once
// The daemon's notion of now. Production reads the system clock; tests set
// TAGWARDEN_TEST_CLOCK_FILE to a file holding an RFC 3339 time or Unix seconds,
// re-read on every call, so expiry scheduling can be driven without sleeping.

#include <optional>
#include <string>

#include "tagwarden/model/timestamp.h"

namespace tw {

class Clock {
 public:
  /// Reads TAGWARDEN_TEST_CLOCK_FILE once to decide the mode.
  Clock();
  Timestamp now() const;
  bool is_test_clock() const { return !file_.empty(); }

 private:
  std::string file_;
};

}  // namespace tw
