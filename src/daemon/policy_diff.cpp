#include "policy_diff.h"

#include <map>
#include <set>
#include <sstream>

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

// engine user -> object -> access
using AccessMap = std::map<std::string, std::map<std::string, Access>>;

AccessMap access_map(const PolicySet& ps) {
  AccessMap out;
  for (const auto& op : ps.objects) {
    for (const auto& cls : op.classes) {
      if (cls.access.privileges.empty()) continue;
      for (std::size_t u : *cls.users) out[ps.users[u].engine_name][op.engine_name.str()] = cls.access;
    }
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

}  // namespace

nlohmann::json diff_policy(const PolicySet* before, const std::string& before_bytes, const PolicySet& after,
                           const std::string& after_bytes, std::size_t limit) {
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
  const AccessMap old_access = before ? access_map(*before) : AccessMap{};
  const AccessMap new_access = access_map(after);
  std::set<std::string> users;
  for (const auto& [u, _] : old_access) users.insert(u);
  for (const auto& [u, _] : new_access) users.insert(u);
  json changes = json::array();
  std::size_t n_changes = 0;
  static const std::map<std::string, Access> kNone;
  for (const auto& u : users) {
    const auto& o = old_access.count(u) ? old_access.at(u) : kNone;
    const auto& n = new_access.count(u) ? new_access.at(u) : kNone;
    std::set<std::string> objects;
    for (const auto& [obj, _] : o) objects.insert(obj);
    for (const auto& [obj, _] : n) objects.insert(obj);
    for (const auto& obj : objects) {
      const Access a = o.count(obj) ? o.at(obj) : Access{};
      const Access b = n.count(obj) ? n.at(obj) : Access{};
      if (a == b) continue;
      PrivilegeSet gained = b.privileges, lost = a.privileges;
      gained.remove(a.privileges);
      lost.remove(b.privileges);
      json c = {{"user", u}, {"object", obj}};
      if (!gained.empty()) c["gained"] = gained.names();
      if (!lost.empty()) c["lost"] = lost.names();
      // Columns: newly refused, and newly readable, among those SELECT covers.
      if (b.privileges.has(Privilege::Select)) {
        auto refused = minus(b.denied_columns,
                             a.privileges.has(Privilege::Select) ? a.denied_columns : std::vector<std::string>{});
        if (a.privileges.has(Privilege::Select) && !refused.empty()) c["columns_lost"] = refused;
      }
      if (a.privileges.has(Privilege::Select) && b.privileges.has(Privilege::Select)) {
        auto readable = minus(a.denied_columns, b.denied_columns);
        if (!readable.empty()) c["columns_gained"] = readable;
      }
      if (n_changes++ < limit) changes.push_back(std::move(c));
    }
  }
  return {{"profile", after.profile},   {"rules_added", n_added},
          {"rules_removed", n_removed}, {"added", added},
          {"removed", removed},         {"access_changes", n_changes},
          {"changes", changes},         {"truncated", n_added > limit || n_removed > limit || n_changes > limit}};
}

}  // namespace tw
