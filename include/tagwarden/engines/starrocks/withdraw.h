#pragma once
// The StarRocks counterpart of serving Trino deny-all: when the policy last applied to a server may
// grant a role assignment that has expired, and no new plan can be compiled to replace it, every
// user is taken out of every role tagwarden owns there. The roles keep their grants and the masking
// policies stay attached, so nothing widens: users keep only what was granted outside tagwarden
// (reported as drift by the next apply), and the next successful apply grants again what the new
// policy allows.

#include <string>

#include "tagwarden/engines/starrocks/apply.h"

namespace tw::starrocks {

/// Revokes every owned role (the shapes tagwarden makes under the profile's prefix) from every user
/// on the server behind `connection`; roles granted to roles, grants and policies are left as they
/// are. Runs nothing when no user holds an owned role. Never throws for server errors.
ApplyResult withdraw_memberships(Connection& connection, Dialect dialect, const std::string& profile,
                                 const ApplyOptions& options = {});

}  // namespace tw::starrocks
