// MODEL §2: a user not cleared for every gated tag on a profile cannot create materialized views
// there. Trino checks one privilege (OWNERSHIP of the new name) for CREATE TABLE, VIEW and
// MATERIALIZED VIEW, so on Trino table and view creation go too; StarRocks checks CREATE TABLE,
// CREATE VIEW and CREATE MATERIALIZED VIEW separately, so there only the last one is withheld.

#include <algorithm>
#include <string>

#include <catch2/catch.hpp>

#include "../starrocks/sr_test_helpers.h"
#include "tagwarden/compile/explain.h"
#include "tagwarden/engines/starrocks/plan.h"

using namespace srtest;
using nlohmann::json;
using tw::starrocks::Dialect;
using tw::starrocks::Plan;

namespace {

using Privileges = std::set<std::string>;

Privileges held_on(const Effective& e, const std::string& user, const Securable& on) {
  auto u = e.find(user);
  if (u == e.end()) return {};
  auto o = u->second.find(on);
  return o == u->second.end() ? Privileges{} : o->second;
}

// etl and steward own c.*.*; only steward holds the role Secret's clearance requires.
json owners_snapshot() {
  json s = {{"version", 1}, {"generated_at", "2026-11-30T12:00:00Z"}, {"roles", {"cleared"}}};
  s["users"] = {{{"name", "etl"}}, {{"name", "steward"}}};
  s["role_assignments"] = {{{"role", "cleared"}, {"user", "steward"}}};
  s["classifications"] = {{{"name", "Secret"}, {"clearance", {{{"type", "role"}, {"name", "cleared"}}}}}};
  s["objects"] = {
      {{"name", "c.s.t"},
       {"columns",
        {{{"name", "id"}, {"type", "bigint"}}, {{"name", "ssn"}, {"type", "varchar"}, {"tags", {"Secret"}}}}}}};
  s["grants"] = {{{"principal", {{"user", "etl"}}}, {"object", "c.*.*"}, {"privileges", {"SELECT", "OWNERSHIP"}}},
                 {{"principal", {{"user", "steward"}}}, {"object", "c.*.*"}, {"privileges", {"OWNERSHIP"}}}};
  return s;
}

tw::Profile profile(bool restrict = true) {
  tw::Profile p;
  p.name = "sr";
  p.engine = tw::Engine::StarRocks;
  p.catalogs = {"c"};
  p.catalog_map = {{"c", "default_catalog"}};
  p.restrict_materialized_views = restrict;
  return p;
}

const Securable kDatabase{Securable::Kind::Database, "default_catalog", "s", ""};

}  // namespace

TEST_CASE("starrocks: users not cleared for every gated tag lose CREATE MATERIALIZED VIEW only") {
  auto m = model_from_text(owners_snapshot().dump());
  const std::size_t etl = 0;
  SECTION("the PolicySet keeps their OWNERSHIP of unlisted names and lists them as restricted") {
    const tw::PolicySet ps = compile_ok(*m, profile());
    CHECK(ps.create_restricted == std::vector<std::size_t>{etl});
    CHECK(ps.unlisted_access(etl, {"default_catalog", "s", "new_table"}).has(tw::Privilege::Ownership));
  }
  SECTION("starrocks dialect: CREATE TABLE and CREATE VIEW stay, CREATE MATERIALIZED VIEW goes") {
    const Effective e = effective(plan_ok(compile_ok(*m, profile())).desired);
    CHECK(held_on(e, "etl", kDatabase) == Privileges{"CREATE TABLE", "CREATE VIEW"});
    CHECK(held_on(e, "steward", kDatabase) == Privileges{"CREATE TABLE", "CREATE VIEW", "CREATE MATERIALIZED VIEW"});
  }
  SECTION("restrict_materialized_views: false gives every owner all three") {
    const Effective e = effective(plan_ok(compile_ok(*m, profile(false))).desired);
    CHECK(held_on(e, "etl", kDatabase) == Privileges{"CREATE TABLE", "CREATE VIEW", "CREATE MATERIALIZED VIEW"});
  }
  SECTION("mysql dialect has no materialized views: CREATE and CREATE VIEW for both") {
    const Effective e = effective(plan_ok(compile_ok(*m, profile()), {Dialect::MySQL, {}}).desired);
    CHECK(held_on(e, "etl", kDatabase) == Privileges{"CREATE", "CREATE VIEW"});
    CHECK(held_on(e, "steward", kDatabase) == Privileges{"CREATE", "CREATE VIEW"});
  }
  SECTION("the finding names them and says what StarRocks keeps") {
    tw::ProfileCompile pc = tw::compile_profile(*m, profile());
    REQUIRE(pc.policy_set);
    auto it = std::find_if(pc.findings.begin(), pc.findings.end(),
                           [](const tw::Finding& f) { return f.code == "materialized_view_restriction"; });
    REQUIRE(it != pc.findings.end());
    CHECK(it->severity == tw::Severity::Info);
    CHECK(it->subjects == std::vector<std::string>{"etl"});
    CHECK_THAT(it->message, Catch::StartsWith("1 users are not cleared for every gated tag on profile sr (Secret) and "
                                              "get no CREATE MATERIALIZED VIEW there"));
    CHECK_THAT(it->message, Catch::Contains("CREATE TABLE and CREATE VIEW"));
  }
  SECTION("explain says materialized views only") {
    const tw::Explanation e = tw::explain_user(*m, {compile_ok(*m, profile())}, "etl");
    const std::string text = tw::to_text(e);
    CHECK_THAT(text, Catch::Contains("  may not create materialized views (not cleared for every gated tag; tables "
                                     "and views as granted)\n"));
    CHECK(text.find("may not create tables") == std::string::npos);
    CHECK(tw::to_json(e)["profiles"][0]["may_create_materialized_views"] == false);
  }
  SECTION("Trino still withholds OWNERSHIP of unlisted names (one privilege carries every CREATE)") {
    tw::Profile trino = profile();
    trino.engine = tw::Engine::Trino;
    trino.catalog_map.clear();
    const tw::PolicySet ps = compile_ok(*m, trino);
    CHECK_FALSE(ps.unlisted_access(etl, {"c", "s", "new_table"}).has(tw::Privilege::Ownership));
    CHECK(ps.unlisted_access(1, {"c", "s", "new_table"}).has(tw::Privilege::Ownership));
  }
}
