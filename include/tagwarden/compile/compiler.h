#pragma once
// model + profile -> PolicySet. Pure and deterministic: the same inputs give
// the same PolicySet, findings and errors, in the same order.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tagwarden/compile/compile_memo.h"
#include "tagwarden/compile/finding.h"
#include "tagwarden/compile/model.h"
#include "tagwarden/compile/policy_set.h"
#include "tagwarden/config/profile.h"

namespace tw {

struct ProfileCompile {
  std::optional<PolicySet> policy_set;  ///< absent when errors is non-empty: the profile failed
  std::vector<Finding> findings;
  std::vector<std::string> errors;
  std::shared_ptr<const CompileMemo> memo;  ///< for the next compile of this profile; absent on failure
  std::size_t reused_objects = 0;           ///< objects whose decisions came from the previous memo
};

/// Findings about the snapshot itself (clearances naming only groups, tags without clearance).
std::vector<Finding> snapshot_findings(const Model& model);

/// Compiles one profile. Never throws for model content.
/// With `previous` (this profile's last memo) only objects whose inputs changed are decided again.
ProfileCompile compile_profile(const Model& model, const Profile& profile, const CompileMemo* previous = nullptr);

/// The engine name of a platform user in a profile: user_map, else engine_user, else name.
std::string engine_user_name(const User& user, const Profile& profile);

}  // namespace tw
