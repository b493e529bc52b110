// Trino expands views as it reads them: a DEFINER view or a materialized view reads its bases as
// its owner (asking for GRANT_SELECT unless the owner is the reader), an INVOKER view as whoever
// reads it, nested views alike. explain must say when a read on the way is refused, and the rules
// must give a DEFINER view's owner GRANT_SELECT on what an INVOKER view among its bases reads.
// Found by tests/differential/explain_check.py against Trino's evaluator.

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/compile/explain.h"

using namespace twtest;

namespace {

const tw::Refusal* refusal(const tw::ProfileExplanation& p, const std::string& object) {
  for (const auto& r : p.refusals) {
    if (r.object == object) return &r;
  }
  return nullptr;
}

// ana may read every object; mv_owner and blind hold no grant on cat.s.t.
const char* kViews = R"yaml(
version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: ana}
  - {name: o}
  - {name: blind}
  - {name: mv_owner}
roles: [r]
role_assignments:
  - {role: r, user: ana}
  - {role: r, user: o}
classifications: []
objects:
  - {name: cat.s.t, kind: table, owner: o, columns: [{name: n, type: int}]}
  - {name: cat.s.mv, kind: materialized_view, owner: mv_owner, depends_on: [cat.s.t], columns: [{name: n, type: int}]}
  - {name: cat.s.w, kind: view, owner: blind, view_security: definer, depends_on: [cat.s.t], columns: [{name: n, type: int}]}
  - {name: cat.s.v, kind: view, owner: o, view_security: definer, depends_on: [cat.s.w], columns: [{name: n, type: int}]}
  - {name: cat.s.iv, kind: view, owner: o, view_security: invoker, depends_on: [cat.s.t], columns: [{name: n, type: int}]}
  - {name: cat.s.over, kind: view, owner: o, view_security: definer, depends_on: [cat.s.iv], columns: [{name: n, type: int}]}
grants:
  - {principal: {role: r}, object: "cat.s.*", privileges: [SELECT]}
  - {principal: {user: blind}, object: "cat.s.iv", privileges: [SELECT]}
  - {principal: {user: mv_owner}, object: "cat.s.mv", privileges: [SELECT]}
  - {principal: {user: blind}, object: "cat.s.w", privileges: [SELECT]}
policies: []
)yaml";

}  // namespace

TEST_CASE("explain: a materialized view whose owner cannot read its base is refused on Trino", "[explain][views]") {
  auto m = model_of(kViews);
  const tw::PolicySet ps = must_compile(*m, trino_profile({"cat"}));
  const tw::Explanation e = tw::explain_user(*m, {ps}, "ana");
  const tw::Refusal* r = refusal(e.profiles.at(0), "cat.s.mv");
  REQUIRE(r);
  CHECK(r->kind == "view_read");
  CHECK(r->whole_object);
  CHECK_THAT(r->reason, Catch::StartsWith("Trino may not read cat.s.t as mv_owner, so every query of it fails"));
}

TEST_CASE("explain: a view over a view refused to everybody is refused too", "[explain][views]") {
  auto m = model_of(kViews);
  const tw::PolicySet ps = must_compile(*m, trino_profile({"cat"}));
  const tw::Explanation e = tw::explain_user(*m, {ps}, "ana");
  const tw::ProfileExplanation& p = e.profiles.at(0);
  const tw::Refusal* w = refusal(p, "cat.s.w");  // the direct case keeps its wording
  REQUIRE(w);
  CHECK(w->kind == "definer_view_owner");
  const tw::Refusal* v = refusal(p, "cat.s.v");  // o reads w; w reads t as blind, who may not
  REQUIRE(v);
  CHECK(v->kind == "view_read");
  CHECK(v->whole_object);
  CHECK_THAT(v->reason, Catch::StartsWith("Trino may not read cat.s.t as blind through cat.s.w,"));
  CHECK_THAT(tw::to_text(e), Catch::Contains("  refused cat.s.v on Trino: Trino may not read cat.s.t as blind"));
}

TEST_CASE("explain: a SECURITY INVOKER view is refused to a reader who cannot read its base", "[explain][views]") {
  auto m = model_of(kViews);
  const tw::PolicySet ps = must_compile(*m, trino_profile({"cat"}));
  const tw::Explanation blind = tw::explain_user(*m, {ps}, "blind");
  const tw::Refusal* iv = refusal(blind.profiles.at(0), "cat.s.iv");
  REQUIRE(iv);
  CHECK(iv->kind == "view_read");
  CHECK_THAT(iv->reason, Catch::StartsWith("Trino may not read cat.s.t as blind, so every query of it fails"));
  CHECK(refusal(tw::explain_user(*m, {ps}, "ana").profiles.at(0), "cat.s.iv") == nullptr);
}

TEST_CASE("a DEFINER view's owner gets GRANT_SELECT on what an INVOKER view among its bases reads", "[trino][views]") {
  auto m = model_of(kViews);
  const tw::PolicySet ps = must_compile(*m, trino_profile({"cat"}));
  // over (DEFINER, owner o) reads iv (INVOKER), which Trino reads as o under the owner's check:
  // o needs GRANT_SELECT on t as on iv, or over is refused to everybody but o.
  for (const char* object : {"cat.s.iv", "cat.s.t"}) {
    INFO(object);
    const tw::AccessClass* cls = find_access(twtest::object(ps, object), user_index(*m, "o"));
    REQUIRE(cls);
    CHECK(cls->access.grant_select);
  }
  const tw::AccessClass* ana = find_access(twtest::object(ps, "cat.s.t"), user_index(*m, "ana"));
  REQUIRE(ana);
  CHECK_FALSE(ana->access.grant_select);
  // And explain, judging the compiled rules, finds nothing refused on the way.
  CHECK(refusal(tw::explain_user(*m, {ps}, "ana").profiles.at(0), "cat.s.over") == nullptr);
}
