// MODEL.md §3: StarRocks needs one policy per tagged column and one per tagged object, counted per
// profile; over `max_policies_per_tag` the profile fails whole, naming the tag, the count and the
// limit. docs/starrocks.md says what is counted: the tag's columns plus the objects carrying it
// whole that the profile sees, views and materialized views carrying it from their bases
// included; a tag that gates nothing in the engines is not counted unless a mask or row filter is
// scoped to it. The per-tag limit test counts
// columns only; these cases pin the rest of what is counted (traceability audit).

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/compile/compiler.h"

using namespace twtest;

namespace {

// T (gated) on: the table c.s.t whole (1), the view c.s.v over it (1, inherited), the column
// c.s.u.a (1): 3 in catalog c. Catalog d holds one more T column, invisible to the profile.
// U has no clearance and G names only a group: they gate nothing and need no policy.
const std::string kSnapshot = R"(
version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: ana}]
roles: [steward]
classifications:
  - {name: T, clearance: [{type: role, name: steward}]}
  - {name: U}
  - {name: G, clearance: [{type: group, name: auditors}]}
objects:
  - {name: c.s.t, owner: ana, tags: [T], columns: [{name: a}]}
  - {name: c.s.v, kind: view, owner: ana, depends_on: [c.s.t], columns: [{name: a}]}
  - {name: c.s.u, owner: ana, columns: [{name: a, tags: [T]}]}
  - {name: c.s.m, owner: ana, columns: [{name: a, tags: [U, G]}, {name: b, tags: [U, G]}, {name: c, tags: [U, G]}]}
  - {name: d.s.x, owner: ana, columns: [{name: a, tags: [T]}]}
grants:
  - {principal: {user: ana}, object: "*.*.*", privileges: [SELECT]}
)";

tw::Profile starrocks(int limit) {
  tw::Profile p;
  p.name = "sr";
  p.engine = tw::Engine::StarRocks;
  p.catalogs = {"c"};
  p.max_policies_per_tag = limit;
  return p;
}

}  // namespace

TEST_CASE("the per-tag limit counts objects carrying the tag whole and views inheriting it", "[starrocks][limit]") {
  const auto m = model_of(kSnapshot);
  const tw::ProfileCompile at = tw::compile_profile(*m, starrocks(3));
  CHECK(at.errors.empty());
  CHECK(at.policy_set.has_value());

  const tw::ProfileCompile over = tw::compile_profile(*m, starrocks(2));
  CHECK_FALSE(over.policy_set.has_value());
  REQUIRE(over.errors.size() == 1);
  CHECK_THAT(over.errors[0], Catch::StartsWith("classification T needs 3 StarRocks policies") &&
                                 Catch::Contains("max_policies_per_tag = 2"));
}

TEST_CASE("tags that gate nothing in the engines need no StarRocks policy and are not counted", "[starrocks][limit]") {
  // U and G reach 3 columns each; with a limit of 1 only T (3) fails the profile.
  const tw::ProfileCompile pc = tw::compile_profile(*model_of(kSnapshot), starrocks(1));
  REQUIRE(pc.errors.size() == 1);
  CHECK_THAT(pc.errors[0], Catch::StartsWith("classification T needs 3"));
}

TEST_CASE("a tag that gates nothing but scopes a mask or row filter is counted: it needs a policy per column",
          "[starrocks][limit]") {
  // U (no clearance) on 3 columns of c.s.m: a mask scoped to U makes 3 masking policies. A deny
  // scoped to G makes none (StarRocks withholds the privileges), nor does a disabled mask.
  for (const std::string& policy : {std::string("{name: m, type: column_mask, mask: full, scope: {tag: U}}"),
                                    std::string("{name: f, type: row_filter, scope: {tag: U}, condition: {true: "
                                                "true}}")}) {
    INFO(policy);
    const auto m = model_of(kSnapshot + "policies:\n  - " + policy + "\n");
    const tw::ProfileCompile over = tw::compile_profile(*m, starrocks(2));
    REQUIRE(over.errors.size() == 2);  // T (3) and U (3)
    CHECK_THAT(over.errors[1], Catch::StartsWith("classification U needs 3 StarRocks policies"));
    CHECK(tw::compile_profile(*m, starrocks(3)).errors.empty());
  }
  for (const std::string& policy :
       {std::string("{name: d, type: deny, scope: {tag: G}}"),
        std::string("{name: m, enabled: false, type: column_mask, mask: full, scope: {tag: U}}")}) {
    INFO(policy);
    const auto m = model_of(kSnapshot + "policies:\n  - " + policy + "\n");
    const tw::ProfileCompile pc = tw::compile_profile(*m, starrocks(2));
    REQUIRE(pc.errors.size() == 1);
    CHECK_THAT(pc.errors[0], Catch::StartsWith("classification T needs 3"));
  }
}

TEST_CASE("a level_at_least mask or filter is counted for each classification at or above the level",
          "[starrocks][limit]") {
  // U (level 5, no clearance) on 3 columns of c.s.m: a mask scoped to level 3 and up makes one
  // masking policy per column of U, as a mask scoped to U does. Level 6 reaches no classification.
  std::string leveled = kSnapshot;
  leveled.replace(leveled.find("- {name: U}"), 11, "- {name: U, level: 5}");
  for (const char* type : {"column_mask, mask: full", "row_filter, condition: {true: true}"}) {
    INFO(type);
    const auto m = model_of(leveled + "policies:\n  - {name: p, type: " + type + ", scope: {level_at_least: 3}}\n");
    const tw::ProfileCompile over = tw::compile_profile(*m, starrocks(2));
    REQUIRE(over.errors.size() == 2);  // T (3) and U (3)
    CHECK_THAT(over.errors[1], Catch::StartsWith("classification U needs 3 StarRocks policies"));
    CHECK(tw::compile_profile(*m, starrocks(3)).errors.empty());
    const auto above = model_of(leveled + "policies:\n  - {name: p, type: " + type + ", scope: {level_at_least: 6}}\n");
    REQUIRE(tw::compile_profile(*above, starrocks(2)).errors.size() == 1);  // T only
  }
}
