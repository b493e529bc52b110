#include "atom_roles.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string_view>

namespace tw::starrocks {

std::size_t inheritable_roles(std::size_t max_roles_per_user) {
  return max_roles_per_user > 2 ? max_roles_per_user - 2 : 0;
}

void inherit_within_cap(OwnedState& state, const std::string& atom, const std::vector<std::string>& holders,
                        std::size_t inheritable, std::set<std::string_view>* taken_names) {
  OwnedState::Role& role = state.roles[atom];
  if (holders.size() <= inheritable) {
    role.roles.insert(holders.begin(), holders.end());
    return;
  }
  // Grants taken cost a statement each for every atom taking them: the largest holders stay shared.
  std::vector<std::pair<std::size_t, const std::string*>> by_size;
  by_size.reserve(holders.size());
  for (const auto& h : holders) by_size.emplace_back(state.roles.at(h).grants.size(), &h);
  std::sort(by_size.begin(), by_size.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : *a.second < *b.second;
  });
  using Grant = const std::pair<const Securable, std::set<std::string>>*;
  std::vector<Grant> taken;
  for (std::size_t i = 0; i < by_size.size(); ++i) {
    const std::string& holder = *by_size[i].second;
    if (i < inheritable) {
      role.roles.insert(holder);
      continue;
    }
    const auto found = state.roles.find(holder);
    if (found == state.roles.end()) throw std::logic_error("inherit_within_cap: no holder role " + holder);
    for (const auto& grant : found->second.grants) taken.push_back(&grant);
    if (taken_names) taken_names->insert(found->first);
  }
  // In securable order, so the atom's grants are built from the end (a hundred thousand at M).
  std::stable_sort(taken.begin(), taken.end(), [](Grant a, Grant b) { return a->first < b->first; });
  for (Grant g : taken) {
    auto it = role.grants.empty() || std::prev(role.grants.end())->first < g->first
                  ? role.grants.emplace_hint(role.grants.end(), g->first, std::set<std::string>{})
                  : role.grants.try_emplace(g->first).first;
    it->second.insert(g->second.begin(), g->second.end());
  }
}

void add_inherited_closure(const std::map<std::string, OwnedState::Role>& roles, const std::string& name,
                           std::set<std::string>& into) {
  std::vector<const std::string*> queue = {&name};
  while (!queue.empty()) {
    const std::string* r = queue.back();
    queue.pop_back();
    if (!into.insert(*r).second) continue;
    if (auto it = roles.find(*r); it != roles.end()) {
      for (const auto& inherited : it->second.roles) queue.push_back(&inherited);
    }
  }
}

std::size_t drop_unheld_roles(OwnedState& state) {
  std::set<std::string_view> inherited;
  for (const auto& [name, role] : state.roles) inherited.insert(role.roles.begin(), role.roles.end());
  std::size_t dropped = 0;
  for (auto it = state.roles.begin(); it != state.roles.end();) {
    if (it->second.members.empty() && !inherited.count(it->first)) {
      it = state.roles.erase(it);
      ++dropped;
    } else {
      ++it;
    }
  }
  return dropped;
}

}  // namespace tw::starrocks
