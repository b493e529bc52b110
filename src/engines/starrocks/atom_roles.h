#pragma once
// A user holds one owned role: an atom role inheriting the holder roles its users need. StarRocks
// refuses a membership that would give a user more than privilege_max_total_roles_per_user roles
// (64 by default), counting every inherited role and PUBLIC, which every user holds. An atom role
// therefore inherits at most that many less two holder roles, those holding the most grants, and
// holds the grants of the others itself: its users hold exactly the same privileges, within the cap.

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tagwarden/engines/starrocks/plan.h"

namespace tw::starrocks {

/// Holder roles an atom role may inherit when users may hold `max_roles_per_user` roles: PUBLIC
/// and the atom role itself are two of them.
std::size_t inheritable_roles(std::size_t max_roles_per_user);

/// Makes `atom` (a role of `state`) give what the holder roles `holders` (roles of `state`, each
/// named once) give: it inherits them when they are at most `inheritable`; else it inherits the
/// `inheritable` ones with the most grants (by name among equals) and takes the grants of the rest.
/// Adds the names of the holder roles whose grants it took (the keys of state.roles) to `taken`
/// when given.
void inherit_within_cap(OwnedState& state, const std::string& atom, const std::vector<std::string>& holders,
                        std::size_t inheritable, std::set<std::string_view>* taken = nullptr);

/// Adds to `into` the role `name` and every role of `roles` it inherits, transitively: what a member
/// of `name` holds, as StarRocks counts it.
void add_inherited_closure(const std::map<std::string, OwnedState::Role>& roles, const std::string& name,
                           std::set<std::string>& into);

/// Removes the roles of `state` that nobody holds (no members, inherited by no role): holder roles
/// whose every atom took their grants. Returns how many.
std::size_t drop_unheld_roles(OwnedState& state);

}  // namespace tw::starrocks
