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

std::function<void(const CompiledProfile&)> report_built(Progress& progress, std::size_t total) {
  auto built = std::make_shared<std::size_t>(0);  // compile_all calls one at a time
  return [&progress, total, built](const CompiledProfile& cp) {
    progress.say("[" + std::to_string(++*built) + "/" + std::to_string(total) + "] " + cp.profile.name +
                 (cp.artifact ? " built" : " FAILED"));
  };
}

}  // namespace tw::cli
