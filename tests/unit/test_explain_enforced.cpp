// explain says what the engine enforces, where it differs from the PolicySet's decision: Trino
// refuses a DEFINER view to everybody when its owner cannot read its bases.

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
