#pragma once
// Access policies judged once per policy key and object, not once per user: every user of
// a key is judged alike (compile/policy_keys.h), so a class's users are grouped by key, each
// group's first user is judged, and the class is regrouped by outcome. Lists are shared by
// many objects' classes, so each list's groups are worked out once per compile.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "policy_keys.h"
#include "tagwarden/compile/access_policies.h"
#include "tagwarden/compile/model.h"
#include "tagwarden/compile/policy_set.h"

namespace tw {

/// The policy keys among a list's users, each with its first user, in order of first appearance.
struct PolicyGroups {
  UserListPtr users;  ///< keeps the address, the cache's key, taken
  std::vector<std::size_t> keys;
  std::vector<std::size_t> first;
};

class PolicyJudgements {
 public:
  PolicyJudgements(const Model& model, const PolicyKeys& keys) : m_(model), keys_(keys) {}

  /// The groups of a list. A list whose users mostly have keys of their own is not kept
  /// (it would double the list's memory): the result is valid until the next call.
  const PolicyGroups& groups_of(const UserListPtr& users);

  /// The policies judged on the object being decided for `user`, whose key is `key`.
  const std::vector<PolicyDecision>& judged(const ObjectPolicy& op, std::size_t key, std::size_t user);
  /// Called before each object: judgements hold for one object only.
  void forget_judged();

  /// Calls to_group(user, index of the user's group in `groups`) for each of `users` in their order;
  /// `groups` must be the groups of `users`.
  template <typename Deal>
  void deal(const PolicyGroups& groups, const UserList& users, const Deal& to_group) {
    slots_for_keys();
    for (std::size_t i = 0; i < groups.keys.size(); ++i) key_slot_[groups.keys[i]] = i;
    for (std::size_t u : users) to_group(u, key_slot_[keys_.of_user[u]]);
    for (std::size_t k : groups.keys) key_slot_[k] = kUnset;
  }

 private:
  static constexpr std::size_t kUnset = static_cast<std::size_t>(-1);
  void slots_for_keys();
  /// The groups of a long list, found per key on bitmaps (a few words per key, where a pass over
  /// the list looks up each of thousands of users).
  void groups_by_bits(const UserList& users, PolicyGroups& groups);

  const Model& m_;
  const PolicyKeys& keys_;
  std::vector<std::size_t> key_slot_;  ///< per policy key, while one list is scanned or dealt, else kUnset
  std::unordered_map<const UserList*, PolicyGroups> groups_;
  PolicyGroups unkept_;                   ///< the last list's, when not kept in groups_
  std::vector<std::size_t> judged_slot_;  ///< per policy key: its decisions on the object being decided
  std::vector<std::vector<PolicyDecision>> judged_;
  std::vector<std::size_t> judged_keys_;
  std::vector<std::vector<std::uint64_t>> key_users_;  ///< per policy key: its users as a bitmap, once asked for
  std::vector<std::uint64_t> list_bits_;               ///< the list groups_by_bits works on
};

}  // namespace tw
