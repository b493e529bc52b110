#include "tagwarden/compile/policy_set.h"

#include <algorithm>

#include "grant_patterns.h"

namespace tw {

const AccessClass* ObjectPolicy::class_of(std::size_t user) const {
  for (const auto& cls : classes) {
    if (std::binary_search(cls.users->begin(), cls.users->end(), user)) return &cls;
  }
  return nullptr;
}

PrivilegeSet PolicySet::unlisted_access(std::size_t user, const QualifiedName& name) const {
  for (const auto& rule : unlisted) {
    if (!covers(rule.pattern, name)) continue;
    auto it =
        std::lower_bound(rule.access.begin(), rule.access.end(), user,
                         [](const std::pair<std::size_t, PrivilegeSet>& a, std::size_t u) { return a.first < u; });
    if (it != rule.access.end() && it->first == user) return it->second;
    return {};  // the most specific pattern decides; users absent from it have nothing here
  }
  return {};
}

bool UnlistedRules::same_as(const UnlistedRules& other) const {
  return rules_ == other.rules_ ||
         std::equal(begin(), end(), other.begin(), other.end(), [](const UnlistedRule& x, const UnlistedRule& y) {
           return x.pattern == y.pattern && x.access == y.access;
         });
}

}  // namespace tw
