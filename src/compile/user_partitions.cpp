#include "user_partitions.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace tw {

UserPartitions::UserPartitions(const Model& model, const std::vector<EngineGrant>& grants, UserLists& lists)
    : m_(model), grants_(grants), lists_(lists) {}

const GrantPartition& UserPartitions::by_grants(const std::vector<std::size_t>& grants) {
  auto [it, fresh] = partitions_.try_emplace(grants);
  if (!fresh) return it->second;
  std::vector<std::uint8_t>& acc = scratch_privileges_;
  acc.assign(m_.snapshot->users.size(), 0);
  std::vector<std::size_t> touched;
  for (std::size_t g : grants) {
    for (std::size_t u : grants_[g].holders) {
      if (!acc[u]) touched.push_back(u);
      acc[u] |= grants_[g].privileges.bits();
    }
  }
  std::sort(touched.begin(), touched.end());
  std::map<std::uint8_t, std::vector<std::size_t>> by_privileges;
  for (std::size_t u : touched) by_privileges[acc[u]].push_back(u);
  for (auto& [bits, users] : by_privileges) {
    it->second.push_back({PrivilegeSet(bits), lists_.get(std::move(users))});
  }
  return it->second;
}

const ClearancePartition& UserPartitions::by_clearance(const GrantPartition& partition,
                                                       const std::vector<std::size_t>& tags) {
  auto [it, fresh] = clearance_partitions_.try_emplace({&partition, tags});
  if (!fresh) return it->second;
  const std::vector<std::size_t>& kind = clearance_kinds();
  for (const auto& group : partition) {
    // Users of one clearance kind are cleared alike for any tags, so each kind's key over
    // these tags is worked out once, from its first user; every user then costs one lookup.
    std::unordered_map<std::string, std::size_t> by_key;  // '1' = cleared, one per tag -> index into lists
    std::vector<std::vector<std::size_t>> lists;
    std::string key(tags.size(), '0');
    for (std::size_t u : *group.users) {
      std::size_t& slot = kind_slot_[kind[u]];
      if (slot == kUnset) {
        const std::vector<bool>& cleared = m_.cleared[u];
        for (std::size_t i = 0; i < tags.size(); ++i) key[i] = cleared[tags[i]] ? '1' : '0';
        auto [at, added] = by_key.try_emplace(key, lists.size());
        if (added) lists.emplace_back();
        slot = at->second;
        touched_kinds_.push_back(kind[u]);
      }
      lists[slot].push_back(u);
    }
    for (std::size_t k : touched_kinds_) kind_slot_[k] = kUnset;
    touched_kinds_.clear();
    std::map<std::vector<bool>, std::size_t> split;  // in the order classes are listed
    for (const auto& [bits, index] : by_key) {
      std::vector<bool> flags(bits.size());
      for (std::size_t i = 0; i < bits.size(); ++i) flags[i] = bits[i] == '1';
      split.emplace(std::move(flags), index);
    }
    for (auto& [cleared, index] : split) {
      auto shared = split.size() == 1 ? group.users : lists_.get(std::move(lists[index]));
      it->second.push_back({group.granted, cleared, std::move(shared)});
    }
  }
  return it->second;
}

// Users cleared for exactly the same engine-gated tags share a kind: no object's gates can
// tell them apart. Worked out once per compile.
const std::vector<std::size_t>& UserPartitions::clearance_kinds() {
  const std::size_t users = m_.snapshot->users.size();
  if (!clearance_kind_.empty() || users == 0) return clearance_kind_;
  std::vector<std::size_t> gated;
  for (std::size_t t = 0; t < m_.engine_gated.size(); ++t) {
    if (m_.engine_gated[t]) gated.push_back(t);
  }
  std::unordered_map<std::string, std::size_t> kinds;
  std::string key(gated.size(), '0');
  clearance_kind_.resize(users);
  for (std::size_t u = 0; u < users; ++u) {
    for (std::size_t i = 0; i < gated.size(); ++i) key[i] = m_.cleared[u][gated[i]] ? '1' : '0';
    clearance_kind_[u] = kinds.try_emplace(key, kinds.size()).first->second;
  }
  kind_slot_.assign(kinds.size(), kUnset);
  return clearance_kind_;
}

}  // namespace tw
