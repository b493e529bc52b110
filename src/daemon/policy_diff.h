#pragma once
// What a proposed compile would change for one profile, compared with the one
// in force: rules added and removed, and users gaining or losing access to
// objects and columns. Pure.

#include <nlohmann/json.hpp>
#include <string>

#include "tagwarden/compile/policy_set.h"

namespace tw {

/// `before` may be null: nothing in force (deny-all), so every access of `after` is gained.
/// Access is compared on every name either side lists; a name only one side lists is judged on
/// the other by that side's rules for unlisted names (as the engine would see it). Changes are
/// listed by object, then user. With `compare_access` false (the policy in force is not known,
/// e.g. an artifact restored from the state directory) only rules are compared, and
/// access_changes and changes are null. Lists are capped at `limit` entries each.
nlohmann::json diff_policy(const PolicySet* before, const std::string& before_bytes, const PolicySet& after,
                           const std::string& after_bytes, std::size_t limit = 500, bool compare_access = true);

}  // namespace tw
