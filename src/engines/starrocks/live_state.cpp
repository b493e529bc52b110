// Reading what a server holds: owned roles, grants, members and masks, the
// users that exist, and foreign grants for drift. One reader per dialect.

#include "tagwarden/engines/starrocks/live_state.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <regex>

#include "owned_names.h"
#include "tagwarden/engines/starrocks/sql.h"
#include "tagwarden/util/text.h"

namespace tw::starrocks {
namespace {

std::string cell(const Row& r, std::size_t i) { return i < r.size() && r[i] ? *r[i] : std::string(); }
bool is_null(const Row& r, std::size_t i) { return i >= r.size() || !r[i]; }

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// "Select,Insert" (MySQL SET) or "SELECT, ALTER" (StarRocks) -> {"SELECT", "INSERT"}.
std::set<std::string> privilege_set(std::string_view list) {
  std::set<std::string> out;
  while (!list.empty()) {
    auto comma = list.find(',');
    std::string p = upper(trim(list.substr(0, comma)));
    if (!p.empty()) out.insert(p);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

// mysql.tables_priv spells two privileges otherwise than GRANT and REVOKE do (MariaDB): revoked
// under those names the statement is a syntax error, and every apply would stop before widening.
std::set<std::string> mysql_table_privileges(std::string_view list) {
  std::set<std::string> out;
  for (std::string p : privilege_set(list)) {
    if (p == "GRANT") p = "GRANT OPTION";
    if (p == "DELETE VERSIONING ROWS") p = "DELETE HISTORY";
    out.insert(std::move(p));
  }
  return out;
}

// The privilege a `*_priv` column of mysql.db or mysql.user holds, as GRANT and REVOKE name it:
// Show_view_priv is SHOW VIEW; the exceptions are listed.
std::string mysql_privilege_of_column(std::string_view column) {
  static const std::map<std::string_view, std::string_view> kNamed = {
      {"Grant_priv", "GRANT OPTION"},
      {"Create_tmp_table_priv", "CREATE TEMPORARY TABLES"},
      {"Delete_history_priv", "DELETE HISTORY"},
      {"Repl_slave_priv", "REPLICATION SLAVE"},
      {"Repl_client_priv", "BINLOG MONITOR"},
      {"Show_db_priv", "SHOW DATABASES"},
      {"Create_user_priv", "CREATE USER"},
      {"Create_tablespace_priv", "CREATE TABLESPACE"}};
  if (auto it = kNamed.find(column); it != kNamed.end()) return std::string(it->second);
  std::string out(column.substr(0, column.size() - 5));  // without _priv
  std::replace(out.begin(), out.end(), '_', ' ');
  return upper(out);
}

// A MySQL database-level grant's Db column: \x is a literal x.
std::string mysql_unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) ++i;
    out += s[i];
  }
  return out;
}

// MySQL LIKE semantics of a database-level grant: % any run, _ one character, \x literal x.
bool like_match(std::string_view pattern, std::string_view text) {
  if (pattern.empty()) return text.empty();
  if (pattern[0] == '%') {
    for (std::size_t i = 0; i <= text.size(); ++i) {
      if (like_match(pattern.substr(1), text.substr(i))) return true;
    }
    return false;
  }
  if (text.empty()) return false;
  if (pattern[0] == '\\' && pattern.size() > 1) {
    return pattern[1] == text[0] && like_match(pattern.substr(2), text.substr(1));
  }
  return (pattern[0] == '_' || pattern[0] == text[0]) && like_match(pattern.substr(1), text.substr(1));
}

std::string privilege_list(const std::set<std::string>& privileges) {
  std::string out;
  for (const auto& p : sql::ordered(privileges)) out += (out.empty() ? "" : ", ") + p;
  return out;
}

class OwnedSink {
 public:
  OwnedSink(const Plan& plan, LiveRead& out) : plan_(plan), out_(out) {}
  /// Only the exact shapes tagwarden makes: a hand-made role under the prefix is foreign.
  bool owned(const std::string& role) const { return owned_role(role, plan_.prefix); }
  void role(const std::string& name) { out_.state.owned.roles[name]; }
  void member(const std::string& role, const std::string& user) { out_.state.owned.roles[role].members.insert(user); }
  /// `role` inherits `inherited`, both owned.
  void inherit(const std::string& role, const std::string& inherited) {
    out_.state.owned.roles[role].roles.insert(inherited);
  }
  /// `holder` (a user at host %, or an owned role) holds `role` WITH ADMIN OPTION.
  void admin_holder(const std::string& role, const std::string& holder, bool holder_is_role) {
    auto& r = out_.state.owned.roles[role];
    (holder_is_role ? r.admin_roles : r.admin_members).insert(holder);
  }
  void other_host_member(const std::string& role, const std::string& user, const std::string& host) {
    out_.state.owned.roles[role].other_host_members.emplace(user, host);
  }
  /// The owned `role` was granted to `holder`, a role tagwarden does not own.
  void foreign_holder(const std::string& role, const std::string& holder) {
    out_.state.owned.roles[role].foreign_holders.insert(holder);
  }
  void grant(const std::string& role, const Securable& on, const std::set<std::string>& privs) {
    auto& g = out_.state.owned.roles[role].grants[on];
    g.insert(privs.begin(), privs.end());
  }

 private:
  const Plan& plan_;
  LiveRead& out_;
};

// A grant held by a grantee (user or role) that tagwarden does not own.
struct HeldGrant {
  Securable on;
  bool pattern = false;
  std::set<std::string> privileges;
  std::string grant;  // with {grantee} for the grantee
};

bool covers(const ForeignGrant& g, const Securable& o);

// Who holds which roles, for drift: the roles each user (host %) holds directly, the roles granted to
// each role (it inherits them), and the role every user holds without a grant (MariaDB PUBLIC,
// StarRocks public; empty when the server has none).
struct RoleGraph {
  std::map<std::string, std::set<std::string>> user_roles;
  std::map<std::string, std::set<std::string>> role_roles;
  std::string everyone;
};

// Every grant tagwarden does not own that reaches a user of the plan: made to the user, or to a
// foreign role the user reaches through the roles it holds, those granted to them (transitively,
// through owned roles too) and the role every user holds. Each role reached is reported once per
// user, with the first (shortest) path to it; a cycle of roles is walked once.
void add_foreign(LiveRead& out, const Plan& plan, const std::map<std::string, std::vector<HeldGrant>>& direct,
                 const std::map<std::string, std::vector<HeldGrant>>& by_role, const RoleGraph& graph,
                 const std::set<std::string>& users, Dialect d, const std::function<bool(const std::string&)>& owned) {
  auto render = [](const std::string& tmpl, const std::string& grantee) {
    std::string s = tmpl;
    auto at = s.find("{grantee}");
    if (at != std::string::npos) s.replace(at, 9, grantee);
    return s;
  };
  for (const auto& [user, grants] : direct) {
    for (const auto& g : grants) {
      out.foreign.push_back({user, "", g.on, g.pattern, g.privileges,
                             render(g.grant, (d == Dialect::StarRocks ? "USER " : "") + sql::user_identity(user))});
    }
  }
  // Only a role's grants on a listed object can be drift: the others are not copied once per user.
  std::map<std::string, std::vector<const HeldGrant*>> relevant;
  for (const auto& [role, grants] : by_role) {
    if (owned(role)) continue;
    for (const auto& g : grants) {
      const ForeignGrant probe{"", role, g.on, g.pattern, g.privileges, ""};
      if (std::any_of(plan.objects.begin(), plan.objects.end(), [&](const Securable& o) { return covers(probe, o); })) {
        relevant[role].push_back(&g);
      }
    }
  }
  if (relevant.empty()) return;
  // role -> the foreign roles with relevant grants it reaches (itself included), each with its path.
  std::map<std::string, std::vector<std::pair<std::string, std::vector<std::string>>>> reach_memo;
  auto reach = [&](const std::string& root) -> const auto& {
    auto [it, inserted] = reach_memo.try_emplace(root);
    if (!inserted) return it->second;
    std::map<std::string, std::vector<std::string>> paths = {{root, {root}}};
    std::vector<std::string> queue = {root};
    for (std::size_t i = 0; i < queue.size(); ++i) {
      const std::string role = queue[i];
      if (relevant.count(role)) it->second.emplace_back(role, paths[role]);
      auto next = graph.role_roles.find(role);
      if (next == graph.role_roles.end()) continue;
      for (const auto& inherited : next->second) {
        if (paths.count(inherited)) continue;  // seen: cycles and diamonds are walked once
        auto path = paths[role];
        path.push_back(inherited);
        paths.emplace(inherited, std::move(path));
        queue.push_back(inherited);
      }
    }
    return it->second;
  };
  auto grantee = [&](const std::string& role) {
    if (d == Dialect::MySQL && role == graph.everyone) return std::string("PUBLIC");
    return (d == Dialect::StarRocks ? "ROLE " : "") + sql::ident(role);
  };
  auto through = [&](const std::vector<std::string>& path) {
    std::string s = path.size() == 1 ? "role " : "roles ";
    for (std::size_t i = 0; i < path.size(); ++i) s += (i ? " -> " : "") + path[i];
    if (!graph.everyone.empty() && path.front() == graph.everyone) {
      s += path.size() == 1 ? ", which every user holds" : ", every user holding " + graph.everyone;
    }
    return s;
  };
  static const std::set<std::string> kNoRoles;
  for (const auto& user : plan.users) {
    if (!users.count(user)) continue;
    auto held = graph.user_roles.find(user);
    std::set<std::string> roots = held == graph.user_roles.end() ? kNoRoles : held->second;
    if (!graph.everyone.empty()) roots.insert(graph.everyone);
    std::set<std::string> reported;  // a role reached from two roots is reported once
    for (const auto& root : roots) {
      for (const auto& [role, path] : reach(root)) {
        if (!reported.insert(role).second) continue;
        for (const HeldGrant* g : relevant.at(role)) {
          out.foreign.push_back({user, role, g->on, g->pattern, g->privileges,
                                 render(g->grant, grantee(role)) + " (held by " + sql::user_identity(user) +
                                     " through " + through(path) + ")"});
        }
      }
    }
  }
}

// ---------------------------------------------------------------- MySQL / MariaDB

LiveRead read_mysql(Connection& c, const Plan& plan) {
  LiveRead out;
  OwnedSink sink(plan, out);
  std::pair<std::string, std::string> me;
  if (auto r = c.query("SELECT CURRENT_USER()"); !r.rows.empty()) {
    const std::string s = cell(r.rows[0], 0);
    auto at = s.rfind('@');
    me = at == std::string::npos ? std::make_pair(s, std::string()) : std::make_pair(s.substr(0, at), s.substr(at + 1));
  }
  std::set<std::string> roles, users;
  for (const auto& r : c.query("SELECT User, Host, is_role FROM mysql.user").rows) {
    if (cell(r, 2) == "Y") {
      roles.insert(cell(r, 0));
      if (sink.owned(cell(r, 0))) sink.role(cell(r, 0));
    } else if (cell(r, 1) == kUserHost) {
      users.insert(cell(r, 0));
    }
  }
  out.state.users = users;
  RoleGraph graph;
  if (roles.count("PUBLIC")) graph.everyone = "PUBLIC";  // MariaDB 10.11: grants every user holds
  for (const auto& r : c.query("SELECT User, Host, Role, Admin_option FROM mysql.roles_mapping").rows) {
    if (cell(r, 1).empty() && roles.count(cell(r, 0))) {  // a role granted to a role
      graph.role_roles[cell(r, 0)].insert(cell(r, 2));
      if (sink.owned(cell(r, 0)) && sink.owned(cell(r, 2))) {
        sink.inherit(cell(r, 0), cell(r, 2));
        if (cell(r, 3) == "Y") sink.admin_holder(cell(r, 2), cell(r, 0), true);
      }
      if (!sink.owned(cell(r, 0)) && sink.owned(cell(r, 2))) sink.foreign_holder(cell(r, 2), cell(r, 0));
      continue;
    }
    if (std::make_pair(cell(r, 0), cell(r, 1)) == me) continue;
    if (cell(r, 1) != kUserHost) {
      // A membership on another host (an admin's row from CREATE ROLE has the admin option: kept).
      if (sink.owned(cell(r, 2)) && cell(r, 3) != "Y") sink.other_host_member(cell(r, 2), cell(r, 0), cell(r, 1));
      continue;
    }
    graph.user_roles[cell(r, 0)].insert(cell(r, 2));
    if (sink.owned(cell(r, 2))) {
      sink.member(cell(r, 2), cell(r, 0));
      if (cell(r, 3) == "Y") sink.admin_holder(cell(r, 2), cell(r, 0), false);
    }
  }
  std::map<std::string, std::vector<HeldGrant>> direct, by_role;
  auto hold = [&](const std::string& grantee, const std::string& host, HeldGrant g) {
    if (host.empty() && roles.count(grantee)) {
      if (sink.owned(grantee)) {
        sink.grant(grantee, g.on, g.privileges);
      } else {
        by_role[grantee].push_back(std::move(g));
      }
    } else if (host == kUserHost) {
      direct[grantee].push_back(std::move(g));
    }
  };
  const std::string catalog(kInternalCatalog);
  for (const auto& r : c.query("SELECT User, Host, Db, Table_name, Table_priv FROM mysql.tables_priv").rows) {
    HeldGrant g{
        {Securable::Kind::Table, catalog, cell(r, 2), cell(r, 3)}, false, mysql_table_privileges(cell(r, 4)), ""};
    if (g.privileges.empty()) continue;
    g.grant = "GRANT " + privilege_list(g.privileges) + " ON " + sql::ident(g.on.database) + "." +
              sql::ident(g.on.name) + " TO {grantee}";
    hold(cell(r, 0), cell(r, 1), std::move(g));
  }
  // Column-level grants: on an owned role the privilege is kept as "SELECT (`col`)" on its table, so
  // the REVOKE that takes it back names the column; held by a user or a foreign role it counts as
  // the privilege on the table for drift (it reads or writes part of it), quoted exactly.
  for (const auto& r :
       c.query("SELECT User, Host, Db, Table_name, Column_name, Column_priv FROM mysql.columns_priv").rows) {
    const Securable on{Securable::Kind::Table, catalog, cell(r, 2), cell(r, 3)};
    const bool owned_role = cell(r, 1).empty() && sink.owned(cell(r, 0));
    for (const std::string& priv : mysql_table_privileges(cell(r, 5))) {
      const std::string with_column = priv + " (" + sql::ident(cell(r, 4)) + ")";
      if (owned_role) {
        sink.grant(cell(r, 0), on, {with_column});
        continue;
      }
      HeldGrant g{on, false, {priv}, ""};
      g.grant = "GRANT " + with_column + " ON " + sql::ident(on.database) + "." + sql::ident(on.name) + " TO {grantee}";
      hold(cell(r, 0), cell(r, 1), std::move(g));
    }
  }
  // Every privilege column (`*_priv` = 'Y'), read by name so that one a server version lacks or
  // adds is no error: a privilege of an owned role that is not read is never revoked.
  auto privileges_of = [](const Rows& rows, const Row& r) {
    std::set<std::string> out;
    for (std::size_t i = 0; i < rows.columns.size() && i < r.size(); ++i) {
      const std::string& col = rows.columns[i];
      if (col.size() > 5 && col.compare(col.size() - 5, 5, "_priv") == 0 && cell(r, i) == "Y") {
        out.insert(mysql_privilege_of_column(col));
      }
    }
    return out;
  };
  auto column_of = [](const Rows& rows, std::string_view name) {
    for (std::size_t i = 0; i < rows.columns.size(); ++i) {
      if (rows.columns[i] == name) return i;
    }
    throw std::runtime_error("the server's mysql tables have no column " + std::string(name));
  };
  const Rows db_rows = c.query("SELECT * FROM mysql.db");
  const bool any_db = !db_rows.rows.empty();
  const std::size_t db_user = any_db ? column_of(db_rows, "User") : 0,
                    db_host = any_db ? column_of(db_rows, "Host") : 0, db_db = any_db ? column_of(db_rows, "Db") : 0;
  for (const auto& r : db_rows.rows) {
    HeldGrant g;
    g.privileges = privileges_of(db_rows, r);
    if (g.privileges.empty()) continue;
    const std::string raw = cell(r, db_db);
    const bool owned_role = cell(r, db_host).empty() && sink.owned(cell(r, db_user));
    g.on = {Securable::Kind::Database, catalog, owned_role ? mysql_unescape(raw) : raw, ""};
    // On an owned role, a pattern tagwarden would not write (a wildcard, a needless escape) is
    // revoked as written: re-escaped, its REVOKE would name another grant and be refused.
    if (owned_role && sql::mysql_db_pattern(g.on.database) != sql::ident(raw)) {
      g.on = {Securable::Kind::AsRead, catalog, "", sql::ident(raw) + ".*"};
    }
    g.pattern = !owned_role;
    g.grant = "GRANT " + privilege_list(g.privileges) + " ON " + sql::ident(raw) + ".* TO {grantee}";
    hold(cell(r, db_user), cell(r, db_host), std::move(g));
  }
  // Stored routines an owned role may run (EXECUTE, ALTER ROUTINE): tagwarden never grants them,
  // and a DEFINER routine reads with its definer's privileges. Only owned roles' are read: no plan
  // object is a routine, so another grantee's are no drift.
  for (const auto& r :
       c.query("SELECT User, Host, Db, Routine_name, Routine_type, Proc_priv FROM mysql.procs_priv").rows) {
    if (!cell(r, 1).empty() || !sink.owned(cell(r, 0))) continue;
    const std::string type = upper(cell(r, 4));
    if (type != "FUNCTION" && type != "PROCEDURE" && type != "PACKAGE" && type != "PACKAGE BODY") {
      throw std::runtime_error("mysql.procs_priv holds a routine of type '" + cell(r, 4) + "' on owned role " +
                               cell(r, 0) + ", which tagwarden cannot revoke; revoke it by hand");
    }
    const auto privileges = mysql_table_privileges(cell(r, 5));
    if (privileges.empty()) continue;
    sink.grant(
        cell(r, 0),
        {Securable::Kind::AsRead, catalog, "", type + " " + sql::ident(cell(r, 2)) + "." + sql::ident(cell(r, 3))},
        privileges);
  }
  const Rows user_rows = c.query("SELECT * FROM mysql.user");
  const bool any_user = !user_rows.rows.empty();
  const std::size_t u_user = any_user ? column_of(user_rows, "User") : 0,
                    u_host = any_user ? column_of(user_rows, "Host") : 0;
  for (const auto& r : user_rows.rows) {
    HeldGrant g{{Securable::Kind::Catalog, "*", "", ""}, false, privileges_of(user_rows, r), ""};
    if (g.privileges.empty()) continue;
    g.grant = "GRANT " + privilege_list(g.privileges) + " ON *.* TO {grantee}";
    hold(cell(r, u_user), cell(r, u_host), std::move(g));
  }
  add_foreign(out, plan, direct, by_role, graph, users, Dialect::MySQL,
              [&](const std::string& r) { return sink.owned(r); });
  return out;
}

// ---------------------------------------------------------------- StarRocks

std::optional<Securable> starrocks_securable(const Row& r, std::size_t at) {
  // OBJECT_CATALOG, OBJECT_DATABASE, OBJECT_NAME, OBJECT_TYPE from column `at`.
  const std::string type = upper(cell(r, at + 3));
  Securable s{Securable::Kind::Table, cell(r, at), cell(r, at + 1), cell(r, at + 2)};
  if (type == "TABLE" || type == "VIEW" || type == "MATERIALIZED VIEW") {
    if (type == "VIEW") s.kind = Securable::Kind::View;
    if (type == "MATERIALIZED VIEW") s.kind = Securable::Kind::MaterializedView;
    if (is_null(r, at + 2)) s.kind = Securable::Kind::Database;  // every table of the database
    if (is_null(r, at + 1)) s.kind = Securable::Kind::Catalog;   // every table of the catalog
    return s;
  }
  if (type == "DATABASE") return Securable{Securable::Kind::Database, s.catalog, s.database, ""};
  if (type == "CATALOG") return Securable{Securable::Kind::Catalog, s.catalog, "", ""};
  return std::nullopt;
}

std::string starrocks_grant_text(const Securable& on, const std::set<std::string>& privs) {
  std::string target;
  switch (on.kind) {
    case Securable::Kind::Catalog:
      target = "CATALOG " + sql::ident(on.catalog);
      break;
    case Securable::Kind::Database:
      target = "DATABASE " + sql::ident(on.database);
      break;
    case Securable::Kind::View:
      target = "VIEW " + sql::ident(on.database) + "." + sql::ident(on.name);
      break;
    case Securable::Kind::MaterializedView:
      target = "MATERIALIZED VIEW " + sql::ident(on.database) + "." + sql::ident(on.name);
      break;
    default:
      target = "TABLE " + sql::ident(on.database) + "." + sql::ident(on.name);
  }
  std::string out = "GRANT " + privilege_list(privs) + " ON " + target + " TO {grantee}";
  if (on.kind != Securable::Kind::Catalog && on.catalog != kInternalCatalog) out += " (in catalog " + on.catalog + ")";
  return out;
}

// The last part of a possibly qualified, possibly backticked name.
std::string last_name_part(std::string_view q) {
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < q.size(); ++i) {
    const char ch = q[i];
    if (quoted) {
      if (ch == '`' && i + 1 < q.size() && q[i + 1] == '`') {
        cur += '`';
        ++i;
      } else if (ch == '`') {
        quoted = false;
      } else {
        cur += ch;
      }
    } else if (ch == '`') {
      quoted = true;
    } else if (ch == '.') {
      cur.clear();
    } else {
      cur += ch;
    }
  }
  return cur;
}

// Masking and row access policies tagwarden owns, and what they are attached to: the names from
// SHOW MASKING POLICIES / SHOW ROW ACCESS POLICIES FROM db, attachments from SHOW CREATE of each
// listed object. The result rows are parsed by pure functions (parse_policy_names,
// parse_policy_attachments), unit-tested with recorded rows.
void read_policies(Connection& c, const Plan& plan, LiveRead& out) {
  const bool masks = plan.capabilities.masking_policies, rows = plan.capabilities.row_access_policies;
  std::string current(kInternalCatalog);
  auto use = [&](const std::string& catalog) {
    if (catalog != current) {
      c.execute(sql::set_catalog(catalog));
      current = catalog;
    }
  };
  std::set<std::pair<std::string, std::string>> databases;
  for (const auto& o : plan.objects) databases.insert({o.catalog, o.database});
  const std::string mask_prefix = plan.prefix + "m", row_prefix = plan.prefix + "p";
  for (const auto& [catalog, db] : databases) {
    use(catalog);
    const Securable in_db{Securable::Kind::Table, catalog, db, ""};
    if (masks) {
      for (const auto& name :
           parse_policy_names(c.query("SHOW MASKING POLICIES FROM " + sql::ident(db)).rows, mask_prefix)) {
        out.state.owned.masks[name] = MaskPolicy{name, in_db, "", "", {}, {}};
      }
    }
    if (rows) {
      for (const auto& name :
           parse_policy_names(c.query("SHOW ROW ACCESS POLICIES FROM " + sql::ident(db)).rows, row_prefix)) {
        out.state.owned.row_policies[name] = RowPolicy{name, in_db, {}, {}};
      }
    }
  }
  for (const auto& o : plan.objects) {
    use(o.catalog);
    const char* what = o.kind == Securable::Kind::View               ? "VIEW"
                       : o.kind == Securable::Kind::MaterializedView ? "MATERIALIZED VIEW"
                                                                     : "TABLE";
    const Rows r =
        c.query(std::string("SHOW CREATE ") + what + " " + sql::ident(o.database) + "." + sql::ident(o.name));
    if (r.rows.empty()) continue;
    // The DDL is the second column (Table/View, Create Table/Create View, ...).
    const PolicyAttachments a =
        parse_policy_attachments(cell(r.rows[0], std::min<std::size_t>(1, r.rows[0].size() - 1)));
    if (masks) {
      for (const auto& [column, policy] : a.masks) {
        const ColumnRef ref{o, column};
        if (owned_shape(policy, mask_prefix)) {
          out.state.owned.attachments[ref] = policy;
        } else {
          out.state.foreign_masks.insert(ref);
        }
      }
    }
    if (rows) {
      for (const auto& policy : a.row_policies) {
        if (owned_shape(policy, row_prefix)) out.state.owned.row_attachments[o].insert(policy);
      }
    }
  }
  use(std::string(kInternalCatalog));
}

LiveRead read_starrocks(Connection& c, const Plan& plan) {
  LiveRead out;
  OwnedSink sink(plan, out);
  std::set<std::string> roles;
  for (const auto& r : c.query("SHOW ROLES").rows) {
    roles.insert(cell(r, 0));
    if (sink.owned(cell(r, 0))) sink.role(cell(r, 0));
  }
  std::set<std::string> users;
  for (const auto& r : c.query("SHOW USERS").rows) {
    if (auto id = parse_user_identity(cell(r, 0)); id && id->second == kUserHost) users.insert(id->first);
  }
  out.state.users = users;
  RoleGraph graph;
  graph.everyone = "public";  // the built-in role every user holds (it cannot be dropped)
  for (const auto& r : c.query("SELECT FROM_ROLE, TO_ROLE, TO_USER FROM sys.role_edges").rows) {
    if (!is_null(r, 1) && !cell(r, 1).empty()) {  // FROM_ROLE granted to the role TO_ROLE
      graph.role_roles[cell(r, 1)].insert(cell(r, 0));
      if (sink.owned(cell(r, 0)) && sink.owned(cell(r, 1))) sink.inherit(cell(r, 1), cell(r, 0));
      if (sink.owned(cell(r, 0)) && !sink.owned(cell(r, 1))) sink.foreign_holder(cell(r, 0), cell(r, 1));
      continue;
    }
    if (is_null(r, 2)) continue;
    auto id = parse_user_identity(cell(r, 2));
    if (id && id->second != kUserHost && sink.owned(cell(r, 0)))
      sink.other_host_member(cell(r, 0), id->first, id->second);
    if (!id || id->second != kUserHost) continue;
    graph.user_roles[id->first].insert(cell(r, 0));
    if (sink.owned(cell(r, 0))) sink.member(cell(r, 0), id->first);
  }
  const std::string columns = "OBJECT_CATALOG, OBJECT_DATABASE, OBJECT_NAME, OBJECT_TYPE, PRIVILEGE_TYPE";
  std::map<std::string, std::vector<HeldGrant>> direct, by_role;
  for (const auto& r : c.query("SELECT GRANTEE, " + columns + ", IS_GRANTABLE FROM sys.grants_to_roles").rows) {
    auto on = starrocks_securable(r, 1);
    const auto privs = privilege_set(cell(r, 5));
    if (sink.owned(cell(r, 0))) {
      // Made by hand, and not revoked: a REVOKE of another object kind, or of the grant option
      // alone, is not written without a StarRocks to prove it. Reported so it is taken back.
      std::string what;
      if (!on) {
        what = "on " + upper(cell(r, 4)) + (is_null(r, 1) ? "" : " " + cell(r, 1)) +
               (is_null(r, 2) ? "" : "." + cell(r, 2)) + (is_null(r, 3) ? "" : "." + cell(r, 3)) +
               ", an object kind tagwarden never grants on";
      } else if (const std::string g = upper(cell(r, 6)); g == "YES" || g == "Y" || g == "TRUE") {
        what = "on " + on->str() + " WITH GRANT OPTION: its holders may grant it to anyone";
      }
      if (!what.empty()) {
        out.owned_drift.push_back(
            {Severity::Warning,
             "starrocks_drift",
             "owned role " + cell(r, 0) + " holds " + privilege_list(privs) + " " + what +
                 "; tagwarden does not take this back on StarRocks: revoke it by hand (REVOKE ... FROM ROLE " +
                 sql::ident(cell(r, 0)) + ", then run apply again, which grants back what the plan wants)",
             plan.profile,
             {cell(r, 0)}});
      }
      if (on) sink.grant(cell(r, 0), *on, privs);
    } else if (on) {
      by_role[cell(r, 0)].push_back({*on, false, privs, starrocks_grant_text(*on, privs)});
    }
  }
  for (const auto& r : c.query("SELECT GRANTEE, " + columns + " FROM sys.grants_to_users").rows) {
    auto on = starrocks_securable(r, 1);
    auto id = parse_user_identity(cell(r, 0));
    if (!on || !id || id->second != kUserHost) continue;
    const auto privs = privilege_set(cell(r, 5));
    direct[id->first].push_back({*on, false, privs, starrocks_grant_text(*on, privs)});
  }
  add_foreign(out, plan, direct, by_role, graph, users, Dialect::StarRocks,
              [&](const std::string& r) { return sink.owned(r); });
  if (plan.capabilities.masking_policies || plan.capabilities.row_access_policies) read_policies(c, plan, out);
  return out;
}

bool covers(const ForeignGrant& g, const Securable& o) {
  const bool catalog = g.on.catalog == "*" || g.on.catalog == o.catalog;
  switch (g.on.kind) {
    case Securable::Kind::Catalog:
      return catalog;
    case Securable::Kind::Database:
      return catalog && (g.database_pattern ? like_match(g.on.database, o.database) : g.on.database == o.database);
    default:
      return catalog && g.on.database == o.database && g.on.name == o.name;
  }
}

}  // namespace

std::optional<std::pair<std::string, std::string>> parse_user_identity(std::string_view text) {
  std::string s = trim(text);
  auto at = s.rfind("'@'");
  if (s.size() < 5 || s.front() != '\'' || s.back() != '\'' || at == std::string::npos || at == 0) {
    return std::nullopt;
  }
  return std::make_pair(s.substr(1, at - 1), s.substr(at + 3, s.size() - at - 4));
}

std::vector<std::string> parse_policy_names(const std::vector<Row>& rows, std::string_view prefix) {
  std::vector<std::string> out;
  for (const auto& r : rows) {
    // Name is the first column (Name, Type, Catalog, Database).
    const std::string name = cell(r, 0);
    if (owned_shape(name, prefix)) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

// The DDL with the insides of string literals ('…', "…", backslash escapes) and SQL comments
// (/* … */, -- …) blanked to spaces, backticked identifiers kept: a column or table COMMENT, a
// default value or a view's query may hold any text, "WITH MASKING POLICY `db`.`tw_…_m…`" or a
// line break followed by a forged column line included, and read as an attachment it would stop
// the applier attaching the policy the column needs.
std::string blank_strings_and_comments(std::string_view text) {
  std::string out(text);
  for (std::size_t i = 0; i < out.size();) {
    const char c = out[i];
    if (c == '`') {  // an identifier: `` inside is a backtick
      for (++i; i < out.size(); ++i) {
        if (out[i] != '`') continue;
        if (i + 1 < out.size() && out[i + 1] == '`') {
          ++i;
        } else {
          break;
        }
      }
      ++i;
    } else if (c == '\'' || c == '"') {
      for (++i; i < out.size() && out[i] != c; ++i) {
        if (out[i] == '\\' && i + 1 < out.size()) out[i++] = ' ';
        out[i] = ' ';
      }
      ++i;
    } else if (c == '/' && i + 1 < out.size() && out[i + 1] == '*') {
      const std::size_t end = out.find("*/", i + 2);
      const std::size_t stop = end == std::string::npos ? out.size() : end + 2;
      for (; i < stop; ++i) out[i] = ' ';
    } else if (c == '-' && i + 1 < out.size() && out[i + 1] == '-') {
      for (; i < out.size() && out[i] != '\n'; ++i) out[i] = ' ';
    } else {
      ++i;
    }
  }
  return out;
}

}  // namespace

PolicyAttachments parse_policy_attachments(std::string_view text) {
  // A policy name: `quoted` (backticks doubled) or bare parts joined by dots; the last part is the name.
  static const std::string kName = R"((?:`(?:[^`]|``)+`|[A-Za-z0-9_]+)(?:\.(?:`(?:[^`]|``)+`|[A-Za-z0-9_]+))*)";
  static const std::regex column_line(R"(^\s*`((?:[^`]|``)+)`.*\bMASKING\s+POLICY\s+()" + kName + ")",
                                      std::regex::icase);
  static const std::regex row_policy(R"(\bROW\s+ACCESS\s+POLICY\s+()" + kName + ")", std::regex::icase);
  PolicyAttachments out;
  std::size_t start = 0;
  const std::string all = blank_strings_and_comments(text);
  while (start < all.size()) {
    auto end = all.find('\n', start);
    const std::string line = all.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? all.size() : end + 1;
    std::smatch m;
    if (std::regex_search(line, m, column_line)) {
      std::string column = m[1].str();
      for (auto at = column.find("``"); at != std::string::npos; at = column.find("``", at + 1)) column.erase(at, 1);
      out.masks.emplace_back(column, last_name_part(m[2].str()));
      continue;
    }
    for (auto it = std::sregex_iterator(line.begin(), line.end(), row_policy); it != std::sregex_iterator(); ++it) {
      out.row_policies.push_back(last_name_part((*it)[1].str()));
    }
  }
  return out;
}

LiveRead read_live_state(Connection& c, const Plan& plan) {
  return plan.dialect == Dialect::MySQL ? read_mysql(c, plan) : read_starrocks(c, plan);
}

Probe probe_server(Connection& c, Dialect d, const std::string& profile) {
  Probe p;
  auto optional_query = [&](const std::string& q) -> std::optional<Rows> {
    try {
      return c.query(q);
    } catch (const SqlError& e) {
      if (e.connection_lost()) throw;
      return std::nullopt;
    }
  };
  if (auto r = optional_query("SELECT VERSION()"); r && !r->rows.empty()) p.version = cell(r->rows[0], 0);
  if (d == Dialect::MySQL) return p;
  if (auto r = optional_query("SELECT current_version()"); r && !r->rows.empty()) {
    p.version = "StarRocks " + cell(r->rows[0], 0);
  }
  // Open-source StarRocks parses masking policies but refuses to run them; an edition that implements them
  // answers (perhaps only with a database named, so both forms are tried). Any refusal means no masks: coarsen.
  p.capabilities.masking_policies = optional_query("SHOW MASKING POLICIES").has_value() ||
                                    optional_query("SHOW MASKING POLICIES FROM information_schema").has_value();
  p.capabilities.row_access_policies = optional_query("SHOW ROW ACCESS POLICIES").has_value() ||
                                       optional_query("SHOW ROW ACCESS POLICIES FROM information_schema").has_value();
  // Needs the OPERATE privilege; without it the profile's max_roles_per_user is trusted.
  if (auto r = optional_query("ADMIN SHOW FRONTEND CONFIG LIKE 'privilege_max_total_roles_per_user'")) {
    p.max_roles_per_user = parse_max_roles_per_user(*r);
  }
  if (auto r = optional_query("SHOW VARIABLES LIKE 'activate_all_roles_on_login'"); r && !r->rows.empty()) {
    const std::string v = upper(cell(r->rows[0], 1));
    if (v != "TRUE" && v != "ON" && v != "1") {
      p.findings.push_back({Severity::Warning,
                            "starrocks_roles_not_activated",
                            "activate_all_roles_on_login is off on this server: StarRocks activates only a user's "
                            "default roles at login, so the roles tagwarden grants take effect after SET ROLE ALL; "
                            "run SET GLOBAL activate_all_roles_on_login = TRUE",
                            profile,
                            {}});
    }
  }
  return p;
}

std::optional<std::size_t> parse_max_roles_per_user(const Rows& rows) {
  std::size_t key = 0, value = 2;  // StarRocks' column order, unless the columns are named
  for (std::size_t i = 0; i < rows.columns.size(); ++i) {
    if (upper(rows.columns[i]) == "KEY") key = i;
    if (upper(rows.columns[i]) == "VALUE") value = i;
  }
  for (const auto& r : rows.rows) {
    if (cell(r, key) != "privilege_max_total_roles_per_user") continue;
    const std::string v = cell(r, value);
    if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return static_cast<std::size_t>(std::stoul(v));
  }
  return std::nullopt;
}

RolesCap roles_cap_for(const Probe& probe, std::size_t configured, const std::string& profile) {
  if (!probe.max_roles_per_user || *probe.max_roles_per_user >= configured) return {configured, std::nullopt};
  const std::size_t server = std::max<std::size_t>(*probe.max_roles_per_user, 2);
  return {server,
          Finding{Severity::Warning,
                  "starrocks_roles_cap_lowered",
                  "the server's privilege_max_total_roles_per_user is " + std::to_string(*probe.max_roles_per_user) +
                      ", below the profile's max_roles_per_user (" + std::to_string(configured) +
                      "): the plan for this server keeps every user within " + std::to_string(server) +
                      " roles, or their memberships would be refused; set max_roles_per_user to the server's "
                      "value, or raise the server's",
                  profile,
                  {}}};
}

std::vector<Finding> drift_findings(const Plan& plan, const std::vector<ForeignGrant>& foreign) {
  static const std::set<std::string> kVocabulary = {"SELECT", "INSERT", "UPDATE", "DELETE", "ALTER", "DROP", "REFRESH"};
  const std::set<std::string> users(plan.users.begin(), plan.users.end());
  std::vector<Finding> out;
  for (const auto& g : foreign) {
    if (!users.count(g.user)) continue;
    std::vector<std::string> objects, reasons;
    std::set<std::string> excess;
    for (const auto& o : plan.objects) {
      if (!covers(g, o)) continue;
      std::set<std::string> extra;
      for (const auto& p : g.privileges) {
        if (!kVocabulary.count(p)) continue;
        const Plan::Holding* h = plan.holding(g.user, o);
        const bool allowed = h && h->privileges->count(p);
        if (!allowed) extra.insert(p);
      }
      if (extra.empty()) continue;
      objects.push_back(o.str());
      excess.insert(extra.begin(), extra.end());
      if (const Plan::Holding* h = plan.holding(g.user, o); h && h->withheld) {
        reasons.push_back(o.str() + ": " + *h->withheld);
      }
    }
    if (objects.empty()) continue;
    std::string message = "grant made outside tagwarden: " + g.grant + " gives " + g.user + " " +
                          privilege_list(excess) + " on " + join_words(objects) + ", which profile " + plan.profile +
                          " does not give them";
    if (!reasons.empty()) message += " (" + join_words(reasons) + ")";
    message += "; revoke it, tagwarden never touches grants it does not own";
    std::vector<std::string> subjects = {g.user, g.grant};
    subjects.insert(subjects.end(), objects.begin(), objects.end());
    out.push_back({Severity::Warning, "starrocks_drift", message, plan.profile, subjects});
  }
  return out;
}

}  // namespace tw::starrocks
