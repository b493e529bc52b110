#pragma once
// Structured JSON log lines on stderr via spdlog: {"ts","level","event",...fields}.
// Callers never pass secrets; fields are data, not formatted text.

#include <nlohmann/json.hpp>
#include <string>

namespace tw::log {

/// Sets the level: debug, info, warn (or warning) or error, in any case; false (and nothing
/// changed) for any other name.
bool init(const std::string& level);
void info(const std::string& event, nlohmann::json fields = nlohmann::json::object());
void warn(const std::string& event, nlohmann::json fields = nlohmann::json::object());
void error(const std::string& event, nlohmann::json fields = nlohmann::json::object());

}  // namespace tw::log
