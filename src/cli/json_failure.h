#pragma once
// Every command with --output json answers one JSON document on stdout even when
// it fails before (or instead of) running: a script parsing stdout gets
// {"profile", "ok": false, "exit_code", "errors"} rather than nothing. The
// errors are the lines the command wrote to stderr, which still reach stderr.
// `profile` is null for compile, findings and explain run without --profile.

#include <iosfwd>
#include <optional>
#include <sstream>
#include <streambuf>
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

/// While alive and `active`, what is written to `stream` still reaches it, and is also kept:
/// main() answers a command that failed without a document on stdout (a usage error) with one.
class StreamTee : private std::streambuf {
 public:
  StreamTee(std::ostream& stream, bool active);
  ~StreamTee() override;
  StreamTee(const StreamTee&) = delete;
  StreamTee& operator=(const StreamTee&) = delete;
  const std::string& text() const { return text_; }

 private:
  int overflow(int c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;
  std::ostream& stream_;
  std::streambuf* real_ = nullptr;
  std::string text_;
};

/// Prints the failure document for `profile` on stdout and returns `exit_code`.
int print_json_failure(const std::optional<std::string>& profile, int exit_code, const std::string& stderr_text);

}  // namespace tw::cli
