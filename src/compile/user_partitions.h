#pragma once
// Users split by what tells them apart on one object: first by the privileges the grants
// covering it give them, then by clearance of its gated tags. Objects covered by the same
// grants and gated by the same tags split users alike, so each split is made once per
// compile and its user lists are shared by every such object.

#include <cstddef>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "grant_patterns.h"
#include "tagwarden/compile/model.h"
#include "user_lists.h"

namespace tw {

/// Users whom a set of grants gives the same privileges.
struct GrantGroup {
  PrivilegeSet granted;
  std::shared_ptr<const std::vector<std::size_t>> users;
};
using GrantPartition = std::vector<GrantGroup>;

/// A grant group split further by clearance of an object's gated tags.
struct ClearanceGroup {
  PrivilegeSet granted;
  std::vector<bool> cleared;  ///< per entry of the object's gated tag list
  std::shared_ptr<const std::vector<std::size_t>> users;
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
  const std::vector<std::size_t>& clearance_kinds();

  static constexpr std::size_t kUnset = static_cast<std::size_t>(-1);
  const Model& m_;
  const std::vector<EngineGrant>& grants_;
  UserLists& lists_;
  std::map<std::vector<std::size_t>, GrantPartition> partitions_;  // covering grants -> partition
  std::map<std::pair<const GrantPartition*, std::vector<std::size_t>>, ClearancePartition> clearance_partitions_;
  std::vector<std::uint8_t> scratch_privileges_;
  std::vector<std::size_t> clearance_kind_;  // per user: users alike for every engine-gated tag share one
  std::vector<std::size_t> kind_slot_;       // per kind, while one group is split: its list, or kUnset
  std::vector<std::size_t> touched_kinds_;
};

}  // namespace tw
