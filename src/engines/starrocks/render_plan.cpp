// PolicySet -> Plan: the roles, grants and masks tagwarden owns on a server.
// Roles are compact: one role per distinct set of users that share a grant,
// holding every grant that exactly that set shares. Role and policy names are
// derived from what they hold, so the same PolicySet gives the same names.

#include <algorithm>
#include <stdexcept>

#include "tagwarden/engines/registry.h"
#include "tagwarden/engines/starrocks/plan.h"
#include "tagwarden/engines/starrocks/sql.h"
#include "tagwarden/util/text.h"

namespace tw::starrocks {

const char* to_string(Dialect d) { return d == Dialect::StarRocks ? "starrocks" : "mysql"; }

std::optional<Dialect> parse_dialect(std::string_view text) {
  if (text == "starrocks") return Dialect::StarRocks;
  if (text == "mysql" || text == "mariadb") return Dialect::MySQL;
  return std::nullopt;
}

const char* to_string(Phase p) {
  switch (p) {
    case Phase::Prepare:
      return "prepare";
    case Phase::Tighten:
      return "tighten";
    case Phase::Widen:
      return "widen";
    case Phase::Cleanup:
      return "cleanup";
  }
  return "?";
}

std::string Securable::str() const {
  std::string out = catalog;
  if (!database.empty()) out += "." + database;
  if (!name.empty()) out += "." + name;
  return out;
}

std::string owner_prefix(std::string_view profile) {
  return "tw_" + sha256_hex("tagwarden-profile\n" + std::string(profile)).substr(0, 8) + "_";
}

namespace {

using Items = std::map<std::pair<Securable, std::string>, std::set<std::string>>;

constexpr std::size_t kRolesPerUser = 64;

std::string hash16(const std::vector<std::string>& parts) {
  std::string joined;
  for (const auto& p : parts) {
    joined += p;
    joined += '\0';
  }
  return sha256_hex(joined).substr(0, 16);
}

Securable object_securable(const ObjectPolicy& op, Dialect d) {
  Securable s;
  s.catalog = op.engine_name.catalog;
  s.database = op.engine_name.schema;
  s.name = op.engine_name.table;
  if (d == Dialect::StarRocks) {
    if (op.kind == ObjectKind::View) s.kind = Securable::Kind::View;
    if (op.kind == ObjectKind::MaterializedView) s.kind = Securable::Kind::MaterializedView;
  }
  return s;
}

// The engine privileges that carry a PolicySet privilege set on one object.
// OWNERSHIP has no equivalent on an existing object: ALTER and DROP (and
// REFRESH on materialized views) carry it. StarRocks views and materialized
// views take no INSERT, UPDATE or DELETE, so those are not granted there.
std::set<std::string> engine_privileges(PrivilegeSet p, Securable::Kind kind) {
  std::set<std::string> out;
  const bool writable = kind == Securable::Kind::Table;
  if (p.has(Privilege::Select)) out.insert("SELECT");
  if (writable && p.has(Privilege::Insert)) out.insert("INSERT");
  if (writable && p.has(Privilege::Update)) out.insert("UPDATE");
  if (writable && p.has(Privilege::Delete)) out.insert("DELETE");
  if (p.has(Privilege::Ownership)) {
    out.insert("ALTER");
    out.insert("DROP");
    if (kind == Securable::Kind::MaterializedView) out.insert("REFRESH");
  }
  return out;
}

std::vector<std::string> creation_privileges(Dialect d) {
  if (d == Dialect::MySQL) return {"CREATE", "CREATE VIEW"};
  return {"CREATE TABLE", "CREATE VIEW", "CREATE MATERIALIZED VIEW"};
}

bool covers_database(const QualifiedName& pattern, const std::string& catalog, const std::string& database) {
  return pattern.catalog == catalog && (pattern.schema == "*" || pattern.schema == database) && pattern.table == "*";
}

void check_names(const PolicySet& ps, Dialect d, std::vector<std::string>& errors) {
  auto check = [&](const std::string& name, const std::string& what) {
    if (name.find('\0') != std::string::npos)
      errors.push_back(what + " contains a NUL byte, which no engine can quote");
  };
  for (const auto& u : ps.users) check(u.engine_name, "engine user " + quote(u.platform_name));
  for (const auto& c : ps.catalogs) {
    check(c, "catalog " + quote(c));
    if (d == Dialect::MySQL && c != kInternalCatalog) {
      errors.push_back("catalog " + quote(c) + " is external: the mysql dialect has no catalogs (map it to " +
                       std::string(kInternalCatalog) + " or use the starrocks dialect)");
    }
  }
  for (const auto& op : ps.objects) {
    check(op.engine_name.schema + op.engine_name.table, "object " + quote(op.engine_name.str()));
    for (const auto& c : op.columns) check(c, "a column of " + quote(op.engine_name.str()));
  }
}

class Renderer {
 public:
  Renderer(const PolicySet& ps, Plan& plan) : ps_(ps), plan_(plan), d_(plan.dialect) {}

  void run() {
    for (const auto& u : ps_.users) plan_.users.push_back(u.engine_name);
    std::sort(plan_.users.begin(), plan_.users.end());
    for (const auto& op : ps_.objects) {
      plan_.objects.push_back(object_securable(op, d_));
      object(op);
    }
    std::sort(plan_.objects.begin(), plan_.objects.end());
    creation();
    catalog_usage();
    roles();
    findings();
  }

 private:
  static std::vector<std::pair<std::size_t, const AccessClass*>> users_by_index(const ObjectPolicy& op) {
    std::vector<std::pair<std::size_t, const AccessClass*>> out;
    for (const auto& cls : op.classes) {
      for (std::size_t u : *cls.users) out.emplace_back(u, &cls);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  void object(const ObjectPolicy& op) {
    const Securable obj = object_securable(op, d_);
    const bool masks = plan_.capabilities.masking_policies;
    std::map<std::string, std::string> types;  // engine column -> mask type ("" = cannot be rendered)
    for (std::size_t i = 0; i < op.columns.size(); ++i) {
      types[op.columns[i]] = i < op.column_types.size() ? sql::mask_type(op.column_types[i]) : "";
    }
    std::map<std::string, std::vector<std::string>> cleared;  // gated column -> users who read it
    for (const auto& [u, cls] : users_by_index(op)) {
      const std::string& user = ps_.users[u].engine_name;
      const AccessClass& ua = *cls;
      PrivilegeSet p = ua.access.privileges;
      std::vector<std::string> reasons = ua.reasons;
      if (p.has(Privilege::Select) && !ua.access.denied_columns.empty()) {
        const bool maskable = masks && std::all_of(ua.access.denied_columns.begin(), ua.access.denied_columns.end(),
                                                   [&](const std::string& c) { return !types[c].empty(); });
        if (!maskable) {
          p.remove(Privilege::Select);
          auto& c = coarsened_[obj];
          c.first.insert(ua.access.denied_columns.begin(), ua.access.denied_columns.end());
          c.second.insert(user);
          reasons.push_back("SELECT withheld on the whole object: columns " + join_words(ua.access.denied_columns) +
                            " are gated and cannot be masked on this server (coarsened)");
        }
      }
      // Access-policy masks and row filters are not rendered as StarRocks
      // policies by this build: coarsen, never drop — the reader loses SELECT.
      if (p.has(Privilege::Select) && (!ua.access.masks.empty() || !ua.access.row_filter.empty())) {
        p.remove(Privilege::Select);
        policy_coarsened_[obj].insert(user);
        reasons.push_back(std::string("SELECT withheld on the whole object: its ") +
                          (ua.access.masks.empty()        ? "row filter"
                           : ua.access.row_filter.empty() ? "column masks"
                                                          : "column masks and row filter") +
                          " cannot be enforced on StarRocks by this build (coarsened)");
      }
      const std::set<std::string> privs = engine_privileges(p, obj.kind);
      for (const auto& pr : privs) items_[{obj, pr}].insert(user);
      if (!privs.empty()) plan_.intended[user][obj] = privs;
      if (!reasons.empty()) plan_.withheld[{user, obj}] = join_words(reasons);
      if (!p.has(Privilege::Select)) continue;
      for (const auto& [col, tags] : op.column_gates) {
        const auto& denied = ua.access.denied_columns;
        if (std::find(denied.begin(), denied.end(), col) == denied.end()) cleared[col].push_back(user);
      }
    }
    if (!masks) return;
    for (const auto& [col, tags] : op.column_gates) {
      const std::string& type = types[col];
      if (type.empty()) {
        unmaskable_[obj].insert(col);
        continue;
      }
      MaskPolicy m{"", obj, col, type, cleared[col]};
      std::sort(m.cleared.begin(), m.cleared.end());
      std::vector<std::string> parts = {obj.catalog, obj.database, obj.name, col, type};
      parts.insert(parts.end(), m.cleared.begin(), m.cleared.end());
      m.name = plan_.prefix + "m" + hash16(parts);
      plan_.desired.attachments[{obj, col}] = m.name;
      plan_.desired.masks[m.name] = std::move(m);
    }
  }

  // Unlisted names: OWNERSHIP of the names a database may hold means the
  // right to create tables, views and materialized views in it.
  void creation() {
    std::map<std::string, std::set<std::string>> databases;
    for (const auto& op : ps_.objects) databases[op.engine_name.catalog].insert(op.engine_name.schema);
    for (const auto& rule : ps_.unlisted) {
      if (rule.pattern.schema != "*") databases[rule.pattern.catalog].insert(rule.pattern.schema);
    }
    const std::set<std::size_t> restricted(ps_.create_restricted.begin(), ps_.create_restricted.end());
    for (const auto& [catalog, dbs] : databases) {
      for (const auto& db : dbs) {
        const UnlistedRule* rule = nullptr;
        for (const auto& r : ps_.unlisted) {
          if (covers_database(r.pattern, catalog, db)) {
            rule = &r;
            break;
          }
        }
        if (!rule) continue;
        const Securable on{Securable::Kind::Database, catalog, db, ""};
        for (const auto& [u, privs] : rule->access) {
          if (!privs.has(Privilege::Ownership) || restricted.count(u)) continue;
          for (const auto& pr : creation_privileges(d_)) items_[{on, pr}].insert(ps_.users[u].engine_name);
        }
      }
    }
  }

  // Tables of an external catalog are reachable only with USAGE on the catalog.
  void catalog_usage() {
    if (d_ != Dialect::StarRocks) return;
    std::map<std::string, std::set<std::string>> users;
    for (const auto& [key, holders] : items_) {
      if (key.first.catalog != kInternalCatalog) users[key.first.catalog].insert(holders.begin(), holders.end());
    }
    for (const auto& [catalog, holders] : users) {
      items_[{Securable{Securable::Kind::Catalog, catalog, "", ""}, "USAGE"}] = holders;
    }
  }

  void roles() {
    std::map<std::set<std::string>, std::map<Securable, std::set<std::string>>> by_holders;
    for (const auto& [key, holders] : items_) by_holders[holders][key.first].insert(key.second);
    std::map<std::string, std::size_t> per_user;
    for (auto& [holders, grants] : by_holders) {
      const std::vector<std::string> members(holders.begin(), holders.end());
      for (const auto& u : members) ++per_user[u];
      OwnedState::Role role{std::move(grants), holders};
      plan_.desired.roles[plan_.prefix + "r" + hash16(members)] = std::move(role);
    }
    // StarRocks caps the roles of one user (FE privilege_max_total_roles_per_user, 64 by default).
    std::vector<std::string> crowded;
    std::size_t most = 0;
    for (const auto& [u, n] : per_user) {
      if (n > kRolesPerUser) crowded.push_back(u);
      most = std::max(most, n);
    }
    if (d_ == Dialect::StarRocks && !crowded.empty()) {
      plan_.findings.push_back({Severity::Warning, "starrocks_roles_per_user",
                                std::to_string(crowded.size()) + " users need more than " +
                                    std::to_string(kRolesPerUser) + " tagwarden roles (up to " + std::to_string(most) +
                                    "); StarRocks refuses more than privilege_max_total_roles_per_user (default " +
                                    std::to_string(kRolesPerUser) +
                                    ") roles per user, so raise it or their last memberships fail (fail closed)",
                                plan_.profile, crowded});
    }
  }

  void findings() {
    for (const auto& [obj, users] : policy_coarsened_) {
      std::vector<std::string> u(users.begin(), users.end());
      plan_.findings.push_back({Severity::Warning,
                                "starrocks_policy_coarsened",
                                obj.str() + " has access-policy masks or row filters for " + std::to_string(u.size()) +
                                    " user" + (u.size() == 1 ? "" : "s") + " (" + join_words(u) +
                                    "), which this build does not render for StarRocks: they lose SELECT on the "
                                    "whole object instead; nothing is dropped",
                                plan_.profile,
                                {obj.str()}});
    }
    for (const auto& [obj, c] : coarsened_) {
      std::vector<std::string> cols(c.first.begin(), c.first.end());
      std::vector<std::string> users(c.second.begin(), c.second.end());
      std::vector<std::string> subjects = {obj.str()};
      for (const auto& col : cols) subjects.push_back(obj.str() + "." + col);
      plan_.findings.push_back({Severity::Warning, "starrocks_gate_coarsened",
                                obj.str() + " has gated column" + (cols.size() == 1 ? " " : "s ") + join_words(cols) +
                                    " and this server cannot mask columns (masking policies " +
                                    (plan_.capabilities.masking_policies ? "cannot type them" : "not available") +
                                    "): " + std::to_string(users.size()) + " uncleared user" +
                                    (users.size() == 1 ? "" : "s") + " (" + join_words(users) +
                                    ") lose SELECT on the whole object instead; nothing is dropped",
                                plan_.profile, subjects});
    }
    for (const auto& [obj, cols] : unmaskable_) {
      std::vector<std::string> c(cols.begin(), cols.end());
      plan_.findings.push_back({Severity::Warning,
                                "starrocks_unmaskable_type",
                                "gated column" + std::string(c.size() == 1 ? " " : "s ") + join_words(c) + " of " +
                                    obj.str() +
                                    " have a type tagwarden cannot write into a masking policy: no policy is "
                                    "created for them and uncleared readers lose SELECT on the whole object",
                                plan_.profile,
                                {obj.str()}});
    }
  }

  const PolicySet& ps_;
  Plan& plan_;
  Dialect d_;
  Items items_;
  std::map<Securable, std::pair<std::set<std::string>, std::set<std::string>>> coarsened_;  // columns, users
  std::map<Securable, std::set<std::string>> policy_coarsened_;  // users whose masks/filters were coarsened
  std::map<Securable, std::set<std::string>> unmaskable_;
};

}  // namespace

PlanRender render_plan(const PolicySet& ps, const PlanOptions& options) {
  PlanRender out;
  check_names(ps, options.dialect, out.errors);
  if (!out.errors.empty()) return out;
  Plan plan;
  plan.profile = ps.profile;
  plan.dialect = options.dialect;
  plan.capabilities = options.capabilities;
  if (plan.dialect == Dialect::MySQL) plan.capabilities.masking_policies = false;
  plan.prefix = owner_prefix(ps.profile);
  try {
    Renderer(ps, plan).run();
  } catch (const std::invalid_argument& e) {
    out.errors.push_back(e.what());
    return out;
  }
  out.plan = std::move(plan);
  return out;
}

}  // namespace tw::starrocks
