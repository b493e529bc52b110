#include "tagwarden/compile/access_policies.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "tagwarden/util/text.h"

namespace tw {
namespace {

using nlohmann::json;

const json kNoRows = {{"false", true}};

bool in_domain(const std::optional<std::string>& domain, const std::string& scope) {
  return domain && (*domain == scope || domain->rfind(scope + "/", 0) == 0);
}

bool holds(const Model& m, std::size_t user, const PrincipalSet& set, bool through_groups) {
  const User& u = m.user(user);
  if (std::find(set.users.begin(), set.users.end(), u.name) != set.users.end()) return true;
  const auto& roles = through_groups ? m.any_roles[user] : m.direct_roles[user];
  for (const auto& r : set.roles) {
    if (roles.count(r)) return true;
  }
  return false;
}

// Tags that a scope selects: one tag, or every tag at or above a level.
std::set<std::string> scope_tags(const Model& m, const PolicyScope& scope) {
  std::set<std::string> out;
  if (scope.kind == PolicyScope::Kind::Tag) out.insert(scope.name);
  if (scope.kind == PolicyScope::Kind::LevelAtLeast) {
    for (const auto& c : m.snapshot->classifications) {
      if (c.level && *c.level >= scope.level) out.insert(c.name);
    }
  }
  return out;
}

bool is_numeric_type(const std::string& type) {
  const std::string t = lowercase_identifier(type);
  for (const char* n : {"tinyint", "smallint", "int", "integer", "bigint", "largeint", "real", "float", "double",
                        "decimal", "numeric"}) {
    if (t.rfind(n, 0) == 0) return true;
  }
  return false;
}

// Resolves a user value reference; nullopt when the principal has no such value.
std::optional<json> user_value(const Model& m, std::size_t user, const json& ref, std::string& why) {
  if (!ref.is_string()) {
    why = "$user must name name, roles or attributes.<key>";
    return std::nullopt;
  }
  const std::string r = ref.get<std::string>();
  const User& u = m.user(user);
  if (r == "name") return json(u.name);
  if (r == "roles") return json(std::vector<std::string>(m.direct_roles[user].begin(), m.direct_roles[user].end()));
  if (r.rfind("attributes.", 0) == 0) {
    const std::string key = r.substr(11);
    if (u.attributes.contains(key)) return u.attributes.at(key);
    why = "user has no attribute " + key;
    return std::nullopt;
  }
  why = "unknown $user reference " + quote(r);
  return std::nullopt;
}

// One condition node, with the principal's values bound. Throws std::string (the reason) when unsatisfiable.
json resolve(const Model& m, std::size_t user, const ObjectPolicy& op, const json& node) {
  if (!node.is_object()) throw std::string("a condition must be a mapping");
  if (node.size() == 1 && node.contains("true") && node["true"] == true) return {{"true", true}};
  if (node.size() == 1 && node.contains("false") && node["false"] == true) return kNoRows;
  for (const char* junction : {"and", "or"}) {
    if (!node.contains(junction)) continue;
    if (node.size() != 1) throw std::string(std::string(junction) + " takes no other keys");
    const json& parts = node[junction];
    if (!parts.is_array() || parts.size() < 2)
      throw std::string(std::string(junction) + " needs two or more conditions");
    json out = json::array();
    for (const auto& p : parts) out.push_back(resolve(m, user, op, p));
    return {{junction, out}};
  }
  for (const auto& [k, v] : node.items()) {
    if (k != "column" && k != "op" && k != "value" && k != "values") throw std::string("unknown key " + quote(k));
  }
  if (!node.contains("column") || !node["column"].is_string()) throw std::string("a comparison needs a column");
  if (!node.contains("op") || !node["op"].is_string()) throw std::string("a comparison needs an op");
  const std::string column = lowercase_identifier(node["column"].get<std::string>());
  const auto it = std::find(op.columns.begin(), op.columns.end(), column);
  if (it == op.columns.end()) throw std::string("unknown column " + quote(node["column"].get<std::string>()));
  const std::string type = op.column_types[static_cast<std::size_t>(it - op.columns.begin())];
  const std::string o = node["op"].get<std::string>();
  auto bind = [&](const json& v) -> json {
    if (v.is_object()) {
      if (v.size() != 1 || !v.contains("$user")) throw std::string("a value mapping must be {\"$user\": ...}");
      std::string why;
      auto bound = user_value(m, user, v["$user"], why);
      if (!bound) throw why;
      return *bound;
    }
    return v;
  };
  auto check_scalar = [&](const json& v) {
    if (v.is_string()) {
      if (is_numeric_type(type)) throw std::string("a string compared with numeric column " + column);
    } else if (v.is_number()) {
      if (!is_numeric_type(type)) throw std::string("a number compared with non-numeric column " + column);
      if (v.is_number_float() && !std::isfinite(v.get<double>())) throw std::string("not a finite number");
    } else if (v.is_boolean()) {
      if (lowercase_identifier(type).rfind("bool", 0) != 0)
        throw std::string("a boolean compared with column " + column);
    } else {
      throw std::string("wrong type of value for " + o);
    }
  };
  if (o == "is_null" || o == "is_not_null") {
    if (node.contains("value") || node.contains("values")) throw std::string(o + " takes no value");
    return {{"column", column}, {"op", o}};
  }
  if (o == "eq" || o == "ne" || o == "gt" || o == "gte" || o == "lt" || o == "lte") {
    if (!node.contains("value") || node.contains("values")) throw std::string(o + " needs exactly one value");
    json v = bind(node["value"]);
    check_scalar(v);
    return {{"column", column}, {"op", o}, {"value", v}};
  }
  if (o == "in" || o == "not_in") {
    json list;
    if (node.contains("values") && !node.contains("value")) {
      if (!node["values"].is_array()) throw std::string(o + " needs a list of values");
      list = json::array();
      for (const auto& v : node["values"]) list.push_back(bind(v));
    } else if (node.contains("value") && !node.contains("values")) {
      list = bind(node["value"]);  // e.g. {"$user": "roles"}
      if (!list.is_array()) throw std::string(o + " needs a list, found a single value");
    } else {
      throw std::string(o + " needs values");
    }
    for (const auto& v : list) check_scalar(v);
    return {{"column", column}, {"op", o}, {"values", list}};
  }
  throw std::string("unknown operator " + quote(o));
}

bool stricter(const ColumnMask& a, const ColumnMask& b) {
  if (a.kind != b.kind) return static_cast<int>(a.kind) > static_cast<int>(b.kind);
  return a.kind == MaskKind::Partial && a.visible_chars < b.visible_chars;
}

}  // namespace

std::string canonical(const json& condition) { return condition.dump(); }

std::vector<PolicyDecision> judge_policies(const Model& m, const ObjectPolicy& op, std::size_t user) {
  std::vector<PolicyDecision> out;
  const Object& o = m.object(op.object);
  const auto& object_tags = m.object_tags[op.object];
  for (const auto& p : m.snapshot->policies) {
    if (!p.enabled) continue;
    PolicyDecision d;
    d.policy = p.name;
    d.type = p.type;
    d.mask = p.mask;
    d.visible_chars = p.visible_chars;
    // Which part of the object the scope reaches.
    std::string scope_text;
    switch (p.scope.kind) {
      case PolicyScope::Kind::Object:
        d.whole_object = p.scope.name == o.name.str();
        scope_text = "object " + p.scope.name;
        break;
      case PolicyScope::Kind::Column: {
        const auto dot = p.scope.name.rfind('.');
        if (p.scope.name.substr(0, dot) == o.name.str()) {
          const std::string col = p.scope.name.substr(dot + 1);
          for (std::size_t i = 0; i < o.columns.size(); ++i) {
            if (o.columns[i].name == col) d.columns.push_back(op.columns[i]);
          }
        }
        scope_text = "column " + p.scope.name;
        break;
      }
      case PolicyScope::Kind::Domain:
        d.whole_object = in_domain(o.domain, p.scope.name);
        scope_text = "domain " + p.scope.name;
        break;
      case PolicyScope::Kind::Tag:
      case PolicyScope::Kind::LevelAtLeast: {
        const auto tags = scope_tags(m, p.scope);
        for (const auto& t : tags) d.whole_object = d.whole_object || object_tags.count(t);
        if (!d.whole_object) {
          for (std::size_t i = 0; i < o.columns.size(); ++i) {
            for (const auto& t : o.columns[i].tags) {
              if (tags.count(t)) {
                d.columns.push_back(op.columns[i]);
                break;
              }
            }
          }
        }
        scope_text = p.scope.kind == PolicyScope::Kind::Tag ? "tag " + p.scope.name
                                                            : "level >= " + std::to_string(p.scope.level);
        break;
      }
    }
    if (!d.whole_object && d.columns.empty()) continue;  // out of scope: not considered for this object
    if (d.whole_object && p.type == PolicyType::ColumnMask) d.columns = op.columns;
    if (!d.whole_object && p.type == PolicyType::RowFilter) d.whole_object = true;  // a column carries the tag
    // Applies to: roles held directly or through a group count (more masking,
    // never less). Exempt: only roles held directly, as for clearances.
    if (!p.applies_to.empty() && !holds(m, user, p.applies_to, true)) {
      d.reason = "not applied: " + m.user(user).name + " is not among its applies_to";
    } else if (!p.exempt.empty() && holds(m, user, p.exempt, false)) {
      d.reason = "not applied: " + m.user(user).name + " is exempt";
    } else {
      d.applies = true;
      d.reason = "applies through " + scope_text + (p.applies_to.empty() ? " to everyone" : "");
      if (p.type == PolicyType::RowFilter) {
        try {
          d.filter = resolve(m, user, op, p.condition);
        } catch (const std::string& why) {
          d.filter = kNoRows;
          d.unsatisfiable = true;
          d.reason += "; cannot be satisfied (" + why + "): no rows";
        }
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

void apply_policy_decisions(const std::vector<PolicyDecision>& decisions, const ObjectPolicy& op, UserAccess& ua) {
  Access& a = ua.access;
  json filters = json::array();
  std::map<std::string, ColumnMask> masks;
  for (const auto& d : decisions) {
    if (!d.applies) continue;
    if (d.type == PolicyType::Deny) {
      if (d.whole_object) {
        if (!a.privileges.empty()) ua.reasons.push_back("hidden by deny policy " + d.policy);
        a = Access{};
        return;  // deny wins over everything
      }
      for (const auto& c : d.columns) {
        if (std::find(a.denied_columns.begin(), a.denied_columns.end(), c) == a.denied_columns.end()) {
          a.denied_columns.push_back(c);
          ua.reasons.push_back("column " + c + " hidden by deny policy " + d.policy);
        }
      }
    } else if (d.type == PolicyType::RowFilter) {
      filters.push_back(d.filter);
      ua.reasons.push_back("rows filtered by " + d.policy + (d.unsatisfiable ? " (cannot be satisfied: no rows)" : ""));
    }
  }
  for (const auto& d : decisions) {
    if (!d.applies || d.type != PolicyType::ColumnMask) continue;
    for (const auto& c : d.columns) {
      // A clearance or deny refusal beats any mask: the column is not read at all.
      if (std::find(a.denied_columns.begin(), a.denied_columns.end(), c) != a.denied_columns.end()) continue;
      const auto idx =
          static_cast<std::size_t>(std::find(op.columns.begin(), op.columns.end(), c) - op.columns.begin());
      ColumnMask cm{c, d.mask, d.visible_chars, idx < op.column_types.size() ? op.column_types[idx] : "varchar"};
      auto it = masks.find(c);
      if (it == masks.end() || stricter(cm, it->second)) masks[c] = cm;
    }
  }
  for (auto it = masks.begin(); it != masks.end();) {
    const bool denied =
        std::find(a.denied_columns.begin(), a.denied_columns.end(), it->first) != a.denied_columns.end();
    it = denied ? masks.erase(it) : std::next(it);
  }
  std::sort(a.denied_columns.begin(), a.denied_columns.end());
  if (!a.privileges.has(Privilege::Select)) {
    a.denied_columns.clear();
    return;
  }
  for (const auto& [c, cm] : masks) {
    a.masks.push_back(cm);
    ua.reasons.push_back("column " + c + " masked (" + to_string(cm.kind) +
                         (cm.kind == MaskKind::Partial ? " " + std::to_string(cm.visible_chars) : "") + ")");
  }
  if (!filters.empty()) {
    bool none = false;
    for (const auto& f : filters) none = none || f == kNoRows;
    a.row_filter = canonical(none ? kNoRows : filters.size() == 1 ? filters[0] : json{{"and", filters}});
  }
}

}  // namespace tw
