#pragma once
// User lists of access classes, kept once per content. Objects whose tag sets differ often
// split their users the same way; one list for them all is most of the memory a large
// PolicySet saves (at L, 1.9 GB of lists in one profile held 0.8 GB of distinct content),
// and renderers, which key their work by list, then do that work once.

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "tagwarden/compile/user_list.h"

namespace tw {

class UserLists {
 public:
  /// Bit u % 64 of word u / 64 set: user u is in.
  using Bits = std::vector<std::uint64_t>;

  /// The list with these users (sorted), made once per compile.
  UserListPtr get(const std::vector<std::size_t>& users) { return intern(UserList::of_indices(users)); }
  /// The same for the users set in `bits`.
  UserListPtr of_bits(const Bits& bits) { return intern(UserList::of_bits(bits)); }

 private:
  UserListPtr intern(UserList&& list);

  // Keyed by a hash of the list's bytes: each get hashes once, over its smaller form. (Hashing
  // whole lists of thousands of users, twice per get, was a fifth of a membership change's
  // compile at L.)
  std::unordered_multimap<std::size_t, UserListPtr> lists_;
};

}  // namespace tw
