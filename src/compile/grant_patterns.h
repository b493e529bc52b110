#pragma once
// Grants in engine names and the name patterns they match. A grant pattern has a
// concrete catalog and a name or "*" for schema and table; these decide which grants
// reach a name and what users hold on names the snapshot does not list.

#include <cstddef>
#include <vector>

#include "tagwarden/compile/policy_set.h"

namespace tw {

/// A grant in engine names, with its holders as user indices.
struct EngineGrant {
  QualifiedName pattern;
  std::vector<std::size_t> holders;
  PrivilegeSet privileges;
};

/// Whether `general` matches `specific`: each part is "*" or equal.
bool covers(const QualifiedName& general, const QualifiedName& specific);

/// The rules for unlisted names, most specific pattern first: the grant patterns closed
/// under intersection, each carrying the union of every grant that reaches it. `users`
/// is the number of users; `restricted` users (per user) never get OWNERSHIP there.
std::vector<UnlistedRule> unlisted_rules(const std::vector<EngineGrant>& grants, std::size_t users,
                                         const std::vector<bool>& restricted);

}  // namespace tw
