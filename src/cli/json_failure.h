#pragma once
// Every command with --output json answers one JSON document on stdout even when
// it fails before (or instead of) running: a script parsing stdout gets
// {"profile", "ok": false, "exit_code", "errors"} rather than nothing. The
// errors are the lines the command wrote to stderr, which still reach stderr.
// `profile` is null for compile, findings and explain run without --profile.

#include <iosfwd>
#include <optional>
#include <sstream>
#include <string>

namespace tw::cli {

/// While alive and `active`, what is written to std::cerr is kept here instead.
class StderrCapture {
 public:
  explicit StderrCapture(bool active);
  ~StderrCapture();
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;

  /// Puts std::cerr back, writes what was captured to it, and returns that text.
  std::string release();

 private:
  std::ostringstream text_;
  std::streambuf* real_ = nullptr;
};

/// Prints the failure document for `profile` on stdout and returns `exit_code`.
int print_json_failure(const std::optional<std::string>& profile, int exit_code, const std::string& stderr_text);

}  // namespace tw::cli
