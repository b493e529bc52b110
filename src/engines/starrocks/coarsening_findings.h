#pragma once
// What a plan tells the operator about coarsening: the objects some classes lose SELECT on, and
// the gated columns no masking policy can take, gathered while objects render and reported once
// at the end, with the users concerned counted by distinct engine name.

#include <map>
#include <set>
#include <string>

#include "coarsening.h"
#include "tagwarden/compile/policy_set.h"
#include "tagwarden/engines/starrocks/plan.h"
#include "user_sets.h"

namespace tw::starrocks {

class CoarsenedObjects {
 public:
  /// Records that `cls` loses SELECT on `obj` for the causes in `c` (c.reason is not empty).
  void add(const Securable& obj, const AccessClass& cls, const Coarsening& c);
  /// Records gated columns of `obj` whose type no masking policy can take.
  void add_unmaskable(const Securable& obj, const std::set<std::string>& columns);
  /// Appends the findings to plan.findings: access policies coarsened, then gates coarsened, then
  /// unmaskable types, each by object.
  void report(Plan& plan, UserSets& user_sets) const;

 private:
  // Objects whose classes lose SELECT: the columns concerned and the classes' user lists.
  struct Coarsened {
    std::set<std::string> columns;
    UserSets::Lists lists;
    bool filter = false;  // a row filter is among the causes
  };

  std::map<Securable, Coarsened> coarsened_;         // gated columns
  std::map<Securable, Coarsened> policy_coarsened_;  // access-policy masks, denied columns, row filters
  std::map<Securable, std::set<std::string>> unmaskable_;
};

}  // namespace tw::starrocks
