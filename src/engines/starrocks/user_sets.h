#pragma once
// The users of one render and the sets of them that grants and policies are for. Users are
// compared by the rank of their engine name; sets of users are interned, so one set is one id;
// what is computed per combination of the access classes' user lists (their union, the holder
// role name, the user count of a finding) is kept in the RenderCache for the next render of the
// same profile.

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tagwarden/compile/policy_set.h"
#include "tagwarden/engines/starrocks/plan.h"

namespace tw::starrocks {

// What one render computed per combination of user lists, with the lists it was computed for:
// holding them keeps their addresses from being reused by other lists while the entry lives, so
// an address found again is the same list, with the same users.
struct RenderCache::State {
  using List = UserList;
  using Key = std::vector<const void*>;  ///< list addresses, sorted, no repeats
  struct Union {
    std::vector<std::shared_ptr<const List>> lists;
    std::shared_ptr<const List> users;  ///< their union, sorted; depends on the indices only
  };
  struct Count {
    std::vector<std::shared_ptr<const List>> lists;
    std::size_t count = 0;
    std::string some;
  };
  struct Name {
    std::shared_ptr<const List> users;
    std::string hash;  ///< hash16 of the users' engine names, sorted
  };
  std::vector<std::string> users;  ///< the engine names `counts` and `names` were written for
  std::map<Key, Union> unions;
  std::map<Key, Count> counts;
  std::map<const void*, Name> names;
};

/// The user sets of one render of `ps`. Not thread-safe; one per render.
class UserSets {
 public:
  using List = UserList;  ///< PolicySet user indices, sorted
  using ListPtr = std::shared_ptr<const List>;
  using Lists = std::vector<ListPtr>;
  /// Users are compared by engine name through their rank: equal names share a rank and ranks
  /// order as the names do, so sorting ranks sorts names (duplicates included) without a string
  /// compare, and a set of ranks is a set of names.
  using Rank = std::uint32_t;

  /// Ranks the users; takes the last render's entries from `cache` (nullptr: no cache).
  UserSets(const PolicySet& ps, RenderCache* cache);
  /// Leaves in the cache only what this render used, so it does not grow with every change.
  ~UserSets();
  UserSets(const UserSets&) = delete;
  UserSets& operator=(const UserSets&) = delete;

  /// User indices sorted by engine name.
  const std::vector<std::size_t>& by_name() const { return by_name_; }
  /// The rank of one user's engine name.
  Rank rank(std::size_t user) const { return rank_[user]; }
  /// The ranks of some users (a List or a vector of indices), sorted (duplicates kept).
  template <typename Users>
  std::vector<Rank> ranks(const Users& users) const {
    std::vector<Rank> out;
    out.reserve(users.size());
    for (std::size_t u : users) out.push_back(rank_[u]);
    std::sort(out.begin(), out.end());
    return out;
  }
  /// The engine names of sorted ranks, in their order.
  std::vector<std::string> names_of(const std::vector<Rank>& sorted_ranks) const;
  /// Engine names of some users, sorted (duplicates kept).
  template <typename Users>
  std::vector<std::string> names(const Users& users) const {
    return names_of(ranks(users));
  }

  /// A set of users (PolicySet indices, sorted), interned: the same set is one id.
  std::size_t intern(ListPtr users);
  /// The interned set with this id.
  const ListPtr& list(std::size_t id) const { return sets_[id]; }
  /// The id of the union of some classes' user lists, computed once per distinct combination of
  /// lists (or taken from the last render, which computed it for the same lists).
  std::size_t union_of(Lists lists);
  /// hash16 of the engine names of a set of users (sorted), or as the last render wrote it for the
  /// same list under the same names.
  std::string names_hash(const ListPtr& users);

  /// "N user(s) (a, b and N more)" parts for the users of some lists, by distinct engine name:
  /// computed once per distinct combination of lists, without materializing the names.
  struct UserCount {
    std::size_t count = 0;
    std::string some;  // join_some of the sorted distinct names
  };
  const UserCount& user_count(Lists lists);

 private:
  void rank_users();
  static RenderCache::State::Key combination(Lists& lists);
  List merge(const Lists& lists);
  const UserCount& remember_count(RenderCache::State::Key key, Lists lists, UserCount c);

  const PolicySet& ps_;
  RenderCache* cache_;
  std::unique_ptr<RenderCache::State> previous_;  // the last render's entries
  RenderCache::State next_;                       // what this render used, for the next one
  bool same_names_ = false;                       // previous_ was written for the same engine names
  std::vector<std::size_t> by_name_;              // user indices sorted by engine name
  std::vector<Rank> rank_;                        // user index -> rank of its engine name
  std::vector<const std::string*> ranked_;        // distinct engine names by rank
  std::vector<std::uint32_t> seen_;               // per rank: the epoch that last counted it (user_count)
  std::uint32_t epoch_ = 0;
  std::vector<std::uint64_t> union_bits_;  // per user, for user_count()
  struct ByUsers {
    bool operator()(const List* a, const List* b) const { return *a < *b; }
  };
  std::map<const List*, std::size_t, ByUsers> set_ids_;  // into sets_
  std::vector<ListPtr> sets_;
  std::unordered_map<const List*, std::size_t> ids_by_address_;  // sets_ ids of lists already interned
  std::vector<char> marks_;                                      // per user, for merge()
  std::map<RenderCache::State::Key, std::size_t> combo_ids_;
  std::map<RenderCache::State::Key, UserCount> counts_;
};

}  // namespace tw::starrocks
