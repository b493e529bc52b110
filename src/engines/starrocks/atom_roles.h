#pragma once
// A user holds one owned role: an atom role inheriting the holder roles its users need. StarRocks
// refuses a membership that would give a user more than privilege_max_total_roles_per_user roles
// (64 by default), counting every inherited role and PUBLIC, which every user holds. An atom role
// needing more holder roles than that inherits them in fewer roles: the holder roles with the most
// grants directly, the others through bundle roles (each holding the grants of several holder roles,
// shared by the atoms that need them all) or by holding their grants itself. Its users hold exactly
// the same privileges, within the cap.

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tagwarden/engines/starrocks/plan.h"

namespace tw::starrocks {

/// Holder roles an atom role may inherit when users may hold `max_roles_per_user` roles: PUBLIC
/// and the atom role itself are two of them.
std::size_t inheritable_roles(std::size_t max_roles_per_user);

/// An atom role (a role of the state, with its members) whose members need more holder roles than
/// it may inherit: `holders` are roles of the state, sorted, each named once.
struct CappedAtom {
  std::string name;
  std::vector<std::string> holders;
};

/// What inherit_within_cap made, for the finding.
struct CapOutcome {
  std::size_t bundles = 0;  ///< bundle roles made
  std::size_t copied = 0;   ///< holder roles whose grants some atom role holds itself
  std::size_t dropped = 0;  ///< holder roles no role inherits any more: not made
};

/// Makes each atom of `atoms` give what its holder roles give while inheriting at most
/// `inheritable` roles; holder roles inherit none (roles count transitively in StarRocks), and a
/// bundle role holds the grants of its holder roles instead of inheriting them. Which holder roles
/// share a bundle depends on how many of the capped atoms need each (holder roles needed by about
/// as many go together) and on the first object each holds a grant on, not on its place in a list.
/// A bundle role is named `bundle_prefix` + "r" + hash16 of the grants it holds: the shape of a
/// holder role. Removes the roles then held by nobody.
CapOutcome inherit_within_cap(OwnedState& state, const std::vector<CappedAtom>& atoms, std::size_t inheritable,
                              const std::string& bundle_prefix);

/// Adds to `into` the role `name` and every role of `roles` it inherits, transitively: what a member
/// of `name` holds, as StarRocks counts it.
void add_inherited_closure(const std::map<std::string, OwnedState::Role>& roles, const std::string& name,
                           std::set<std::string>& into);

/// Removes the roles of `state` that nobody holds (no members, inherited by no role): holder roles
/// whose every atom took their grants. Returns how many.
std::size_t drop_unheld_roles(OwnedState& state);

}  // namespace tw::starrocks
