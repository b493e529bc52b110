#include <map>
#include <unordered_map>

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

// The most specific rule for unlisted names that matches a listed object, or nullptr.
const UnlistedRule* broad_rule(const PolicySet& ps, const QualifiedName& n) {
  for (const auto& rule : ps.unlisted) {
    const auto& p = rule.pattern;
    if (p.catalog == n.catalog && (p.schema == "*" || p.schema == n.schema) && (p.table == "*" || p.table == n.table)) {
      return &rule;
    }
  }
  return nullptr;
}

// True when the broad rules for unlisted names already give every user exactly
// the object's access, so the object needs no rules of its own. Objects whose
// classes only restate their grants share the answer with every object of the
// same partition under the same broad rule.
class BroadCoverage {
 public:
  explicit BroadCoverage(const PolicySet& ps) : ps_(ps) {}

  bool covers(const ObjectPolicy& op) {
    bool plain = true;
    for (const auto& cls : op.classes) {
      const Access& a = cls.access;
      if (!a.denied_columns.empty() || !a.masks.empty() || !a.row_filter.empty()) return false;
      if (a.privileges != cls.granted) plain = false;
    }
    const UnlistedRule* rule = broad_rule(ps_, op.engine_name);
    if (!plain) return compare(op, rule);
    Key key{rule, {}};
    for (const auto& cls : op.classes) key.second.emplace_back(cls.users.get(), cls.granted.bits());
    auto [it, fresh] = memo_.try_emplace(std::move(key), false);
    if (fresh) it->second = compare(op, rule);
    return it->second;
  }

 private:
  bool compare(const ObjectPolicy& op, const UnlistedRule* rule) const {
    std::vector<std::pair<std::size_t, PrivilegeSet>> intent;
    for (const auto& cls : op.classes) {
      if (cls.access.privileges.empty()) continue;
      for (std::size_t u : *cls.users) intent.emplace_back(u, cls.access.privileges);
    }
    std::sort(intent.begin(), intent.end());
    static const std::vector<std::pair<std::size_t, PrivilegeSet>> nobody;
    return intent == (rule ? rule->access : nobody);
  }

  using Key = std::pair<const UnlistedRule*, std::vector<std::pair<const void*, std::uint8_t>>>;
  const PolicySet& ps_;
  std::map<Key, bool> memo_;
};

// User alternations, computed once per shared user list.
class UserPatterns {
 public:
  explicit UserPatterns(const PolicySet& ps) : ps_(ps) {}

  std::string of(const std::vector<const AccessClass*>& classes) {
    if (classes.size() == 1) {
      auto [it, fresh] = cache_.try_emplace(classes.front()->users.get());
      if (fresh) it->second = exact_alternation(names(classes));
      return it->second;
    }
    return exact_alternation(names(classes));
  }

 private:
  std::vector<std::string> names(const std::vector<const AccessClass*>& classes) const {
    std::vector<std::string> out;
    for (const auto* cls : classes) {
      for (std::size_t u : *cls->users) out.push_back(ps_.users[u].engine_name);
    }
    return out;
  }

  const PolicySet& ps_;
  std::map<const void*, std::string> cache_;
};

// The rules one listed object needs, without its name: objects of one schema
// with the same rules share one block that names them all.
struct ObjectBlock {
  std::string catalog;
  std::string schema;
  std::vector<std::string> tables;
  json rules = json::array();
};

json class_rule(const std::string& users, const Access& access) {
  json rule = table_rule({}, {"", "*", "*"}, access.privileges, access.denied_columns, access.masks, access.row_filter);
  rule.erase("catalog");
  rule["user"] = users;
  return rule;
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
  BroadCoverage coverage(ps);
  UserPatterns patterns(ps);
  std::vector<ObjectBlock> blocks;
  std::unordered_map<std::string, std::size_t> block_of;  // catalog, schema and rules -> blocks index
  for (const auto& op : ps.objects) {
    if (coverage.covers(op)) continue;
    std::map<Access, std::vector<const AccessClass*>> classes;
    for (const auto& cls : op.classes) {
      if (!cls.access.privileges.empty()) classes[cls.access].push_back(&cls);
    }
    json rules = json::array();
    for (const auto& [access, members] : classes) rules.push_back(class_rule(patterns.of(members), access));
    std::string key = op.engine_name.catalog + '\0' + op.engine_name.schema + '\0' + rules.dump();
    auto [it, fresh] = block_of.try_emplace(std::move(key), blocks.size());
    if (fresh) blocks.push_back({op.engine_name.catalog, op.engine_name.schema, {}, std::move(rules)});
    blocks[it->second].tables.push_back(op.engine_name.table);
  }
  for (auto& block : blocks) {
    const std::string table =
        block.tables.size() == 1 ? "^" + regex_literal(block.tables.front()) + "$" : exact_alternation(block.tables);
    const json names = {{"catalog", "^" + regex_literal(block.catalog) + "$"},
                        {"schema", "^" + regex_literal(block.schema) + "$"},
                        {"table", table}};
    for (auto& rule : block.rules) {
      rule.update(names);
      tables.push_back(std::move(rule));
    }
    json deny = names;  // everyone else: nothing
    deny["privileges"] = json::array();
    tables.push_back(std::move(deny));
    doc.object_rules += block.rules.size() + 1;
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
