#include "atom_roles.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "owned_names.h"

namespace tw::starrocks {

namespace {

using Grants = std::map<Securable, std::set<std::string>>;
using GrantRef = const std::pair<const Securable, std::set<std::string>>*;

// In securable order, so that a role taking a hundred thousand grants is built from its end.
void add_grants(Grants& into, std::vector<GrantRef> grants) {
  std::stable_sort(grants.begin(), grants.end(), [](GrantRef a, GrantRef b) { return a->first < b->first; });
  for (GrantRef g : grants) {
    auto it = into.empty() || std::prev(into.end())->first < g->first
                  ? into.emplace_hint(into.end(), g->first, std::set<std::string>{})
                  : into.try_emplace(g->first).first;
    it->second.insert(g->second.begin(), g->second.end());
  }
}

// FNV-1a, written out: a holder role's group must not depend on the platform's std::hash, or the
// same inputs would give other role names elsewhere.
std::uint64_t name_hash(std::string_view s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// A bundle role is named by what it holds, not by the holder roles it was made from: a change that
// renames a holder role (its users changed) leaves the bundles holding the same grants as they are.
// The parts are joined with NUL bytes, which no name holds (render_plan refuses them), and counted,
// so that two different sets of grants never give the same text. A holder role's text is its
// users' names in ascending order; this one starts "bundle" and then a digit, which sorts before it,
// so the two never meet. It has a holder role's shape, <prefix>r<16 hex>,
// so that every tagwarden that reads a server, older ones too, owns it: a binary rolled back revokes
// and drops it like any holder role it does not want.
std::string grants_hash(const Grants& grants) {
  std::vector<std::string> parts = {"bundle"};
  for (const auto& [on, privileges] : grants) {
    parts.push_back(std::to_string(static_cast<int>(on.kind)));
    parts.push_back(on.catalog);
    parts.push_back(on.database);
    parts.push_back(on.name);
    parts.push_back(std::to_string(privileges.size()));
    parts.insert(parts.end(), privileges.begin(), privileges.end());
  }
  return hash16(parts);
}

// floor(2 log2(atoms / needed)), at most `last`: holder roles needed by about as many atoms share a
// bucket, and so their bundles (the most common ones are needed together by most atoms).
std::size_t bucket_of(std::uint64_t needed, std::uint64_t atoms, std::size_t last) {
  std::size_t b = 0;
  while (b < last && ((needed * needed) << (b + 1)) <= atoms * atoms) ++b;
  return b;
}

}  // namespace

std::size_t inheritable_roles(std::size_t max_roles_per_user) {
  return max_roles_per_user > 2 ? max_roles_per_user - 2 : 0;
}

CapOutcome inherit_within_cap(OwnedState& state, const std::vector<CappedAtom>& atoms, std::size_t inheritable,
                              const std::string& bundle_prefix) {
  CapOutcome out;
  if (atoms.empty()) return out;
  using RoleIt = std::map<std::string, OwnedState::Role>::iterator;
  std::unordered_map<std::string_view, std::uint32_t> index;  // holder role name -> into holder
  std::vector<RoleIt> holder;
  std::vector<std::uint64_t> needed;                           // by holder: how many of the atoms need it
  std::vector<std::vector<std::uint32_t>> held(atoms.size());  // by atom: its holders, in name order
  for (std::size_t a = 0; a < atoms.size(); ++a) {
    held[a].reserve(atoms[a].holders.size());
    for (const auto& h : atoms[a].holders) {
      auto [it, inserted] = index.try_emplace(h, static_cast<std::uint32_t>(holder.size()));
      if (inserted) {
        auto role = state.roles.find(h);
        if (role == state.roles.end()) throw std::logic_error("inherit_within_cap: no holder role " + h);
        holder.push_back(role);
        needed.push_back(0);
      }
      ++needed[it->second];
      held[a].push_back(it->second);
    }
  }
  std::set<std::uint32_t> copied;
  auto copy_into = [&](OwnedState::Role& atom, const std::vector<std::uint32_t>& holders) {
    std::vector<GrantRef> grants;
    for (auto h : holders) {
      for (const auto& g : holder[h]->second.grants) grants.push_back(&g);
      copied.insert(h);
    }
    add_grants(atom.grants, std::move(grants));
  };
  auto finish = [&] {
    out.copied = copied.size();
    out.dropped = drop_unheld_roles(state);
    return out;
  };
  if (inheritable == 0) {
    for (std::size_t a = 0; a < atoms.size(); ++a) copy_into(state.roles.at(atoms[a].name), held[a]);
    return finish();
  }

  // A third of the places go to the holder roles with the most grants, inherited directly: copying
  // them into bundles would repeat the most statements. The rest go to groups of the other holder
  // roles: an atom takes the holder roles it needs of one group as one role, so it inherits at most
  // `direct + groups` = `inheritable` roles whatever it needs.
  const std::size_t n = holder.size();
  std::vector<std::uint32_t> by_grants(n);
  std::iota(by_grants.begin(), by_grants.end(), 0u);
  std::sort(by_grants.begin(), by_grants.end(), [&](std::uint32_t a, std::uint32_t b) {
    const std::size_t ga = holder[a]->second.grants.size(), gb = holder[b]->second.grants.size();
    return ga != gb ? ga > gb : holder[a]->first < holder[b]->first;
  });
  constexpr std::uint32_t kDirect = UINT32_MAX;
  const std::size_t direct = std::max<std::size_t>(inheritable / 3, 1);  // n > inheritable
  const std::size_t groups = inheritable - direct;                       // none when only one role may be inherited
  std::vector<std::uint32_t> group(n, kDirect);
  std::vector<std::uint32_t> place(n);  // by holder: its place in by_grants
  for (std::size_t i = 0; i < n; ++i) place[by_grants[i]] = static_cast<std::uint32_t>(i);
  // What an atom would copy into itself, it inherits instead while it has places left: the holder
  // roles with the most grants first. Copying costs a statement per grant, inheriting one.
  auto inherit_or_copy = [&](OwnedState::Role& atom, std::vector<std::uint32_t> own, std::size_t places) {
    std::sort(own.begin(), own.end(), [&](auto x, auto y) { return place[x] < place[y]; });
    const std::size_t inherited = std::min(places, own.size());
    for (std::size_t i = 0; i < inherited; ++i) atom.roles.insert(holder[own[i]]->first);
    own.erase(own.begin(), own.begin() + static_cast<std::ptrdiff_t>(inherited));
    copy_into(atom, own);
  };
  if (groups == 0) {
    for (std::size_t a = 0; a < atoms.size(); ++a) inherit_or_copy(state.roles.at(atoms[a].name), held[a], 1);
    return finish();
  }
  std::vector<std::size_t> bucket(n), in_bucket(groups, 0);
  for (std::size_t i = direct; i < n; ++i) {
    const auto h = by_grants[i];
    bucket[h] = bucket_of(needed[h], atoms.size(), groups - 1);
    ++in_bucket[bucket[h]];
  }
  // Groups of a power of two of holder roles at most, so that the groups change only when a bucket
  // grows past one. A bucket's holder roles are spread over its groups by the first object they
  // hold a grant on: holder roles on the same objects go together, and a holder role renamed by a
  // membership change (its name is a hash of its users) mostly stays where it was.
  std::size_t size = 1;
  auto groups_of = [&](std::size_t b) { return (in_bucket[b] + size - 1) / size; };
  for (;;) {
    std::size_t total = 0;
    for (std::size_t b = 0; b < groups; ++b) total += groups_of(b);
    if (total <= groups) break;
    size *= 2;
  }
  std::vector<std::size_t> first(groups, 0);
  for (std::size_t b = 1; b < groups; ++b) first[b] = first[b - 1] + groups_of(b - 1);
  for (std::size_t i = direct; i < n; ++i) {
    const auto h = by_grants[i];
    const auto& g0 = holder[h]->second.grants;
    const std::string key = g0.empty() ? holder[h]->first : g0.begin()->first.str();
    group[h] = static_cast<std::uint32_t>(first[bucket[h]] + name_hash(key) % groups_of(bucket[h]));
  }

  // Each atom's holder roles by group, in name order within one (the direct ones are not in a
  // group); a group's part needed by two atoms or more is a bundle role, one needed by a single atom
  // is inherited holder by holder while places remain, and copied into it after.
  using Part = std::vector<std::uint32_t>;
  std::vector<std::vector<Part>> parts(atoms.size());
  std::map<Part, std::size_t> atoms_needing;
  for (std::size_t a = 0; a < atoms.size(); ++a) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> by_group;  // (group, holder)
    for (auto h : held[a]) {
      if (group[h] != kDirect) by_group.emplace_back(group[h], h);
    }
    std::stable_sort(by_group.begin(), by_group.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (std::size_t i = 0; i < by_group.size();) {
      Part& part = parts[a].emplace_back();
      const std::uint32_t g = by_group[i].first;
      for (; i < by_group.size() && by_group[i].first == g; ++i) part.push_back(by_group[i].second);
      ++atoms_needing[part];
    }
  }
  std::map<Part, std::string> bundles;
  std::set<std::string_view> made;
  for (std::size_t a = 0; a < atoms.size(); ++a) {
    OwnedState::Role& atom = state.roles.at(atoms[a].name);
    std::size_t places = inheritable;
    for (auto h : held[a]) {
      if (group[h] != kDirect) continue;
      atom.roles.insert(holder[h]->first);
      --places;
    }
    Part own;
    for (const auto& part : parts[a]) {
      if (part.size() == 1) {
        atom.roles.insert(holder[part.front()]->first);
        --places;
        continue;
      }
      if (atoms_needing.at(part) == 1) {
        own.insert(own.end(), part.begin(), part.end());
        continue;
      }
      auto [it, inserted] = bundles.try_emplace(part);
      if (inserted) {
        std::vector<GrantRef> refs;
        for (auto h : part) {
          for (const auto& g : holder[h]->second.grants) refs.push_back(&g);
        }
        Grants grants;
        add_grants(grants, std::move(refs));
        it->second = bundle_prefix + "r" + grants_hash(grants);
        auto [role, fresh] = state.roles.try_emplace(it->second);
        // Equal names are equal grants (grants_hash), unless 64 bits of SHA-256 collide: then the
        // plan is refused rather than an atom given another bundle's grants.
        if (fresh) {
          role->second.grants = std::move(grants);
        } else if (role->second.grants != grants || !role->second.members.empty()) {
          throw std::logic_error("inherit_within_cap: bundle role " + it->second + " collides with another role");
        }
        made.insert(role->first);
      }
      atom.roles.insert(it->second);
      --places;
    }
    inherit_or_copy(atom, std::move(own), places);
  }
  out.bundles = made.size();
  return finish();
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
