#include "progress.h"

#include <unistd.h>

#include <cstdio>

namespace tw::cli {

Progress::Progress(bool force)
    : active_(force || ::isatty(STDERR_FILENO) == 1), started_(std::chrono::steady_clock::now()) {}

void Progress::say(const std::string& line) {
  if (!active_) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  std::lock_guard lock(mu_);
  std::fprintf(stderr, "tagwarden: [%6.1f s] %s\n", s, line.c_str());
  std::fflush(stderr);
}

}  // namespace tw::cli
