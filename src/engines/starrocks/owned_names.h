#pragma once
// Owned role and policy names are derived from what they hold or who holds them, so the same
// PolicySet gives the same names: the profile's prefix (owner_prefix, plan.h) and a hash.

#include <string>
#include <vector>

namespace tw::starrocks {

/// The first 16 hex digits of the SHA-256 of the parts, each ended by a NUL byte.
std::string hash16(const std::vector<std::string>& parts);

}  // namespace tw::starrocks
