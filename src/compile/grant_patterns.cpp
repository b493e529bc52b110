#include "grant_patterns.h"

#include <algorithm>
#include <optional>
#include <set>

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
  std::vector<std::size_t> holders;
  for (const auto& pattern : ordered) {
    holders.clear();
    for (const auto& g : grants) {
      if (!covers(g.pattern, pattern)) continue;
      for (std::size_t u : g.holders) {
        if (privileges[u].empty() && !g.privileges.empty()) holders.push_back(u);
        privileges[u].add(g.privileges);
      }
    }
    std::sort(holders.begin(), holders.end());
    UnlistedRule rule{pattern, {}};
    for (std::size_t u : holders) {
      PrivilegeSet privs = privileges[u];
      privileges[u] = {};
      if (restricted[u]) privs.remove(Privilege::Ownership);
      if (!privs.empty()) rule.access.emplace_back(u, privs);
    }
    if (!rule.access.empty()) out.push_back(std::move(rule));
  }
  return out;
}

}  // namespace tw
