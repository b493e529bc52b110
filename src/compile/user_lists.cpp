#include "user_lists.h"

#include <bit>
#include <string_view>

namespace tw {

namespace {

template <typename T>
std::size_t hash_of(const std::vector<T>& items) {
  return std::hash<std::string_view>{}(
      std::string_view(reinterpret_cast<const char*>(items.data()), items.size() * sizeof(T)));
}

}  // namespace

bool UserLists::dense(const List& users) const {
  // Sorted: the last index is the largest, and a bitmap holds only users below 64 * words_.
  return users.size() > words_ && users.back() < words_ * 64;
}

std::shared_ptr<const UserLists::List> UserLists::get(List users) {
  if (!dense(users)) {
    const std::size_t hash = hash_of(users);
    if (auto found = find(hash, &users, nullptr)) return found;
    return add(hash, std::move(users), Bits());
  }
  Bits bits(words_, 0);
  for (std::size_t u : users) bits[u / 64] |= std::uint64_t{1} << (u % 64);
  const std::size_t hash = hash_of(bits);
  if (auto found = find(hash, nullptr, &bits)) return found;
  return add(hash, std::move(users), std::move(bits));
}

std::shared_ptr<const UserLists::List> UserLists::of_bits(const Bits& bits) {
  std::size_t count = 0;
  for (std::uint64_t word : bits) count += static_cast<std::size_t>(std::popcount(word));
  const bool as_bits = bits.size() == words_ && count > words_;
  std::size_t hash = 0;
  if (as_bits) {
    hash = hash_of(bits);
    if (auto found = find(hash, nullptr, &bits)) return found;
  }
  List users;
  users.reserve(count);
  for (std::size_t w = 0; w < bits.size(); ++w) {
    for (std::uint64_t word = bits[w]; word != 0; word &= word - 1)
      users.push_back(w * 64 + static_cast<std::size_t>(std::countr_zero(word)));
  }
  if (!as_bits) return get(std::move(users));
  return add(hash, std::move(users), bits);
}

std::shared_ptr<const UserLists::List> UserLists::find(std::size_t hash, const List* users, const Bits* bits) const {
  for (auto [it, end] = lists_.equal_range(hash); it != end; ++it) {
    const Entry& e = it->second;
    if (bits ? e.bits == *bits : e.bits.empty() && *e.list == *users) return e.list;
  }
  return nullptr;
}

std::shared_ptr<const UserLists::List> UserLists::add(std::size_t hash, List&& users, Bits bits) {
  auto list = std::make_shared<const List>(std::move(users));
  lists_.emplace(hash, Entry{list, std::move(bits)});
  return list;
}

}  // namespace tw
