// Trino reads a materialized view as its owner, as it reads a DEFINER view (docs/semantics.md):
// a materialized view whose owner is not cleared for its bases' tags is refused to everybody, the
// cleared included. MODEL §2 asks for a finding naming the view and the owner; without one the
// operator learns it only from `explain` or from the users locked out.

#include <string>

#include <catch2/catch.hpp>

#include "helpers.h"

using namespace twtest;

namespace {

// alice is cleared for Secret, bob (who owns both materialized views) is not. mv reads t, whose
// whole object is Secret; mvc reads u, whose column ssn only is.
const char* kSnapshot = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: alice}, {name: bob}]
roles: [steward]
role_assignments: [{role: steward, user: alice}]
classifications:
  - {name: Secret, clearance: [{type: role, name: steward}]}
objects:
  - {name: w.s.t, kind: table, tags: [Secret], columns: [{name: id, type: bigint}]}
  - {name: w.s.u, kind: table, columns: [{name: id, type: bigint}, {name: ssn, type: varchar, tags: [Secret]}]}
  - {name: w.s.mv, kind: materialized_view, owner: bob, depends_on: [w.s.t], columns: [{name: id, type: bigint}]}
  - {name: w.s.mvc, kind: materialized_view, owner: bob, depends_on: [w.s.u], columns: [{name: id, type: bigint}]}
  - {name: w.s.other, kind: materialized_view, owner: nobody_cleared, depends_on: [w.s.t],
     columns: [{name: id, type: bigint}]}
grants:
  - {principal: {user: alice}, object: "w.*.*", privileges: [SELECT]}
  - {principal: {user: bob}, object: "w.*.*", privileges: [SELECT]}
policies: []
)";

std::string with_owner(const std::string& owner) {
  std::string text = kSnapshot;
  const std::string placeholder = "nobody_cleared";
  text.replace(text.find(placeholder), placeholder.size(), owner);
  return text;
}

const tw::Finding* finding_for(const tw::ProfileCompile& pc, const std::string& code, const std::string& view) {
  for (const auto& f : pc.findings) {
    if (f.code == code && !f.subjects.empty() && f.subjects.front() == view) return &f;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a materialized view whose owner is not cleared is reported, as a DEFINER view is",
          "[compiler][views][findings]") {
  auto m = model_of(with_owner("alice"));
  tw::ProfileCompile pc = tw::compile_profile(*m, trino_profile({"w"}));
  REQUIRE(pc.policy_set);

  const tw::Finding* whole = finding_for(pc, "definer_view_owner_not_cleared", "w.s.mv");
  REQUIRE(whole);
  CHECK(whole->severity == tw::Severity::Warning);
  CHECK(whole->subjects == Names{"w.s.mv", "bob"});
  CHECK_THAT(whole->message, Catch::StartsWith("materialized view w.s.mv is owned by bob, who is not cleared for "
                                               "Secret: on Trino the view is refused to everybody, the cleared "
                                               "included, because its owner cannot read w.s.t"));
  // A materialized view has no SECURITY INVOKER to switch to.
  CHECK_THAT(whole->message, !Catch::Contains("INVOKER"));

  const tw::Finding* partly = finding_for(pc, "definer_view_owner_not_cleared", "w.s.mvc");
  REQUIRE(partly);
  CHECK(partly->subjects == Names{"w.s.mvc", "bob"});
  CHECK_THAT(partly->message, Catch::Contains("reads the columns its owner may not read fails for everybody, the "
                                              "cleared included: w.s.u (ssn)"));

  // Owned by the cleared alice: nothing to report.
  CHECK(finding_for(pc, "definer_view_owner_not_cleared", "w.s.other") == nullptr);
  CHECK(finding_for(pc, "definer_view_owner_cannot_read", "w.s.other") == nullptr);
}

TEST_CASE("a materialized view whose cleared owner holds no grant on its base is reported",
          "[compiler][views][findings]") {
  std::string text = with_owner("alice");
  // alice keeps her clearance but loses every grant: the view reads w.s.t as her and is refused.
  const std::string alice_grant = "  - {principal: {user: alice}, object: \"w.*.*\", privileges: [SELECT]}\n";
  text.erase(text.find(alice_grant), alice_grant.size());
  auto m = model_of(text);
  tw::ProfileCompile pc = tw::compile_profile(*m, trino_profile({"w"}));
  REQUIRE(pc.policy_set);
  const tw::Finding* f = finding_for(pc, "definer_view_owner_cannot_read", "w.s.other");
  REQUIRE(f);
  CHECK(f->subjects == Names{"w.s.other", "alice"});
  CHECK_THAT(f->message, Catch::StartsWith("materialized view w.s.other is owned by alice: on Trino the view is "
                                           "refused to everybody"));
  CHECK_THAT(f->message, Catch::Contains("no grant on w.s.t"));
}
