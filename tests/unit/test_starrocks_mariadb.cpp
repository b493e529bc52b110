// The StarRocks applier against a private MariaDB (MySQL dialect), started by
// tests/starrocks/run_mariadb.sh, which sets TAGWARDEN_TEST_MARIADB_DSN and
// TAGWARDEN_STARROCKS_PASSWORD and creates the demo databases, tables and
// users. Hidden ([.]): run with `unit_tests "[starrocks-mariadb]"`.
//
// Privileges are judged by an independent reader of mysql.tables_priv,
// mysql.db and mysql.roles_mapping (what a user holds directly or through a
// role), not by the applier's own reader.

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../starrocks/sr_test_helpers.h"
#include "tagwarden/engines/starrocks/apply.h"
#include "tagwarden/engines/starrocks/live_state.h"
#include "tagwarden/engines/starrocks/server.h"
#include "tagwarden/engines/starrocks/sql.h"
#include "tagwarden/engines/starrocks/withdraw.h"

using namespace srtest;
namespace sr = tw::starrocks;

namespace {

std::string dsn() {
  const char* d = std::getenv("TAGWARDEN_TEST_MARIADB_DSN");
  return d ? d : "";
}

std::unique_ptr<sr::Connection> open() {
  auto parsed = sr::parse_dsn(dsn());
  REQUIRE(parsed.settings.has_value());
  std::string error;
  parsed.settings->password = sr::resolve_password(std::nullopt, error).value_or("");
  parsed.settings->retries = 0;
  return sr::connect(*parsed.settings, sr::Dialect::MySQL);
}

std::string cell(const sr::Row& r, std::size_t i) { return i < r.size() && r[i] ? *r[i] : ""; }

using Key = std::pair<std::string, std::string>;  // database, table
using Held = std::map<std::string, std::map<Key, std::set<std::string>>>;

bool like(std::string_view p, std::string_view t) {
  if (p.empty()) return t.empty();
  if (p[0] == '%') {
    for (std::size_t i = 0; i <= t.size(); ++i) {
      if (like(p.substr(1), t.substr(i))) return true;
    }
    return false;
  }
  if (t.empty()) return false;
  if (p[0] == '\\' && p.size() > 1) return p[1] == t[0] && like(p.substr(2), t.substr(1));
  return (p[0] == '_' || p[0] == t[0]) && like(p.substr(1), t.substr(1));
}

// What each user (host %) holds on each listed object, directly or through roles (one level and nested).
Held server_held(sr::Connection& c, const std::vector<Securable>& objects) {
  static const std::set<std::string> vocabulary = {"SELECT", "INSERT", "UPDATE", "DELETE", "ALTER", "DROP"};
  std::map<std::string, std::set<std::string>> grantee_roles;  // "u@host" or "role@" -> roles
  for (const auto& r : c.query("SELECT User, Host, Role FROM mysql.roles_mapping").rows) {
    grantee_roles[cell(r, 0) + "@" + cell(r, 1)].insert(cell(r, 2));
  }
  std::map<std::string, std::map<Key, std::set<std::string>>> table;  // grantee -> object -> privs
  for (const auto& r : c.query("SELECT User, Host, Db, Table_name, Table_priv FROM mysql.tables_priv").rows) {
    std::string list = cell(r, 4);
    std::set<std::string> privs;
    std::size_t start = 0;
    while (start <= list.size()) {
      auto comma = list.find(',', start);
      std::string p = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      for (auto& ch : p) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      if (vocabulary.count(p)) privs.insert(p);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    table[cell(r, 0) + "@" + cell(r, 1)][{cell(r, 2), cell(r, 3)}].insert(privs.begin(), privs.end());
  }
  std::map<std::string, std::vector<std::pair<std::string, std::set<std::string>>>> db;  // grantee -> (pattern, privs)
  for (const auto& r :
       c.query("SELECT User, Host, Db, Select_priv, Insert_priv, Update_priv, Delete_priv, Alter_priv, Drop_priv "
               "FROM mysql.db")
           .rows) {
    std::set<std::string> privs;
    const char* names[] = {"SELECT", "INSERT", "UPDATE", "DELETE", "ALTER", "DROP"};
    for (int i = 0; i < 6; ++i) {
      if (cell(r, 3 + i) == "Y") privs.insert(names[i]);
    }
    db[cell(r, 0) + "@" + cell(r, 1)].push_back({cell(r, 2), privs});
  }
  auto holds = [&](const std::string& grantee, const Securable& o, std::set<std::string>& out) {
    if (auto t = table.find(grantee); t != table.end()) {
      if (auto p = t->second.find({o.database, o.name}); p != t->second.end())
        out.insert(p->second.begin(), p->second.end());
    }
    if (auto d = db.find(grantee); d != db.end()) {
      for (const auto& [pattern, privs] : d->second) {
        if (like(pattern, o.database)) out.insert(privs.begin(), privs.end());
      }
    }
  };
  Held out;
  std::set<std::string> users;
  for (const auto& r : c.query("SELECT User FROM mysql.user WHERE Host = '%' AND is_role = 'N'").rows) {
    users.insert(cell(r, 0));
  }
  for (const auto& u : users) {
    std::set<std::string> seen;
    std::vector<std::string> grantees = {u + "@%"};
    for (std::size_t i = 0; i < grantees.size(); ++i) {
      for (const auto& role : grantee_roles[grantees[i]]) {
        if (seen.insert(role).second) grantees.push_back(role + "@");
      }
    }
    for (const auto& o : objects) {
      std::set<std::string> privs;
      for (const auto& g : grantees) holds(g, o, privs);
      if (!privs.empty()) out[u][{o.database, o.name}] = privs;
    }
  }
  return out;
}

Held intended(const sr::Plan& plan) {
  Held out;
  for (const auto& [u, m] : plan.intended()) {
    for (const auto& [o, privs] : m) out[u][{o.database, o.name}] = privs;
  }
  return out;
}

std::set<std::string> at(const Held& h, const std::string& u, const Key& k) {
  auto a = h.find(u);
  if (a == h.end()) return {};
  auto b = a->second.find(k);
  return b == a->second.end() ? std::set<std::string>{} : b->second;
}

// Drops every role named tw_* or test_* and every privilege of the demo users.
void reset(sr::Connection& c) {
  for (const auto& r : c.query("SELECT User FROM mysql.user WHERE is_role = 'Y'").rows) {
    const std::string role = cell(r, 0);
    if (role.rfind("tw_", 0) == 0 || role.rfind("test_", 0) == 0) c.execute("DROP ROLE " + sr::sql::ident(role));
  }
  for (const auto& r : c.query("SELECT User FROM mysql.user WHERE Host = '%' AND is_role = 'N'").rows) {
    c.execute("REVOKE ALL PRIVILEGES, GRANT OPTION FROM " + sr::sql::user_identity(cell(r, 0)));
  }
}

std::string demo_text() { return read_text(source_path("examples/demo/snapshot.yaml")); }

// The demo with member-sso a pii_reader and platform-admin no analyst: from it
// to the demo, member-sso loses customers and platform-admin gains everything analyst reads.
std::string changed_demo() {
  std::string t = demo_text();
  const std::string from = "  - {role: analyst, user: platform-admin}\n";
  t.replace(t.find(from), from.size(), "  - {role: pii_reader, user: member-sso}\n");
  return t;
}

sr::Plan mysql_plan(const std::string& snapshot_text, std::size_t max_roles_per_user = sr::kDefaultMaxRolesPerUser) {
  auto m = model_from_text(snapshot_text);
  auto ps = compile_ok(*m, profile_from(source_path("examples/demo/starrocks-profiles.yaml"), "starrocks_main"));
  return plan_ok(ps, {sr::Dialect::MySQL, {}, max_roles_per_user});
}

sr::ApplyOptions quick(int retries = 0) {
  sr::ApplyOptions o;
  o.retries = retries;
  o.backoff_ms = 10;
  return o;
}

#define REQUIRE_MARIADB()                                                                     \
  if (dsn().empty()) {                                                                        \
    WARN("SKIP: TAGWARDEN_TEST_MARIADB_DSN is not set (run tests/starrocks/run_mariadb.sh)"); \
    return;                                                                                   \
  }

}  // namespace

TEST_CASE("mariadb: connection handling", "[.][starrocks-mariadb]") {
  REQUIRE_MARIADB();
  auto c = open();
  auto probe = sr::probe_server(*c, sr::Dialect::MySQL, "p");
  CHECK(probe.version.find("MariaDB") != std::string::npos);
  CHECK_FALSE(probe.capabilities.masking_policies);

  // A refused statement is not a lost connection; the session stays usable.
  try {
    c->execute("GRANT SELECT ON `no_such_db`.`nope` TO `no_such_role`");
    FAIL("expected an error");
  } catch (const sr::SqlError& e) {
    CHECK_FALSE(e.connection_lost());
  }
  CHECK(c->query("SELECT 1").rows.size() == 1);

  // A killed session is a lost connection; reconnect() opens a fresh one.
  auto admin = open();
  const std::string id = cell(c->query("SELECT CONNECTION_ID()").rows.at(0), 0);
  admin->execute("KILL CONNECTION " + id);
  try {
    c->query("SELECT 1");
    FAIL("expected a lost connection");
  } catch (const sr::SqlError& e) {
    CHECK(e.connection_lost());
  }
  c->reconnect();
  CHECK(cell(c->query("SELECT CONNECTION_ID()").rows.at(0), 0) != id);

  // Wrong password: refused at once, reported, not retried as a lost connection.
  auto parsed = sr::parse_dsn(dsn());
  parsed.settings->password = "definitely-wrong";
  try {
    sr::connect(*parsed.settings, sr::Dialect::MySQL);
    FAIL("expected access denied");
  } catch (const sr::SqlError& e) {
    CHECK(e.code() == 1045);
    CHECK_FALSE(e.connection_lost());
  }
  // A port nobody listens on: a connection error after the DSN's retries.
  auto closed = sr::open_server("mysql://nobody@127.0.0.1:1?retries=1&backoff-ms=10&connect-timeout=2", std::nullopt,
                                sr::Dialect::MySQL, "p");
  CHECK_FALSE(closed.session.has_value());
  CHECK_FALSE(closed.invalid_input);
  CHECK(sr::open_server("mysql://u:secret@h:1", std::nullopt, sr::Dialect::MySQL, "p").invalid_input);
}

TEST_CASE("mariadb: apply converges, reads back, and a second apply runs nothing", "[.][starrocks-mariadb]") {
  REQUIRE_MARIADB();
  auto c = open();
  reset(*c);
  const sr::Plan plan = mysql_plan(demo_text());
  sr::ApplyResult first = sr::apply_plan(plan, *c, quick());
  INFO(first.errors.size() << " errors; first: " << (first.errors.empty() ? "" : first.errors[0]));
  REQUIRE(first.ok);
  CHECK(first.statements == first.planned.size());
  CHECK(first.statements > 0);
  CHECK(server_held(*c, plan.objects) == intended(plan));
  CHECK(at(server_held(*c, plan.objects), "member-sso", {"finance", "customers"}).empty());  // coarsened

  // The applier's own reader sees exactly the desired state.
  sr::LiveRead live = sr::read_live_state(*c, plan);
  CHECK(live.state.owned.roles == plan.desired.roles);
  CHECK(sr::diff_statements(plan, live.state).empty());

  sr::ApplyResult second = sr::apply_plan(plan, *c, quick());
  REQUIRE(second.ok);
  CHECK(second.planned.empty());
  CHECK(second.statements == 0);
  CHECK(second.executed.empty());
}

TEST_CASE("mariadb: atom roles within max_roles_per_user give the server the same privileges",
          "[.][starrocks-mariadb]") {
  REQUIRE_MARIADB();
  auto c = open();
  reset(*c);
  const sr::Plan open_plan = mysql_plan(demo_text(), 1000000);
  REQUIRE(sr::apply_plan(open_plan, *c, quick()).ok);
  const Held held_open = server_held(*c, open_plan.objects);
  CHECK(held_open == intended(open_plan));
  // From the open plan to a cap of 3 (one inherited role: the demo's atoms take the rest's grants),
  // then 2 (none), then back: each converges to the same privileges, read back as planned.
  for (std::size_t cap : {3, 2, 1000000}) {
    INFO("max_roles_per_user " << cap);
    const sr::Plan plan = mysql_plan(demo_text(), cap);
    if (cap < 1000000) {
      bool capped = false;
      for (const auto& f : plan.findings) capped = capped || f.code == "starrocks_roles_capped";
      CHECK(capped);
    }
    sr::ApplyResult r = sr::apply_plan(plan, *c, quick());
    INFO((r.errors.empty() ? "" : r.errors[0]));
    REQUIRE(r.ok);
    CHECK(server_held(*c, plan.objects) == held_open);
    sr::LiveRead live = sr::read_live_state(*c, plan);
    CHECK(live.state.owned.roles == plan.desired.roles);
    CHECK(sr::diff_statements(plan, live.state).empty());
  }
}

TEST_CASE("mariadb: bundle roles over max_roles_per_user give the server the same privileges",
          "[.][starrocks-mariadb]") {
  REQUIRE_MARIADB();
  auto c = open();
  reset(*c);
  // Users in groups, each table read by a few groups (sr_test_helpers.h): at a cap of 8 or 14
  // their atom roles inherit through bundle roles.
  constexpr int kUsers = 24, kTables = 80;
  c->execute("CREATE DATABASE IF NOT EXISTS `s`");
  for (int t = 0; t < kTables; ++t)
    c->execute("CREATE TABLE IF NOT EXISTS `s`.`t" + std::to_string(t) + "` (id BIGINT)");
  for (int u = 0; u < kUsers; ++u) c->execute("CREATE USER IF NOT EXISTS 'u" + std::to_string(u) + "'@'%'");
  const tw::PolicySet ps = matrix_policy_set(grouped_access(0, kUsers, 8, kTables));
  const sr::Plan open_plan = plan_ok(ps, {sr::Dialect::MySQL, {}, 1000000});
  REQUIRE(sr::apply_plan(open_plan, *c, quick()).ok);
  const Held held_open = server_held(*c, open_plan.objects);
  CHECK(held_open == intended(open_plan));
  for (std::size_t cap : {8, 14, 1000000}) {
    INFO("max_roles_per_user " << cap);
    const sr::Plan plan = plan_ok(ps, {sr::Dialect::MySQL, {}, cap});
    CHECK(bundle_roles(plan, open_plan).empty() == (cap == 1000000));
    sr::ApplyResult r = sr::apply_plan(plan, *c, quick());
    INFO((r.errors.empty() ? "" : r.errors[0]));
    REQUIRE(r.ok);
    CHECK(server_held(*c, plan.objects) == held_open);
    sr::LiveRead live = sr::read_live_state(*c, plan);
    CHECK(live.state.owned.roles == plan.desired.roles);  // bundle roles read back as owned
    CHECK(sr::diff_statements(plan, live.state).empty());
  }
  reset(*c);
  for (int u = 0; u < kUsers; ++u) c->execute("DROP USER IF EXISTS 'u" + std::to_string(u) + "'@'%'");
  c->execute("DROP DATABASE IF EXISTS `s`");
}

namespace {

// From old_text to new_text, cut before every statement index in turn.
void check_cuts(sr::Connection* c, sr::Connection* admin, const std::string& old_text, const std::string& new_text,
                bool& saw_revoke, bool& saw_drop, std::pair<int, int>& inheritance_changes) {
  const sr::Plan old_plan = mysql_plan(old_text);
  const sr::Plan new_plan = mysql_plan(new_text);
  const Held old_held = intended(old_plan), new_held = intended(new_plan);

  reset(*c);
  REQUIRE(sr::apply_plan(old_plan, *c, quick()).ok);
  const auto full = sr::diff_statements(new_plan, sr::read_live_state(*c, new_plan).state);
  REQUIRE(full.size() >= 4);
  // Tightening strictly precedes widening.
  std::size_t last_revoke = 0, first_grant = full.size();
  for (std::size_t i = 0; i < full.size(); ++i) {
    if (full[i].sql.rfind("REVOKE", 0) == 0) last_revoke = i;
    if (full[i].sql.rfind("GRANT", 0) == 0) first_grant = std::min(first_grant, i);
  }
  CHECK(last_revoke < first_grant);
  CHECK(first_grant < full.size());
  for (const auto& s : full) {
    // REVOKE `role` FROM `role` (an inheritance) rather than FROM 'user'@'%' or a privilege
    const bool role_to_role = s.sql.find("` FROM `") != std::string::npos || s.sql.find("` TO `") != std::string::npos;
    if (role_to_role && s.sql.rfind("REVOKE `", 0) == 0) ++inheritance_changes.first;
    if (role_to_role && s.sql.rfind("GRANT `", 0) == 0) ++inheritance_changes.second;
    saw_revoke = saw_revoke || s.sql.rfind("REVOKE", 0) == 0;
    saw_drop = saw_drop || s.sql.rfind("DROP ROLE", 0) == 0;
  }

  for (std::size_t k = 0; k < full.size(); ++k) {
    INFO("cut before statement " << k << ": " << full[k].sql);
    reset(*c);
    c->reconnect();
    REQUIRE(sr::apply_plan(old_plan, *c, quick()).ok);
    const std::string id = cell(c->query("SELECT CONNECTION_ID()").rows.at(0), 0);
    std::size_t seen = 0;
    sr::ApplyOptions o = quick(0);
    o.verify = false;
    o.before_statement = [&](const std::string&) {
      if (seen++ == k) admin->execute("KILL CONNECTION " + id);
    };
    sr::ApplyResult cut = sr::apply_plan(new_plan, *c, o);
    CHECK_FALSE(cut.ok);
    CHECK(cut.statements == k);

    // Every user holds, on every object, a subset of the old or of the new policy: nothing in neither.
    const Held now = server_held(*admin, new_plan.objects);
    for (const auto& [u, objects] : now) {
      for (const auto& [key, privs] : objects) {
        std::set<std::string> either = at(old_held, u, key);
        const auto n = at(new_held, u, key);
        either.insert(n.begin(), n.end());
        INFO(u << " on " << key.first << "." << key.second);
        CHECK(std::includes(either.begin(), either.end(), privs.begin(), privs.end()));
      }
      // Stronger, per user: while tightening, within the old policy; once widening, within the new.
      bool within_old = true, within_new = true;
      for (const auto& [key, privs] : objects) {
        const auto o_ = at(old_held, u, key), n_ = at(new_held, u, key);
        within_old = within_old && std::includes(o_.begin(), o_.end(), privs.begin(), privs.end());
        within_new = within_new && std::includes(n_.begin(), n_.end(), privs.begin(), privs.end());
      }
      INFO("user " << u);
      CHECK((within_old || within_new));
    }

    // Resume: the next run converges and the one after runs nothing.
    c->reconnect();
    sr::ApplyResult resumed = sr::apply_plan(new_plan, *c, quick());
    REQUIRE(resumed.ok);
    CHECK(server_held(*admin, new_plan.objects) == new_held);
    CHECK(sr::apply_plan(new_plan, *c, quick()).statements == 0);
  }

  // Within one run: a cut is survived by reconnecting, re-reading and continuing.
  for (std::size_t k = 0; k < full.size(); k += 3) {
    reset(*c);
    c->reconnect();
    REQUIRE(sr::apply_plan(old_plan, *c, quick()).ok);
    std::size_t seen = 0;
    sr::ApplyOptions o = quick(2);
    o.before_statement = [&](const std::string&) {
      if (seen++ == k) admin->execute("KILL CONNECTION " + cell(c->query("SELECT CONNECTION_ID()").rows.at(0), 0));
    };
    sr::ApplyResult r = sr::apply_plan(new_plan, *c, o);
    INFO("cut at " << k);
    CHECK(r.ok);
    CHECK(r.attempts == 2);
    CHECK(r.notes.size() == 1);
    CHECK(server_held(*admin, new_plan.objects) == new_held);
  }
}

}  // namespace

TEST_CASE("mariadb: a cut at every statement never widens, and the next run converges", "[.][starrocks-mariadb]") {
  REQUIRE_MARIADB();
  auto c = open();
  auto admin = open();
  bool saw_revoke = false, saw_drop = false;
  std::pair<int, int> inheritance_changes;  // role-to-role revokes, grants
  // member-sso loses customers and platform-admin gains analyst's reads; then back again.
  check_cuts(c.get(), admin.get(), changed_demo(), demo_text(), saw_revoke, saw_drop, inheritance_changes);
  check_cuts(c.get(), admin.get(), demo_text(), changed_demo(), saw_revoke, saw_drop, inheritance_changes);
  INFO("role-to-role revokes " << inheritance_changes.first << ", grants " << inheritance_changes.second);
  CHECK(inheritance_changes.first > 0);  // atom roles lose and gain inherited roles: cut too
  CHECK(inheritance_changes.second > 0);
  CHECK(saw_revoke);  // memberships and privileges revoked, roles dropped: every kind was cut
  CHECK(saw_drop);
}

TEST_CASE("mariadb: drift is reported with the exact grant, and grants tagwarden does not own are untouched",
          "[.][starrocks-mariadb]") {
  REQUIRE_MARIADB();
  auto c = open();
  reset(*c);
  // Foreign state: a direct grant that bypasses the Confidential gate, a foreign role held by
  // farid, and another profile's tw_ role.
  c->execute("GRANT SELECT ON `finance`.`invoices` TO 'member-sso'@'%'");
  c->execute("CREATE ROLE `test_foreign`");
  c->execute("GRANT SELECT ON `sales`.`orders` TO `test_foreign`");
  c->execute("GRANT `test_foreign` TO 'platform-admin'@'%'");
  c->execute("CREATE ROLE `tw_deadbeef_rother`");
  c->execute("GRANT SELECT ON `finance`.`audit_log` TO `tw_deadbeef_rother`");
  c->execute("GRANT `tw_deadbeef_rother` TO 'jo.kim'@'%'");

  const sr::Plan plan = mysql_plan(changed_demo());  // platform-admin holds no analyst here
  sr::ApplyResult r = sr::apply_plan(plan, *c, quick());
  REQUIRE(r.ok);
  std::vector<std::string> drift;
  for (const auto& f : r.findings) {
    if (f.code == "starrocks_drift") drift.push_back(f.message);
  }
  REQUIRE(drift.size() == 2);
  const auto has = [&](const std::string& needle) {
    return std::any_of(drift.begin(), drift.end(),
                       [&](const std::string& m) { return m.find(needle) != std::string::npos; });
  };
  CHECK(
      has("GRANT SELECT ON `finance`.`invoices` TO 'member-sso'@'%' gives member-sso SELECT on "
          "default_catalog.finance.invoices"));
  CHECK(has("not cleared for Confidential"));
  CHECK(
      has("GRANT SELECT ON `sales`.`orders` TO `test_foreign` (held by 'platform-admin'@'%' through role "
          "test_foreign)"));

  // None of it was touched.
  const Held held = server_held(*c, plan.objects);
  CHECK(at(held, "member-sso", {"finance", "invoices"}) == std::set<std::string>{"SELECT"});
  CHECK(at(held, "platform-admin", {"sales", "orders"}) == std::set<std::string>{"SELECT"});
  auto roles = c->query("SELECT Role FROM mysql.roles_mapping WHERE User = 'jo.kim' AND Host = '%'");
  bool other = false;
  for (const auto& row : roles.rows) other = other || cell(row, 0) == "tw_deadbeef_rother";
  CHECK(other);
  CHECK(sr::apply_plan(plan, *c, quick()).statements == 0);
  reset(*c);
}

// Grants made by hand to the roles tagwarden owns are tagwarden's to take back: a privilege
// mysql.tables_priv spells otherwise than REVOKE (Grant, with GRANT OPTION), a database-level
// privilege outside tagwarden's vocabulary, a global grant (*.*), and the owned role granted to a
// foreign role (whose holders would get its grants). Each used to stop or escape the apply.
TEST_CASE("mariadb: hand-made grants to owned roles are revoked, whatever their kind", "[.][starrocks-mariadb]") {
  REQUIRE_MARIADB();
  auto c = open();
  reset(*c);
  const sr::Plan plan = mysql_plan(demo_text());
  REQUIRE(sr::apply_plan(plan, *c, quick()).ok);
  const Held before = server_held(*c, plan.objects);
  std::string owned;
  for (const auto& [name, role] : plan.desired.roles) {
    if (!role.grants.empty()) owned = name;
  }
  REQUIRE_FALSE(owned.empty());
  const std::string r = "`" + owned + "`";
  c->execute("GRANT INDEX ON `finance`.`invoices` TO " + r + " WITH GRANT OPTION");
  c->execute("GRANT EXECUTE, SHOW VIEW ON `sales`.* TO " + r);
  c->execute("GRANT SELECT ON *.* TO " + r);
  c->execute("GRANT SELECT (`iban`), UPDATE (`iban`) ON `finance`.`customers` TO " + r);
  c->execute("GRANT SELECT (`iban`) ON `finance`.`customers` TO 'member-sso'@'%'");
  c->execute("CREATE ROLE `test_holder`");
  c->execute("GRANT " + r + " TO `test_holder`");
  c->execute("GRANT `test_holder` TO 'member-sso'@'%'");
  c->execute("CREATE USER IF NOT EXISTS 'test_local'@'localhost'");
  c->execute("GRANT " + r + " TO 'test_local'@'localhost'");
  // Revoked as written: a wildcard pattern, an unescaped _ (re-escaped, its REVOKE names another
  // grant and is refused), routines. An admin option goes, a wanted membership stays.
  c->execute("GRANT SELECT ON `fin%`.* TO " + r);
  c->execute("GRANT INSERT ON `under_score`.* TO " + r);
  c->execute("GRANT DELETE ON `under\\_score`.* TO " + r);
  c->execute("CREATE PROCEDURE IF NOT EXISTS `finance`.`test_proc`() SELECT 1");
  c->execute("CREATE FUNCTION IF NOT EXISTS `finance`.`test_fn`() RETURNS INT RETURN 1");
  c->execute("GRANT EXECUTE, ALTER ROUTINE ON PROCEDURE `finance`.`test_proc` TO " + r + " WITH GRANT OPTION");
  c->execute("GRANT EXECUTE ON FUNCTION `finance`.`test_fn` TO " + r);
  std::string member_role, member, holder_role, inherited_role;
  for (const auto& [name, role] : plan.desired.roles) {
    if (!role.members.empty()) member_role = name, member = *role.members.begin();
    if (!role.roles.empty()) holder_role = name, inherited_role = *role.roles.begin();
  }
  REQUIRE_FALSE(member.empty());
  REQUIRE_FALSE(holder_role.empty());
  c->execute("GRANT `" + member_role + "` TO " + sr::sql::user_identity(member) + " WITH ADMIN OPTION");
  c->execute("GRANT `" + inherited_role + "` TO `" + holder_role + "` WITH ADMIN OPTION");

  sr::ApplyResult fixed = sr::apply_plan(plan, *c, quick());
  INFO((fixed.errors.empty() ? std::string() : fixed.errors[0]));
  REQUIRE(fixed.ok);
  CHECK(fixed.statements >= 4);
  const sr::LiveRead live = sr::read_live_state(*c, plan);
  CHECK(live.state.owned.roles == plan.desired.roles);
  CHECK(server_held(*c, plan.objects) == before);
  CHECK(
      c->query("SELECT 1 FROM mysql.roles_mapping WHERE User = 'test_holder' AND Role = '" + owned + "'").rows.empty());
  CHECK(c->query("SELECT 1 FROM mysql.user WHERE User = '" + owned + "' AND Select_priv = 'Y'").rows.empty());
  CHECK(c->query("SELECT 1 FROM mysql.columns_priv WHERE User = '" + owned + "'").rows.empty());
  CHECK(c->query("SELECT 1 FROM mysql.roles_mapping WHERE User = 'test_local'").rows.empty());
  CHECK(c->query("SELECT 1 FROM mysql.db WHERE User = '" + owned +
                 "' AND Db IN ('fin%', 'under_score', 'under\\\\_score')")
            .rows.empty());
  CHECK(c->query("SELECT 1 FROM mysql.procs_priv WHERE User = '" + owned + "'").rows.empty());
  CHECK(c->query("SELECT 1 FROM mysql.roles_mapping WHERE Role LIKE 'tw\\_%' AND Admin_option = 'Y' AND Host IN "
                 "('%', '')")
            .rows.empty());
  CHECK(c->query("SELECT 1 FROM mysql.roles_mapping WHERE Role = '" + member_role +
                 "' AND Host = '%' AND User = " + sr::sql::literal(member))
            .rows.size() == 1);
  // The user's own column grant is not tagwarden's: reported, left alone.
  CHECK(std::any_of(fixed.findings.begin(), fixed.findings.end(), [](const tw::Finding& f) {
    return f.code == "starrocks_drift" &&
           f.message.find("GRANT SELECT (`iban`) ON `finance`.`customers` TO 'member-sso'@'%'") != std::string::npos;
  }));
  CHECK(sr::apply_plan(plan, *c, quick()).statements == 0);
  c->execute("DROP ROLE `test_holder`");
  c->execute("DROP USER 'test_local'@'localhost'");
  c->execute("DROP PROCEDURE `finance`.`test_proc`");
  c->execute("DROP FUNCTION `finance`.`test_fn`");
  reset(*c);
}

TEST_CASE("mariadb: hostile names round-trip through the server", "[.][starrocks-mariadb]") {
  REQUIRE_MARIADB();
  auto c = open();
  reset(*c);
  // run_mariadb.sh created these databases, tables and users.
  const std::string snapshot = R"({
    "version": 1, "generated_at": "2026-11-30T12:00:00Z",
    "users": [{"name": "o'brien"}, {"name": "back\\slash"}, {"name": "tick`tock"}, {"name": "50%off"},
              {"name": "under_score"}, {"name": "\u00fcn\u00efc\u00f8d\u00e9"}, {"name": "semi;colon --"}],
    "roles": ["reader", "cleared", "maker"],
    "role_assignments": [
      {"role": "reader", "user": "o'brien"}, {"role": "reader", "user": "back\\slash"},
      {"role": "reader", "user": "tick`tock"}, {"role": "reader", "user": "50%off"},
      {"role": "reader", "user": "under_score"}, {"role": "reader", "user": "\u00fcn\u00efc\u00f8d\u00e9"},
      {"role": "reader", "user": "semi;colon --"}, {"role": "cleared", "user": "o'brien"},
      {"role": "maker", "user": "under_score"}],
    "classifications": [{"name": "Secret", "clearance": [{"type": "role", "name": "cleared"}]}],
    "objects": [
      {"name": "h.we`ird'db_%.t`a'b%_le", "columns": [{"name": "id", "type": "bigint"},
                                                     {"name": "s`e'cret", "type": "varchar", "tags": ["Secret"]}]},
      {"name": "h.under_score.plain", "columns": [{"name": "id", "type": "bigint"}]}],
    "grants": [
      {"principal": {"role": "reader"}, "object": "h.*.*", "privileges": ["SELECT", "INSERT"]},
      {"principal": {"role": "maker"}, "object": "h.under_score.*", "privileges": ["OWNERSHIP"]}]
  })";
  auto m = model_from_text(snapshot);
  tw::Profile p;
  p.name = "hostile";
  p.engine = tw::Engine::StarRocks;
  p.catalogs = {"h"};
  p.catalog_map = {{"h", "default_catalog"}};
  p.withhold_writes = false;
  p.restrict_materialized_views = false;
  const sr::Plan plan = plan_ok(compile_ok(*m, p), {sr::Dialect::MySQL, {}});
  sr::ApplyResult r = sr::apply_plan(plan, *c, quick());
  INFO((r.errors.empty() ? "" : r.errors[0]));
  REQUIRE(r.ok);
  const Held held = server_held(*c, plan.objects);
  CHECK(held == intended(plan));
  CHECK(at(held, "o'brien", {"we`ird'db_%", "t`a'b%_le"}) == std::set<std::string>{"SELECT", "INSERT"});
  CHECK(at(held, "tick`tock", {"we`ird'db_%", "t`a'b%_le"}) == std::set<std::string>{"INSERT"});  // coarsened
  CHECK(at(held,
           "\xc3\xbc"
           "n"
           "\xc3\xaf"
           "c"
           "\xc3\xb8"
           "d"
           "\xc3\xa9",
           {"under_score", "plain"}) == std::set<std::string>{"SELECT", "INSERT"});
  // CREATE on `under_score`.* is stored escaped: it does not reach underXscore.
  auto rows = c->query("SELECT Db FROM mysql.db WHERE Host = '' AND Create_priv = 'Y'").rows;
  REQUIRE(rows.size() == 1);
  CHECK(cell(rows[0], 0) == "under\\_score");
  CHECK(sr::apply_plan(plan, *c, quick()).statements == 0);
  reset(*c);
}

TEST_CASE("mariadb: withdrawing memberships takes every user out of the owned roles and widens nothing",
          "[.][starrocks-mariadb]") {
  REQUIRE_MARIADB();
  auto c = open();
  reset(*c);
  const sr::Plan plan = mysql_plan(demo_text());
  REQUIRE(sr::apply_plan(plan, *c, quick()).ok);
  REQUIRE_FALSE(server_held(*c, plan.objects).empty());
  const sr::OwnedState applied = sr::read_live_state(*c, plan).state.owned;
  // A grant tagwarden does not own, and a role another profile owns: neither is touched.
  c->execute("GRANT SELECT ON finance.audit_log TO 'member-sso'@'%'");
  c->execute("CREATE ROLE test_other_profile");
  c->execute("GRANT SELECT ON sales.orders TO test_other_profile");
  c->execute("GRANT test_other_profile TO 'grace.lee'@'%'");

  const sr::ApplyResult w = sr::withdraw_memberships(*c, sr::Dialect::MySQL, plan.profile, quick());
  INFO((w.errors.empty() ? "" : w.errors[0]));
  REQUIRE(w.ok);
  CHECK(w.statements > 0);
  for (const auto& sql : w.executed) {
    INFO(sql);
    CHECK(sql.rfind("REVOKE `" + plan.prefix, 0) == 0);
    CHECK(sql.find("'@'%'") != std::string::npos);  // from a user, never from a role
  }
  const Held held = server_held(*c, plan.objects);
  CHECK(held == Held{{"member-sso", {{{"finance", "audit_log"}, {"SELECT"}}}},
                     {"grace.lee", {{{"sales", "orders"}, {"SELECT"}}}}});
  // The owned roles keep their grants and the roles they inherit; only members are gone.
  const sr::OwnedState after = sr::read_live_state(*c, plan).state.owned;
  REQUIRE(after.roles.size() == applied.roles.size());
  for (const auto& [name, role] : applied.roles) {
    INFO(name);
    REQUIRE(after.roles.count(name));
    CHECK(after.roles.at(name).grants == role.grants);
    CHECK(after.roles.at(name).roles == role.roles);
    CHECK(after.roles.at(name).members.empty());
  }
  CHECK(sr::withdraw_memberships(*c, sr::Dialect::MySQL, plan.profile, quick()).statements == 0);

  // The next apply grants again what the policy allows.
  REQUIRE(sr::apply_plan(plan, *c, quick()).ok);
  Held expected = intended(plan);
  expected["member-sso"][{"finance", "audit_log"}].insert("SELECT");
  expected["grace.lee"][{"sales", "orders"}].insert("SELECT");
  CHECK(server_held(*c, plan.objects) == expected);
  reset(*c);
}
