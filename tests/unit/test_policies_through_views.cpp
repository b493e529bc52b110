// Access policies (MODEL.md section 4) scoped to an object, one of its columns or its domain
// reach the views and materialized views that read it, as a whole (there is no column lineage),
// the way the base's tags do (section 2). A restricted user never keeps OWNERSHIP, which would
// let them rename what the restriction names. An empty attribute is no attribute.

#include <string>

#include <catch2/catch.hpp>

#include "helpers.h"

using namespace twtest;

namespace {

// ana is an analyst; etl owns everything and is not one. v is a DEFINER view of t, vv a view of
// v, mv a materialized view of t, other reads only o. Every policy below applies to analysts.
std::string snapshot(const std::string& policy, const std::string& ana_attributes = "{region: EU}") {
  return R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: ana, attributes: )" +
         ana_attributes + R"(}
  - {name: etl}
roles: [analyst]
role_assignments:
  - {role: analyst, user: ana}
classifications: []
objects:
  - name: w.s.t
    kind: table
    owner: etl
    domain: sales/eu
    columns: [{name: id, type: bigint}, {name: region, type: varchar}, {name: email, type: varchar}]
  - name: w.s.o
    kind: table
    owner: etl
    columns: [{name: id, type: bigint}, {name: region, type: varchar}]
  - name: w.s.v
    kind: view
    owner: etl
    depends_on: [w.s.t]
    columns: [{name: id, type: bigint}, {name: region, type: varchar}, {name: email, type: varchar}]
  - name: w.s.vv
    kind: view
    owner: etl
    view_security: invoker
    depends_on: [w.s.v]
    columns: [{name: id, type: bigint}, {name: region, type: varchar}]
  - name: w.s.mv
    kind: materialized_view
    owner: etl
    depends_on: [w.s.t]
    columns: [{name: id, type: bigint}, {name: email, type: varchar}]
  - name: w.s.other
    kind: view
    owner: etl
    depends_on: [w.s.o]
    columns: [{name: id, type: bigint}]
grants:
  - {principal: {role: analyst}, object: "w.*.*", privileges: [SELECT, INSERT, OWNERSHIP]}
  - {principal: {user: etl}, object: "w.*.*", privileges: [SELECT, OWNERSHIP]}
policies:
)" + policy;
}

const tw::AccessClass& access(const tw::PolicySet& ps, const tw::Model& m, const std::string& object_name,
                              const std::string& user) {
  const tw::AccessClass* c = find_access(object(ps, object_name), user_index(m, user));
  INFO(object_name << " " << user);
  REQUIRE(c != nullptr);
  return *c;
}

nlohmann::json filter_of(const tw::PolicySet& ps, const tw::Model& m, const std::string& object_name,
                         const std::string& user) {
  const std::string& text = access(ps, m, object_name, user).access.row_filter;
  return text.empty() ? nlohmann::json() : nlohmann::json::parse(text);
}

}  // namespace

TEST_CASE("a deny scoped to a base object hides the views over it, transitively", "[policies][views]") {
  auto m = model_of(snapshot("  - {name: d, type: deny, scope: {object: w.s.t}, applies_to: {roles: [analyst]}}\n"));
  const tw::PolicySet ps = must_compile(*m, trino_profile({"w"}));
  for (const char* o : {"w.s.t", "w.s.v", "w.s.vv", "w.s.mv"}) {
    INFO(o);
    CHECK(access(ps, *m, o, "ana").access.privileges.empty());
  }
  CHECK(privs(object(ps, "w.s.other"), user_index(*m, "ana")) == Names{"SELECT", "INSERT", "OWNERSHIP"});
  CHECK(privs(object(ps, "w.s.o"), user_index(*m, "ana")) == Names{"SELECT", "INSERT", "OWNERSHIP"});
  // The policy does not apply to etl, who keeps reading (and owning) the base for the views.
  CHECK(privs(object(ps, "w.s.t"), user_index(*m, "etl")) == Names{"SELECT", "OWNERSHIP"});
}

TEST_CASE("a deny or mask on a base column reaches the whole view: there is no column lineage", "[policies][views]") {
  SECTION("deny") {
    auto m =
        model_of(snapshot("  - {name: d, type: deny, scope: {column: w.s.t.email}, applies_to: {roles: [analyst]}}\n"));
    const tw::PolicySet ps = must_compile(*m, trino_profile({"w"}));
    // On the table itself only the column goes, and OWNERSHIP (a rename would escape the deny).
    const auto& t = access(ps, *m, "w.s.t", "ana").access;
    CHECK(t.privileges.names() == Names{"SELECT", "INSERT"});
    CHECK(t.denied_columns == Names{"email"});
    for (const char* o : {"w.s.v", "w.s.vv", "w.s.mv"}) {
      INFO(o);
      CHECK(access(ps, *m, o, "ana").access.privileges.empty());
    }
  }
  SECTION("mask") {
    auto m = model_of(
        snapshot("  - {name: k, type: column_mask, mask: full, scope: {column: w.s.t.email}, applies_to: {roles: "
                 "[analyst]}}\n"));
    const tw::PolicySet ps = must_compile(*m, trino_profile({"w"}));
    const auto& t = access(ps, *m, "w.s.t", "ana").access;
    REQUIRE(t.masks.size() == 1);
    CHECK(t.masks[0].column == "email");
    const auto& v = access(ps, *m, "w.s.v", "ana").access;
    CHECK(v.masks.size() == 3);  // every column of the view
    const auto& mv = access(ps, *m, "w.s.mv", "ana").access;
    CHECK(mv.masks.size() == 2);
    CHECK_FALSE(v.privileges.has(tw::Privilege::Ownership));
    CHECK(access(ps, *m, "w.s.other", "ana").access.masks.empty());
  }
}

TEST_CASE("a row filter on a base object or domain leaves the views over it no rows", "[policies][views]") {
  // The condition names a base column; a view column of the same name need not hold it (a view
  // may select `other AS region`), so the view cannot be filtered by name: no rows, fail closed.
  for (const char* scope : {"{object: w.s.t}", "{domain: sales}"}) {
    INFO(scope);
    auto m = model_of(snapshot(std::string("  - {name: f, type: row_filter, scope: ") + scope +
                               ", applies_to: {roles: [analyst]}, condition: {column: region, op: eq, value: "
                               "{$user: attributes.region}}}\n"));
    tw::ProfileCompile pc = tw::compile_profile(*m, trino_profile({"w"}));
    REQUIRE(pc.policy_set);
    const tw::PolicySet& ps = *pc.policy_set;
    const nlohmann::json eu = {{"column", "region"}, {"op", "eq"}, {"type", "varchar"}, {"value", "EU"}};
    const nlohmann::json none = {{"false", true}};
    CHECK(filter_of(ps, *m, "w.s.t", "ana") == eu);
    CHECK(filter_of(ps, *m, "w.s.v", "ana") == none);
    CHECK(filter_of(ps, *m, "w.s.vv", "ana") == none);
    CHECK(filter_of(ps, *m, "w.s.mv", "ana") == none);
    CHECK(access(ps, *m, "w.s.other", "ana").access.row_filter.empty());
    CHECK(access(ps, *m, "w.s.o", "ana").access.row_filter.empty());
    // etl is not an analyst: the policy does not apply, and the views keep their rows for etl.
    CHECK(access(ps, *m, "w.s.v", "etl").access.row_filter.empty());
    // Filtered, ana may not own (and so rename) the object the filter names.
    CHECK(access(ps, *m, "w.s.t", "ana").access.privileges.names() == Names{"SELECT", "INSERT"});
    // The users left without rows are reported, as for any filter that cannot be satisfied.
    bool reported = false;
    for (const auto& f : pc.findings) reported = reported || f.code == "row_filter_unsatisfiable";
    CHECK(reported);
  }
}

TEST_CASE("a row filter reaching a view by its own tag binds the view's column; by an inherited tag, no rows",
          "[policies][views]") {
  const std::string base = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: ana, attributes: {region: EU}}]
roles: []
role_assignments: []
classifications: [{name: Sales}]
objects:
  - {name: w.s.t, kind: table, tags: [Sales], columns: [{name: region, type: varchar}]}
  - {name: w.s.v, kind: view, depends_on: [w.s.t], columns: [{name: region, type: varchar}]}
  - {name: w.s.own, kind: view, tags: [Sales], depends_on: [w.s.t], columns: [{name: region, type: varchar}]}
grants: [{principal: {user: ana}, object: "w.*.*", privileges: [SELECT]}]
policies:
  - {name: f, type: row_filter, scope: {tag: Sales}, condition: {column: region, op: eq, value: {$user: attributes.region}}}
)";
  auto m = model_of(base);
  const tw::PolicySet ps = must_compile(*m, trino_profile({"w"}));
  const nlohmann::json eu = {{"column", "region"}, {"op", "eq"}, {"type", "varchar"}, {"value", "EU"}};
  CHECK(filter_of(ps, *m, "w.s.t", "ana") == eu);
  CHECK(filter_of(ps, *m, "w.s.own", "ana") == eu);
  CHECK(filter_of(ps, *m, "w.s.v", "ana") == nlohmann::json{{"false", true}});
}

TEST_CASE("a user a policy is judged for but not applied to keeps OWNERSHIP", "[policies]") {
  auto m = model_of(snapshot(
      "  - {name: k, type: column_mask, mask: full, scope: {column: w.s.t.email}, applies_to: {users: [etl]}}\n"));
  const tw::PolicySet ps = must_compile(*m, trino_profile({"w"}));
  CHECK(access(ps, *m, "w.s.t", "ana").access.privileges.names() == Names{"SELECT", "INSERT", "OWNERSHIP"});
  CHECK(access(ps, *m, "w.s.t", "etl").access.privileges.names() == Names{"SELECT"});
}

TEST_CASE("an empty attribute is no attribute: the filter fails closed", "[policies]") {
  const std::string filter =
      "  - {name: f, type: row_filter, scope: {object: w.s.o}, condition: {column: region, op: eq, value: "
      "{$user: attributes.region}}}\n";
  const std::string filter_in =
      "  - {name: f, type: row_filter, scope: {object: w.s.o}, condition: {column: region, op: in, value: "
      "{$user: attributes.region}}}\n";
  for (const auto& [attrs, policy] : std::vector<std::pair<std::string, std::string>>{
           {"{region: \"\"}", filter}, {"{region: [EU, \"\"]}", filter_in}}) {
    INFO(attrs);
    auto m = model_of(snapshot(policy, attrs));
    const tw::PolicySet ps = must_compile(*m, trino_profile({"w"}));
    CHECK(filter_of(ps, *m, "w.s.o", "ana") == nlohmann::json{{"false", true}});
  }
  auto m = model_of(snapshot(filter_in, "{region: [EU, US]}"));
  const tw::PolicySet ps = must_compile(*m, trino_profile({"w"}));
  CHECK(filter_of(ps, *m, "w.s.o", "ana") ==
        nlohmann::json({{"column", "region"}, {"op", "in"}, {"type", "varchar"}, {"values", {"EU", "US"}}}));
}

TEST_CASE("a DEFINER view whose owner a deny keeps from a base is reported: Trino refuses it to everybody",
          "[policies][views][findings]") {
  auto m = model_of(snapshot("  - {name: d, type: deny, scope: {object: w.s.o}, applies_to: {users: [etl]}}\n"));
  tw::ProfileCompile pc = tw::compile_profile(*m, trino_profile({"w"}));
  REQUIRE(pc.policy_set);
  std::vector<const tw::Finding*> found;
  for (const auto& f : pc.findings) {
    if (f.code == "definer_view_owner_cannot_read") found.push_back(&f);
  }
  REQUIRE(found.size() == 1);
  CHECK(found[0]->subjects == Names{"w.s.other", "etl"});
  CHECK_THAT(found[0]->message, Catch::Contains("refused to everybody, the cleared included, because its owner "
                                                "cannot read w.s.o"));
  CHECK_THAT(found[0]->message, Catch::Contains("hidden by deny policy d"));
  // Without the deny, the owner reads every base and nothing is reported.
  auto clean = model_of(snapshot("  - {name: d, type: deny, scope: {object: w.s.o}, applies_to: {users: [ana]}}\n"));
  tw::ProfileCompile ok = tw::compile_profile(*clean, trino_profile({"w"}));
  for (const auto& f : ok.findings) CHECK(f.code.rfind("definer_view", 0) != 0);
}

TEST_CASE("a DEFINER view whose owner may not read some base columns fails only when it reads them",
          "[policies][views][findings]") {
  const std::string text = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: alice}, {name: bob}]
roles: [steward]
role_assignments: [{role: steward, user: alice}]
classifications:
  - {name: Secret, clearance: [{type: role, name: steward}]}
objects:
  - name: w.s.t
    kind: table
    columns: [{name: id, type: bigint}, {name: ssn, type: varchar, tags: [Secret]}]
  - name: w.s.v
    kind: view
    owner: bob
    depends_on: [w.s.t]
    columns: [{name: id, type: bigint}]
grants:
  - {principal: {user: alice}, object: "w.*.*", privileges: [SELECT]}
  - {principal: {user: bob}, object: "w.*.*", privileges: [SELECT]}
policies: []
)";
  auto m = model_of(text);
  tw::ProfileCompile pc = tw::compile_profile(*m, trino_profile({"w"}));
  REQUIRE(pc.policy_set);
  const tw::Finding* d = nullptr;
  for (const auto& f : pc.findings) {
    if (f.code == "definer_view_owner_not_cleared") d = &f;
  }
  REQUIRE(d);
  CHECK(d->subjects == Names{"w.s.v", "bob"});
  CHECK_THAT(d->message, Catch::Contains("every query of the view that reads the columns its owner may not read "
                                         "fails for everybody, the cleared included: w.s.t (ssn)"));
}
