// The live-state readers (both dialects) against a recorded server: a fake Connection answers each
// query the reader runs with rows as MariaDB / StarRocks return them. What is owned (exact name
// shapes only) and what reaches a user from outside tagwarden (directly, through roles granted to
// roles, through PUBLIC) for drift.

#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../starrocks/sr_test_helpers.h"
#include "tagwarden/engines/starrocks/live_state.h"
#include "tagwarden/engines/starrocks/sql.h"

using namespace srtest;
namespace sr = tw::starrocks;

namespace {

// Answers a query with the rows recorded for the first key it contains; anything else is empty.
class RecordedServer : public sr::Connection {
 public:
  std::map<std::string, std::vector<sr::Row>> answers;
  std::map<std::string, std::vector<std::string>> columns;  // by the same keys, for SELECT *
  std::vector<std::string> executed;
  void execute(const std::string& sql) override { executed.push_back(sql); }
  sr::Rows query(const std::string& sql) override {
    for (const auto& [key, rows] : answers) {
      if (sql.find(key) != std::string::npos) return {columns[key], rows};
    }
    return {};
  }
  void reconnect() override {}
  std::string describe() const override { return "recorded"; }
};

sr::Plan demo_plan(sr::Dialect d) { return plan_ok(demo_policy_set(), {d, {}}); }

// A MariaDB whose mysql.* tables hold `roles` (is_role) and the demo's users at host %.
RecordedServer mariadb(const std::vector<std::string>& roles) {
  RecordedServer s;
  std::vector<sr::Row> users = {{"applier", "127.0.0.1", "N"}};
  for (const char* u : {"member-sso", "etl_svc", "farid.haddad", "platform-admin", "grace.lee", "jo.kim"}) {
    users.push_back({u, "%", "N"});
  }
  for (const auto& r : roles) users.push_back({r, "", "Y"});
  s.answers["CURRENT_USER()"] = {{"applier@127.0.0.1"}};
  s.answers["is_role FROM mysql.user"] = users;
  return s;
}

std::vector<std::string> drift_messages(const sr::Plan& plan, const sr::LiveRead& live) {
  std::vector<std::string> out;
  for (const auto& f : sr::drift_findings(plan, live.foreign)) {
    if (f.code == "starrocks_drift") out.push_back(f.message);
  }
  return out;
}

bool any_has(const std::vector<std::string>& v, const std::string& needle) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& m) { return m.find(needle) != std::string::npos; });
}

}  // namespace

TEST_CASE("starrocks live state: only the exact owned name shapes are owned") {
  for (const auto d : {sr::Dialect::MySQL, sr::Dialect::StarRocks}) {
    const sr::Plan plan = demo_plan(d);
    const std::string p = plan.prefix;
    // Every name the renderer makes has the shape the reader owns.
    for (const auto& [name, role] : plan.desired.roles) {
      INFO(name);
      CHECK((name.size() == p.size() + 17 && (name[p.size()] == 'r' || name[p.size()] == 'a')));
    }
    const std::string holder = plan.desired.roles.begin()->first;
    const std::vector<std::string> hand_made = {
        p + "zzz", p + "r", p + "rother", p + "r0123456789abcdef0", p + "R0123456789ABCDEF", p + "m0123456789abcdef"};
    RecordedServer s;
    if (d == sr::Dialect::MySQL) {
      std::vector<std::string> roles = hand_made;
      roles.push_back(holder);
      s = mariadb(roles);
      std::vector<sr::Row> mapping = {{"member-sso", "%", holder}}, tables;
      for (const auto& r : hand_made) {
        mapping.push_back({"member-sso", "%", r});
        tables.push_back({r, "", "finance", "invoices", "Select"});
      }
      s.answers["mysql.roles_mapping"] = mapping;
      s.answers["mysql.tables_priv"] = tables;
    } else {
      std::vector<sr::Row> roles = {{holder}}, edges = {{holder, std::nullopt, "'member-sso'@'%'"}}, grants;
      for (const auto& r : hand_made) {
        roles.push_back({r});
        edges.push_back({r, std::nullopt, "'member-sso'@'%'"});
        grants.push_back({r, "default_catalog", "finance", "invoices", "TABLE", "SELECT"});
      }
      s.answers["SHOW ROLES"] = roles;
      s.answers["SHOW USERS"] = {{"'member-sso'@'%'"}};
      s.answers["sys.role_edges"] = edges;
      s.answers["sys.grants_to_roles"] = grants;
    }
    const sr::LiveRead live = sr::read_live_state(s, plan);
    INFO(sr::to_string(d));
    // The owned role is read; the hand-made ones are not owned, so never revoked or dropped...
    CHECK(live.state.owned.roles.size() == 1);
    CHECK(live.state.owned.roles.count(holder));
    for (const auto& r : hand_made) CHECK_FALSE(live.state.owned.roles.count(r));
    for (const auto& st : sr::diff_statements(plan, live.state)) {
      for (const auto& r : hand_made) {
        INFO(st.sql);
        CHECK(st.sql.find(sr::sql::ident(r)) == std::string::npos);
      }
    }
    // ...but reported: they give member-sso SELECT on the gated invoices.
    const auto drift = drift_messages(plan, live);
    CHECK(drift.size() == hand_made.size());
    CHECK(any_has(drift, "through role " + p + "zzz"));
  }
}

TEST_CASE("starrocks live state: grants reaching users through PUBLIC and roles granted to roles are drift") {
  SECTION("MariaDB: PUBLIC, a chain of roles with a cycle, a foreign role granted to an owned role") {
    const sr::Plan plan = demo_plan(sr::Dialect::MySQL);
    const std::string holder = plan.desired.roles.begin()->first;
    RecordedServer s = mariadb({"PUBLIC", "foreign_role", "outer_r", "loop_r", "sneaky_r", holder});
    s.answers["mysql.roles_mapping"] = {
        // User, Host, Role. The applier's admin row from CREATE ROLE; then Host '' with a role as User:
        // that role inherits Role.
        {"applier", "127.0.0.1", "outer_r"},
        {"outer_r", "", "foreign_role"},
        {"foreign_role", "", "loop_r"},
        {"loop_r", "", "outer_r"},  // a cycle
        {holder, "", "sneaky_r"},   // a foreign role granted to an owned role
        {"etl_svc", "%", "outer_r"},
        {"grace.lee", "%", holder}};
    s.answers["mysql.tables_priv"] = {{"PUBLIC", "", "finance", "invoices", "Select"},
                                      {"foreign_role", "", "finance", "invoices", "Select"},
                                      {"sneaky_r", "", "finance", "customers", "Select,Insert"}};
    const sr::LiveRead live = sr::read_live_state(s, plan);
    const auto drift = drift_messages(plan, live);
    // PUBLIC reaches every user of the plan that is not cleared for invoices.
    CHECK(any_has(drift,
                  "GRANT SELECT ON `finance`.`invoices` TO PUBLIC (held by 'member-sso'@'%' through role "
                  "PUBLIC, which every user holds) gives member-sso SELECT on default_catalog.finance.invoices"));
    CHECK(any_has(drift, "TO PUBLIC (held by 'jo.kim'@'%'"));
    CHECK(any_has(drift,
                  "GRANT SELECT ON `finance`.`invoices` TO `foreign_role` (held by 'etl_svc'@'%' through "
                  "roles outer_r -> foreign_role)"));
    CHECK(any_has(drift,
                  "GRANT SELECT, INSERT ON `finance`.`customers` TO `sneaky_r` (held by 'grace.lee'@'%' "
                  "through roles " +
                      holder + " -> sneaky_r)"));
    // The owned role's inheritance of a foreign role is not owned state: never revoked.
    CHECK(live.state.owned.roles.at(holder).roles.empty());
    for (const auto& st : sr::diff_statements(plan, live.state)) CHECK(st.sql.find("sneaky_r") == std::string::npos);
  }
  SECTION("StarRocks: the built-in public role, a role granted to a role") {
    const sr::Plan plan = demo_plan(sr::Dialect::StarRocks);
    RecordedServer s;
    s.answers["SHOW ROLES"] = {{"public"}, {"root"}, {"foreign_role"}, {"outer_r"}};
    s.answers["SHOW USERS"] = {{"'member-sso'@'%'"}, {"'etl_svc'@'%'"}, {"'root'@'%'"}};
    s.answers["sys.role_edges"] = {{"foreign_role", "outer_r", std::nullopt},
                                   {"outer_r", "foreign_role", std::nullopt},  // a cycle
                                   {"outer_r", std::nullopt, "'etl_svc'@'%'"},
                                   {"root", std::nullopt, "'root'@'%'"}};
    s.answers["sys.grants_to_roles"] = {
        {"public", "default_catalog", "finance", "invoices", "TABLE", "SELECT"},
        {"public", "default_catalog", "information_schema", std::nullopt, "TABLE", "SELECT"},
        {"foreign_role", "default_catalog", "finance", "invoices", "TABLE", "SELECT"}};
    const sr::LiveRead live = sr::read_live_state(s, plan);
    const auto drift = drift_messages(plan, live);
    CHECK(any_has(drift,
                  "GRANT SELECT ON TABLE `finance`.`invoices` TO ROLE `public` (held by 'member-sso'@'%' "
                  "through role public, which every user holds) gives member-sso SELECT"));
    CHECK(any_has(drift,
                  "GRANT SELECT ON TABLE `finance`.`invoices` TO ROLE `foreign_role` (held by "
                  "'etl_svc'@'%' through roles outer_r -> foreign_role)"));
    // Grants on objects the plan does not list are not copied per user.
    for (const auto& g : live.foreign) CHECK(g.on.database == "finance");
  }
}

TEST_CASE("starrocks live state: what an owned role holds that cannot be revoked exactly is drift") {
  const sr::Plan plan = demo_plan(sr::Dialect::StarRocks);
  const std::string holder = plan.desired.roles.begin()->first;
  RecordedServer s;
  s.answers["SHOW ROLES"] = {{"public"}, {holder}};
  s.answers["SHOW USERS"] = {{"'member-sso'@'%'"}};
  s.answers["sys.grants_to_roles"] = {{holder, std::nullopt, std::nullopt, std::nullopt, "SYSTEM", "GRANT, NODE", "NO"},
                                      {holder, "default_catalog", "finance", "invoices", "TABLE", "SELECT", "YES"},
                                      {holder, "default_catalog", "finance", "customers", "TABLE", "SELECT", "NO"}};
  const sr::LiveRead live = sr::read_live_state(s, plan);
  REQUIRE(live.owned_drift.size() == 2);
  for (const auto& f : live.owned_drift) {
    CHECK(f.code == "starrocks_drift");
    CHECK(f.message.find("owned role " + holder + " holds ") == 0);
  }
  CHECK(
      any_has({live.owned_drift[0].message}, "holds GRANT, NODE on SYSTEM, an object kind tagwarden never grants on"));
  CHECK(any_has({live.owned_drift[1].message},
                "holds SELECT on default_catalog.finance.invoices WITH GRANT OPTION: its holders may grant it"));
  // The grants of the kinds it makes are still read (and revoked when not wanted).
  CHECK(live.state.owned.roles.at(holder).grants.size() == 2);
}

TEST_CASE("mysql live state: wildcard database grants, routines and admin options of owned roles are revoked") {
  const sr::Plan plan = demo_plan(sr::Dialect::MySQL);
  std::string member_role, member;
  for (const auto& [name, role] : plan.desired.roles) {
    if (!role.members.empty()) member_role = name, member = *role.members.begin();
  }
  REQUIRE_FALSE(member.empty());
  RecordedServer s = mariadb({member_role});
  s.answers["mysql.roles_mapping"] = {{member, "%", member_role, "Y"}};
  s.answers["mysql.procs_priv"] = {{member_role, "", "finance", "p`1", "PROCEDURE", "Execute,Grant"}};
  s.answers["FROM mysql.db"] = {{member_role, "", "fin%", "Y"}, {member_role, "", "under\\_score", "Y"}};
  s.columns["FROM mysql.db"] = {"User", "Host", "Db", "Select_priv"};
  const sr::LiveRead live = sr::read_live_state(s, plan);
  const auto statements = sr::diff_statements(plan, live.state);
  auto has = [&](const std::string& sql) {
    return std::any_of(statements.begin(), statements.end(), [&](const sr::Statement& st) { return st.sql == sql; });
  };
  CHECK(has("REVOKE ADMIN OPTION FOR `" + member_role + "` FROM " + sr::sql::user_identity(member)));
  CHECK(has("REVOKE EXECUTE, GRANT OPTION ON PROCEDURE `finance`.`p``1` FROM `" + member_role + "`"));
  CHECK(has("REVOKE SELECT ON `fin%`.* FROM `" + member_role + "`"));
  CHECK(has("REVOKE SELECT ON `under\\_score`.* FROM `" + member_role + "`"));
  // The membership is wanted: kept, without the option.
  CHECK_FALSE(has("REVOKE " + sr::sql::ident(member_role) + " FROM " + sr::sql::user_identity(member)));
}
