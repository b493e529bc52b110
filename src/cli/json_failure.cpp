#include "json_failure.h"

#include <iostream>
#include <nlohmann/json.hpp>

namespace tw::cli {

StderrCapture::StderrCapture(bool active) {
  if (active) real_ = std::cerr.rdbuf(text_.rdbuf());
}

StderrCapture::~StderrCapture() { release(); }

std::string StderrCapture::release() {
  if (!real_) return {};
  std::cerr.rdbuf(real_);
  real_ = nullptr;
  const std::string text = text_.str();
  std::cerr << text;
  return text;
}

StreamTee::StreamTee(std::ostream& stream, bool active) : stream_(stream) {
  if (active) real_ = stream_.rdbuf(this);
}

StreamTee::~StreamTee() {
  if (real_) stream_.rdbuf(real_);
}

int StreamTee::overflow(int c) {
  if (c == traits_type::eof()) return traits_type::not_eof(c);
  text_ += static_cast<char>(c);
  return real_->sputc(static_cast<char>(c));
}

std::streamsize StreamTee::xsputn(const char* s, std::streamsize n) {
  text_.append(s, static_cast<std::size_t>(n));
  return real_->sputn(s, n);
}

int StreamTee::sync() { return real_->pubsync(); }

int print_json_failure(const std::optional<std::string>& profile, int exit_code, const std::string& stderr_text) {
  // The "error: " lines are the errors; the rest of stderr (a count of them, the usage, a hint)
  // is for people. Only a text with no such line gives all its lines, so errors is never empty.
  nlohmann::json errors = nlohmann::json::array(), others = nlohmann::json::array();
  std::istringstream lines(stderr_text);
  for (std::string line; std::getline(lines, line);) {
    const auto start = line.find_first_not_of(' ');
    if (start == std::string::npos) continue;
    line.erase(0, start);
    if (line.rfind("error: ", 0) == 0)
      errors.push_back(line.substr(7));
    else
      others.push_back(line);
  }
  if (errors.empty()) errors = std::move(others);
  const nlohmann::json doc = {{"profile", profile ? nlohmann::json(*profile) : nlohmann::json(nullptr)},
                              {"ok", false},
                              {"exit_code", exit_code},
                              {"errors", errors}};
  std::cout << doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return exit_code;
}

}  // namespace tw::cli
