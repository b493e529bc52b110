#pragma once
// User lists of access classes, kept once per content. Objects whose tag sets differ often
// split their users the same way; one list for them all is most of the memory a large
// PolicySet saves (at L, 1.9 GB of lists in one profile held 0.8 GB of distinct content),
// and renderers, which key their work by list, then do that work once.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace tw {

class UserLists {
 public:
  using List = std::vector<std::size_t>;
  /// Bit u % 64 of word u / 64 set: user u is in.
  using Bits = std::vector<std::uint64_t>;

  /// `users`: how many users the lists are of (every index is below it).
  explicit UserLists(std::size_t users = 0) : words_((users + 63) / 64) {}

  /// The list with these users (sorted), made once per compile.
  std::shared_ptr<const List> get(List users);
  /// The same for the users set in `bits` (a word per 64 users), listed only when no list has them.
  std::shared_ptr<const List> of_bits(const Bits& bits);

 private:
  // A list is found by a hash of its content in one form, chosen by its length: its indices while
  // they are fewer than the words of a bitmap, the bitmap once it is shorter. Equal lists take the
  // same form, so the same hash; each get hashes once, over at most one bit per user. (Hashing whole
  // lists of thousands of users, twice per get, was a fifth of a membership change's compile at L.)
  struct Entry {
    std::shared_ptr<const List> list;
    Bits bits;  ///< the bitmap form's key; empty in the index form
  };
  bool dense(const List& users) const;
  /// The list kept under `hash` equal to `users` (index form) or to `bits` (bitmap form), or null.
  std::shared_ptr<const List> find(std::size_t hash, const List* users, const Bits* bits) const;
  std::shared_ptr<const List> add(std::size_t hash, List&& users, Bits bits);

  std::size_t words_;
  std::unordered_multimap<std::size_t, Entry> lists_;
};

}  // namespace tw
