#pragma once
// The resolved model: a validated Snapshot plus the indexes and derived facts
// every compile needs (who holds what, now; which tags each object carries).
// Built once per snapshot and shared read-only between profiles.

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tagwarden/model/snapshot.h"

namespace tw {

/// Role names, sorted, each once: the roles one user holds. Built once per model and then only
/// searched, so a sorted list rather than a tree of nodes (5,000 users' sets at M).
/// A user's roles, sorted, as views of the role names in the model's snapshot (the model holds
/// it): copying 25,000 names and sorting the copies was half of building the model at M.
class RoleSet {
 public:
  RoleSet() = default;
  explicit RoleSet(std::vector<std::string_view> roles);
  bool count(std::string_view role) const;
  std::vector<std::string_view>::const_iterator begin() const { return roles_.begin(); }
  std::vector<std::string_view>::const_iterator end() const { return roles_.end(); }
  std::size_t size() const { return roles_.size(); }
  bool empty() const { return roles_.empty(); }
  bool operator==(const std::set<std::string>& other) const {
    return std::equal(roles_.begin(), roles_.end(), other.begin(), other.end());
  }

 private:
  std::vector<std::string_view> roles_;
};

struct Model {
  Model() = default;
  // Not copied: a copy would share `lazy` (what was worked out from the original) while its
  // fields could be changed. Models are made by build_model and shared read-only.
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  std::shared_ptr<const Snapshot> snapshot;
  Timestamp now;

  std::unordered_map<std::string, std::size_t> user_index;    ///< platform name -> users[i]
  std::unordered_map<std::string, std::size_t> tag_index;     ///< classification name -> classifications[i]
  std::unordered_map<std::string, std::size_t> object_index;  ///< platform c.s.t -> objects[i]
  std::vector<RoleSet> direct_roles;                          ///< per user: held directly, unexpired at now
  std::vector<RoleSet> any_roles;                             ///< per user: directly or through a group, unexpired
  /// role -> users holding it directly, unexpired (keys view the snapshot's names)
  std::unordered_map<std::string_view, std::vector<std::size_t>> role_holders;
  std::vector<std::set<std::string>> object_tags;  ///< per object: own tags + inherited through depends_on
  /// Per object: every object it reads through depends_on, transitively (indices, sorted). A view
  /// has no column lineage, so what restricts a base (its tags, a policy scoped to it, a column
  /// or its domain) restricts the whole view.
  std::vector<std::vector<std::size_t>> object_bases;
  std::vector<bool> engine_gated;  ///< per classification: has at least one role row
  /// Per object: its columns carrying an engine-gated tag, as (column index, those tags sorted),
  /// in column order. Every profile reads them; looking each column's tags up once per profile
  /// was a fifth of collecting a profile's objects at M.
  std::vector<std::vector<std::pair<std::size_t, std::vector<std::string>>>> gated_columns;
  /// Per object: the engine-gated classifications on it whole (own or inherited) or on its
  /// columns, as indices, sorted: every profile's compile keys and decides each object by them.
  std::vector<std::vector<std::size_t>> gated_tags;
  /// Per object: whether an enabled access policy's scope reaches it (any_policy_reaches). Every
  /// profile's compile memo asks it of every object; asked once per profile, it was a fifth of
  /// deciding M's trino_a when every decision was reused.
  std::vector<bool> policy_reached;
  /// Objects whose name or a column's name Trino lowercases by context (a capital sigma), in
  /// snapshot order: every Trino profile refuses those in its catalogs, and scanning every
  /// column name again for each profile was the cost of that check (they are rare).
  std::vector<std::size_t> unfoldable_objects;
  /// Who is cleared (engine semantics), by classification: bit u % 64 of word u / 64 is set when
  /// user u is. Splitting a set of users by clearance is then word operations, not a lookup per user.
  std::vector<std::vector<std::uint64_t>> cleared_users;

  const User& user(std::size_t i) const { return snapshot->users[i]; }
  const Object& object(std::size_t i) const { return snapshot->objects[i]; }
  const Classification& tag(const std::string& name) const { return snapshot->classifications.at(tag_index.at(name)); }
  bool is_engine_gated(const std::string& tag) const { return engine_gated[tag_index.at(tag)]; }
  bool is_cleared(std::size_t user, const std::string& tag) const { return is_cleared(user, tag_index.at(tag)); }
  bool is_cleared(std::size_t user, std::size_t tag) const {
    return (cleared_users[tag][user / 64] >> (user % 64)) & 1;
  }
  /// Earliest expires_at strictly after now among direct and group assignments, if any.
  std::optional<Timestamp> next_expiry() const;

  /// What is worked out from the model on first use, once, by whichever profile's compile asks
  /// first, and shared with the others (compile/policy_keys.h: every profile read the same keys).
  struct Lazy;
  std::shared_ptr<Lazy> lazy = make_lazy();
  static std::shared_ptr<Lazy> make_lazy();
};

/// Pure; `now` is generated_at unless overridden.
std::shared_ptr<const Model> build_model(std::shared_ptr<const Snapshot> snapshot, std::optional<Timestamp> now);

}  // namespace tw
