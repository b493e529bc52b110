#include "log.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

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

void init(const std::string& level) { logger()->set_level(spdlog::level::from_str(level)); }
void info(const std::string& event, nlohmann::json fields) { logger()->info(body(event, std::move(fields))); }
void warn(const std::string& event, nlohmann::json fields) { logger()->warn(body(event, std::move(fields))); }
void error(const std::string& event, nlohmann::json fields) { logger()->error(body(event, std::move(fields))); }

}  // namespace tw::log
