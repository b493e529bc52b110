#pragma once
// Progress of a long command on stderr, for a person watching it: one line per step with the
// time it took. Only when stderr is a terminal, so scripts, logs and --output json consumers
// see exactly what they saw before. Written to the C stderr stream, not std::cerr, which
// --output json captures for its failure document (json_failure.h).

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "common.h"

namespace tw::cli {

class Progress {
 public:
  /// Active when stderr is a terminal (or `force`, for tests of the text itself).
  explicit Progress(bool force = false);

  bool active() const { return active_; }
  /// Prints "tagwarden: <line>" with the seconds since this object was made. Thread-safe.
  void say(const std::string& line);

 private:
  bool active_ = false;
  std::chrono::steady_clock::time_point started_;
  std::mutex mu_;
};

/// For compile_all's on_built: reports "[k/N] <profile> built" (or FAILED) as each finishes.
std::function<void(const CompiledProfile&)> report_built(Progress& progress, std::size_t total);

}  // namespace tw::cli
