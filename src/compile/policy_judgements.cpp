#include "policy_judgements.h"

#include <algorithm>
#include <bit>

namespace tw {

void PolicyJudgements::slots_for_keys() {
  if (key_slot_.size() != keys_.text.size()) key_slot_.assign(keys_.text.size(), kUnset);
}

const PolicyGroups& PolicyJudgements::groups_of(const UserListPtr& users) {
  if (auto it = groups_.find(users.get()); it != groups_.end()) return it->second;
  PolicyGroups groups{users, {}, {}};
  if (users->size() > 64 * keys_.text.size()) {
    groups_by_bits(*users, groups);
  } else {
    slots_for_keys();
    for (std::size_t u : *users) {
      std::size_t& slot = key_slot_[keys_.of_user[u]];
      if (slot != kUnset) continue;
      slot = groups.keys.size();
      groups.keys.push_back(keys_.of_user[u]);
      groups.first.push_back(u);
    }
    for (std::size_t k : groups.keys) key_slot_[k] = kUnset;
  }
  if (groups.keys.size() * 4 > users->size()) {
    unkept_ = std::move(groups);
    return unkept_;
  }
  return groups_.emplace(users.get(), std::move(groups)).first->second;
}

void PolicyJudgements::groups_by_bits(const UserList& users, PolicyGroups& groups) {
  const std::size_t words = (keys_.of_user.size() + 63) / 64;
  if (key_users_.empty()) {
    key_users_.assign(keys_.text.size(), std::vector<std::uint64_t>(words, 0));
    for (std::size_t u = 0; u < keys_.of_user.size(); ++u)
      key_users_[keys_.of_user[u]][u / 64] |= std::uint64_t{1} << (u % 64);
  }
  list_bits_.assign(words, 0);
  users.mark(list_bits_);
  // Each key's first user in the list; the list's order is ascending, so ordered by that user the
  // keys come in order of first appearance, as a pass over the list finds them.
  std::vector<std::pair<std::size_t, std::size_t>> first_of_key;
  for (std::size_t k = 0; k < key_users_.size(); ++k) {
    const std::vector<std::uint64_t>& key = key_users_[k];
    for (std::size_t w = 0; w < words; ++w) {
      if (const std::uint64_t both = list_bits_[w] & key[w]) {
        first_of_key.emplace_back(w * 64 + static_cast<std::size_t>(std::countr_zero(both)), k);
        break;
      }
    }
  }
  std::sort(first_of_key.begin(), first_of_key.end());
  for (const auto& [first, key] : first_of_key) {
    groups.keys.push_back(key);
    groups.first.push_back(first);
  }
}

const std::vector<PolicyDecision>& PolicyJudgements::judged(const ObjectPolicy& op, std::size_t key, std::size_t user) {
  if (judged_slot_.size() != keys_.text.size()) judged_slot_.assign(keys_.text.size(), kUnset);
  std::size_t& slot = judged_slot_[key];
  if (slot == kUnset) {
    slot = judged_.size();
    judged_.push_back(judge_policies(m_, op, user));
    judged_keys_.push_back(key);
  }
  return judged_[slot];
}

void PolicyJudgements::forget_judged() {
  for (std::size_t k : judged_keys_) judged_slot_[k] = kUnset;
  judged_keys_.clear();
  judged_.clear();
}

}  // namespace tw
