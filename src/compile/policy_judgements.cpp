#include "policy_judgements.h"

namespace tw {

void PolicyJudgements::slots_for_keys() {
  if (key_slot_.size() != keys_.text.size()) key_slot_.assign(keys_.text.size(), kUnset);
}

const PolicyGroups& PolicyJudgements::groups_of(const UserListPtr& users) {
  if (auto it = groups_.find(users.get()); it != groups_.end()) return it->second;
  PolicyGroups groups{users, {}, {}};
  slots_for_keys();
  for (std::size_t u : *users) {
    std::size_t& slot = key_slot_[keys_.of_user[u]];
    if (slot != kUnset) continue;
    slot = groups.keys.size();
    groups.keys.push_back(keys_.of_user[u]);
    groups.first.push_back(u);
  }
  for (std::size_t k : groups.keys) key_slot_[k] = kUnset;
  if (groups.keys.size() * 4 > users->size()) {
    unkept_ = std::move(groups);
    return unkept_;
  }
  return groups_.emplace(users.get(), std::move(groups)).first->second;
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
