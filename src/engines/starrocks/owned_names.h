#pragma once
// Owned role and policy names are derived from what they hold or who holds them, so the same
// PolicySet gives the same names: the profile's prefix (owner_prefix, plan.h) and a hash.

#include <string>
#include <string_view>
#include <vector>

namespace tw::starrocks {

/// The first 16 hex digits of the SHA-256 of the parts, each ended by a NUL byte.
std::string hash16(const std::vector<std::string>& parts);

/// Whether `name` is `kind_prefix` followed by exactly 16 lower-case hex digits, the shape of every
/// name tagwarden makes (kind_prefix: the profile's prefix and r, a, m or p). Anything else under
/// the prefix was made by someone else: it is foreign, never owned.
bool owned_shape(std::string_view name, std::string_view kind_prefix);

/// Whether `role` is a role tagwarden makes under the profile prefix `prefix`: a holder role
/// <prefix>r<16 hex> (bundle roles have its shape) or an atom role <prefix>a<16 hex>.
bool owned_role(std::string_view role, std::string_view prefix);

}  // namespace tw::starrocks
