#pragma once
// Users split by what tells them apart on one object: first by the privileges the grants
// covering it give them, then by clearance of its gated tags. Objects covered by the same
// grants and gated by the same tags split users alike, so each split is made once per
// compile and its user lists are shared by every such object.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "grant_patterns.h"
#include "tagwarden/compile/model.h"
#include "user_lists.h"

namespace tw {

/// Users whom a set of grants gives the same privileges.
struct GrantGroup {
  PrivilegeSet granted;
  UserListPtr users;
};
using GrantPartition = std::vector<GrantGroup>;

/// A grant group split further by clearance of an object's gated tags.
struct ClearanceGroup {
  PrivilegeSet granted;
  std::vector<bool> cleared;  ///< per entry of the object's gated tag list
  UserListPtr users;
};
using ClearancePartition = std::vector<ClearanceGroup>;

class UserPartitions {
 public:
  /// `grants` and `lists` must outlive this; grants are read when a partition is first asked for.
  UserPartitions(const Model& model, const std::vector<EngineGrant>& grants, UserLists& lists);

  /// Holders of any of `grants` (indices into the grant list) grouped by the union of
  /// their privileges, groups in privilege order. The reference stays valid for the life of this object.
  const GrantPartition& by_grants(const std::vector<std::size_t>& grants);
  /// Each group of `partition` split by clearance of `tags` (sorted classification
  /// indices), in the order of the cleared flags. Valid for the life of this object.
  const ClearancePartition& by_clearance(const GrantPartition& partition, const std::vector<std::size_t>& tags);

 private:
  using UserBits = std::vector<std::uint64_t>;  // bit u % 64 of word u / 64: user u is in
  /// A list's users as a bitmap, made once per list (the lists of a grant partition are shared).
  const UserBits& members(const UserList& users);
  /// The shared list of these users, made once per content.
  UserListPtr list_of(const UserBits& bits);

  const Model& m_;
  const std::vector<EngineGrant>& grants_;
  UserLists& lists_;
  std::map<std::vector<std::size_t>, GrantPartition> partitions_;  // covering grants -> partition
  std::map<std::pair<const GrantPartition*, std::vector<std::size_t>>, ClearancePartition> clearance_partitions_;
  std::map<const UserList*, UserBits> members_;  // keyed by lists the partitions hold
  std::vector<std::uint8_t> scratch_privileges_;
};

}  // namespace tw
