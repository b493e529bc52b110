#include "policy_keys.h"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

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
  auto holds = [&](std::size_t u, const PrincipalSet& set, const RoleSet& roles) {
    if (std::find(set.users.begin(), set.users.end(), s.users[u].name) != set.users.end()) return true;
    for (const auto& r : set.roles) {
      if (roles.count(r)) return true;
    }
    return false;
  };
  // The key is text with every field length-prefixed (two users share a key exactly when every
  // field is equal); attribute values are JSON, so 1 and 1.0 stay apart as the filters see them.
  std::map<std::string, std::size_t> ids;
  out.of_user.resize(s.users.size());
  std::string key;
  const auto add = [&key](std::string_view field) {
    key += std::to_string(field.size());
    key += ':';
    key += field;
  };
  for (std::size_t u = 0; u < s.users.size(); ++u) {
    key.clear();
    const User& user = s.users[u];
    for (std::size_t i = 0; i < s.policies.size(); ++i) {
      const Policy& p = s.policies[i];
      key += p.applies_to.empty() || holds(u, p.applies_to, model.any_roles[u]) ? '1' : '0';
      key += !p.exempt.empty() && holds(u, p.exempt, model.direct_roles[u]) ? '1' : '0';
      for (const auto& r : refs[i]) {
        if (r == "name") {
          key += 'n';
          add(user.name);
        } else if (r == "roles") {
          key += 'r';
          key += std::to_string(model.direct_roles[u].size());
          key += ';';
          for (const auto& role : model.direct_roles[u]) add(role);
        } else if (r.rfind("attributes.", 0) == 0) {
          const auto it = user.attributes.find(r.substr(11));
          if (it == user.attributes.end()) {
            key += '-';
          } else {
            key += 'a';
            add(it->dump());
          }
        }
      }
    }
    out.of_user[u] = ids.try_emplace(key, ids.size()).first->second;
  }
  out.text.resize(ids.size());
  for (auto& [text, id] : ids) out.text[id] = text;
  return out;
}

struct Model::Lazy {
  std::once_flag policy_keys_once;
  PolicyKeys policy_keys;
};

std::shared_ptr<Model::Lazy> Model::make_lazy() { return std::make_shared<Lazy>(); }

const PolicyKeys& shared_policy_keys(const Model& model) {
  std::call_once(model.lazy->policy_keys_once, [&] { model.lazy->policy_keys = policy_keys(model); });
  return model.lazy->policy_keys;
}

}  // namespace tw
