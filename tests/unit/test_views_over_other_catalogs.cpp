// A view whose base is in a catalog the Trino profile does not cover: the profile's rules refuse
// that catalog to everybody, so Trino reads the base for nobody, as the DEFINER view's owner or as
// an INVOKER view's reader. The view is refused to everybody; the findings and explain say so.

#include <string>

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/compile/explain.h"

using namespace twtest;

namespace {

const std::string kSnapshot = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: a}, {name: own}]
objects:
  - {name: c.s.base, owner: own, columns: [{name: id, type: bigint}]}
  - {name: x.s.base, owner: own, columns: [{name: id, type: bigint}]}
  - {name: c.s.v_in, kind: view, owner: own, depends_on: [c.s.base], columns: [{name: id, type: bigint}]}
  - {name: c.s.v_out, kind: view, owner: own, depends_on: [x.s.base], columns: [{name: id, type: bigint}]}
  - {name: c.s.inv_out, kind: view, view_security: invoker, owner: own, depends_on: [x.s.base], columns: [{name: id, type: bigint}]}
grants:
  - {principal: {user: a}, object: "c.s.*", privileges: [SELECT]}
  - {principal: {user: a}, object: "x.*.*", privileges: [SELECT]}
  - {principal: {user: own}, object: "*.*.*", privileges: [SELECT]}
)";

const tw::Refusal* refusal(const tw::ProfileExplanation& p, const std::string& object) {
  for (const auto& r : p.refusals) {
    if (r.object == object) return &r;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a DEFINER view over a base outside the Trino profile is reported refused to everybody", "[views]") {
  auto m = model_of(kSnapshot);
  const tw::Profile profile = trino_profile({"c"});
  tw::ProfileCompile pc = tw::compile_profile(*m, profile);
  REQUIRE(pc.policy_set);
  std::vector<const tw::Finding*> cannot_read;
  for (const auto& f : pc.findings) {
    if (f.code == "definer_view_owner_cannot_read") cannot_read.push_back(&f);
  }
  // v_in: the owner reads its base (a grant on every catalog); v_out: the base's catalog x is not the profile's.
  REQUIRE(cannot_read.size() == 1);
  CHECK(cannot_read[0]->subjects == Names{"c.s.v_out", "own"});
  CHECK_THAT(cannot_read[0]->message, Catch::Contains("x.s.base") && Catch::Contains("add the catalog of x.s.base"));

  const tw::Explanation e = tw::explain_user(*m, {*pc.policy_set}, "a");
  REQUIRE(e.profiles.size() == 1);
  const tw::ProfileExplanation& p = e.profiles[0];
  CHECK(refusal(p, "c.s.v_in") == nullptr);
  const tw::Refusal* out = refusal(p, "c.s.v_out");
  REQUIRE(out != nullptr);
  CHECK(out->kind == "definer_view_owner");
  CHECK(out->whole_object);
  // An INVOKER view reads its base as its reader, who is refused catalog x on this profile too.
  const tw::Refusal* inv = refusal(p, "c.s.inv_out");
  REQUIRE(inv != nullptr);
  CHECK(inv->kind == "view_read");
  CHECK(inv->whole_object);
  CHECK_THAT(inv->reason, Catch::Contains("x.s.base as a"));

  // Covering the catalog serves the views: no finding, no refusal.
  auto both = trino_profile({"c", "x"});
  tw::ProfileCompile pc2 = tw::compile_profile(*m, both);
  REQUIRE(pc2.policy_set);
  for (const auto& f : pc2.findings) CHECK(f.code != "definer_view_owner_cannot_read");
  const tw::Explanation e2 = tw::explain_user(*m, {*pc2.policy_set}, "a");
  CHECK(refusal(e2.profiles[0], "c.s.v_out") == nullptr);
  CHECK(refusal(e2.profiles[0], "c.s.inv_out") == nullptr);
}
