#include <map>

#include "expressions.h"
#include "tagwarden/engines/trino/rules.h"

namespace tw::trino {
namespace {

using nlohmann::json;

json table_rule(const std::vector<std::string>& users, const QualifiedName& name, PrivilegeSet privileges,
                const std::vector<std::string>& denied_columns, const std::vector<ColumnMask>& masks = {},
                const std::string& row_filter = {}) {
  json rule = json::object();
  if (!users.empty()) rule["user"] = exact_alternation(users);
  rule["catalog"] = "^" + regex_literal(name.catalog) + "$";
  if (name.schema != "*") rule["schema"] = "^" + regex_literal(name.schema) + "$";
  if (name.table != "*") rule["table"] = "^" + regex_literal(name.table) + "$";
  rule["privileges"] = privileges.names();
  std::map<std::string, json> columns;
  for (const auto& c : denied_columns) columns[c] = {{"name", c}, {"allow", false}};
  for (const auto& m : masks) columns[m.column] = {{"name", m.column}, {"mask", mask_expression(m)}};
  if (!columns.empty()) {
    json cols = json::array();
    for (auto& [name, c] : columns) cols.push_back(std::move(c));
    rule["columns"] = cols;
  }
  if (!row_filter.empty()) rule["filter"] = filter_expression(row_filter);
  return rule;
}

// True when the broad rules for unlisted names already give every user exactly
// the object's access, so the object needs no rules of its own.
bool covered_by_broad_rules(const PolicySet& ps, const ObjectPolicy& op) {
  std::map<std::size_t, PrivilegeSet> intent;
  for (const auto& ua : op.access) {
    if (!ua.access.denied_columns.empty() || !ua.access.masks.empty() || !ua.access.row_filter.empty()) return false;
    if (!ua.access.privileges.empty()) intent[ua.user] = ua.access.privileges;
  }
  std::map<std::size_t, PrivilegeSet> broad;
  for (const auto& rule : ps.unlisted) {
    const auto& p = rule.pattern;
    const auto& n = op.engine_name;
    if (p.catalog != n.catalog || (p.schema != "*" && p.schema != n.schema) || (p.table != "*" && p.table != n.table)) {
      continue;
    }
    for (const auto& [u, privs] : rule.access) broad[u] = privs;
    break;  // the most specific matching pattern decides
  }
  return intent == broad;
}

// One rule per line: small, and a diff of two documents shows exactly the rules that changed.
std::string serialize(const json& doc) {
  std::string out = "{\n";
  bool first_section = true;
  for (const auto& [section, rules] : doc.items()) {
    out += first_section ? "" : ",\n";
    first_section = false;
    out += " " + json(section).dump() + ": [";
    for (std::size_t i = 0; i < rules.size(); ++i) {
      out += i ? ",\n  " : "\n  ";
      out += rules[i].dump(-1, ' ', false, json::error_handler_t::strict);
    }
    out += rules.empty() ? "]" : "\n ]";
  }
  return out + "\n}\n";
}

json fixed_sections(json catalogs, json tables) {
  return {{"catalogs", std::move(catalogs)},
          {"schemas", json::array({{{"owner", false}}})},
          {"tables", std::move(tables)},
          // Users may run queries, and see and kill only their own.
          {"queries", json::array({{{"allow", json::array({"execute"})}}})},
          // An explicit empty list: nobody may impersonate, nobody may read or write system information.
          {"impersonation", json::array()},
          {"system_information", json::array()}};
}

}  // namespace

RulesDocument render_rules(const PolicySet& ps) {
  RulesDocument doc;
  json tables = json::array();
  for (const auto& op : ps.objects) {
    if (covered_by_broad_rules(ps, op)) continue;
    std::map<Access, std::vector<std::string>> classes;
    for (const auto& ua : op.access) {
      if (!ua.access.privileges.empty()) classes[ua.access].push_back(ps.users[ua.user].engine_name);
    }
    for (const auto& [access, users] : classes) {
      tables.push_back(
          table_rule(users, op.engine_name, access.privileges, access.denied_columns, access.masks, access.row_filter));
      ++doc.object_rules;
    }
    tables.push_back(table_rule({}, op.engine_name, {}, {}));  // everyone else: nothing
    ++doc.object_rules;
  }
  for (const auto& rule : ps.unlisted) {
    std::map<PrivilegeSet, std::vector<std::string>> classes;
    for (const auto& [u, privs] : rule.access) classes[privs].push_back(ps.users[u].engine_name);
    for (const auto& [privs, users] : classes) tables.push_back(table_rule(users, rule.pattern, privs, {}));
  }
  // JDBC and ODBC clients list tables through system.jdbc; its rows are
  // filtered by these same rules, so reading it reveals nothing more.
  tables.push_back({{"catalog", "^system$"}, {"schema", "^jdbc$"}, {"privileges", json::array({"SELECT"})}});
  tables.push_back({{"privileges", json::array()}});
  doc.table_rules = tables.size();

  // Catalogs are open only to users the snapshot knows; anyone else sees none.
  json catalogs = json::array();
  std::vector<std::string> known;
  for (const auto& u : ps.users) known.push_back(u.engine_name);
  if (!known.empty()) {
    const std::string users = exact_alternation(known);
    if (!ps.catalogs.empty()) {
      catalogs.push_back({{"user", users}, {"catalog", exact_alternation(ps.catalogs)}, {"allow", "all"}});
    }
    catalogs.push_back({{"user", users}, {"catalog", "^system$"}, {"allow", "read-only"}});
  }
  catalogs.push_back({{"allow", "none"}});
  doc.text = serialize(fixed_sections(std::move(catalogs), std::move(tables)));
  return doc;
}

RulesDocument deny_all_rules() {
  RulesDocument doc;
  json tables = json::array({{{"privileges", json::array()}}});
  json catalogs = json::array({{{"allow", "none"}}});
  doc.table_rules = 1;
  doc.text = serialize(fixed_sections(std::move(catalogs), std::move(tables)));
  return doc;
}

}  // namespace tw::trino
