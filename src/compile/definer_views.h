#pragma once
// Trino reads a DEFINER view's bases as its owner, whoever queries it, and a materialized view's
// too (analyzeView runs both as their owner; a materialized view has no SECURITY INVOKER): what
// the owner may not read of a base, nobody reads through the view, the cleared included. Judged
// once here on the compiled decisions (gates, deny policies, missing grants), for the findings.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tagwarden/compile/model.h"
#include "tagwarden/compile/policy_set.h"

namespace tw {

struct DefinerViewOwnerReach {
  std::size_t owner = 0;                        ///< model user index
  std::vector<const ObjectPolicy*> unreadable;  ///< bases the owner may not SELECT (or holds no grant on)
  std::vector<std::pair<const ObjectPolicy*, std::vector<std::string>>> partly;  ///< base, denied columns
  std::vector<std::string> causes;  ///< the owner's reasons on those bases, "no grant on <base>"
  /// Bases in catalogs the profile does not cover (platform names): its rules refuse those
  /// catalogs to everybody, so Trino cannot read them for the view either.
  std::vector<std::string> outside;
  bool blocked() const { return !unreadable.empty() || !partly.empty() || !outside.empty(); }
};

/// A listed object Trino reads as its owner: a DEFINER view or a materialized view.
bool reads_bases_as_owner(const Object& o);

/// How the findings name such an object: "DEFINER view" or "materialized view".
const char* owner_read_kind(const Object& o);

class DefinerViews {
 public:
  DefinerViews(const Model& model, const PolicySet& ps);
  /// The owner's reach over the bases, for a listed DEFINER view or materialized view with a known
  /// owner; nullopt for any other object.
  std::optional<DefinerViewOwnerReach> owner_reach(const ObjectPolicy& view) const;

 private:
  const Model& m_;
  std::map<std::size_t, const ObjectPolicy*> by_object_;
};

}  // namespace tw
