#pragma once
// What one profile's successful compile leaves for the next, so that a change
// recompiles only the objects it touches. An object's decision is reused only
// when the shared context and the object's own digest (the object, the grants
// covering it, who is cleared for its gated tags, policies reaching it) are both
// unchanged, so a memo can never change a result: incremental and full compiles
// give the same PolicySet, findings and artifact bytes (tests/unit/test_incremental.cpp).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tagwarden/compile/policy_set.h"

namespace tw {

struct CompileMemo {
  std::string context;  ///< SHA-256 of what every object's decision reads (engine, users, catalogs, classifications)
  std::string grants;   ///< SHA-256 of every grant, with its holders
  /// SHA-256 of each listed object's inputs: the object, the grants covering it, who is cleared
  /// for its gated tags, and access policies when one reaches it.
  std::vector<std::string> object_digests;
  /// Parallel: the object's decided classes, shared with the PolicySet (and with the next one,
  /// for an object decided alike).
  std::vector<AccessClasses> classes;
  /// Parallel too: row filters that mean no rows on the object, with the users they mean it for.
  std::vector<std::vector<std::pair<std::string, std::vector<std::string>>>> unsatisfiable;
  /// Rules for unlisted names: they read the context and who may not create, nothing else.
  std::vector<std::size_t> create_restricted;
  UnlistedRules unlisted;
  /// The profile's objects in engine-name order, as positions in the snapshot's list of them
  /// (its objects in the profile's catalogs): taken by the next compile when it sorts that
  /// compile's names too. Not a decision: read only to save a sort.
  std::vector<std::size_t> object_order;

  /// A hash of every field above that the decisions read (context, grants, create_restricted,
  /// object_digests): two memos of one profile with equal keys decide everything alike. The one
  /// list of those fields, read by the artifact's reuse and by the OPA manifest's digest, so a
  /// field added to the memo is added to both by adding it here.
  std::string decisions_key() const;
};

}  // namespace tw
