#pragma once
// A sorted set of user indices, held in whichever of two forms is smaller: the indices (32 bits
// each) while they are few, a bitmap up to the largest index once that is shorter. The form
// depends on the content alone, so equal sets have equal bytes and hash alike. At L one Trino
// profile holds about 40,000 distinct lists averaging 2,700 of 20,000 users: 874 MB as 64-bit
// indices, about a tenth as bitmaps, and zeroing the fresh pages they took was a third of deciding.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string_view>
#include <vector>

namespace tw {

class UserList {
 public:
  using value_type = std::size_t;

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::size_t;

    const_iterator() = default;
    std::size_t operator*() const {
      return words_ ? w_ * 64 + static_cast<std::size_t>(std::countr_zero(word_)) : *index_;
    }
    const_iterator& operator++() {
      if (!words_) {
        ++index_;
        return *this;
      }
      word_ &= word_ - 1;
      while (word_ == 0 && ++w_ < n_) word_ = words_[w_];
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++*this;
      return before;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) {
      return a.index_ == b.index_ && a.w_ == b.w_ && a.word_ == b.word_;
    }

   private:
    friend class UserList;
    const std::uint32_t* index_ = nullptr;  // the index form
    const std::uint64_t* words_ = nullptr;  // the bitmap form
    std::size_t w_ = 0, n_ = 0;
    std::uint64_t word_ = 0;
  };

  UserList() = default;
  /// From sorted, distinct indices.
  static UserList of_indices(const std::vector<std::size_t>& sorted);
  /// From a bitmap: bit u % 64 of word u / 64 set when user u is in.
  static UserList of_bits(const std::vector<std::uint64_t>& bits);

  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  bool contains(std::size_t user) const;
  const_iterator begin() const;
  const_iterator end() const;
  /// Every index, ascending.
  std::vector<std::size_t> indices() const { return {begin(), end()}; }
  /// Sets bit u % 64 of word u / 64 of `bits` for every user u (`bits` holds every user's word):
  /// a word at a time in the bitmap form.
  void mark(std::vector<std::uint64_t>& bits) const;

  /// The bytes of the form held: equal sets, equal bytes.
  std::string_view bytes() const;
  friend bool operator==(const UserList& a, const UserList& b) {
    return a.count_ == b.count_ && a.words_.empty() == b.words_.empty() && a.bytes() == b.bytes();
  }
  /// Lexicographic over the indices, as for the sorted vectors they replace.
  friend bool operator<(const UserList& a, const UserList& b);

 private:
  std::size_t count_ = 0;
  std::vector<std::uint32_t> index_;  // the index form; empty in the bitmap form
  std::vector<std::uint64_t> words_;  // the bitmap form, its last word non-zero; empty in the index form
};

/// Lists are shared, once per content, by the classes that hold them (UserLists).
using UserListPtr = std::shared_ptr<const UserList>;

}  // namespace tw
