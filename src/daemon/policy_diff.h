#pragma once
// What a proposed compile would change for one profile, compared with the one
// in force: rules added and removed, and users gaining or losing access to
// objects and columns. Pure.

#include <nlohmann/json.hpp>
#include <string>

#include "tagwarden/compile/policy_set.h"

namespace tw {

/// `before` may be null (nothing in force yet). Lists are capped at `limit` entries each.
nlohmann::json diff_policy(const PolicySet* before, const std::string& before_bytes, const PolicySet& after,
                           const std::string& after_bytes, std::size_t limit = 500);

}  // namespace tw
