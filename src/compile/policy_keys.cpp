#include "policy_keys.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace tw {

PolicyKeys policy_keys(const Model& model) {
  const Snapshot& s = *model.snapshot;
  PolicyKeys out;
  if (s.policies.empty()) return out;
  std::vector<std::vector<std::string>> refs(s.policies.size());
  std::function<void(const nlohmann::json&, std::vector<std::string>&)> collect = [&](const nlohmann::json& node,
                                                                                      std::vector<std::string>& found) {
    if (node.is_object()) {
      if (auto it = node.find("$user"); it != node.end())
        found.push_back(it->is_string() ? it->get<std::string>() : "");
      for (const auto& [k, v] : node.items()) collect(v, found);
    } else if (node.is_array()) {
      for (const auto& v : node) collect(v, found);
    }
  };
  for (std::size_t i = 0; i < s.policies.size(); ++i) collect(s.policies[i].condition, refs[i]);
  auto holds = [&](std::size_t u, const PrincipalSet& set, const std::set<std::string>& roles) {
    if (std::find(set.users.begin(), set.users.end(), s.users[u].name) != set.users.end()) return true;
    for (const auto& r : set.roles) {
      if (roles.count(r)) return true;
    }
    return false;
  };
  std::map<std::string, std::size_t> ids;
  out.of_user.resize(s.users.size());
  for (std::size_t u = 0; u < s.users.size(); ++u) {
    nlohmann::json key = nlohmann::json::array();
    for (std::size_t i = 0; i < s.policies.size(); ++i) {
      const Policy& p = s.policies[i];
      key.push_back(p.applies_to.empty() || holds(u, p.applies_to, model.any_roles[u]));
      key.push_back(!p.exempt.empty() && holds(u, p.exempt, model.direct_roles[u]));
      for (const auto& r : refs[i]) {
        const User& user = s.users[u];
        if (r == "name") {
          key.push_back(user.name);
        } else if (r == "roles") {
          key.push_back(model.direct_roles[u]);
        } else if (r.rfind("attributes.", 0) == 0) {
          const std::string k = r.substr(11);
          key.push_back(user.attributes.contains(k) ? nlohmann::json::array({user.attributes.at(k)})
                                                    : nlohmann::json::array());
        }
      }
    }
    out.of_user[u] = ids.try_emplace(key.dump(), ids.size()).first->second;
  }
  out.text.resize(ids.size());
  for (auto& [text, id] : ids) out.text[id] = text;
  return out;
}

}  // namespace tw
