#pragma once
// User lists of access classes, kept once per content. Objects whose tag sets differ often
// split their users the same way; one list for them all is most of the memory a large
// PolicySet saves (at L, 1.9 GB of lists in one profile held 0.8 GB of distinct content),
// and renderers, which key their work by list, then do that work once.

#include <cstddef>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tw {

class UserLists {
 public:
  using List = std::vector<std::size_t>;

  /// The list with these users (sorted), made once per compile.
  std::shared_ptr<const List> get(List users);

 private:
  struct ByContent {
    std::size_t operator()(const List* l) const {
      return std::hash<std::string_view>{}(
          std::string_view(reinterpret_cast<const char*>(l->data()), l->size() * sizeof(std::size_t)));
    }
    bool operator()(const List* a, const List* b) const { return *a == *b; }
  };
  std::unordered_map<const List*, std::shared_ptr<const List>, ByContent, ByContent> lists_;
};

inline std::shared_ptr<const UserLists::List> UserLists::get(List users) {
  if (auto it = lists_.find(&users); it != lists_.end()) return it->second;
  auto list = std::make_shared<const List>(std::move(users));
  lists_.emplace(list.get(), list);
  return list;
}

}  // namespace tw
