#include "tagwarden/compile/user_list.h"

#include "tagwarden/util/bit_count.h"

#include <algorithm>
#include <stdexcept>

namespace tw {

namespace {

// A word of bitmap holds 64 users in the space of two 32-bit indices.
bool bits_shorter(std::size_t count, std::size_t words) { return count > 2 * words; }

}  // namespace

UserList UserList::of_indices(const std::vector<std::size_t>& sorted) {
  UserList l;
  l.count_ = sorted.size();
  if (sorted.empty()) return l;
  if (sorted.back() > UINT32_MAX) throw std::length_error("user index beyond 32 bits");
  const std::size_t words = sorted.back() / 64 + 1;
  if (bits_shorter(l.count_, words)) {
    l.words_.assign(words, 0);
    for (std::size_t u : sorted) l.words_[u / 64] |= std::uint64_t{1} << (u % 64);
    return l;
  }
  l.index_.assign(sorted.begin(), sorted.end());
  return l;
}

UserList UserList::of_bits(const std::vector<std::uint64_t>& bits) {
  UserList l;
  std::size_t words = bits.size();
  while (words > 0 && bits[words - 1] == 0) --words;
  l.count_ = count_bits(bits.data(), words);
  if (bits_shorter(l.count_, words)) {
    l.words_.assign(bits.begin(), bits.begin() + static_cast<std::ptrdiff_t>(words));
    return l;
  }
  if (words * 64 > std::size_t{UINT32_MAX}) throw std::length_error("user index beyond 32 bits");
  l.index_.reserve(l.count_);
  for (std::size_t w = 0; w < words; ++w) {
    for (std::uint64_t word = bits[w]; word != 0; word &= word - 1)
      l.index_.push_back(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(word))));
  }
  return l;
}

void UserList::mark(std::vector<std::uint64_t>& bits) const {
  for (std::size_t w = 0; w < words_.size(); ++w) bits[w] |= words_[w];
  for (std::uint32_t u : index_) bits[u / 64] |= std::uint64_t{1} << (u % 64);
}

bool UserList::contains(std::size_t user) const {
  if (words_.empty()) return std::binary_search(index_.begin(), index_.end(), user);
  return user / 64 < words_.size() && (words_[user / 64] >> (user % 64) & 1) != 0;
}

UserList::const_iterator UserList::begin() const {
  const_iterator it;
  if (words_.empty()) {
    it.index_ = index_.data();
    return it;
  }
  it.words_ = words_.data();
  it.n_ = words_.size();
  it.word_ = words_[0];
  while (it.word_ == 0 && ++it.w_ < it.n_) it.word_ = words_[it.w_];
  return it;
}

UserList::const_iterator UserList::end() const {
  const_iterator it;
  if (words_.empty()) {
    it.index_ = index_.data() + index_.size();
    return it;
  }
  it.words_ = words_.data();
  it.n_ = it.w_ = words_.size();
  return it;
}

std::string_view UserList::bytes() const {
  if (words_.empty()) return {reinterpret_cast<const char*>(index_.data()), index_.size() * sizeof(std::uint32_t)};
  return {reinterpret_cast<const char*>(words_.data()), words_.size() * sizeof(std::uint64_t)};
}

bool operator<(const UserList& a, const UserList& b) {
  if (a.words_.empty() && b.words_.empty()) return a.index_ < b.index_;
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace tw
