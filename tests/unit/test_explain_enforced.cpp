// explain says what the engine enforces, where it differs from the PolicySet's decision: Trino
// refuses a DEFINER view to everybody when its owner cannot read its bases, and a hash, partial or
// full mask on a non-string column is a typed NULL in both engines.

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/compile/explain.h"

using namespace twtest;

namespace {

const char* kSnapshot = R"yaml(
version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: owner}
  - {name: ana}
  - {name: bo}
roles: [r, pii]
role_assignments:
  - {role: r, user: ana}
  - {role: r, user: owner}
  - {role: r, user: bo}
  - {role: pii, user: bo}
classifications:
  - name: PII
    clearance:
      - {type: role, name: pii}
objects:
  - {name: cat.s.t, kind: table, owner: owner, columns: [{name: email, type: varchar, tags: [PII]}, {name: n, type: int}]}
  - {name: cat.s.v, kind: view, owner: owner, view_security: definer, depends_on: [cat.s.t], columns: [{name: n, type: int}]}
  - {name: cat.s.w, kind: view, owner: bo, view_security: definer, depends_on: [cat.s.t], columns: [{name: n, type: int}]}
  - {name: cat.s.x, kind: view, owner: owner, view_security: invoker, depends_on: [cat.s.t], columns: [{name: n, type: int}]}
grants:
  - principal: {role: r}
    object: "cat.s.*"
    privileges: [SELECT]
policies: []
)yaml";

const char* kMasks = R"yaml(
version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: owner}
  - {name: ana}
roles: [r]
role_assignments:
  - {role: r, user: ana}
  - {role: r, user: owner}
classifications: []
objects:
  - name: cat.s.t
    kind: table
    owner: owner
    columns:
      - {name: email, type: varchar}
      - {name: n, type: int}
      - {name: d, type: date}
      - {name: c, type: "char(3)"
}
      - {name: z, type: int}
grants:
  - principal: {role: r}
    object: "cat.s.*"
    privileges: [SELECT]
policies:
  - {name: he, type: column_mask, mask: hash, scope: {column: cat.s.t.email}, applies_to: {users: [ana]}}
  - {name: hn, type: column_mask, mask: hash, scope: {column: cat.s.t.n}, applies_to: {users: [ana]}}
  - {name: fd, type: column_mask, mask: full, scope: {column: cat.s.t.d}, applies_to: {users: [ana]}}
  - {name: pc, type: column_mask, mask: partial, visible_chars: 2, scope: {column: cat.s.t.c}, applies_to: {users: [ana]}}
  - {name: nz, type: column_mask, mask: "null", scope: {column: cat.s.t.z}, applies_to: {users: [ana]}}
)yaml";

const tw::Refusal* refusal(const tw::ProfileExplanation& p, const std::string& object) {
  for (const auto& r : p.refusals) {
    if (r.object == object) return &r;
  }
  return nullptr;
}

tw::Profile starrocks_profile() {
  tw::Profile p;
  p.name = "sr";
  p.engine = tw::Engine::StarRocks;
  p.catalogs = {"cat"};
  p.masking = "on";
  return p;
}

}  // namespace

TEST_CASE("explain: a DEFINER view whose owner cannot read some base columns is refused in part on Trino",
          "[explain]") {
  auto m = model_of(kSnapshot);
  const tw::PolicySet ps = must_compile(*m, trino_profile({"cat"}));
  // bo is cleared for PII and reads v; its owner is not cleared for t.email.
  const tw::Explanation e = tw::explain_user(*m, {ps}, "bo");
  const tw::ProfileExplanation& p = e.profiles.at(0);
  const tw::Refusal* v = refusal(p, "cat.s.v");
  REQUIRE(v);
  CHECK(v->kind == "definer_view_owner");
  CHECK_FALSE(v->whole_object);
  CHECK(v->reason ==
        "every query of it that reads what its owner owner may not read fails: cat.s.t (email): Trino reads a "
        "DEFINER view as its owner");
  CHECK(refusal(p, "cat.s.w") == nullptr);  // bo owns w and reads all of t
  CHECK(refusal(p, "cat.s.x") == nullptr);  // SECURITY INVOKER
  CHECK(refusal(p, "cat.s.t") == nullptr);
  CHECK_THAT(tw::to_text(e), Catch::Contains("  refused cat.s.v in part on Trino: every query of it"));
  const nlohmann::json refused = tw::to_json(e)["profiles"][0]["refused"];
  REQUIRE(refused.size() == 1);
  CHECK(refused[0]["kind"] == "definer_view_owner");
  CHECK(refused[0]["whole_object"] == false);
  CHECK(refused[0]["reason"] == v->reason);

  SECTION("a user refused the view by its own gate is not told again") {
    const tw::Explanation a = tw::explain_user(*m, {ps}, "ana");  // not cleared: v inherits PII
    for (const auto& r : a.profiles.at(0).refusals) CHECK(r.kind == "clearance");
  }
  SECTION("only Trino reads a DEFINER view as its owner") {
    const tw::Profile sr = starrocks_profile();
    const tw::PolicySet sps = must_compile(*m, sr);
    const tw::Explanation s = tw::explain_user(*m, {sps}, "bo", {}, {sr});
    for (const auto& r : s.profiles.at(0).refusals) CHECK(r.kind != "definer_view_owner");
  }
}

TEST_CASE("explain: hash, partial and full masks on a non-string column are enforced as a typed NULL", "[explain]") {
  auto m = model_of(kMasks);
  const tw::Profile sr = starrocks_profile();
  const tw::Profile tr = trino_profile({"cat"}, "tr");
  const std::vector<tw::PolicySet> sets = {must_compile(*m, sr), must_compile(*m, tr)};
  const tw::Explanation e = tw::explain_user(*m, sets, "ana", {}, {sr, tr});
  REQUIRE(e.profiles.size() == 2);
  const nlohmann::json j = tw::to_json(e);
  for (std::size_t i = 0; i < 2; ++i) {
    const bool trino = e.profiles[i].engine == tw::Engine::Trino;
    INFO(e.profiles[i].profile);
    REQUIRE(e.profiles[i].policies.size() == 1);
    const tw::ObjectPolicies& o = e.profiles[i].policies[0];
    REQUIRE(o.masks.size() == o.effective.masks.size());
    std::map<std::string, nlohmann::json> masks;
    for (const auto& mk : j["profiles"][i]["access_policies"][0]["effective"]["masks"]) masks[mk["column"]] = mk;
    REQUIRE(masks.size() == 5);
    // String columns keep the policy's mask.
    CHECK(masks["email"] == nlohmann::json({{"column", "email"}, {"mask", "hash"}}));
    CHECK(masks["c"] == nlohmann::json({{"column", "c"}, {"mask", "partial"}, {"visible_chars", 2}}));
    CHECK(masks["z"] == nlohmann::json({{"column", "z"}, {"mask", "null"}}));
    // The others are a typed NULL, and say why.
    CHECK(masks["n"]["mask"] == "null");
    CHECK(masks["n"]["policy_mask"] == "hash");
    CHECK(masks["n"]["reason"] == (trino ? "a hash mask cannot type-check against n, a non-string column (integer): "
                                           "Trino applies a typed NULL, CAST(NULL AS integer)"
                                         : "a hash mask cannot type-check against n, a non-string column (INT): "
                                           "StarRocks applies a typed NULL, CAST(NULL AS INT)"));
    CHECK(masks["d"]["mask"] == "null");
    CHECK(masks["d"]["policy_mask"] == "full");
    CHECK_THAT(masks["d"]["reason"].get<std::string>(), Catch::StartsWith("a full mask cannot type-check against d"));
  }
  const std::string text = tw::to_text(e);
  CHECK_THAT(text, Catch::Contains("      mask on n enforced as null: a hash mask cannot type-check against n, a "
                                   "non-string column (integer): Trino applies a typed NULL, CAST(NULL AS integer)\n"));
  CHECK_THAT(text, !Catch::Contains("mask on email enforced"));
}

TEST_CASE("explain reports the enforced masks without changing the decision a renderer is given", "[explain]") {
  auto m = model_of(kMasks);
  const tw::PolicySet ps = must_compile(*m, trino_profile({"cat"}));
  const tw::ExpressionRenderer kinds = [](const tw::Access& a) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& mk : a.masks) j[mk.column] = tw::to_string(mk.kind);
    return j;
  };
  const tw::Explanation e = tw::explain_user(*m, {ps}, "ana", {{tw::Engine::Trino, kinds}});
  const tw::ObjectPolicies& o = e.profiles.at(0).policies.at(0);
  // Renderers type the masks themselves (the typed NULL is theirs); explain only reports it.
  CHECK(o.expressions["n"] == "hash");
  CHECK(o.expressions["d"] == "full");
  REQUIRE(o.masks.size() == o.effective.masks.size());
  for (std::size_t k = 0; k < o.masks.size(); ++k) {
    CHECK(o.masks[k].column == o.effective.masks[k].column);
    CHECK(o.masks[k].policy_kind == o.effective.masks[k].kind);
  }
}
