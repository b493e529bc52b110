#include <algorithm>
#include <map>

#include "tagwarden/compile/policy_set.h"

namespace tw {

namespace {

nlohmann::json masks_json(const std::vector<ColumnMask>& masks) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : masks) {
    nlohmann::json j = {{"column", m.column}, {"mask", to_string(m.kind)}, {"type", m.type}};
    if (m.kind == MaskKind::Partial) j["visible_chars"] = m.visible_chars;
    if (m.fully_masked_through() > m.visible_chars) j["fully_masked_through"] = m.fully_masked_through();
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

nlohmann::json to_json(const PolicySet& ps) {
  using nlohmann::json;
  json users = json::array();
  for (const auto& u : ps.users) users.push_back({{"name", u.platform_name}, {"engine_user", u.engine_name}});
  json restricted = json::array();
  for (std::size_t u : ps.create_restricted) restricted.push_back(ps.users[u].engine_name);
  json objects = json::array();
  for (const auto& op : ps.objects) {
    // Group users by identical access: the compact form every renderer starts from.
    std::map<Access, std::vector<std::string>> classes;
    std::vector<std::pair<std::size_t, const AccessClass*>> by_user;
    for (const auto& cls : op.classes) {
      for (std::size_t u : *cls.users) by_user.emplace_back(u, &cls);
    }
    std::sort(by_user.begin(), by_user.end());
    json decisions = json::array();
    for (const auto& [u, cls] : by_user) {
      const Access& a = cls->access;
      if (!a.privileges.empty()) classes[a].push_back(ps.users[u].engine_name);
      json d = {
          {"user", ps.users[u].engine_name}, {"granted", cls->granted.names()}, {"privileges", a.privileges.names()}};
      if (!a.denied_columns.empty()) d["denied_columns"] = a.denied_columns;
      if (!a.masks.empty()) d["masks"] = masks_json(a.masks);
      if (!a.row_filter.empty()) d["row_filter"] = nlohmann::json::parse(a.row_filter);
      if (a.grant_select) d["grant_select"] = true;
      if (a.filter_as) d["filter_as"] = ps.users[*a.filter_as].engine_name;
      if (!cls->reasons.empty()) d["reasons"] = cls->reasons;
      decisions.push_back(std::move(d));
    }
    json access = json::array();
    for (auto& [a, names] : classes) {
      std::sort(names.begin(), names.end());
      nlohmann::json cls = {
          {"users", names}, {"privileges", a.privileges.names()}, {"denied_columns", a.denied_columns}};
      if (!a.masks.empty()) cls["masks"] = masks_json(a.masks);
      if (!a.row_filter.empty()) cls["row_filter"] = nlohmann::json::parse(a.row_filter);
      if (a.grant_select) cls["grant_select"] = true;
      if (a.filter_as) cls["filter_as"] = ps.users[*a.filter_as].engine_name;
      access.push_back(std::move(cls));
    }
    json column_gates = json::object();
    for (const auto& [col, tags] : op.column_gates) column_gates[col] = tags;
    objects.push_back({{"name", op.platform_name.str()},
                       {"engine_name", op.engine_name.str()},
                       {"kind", to_string(op.kind)},
                       {"columns", op.columns},
                       {"column_types", op.column_types.to_vector()},
                       {"object_gates", op.object_gates},
                       {"column_gates", column_gates},
                       {"access", access},
                       {"decisions", decisions}});
  }
  json unlisted = json::array();
  for (const auto& rule : ps.unlisted) {
    std::map<PrivilegeSet, std::vector<std::string>> classes;
    for (const auto& [privs, users] : rule.access) {
      for (std::size_t u : *users) classes[privs].push_back(ps.users[u].engine_name);
    }
    json access = json::array();
    for (auto& [privs, names] : classes) {
      std::sort(names.begin(), names.end());
      access.push_back({{"users", names}, {"privileges", privs.names()}});
    }
    unlisted.push_back({{"pattern", rule.pattern.str()}, {"access", access}});
  }
  return {{"profile", ps.profile},
          {"engine", to_string(ps.engine)},
          {"generated_at", format_timestamp(ps.generated_at)},
          {"catalogs", ps.catalogs},
          {"gated_tags", ps.gated_tags},
          {"users", users},
          {"create_restricted_users", restricted},
          {"objects", objects},
          {"unlisted", unlisted}};
}

}  // namespace tw
