#pragma once
// Small helpers the daemon's files share.

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <vector>

#include "tagwarden/compile/finding.h"
#include "tagwarden/model/snapshot.h"

namespace tw::daemon_helpers {

inline double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

inline nlohmann::json findings_json(const std::vector<Finding>& findings) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : findings) out.push_back(to_json(f));
  return out;
}

/// The "now" role expiry is judged at: the wall clock, or the snapshot's generated_at when the
/// source's clock is ahead (MODEL §1: generated_at is "now"). An assignment the source already
/// sees expired never counts, whatever this host's clock says.
inline Timestamp judged_at(Timestamp wall_clock, const Snapshot& snapshot) {
  return std::max(wall_clock, snapshot.generated_at);
}

}  // namespace tw::daemon_helpers
