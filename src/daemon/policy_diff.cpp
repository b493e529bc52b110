#include "policy_diff.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

namespace tw {
namespace {

std::set<std::string> rule_lines(const std::string& bytes) {
  std::set<std::string> out;
  std::istringstream in(bytes);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("  {", 0) != 0) continue;  // one rule per line, indented two spaces
    if (!line.empty() && line.back() == ',') line.pop_back();
    out.insert(line.substr(2));
  }
  return out;
}

std::vector<std::string> minus(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const auto& x : a) {
    if (std::find(b.begin(), b.end(), x) == b.end()) out.push_back(x);
  }
  return out;
}

// Who holds what on one name on one side: engine user -> access, sorted by user, only
// users with some privilege. Points into the PolicySet or into the side's cache.
using Holders = std::vector<std::pair<std::string_view, const Access*>>;

// One side of the diff: what every engine user may do on any name, listed or not.
class Side {
 public:
  explicit Side(const PolicySet* ps) : ps_(ps) {
    if (!ps_) return;
    for (const auto& op : ps_->objects) listed_.emplace(op.engine_name, &op);
  }

  const ObjectPolicy* listed(const QualifiedName& name) const {
    auto it = listed_.find(name);
    return it == listed_.end() ? nullptr : it->second;
  }
  void names(std::set<QualifiedName>& out) const {
    for (const auto& [name, _] : listed_) out.insert(name);
  }

  /// As the engine decides it: a listed object by its own classes (a user in none has nothing
  /// there), any other name by the most specific rule for unlisted names covering it.
  const Holders& holders(const QualifiedName& name) {
    if (!ps_) return nobody_;
    if (const ObjectPolicy* op = listed(name)) {
      scratch_.clear();
      for (const auto& cls : op->classes) {
        if (cls.access.privileges.empty()) continue;
        for (std::size_t u : *cls.users) scratch_.emplace_back(ps_->users[u].engine_name, &cls.access);
      }
      std::sort(scratch_.begin(), scratch_.end());
      return scratch_;
    }
    const UnlistedRule* rule = unlisted_rule(name);
    if (!rule) return nobody_;
    auto [it, fresh] = unlisted_.try_emplace(rule);
    if (fresh) {
      auto& entry = it->second;
      entry.access.reserve(rule->access.size());
      for (const auto& [privs, users] : rule->access) {
        Access a;  // privileges only: no columns, masks or filters on names the snapshot does not list
        a.privileges = privs;
        entry.access.push_back(std::move(a));
      }
      for (std::size_t i = 0; i < rule->access.size(); ++i) {
        for (std::size_t u : *rule->access[i].second)
          entry.holders.emplace_back(ps_->users[u].engine_name, &entry.access[i]);
      }
      std::sort(entry.holders.begin(), entry.holders.end());
    }
    return it->second.holders;
  }

 private:
  // The first rule whose pattern covers the name: rules are ordered most specific first.
  const UnlistedRule* unlisted_rule(const QualifiedName& n) const {
    for (const auto& rule : ps_->unlisted) {
      const auto& p = rule.pattern;
      if ((p.catalog == "*" || p.catalog == n.catalog) && (p.schema == "*" || p.schema == n.schema) &&
          (p.table == "*" || p.table == n.table))
        return &rule;
    }
    return nullptr;
  }

  struct UnlistedHolders {
    std::vector<Access> access;  // reserved once: holders point into it
    Holders holders;
  };
  const PolicySet* ps_;
  std::map<QualifiedName, const ObjectPolicy*> listed_;
  std::map<const UnlistedRule*, UnlistedHolders> unlisted_;
  Holders scratch_;
  static inline const Holders nobody_{};
};

nlohmann::json change(std::string_view user, const std::string& object, const Access& a, const Access& b) {
  PrivilegeSet gained = b.privileges, lost = a.privileges;
  gained.remove(a.privileges);
  lost.remove(b.privileges);
  nlohmann::json c = {{"user", user}, {"object", object}};
  if (!gained.empty()) c["gained"] = gained.names();
  if (!lost.empty()) c["lost"] = lost.names();
  // Columns: newly refused, and newly readable, among those SELECT covers.
  if (a.privileges.has(Privilege::Select) && b.privileges.has(Privilege::Select)) {
    auto refused = minus(b.denied_columns, a.denied_columns);
    if (!refused.empty()) c["columns_lost"] = refused;
    auto readable = minus(a.denied_columns, b.denied_columns);
    if (!readable.empty()) c["columns_gained"] = readable;
    // Masks and row filters: a removed mask or filter widens as surely as a privilege gained, so
    // each change says what was and what is (null: none).
    std::map<std::string, std::pair<nlohmann::json, nlohmann::json>> masks;
    for (const auto& m : a.masks) masks[m.column].first = describe(m);
    for (const auto& m : b.masks) masks[m.column].second = describe(m);
    nlohmann::json mask_changes = nlohmann::json::array();
    for (const auto& [column, was_is] : masks) {
      if (was_is.first != was_is.second)
        mask_changes.push_back({{"column", column}, {"before", was_is.first}, {"after", was_is.second}});
    }
    if (!mask_changes.empty()) c["masks"] = std::move(mask_changes);
    if (a.row_filter != b.row_filter) {
      const auto filter = [](const std::string& f) {
        return f.empty() ? nlohmann::json(nullptr) : nlohmann::json::parse(f, nullptr, false);
      };
      c["row_filter"] = {{"before", filter(a.row_filter)}, {"after", filter(b.row_filter)}};
    }
  }
  if (a.grant_select != b.grant_select) c["grant_select"] = {{"before", a.grant_select}, {"after", b.grant_select}};
  return c;
}

}  // namespace

nlohmann::json diff_policy(const PolicySet* before, const std::string& before_bytes, const PolicySet& after,
                           const std::string& after_bytes, std::size_t limit, bool compare_access) {
  using nlohmann::json;
  const auto old_rules = rule_lines(before_bytes);
  const auto new_rules = rule_lines(after_bytes);
  json added = json::array(), removed = json::array();
  std::size_t n_added = 0, n_removed = 0;
  for (const auto& r : new_rules) {
    if (old_rules.count(r)) continue;
    if (n_added++ < limit) added.push_back(r);
  }
  for (const auto& r : old_rules) {
    if (new_rules.count(r)) continue;
    if (n_removed++ < limit) removed.push_back(r);
  }
  json out = {{"profile", after.profile},
              {"rules_added", n_added},
              {"rules_removed", n_removed},
              {"added", added},
              {"removed", removed}};
  if (!compare_access) {
    out["access_changes"] = nullptr;
    out["changes"] = nullptr;
    out["truncated"] = n_added > limit || n_removed > limit;
    return out;
  }
  Side old_side(before), new_side(&after);
  std::set<QualifiedName> names;
  old_side.names(names);
  new_side.names(names);
  json changes = json::array();
  std::size_t n_changes = 0;
  static const Access kNothing{};
  for (const auto& name : names) {
    const Holders& o = old_side.holders(name);
    const Holders& n = new_side.holders(name);
    const std::string object = name.str();
    // Both sorted by user: walk them together.
    auto i = o.begin(), j = n.begin();
    while (i != o.end() || j != n.end()) {
      std::string_view user;
      const Access *a = &kNothing, *b = &kNothing;
      if (j == n.end() || (i != o.end() && i->first < j->first)) {
        user = i->first, a = i->second, ++i;
      } else if (i == o.end() || j->first < i->first) {
        user = j->first, b = j->second, ++j;
      } else {
        user = i->first, a = i->second, b = j->second, ++i, ++j;
      }
      if (*a == *b) continue;
      if (n_changes++ < limit) changes.push_back(change(user, object, *a, *b));
    }
  }
  out["access_changes"] = n_changes;
  out["changes"] = std::move(changes);
  out["truncated"] = n_added > limit || n_removed > limit || n_changes > limit;
  return out;
}

}  // namespace tw
