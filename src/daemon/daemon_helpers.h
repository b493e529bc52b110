#pragma once
// Small helpers the daemon's files share.

#include <chrono>
#include <nlohmann/json.hpp>
#include <vector>

#include "tagwarden/compile/finding.h"

namespace tw::daemon_helpers {

inline double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

inline nlohmann::json findings_json(const std::vector<Finding>& findings) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : findings) out.push_back(to_json(f));
  return out;
}

}  // namespace tw::daemon_helpers
