// PolicySet -> StarRocks plan (engines/starrocks/plan.h): the demo as golden
// files, compact roles, coarsening, masks, creation rights, hostile names,
// tighten-before-widen ordering, and the per-tag policy limit.

#include <algorithm>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../starrocks/sr_test_helpers.h"
#include "tagwarden/engines/registry.h"
#include "tagwarden/engines/starrocks/artifact.h"
#include "tagwarden/engines/starrocks/live_state.h"
#include "tagwarden/engines/starrocks/plan.h"
#include "tagwarden/engines/starrocks/sql.h"

using namespace srtest;
using nlohmann::json;
using tw::starrocks::Dialect;
using tw::starrocks::diff_statements;
using tw::starrocks::LiveState;
using tw::starrocks::Phase;
using tw::starrocks::Plan;
using tw::starrocks::PlanOptions;
using tw::starrocks::Statement;
using tw::starrocks::statements_text;

namespace {

const Securable::Kind T = Securable::Kind::Table;

Securable table(std::string db, std::string name, std::string catalog = "default_catalog",
                Securable::Kind kind = Securable::Kind::Table) {
  return {kind, std::move(catalog), std::move(db), std::move(name)};
}

std::set<std::string> held(const Effective& e, const std::string& user, const Securable& on) {
  auto u = e.find(user);
  if (u == e.end()) return {};
  auto o = u->second.find(on);
  return o == u->second.end() ? std::set<std::string>{} : o->second;
}

void check_golden(const std::string& name, const std::string& text) {
  const std::string path = source_path("tests/starrocks/golden/" + name);
  if (std::getenv("TAGWARDEN_UPDATE_GOLDEN")) {
    std::ofstream(path, std::ios::binary) << text;
    return;
  }
  INFO("golden " << path << " (regenerate with TAGWARDEN_UPDATE_GOLDEN=1)");
  CHECK(read_text(path) == text);
}

// The script of an empty server, written from the plan (the compile artifact), checked against the
// statements of the diff against an empty server, in text and in count.
std::string script(const Plan& plan) {
  const auto statements = diff_statements(plan, LiveState{});
  const std::string text = statements_text(plan, statements);
  CHECK(tw::starrocks::empty_server_script(plan) == text);
  CHECK(tw::starrocks::empty_server_statements(plan) == statements.size());
  return text;
}

// Every statement: names only inside quotes, nothing else but keywords and punctuation.
void check_quoting(const std::vector<Statement>& statements) {
  static const std::regex bare(R"(^[A-Za-z0-9_(),.*@;=>-]+$)");
  for (const auto& s : statements) {
    for (const auto& t : tokenize(s.sql)) {
      if (t.kind != Token::Kind::Bare) continue;
      INFO(s.sql << "\nbare token: " << t.text);
      CHECK(std::regex_match(t.text, bare));
    }
  }
}

bool any_token(const std::vector<Statement>& statements, Token::Kind kind, const std::string& text) {
  for (const auto& s : statements) {
    for (const auto& t : tokenize(s.sql)) {
      if (t.kind == kind && t.text == text) return true;
    }
  }
  return false;
}

json user(const std::string& name) { return {{"name", name}}; }

json column(const std::string& name, const std::string& type, json tags = json::array()) {
  json c = {{"name", name}, {"type", type}};
  if (!tags.empty()) c["tags"] = tags;
  return c;
}

tw::Profile sr_profile(std::vector<std::string> catalogs, std::string name = "sr",
                       std::map<std::string, std::string> map = {}) {
  tw::Profile p;
  p.name = std::move(name);
  p.engine = tw::Engine::StarRocks;
  p.catalogs = std::move(catalogs);
  p.catalog_map = std::move(map);
  return p;
}

// n users holding role `reader`, which may SELECT every table of c.s (`tables` of them).
json same_access_snapshot(int users, int tables) {
  json s = {{"version", 1}, {"generated_at", "2026-11-30T12:00:00Z"}, {"roles", {"reader"}}};
  for (int i = 0; i < users; ++i) {
    s["users"].push_back(user("u" + std::to_string(i)));
    s["role_assignments"].push_back({{"role", "reader"}, {"user", "u" + std::to_string(i)}});
  }
  for (int t = 0; t < tables; ++t) {
    s["objects"].push_back({{"name", "c.s.t" + std::to_string(t)}, {"columns", {column("id", "bigint")}}});
  }
  s["grants"] = {{{"principal", {{"role", "reader"}}}, {"object", "c.s.*"}, {"privileges", {"SELECT"}}}};
  return s;
}

}  // namespace

TEST_CASE("starrocks demo: golden plans for an empty server") {
  SECTION("internal catalog, starrocks dialect, no masking policies") {
    const Plan plan = plan_ok(demo_policy_set("starrocks_main"));
    check_golden("demo_starrocks_main.sql", script(plan));
  }
  SECTION("external catalog: grants run after SET CATALOG") {
    const Plan plan = plan_ok(demo_policy_set("starrocks_lake"));
    const std::string text = script(plan);
    check_golden("demo_starrocks_lake.sql", text);
    CHECK(text.find("SET CATALOG `demo_warehouse`;") != std::string::npos);
    CHECK(text.find("GRANT USAGE ON CATALOG `demo_warehouse`") != std::string::npos);
  }
  SECTION("masking policies available") {
    const Plan plan = plan_ok(demo_policy_set("starrocks_main"), {Dialect::StarRocks, {true}});
    check_golden("demo_starrocks_main_masks.sql", script(plan));
  }
  SECTION("mysql dialect (MariaDB tests)") {
    const Plan plan = plan_ok(demo_policy_set("starrocks_main"), {Dialect::MySQL, {true}});
    CHECK_FALSE(plan.capabilities.masking_policies);  // MySQL never masks
    check_golden("demo_mysql_main.sql", script(plan));
  }
  SECTION("the compile artifact is the plan without a server") {
    auto ps = demo_policy_set("starrocks_main");
    tw::RenderResult r = tw::render_artifact(ps);
    REQUIRE(r.artifact.has_value());
    CHECK(r.artifact->filename == "plan.sql");
    const Plan plan = plan_ok(ps);
    CHECK(r.artifact->rules == diff_statements(plan, LiveState{}).size());
    CHECK(r.artifact->bytes->find("warning: default_catalog.finance.customers has gated column iban") !=
          std::string::npos);
  }
}

TEST_CASE("starrocks demo: users hold exactly what the PolicySet gives them") {
  auto ps = demo_policy_set("starrocks_main");
  const Securable invoices = table("finance", "invoices"), customers = table("finance", "customers");
  const Securable summary = table("finance", "invoice_summary", "default_catalog", Securable::Kind::View);
  const Securable orders = table("sales", "orders");

  SECTION("coarsened: uncleared readers of a gated column lose the whole table, with a warning") {
    const Plan plan = plan_ok(ps);
    const Effective e = on_objects(effective(plan.desired));
    CHECK(e == plan.intended());
    CHECK(held(e, "member-sso", invoices).empty());   // Confidential on the table
    CHECK(held(e, "member-sso", customers).empty());  // iban is PII: coarsened
    CHECK(held(e, "member-sso", table("finance", "audit_log")) == std::set<std::string>{"SELECT"});
    CHECK(held(e, "farid.haddad", invoices) == std::set<std::string>{"SELECT", "INSERT", "UPDATE", "DELETE"});
    CHECK(held(e, "farid.haddad", customers) == std::set<std::string>{"SELECT", "INSERT", "UPDATE", "DELETE"});
    CHECK(held(e, "farid.haddad", summary) == std::set<std::string>{"SELECT"});
    CHECK(held(e, "platform-admin", orders) == std::set<std::string>{"SELECT"});
    CHECK(held(e, "platform-admin", customers).empty());
    // etl_svc is cleared for nothing: writes withheld on gated objects, OWNERSHIP -> ALTER, DROP elsewhere.
    CHECK(held(e, "etl_svc", orders) == std::set<std::string>{"SELECT", "INSERT", "UPDATE", "DELETE", "ALTER", "DROP"});
    CHECK(held(e, "etl_svc", invoices).empty());
    REQUIRE(plan.findings.size() == 1);
    const auto& f = plan.findings[0];
    CHECK(f.severity == tw::Severity::Warning);
    CHECK(f.code == "starrocks_gate_coarsened");
    CHECK(f.message.find("default_catalog.finance.customers") != std::string::npos);
    CHECK(f.message.find("iban") != std::string::npos);
    CHECK(f.message.find("member-sso") != std::string::npos);
    CHECK(std::find(f.subjects.begin(), f.subjects.end(), "default_catalog.finance.customers.iban") !=
          f.subjects.end());
  }
  SECTION("masked: uncleared readers keep the table and read NULL in the gated column") {
    const Plan plan = plan_ok(ps, {Dialect::StarRocks, {true}});
    const Effective e = on_objects(effective(plan.desired));
    CHECK(e == plan.intended());
    CHECK(held(e, "member-sso", customers) == std::set<std::string>{"SELECT"});
    CHECK(held(e, "member-sso", invoices).empty());
    CHECK(plan.findings.empty());
    REQUIRE(plan.desired.masks.size() == 1);  // one policy per tagged column
    const auto& m = plan.desired.masks.begin()->second;
    CHECK(m.object == customers);
    CHECK(m.column == "iban");
    CHECK(m.type == "VARCHAR(65533)");
    CHECK(m.cleared == std::vector<std::string>{"farid.haddad"});
    CHECK(plan.desired.attachments.at({customers, "iban"}) == m.name);
    const std::string sql = tw::starrocks::sql::create_mask(m);
    CHECK(sql.find("CASE WHEN current_user() IN ('''farid.haddad''@''%''') THEN `tw_value` ELSE CAST(NULL AS "
                   "VARCHAR(65533)) END") != std::string::npos);
  }
  SECTION("every owned name carries the profile's prefix") {
    const Plan plan = plan_ok(ps, {Dialect::StarRocks, {true}});
    CHECK(plan.prefix == tw::starrocks::owner_prefix("starrocks_main"));
    CHECK(std::regex_match(plan.prefix, std::regex("^tw_[0-9a-f]{8}_$")));
    for (const auto& [name, role] : plan.desired.roles) CHECK(name.rfind(plan.prefix, 0) == 0);
    for (const auto& [name, m] : plan.desired.masks) CHECK(name.rfind(plan.prefix, 0) == 0);
    CHECK(tw::starrocks::owner_prefix("a") != tw::starrocks::owner_prefix("a_b"));
  }
}

TEST_CASE("starrocks roles are compact: they grow with access classes, not users x objects") {
  for (int users : {100, 300}) {
    auto m = model_from_text(same_access_snapshot(users, 20).dump());
    const Plan plan = plan_ok(compile_ok(*m, sr_profile({"c"}, "sr", {{"c", "default_catalog"}})));
    CHECK(plan.desired.roles.size() == 1);
    const auto statements = diff_statements(plan, LiveState{});
    CHECK(statements.size() == 1 + 20 + static_cast<std::size_t>(users));  // role, a grant per table, memberships
  }
  // Two classes of users -> two roles, whatever the number of users and tables.
  json s = same_access_snapshot(100, 20);
  s["roles"].push_back("writer");
  for (int i = 0; i < 50; ++i) s["role_assignments"].push_back({{"role", "writer"}, {"user", "u" + std::to_string(i)}});
  s["grants"].push_back({{"principal", {{"role", "writer"}}}, {"object", "c.s.*"}, {"privileges", {"INSERT"}}});
  auto m = model_from_text(s.dump());
  const Plan plan = plan_ok(compile_ok(*m, sr_profile({"c"}, "sr", {{"c", "default_catalog"}})));
  // One role per holder set (readers, writers' INSERT); the writers hold both, so they get an atom role
  // inheriting the two; the readers hold the readers' role itself. Every user holds exactly one role.
  CHECK(plan.desired.roles.size() == 3);
  std::map<std::string, int> held_roles;
  for (const auto& [name, role] : plan.desired.roles) {
    for (const auto& u : role.members) ++held_roles[u];
    for (const auto& inherited : role.roles) {
      REQUIRE(plan.desired.roles.count(inherited));
      CHECK(plan.desired.roles.at(inherited).roles.empty());  // depth 2: user -> atom -> holder
      CHECK(role.grants.empty());
    }
  }
  CHECK(held_roles.size() == 100);
  for (const auto& [u, n] : held_roles) CHECK(n == 1);
  const auto statements = diff_statements(plan, LiveState{});
  // 3 roles, 20 SELECT + 20 INSERT grants, 2 inheritances, 100 memberships
  CHECK(statements.size() == 3 + 40 + 2 + 100);
  CHECK(std::count_if(statements.begin(), statements.end(), [](const auto& st) {
          return st.sql.find(" TO ROLE `") != std::string::npos && st.sql.find(" ON ") == std::string::npos;
        }) == 2);
}

TEST_CASE("starrocks coarsened findings count distinct users and name the first 20 in name order") {
  // 25 uncleared readers (u00..u24, listed out of order) of a table with a gated column, and one
  // cleared reader; two tables: the gated one coarsens, the plain one does not.
  json s = {{"version", 1}, {"generated_at", "2026-11-30T12:00:00Z"}, {"roles", {"reader", "cleared"}}};
  std::vector<std::string> names;
  for (int i = 24; i >= 0; --i) names.push_back((i < 10 ? "u0" : "u") + std::to_string(i));
  names.push_back("cleared_user");
  for (const auto& u : names) {
    s["users"].push_back(user(u));
    s["role_assignments"].push_back({{"role", "reader"}, {"user", u}});
  }
  s["role_assignments"].push_back({{"role", "cleared"}, {"user", "cleared_user"}});
  s["classifications"] = {{{"name", "Secret"}, {"clearance", {{{"type", "role"}, {"name", "cleared"}}}}}};
  s["objects"] = {{{"name", "c.s.gated"}, {"columns", {column("id", "bigint"), column("ssn", "varchar", {"Secret"})}}},
                  {{"name", "c.s.plain"}, {"columns", {column("id", "bigint")}}}};
  s["grants"] = {{{"principal", {{"role", "reader"}}}, {"object", "c.s.*"}, {"privileges", {"SELECT"}}}};
  auto m = model_from_text(s.dump());
  const Plan plan = plan_ok(compile_ok(*m, sr_profile({"c"}, "sr", {{"c", "default_catalog"}})));
  REQUIRE(plan.findings.size() == 1);
  const auto& f = plan.findings[0];
  CHECK(f.code == "starrocks_gate_coarsened");
  CHECK(f.message.find(": 25 uncleared users (u00, u01, u02, u03, u04, u05, u06, u07, u08, u09, u10, u11, u12, u13, "
                       "u14, u15, u16, u17, u18, u19 and 5 more) lose SELECT") != std::string::npos);
  CHECK(f.subjects == std::vector<std::string>{"default_catalog.s.gated", "default_catalog.s.gated.ssn"});
  CHECK(plan.users.front() == "cleared_user");
  CHECK(std::is_sorted(plan.users.begin(), plan.users.end()));
  const Effective e = on_objects(effective(plan.desired));
  CHECK(held(e, "u07", table("s", "gated")).empty());
  CHECK(held(e, "u07", table("s", "plain")) == std::set<std::string>{"SELECT"});
  CHECK(held(e, "cleared_user", table("s", "gated")) == std::set<std::string>{"SELECT"});
}

TEST_CASE("starrocks creation rights: OWNERSHIP of unlisted names maps to CREATE ... ON DATABASE") {
  json s = same_access_snapshot(2, 1);
  s["users"].push_back(user("owner"));
  s["grants"].push_back({{"principal", {{"user", "owner"}}}, {"object", "c.*.*"}, {"privileges", {"OWNERSHIP"}}});
  s["grants"].push_back({{"principal", {{"user", "owner"}}}, {"object", "c.other.*"}, {"privileges", {"SELECT"}}});
  auto m = model_from_text(s.dump());
  auto profile = sr_profile({"c"}, "sr", {{"c", "default_catalog"}});
  const Plan plan = plan_ok(compile_ok(*m, profile));
  const Effective e = effective(plan.desired);
  const std::set<std::string> create = {"CREATE TABLE", "CREATE VIEW", "CREATE MATERIALIZED VIEW"};
  CHECK(held(e, "owner", {Securable::Kind::Database, "default_catalog", "s", ""}) == create);
  CHECK(held(e, "owner", {Securable::Kind::Database, "default_catalog", "other", ""}) == create);
  CHECK(held(e, "owner", table("s", "t0")) == std::set<std::string>{"ALTER", "DROP"});
  CHECK(held(e, "u0", {Securable::Kind::Database, "default_catalog", "s", ""}).empty());
  const Plan mysql = plan_ok(compile_ok(*m, profile), {Dialect::MySQL, {}});
  CHECK(held(effective(mysql.desired), "owner", {Securable::Kind::Database, "default_catalog", "s", ""}) ==
        std::set<std::string>{"CREATE", "CREATE VIEW"});
  CHECK(script(mysql).find("GRANT CREATE, CREATE VIEW ON `s`.* TO `") != std::string::npos);
}

TEST_CASE("starrocks hostile names are quoted in every statement") {
  const std::vector<std::string> users = {"o'brien",
                                          "back\\slash",
                                          "tick`tock",
                                          "50%off",
                                          "under_score",
                                          "\xc3\xbc"
                                          "n"
                                          "\xc3\xaf"
                                          "c"
                                          "\xc3\xb8"
                                          "d"
                                          "\xc3\xa9",
                                          "semi;colon --",
                                          "plain"};
  const std::string schema = "sch`e'ma_%\\x", name = "t`a\\b'le%_", gated = "g`a'te\\d_%", cat = "ext`cat'_%";
  json s = {{"version", 1}, {"generated_at", "2026-11-30T12:00:00Z"}, {"roles", {"reader", "cleared"}}};
  for (const auto& u : users) {
    s["users"].push_back(user(u));
    s["role_assignments"].push_back({{"role", "reader"}, {"user", u}});
  }
  s["role_assignments"].push_back({{"role", "cleared"}, {"user", "o'brien"}});
  s["classifications"] = {{{"name", "Secret"}, {"clearance", {{{"type", "role"}, {"name", "cleared"}}}}}};
  s["objects"] = {{{"name", "h." + schema + "." + name},
                   {"columns", {column("id", "bigint"), column(gated, "varchar", {"Secret"})}}}};
  s["grants"] = {{{"principal", {{"role", "reader"}}}, {"object", "h.*.*"}, {"privileges", {"SELECT", "INSERT"}}},
                 {{"principal", {{"user", "o'brien"}}}, {"object", "h.*.*"}, {"privileges", {"OWNERSHIP"}}}};
  auto m = model_from_text(s.dump());
  auto profile = sr_profile({"h"}, "hostile", {{"h", "default_catalog"}});
  profile.restrict_materialized_views = false;
  profile.withhold_writes = false;  // uncleared users keep INSERT, so every user is granted something
  auto ps = compile_ok(*m, profile);
  auto external = sr_profile({"h"}, "hostile_ext", {{"h", cat}});
  external.restrict_materialized_views = false;
  external.withhold_writes = false;
  auto ps_ext = compile_ok(*m, external);

  for (auto [policy, options] :
       {std::pair{&ps, PlanOptions{Dialect::StarRocks, {true}}},
        std::pair{&ps, PlanOptions{Dialect::StarRocks, {false}}}, std::pair{&ps, PlanOptions{Dialect::MySQL, {}}},
        std::pair{&ps_ext, PlanOptions{Dialect::StarRocks, {true}}}}) {
    const Plan plan = plan_ok(*policy, options);
    const auto statements = diff_statements(plan, LiveState{});
    INFO(statements_text(plan, statements));
    check_quoting(statements);
    // Memberships name every user exactly, as a string literal next to the host literal.
    for (const auto& u : users) CHECK(any_token(statements, Token::Kind::String, u));
    CHECK(any_token(statements, Token::Kind::String, "%"));
    CHECK(any_token(statements, Token::Kind::Ident, name));
    if (options.dialect == Dialect::MySQL) {
      // ON `db`.*: _ % and \ escaped so the database name is not a pattern.
      CHECK(any_token(statements, Token::Kind::Ident, "sch`e'ma\\_\\%\\\\x"));
      CHECK(any_token(statements, Token::Kind::Ident, schema));
    } else {
      CHECK(any_token(statements, Token::Kind::Ident, schema));
    }
    if (options.capabilities.masking_policies) {
      CHECK(any_token(statements, Token::Kind::Ident, gated));
      CHECK(any_token(statements, Token::Kind::String, "'o'brien'@'%'"));  // current_user() of the cleared user
    }
    if (policy == &ps_ext) {
      const std::string text = statements_text(plan, statements);
      CHECK(text.find("SET CATALOG `ext``cat'_%`;") != std::string::npos);
      CHECK(any_token(statements, Token::Kind::Ident, cat));
    }
  }
  // The script's comments cannot be broken out of by names either.
  const Plan plan = plan_ok(ps);
  const std::string text = statements_text(plan, diff_statements(plan, LiveState{}), {"user x\ny; DROP TABLE z"});
  CHECK(text.rfind("-- user x\\x0ay; DROP TABLE z\n", 0) == 0);
}

TEST_CASE("starrocks diff: nothing to do when the server holds the plan; tighten before widen") {
  auto ps = demo_policy_set("starrocks_main");
  const Plan plan = plan_ok(ps, {Dialect::StarRocks, {true}});
  LiveState same;
  same.owned = plan.desired;
  for (auto& [name, m] : same.owned.masks) m = {name, {T, m.object.catalog, m.object.database, ""}, "", "", {}, {}};
  CHECK(diff_statements(plan, same).empty());

  // Old: the coarsened demo. New: a changed snapshot where member-sso is a pii_reader
  // (widens) and platform-admin lost analyst (tightens).
  std::string text = read_text(source_path("examples/demo/snapshot.yaml"));
  text.replace(text.find("  - {role: analyst, user: platform-admin}\n"), 42,
               "  - {role: pii_reader, user: member-sso}\n");
  auto m2 = model_from_text(text);
  const Plan next =
      plan_ok(compile_ok(*m2, profile_from(source_path("examples/demo/starrocks-profiles.yaml"), "starrocks_main")));
  const Plan old = plan_ok(ps);
  LiveState live;
  live.owned = old.desired;
  const auto statements = diff_statements(next, live);
  REQUIRE_FALSE(statements.empty());
  std::size_t last_tighten = 0, first_widen = statements.size();
  for (std::size_t i = 0; i < statements.size(); ++i) {
    if (i > 0) CHECK(statements[i - 1].phase <= statements[i].phase);
    const auto& sql = statements[i].sql;
    if (sql.rfind("REVOKE", 0) == 0) last_tighten = i;
    if (sql.rfind("GRANT", 0) == 0) first_widen = std::min(first_widen, i);
    if (sql.rfind("DROP ROLE", 0) == 0) CHECK(statements[i].phase == Phase::Cleanup);
  }
  CHECK(last_tighten < first_widen);
  const Effective before = on_objects(effective(old.desired));
  const Effective after = on_objects(effective(next.desired));
  CHECK(held(after, "member-sso", table("finance", "customers")) == std::set<std::string>{"SELECT"});
  CHECK(held(before, "platform-admin", table("sales", "orders")) == std::set<std::string>{"SELECT"});
  CHECK(held(after, "platform-admin", table("sales", "orders")).empty());

  // Missing users are left out and reported.
  LiveState empty_users;
  empty_users.users = std::set<std::string>{"farid.haddad"};
  for (const auto& s : diff_statements(plan, empty_users)) {
    if (s.sql.rfind("GRANT `", 0) == 0 && s.sql.find(" TO ROLE ") == std::string::npos)
      CHECK(s.sql.find("'farid.haddad'") != std::string::npos);
  }
  const auto findings = tw::starrocks::diff_findings(plan, empty_users);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].code == "starrocks_user_missing");
}

TEST_CASE("starrocks per-tag policy limit: only the profile over the limit fails") {
  // Catalog a holds `n` columns tagged T; catalog b holds 10. Profiles pa and pb see one catalog each.
  auto snapshot = [](int n) {
    json s = {{"version", 1},
              {"generated_at", "2026-11-30T12:00:00Z"},
              {"roles", {"r"}},
              {"users", {user("x")}},
              {"role_assignments", {{{"role", "r"}, {"user", "x"}}}}};
    s["classifications"] = {{{"name", "T"}, {"clearance", {{{"type", "role"}, {"name", "r"}}}}}};
    json cols = json::array(), small = json::array();
    for (int i = 0; i < n; ++i) cols.push_back(column("c" + std::to_string(i), "int", {"T"}));
    for (int i = 0; i < 10; ++i) small.push_back(column("c" + std::to_string(i), "int", {"T"}));
    s["objects"] = {{{"name", "a.s.wide"}, {"columns", cols}}, {{"name", "b.s.narrow"}, {"columns", small}}};
    s["grants"] = {{{"principal", {{"role", "r"}}}, {"object", "*.*.*"}, {"privileges", {"SELECT"}}}};
    return s.dump();
  };
  const auto pa = sr_profile({"a"}, "pa"), pb = sr_profile({"b"}, "pb");
  for (int n : {499, 500, 501}) {
    auto m = model_from_text(snapshot(n));
    tw::ProfileBuild a = tw::build_profile(*m, pa);
    tw::ProfileBuild b = tw::build_profile(*m, pb);
    INFO("columns " << n);
    CHECK(b.compile.errors.empty());
    CHECK(b.artifact.has_value());
    if (n <= 500) {
      CHECK(a.compile.errors.empty());
      REQUIRE(a.compile.policy_set.has_value());
      const Plan plan = plan_ok(*a.compile.policy_set, {Dialect::StarRocks, {true}});
      CHECK(plan.desired.masks.size() == static_cast<std::size_t>(n));
    } else {
      REQUIRE(a.compile.errors.size() == 1);
      CHECK_FALSE(a.compile.policy_set.has_value());
      CHECK_FALSE(a.artifact.has_value());
      const std::string& e = a.compile.errors[0];
      CHECK(e.find("classification T") != std::string::npos);
      CHECK(e.find("501") != std::string::npos);
      CHECK(e.find("500") != std::string::npos);
    }
  }
}

TEST_CASE("starrocks sql builders") {
  using namespace tw::starrocks::sql;
  CHECK(ident("a`b") == "`a``b`");
  CHECK(literal("o'b\\c") == "'o''b\\\\c'");
  CHECK(user_identity("u'1") == "'u''1'@'%'");
  CHECK(mysql_db_pattern("a_b%c") == "`a\\_b\\%c`");
  CHECK_THROWS_AS(ident(std::string("a\0b", 3)), std::invalid_argument);
  CHECK(mask_type("varchar") == "VARCHAR(65533)");
  CHECK(mask_type(" decimal( 10 , 2 ) ") == "DECIMAL(10,2)");
  CHECK(mask_type("bigint") == "BIGINT");
  CHECK(mask_type("int); DROP TABLE x; --") == "");
  CHECK(mask_type("array<int>") == "");
  const Securable on = table("d", "t");
  CHECK(grant_privileges(Dialect::StarRocks, {"UPDATE", "SELECT"}, on, "tw_r") ==
        "GRANT SELECT, UPDATE ON TABLE `d`.`t` TO ROLE `tw_r`");
  CHECK(grant_privileges(Dialect::MySQL, {"SELECT"}, on, "tw_r") == "GRANT SELECT ON `d`.`t` TO `tw_r`");
  CHECK(grant_role(Dialect::StarRocks, "tw_r", "u") == "GRANT `tw_r` TO USER 'u'@'%'");
  CHECK(revoke_role(Dialect::MySQL, "tw_r", "u") == "REVOKE `tw_r` FROM 'u'@'%'");
  CHECK(set_mask({on, "c"}, "p") == "ALTER TABLE `d`.`t` MODIFY COLUMN `c` SET MASKING POLICY `d`.`p`");
  CHECK(unset_mask({table("d", "v", "default_catalog", Securable::Kind::View), "c"}) ==
        "ALTER VIEW `d`.`v` MODIFY COLUMN `c` UNSET MASKING POLICY");
}

namespace {

// Answers the StarRocks reader's queries with recorded rows.
class RecordedStarRocks : public tw::starrocks::Connection {
 public:
  std::map<std::string, tw::starrocks::Rows> answers;
  void execute(const std::string&) override {}
  tw::starrocks::Rows query(const std::string& sql) override {
    for (const auto& [prefix, rows] : answers) {
      if (sql.rfind(prefix, 0) == 0) return rows;
    }
    return {};
  }
  void reconnect() override {}
  std::string describe() const override { return "recorded"; }
};

}  // namespace

TEST_CASE("starrocks reader: role-to-role edges among owned roles are read as inheritance") {
  const Plan plan = plan_ok(demo_policy_set());
  const std::string atom = plan.prefix + "a0123456789abcdef", holder = plan.prefix + "r0123456789abcdef";
  RecordedStarRocks c;
  using R = tw::starrocks::Row;
  c.answers["SHOW ROLES"] = {{}, {R{atom}, R{holder}, R{std::string("analyst")}}};
  c.answers["SHOW USERS"] = {{}, {R{std::string("'jo.kim'@'%'")}}};
  c.answers["SELECT FROM_ROLE, TO_ROLE, TO_USER FROM sys.role_edges"] = {
      {},
      {R{holder, atom, std::nullopt},                       // holder granted to the atom role
       R{atom, std::nullopt, std::string("'jo.kim'@'%'")},  // the atom role granted to a user
       R{std::string("analyst"), atom, std::nullopt},       // a foreign role: not owned, not read
       R{holder, std::string("analyst"), std::nullopt}}};   // granted to a foreign role: ignored
  const auto live = tw::starrocks::read_live_state(c, plan);
  REQUIRE(live.state.owned.roles.count(atom));
  CHECK(live.state.owned.roles.at(atom).roles == tw::starrocks::RoleNames{holder});
  CHECK(live.state.owned.roles.at(atom).members == std::set<std::string>{"jo.kim"});
  CHECK(live.state.owned.roles.at(holder).roles.empty());
  CHECK(live.state.owned.roles.at(holder).members.empty());
  CHECK(live.state.owned.roles.size() == 2);
}

TEST_CASE("starrocks role inheritance statements per dialect") {
  using namespace tw::starrocks::sql;
  CHECK(grant_role_to_role(Dialect::StarRocks, "tw_r", "tw_a") == "GRANT `tw_r` TO ROLE `tw_a`");
  CHECK(revoke_role_from_role(Dialect::StarRocks, "tw_r", "tw_a") == "REVOKE `tw_r` FROM ROLE `tw_a`");
  CHECK(grant_role_to_role(Dialect::MySQL, "tw_r", "tw_a") == "GRANT `tw_r` TO `tw_a`");
  CHECK(revoke_role_from_role(Dialect::MySQL, "tw_r", "tw_a") == "REVOKE `tw_r` FROM `tw_a`");
}

TEST_CASE("starrocks empty-server script: the diff against an empty server's statements, written from the plan") {
  // Random owned states over three catalogs (one the internal catalog, the others out of name order),
  // with catalog-level grants, masks, row access policies, memberships and inheritances, in both
  // dialects: the order within each phase (grouped by catalog where the diff groups) must be the diff's.
  const std::vector<std::string> catalogs = {"default_catalog", "zeta", "alpha"};
  for (unsigned seed = 0; seed < 200; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    Plan plan;
    plan.profile = "p";
    plan.dialect = seed % 3 == 0 ? Dialect::MySQL : Dialect::StarRocks;
    plan.prefix = "tw_0000000" + std::to_string(seed % 10) + "_";
    auto object = [&] {
      const std::string catalog = plan.dialect == Dialect::MySQL ? catalogs[0] : catalogs[pick(3)];
      if (plan.dialect == Dialect::StarRocks && pick(8) == 0)
        return Securable{Securable::Kind::Catalog, catalog, "", ""};
      if (pick(6) == 0) return Securable{Securable::Kind::Database, catalog, "db" + std::to_string(pick(3)), ""};
      return table("db" + std::to_string(pick(3)), "t" + std::to_string(pick(5)), catalog);
    };
    auto table_object = [&] {
      Securable o = object();
      if (o.kind != T) o = table("db" + std::to_string(pick(3)), "t" + std::to_string(pick(5)), o.catalog);
      return o;
    };
    const std::size_t roles = pick(6);
    for (std::size_t r = 0; r < roles; ++r) {
      auto& role = plan.desired.roles[plan.prefix + "r" + std::to_string(pick(20))];
      for (std::size_t g = pick(5); g > 0; --g) {
        auto& privs = role.grants[object()];
        if (pick(7) != 0) privs.insert(pick(2) ? "SELECT" : "INSERT");  // sometimes none: no statement
      }
      for (std::size_t m = pick(4); m > 0; --m) role.members.insert("u" + std::to_string(pick(9)));
      for (std::size_t i = pick(3); i > 0; --i) role.roles.insert(plan.prefix + "r" + std::to_string(pick(20)));
    }
    if (plan.dialect == Dialect::StarRocks) {
      for (std::size_t k = pick(4); k > 0; --k) {
        tw::starrocks::MaskPolicy m;
        m.name = plan.prefix + "m" + std::to_string(pick(50));
        m.object = table_object();
        m.column = "c" + std::to_string(pick(3));
        m.type = "VARCHAR(65533)";
        m.cleared = {"u1"};
        plan.desired.attachments[{m.object, m.column}] = m.name;
        plan.desired.masks[m.name] = m;
      }
      for (std::size_t k = pick(3); k > 0; --k) {
        tw::starrocks::RowPolicy p;
        p.name = plan.prefix + "w" + std::to_string(pick(50));
        p.object = table_object();
        p.columns = {{"c0", "BIGINT"}};
        p.cases = {{"`tw_a0` > 0", {"u2"}}};
        plan.desired.row_attachments[p.object].insert(p.name);
        plan.desired.row_policies[p.name] = p;
      }
    }
    INFO("seed " << seed);
    script(plan);  // checks both
    const std::vector<std::string> header = {"first line", "second\nline"};
    CHECK(tw::starrocks::empty_server_script(plan, header) ==
          statements_text(plan, diff_statements(plan, LiveState{}), header));
  }
}
