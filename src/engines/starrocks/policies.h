#pragma once
// The masking and row access policies of one listed object, written into a plan's desired state
// for the classes that keep SELECT on it (the readers).

#include <set>
#include <string>
#include <vector>

#include "object_columns.h"
#include "tagwarden/compile/policy_set.h"
#include "tagwarden/engines/starrocks/plan.h"
#include "user_sets.h"

namespace tw::starrocks {

/// The classes of one object that keep SELECT, in class order, with each one's users' ranks (sorted).
struct Readers {
  std::vector<const AccessClass*> classes;
  std::vector<std::vector<UserSets::Rank>> ranks;
};

/// One masking policy per column that is gated, denied or masked for anyone: the value for the
/// readers who may see it, their effective mask for the masked, NULL for everyone else. Returns the
/// gated columns whose type no masking policy can take (they get none).
std::set<std::string> add_mask_policies(const ObjectPolicy& op, const Securable& obj, const Readers& readers,
                                        const UserSets& users, TypeCache& types, Plan& plan);

/// One row access policy per object whose readers have a row filter, or that a gated tag gates
/// whole (MODEL §3: one policy per tagged object): each class's ANDed filter (TRUE for readers
/// without one), FALSE for everyone else, so a view the snapshot does not know reads no row of a
/// gated object for a user who is not cleared.
void add_row_policy(const ObjectPolicy& op, const Securable& obj, const Readers& readers, const UserSets& users,
                    TypeCache& types, Plan& plan);

}  // namespace tw::starrocks
