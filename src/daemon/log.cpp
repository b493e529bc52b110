#include "log.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cctype>
#include <map>

namespace tw::log {
namespace {

std::shared_ptr<spdlog::logger> logger() {
  static auto l = [] {
    auto lg = spdlog::stderr_logger_mt("tagwarden");
    lg->set_pattern(R"({"ts":"%Y-%m-%dT%H:%M:%S.%eZ","level":"%l",%v})", spdlog::pattern_time_type::utc);
    lg->flush_on(spdlog::level::info);
    return lg;
  }();
  return l;
}

std::string body(const std::string& event, nlohmann::json fields) {
  fields["event"] = event;
  std::string s = fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return s.substr(1, s.size() - 2);  // the fields follow ts and level inside one object
}

}  // namespace

bool init(const std::string& level) {
  // Only the documented names: spdlog reads anything else ("WARN", "warnig") as "off", which
  // silenced every line, the errors too.
  std::string name = level;
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::map<std::string, spdlog::level::level_enum> kLevels = {{"debug", spdlog::level::debug},
                                                                           {"info", spdlog::level::info},
                                                                           {"warn", spdlog::level::warn},
                                                                           {"warning", spdlog::level::warn},
                                                                           {"error", spdlog::level::err}};
  const auto it = kLevels.find(name);
  if (it == kLevels.end()) return false;
  logger()->set_level(it->second);
  return true;
}
void info(const std::string& event, nlohmann::json fields) { logger()->info(body(event, std::move(fields))); }
void warn(const std::string& event, nlohmann::json fields) { logger()->warn(body(event, std::move(fields))); }
void error(const std::string& event, nlohmann::json fields) { logger()->error(body(event, std::move(fields))); }

}  // namespace tw::log
