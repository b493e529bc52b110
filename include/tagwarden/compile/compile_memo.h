#pragma once
// What one profile's successful compile leaves for the next, so that a change
// recompiles only the objects it touches. An object's decision is reused only
// when its own digest and the digest of everything else it depends on (users,
// memberships, clearances, grants, policies, the profile) are both unchanged,
// so a memo can never change a result: incremental and full compiles give the
// same PolicySet, findings and artifact bytes (tests/unit/test_incremental.cpp).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tagwarden/compile/policy_set.h"

namespace tw {

struct CompileMemo {
  std::string context;                            ///< SHA-256 of every input but the objects themselves
  std::vector<std::string> object_digests;        ///< SHA-256 of each listed object's inputs
  std::vector<std::vector<AccessClass>> classes;  ///< parallel: the object's decided classes
  /// Parallel too: row filters that mean no rows on the object, with the users they mean it for.
  std::vector<std::vector<std::pair<std::string, std::vector<std::string>>>> unsatisfiable;
  /// Rules for unlisted names: they read the context and who may not create, nothing else.
  std::vector<std::size_t> create_restricted;
  std::vector<UnlistedRule> unlisted;
};

}  // namespace tw
