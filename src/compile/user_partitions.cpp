#include "user_partitions.h"

#include <algorithm>
#include <bit>
#include <map>
#include <string>

namespace tw {

UserPartitions::UserPartitions(const Model& model, const std::vector<EngineGrant>& grants, UserLists& lists)
    : m_(model), grants_(grants), lists_(lists) {}

const GrantPartition& UserPartitions::by_grants(const std::vector<std::size_t>& grants) {
  auto [it, fresh] = partitions_.try_emplace(grants);
  if (!fresh) return it->second;
  std::vector<std::uint8_t>& acc = scratch_privileges_;
  acc.assign(m_.snapshot->users.size(), 0);
  for (std::size_t g : grants) {
    for (std::size_t u : grants_[g].holders) acc[u] |= grants_[g].privileges.bits();
  }
  // A scan of every user finds the holders in order; sorting them cost more at L (20,000 users).
  std::map<std::uint8_t, std::vector<std::size_t>> by_privileges;
  for (std::size_t u = 0; u < acc.size(); ++u) {
    if (acc[u]) by_privileges[acc[u]].push_back(u);
  }
  for (auto& [bits, users] : by_privileges) {
    it->second.push_back({PrivilegeSet(bits), lists_.get(std::move(users))});
  }
  return it->second;
}

const ClearancePartition& UserPartitions::by_clearance(const GrantPartition& partition,
                                                       const std::vector<std::size_t>& tags) {
  auto [it, fresh] = clearance_partitions_.try_emplace({&partition, tags});
  if (!fresh) return it->second;
  struct Part {
    UserBits users;
    std::vector<bool> cleared;
  };
  for (const auto& group : partition) {
    // Each tag in turn splits every part into its users not cleared and cleared for it, as
    // bitmaps: a word operation per 64 users, where a lookup per user cost most of a cold
    // compile at L. The parts stay in the order of their cleared flags, false first.
    std::vector<Part> parts, next;
    parts.push_back({members(*group.users), {}});
    for (std::size_t t : tags) {
      const UserBits& holders = m_.cleared_users[t];
      next.clear();
      for (Part& part : parts) {
        Part without{UserBits(part.users.size()), part.cleared}, with{UserBits(part.users.size()), part.cleared};
        std::uint64_t any_without = 0, any_with = 0;
        for (std::size_t w = 0; w < part.users.size(); ++w) {
          without.users[w] = part.users[w] & ~holders[w];
          with.users[w] = part.users[w] & holders[w];
          any_without |= without.users[w];
          any_with |= with.users[w];
        }
        without.cleared.push_back(false);
        with.cleared.push_back(true);
        if (any_without) next.push_back(std::move(without));
        if (any_with) next.push_back(std::move(with));
      }
      parts.swap(next);
    }
    for (Part& part : parts) {
      auto users = parts.size() == 1 ? group.users : list_of(part.users);
      it->second.push_back({group.granted, std::move(part.cleared), std::move(users)});
    }
  }
  return it->second;
}

const UserPartitions::UserBits& UserPartitions::members(const UserList& users) {
  auto [it, fresh] = members_.try_emplace(&users);
  if (fresh) {
    it->second.assign((m_.snapshot->users.size() + 63) / 64, 0);
    users.mark(it->second);
  }
  return it->second;
}

UserListPtr UserPartitions::list_of(const UserBits& bits) {
  return lists_.of_bits(bits);  // most splits repeat one made before: found by the bitmap, not listed again
}

}  // namespace tw
