#include "grant_patterns.h"

#include "user_lists.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace tw {
namespace {

// Intersection of two grant patterns; nullopt when disjoint.
std::optional<QualifiedName> intersect(const QualifiedName& a, const QualifiedName& b) {
  auto part = [](const std::string& x, const std::string& y) -> std::optional<std::string> {
    if (x == "*") return y;
    if (y == "*" || x == y) return x;
    return std::nullopt;
  };
  auto c = part(a.catalog, b.catalog);
  auto s = part(a.schema, b.schema);
  auto t = part(a.table, b.table);
  if (!c || !s || !t) return std::nullopt;
  return QualifiedName{*c, *s, *t};
}

int concrete_parts(const QualifiedName& p) { return (p.catalog != "*") + (p.schema != "*") + (p.table != "*"); }

}  // namespace

bool covers(const QualifiedName& general, const QualifiedName& specific) {
  auto part = [](const std::string& g, const std::string& s) { return g == "*" || g == s; };
  return part(general.catalog, specific.catalog) && part(general.schema, specific.schema) &&
         part(general.table, specific.table);
}

std::vector<UnlistedRule> unlisted_rules(const std::vector<EngineGrant>& grants, std::size_t users,
                                         const std::vector<bool>& restricted) {
  std::set<QualifiedName> closure;
  for (const auto& g : grants) closure.insert(g.pattern);
  // Close under intersection so that the most specific matching pattern
  // carries the union of every grant that reaches a name.
  for (bool grew = true; grew;) {
    grew = false;
    std::vector<QualifiedName> current(closure.begin(), closure.end());
    for (std::size_t i = 0; i < current.size(); ++i) {
      for (std::size_t j = i + 1; j < current.size(); ++j) {
        if (auto x = intersect(current[i], current[j]); x && closure.insert(*x).second) grew = true;
      }
    }
  }
  std::vector<QualifiedName> ordered(closure.begin(), closure.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const QualifiedName& a, const QualifiedName& b) {
    return concrete_parts(a) > concrete_parts(b);
  });
  std::vector<UnlistedRule> out;
  // Per user, indexed densely: a tree map here was most of a recompile that reused every object.
  std::vector<PrivilegeSet> privileges(users);
  // A bit per user holding something here: walking the bits lists the holders in order
  // (sorting them for each pattern was a twentieth of a large compile).
  std::vector<std::uint64_t> holding((users + 63) / 64, 0);
  UserLists lists;  // patterns reached by the same grants share their groups' lists
  std::map<PrivilegeSet, UserLists::Bits> groups;
  for (const auto& pattern : ordered) {
    for (const auto& g : grants) {
      if (!covers(g.pattern, pattern) || g.privileges.empty()) continue;
      for (std::size_t u : g.holders) {
        holding[u / 64] |= std::uint64_t{1} << (u % 64);
        privileges[u].add(g.privileges);
      }
    }
    for (std::size_t w = 0; w < holding.size(); ++w) {
      for (std::uint64_t bits = std::exchange(holding[w], 0); bits; bits &= bits - 1) {
        const std::size_t u = w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
        PrivilegeSet privs = std::exchange(privileges[u], {});
        if (restricted[u]) privs.remove(Privilege::Ownership);
        if (privs.empty()) continue;
        auto& group = groups[privs];
        if (group.empty()) group.assign(holding.size(), 0);
        group[w] |= std::uint64_t{1} << (u % 64);
      }
    }
    if (groups.empty()) continue;
    UnlistedRule rule{pattern, {}};
    rule.access.reserve(groups.size());
    for (const auto& [privs, bits] : groups) rule.access.emplace_back(privs, lists.of_bits(bits));
    groups.clear();
    out.push_back(std::move(rule));
  }
  return out;
}

}  // namespace tw
