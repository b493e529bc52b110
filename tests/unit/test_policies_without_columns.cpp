// A mask or row filter that reaches an object whose columns the snapshot does not list. The
// engines mask by column name and a StarRocks row access policy needs a column to bind: with none
// listed, the mask would reach nothing and the view's engine columns would pass its base's values
// on unmasked. Those the policy applies to lose SELECT there instead (fail closed), on both engines.

#include <string>

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/compile/access_policies.h"
#include "tagwarden/engines/starrocks/plan.h"

using namespace twtest;

namespace {

// ana reads k.s.* and the policy applies to her; own owns and reads everything, unmasked.
std::string snapshot(const std::string& view_columns, const std::string& policy, const std::string& kind = "view") {
  return R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: ana}, {name: own}]
objects:
  - {name: k.s.t, owner: own, columns: [{name: id, type: bigint}, {name: email, type: varchar}, {name: region, type: varchar}]}
  - {name: k.s.v, kind: )" +
         kind + ", owner: own, depends_on: [k.s.t]" + view_columns + R"(}
  - {name: k.s.full, kind: view, owner: own, depends_on: [k.s.t], columns: [{name: email, type: varchar}]}
grants:
  - {principal: {user: ana}, object: "k.s.*", privileges: [SELECT, INSERT]}
  - {principal: {user: own}, object: "k.s.*", privileges: [SELECT]}
policies:
  - )" + policy +
         "\n";
}

const std::string kMask =
    "{name: m, type: column_mask, mask: full, scope: {column: k.s.t.email}, applies_to: {users: [ana]}}";

tw::Profile starrocks(bool policies) {
  tw::Profile p;
  p.name = "sr";
  p.engine = tw::Engine::StarRocks;
  p.catalogs = {"k"};
  p.masking = policies ? "on" : "off";
  return p;
}

bool withheld_for_no_columns(const tw::AccessClass& cls) {
  for (const auto& r : cls.reasons) {
    if (r.rfind(tw::kMaskWithoutColumns, 0) == 0) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a mask reaching a view that lists no columns withholds SELECT from whom it applies to",
          "[policies][views]") {
  for (const std::string& columns : {std::string(", columns: []"), std::string()}) {
    for (const std::string& kind : {std::string("view"), std::string("materialized_view")}) {
      INFO("columns '" << columns << "', " << kind);
      auto m = model_of(snapshot(columns, kMask, kind));
      for (const tw::Profile& profile : {trino_profile({"k"}), starrocks(true)}) {
        INFO(profile.name);
        tw::ProfileCompile pc = tw::compile_profile(*m, profile);
        REQUIRE(pc.policy_set);
        const tw::PolicySet& ps = *pc.policy_set;
        const tw::AccessClass* ana = find_access(object(ps, "k.s.v"), user_index(*m, "ana"));
        REQUIRE(ana != nullptr);
        CHECK_FALSE(ana->access.privileges.has(tw::Privilege::Select));
        CHECK(ana->access.privileges.has(tw::Privilege::Insert));  // a mask restricts reads only
        CHECK(withheld_for_no_columns(*ana));
        // The owner, whom the mask does not reach, reads it; a view listing its column is masked.
        CHECK(privs(object(ps, "k.s.v"), user_index(*m, "own")) == Names{"SELECT"});
        const tw::AccessClass* full = find_access(object(ps, "k.s.full"), user_index(*m, "ana"));
        REQUIRE(full != nullptr);
        CHECK(full->access.privileges.has(tw::Privilege::Select));
        CHECK(full->access.masks.size() == 1);
        const tw::Finding* f = nullptr;
        for (const auto& x : pc.findings) {
          if (x.code == "mask_without_columns") f = &x;
        }
        REQUIRE(f != nullptr);
        CHECK(f->subjects == Names{"k.s.v"});
      }
    }
  }
}

TEST_CASE("a view listing its columns keeps SELECT under a mask: no finding", "[policies][views]") {
  auto m = model_of(snapshot(", columns: [{name: e, type: varchar}]", kMask));
  tw::ProfileCompile pc = tw::compile_profile(*m, trino_profile({"k"}));
  REQUIRE(pc.policy_set);
  const tw::AccessClass* ana = find_access(object(*pc.policy_set, "k.s.v"), user_index(*m, "ana"));
  REQUIRE(ana != nullptr);
  CHECK(ana->access.privileges.has(tw::Privilege::Select));
  CHECK_FALSE(withheld_for_no_columns(*ana));
  for (const auto& x : pc.findings) CHECK(x.code != "mask_without_columns");
}

TEST_CASE("StarRocks: a row filter reaching an object with no typed column coarsens, never ON ()",
          "[policies][views][starrocks]") {
  const std::string filter =
      "{name: f, type: row_filter, scope: {object: k.s.t}, applies_to: {users: [ana]}, condition: {column: region, op: "
      "eq, value: EU}}";
  auto m = model_of(snapshot(", columns: []", filter));
  const tw::PolicySet ps = must_compile(*m, starrocks(true));
  tw::starrocks::PlanOptions options;
  options.capabilities = {true, true};
  tw::starrocks::PlanRender r = tw::starrocks::render_plan(ps, options);
  REQUIRE(r.plan);
  const auto statements = tw::starrocks::diff_statements(*r.plan, tw::starrocks::LiveState{});
  const std::string text = tw::starrocks::statements_text(*r.plan, statements);
  INFO(text);
  CHECK(text.find("ON ()") == std::string::npos);
  CHECK(text.find("AS ()") == std::string::npos);
  // The base keeps its row access policy; on the view ana is coarsened: no SELECT on it for her.
  CHECK(text.find("ADD ROW ACCESS POLICY") != std::string::npos);
  const tw::starrocks::Securable view_v{tw::starrocks::Securable::Kind::View, "k", "s", "v"};
  const auto* held = r.plan->holding("ana", view_v);
  CHECK((held == nullptr || !held->privileges->count("SELECT")));
  const auto* own = r.plan->holding("own", view_v);
  REQUIRE(own != nullptr);
  CHECK(own->privileges->count("SELECT"));
}

TEST_CASE("StarRocks: an object with no typed column gets no row access policy, and a warning says so",
          "[policies][starrocks]") {
  // Found by the audit: a {"true": true} filter, or a gate, on an object listing no columns (or
  // only types no policy can take) wrote CREATE ROW ACCESS POLICY ... AS () and ADD ... ON ().
  const std::string snapshot = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: a}, {name: b}]
roles: [r]
role_assignments: [{role: r, user: a}]
classifications: [{name: P, clearance: [{type: role, name: r}]}]
objects:
  - {name: k.s.t, owner: a}
  - {name: k.s.u, owner: a, columns: [{name: u, type: uuid}]}
  - {name: k.s.g, owner: a, tags: [P]}
grants:
  - {principal: {user: a}, object: "k.s.*", privileges: [SELECT]}
  - {principal: {user: b}, object: "k.s.*", privileges: [SELECT]}
policies:
  - {name: f, type: row_filter, scope: {object: k.s.t}, condition: {"true": true}, applies_to: {users: [a]}}
  - {name: f2, type: row_filter, scope: {object: k.s.u}, condition: {"true": true}, applies_to: {users: [a]}}
)";
  auto m = model_of(snapshot);
  const tw::PolicySet ps = must_compile(*m, starrocks(true));
  tw::starrocks::PlanOptions options;
  options.capabilities = {true, true};
  tw::starrocks::PlanRender r = tw::starrocks::render_plan(ps, options);
  REQUIRE(r.plan);
  const std::string text =
      tw::starrocks::statements_text(*r.plan, tw::starrocks::diff_statements(*r.plan, tw::starrocks::LiveState{}));
  INFO(text);
  CHECK(text.find("()") == std::string::npos);
  CHECK(text.find("ROW ACCESS POLICY") == std::string::npos);
  std::vector<std::string> flagged;
  for (const auto& f : r.plan->findings) {
    if (f.code == "starrocks_row_policy_without_column")
      flagged.insert(flagged.end(), f.subjects.begin(), f.subjects.end());
  }
  std::sort(flagged.begin(), flagged.end());
  CHECK(flagged == Names{"k.s.g", "k.s.t", "k.s.u"});
}
