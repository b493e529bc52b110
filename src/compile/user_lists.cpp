#include "user_lists.h"

#include <functional>
#include <string_view>

namespace tw {

UserListPtr UserLists::intern(UserList&& list) {
  const std::size_t hash = std::hash<std::string_view>{}(list.bytes());
  for (auto [it, end] = lists_.equal_range(hash); it != end; ++it) {
    if (*it->second == list) return it->second;
  }
  auto kept = std::make_shared<const UserList>(std::move(list));
  lists_.emplace(hash, kept);
  return kept;
}

}  // namespace tw
