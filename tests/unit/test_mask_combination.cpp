// Two masks on one column for one principal combine to the strictest (MODEL §4: null > full >
// hash > partial, fewer visible characters stricter). Two partial masks combine value by value:
// 'partial 4' fully masks '123' where 'partial 2' shows '****23', so the combination keeps the
// fewer visible characters and fully masks up to the longer length (found by a seeds audit: the
// combination of partial 4 and partial 2 read '****23').

#include <string>

#include <catch2/catch.hpp>

#include "engines/trino/expressions.h"
#include "helpers.h"
#include "tagwarden/compile/explain.h"
#include "tagwarden/engines/starrocks/sql.h"

using namespace twtest;

namespace {

tw::ColumnMask mask(tw::MaskKind kind, int visible_chars = 0) { return {"v", kind, visible_chars, "varchar"}; }

const char* kTwoPartials = R"yaml(
version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: owner}
  - {name: ana}
  - {name: bo}
roles: [r, strict]
role_assignments:
  - {role: r, user: ana}
  - {role: r, user: bo}
  - {role: strict, user: bo}
classifications: []
objects:
  - {name: cat.s.t, kind: table, owner: owner, columns: [{name: pin, type: varchar}]}
grants:
  - principal: {role: r}
    object: "cat.s.*"
    privileges: [SELECT]
policies:
  - {name: four, type: column_mask, mask: partial, visible_chars: 4, scope: {column: cat.s.t.pin}}
  - {name: two, type: column_mask, mask: partial, visible_chars: 2, scope: {column: cat.s.t.pin},
     applies_to: {roles: [strict]}}
)yaml";

}  // namespace

TEST_CASE("masks: the stricter kind wins whatever the order", "[mask]") {
  const tw::MaskKind order[] = {tw::MaskKind::Partial, tw::MaskKind::Hash, tw::MaskKind::Full, tw::MaskKind::Null};
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 4; ++j) {
      const tw::ColumnMask a = mask(order[i], order[i] == tw::MaskKind::Partial ? 3 : 0);
      const tw::ColumnMask b = mask(order[j], order[j] == tw::MaskKind::Partial ? 3 : 0);
      CHECK(tw::strictest(a, b).kind == order[std::max(i, j)]);
      CHECK(tw::strictest(a, b) == tw::strictest(b, a));
    }
  }
}

TEST_CASE("masks: two partial masks show no value more than either alone", "[mask]") {
  const tw::ColumnMask four = mask(tw::MaskKind::Partial, 4), two = mask(tw::MaskKind::Partial, 2);
  const tw::ColumnMask both = tw::strictest(four, two);
  CHECK(both == tw::strictest(two, four));
  CHECK(both.visible_chars == 2);
  CHECK(both.fully_masked_through() == 4);
  CHECK(tw::describe(both) == "partial 2 (4 or fewer characters fully masked)");
  CHECK(tw::trino::mask_expression(both) ==
        "CASE WHEN length(\"v\") <= 4 THEN '****' ELSE concat('****', substr(\"v\", -2)) END");
  CHECK(tw::starrocks::sql::mask_expression(both, "`v`", "VARCHAR(65533)") ==
        "CAST(CASE WHEN char_length(`v`) <= 4 THEN '****' ELSE concat('****', right(`v`, 2)) END AS VARCHAR(65533))");

  SECTION("a third partial mask keeps the longest fully masked length and the fewest characters") {
    const tw::ColumnMask three = mask(tw::MaskKind::Partial, 3);
    CHECK(tw::strictest(both, three) == both);
    CHECK(tw::strictest(three, both) == both);
    const tw::ColumnMask one = tw::strictest(both, mask(tw::MaskKind::Partial, 1));
    CHECK(one.visible_chars == 1);
    CHECK(one.fully_masked_through() == 4);
    const tw::ColumnMask eight = tw::strictest(both, mask(tw::MaskKind::Partial, 8));
    CHECK(eight.visible_chars == 2);
    CHECK(eight.fully_masked_through() == 8);
  }
  SECTION("equal partial masks are that mask, with nothing more to say") {
    CHECK(tw::strictest(four, four) == four);
    CHECK(tw::describe(four) == "partial 4");
    CHECK(tw::trino::mask_expression(four) ==
          "CASE WHEN length(\"v\") <= 4 THEN '****' ELSE concat('****', substr(\"v\", -4)) END");
  }
  SECTION("a stricter kind replaces the combination") {
    CHECK(tw::strictest(both, mask(tw::MaskKind::Hash)) == mask(tw::MaskKind::Hash));
  }
}

TEST_CASE("masks: a principal under two partial policies gets the combination in every output", "[mask]") {
  auto m = model_of(kTwoPartials);
  const tw::PolicySet ps = must_compile(*m, trino_profile({"cat"}));
  const tw::ObjectPolicy& t = object(ps, "cat.s.t");
  const tw::AccessClass* bo = find_access(t, user_index(*m, "bo"));
  const tw::AccessClass* ana = find_access(t, user_index(*m, "ana"));
  REQUIRE(bo);
  REQUIRE(ana);
  REQUIRE(bo->access.masks.size() == 1);
  CHECK(bo->access.masks[0].visible_chars == 2);
  CHECK(bo->access.masks[0].fully_masked_through() == 4);
  REQUIRE(ana->access.masks.size() == 1);
  CHECK(ana->access.masks[0].visible_chars == 4);
  CHECK(ana->access.masks[0].fully_masked_through() == 4);

  const nlohmann::json policy_set = tw::to_json(ps);
  CHECK(policy_set.dump().find("\"fully_masked_through\":4") != std::string::npos);

  const nlohmann::json explained = tw::to_json(tw::explain_user(*m, {ps}, "bo"));
  const nlohmann::json masks = explained["profiles"][0]["access_policies"][0]["effective"]["masks"];
  REQUIRE(masks.size() == 1);
  CHECK(masks[0]["visible_chars"] == 2);
  CHECK(masks[0]["fully_masked_through"] == 4);
  const nlohmann::json ana_masks =
      tw::to_json(tw::explain_user(*m, {ps}, "ana"))["profiles"][0]["access_policies"][0]["effective"]["masks"];
  REQUIRE(ana_masks.size() == 1);
  CHECK_FALSE(ana_masks[0].contains("fully_masked_through"));
}
