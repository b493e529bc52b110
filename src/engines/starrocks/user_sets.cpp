#include "user_sets.h"

#include <algorithm>
#include <numeric>

#include "owned_names.h"
#include "tagwarden/util/bit_count.h"
#include "tagwarden/util/text.h"

namespace tw::starrocks {

RenderCache::RenderCache() = default;
RenderCache::~RenderCache() = default;

UserSets::UserSets(const PolicySet& ps, RenderCache* cache) : ps_(ps), cache_(cache) {
  if (cache_) {
    next_.users.reserve(ps.users.size());
    for (const auto& u : ps.users) next_.users.push_back(u.engine_name);
    previous_ = std::move(cache_->state);
    same_names_ = previous_ && previous_->users == next_.users;
  }
  rank_users();
}

UserSets::~UserSets() {
  if (cache_) cache_->state = std::make_unique<RenderCache::State>(std::move(next_));
}

void UserSets::rank_users() {
  by_name_.resize(ps_.users.size());
  std::iota(by_name_.begin(), by_name_.end(), std::size_t{0});
  std::sort(by_name_.begin(), by_name_.end(),
            [&](std::size_t a, std::size_t b) { return ps_.users[a].engine_name < ps_.users[b].engine_name; });
  rank_.resize(ps_.users.size());
  for (auto u : by_name_) {
    if (ranked_.empty() || *ranked_.back() != ps_.users[u].engine_name) ranked_.push_back(&ps_.users[u].engine_name);
    rank_[u] = static_cast<Rank>(ranked_.size() - 1);
  }
  seen_.assign(ranked_.size(), 0);
}

std::vector<std::string> UserSets::names_of(const std::vector<Rank>& sorted_ranks) const {
  std::vector<std::string> out;
  out.reserve(sorted_ranks.size());
  for (auto r : sorted_ranks) out.push_back(*ranked_[r]);
  return out;
}

std::size_t UserSets::intern(ListPtr users) {
  if (auto known = ids_by_address_.find(users.get()); known != ids_by_address_.end()) return known->second;
  const List* address = users.get();
  auto [it, inserted] = set_ids_.try_emplace(address, sets_.size());
  if (inserted) {  // kept alive by sets_, so the address stays this list's for the whole render
    sets_.push_back(std::move(users));
    ids_by_address_.emplace(address, it->second);
  }
  return it->second;
}

// Some lists by address without repeats, and the addresses: the key of a combination.
RenderCache::State::Key UserSets::combination(Lists& lists) {
  std::sort(lists.begin(), lists.end(), [](const ListPtr& a, const ListPtr& b) { return a.get() < b.get(); });
  lists.erase(std::unique(lists.begin(), lists.end()), lists.end());
  RenderCache::State::Key key;
  key.reserve(lists.size());
  for (const auto& l : lists) key.push_back(l.get());
  return key;
}

std::size_t UserSets::union_of(Lists lists) {
  auto key = combination(lists);
  auto it = combo_ids_.find(key);
  if (it != combo_ids_.end()) return it->second;
  ListPtr all;
  if (previous_) {
    if (auto p = previous_->unions.find(key); p != previous_->unions.end()) all = p->second.users;
  }
  if (!all) all = std::make_shared<const List>(merge(lists));
  const std::size_t id = intern(std::move(all));
  // The interned list: equal unions of other combinations are then one address in the next render too.
  if (cache_) next_.unions.try_emplace(key, RenderCache::State::Union{std::move(lists), sets_[id]});
  combo_ids_.emplace(std::move(key), id);
  return id;
}

// The users of some lists, sorted, without repeats: by marking users when the lists are long
// against the number of users, else by sorting.
UserSets::List UserSets::merge(const Lists& lists) {
  std::size_t total = 0;
  for (const auto& l : lists) total += l->size();
  std::vector<std::size_t> users;
  if (total * 8 >= ps_.users.size()) {
    marks_.assign(ps_.users.size(), 0);
    for (const auto& l : lists) {
      for (auto u : *l) marks_[u] = 1;
    }
    users.reserve(std::min(total, ps_.users.size()));
    for (std::size_t u = 0; u < marks_.size(); ++u) {
      if (marks_[u]) users.push_back(u);
    }
    return List::of_indices(users);
  }
  users.reserve(total);
  for (const auto& l : lists) users.insert(users.end(), l->begin(), l->end());
  std::sort(users.begin(), users.end());
  users.erase(std::unique(users.begin(), users.end()), users.end());
  return List::of_indices(users);
}

std::string UserSets::names_hash(const ListPtr& users) {
  std::string hash;
  bool found = false;
  if (previous_ && same_names_) {
    if (auto p = previous_->names.find(users.get()); p != previous_->names.end()) {
      hash = p->second.hash;
      found = true;
    }
  }
  if (!found) hash = hash16(names(*users));
  if (cache_) next_.names.try_emplace(users.get(), RenderCache::State::Name{users, hash});
  return hash;
}

const UserSets::UserCount& UserSets::user_count(Lists lists) {
  auto key = combination(lists);
  auto it = counts_.find(key);
  if (it != counts_.end()) return it->second;
  if (previous_ && same_names_) {
    if (auto p = previous_->counts.find(key); p != previous_->counts.end()) {
      UserCount c{p->second.count, p->second.some};
      return remember_count(std::move(key), std::move(lists), std::move(c));
    }
  }
  constexpr std::size_t kNamed = 20;  // join_some's default limit
  UserCount c;
  std::vector<Rank> named;
  std::size_t total = 0;
  for (const auto& l : lists) total += l->size();
  if (ranked_.size() == ps_.users.size() && total * 16 >= ps_.users.size()) {
    // One rank per user, and many users: the union is a bitmap of users, counted a word at a
    // time, and the first names are the first users by name found in it.
    union_bits_.assign((ps_.users.size() + 63) / 64, 0);
    for (const auto& l : lists) l->mark(union_bits_);
    c.count = count_bits(union_bits_);
    for (auto it = by_name_.begin(); it != by_name_.end() && named.size() < std::min(kNamed, c.count); ++it) {
      if (union_bits_[*it / 64] >> (*it % 64) & 1) named.push_back(rank_[*it]);
    }
  } else {
    if (++epoch_ == 0) {  // wrapped: clear the marks
      std::fill(seen_.begin(), seen_.end(), 0);
      epoch_ = 1;
    }
    for (const auto& l : lists) {
      for (auto u : *l) {
        const Rank r = rank_[u];
        if (seen_[r] != epoch_) {
          seen_[r] = epoch_;
          named.push_back(r);
        }
      }
    }
    c.count = named.size();
    const std::size_t first = std::min(kNamed, named.size());
    std::partial_sort(named.begin(), named.begin() + static_cast<std::ptrdiff_t>(first), named.end());
    named.resize(first);
  }
  std::vector<std::string> words = names_of(named);
  if (c.count > kNamed) words.push_back(std::to_string(c.count - kNamed) + " more");
  c.some = join_words(words);
  return remember_count(std::move(key), std::move(lists), std::move(c));
}

const UserSets::UserCount& UserSets::remember_count(RenderCache::State::Key key, Lists lists, UserCount c) {
  if (cache_) next_.counts.try_emplace(key, RenderCache::State::Count{std::move(lists), c.count, c.some});
  return counts_.emplace(std::move(key), std::move(c)).first->second;
}

}  // namespace tw::starrocks
