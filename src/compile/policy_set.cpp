#include "tagwarden/compile/policy_set.h"

#include <algorithm>

#include "grant_patterns.h"

namespace tw {

const std::string* AccessClass::reason_starting(std::string_view marker) const {
  for (const auto& reason : reasons) {
    if (std::string_view(reason).starts_with(marker)) return &reason;
  }
  return nullptr;
}

std::string describe(const ColumnMask& m) {
  std::string out(to_string(m.kind));
  if (m.kind != MaskKind::Partial) return out;
  out += " " + std::to_string(m.visible_chars);
  if (m.fully_masked_through() > m.visible_chars)
    out += " (" + std::to_string(m.fully_masked_through()) + " or fewer characters fully masked)";
  return out;
}

ColumnMask strictest(const ColumnMask& a, const ColumnMask& b) {
  if (a.kind != b.kind) return static_cast<int>(a.kind) > static_cast<int>(b.kind) ? a : b;
  if (a.kind != MaskKind::Partial) return a;
  ColumnMask out = a.visible_chars <= b.visible_chars ? a : b;
  const int through = std::max(a.fully_masked_through(), b.fully_masked_through());
  out.masked_through = through > out.visible_chars ? through : 0;
  return out;
}

const std::vector<AccessClass>& AccessClasses::empty_list() {
  static const std::vector<AccessClass> none;
  return none;
}

const AccessClass* ObjectPolicy::class_of(std::size_t user) const {
  for (const auto& cls : classes) {
    if (cls.users->contains(user)) return &cls;
  }
  return nullptr;
}

PrivilegeSet UnlistedRule::privileges_of(std::size_t user) const {
  for (const auto& [privileges, users] : access) {
    if (users->contains(user)) return privileges;
  }
  return {};
}

std::size_t UnlistedRule::holders() const {
  std::size_t n = 0;
  for (const auto& group : access) n += group.second->size();
  return n;
}

bool UnlistedRule::same_access(const UnlistedRule& other) const {
  return std::equal(access.begin(), access.end(), other.access.begin(), other.access.end(),
                    [](const auto& a, const auto& b) {
                      return a.first == b.first && (a.second == b.second || *a.second == *b.second);
                    });
}

PrivilegeSet PolicySet::unlisted_access(std::size_t user, const QualifiedName& name) const {
  for (const auto& rule : unlisted) {
    if (!covers(rule.pattern, name)) continue;
    return rule.privileges_of(user);  // the most specific pattern decides; users absent from it have nothing here
  }
  return {};
}

bool UnlistedRules::same_as(const UnlistedRules& other) const {
  return rules_ == other.rules_ ||
         std::equal(begin(), end(), other.begin(), other.end(), [](const UnlistedRule& x, const UnlistedRule& y) {
           return x.pattern == y.pattern && x.same_access(y);
         });
}

}  // namespace tw
