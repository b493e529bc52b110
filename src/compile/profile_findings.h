#pragma once
// What a compiled profile reports beside its PolicySet: limits that fail it whole,
// and findings an operator should act on.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "tagwarden/compile/finding.h"
#include "tagwarden/compile/model.h"
#include "tagwarden/compile/policy_set.h"
#include "tagwarden/config/profile.h"

namespace tw {

/// Errors that fail the profile whole: a StarRocks profile needing more policies for one
/// tag than max_policies_per_tag. Empty for Trino.
std::vector<std::string> policy_limit_errors(const Model& model, const Profile& profile, const PolicySet& ps);

/// Row filters that leave users no rows (`unsatisfiable`: policy -> user names), users who
/// may not create materialized views (Trino), and DEFINER views whose owner is not cleared (Trino).
std::vector<Finding> profile_findings(const Model& model, const Profile& profile, const PolicySet& ps,
                                      const std::map<std::string, std::set<std::string>>& unsatisfiable);

}  // namespace tw
